//! The inspector: the primary selected node's name, transform and
//! components, all editable, with components added and removed here.
//!
//! A drag of a value changes it every frame; all the changes of one drag (or
//! one typed edit) share a merge key, so the undo stack records the drag as a
//! single entry (command pattern, coalesced). The key ends when no value
//! widget is being dragged or typed into.
//!
//! A new component kind gets its editor in `component_ui`: the match there
//! is exhaustive, so the compiler asks for it.
//!
//! An emitter edit that fails [`Emitter::validate`] is not applied: the scene
//! keeps the last valid emitter, while the inspector keeps showing the edit
//! with the reason in red so the user can finish it (lifetime min dragged past
//! max, then max raised).

mod animation;
mod emitter;
mod environment;
pub(crate) mod prefab;
mod reflected;

use egui::Ui;
use glam::{EulerRot, Quat, Vec3, Vec4};
use keel_engine::Assets;
use keel_engine::Emitter;
use keel_engine::assets::AlphaMode;
use keel_engine::physics::fitted_collider;
use keel_engine::scene::{ComponentRegistry, ModelInstance, UnknownComponents};
use keel_engine::{Collider, Component, Light, LightKind, MeshRenderer, NodeId};
use keel_engine::{MeshRef, Primitive};

use crate::component::{ComponentKind, ComponentValue};
use crate::document::{Document, primitive_name};
use crate::panels::widgets::{Tracker, checkbox, color_row, number, vec3_row};
use crate::status::Status;
use emitter::emitter_ui;
use environment::{SkyRequest, environment_ui, sky_ui};

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
    /// An emitter edit that failed validation, shown until it is fixed.
    emitter_draft: Option<EmitterDraft>,
    /// The sky image path being typed.
    sky_draft: Option<String>,
    /// The pattern being typed to rename a multi-selection.
    rename_pattern: String,
    /// What the prefab section asked of the editor this frame.
    pub prefab_request: Option<prefab::PrefabRequest>,
    /// The fields the shown node overrides of its prefab (dotted paths):
    /// their sections' headers are bold.
    overridden: Vec<String>,
}

/// An emitter being edited into a valid state.
#[derive(Debug)]
struct EmitterDraft {
    node: NodeId,
    /// The emitter in the scene when the draft began: if undo or another
    /// edit changes it, the draft no longer applies and is dropped.
    base: Emitter,
    edited: Emitter,
}

impl Inspector {
    /// `value`, or the unfinished edit of it when one is pending.
    fn draft_or(&mut self, node: NodeId, value: ComponentValue) -> ComponentValue {
        let ComponentValue::Emitter(current) = &value else {
            return value;
        };
        match self.emitter_draft.take() {
            Some(draft) if draft.node == node && draft.base == **current => {
                let shown = ComponentValue::Emitter(Box::new(draft.edited.clone()));
                self.emitter_draft = Some(draft);
                shown
            }
            _ => value,
        }
    }

    /// A section's title: bold when the shown prefab part overrides `field`
    /// (the scene file's name for it) or anything in it.
    fn header(&self, title: &str, field: &str) -> egui::RichText {
        let overridden = self.overridden.iter().any(|f| {
            f == field
                || f.strip_prefix(field)
                    .is_some_and(|rest| rest.starts_with('.'))
        });
        let text = egui::RichText::new(title);
        if overridden { text.strong() } else { text }
    }

    fn merge_key(&mut self) -> u64 {
        *self.session.get_or_insert_with(|| {
            self.next_session += 1;
            self.next_session
        })
    }

    /// Draws the panel for the primary selection and applies edits to `doc`.
    pub fn ui(&mut self, ui: &mut Ui, doc: &mut Document, status: &mut Status) {
        let Some(node) = doc.selection.primary().filter(|&n| doc.scene().contains(n)) else {
            ui.weak("Nothing selected: the scene's settings");
            ui.add_space(4.0);
            self.environment_ui(ui, doc, status);
            return;
        };
        if doc.selection.len() > 1 {
            ui.weak(format!(
                "{} nodes selected; showing the last one",
                doc.selection.len()
            ));
            self.rename_many_ui(ui, doc, status);
        }
        let mut tracker = Tracker::new();
        // Model parts are rebuilt from their file at each load: shown, not edited.
        let locked = doc.editable(node).err();
        if let Some(reason) = &locked {
            ui.colored_label(ui.visuals().warn_fg_color, reason.to_string());
        }
        if let Some(instance) = doc.scene().get::<ModelInstance>(node) {
            ui.weak(format!("Model: {}", instance.source.display()));
        }
        if let Some(request) = prefab::prefab_ui(ui, doc, node, status) {
            self.prefab_request = Some(request);
        }
        self.overridden = match doc.prefab_link(node) {
            Some(crate::document::PrefabLink::Part { overridden, .. }) => overridden,
            _ => Vec::new(),
        };
        // Both ways: a row wider than a narrow panel scrolls into reach.
        // Solid bars take their own space, so none covers the last row.
        ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
        egui::ScrollArea::both()
            .id_salt("inspector_scroll")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                ui.add_enabled_ui(locked.is_none(), |ui| {
                    self.name_ui(ui, doc, node, status);
                    ui.add_space(4.0);
                    self.transform_ui(ui, doc, node, status, &mut tracker);
                    ui.add_space(4.0);
                    self.components_ui(ui, doc, node, status, &mut tracker);
                });
            });
        if !tracker.active {
            self.session = None;
        }
    }

    /// A pattern that renames every selected node (`*`: its name, `###`:
    /// its number in the selection), applied with Enter.
    fn rename_many_ui(&mut self, ui: &mut Ui, doc: &mut Document, status: &mut Status) {
        ui.horizontal(|ui| {
            ui.label("Rename all");
            let field = ui
                .add(
                    egui::TextEdit::singleline(&mut self.rename_pattern)
                        .hint_text("e.g. boat_### or * (old)"),
                )
                .accessible_name("Rename selection");
            if field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                let nodes = doc.selection.nodes().to_vec();
                match doc.rename_many(&nodes, &self.rename_pattern) {
                    Ok(n) => {
                        status.info(format!("Renamed {n} node(s)"));
                        self.rename_pattern.clear();
                    }
                    Err(e) => status.error(e.to_string()),
                }
            }
        });
    }

    fn environment_ui(&mut self, ui: &mut Ui, doc: &mut Document, status: &mut Status) {
        let mut tracker = Tracker::new();
        let mut env = doc.scene().environment().clone();
        ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
        egui::ScrollArea::both()
            .id_salt("environment_scroll")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                environment_ui(ui, &mut env, &mut tracker);
                ui.add_space(4.0);
                ui.strong("Sky");
                match sky_ui(ui, &mut self.sky_draft, env.sky.as_deref()) {
                    Some(SkyRequest::Clear) => {
                        env.sky = None;
                        tracker.changed = true;
                    }
                    Some(SkyRequest::Set(typed)) => {
                        // Relative to the scene file, as a scene file's sky is.
                        match doc
                            .scene()
                            .assets()
                            .load_scene_sky(doc.path.as_deref(), &typed)
                        {
                            Ok(path) => {
                                env.sky = Some(path);
                                tracker.changed = true;
                            }
                            Err(e) => status.error(e.to_string()),
                        }
                    }
                    None => {}
                }
            });
        if tracker.changed {
            let key = self.merge_key();
            if let Err(e) = doc.set_environment(env, Some(key)) {
                status.error(e.to_string());
            }
        }
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
        let name_title = self.header("Name", "name");
        let buffer = match &mut self.name {
            Some((n, text)) if *n == node => text,
            other => {
                *other = Some((node, current.clone()));
                &mut other.as_mut().expect("just set").1
            }
        };
        let response = ui
            .horizontal(|ui| {
                let label = ui.label(name_title);
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
        egui::CollapsingHeader::new(self.header("Transform", "transform"))
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
        // The clips an animator here can play (none outside a model instance).
        let clips = doc.scene().animator_clips(node).unwrap_or_default();
        let assets = doc.scene().assets().clone();
        let registry = doc.scene().registry();
        let kinds = ComponentKind::all(&registry);
        for &kind in &kinds {
            let Some(value) = kind.get(doc.scene(), node) else {
                continue;
            };
            let start = self.draft_or(node, value);
            let mut edited = start.clone();
            let mut changed = Tracker::new();
            egui::CollapsingHeader::new(self.header(&kind.label(), kind.record_field()))
                .id_salt(("component", kind.label()))
                .default_open(true)
                .show(ui, |ui| {
                    let context = Context {
                        clips: &clips,
                        assets: &assets,
                        registry: &registry,
                        scene: doc.scene(),
                    };
                    component_ui(ui, &mut edited, &context, &mut changed);
                    if let Some(problem) = problem_of(&edited) {
                        ui.colored_label(ui.visuals().error_fg_color, problem);
                    }
                    if ui.button(format!("Remove {}", kind.label())).clicked() {
                        remove = Some(kind);
                    }
                });
            tracker.changed |= changed.changed;
            tracker.active |= changed.active;
            if edited == start {
                continue;
            }
            if problem_of(&edited).is_some() {
                if let (ComponentValue::Emitter(edited), Some(ComponentValue::Emitter(base))) =
                    (edited, kind.get(doc.scene(), node))
                {
                    self.emitter_draft = Some(EmitterDraft {
                        node,
                        base: *base,
                        edited: *edited,
                    });
                }
                continue;
            }
            if matches!(edited, ComponentValue::Emitter(_)) {
                self.emitter_draft = None;
            }
            let key = self.merge_key();
            if let Err(e) = doc.set_component(node, edited, Some(key)) {
                status.error(e.to_string());
            }
        }
        if let Some(kind) = remove
            && let Err(e) = doc.remove_component(node, kind)
        {
            status.error(e.to_string());
        }
        // An animator only where there are clips to play.
        unknown_ui(ui, doc.scene(), node);
        let missing: Vec<ComponentKind> = kinds
            .into_iter()
            .filter(|k| k.get(doc.scene(), node).is_none())
            .filter(|k| *k != ComponentKind::Animator || !clips.is_empty())
            .collect();
        if !missing.is_empty() {
            ui.add_space(4.0);
            ui.menu_button("Add component", |ui| {
                for kind in missing {
                    if !ui.button(kind.label()).clicked() {
                        continue;
                    }
                    let Some(mut value) = kind.default_value(&registry) else {
                        continue;
                    };
                    if let (ComponentValue::Animator(a), Some((first, _))) =
                        (&mut value, clips.first())
                    {
                        a.clip = first.clone();
                    }
                    // A collider fits what the node draws, in one click.
                    if kind == ComponentKind::Registered(<Collider as Component>::NAME)
                        && let Some(fitted) = fitted_collider(doc.scene(), node)
                    {
                        value = ComponentValue::registered(fitted);
                    }
                    if let Err(e) = doc.set_component(node, value, None) {
                        status.error(e.to_string());
                    }
                }
            });
        }
    }
}

/// What a component's editor may need besides the value.
struct Context<'a> {
    /// The clips an animator here can choose among.
    clips: &'a [(String, f32)],
    /// Names imported meshes.
    assets: &'a Assets,
    /// Reflection data of the registered components.
    registry: &'a ComponentRegistry,
    /// The scene, whose nodes references name.
    scene: &'a keel_engine::Scene,
}

/// The editor of one component value, whatever its kind: the engine's kinds
/// have panels of their own, registered ones are edited through reflection.
fn component_ui(
    ui: &mut Ui,
    value: &mut ComponentValue,
    context: &Context<'_>,
    tracker: &mut Tracker,
) {
    egui::Grid::new(("component_grid", value.kind().label()))
        .num_columns(2)
        .spacing([6.0, 4.0])
        .show(ui, |ui| match value {
            ComponentValue::Mesh(m) => mesh_ui(ui, m, context.assets, tracker),
            ComponentValue::Light(l) => light_ui(ui, l, tracker),
            ComponentValue::Emitter(e) => emitter_ui(ui, e, tracker),
            ComponentValue::Animator(a) => {
                let r = animation::animator_ui(ui, a, context.clips);
                tracker.changed |= r.changed;
                tracker.active |= r.active;
            }
            ComponentValue::Registered(c) => {
                let value = c.reflect_mut().as_partial_reflect_mut();
                let cx = reflected::Cx {
                    registry: context.registry.reflect(),
                    scene: context.scene,
                };
                reflected::fields_ui(ui, value, &cx, tracker);
            }
        });
}

/// Components the scene's file named that this build has no type for:
/// listed as written, read-only (saving writes them back unchanged).
fn unknown_ui(ui: &mut Ui, scene: &keel_engine::Scene, node: NodeId) {
    let Some(unknown) = scene.get::<UnknownComponents>(node) else {
        return;
    };
    for (name, raw) in &unknown.0 {
        egui::CollapsingHeader::new(format!("{name} (unknown to this build)"))
            .id_salt(("unknown component", *name))
            .default_open(false)
            .show(ui, |ui| {
                ui.label(
                    "This build has no component of this name; it is kept as the file wrote it.",
                );
                ui.code(raw.get_ron().trim());
            });
    }
}

/// Why `value` can't be applied, for the kinds whose validation explains it.
fn problem_of(value: &ComponentValue) -> Option<String> {
    match value {
        ComponentValue::Emitter(e) => e.validate().err().map(|e| e.to_string()),
        ComponentValue::Mesh(_) | ComponentValue::Light(_) => None,
        ComponentValue::Animator(a) => (!a.clip.is_empty() && !a.speed.is_finite())
            .then(|| "speed must be a finite number".to_string()),
        ComponentValue::Registered(c) => c.validate().err().map(|invalid| {
            format!(
                "{}: expected {}, found {}",
                invalid.field, invalid.expected, invalid.found
            )
        }),
    }
}

/// A primitive's name, or an imported mesh's (`lighthouse.glb: tower #1.0`).
fn mesh_name(mesh: MeshRef, assets: &Assets) -> String {
    match mesh {
        MeshRef::Primitive(p) => primitive_name(p).to_owned(),
        MeshRef::Asset(handle) => assets
            .registry()
            .mesh(handle)
            .map_or_else(|| "(missing mesh)".to_owned(), |m| m.name.clone()),
    }
}

fn mesh_ui(ui: &mut Ui, m: &mut MeshRenderer, assets: &Assets, tracker: &mut Tracker) {
    ui.label("Mesh");
    let before = m.mesh;
    let combo = egui::ComboBox::from_id_salt("mesh_primitive")
        .selected_text(mesh_name(m.mesh, assets))
        .show_ui(ui, |ui| {
            for p in Primitive::ALL {
                ui.selectable_value(&mut m.mesh, p.into(), primitive_name(p));
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
    for (name, value) in [
        ("Metallic", &mut m.material.metallic),
        ("Roughness", &mut m.material.roughness),
    ] {
        ui.label(name);
        let r = ui
            .add(egui::Slider::new(value, 0.0..=1.0))
            .accessible_name(name);
        tracker.track(&r);
        ui.end_row();
    }
    // Linear, unbounded: the colour picker shows it scaled into range.
    color_row(ui, "Emissive", &mut m.material.emissive, tracker);
    alpha_ui(ui, &mut m.material.alpha_mode, tracker);
    checkbox(ui, "Double-sided", &mut m.material.double_sided, tracker);
    checkbox(ui, "Cast shadows", &mut m.cast_shadows, tracker);
}

/// glTF's alpha modes: a combo, and the cutoff of a mask.
fn alpha_ui(ui: &mut Ui, mode: &mut AlphaMode, tracker: &mut Tracker) {
    let name = |m: &AlphaMode| match m {
        AlphaMode::Opaque => "Opaque",
        AlphaMode::Mask { .. } => "Mask",
        AlphaMode::Blend => "Blend",
    };
    ui.label("Alpha");
    let before = *mode;
    let combo = egui::ComboBox::from_id_salt("alpha_mode")
        .selected_text(name(mode))
        .show_ui(ui, |ui| {
            for choice in [
                AlphaMode::Opaque,
                AlphaMode::Mask { cutoff: 0.5 },
                AlphaMode::Blend,
            ] {
                if ui
                    .selectable_label(name(mode) == name(&choice), name(&choice))
                    .clicked()
                    && name(mode) != name(&choice)
                {
                    *mode = choice;
                }
            }
        });
    let _ = combo.response.accessible_name("Alpha mode");
    tracker.changed |= *mode != before;
    ui.end_row();
    if let AlphaMode::Mask { cutoff } = mode {
        ui.label("Cutoff");
        let r = ui
            .add(egui::Slider::new(cutoff, 0.0..=1.0))
            .accessible_name("Alpha cutoff");
        tracker.track(&r);
        ui.end_row();
    }
}

fn light_ui(ui: &mut Ui, l: &mut Light, tracker: &mut Tracker) {
    ui.label("Kind");
    let before = l.kind;
    let name = match l.kind {
        LightKind::Directional => "Directional",
        LightKind::Point { .. } => "Point",
        LightKind::Spot { .. } => "Spot",
    };
    let range = l.kind.range().unwrap_or(10.0);
    let combo = egui::ComboBox::from_id_salt("light_kind")
        .selected_text(name)
        .show_ui(ui, |ui| {
            if ui
                .selectable_label(name == "Directional", "Directional")
                .clicked()
            {
                l.kind = LightKind::Directional;
            }
            if ui.selectable_label(name == "Point", "Point").clicked() && name != "Point" {
                l.kind = LightKind::Point { range };
            }
            if ui.selectable_label(name == "Spot", "Spot").clicked() && name != "Spot" {
                l.kind = LightKind::Spot {
                    range,
                    inner_degrees: 20.0,
                    outer_degrees: 30.0,
                };
            }
        });
    let _ = combo.response.accessible_name("Light kind");
    tracker.changed |= l.kind != before;
    ui.end_row();
    match &mut l.kind {
        LightKind::Directional => {}
        LightKind::Point { range } => number(ui, "Range", range, 0.1, Some(0.01), tracker),
        LightKind::Spot {
            range,
            inner_degrees,
            outer_degrees,
        } => {
            number(ui, "Range", range, 0.1, Some(0.01), tracker);
            for (label, value) in [
                ("Outer angle", &mut *outer_degrees),
                ("Inner angle", &mut *inner_degrees),
            ] {
                ui.label(label);
                let r = ui
                    .add(egui::Slider::new(value, 0.0..=90.0).suffix("°"))
                    .accessible_name(label);
                tracker.track(&r);
                ui.end_row();
            }
            // The core stays inside the edge.
            *inner_degrees = inner_degrees.min(*outer_degrees - 0.5).max(0.0);
            checkbox(ui, "Cast shadows", &mut l.cast_shadows, tracker);
        }
    }
    color_row(ui, "Light color", &mut l.color, tracker);
    number(ui, "Intensity", &mut l.intensity, 0.01, Some(0.0), tracker);
}
