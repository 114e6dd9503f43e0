//! Time travel: a recorded run is the unrecorded run bit for bit, and seeking
//! to any recorded step gives the world a fresh run reaches at that step.

use std::path::Path;

use keel_engine::SplitMix64;
use keel_engine::World;
use keel_engine::record::{RecordSettings, SeekError, StateHash};
use keel_engine::{Scene, Transform};

fn demo() -> World {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes/demo.ron");
    World::new(Scene::load(&path, &keel_engine::Assets::new()).expect("the demo scene loads"))
}

/// Hashes of a fresh run at each of `steps` (sorted).
fn fresh_hashes(steps: &[u64]) -> Vec<StateHash> {
    let mut world = demo();
    let mut out = Vec::new();
    for &k in steps {
        while world.systems().steps() < k {
            world.step();
        }
        out.push(world.state_hash());
    }
    out
}

fn random_steps(count: usize, below: u64, seed: u64) -> Vec<u64> {
    let mut rng = SplitMix64::new(seed);
    let mut steps: Vec<u64> = (0..count).map(|_| rng.below(below)).collect();
    steps.sort_unstable();
    steps
}

#[test]
fn recording_changes_no_bit_of_the_run() {
    let mut plain = demo();
    let mut recorded = demo();
    recorded.start_recording(RecordSettings {
        every: Some(7),
        ..RecordSettings::default()
    });
    for step in 0..600 {
        plain.step();
        recorded.step();
        if step % 50 == 49 {
            assert_eq!(plain.state_hash(), recorded.state_hash(), "step {step}");
        }
    }
    let stats = recorded.recorder().unwrap().stats();
    assert!(stats.keyframes >= 80, "{stats:?}");
}

#[test]
fn seeking_anywhere_matches_a_fresh_run() {
    const STEPS: u64 = 10_000;
    let targets = random_steps(40, STEPS + 1, 0x5eed);
    let expected = fresh_hashes(&targets);
    let mut world = demo();
    // The adaptive rule (timing-dependent) and a fixed interval both must be exact.
    world.start_recording(RecordSettings::default());
    for _ in 0..STEPS {
        world.step();
    }
    let recorder = world.recorder().unwrap();
    assert_eq!(recorder.range(), Some(0..=STEPS));
    let stats = recorder.stats();
    eprintln!("10,000 steps of the demo: {stats:?}");
    let mut order: Vec<usize> = (0..targets.len()).collect();
    let mut rng = SplitMix64::new(7);
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    for i in order {
        let seek = world.seek(targets[i]).expect("a recorded step");
        let got = world.state_hash();
        assert_eq!(
            got,
            expected[i],
            "seek to {} (keyframe {}, {} steps re-simulated) differs in {:?}",
            targets[i],
            seek.keyframe,
            seek.resimulated,
            got.differing(&expected[i])
        );
    }
}

#[test]
fn a_small_budget_drops_the_oldest_keyframes_and_refuses_to_seek_there() {
    let mut world = demo();
    world.start_recording(RecordSettings {
        budget_bytes: 2 << 20,
        every: Some(10),
        ..RecordSettings::default()
    });
    for _ in 0..3_000 {
        world.step();
    }
    let recorder = world.recorder().unwrap();
    let stats = recorder.stats();
    assert!(
        stats.dropped > 0,
        "the budget must have dropped keyframes: {stats:?}"
    );
    assert!(stats.bytes <= 2 << 20, "{stats:?}");
    let range = recorder.range().unwrap();
    assert!(*range.start() > 0 && *range.end() == 3_000, "{range:?}");
    let first = *range.start();
    match world.seek(first - 1) {
        Err(SeekError::Dropped { step, first: f, .. }) => assert_eq!((step, f), (first - 1, first)),
        other => panic!("expected a refusal, got {other:?}"),
    }
    let message = world.seek(0).unwrap_err().to_string();
    assert!(
        message.contains("no longer recorded") && message.contains("2 MB"),
        "{message}"
    );
    assert!(matches!(world.seek(3_001), Err(SeekError::Ahead { .. })));
    // What is kept is still exact (the oldest keyframe was rebased to stand alone).
    let targets = [first, first + 1, first + 25, 2_990];
    let expected = fresh_hashes(&targets);
    for (k, want) in targets.iter().zip(&expected) {
        world.seek(*k).unwrap();
        assert_eq!(world.state_hash(), *want, "seek to {k}");
    }
}

/// A world edited between steps, the way the editor edits it.
fn nudge(world: &mut World) {
    let node = world.scene().nodes().nth(3).expect("the demo has nodes");
    let mut t: Transform = world.scene().local(node).unwrap();
    t.translation.y += 1.5;
    world.scene_mut().set_local(node, t).unwrap();
    world.note_edit();
}

#[test]
fn edits_between_steps_are_kept_and_a_branch_comes_back() {
    let mut world = demo();
    world.start_recording(RecordSettings {
        every: Some(50),
        ..RecordSettings::default()
    });
    for _ in 0..120 {
        world.step();
    }
    nudge(&mut world);
    for _ in 0..200 {
        world.step();
    }
    let at_320 = world.state_hash();
    // Before the edit, and after it: re-simulation must see the edit only after step 120.
    let mut fresh = demo();
    for _ in 0..100 {
        fresh.step();
    }
    world.seek(100).unwrap();
    assert_eq!(world.state_hash(), fresh.state_hash());
    for _ in 100..120 {
        fresh.step();
    }
    nudge(&mut fresh);
    for _ in 120..200 {
        fresh.step();
    }
    world.seek(200).unwrap();
    assert_eq!(
        world.state_hash(),
        fresh.state_hash(),
        "the edit at 120 replayed"
    );

    // An edit at step 150 branches: the future after 150 is gone, then restored.
    world.seek(150).unwrap();
    let before_edit = world.state_hash();
    let node = world.scene().nodes().nth(3).unwrap();
    let old = world.scene().local(node).unwrap();
    let mut t = old;
    t.translation.x -= 3.0;
    world.scene_mut().set_local(node, t).unwrap();
    let branch = world.note_edit().expect("recording");
    assert_eq!(world.recorder().unwrap().range(), Some(0..=150));
    assert!(matches!(world.seek(151), Err(SeekError::Ahead { .. })));
    // Undo: the old transform, then the old future.
    world.scene_mut().set_local(node, old).unwrap();
    world.scene_mut().propagate();
    world.restore_branch(branch);
    assert_eq!(world.recorder().unwrap().range(), Some(0..=320));
    world.seek(320).unwrap();
    assert_eq!(world.state_hash(), at_320);
    world.seek(150).unwrap();
    assert_eq!(world.state_hash(), before_edit);
}

#[test]
fn two_plain_runs_hash_alike() {
    let mut a = demo();
    let mut b = demo();
    for step in 0..200 {
        a.step();
        b.step();
        if step % 10 == 9 {
            assert_eq!(a.state_hash(), b.state_hash(), "step {step}");
        }
    }
}

#[test]
fn hashing_changes_nothing() {
    let mut a = demo();
    let mut b = demo();
    for step in 0..3000 {
        a.step();
        b.step();
        if step % 7 == 0 {
            a.state_hash();
        }
    }
    assert_eq!(a.state_hash(), b.state_hash());
}

#[test]
fn a_changed_system_diverges_at_the_step_it_first_acts() {
    use keel_engine::record::{Recording, Verdict};
    let mut world = demo();
    let recording = Recording::record(&mut world, Path::new("demo.ron"), b"", 200, 1);
    assert_eq!(
        recording.replay(&mut demo()),
        Verdict::Identical {
            steps: 200,
            hashes: 200
        }
    );
    let mut changed = demo();
    let node = changed.scene().nodes().nth(5).unwrap();
    changed
        .systems_mut()
        .add("drift", move |scene, _, ctx| {
            if ctx.index >= 120 {
                let mut t = scene.local(node).unwrap();
                t.translation.z += 0.01;
                scene.set_local(node, t).unwrap();
            }
        })
        .expect("a system of a new name");
    match recording.replay(&mut changed) {
        Verdict::Diverged { step, parts } => {
            assert_eq!(step, 121, "the 121st step is the first the system changed");
            assert!(parts.contains(&"nodes"), "{parts:?}");
        }
        other => panic!("expected a divergence, got {other:?}"),
    }
}

/// A user system whose every choice is a function of the step and the scene
/// (no state of its own): it spawns meshes under random nodes, despawns whole
/// subtrees and reparents, so holes, sweeps and relayouts happen in the run.
fn churn(scene: &mut Scene, commands: &mut keel_engine::Commands, ctx: &keel_engine::StepContext) {
    let mut rng = SplitMix64::new(ctx.index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let nodes: Vec<_> = scene.nodes().collect();
    for _ in 0..6 {
        let parent = nodes
            .get(rng.below(nodes.len() as u64 + 1) as usize)
            .copied();
        let at = glam::Vec3::new(rng.unit(), 1.0, rng.unit());
        commands.spawn_with(
            parent,
            "churn",
            Transform::from_translation(at),
            |scene, node| {
                let mesh = keel_engine::MeshRenderer {
                    cast_shadows: true,
                    mesh: keel_engine::Primitive::Sphere.into(),
                    material: keel_engine::Material::default(),
                };
                scene.insert(node, mesh).expect("alive");
            },
        );
    }
    for _ in 0..5 {
        if let Some(&node) = nodes.get(rng.below(nodes.len() as u64) as usize)
            && scene.name(node) == Some("churn")
        {
            commands.despawn(node);
        }
    }
    if let (Some(&a), Some(&b)) = (
        nodes.get(rng.below(nodes.len() as u64) as usize),
        nodes.get(rng.below(nodes.len() as u64) as usize),
    ) && scene.name(a) == Some("churn")
    {
        let _ = scene.reparent(a, Some(b), keel_engine::Keep::World);
    }
}

#[test]
fn seeking_through_structural_churn_matches_a_fresh_run() {
    let churning = || {
        let mut world = demo();
        world
            .systems_mut()
            .add("churn", churn)
            .expect("a system of a new name");
        world
    };
    let targets = random_steps(12, 1_501, 99);
    let mut fresh = churning();
    let expected: Vec<StateHash> = targets
        .iter()
        .map(|&k| {
            while fresh.systems().steps() < k {
                fresh.step();
            }
            fresh.state_hash()
        })
        .collect();
    let mut world = churning();
    world.start_recording(RecordSettings {
        every: Some(37),
        ..RecordSettings::default()
    });
    for _ in 0..1_500 {
        world.step();
    }
    assert!(
        world.scene().len() > fresh.scene().len() / 2,
        "the churn kept nodes alive"
    );
    for (k, want) in targets.iter().zip(&expected).rev() {
        world.seek(*k).unwrap();
        let got = world.state_hash();
        assert_eq!(got, *want, "seek to {k}: {:?} differ", got.differing(want));
        world
            .scene()
            .check_consistency()
            .expect("a restored scene is consistent");
    }
}

#[test]
fn a_replay_claims_only_the_steps_it_compared() {
    use keel_engine::record::{Recording, Verdict};
    // 305 steps hashed every 10: the last 5 have no hash to compare with.
    let recording = Recording::record(&mut demo(), Path::new("demo.ron"), b"", 305, 10);
    assert_eq!(recording.hashes.len(), 30);
    let mut world = demo();
    assert_eq!(
        recording.replay(&mut world),
        Verdict::Identical {
            steps: 300,
            hashes: 30
        }
    );
    assert_eq!(
        world.systems().steps(),
        300,
        "no step past the last hash is run"
    );
}

#[test]
fn edited_or_truncated_recordings_are_refused_naming_the_field() {
    use keel_engine::record::{Recording, RecordingError};
    let dir = tempfile::tempdir().unwrap();
    let recording = Recording::record(&mut demo(), Path::new("demo.ron"), b"", 40, 4);
    let good = dir.path().join("good.rec");
    recording.write(&good).unwrap();
    assert_eq!(
        Recording::read(&good, &keel_engine::files::ReadLimits::DEFAULT).unwrap(),
        recording
    );

    let edit = |name: &str, change: &dyn Fn(&mut Recording)| {
        let mut edited = recording.clone();
        change(&mut edited);
        let file = dir.path().join(name);
        edited.write(&file).unwrap();
        Recording::read(&file, &keel_engine::files::ReadLimits::DEFAULT).expect_err("refused")
    };
    type Change = dyn Fn(&mut Recording);
    let cases: [(&str, &Change, &str); 5] = [
        // A million times more steps than it holds hashes for: it once printed "identical: 1000000000000 steps".
        ("steps.rec", &|r| r.steps = 1_000_000_000_000, "hashes"),
        (
            "truncated.rec",
            &|r| {
                r.hashes.pop();
            },
            "hashes",
        ),
        ("extra.rec", &|r| r.hashes.push(r.hashes[0]), "hashes"),
        ("every.rec", &|r| r.hash_every = 0, "hash_every"),
        ("step.rec", &|r| r.step_ns = 0, "step_ns"),
    ];
    for (name, change, field) in cases {
        let error = edit(name, change);
        let RecordingError::InvalidValue { field: found, .. } = &error else {
            panic!("{name}: expected an invalid field, got {error}");
        };
        assert_eq!(*found, field, "{error}");
        let text = error.to_string();
        assert!(text.contains(name) && text.contains(field), "{text}");
    }
    // A file cut off mid-way is not a recording at all.
    let text = std::fs::read_to_string(&good).unwrap();
    let cut = dir.path().join("cut.rec");
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    let error =
        Recording::read(&cut, &keel_engine::files::ReadLimits::DEFAULT).expect_err("refused");
    assert!(matches!(error, RecordingError::Parse { .. }), "{error}");
}

#[test]
fn the_state_a_keyframe_holds_grows_with_the_scene() {
    let state_bytes = |nodes: usize| {
        let mut scene = Scene::new();
        for i in 0..nodes {
            let at = Transform::from_translation(glam::Vec3::X * i as f32);
            scene.spawn(None, "n", at).unwrap();
        }
        let mut world = World::new(scene);
        world.start_recording(RecordSettings::default());
        world.step();
        world.recorder().unwrap().stats().state_bytes
    };
    let (small, large) = (state_bytes(10), state_bytes(1_010));
    // Per node at least the local, world and previous world transforms.
    let per_node = (large - small) / 1_000;
    let transforms = 2 * size_of::<keel_engine::Affine3x4>() + 40;
    assert!(
        per_node >= transforms,
        "{per_node} bytes a node, under the {transforms} of its transforms"
    );
    assert!(per_node < 4 * transforms, "{per_node} bytes a node");
}

/// A resource holding unordered collections, as a game writes one.
#[derive(Clone, Debug, Default)]
struct Ledger {
    plots: std::collections::HashMap<String, u32>,
    seen: std::collections::HashSet<u64>,
}

/// A world whose system fills a [`Ledger`] (each world's maps get their own
/// random order).
fn ledger_world(bonus: u32) -> World {
    let mut world = World::new(Scene::new());
    world.insert_resource(Ledger::default());
    world
        .systems_mut()
        .add("tend", move |scene, _, step| {
            let ledger = scene.resource_mut::<Ledger>().expect("inserted");
            *ledger
                .plots
                .entry(format!("plot {}", step.index % 40))
                .or_default() += 1 + bonus;
            ledger.seen.insert(step.index * 7919 % 101);
        })
        .expect("a new name");
    world
}

#[test]
fn two_runs_with_hash_maps_in_a_resource_hash_the_same() {
    let (mut a, mut b) = (ledger_world(0), ledger_world(0));
    let mut other = ledger_world(1);
    for step in 0..200 {
        a.step();
        b.step();
        other.step();
        let (ha, hb) = (a.state_hash(), b.state_hash());
        assert_eq!(ha, hb, "step {step}: {:?} differ", ha.differing(&hb));
        if step > 0 {
            assert_eq!(
                ha.differing(&other.state_hash()),
                ["resources"],
                "step {step}: other values differ in the resources' part alone"
            );
        }
    }
    let orders = |w: &World| format!("{:?}", w.scene().resource::<Ledger>().unwrap());
    assert_ne!(
        orders(&a),
        orders(&b),
        "the two maps' orders differ (else this shows nothing)"
    );
}

fn crate_pile() -> World {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes/physics.ron");
    World::new(Scene::load(&path, &keel_engine::Assets::new()).expect("the crate pile loads"))
}

#[test]
fn the_crate_pile_is_knocked_over_and_every_step_of_it_comes_back() {
    use keel_engine::record::{Recording, Verdict};
    const STEPS: u64 = 600;
    let mut world = crate_pile();
    let crates: Vec<_> = world
        .scene()
        .nodes()
        .filter(|&n| {
            world
                .scene()
                .name(n)
                .is_some_and(|s| s.starts_with("crate "))
        })
        .filter(|&n| world.scene().get::<keel_engine::Body>(n).is_some())
        .collect();
    assert_eq!(crates.len(), 30);
    let start: Vec<_> = crates
        .iter()
        .map(|&c| world.scene().world(c).unwrap().translation)
        .collect();
    let mut fresh = vec![world.state_hash()];
    world.start_recording(RecordSettings::default());
    for _ in 0..STEPS {
        world.step();
        fresh.push(world.state_hash());
    }
    let moved = crates
        .iter()
        .zip(&start)
        .filter(|&(&c, &from)| (world.scene().world(c).unwrap().translation - from).length() > 0.3)
        .count();
    assert!(moved >= 6, "the ball knocked {moved} crates out of place");
    for &c in &crates {
        let at = world.scene().world(c).unwrap().translation;
        assert!(
            at.is_finite() && at.y > 0.0,
            "a crate fell through the ground: {at}"
        );
    }
    let physics = world.physics();
    eprintln!("after {STEPS} steps: {physics:?}");
    // Seeks and the recording's own replay give the run back, bit for bit.
    for k in random_steps(20, STEPS + 1, 0xc7a7e) {
        world.seek(k).expect("recorded");
        let got = world.state_hash();
        let want = fresh[k as usize];
        assert_eq!(got, want, "seek to {k}: {:?} differ", got.differing(&want));
    }
    let recording = Recording::record(&mut crate_pile(), Path::new("physics.ron"), b"", STEPS, 1);
    assert_eq!(
        recording.replay(&mut crate_pile()),
        Verdict::Identical {
            steps: STEPS,
            hashes: STEPS as usize
        }
    );
    assert_eq!(
        recording.hashes.last(),
        fresh.last(),
        "the recording is the run"
    );
}
