//! The stress scenes `keel-viewer --benchmark` ships with
//! (`assets/stress/`, written by `scripts/make-stress-scenes.py`): the
//! counts they promise, and 1% of the cubes moving when simulated.

use std::path::Path;

use keel_engine::{Assets, Orbit, Scene, World};

#[test]
fn cubes_100k_is_a_hundred_thousand_cubes_one_in_a_hundred_orbiting() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/stress/cubes_100k.ron");
    let scene = Scene::load(&path, &Assets::new()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scene.components().mesh.len(), 100_000, "cubes");
    let (orbiting, _) = scene.components().parts::<Orbit>();
    assert_eq!(orbiting.len(), 1_000, "1% orbit their places");
    let mut world = World::new(scene);
    world.step();
    world.step();
    let moved = world.scene().last_recomputed();
    assert!(
        (1_000..2_000).contains(&moved),
        "a step recomputes the orbiting cubes, not the grid: {moved}"
    );
}
