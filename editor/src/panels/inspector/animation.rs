//! The inspector's animation panel for an `Animator`: which clip, play or
//! pause, speed, what happens at the end, and a timeline to scrub while
//! paused. Every change is an ordinary component edit (undoable, merged while
//! a drag lasts); the document poses the bones at once, so the 3D view follows
//! a scrub without a fixed step.

use egui::Ui;
use keel_engine::scene::clip_time;
use keel_engine::{Animator, PlayMode};

/// What the panel's widgets did this frame.
pub(super) struct Touched {
    /// A value changed.
    pub changed: bool,
    /// A widget is being dragged or edited.
    pub active: bool,
}

fn track(touched: &mut Touched, r: &egui::Response) {
    touched.changed |= r.changed();
    touched.active |= r.dragged() || r.has_focus() || r.is_pointer_button_down_on();
}

/// Rows of the component grid for `a`; `clips` are the model's (name, seconds).
pub(super) fn animator_ui(ui: &mut Ui, a: &mut Animator, clips: &[(String, f32)]) -> Touched {
    let mut touched = Touched {
        changed: false,
        active: false,
    };
    ui.label("Clip");
    let combo = egui::ComboBox::from_id_salt("animator_clip")
        .selected_text(a.clip.as_str())
        .show_ui(ui, |ui| {
            for (name, _) in clips {
                if ui.selectable_label(a.clip == *name, name).clicked() && a.clip != *name {
                    a.clip = name.clone();
                    a.time = 0.0;
                    a.fade = None;
                    touched.changed = true;
                }
            }
        });
    combo.response.on_hover_text("The model's animation clips");
    ui.end_row();

    ui.label("Play");
    let r = ui.checkbox(&mut a.playing, "Playing");
    track(&mut touched, &r);
    ui.end_row();

    ui.label("Speed");
    let r = ui.add(
        egui::DragValue::new(&mut a.speed)
            .speed(0.01)
            .max_decimals(3),
    );
    track(&mut touched, &r.accessible_name("Speed"));
    ui.end_row();

    ui.label("At the end");
    ui.horizontal(|ui| {
        for (mode, label) in [
            (PlayMode::Loop, "Loop"),
            (PlayMode::Once, "Once"),
            (PlayMode::PingPong, "Ping-pong"),
        ] {
            let r = ui.selectable_value(&mut a.mode, mode, label);
            track(&mut touched, &r);
        }
    });
    ui.end_row();

    let duration = clips
        .iter()
        .find(|(name, _)| *name == a.clip)
        .map_or(0.0, |(_, d)| *d);
    ui.label("Time");
    // The slider shows the time within the clip; scrubbing sets the play time there.
    let mut shown = clip_time(a.mode, a.time, duration);
    let slider = egui::Slider::new(&mut shown, 0.0..=duration.max(0.001))
        .suffix(" s")
        .max_decimals(3);
    let r = ui
        .add_enabled(!a.playing, slider)
        .accessible_name("Clip time")
        .on_disabled_hover_text("Pause to scrub");
    if r.changed() {
        a.time = f64::from(shown);
    }
    track(&mut touched, &r);
    ui.end_row();
    touched
}
