//! The game's side of the simulation: touches as events, pushes queued by
//! systems, joints named by reference, the character's sweep, and all of
//! them coming back the same on a seek.

use glam::{Vec2, Vec3};

use super::Collision;
use super::body_tests::{ball, floor};
use crate::record::{RecordSettings, StateHash};
use crate::scene::body::Body;
use crate::scene::collider::Collider;
use crate::scene::joint::{Joint, JointKind};
use crate::scene::node_ref::NodeRef;
use crate::scene::{Character, NodeId, Scene, Transform};
use crate::systems::Events;
use crate::world::World;

fn at(world: &World, node: NodeId) -> Vec3 {
    world.scene().world(node).unwrap().translation.into()
}

/// Steps `steps` times, keeping every collision each step sent.
fn collisions(world: &mut World, steps: usize) -> Vec<(u64, Collision)> {
    let mut seen = Vec::new();
    for _ in 0..steps {
        world.step();
        let step = world.systems().steps();
        let events = world.resource::<Events<Collision>>().unwrap();
        seen.extend(events.sent().iter().map(|&c| (step, c)));
    }
    seen
}

#[test]
fn touches_start_and_stop_as_events_and_a_sensor_sees_visitors_in_and_out() {
    let mut scene = Scene::new();
    let floor = floor(&mut scene);
    let ball = ball(&mut scene, Vec3::new(0.0, 1.0, 0.0), Body::dynamic());
    // A sensor the second ball falls through on its way down.
    let gate = scene
        .spawn(
            None,
            "gate",
            Transform::from_translation(Vec3::new(5.0, 3.0, 0.0)),
        )
        .unwrap();
    scene
        .insert(gate, Collider::cuboid(Vec3::new(1.0, 0.2, 1.0)).sensor())
        .unwrap();
    let diver = self::ball(&mut scene, Vec3::new(5.0, 5.0, 0.0), Body::dynamic());
    let mut world = World::new(scene);
    world.add_event::<Collision>();
    let seen = collisions(&mut world, 120);
    let kinds: Vec<Collision> = seen.iter().map(|&(_, c)| c).collect();
    let landed = |c: &Collision, who| {
        matches!(c, Collision::Started { .. }) && c.involves(who) && c.involves(floor)
    };
    assert_eq!(
        kinds.iter().filter(|c| landed(c, ball)).count(),
        1,
        "{kinds:?}"
    );
    assert_eq!(
        kinds.iter().filter(|c| landed(c, diver)).count(),
        1,
        "{kinds:?}"
    );
    let entered = kinds
        .iter()
        .position(|c| {
            *c == Collision::Entered {
                sensor: gate,
                other: diver,
            }
        })
        .expect("the diver passed into the gate");
    let left = kinds
        .iter()
        .position(|c| {
            *c == Collision::Left {
                sensor: gate,
                other: diver,
            }
        })
        .expect("and out of it");
    assert!(entered < left);
    assert!(
        !kinds.iter().any(|c| c.involves(gate) && c.involves(floor)),
        "a sensor and a fixed floor never meet"
    );
    // Despawning a resting ball says it stopped touching, naming it.
    world.scene_mut().despawn(ball).unwrap();
    world.scene_mut().propagate();
    let after = collisions(&mut world, 2);
    assert!(
        after
            .iter()
            .any(|(_, c)| matches!(c, Collision::Stopped { .. })
                && c.involves(ball)
                && c.other(ball) == Some(floor)),
        "{after:?}"
    );
}

#[test]
fn a_world_that_asks_for_no_collisions_is_sent_none_and_steps_the_same() {
    let make = |events: bool| {
        let mut scene = Scene::new();
        floor(&mut scene);
        ball(&mut scene, Vec3::Y, Body::dynamic());
        let mut world = World::new(scene);
        if events {
            world.add_event::<Collision>();
        }
        world
    };
    let (mut quiet, mut told) = (make(false), make(true));
    for _ in 0..90 {
        quiet.step();
        told.step();
    }
    assert!(quiet.resource::<Events<Collision>>().is_none());
    assert_eq!(quiet.state_hash().physics, told.state_hash().physics);
}

/// A world with `body` on a weightless ball (gravity scale 0) and a system
/// that pushes it with `push` in step `when` only.
fn pushed(push: fn(&mut crate::Commands, NodeId), when: u64) -> (World, NodeId) {
    let mut scene = Scene::new();
    let mut body = Body::dynamic();
    body.gravity_scale = 0.0;
    let node = ball(&mut scene, Vec3::ZERO, body);
    let mut world = World::new(scene);
    world
        .systems_mut()
        .add("push", move |_, commands, step| {
            if step.index == when {
                push(commands, node);
            }
        })
        .unwrap();
    (world, node)
}

#[test]
fn pushes_change_velocity_by_impulse_over_mass_and_forces_last_one_step() {
    let (mut world, node) = pushed(
        |c, n| {
            c.body(n).impulse(Vec3::X * 2.0);
        },
        1,
    );
    world.step();
    let mass = world.physics().mass(node).unwrap();
    assert!(
        (mass - 1.0 * 4.0 / 3.0 * std::f32::consts::PI * 0.125).abs() < 1e-3,
        "{mass}"
    );
    assert_eq!(world.physics().velocity(node).unwrap().0, Vec3::ZERO);
    world.step();
    let v = world.physics().velocity(node).unwrap().0;
    assert!((v.x - 2.0 / mass).abs() < 1e-4, "{v}");

    let (mut world, node) = pushed(
        |c, n| {
            c.body(n).force(Vec3::Y * 10.0);
        },
        0,
    );
    let dt = world.clock().step_seconds();
    world.step();
    let mass = world.physics().mass(node).unwrap();
    let v = world.physics().velocity(node).unwrap().0;
    assert!(
        (v.y - 10.0 / mass * dt).abs() < 1e-4,
        "one step of force: {v}"
    );
    world.step();
    assert_eq!(world.physics().velocity(node).unwrap().0, v, "and no more");

    let (mut world, node) = pushed(
        |c, n| {
            c.body(n).velocity(Vec3::Z * 3.0).angular_velocity(Vec3::Y);
        },
        0,
    );
    world.step();
    let (v, w) = world.physics().velocity(node).unwrap();
    assert_eq!(v, Vec3::Z * 3.0);
    assert!((w - Vec3::Y).length() < 1e-5, "{w}");
}

#[test]
fn pushes_to_no_body_or_of_nan_move_nothing() {
    let (mut world, node) = pushed(
        |c, n| {
            c.body(n)
                .impulse(Vec3::NAN)
                .velocity(Vec3::splat(f32::INFINITY));
        },
        0,
    );
    world.step();
    world.step();
    assert_eq!(world.physics().velocity(node).unwrap().0, Vec3::ZERO);
    assert!(at(&world, node).is_finite());
    // A node with no body, and one that is gone.
    let (mut world, _) = pushed(
        |c, _| {
            let nobody = NodeId::new(77, std::num::NonZeroU32::MIN);
            c.body(nobody).impulse(Vec3::X);
        },
        0,
    );
    world.step();
    assert_eq!(world.physics().awake(), 1);
}

#[test]
fn systems_read_velocities_from_the_step_context() {
    let mut scene = Scene::new();
    let node = ball(&mut scene, Vec3::Y * 5.0, Body::dynamic());
    let mut world = World::new(scene);
    world.add_event::<f32>();
    world
        .systems_mut()
        .add("watch", move |scene, _, step| {
            let v = step.bodies.velocity(node).expect("a body");
            scene.send_event(v.y);
        })
        .unwrap();
    for _ in 0..3 {
        world.step();
    }
    let read = *world
        .resource::<Events<f32>>()
        .unwrap()
        .sent()
        .last()
        .unwrap();
    // The third step read the velocity the second left.
    let dt = world.clock().step_seconds();
    assert!((read + 9.81 * 2.0 * dt).abs() < 1e-3, "{read}");
}

/// A dynamic bob on a joint of `kind` to the world at its anchor, or to a
/// fixed post when `post`.
fn hung(kind: JointKind, anchor: Vec3, post: bool) -> (World, NodeId, Option<NodeId>) {
    let mut scene = Scene::new();
    let bob = ball(&mut scene, Vec3::new(2.0, 5.0, 0.0), Body::dynamic());
    let post = post.then(|| {
        let post = scene
            .spawn(
                None,
                "post",
                Transform::from_translation(Vec3::new(0.0, 5.0, 0.0)),
            )
            .unwrap();
        scene.insert(post, Collider::ball(0.1)).unwrap();
        scene.insert(post, Body::fixed()).unwrap();
        post
    });
    let other = post.map_or(NodeRef::NONE, NodeRef::to);
    scene
        .insert(bob, Joint::new(kind, other).at(anchor).about(Vec3::Z))
        .unwrap();
    (World::new(scene), bob, post)
}

#[test]
fn a_pendulum_on_a_hinge_swings_at_its_length_and_a_weld_holds() {
    // Hinged 2 m to the bob's left, on the post: it swings down, keeping to 2 m.
    let (mut world, bob, _) = hung(JointKind::Revolute, Vec3::new(-2.0, 0.0, 0.0), true);
    assert_eq!(world.physics().joints(), 1);
    let pivot = Vec3::new(0.0, 5.0, 0.0);
    let mut lowest = f32::MAX;
    for _ in 0..120 {
        world.step();
        let p = at(&world, bob);
        assert!(
            ((p - pivot).length() - 2.0).abs() < 0.02,
            "off the circle: {p}"
        );
        assert!(p.z.abs() < 1e-3, "the hinge turns about Z only: {p}");
        lowest = lowest.min(p.y);
    }
    assert!(lowest < 3.1, "it swung down through the bottom: {lowest}");
    // Welded to the world where it stands: it stays.
    let (mut world, bob, _) = hung(JointKind::Fixed, Vec3::ZERO, false);
    for _ in 0..120 {
        world.step();
    }
    assert!((at(&world, bob) - Vec3::new(2.0, 5.0, 0.0)).length() < 0.01);
    // On a slide along Z limited to 0: gravity cannot move it along Y either.
    let (mut world, bob, _) = hung(JointKind::Spherical, Vec3::ZERO, false);
    for _ in 0..60 {
        world.step();
    }
    assert!(
        (at(&world, bob) - Vec3::new(2.0, 5.0, 0.0)).length() < 0.01,
        "a ball joint at its centre holds it up"
    );
}

#[test]
fn a_slide_keeps_to_its_limits() {
    let mut scene = Scene::new();
    let bob = ball(&mut scene, Vec3::new(0.0, 5.0, 0.0), Body::dynamic());
    let mut slide = Joint::new(JointKind::Prismatic, NodeRef::NONE).about(Vec3::Y);
    slide.limited = true;
    slide.limits = Vec2::new(-1.0, 0.0);
    scene.insert(bob, slide).unwrap();
    let mut world = World::new(scene);
    for _ in 0..120 {
        world.step();
    }
    let p = at(&world, bob);
    assert!(
        (p.y - 4.0).abs() < 0.02 && p.x.abs() < 1e-3,
        "fell a metre along the slide and stopped: {p}"
    );
}

#[test]
fn a_joint_whose_other_is_gone_or_has_no_body_is_not_made_and_edits_remake_it() {
    let (mut world, bob, post) = hung(JointKind::Revolute, Vec3::new(-2.0, 0.0, 0.0), true);
    let post = post.unwrap();
    world.step();
    assert_eq!(world.physics().joints(), 1);
    // The post loses its body: no joint, the bob falls free.
    world.scene_mut().remove::<Body>(post);
    world.step();
    assert_eq!(world.physics().joints(), 0);
    world.scene_mut().insert(post, Body::fixed()).unwrap();
    world.step();
    assert_eq!(world.physics().joints(), 1, "made again");
    // Edited: remade once, to the world now.
    let mut joint = world.scene().get::<Joint>(bob).unwrap().clone();
    joint.other = NodeRef::NONE;
    world.scene_mut().insert(bob, joint).unwrap();
    world.step();
    assert_eq!(world.physics().joints(), 1);
    assert_eq!(
        world.physics().bodies(),
        3,
        "bob, post and the world's anchor"
    );
    world.scene_mut().remove::<Joint>(bob);
    world.step();
    assert_eq!((world.physics().joints(), world.physics().bodies()), (0, 2));
    // A joint naming a despawned node.
    let (mut world, bob, post) = hung(JointKind::Fixed, Vec3::ZERO, true);
    world.scene_mut().despawn(post.unwrap()).unwrap();
    for _ in 0..30 {
        world.step();
    }
    assert_eq!(world.physics().joints(), 0);
    assert!(at(&world, bob).y < 5.0, "falls free");
}

/// A floor, a wall at x = 3 and a step 0.2 m high from z = 2 on; a
/// capsule character at the origin standing on the floor.
fn walk() -> (World, NodeId) {
    let mut scene = Scene::new();
    floor(&mut scene);
    for (name, centre, half) in [
        ("wall", Vec3::new(3.5, 1.0, 0.0), Vec3::new(0.5, 1.0, 10.0)),
        ("step", Vec3::new(0.0, 0.1, 4.0), Vec3::new(3.0, 0.1, 2.0)),
    ] {
        let node = scene
            .spawn(None, name, Transform::from_translation(centre))
            .unwrap();
        scene.insert(node, Collider::cuboid(half)).unwrap();
        scene.insert(node, Body::fixed()).unwrap();
    }
    let hero = scene
        .spawn(
            None,
            "hero",
            Transform::from_translation(Vec3::new(0.0, 0.92, 0.0)),
        )
        .unwrap();
    let capsule = Collider::new(crate::scene::collider::ColliderShape::Capsule {
        half_height: 0.5,
        radius: 0.4,
    });
    scene.insert(hero, capsule).unwrap();
    scene.insert(hero, Body::kinematic()).unwrap();
    scene.insert(hero, Character::default()).unwrap();
    let mut world = World::new(scene);
    world.step();
    (world, hero)
}

/// Walks `hero` by `wished` a step for `steps` steps; the last move.
fn stroll(world: &mut World, hero: NodeId, wished: Vec3, steps: usize) -> super::CharacterMove {
    let mut last = None;
    for _ in 0..steps {
        let moved = super::Bodies::of(world.physics())
            .move_character(world.scene(), hero, wished)
            .expect("a character in the simulation");
        let to = at(world, hero) + moved.translation;
        world
            .scene_mut()
            .set_local(hero, Transform::from_translation(to))
            .unwrap();
        world.step();
        last = Some(moved);
    }
    last.unwrap()
}

#[test]
fn a_character_stops_at_a_wall_climbs_a_low_step_and_keeps_to_the_ground() {
    let (mut world, hero) = walk();
    let moved = stroll(&mut world, hero, Vec3::X * 0.05, 100);
    let p = at(&world, hero);
    assert!(
        p.x < 2.6 && p.x > 2.4,
        "stopped at the wall, a radius short: {p}"
    );
    assert!(moved.grounded, "on the floor");
    assert!((p.y - 0.92).abs() < 0.05, "neither sank nor rose: {p}");
    // Along the wall and up the step: slid, climbed.
    let moved = stroll(&mut world, hero, Vec3::new(0.05, 0.0, 0.05), 100);
    let p = at(&world, hero);
    assert!(p.z > 4.0, "went on along the wall: {p}");
    assert!((p.y - 1.12).abs() < 0.06, "stands on the step: {p}");
    assert!(moved.grounded);
}

#[test]
fn joints_pushes_and_touches_come_back_the_same_on_every_seek() {
    const STEPS: u64 = 300;
    let make = || {
        let (mut world, bob, _) = hung(JointKind::Revolute, Vec3::new(-2.0, 0.0, 0.0), true);
        // A block under the swing, for the bob to strike.
        let scene = world.scene_mut();
        let block = scene
            .spawn(
                None,
                "block",
                Transform::from_translation(Vec3::new(0.0, 2.8, 0.0)),
            )
            .unwrap();
        scene
            .insert(block, Collider::cuboid(Vec3::new(0.5, 0.3, 0.5)))
            .unwrap();
        scene.insert(block, Body::fixed()).unwrap();
        scene.propagate();
        world.add_event::<Collision>();
        world
            .systems_mut()
            .add("kick", move |scene, commands, step| {
                if step.index % 50 == 7 {
                    commands
                        .body(bob)
                        .impulse(Vec3::new(0.0, 0.0, 0.5))
                        .torque(Vec3::Y);
                }
                let hits = scene.events::<Collision>().read().count();
                if hits > 0 {
                    commands.body(bob).impulse(Vec3::Y * hits as f32);
                }
            })
            .unwrap();
        world
    };
    let fresh: Vec<StateHash> = {
        let mut world = make();
        let mut hashes = vec![world.state_hash()];
        let mut strikes = 0;
        for _ in 0..STEPS {
            world.step();
            hashes.push(world.state_hash());
            strikes += world.resource::<Events<Collision>>().unwrap().sent().len();
        }
        assert!(strikes > 0, "the bob struck the block");
        hashes
    };
    let mut world = make();
    world.start_recording(RecordSettings {
        every: Some(40),
        ..RecordSettings::default()
    });
    for _ in 0..STEPS {
        world.step();
    }
    let mut rng = crate::rng::SplitMix64::new(5);
    for _ in 0..20 {
        let k = rng.below(STEPS + 1);
        world.seek(k).expect("recorded");
        let got = world.state_hash();
        assert_eq!(
            got,
            fresh[k as usize],
            "seek to {k}: {:?}",
            got.differing(&fresh[k as usize])
        );
    }
}
