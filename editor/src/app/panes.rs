//! The panels inside the workspace's tabs: each [`Panel`] drawn by its own
//! UI, the tabs' titles (the Log's counts new warnings), closing, and the
//! layout saved after the user changes it; and the app's accessors to them.

use egui_tiles::{Behavior, EditAction, SimplificationOptions, TileId, Tiles, UiResponse};

use crate::action::Action;
use crate::app::EditorApp;
use crate::chrome::dock::{Layout, Panel};
use crate::panels::assets::BrowserRequest;
use crate::panels::inspector::prefab::PrefabRequest;

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
                let frame = app.views.take_frame_request();
                app.views
                    .viewport
                    .ui(ui, app.views.gizmo, frame, &mut app.doc, &mut app.status);
            }
            Panel::Game => {
                app.views
                    .game
                    .ui(ui, app.doc.scene(), app.play.state, &mut app.play.input);
            }
            other => {
                egui::Frame::central_panel(ui.style()).show(ui, |ui| {
                    ui.set_min_size(ui.available_size());
                    self.panel_ui(ui, other);
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

impl Panes<'_> {
    /// The panels other than the two 3D views.
    fn panel_ui(&mut self, ui: &mut egui::Ui, panel: Panel) {
        let app = &mut *self.app;
        keel_engine::profile::puffin::profile_scope!("panel", panel.title());
        match panel {
            Panel::Hierarchy => app
                .workspace
                .hierarchy
                .ui(ui, &mut app.doc, &mut app.status),
            Panel::Inspector => {
                app.workspace
                    .inspector
                    .ui(ui, &mut app.doc, &mut app.status);
                let asked = app.workspace.inspector.prefab_request.take();
                app.actions.extend(asked.map(|request| match request {
                    PrefabRequest::Open(path) => Action::OpenPrefab(path),
                    PrefabRequest::SaveAs(node) => Action::SavePrefabAs(node),
                }));
            }
            Panel::Assets => {
                let asked = app.workspace.assets.ui(ui, &app.doc);
                app.actions.extend(asked.map(|request| match request {
                    BrowserRequest::Open(path) => Action::OpenPath(path),
                }));
            }
            Panel::Timeline => {
                let previous = crate::panels::timeline::PreviousRunView {
                    kept: app.play.previous_run.kept(),
                    showing: app.play.previous_run.showing(),
                    shown: app.play.previous_run.shown(app.doc.step()),
                };
                crate::panels::timeline::timeline_ui(
                    ui,
                    &app.doc,
                    &mut app.play.record_budget_mb,
                    &previous,
                    app.play.divergence.as_ref(),
                    &mut app.actions,
                );
            }
            Panel::Stats => crate::panels::stats::stats_ui(ui, &app.views.stats),
            Panel::Log => app
                .diagnostics
                .log_tab
                .ui(ui, &app.diagnostics.log, &mut app.doc),
            Panel::Profiler => app.diagnostics.profiler.ui(ui),
            Panel::Scene | Panel::Game => {}
        }
    }
}

impl EditorApp {
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
            let config_dir = self.files.config_dir.as_deref();
            self.workspace.save_layout(config_dir, &mut self.status);
        }
    }
}
