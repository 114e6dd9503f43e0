//! The game's own binaries: its viewer plays the harbour scene in a window
//! (an X server from `xvfb-run`), records what was played and replays it;
//! the plain engine refuses the game's types, naming them.

use std::process::Command;

/// The game's player replaying `file`.
fn replay(file: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_harbour"))
        .arg("--replay")
        .arg(file)
        .output()
        .unwrap()
}

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
    let recording =
        keel_engine::record::Recording::read(&file, &keel_engine::files::ReadLimits::DEFAULT)
            .expect("a recording written");
    assert!(recording.steps > 0, "steps were played");
    assert_eq!(recording.hashes.len() as u64, recording.steps);
    let out = replay(&file);
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

#[test]
fn the_games_player_speaks_in_its_own_name() {
    let out = Command::new(env!("CARGO_BIN_EXE_harbour"))
        .arg("--help")
        .output()
        .unwrap();
    let usage = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "--help succeeds");
    assert!(usage.contains("usage: harbour [SCENE]"), "{usage}");
    assert!(usage.contains("--debug-keys"), "{usage}");
    assert!(
        !usage.contains("keel-viewer") && !usage.contains("demo"),
        "the player is no engine viewer: {usage}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_harbour"))
        .args(["no-such-scene.ron", "--headless"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("harbour: ") && stderr.contains("no-such-scene.ron"),
        "{stderr}"
    );
}

#[test]
fn a_replay_by_another_build_of_the_game_says_so_first() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.ron");
    let out = Command::new(env!("CARGO_BIN_EXE_harbour"))
        .args(["--steps", "30", "--record"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut recording =
        keel_engine::record::Recording::read(&file, &keel_engine::files::ReadLimits::DEFAULT)
            .unwrap();
    assert!(
        recording.game_build.starts_with("harbour+"),
        "the game's build is kept: {}",
        recording.game_build
    );
    let replay =
        |file: &std::path::Path| String::from_utf8_lossy(&replay(file).stdout).into_owned();
    let same = replay(&file);
    assert!(
        same.starts_with("identical") && !same.contains("another build"),
        "{same}"
    );
    // As a recording made before the game's code changed reads.
    recording.game_build = "harbour+0123456789abcdef".into();
    recording.write(&file).unwrap();
    let other = replay(&file);
    let said = other
        .find("recorded by another build of harbour")
        .unwrap_or_else(|| panic!("the game's build is named: {other}"));
    assert!(
        other.find("identical").is_none_or(|verdict| said < verdict),
        "said before the verdict: {other}"
    );
}

/// The headless test's input (`play.rs`): full sail ahead, then a turn.
fn script(step: u64) -> keel_engine::input::InputFrame {
    use keel_engine::input::{InputFrame, Key};
    let mut frame = InputFrame::default();
    if step < 420 {
        frame.keys.insert(Key::W);
    }
    if (300..420).contains(&step) {
        frame.keys.insert(Key::D);
    }
    frame
}

#[test]
fn another_recordings_input_records_again_and_the_replay_ends_with_its_score() {
    let dir = tempfile::tempdir().unwrap();
    let scene = harbour::scene_path();
    let bytes = std::fs::read(&scene).unwrap();
    let mut world = harbour::game()
        .load(&scene, &keel_engine::Assets::new())
        .unwrap();
    let played = keel_engine::record::Recording::record_with_input(
        &mut world, &scene, &bytes, 480, 1, script,
    );
    let hud = world.resource::<keel_engine::Hud>().unwrap().text.clone();
    assert_eq!(hud, "Score 2, buoys left 6", "what play.rs's test reaches");
    let input = dir.path().join("played.ron");
    played.write(&input).unwrap();
    // As a run saved from the web page is recorded again natively.
    let again = dir.path().join("again.ron");
    let out = Command::new(env!("CARGO_BIN_EXE_harbour"))
        .arg("--record")
        .arg(&again)
        .arg("--input-of")
        .arg(&input)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recorded =
        keel_engine::record::Recording::read(&again, &keel_engine::files::ReadLimits::DEFAULT)
            .unwrap();
    assert_eq!(recorded.steps, 480, "the steps of the recording read");
    assert_eq!(
        recorded.hashes, played.hashes,
        "the same run, step for step"
    );
    let out = replay(&again);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("identical: 480 steps"),
        "{stdout}"
    );
    assert!(
        stdout.lines().any(|line| line == format!("hud: {hud}")),
        "the replay ends with the game's HUD: {stdout}"
    );
}
