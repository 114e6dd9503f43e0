//! Time travel, measured (criterion group `replay`).
//!
//! - `step/demo` and `step_recording/demo`: a fixed step of the demo scene
//!   without and with a recorder (default settings): the recording's overhead.
//!   The same for `100000_moving`, where a keyframe costs more than the
//!   adaptive rule's 4% and the 32 ms re-simulation cap takes over.
//! - `step_recording_steady_input/demo` and `step_recording_changing_input/demo`:
//!   the recording's input log, where the input stays the same every step and
//!   where it changes every step (an entry logged per step, the worst case);
//!   `input_log_note/hour_changing` is that logging alone for an hour of
//!   steps at 60 Hz (216,000): divided by 216,000, to set against a step.
//! - `seek/demo`: random seeks in a 36,000-step recording of the demo (10
//!   minutes at 60 Hz): restore the keyframe at or before, re-simulate.
//! - `seek/100000_moving`: random seeks in a recording of 100,000 spinning mesh
//!   nodes under the default 256 MB budget.
//! - `floor/100000_moving`: copying the bytes of that world's newest keyframe
//!   state, unpacked (`RecordStats::state_bytes`, printed a node: what any
//!   restore must at least move), on one thread like the restore.
//!
//! Before the timed groups, each seek bench prints its recording's memory and
//! the median and worst of 200 random seeks.

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec3;
use keel_engine::Primitive;
use keel_engine::SplitMix64;
use keel_engine::World;
use keel_engine::input::{InputFrame, Key, KeySet};
use keel_engine::record::{InputLog, RecordSettings};
use keel_engine::{Material, MeshRenderer, Scene, Spin, Transform};

fn demo() -> World {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes/demo.ron");
    World::new(Scene::load(&path, &keel_engine::Assets::new()).expect("the demo scene loads"))
}

/// 100,000 spinning cubes in 1,000 groups of 100 (every node moves every step).
fn moving(n: usize) -> World {
    let mut scene = Scene::new();
    let mut parent = None;
    for i in 0..n {
        let at = Vec3::new(
            (i % 100) as f32,
            (i / 10_000) as f32,
            ((i / 100) % 100) as f32,
        );
        if i % 100 == 0 {
            parent = None;
        }
        let node = scene
            .spawn(parent, format!("n{i}"), Transform::from_translation(at))
            .expect("spawn");
        if i % 100 == 0 {
            parent = Some(node);
        }
        let mesh = MeshRenderer {
            cast_shadows: true,
            mesh: Primitive::Cube.into(),
            material: Material::default(),
        };
        scene.insert(node, mesh).expect("alive");
        scene
            .insert(
                node,
                Spin {
                    axis: Vec3::Y,
                    rate: 0.5 + (i % 7) as f32 * 0.1,
                },
            )
            .expect("alive");
    }
    World::new(scene)
}

fn record(mut world: World, steps: u64) -> World {
    world.start_recording(RecordSettings::default());
    for _ in 0..steps {
        world.step();
    }
    world
}

fn random_targets(world: &World, count: usize, seed: u64) -> Vec<u64> {
    let range = world.recorder().and_then(|r| r.range()).expect("recorded");
    let (first, len) = (*range.start(), range.end() - range.start() + 1);
    let mut rng = SplitMix64::new(seed);
    (0..count).map(|_| first + rng.below(len)).collect()
}

fn report(name: &str, world: &mut World, targets: &[u64]) {
    let mut times: Vec<Duration> = targets
        .iter()
        .map(|&k| {
            let started = Instant::now();
            world.seek(k).expect("recorded step");
            started.elapsed()
        })
        .collect();
    times.sort_unstable();
    let stats = world.recorder().expect("recording").stats();
    let range = world.recorder().and_then(|r| r.range()).expect("recorded");
    eprintln!(
        "replay/{name}: steps {range:?} kept in {} keyframes, {:.1} MB ({} dropped); \
         {} seeks: median {:.2} ms, worst {:.2} ms",
        stats.keyframes,
        stats.bytes as f64 / (1 << 20) as f64,
        stats.dropped,
        times.len(),
        times[times.len() / 2].as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3,
    );
}

/// Two input frames: a key held, and the same with a second key and the
/// cursor moved.
fn input_frames() -> [InputFrame; 2] {
    let mut keys = KeySet::default();
    keys.insert(Key::W);
    let first = InputFrame {
        keys,
        ..InputFrame::default()
    };
    keys.insert(Key::D);
    let second = InputFrame {
        keys,
        cursor: glam::Vec2::new(320.0, 200.0),
        cursor_delta: glam::Vec2::new(3.0, -1.0),
        ..InputFrame::default()
    };
    [first, second]
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("replay");
    let mut plain = demo();
    group.bench_function("step/demo", |b| b.iter(|| plain.step()));
    let mut recorded = demo();
    recorded.start_recording(RecordSettings::default());
    group.bench_function("step_recording/demo", |b| b.iter(|| recorded.step()));
    drop((plain, recorded));

    // Input: the same frame every step (nothing to log) against a frame
    // that changes every step (the log's worst case: an entry per step).
    let frames = input_frames();
    let mut steady = demo();
    steady.start_recording(RecordSettings::default());
    group.bench_function("step_recording_steady_input/demo", |b| {
        b.iter(|| {
            steady.set_input(frames[0]);
            steady.step();
        });
    });
    let mut changing = demo();
    changing.start_recording(RecordSettings::default());
    let mut i = 0;
    group.bench_function("step_recording_changing_input/demo", |b| {
        b.iter(|| {
            i += 1;
            changing.set_input(frames[i % 2]);
            changing.step();
        });
    });
    let log = changing.recorder().map_or(0, |r| r.inputs().len());
    println!("replay/input log: {log} changes logged over the changing-input bench");
    drop((steady, changing));
    // What a recorder adds per step for input, alone (the difference of the
    // two steps above is within their noise): an hour of steps at 60 Hz
    // (216,000) noted into an empty log, the frame changing every step.
    group.bench_function("input_log_note/hour_changing", |b| {
        b.iter(|| {
            let mut log = InputLog::default();
            for step in 0..216_000_u64 {
                log.note(step, black_box(&frames[(step % 2) as usize]));
            }
            log
        });
    });

    let mut world = record(demo(), 36_000);
    let targets = random_targets(&world, 200, 1);
    report("seek/demo", &mut world, &targets);
    let mut i = 0;
    group.bench_function("seek/demo", |b| {
        b.iter(|| {
            i = (i + 1) % targets.len();
            world.seek(black_box(targets[i])).expect("recorded")
        })
    });
    drop(world);

    let mut plain = moving(100_000);
    group.sample_size(20);
    group.bench_function("step/100000_moving", |b| b.iter(|| plain.step()));
    drop(plain);
    let mut recorded = moving(100_000);
    recorded.start_recording(RecordSettings::default());
    group.bench_function("step_recording/100000_moving", |b| {
        b.iter(|| recorded.step())
    });
    drop(recorded);

    let mut world = record(moving(100_000), 600);
    let bytes = world.recorder().expect("recording").stats().state_bytes;
    assert!(
        bytes > 100_000 * 100,
        "every node's columns are in the state: {bytes}"
    );
    eprintln!("floor/100000_moving: {} bytes a node", bytes / 100_000);
    let targets = random_targets(&world, 200, 2);
    report("seek/100000_moving", &mut world, &targets);
    let mut i = 0;
    group.bench_function("seek/100000_moving", |b| {
        b.iter(|| {
            i = (i + 1) % targets.len();
            world.seek(black_box(targets[i])).expect("recorded")
        })
    });
    // The floor: moving the newest keyframe's state once.
    let source = vec![1u8; bytes];
    let mut target = vec![0u8; bytes];
    group.bench_function("floor/100000_moving", |b| {
        b.iter(|| {
            target.copy_from_slice(black_box(&source));
            black_box(&target);
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
