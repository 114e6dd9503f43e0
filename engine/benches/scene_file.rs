//! Scene files at scale (criterion group `scene_file`): loading a file whose
//! hierarchy is a 100,000-deep chain, and one with 1,000,000 flat nodes.
//!
//! Each size is measured whole (`load_*`: text to a propagated scene) and in
//! its two parts, so one can say where the time goes:
//! - `parse_*`: RON text to `SceneFile` records (serde + ron);
//! - `build_*`: records to a `Scene` (validation, spawns, components, and the
//!   first propagation, which `to_scene` runs).
//!
//! `load_flat_light` and `load_flat_user`: the 1,000,000 flat nodes each with
//! a component of the same shape and text size: the engine's `Light` (a
//! typed field of the record) or a registered user component (read by name
//! through the registry, stored in a registered column).

use std::path::Path;

use bevy_reflect::Reflect;
use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use glam::Vec3;
use keel_engine::scene::SceneFile;
use keel_engine::{Component, Light, LightKind, Scene, Transform};
use serde::{Deserialize, Serialize};

/// A user component shaped like a point light.
#[derive(Clone, Debug, Default, Serialize, Deserialize, Reflect)]
enum Reach {
    #[default]
    Near,
    Point {
        range: f32,
    },
}

/// A user component shaped like the engine's `Light`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, Reflect)]
struct Glow {
    kind: Reach,
    color: Vec3,
    intensity: f32,
    cast_shadows: bool,
}

impl Component for Glow {
    const NAME: &'static str = "glow";
}

/// 1,000,000 flat nodes, each with a light or a glow.
fn component_text(n: usize, user: bool, assets: &keel_engine::Assets) -> String {
    let mut scene = Scene::with_assets(assets);
    for i in 0..n {
        let at = Transform::from_translation(Vec3::new(0.001 * (i % 13) as f32, 0.01, 0.0));
        let node = scene.spawn(None, format!("n{i}"), at).expect("spawns");
        let (color, intensity, range) = (Vec3::new(1.0, 0.9, 0.8), 2.5, 10.0);
        if user {
            let kind = Reach::Point { range };
            let glow = Glow {
                kind,
                color,
                intensity,
                cast_shadows: false,
            };
            scene.insert(node, glow).expect("inserts");
        } else {
            let kind = LightKind::Point { range };
            let light = Light {
                kind,
                color,
                intensity,
                cast_shadows: false,
            };
            scene.insert(node, light).expect("inserts");
        }
    }
    scene
        .to_file()
        .to_text(Path::new("bench.ron"))
        .expect("serializes")
}

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
    let n = 1_000_000;
    for (name, user) in [("load_flat_light", false), ("load_flat_user", true)] {
        let assets = keel_engine::Assets::new();
        Scene::with_assets(&assets)
            .register::<Glow>()
            .expect("registers");
        let text = component_text(n, user, &assets);
        group.bench_with_input(BenchmarkId::new(name, n), &n, |b, _| {
            b.iter_batched(
                || (),
                |()| Scene::from_text(&text, origin, &assets).expect("loads"),
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
