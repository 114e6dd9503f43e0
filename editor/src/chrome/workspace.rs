//! The panels inside the workspace's tabs: each [`Panel`] drawn by its own
//! UI, the tabs' titles (the Log's counts new warnings), closing, and the
//! layout written back to the config folder after the user changes it.

use egui_tiles::{Behavior, EditAction, SimplificationOptions, TileId, Tiles, UiResponse};

use crate::app::EditorApp;
use crate::chrome::dock::{Layout, Panel};
use crate::panels::assets::AssetBrowser;
use crate::panels::hierarchy::Hierarchy;
use crate::panels::inspector::Inspector;
use crate::panels::profiler::ProfilerTab;

/// The panels, their arrangement and the windows over them.
#[derive(Default)]
pub(crate) struct Workspace {
    /// The panels' arrangement.
    pub(crate) layout: Layout,
    /// Whether the arrangement changed since it was saved.
    pub(crate) layout_changed: bool,
    /// The keyboard shortcuts window (F1) is open.
    pub(crate) shortcuts_open: bool,
    /// The Hierarchy panel.
    pub(crate) hierarchy: Hierarchy,
    /// The Inspector panel.
    pub(crate) inspector: Inspector,
    /// The asset browser (the project's files).
    pub(crate) assets: AssetBrowser,
}

/// What egui_tiles calls back into while it lays out the tree.
struct Panes<'a> {
    app: &'a mut EditorApp,
    /// The user changed the layout this frame.
    edited: bool,
    /// Tabs whose close button was pressed this frame.
    closed: Vec<TileId>,
    /// Tabs behind another in their group (they show no close button).
    behind: Vec<TileId>,
}

impl Behavior<Panel> for Panes<'_> {
    fn pane_ui(&mut self, ui: &mut egui::Ui, _tile: TileId, panel: &mut Panel) -> UiResponse {
        let app = &mut *self.app;
        match *panel {
            Panel::Scene => {
                app.viewport_ui(ui);
            }
            Panel::Game => app.game_view_ui(ui),
            other => {
                egui::Frame::central_panel(ui.style()).show(ui, |ui| {
                    ui.set_min_size(ui.available_size());
                    app.panel_ui(ui, other);
                });
            }
        }
        UiResponse::None
    }

    fn tab_title_for_pane(&mut self, panel: &Panel) -> egui::WidgetText {
        let unseen = self
            .app
            .diagnostics
            .log_tab
            .unseen(&self.app.diagnostics.log);
        match panel {
            Panel::Log if unseen > 0 => format!("Log ({unseen} new)").into(),
            other => other.title().into(),
        }
    }

    /// The tab in front of its group shows its ×, the others not: the four
    /// tabs under the Inspector then fit the column of a 1400-point window.
    fn is_tab_closable(&self, _tiles: &Tiles<Panel>, tile: TileId) -> bool {
        !self.behind.contains(&tile)
    }

    /// Hides the tab (after this frame's layout pass, which still lays
    /// out its group) instead of removing it, so it reopens in its place.
    fn on_tab_close(&mut self, _tiles: &mut Tiles<Panel>, tile: TileId) -> bool {
        self.closed.push(tile);
        self.edited = true;
        false
    }

    fn on_edit(&mut self, action: EditAction) {
        if matches!(
            action,
            EditAction::TileResized | EditAction::TileDropped | EditAction::TabSelected
        ) {
            self.edited = true;
        }
    }

    fn simplification_options(&self) -> SimplificationOptions {
        SimplificationOptions {
            // Every panel sits in a tab group: its title is the handle to drag.
            all_panes_must_have_tabs: true,
            ..SimplificationOptions::default()
        }
    }
}

impl EditorApp {
    /// The panels other than the two 3D views.
    fn panel_ui(&mut self, ui: &mut egui::Ui, panel: Panel) {
        keel_engine::profile::puffin::profile_scope!("panel", panel.title());
        match panel {
            Panel::Hierarchy => self
                .workspace
                .hierarchy
                .ui(ui, &mut self.doc, &mut self.status),
            Panel::Inspector => {
                self.workspace
                    .inspector
                    .ui(ui, &mut self.doc, &mut self.status);
                if let Some(request) = self.workspace.inspector.prefab_request.take() {
                    self.prefab_request(request);
                }
            }
            Panel::Assets => {
                if let Some(request) = self.workspace.assets.ui(ui, &self.doc) {
                    self.browser_request(request);
                }
            }
            Panel::Timeline => self.timeline_ui(ui),
            Panel::Stats => crate::panels::stats::stats_ui(ui, &self.views.stats),
            Panel::Log => self
                .diagnostics
                .log_tab
                .ui(ui, &self.diagnostics.log, &mut self.doc),
            Panel::Profiler => self.diagnostics.profiler.ui(ui),
            Panel::Scene | Panel::Game => {}
        }
    }

    /// Draws the workspace into the space the menus and status line leave.
    pub(crate) fn workspace_ui(&mut self, ui: &mut egui::Ui) {
        // A view drawn this frame sets its rect again; the shell renders only those.
        self.views.viewport.rect = None;
        self.views.game.rect = None;
        let mut layout = std::mem::replace(&mut self.workspace.layout, Layout::empty());
        let behind = layout.tabs_behind();
        let mut panes = Panes {
            app: self,
            edited: false,
            closed: Vec::new(),
            behind,
        };
        layout.tree_mut().ui(&mut panes, ui);
        let edited = panes.edited;
        for tile in panes.closed {
            layout.tree_mut().set_visible(tile, false);
        }
        self.workspace.layout = layout;
        if self.views.game.rect.is_none() && self.play.input.focused() {
            // The game has the input only while its view is on screen.
            self.play.input.release();
        }
        self.workspace.layout_changed |= edited;
        let dragging = ui.input(|i| i.pointer.any_down());
        if self.workspace.layout_changed && !dragging {
            self.save_layout();
        }
    }

    /// Writes the layout to the config folder (if there is one).
    fn save_layout(&mut self) {
        self.workspace.layout_changed = false;
        let Some(path) = self.files.config_dir.as_deref().map(Layout::file_in) else {
            return;
        };
        if let Err(e) = self.workspace.layout.save(&path) {
            self.status
                .error(format!("Could not save the panel layout: {e}"));
        }
    }

    /// The layout saved in the config folder, else the default; a file that
    /// cannot be read is reported in the status line and the log.
    pub(crate) fn load_layout(&mut self) {
        let Some(path) = self.files.config_dir.as_deref().map(Layout::file_in) else {
            return;
        };
        match Layout::load(&path) {
            Ok(Some(layout)) => self.workspace.layout = layout,
            Ok(None) => {}
            Err(e) => self
                .status
                .error(format!("{e}; the default panel layout is used instead")),
        }
    }

    /// The Profiler tab's state and the frames it recorded.
    pub fn profiler(&self) -> &ProfilerTab {
        &self.diagnostics.profiler
    }

    /// The Profiler tab's state (the shell files GPU pass times in it).
    pub fn profiler_mut(&mut self) -> &mut ProfilerTab {
        &mut self.diagnostics.profiler
    }

    /// Ends the profiled frame and starts the next (recording while the
    /// Profiler tab is shown).
    pub(crate) fn begin_profiled_frame(&mut self) {
        let shown = self.workspace.layout.is_shown(Panel::Profiler);
        self.diagnostics.profiler.new_frame(shown);
    }

    /// The panels' arrangement.
    pub fn layout(&self) -> &Layout {
        &self.workspace.layout
    }

    /// The panels' arrangement, to open or close panels (saved with the
    /// next frame).
    pub fn layout_mut(&mut self) -> &mut Layout {
        self.workspace.layout_changed = true;
        &mut self.workspace.layout
    }

    /// Opens a panel and brings it to the front for this run, without
    /// saving that in the user's layout (a script's screenshot of it).
    pub fn show_panel(&mut self, panel: Panel) {
        self.workspace.layout.open(panel);
    }

    /// Puts the panels back as a new installation has them.
    pub(crate) fn reset_layout(&mut self) {
        self.workspace.layout = Layout::default();
        self.workspace.layout_changed = true;
    }
}
