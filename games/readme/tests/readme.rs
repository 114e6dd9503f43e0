//! The README's "Make your own game", run as written: its commands depend on
//! Keel alone and reuse Keel's lockfile, its component reads, plays, checks
//! and saves as the text says, and its player speaks in its own name.

use std::path::Path;
use std::process::Command;

use keel_engine::{Assets, SceneError};
use my_game::Health;

#[test]
fn the_steps_reuse_keels_lockfile_and_add_only_keel() {
    let commands: Vec<&str> = my_game::README_COMMANDS.lines().collect();
    assert_eq!(commands[0], "cargo new my_game && cd my_game");
    assert_eq!(
        commands[1], "cp ../keel/Cargo.lock .",
        "before the first build"
    );
    let added: Vec<&str> = commands
        .iter()
        .filter_map(|c| c.strip_prefix("cargo add "))
        .collect();
    assert_eq!(
        added,
        [
            "keel-engine --path ../keel/engine",
            "keel-player --path ../keel/player",
            "keel-editor --path ../keel/editor",
            "keel-editor --path ../keel/editor --dev --features test-kit"
        ],
        "Keel is the only dependency: no second glam, serde or bevy_reflect to pick"
    );
    // Each path is the crate of that name in this checkout.
    let keel = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for add in &added {
        let (name, path) = add.split_once(" --path ../keel/").unwrap();
        let path = path.split_whitespace().next().unwrap();
        let manifest = std::fs::read_to_string(keel.join(path).join("Cargo.toml")).unwrap();
        assert!(
            manifest.contains(&format!("name = \"{name}\"")),
            "{path}: {name}"
        );
    }
    // Every `cargo run` names its binary: the crate has two.
    for run in commands.iter().filter(|c| c.starts_with("cargo run")) {
        assert!(run.contains("--bin "), "ambiguous with two binaries: {run}");
    }
}

const SCENE: &str = r#"(
    version: 3,
    nodes: [
        (name: "well", transform: (translation: (1.0, 0.0, 0.0))),
        (name: "near", health: (hp: 10.0, regen: 1.0, healer: Node(0))),
        (name: "far", transform: (translation: (50.0, 0.0, 0.0)), health: (hp: 10.0, regen: 1.0, healer: Node(0))),
    ],
)"#;

#[test]
fn the_component_plays_climbs_faster_near_its_healer_and_saves() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("my_scene.ron");
    std::fs::write(&path, SCENE).unwrap();
    let mut world = my_game::game().load(&path, &Assets::new()).unwrap();
    for _ in 0..60 {
        world.step();
    }
    assert!(world.system_panic().is_none());
    let scene = world.scene();
    let hp = |name: &str| scene.get::<Health>(scene.find(name).unwrap()).unwrap().hp;
    assert!(
        (hp("near") - 12.0).abs() < 1e-3,
        "twice the regen near: {}",
        hp("near")
    );
    assert!(
        (hp("far") - 11.0).abs() < 1e-3,
        "the regen far: {}",
        hp("far")
    );
    let healer = &scene
        .get::<Health>(scene.find("near").unwrap())
        .unwrap()
        .healer;
    assert_eq!(healer.get(scene), scene.find("well"));
    scene.save(&path).unwrap();
    let saved = std::fs::read_to_string(&path).unwrap();
    assert!(saved.contains("healer: Node(0)"), "{saved}");
}

#[test]
fn a_misspelt_field_is_an_error_at_its_line() {
    let broken = SCENE.replacen("healer", "healr", 1);
    assert_ne!(broken, SCENE);
    let assets = Assets::new();
    my_game::game().register(&assets).unwrap();
    let error = keel_engine::Scene::from_text(&broken, Path::new("my_scene.ron"), &assets)
        .expect_err("refused");
    let SceneError::Parse { line, message, .. } = &error else {
        panic!("{error}");
    };
    assert_eq!(*line, 5, "{error}");
    assert!(message.contains("healr"), "{message}");
}

#[test]
fn the_player_speaks_in_its_own_name() {
    let out = Command::new(env!("CARGO_BIN_EXE_play"))
        .arg("--help")
        .output()
        .unwrap();
    let usage = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && usage.contains("usage: play [SCENE]"),
        "{usage}"
    );
    assert!(!usage.contains("keel-viewer"), "{usage}");
}

#[test]
fn live_mode_is_started_as_written_and_names_a_folder_that_is_no_crate() {
    let commands: Vec<&str> = my_game::README_COMMANDS.lines().collect();
    let live = commands
        .iter()
        .find(|c| c.contains("--live"))
        .expect("the section ends with live mode");
    assert_eq!(*live, "cargo run --bin my_game -- my_scene.ron --live .");
    assert!(
        !live.contains("--release"),
        "live mode rebuilds in seconds in dev"
    );
    let editor = env!("CARGO_BIN_EXE_my_game");
    let help = Command::new(editor).arg("--help").output().unwrap();
    let usage = String::from_utf8_lossy(&help.stdout);
    assert!(usage.contains("--live CRATE"), "{usage}");
    // `.` in the README is the crate's folder: one without a manifest is refused
    // before any window opens, naming the folder.
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(editor)
        .args(["--live".as_ref(), dir.path().as_os_str()])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("no Cargo.toml there"), "{said}");
    assert!(said.contains(&dir.path().display().to_string()), "{said}");
}
