//! `--benchmark`: a scene's frame times, measured the same way every run.
//!
//! Offscreen (no window, no vsync), a fixed step of 1/60 s a frame, a fixed
//! number of frames after a warm-up, and the scene's own determinism: the
//! same frames every run. Each frame steps the world, extracts and renders it
//! and then waits for the GPU, so the CPU's time (step, extraction, encoding
//! and submission) and the GPU's (each pass, by timestamp queries where the
//! adapter has them) are measured apart. The result is one JSON line:
//!
//! ```text
//! {"scene":"assets/stress/cubes_100k.ron","adapter":"llvmpipe (Vulkan, Cpu)","size":[1280,720],
//!  "frames":300,"nodes":101111,"draw_calls":1,"cpu_ms":{"median":..,"p99":..,"mean":..},
//!  "step_ms":{..},"extract_ms":{..},"render_ms":{..},"gpu_ms":{"main pass":{..},..}}
//! ```
//!
//! `assets/stress/` holds the stress scenes it ships with: 100,000 and
//! 1,000,000 cubes in a grid, 1% orbiting (`scripts/make-stress-scenes.py`).

use std::collections::BTreeMap;
use std::time::Duration;

use web_time::Instant;

use keel_engine::{Assets, Extractor, GpuContext, Overlays, Renderer};
use serde::Serialize;

use crate::window::{PlayerError, PlayerOptions};

/// Frames measured when `--frames` does not say.
pub(crate) const DEFAULT_FRAMES: u32 = 300;

/// Median, 99th percentile and mean of a series, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Times {
    /// The middle value.
    pub median: f64,
    /// The value 99% of the frames stay at or under.
    pub p99: f64,
    /// The mean.
    pub mean: f64,
}

impl Times {
    /// The statistics of `ms` (zeros for none).
    pub fn of(ms: &[f64]) -> Times {
        if ms.is_empty() {
            return Times {
                median: 0.0,
                p99: 0.0,
                mean: 0.0,
            };
        }
        let mut sorted = ms.to_vec();
        sorted.sort_by(f64::total_cmp);
        let at =
            |q: f64| sorted[((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1];
        Times {
            median: at(0.5),
            p99: at(0.99),
            mean: sorted.iter().sum::<f64>() / sorted.len() as f64,
        }
    }
}

/// What `--benchmark` prints, as one line of JSON.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The scene file.
    pub scene: String,
    /// The adapter drawn with.
    pub adapter: String,
    /// The image's size in pixels.
    pub size: [u32; 2],
    /// Frames measured (after the warm-up).
    pub frames: u32,
    /// Nodes in the world.
    pub nodes: usize,
    /// Draw calls of the last frame (shadow views included).
    pub draw_calls: usize,
    /// Where the camera's meshes were culled: `gpu` (the retained scene) or
    /// `cpu` (`--cpu-culling`).
    pub culling: &'static str,
    /// The CPU's time a frame: step, extraction and rendering.
    pub cpu_ms: Times,
    /// Of which the fixed step (systems, propagation, particles).
    pub step_ms: Times,
    /// Of which extraction (culling, interpolation, packing).
    pub extract_ms: Times,
    /// Of which encoding and submitting the passes.
    pub render_ms: Times,
    /// Each pass's time on the GPU, by its label; empty where the adapter
    /// has no timestamp queries.
    pub gpu_ms: BTreeMap<String, Times>,
}

/// Runs the benchmark `options` describe (its scene, size, backends and
/// `frames`, [`DEFAULT_FRAMES`] when unset).
///
/// # Errors
/// Scene, GPU and system errors, as the headless viewer's.
pub fn run(options: &PlayerOptions) -> Result<Report, PlayerError> {
    let mut world = options
        .game
        .load(&options.scene, &Assets::with_limits(options.limits.clone()))?;
    let ctx = GpuContext::headless(options.backends)?;
    let mut renderer = Renderer::new(&ctx, wgpu::TextureFormat::Rgba8UnormSrgb);
    if !renderer.set_gpu_timing(&ctx, true) {
        log::warn!("--benchmark: this adapter has no timestamp queries: no GPU pass times");
    }
    let mut buffers = Extractor::default();
    buffers.set_cpu_culling(options.cpu_culling);
    let (width, height) = options.size;
    let target = crate::window::offscreen_target(&ctx, options.size);
    let view = target.create_view(&wgpu::TextureViewDescriptor::default());
    let aspect = width as f32 / height.max(1) as f32;
    let frames = options.frames.unwrap_or(DEFAULT_FRAMES).max(1);
    // Pipelines compiled, buffers grown, caches warm: not measured.
    let warm_up = (frames / 10).clamp(3, 30);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let (mut cpu, mut step, mut extract, mut render) = (vec![], vec![], vec![], vec![]);
    let mut gpu: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for i in 0..warm_up + frames {
        let start = Instant::now();
        world.advance(keel_engine::DEFAULT_STEP);
        if let Some(panic) = world.system_panic() {
            return Err(PlayerError::System(panic.clone()));
        }
        let stepped = Instant::now();
        let camera = world.game_camera();
        let frame = buffers.extract_world(&mut world, camera, aspect, &Overlays::default());
        let extracted = Instant::now();
        renderer.render(&ctx, &frame, &view, (width, height));
        let rendered = Instant::now();
        // The GPU finishes the frame before the next starts: the CPU's
        // times are its own, the GPU's are read back.
        let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
        renderer.finish_gpu_frame(&ctx);
        if let Some(problem) = ctx.errors.take().into_iter().next() {
            return Err(PlayerError::Gpu(problem));
        }
        let passes = renderer.take_gpu_times();
        if i < warm_up {
            continue;
        }
        cpu.push(ms(rendered - start));
        step.push(ms(stepped - start));
        extract.push(ms(extracted - stepped));
        render.push(ms(rendered - extracted));
        for frame in passes {
            let mut by_label: BTreeMap<&str, f64> = BTreeMap::new();
            for pass in &frame.passes {
                *by_label.entry(&pass.label).or_default() +=
                    (pass.end_ns - pass.start_ns).max(0) as f64 / 1e6;
            }
            for (label, ms) in by_label {
                gpu.entry(label.to_owned()).or_default().push(ms);
            }
        }
    }
    let stats = renderer.stats();
    Ok(Report {
        scene: options.scene.display().to_string(),
        adapter: ctx.adapter_summary(),
        size: [width, height],
        frames,
        nodes: world.scene().len(),
        draw_calls: stats.draw_calls + stats.shadow_draw_calls,
        culling: if options.cpu_culling { "cpu" } else { "gpu" },
        cpu_ms: Times::of(&cpu),
        step_ms: Times::of(&step),
        extract_ms: Times::of(&extract),
        render_ms: Times::of(&render),
        gpu_ms: gpu.iter().map(|(k, v)| (k.clone(), Times::of(v))).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::Times;

    #[test]
    fn median_and_p99_of_a_known_series() {
        let ms: Vec<f64> = (1..=200).rev().map(f64::from).collect();
        let t = Times::of(&ms);
        assert_eq!((t.median, t.p99, t.mean), (100.0, 198.0, 100.5));
        assert_eq!(Times::of(&[4.0]).p99, 4.0);
        assert_eq!(Times::of(&[]).median, 0.0);
    }
}
