//! The simulation in a world: falling and resting, the three kinds, write-back
//! under a parent, edits and commands by change, and runs that rewind
//! bit for bit (snapshots, seeks).

use glam::{Quat, Vec3};

use crate::record::{RecordSettings, StateHash};
use crate::rng::SplitMix64;
use crate::scene::body::Body;
use crate::scene::collider::Collider;
use crate::scene::{NodeId, Scene, Transform};
use crate::world::World;

/// A fixed floor, 20 by 20, its top at y = 0.
pub(super) fn floor(scene: &mut Scene) -> NodeId {
    let floor = scene
        .spawn(
            None,
            "floor",
            Transform::from_translation(Vec3::NEG_Y * 0.5),
        )
        .unwrap();
    scene
        .insert(floor, Collider::cuboid(Vec3::new(10.0, 0.5, 10.0)))
        .unwrap();
    scene.insert(floor, Body::fixed()).unwrap();
    floor
}

/// A ball of radius 0.5 at `at` with `body`.
pub(super) fn ball(scene: &mut Scene, at: Vec3, body: Body) -> NodeId {
    let node = scene
        .spawn(None, "ball", Transform::from_translation(at))
        .unwrap();
    scene.insert(node, Collider::ball(0.5)).unwrap();
    scene.insert(node, body).unwrap();
    node
}

fn named(scene: &Scene, name: &str) -> Vec<NodeId> {
    scene
        .nodes()
        .filter(|&n| scene.name(n) == Some(name))
        .collect()
}

fn y(world: &World, node: NodeId) -> f32 {
    world.scene().world(node).unwrap().translation.y
}

#[test]
fn a_ball_falls_as_gravity_says_and_comes_to_rest_on_the_floor() {
    let mut scene = Scene::new();
    floor(&mut scene);
    let ball = ball(&mut scene, Vec3::Y * 10.0, Body::dynamic());
    let mut world = World::new(scene);
    assert_eq!(
        (world.physics().bodies(), world.physics().colliders()),
        (2, 2)
    );
    for _ in 0..30 {
        world.step();
    }
    // Half a second of free fall: 10 - g t^2 / 2 (the integrator's step
    // lands within a few centimetres).
    let fallen = 10.0 - 0.5 * 9.81 * 0.5 * 0.5;
    assert!(
        (y(&world, ball) - fallen).abs() < 0.1,
        "{}",
        y(&world, ball)
    );
    assert!(world.physics().velocity(ball).unwrap().0.y < -4.0);
    for _ in 0..600 {
        world.step();
    }
    assert!(
        (y(&world, ball) - 0.5).abs() < 0.02,
        "rests on the floor: {}",
        y(&world, ball)
    );
    assert_eq!(world.physics().is_sleeping(ball), Some(true), "settled");
    assert_eq!(world.physics().awake(), 0);
    // Asleep, nothing is written or recomputed.
    let before = world.state_hash();
    world.advance(world.clock().step());
    assert_eq!(world.stats().recomputed, 0);
    assert_eq!(world.state_hash().physics, before.physics);
}

#[test]
fn a_kinematic_body_pushes_a_dynamic_one_and_a_fixed_one_holds() {
    let mut scene = Scene::new();
    floor(&mut scene);
    let pusher = ball(&mut scene, Vec3::new(-3.0, 0.5, 0.0), Body::kinematic());
    let pushed = ball(&mut scene, Vec3::new(0.0, 0.5, 0.0), Body::dynamic());
    let wall = ball(&mut scene, Vec3::new(0.0, 0.5, 5.0), Body::fixed());
    let mut world = World::new(scene);
    for step in 0..120 {
        let x = -3.0 + step as f32 * 0.05;
        world
            .scene_mut()
            .set_local(pusher, Transform::from_translation(Vec3::new(x, 0.5, 0.0)))
            .unwrap();
        world.step();
    }
    let pushed_x = world.scene().world(pushed).unwrap().translation.x;
    assert!(pushed_x > 2.0, "pushed along: {pushed_x}");
    let wall_at = world.scene().world(wall).unwrap().translation;
    assert_eq!(
        Vec3::from(wall_at),
        Vec3::new(0.0, 0.5, 5.0),
        "a fixed body never moves"
    );
}

#[test]
fn a_body_under_a_parent_is_written_back_in_its_parents_space() {
    let mut scene = Scene::new();
    floor(&mut scene);
    let raft = scene
        .spawn(
            None,
            "raft",
            Transform::from_translation(Vec3::new(2.0, 1.0, 0.0))
                .with_rotation(Quat::from_rotation_y(1.0))
                .with_scale(Vec3::splat(2.0)),
        )
        .unwrap();
    let crate_ = scene
        .spawn(
            Some(raft),
            "crate",
            Transform::from_translation(Vec3::Y * 2.0),
        )
        .unwrap();
    scene
        .insert(crate_, Collider::cuboid(Vec3::splat(0.25)))
        .unwrap();
    scene.insert(crate_, Body::dynamic()).unwrap();
    let mut world = World::new(scene);
    let start = world.scene().world(crate_).unwrap();
    assert_eq!(Vec3::from(start.translation), Vec3::new(2.0, 5.0, 0.0));
    for _ in 0..300 {
        world.step();
    }
    let end = world.scene().world(crate_).unwrap();
    // Scaled by two, the box's half size is 0.5: it rests with its centre
    // at 0.5, under the raft's x and z, still scaled.
    assert!(
        (Vec3::from(end.translation) - Vec3::new(2.0, 0.5, 0.0)).length() < 0.05,
        "{end:?}"
    );
    let (scale, _, _) = end.to_scale_rotation_translation();
    assert!(
        (scale - Vec3::splat(2.0)).abs().max_element() < 1e-4,
        "{scale}"
    );
    let local = world.scene().local(crate_).unwrap();
    assert!((local.translation.y - (-0.25)).abs() < 0.03, "{local:?}");
}

#[test]
fn game_code_moving_a_dynamic_body_teleports_it() {
    let mut scene = Scene::new();
    floor(&mut scene);
    let ball = ball(&mut scene, Vec3::new(0.0, 0.5, 0.0), Body::dynamic());
    let mut world = World::new(scene);
    for _ in 0..10 {
        world.step();
    }
    world
        .scene_mut()
        .set_local(ball, Transform::from_translation(Vec3::new(4.0, 3.0, 0.0)))
        .unwrap();
    world.step();
    let at = world.scene().world(ball).unwrap().translation;
    assert!(
        (at.x - 4.0).abs() < 1e-4 && at.y > 2.9 && at.y < 3.0,
        "{at}"
    );
}

#[test]
fn edits_of_the_columns_apply_their_difference() {
    let mut scene = Scene::new();
    floor(&mut scene);
    let ball = ball(&mut scene, Vec3::Y * 20.0, Body::dynamic());
    let mut world = World::new(scene);
    world.step();
    // Weightless and thrown sideways: it flies level.
    let thrown = Body {
        gravity_scale: 0.0,
        ..Body::dynamic().with_velocity(Vec3::new(3.0, 0.0, 0.0))
    };
    world.scene_mut().insert(ball, thrown).unwrap();
    let height = y(&world, ball);
    for _ in 0..60 {
        world.step();
    }
    let at = world.scene().world(ball).unwrap().translation;
    assert!(
        (at.y - height).abs() < 0.2 && (at.x - 3.0).abs() < 0.1,
        "{at}"
    );
    // Fixed now: it stays where it is.
    world.scene_mut().insert(ball, Body::fixed()).unwrap();
    world.step();
    let held = world.scene().world(ball).unwrap();
    for _ in 0..10 {
        world.step();
    }
    assert_eq!(world.scene().world(ball), Some(held));
    // Its body taken away, the collider stays, standing alone.
    world.scene_mut().remove::<Body>(ball);
    world.step();
    assert_eq!(
        (world.physics().bodies(), world.physics().colliders()),
        (1, 2)
    );
    world.scene_mut().despawn(ball).unwrap();
    world.step();
    assert_eq!(
        (world.physics().bodies(), world.physics().colliders()),
        (1, 1)
    );
}

#[test]
fn bodies_spawned_and_despawned_by_commands_mid_step_join_and_leave() {
    let mut scene = Scene::new();
    floor(&mut scene);
    let mut world = World::new(scene);
    world
        .systems_mut()
        .add("rain", |scene, commands, step| {
            if step.index % 10 == 0 && step.index < 100 {
                let at = Vec3::new(step.index as f32 * 0.05 - 2.5, 3.0, 0.0);
                commands.spawn_with(None, "drop", Transform::from_translation(at), |s, n| {
                    s.insert(n, Collider::ball(0.25)).unwrap();
                    s.insert(n, Body::dynamic()).unwrap();
                });
            }
            if step.index == 200 {
                let drops: Vec<NodeId> = named(scene, "drop");
                for drop in drops.into_iter().step_by(2) {
                    commands.despawn(drop);
                }
            }
        })
        .unwrap();
    for _ in 0..150 {
        world.step();
    }
    assert_eq!(world.physics().bodies(), 11);
    for _ in 0..100 {
        world.step();
    }
    assert_eq!(world.physics().bodies(), 6);
    let drops: Vec<NodeId> = named(world.scene(), "drop");
    assert_eq!(drops.len(), 5);
    for drop in drops {
        let at = world.scene().world(drop).unwrap().translation;
        assert!(at.y > 0.0 && at.y < 2.0, "piled on the floor: {at}");
    }
}

#[test]
fn bad_bodies_move_nothing_to_nan() {
    let mut scene = Scene::new();
    floor(&mut scene);
    // No collider: no mass and no shape; it floats and meets nothing.
    let ghost = scene
        .spawn(None, "ghost", Transform::from_translation(Vec3::Y))
        .unwrap();
    scene.insert(ghost, Body::dynamic()).unwrap();
    // Scale 0: a point.
    let point = scene
        .spawn(
            None,
            "point",
            Transform::from_translation(Vec3::Y * 2.0).with_scale(Vec3::ZERO),
        )
        .unwrap();
    scene.insert(point, Collider::ball(1.0)).unwrap();
    scene.insert(point, Body::dynamic()).unwrap();
    // Density 0: a dynamic body of no mass.
    let weightless = ball(&mut scene, Vec3::Y * 3.0, Body::dynamic());
    let mut light = Collider::ball(0.5);
    light.density = 0.0;
    scene.insert(weightless, light).unwrap();
    let mut world = World::new(scene);
    for _ in 0..120 {
        world.step();
    }
    for node in [ghost, point, weightless] {
        let w = world.scene().world(node).unwrap();
        assert!(w.is_finite(), "{node}: {w:?}");
    }
    // rapier's gravity is a force, mass times g: what has no mass floats.
    assert!(
        (y(&world, ghost) - 1.0).abs() < 1e-6,
        "floats: {}",
        y(&world, ghost)
    );
}

/// A pile: crates dropped over a floor, a ball rolled into them.
fn pile(seed: u64) -> World {
    let mut rng = SplitMix64::new(seed);
    let mut scene = Scene::new();
    floor(&mut scene);
    for i in 0..40 {
        let at = Vec3::new(
            (i % 4) as f32 * 0.6 - 1.0 + 0.1 * rng.unit(),
            0.3 + (i / 4) as f32 * 0.62,
            rng.unit() * 0.2,
        );
        let node = scene
            .spawn(None, "crate", Transform::from_translation(at))
            .unwrap();
        scene
            .insert(node, Collider::cuboid(Vec3::splat(0.3)))
            .unwrap();
        scene.insert(node, Body::dynamic()).unwrap();
    }
    let rolled = Body::dynamic().with_velocity(Vec3::new(12.0, 0.0, 0.0));
    let b = ball(&mut scene, Vec3::new(-6.0, 0.5, 0.0), rolled);
    let mut c = Collider::ball(0.5);
    c.density = 40.0;
    scene.insert(b, c).unwrap();
    World::new(scene)
}

fn trail(world: &mut World, steps: u64) -> Vec<StateHash> {
    (0..steps)
        .map(|_| {
            world.step();
            world.state_hash()
        })
        .collect()
}

#[test]
fn the_pile_moves_and_its_physics_is_in_the_state_hash() {
    let mut world = pile(1);
    let before = world.state_hash();
    world.step();
    let after = world.state_hash();
    assert_ne!(before.physics, after.physics);
    assert_ne!(before.physics, 0);
    let mut again = pile(1);
    let mut other = pile(2);
    let a = trail(&mut world, 200);
    again.step();
    assert_eq!(a, trail(&mut again, 200), "the same pile runs the same");
    assert_ne!(a.last(), trail(&mut other, 201).last());
    let knocked = named(world.scene(), "crate")
        .into_iter()
        .filter(|&c| world.scene().world(c).unwrap().translation.x > 1.5)
        .count();
    let xs: Vec<f32> = named(world.scene(), "crate")
        .into_iter()
        .map(|c| world.scene().world(c).unwrap().translation.x)
        .collect();
    assert!(knocked > 0, "the ball knocked crates over: {xs:?}");
}

#[test]
fn a_snapshot_restored_steps_on_as_the_run_did() {
    let mut world = pile(3);
    for _ in 0..90 {
        world.step();
    }
    let snapshot = world.snapshot();
    let ahead = trail(&mut world, 150);
    world.restore_snapshot(snapshot);
    assert_eq!(
        trail(&mut world, 150),
        ahead,
        "contacts, warm starts and sleep came back"
    );
}

#[test]
fn seeks_in_a_recording_with_physics_equal_a_fresh_run() {
    const STEPS: u64 = 600;
    let fresh = {
        let mut world = pile(4);
        let mut hashes = vec![world.state_hash()];
        hashes.extend(trail(&mut world, STEPS));
        hashes
    };
    let mut world = pile(4);
    world.start_recording(RecordSettings {
        every: Some(45),
        ..RecordSettings::default()
    });
    for _ in 0..STEPS {
        world.step();
    }
    let mut rng = SplitMix64::new(11);
    for _ in 0..25 {
        let k = rng.below(STEPS + 1);
        world.seek(k).expect("recorded");
        let got = world.state_hash();
        let want = fresh[k as usize];
        assert_eq!(got, want, "seek to {k}: {:?} differ", got.differing(&want));
    }
}

#[test]
fn the_world_steps_its_bodies_as_rapier_alone_does() {
    use rapier3d::prelude as rp;
    let starts: Vec<Vec3> = (0..20)
        .map(|i| Vec3::new((i % 5) as f32 * 0.6, 0.3 + (i / 5) as f32 * 0.7, 0.0))
        .collect();
    let mut scene = Scene::new();
    floor(&mut scene);
    let boxes: Vec<NodeId> = starts
        .iter()
        .map(|&at| {
            let node = scene
                .spawn(None, "box", Transform::from_translation(at))
                .unwrap();
            scene
                .insert(node, Collider::cuboid(Vec3::splat(0.25)))
                .unwrap();
            scene.insert(node, Body::dynamic()).unwrap();
            node
        })
        .collect();
    let mut world = World::new(scene);
    // rapier alone: the same bodies, then the same colliders, in order.
    let mut bodies = rp::RigidBodySet::new();
    let mut colliders = rp::ColliderSet::new();
    let ground = bodies.insert(
        rp::RigidBodyBuilder::fixed().pose(rp::Pose::from_parts(Vec3::NEG_Y * 0.5, Quat::IDENTITY)),
    );
    let handles: Vec<_> = starts
        .iter()
        .map(|&at| {
            bodies.insert(
                rp::RigidBodyBuilder::dynamic().pose(rp::Pose::from_parts(at, Quat::IDENTITY)),
            )
        })
        .collect();
    colliders.insert_with_parent(
        rp::ColliderBuilder::cuboid(10.0, 0.5, 10.0),
        ground,
        &mut bodies,
    );
    for &h in &handles {
        colliders.insert_with_parent(
            rp::ColliderBuilder::cuboid(0.25, 0.25, 0.25),
            h,
            &mut bodies,
        );
    }
    let (mut islands, mut broad, mut narrow) = (
        rp::IslandManager::new(),
        rp::BroadPhaseBvh::new(),
        rp::NarrowPhase::new(),
    );
    let (mut joints, mut multibody, mut soft, mut ccd) = (
        rp::ImpulseJointSet::new(),
        rp::MultibodyJointSet::new(),
        rp::SoftBodySet::new(),
        rp::CCDSolver::new(),
    );
    let mut pipeline = rp::PhysicsPipeline::new();
    let params = rp::IntegrationParameters {
        dt: world.clock().step_seconds(),
        ..Default::default()
    };
    for step in 0..60 {
        world.step();
        pipeline.step(
            crate::physics::GRAVITY,
            &params,
            &mut islands,
            &mut broad,
            &mut narrow,
            &mut bodies,
            &mut colliders,
            &mut joints,
            &mut multibody,
            &mut soft,
            &mut ccd,
            &(),
            &(),
        );
        for (&node, &h) in boxes.iter().zip(&handles) {
            let keel = Vec3::from(world.scene().world(node).unwrap().translation);
            assert_eq!(keel, bodies[h].translation(), "step {step}, {node}");
        }
    }
}
