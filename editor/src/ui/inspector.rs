//! The inspector: the primary selected node's name, transform and
//! components, all editable, with components added and removed here.
//!
//! A drag of a value changes it every frame; all the changes of one drag (or
//! one typed edit) share a merge key, so the undo stack records the drag as a
//! single entry (command pattern, coalesced). The key ends when no value
//! widget is being dragged or typed into.
//!
//! A new component kind gets its editor in [`component_ui`]: the match there
//! is exhaustive, so the compiler asks for it.

use egui::{DragValue, Response, Ui};
use glam::{EulerRot, Quat, Vec3, Vec4};
use keel_engine::assets::Primitive;
use keel_engine::scene::{Light, LightKind, MeshRenderer, NodeId, Orbit, Oscillate, Spin};

use crate::component::{ComponentKind, ComponentValue};
use crate::document::{Document, primitive_name};
use crate::ui::Status;

/// State of the inspector panel.
#[derive(Debug, Default)]
pub struct Inspector {
    /// Merge key of the drag or typed edit in progress.
    session: Option<u64>,
    next_session: u64,
    /// The Euler angles last shown, kept while the rotation they made is
    /// unchanged so a drag doesn't jump between equivalent angle triples.
    euler: Option<(NodeId, Quat, Vec3)>,
    /// The name being typed, for the node it belongs to.
    name: Option<(NodeId, String)>,
}

/// Collects whether any widget changed and whether one is still in use.
struct Tracker {
    changed: bool,
    active: bool,
}

impl Tracker {
    fn new() -> Self {
        Self {
            changed: false,
            active: false,
        }
    }

    fn track(&mut self, r: &Response) {
        self.changed |= r.changed();
        self.active |= r.dragged() || r.has_focus() || r.is_pointer_button_down_on();
    }
}

impl Inspector {
    fn merge_key(&mut self) -> u64 {
        *self.session.get_or_insert_with(|| {
            self.next_session += 1;
            self.next_session
        })
    }

    /// Draws the panel for the primary selection and applies edits to `doc`.
    pub fn ui(&mut self, ui: &mut Ui, doc: &mut Document, status: &mut Status) {
        ui.strong("Inspector");
        ui.separator();
        let Some(node) = doc.selection.primary().filter(|&n| doc.scene().contains(n)) else {
            ui.weak("Nothing selected");
            self.session = None;
            return;
        };
        if doc.selection.len() > 1 {
            ui.weak(format!(
                "{} nodes selected; showing the last one",
                doc.selection.len()
            ));
        }
        let mut tracker = Tracker::new();
        egui::ScrollArea::vertical()
            .id_salt("inspector_scroll")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                self.name_ui(ui, doc, node, status);
                ui.add_space(4.0);
                self.transform_ui(ui, doc, node, status, &mut tracker);
                ui.add_space(4.0);
                self.components_ui(ui, doc, node, status, &mut tracker);
            });
        if !tracker.active {
            self.session = None;
        }
    }

    fn name_ui(&mut self, ui: &mut Ui, doc: &mut Document, node: NodeId, status: &mut Status) {
        let current = doc.scene().name(node).unwrap_or_default().to_string();
        // The selection moved while a name was being typed: the typing counts.
        if let Some((other, text)) = self.name.take_if(|(n, _)| *n != node)
            && doc.scene().name(other).is_some_and(|old| old != text)
            && let Err(e) = doc.rename(other, text)
        {
            status.error(e.to_string());
        }
        let buffer = match &mut self.name {
            Some((n, text)) if *n == node => text,
            other => {
                *other = Some((node, current.clone()));
                &mut other.as_mut().expect("just set").1
            }
        };
        let response = ui
            .horizontal(|ui| {
                let label = ui.label("Name");
                ui.add(egui::TextEdit::singleline(buffer).desired_width(f32::INFINITY))
                    .labelled_by(label.id)
            })
            .inner;
        if response.lost_focus() {
            let cancelled = ui.input(|i| i.key_pressed(egui::Key::Escape));
            let text = buffer.clone();
            if !cancelled
                && text != current
                && let Err(e) = doc.rename(node, text)
            {
                status.error(e.to_string());
            }
            self.name = None;
        } else if !response.has_focus() && *buffer != current {
            // Renamed elsewhere (hierarchy, undo): show the real name.
            *buffer = current;
        }
    }

    fn transform_ui(
        &mut self,
        ui: &mut Ui,
        doc: &mut Document,
        node: NodeId,
        status: &mut Status,
        tracker: &mut Tracker,
    ) {
        let Some(local) = doc.scene().local(node) else {
            return;
        };
        let mut t = local;
        let mut degrees = match self.euler {
            Some((n, q, d)) if n == node && q == t.rotation => d,
            _ => {
                let (y, x, z) = t.rotation.to_euler(EulerRot::YXZ);
                Vec3::new(x, y, z) * (180.0 / std::f32::consts::PI)
            }
        };
        let mut changed = Tracker::new();
        egui::CollapsingHeader::new("Transform")
            .id_salt("transform")
            .default_open(true)
            .show(ui, |ui| {
                egui::Grid::new("transform_grid")
                    .num_columns(2)
                    .spacing([6.0, 4.0])
                    .show(ui, |ui| {
                        vec3_row(ui, "Translation", &mut t.translation, 0.05, &mut changed);
                        let before = degrees;
                        vec3_row(ui, "Rotation", &mut degrees, 0.5, &mut changed);
                        if degrees != before {
                            let r = degrees * (std::f32::consts::PI / 180.0);
                            t.rotation = Quat::from_euler(EulerRot::YXZ, r.y, r.x, r.z);
                        }
                        vec3_row(ui, "Scale", &mut t.scale, 0.01, &mut changed);
                    });
                if let Some(world) = doc.scene().world(node) {
                    let p = world.translation;
                    ui.weak(format!(
                        "world position ({:.3}, {:.3}, {:.3})",
                        p.x, p.y, p.z
                    ));
                }
            });
        self.euler = Some((node, t.rotation, degrees));
        tracker.changed |= changed.changed;
        tracker.active |= changed.active;
        if t != local {
            let key = self.merge_key();
            if let Err(e) = doc.set_transform(node, t, Some(key)) {
                status.error(e.to_string());
            }
        }
    }

    fn components_ui(
        &mut self,
        ui: &mut Ui,
        doc: &mut Document,
        node: NodeId,
        status: &mut Status,
        tracker: &mut Tracker,
    ) {
        let mut remove = None;
        for kind in ComponentKind::ALL {
            let Some(value) = kind.get(doc.scene(), node) else {
                continue;
            };
            let mut edited = value;
            let mut changed = Tracker::new();
            egui::CollapsingHeader::new(kind.label())
                .id_salt(("component", kind.label()))
                .default_open(true)
                .show(ui, |ui| {
                    component_ui(ui, &mut edited, &mut changed);
                    if ui.button(format!("Remove {}", kind.label())).clicked() {
                        remove = Some(kind);
                    }
                });
            tracker.changed |= changed.changed;
            tracker.active |= changed.active;
            if edited != value {
                let key = self.merge_key();
                if let Err(e) = doc.set_component(node, edited, Some(key)) {
                    status.error(e.to_string());
                }
            }
        }
        if let Some(kind) = remove
            && let Err(e) = doc.remove_component(node, kind)
        {
            status.error(e.to_string());
        }
        let missing: Vec<ComponentKind> = ComponentKind::ALL
            .into_iter()
            .filter(|k| k.get(doc.scene(), node).is_none())
            .collect();
        if !missing.is_empty() {
            ui.add_space(4.0);
            ui.menu_button("Add component", |ui| {
                for kind in missing {
                    if ui.button(kind.label()).clicked()
                        && let Err(e) = doc.set_component(node, kind.default_value(), None)
                    {
                        status.error(e.to_string());
                    }
                }
            });
        }
    }
}

/// One grid row of three values named `label X`, `label Y`, `label Z`.
fn vec3_row(ui: &mut Ui, label: &str, v: &mut Vec3, speed: f64, tracker: &mut Tracker) {
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

fn number(
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

fn checkbox(ui: &mut Ui, label: &str, v: &mut bool, tracker: &mut Tracker) {
    let name = ui.label(label);
    let r = ui.checkbox(v, "").labelled_by(name.id);
    tracker.track(&r);
    ui.end_row();
}

/// A linear colour edited with a picker (for the hue) and exact numbers
/// (values above 1 make emissive, HDR colours, which the picker can't show).
fn color_row(ui: &mut Ui, label: &str, rgb: &mut Vec3, tracker: &mut Tracker) {
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

/// The editor of one component value, whatever its kind.
fn component_ui(ui: &mut Ui, value: &mut ComponentValue, tracker: &mut Tracker) {
    egui::Grid::new(("component_grid", value.kind().label()))
        .num_columns(2)
        .spacing([6.0, 4.0])
        .show(ui, |ui| match value {
            ComponentValue::Spin(s) => spin_ui(ui, s, tracker),
            ComponentValue::Oscillate(o) => oscillate_ui(ui, o, tracker),
            ComponentValue::Orbit(o) => orbit_ui(ui, o, tracker),
            ComponentValue::Mesh(m) => mesh_ui(ui, m, tracker),
            ComponentValue::Light(l) => light_ui(ui, l, tracker),
        });
}

fn spin_ui(ui: &mut Ui, s: &mut Spin, tracker: &mut Tracker) {
    vec3_row(ui, "Spin axis", &mut s.axis, 0.01, tracker);
    number(ui, "Spin rate (rad/s)", &mut s.rate, 0.01, None, tracker);
}

fn oscillate_ui(ui: &mut Ui, o: &mut Oscillate, tracker: &mut Tracker) {
    vec3_row(ui, "Oscillate axis", &mut o.axis, 0.01, tracker);
    number(ui, "Amplitude", &mut o.amplitude, 0.01, None, tracker);
    number(
        ui,
        "Frequency (Hz)",
        &mut o.frequency,
        0.01,
        Some(0.0),
        tracker,
    );
    number(ui, "Phase (rad)", &mut o.phase, 0.01, None, tracker);
    checkbox(ui, "Rock about the axis", &mut o.rock, tracker);
}

fn orbit_ui(ui: &mut Ui, o: &mut Orbit, tracker: &mut Tracker) {
    vec3_row(ui, "Orbit center", &mut o.center, 0.05, tracker);
    number(ui, "Radius", &mut o.radius, 0.05, Some(0.0), tracker);
    number(ui, "Orbit rate (rad/s)", &mut o.rate, 0.01, None, tracker);
    number(ui, "Angle (rad)", &mut o.angle, 0.01, None, tracker);
    checkbox(ui, "Face forward", &mut o.face_forward, tracker);
}

fn mesh_ui(ui: &mut Ui, m: &mut MeshRenderer, tracker: &mut Tracker) {
    ui.label("Mesh");
    let before = m.mesh;
    let combo = egui::ComboBox::from_id_salt("mesh_primitive")
        .selected_text(primitive_name(m.mesh))
        .show_ui(ui, |ui| {
            for p in Primitive::ALL {
                ui.selectable_value(&mut m.mesh, p, primitive_name(p));
            }
        });
    let _ = combo.response.accessible_name("Mesh");
    tracker.changed |= m.mesh != before;
    ui.end_row();
    let c = m.material.base_color;
    let mut rgb = c.truncate();
    color_row(ui, "Base color", &mut rgb, tracker);
    let mut alpha = c.w;
    number(ui, "Alpha", &mut alpha, 0.01, Some(0.0), tracker);
    m.material.base_color = Vec4::new(rgb.x, rgb.y, rgb.z, alpha);
    ui.label("Gloss");
    let r = ui
        .add(egui::Slider::new(&mut m.material.gloss, 0.0..=1.0))
        .accessible_name("Gloss");
    tracker.track(&r);
    ui.end_row();
}

fn light_ui(ui: &mut Ui, l: &mut Light, tracker: &mut Tracker) {
    ui.label("Kind");
    let before = l.kind;
    let is_point = matches!(l.kind, LightKind::Point { .. });
    let combo = egui::ComboBox::from_id_salt("light_kind")
        .selected_text(if is_point { "Point" } else { "Directional" })
        .show_ui(ui, |ui| {
            if ui.selectable_label(!is_point, "Directional").clicked() {
                l.kind = LightKind::Directional;
            }
            if ui.selectable_label(is_point, "Point").clicked() && !is_point {
                l.kind = LightKind::Point { range: 10.0 };
            }
        });
    let _ = combo.response.accessible_name("Light kind");
    tracker.changed |= l.kind != before;
    ui.end_row();
    if let LightKind::Point { range } = &mut l.kind {
        number(ui, "Range", range, 0.1, Some(0.01), tracker);
    }
    color_row(ui, "Light color", &mut l.color, tracker);
    number(ui, "Intensity", &mut l.intensity, 0.01, Some(0.0), tracker);
}
