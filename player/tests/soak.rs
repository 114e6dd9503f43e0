//! The soak runner on the demo scene: a short run must churn every kind of
//! structure and pass every check, and the runner must fail, naming what
//! broke, when a world goes bad or memory keeps growing. `.ci/run` runs the
//! same soak for two minutes through `keel-viewer --soak 2`.

use std::path::Path;
use std::time::Duration;

use glam::Vec3;
use keel_engine::World;
use keel_engine::{Scene, Transform};
use keel_player::soak::{self, SoakError, SoakOptions};

fn demo() -> World {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes/demo.ron");
    World::new(Scene::load(&path, &keel_engine::Assets::new()).expect("the demo loads"))
}

fn steps(n: u64) -> SoakOptions {
    let mut options = SoakOptions::new(Duration::from_secs(3600));
    options.max_steps = Some(n);
    options.churn_nodes = 300;
    options.check_every = 1;
    options.seek_every = Some(100);
    options
}

#[test]
fn a_short_soak_of_the_demo_churns_everything_and_passes_every_check() {
    let report = soak::run(demo(), &steps(400), |_| {}).expect("the soak passes");
    assert_eq!(report.steps, 400);
    assert_eq!(
        report.checks, 401,
        "checked after every step, and at the end"
    );
    assert!(report.spawned > 400, "{report}");
    assert!(report.despawned > 100, "{report}");
    assert!(report.reparented > 100, "{report}");
    assert!(report.edits > 1000, "{report}");
    assert!(report.models > 0, "a model instance was made: {report}");
    assert!(report.rigs > 0, "an animated rig was made: {report}");
    assert!(
        report.animator_toggles > 0,
        "animators were started and stopped: {report}"
    );
    assert!(report.prefabs > 0, "a prefab instance was made: {report}");
    assert!(report.seeks >= 3, "the recording was sought into: {report}");
    assert!(report.particles > 0, "emitters spawned particles: {report}");
    assert!(
        report.peak_nodes > report.nodes.min(600),
        "the scene grew and shrank: {report}"
    );
}

#[test]
fn the_same_seed_makes_the_same_run() {
    let a = soak::run(demo(), &steps(60), |_| {}).expect("passes");
    let b = soak::run(demo(), &steps(60), |_| {}).expect("passes");
    assert_eq!(
        (a.spawned, a.despawned, a.reparented, a.edits, a.nodes),
        (b.spawned, b.despawned, b.reparented, b.edits, b.nodes)
    );
}

#[test]
fn a_world_transform_that_overflows_fails_the_soak() {
    let mut world = demo();
    world
        .systems_mut()
        .add("overflow", |scene, _, ctx| {
            if ctx.index == 5 {
                // Finite locals whose product is not: the world transform is infinite.
                let huge =
                    Transform::from_translation(Vec3::splat(1e30)).with_scale(Vec3::splat(1e30));
                let parent = scene.spawn(None, "huge", huge).expect("spawns");
                scene.spawn(Some(parent), "beyond", huge).expect("spawns");
            }
        })
        .expect("a system of a new name");
    let error = soak::run(world, &steps(20), |_| {}).expect_err("the soak fails");
    match &error {
        SoakError::Invariant { step, what, .. } => {
            assert_eq!(*step, 6, "{error}");
            assert_eq!(*what, "scene", "{error}");
        }
        other => panic!("expected a broken invariant, got {other}"),
    }
    assert!(error.to_string().contains("not finite"), "{error}");
}

#[test]
fn memory_that_keeps_growing_after_the_warm_up_fails_the_soak() {
    let mut world = demo();
    let mut kept: Vec<Vec<u8>> = Vec::new();
    world
        .systems_mut()
        .add("leak", move |_, _, _| {
            // 1 MB a step, touched so it is resident.
            kept.push(vec![1; 1 << 20]);
        })
        .expect("a system of a new name");
    let mut options = steps(2_000);
    options.warm_up = Duration::ZERO;
    options.growth_limit = 16 << 20;
    let error = soak::run(world, &options, |_| {}).expect_err("the soak fails");
    match &error {
        SoakError::MemoryGrowth {
            step, now, warm, ..
        } => {
            assert!(*step <= 200, "caught within two samples: {error}");
            assert!(now - warm > 16 << 20, "{error}");
        }
        other => panic!("expected memory growth, got {other}"),
    }
}
