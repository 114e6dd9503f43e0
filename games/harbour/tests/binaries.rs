//! The game's own binaries: its viewer plays the harbour scene in a window
//! (an X server from `xvfb-run`), records what was played and replays it;
//! the plain engine refuses the game's types, naming them.

use std::process::Command;

fn xvfb_available() -> bool {
    let require = std::env::var("KEEL_REQUIRE_GPU").as_deref() == Ok("1");
    if Command::new("xvfb-run").arg("--help").output().is_err() {
        assert!(
            !require,
            "KEEL_REQUIRE_GPU=1 but xvfb-run is missing (scripts/install-deps.sh installs it)"
        );
        eprintln!("skipping: xvfb-run is not installed");
        return false;
    }
    true
}

#[test]
fn the_games_viewer_records_a_played_window_and_replays_it_identical() {
    if !xvfb_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("played.ron");
    let shot = dir.path().join("played.png");
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24"])
        .arg(env!("CARGO_BIN_EXE_harbour"))
        .args(["--frames", "40", "--size", "480x270", "--record"])
        .arg(&file)
        .arg("--play")
        .arg("--screenshot")
        .arg(&shot)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the game's viewer failed: {stderr}");
    let recording = keel_engine::record::Recording::read(&file).expect("a recording written");
    assert!(recording.steps > 0, "steps were played");
    assert_eq!(recording.hashes.len() as u64, recording.steps);
    let out = Command::new(env!("CARGO_BIN_EXE_harbour"))
        .arg("--replay")
        .arg(&file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("identical"),
        "replay: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_engine_without_the_game_names_the_component_it_lacks() {
    // What the plain viewer reports (exit code 2) for the game's scene.
    let error = keel_engine::Game::new()
        .load(&harbour::scene_path(), &keel_engine::Assets::new())
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        error.contains("harbour.ron:") && error.contains("`ship`") && error.contains("registered"),
        "{error}"
    );
}
