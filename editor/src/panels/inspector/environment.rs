//! The inspector's environment panel, shown when nothing is selected (as a
//! scene's world settings are in Godot and Unity): background and ambient
//! colour, exposure, tonemapper and bloom, and the sun's shadows (cascades,
//! distance, resolution, depth bias and normal offset), the sky image, each
//! change one undoable edit.

use std::path::{Path, PathBuf};

use egui::Ui;
use keel_engine::Environment;
use keel_engine::scene::{MAX_CASCADES, Tonemapper};

use crate::panels::widgets::{Tracker, checkbox, color_row, number};

/// Shadow map sides offered (texels).
const RESOLUTIONS: [u32; 4] = [512, 1024, 2048, 4096];

/// Draws the editors of `env`; the tracker says whether any changed it.
pub(super) fn environment_ui(ui: &mut Ui, env: &mut Environment, tracker: &mut Tracker) {
    ui.strong("Environment");
    egui::Grid::new("environment_grid")
        .num_columns(2)
        .show(ui, |ui| {
            color_row(ui, "Background", &mut env.clear_color, tracker);
            color_row(ui, "Ambient", &mut env.ambient, tracker);
        });
    ui.add_space(4.0);
    ui.strong("Camera");
    let post = &mut env.post;
    egui::Grid::new("post_grid").num_columns(2).show(ui, |ui| {
        ui.label("Exposure (EV)");
        let r = ui
            .add(egui::Slider::new(&mut post.exposure, -8.0..=8.0))
            .accessible_name("Exposure");
        tracker.track(&r);
        ui.end_row();
        ui.label("Tone mapping");
        let before = post.tonemapper;
        let combo = egui::ComboBox::from_id_salt("tonemapper")
            .selected_text(post.tonemapper.label())
            .show_ui(ui, |ui| {
                for mapper in Tonemapper::ALL {
                    ui.selectable_value(&mut post.tonemapper, mapper, mapper.label());
                }
            });
        let _ = combo.response.accessible_name("Tonemapper");
        tracker.changed |= post.tonemapper != before;
        ui.end_row();
        checkbox(ui, "Bloom", &mut post.bloom, tracker);
        number(
            ui,
            "Bloom threshold",
            &mut post.bloom_threshold,
            0.05,
            Some(0.0),
            tracker,
        );
        number(
            ui,
            "Bloom intensity",
            &mut post.bloom_intensity,
            0.01,
            Some(0.0),
            tracker,
        );
    });
    ui.add_space(4.0);
    ui.strong("Sun shadows");
    let shadows = &mut env.shadows;
    egui::Grid::new("shadow_grid")
        .num_columns(2)
        .show(ui, |ui| {
            checkbox(ui, "Shadows", &mut shadows.enabled, tracker);
            ui.label("Cascades");
            let r = ui
                .add(egui::Slider::new(
                    &mut shadows.cascades,
                    1..=MAX_CASCADES as u32,
                ))
                .accessible_name("Cascades");
            tracker.track(&r);
            ui.end_row();
            number(
                ui,
                "Shadow distance",
                &mut shadows.distance,
                0.5,
                Some(1.0),
                tracker,
            );
            ui.label("Resolution");
            let before = shadows.resolution;
            let combo = egui::ComboBox::from_id_salt("shadow_resolution")
                .selected_text(shadows.resolution.to_string())
                .show_ui(ui, |ui| {
                    for side in RESOLUTIONS {
                        ui.selectable_value(&mut shadows.resolution, side, side.to_string());
                    }
                });
            let _ = combo.response.accessible_name("Resolution");
            tracker.changed |= shadows.resolution != before;
            ui.end_row();
            number(
                ui,
                "Depth bias",
                &mut shadows.depth_bias,
                0.05,
                Some(0.0),
                tracker,
            );
            number(
                ui,
                "Normal offset",
                &mut shadows.normal_offset,
                0.05,
                Some(0.0),
                tracker,
            );
        });
}

/// What the sky row asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum SkyRequest {
    /// Light the scene with the image at this path (as typed).
    Set(PathBuf),
    /// Back to the sky/ground hemisphere.
    Clear,
}

/// The sky image row: the path being typed in `draft` (the current sky's
/// when nothing is being typed), applied with Enter; a button clears it.
pub(super) fn sky_ui(
    ui: &mut Ui,
    draft: &mut Option<String>,
    current: Option<&Path>,
) -> Option<SkyRequest> {
    let mut request = None;
    egui::Grid::new("sky_grid").num_columns(2).show(ui, |ui| {
        ui.label("Sky image (.hdr)");
        let shown = current.map_or_else(String::new, |p| p.display().to_string());
        let text = draft.get_or_insert(shown);
        let field = ui
            .add(egui::TextEdit::singleline(text).hint_text("none: the hemisphere"))
            .accessible_name("Sky image");
        if field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
            let typed = text.trim();
            request = Some(if typed.is_empty() {
                SkyRequest::Clear
            } else {
                SkyRequest::Set(PathBuf::from(typed))
            });
        }
        if !field.has_focus() && request.is_none() {
            // Not being typed: follow the scene (undo, another file).
            *draft = None;
        }
        ui.end_row();
        ui.label("");
        if ui
            .add_enabled(current.is_some(), egui::Button::new("Clear sky"))
            .clicked()
        {
            request = Some(SkyRequest::Clear);
        }
        ui.end_row();
    });
    request
}
