//! Scene files at scale (criterion group `scene_file`): loading a file whose
//! hierarchy is a 100,000-deep chain, and one with 1,000,000 flat nodes.
//!
//! Each size is measured whole (`load_*`: text to a propagated scene) and in
//! its two parts, so one can say where the time goes:
//! - `parse_*`: RON text to `SceneFile` records (serde + ron);
//! - `build_*`: records to a `Scene` (validation, spawns, components, and the
//!   first propagation, which `to_scene` runs).

use std::path::Path;

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use glam::Vec3;
use keel_engine::scene::SceneFile;
use keel_engine::{Scene, Transform};

/// A scene of `n` nodes, each under the previous one (`chain`) or all roots.
fn scene_text(n: usize, chain: bool) -> String {
    let mut scene = Scene::new();
    let mut last = None;
    for i in 0..n {
        let at = Transform::from_translation(Vec3::new(0.001 * (i % 13) as f32, 0.01, 0.0));
        let node = scene.spawn(last, format!("n{i}"), at).expect("spawns");
        if chain {
            last = Some(node);
        }
    }
    scene
        .to_file()
        .to_text(Path::new("bench.ron"))
        .expect("serializes")
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("scene_file");
    group.sample_size(10);
    let origin = Path::new("bench.ron");
    for (name, n, chain) in [("chain", 100_000usize, true), ("flat", 1_000_000, false)] {
        let text = scene_text(n, chain);
        let assets = keel_engine::Assets::new();
        group.bench_with_input(BenchmarkId::new(format!("load_{name}"), n), &n, |b, _| {
            b.iter_batched(
                || (),
                |()| Scene::from_text(&text, origin, &assets).expect("loads"),
                BatchSize::PerIteration,
            )
        });
        group.bench_with_input(BenchmarkId::new(format!("parse_{name}"), n), &n, |b, _| {
            b.iter_batched(
                || (),
                |()| SceneFile::parse(&text, origin, &Default::default()).expect("parses"),
                BatchSize::PerIteration,
            )
        });
        let file = SceneFile::parse(&text, origin, &Default::default()).expect("parses");
        group.bench_with_input(BenchmarkId::new(format!("build_{name}"), n), &n, |b, _| {
            b.iter_batched(
                || (),
                |()| file.to_scene(origin, &assets).expect("builds"),
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
