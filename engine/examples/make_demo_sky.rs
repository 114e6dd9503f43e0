//! Writes `assets/skies/harbour.hdr`: an equirectangular Radiance HDR sky for
//! the environment (image-based light and the background), generated here so
//! the repository needs no downloaded art.
//!
//! A late-afternoon sky: deep blue at the zenith fading to a pale, warm
//! horizon, soft bands of cloud, a sun of strength 40 low in the south-west
//! (the demo's light comes from there), and a dark blue-grey sea below.
//!
//! Run: `cargo run -p keel-engine --example make_demo_sky [OUT.hdr]`.

#![expect(
    clippy::disallowed_methods,
    reason = "generates committed assets (made with these functions); nothing here is simulated"
)]

use std::f32::consts::PI;
use std::path::PathBuf;

use glam::Vec3;
use image::Rgb;

const WIDTH: usize = 1024;
const HEIGHT: usize = 512;

/// Smooth value noise in 0..1 on a lattice of unit cells.
fn noise(x: f32, y: f32) -> f32 {
    let hash = |i: i32, j: i32| {
        let h = (i as f32 * 127.1 + j as f32 * 311.7).sin() * 43_758.547;
        h - h.floor()
    };
    let (i, j) = (x.floor() as i32, y.floor() as i32);
    let (fx, fy) = (x - x.floor(), y - y.floor());
    let (sx, sy) = (fx * fx * (3.0 - 2.0 * fx), fy * fy * (3.0 - 2.0 * fy));
    let top = hash(i, j) + (hash(i + 1, j) - hash(i, j)) * sx;
    let bottom = hash(i, j + 1) + (hash(i + 1, j + 1) - hash(i, j + 1)) * sx;
    top + (bottom - top) * sy
}

/// The sky's radiance along the unit direction `d`.
fn radiance(d: Vec3, sun: Vec3) -> Vec3 {
    let zenith = Vec3::new(0.12, 0.28, 0.62);
    let horizon = Vec3::new(0.95, 0.85, 0.72);
    let sea = Vec3::new(0.05, 0.09, 0.13);
    if d.y < 0.0 {
        // The sea: darker further down, the horizon's haze just below it.
        let haze = (1.0 + d.y * 12.0).clamp(0.0, 1.0);
        return sea.lerp(horizon * 0.6, haze * haze);
    }
    let height = d.y.powf(0.45);
    let mut color = horizon.lerp(zenith, height);
    // Soft clouds on a plane overhead (seen in perspective, so they crowd
    // towards the horizon), lit warm on the sun's side.
    let plane = glam::Vec2::new(d.x, d.z) / (d.y + 0.08);
    let cloud =
        noise(plane.x * 1.5, plane.y * 3.0) * 0.6 + noise(plane.x * 5.0, plane.y * 9.0) * 0.4;
    let cover =
        ((cloud - 0.5) * 3.0).clamp(0.0, 1.0) * (1.0 - height * 0.5) * (d.y * 30.0).min(1.0);
    let lit = 0.5 + 0.5 * d.dot(sun).max(0.0);
    color = color.lerp(Vec3::new(1.0, 0.95, 0.9) * (0.7 + 0.5 * lit), cover);
    // The sun: a bright disc with a glow around it.
    let towards = d.dot(sun).max(0.0);
    color += Vec3::new(1.0, 0.85, 0.6) * (towards.powf(400.0) * 6.0 + towards.powf(12.0) * 0.35);
    if towards > 0.9997 {
        color += Vec3::new(40.0, 36.0, 30.0);
    }
    color
}

fn main() {
    let out = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets/skies/harbour.hdr")
        });
    let sun = Vec3::new(-0.55, 0.35, 0.76).normalize();
    let mut pixels = Vec::with_capacity(WIDTH * HEIGHT);
    for row in 0..HEIGHT {
        let latitude = (row as f32 + 0.5) / HEIGHT as f32 * PI;
        for column in 0..WIDTH {
            // u = 0.5 looks along -Z with +X to its right (render/ibl.rs).
            let longitude = ((column as f32 + 0.5) / WIDTH as f32 - 0.5) * 2.0 * PI;
            let d = Vec3::new(
                latitude.sin() * longitude.sin(),
                latitude.cos(),
                -latitude.sin() * longitude.cos(),
            );
            pixels.push(Rgb(radiance(d, sun).to_array()));
        }
    }
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    }
    let file = std::fs::File::create(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    image::codecs::hdr::HdrEncoder::new(std::io::BufWriter::new(file))
        .encode(&pixels, WIDTH, HEIGHT)
        .unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    println!("wrote {}", out.display());
}
