//! Structural edits, measured: building, churning, reparenting and despawning
//! in large forests, against a pointer tree (criterion group `structure`).
//!
//! Every forest: n/1000 roots, then node i hangs under a node drawn uniformly
//! from the nodes before it; locals are a random translation and a small y
//! rotation. Keel nodes get an empty name (no allocation; the twin has none).
//! The twin (`*_pointer_tree`, `naive_recursive`) is the classic pointer tree:
//! each node its own heap allocation, an ordered list of child pointers, a
//! dirty list, and a list of the nodes recomputed since the last snapshot.
//! The random choices come from a mirror of the structure kept by the bench
//! itself, so both trees see the same edits (its bookkeeping, the same for
//! both, is inside the timed frames of `churn_*`).
//!
//! - `build_creation_order/N`: N spawns in creation order (a node after its
//!   parent, in index order, which is not depth-first) into a fresh scene,
//!   then one propagate. Parents and locals are made before the timer starts;
//!   dropping the scene is not timed. `build_creation_order_pointer_tree/N`:
//!   the same into the twin. Flat sampling: 10 builds a sample set.
//! - `churn_K/N` (and `churn_K_pointer_tree/N`): one frame, all timed: K
//!   despawns of random leaves, K spawns under random live nodes,
//!   `snapshot_previous`, `propagate`. The forest is built once and churned
//!   across iterations.
//! - `churn_100_worst/N`: on its first call prints the median, p99 and worst
//!   of 2,000 consecutive `churn_100` frames, Keel and twin, as the line
//!   `structure/churn_100_frames/N: ...`; criterion's own number for it is
//!   just more Keel `churn_100` frames.
//! - `reparent_subtree_100/N` (and `_pointer_tree`): a subtree of 80..=120
//!   nodes moved (`Keep::Local`) under a random node outside every candidate
//!   subtree; the move and the propagate that follows are timed, the
//!   `snapshot_previous` after them (with Keel's hole reclamation) is not.
//! - `despawn_subtree_1000/N` (and `_pointer_tree`): only the despawn of a
//!   subtree of 800..=1200 nodes is timed; then, untimed, a random subtree of
//!   the same size is spawned at the same parent, propagated and snapshot, so
//!   the forest keeps its size (Keel's hole reclamation is in the untimed
//!   snapshots; `churn_*` times it).
//! - After 100,000 random structural edits (leaf despawn + spawn, subtree
//!   reparent, small-subtree despawn + respawn; a snapshot and a propagate
//!   every 100 edits, as fixed steps would): `propagate_all_after_churn/N`
//!   (every local set before the timer, the pass alone timed),
//!   `propagate_1pct_after_churn/N` (1% of the nodes nudged, plus the pass),
//!   and `naive_recursive/N` (the twin after the same edits, every world
//!   recomputed by recursion from the roots). No snapshot runs during these,
//!   so Keel's layout stays as the edits left it. Before them the bench
//!   asserts that both trees hold the same worlds.
//! - `floor_stream/N`: the bytes a linear propagation cannot avoid, without
//!   the math, on all cores in storage order as the pass runs: N locals and
//!   parent indices read, N world rows written ([`FLOOR_BYTES_PER_NODE`]:
//!   100 bytes today).
//!
//! The twin lives in `pointer_tree`; the `Tree` operations both trees offer,
//! the mirror and the random edits in `forest`.

mod forest;
mod pointer_tree;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, SamplingMode, criterion_group, criterion_main};
use glam::Vec4;
use keel_engine::{Affine3x4, NodeId, Scene, Transform};
use rayon::prelude::*;

use forest::{Forest, Rng, Tree, local, random_edits};
use pointer_tree::{PointerTree, same_worlds};

/// Parent of each node (`None` for roots): the first n/1000 are roots, node i
/// after them hangs under a node drawn uniformly from `0..i`.
fn random_parents(n: usize, rng: &mut Rng) -> Vec<Option<usize>> {
    let roots = (n / 1_000).max(1);
    (0..n).map(|i| (i >= roots).then(|| rng.below(i))).collect()
}

/// A forest of `n` nodes: parents and locals.
fn forest(n: usize, seed: u64) -> (Vec<Option<usize>>, Vec<Transform>) {
    let mut rng = Rng(seed ^ n as u64);
    let parents = random_parents(n, &mut rng);
    (parents, (0..n).map(|_| local(&mut rng)).collect())
}

/// Keel and the twin, built alike.
fn pair(parents: &[Option<usize>], locals: &[Transform]) -> (Forest<Scene>, Forest<PointerTree>) {
    (
        Forest::build(Scene::new(), parents, locals),
        Forest::build(PointerTree::default(), parents, locals),
    )
}

/// Up to `limit` disjoint subtrees of `lo..=hi` nodes (their roots), and for
/// every node whether it lies inside one of them. Parents come before children.
fn pick_subtrees(
    parents: &[Option<usize>],
    lo: usize,
    hi: usize,
    limit: usize,
) -> (Vec<u32>, Vec<bool>) {
    let mut size = vec![1usize; parents.len()];
    for i in (0..parents.len()).rev() {
        if let Some(p) = parents[i] {
            size[p] += size[i];
        }
    }
    let (mut roots, mut inside) = (Vec::new(), vec![false; parents.len()]);
    for i in 0..parents.len() {
        let under = parents[i].is_some_and(|p| inside[p]);
        let pick = !under && (lo..=hi).contains(&size[i]) && roots.len() < limit;
        if pick {
            roots.push(i as u32);
        }
        inside[i] = under || pick;
    }
    (roots, inside)
}

/// Moves `node` along x, as transform.rs does.
fn nudge(scene: &mut Scene, node: NodeId, tick: f32) {
    let mut t = scene.local(node).expect("live node");
    t.translation.x = tick;
    scene.set_local(node, t).expect("live node");
}

/// Times `iters` builds of a fresh tree in creation order plus one update;
/// the drop is outside the timer.
fn time_builds<T: Tree + Default>(
    iters: u64,
    parents: &[Option<usize>],
    locals: &[Transform],
) -> Duration {
    let mut ids = Vec::with_capacity(parents.len());
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        ids.clear();
        let start = Instant::now();
        let mut tree = T::default();
        for (p, l) in parents.iter().zip(locals) {
            ids.push(tree.spawn_node(p.map(|p| ids[p]), *l));
        }
        tree.update();
        total += start.elapsed();
        drop(black_box(tree));
    }
    total
}

/// Median, p99 and worst of `frames` consecutive churn frames, in µs.
fn frame_stats<T: Tree>(f: &mut Forest<T>, k: usize, frames: usize, rng: &mut Rng) -> [f64; 3] {
    let mut times: Vec<Duration> = (0..frames)
        .map(|_| {
            let start = Instant::now();
            f.churn_frame(k, rng);
            start.elapsed()
        })
        .collect();
    times.sort_unstable();
    [frames / 2, frames * 99 / 100, frames - 1].map(|i| times[i].as_secs_f64() * 1e6)
}

/// `iters` moves of a random candidate subtree under a random node outside
/// all candidates; the move and the update are timed, the snapshot is not.
fn time_reparents<T: Tree>(
    iters: u64,
    f: &mut Forest<T>,
    candidates: &[u32],
    inside: &[bool],
    rng: &mut Rng,
) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let node = candidates[rng.below(candidates.len())];
        let target = loop {
            let t = rng.below(inside.len());
            if !inside[t] {
                break t as u32;
            }
        };
        let (h, to) = (f.h[node as usize], f.h[target as usize]);
        let start = Instant::now();
        f.tree.move_node(h, to);
        f.tree.update();
        total += start.elapsed();
        f.m.unlink(node);
        f.m.link(node, target);
        f.tree.snapshot();
    }
    total
}

/// `iters` despawns of a random subtree from `pool` (only the despawn timed),
/// each replaced by a random subtree of the same size at the same parent.
fn time_despawns<T: Tree>(
    iters: u64,
    f: &mut Forest<T>,
    pool: &mut [u32],
    rng: &mut Rng,
) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let i = rng.below(pool.len());
        let (root, parent) = (pool[i], f.m.parent[pool[i] as usize]);
        let h = f.h[root as usize];
        let start = Instant::now();
        let count = black_box(f.tree.despawn_node(h));
        total += start.elapsed();
        f.m.remove_subtree(root);
        pool[i] = f.spawn_random_subtree(parent, count, rng);
        f.tree.update();
        f.tree.snapshot();
    }
    total
}

/// Bytes the floor streams per node: the local and parent index read, the
/// world rows written.
const FLOOR_BYTES_PER_NODE: usize =
    size_of::<Transform>() + size_of::<u32>() + size_of::<Affine3x4>();

/// The floor for a linear propagation: every local and parent index read,
/// every world written as the scene stores it, no math (the rotation and
/// parent bits are copied), on all cores in storage order.
fn stream(locals: &[Transform], parents: &[u32], out: &mut [Affine3x4]) {
    (out.par_iter_mut()
        .zip(locals.par_iter())
        .zip(parents.par_iter()))
    .with_min_len(16 * 1024)
    .for_each(|((o, l), &p)| {
        o.rows = [
            Vec4::from(l.rotation.to_array()),
            l.scale.extend(f32::from_bits(p)),
            l.translation.extend(0.0),
        ];
    });
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("structure");
    group.sample_size(10);
    let n = 1_000_000usize;
    let (parents, locals) = forest(n, 0x5eed);

    group.sampling_mode(SamplingMode::Flat);
    group.bench_function(BenchmarkId::new("build_creation_order", n), |b| {
        b.iter_custom(|iters| time_builds::<Scene>(iters, &parents, &locals))
    });
    group.bench_function(
        BenchmarkId::new("build_creation_order_pointer_tree", n),
        |b| b.iter_custom(|iters| time_builds::<PointerTree>(iters, &parents, &locals)),
    );
    group.sampling_mode(SamplingMode::Auto);

    for (size, k) in [(n, 100usize), (100_000, 10)] {
        let (parents, locals) = forest(size, 0x5eed);
        let (mut keel, mut twin) = pair(&parents, &locals);
        let (mut rk, mut rt) = (Rng(0xf00d ^ k as u64), Rng(0xf00d ^ k as u64));
        group.bench_function(BenchmarkId::new(format!("churn_{k}"), size), |b| {
            b.iter(|| keel.churn_frame(k, &mut rk))
        });
        group.bench_function(
            BenchmarkId::new(format!("churn_{k}_pointer_tree"), size),
            |b| b.iter(|| twin.churn_frame(k, &mut rt)),
        );
        if k == 100 {
            let mut printed = false;
            group.bench_function(BenchmarkId::new("churn_100_worst", size), |b| {
                b.iter_custom(|iters| {
                    if !printed {
                        printed = true;
                        let [km, kp, kw] = frame_stats(&mut keel, k, 2_000, &mut rk);
                        let [tm, tp, tw] = frame_stats(&mut twin, k, 2_000, &mut rt);
                        println!(
                            "structure/churn_100_frames/{size}: 2000 frames, median {km:.1} us, \
                             p99 {kp:.1} us, worst {kw:.1} us (pointer tree: median {tm:.1} us, \
                             p99 {tp:.1} us, worst {tw:.1} us)"
                        );
                    }
                    let start = Instant::now();
                    for _ in 0..iters {
                        keel.churn_frame(k, &mut rk);
                    }
                    start.elapsed()
                })
            });
        }
        assert_eq!(keel.tree.count(), twin.tree.count());
    }

    {
        let (candidates, inside) = pick_subtrees(&parents, 80, 120, 256);
        let (mut keel, mut twin) = pair(&parents, &locals);
        let (mut rk, mut rt) = (Rng(0x1eaf), Rng(0x1eaf));
        group.bench_function(BenchmarkId::new("reparent_subtree_100", n), |b| {
            b.iter_custom(|iters| time_reparents(iters, &mut keel, &candidates, &inside, &mut rk))
        });
        group.bench_function(
            BenchmarkId::new("reparent_subtree_100_pointer_tree", n),
            |b| {
                b.iter_custom(|iters| {
                    time_reparents(iters, &mut twin, &candidates, &inside, &mut rt)
                })
            },
        );
    }

    {
        let (candidates, _) = pick_subtrees(&parents, 800, 1_200, 64);
        let (mut pool_k, mut pool_t) = (candidates.clone(), candidates);
        let (mut keel, mut twin) = pair(&parents, &locals);
        let (mut rk, mut rt) = (Rng(0xdead), Rng(0xdead));
        group.bench_function(BenchmarkId::new("despawn_subtree_1000", n), |b| {
            b.iter_custom(|iters| time_despawns(iters, &mut keel, &mut pool_k, &mut rk))
        });
        group.bench_function(
            BenchmarkId::new("despawn_subtree_1000_pointer_tree", n),
            |b| b.iter_custom(|iters| time_despawns(iters, &mut twin, &mut pool_t, &mut rt)),
        );
    }

    {
        let (mut keel, mut twin) = pair(&parents, &locals);
        random_edits(&mut keel, 100_000, &mut Rng(0xed17));
        random_edits(&mut twin, 100_000, &mut Rng(0xed17));
        assert!(same_worlds(&keel, &twin), "Keel and the twin disagree");
        let ids: Vec<NodeId> = keel.m.live.iter().map(|&k| keel.h[k as usize]).collect();
        let mut rng = Rng(0x1bc7);
        let some: Vec<NodeId> = (0..ids.len() / 100)
            .map(|_| ids[rng.below(ids.len())])
            .collect();
        let scene = &mut keel.tree;
        let mut tick = 0.0f32;
        group.bench_function(BenchmarkId::new("propagate_all_after_churn", n), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    tick += 1.0;
                    for &node in &ids {
                        nudge(scene, node, tick);
                    }
                    let start = Instant::now();
                    black_box(scene.propagate());
                    total += start.elapsed();
                }
                total
            })
        });
        group.bench_function(BenchmarkId::new("propagate_1pct_after_churn", n), |b| {
            b.iter(|| {
                tick += 1.0;
                for &node in &some {
                    nudge(scene, node, tick);
                }
                black_box(scene.propagate())
            })
        });
        group.bench_function(BenchmarkId::new("naive_recursive", n), |b| {
            b.iter(|| {
                twin.tree.update_all();
                black_box(&twin.tree.roots);
            })
        });
    }

    let parent_index: Vec<u32> = parents
        .iter()
        .map(|p| p.map_or(u32::MAX, |p| p as u32))
        .collect();
    assert_eq!(FLOOR_BYTES_PER_NODE, 100, "the doc's byte count");
    let mut out = vec![Affine3x4::IDENTITY; n];
    group.bench_function(BenchmarkId::new("floor_stream", n), |b| {
        b.iter(|| {
            stream(
                black_box(&locals),
                black_box(&parent_index),
                black_box(&mut out),
            );
            black_box(&out);
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
