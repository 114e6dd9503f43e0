//! The stats panel: what the game loop and the dirty flag did last frame,
//! and a plot of recent frame times.
//!
//! Other parts of the program (the renderer's draw calls and culled meshes,
//! say) add their own numbers with [`EditorStats::set_counter`]; they are
//! listed after the built-in ones.

use std::collections::VecDeque;
use std::time::Duration;

use egui_plot::{Line, Plot};
use keel_engine::FrameStats;

/// How many frame times the plot keeps.
pub const HISTORY_LEN: usize = 300;

/// Numbers about the running editor, refreshed once per frame.
#[derive(Clone, Debug, Default)]
pub struct EditorStats {
    /// The world's last frame (fixed steps, alpha, dropped time, recomputed transforms).
    pub frame: FrameStats,
    /// Nodes in the scene.
    pub node_count: usize,
    /// The world's fixed step (where a seek on the timeline put it).
    pub total_steps: u64,
    /// Simulated time dropped by the catch-up cap since the world started.
    pub dropped_total: Duration,
    history: VecDeque<f32>,
    counters: Vec<(&'static str, String)>,
}

impl EditorStats {
    /// Records one frame.
    pub fn record(
        &mut self,
        frame: FrameStats,
        node_count: usize,
        total_steps: u64,
        dropped_total: Duration,
    ) {
        self.frame = frame;
        self.node_count = node_count;
        self.total_steps = total_steps;
        self.dropped_total = dropped_total;
        if self.history.len() == HISTORY_LEN {
            self.history.pop_front();
        }
        self.history
            .push_back(frame.tick.real_elapsed.as_secs_f32() * 1000.0);
    }

    /// Records one frame of `doc`'s world: the world's step (the one shown,
    /// which a seek moves), not the clock's count.
    pub(crate) fn record_frame(&mut self, frame: FrameStats, doc: &crate::document::Document) {
        self.record(
            frame,
            doc.scene().len(),
            doc.step(),
            doc.world.clock().dropped_total(),
        );
    }

    /// Frame times in milliseconds, oldest first (at most `HISTORY_LEN`).
    pub fn frame_times_ms(&self) -> impl ExactSizeIterator<Item = f32> + '_ {
        self.history.iter().copied()
    }

    /// Sets (or adds) a named number shown under the built-in ones, e.g.
    /// `set_counter("draw calls", 42)`.
    pub fn set_counter(&mut self, name: &'static str, value: impl ToString) {
        let value = value.to_string();
        match self.counters.iter_mut().find(|(n, _)| *n == name) {
            Some(entry) => entry.1 = value,
            None => self.counters.push((name, value)),
        }
    }

    /// The extra counters, in the order first set.
    pub fn counters(&self) -> &[(&'static str, String)] {
        &self.counters
    }
}

/// Draws the stats panel.
pub fn stats_ui(ui: &mut egui::Ui, stats: &EditorStats) {
    let tick = stats.frame.tick;
    ui.horizontal_top(|ui| {
        egui::Grid::new("stats_grid")
            .num_columns(2)
            .spacing([12.0, 2.0])
            .show(ui, |ui| {
                let mut row = |label: &str, value: String| {
                    ui.label(label);
                    ui.monospace(value);
                    ui.end_row();
                };
                row(
                    "frame time",
                    format!("{:.2} ms", tick.real_elapsed.as_secs_f64() * 1000.0),
                );
                row("fixed updates", tick.steps.to_string());
                row(
                    "dropped",
                    format!(
                        "{:.1} ms (total {:.1} ms)",
                        tick.dropped.as_secs_f64() * 1000.0,
                        stats.dropped_total.as_secs_f64() * 1000.0
                    ),
                );
                row("recomputed", stats.frame.recomputed.to_string());
                row("nodes", stats.node_count.to_string());
                row("step", stats.total_steps.to_string());
                for (name, value) in &stats.counters {
                    row(name, value.clone());
                }
            });
        let points: Vec<[f64; 2]> = stats
            .history
            .iter()
            .enumerate()
            .map(|(i, &ms)| [i as f64, f64::from(ms)])
            .collect();
        Plot::new("frame_times")
            .height(ui.available_height().max(60.0))
            .include_y(0.0)
            .include_y(20.0)
            .include_x(0.0)
            .include_x(HISTORY_LEN as f64)
            .allow_drag(false)
            .allow_zoom(false)
            .allow_scroll(false)
            .allow_boxed_zoom(false)
            .allow_double_click_reset(false)
            .show_x(false)
            .y_axis_label("ms")
            .show(ui, |plot| {
                plot.line(Line::new("frame time", points));
            });
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_engine::FrameTick;

    #[test]
    fn history_keeps_the_last_frames_and_counters_update_in_place() {
        let mut stats = EditorStats::default();
        for i in 0..HISTORY_LEN + 5 {
            let frame = FrameStats {
                tick: FrameTick {
                    real_elapsed: Duration::from_millis(i as u64),
                    ..FrameTick::default()
                },
                recomputed: i,
                refiled: 0,
            };
            stats.record(frame, 3, i as u64, Duration::ZERO);
        }
        assert_eq!(stats.frame_times_ms().len(), HISTORY_LEN);
        assert_eq!(
            stats.frame_times_ms().next(),
            Some(5.0),
            "the oldest went first"
        );
        stats.set_counter("draw calls", 3);
        stats.set_counter("culled", 1);
        stats.set_counter("draw calls", 4);
        assert_eq!(
            stats.counters(),
            &[("draw calls", "4".to_string()), ("culled", "1".to_string())]
        );
    }
}
