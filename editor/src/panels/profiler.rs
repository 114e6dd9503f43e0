//! The Profiler tab: where each frame's time goes. A strip of the recent
//! frames' lengths (click one to look at it; that pauses), and the frame as
//! a flame graph: one lane per thread, scopes nested under their callers,
//! the GPU's passes in a lane of their own, drawn from where the CPU encoded
//! them. Wheel zooms around the pointer, dragging pans, hovering names a
//! scope, its time and its place in the source; below, every scope summed
//! over the last second's frames.
//!
//! The frames come from the editor's own [`Profiler`], recording only while
//! this tab is shown and not paused: hidden, it costs nothing.

use egui::{Align2, Color32, FontId, Rect, Sense, Ui, pos2, vec2};
use keel_engine::profile::{FrameProfile, GPU_LANE, GpuFrame, Profiler, ScopeSummary};

const ROW: f32 = 18.0;
const STRIP_HEIGHT: f32 = 48.0;
const BAR: f32 = 5.0;
/// Frames between two refreshes of the summary table.
const SUMMARY_EVERY: u64 = 30;
/// Frames the summary sums (the last second at 60 frames a second).
const SUMMARY_FRAMES: usize = 60;

/// The Profiler tab's state and the frames it shows.
#[derive(Debug, Default)]
pub struct ProfilerTab {
    profiler: Profiler,
    paused: bool,
    /// The frame shown while paused (the newest one otherwise).
    selected: Option<u64>,
    /// The frame last drawn, flattened (kept while it stays the one shown).
    shown: Option<FrameProfile>,
    /// Nanoseconds of the frame at the flame graph's left edge, and per point.
    offset_ns: f64,
    zoom: Option<f64>,
    summary: Vec<ScopeSummary>,
    summary_at: Option<u64>,
    /// Where the last drawn frame's scopes and the strip's bars were (tests
    /// point at them).
    drawn: Vec<(String, Rect)>,
    bars: Vec<(u64, Rect)>,
}

impl ProfilerTab {
    /// Ends the frame being recorded and starts the next, recording while
    /// the tab is `shown` and not paused. Call once per displayed frame,
    /// before anything of it runs.
    pub fn new_frame(&mut self, shown: bool) {
        self.profiler.new_frame();
        self.profiler.set_recording(shown && !self.paused);
    }

    /// Whether this frame is being recorded (the renderers then time their
    /// passes on the GPU too).
    #[must_use]
    pub fn is_recording(&self) -> bool {
        self.profiler.is_recording()
    }

    /// Files a renderer's GPU pass times.
    pub fn add_gpu(&self, frames: Vec<GpuFrame>) {
        if !frames.is_empty() {
            self.profiler.add_gpu(frames);
        }
    }

    /// The recorded frames.
    #[must_use]
    pub fn profiler(&self) -> &Profiler {
        &self.profiler
    }

    /// Whether recording is paused.
    #[must_use]
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Pauses (keeping the frame shown) or goes back to the newest frames.
    pub fn set_paused(&mut self, paused: bool) {
        self.paused = paused;
        // At once: the frame under way when pausing is not kept.
        self.profiler.set_recording(!paused);
        if paused {
            self.selected = self.selected.or(self.shown.as_ref().map(|f| f.index));
        } else {
            self.selected = None;
        }
    }

    /// The frame the flame graph shows.
    #[must_use]
    pub fn shown(&self) -> Option<&FrameProfile> {
        self.shown.as_ref()
    }

    /// Where the flame graph last drew the first scope labelled `label`.
    #[must_use]
    pub fn span_rect(&self, label: &str) -> Option<Rect> {
        self.drawn.iter().find(|(l, _)| l == label).map(|(_, r)| *r)
    }

    /// Where the strip last drew frame `index`'s bar.
    #[must_use]
    pub fn bar_rect(&self, index: u64) -> Option<Rect> {
        self.bars.iter().find(|(i, _)| *i == index).map(|(_, r)| *r)
    }

    /// Draws the tab.
    pub fn ui(&mut self, ui: &mut Ui) {
        let lengths = self.profiler.frame_lengths();
        ui.horizontal(|ui| {
            let label = if self.paused {
                "Resume recording"
            } else {
                "Pause recording"
            };
            if ui.button(label).clicked() {
                self.set_paused(!self.paused);
            }
            if ui.button("Clear").clicked() {
                self.profiler.clear();
                self.selected = None;
                self.shown = None;
            }
            if ui
                .button("Fit")
                .on_hover_text("Show the whole frame")
                .clicked()
            {
                self.zoom = None;
                self.offset_ns = 0.0;
            }
            match &self.shown {
                Some(frame) => ui.label(format!(
                    "frame {}: {:.2} ms, {} frames kept",
                    frame.index,
                    frame.duration_ns as f64 / 1e6,
                    lengths.len()
                )),
                None if lengths.is_empty() => ui.weak("No frames recorded yet"),
                None => ui.weak(""),
            };
        });
        self.strip_ui(ui, &lengths);
        let wanted = if self.paused {
            self.selected
        } else {
            lengths.last().map(|&(i, _)| i)
        };
        if wanted.is_some() && self.shown.as_ref().map(|f| f.index) != wanted {
            self.shown = wanted.and_then(|i| self.profiler.frame(i));
        }
        let summary_height = 140.0_f32.min(ui.available_height() * 0.35);
        let flame_height = (ui.available_height() - summary_height - 8.0).max(ROW * 4.0);
        egui::ScrollArea::vertical()
            .id_salt("profiler flame")
            .max_height(flame_height)
            .auto_shrink([false, true])
            .show(ui, |ui| self.flame_ui(ui));
        ui.separator();
        self.summary_ui(ui, &lengths);
    }

    /// The recent frames' lengths as bars, newest right.
    fn strip_ui(&mut self, ui: &mut Ui, lengths: &[(u64, i64)]) {
        let (response, painter) =
            ui.allocate_painter(vec2(ui.available_width(), STRIP_HEIGHT), Sense::click());
        let rect = response.rect;
        painter.rect_filled(rect, 2.0, ui.visuals().extreme_bg_color);
        self.bars.clear();
        let fits = (rect.width() / BAR) as usize;
        let shown = &lengths[lengths.len().saturating_sub(fits)..];
        let longest = shown.iter().map(|&(_, d)| d).max().unwrap_or(1).max(1) as f32;
        let current = self.shown.as_ref().map(|f| f.index);
        for (k, &(index, duration)) in shown.iter().enumerate() {
            let height = (duration as f32 / longest * (STRIP_HEIGHT - 4.0)).max(1.0);
            let x = rect.left() + k as f32 * BAR;
            let bar = Rect::from_min_max(
                pos2(x, rect.bottom() - height),
                pos2(x + BAR - 1.0, rect.bottom()),
            );
            let color = if current == Some(index) {
                ui.visuals().selection.bg_fill
            } else {
                frame_color(duration)
            };
            painter.rect_filled(bar, 0.0, color);
            self.bars
                .push((index, Rect::from_min_max(pos2(x, rect.top()), bar.max)));
        }
        let pointer = response.hover_pos();
        let under = |bars: &[(u64, Rect)]| {
            let at = pointer?;
            bars.iter()
                .find(|(_, r)| r.x_range().contains(at.x))
                .copied()
        };
        if let Some((index, _)) = under(&self.bars) {
            let duration = lengths.iter().find(|(i, _)| *i == index).map_or(0, |f| f.1);
            let response = response.on_hover_text_at_pointer(format!(
                "frame {index}: {:.2} ms\nClick to look at it (pauses)",
                duration as f64 / 1e6
            ));
            if response.clicked() {
                self.set_paused(true);
                self.selected = Some(index);
            }
        }
    }

    fn flame_ui(&mut self, ui: &mut Ui) {
        self.drawn.clear();
        let Some(frame) = &self.shown else {
            ui.weak("Frames appear here while this tab is shown.");
            return;
        };
        let rows: usize = frame
            .lanes
            .iter()
            .map(|l| 1 + l.spans.iter().map(|s| s.depth + 1).max().unwrap_or(0))
            .sum();
        let size = vec2(ui.available_width(), rows as f32 * ROW + 4.0);
        let (response, painter) = ui.allocate_painter(size, Sense::click_and_drag());
        let rect = response.rect;
        let end_ns = frame
            .spans()
            .map(|(_, s)| s.start_ns + s.duration_ns)
            .max()
            .unwrap_or(1)
            .max(frame.duration_ns)
            .max(1) as f64;
        let fit = f64::from(rect.width()) / end_ns;
        let mut per_ns = self.zoom.unwrap_or(fit);
        if let Some(pointer) = response.hover_pos() {
            let (scroll, zoom) = ui.input(|i| (i.smooth_scroll_delta.y, i.zoom_delta()));
            #[expect(clippy::disallowed_methods, reason = "a view's zoom, not simulated")]
            let factor = f64::from(zoom) * (f64::from(scroll) / 200.0).exp();
            if (factor - 1.0).abs() > 1e-4 {
                // Zoom around the pointer: the time under it stays under it.
                let at_ns = self.offset_ns + f64::from(pointer.x - rect.left()) / per_ns;
                per_ns = (per_ns * factor).clamp(fit, 1.0);
                self.offset_ns = at_ns - f64::from(pointer.x - rect.left()) / per_ns;
                self.zoom = Some(per_ns);
            }
        }
        if response.dragged() {
            self.offset_ns -= f64::from(response.drag_delta().x) / per_ns;
        }
        let visible_ns = f64::from(rect.width()) / per_ns;
        self.offset_ns = self.offset_ns.clamp(0.0, (end_ns - visible_ns).max(0.0));
        let painter = painter.with_clip_rect(rect);
        let x_of = |ns: i64| rect.left() + ((ns as f64 - self.offset_ns) * per_ns) as f32;
        let font = FontId::proportional(11.0);
        let text = ui.visuals().strong_text_color();
        let mut y = rect.top() + 2.0;
        let mut hovered = None;
        let pointer = response.hover_pos();
        for lane in &frame.lanes {
            let lane_name = if lane.name == GPU_LANE {
                "GPU (drawn from where the CPU encoded the frame)".to_owned()
            } else {
                format!("thread {}", lane.name)
            };
            painter.text(
                pos2(rect.left() + 2.0, y + ROW / 2.0),
                Align2::LEFT_CENTER,
                lane_name,
                font.clone(),
                ui.visuals().weak_text_color(),
            );
            y += ROW;
            let depth = lane.spans.iter().map(|s| s.depth + 1).max().unwrap_or(0);
            for span in &lane.spans {
                let top = y + span.depth as f32 * ROW;
                let left = x_of(span.start_ns);
                let right = x_of(span.start_ns + span.duration_ns).max(left + 1.0);
                if right < rect.left() || left > rect.right() {
                    continue;
                }
                let bar = Rect::from_min_max(pos2(left, top), pos2(right, top + ROW - 1.0));
                painter.rect_filled(bar, 2.0, scope_color(&span.name, lane.name == GPU_LANE));
                let label = span.label();
                if bar.width() > 24.0 {
                    painter.with_clip_rect(bar.intersect(rect)).text(
                        pos2(bar.left() + 3.0, bar.center().y),
                        Align2::LEFT_CENTER,
                        &label,
                        font.clone(),
                        text,
                    );
                }
                if pointer.is_some_and(|p| bar.contains(p)) {
                    hovered = Some((
                        label.clone(),
                        span.duration_ns,
                        span.location.clone(),
                        lane.name == GPU_LANE,
                    ));
                }
                self.drawn.push((label, bar));
            }
            y += depth as f32 * ROW;
        }
        if let Some((label, duration, location, gpu)) = hovered {
            let place = if gpu {
                "on the GPU".to_owned()
            } else {
                location
            };
            response.on_hover_text_at_pointer(format!(
                "{label}\n{:.3} ms\n{place}",
                duration as f64 / 1e6
            ));
        }
    }

    fn summary_ui(&mut self, ui: &mut Ui, lengths: &[(u64, i64)]) {
        let newest = lengths.last().map(|&(i, _)| i);
        let stale = match (self.summary_at, newest) {
            (None, Some(_)) => true,
            (Some(at), Some(newest)) => newest >= at + SUMMARY_EVERY || newest < at,
            _ => false,
        };
        if stale {
            self.summary = self.profiler.summary_of_last(SUMMARY_FRAMES);
            self.summary_at = newest;
        }
        egui::ScrollArea::vertical()
            .id_salt("profiler summary")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                egui::Grid::new("profiler summary grid")
                    .striped(true)
                    .num_columns(5)
                    .show(ui, |ui| {
                        for title in ["", "scope", "ms / frame", "max ms", "calls / frame"] {
                            ui.strong(title);
                        }
                        ui.end_row();
                        for row in &self.summary {
                            ui.weak(if row.gpu { GPU_LANE } else { "CPU" });
                            ui.label(&row.label);
                            ui.monospace(format!("{:.3}", row.mean_ns / 1e6));
                            ui.monospace(format!("{:.3}", row.max_ns as f64 / 1e6));
                            ui.monospace(format!("{:.1}", row.calls_per_frame));
                            ui.end_row();
                        }
                    });
            });
    }
}

/// Green under 60 frames a second, amber under 30, red beyond.
fn frame_color(duration_ns: i64) -> Color32 {
    match duration_ns {
        d if d <= 16_700_000 => Color32::from_rgb(90, 170, 90),
        d if d <= 33_400_000 => Color32::from_rgb(210, 170, 60),
        _ => Color32::from_rgb(210, 80, 70),
    }
}

/// A steady colour per scope name (hashed), blue-ish for the GPU's passes.
fn scope_color(name: &str, gpu: bool) -> Color32 {
    let hash = name.bytes().fold(2_166_136_261_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(16_777_619)
    });
    let vary = |shift: u32| 40 + ((hash >> shift) & 0x3f) as u8;
    if gpu {
        Color32::from_rgb(vary(0) / 2 + 30, vary(8) + 40, 190)
    } else {
        Color32::from_rgb(vary(0) + 110, vary(8) + 70, vary(16) + 20)
    }
}
