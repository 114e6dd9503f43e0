//! What a game's systems do every step, against the hand-written loop a
//! programmer would write over the same storage.
//!
//! - `query3/1000000`: `Scene::query_each::<(&mut Health, &Armor,
//!   Option<&Wind>)>` over 1M nodes (every node has a health, every other
//!   one armor, every third wind), against `hand_loop`: the same walk
//!   written out over the same layout (packed values, owners, a slot
//!   lookup per component), driven by the smaller required column as the
//!   query is. Both are checked to leave the same healths.
//! - `events/1000000`: one fixed step in which a system sends 1M events
//!   and another reads the 1M sent the step before (`Events`), against
//!   `floor_vec`: pushing 1M values into a reused `Vec` and summing the
//!   1M of the other buffer (the bytes the events move:
//!   `2 * size_of::<u32>()` per event).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use keel_engine::{Events, NodeId, Scene, Transform, World, component};

const NODES: usize = 1_000_000;

#[component(name = "health")]
#[derive(Default, Copy)]
struct Health {
    hp: f32,
}

#[component(name = "armor")]
#[derive(Default, Copy)]
struct Armor {
    block: f32,
}

#[component(name = "wind")]
#[derive(Default, Copy)]
struct Wind {
    gust: f32,
}

fn update(health: &mut Health, armor: &Armor, wind: Option<&Wind>) {
    health.hp -= (1.0 - armor.block) * (1.0 + wind.map_or(0.0, |w| w.gust)) * 1e-3;
}

fn crowd() -> Scene {
    let mut scene = Scene::new();
    for i in 0..NODES {
        let node = scene.spawn(None, "n", Transform::IDENTITY).unwrap();
        scene.insert(node, Health { hp: 100.0 }).unwrap();
        if i % 2 == 0 {
            scene
                .insert(
                    node,
                    Armor {
                        block: (i % 5) as f32 * 0.1,
                    },
                )
                .unwrap();
        }
        if i % 3 == 0 {
            scene
                .insert(
                    node,
                    Wind {
                        gust: (i % 7) as f32 * 0.1,
                    },
                )
                .unwrap();
        }
    }
    scene
}

/// A component's storage as a game would hold it by hand: packed values,
/// their owners, and each slot's position (`u32::MAX`: none).
struct Packed<T> {
    owners: Vec<NodeId>,
    values: Vec<T>,
    lookup: Vec<u32>,
}

impl<T: Copy> Packed<T> {
    fn of(owners: &[NodeId], values: &[T]) -> Self {
        let slots = owners
            .iter()
            .map(|n| n.index() as usize + 1)
            .max()
            .unwrap_or(0);
        let mut lookup = vec![u32::MAX; slots];
        for (i, n) in owners.iter().enumerate() {
            lookup[n.index() as usize] = i as u32;
        }
        Packed {
            owners: owners.to_vec(),
            values: values.to_vec(),
            lookup,
        }
    }

    #[inline]
    fn at(&self, node: NodeId) -> Option<usize> {
        let at = *self.lookup.get(node.index() as usize)? as usize;
        (at != u32::MAX as usize && self.owners[at] == node).then_some(at)
    }
}

fn hand_loop(health: &mut Packed<Health>, armor: &Packed<Armor>, wind: &Packed<Wind>) {
    for (&node, armor) in armor.owners.iter().zip(&armor.values) {
        let Some(h) = health.at(node) else {
            continue;
        };
        let wind = wind.at(node).map(|w| &wind.values[w]);
        update(&mut health.values[h], armor, wind);
    }
}

fn bench_query(c: &mut Criterion) {
    let mut scene = crowd();
    let (h_owners, h_values) = scene.components().parts::<Health>();
    let mut health = Packed::of(h_owners, h_values);
    let (a_owners, a_values) = scene.components().parts::<Armor>();
    let armor = Packed::of(a_owners, a_values);
    let (w_owners, w_values) = scene.components().parts::<Wind>();
    let wind = Packed::of(w_owners, w_values);
    // Checked: one pass each leaves the same healths.
    scene
        .query_each::<(&mut Health, &Armor, Option<&Wind>)>(|_, (h, a, w), _| update(h, a, w))
        .unwrap();
    hand_loop(&mut health, &armor, &wind);
    let (owners, values) = scene.components().parts::<Health>();
    for (node, value) in owners.iter().zip(values) {
        let by_hand = health.values[health.at(*node).unwrap()].hp;
        assert_eq!(
            value.hp, by_hand,
            "{node}: the query and the hand loop agree"
        );
    }
    let mut group = c.benchmark_group("game_api/query3/1000000");
    group.sample_size(20);
    group.bench_function("query_each", |b| {
        b.iter(|| {
            scene
                .query_each::<(&mut Health, &Armor, Option<&Wind>)>(|_, (h, a, w), _| {
                    update(h, a, w)
                })
                .unwrap()
        })
    });
    group.bench_function("hand_loop", |b| {
        b.iter(|| hand_loop(black_box(&mut health), &armor, &wind))
    });
    group.finish();
}

fn bench_events(c: &mut Criterion) {
    let mut world = World::new(Scene::new());
    world.add_event::<u32>();
    world.insert_resource(0u64);
    world
        .systems_mut()
        .add("send", |scene, _, _| {
            let events = scene.resource_mut::<Events<u32>>().unwrap();
            for i in 0..NODES as u32 {
                events.send(i);
            }
        })
        .unwrap();
    world
        .systems_mut()
        .add("read", |scene, _, _| {
            let sum: u64 = scene
                .resource::<Events<u32>>()
                .unwrap()
                .read()
                .map(|&e| u64::from(e))
                .sum();
            *scene.resource_mut::<u64>().unwrap() += sum;
        })
        .unwrap();
    world.step();
    world.step();
    let expected = (NODES as u64 - 1) * NODES as u64 / 2;
    assert_eq!(*world.resource::<u64>().unwrap(), expected, "1M read once");
    let mut group = c.benchmark_group("game_api/events/1000000");
    group.sample_size(20);
    group.bench_function("step", |b| b.iter(|| world.step()));
    let (mut sent, mut read): (Vec<u32>, Vec<u32>) = (Vec::new(), (0..NODES as u32).collect());
    group.bench_function("floor_vec", |b| {
        b.iter(|| {
            std::mem::swap(&mut sent, &mut read);
            sent.clear();
            for i in 0..NODES as u32 {
                sent.push(i);
            }
            black_box(read.iter().map(|&e| u64::from(e)).sum::<u64>())
        })
    });
    group.finish();
}

criterion_group!(benches, bench_query, bench_events);
criterion_main!(benches);
