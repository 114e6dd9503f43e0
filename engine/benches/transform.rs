//! Dirty flag and data locality, measured: world-transform propagation over
//! random forests of mixed depth (criterion group `transform`).
//!
//! - `propagate_all/N`: every local changed, then one pass.
//! - `propagate_1pct/N`: 1% of the nodes, chosen at random, changed.
//! - `propagate_1pct_batched/N`: the same, the changes made in one
//!   [`Scene::update_locals`] batch.
//! - `set_1pct/N`, `set_1pct_batched/N`: those writes alone, one call a node
//!   and one batch (the propagation after each round untimed).
//! - `propagate_none/N`: nothing changed: the pass must cost next to nothing.
//! - `propagate_all_1thread/N`: `propagate_all` on one thread (a rayon pool of
//!   one), the same threads as the naive twin.
//! - `naive_recursive/N`: the naive twin (one thread): recursion from the roots
//!   through per-node child lists, nodes stored in creation order, every world
//!   recomputed.
//! - `humanoids_half_moving`: 4,000 rigs of 68 bones, half of them animated.
//!
//! Before timing, the twin is checked to compute every world transform the
//! engine does, from the same locals.
//!
//! `propagate_all` times the pass alone (every local was set before the timer
//! started); `set_all_locals/N` times the setting, where the dirty flag is paid
//! for. `propagate_1pct` times both.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use glam::{Affine3A, Quat, Vec3};
use keel_engine::{NodeId, Scene, Transform};

#[path = "common/twin.rs"]
mod twin;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

fn local(rng: &mut Rng) -> Transform {
    Transform::from_translation(Vec3::new(rng.unit(), rng.unit(), rng.unit()))
        .with_rotation(Quat::from_rotation_y(rng.unit()))
}

/// Parent of each node (`None` for roots), parents before children: trees of
/// 1,000 nodes where a node hangs under a random earlier node of its tree or,
/// one time in four, under one of the last three (so depth varies a lot).
fn random_parents(n: usize, rng: &mut Rng) -> Vec<Option<usize>> {
    (0..n)
        .map(|i| {
            let tree = i - i % 1_000;
            if i == tree {
                None
            } else if rng.below(4) == 0 {
                Some(i - 1 - rng.below((i - tree).min(3)))
            } else {
                Some(tree + rng.below(i - tree))
            }
        })
        .collect()
}

/// Children lists from a parent list.
fn children_of(parents: &[Option<usize>]) -> Vec<Vec<usize>> {
    let mut children = vec![Vec::new(); parents.len()];
    for (i, p) in parents.iter().enumerate() {
        if let Some(p) = p {
            children[*p].push(i);
        }
    }
    children
}

/// The scene for a parent list, spawned in depth-first order (how scene files
/// are written, so every spawn appends).
fn build_scene(parents: &[Option<usize>], rng: &mut Rng) -> (Scene, Vec<NodeId>) {
    let children = children_of(parents);
    let mut scene = Scene::new();
    let mut ids = vec![None; parents.len()];
    let mut stack: Vec<usize> = (0..parents.len())
        .filter(|&i| parents[i].is_none())
        .rev()
        .collect();
    while let Some(i) = stack.pop() {
        let parent = parents[i].map(|p| ids[p].unwrap());
        ids[i] = Some(scene.spawn(parent, "n", local(rng)).unwrap());
        stack.extend(children[i].iter().rev());
    }
    scene.propagate();
    (scene, ids.into_iter().map(Option::unwrap).collect())
}

/// The naive twin: what a competent programmer writes first. Nodes in an
/// array in creation order (parents before children, as `random_parents`
/// makes them), each with its own child list, glam's `Affine3A` for worlds,
/// one recursive pass from the roots. It lacks what the dirty flag and the
/// data layout stand for: it recomputes every node, and a node's children are
/// wherever they were created, not next to it.
struct NaiveTree {
    local: Vec<Transform>,
    world: Vec<Affine3A>,
    children: Vec<Vec<u32>>,
    roots: Vec<u32>,
}

impl NaiveTree {
    /// The forest of `parents` with node i's local `locals[i]`.
    fn new(parents: &[Option<usize>], locals: Vec<Transform>) -> Self {
        let n = parents.len();
        let mut tree = NaiveTree {
            local: locals,
            world: vec![Affine3A::IDENTITY; n],
            children: vec![Vec::new(); n],
            roots: Vec::new(),
        };
        for (i, p) in parents.iter().enumerate() {
            match p {
                Some(p) => tree.children[*p].push(i as u32),
                None => tree.roots.push(i as u32),
            }
        }
        tree
    }

    fn update(&mut self, node: u32, parent: &Affine3A) {
        let world = *parent * self.local[node as usize].to_affine();
        self.world[node as usize] = world;
        for i in 0..self.children[node as usize].len() {
            let child = self.children[node as usize][i];
            self.update(child, &world);
        }
    }

    fn update_all(&mut self) {
        for i in 0..self.roots.len() {
            self.update(self.roots[i], &Affine3A::IDENTITY);
        }
    }
}

/// Fails unless the twin computed every world transform the scene did
/// ([`twin::assert_close`], down chains of up to a few hundred nodes).
fn assert_same(scene: &Scene, ids: &[NodeId], naive: &NaiveTree) {
    for (i, &id) in ids.iter().enumerate() {
        let world = scene.world(id).unwrap().to_cols_array();
        twin::assert_close(
            &world,
            &naive.world[i].to_cols_array(),
            &format!("node {i}"),
        );
    }
}

fn nudge(scene: &mut Scene, node: NodeId, tick: f32) {
    let mut t = scene.local(node).unwrap();
    t.translation.x = tick;
    scene.set_local(node, t).unwrap();
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("transform");
    group.sample_size(10);
    for n in [100_000usize, 1_000_000] {
        let mut rng = Rng(0x5eed ^ n as u64);
        let parents = random_parents(n, &mut rng);
        let (mut scene, ids) = build_scene(&parents, &mut rng);
        let some: Vec<NodeId> = (0..n / 100).map(|_| ids[rng.below(n)]).collect();
        // The twin holds the scene's locals, moved as propagate_all moves
        // them, and must compute the same worlds.
        for &node in &ids {
            nudge(&mut scene, node, 0.25);
        }
        scene.propagate();
        let locals = ids.iter().map(|&id| scene.local(id).unwrap()).collect();
        let mut naive = NaiveTree::new(&parents, locals);
        naive.update_all();
        assert_same(&scene, &ids, &naive);
        group.throughput(Throughput::Elements(n as u64));
        let mut tick = 0.0f32;
        // Times `iters` passes after every local changed (the setting untimed).
        let mut propagate_all = |iters: u64, pass: &dyn Fn(&mut Scene)| {
            let mut total = std::time::Duration::ZERO;
            for _ in 0..iters {
                tick += 1.0;
                for &node in &ids {
                    nudge(&mut scene, node, tick);
                }
                let start = std::time::Instant::now();
                pass(&mut scene);
                total += start.elapsed();
            }
            total
        };
        group.bench_with_input(BenchmarkId::new("propagate_all", n), &n, |b, _| {
            b.iter_custom(|iters| {
                propagate_all(iters, &|scene| {
                    black_box(scene.propagate());
                })
            })
        });
        let one_thread = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("a pool of one thread");
        group.bench_with_input(BenchmarkId::new("propagate_all_1thread", n), &n, |b, _| {
            b.iter_custom(|iters| {
                propagate_all(iters, &|scene| {
                    black_box(one_thread.install(|| scene.propagate()));
                })
            })
        });
        group.bench_with_input(BenchmarkId::new("set_all_locals", n), &n, |b, _| {
            b.iter(|| {
                tick += 1.0;
                for &node in &ids {
                    nudge(&mut scene, node, tick);
                }
            });
            scene.propagate();
        });
        group.bench_with_input(BenchmarkId::new("propagate_1pct", n), &n, |b, _| {
            b.iter(|| {
                tick += 1.0;
                for &node in &some {
                    nudge(&mut scene, node, tick);
                }
                black_box(scene.propagate())
            })
        });
        group.bench_with_input(BenchmarkId::new("propagate_1pct_batched", n), &n, |b, _| {
            b.iter(|| {
                tick += 1.0;
                let set = |_, local: &mut Transform| local.translation.x = tick;
                black_box(scene.update_locals(&some, set).unwrap());
                black_box(scene.propagate())
            })
        });
        // The writes alone (the propagation after each round untimed): one
        // call a node, then one batch.
        for batched in [false, true] {
            let name = if batched {
                "set_1pct_batched"
            } else {
                "set_1pct"
            };
            group.bench_with_input(BenchmarkId::new(name, n), &n, |b, _| {
                b.iter_custom(|iters| {
                    let mut spent = std::time::Duration::ZERO;
                    for _ in 0..iters {
                        tick += 1.0;
                        let start = std::time::Instant::now();
                        if batched {
                            let set = |_, local: &mut Transform| local.translation.x = tick;
                            black_box(scene.update_locals(&some, set).unwrap());
                        } else {
                            for &node in &some {
                                nudge(&mut scene, node, tick);
                            }
                        }
                        spent += start.elapsed();
                        scene.propagate();
                    }
                    spent
                })
            });
        }
        group.bench_with_input(BenchmarkId::new("propagate_none", n), &n, |b, _| {
            b.iter(|| black_box(scene.propagate()))
        });
        group.bench_with_input(BenchmarkId::new("naive_recursive", n), &n, |b, _| {
            b.iter(|| {
                naive.update_all();
                black_box(naive.world[0])
            })
        });
    }

    // 4,000 rigs: a root with a 68-bone hierarchy (spine chain, two arms, two legs, fingers).
    let mut rng = Rng(0xb0de5);
    let mut rig = vec![None];
    for bone in 1..68 {
        rig.push(Some(match bone {
            1..=5 => bone - 1,            // spine
            6..=15 => 5 + (bone - 6) % 2, // arms hang off the upper spine
            16..=25 => 1,                 // legs off the pelvis
            _ => 6 + (bone - 26) % 10,    // fingers and toes on the limbs
        }));
    }
    let mut parents = Vec::with_capacity(4_000 * 68);
    for r in 0..4_000 {
        let base = r * 68;
        parents.extend(rig.iter().map(|p| p.map(|p| base + p)));
    }
    let (mut scene, ids) = build_scene(&parents, &mut rng);
    let moving: Vec<NodeId> = ids.chunks(68).step_by(2).flatten().copied().collect();
    group.throughput(Throughput::Elements(moving.len() as u64));
    let mut angle = 0.0f32;
    group.bench_function("humanoids_half_moving", |b| {
        b.iter(|| {
            angle += 0.01;
            for &bone in &moving {
                let mut t = scene.local(bone).unwrap();
                t.rotation = Quat::from_rotation_x(angle);
                scene.set_local(bone, t).unwrap();
            }
            black_box(scene.propagate())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
