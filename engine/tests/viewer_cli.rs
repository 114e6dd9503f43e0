//! The `keel-viewer` command line: bad scenes exit with code 2 and the scene
//! error's message; headless rendering writes a PNG that is not blank.

use std::path::PathBuf;
use std::process::Command;

fn viewer() -> Command {
    Command::new(env!("CARGO_BIN_EXE_keel-viewer"))
}

#[test]
fn a_missing_scene_exits_2_naming_the_file() {
    let out = viewer()
        .args(["/no/such/scene.ron", "--headless"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("/no/such/scene.ron"), "{stderr}");
}

#[test]
fn a_broken_scene_exits_2_with_file_line_and_reason() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.ron");
    std::fs::write(&path, "(\n  version: 1,\n  nodes: [ (name: 3) ],\n)\n").unwrap();
    let out = viewer().arg(&path).arg("--headless").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("broken.ron:3:"), "{stderr}");
}

#[test]
fn bad_arguments_exit_2_with_usage() {
    let out = viewer().args(["--size", "wide"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--size") && stderr.contains("usage:"),
        "{stderr}"
    );
}

#[test]
fn headless_screenshot_of_the_demo_is_not_blank() {
    let dir = tempfile::tempdir().unwrap();
    let shot: PathBuf = dir.path().join("demo.png");
    let out = viewer()
        .args([
            "--headless",
            "--frames",
            "5",
            "--size",
            "320x180",
            "--screenshot",
        ])
        .arg(&shot)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success()
        && stderr.contains("no adapter")
        && std::env::var("KEEL_REQUIRE_GPU").as_deref() != Ok("1")
    {
        eprintln!("skipping: {stderr}");
        return;
    }
    assert!(out.status.success(), "{stderr}");
    let image = image::open(&shot).unwrap().to_rgba8();
    assert_eq!(image.dimensions(), (320, 180));
    let first = *image.get_pixel(0, 0);
    let differing = image.pixels().filter(|p| **p != first).count();
    assert!(
        differing > 320 * 180 / 4,
        "only {differing} pixels differ from the corner"
    );
}

/// The viewer in a real window (an X server from `xvfb-run`), for a few frames.
#[test]
fn windowed_viewer_under_xvfb_exits_0_with_a_picture() {
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
    let shot = dir.path().join("window.png");
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24"])
        .arg(env!("CARGO_BIN_EXE_keel-viewer"))
        .args(["--frames", "10", "--size", "480x270", "--screenshot"])
        .arg(&shot)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "viewer failed in a window: {stderr}");
    let image = image::open(&shot).unwrap().to_rgba8();
    assert_eq!(image.dimensions(), (480, 270), "the window's size");
    let first = *image.get_pixel(0, 0);
    let differing = image.pixels().filter(|p| **p != first).count();
    assert!(
        differing > 480 * 270 / 4,
        "only {differing} pixels differ: blank window?"
    );
}

#[test]
fn a_short_soak_of_the_demo_passes_and_reports_its_figures() {
    // 3 seconds: the warm-up (10 s at least) is not over, so memory is only reported.
    let out = viewer()
        .args(["--soak", "0.05", "--seed", "7"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let report = stdout
        .lines()
        .find_map(|l| l.strip_prefix("soak passed: "))
        .unwrap_or_else(|| panic!("no report: {stdout}"));
    for figure in [
        "steps",
        "structural edits",
        "spawned",
        "despawned",
        "reparented",
        "memory: start",
    ] {
        assert!(report.contains(figure), "{figure} missing: {report}");
    }
    assert!(stdout.contains("seed 7"), "{stdout}");
}

#[test]
fn soak_arguments_are_checked() {
    for args in [&["--soak", "-1"][..], &["--soak", "soon"], &["--seed", "3"]] {
        let out = viewer().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(args[0]), "{args:?}: {stderr}");
    }
}

#[test]
fn a_recording_replays_identical_and_a_change_is_reported_at_its_step() {
    let dir = tempfile::tempdir().unwrap();
    // The demo and the models and prefabs it references, where the test may change the scene.
    let assets = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets");
    for sub in ["scenes", "models", "prefabs"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
    }
    for sub in ["models", "prefabs"] {
        for file in std::fs::read_dir(assets.join(sub)).unwrap() {
            let file = file.unwrap().path();
            std::fs::copy(&file, dir.path().join(sub).join(file.file_name().unwrap())).unwrap();
        }
    }
    let scene = dir.path().join("scenes/demo.ron");
    std::fs::copy(assets.join("scenes/demo.ron"), &scene).unwrap();
    let file = dir.path().join("demo.rec");
    let out = viewer()
        .arg(&scene)
        .args(["--steps", "300", "--record"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let replay = |file: &std::path::Path| {
        let out = viewer().arg("--replay").arg(file).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        (
            out.status.code(),
            text + &String::from_utf8_lossy(&out.stderr),
        )
    };
    let (code, text) = replay(&file);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("identical: 300 steps"), "{text}");

    // A recording whose step 123 differs (as a changed system would make it).
    let recording = std::fs::read_to_string(&file).unwrap();
    let marker = "step: 123,";
    let at = recording.find(marker).expect("the hash of step 123");
    let nodes = recording[..at].rfind("nodes: ").unwrap() + "nodes: ".len();
    let mut tampered = recording.clone();
    let end = nodes + recording[nodes..].find(',').unwrap();
    tampered.replace_range(nodes..end, "0");
    let tampered_file = dir.path().join("tampered.rec");
    std::fs::write(&tampered_file, tampered).unwrap();
    let (code, text) = replay(&tampered_file);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("diverged at step 123") && text.contains("nodes"),
        "{text}"
    );

    // The scene changed after recording: said first, then the divergence.
    let mut text_scene = std::fs::read_to_string(&scene).unwrap();
    let spin = text_scene
        .find("spin:")
        .expect("the demo has a spinning node");
    let rate = spin + text_scene[spin..].find("rate: ").unwrap() + "rate: ".len();
    text_scene.insert(rate, '1');
    std::fs::write(&scene, text_scene).unwrap();
    let (code, text) = replay(&file);
    assert!(
        text.contains("the scene changed since the recording"),
        "{text}"
    );
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("diverged at step 1 "), "{text}");
}

#[test]
fn a_recording_file_that_is_not_one_is_named_in_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("junk.rec");
    std::fs::write(&file, "(version: 1, build: 3)").unwrap();
    let out = viewer().arg("--replay").arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("junk.rec") && stderr.contains("not a recording"),
        "{stderr}"
    );
}
