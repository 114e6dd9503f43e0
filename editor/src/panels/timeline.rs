//! The Timeline tab while a recording runs: the recorded range,
//! a slider to scrub it, one fixed step back and forward (`,` and `.`), and
//! what the recording holds against its budget. Scrubbing pauses; Play goes on
//! from the step shown (the recorded future after it is replaced).

use egui::{Button, Color32, RichText};

use crate::app::{Action, EditorApp};

/// Budget of a new recording when the user has not chosen one (MB).
pub(crate) const DEFAULT_BUDGET_MB: usize = 256;

impl EditorApp {
    pub(crate) fn timeline_ui(&mut self, ui: &mut egui::Ui) {
        let Some(recorder) = self.doc.world.recorder() else {
            ui.horizontal(|ui| {
                ui.weak(
                    "Press Play to record every step; the timeline then scrubs back through them.",
                );
                ui.separator();
                let budget = egui::DragValue::new(&mut self.play.record_budget_mb)
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
        let current = self.doc.step();
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
                self.actions.push(Action::StepForward);
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
        if self.play.previous_run.kept() > 0 {
            ui.horizontal(|ui| {
                let mut showing = self.play.previous_run.showing;
                let tick = ui
                    .checkbox(&mut showing, "Show the old code's run")
                    .on_hover_text(
                        "The views show the run the code before the reload made, at the kept step nearest before the timeline's",
                    );
                if tick.changed() {
                    self.show_old_run(showing);
                }
                if let Some(step) = self.old_run_shown() {
                    ui.label(format!(
                        "old run after step {step} ({} steps kept)",
                        self.play.previous_run.kept()
                    ));
                }
            });
        }
        if let Some(divergence) = &self.play.divergence {
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
            self.actions.push(Action::Seek(target));
        }
    }

    /// Puts the world at a recorded step and pauses there.
    pub(crate) fn seek(&mut self, step: u64) {
        if self.play.state == crate::app::PlayState::Playing {
            self.pause();
        }
        match self.doc.seek(step) {
            Ok(_) => {}
            Err(e) => self.status.error(format!("Cannot go to step {step}: {e}")),
        }
    }

    /// One step forward: along the recording when the world was sought back,
    /// else a new fixed step.
    pub(crate) fn step_forward(&mut self) {
        let next = self.doc.step() + 1;
        match self.doc.world.recorder().and_then(|r| r.range()) {
            Some(range) if range.contains(&next) => self.seek(next),
            _ => self.step(),
        }
    }
}
