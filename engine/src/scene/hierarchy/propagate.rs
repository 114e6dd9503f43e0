//! The dirty-flag pass: [`Scene::propagate`] recomputes the world transforms
//! of flagged nodes and their descendants (see `transform.rs` for the flags).
//! Few dirty nodes: each flagged subtree is walked through the child links
//! (`sparse.rs`).
//! Many: one linear pass over the columns (parents come before children).
//!
//! Pattern: dirty flag, data locality.

use crate::transform::Affine3x4;

use super::layout::{FAR, Hot, Meta};
use super::local_to_world::PropagationStats;
use super::{NONE, flag};
use crate::scene::Scene;

impl Scene {
    /// Recomputes the world transforms of dirty nodes and their descendants.
    ///
    /// Cost grows with the size of the changed subtrees, not with the scene:
    /// the dirty nodes are sorted by position (parents come before children),
    /// and each one still dirty has its subtree walked once, in pre-order
    /// through the child links, which clears the flags of the dirty nodes
    /// inside it. When many nodes are dirty (or some were not listed: a
    /// crowd's bones), one linear pass over the columns costs less than
    /// sorting; the result is the same.
    ///
    /// The recomputed nodes are added to [`Scene::changed_nodes`]: a
    /// propagation in the middle of a step (reparenting with [`Keep::World`](super::Keep::World)
    /// reads current worlds) must not hide its nodes from the one at the end.
    pub fn propagate(&mut self) -> PropagationStats {
        puffin::profile_scope!("propagate");
        self.save_structure();
        if self.dirty.is_empty() && self.dirty_unlisted == 0 {
            self.last_recomputed = 0;
            self.settle_stale();
            return PropagationStats::default();
        }
        let first = self.last_changed.len();
        let stats = if self.dirty_unlisted > 0 || self.propagates_linearly(self.dirty.len()) {
            self.dirty.clear();
            self.dirty_unlisted = 0;
            self.propagate_linear(first)
        } else {
            self.propagate_sparse()
        };
        self.unsnapped
            .extend_from_slice(&self.last_changed[first..]);
        self.last_recomputed = stats.recomputed;
        self.settle_stale();
        stats
    }

    /// Whether a propagation with `dirty` nodes dirty is the linear pass (one
    /// node in eight or more): what it costs is then the scene's size, and a
    /// list of the dirty nodes is not worth keeping.
    pub(in crate::scene) fn propagates_linearly(&self, dirty: usize) -> bool {
        dirty * 8 >= self.hot.len()
    }

    /// Every position in order: a node is recomputed if it is dirty or its
    /// parent was (the parent's MOVED and SNAP bits are always from this pass,
    /// because the parent comes first).
    /// `first`: where this pass's ranges start in `last_changed`.
    ///
    /// Large scenes are cut into spans (at roots where one is near) walked on
    /// several cores. A node whose parent lies in an earlier span cannot be
    /// computed until that span is done: it is deferred with its descendants
    /// in its span (DEFER), and afterwards each deferred subtree is walked
    /// through the links, in position order, with the same rule.
    fn propagate_linear(&mut self, first: usize) -> PropagationStats {
        let n = self.hot.len();
        // (Asking rayon for its threads builds its pool: small scenes never do.)
        let spans = if n < 2 * PARALLEL_SPAN {
            1
        } else {
            (rayon::current_num_threads() * 2)
                .min(n / PARALLEL_SPAN)
                .min(MAX_SPANS)
                .next_power_of_two()
        };
        let mut outs = std::mem::take(&mut self.span_scratch);
        outs.resize_with(spans.max(outs.len()), SpanOut::default);
        for out in &mut outs {
            out.clear();
        }
        let (out, parent, local, _) = Written::of(&mut self.hot);
        let span = Span {
            start: 0,
            epoch: self.epoch,
            parent,
            local,
            out,
        };
        span.run_split(&mut outs[..spans]);
        let mut stats = PropagationStats::default();
        let mut far = 0;
        for out in &outs[..spans] {
            self.last_changed.extend_from_slice(&out.ranges);
            stats.roots += out.roots;
            far += out.far;
        }
        let mut run = Run::default();
        for out in &outs[..spans] {
            for &d in &out.deferred {
                if self.hot.flags[d as usize] & flag::DEFER != 0 {
                    stats.roots += self.finish_deferred(d, &mut run);
                }
            }
        }
        run.finish(&mut self.last_changed);
        self.span_scratch = outs;
        self.upkeep.disorder = far;
        stats.recomputed = self.last_changed[first..]
            .iter()
            .map(|&(s, e)| (e - s) as usize)
            .sum();
        stats
    }

    /// Walks the subtree of the deferred node `root` (its parent is final
    /// now), applying the linear pass's rule to each node and clearing DEFER.
    /// Returns how many ranges of recomputation started here.
    fn finish_deferred(&mut self, root: u32, run: &mut Run) -> usize {
        let hot = &mut self.hot;
        let mut roots = 0;
        let mut d = root;
        while d != NONE {
            let i = d as usize;
            let parent = hot.parent[i];
            let parent_flags = if parent == NONE {
                0
            } else {
                hot.flags[parent as usize]
            };
            hot.flags[i] &= !flag::DEFER;
            if !keep(&mut hot.flags[i], parent_flags) {
                let parent_world = if parent == NONE {
                    Affine3x4::IDENTITY
                } else {
                    *hot.current_world(parent as usize)
                };
                let node = HotEntry {
                    flags: &mut hot.flags[i],
                    world: &mut hot.world[i],
                    prev: &mut hot.prev_world[i],
                    moved: &mut hot.moved[i],
                };
                let local = &hot.local[i];
                let started = recompute(node, self.epoch, parent_flags, &parent_world, local);
                roots += usize::from(started);
                run.add(d, &mut self.last_changed);
            }
            d = hot.next_preorder(d, root);
        }
        roots
    }
}

/// Positions per span below which the linear pass stays on one core (and
/// below twice which the sparse pass does).
pub(super) const PARALLEL_SPAN: usize = 32 * 1024;
/// At most this many spans (a power of two).
const MAX_SPANS: usize = 16;
/// How far past an even split a span's start looks for a root.
pub(super) const ROOT_SEARCH: usize = 4096;

/// The linear pass's rule for one node: it is recomputed when dirty or when
/// its parent moved in this pass; otherwise it is kept (true), and last
/// pass's MOVED and SNAP are cleared. Decided before the parent's world is
/// read: a kept node does not read it.
#[inline]
fn keep(flags: &mut u8, parent_flags: u8) -> bool {
    let old = *flags;
    if old & flag::DIRTY == 0 && parent_flags & flag::MOVED == 0 {
        let kept = old & !(flag::MOVED | flag::SNAP);
        if kept != old {
            *flags = kept;
        }
        return true;
    }
    false
}

/// One node's entries in the hot columns, the ones [`recompute`] writes.
struct HotEntry<'a> {
    flags: &'a mut u8,
    world: &'a mut Affine3x4,
    prev: &'a mut Affine3x4,
    /// The epoch the node last moved in.
    moved: &'a mut u32,
}

/// Recomputes a node the linear pass does not [`keep`], in place, as moved
/// in `epoch` (a teleport, or a parent that snapped, snaps it). Returns
/// whether a run of recomputation starts here (its parent did not move).
#[inline]
fn recompute(
    node: HotEntry<'_>,
    epoch: u32,
    parent_flags: u8,
    parent_world: &Affine3x4,
    local: &super::Transform,
) -> bool {
    let HotEntry {
        flags,
        world,
        prev,
        moved,
    } = node;
    let old = *flags;
    *world = parent_world.mul(&Affine3x4::from_transform(local));
    *moved = epoch;
    let snap = (old & flag::TELEPORT) | (parent_flags & flag::SNAP) != 0;
    if snap {
        *prev = *world;
    }
    *flags = (old & !(flag::DIRTY | flag::TELEPORT | flag::SNAP | flag::STALE))
        | flag::MOVED
        | if snap { flag::SNAP } else { 0 };
    parent_flags & flag::MOVED == 0
}

/// What one span of the linear pass did (kept between passes for its buffers).
#[derive(Clone, Debug, Default)]
pub(super) struct SpanOut {
    /// Ranges recomputed, ascending.
    ranges: Vec<(u32, u32)>,
    /// Nodes whose parent lay in an earlier span, ascending.
    deferred: Vec<u32>,
    roots: usize,
    far: usize,
}

impl SpanOut {
    fn clear(&mut self) {
        self.ranges.clear();
        self.deferred.clear();
        self.roots = 0;
        self.far = 0;
    }
}

/// A run of positions of the hot columns, walked by one core.
struct Span<'a> {
    /// Position of the first.
    start: u32,
    /// What recomputed nodes' `moved` becomes.
    epoch: u32,
    parent: &'a [u32],
    local: &'a [super::Transform],
    out: Written<'a>,
}

/// The columns a propagation pass writes, from some position on (a span's
/// part, a sparse walk's side).
pub(super) struct Written<'a> {
    pub world: &'a mut [Affine3x4],
    pub prev: &'a mut [Affine3x4],
    pub moved: &'a mut [u32],
    pub flags: &'a mut [u8],
}

impl<'a> Written<'a> {
    /// The columns `hot` propagation writes, whole, and beside them the ones
    /// it only reads: parents, locals, links.
    pub(super) fn of(hot: &'a mut Hot) -> (Self, &'a [u32], &'a [super::Transform], &'a [Meta]) {
        let written = Written {
            world: &mut hot.world,
            prev: &mut hot.prev_world,
            moved: &mut hot.moved,
            flags: &mut hot.flags,
        };
        (written, &hot.parent, &hot.local, &hot.meta)
    }

    /// The part before index `i`, and the part from it on.
    pub(super) fn split_at(self, i: usize) -> (Self, Self) {
        let (world_l, world_r) = self.world.split_at_mut(i);
        let (prev_l, prev_r) = self.prev.split_at_mut(i);
        let (moved_l, moved_r) = self.moved.split_at_mut(i);
        let (flags_l, flags_r) = self.flags.split_at_mut(i);
        (
            Written {
                world: world_l,
                prev: prev_l,
                moved: moved_l,
                flags: flags_l,
            },
            Written {
                world: world_r,
                prev: prev_r,
                moved: moved_r,
                flags: flags_r,
            },
        )
    }
}

impl Span<'_> {
    /// Splits into `outs.len()` spans (a power of two), each starting at a
    /// root near an even split where there is one, walked in parallel.
    fn run_split(self, outs: &mut [SpanOut]) {
        if outs.len() <= 1 {
            self.run(&mut outs[0]);
            return;
        }
        let len = self.parent.len();
        let even = len / 2;
        let search = (even + ROOT_SEARCH).min(len);
        let cut = (even..search)
            .find(|&i| self.parent[i] == NONE)
            .unwrap_or(even);
        let (left_outs, right_outs) = outs.split_at_mut(outs.len() / 2);
        let (left, right) = self.split_at(cut);
        rayon::join(|| left.run_split(left_outs), || right.run_split(right_outs));
    }

    fn split_at(self, at: usize) -> (Self, Self) {
        let (parent_l, parent_r) = self.parent.split_at(at);
        let (local_l, local_r) = self.local.split_at(at);
        let (out_l, out_r) = self.out.split_at(at);
        (
            Span {
                start: self.start,
                epoch: self.epoch,
                parent: parent_l,
                local: local_l,
                out: out_l,
            },
            Span {
                start: self.start + at as u32,
                epoch: self.epoch,
                parent: parent_r,
                local: local_r,
                out: out_r,
            },
        )
    }

    /// The linear pass over this span; a node whose parent lies before it is
    /// deferred, and so (DEFER) are its descendants here.
    fn run(self, out: &mut SpanOut) {
        let start = self.start;
        let mut run = Run::default();
        let mut last_parent = NONE;
        // The world just recomputed, and where: a chain's next bone reads
        // its parent from the register rather than waiting on the store.
        let mut just = (usize::MAX, Affine3x4::IDENTITY);
        for i in 0..self.parent.len() {
            let d = start + i as u32;
            let flags = self.out.flags[i];
            let parent = self.parent[i];
            if parent != last_parent {
                out.far += usize::from(parent != NONE && d - parent > FAR);
                last_parent = parent;
            }
            let (p, parent_flags) = if parent == NONE {
                (None, 0)
            } else if parent < start {
                out.deferred.push(d);
                self.out.flags[i] = flags | flag::DEFER;
                continue;
            } else {
                let p = (parent - start) as usize;
                let parent_flags = self.out.flags[p];
                if parent_flags & flag::DEFER != 0 {
                    self.out.flags[i] = flags | flag::DEFER;
                    continue;
                }
                (Some(p), parent_flags)
            };
            if keep(&mut self.out.flags[i], parent_flags) {
                continue;
            }
            let parent_world = match p {
                None => Affine3x4::IDENTITY,
                Some(p) if p == just.0 => just.1,
                // A parent kept this pass and stale since the snapshot has
                // its current world in the previous column.
                Some(p) if parent_flags & flag::STALE != 0 => self.out.prev[p],
                Some(p) => self.out.world[p],
            };
            let node = HotEntry {
                flags: &mut self.out.flags[i],
                world: &mut self.out.world[i],
                prev: &mut self.out.prev[i],
                moved: &mut self.out.moved[i],
            };
            let started = recompute(
                node,
                self.epoch,
                parent_flags,
                &parent_world,
                &self.local[i],
            );
            just = (i, self.out.world[i]);
            out.roots += usize::from(started);
            run.add(d, &mut out.ranges);
        }
        run.finish(&mut out.ranges);
    }
}

/// Consecutive recomputed positions, gathered into ranges as they come.
#[derive(Default)]
pub(super) struct Run {
    start: u32,
    end: u32,
}

impl Run {
    #[inline]
    pub(super) fn add(&mut self, d: u32, out: &mut Vec<(u32, u32)>) {
        if d != self.end || self.start == self.end {
            self.finish(out);
            self.start = d;
        }
        self.end = d + 1;
    }

    pub(super) fn finish(&mut self, out: &mut Vec<(u32, u32)>) {
        if self.start != self.end {
            out.push((self.start, self.end));
        }
        self.start = self.end;
    }
}

#[cfg(test)]
mod tests {
    use glam::{Affine3A, Quat, Vec3};

    use super::*;
    use crate::scene::{Keep, NodeId, Transform};

    /// World transforms by recursion from the roots: the definition.
    fn check_against_recursion(scene: &Scene) {
        fn walk(scene: &Scene, node: NodeId, parent: Affine3A) {
            let world = parent * scene.local(node).unwrap().to_affine();
            let got = scene.world(node).unwrap();
            assert!(got.abs_diff_eq(world, 1e-4), "{node}: {got:?} vs {world:?}");
            for child in scene.children(node).collect::<Vec<_>>() {
                walk(scene, child, world);
            }
        }
        for root in scene.roots().collect::<Vec<_>>() {
            walk(scene, root, Affine3A::IDENTITY);
        }
    }

    /// 800 trees of 100 nodes (chains of 11, nine under each root).
    fn forest() -> (Scene, Vec<NodeId>) {
        let mut scene = Scene::new();
        let mut nodes = Vec::new();
        for t in 0..800 {
            let root = scene
                .spawn(
                    None,
                    "tree",
                    Transform::from_translation(Vec3::X * t as f32),
                )
                .unwrap();
            nodes.push(root);
            for _ in 0..9 {
                let mut parent = root;
                for _ in 0..11 {
                    let local = Transform::from_translation(Vec3::Y)
                        .with_rotation(Quat::from_rotation_z(0.1));
                    parent = scene.spawn(Some(parent), "bone", local).unwrap();
                    nodes.push(parent);
                }
            }
        }
        scene.propagate();
        (scene, nodes)
    }

    /// [`forest`] with 300 random reparents (`seed`): children far from
    /// their parents, many in other spans.
    fn tangled_forest(seed: u64) -> (Scene, Vec<NodeId>) {
        let (mut scene, nodes) = forest();
        let mut rng = crate::rng::SplitMix64::new(seed);
        for _ in 0..300 {
            let a = nodes[rng.next_u64() as usize % nodes.len()];
            let b = nodes[rng.next_u64() as usize % nodes.len()];
            if !scene.is_ancestor_or_self(a, b) {
                scene.reparent(a, Some(b), Keep::Local).unwrap();
            }
        }
        (scene, nodes)
    }

    fn dirty_all(scene: &mut Scene, nodes: &[NodeId], angle: f32) {
        for &node in nodes {
            let local = scene.local(node).unwrap();
            scene
                .set_local(node, local.with_rotation(Quat::from_rotation_z(angle)))
                .unwrap();
        }
    }

    #[test]
    fn a_linear_pass_matches_recursion_and_records_every_node_once() {
        let (mut scene, nodes) = forest();
        dirty_all(&mut scene, &nodes, 0.2);
        let stats = scene.propagate();
        assert_eq!(stats.recomputed, nodes.len());
        assert_eq!(stats.roots, 800, "each tree's root starts its range");
        check_against_recursion(&scene);
        let mut changed: Vec<NodeId> = scene.changed_nodes().collect();
        changed.sort();
        changed.dedup();
        assert_eq!(changed.len(), nodes.len());
    }

    /// The parallel linear pass with many children whose parents lie in
    /// earlier spans (deferred, then walked), some of them teleported: the
    /// same worlds as recursion, every node recorded once, and a teleported
    /// subtree snapped (previous world = world) wherever its nodes lie.
    #[test]
    fn spans_defer_children_of_earlier_spans_and_match_recursion() {
        let (mut scene, nodes) = tangled_forest(7);
        assert!(scene.hot.len() >= 2 * PARALLEL_SPAN, "big enough to split");
        scene.propagate();
        scene.snapshot_previous();
        dirty_all(&mut scene, &nodes, 0.25);
        let jumped = nodes[nodes.len() / 3];
        let mut t = scene.local(jumped).unwrap();
        t.translation = Vec3::splat(9.0);
        scene.teleport(jumped, t).unwrap();
        let stats = scene.propagate();
        assert_eq!(stats.recomputed, nodes.len());
        check_against_recursion(&scene);
        let mut changed: Vec<NodeId> = scene.changed_nodes().collect();
        changed.sort();
        changed.dedup();
        assert_eq!(changed.len(), nodes.len(), "each node recorded once");
        for node in scene.subtree(jumped).collect::<Vec<_>>() {
            let d = scene.dense(node).unwrap();
            assert_eq!(scene.hot.prev_world[d], scene.hot.world[d], "snapped");
            assert_eq!(scene.hot.flags[d] & flag::DEFER, 0);
        }
        assert!(scene.hot.flags.iter().all(|f| f & flag::DEFER == 0));
    }

    /// The linear pass on several cores after a swapped snapshot: only the
    /// chains' ends move, so their kept parents are stale (their world where
    /// the swap left it), some in an earlier span than their moving children.
    #[test]
    fn spans_after_a_swapped_snapshot_read_kept_parents_where_the_swap_left_them() {
        let (mut scene, nodes) = tangled_forest(11);
        scene.propagate();
        scene.snapshot_previous();
        dirty_all(&mut scene, &nodes, 0.25);
        scene.propagate();
        let before: Vec<Affine3A> = nodes.iter().map(|&n| scene.world(n).unwrap()).collect();
        scene.snapshot_previous();
        assert!(
            !scene.stale.is_empty(),
            "every node moved: the snapshot swaps"
        );
        for (i, &node) in nodes.iter().enumerate() {
            assert_eq!(
                scene.world(node),
                Some(before[i]),
                "{node} read through the swap"
            );
        }
        // The chains' last two bones (and what hangs below them): their
        // parents stay put (stale), and they are enough for the linear pass.
        let ends: Vec<NodeId> = (nodes.iter().copied())
            .filter(|&n| scene.depth(n).is_some_and(|d| d >= 10))
            .collect();
        assert!(ends.len() * 8 >= scene.hot.len(), "{} nodes", ends.len());
        dirty_all(&mut scene, &ends, 0.5);
        let stats = scene.propagate();
        assert!(
            stats.recomputed < nodes.len() / 2,
            "{} recomputed",
            stats.recomputed
        );
        check_against_recursion(&scene);
        for (i, &node) in nodes.iter().enumerate() {
            assert_eq!(
                scene.previous_world(node),
                Some(before[i]),
                "previous of {node}"
            );
        }
        assert!(scene.stale.is_empty());
        assert!(
            scene
                .hot
                .flags
                .iter()
                .all(|f| f & (flag::STALE | flag::DEFER) == 0)
        );
    }

    #[test]
    fn a_child_far_from_its_parent_is_still_recomputed_after_it() {
        let (mut scene, nodes) = forest();
        // A node of the last tree moves under the first tree's root: a child
        // far after its parent.
        let last = *nodes.last().unwrap();
        scene.reparent(last, Some(nodes[0]), Keep::Local).unwrap();
        dirty_all(&mut scene, &nodes, -0.3);
        scene.propagate();
        check_against_recursion(&scene);
    }
}
