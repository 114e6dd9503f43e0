//! A game's system that panics stops the player with the system's name and
//! message, before any drawing needs a GPU.

use keel_engine::{Game, GameError, Plugin, World};
use keel_player::{PlayerError, PlayerOptions, render_headless};

struct Fragile;

impl Plugin for Fragile {
    fn build(&self, world: &mut World) -> Result<(), GameError> {
        world.systems_mut().add("fragile", |_, _, ctx| {
            assert!(ctx.index < 2, "the hull gave way");
        })?;
        Ok(())
    }
}

#[test]
fn the_player_stops_on_a_panicking_system_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("game.ron");
    std::fs::write(&scene, r#"(version: 2, nodes: [(name: "hull")])"#).unwrap();
    let options = PlayerOptions {
        scene,
        game: Game::new().with(Fragile),
        headless: true,
        frames: Some(10),
        size: (64, 48),
        screenshot: None,
        backends: keel_engine::render::parse_backends("all").unwrap(),
        present: Default::default(),
        fps_cap: None,
        record: None,
        profile: false,
        debug_keys: false,
        limits: keel_engine::files::ReadLimits::DEFAULT,
        shader_dir: None,
        cpu_culling: false,
        lose_device_at: None,
    };
    match render_headless(&options) {
        Err(PlayerError::System(panic)) => {
            assert_eq!(panic.system, "fragile");
            assert!(panic.message.contains("the hull gave way"), "{panic}");
        }
        Err(PlayerError::Render(error)) if std::env::var_os("KEEL_REQUIRE_GPU").is_none() => {
            eprintln!("no GPU here ({error}); the world stops before any drawing needs one");
        }
        Err(other) => panic!("expected the system's panic, got {other}"),
        Ok(_) => panic!("a panicking system must stop the player"),
    }
}
