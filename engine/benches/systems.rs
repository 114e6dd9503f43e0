//! User systems over user components, against the built-in behaviour doing
//! the same work and against a plain vector (the floor).
//!
//! - `step_builtin_spin` / `step_user_spin`: one fixed step of a world whose
//!   1M nodes spin, through the built-in `Spin` or through a user system over
//!   a registered component with the same fields and the same update
//!   (`query_each`); both steps also snapshot and propagate the transforms.
//! - `step_user_spin_no_undo`: the user system's step with the step undo
//!   off (`World::set_step_undo`): what rolling a panicking step back
//!   costs a step that writes every node (its old locals journaled, its
//!   column copied aside).
//! - `step_one_write` / `step_one_write_no_undo`: 1M nodes at rest, a user
//!   system moving one and bumping a resource: what the undo costs a step
//!   that writes little of a large world (the parts it does not write are
//!   not copied).
//! - `parts_mut` / `floor_vec`: a user system's data-only update (health
//!   draining) through `Components::parts_mut`, and the same loop over a plain
//!   `Vec` of the same values: the floor (the bytes it streams are
//!   `size_of::<Health>()` per node, read and written once).

use std::hint::black_box;

use bevy_reflect::Reflect;
use criterion::{Criterion, criterion_group, criterion_main};
use glam::{Quat, Vec3};
use keel_engine::{Component, Scene, Spin, Transform, World};
use serde::{Deserialize, Serialize};

const NODES: usize = 1_000_000;

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, Reflect)]
struct Health {
    hp: f32,
    max: f32,
}

impl Component for Health {
    const NAME: &'static str = "health";
}

/// The built-in spin's fields, as a game would write its own.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, Reflect)]
struct Turn {
    axis: Vec3,
    rate: f32,
}

impl Component for Turn {
    const NAME: &'static str = "turn";
}

fn drain(health: &mut Health, dt: f32) {
    health.hp = (health.hp - dt).clamp(0.0, health.max);
}

fn spinning_world(user: bool) -> World {
    let mut scene = Scene::new();
    for i in 0..NODES {
        let at = Transform::from_translation(Vec3::new(i as f32, 0.0, 0.0));
        let node = scene.spawn(None, "n", at).unwrap();
        let (axis, rate) = (Vec3::Y, 0.5 + (i % 7) as f32 * 0.1);
        if user {
            scene.insert(node, Turn { axis, rate }).unwrap();
        } else {
            scene.insert(node, Spin { axis, rate }).unwrap();
        }
    }
    let mut world = World::new(scene);
    if user {
        world
            .systems_mut()
            .add("turn", |scene, _, ctx| {
                let dt = ctx.dt;
                let _ = scene.query_each::<(&mut Turn,)>(|node, (turn,), transforms| {
                    let Some(mut local) = transforms.local(node) else {
                        return;
                    };
                    let q = Quat::from_axis_angle(turn.axis.normalize_or(Vec3::Y), turn.rate * dt);
                    local.rotation = (q * local.rotation).normalize();
                    let _ = transforms.set_local(node, local);
                });
            })
            .expect("a system of a new name");
    }
    world
}

/// Steps run: a resource of the game's.
#[derive(Clone, Debug, Default)]
struct Ticks(u64);

/// 1M nodes at rest and a user system that moves the first one.
fn resting_world() -> World {
    let mut scene = Scene::new();
    let mut first = None;
    for i in 0..NODES {
        let at = Transform::from_translation(Vec3::new(i as f32, 0.0, 0.0));
        let node = scene.spawn(None, "n", at).unwrap();
        first.get_or_insert(node);
    }
    let first = first.expect("nodes were spawned");
    let mut world = World::new(scene);
    world.insert_resource(Ticks::default());
    world
        .systems_mut()
        .add("nudge", move |scene, _, _| {
            let ticks = scene.resource_mut::<Ticks>().expect("inserted");
            ticks.0 += 1;
            let y = (ticks.0 % 100) as f32;
            let _ = scene.update_local(first, |l| l.translation.y = y);
        })
        .expect("a system of a new name");
    world
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("systems/user_component/1000000");
    group.sample_size(10);
    for (name, user, undo) in [
        ("step_builtin_spin", false, true),
        ("step_user_spin", true, true),
        ("step_user_spin_no_undo", true, false),
    ] {
        let mut world = spinning_world(user);
        world.set_step_undo(undo);
        group.bench_function(name, |b| b.iter(|| world.step()));
    }
    for (name, undo) in [("step_one_write", true), ("step_one_write_no_undo", false)] {
        let mut world = resting_world();
        world.set_step_undo(undo);
        group.bench_function(name, |b| b.iter(|| world.step()));
    }

    let mut scene = Scene::new();
    let mut plain = Vec::with_capacity(NODES);
    for i in 0..NODES {
        let node = scene.spawn(None, "n", Transform::IDENTITY).unwrap();
        let health = Health {
            hp: 1e9 + i as f32,
            max: 2e9,
        };
        scene.insert(node, health).unwrap();
        plain.push(health);
    }
    let dt = 1.0 / 60.0;
    group.bench_function("parts_mut", |b| {
        b.iter(|| {
            let (_, values) = scene.components_mut().parts_mut::<Health>();
            for health in values {
                drain(health, black_box(dt));
            }
        });
    });
    group.bench_function("floor_vec", |b| {
        b.iter(|| {
            for health in &mut plain {
                drain(health, black_box(dt));
            }
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
