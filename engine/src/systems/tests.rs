//! The systems in order and alone: built-ins, user systems, run
//! conditions, panics, startup, and the fixed-step accumulator.

use glam::{Quat, Vec3};

use super::*;
use crate::scene::{Orbit, Oscillate, Spin, Transform};
use crate::time::Clock;
use std::time::Duration;

fn animated_scene() -> Scene {
    let mut scene = Scene::new();
    let ship = scene.spawn(None, "ship", Transform::IDENTITY).unwrap();
    scene
        .insert(ship, Oscillate::new(Vec3::Z, 0.1, 0.3, 0.5).rocking())
        .unwrap();
    let mast = scene
        .spawn(
            Some(ship),
            "mast",
            Transform::from_translation(Vec3::Y * 2.0),
        )
        .unwrap();
    scene
        .insert(
            mast,
            Spin {
                axis: Vec3::Y,
                rate: 0.7,
            },
        )
        .unwrap();
    for i in 0..20 {
        let boat = scene
            .spawn(None, format!("boat{i}"), Transform::IDENTITY)
            .unwrap();
        let orbit = Orbit {
            center: Vec3::ZERO,
            radius: 5.0 + i as f32,
            rate: 0.2 + 0.01 * i as f32,
            angle: i as f32,
            face_forward: true,
        };
        scene.insert(boat, orbit).unwrap();
        let flag = scene
            .spawn(Some(boat), "flag", Transform::from_translation(Vec3::Y))
            .unwrap();
        scene
            .insert(flag, Oscillate::new(Vec3::X, 0.2, 1.3, i as f32))
            .unwrap();
    }
    scene.propagate();
    scene
}

/// Bits of every world transform, in node order.
fn state_bits(scene: &Scene) -> Vec<u32> {
    scene
        .nodes()
        .flat_map(|n| scene.world(n).unwrap().to_cols_array())
        .map(f32::to_bits)
        .collect()
}

/// Runs frames of the given lengths until exactly `steps` fixed steps have run.
fn run_until(steps: u64, mut frame_time: impl FnMut() -> Duration) -> Vec<u32> {
    let mut scene = animated_scene();
    let mut systems = Systems::new();
    let mut clock = Clock::default().with_max_steps(1_000);
    let dt = clock.step_seconds();
    while systems.steps() < steps {
        let tick = clock.advance(frame_time());
        for _ in 0..tick.steps {
            if systems.steps() == steps {
                break;
            }
            systems.run_step(&mut scene, Space::EMPTY, Bodies::EMPTY, dt);
        }
    }
    state_bits(&scene)
}

#[test]
fn fixed_step_is_deterministic_whatever_the_frame_rate() {
    let steady = run_until(600, || Duration::from_secs_f64(1.0 / 240.0));
    let mut seed = 0x9e37_79b9_u32;
    let jittery = run_until(600, || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        // 15 Hz to 50 Hz.
        let hz = 15.0 + f64::from(seed % 3_500) / 100.0;
        Duration::from_secs_f64(1.0 / hz)
    });
    assert_eq!(steady.len(), jittery.len());
    let differing = steady.iter().zip(&jittery).filter(|(a, b)| a != b).count();
    assert_eq!(
        differing, 0,
        "{differing} floats differ between 240 Hz and 15-50 Hz runs"
    );
    let start = state_bits(&animated_scene());
    assert_ne!(steady, start, "the scene must actually have moved");
}

#[test]
fn spawns_and_despawns_during_a_step_are_deferred() {
    let mut scene = Scene::new();
    let mut spinners = Vec::new();
    for i in 0..6 {
        let node = scene
            .spawn(None, format!("n{i}"), Transform::IDENTITY)
            .unwrap();
        scene
            .insert(
                node,
                Spin {
                    axis: Vec3::Y,
                    rate: 1.0,
                },
            )
            .unwrap();
        spinners.push(node);
    }
    let doomed = spinners[2];
    let mut systems = Systems::new();
    let added = systems.add("churn", move |scene, commands, _| {
        for node in scene.nodes().collect::<Vec<_>>() {
            commands.spawn_with(None, "child", Transform::IDENTITY, |scene, id| {
                scene
                    .insert(
                        id,
                        Spin {
                            axis: Vec3::Y,
                            rate: 1.0,
                        },
                    )
                    .unwrap();
            });
            if node == doomed {
                commands.despawn(node);
            }
        }
        assert_eq!(scene.len(), 6, "nothing changes shape while systems run");
    });
    assert!(added.is_ok(), "a new name");
    systems.run_step(&mut scene, Space::EMPTY, Bodies::EMPTY, 0.5);
    assert_eq!(systems.panic(), None, "the system's own checks hold");
    let applied = systems.last_applied();
    assert_eq!(
        (applied.spawned, applied.despawned, applied.skipped),
        (6, 1, 0)
    );
    assert!(!scene.contains(doomed));
    let expected = Quat::from_rotation_y(0.5);
    for &node in spinners.iter().filter(|&&n| n != doomed) {
        let rotation = scene.local(node).unwrap().rotation;
        assert!(
            rotation.angle_between(expected) < 1e-5,
            "{node} spun exactly once"
        );
    }
    let fresh: Vec<NodeId> = scene
        .nodes()
        .filter(|&n| scene.name(n) == Some("child"))
        .collect();
    assert_eq!(fresh.len(), 6);
    for node in fresh {
        assert_eq!(
            scene.local(node).unwrap().rotation,
            Quat::IDENTITY,
            "{node} spawned, not yet updated"
        );
    }
}

#[test]
fn orbit_keeps_its_radius_and_faces_its_travel() {
    let mut scene = Scene::new();
    let boat = scene.spawn(None, "boat", Transform::IDENTITY).unwrap();
    let orbit = Orbit {
        center: Vec3::new(1.0, 0.0, 2.0),
        radius: 3.0,
        rate: 1.0,
        angle: 0.0,
        face_forward: true,
    };
    scene.insert(boat, orbit).unwrap();
    let mut systems = Systems::new();
    let mut last = None;
    for _ in 0..10 {
        systems.run_step(&mut scene, Space::EMPTY, Bodies::EMPTY, 0.1);
        let t = scene.local(boat).unwrap();
        assert!((t.translation.distance(orbit.center) - 3.0).abs() < 1e-4);
        if let Some(prev) = last {
            let travel: Vec3 = t.translation - prev;
            let forward = t.rotation * Vec3::NEG_Z;
            assert!(
                travel.normalize().dot(forward) > 0.99,
                "facing {forward}, moving {travel}"
            );
        }
        last = Some(t.translation);
    }
}

#[test]
fn oscillation_starts_at_rest_and_returns_there() {
    let mut scene = Scene::new();
    let node = scene
        .spawn(None, "buoy", Transform::from_translation(Vec3::Y))
        .unwrap();
    scene
        .insert(node, Oscillate::new(Vec3::Y, 0.5, 1.0, 0.7))
        .unwrap();
    let mut systems = Systems::new();
    systems.run_step(&mut scene, Space::EMPTY, Bodies::EMPTY, 0.01);
    let first = scene.local(node).unwrap().translation.y;
    // A start from the phase itself would jump by 0.5 * sin(0.7) = 0.32 at once.
    assert!(
        (first - 1.0).abs() < 0.03,
        "first step moved to y = {first}"
    );
    for _ in 0..99 {
        systems.run_step(&mut scene, Space::EMPTY, Bodies::EMPTY, 0.01);
    }
    let y = scene.local(node).unwrap().translation.y;
    assert!((y - 1.0).abs() < 1e-3, "after one period y = {y}");
}

#[test]
fn a_replaced_system_keeps_its_place_and_runs_its_new_body() {
    let mut scene = Scene::new();
    let node = scene.spawn(None, "n", Transform::IDENTITY).unwrap();
    let mut systems = Systems::new();
    let push = |by: f32| {
        move |scene: &mut Scene, _: &mut Commands, _: &StepContext| {
            let node = scene.nodes().next().unwrap();
            let mut local = scene.local(node).unwrap();
            local.translation.x = local.translation.x * 10.0 + by;
            scene.set_local(node, local).unwrap();
        }
    };
    systems.add("first", push(1.0)).unwrap();
    systems.add("second", push(2.0)).unwrap();
    systems.replace("first", push(3.0)).unwrap();
    systems.run_step(&mut scene, Space::EMPTY, Bodies::EMPTY, 0.01);
    // "first" still runs before "second": (0 * 10 + 3) * 10 + 2.
    assert_eq!(scene.local(node).unwrap().translation.x, 32.0);
    assert_eq!(
        systems.replace("missing", push(0.0)),
        Err(SystemError::NoSuchSystem {
            name: "missing".to_owned()
        })
    );
    let built_in = BUILT_IN_SYSTEMS[0];
    assert!(systems.replace(built_in, push(0.0)).is_err());
}
