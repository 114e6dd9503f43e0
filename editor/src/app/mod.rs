//! The editor's state and the frame that draws it: [`EditorApp`] holds the
//! document and the parts below and draws them with egui, knowing nothing of
//! windows or GPUs, so tests drive it headless (egui_kittest) and the window
//! shell only feeds it input and time.
//!
//! Game loop: the shell calls [`EditorApp::frame`] (the world runs the fixed
//! steps due) and then [`EditorApp::ui`], which applies the user's edits to the
//! world between steps, never during one. Panels and chrome know nothing of
//! the app: they draw what they are handed and return [`Action`]s, which
//! [`EditorApp::act`] carries out (as it does the shell's, live mode's and
//! tests' actions).
//!
//! - [`files`]: the document on disk: open, save, import, recent files,
//!   autosave and recovery.
//! - [`playback`]: Play, Pause, Step, Reset and seeks of the recording.
//! - [`prefab_mode`]: a prefab opened for editing, the scene parked behind it.
//! - [`watch`]: assets and scenes reloaded when their files change.
//! - [`previous_run`]: live mode's record of the previous build's run.
//! - [`workspace`]: the panels' arrangement and the panels' own state;
//!   `panes` draws them inside their tabs.
//! - [`views`] and [`diagnostics`]: the two 3D views' state; the log and
//!   the profiler.

pub(crate) mod diagnostics;
pub(crate) mod files;
mod panes;
pub(crate) mod playback;
pub(crate) mod prefab_mode;
pub(crate) mod previous_run;
pub(crate) mod views;
pub use diagnostics::Diagnostics;
pub use files::Files;
pub use playback::Playback;
pub use prefab_mode::PrefabMode;
pub use previous_run::PreviousRun;
pub use views::Views;
pub use workspace::Workspace;
pub(crate) mod watch;
pub(crate) mod workspace;

use std::path::PathBuf;

use keel_engine::{Game, Scene};

use crate::action::Action;
use crate::chrome::dialogs::{Dialog, DialogOutcome, FileDialog, FilePurpose, Pending};
use crate::chrome::dock;
use crate::chrome::menus::{TopBar, status_line};
use crate::document::Document;
use crate::panels::inspector::Inspector;
use crate::persist::{AUTOSAVE_INTERVAL, Autosave, RecentFiles};
use crate::status::Status;

/// How the editor starts.
#[derive(Clone, Debug, Default)]
pub struct EditorOptions {
    /// A scene file to open.
    pub scene: Option<PathBuf>,
    /// Where the recent-files list and untitled autosaves go (`None`: nowhere).
    pub config_dir: Option<PathBuf>,
    /// Start simulating at once.
    pub play: bool,
    /// Where the warnings and errors the Log tab lists are filed (the binary
    /// installs a [`CaptureLogger`](crate::log_book::CaptureLogger) filing into it).
    pub log: crate::log_book::LogBook,
    /// Time between autosaves of unsaved edits (`None`: every
    /// `AUTOSAVE_INTERVAL`).
    pub autosave: Option<std::time::Duration>,
    /// The game's plugins: its component types are known to every scene
    /// opened, its resources and systems run in every world.
    pub game: Game,
    /// The file and node limits every document is read within (the binary
    /// reads them from the environment at start).
    pub limits: keel_engine::files::ReadLimits,
    /// The folder of WGSL files watched for hot reload (`None`: shaders
    /// stay as built in; the binary names the source tree's folder).
    pub shader_dir: Option<PathBuf>,
}

/// The editor: document, panels and their state. Draw it with [`EditorApp::ui`].
pub struct EditorApp {
    /// The scene being edited.
    pub(crate) doc: Document,
    /// Recent files, autosave and the clipboard's outgoing text.
    pub(crate) files: files::Files,
    /// Scenes a prefab was opened from (prefab mode).
    pub(crate) prefabs: prefab_mode::PrefabMode,
    /// What is watched on disk for hot reload.
    pub(crate) watch: watch::AssetWatch,
    /// The scene viewport and the Game view (read by the scene renderer).
    pub(crate) views: Views,
    /// The panels, their arrangement and the windows over them.
    pub(crate) workspace: Workspace,
    /// Play, pause and the timeline's recording.
    pub(crate) play: Playback,
    /// The Log and Profiler tabs and what they list.
    pub(crate) diagnostics: Diagnostics,
    pub(crate) status: Status,
    pub(crate) dialog: Option<Dialog>,
    pub(crate) actions: Vec<Action>,
    pub(crate) quit: bool,
    /// The game's plugins, given to every document's world.
    pub(crate) game: Game,
}

impl EditorApp {
    /// Starts the editor: opens `options.scene` (a scene that fails to load
    /// shows its error over an empty scene), reads the recent-files list, and
    /// offers a recovery file newer than the scene.
    pub fn new(options: EditorOptions) -> Self {
        let (scene, play) = (options.scene.clone(), options.play);
        let mut app = Self::bare(options);
        if let Some(path) = scene {
            app.open_now(&path);
        } else {
            if let Some(recovery) = app.files.recovery_to_offer(&app.doc) {
                app.dialog = Some(Dialog::Recovery { recovery });
            }
        }
        if play {
            app.act(Action::Play);
        }
        app
    }

    /// The editor of `options` on an empty scene (no file opened, no
    /// recovery offered, no Play).
    pub(crate) fn bare(options: EditorOptions) -> Self {
        let doc = Document::untitled_in(&keel_engine::Assets::with_limits(options.limits));
        let registered = options.game.register(doc.scene().assets());
        let mut app = Self::with_game(doc, options.config_dir, options.game);
        if let Err(e) = registered {
            app.status.error(format!(
                "The game's plugins could not register their components: {e}"
            ));
        }
        app.diagnostics.log = options.log;
        app.watch.shader_dir = options.shader_dir;
        if let Some(interval) = options.autosave {
            app.files.autosave = Autosave::new(interval);
        }
        app
    }

    /// An editor around an existing document, whose worlds run `game`'s
    /// resources and systems (register its components in the document's
    /// assets first: [`Game::register`]).
    pub fn with_game(doc: Document, config_dir: Option<PathBuf>, game: Game) -> Self {
        let mut status = Status::default();
        let recent = match config_dir
            .as_deref()
            .map(|d| RecentFiles::load(&RecentFiles::file_in(d)))
        {
            Some(Ok(r)) => r,
            Some(Err(e)) => {
                status.error(format!("recent files: {e}"));
                RecentFiles::default()
            }
            None => RecentFiles::default(),
        };
        let mut app = Self {
            doc,
            files: files::Files {
                recent,
                config_dir,
                autosave: Autosave::new(AUTOSAVE_INTERVAL),
                clipboard_out: None,
            },
            prefabs: prefab_mode::PrefabMode::default(),
            watch: watch::AssetWatch::default(),
            views: Views::default(),
            workspace: Workspace::default(),
            play: Playback::default(),
            diagnostics: Diagnostics::default(),
            status,
            dialog: None,
            actions: Vec::new(),
            quit: false,
            game,
        };
        let config_dir = app.files.config_dir.as_deref();
        app.workspace.load_layout(config_dir, &mut app.status);
        playback::build_world(&app.game, &mut app.doc, &mut app.status);
        app
    }

    /// The Log and Profiler tabs with what they show.
    pub fn diagnostics(&self) -> &Diagnostics {
        &self.diagnostics
    }

    /// The Log and Profiler tabs, to file GPU times in the profiler.
    pub fn diagnostics_mut(&mut self) -> &mut Diagnostics {
        &mut self.diagnostics
    }

    /// The panels, their arrangement and the windows over them.
    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// The workspace, to open or close panels or filter the asset browser.
    pub fn workspace_mut(&mut self) -> &mut Workspace {
        &mut self.workspace
    }

    /// The status line.
    pub fn status(&self) -> &Status {
        &self.status
    }

    /// The status line, to say something there from outside the panels
    /// (live mode's build).
    pub fn status_mut(&mut self) -> &mut Status {
        &mut self.status
    }

    /// Play, pause and the timeline's recording: Play's state, the game's
    /// input, what a new build made of the steps played.
    pub fn playback(&self) -> &Playback {
        &self.play
    }

    /// Playback, to drive the game's input without a window.
    pub fn playback_mut(&mut self) -> &mut Playback {
        &mut self.play
    }

    /// The document's files: recent files, autosave and recovery.
    pub fn files(&self) -> &files::Files {
        &self.files
    }

    /// Prefab mode: the scenes a prefab was opened from.
    pub fn prefab_mode(&self) -> &PrefabMode {
        &self.prefabs
    }

    /// The world the views draw: the document's, or the previous build's
    /// run while the timeline shows it (see [`PreviousRun`]).
    pub fn shown_world_mut(&mut self) -> &mut keel_engine::World {
        (self.play.previous_run).world(&mut self.doc.world, self.doc.path.as_deref())
    }

    /// Whether a modal dialog is open.
    pub fn has_dialog(&self) -> bool {
        self.dialog.is_some()
    }

    /// Runs the fixed steps due by `time` and records the frame's stats.
    /// Call once per displayed frame, before [`EditorApp::ui`].
    pub fn frame(&mut self, time: &mut impl keel_engine::TimeSource) {
        self.run_world(|world, input| world.frame_with_input(time, input));
    }

    /// Like [`EditorApp::frame`] with a known elapsed time (tests, offline runs).
    pub fn advance(&mut self, elapsed: std::time::Duration) {
        self.run_world(|world, input| world.advance_with_input(elapsed, input));
    }

    /// One frame of the world by `run`, profiled, its stats recorded, a
    /// panicking system stopping Play.
    fn run_world(
        &mut self,
        run: impl FnOnce(
            &mut keel_engine::World,
            &mut keel_engine::input::InputCollector,
        ) -> keel_engine::FrameStats,
    ) {
        self.diagnostics
            .profiler
            .new_frame(self.workspace.layout.is_shown(dock::Panel::Profiler));
        keel_engine::profile::puffin::profile_scope!("world frame");
        let frame = run(&mut self.doc.world, self.play.input.collector());
        self.views.stats.record_frame(frame, &self.doc);
        self.play
            .stop_on_system_panic(&mut self.doc, &mut self.status);
    }

    /// Whether the editor is done and the window may close.
    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// The scene being edited.
    pub fn doc(&self) -> &Document {
        &self.doc
    }

    /// The scene being edited, to edit it from outside the panels (edits
    /// made here bypass undo unless they go through the document's commands).
    pub fn doc_mut(&mut self) -> &mut Document {
        &mut self.doc
    }

    /// The two 3D views' state: overlays, gizmo, stats, the viewport's
    /// camera and the Game view.
    pub fn views(&self) -> &Views {
        &self.views
    }

    /// The views' state, to move the camera or change what is shown.
    pub fn views_mut(&mut self) -> &mut Views {
        &mut self.views
    }

    /// Carries out `pending`, asking about unsaved changes first.
    pub(crate) fn request(&mut self, pending: Pending) {
        if self.doc.is_dirty() {
            self.dialog = Some(Dialog::ConfirmDiscard { then: pending });
        } else {
            self.perform(pending);
        }
    }

    pub(crate) fn perform(&mut self, pending: Pending) {
        match pending {
            Pending::New => {
                let assets = self.doc.scene().assets().clone();
                self.replace_document(Document::untitled_in(&assets));
                self.status.info("New scene");
            }
            Pending::Open(path) => self.open_now(&path),
            Pending::Quit => self.quit = true,
        }
    }

    /// Carries out what the user asked for, as the menus, the toolbar, the
    /// shortcuts and the panels ask for it (the window's close button:
    /// [`Action::Quit`]).
    pub fn act(&mut self, action: Action) {
        match action {
            Action::New => self.request(Pending::New),
            Action::Open => {
                self.dialog = Some(Dialog::File(
                    self.files.file_dialog(FilePurpose::Open, &self.doc),
                ));
            }
            Action::OpenPath(path) => self.request(Pending::Open(path)),
            Action::Save => match self.doc.path.clone() {
                Some(path) => {
                    self.save_to(&path);
                }
                None => self.act(Action::SaveAs),
            },
            Action::SaveAs => {
                self.dialog = Some(Dialog::File(
                    self.files.file_dialog(FilePurpose::SaveAs(None), &self.doc),
                ));
            }
            Action::Import => {
                self.dialog = Some(Dialog::File(
                    self.files.file_dialog(FilePurpose::Import, &self.doc),
                ));
            }
            Action::ImportPath(path) => {
                if let Err(dialog) = files::import(&mut self.doc, &path, &mut self.status) {
                    self.dialog = Some(dialog);
                }
            }
            Action::Quit => self.request(Pending::Quit),
            Action::Undo => {
                let result = self.doc.undo();
                let hierarchy = &mut self.workspace.hierarchy;
                report_history(
                    result,
                    hierarchy,
                    &mut self.status,
                    "Undid",
                    "Nothing to undo",
                );
            }
            Action::Redo => {
                let result = self.doc.redo();
                let hierarchy = &mut self.workspace.hierarchy;
                report_history(
                    result,
                    hierarchy,
                    &mut self.status,
                    "Redid",
                    "Nothing to redo",
                );
            }
            Action::Duplicate => match self.doc.duplicate_selection() {
                Ok(copies) => {
                    for &c in &copies {
                        self.workspace.hierarchy.reveal(self.doc.scene(), c);
                    }
                    if !copies.is_empty() {
                        self.status
                            .info(format!("Duplicated {} node(s)", copies.len()));
                    }
                }
                Err(e) => self.status.error(e.to_string()),
            },
            Action::Copy | Action::Cut => {
                let nodes = self.doc.selection.nodes().to_vec();
                if nodes.is_empty() {
                    return;
                }
                match self.doc.copy_text(&nodes) {
                    Ok(text) => {
                        self.files.clipboard_out = Some(text);
                        if action == Action::Cut {
                            self.act(Action::Delete);
                        } else {
                            self.status.info(format!("Copied {} node(s)", nodes.len()));
                        }
                    }
                    Err(e) => self.status.error(e.to_string()),
                }
            }
            Action::Paste(text) => match self.doc.paste_text(&text) {
                Ok(pasted) => {
                    for &node in &pasted {
                        self.workspace.hierarchy.reveal(self.doc.scene(), node);
                    }
                    self.status.info(format!("Pasted {} node(s)", pasted.len()));
                }
                Err(e) => self.status.error(e.to_string()),
            },
            Action::Delete => match self.doc.delete_selection() {
                Ok(0) => {}
                Ok(n) => self.status.info(format!("Deleted {n} node(s)")),
                Err(e) => self.status.error(e.to_string()),
            },
            Action::Rename => {
                if let Some(node) = self.doc.selection.primary() {
                    self.workspace
                        .hierarchy
                        .start_rename(self.doc.scene(), node);
                }
            }
            Action::FrameSelection => self.views.request_frame_selection(),
            Action::Play => {
                self.play.play(&mut self.doc);
                self.workspace.layout.open(dock::Panel::Game);
            }
            Action::Pause => self.play.pause(&mut self.doc),
            Action::Step => self.play.step(&mut self.doc),
            Action::StepBack => {
                let back = self.doc.step().saturating_sub(1);
                self.play.seek(&mut self.doc, back, &mut self.status);
            }
            Action::StepForward => self.play.step_forward(&mut self.doc, &mut self.status),
            Action::Seek(step) => self.play.seek(&mut self.doc, step, &mut self.status),
            Action::Reset => self.play.reset(&mut self.doc, &mut self.status),
            Action::Shortcuts => self.workspace.shortcuts_open = !self.workspace.shortcuts_open,
            Action::ShowLog => self.workspace.layout.open(dock::Panel::Log),
            Action::BackFromPrefab => {
                if self.prefabs.back(&mut self.doc, &mut self.status) {
                    self.workspace.inspector = Inspector::default();
                }
            }
            Action::ShowPreviousRun(shown) => {
                self.play.previous_run.show(shown);
            }
            Action::OpenPrefab(path) => {
                match self.prefabs.open(&mut self.doc, &path, &mut self.status) {
                    Ok(()) => self.workspace.inspector = Inspector::default(),
                    Err(e) => {
                        let title = format!("Could not open {}", path.display());
                        self.dialog = Some(Dialog::error(title, &e, &mut self.status));
                    }
                }
            }
            Action::SavePrefabAs(node) => {
                let name = self.doc.scene().name(node).unwrap_or("prefab");
                let start = self.files.dialog_start(&self.doc);
                let start = start.with_file_name(format!("{name}.ron"));
                self.dialog = Some(Dialog::File(FileDialog::new(
                    FilePurpose::SavePrefab(node),
                    &start,
                    &self.doc.scene().assets().importers(),
                )));
            }
            Action::RefreshPrefabs => prefab_mode::refresh(&mut self.doc, &mut self.status),
        }
    }

    /// Draws the whole editor into `ui` (the window's root) and applies what the user did.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        keel_engine::profile::puffin::profile_scope!("editor ui");
        // Before the shortcuts: keys the game has are not the editor's.
        self.play.input.take_events(ui.ctx(), self.views.game.rect);
        if self.dialog.is_none() {
            // None while a dialog has the keys.
            crate::chrome::shortcuts::collect(ui.ctx(), &mut self.actions);
        }
        files::collect_dropped(ui.ctx(), &self.doc, &mut self.actions, &mut self.status);

        egui::Panel::top("top_bar").show(ui, |ui| {
            TopBar {
                doc: &mut self.doc,
                recent: &self.files.recent.paths,
                layout: &mut self.workspace.layout,
                layout_changed: &mut self.workspace.layout_changed,
                options: &mut self.views.options,
                gizmo: &mut self.views.gizmo,
                play: self.play.state,
                can_reset: self.play.snapshot.is_some(),
                parked: self.prefabs.parked.last().map(Document::display_name),
                actions: &mut self.actions,
            }
            .ui(ui);
        });
        egui::Panel::bottom("status_bar").show(ui, |ui| {
            let unseen = self.diagnostics.log_tab.unseen(&self.diagnostics.log);
            let log_shown = self.workspace.layout.is_shown(dock::Panel::Log);
            status_line(
                ui,
                &self.status,
                unseen,
                log_shown,
                &self.doc,
                &mut self.actions,
            );
        });
        egui::CentralPanel::no_frame().show(ui, |ui| self.workspace_ui(ui));

        crate::chrome::shortcuts::window(ui.ctx(), &mut self.workspace.shortcuts_open);
        if let Some(dialog) = &mut self.dialog {
            let outcome = crate::chrome::dialogs::dialog_ui(ui, dialog, &self.doc.display_name());
            self.dialog_outcome(outcome);
        }

        let now = ui.input(|i| i.time);
        self.files.autosave_if_due(now, &self.doc, &mut self.status);
        let dragging = self.views.viewport.gizmo.dragging();
        self.prefabs
            .refresh_if_due(now, &mut self.doc, dragging, &mut self.status);
        self.reload_changed_files();

        for action in std::mem::take(&mut self.actions) {
            self.act(action);
        }
        if let Some(text) = self.files.clipboard_out.take() {
            ui.ctx().copy_text(text);
        }
    }

    pub(crate) fn dialog_outcome(&mut self, outcome: DialogOutcome) {
        match outcome {
            DialogOutcome::Open => {}
            DialogOutcome::Closed => self.dialog = None,
            DialogOutcome::PathChosen(purpose, path) => {
                self.dialog = None;
                match purpose {
                    FilePurpose::Open => self.request(Pending::Open(path)),
                    FilePurpose::Import => self.act(Action::ImportPath(path)),
                    FilePurpose::SavePrefab(node) => match self.doc.save_as_prefab(node, &path) {
                        Ok(_) => self.status.info(format!("Saved prefab {}", path.display())),
                        Err(e) => self.status.error(e.to_string()),
                    },
                    FilePurpose::SaveAs(then) => {
                        if self.save_to(&path)
                            && let Some(then) = then
                        {
                            self.perform(then);
                        }
                    }
                }
            }
            DialogOutcome::SaveThen(then) => {
                self.dialog = None;
                match self.doc.path.clone() {
                    Some(path) => {
                        if self.save_to(&path) {
                            self.perform(then);
                        }
                    }
                    None => {
                        self.dialog = Some(Dialog::File(
                            self.files
                                .file_dialog(FilePurpose::SaveAs(Some(then)), &self.doc),
                        ));
                    }
                }
            }
            DialogOutcome::DiscardThen(then) => {
                self.dialog = None;
                self.files.remove_recovery(&self.doc);
                self.perform(then);
            }
            DialogOutcome::Restore(recovery) => {
                self.dialog = None;
                let assets = self.doc.scene().assets().clone();
                match Scene::load(&recovery, &assets) {
                    Ok(scene) => {
                        let mut doc = Document::new(scene, self.doc.path.clone());
                        doc.mark_unsaved();
                        self.replace_document(doc);
                        self.status
                            .info("Restored the autosaved changes (not saved yet)");
                    }
                    Err(e) => {
                        let title = "Could not restore the autosave".to_owned();
                        self.dialog = Some(Dialog::error(title, &e, &mut self.status));
                    }
                }
            }
            DialogOutcome::ReloadFromDisk => {
                self.dialog = None;
                self.reload_document();
            }
            DialogOutcome::KeepMine => {
                self.dialog = None;
                self.doc.accept_disk_version();
            }
            DialogOutcome::DiscardRecovery(recovery) => {
                self.dialog = None;
                if let Err(e) = std::fs::remove_file(&recovery) {
                    self.status.error(format!("{}: {e}", recovery.display()));
                }
            }
        }
    }
}

/// Says in `status` what an undo or redo did, the Hierarchy following the
/// nodes it re-made.
fn report_history(
    result: Result<Option<crate::undo::Applied>, crate::undo::EditError>,
    hierarchy: &mut crate::panels::hierarchy::Hierarchy,
    status: &mut Status,
    verb: &str,
    nothing: &str,
) {
    match result {
        Ok(Some(applied)) => {
            hierarchy.remap(&applied.remap);
            status.info(format!("{verb} {}", applied.label));
        }
        Ok(None) => status.info(nothing),
        Err(e) => status.error(format!("{e} (that history entry was dropped)")),
    }
}
