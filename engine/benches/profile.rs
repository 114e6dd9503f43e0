//! What recording a profile costs: one fixed step of a 10,000-node world
//! (every node spinning, 1% moved by a user system, systems, propagation,
//! particles and the octree) with no profiler recording (`step_off`: each
//! engine scope is one relaxed atomic load) and with one recording
//! (`step_recording`: each scope is timed, and every step ends a frame
//! into the profiler's ring, as the viewer's `--profile` does).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec3;
use keel_engine::profile::Profiler;
use keel_engine::{Scene, Spin, Transform, World};

const NODES: usize = 10_000;

fn world() -> World {
    let mut scene = Scene::new();
    for i in 0..NODES {
        let at = Vec3::new((i % 100) as f32, 0.0, (i / 100) as f32);
        let node = scene
            .spawn(None, "", Transform::from_translation(at))
            .expect("spawn");
        scene
            .insert(
                node,
                Spin {
                    axis: Vec3::Y,
                    rate: 1.0,
                },
            )
            .expect("insert");
    }
    let mut world = World::new(scene);
    world
        .systems_mut()
        .add("bob", |scene, _commands, step| {
            let roots: Vec<_> = scene.roots().step_by(100).collect();
            for node in roots {
                let _ = scene.update_local(node, |l| l.translation.y += step.dt);
            }
        })
        .expect("a new system");
    world
}

fn profile(c: &mut Criterion) {
    let mut group = c.benchmark_group("profile");
    let mut off = world();
    group.bench_function("step_off/10000", |b| {
        b.iter(|| {
            off.step();
            black_box(off.scene().len())
        });
    });
    let mut on = world();
    let mut profiler = Profiler::new();
    profiler.set_recording(true);
    group.bench_function("step_recording/10000", |b| {
        b.iter(|| {
            on.step();
            profiler.new_frame();
            black_box(on.scene().len())
        });
    });
    profiler.set_recording(false);
    assert!(
        profiler
            .latest()
            .is_some_and(|f| f.find("fixed step").is_some())
    );
    group.finish();
}

criterion_group!(benches, profile);
criterion_main!(benches);
