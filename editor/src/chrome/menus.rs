//! The editor's top bar (menus, then the toolbar on the same line, as
//! Godot's) and status line, drawn from the parts they show: every command
//! they offer is an [`Action`] pushed for the app to apply, as the shortcuts'
//! are; only the view's own settings (overlays, gizmo, time scale, the
//! panels' layout) change in place.

use std::path::PathBuf;

use egui::{Button, Color32, RichText};

use crate::action::Action;
use crate::chrome::dock::{Layout, Panel};
use crate::document::Document;
use crate::panels::gizmo::{GizmoMode, GizmoSettings, GizmoSpace, Pivot};
use crate::panels::scene_view::ViewOptions;
use crate::status::{PlayState, Status};

/// The keys of `action`'s shortcut, from the table that dispatches them.
fn keys(ui: &egui::Ui, action: &Action) -> String {
    crate::chrome::shortcuts::text_for(ui.ctx(), action)
}

/// What the top bar shows and changes.
pub(crate) struct TopBar<'a> {
    /// The document: its history's labels, selection and clock.
    pub(crate) doc: &'a mut Document,
    /// The recent-files list.
    pub(crate) recent: &'a [PathBuf],
    /// The panels' layout (the View menu opens and closes them).
    pub(crate) layout: &'a mut Layout,
    /// Set when the View menu changed the layout.
    pub(crate) layout_changed: &'a mut bool,
    /// The 3D views' overlays.
    pub(crate) options: &'a mut ViewOptions,
    /// The gizmo's settings.
    pub(crate) gizmo: &'a mut GizmoSettings,
    /// Editing, playing or paused.
    pub(crate) play: PlayState,
    /// Whether Play was pressed (Reset goes back to then).
    pub(crate) can_reset: bool,
    /// The scene a prefab was opened from, shown as "Back to ..." (prefab mode).
    pub(crate) parked: Option<String>,
    /// What the user asked for.
    pub(crate) actions: &'a mut Vec<Action>,
}

impl TopBar<'_> {
    /// The menus, then the toolbar.
    pub(crate) fn ui(&mut self, ui: &mut egui::Ui) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                if ui
                    .add(Button::new("New").shortcut_text(keys(ui, &Action::New)))
                    .clicked()
                {
                    self.actions.push(Action::New);
                }
                if ui
                    .add(Button::new("Open…").shortcut_text(keys(ui, &Action::Open)))
                    .clicked()
                {
                    self.actions.push(Action::Open);
                }
                if ui
                    .add(Button::new("Save").shortcut_text(keys(ui, &Action::Save)))
                    .clicked()
                {
                    self.actions.push(Action::Save);
                }
                if ui
                    .add(Button::new("Save As…").shortcut_text(keys(ui, &Action::SaveAs)))
                    .clicked()
                {
                    self.actions.push(Action::SaveAs);
                }
                ui.separator();
                if ui.button("Import model…").clicked() {
                    self.actions.push(Action::Import);
                }
                ui.separator();
                ui.menu_button("Recent files", |ui| {
                    if self.recent.is_empty() {
                        ui.weak("None yet");
                    }
                    for path in self.recent {
                        if ui.button(path.display().to_string()).clicked() {
                            self.actions.push(Action::OpenPath(path.clone()));
                        }
                    }
                });
                ui.separator();
                if ui
                    .add(Button::new("Quit").shortcut_text(keys(ui, &Action::Quit)))
                    .clicked()
                {
                    self.actions.push(Action::Quit);
                }
            });
            ui.menu_button("Edit", |ui| {
                let undo = self.doc.undo.undo_label().map(|l| format!("Undo {l}"));
                let redo = self.doc.undo.redo_label().map(|l| format!("Redo {l}"));
                if ui
                    .add_enabled(
                        undo.is_some(),
                        Button::new("Undo").shortcut_text(keys(ui, &Action::Undo)),
                    )
                    .on_hover_text(undo.unwrap_or_default())
                    .clicked()
                {
                    self.actions.push(Action::Undo);
                }
                if ui
                    .add_enabled(
                        redo.is_some(),
                        Button::new("Redo").shortcut_text(keys(ui, &Action::Redo)),
                    )
                    .on_hover_text(redo.unwrap_or_default())
                    .clicked()
                {
                    self.actions.push(Action::Redo);
                }
                ui.separator();
                let some = !self.doc.selection.is_empty();
                if ui
                    .add_enabled(
                        some,
                        Button::new("Duplicate").shortcut_text(keys(ui, &Action::Duplicate)),
                    )
                    .clicked()
                {
                    self.actions.push(Action::Duplicate);
                }
                if ui
                    .add_enabled(
                        some,
                        Button::new("Delete").shortcut_text(keys(ui, &Action::Delete)),
                    )
                    .clicked()
                {
                    self.actions.push(Action::Delete);
                }
                if ui
                    .add_enabled(
                        some,
                        Button::new("Rename").shortcut_text(keys(ui, &Action::Rename)),
                    )
                    .clicked()
                {
                    self.actions.push(Action::Rename);
                }
            });
            ui.menu_button("View", |ui| {
                for panel in Panel::ALL {
                    let mut open = self.layout.is_open(panel);
                    if ui.checkbox(&mut open, panel.title()).changed() {
                        self.layout.set_open(panel, open);
                        *self.layout_changed = true;
                    }
                }
                if ui.button("Reset layout").clicked() {
                    *self.layout = Layout::default();
                    *self.layout_changed = true;
                }
                ui.separator();
                ui.checkbox(&mut self.options.octree_cells, "Octree cells");
                ui.checkbox(&mut self.options.colliders, "Colliders and contacts");
                ui.checkbox(&mut self.options.aabbs, "Bounding boxes");
                ui.checkbox(
                    &mut self.options.dirty_highlight,
                    "Highlight recomputed (dirty flag)",
                );
                ui.separator();
                if ui
                    .add(
                        Button::new("Frame selection")
                            .shortcut_text(keys(ui, &Action::FrameSelection)),
                    )
                    .clicked()
                {
                    self.actions.push(Action::FrameSelection);
                }
            });
            ui.menu_button("Help", |ui| {
                let label =
                    Button::new("Keyboard shortcuts").shortcut_text(keys(ui, &Action::Shortcuts));
                if ui.add(label).clicked() {
                    self.actions.push(Action::Shortcuts);
                }
            });
            ui.separator();
            // The toolbar in the window's style, not the menus'.
            ui.scope(|ui| {
                *ui.style_mut() = (*ui.ctx().global_style()).clone();
                self.toolbar_ui(ui);
            });
        });
    }

    /// Play controls, time scale and gizmo settings, after the menus in the
    /// top bar.
    fn toolbar_ui(&mut self, ui: &mut egui::Ui) {
        if let Some(scene) = &self.parked {
            if ui
                .button(format!("Back to {scene}"))
                .on_hover_text("Leave the prefab for the scene it was opened from")
                .clicked()
            {
                self.actions.push(Action::BackFromPrefab);
            }
            ui.separator();
        }
        let playing = self.play == PlayState::Playing;
        if ui.add_enabled(!playing, Button::new("Play")).clicked() {
            self.actions.push(Action::Play);
        }
        if ui.add_enabled(playing, Button::new("Pause")).clicked() {
            self.actions.push(Action::Pause);
        }
        if ui
            .add(Button::new("Step"))
            .on_hover_text("Run one fixed update")
            .clicked()
        {
            self.actions.push(Action::Step);
        }
        if ui
            .add_enabled(self.can_reset, Button::new("Reset"))
            .on_hover_text("Back to the scene as it was when Play was pressed")
            .clicked()
        {
            self.actions.push(Action::Reset);
        }
        let state = match self.play {
            PlayState::Editing => "Editing",
            PlayState::Playing => "Playing",
            PlayState::Paused => "Paused",
        };
        ui.label(RichText::new(state).weak());
        ui.separator();
        let mut scale = self.doc.world.clock().time_scale();
        // A drag value, not a slider: the top bar fits a 1280-point window.
        let value = egui::DragValue::new(&mut scale)
            .range(0.0..=4.0)
            .speed(0.01)
            .max_decimals(2)
            .prefix("time ×");
        let response = ui
            .add(value)
            .accessible_name("time scale")
            .on_hover_text("How fast the simulation runs (drag, or click and type)");
        if response.changed() {
            self.doc.world.clock_mut().set_time_scale(scale);
        }
        ui.separator();
        for mode in GizmoMode::ALL {
            ui.selectable_value(&mut self.gizmo.mode, mode, mode.label());
        }
        ui.separator();
        for space in [GizmoSpace::Local, GizmoSpace::World] {
            ui.selectable_value(&mut self.gizmo.space, space, space.label());
        }
        ui.separator();
        for pivot in [Pivot::Median, Pivot::Active] {
            ui.selectable_value(&mut self.gizmo.pivot, pivot, pivot.label())
                .on_hover_text("What a multi-selection turns and scales about");
        }
        ui.separator();
        ui.toggle_value(&mut self.gizmo.snap, "Snap")
            .on_hover_text("Drags move in whole steps (or hold Ctrl while dragging)");
        let steps = &mut self.gizmo.steps;
        let _ = ui
            .add(
                egui::DragValue::new(&mut steps.translate)
                    .speed(0.05)
                    .range(0.01..=100.0),
            )
            .accessible_name("Snap distance");
        let _ = ui
            .add(
                egui::DragValue::new(&mut steps.rotate_degrees)
                    .speed(1.0)
                    .range(1.0..=180.0)
                    .suffix("°"),
            )
            .accessible_name("Snap angle");
        let _ = ui
            .add(
                egui::DragValue::new(&mut steps.scale)
                    .speed(0.01)
                    .range(0.01..=10.0),
            )
            .accessible_name("Snap scale");
    }
}

/// The status line: the message, the count of warnings not yet seen (a
/// button to the Log while the Log is not shown), and the scene's size.
pub(crate) fn status_line(
    ui: &mut egui::Ui,
    status: &Status,
    unseen: u64,
    log_shown: bool,
    doc: &Document,
    actions: &mut Vec<Action>,
) {
    ui.horizontal(|ui| {
        let text = RichText::new(status.text());
        let text = if status.is_error() {
            text.color(Color32::from_rgb(230, 70, 70))
        } else {
            text
        };
        ui.label(text);
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if unseen > 0 && !log_shown {
                let plural = if unseen == 1 { "" } else { "s" };
                let label = RichText::new(format!("{unseen} new warning{plural}"))
                    .color(ui.visuals().warn_fg_color);
                if ui.button(label).on_hover_text("Open the Log").clicked() {
                    actions.push(Action::ShowLog);
                }
            }
            let star = if doc.is_dirty() { " (unsaved)" } else { "" };
            ui.weak(format!(
                "{} nodes · {} selected{star}",
                doc.scene().len(),
                doc.selection.len()
            ));
        });
    });
}
