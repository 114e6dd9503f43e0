//! Shared helpers for the rendering tests: getting a GPU (or skipping), and
//! comparing images against the goldens in `tests/golden/`.
//!
//! Environment:
//! - `KEEL_REQUIRE_GPU=1`: a missing adapter fails the test instead of skipping
//!   it (set on machines that must exercise the renderer, such as CI with Mesa).
//! - `KEEL_BACKEND=vulkan|gl|...`: restricts the backends tried (default: all).
//! - `KEEL_BLESS=1`: a missing golden is written from the rendered image instead
//!   of failing; delete a golden and rerun with this set to update it on purpose.

#![allow(dead_code, reason = "each test binary uses only some of them")]

use std::path::PathBuf;

use keel_engine::GpuContext;
use keel_engine::render::image::{self, Rgba, RgbaImage};
use keel_engine::render::{parse_backends, wgpu};

/// Largest per-channel difference (out of 255) that still counts as equal:
/// absorbs rounding differences between rasterisers and drivers.
pub const CHANNEL_TOLERANCE: u8 = 8;
/// Largest share of pixels allowed over [`CHANNEL_TOLERANCE`]: absorbs
/// edge coverage differences in anti-aliased silhouettes.
pub const MAX_DIFFERING_SHARE: f64 = 0.005;

fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|value| value == "1")
}

/// A headless GPU context, or `None` (with the reason printed) when this machine
/// has no adapter.
///
/// # Panics
///
/// When no adapter is found and `KEEL_REQUIRE_GPU=1`, or `KEEL_BACKEND` names no backend.
pub fn gpu_or_skip() -> Option<GpuContext> {
    let backends = match std::env::var("KEEL_BACKEND") {
        Ok(name) => parse_backends(&name).expect("KEEL_BACKEND names a backend"),
        Err(_) => wgpu::Backends::all(),
    };
    match GpuContext::headless(backends) {
        Ok(ctx) => {
            eprintln!("rendering on {}", ctx.adapter_summary());
            Some(ctx)
        }
        Err(error) if env_flag("KEEL_REQUIRE_GPU") => {
            panic!("KEEL_REQUIRE_GPU=1 but no GPU is usable: {error}")
        }
        Err(error) => {
            eprintln!("skipping: {error}");
            None
        }
    }
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Compares `actual` with `tests/golden/<name>.png`: equal when at most
/// [`MAX_DIFFERING_SHARE`] of the pixels have a channel more than
/// [`CHANNEL_TOLERANCE`] away.
///
/// # Panics
///
/// On a mismatch (after writing `<name>-actual.png` and `<name>-diff.png`, the
/// diff showing failing pixels in red over a dimmed copy of the golden), or when
/// the golden is missing and `KEEL_BLESS=1` is not set.
pub fn assert_matches_golden(name: &str, actual: &RgbaImage) {
    let dir = golden_dir();
    let golden_path = dir.join(format!("{name}.png"));
    let actual_path = dir.join(format!("{name}-actual.png"));
    let diff_path = dir.join(format!("{name}-diff.png"));
    if !golden_path.exists() {
        if env_flag("KEEL_BLESS") {
            actual.save(&golden_path).expect("write the new golden");
            eprintln!("blessed new golden {}", golden_path.display());
            return;
        }
        actual.save(&actual_path).expect("write the actual image");
        panic!(
            "golden {} is missing; the render is in {} (rerun with KEEL_BLESS=1 to accept it)",
            golden_path.display(),
            actual_path.display()
        );
    }
    let golden = image::open(&golden_path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", golden_path.display()))
        .to_rgba8();
    assert_eq!(
        golden.dimensions(),
        actual.dimensions(),
        "{name}: golden and render differ in size"
    );

    let mut diff = RgbaImage::new(golden.width(), golden.height());
    let mut differing = 0usize;
    let mut worst = 0u8;
    for ((want, got), out) in golden.pixels().zip(actual.pixels()).zip(diff.pixels_mut()) {
        let delta = want
            .0
            .iter()
            .zip(got.0)
            .map(|(&a, b)| a.abs_diff(b))
            .max()
            .unwrap_or(0);
        worst = worst.max(delta);
        *out = if delta > CHANNEL_TOLERANCE {
            differing += 1;
            Rgba([255, 0, 0, 255])
        } else {
            Rgba([want[0] / 3, want[1] / 3, want[2] / 3, 255])
        };
    }
    let share = differing as f64 / f64::from(golden.width() * golden.height());
    if share > MAX_DIFFERING_SHARE {
        actual.save(&actual_path).expect("write the actual image");
        diff.save(&diff_path).expect("write the diff image");
        panic!(
            "{name}: {differing} pixels ({:.3}%) differ by more than {CHANNEL_TOLERANCE}/255 \
             (worst {worst}); allowed {:.3}%. See {} and {}",
            share * 100.0,
            MAX_DIFFERING_SHARE * 100.0,
            actual_path.display(),
            diff_path.display()
        );
    }
    // A passing run leaves no stale failure artefacts behind.
    let _ = std::fs::remove_file(&actual_path);
    let _ = std::fs::remove_file(&diff_path);
}

/// Adds a sun to `scene`: a directional light of white `intensity`, turned
/// by `rotation` (it shines along the node's -Z).
pub fn add_sun(
    scene: &mut keel_engine::Scene,
    rotation: glam::Quat,
    intensity: f32,
) -> keel_engine::NodeId {
    use keel_engine::{Light, LightKind, Transform};
    let sun = scene
        .spawn(None, "sun", Transform::IDENTITY.with_rotation(rotation))
        .expect("a root node");
    let light = Light {
        kind: LightKind::Directional,
        color: glam::Vec3::ONE,
        intensity,
        cast_shadows: false,
    };
    scene.insert(sun, light).expect("the node exists");
    sun
}
