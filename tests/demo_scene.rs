//! The bundled demo scene loads, has the book's hierarchy with a behaviour at
//! every level, and every level really moves when simulated; and the README's
//! `cargo run` reaches the editor that opens it.

use std::path::Path;

use keel_engine::World;
use keel_engine::{Light, LightKind, Orbit, Oscillate, Scene, Spin};

fn demo() -> Scene {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/scenes/demo.ron");
    Scene::load(&path, &keel_engine::Assets::new()).unwrap_or_else(|e| panic!("{e}"))
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
                .scene()
                .find_path(path)
                .unwrap_or_else(|| panic!("{path} missing"))
        })
        .collect();
    for (&node, path) in nodes.iter().zip(levels) {
        let s = world.scene();
        let animated = s.get::<Oscillate>(node).is_some()
            || s.get::<Spin>(node).is_some()
            || s.get::<Orbit>(node).is_some();
        assert!(animated, "{path} has no behaviour of its own");
    }
    let before: Vec<_> = nodes
        .iter()
        .map(|&n| world.scene().local(n).unwrap())
        .collect();
    for _ in 0..90 {
        world.step();
    }
    assert!(
        world.particles().stats().alive > 50,
        "the emitters are smoking and spraying"
    );
    for ((&node, path), old) in nodes.iter().zip(levels).zip(before) {
        assert_ne!(
            world.scene().local(node).unwrap(),
            old,
            "{path} did not move"
        );
    }
}

#[test]
fn the_fleet_sails_and_the_scene_is_lit() {
    let scene = demo();
    // Before Play, every boat already sits on its orbit (not heaped at the origin).
    let orbits = scene
        .components()
        .column::<Orbit>()
        .expect("the demo has orbiting boats");
    for (boat, orbit) in orbits.iter() {
        let at = scene.local(boat).unwrap().translation;
        assert!(
            (at.distance(orbit.center) - orbit.radius).abs() < 1e-3,
            "{boat} at {at}"
        );
    }
    assert!(orbits.len() >= 200, "only {} boats", orbits.len());
    let lights: Vec<&Light> = scene.components().light.iter().map(|(_, l)| l).collect();
    assert!(lights.iter().any(|l| l.kind == LightKind::Directional));
    assert!(
        lights
            .iter()
            .any(|l| matches!(l.kind, LightKind::Point { .. }))
    );
    assert!(scene.components().mesh.len() > 600);
    assert!(
        scene
            .find_path("ship/cannon/smoke")
            .is_some_and(|n| scene.get::<keel_engine::Emitter>(n).is_some())
    );
    assert!(
        scene
            .find_path("ship/bow_spray")
            .is_some_and(|n| scene.get::<keel_engine::Emitter>(n).is_some())
    );
}

#[test]
fn the_fox_walks_round_the_lighthouse() {
    let mut world = keel_engine::World::new(demo());
    let (_, animator) = world
        .scene()
        .components()
        .animator
        .iter()
        .next()
        .expect("an animator");
    assert_eq!(animator.clip, "Walk");
    let (skinned, _) = world
        .scene()
        .components()
        .skin
        .iter()
        .next()
        .expect("a skinned mesh");
    world.step();
    let mut before = Vec::new();
    world.scene().joint_matrices(skinned, &mut before);
    for _ in 0..30 {
        world.step();
    }
    let mut after = Vec::new();
    world.scene().joint_matrices(skinned, &mut after);
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

/// Every node's path of names (with its place among same-named siblings)
/// and world transform, in pre-order.
fn world_listing(scene: &Scene) -> Vec<(String, [f32; 12])> {
    let mut paths: std::collections::HashMap<keel_engine::NodeId, String> =
        std::collections::HashMap::new();
    let mut out = Vec::new();
    for node in scene.nodes() {
        let name = scene.name(node).unwrap_or("?");
        let parent = scene.parent(node).and_then(|p| paths.get(&p)).cloned();
        let prefix = parent.map_or(String::new(), |p| format!("{p}/"));
        let twins = |n: &keel_engine::NodeId| {
            scene.name(*n) == Some(name) && scene.parent(*n) == scene.parent(node)
        };
        let place = match scene.parent(node) {
            Some(p) => scene
                .children(p)
                .take_while(|c| *c != node)
                .filter(twins)
                .count(),
            None => scene
                .roots()
                .take_while(|c| *c != node)
                .filter(twins)
                .count(),
        };
        let path = format!("{prefix}{name}#{place}");
        paths.insert(node, path.clone());
        let world = scene.world(node).unwrap();
        out.push((path, world.to_cols_array()));
    }
    out
}

/// The fleet became instances of one boat prefab: the demo must load to the
/// world it loaded to when every boat was written out node by node (listed
/// in `tests/data/demo_worlds.txt`, made from that file), and its file is
/// smaller for it.
#[test]
fn the_demo_with_boat_prefabs_loads_to_the_worlds_of_the_flat_demo() {
    let listing = world_listing(&demo());
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/demo_worlds.txt");
    if !fixture.exists() && std::env::var("KEEL_BLESS").as_deref() == Ok("1") {
        let text: String = listing
            .iter()
            .map(|(path, m)| {
                let numbers: Vec<String> = m.iter().map(|x| format!("{x:?}")).collect();
                format!("{path}\t{}\n", numbers.join(" "))
            })
            .collect();
        std::fs::create_dir_all(fixture.parent().unwrap()).unwrap();
        std::fs::write(&fixture, text).unwrap();
    }
    let text = std::fs::read_to_string(&fixture)
        .unwrap_or_else(|e| panic!("{}: {e} (KEEL_BLESS=1 writes it)", fixture.display()));
    let expected: Vec<(&str, Vec<f32>)> = text
        .lines()
        .map(|line| {
            let (path, numbers) = line.split_once('\t').unwrap();
            (
                path,
                numbers.split(' ').map(|x| x.parse().unwrap()).collect(),
            )
        })
        .collect();
    assert_eq!(listing.len(), expected.len(), "same number of nodes");
    for ((path, world), (want_path, want)) in listing.iter().zip(&expected) {
        assert_eq!(path, want_path, "same hierarchy in the same order");
        for (a, b) in world.iter().zip(want) {
            assert!(
                (a - b).abs() <= 1e-5 * b.abs().max(1.0),
                "{path}: {world:?} vs {want:?}"
            );
        }
    }
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/scenes/demo.ron");
    let bytes = std::fs::metadata(&demo).unwrap().len();
    assert!(
        bytes < 250_000,
        "the flat demo was 420,341 bytes; with prefabs it is {bytes}"
    );
}

/// `cargo run` at the root builds the default members and runs the one
/// binary a `default-run` names: exactly one default member may name one
/// (two made `cargo run` ask which binary), and it is the editor's `keel`.
#[test]
fn cargo_run_at_the_root_has_one_binary_to_run() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let line = workspace
        .lines()
        .find(|l| l.starts_with("default-members"))
        .expect("the workspace lists its default members");
    let members: Vec<&str> = line.split('"').skip(1).step_by(2).collect();
    assert!(members.contains(&"."), "{members:?}");
    let default_runs: Vec<(String, String)> = members
        .iter()
        .filter_map(|member| {
            let manifest = std::fs::read_to_string(root.join(member).join("Cargo.toml")).unwrap();
            manifest
                .lines()
                .find(|l| l.starts_with("default-run"))
                .map(|l| {
                    (
                        member.to_string(),
                        l.split('"').nth(1).unwrap_or("").to_owned(),
                    )
                })
        })
        .collect();
    assert_eq!(
        default_runs,
        vec![(".".to_owned(), "keel".to_owned())],
        "only the root names a default-run binary"
    );
}
