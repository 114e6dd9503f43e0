//! Inspector widgets shared by its panels: labelled grid rows for numbers,
//! vectors, checkboxes and linear colours, and the tracker that tells a panel
//! whether a widget changed its value and whether one is still being dragged
//! (one undo entry per drag).

use egui::{DragValue, Response, Ui};
use glam::Vec3;

/// Collects whether any widget changed and whether one is still in use.
pub(crate) struct Tracker {
    pub(crate) changed: bool,
    pub(crate) active: bool,
}

impl Tracker {
    pub(crate) fn new() -> Self {
        Self {
            changed: false,
            active: false,
        }
    }

    pub(crate) fn track(&mut self, r: &Response) {
        self.changed |= r.changed();
        self.active |= r.dragged() || r.has_focus() || r.is_pointer_button_down_on();
    }
}

/// One grid row of three values named `label X`, `label Y`, `label Z`.
pub(crate) fn vec3_row(ui: &mut Ui, label: &str, v: &mut Vec3, speed: f64, tracker: &mut Tracker) {
    ui.label(label);
    ui.horizontal(|ui| {
        for (axis, value) in ["X", "Y", "Z"]
            .into_iter()
            .zip([&mut v.x, &mut v.y, &mut v.z])
        {
            // -0.0 + 0.0 is +0.0: no "-0.0" from angle conversions.
            *value += 0.0;
            let r = ui
                .add(DragValue::new(value).speed(speed).max_decimals(4))
                .accessible_name(format!("{label} {axis}"));
            tracker.track(&r);
        }
    });
    ui.end_row();
}

pub(crate) fn number(
    ui: &mut Ui,
    label: &str,
    v: &mut f32,
    speed: f64,
    min: Option<f32>,
    tracker: &mut Tracker,
) {
    let name = ui.label(label);
    let mut dv = DragValue::new(v).speed(speed).max_decimals(4);
    if let Some(min) = min {
        dv = dv.range(min..=f32::MAX);
    }
    let r = ui.add(dv).labelled_by(name.id);
    tracker.track(&r);
    ui.end_row();
}

pub(crate) fn checkbox(ui: &mut Ui, label: &str, v: &mut bool, tracker: &mut Tracker) {
    let name = ui.label(label);
    let r = ui.checkbox(v, "").labelled_by(name.id);
    tracker.track(&r);
    ui.end_row();
}

/// A linear colour edited with a picker (for the hue) and exact numbers
/// (values above 1 make emissive, HDR colours, which the picker can't show).
pub(crate) fn color_row(ui: &mut Ui, label: &str, rgb: &mut Vec3, tracker: &mut Tracker) {
    ui.label(label);
    let scale = rgb.max_element().max(1.0);
    let mut shown = (*rgb / scale).to_array();
    let r = ui.color_edit_button_rgb(&mut shown);
    tracker.track(&r);
    if r.changed() {
        *rgb = Vec3::from_array(shown) * scale;
    }
    ui.end_row();
    vec3_row(ui, &format!("{label} linear"), rgb, 0.01, tracker);
    *rgb = rgb.max(Vec3::ZERO);
}
