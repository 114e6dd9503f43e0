//! Dirty flag and data locality, measured: world-transform propagation over a
//! 100,000-node forest after 1% of the nodes moved.
//!
//! - `dirty`: Keel's pass: only the moved nodes' subtrees, over pre-order arrays.
//! - `full_soa`: the same arrays, every node recomputed (no dirty flag).
//! - `boxed_tree`: every node recomputed by recursion through heap-allocated
//!   nodes scattered in memory (no dirty flag, no locality): what both patterns replace.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use glam::{Affine3A, Quat, Vec3};
use keel_engine::scene::{NodeId, Scene, Transform};

const NODES: usize = 100_000;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

fn local(rng: &mut Rng) -> Transform {
    Transform::from_translation(Vec3::new(rng.unit(), rng.unit(), rng.unit()))
        .with_rotation(Quat::from_rotation_y(rng.unit()))
}

/// A forest of 1,000 trees, each node's parent chosen among earlier nodes of its tree.
fn forest(rng: &mut Rng) -> (Scene, Vec<NodeId>, Vec<Option<usize>>) {
    let mut scene = Scene::new();
    let mut ids = Vec::with_capacity(NODES);
    let mut parents = Vec::with_capacity(NODES);
    for i in 0..NODES {
        let tree_start = i - i % 100;
        let parent =
            (i != tree_start).then(|| tree_start + (rng.next() as usize) % (i - tree_start));
        let id = scene
            .spawn(parent.map(|p| ids[p]), "n", local(rng))
            .unwrap();
        ids.push(id);
        parents.push(parent);
    }
    scene.propagate();
    (scene, ids, parents)
}

#[allow(
    clippy::vec_box,
    reason = "the baseline is the pointer-chasing tree the arrays replace"
)]
struct BoxedNode {
    local: Transform,
    world: Affine3A,
    children: Vec<Box<BoxedNode>>,
}

fn update_boxed(node: &mut BoxedNode, parent: &Affine3A) {
    node.world = *parent * node.local.to_affine();
    let world = node.world;
    for child in &mut node.children {
        update_boxed(child, &world);
    }
}

/// The same forest as boxed nodes, allocated in shuffled order between garbage allocations.
#[allow(
    clippy::vec_box,
    reason = "the baseline is the pointer-chasing tree the arrays replace"
)]
fn boxed_forest(rng: &mut Rng, parents: &[Option<usize>]) -> Vec<Box<BoxedNode>> {
    let mut order: Vec<usize> = (0..parents.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.next() as usize % (i + 1));
    }
    let mut slots: Vec<Option<Box<BoxedNode>>> = (0..parents.len()).map(|_| None).collect();
    let mut garbage = Vec::new();
    for &i in &order {
        slots[i] = Some(Box::new(BoxedNode {
            local: local(rng),
            world: Affine3A::IDENTITY,
            children: Vec::new(),
        }));
        garbage.push(vec![0u8; 64 + (rng.next() % 192) as usize]);
    }
    drop(garbage);
    for i in (0..parents.len()).rev() {
        if let Some(p) = parents[i] {
            let child = slots[i].take().unwrap();
            slots[p].as_mut().unwrap().children.push(child);
        }
    }
    slots.into_iter().flatten().collect()
}

fn bench(c: &mut Criterion) {
    let mut rng = Rng(0x5eed);
    let (mut scene, ids, parents) = forest(&mut rng);
    let moved: Vec<NodeId> = (0..NODES / 100)
        .map(|_| ids[rng.next() as usize % NODES])
        .collect();
    let mut roots = boxed_forest(&mut rng, &parents);

    let mut group = c.benchmark_group("transforms");
    group.sample_size(20);
    let mut tick = 0.0f32;
    group.bench_function("propagate/dirty/100000", |b| {
        b.iter(|| {
            tick += 0.001;
            for &node in &moved {
                let mut t = scene.local(node).unwrap();
                t.translation.x = tick;
                scene.set_local(node, t).unwrap();
            }
            black_box(scene.propagate())
        })
    });
    let roots_ids: Vec<NodeId> = scene.roots().collect();
    group.bench_function("propagate/full_soa/100000", |b| {
        b.iter(|| {
            tick += 0.001;
            for &node in &moved {
                let mut t = scene.local(node).unwrap();
                t.translation.x = tick;
                scene.set_local(node, t).unwrap();
            }
            // Without a dirty flag every node is stale: touch every root.
            for &root in &roots_ids {
                let mut t = scene.local(root).unwrap();
                t.translation.y += 1e-3;
                scene.set_local(root, t).unwrap();
            }
            black_box(scene.propagate())
        })
    });
    group.bench_function("propagate/boxed_tree/100000", |b| {
        b.iter(|| {
            for root in &mut roots {
                update_boxed(root, &Affine3A::IDENTITY);
            }
            black_box(roots[0].world)
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
