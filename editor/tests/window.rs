//! `keel-editor` in a real window (Xvfb): renders a few frames of the demo
//! scene, writes a screenshot, exits 0; the picture shows the panels and the scene.

use std::process::Command;

#[test]
fn the_editor_window_shows_panels_and_the_scene() {
    let require = std::env::var("KEEL_REQUIRE_GPU").as_deref() == Ok("1");
    if Command::new("xvfb-run").arg("--help").output().is_err() {
        assert!(
            !require,
            "KEEL_REQUIRE_GPU=1 but xvfb-run is missing (scripts/install-deps.sh installs it)"
        );
        eprintln!("skipping: xvfb-run is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("editor.png");
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/scenes/demo.ron");
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1600x900x24"])
        .arg(env!("CARGO_BIN_EXE_keel-editor"))
        .args([demo, "--frames", "6", "--screenshot"])
        .arg(&shot)
        .env("HOME", dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "editor failed: {stderr}");
    let image = image::open(&shot).unwrap().to_rgba8();
    let (w, h) = image.dimensions();
    assert!(w >= 800 && h >= 500, "window-sized picture, got {w}x{h}");
    // The side panels are egui's dark grey; the viewport in the middle shows the
    // scene: sky, sea and boats, many colours, none of them panel grey.
    let panel = image.get_pixel(w / 100, h / 2).0;
    assert!(
        panel[0] < 60 && panel[0] == panel[1] && panel[1] == panel[2],
        "left panel pixel {panel:?}"
    );
    let mut colours = std::collections::HashSet::new();
    let mut blue = 0;
    for y in (h / 10..h * 6 / 10).step_by(4) {
        for x in (w * 3 / 10..w * 7 / 10).step_by(4) {
            let p = image.get_pixel(x, y).0;
            colours.insert([p[0] / 16, p[1] / 16, p[2] / 16]);
            blue += usize::from(u16::from(p[2]) > u16::from(p[0]) + 30);
        }
    }
    assert!(
        colours.len() > 20,
        "the viewport looks blank: {} colours",
        colours.len()
    );
    assert!(
        blue > 1_000,
        "sky and sea should fill much of the viewport: {blue} blue samples"
    );
    // The sky is the scene's clear colour, shown in the window exactly as the
    // viewer shows it: its sRGB encoding, not encoded or decoded twice.
    let scene = keel_engine::scene::Scene::load(std::path::Path::new(demo)).unwrap();
    let expected = scene.environment.clear_color.to_array().map(srgb8);
    let mut counts = std::collections::HashMap::new();
    for y in h / 10..h / 4 {
        for x in w * 3 / 10..w * 7 / 10 {
            *counts.entry(image.get_pixel(x, y).0).or_insert(0) += 1;
        }
    }
    let (sky, _) = counts.into_iter().max_by_key(|&(_, n)| n).unwrap();
    let off = (0..3).map(|i| sky[i].abs_diff(expected[i])).max().unwrap();
    assert!(
        off <= 1,
        "sky shown as {sky:?}, the clear colour encodes to {expected:?}"
    );
}

/// A linear colour channel as an 8-bit sRGB value.
fn srgb8(c: f32) -> u8 {
    let c = c.clamp(0.0, 1.0);
    let encoded = if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    };
    (encoded * 255.0).round() as u8
}
