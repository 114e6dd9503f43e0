//! The inspector's editor for registered components: every field is shown
//! and edited through reflection (bevy_reflect), so a game's own types need
//! no UI code.
//!
//! Numbers (with a range when the field carries a `RangeInclusive<f32>`
//! attribute, `#[reflect(@0.0..=1.0_f32)]`), bools, strings, vectors,
//! quaternions (as Euler angles in degrees), colours (a `Vec3` or `Vec4`
//! field with the [`ColorHint`] attribute), enums (a combo box of their
//! variants; `Option` is one), lists, arrays, tuples and nested structs
//! (rows with dotted names). Other values are shown read-only.

use std::ops::RangeInclusive;

use bevy_reflect::attributes::CustomAttributes;
use bevy_reflect::enums::{DynamicEnum, DynamicVariant, VariantInfo};
use bevy_reflect::list::List;
use bevy_reflect::std_traits::ReflectDefault;
use bevy_reflect::structs::DynamicStruct;
use bevy_reflect::tuple::DynamicTuple;
use bevy_reflect::{PartialReflect, ReflectMut, TypeRegistry};
use egui::{DragValue, Ui};
use keel_engine::NodeRef;

use crate::panels::hierarchy::DraggedNodes;
use glam::{EulerRot, Quat, Vec2, Vec3, Vec4};

use crate::panels::widgets::{Tracker, checkbox, color_row, number, vec3_row};

/// Marks a `Vec3` or `Vec4` field as a linear colour: `#[reflect(@ColorHint)]`.
pub use keel_engine::scene::ColorHint;

/// What a field's attributes say about its editor.
#[derive(Clone, Default)]
struct Hints {
    range: Option<RangeInclusive<f32>>,
    color: bool,
}

impl Hints {
    fn of(attributes: &CustomAttributes) -> Self {
        Self {
            range: attributes.get::<RangeInclusive<f32>>().cloned(),
            color: attributes.contains::<ColorHint>(),
        }
    }
}

/// Rows (in a two-column grid) editing every field of `value`.
pub(super) fn fields_ui(
    ui: &mut Ui,
    value: &mut dyn PartialReflect,
    cx: &Cx<'_>,
    tracker: &mut Tracker,
) {
    value_ui(ui, "", value, &Hints::default(), cx, tracker);
}

/// What editing a value needs besides it.
pub(super) struct Cx<'a> {
    /// Reflection data: defaults for new items and variants.
    pub registry: &'a TypeRegistry,
    /// The scene node references name nodes of.
    pub scene: &'a keel_engine::Scene,
}

/// A reference to another node: its target's name, a drop zone for a row
/// dragged from the hierarchy, and a button that clears it.
fn node_ref_ui(
    ui: &mut Ui,
    label: &str,
    node_ref: &mut NodeRef,
    cx: &Cx<'_>,
    tracker: &mut Tracker,
) {
    ui.label(label);
    ui.horizontal(|ui| {
        let shown = match node_ref.id() {
            Some(id) if cx.scene.contains(id) => cx.scene.name(id).unwrap_or("?").to_owned(),
            Some(_) => "(despawned)".to_owned(),
            None => "None".to_owned(),
        };
        let (zone, dropped) =
            ui.dnd_drop_zone::<DraggedNodes, _>(egui::Frame::default(), |ui| ui.label(shown));
        zone.response
            .on_hover_text("Drag a node from the hierarchy here");
        if let Some(&first) = dropped.as_ref().and_then(|nodes| nodes.0.first()) {
            node_ref.set(Some(first));
            tracker.changed = true;
        }
        if !node_ref.is_none() && ui.small_button("×").on_hover_text("Name no node").clicked() {
            node_ref.set(None);
            tracker.changed = true;
        }
    });
    ui.end_row();
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        title(name)
    } else {
        format!("{prefix} › {}", title(name))
    }
}

fn title(name: &str) -> String {
    let mut out = name.replace('_', " ");
    if let Some(first) = out.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    out
}

fn value_ui(
    ui: &mut Ui,
    label: &str,
    value: &mut dyn PartialReflect,
    hints: &Hints,
    cx: &Cx<'_>,
    tracker: &mut Tracker,
) {
    if let Some(node_ref) = value.try_downcast_mut::<NodeRef>() {
        node_ref_ui(ui, label, node_ref, cx, tracker);
        return;
    }
    if leaf_ui(ui, label, value, hints, tracker) {
        return;
    }
    match value.reflect_mut() {
        ReflectMut::Struct(s) => {
            let info = s.get_represented_struct_info();
            for i in 0..s.field_len() {
                let name = s.name_at(i).unwrap_or_default().to_owned();
                let hints = info
                    .and_then(|info| info.field_at(i))
                    .map(|f| Hints::of(f.custom_attributes()))
                    .unwrap_or_default();
                if let Some(field) = s.field_at_mut(i) {
                    value_ui(ui, &join(label, &name), field, &hints, cx, tracker);
                }
            }
        }
        ReflectMut::TupleStruct(t) => {
            for i in 0..t.field_len() {
                let name = if t.field_len() == 1 {
                    label.to_owned()
                } else {
                    join(label, &i.to_string())
                };
                if let Some(field) = t.field_mut(i) {
                    value_ui(ui, &name, field, hints, cx, tracker);
                }
            }
        }
        ReflectMut::Tuple(t) => {
            for i in 0..t.field_len() {
                if let Some(field) = t.field_mut(i) {
                    let name = join(label, &i.to_string());
                    value_ui(ui, &name, field, hints, cx, tracker);
                }
            }
        }
        ReflectMut::Array(a) => {
            for i in 0..a.len() {
                if let Some(item) = a.get_mut(i) {
                    value_ui(ui, &format!("{label}[{i}]"), item, hints, cx, tracker);
                }
            }
        }
        ReflectMut::List(list) => {
            for i in 0..list.len() {
                if let Some(item) = list.get_mut(i) {
                    value_ui(ui, &format!("{label}[{i}]"), item, hints, cx, tracker);
                }
            }
            ui.label(format!("{label}: {} items", list.len()));
            ui.horizontal(|ui| {
                let (grow, hint) = match list.get(list.len().wrapping_sub(1)) {
                    Some(last) => (last.to_dynamic().ok(), "Add a copy of the last"),
                    None => (
                        new_item(list, cx.registry),
                        "Add an item with default values",
                    ),
                };
                let plus = ui.add_enabled(grow.is_some(), egui::Button::new("+"));
                if let Some(item) = grow
                    && plus.on_hover_text(hint).clicked()
                {
                    list.push(item);
                    tracker.changed = true;
                }
                if !list.is_empty() && ui.button("−").on_hover_text("Remove the last").clicked() {
                    list.pop();
                    tracker.changed = true;
                }
            });
            ui.end_row();
        }
        ReflectMut::Enum(e) => {
            let Some(info) = e.get_represented_enum_info() else {
                read_only(ui, label, e.as_partial_reflect());
                return;
            };
            let current = e.variant_name().to_owned();
            let mut chosen = None;
            ui.label(if label.is_empty() { "Variant" } else { label });
            let combo = egui::ComboBox::from_id_salt(("variant", label.to_owned()))
                .selected_text(&current)
                .show_ui(ui, |ui| {
                    for name in info.variant_names() {
                        let able = info
                            .variant(name)
                            .and_then(|v| default_variant(v, cx.registry))
                            .is_some();
                        let item =
                            ui.add_enabled(able, egui::Button::selectable(*name == current, *name));
                        if item.clicked() && *name != current {
                            chosen = Some(*name);
                        }
                    }
                });
            let response =
                combo
                    .response
                    .accessible_name(if label.is_empty() { "Variant" } else { label });
            tracker.track(&response);
            ui.end_row();
            if let Some(name) = chosen
                && let Some(variant) = info
                    .variant(name)
                    .and_then(|v| default_variant(v, cx.registry))
            {
                let dynamic = DynamicEnum::new(name, variant);
                if e.try_apply(&dynamic).is_ok() {
                    tracker.changed = true;
                }
                return;
            }
            for i in 0..e.field_len() {
                let name = e.name_at(i).map_or_else(|| i.to_string(), str::to_owned);
                let shown = if e.field_len() == 1 && e.name_at(0).is_none() {
                    format!("{label} ({current})")
                } else {
                    join(label, &name)
                };
                if let Some(field) = e.field_at_mut(i) {
                    value_ui(ui, &shown, field, hints, cx, tracker);
                }
            }
        }
        _ => read_only(ui, label, value),
    }
}

/// A first item for an empty list: the default of its item type, from the
/// registry's `ReflectDefault`; `None` when the type has none.
fn new_item(list: &dyn List, registry: &TypeRegistry) -> Option<Box<dyn PartialReflect>> {
    let item = list.get_represented_list_info()?.item_ty().id();
    let data = registry.get_type_data::<ReflectDefault>(item)?;
    Some(data.default().into_partial_reflect())
}

/// The default value of a variant's fields, from the registry's
/// `ReflectDefault`s; `None` when a field's type has none.
fn default_variant(variant: &VariantInfo, registry: &TypeRegistry) -> Option<DynamicVariant> {
    let default_of = |type_id| {
        let data = registry.get_type_data::<ReflectDefault>(type_id)?;
        Some(data.default().into_partial_reflect())
    };
    Some(match variant {
        VariantInfo::Unit(_) => DynamicVariant::Unit,
        VariantInfo::Tuple(tuple) => {
            let mut out = DynamicTuple::default();
            for field in tuple.iter() {
                out.insert_boxed(default_of(field.type_id())?);
            }
            DynamicVariant::Tuple(out)
        }
        VariantInfo::Struct(fields) => {
            let mut out = DynamicStruct::default();
            for field in fields.iter() {
                out.insert_boxed(field.name(), default_of(field.type_id())?);
            }
            DynamicVariant::Struct(out)
        }
    })
}

fn read_only(ui: &mut Ui, label: &str, value: &dyn PartialReflect) {
    ui.label(label);
    ui.label(format!("{value:?}"));
    ui.end_row();
}

/// The editors of single values; whether `value` was one.
fn leaf_ui(
    ui: &mut Ui,
    label: &str,
    value: &mut dyn PartialReflect,
    hints: &Hints,
    tracker: &mut Tracker,
) -> bool {
    macro_rules! integers {
        ($($ty:ty),*) => {$(
            if let Some(v) = value.try_downcast_mut::<$ty>() {
                let name = ui.label(label);
                let r = ui.add(DragValue::new(v)).labelled_by(name.id);
                tracker.track(&r);
                ui.end_row();
                return true;
            }
        )*};
    }
    if let Some(v) = value.try_downcast_mut::<f32>() {
        match &hints.range {
            Some(range) => {
                let name = ui.label(label);
                let r = ui
                    .add(
                        DragValue::new(v)
                            .range(range.clone())
                            .speed(0.01)
                            .max_decimals(4),
                    )
                    .labelled_by(name.id);
                tracker.track(&r);
                ui.end_row();
            }
            None => number(ui, label, v, 0.01, None, tracker),
        }
        return true;
    }
    integers!(f64, i8, i16, i32, i64, u8, u16, u32, u64, usize);
    if let Some(v) = value.try_downcast_mut::<bool>() {
        checkbox(ui, label, v, tracker);
        return true;
    }
    if let Some(v) = value.try_downcast_mut::<String>() {
        let name = ui.label(label);
        let r = ui.text_edit_singleline(v).labelled_by(name.id);
        tracker.track(&r);
        ui.end_row();
        return true;
    }
    if let Some(v) = value.try_downcast_mut::<Vec3>() {
        if hints.color {
            color_row(ui, label, v, tracker);
        } else {
            vec3_row(ui, label, v, 0.01, tracker);
        }
        return true;
    }
    if let Some(v) = value.try_downcast_mut::<Vec4>() {
        if hints.color {
            let mut rgb = v.truncate();
            color_row(ui, label, &mut rgb, tracker);
            *v = rgb.extend(v.w);
        } else if let Some(a) = drags(ui, label, &mut v.to_array(), tracker) {
            *v = Vec4::from_array(a);
        }
        return true;
    }
    if let Some(v) = value.try_downcast_mut::<Vec2>() {
        if let Some(a) = drags(ui, label, &mut v.to_array(), tracker) {
            *v = Vec2::from_array(a);
        }
        return true;
    }
    if let Some(q) = value.try_downcast_mut::<Quat>() {
        let (y, x, z) = q.to_euler(EulerRot::YXZ);
        let mut degrees = Vec3::new(x, y, z) * (180.0 / std::f32::consts::PI);
        let before = degrees;
        vec3_row(
            ui,
            &format!("{label} (degrees)"),
            &mut degrees,
            0.5,
            tracker,
        );
        if degrees != before {
            let r = degrees * (std::f32::consts::PI / 180.0);
            *q = Quat::from_euler(EulerRot::YXZ, r.y, r.x, r.z);
        }
        return true;
    }
    false
}

/// A row of drag values; the edited array when one changed.
fn drags<const N: usize>(
    ui: &mut Ui,
    label: &str,
    values: &mut [f32; N],
    tracker: &mut Tracker,
) -> Option<[f32; N]> {
    ui.label(label);
    let mut changed = false;
    ui.horizontal(|ui| {
        for (i, v) in values.iter_mut().enumerate() {
            let r = ui
                .add(DragValue::new(v).speed(0.01).max_decimals(4))
                .accessible_name(format!("{label} {i}"));
            changed |= r.changed();
            tracker.track(&r);
        }
    });
    ui.end_row();
    changed.then_some(*values)
}

#[cfg(test)]
mod tests {
    use bevy_reflect::TypeRegistry;

    #[test]
    fn an_empty_list_gets_a_first_item_of_the_default_value() {
        let mut registry = TypeRegistry::default();
        registry.register::<Vec<f32>>();
        registry.register::<Vec<String>>();
        let item = super::new_item(&Vec::<f32>::new(), &registry).expect("f32 has a default");
        assert_eq!(item.try_downcast_ref::<f32>(), Some(&0.0));
        let item = super::new_item(&Vec::<String>::new(), &registry).expect("so has String");
        assert_eq!(item.try_downcast_ref::<String>(), Some(&String::new()));
    }
}
