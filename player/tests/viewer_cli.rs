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
    let cases: [(&[&str], &str); 2] = [
        (&["--size", "wide"], "--size"),
        // No frames is no run: said, not run as one frame.
        (
            &["--benchmark", "--frames", "0"],
            "--frames: expected a whole number > 0",
        ),
    ];
    for (args, expected) in cases {
        let out = viewer().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(expected) && stderr.contains("usage:"),
            "{stderr}"
        );
    }
}

/// Whether a headless run drew: it succeeded, or (without
/// `KEEL_REQUIRE_GPU=1`) it found no adapter. Any other failure fails.
fn drew(out: &std::process::Output) -> bool {
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success()
        && stderr.contains("no adapter")
        && std::env::var("KEEL_REQUIRE_GPU").as_deref() != Ok("1")
    {
        eprintln!("skipping: {stderr}");
        return false;
    }
    assert!(out.status.success(), "{stderr}");
    true
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
    if !drew(&out) {
        return;
    }
    // Profiling is off unless asked for.
    assert!(!String::from_utf8_lossy(&out.stdout).contains("profile of"));
    let image = image::open(&shot).unwrap().to_rgba8();
    assert_eq!(image.dimensions(), (320, 180));
    let first = *image.get_pixel(0, 0);
    let differing = image.pixels().filter(|p| **p != first).count();
    assert!(
        differing > 320 * 180 / 4,
        "only {differing} pixels differ from the corner"
    );
}

#[test]
fn profile_prints_where_the_frames_went_on_the_cpu_and_the_gpu() {
    let out = viewer()
        .args([
            "--headless",
            "--frames",
            "12",
            "--size",
            "160x90",
            "--profile",
        ])
        .output()
        .unwrap();
    if !drew(&out) {
        return;
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("profile of 12 frames"), "{stdout}");
    let row = |lane: &str, label: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with(lane) && l[8..].trim_start().starts_with(label))
            .unwrap_or_else(|| panic!("no {lane} row for {label}:\n{stdout}"))
            .to_owned()
    };
    // One fixed step per frame at 60 Hz, one main pass per frame.
    assert!(
        row("CPU", "fixed step").trim_end().ends_with("1.0"),
        "{stdout}"
    );
    for label in [
        "system spin",
        "propagate",
        "retained scene",
        "gpu scene upload",
        "cull and batch",
        "main pass",
    ] {
        row("CPU", label);
    }
    if !stderr.contains("no timestamp queries") {
        for label in ["gpu culling", "main pass", "shadow view", "tonemap"] {
            row("GPU", label);
        }
    }
}

/// The viewer in a real window (an X server from `xvfb-run`) of 480x270 with
/// `args`, its last frame read back, and what it wrote to stderr; `None`
/// where there is no `xvfb-run` (a failure where a GPU is required).
fn windowed(args: &[&str]) -> Option<(image::RgbaImage, String)> {
    let require = std::env::var("KEEL_REQUIRE_GPU").as_deref() == Ok("1");
    if Command::new("xvfb-run").arg("--help").output().is_err() {
        assert!(
            !require,
            "KEEL_REQUIRE_GPU=1 but xvfb-run is missing (scripts/install-deps.sh installs it)"
        );
        eprintln!("skipping: xvfb-run is not installed");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("window.png");
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24"])
        .arg(env!("CARGO_BIN_EXE_keel-viewer"))
        .args(["--size", "480x270", "--screenshot"])
        .arg(&shot)
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "viewer failed in a window: {stderr}");
    let image = image::open(&shot).unwrap().to_rgba8();
    assert_eq!(image.dimensions(), (480, 270), "the window's size");
    Some((image, stderr))
}

fn assert_not_blank(image: &image::RgbaImage) {
    let first = *image.get_pixel(0, 0);
    let differing = image.pixels().filter(|p| **p != first).count();
    assert!(
        differing > 480 * 270 / 4,
        "only {differing} pixels differ: blank window?"
    );
}

#[test]
fn windowed_viewer_under_xvfb_exits_0_with_a_picture() {
    if let Some((image, _)) = windowed(&["--frames", "10"]) {
        assert_not_blank(&image);
    }
}

#[test]
fn the_windowed_viewer_draws_again_on_a_new_device_when_its_device_is_lost() {
    // The device is destroyed after frame 3; the frames after it are drawn on a new one.
    let Some((image, stderr)) = windowed(&["--frames", "8", "--lose-device-at", "3"]) else {
        return;
    };
    assert!(
        stderr.contains("destroying the GPU device") && stderr.contains("made again"),
        "{stderr}"
    );
    assert_not_blank(&image);
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
    assert!(
        text.contains("identical: 300 steps (300 hashes compared)"),
        "{text}"
    );

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
    // The same for a recording whose input another run would read.
    let out = viewer()
        .args(["--steps", "10", "--record"])
        .arg(dir.path().join("out.ron"))
        .arg("--input-of")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("junk.rec") && stderr.contains("not a recording"),
        "{stderr}"
    );
    assert!(!dir.path().join("out.ron").exists(), "nothing recorded");
    let out = viewer().arg("--input-of").arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "--input-of without --record");
}

/// Writes a prefab bomb into `dir`: `level0.ron` is one node, and each
/// `levelK.ron` pulls in `level{K-1}.ron` ten times, so `level{levels}.ron`
/// expands to 10^levels nodes and more. Returns the top file.
fn prefab_bomb(dir: &std::path::Path, levels: u32) -> PathBuf {
    std::fs::write(
        dir.join("level0.ron"),
        "(version: 2, nodes: [(name: \"leaf\")])",
    )
    .unwrap();
    for level in 1..=levels {
        let nodes: Vec<String> = (0..10)
            .map(|i| format!("(name: \"copy{i}\", prefab: \"level{}.ron\")", level - 1))
            .collect();
        let text = format!("(version: 2, nodes: [{}])", nodes.join(", "));
        std::fs::write(dir.join(format!("level{level}.ron")), text).unwrap();
    }
    dir.join(format!("level{levels}.ron"))
}

/// The process's peak resident memory so far, in bytes (Linux: `VmHWM`).
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[test]
fn a_prefab_bomb_is_refused_at_once_in_bounded_memory_naming_its_files() {
    use keel_engine::{Scene, SceneError};
    let dir = tempfile::tempdir().unwrap();
    // 10^12 nodes once expanded: before the budget this ran 41 s and aborted on a failed allocation.
    let top = prefab_bomb(dir.path(), 12);
    let started = std::time::Instant::now();
    let error = Scene::load(&top, &keel_engine::Assets::new()).expect_err("the bomb is refused");
    let elapsed = started.elapsed();
    let SceneError::TooManyNodes {
        chain,
        reached,
        max,
    } = &error
    else {
        panic!("expected TooManyNodes, got {error}");
    };
    assert_eq!(*max, keel_engine::files::DEFAULT_MAX_NODES);
    assert!(*reached > *max, "{error}");
    // The files from the scene down to the level whose count passed the budget
    // (level K holds 10 * (1 + level K-1's) nodes: level 6 about 2.1 million, level 7 21 million).
    let names: Vec<String> = chain
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names.first().map(String::as_str),
        Some("level12.ron"),
        "{error}"
    );
    assert_eq!(
        names.last().map(String::as_str),
        Some("level7.ron"),
        "{error}"
    );
    assert!(error.to_string().contains("KEEL_MAX_NODES"), "{error}");
    assert!(elapsed.as_secs_f64() < 1.0, "refused after {elapsed:?}");
    if let Some(peak) = peak_memory() {
        assert!(peak < 200 << 20, "peak memory {} MB", peak >> 20);
    }

    // The viewer says so and exits 2, nothing else.
    let out = viewer()
        .arg(&top)
        .args(["--steps", "1", "--record"])
        .arg(dir.path().join("never.rec"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("too many nodes") && stderr.contains("level12.ron"),
        "{stderr}"
    );
}

#[test]
fn keel_max_nodes_sets_the_budget_and_a_scene_under_it_loads() {
    let dir = tempfile::tempdir().unwrap();
    // Level K holds 10 * (1 + level K-1's) nodes: 20, 210, 2110; under the default budget it loads.
    let top = prefab_bomb(dir.path(), 3);
    let record = |budget: Option<&str>| {
        let mut viewer = viewer();
        if let Some(budget) = budget {
            viewer.env("KEEL_MAX_NODES", budget);
        }
        viewer
            .arg(&top)
            .args(["--steps", "1", "--record"])
            .arg(dir.path().join("out.rec"))
            .output()
            .unwrap()
    };
    let out = record(None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let scene = keel_engine::Scene::load(&top, &keel_engine::Assets::new()).unwrap();
    assert_eq!(scene.len(), 2110);

    let out = record(Some("2109"));
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("over the budget of 2109"), "{stderr}");
    let out = record(Some("2110"));
    assert!(
        out.status.success(),
        "exactly the budget loads: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn benchmark_prints_one_json_line_of_frame_times() {
    let out = viewer()
        .args(["--benchmark", "--frames", "6", "--size", "320x180"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {stdout}");
    let report: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(report["frames"], 6);
    assert_eq!(report["size"], serde_json::json!([320, 180]));
    assert!(
        report["nodes"].as_u64().unwrap() > 600,
        "the demo: {report}"
    );
    let cpu = &report["cpu_ms"];
    let (median, p99) = (
        cpu["median"].as_f64().unwrap(),
        cpu["p99"].as_f64().unwrap(),
    );
    assert!(median > 0.0 && p99 >= median, "{cpu}");
    let parts = ["step_ms", "extract_ms", "render_ms"].map(|k| report[k]["mean"].as_f64().unwrap());
    let whole = cpu["mean"].as_f64().unwrap();
    assert!(
        (parts.iter().sum::<f64>() - whole).abs() < 1e-6 * whole.max(1.0) + 1e-9,
        "the parts add up to the frame: {parts:?} against {whole}"
    );
    if !stderr.contains("no timestamp queries") {
        let main = &report["gpu_ms"]["main pass"];
        assert!(main["median"].as_f64().unwrap() > 0.0, "{report}");
    }
    let out = viewer()
        .args(["--benchmark", "--soak", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "--benchmark runs alone");
}
