//! The Timeline tab while a recording runs: the recorded range,
//! a slider to scrub it, one fixed step back and forward (`,` and `.`), and
//! what the recording holds against its budget. Scrubbing pauses; Play goes on
//! from the step shown (the recorded future after it is replaced).

use egui::{Button, Color32, RichText};

use crate::action::Action;
use crate::divergence::Divergence;
use crate::document::Document;

/// Budget of a new recording when the user has not chosen one (MB).
pub(crate) const DEFAULT_BUDGET_MB: usize = 256;

/// What the Timeline tab shows of the previous build's run (live mode).
pub(crate) struct PreviousRunView {
    /// Steps of the previous run kept (none: no box to tick).
    pub(crate) kept: usize,
    /// Whether the views show it.
    pub(crate) showing: bool,
    /// The kept step the views show, when they do.
    pub(crate) shown: Option<u64>,
}

/// Draws the Timeline tab: the recording's range and a slider over it, or
/// before Play the budget of the next recording.
pub(crate) fn timeline_ui(
    ui: &mut egui::Ui,
    doc: &Document,
    record_budget_mb: &mut usize,
    previous: &PreviousRunView,
    divergence: Option<&Divergence>,
    actions: &mut Vec<Action>,
) {
    let Some(recorder) = doc.world.recorder() else {
        ui.horizontal(|ui| {
            ui.weak("Press Play to record every step; the timeline then scrubs back through them.");
            ui.separator();
            let budget = egui::DragValue::new(record_budget_mb)
                .range(16..=16_384)
                .suffix(" MB");
            ui.add(budget)
                .on_hover_text("Memory a recording may use; the oldest steps go first");
        });
        return;
    };
    let Some(range) = recorder.range() else {
        return;
    };
    let stats = recorder.stats();
    let budget = recorder.settings().budget_bytes;
    let (first, last) = (*range.start(), *range.end());
    let current = doc.step();
    let mut target = current;
    ui.horizontal_wrapped(|ui| {
        let back = ui
            .add_enabled(current > first, Button::new("< Step back"))
            .on_hover_text("One fixed step back (,)");
        if back.clicked() {
            target = current - 1;
        }
        let forward = ui
            .add(Button::new("Step forward >"))
            .on_hover_text("One fixed step forward (.)");
        if forward.clicked() {
            actions.push(Action::StepForward);
        }
        let used = format!(
            "step {current} of {first}..{last} · {} keyframes · {:.1} / {} MB",
            stats.keyframes,
            stats.bytes as f64 / f64::from(1 << 20),
            budget >> 20
        );
        ui.label(RichText::new(used).monospace());
    });
    // A line of its own, the panel's width: the finest scrubbing it allows.
    ui.spacing_mut().slider_width = (ui.available_width() - 8.0).max(80.0);
    let slider = egui::Slider::new(&mut target, first..=last.max(first + 1))
        .show_value(false)
        .clamping(egui::SliderClamping::Always);
    let bar = ui
        .add(slider)
        .accessible_name("Timeline")
        .on_hover_text("Drag to scrub through the recorded steps");
    if previous.kept > 0 {
        ui.horizontal(|ui| {
            let mut showing = previous.showing;
            let tick = ui
                .checkbox(&mut showing, "Show the old code's run")
                .on_hover_text(
                    "The views show the run the code before the reload made, at the kept step nearest before the timeline's",
                );
            if tick.changed() {
                actions.push(Action::ShowPreviousRun(showing));
            }
            if let Some(step) = previous.shown {
                ui.label(format!(
                    "old run after step {step} ({} steps kept)",
                    previous.kept
                ));
            }
        });
    }
    if let Some(divergence) = divergence {
        let diverged = divergence.diverged_at;
        if let Some(step) = diverged.filter(|s| (first..=last).contains(s)) {
            // A red tick where the new code departs from the old.
            let rect = bar.rect;
            let t = (step - first) as f32 / (last.max(first + 1) - first) as f32;
            let x = rect.left() + t * rect.width();
            ui.painter().vline(
                x,
                rect.y_range(),
                egui::Stroke::new(2.0, Color32::from_rgb(220, 60, 60)),
            );
        }
        ui.horizontal(|ui| {
            let text = RichText::new(divergence.summary());
            ui.label(if diverged.is_some() {
                text.color(Color32::from_rgb(220, 60, 60))
            } else {
                text
            });
            if let Some(step) = diverged
                && ui
                    .button("Go to it")
                    .on_hover_text("Show the first step the new code changed")
                    .clicked()
            {
                target = step;
            }
        });
    }
    let target = target.min(last);
    if target != current {
        actions.push(Action::Seek(target));
    }
}
