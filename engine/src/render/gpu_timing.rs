//! GPU pass times: each render pass writes a timestamp where it starts and
//! ends (`wgpu` timestamp queries through `wgpu-profiler`), and a frame's
//! times come back a few frames later, when the GPU has finished it.
//!
//! Off unless asked for ([`crate::Renderer::set_gpu_timing`]); off, a pass
//! is recorded exactly as without it. Only adapters with
//! `TIMESTAMP_QUERY` can time passes.

use std::collections::VecDeque;

use wgpu_profiler::{GpuProfiler, GpuProfilerQuery, GpuProfilerSettings, GpuTimerQueryResult};

use super::context::GpuContext;
use crate::profile::{GpuFrame, GpuPass};

/// Frames in flight before the oldest unread one is dropped.
const PENDING: usize = 3;
/// Finished frames kept until somebody takes them.
const KEPT: usize = 8;

/// The renderer's pass timer (does nothing while off).
#[derive(Default)]
pub(crate) struct GpuTimer {
    profiler: Option<GpuProfiler>,
    /// When the frame now being recorded was encoded.
    encoded_ns: i64,
    /// When each frame in flight was encoded, oldest first (mirrors the
    /// profiler's own queue, including the frames it drops).
    pending: VecDeque<i64>,
    done: VecDeque<GpuFrame>,
}

impl std::fmt::Debug for GpuTimer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuTimer")
            .field("on", &self.profiler.is_some())
            .field("pending", &self.pending.len())
            .finish_non_exhaustive()
    }
}

/// A pass's pair of timestamps, when timing is on.
pub(crate) struct PassQuery(Option<GpuProfilerQuery>);

impl PassQuery {
    /// What the pass descriptor's `timestamp_writes` takes.
    pub(crate) fn writes(&self) -> Option<wgpu::RenderPassTimestampWrites<'_>> {
        self.0.as_ref()?.render_pass_timestamp_writes()
    }

    /// What a compute pass descriptor's `timestamp_writes` takes.
    pub(crate) fn compute_writes(&self) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
        self.0.as_ref()?.compute_pass_timestamp_writes()
    }
}

impl GpuTimer {
    /// Turns timing on or off; returns whether it is on (an adapter without
    /// timestamp queries cannot time).
    pub(crate) fn set(&mut self, ctx: &GpuContext, on: bool) -> bool {
        if !on
            || !ctx
                .device
                .features()
                .contains(wgpu::Features::TIMESTAMP_QUERY)
        {
            *self = Self::default();
            return false;
        }
        if self.profiler.is_none() {
            let settings = GpuProfilerSettings {
                enable_timer_queries: true,
                enable_debug_groups: false,
                max_num_pending_frames: PENDING,
            };
            self.profiler = GpuProfiler::new(&ctx.device, settings).ok();
        }
        self.profiler.is_some()
    }

    pub(crate) fn is_on(&self) -> bool {
        self.profiler.is_some()
    }

    /// Notes that a frame's encoding starts now.
    pub(crate) fn start_frame(&mut self) {
        if self.profiler.is_some() {
            self.encoded_ns = puffin::now_ns();
        }
    }

    /// Reserves the timestamps of a pass called `label`.
    pub(crate) fn begin(&self, label: &str, encoder: &mut wgpu::CommandEncoder) -> PassQuery {
        PassQuery(
            self.profiler
                .as_ref()
                .map(|p| p.begin_pass_query(label, encoder)),
        )
    }

    /// Closes a pass's query once its pass has ended.
    pub(crate) fn end(&self, encoder: &mut wgpu::CommandEncoder, query: PassQuery) {
        if let (Some(profiler), Some(query)) = (&self.profiler, query.0) {
            profiler.end_query(encoder, query);
        }
    }

    /// Copies the frame's timestamps out (the last thing in the encoder).
    pub(crate) fn resolve(&mut self, encoder: &mut wgpu::CommandEncoder) {
        if let Some(profiler) = &mut self.profiler {
            profiler.resolve_queries(encoder);
        }
    }

    /// After the frame's encoder was submitted: queues the frame's readback
    /// and collects the frames the GPU has finished.
    pub(crate) fn finish_frame(&mut self, ctx: &GpuContext) {
        let Some(profiler) = &mut self.profiler else {
            return;
        };
        match profiler.end_frame() {
            Ok(()) => {
                if self.pending.len() == PENDING {
                    // The profiler dropped the newest frame in flight to make room.
                    self.pending.pop_back();
                }
                self.pending.push_back(self.encoded_ns);
            }
            Err(error) => log::warn!("GPU pass times: {error}"),
        }
        // Lets finished readbacks call back; waits for nothing.
        let _ = ctx.device.poll(wgpu::PollType::Poll);
        let period = ctx.queue.get_timestamp_period();
        while let Some(results) = profiler.process_finished_frame(period) {
            let Some(encoded_ns) = self.pending.pop_front() else {
                break;
            };
            let mut passes = Vec::new();
            flatten(&results, &mut passes);
            if passes.is_empty() {
                continue;
            }
            if self.done.len() == KEPT {
                self.done.pop_front();
            }
            self.done.push_back(GpuFrame { encoded_ns, passes });
        }
    }

    /// The finished frames' pass times, oldest first.
    pub(crate) fn take(&mut self) -> Vec<GpuFrame> {
        self.done.drain(..).collect()
    }
}

fn flatten(results: &[GpuTimerQueryResult], out: &mut Vec<GpuPass>) {
    for result in results {
        if let Some(time) = &result.time {
            out.push(GpuPass {
                label: result.label.clone(),
                start_ns: (time.start * 1e9) as i64,
                end_ns: (time.end * 1e9) as i64,
            });
        }
        flatten(&result.nested_queries, out);
    }
}
