//! The sparse propagation pass: few nodes dirty, each dirty subtree walked
//! once in pre-order through the child links, the dirty nodes taken in
//! position order (parents come before children, so a dirty node inside a
//! subtree walked already is clean by then and skipped).
//!
//! Two cores: with many roots in a large scene, the columns are cut at the
//! start of a top-level tree where no node after the cut hangs from one
//! before it. Each side is then a forest of its own, walked by its own core
//! exactly as one core walks the whole: the same worlds, flags and ranges.
//! Scattered roots are bound by cache misses, and each core keeps its own
//! in flight. Whether a cut is clean is found once per layout.
//!
//! Pattern: dirty flag, data locality.

use super::layout::{Meta, next_preorder};
use super::local_to_world::PropagationStats;
use super::propagate::{PARALLEL_SPAN, ROOT_SEARCH, Run, Written};
use super::{NONE, flag};
use crate::prefetch::prefetch;
use crate::scene::Scene;
use crate::transform::{Affine3x4, Transform};

/// How many roots ahead a walk starts loading a root's entries (twice as
/// far, its parent's position): enough misses in flight to hide a memory
/// access behind the roots between.
const PREFETCH_AHEAD: usize = 8;

/// Scenes of at least this many positions prefetch the sparse pass's roots
/// (their columns, some 150 bytes a node, outgrow the caches). In smaller
/// ones the entries are mostly cached and the hints only cost (measured:
/// `transform/propagate_1pct` 3.9 to 3.2 ms at a million nodes, 300 to
/// 340 µs at 100,000).
const PREFETCH_NODES: usize = 1 << 18;

/// Dirty roots from which the pass is worth two cores (with a scene of at
/// least two linear spans).
const PARALLEL_ROOTS: usize = 512;

/// The columns a walk writes, from position `base` on, and the ones it
/// only reads, whole (the links lead anywhere; it writes only its part).
struct Walk<'a> {
    base: usize,
    epoch: u32,
    far: bool,
    local: &'a [Transform],
    parent: &'a [u32],
    meta: &'a [Meta],
    out: Written<'a>,
}

impl<'a> Walk<'a> {
    /// Its part from position `at` on, and the rest before.
    fn split(self, at: usize) -> (Self, Self) {
        let (out_l, out_r) = self.out.split_at(at - self.base);
        let part = |base, out| Walk {
            base,
            epoch: self.epoch,
            far: self.far,
            local: self.local,
            parent: self.parent,
            meta: self.meta,
            out,
        };
        (part(self.base, out_l), part(at, out_r))
    }

    /// Walks the subtree of each root still dirty, in order, appending the
    /// recomputed ranges to `ranges`.
    fn run(&mut self, roots: &[u32], ranges: &mut Vec<(u32, u32)>) -> PropagationStats {
        let mut stats = PropagationStats::default();
        let mut run = Run::default();
        for (k, &root) in roots.iter().enumerate() {
            if self.far {
                self.prefetch_root(
                    roots.get(k + PREFETCH_AHEAD),
                    roots.get(k + 2 * PREFETCH_AHEAD),
                );
            }
            if self.out.flags[root as usize - self.base] & flag::DIRTY == 0 {
                // Inside a subtree recomputed already in this pass.
                continue;
            }
            stats.roots += 1;
            stats.recomputed += self.recompute_subtree(root, &mut run, ranges);
        }
        run.finish(ranges);
        stats
    }

    /// Starts loading what [`Walk::recompute_subtree`] first reads and
    /// writes at the root `soon` (its entries and its parent's world), and
    /// the parent position of the root `later`, so that a root's cache
    /// misses overlap the work on the roots before it: the sorted roots are
    /// scattered over the columns, one miss a column each without this.
    #[inline]
    fn prefetch_root(&self, soon: Option<&u32>, later: Option<&u32>) {
        if let Some(&later) = later {
            prefetch(self.parent, later as usize);
        }
        let Some(&soon) = soon else {
            return;
        };
        let (d, i) = (soon as usize, soon as usize - self.base);
        prefetch(self.out.flags, i);
        prefetch(self.local, d);
        prefetch(self.out.world, i);
        prefetch(self.out.moved, i);
        prefetch(self.meta, d);
        if let Some(&p) = self.parent.get(d)
            && p != NONE
        {
            prefetch(self.out.world, p as usize - self.base);
            prefetch(self.out.flags, p as usize - self.base);
        }
    }

    /// The kernel: recomputes the subtree of `root` in pre-order. A
    /// teleported node snaps its whole subtree: nothing below it may slide
    /// either (SNAP, read from the parent, carries that down).
    fn recompute_subtree(
        &mut self,
        root: u32,
        run: &mut Run,
        ranges: &mut Vec<(u32, u32)>,
    ) -> usize {
        let base = self.base;
        let mut count = 0;
        let mut d = root;
        while d != NONE {
            let i = d as usize - base;
            let parent = self.parent[d as usize];
            let (parent_world, parent_snap) = if parent == NONE {
                (Affine3x4::IDENTITY, false)
            } else {
                let p = parent as usize - base;
                let parent_flags = self.out.flags[p];
                let snap = d != root && parent_flags & flag::SNAP != 0;
                // A parent kept since the snapshot swapped the columns has
                // its current world in the previous one.
                let world = if parent_flags & flag::STALE != 0 {
                    self.out.prev[p]
                } else {
                    self.out.world[p]
                };
                (world, snap)
            };
            let world = parent_world.mul(&Affine3x4::from_transform(&self.local[d as usize]));
            self.out.world[i] = world;
            self.out.moved[i] = self.epoch;
            let flags = self.out.flags[i];
            let snap = parent_snap || flags & flag::TELEPORT != 0;
            if snap {
                self.out.prev[i] = world;
            }
            self.out.flags[i] = (flags
                & !(flag::DIRTY | flag::TELEPORT | flag::SNAP | flag::STALE))
                | if snap { flag::SNAP } else { 0 };
            run.add(d, ranges);
            count += 1;
            d = next_preorder(self.meta, self.parent, d, root);
        }
        count
    }
}

impl Scene {
    /// The dirty nodes by position; each one still dirty starts a pre-order
    /// walk (on two cores where a clean cut allows, see the module docs).
    pub(super) fn propagate_sparse(&mut self) -> PropagationStats {
        let mut roots = std::mem::take(&mut self.roots_scratch);
        roots.clear();
        for node in self.dirty.drain(..) {
            let slot = self.slots[node.index() as usize];
            if slot.generation == node.generation_nz() && slot.dense != NONE {
                roots.push(slot.dense);
            }
        }
        roots.sort_unstable();
        let two_cores = roots.len() >= PARALLEL_ROOTS
            && self.hot.len() >= 2 * PARALLEL_SPAN
            && rayon::current_num_threads() > 1;
        let cut = if two_cores { self.sparse_cut() } else { None };
        let (out, parent, local, meta) = Written::of(&mut self.hot);
        let mut walk = Walk {
            base: 0,
            epoch: self.epoch,
            far: local.len() >= PREFETCH_NODES,
            local,
            parent,
            meta,
            out,
        };
        let stats = match cut {
            Some(at) => {
                let (mut left, mut right) = walk.split(at);
                let (left_roots, right_roots) =
                    roots.split_at(roots.partition_point(|&r| (r as usize) < at));
                let mut right_ranges = std::mem::take(&mut self.ranges_scratch);
                let last_changed = &mut self.last_changed;
                let (a, b) = rayon::join(
                    || left.run(left_roots, last_changed),
                    || right.run(right_roots, &mut right_ranges),
                );
                self.last_changed.append(&mut right_ranges);
                self.ranges_scratch = right_ranges;
                PropagationStats {
                    recomputed: a.recomputed + b.recomputed,
                    roots: a.roots + b.roots,
                }
            }
            None => walk.run(&roots, &mut self.last_changed),
        };
        self.roots_scratch = roots;
        stats
    }

    /// Where the sparse pass may cut the columns in two: the start of a
    /// top-level tree near the middle, when no node after it hangs from a
    /// node before it. Found once per layout and structure (a scan of the
    /// parents after the cut).
    fn sparse_cut(&mut self) -> Option<usize> {
        let key = (self.layout_stamp(), self.structure_version());
        if let Some((at, cut)) = self.sparse_cut
            && at == key
        {
            return cut;
        }
        let parent = &self.hot.parent;
        let n = parent.len();
        let even = n / 2;
        let start = (even..(even + ROOT_SEARCH).min(n)).find(|&i| parent[i] == NONE);
        let clean = |&at: &usize| parent[at..].iter().all(|&p| p == NONE || p as usize >= at);
        let cut = start.filter(clean);
        self.sparse_cut = Some((key, cut));
        cut
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use crate::rng::SplitMix64;
    use crate::scene::{Keep, NodeId, Scene, Transform};

    /// 90 trees of 1,000 nodes, each node under a random earlier node of its
    /// tree, spawned in that order (so each tree's positions are its own).
    fn trees() -> (Scene, Vec<NodeId>) {
        let mut scene = Scene::new();
        let mut rng = SplitMix64::new(11);
        let mut nodes: Vec<NodeId> = Vec::new();
        for t in 0..90 {
            let first = nodes.len();
            for i in 0..1_000 {
                let parent = (i > 0).then(|| nodes[first + rng.next_u64() as usize % i]);
                let local = Transform::from_translation(Vec3::new(t as f32, 0.1, 0.0))
                    .with_rotation(Quat::from_rotation_z(0.01 * i as f32));
                nodes.push(scene.spawn(parent, "n", local).unwrap());
            }
        }
        scene.propagate();
        (scene, nodes)
    }

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool")
    }

    /// Rounds of 2,000 scattered changes (some teleports) propagated on two
    /// cores and on one give the same worlds, previous worlds, changed
    /// ranges and counts, and the worlds are their parents' times their
    /// locals; after a reparent across the cut, the pass stays on one core
    /// and still agrees.
    #[test]
    fn two_cores_walk_what_one_walks() {
        let (mut two, nodes) = trees();
        let (mut one, _) = trees();
        let (pool_two, pool_one) = (pool(2), pool(1));
        let mut rng = SplitMix64::new(5);
        for round in 0..8 {
            if round == 4 {
                // A node after the cut under one before it: no clean cut.
                let (late, early) = (nodes[80_000], nodes[3]);
                two.reparent(late, Some(early), Keep::Local).unwrap();
                one.reparent(late, Some(early), Keep::Local).unwrap();
            }
            two.snapshot_previous();
            one.snapshot_previous();
            for k in 0..2_000 {
                let node = nodes[rng.next_u64() as usize % nodes.len()];
                let local = two.local(node).unwrap();
                let local = local.with_rotation(Quat::from_rotation_z(round as f32 + k as f32));
                if k % 50 == 0 {
                    two.teleport(node, local).unwrap();
                    one.teleport(node, local).unwrap();
                } else {
                    two.set_local(node, local).unwrap();
                    one.set_local(node, local).unwrap();
                }
            }
            let stats = (
                pool_two.install(|| two.propagate()),
                pool_one.install(|| one.propagate()),
            );
            assert_eq!(stats.0, stats.1, "round {round}");
            let cut = two.sparse_cut.and_then(|(_, cut)| cut);
            assert_eq!(cut.is_some(), round < 4, "round {round}: cut {cut:?}");
            let changed = |s: &Scene| s.changed_nodes().collect::<Vec<_>>();
            assert_eq!(changed(&two), changed(&one), "round {round}");
            for &node in &nodes {
                assert_eq!(two.world(node), one.world(node), "round {round}");
                assert_eq!(two.previous_world(node), one.previous_world(node));
                let parent = two
                    .parent(node)
                    .map_or(glam::Affine3A::IDENTITY, |p| two.world(p).unwrap());
                let expected = parent * two.local(node).unwrap().to_affine();
                assert!(
                    two.world(node).unwrap().abs_diff_eq(expected, 1e-3),
                    "round {round}"
                );
            }
        }
    }
}
