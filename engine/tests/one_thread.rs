//! The parallel paths (propagation, the particle sampler and update,
//! animation) give the same world on one thread as on several: what the
//! browser runs (one thread unless it has workers) replays what native
//! recorded, and the other way round.

use std::path::PathBuf;

use glam::{Quat, Vec3};
use keel_engine::particles::{FloatRange, Overflow, PARALLEL_SAMPLES, PARALLEL_SPAN};
use keel_engine::{Assets, Emitter, Scene, Spin, Transform, World};

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
}

/// The demo scene with enough moving nodes and particles that every parallel
/// path splits its work.
fn big_world() -> World {
    let mut scene =
        Scene::load(&repo("assets/scenes/demo.ron"), &Assets::new()).expect("the demo loads");
    let root = scene
        .spawn(None, "crowd", Transform::IDENTITY)
        .expect("a root");
    for i in 0..70_000u32 {
        let at = Transform {
            translation: Vec3::new((i % 300) as f32, 0.0, (i / 300) as f32),
            rotation: Quat::IDENTITY,
            scale: Vec3::ONE,
        };
        let node = scene.spawn(Some(root), "n", at).expect("a node");
        let spin = Spin {
            axis: Vec3::new(0.3, 1.0, 0.1 * (i % 7) as f32),
            rate: 0.5 + (i % 13) as f32 * 0.1,
        };
        scene.insert(node, spin).expect("alive");
    }
    let fountain = scene
        .spawn(Some(root), "fountain", Transform::IDENTITY)
        .expect("a node");
    let emitter = Emitter {
        // More particles a step than the sampler splits at, a pool larger
        // than the update splits at.
        rate: 60.0 * (PARALLEL_SAMPLES as f32 * 1.5),
        lifetime: FloatRange { min: 1.0, max: 2.0 },
        overflow: Overflow::Grow {
            max: (PARALLEL_SPAN * 4) as u32,
        },
        seed: 7,
        ..Emitter::default()
    };
    scene.insert(fountain, emitter).expect("alive");
    World::new(scene)
}

fn run_on(threads: usize, steps: u32) -> Vec<keel_engine::record::StateHash> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool");
    pool.install(|| {
        let mut world = big_world();
        let hashes = (0..steps)
            .map(|_| {
                world.step();
                world.state_hash()
            })
            .collect();
        let alive = world.particles().pool().len();
        assert!(
            alive > PARALLEL_SPAN,
            "{alive} particles: the update would not split"
        );
        hashes
    })
}

#[test]
fn one_thread_and_four_step_the_same_world() {
    let steps = 8;
    let one = run_on(1, steps);
    let four = run_on(4, steps);
    for (step, (a, b)) in one.iter().zip(&four).enumerate() {
        assert_eq!(a, b, "step {}: one thread and four differ", step + 1);
    }
}
