//! The inspector's particle emitter editor: rate and bursts, lifetime and
//! speed ranges, cone, gravity and drag, colour and size over life (stops
//! added, moved and removed), blend mode and what happens when the pool is full.

use egui::{DragValue, Ui};
use keel_engine::Emitter;
use keel_engine::particles::{
    BlendMode, Burst, ColorStop, FloatRange, MAX_POOL_CAPACITY, Overflow, SizeStop,
};

use crate::panels::widgets::{Tracker, number, vec3_row};

pub(super) fn emitter_ui(ui: &mut Ui, e: &mut Emitter, tracker: &mut Tracker) {
    number(
        ui,
        "Emission rate (/s)",
        &mut e.rate,
        0.1,
        Some(0.0),
        tracker,
    );
    bursts_ui(ui, e, tracker);
    range_row(ui, "Lifetime (s)", "Lifetime", &mut e.lifetime, tracker);
    range_row(ui, "Speed", "Speed", &mut e.speed, tracker);
    ui.label("Cone angle (deg)");
    let r = ui
        .add(egui::Slider::new(&mut e.cone_angle, 0.0..=180.0))
        .accessible_name("Cone angle");
    tracker.track(&r);
    ui.end_row();
    vec3_row(ui, "Gravity", &mut e.gravity, 0.05, tracker);
    number(ui, "Drag (/s)", &mut e.drag, 0.01, Some(0.0), tracker);
    stops_ui(ui, &mut e.color_over_life, tracker);
    stops_ui(ui, &mut e.size_over_life, tracker);
    ui.label("Blend");
    let combo = egui::ComboBox::from_id_salt("emitter_blend")
        .selected_text(blend_name(e.blend))
        .show_ui(ui, |ui| {
            for mode in [BlendMode::Alpha, BlendMode::Additive] {
                ui.selectable_value(&mut e.blend, mode, blend_name(mode));
            }
        });
    let _ = combo.response.accessible_name("Blend");
    ui.end_row();
    let name = ui.label("Seed");
    let r = ui.add(DragValue::new(&mut e.seed)).labelled_by(name.id);
    tracker.track(&r);
    ui.end_row();
    overflow_ui(ui, &mut e.overflow, tracker);
}

fn blend_name(mode: BlendMode) -> &'static str {
    match mode {
        BlendMode::Additive => "Additive",
        BlendMode::Alpha => "Alpha",
    }
}

/// A `min..=max` pair on one row, named `name min` and `name max`.
fn range_row(ui: &mut Ui, label: &str, name: &str, range: &mut FloatRange, tracker: &mut Tracker) {
    ui.label(label);
    ui.horizontal(|ui| {
        for (end, value) in [("min", &mut range.min), ("max", &mut range.max)] {
            let r = ui
                .add(DragValue::new(value).speed(0.05).max_decimals(4))
                .accessible_name(format!("{name} {end}"));
            tracker.track(&r);
        }
    });
    ui.end_row();
}

/// A small button that removes list item `what`; true when clicked.
fn remove_button(ui: &mut Ui, what: &str, enabled: bool, tracker: &mut Tracker) -> bool {
    let r = ui
        .add_enabled(enabled, egui::Button::new("x").small())
        .on_hover_text(format!("Remove {what}"))
        .accessible_name(format!("Remove {what}"));
    tracker.track(&r);
    r.clicked()
}

fn bursts_ui(ui: &mut Ui, e: &mut Emitter, tracker: &mut Tracker) {
    let mut removed = None;
    for (i, burst) in e.bursts.iter_mut().enumerate() {
        let what = format!("burst {}", i + 1);
        ui.label(format!("Burst {}", i + 1));
        ui.horizontal(|ui| {
            let r = ui
                .add(
                    DragValue::new(&mut burst.time)
                        .speed(0.05)
                        .max_decimals(4)
                        .range(0.0..=f32::MAX)
                        .suffix(" s"),
                )
                .accessible_name(format!("Burst {} time", i + 1));
            tracker.track(&r);
            let r = ui
                .add(DragValue::new(&mut burst.count).suffix(" particles"))
                .accessible_name(format!("Burst {} count", i + 1));
            tracker.track(&r);
            if remove_button(ui, &what, true, tracker) {
                removed = Some(i);
            }
        });
        ui.end_row();
    }
    if let Some(i) = removed {
        e.bursts.remove(i);
    }
    ui.label("Bursts");
    ui.horizontal(|ui| {
        let r = ui.button("Add burst");
        tracker.track(&r);
        if r.clicked() {
            let time = e.bursts.last().map_or(0.0, |b| b.time + 0.5);
            e.bursts.push(Burst { time, count: 10 });
        }
        let mut repeat = e.burst_period.is_some();
        let r = ui.checkbox(&mut repeat, "Repeat every");
        tracker.track(&r);
        if repeat != e.burst_period.is_some() {
            e.burst_period = repeat.then_some(1.0);
        }
        if let Some(period) = &mut e.burst_period {
            let r = ui
                .add(
                    DragValue::new(period)
                        .speed(0.05)
                        .max_decimals(4)
                        .suffix(" s"),
                )
                .accessible_name("Burst period");
            tracker.track(&r);
        }
    });
    ui.end_row();
}

/// A linear RGBA colour: the picker shows the hue and alpha, scaled down when
/// the colour is brighter than 1 (additive glow), which it can't show.
fn rgba_button(ui: &mut Ui, name: &str, color: &mut [f32; 4], tracker: &mut Tracker) {
    let [r, g, b, a] = *color;
    let scale = r.max(g).max(b).max(1.0);
    let mut shown = [r / scale, g / scale, b / scale, a.clamp(0.0, 1.0)];
    let response = ui
        .color_edit_button_rgba_unmultiplied(&mut shown)
        .accessible_name(name.to_owned());
    tracker.track(&response);
    if response.changed() {
        *color = [
            shown[0] * scale,
            shown[1] * scale,
            shown[2] * scale,
            shown[3],
        ];
    }
}

fn stop_t(ui: &mut Ui, name: String, t: &mut f32, tracker: &mut Tracker) {
    let r = ui
        .add(
            DragValue::new(t)
                .speed(0.01)
                .max_decimals(3)
                .range(0.0..=1.0)
                .prefix("t "),
        )
        .accessible_name(name);
    tracker.track(&r);
}

/// The index and `t` of a new stop halfway between the last two, so adding
/// one keeps the stops sorted and the curve unchanged.
fn new_stop_at(ts: impl ExactSizeIterator<Item = f32> + Clone) -> (usize, f32) {
    let n = ts.len();
    let mut last_two = ts.skip(n.saturating_sub(2));
    let a = last_two.next().unwrap_or(0.0);
    let b = last_two.next().unwrap_or(1.0);
    (n.saturating_sub(1), (a + b) * 0.5)
}

/// A stop of an over-life curve: a position in the particle's life and a value.
trait Stop: Clone {
    /// What the rows and buttons call it: "Color" or "Size".
    const NAME: &'static str;
    /// Where in the particle's life, 0..=1.
    fn t(&mut self) -> &mut f32;
    /// The editors of the stop's value, named after stop `n`.
    fn value_ui(&mut self, ui: &mut Ui, n: usize, tracker: &mut Tracker);
    /// The stop the curve `stops` has at `t`, so inserting it changes nothing.
    fn sample(stops: &[Self], t: f32) -> Self;
}

impl Stop for ColorStop {
    const NAME: &'static str = "Color";

    fn t(&mut self) -> &mut f32 {
        &mut self.t
    }

    fn value_ui(&mut self, ui: &mut Ui, n: usize, tracker: &mut Tracker) {
        rgba_button(
            ui,
            &format!("Color stop {n} color"),
            &mut self.color,
            tracker,
        );
        for (channel, value) in ["R", "G", "B", "A"].into_iter().zip(&mut self.color) {
            let r = ui
                .add(
                    DragValue::new(value)
                        .speed(0.01)
                        .max_decimals(3)
                        .range(0.0..=f32::MAX),
                )
                .accessible_name(format!("Color stop {n} {channel}"));
            tracker.track(&r);
        }
    }

    fn sample(stops: &[Self], t: f32) -> Self {
        let curve = Emitter {
            color_over_life: stops.to_vec(),
            ..Emitter::default()
        };
        ColorStop {
            t,
            color: curve.color_at(t).to_array(),
        }
    }
}

impl Stop for SizeStop {
    const NAME: &'static str = "Size";

    fn t(&mut self) -> &mut f32 {
        &mut self.t
    }

    fn value_ui(&mut self, ui: &mut Ui, n: usize, tracker: &mut Tracker) {
        let r = ui
            .add(
                DragValue::new(&mut self.size)
                    .speed(0.01)
                    .max_decimals(4)
                    .range(0.0..=f32::MAX),
            )
            .accessible_name(format!("Size stop {n} size"));
        tracker.track(&r);
    }

    fn sample(stops: &[Self], t: f32) -> Self {
        let curve = Emitter {
            size_over_life: stops.to_vec(),
            ..Emitter::default()
        };
        SizeStop {
            t,
            size: curve.size_at(t),
        }
    }
}

/// An over-life curve of 2 to 4 stops: a row per stop (t, value, remove), then "Add".
fn stops_ui<S: Stop>(ui: &mut Ui, stops: &mut Vec<S>, tracker: &mut Tracker) {
    let name = S::NAME;
    let lower = name.to_lowercase();
    let can_remove = stops.len() > 2;
    let mut removed = None;
    for (i, stop) in stops.iter_mut().enumerate() {
        let n = i + 1;
        ui.label(format!("{name} stop {n}"));
        ui.horizontal(|ui| {
            stop_t(ui, format!("{name} stop {n} t"), stop.t(), tracker);
            stop.value_ui(ui, n, tracker);
            if remove_button(ui, &format!("{lower} stop {n}"), can_remove, tracker) {
                removed = Some(i);
            }
        });
        ui.end_row();
    }
    if let Some(i) = removed {
        stops.remove(i);
    }
    if stops.len() < 4 {
        ui.label("");
        let r = ui.button(format!("Add {lower} stop"));
        tracker.track(&r);
        if r.clicked() {
            let ts: Vec<f32> = stops.iter_mut().map(|s| *s.t()).collect();
            let (index, t) = new_stop_at(ts.into_iter());
            let stop = S::sample(stops, t);
            stops.insert(index, stop);
        }
        ui.end_row();
    }
}

fn overflow_ui(ui: &mut Ui, overflow: &mut Overflow, tracker: &mut Tracker) {
    fn name(o: Overflow) -> &'static str {
        match o {
            Overflow::Drop => "Drop new particles",
            Overflow::ReplaceOldest => "Replace the oldest",
            Overflow::Grow { .. } => "Grow the pool",
        }
    }
    ui.label("When the pool is full");
    let current = *overflow;
    let combo = egui::ComboBox::from_id_salt("emitter_overflow")
        .selected_text(name(current))
        .show_ui(ui, |ui| {
            let grow = match current {
                Overflow::Grow { .. } => current,
                Overflow::Drop | Overflow::ReplaceOldest => Overflow::Grow { max: 65_536 },
            };
            for choice in [Overflow::Drop, Overflow::ReplaceOldest, grow] {
                let selected = std::mem::discriminant(&current) == std::mem::discriminant(&choice);
                if ui.selectable_label(selected, name(choice)).clicked() && !selected {
                    *overflow = choice;
                }
            }
        });
    let _ = combo.response.accessible_name("Overflow");
    ui.end_row();
    if let Overflow::Grow { max } = overflow {
        let label = ui.label("Grow up to");
        let r = ui
            .add(
                DragValue::new(max)
                    .speed(64.0)
                    .range(1..=MAX_POOL_CAPACITY)
                    .suffix(" particles"),
            )
            .labelled_by(label.id);
        tracker.track(&r);
        ui.end_row();
    }
}
