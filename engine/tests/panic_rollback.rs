//! A fixed step is all or nothing: a user system that panics leaves the
//! world as it was before that step (its direct writes, its spawns, its
//! events, its resources and its commands undone), and a caller who takes
//! the panic and steps on gets the run that never panicked, step for step.

use bevy_reflect::Reflect;
use keel_engine::glam::{Quat, Vec3};
use keel_engine::{Component, Events, NodeId, Scene, Spin, Transform, World};
use serde::{Deserialize, Serialize};

/// Fruit on a tree, ripening each step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, Reflect)]
struct Fruit {
    ripe: u32,
}

impl Component for Fruit {
    const NAME: &'static str = "fruit";
}

/// Given by the failing system before it panics: a column the step makes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, Reflect)]
struct Bruise {
    depth: f32,
}

impl Component for Bruise {
    const NAME: &'static str = "bruise";
}

/// A fruit picked (an event: sent in one step, read in the next).
#[derive(Clone, Debug, PartialEq)]
struct Picked {
    tree: NodeId,
}

/// The game's count.
#[derive(Clone, Debug, Default, PartialEq)]
struct Orchard {
    started: u32,
    picked: u32,
    in_basket: u32,
    crates: Vec<NodeId>,
}

/// The step at which the last system panics, if any (state in the world:
/// the caller fixes it before stepping on).
#[derive(Clone, Debug, Default, PartialEq)]
struct Fault(Option<u64>);

fn orchard(fault: Option<u64>) -> World {
    let mut scene = Scene::new();
    for i in 0..5 {
        let at = Transform::from_translation(Vec3::X * i as f32);
        let tree = scene.spawn(None, format!("tree{i}"), at).unwrap();
        scene.insert(tree, Fruit { ripe: i }).unwrap();
        let rate = 0.5 + i as f32 * 0.1;
        scene
            .insert(
                tree,
                Spin {
                    axis: Vec3::Y,
                    rate,
                },
            )
            .unwrap();
    }
    let basket = scene.spawn(None, "basket", Transform::IDENTITY).unwrap();
    let emitter = keel_engine::Emitter {
        rate: 600.0,
        seed: 3,
        ..keel_engine::Emitter::default()
    };
    scene.insert(basket, emitter).unwrap();
    let mut world = World::new(scene);
    world.register::<Fruit>().unwrap();
    world.register::<Bruise>().unwrap();
    world.add_event::<Picked>();
    world.insert_resource(Orchard::default());
    world.insert_resource(Fault(fault));
    let systems = world.systems_mut();
    systems
        .add_startup("plant", |scene, commands, _| {
            for i in 0..2 {
                let at = Transform::from_translation(Vec3::Z * i as f32);
                let id = commands.spawn_reserved(scene, None, format!("crate{i}"), at);
                let orchard = scene.resource_mut::<Orchard>().unwrap();
                orchard.crates.push(id);
                orchard.started += 1;
            }
        })
        .unwrap();
    systems
        .add("ripen", |scene, _, ctx| {
            let mut picked = Vec::new();
            let _ = scene.query_each::<(&mut Fruit,)>(|tree, (fruit,), _| {
                fruit.ripe += 1;
                if fruit.ripe.is_multiple_of(3) {
                    picked.push(tree);
                }
            });
            for &tree in &picked {
                scene
                    .resource_mut::<Events<Picked>>()
                    .unwrap()
                    .send(Picked { tree });
                scene.update_local(tree, |l| l.scale *= 1.01).unwrap();
            }
            scene.resource_mut::<Orchard>().unwrap().picked += picked.len() as u32;
            if ctx.index % 4 == 3 {
                // A structural change made directly, not through commands.
                scene.spawn(None, "windfall", Transform::IDENTITY).unwrap();
            }
        })
        .unwrap();
    systems
        .add("basket", |scene, _, _| {
            let heard = scene.resource::<Events<Picked>>().unwrap().read().count();
            scene.resource_mut::<Orchard>().unwrap().in_basket += heard as u32;
        })
        .unwrap();
    systems
        .add("fault", |scene, commands, ctx| {
            if scene.resource::<Fault>().unwrap().0 != Some(ctx.index) {
                return;
            }
            // Everything a system can do before it fails.
            let basket = scene.find("basket").unwrap();
            let turn = Transform {
                rotation: Quat::from_rotation_z(1.0),
                ..Transform::IDENTITY
            };
            scene.set_local(basket, turn).unwrap();
            scene.teleport(basket, turn).unwrap();
            scene.insert(basket, Bruise { depth: 2.0 }).unwrap();
            scene.insert(basket, Fruit { ripe: 99 }).unwrap();
            scene.resource_mut::<Orchard>().unwrap().picked += 1000;
            scene.environment_mut().ambient = Vec3::ONE;
            if ctx.index % 2 == 0 {
                // The structure changed too (odd steps leave it: the
                // writes alone are undone).
                scene.set_name(basket, "dropped basket").unwrap();
                scene.reserve();
            }
            commands.spawn(None, "never", Transform::IDENTITY);
            commands.despawn(basket);
            panic!("the basket tipped over at step {}", ctx.index);
        })
        .unwrap();
    world
}

/// Step hashes of a run that never panicked.
fn fresh_hashes(steps: u64) -> Vec<keel_engine::record::StateHash> {
    let mut world = orchard(None);
    (0..steps)
        .map(|_| {
            world.step();
            world.state_hash()
        })
        .collect()
}

#[test]
fn a_panicking_step_is_undone_and_a_retry_runs_as_a_fresh_run_would() {
    const STEPS: u64 = 12;
    let fresh = fresh_hashes(STEPS);
    let (fresh_slots, fresh_orchard) = {
        let mut world = orchard(None);
        for _ in 0..STEPS {
            world.step();
        }
        let orchard = world.resource::<Orchard>().unwrap().clone();
        (world.scene().slot_count(), orchard)
    };
    assert_eq!(fresh_orchard.started, 2, "startup runs once");
    assert!(fresh_orchard.in_basket > 0, "picked fruit reach the basket");
    for fault in [0, 1, 2, 3, 5, 6, 9] {
        let mut world = orchard(Some(fault));
        for _ in 0..fault {
            world.step();
        }
        let before = world.state_hash();
        let (nodes, slots) = (world.scene().len(), world.scene().slot_count());
        world.step();
        let panic = world.system_panic().expect("the fault system panicked");
        assert_eq!((panic.system.as_str(), panic.step), ("fault", fault));
        let after = world.state_hash();
        assert_eq!(
            after.differing(&before),
            Vec::<&str>::new(),
            "a panic at step {fault} leaves the world as the step found it"
        );
        assert_eq!(
            (world.scene().len(), world.scene().slot_count()),
            (nodes, slots)
        );
        assert!(world.scene().find("dropped basket").is_none());
        assert_eq!(
            world.scene().environment().ambient,
            Scene::new().environment().ambient
        );
        // Fixed, the panic taken: the run goes on as if it never failed.
        world.resource_mut::<Fault>().unwrap().0 = None;
        world.take_system_panic().unwrap();
        for step in fault..STEPS {
            world.step();
            assert!(world.system_panic().is_none());
            assert_eq!(
                world.state_hash().differing(&fresh[step as usize]),
                Vec::<&str>::new(),
                "step {step} after a panic at step {fault}"
            );
        }
        assert_eq!(world.scene().slot_count(), fresh_slots, "no slot leaked");
        assert_eq!(world.resource::<Orchard>().unwrap(), &fresh_orchard);
    }
}

#[test]
fn a_panic_leaves_the_input_and_the_particles_as_the_step_found_them() {
    let mut world = orchard(Some(3));
    for _ in 0..3 {
        world.step();
    }
    let input = world.input();
    let particles = world.particles().stats();
    assert!(particles.alive > 0, "the basket's emitter runs");
    world.step();
    assert!(world.system_panic().is_some());
    assert_eq!(world.input(), input);
    assert_eq!(world.particles().stats(), particles, "no particle stepped");
    // Frames after the panic draw the world as it stands: no step runs.
    let before = world.state_hash();
    world.advance(std::time::Duration::from_millis(100));
    assert_eq!(world.state_hash(), before);
}

#[test]
fn a_world_of_built_in_behaviours_steps_as_before() {
    // No user system: nothing can panic, the steps are as they always were.
    let mut scene = Scene::new();
    let node = scene.spawn(None, "top", Transform::IDENTITY).unwrap();
    scene
        .insert(
            node,
            Spin {
                axis: Vec3::Y,
                rate: 1.0,
            },
        )
        .unwrap();
    let mut world = World::new(scene);
    for _ in 0..10 {
        world.step();
    }
    assert!(world.scene().local(node).unwrap().rotation != Quat::IDENTITY);
    assert_eq!(world.systems().steps(), 10);
}
