//! The bundled demo scene loads, has the book's hierarchy with a behaviour at
//! every level, and every level really moves when simulated.

use std::path::Path;

use keel_engine::scene::{Light, LightKind, Orbit, Oscillate, Scene, Spin};
use keel_engine::world::World;

fn demo() -> Scene {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/scenes/demo.ron");
    Scene::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_ship_hierarchy_is_animated_at_every_level() {
    let mut world = World::new(demo());
    let levels = [
        "ship",
        "ship/mast",
        "ship/mast/crows_nest",
        "ship/mast/crows_nest/pirate",
        "ship/mast/crows_nest/pirate/parrot",
    ];
    let nodes: Vec<_> = levels
        .iter()
        .map(|path| {
            world
                .scene
                .find_path(path)
                .unwrap_or_else(|| panic!("{path} missing"))
        })
        .collect();
    for (&node, path) in nodes.iter().zip(levels) {
        let s = &world.scene;
        let animated = s.get::<Oscillate>(node).is_some()
            || s.get::<Spin>(node).is_some()
            || s.get::<Orbit>(node).is_some();
        assert!(animated, "{path} has no behaviour of its own");
    }
    let before: Vec<_> = nodes
        .iter()
        .map(|&n| world.scene.local(n).unwrap())
        .collect();
    for _ in 0..90 {
        world.step();
    }
    assert!(
        world.particles.stats().alive > 50,
        "the emitters are smoking and spraying"
    );
    for ((&node, path), old) in nodes.iter().zip(levels).zip(before) {
        assert_ne!(world.scene.local(node).unwrap(), old, "{path} did not move");
    }
}

#[test]
fn the_fleet_sails_and_the_scene_is_lit() {
    let scene = demo();
    // Before Play, every boat already sits on its orbit (not heaped at the origin).
    for (boat, orbit) in scene.components.orbit.iter() {
        let at = scene.local(boat).unwrap().translation;
        assert!(
            (at.distance(orbit.center) - orbit.radius).abs() < 1e-3,
            "{boat} at {at}"
        );
    }
    assert!(
        scene.components.orbit.len() >= 200,
        "only {} boats",
        scene.components.orbit.len()
    );
    let lights: Vec<&Light> = scene.components.light.iter().map(|(_, l)| l).collect();
    assert!(lights.iter().any(|l| l.kind == LightKind::Directional));
    assert!(
        lights
            .iter()
            .any(|l| matches!(l.kind, LightKind::Point { .. }))
    );
    assert!(scene.components.mesh.len() > 600);
    assert!(
        scene
            .find_path("ship/cannon/smoke")
            .is_some_and(|n| scene.get::<keel_engine::particles::Emitter>(n).is_some())
    );
    assert!(
        scene
            .find_path("ship/bow_spray")
            .is_some_and(|n| scene.get::<keel_engine::particles::Emitter>(n).is_some())
    );
}

#[test]
fn the_fox_walks_round_the_lighthouse() {
    let mut world = keel_engine::world::World::new(demo());
    let (_, animator) = world
        .scene
        .components
        .animator
        .iter()
        .next()
        .expect("an animator");
    assert_eq!(animator.clip, "Walk");
    let (skinned, _) = world
        .scene
        .components
        .skin
        .iter()
        .next()
        .expect("a skinned mesh");
    world.step();
    let mut before = Vec::new();
    world.scene.joint_matrices(skinned, &mut before);
    for _ in 0..30 {
        world.step();
    }
    let mut after = Vec::new();
    world.scene.joint_matrices(skinned, &mut after);
    assert_eq!(before.len(), 24, "the Fox's 24 joints");
    let moved = before
        .iter()
        .zip(&after)
        .filter(|(a, b)| !a.abs_diff_eq(**b, 1e-4))
        .count();
    assert_eq!(
        moved, 24,
        "every joint moved: the fox walks and its trail turns"
    );
}
