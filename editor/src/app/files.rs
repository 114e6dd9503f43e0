//! The editor's document on disk: opening and saving scenes, importing glTF
//! models (menu or dropped files), the recent-files list, and the autosave
//! and recovery files that survive a crash.

use std::path::{Path, PathBuf};

use keel_engine::SceneError;

use crate::action::Action;
use crate::app::EditorApp;
use crate::chrome::dialogs::{Dialog, FileDialog, FilePurpose};
use crate::document::Document;
use crate::panels::inspector::Inspector;
use crate::persist::{self, Autosave, RecentFiles};
use crate::status::{PlayState, Status};

/// What the editor keeps about files beside the open document.
pub struct Files {
    /// The recent-files list (File → Open Recent).
    pub(crate) recent: RecentFiles,
    /// Where the recent-files list and untitled autosaves go (`None`: nowhere).
    pub(crate) config_dir: Option<PathBuf>,
    /// When unsaved edits are next written aside.
    pub(crate) autosave: Autosave,
    /// Text for the system clipboard, handed to egui at the end of the frame.
    pub(crate) clipboard_out: Option<String>,
}

impl Files {
    /// The recently used scene files, newest first.
    pub fn recent(&self) -> &[PathBuf] {
        &self.recent.paths
    }

    /// Puts `path` first in the recent-files list and saves the list.
    pub(crate) fn touch_recent(&mut self, path: &Path, status: &mut Status) {
        self.recent.touch(path);
        if let Some(dir) = &self.config_dir
            && let Err(e) = self.recent.save(&RecentFiles::file_in(dir))
        {
            status.error(format!("recent files: {e}"));
        }
    }

    /// Where `doc`'s unsaved edits are written aside.
    pub(crate) fn recovery_path(&self, doc: &Document) -> Option<PathBuf> {
        persist::recovery_path(doc.path.as_deref(), self.config_dir.as_deref())
    }

    /// A recovery file newer than `doc`'s file, to offer.
    pub(crate) fn recovery_to_offer(&self, doc: &Document) -> Option<PathBuf> {
        self.recovery_path(doc)
            .filter(|recovery| persist::recovery_is_newer(recovery, doc.path.as_deref()))
    }

    /// Deletes `doc`'s recovery file, if there is one.
    pub(crate) fn remove_recovery(&self, doc: &Document) {
        if let Some(path) = self.recovery_path(doc) {
            // Absent is the usual case; any other failure only leaves a stale autosave.
            let _ = std::fs::remove_file(path);
        }
    }

    /// Writes `doc`'s unsaved edits to its recovery file now (live mode does
    /// it before a swap).
    ///
    /// # Errors
    /// The scene error (I/O) naming the file; nothing is written for an
    /// untitled scene without a config folder.
    pub fn write_recovery(&self, doc: &Document) -> Result<Option<PathBuf>, SceneError> {
        let Some(path) = self.recovery_path(doc) else {
            return Ok(None);
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| SceneError::Io {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        doc.scene().to_file().write(&path)?;
        Ok(Some(path))
    }

    /// Writes `doc`'s unsaved edits aside when the autosave interval is up.
    pub(crate) fn autosave_if_due(&mut self, now: f64, doc: &Document, status: &mut Status) {
        if self.autosave.due(now, doc.is_dirty(), doc.undo.revision()) {
            // Done either way: a failing disk is retried next interval, not every frame.
            self.autosave.done(now, doc.undo.revision());
            match self.write_recovery(doc) {
                Ok(Some(path)) => log::info!("autosaved to {}", path.display()),
                Ok(None) => {}
                Err(e) => status.error(format!("autosave failed: {e}")),
            }
        }
    }

    /// The chooser for `purpose`, starting at `doc`'s file (or the last one).
    pub(crate) fn file_dialog(&self, purpose: FilePurpose, doc: &Document) -> FileDialog {
        let formats = doc.scene().assets().importers();
        FileDialog::new(purpose, &self.dialog_start(doc), &formats)
    }

    /// Where a file chooser starts: `doc`'s file, else the last one opened,
    /// else `scene.ron` in the working folder.
    pub(crate) fn dialog_start(&self, doc: &Document) -> PathBuf {
        doc.path
            .clone()
            .or_else(|| self.recent.paths.first().cloned())
            .unwrap_or_else(|| {
                std::env::current_dir()
                    .unwrap_or_default()
                    .join("scene.ron")
            })
    }
}

impl EditorApp {
    /// Opens a scene now, asking nothing (a failure keeps the current scene
    /// and shows the error).
    pub fn open_now(&mut self, path: &Path) {
        let assets = self.doc.scene().assets().clone();
        match Document::open(path, &assets) {
            Ok(doc) => {
                self.replace_document(doc);
                self.files.touch_recent(path, &mut self.status);
                self.status
                    .info(format!("Opened {}", self.doc.display_name()));
                if let Some(recovery) = self.files.recovery_to_offer(&self.doc) {
                    self.dialog = Some(Dialog::Recovery { recovery });
                }
            }
            Err(e) => {
                let title = format!("Could not open {}", path.display());
                self.dialog = Some(Dialog::error(title, &e, &mut self.status));
            }
        }
    }

    pub(crate) fn replace_document(&mut self, doc: Document) {
        self.doc = doc;
        self.play.input.release();
        super::playback::build_world(&self.game, &mut self.doc, &mut self.status);
        // The models only the old scene used are let go of.
        let released = self.doc.scene().assets().release_unused();
        if released.models > 0 {
            log::info!("released {released:?}");
        }
        self.views.viewport.reset_camera();
        self.play.state = PlayState::Editing;
        self.play.snapshot = None;
        self.files.autosave.reset();
        self.workspace.inspector = Inspector::default();
    }

    pub(crate) fn save_to(&mut self, path: &Path) -> bool {
        let old_recovery = self.files.recovery_path(&self.doc);
        match self.doc.save_to(path) {
            Ok(()) => {
                if let Some(old) = old_recovery {
                    let _ = std::fs::remove_file(old);
                }
                self.files.remove_recovery(&self.doc);
                self.files.autosave.reset();
                self.files.touch_recent(path, &mut self.status);
                self.status
                    .info(format!("Saved {}", self.doc.display_name()));
                true
            }
            Err(e) => {
                let title = format!("Could not save {}", path.display());
                self.dialog = Some(Dialog::error(title, &e, &mut self.status));
                false
            }
        }
    }
}

/// Model files dropped on the window become imports; anything else is
/// named in the status bar and left alone.
pub(crate) fn collect_dropped(
    ctx: &egui::Context,
    doc: &Document,
    actions: &mut Vec<Action>,
    status: &mut Status,
) {
    let dropped = ctx.input(|i| i.raw.dropped_files.clone());
    for file in dropped {
        let path = file.path();
        if path.as_os_str().is_empty() {
            continue;
        }
        let formats = doc.scene().assets().importers();
        if formats.reads(path) {
            actions.push(Action::ImportPath(path.to_path_buf()));
        } else {
            let expected = formats.extensions().join(", .");
            status.error(format!(
                "{}: only model files (.{expected}) can be dropped here",
                path.display()
            ));
        }
    }
}

/// Imports the model at `path` under `doc`'s selected node (or at the
/// root), selects it and reports what the import skipped.
///
/// # Errors
/// The dialog that shows why the model could not be read.
pub(crate) fn import(doc: &mut Document, path: &Path, status: &mut Status) -> Result<(), Dialog> {
    let parent = doc.selection.primary().filter(|&n| doc.editable(n).is_ok());
    match doc.import_model(parent, path) {
        Ok((_, warnings)) if warnings.is_empty() => {
            status.info(format!("Imported {}", path.display()));
        }
        Ok((_, warnings)) => {
            for warning in &warnings {
                log::warn!("{warning}");
            }
            let first = &warnings[0];
            status.error(format!(
                "Imported {} with {} warning(s), first: {first}",
                path.display(),
                warnings.len()
            ));
        }
        Err(crate::undo::EditError::Scene { source, .. }) => {
            let title = "Could not import the model".to_owned();
            return Err(Dialog::error(title, &source, status));
        }
        Err(e) => status.error(e.to_string()),
    }
    Ok(())
}
