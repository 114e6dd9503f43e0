//! A scene's local transforms, and the dirty-flag pass that derives its world
//! transforms.
//!
//! Dirty flag pattern: the local transform is the primary data and changes
//! often; the world transform is derived and needed once per frame. Every path
//! that changes a local transform goes through [`Scene::set_local`] (or
//! [`Scene::teleport`]), which flags the node only if the value really changed.
//! [`Scene::propagate`] then recomputes the flagged nodes and their
//! descendants, and nothing else: each flagged subtree is walked through the
//! child links, each node at most once per pass. Untouched subtrees cost
//! nothing. Parents come before children in the columns, so when most nodes
//! changed one linear pass does the same work.
//!
//! Double buffer: before each fixed update, [`Scene::snapshot_previous`] makes
//! the current world transforms the previous ones, so rendering can draw any
//! node between its last two fixed-step states ([`Scene::interpolated_world`]).
//! When many nodes moved in the last step, the two columns are swapped rather
//! than copied, and the moved nodes are marked stale (their current world is
//! in the previous column) until propagation writes them again or settles
//! them back at its end: a scene that keeps moving copies nothing.

use glam::Affine3A;

use super::{NONE, flag};
use crate::scene::{NodeError, NodeId, Scene};
use crate::transform::{Affine3x4, Transform, interpolate};

/// What the last [`Scene::propagate`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PropagationStats {
    /// World transforms recomputed (dirty nodes and their descendants, each once).
    pub recomputed: usize,
    /// Dirty nodes that started a recomputed range (the others lay inside one).
    pub roots: usize,
}

impl Scene {
    /// The local transform of `node`.
    pub fn local(&self, node: NodeId) -> Option<Transform> {
        self.dense(node).map(|d| self.hot.local[d])
    }

    /// Sets the local transform of `node`, flagging it dirty if the value changed.
    ///
    /// Returns whether it changed. The node is interpolated from where it was:
    /// use [`Scene::teleport`] for a jump.
    ///
    /// # Errors
    /// [`NodeError::StaleNode`] for a dead handle; [`NodeError::InvalidTransform`]
    /// for NaN or infinite values (the node keeps its old transform).
    pub fn set_local(&mut self, node: NodeId, local: Transform) -> Result<bool, NodeError> {
        let d = self.dense_or_err(node)?;
        self.set_local_at(node, d, local, flag::DIRTY)
    }

    /// Changes the local transform of `node` in place (one lookup, where
    /// [`Scene::local`] then [`Scene::set_local`] make two), flagging it dirty
    /// if the value changed. Returns whether it changed.
    ///
    /// ```
    /// use keel_engine::{Scene, Transform};
    ///
    /// let mut scene = Scene::new();
    /// let buoy = scene.spawn(None, "buoy", Transform::IDENTITY)?;
    /// scene.update_local(buoy, |local| local.translation.y += 0.5)?;
    /// scene.propagate();
    /// assert_eq!(scene.world(buoy).unwrap().translation.y, 0.5);
    /// # Ok::<(), keel_engine::NodeError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Scene::set_local`] (the node keeps its old transform).
    pub fn update_local(
        &mut self,
        node: NodeId,
        change: impl FnOnce(&mut Transform),
    ) -> Result<bool, NodeError> {
        let d = self.dense_or_err(node)?;
        let mut local = self.hot.local[d];
        change(&mut local);
        self.set_local_at(node, d, local, flag::DIRTY)
    }

    /// Sets the local transform of `node` as a jump: the next frames draw it at
    /// the new place at once instead of sliding there (teleports, editor edits).
    ///
    /// # Errors
    /// As [`Scene::set_local`].
    pub fn teleport(&mut self, node: NodeId, local: Transform) -> Result<bool, NodeError> {
        let d = self.dense_or_err(node)?;
        self.set_local_at(node, d, local, flag::DIRTY | flag::TELEPORT)
    }

    pub(super) fn set_local_at(
        &mut self,
        node: NodeId,
        d: usize,
        local: Transform,
        bits: u8,
    ) -> Result<bool, NodeError> {
        let (_, mut transforms) = self.columns_and_transforms();
        transforms.set_local_at(node, d, local, bits)
    }

    /// The world transform of `node` as of the last [`Scene::propagate`].
    pub fn world(&self, node: NodeId) -> Option<Affine3A> {
        self.dense(node)
            .map(|d| self.hot.current_world(d).to_affine())
    }

    /// The world transform `node` has now, its own and its ancestors' local
    /// changes since the last propagation included (a system that moved a
    /// parent with [`Scene::set_local`] and reads a child in the same step).
    /// Computed along the path to the root, O(depth), the same arithmetic
    /// as the propagation that will store it; nothing is written.
    pub fn world_now(&self, node: NodeId) -> Option<Affine3A> {
        self.dense(node).map(|d| self.hot.world_now(d).to_affine())
    }

    /// The world transform of `node` at the previous fixed step.
    pub fn previous_world(&self, node: NodeId) -> Option<Affine3A> {
        self.dense(node).map(|d| self.hot.prev_world[d].to_affine())
    }

    /// Whether `node` has a local change that the next propagation will apply.
    pub fn is_dirty(&self, node: NodeId) -> bool {
        self.dense(node)
            .is_some_and(|d| self.hot.flags[d] & flag::DIRTY != 0)
    }

    /// World transforms recomputed by the last propagation.
    pub fn last_recomputed(&self) -> usize {
        self.last_recomputed
    }

    /// The nodes whose world transform was recomputed by the propagations
    /// since the last [`Scene::clear_changed`] or snapshot: what the spatial
    /// index must re-file.
    ///
    /// A node recomputed by two propagations may be listed twice. Nodes
    /// despawned since are left out; valid until the next snapshot (which
    /// may compact the columns).
    pub fn changed_nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.last_changed
            .iter()
            .flat_map(|&(start, end)| start as usize..end as usize)
            .filter(|&d| self.hot.meta[d].slot != NONE)
            .map(|d| self.id_at(d))
    }

    /// Forgets [`Scene::changed_nodes`] (their consumer has seen them).
    pub fn clear_changed(&mut self) {
        self.save_structure();
        self.last_changed.clear();
    }

    /// Double buffer: makes the current world transforms the previous ones.
    ///
    /// Called before each fixed update. Only ranges recomputed since the last
    /// snapshot are copied (the others are equal already). Then, with no range
    /// pending, one bounded step of the layout's upkeep (relayout, sweep) may
    /// move nodes (each carries both its transforms along).
    pub fn snapshot_previous(&mut self) {
        self.save_previous();
        self.settle_stale();
        let upkeep_due = self.upkeep_due();
        let hot = &mut self.hot;
        if self.snapshot_all {
            copy_parallel(&mut hot.prev_world, &hot.world);
            self.snapshot_all = false;
        } else {
            let total: usize = self.unsnapped.iter().map(|&(s, e)| (e - s) as usize).sum();
            if total > SWAP_MIN && !upkeep_due {
                // Swapped, not copied: the previous column is now the
                // current worlds, every one (outside the ranges the two were
                // equal). The world column is current outside the ranges;
                // inside, its nodes are marked stale (a byte each, not 48),
                // propagation overwrites the ones that move again, and
                // `settle_stale` copies the rest back when it ends.
                std::mem::swap(&mut hot.world, &mut hot.prev_world);
                for &(start, end) in &self.unsnapped {
                    for f in &mut hot.flags[start as usize..end as usize] {
                        *f |= flag::STALE;
                    }
                }
                std::mem::swap(&mut self.stale, &mut self.unsnapped);
            } else if total > PARALLEL_COPY {
                // Several passes of a step, and walks through the links,
                // leave ranges out of order and overlapping: in order and
                // merged, they split between cores by position.
                sort_and_merge(&mut self.unsnapped);
                copy_ranges(&mut hot.prev_world, &hot.world, 0, &self.unsnapped);
            } else {
                for &(start, end) in &self.unsnapped {
                    let range = start as usize..end as usize;
                    hot.prev_world[range.clone()].copy_from_slice(&hot.world[range]);
                }
            }
        }
        self.unsnapped.clear();
        // A new step: what changed before it has been consumed.
        self.last_changed.clear();
        self.next_epoch();
        if self.upkeep_step() {
            // Every previous world equals the current one here, and moves
            // carry both: nothing is left to copy, and old positions are void.
            self.unsnapped.clear();
        }
    }

    /// Starts the next epoch (of `Hot::moved`). Should the count run out
    /// (after 4 billion steps), every node counts as moved in epoch 0 and the
    /// layout stamp is renewed, so no one keeps what it derived from the old
    /// epochs.
    fn next_epoch(&mut self) {
        if self.epoch == u32::MAX {
            self.hot.moved.fill(0);
            self.hot.layout = super::layout::next_layout();
            self.epoch = 0;
        }
        self.epoch += 1;
    }

    /// Ends the snapshot's swap: every node still [`flag::STALE`] (not
    /// recomputed since) gets its current world back in the world column.
    /// Runs at the end of each propagation and before positions move.
    pub(super) fn settle_stale(&mut self) {
        if self.stale.is_empty() {
            return;
        }
        let hot = &mut self.hot;
        for &(start, end) in &self.stale {
            let range = start as usize..end as usize;
            let flags = &mut hot.flags[range.clone()];
            let (world, prev) = (&mut hot.world[range.clone()], &hot.prev_world[range]);
            for ((f, w), p) in flags.iter_mut().zip(world).zip(prev) {
                if *f & flag::STALE != 0 {
                    *w = *p;
                    *f &= !flag::STALE;
                }
            }
        }
        self.stale.clear();
    }

    /// `node`'s world transform between the previous and the current fixed step.
    ///
    /// `alpha` 0 is the previous step, 1 the current one: translation and scale
    /// are interpolated linearly, rotation spherically.
    #[inline]
    pub fn interpolated_world(&self, node: NodeId, alpha: f32) -> Option<Affine3A> {
        self.dense(node)
            .map(|d| self.interpolated_at(d, alpha).to_affine())
    }

    /// The world column as the current step left it, when every entry is
    /// current (no snapshot swapped a kept node's world away): a loop over
    /// many nodes at `alpha` 1 reads it straight, without the per-node check.
    #[inline]
    pub(crate) fn current_worlds(&self) -> Option<&[Affine3x4]> {
        self.stale.is_empty().then_some(&self.hot.world[..])
    }

    /// [`Scene::interpolated_world`] by dense index, as stored (rows).
    /// Always inlined: it is the body of joint packing's loop.
    #[inline(always)]
    pub(crate) fn interpolated_at(&self, d: usize, alpha: f32) -> Affine3x4 {
        let mut out = Affine3x4::IDENTITY;
        interpolate(&self.hot.prev_world[d], self.current_at(d), alpha, &mut out);
        out
    }

    /// [`Scene::interpolated_world`] as stored (rows, what the GPU reads)
    /// written into `out`; false (and `out` untouched) for a dead handle. For
    /// loops over every mesh: the result goes straight to its destination
    /// instead of through a temporary on the stack. Always inlined: it is the
    /// body of extraction's loop over every mesh.
    #[inline(always)]
    pub(crate) fn interpolate_world_into(
        &self,
        node: NodeId,
        alpha: f32,
        out: &mut Affine3x4,
    ) -> bool {
        let Some(d) = self.dense(node) else {
            return false;
        };
        interpolate(&self.hot.prev_world[d], self.current_at(d), alpha, out);
        true
    }

    /// [`Scene::interpolate_world_into`], and whether the node is moving
    /// (its previous and current world transforms differ); `None` for a dead
    /// handle.
    #[inline]
    pub(crate) fn interpolate_moving_into(
        &self,
        node: NodeId,
        alpha: f32,
        out: &mut Affine3x4,
    ) -> Option<bool> {
        let d = self.dense(node)?;
        let (prev, current) = (&self.hot.prev_world[d], self.current_at(d));
        interpolate(prev, current, alpha, out);
        Some(prev != current)
    }

    /// The current world at `d`; between steps (nothing stale, as whenever
    /// a frame is drawn) without reading the node's flags.
    #[inline]
    fn current_at(&self, d: usize) -> &Affine3x4 {
        if self.stale.is_empty() {
            &self.hot.world[d]
        } else {
            self.hot.current_world(d)
        }
    }
}

/// Copies of more world transforms than this are split between cores.
const PARALLEL_COPY: usize = 16 * 1024;

/// A snapshot of more recomputed world transforms than this swaps the
/// columns instead of copying them (the unit tests swap nearly always, so
/// the reference model checks the swap on every shape of scene).
pub(super) const SWAP_MIN: usize = if cfg!(test) { 4 } else { PARALLEL_COPY };

/// `ranges` in ascending order, overlapping and touching ones merged.
fn sort_and_merge(ranges: &mut Vec<(u32, u32)>) {
    ranges.sort_unstable();
    let mut kept = 0;
    for i in 0..ranges.len() {
        let (start, end) = ranges[i];
        if kept > 0 && start <= ranges[kept - 1].1 {
            ranges[kept - 1].1 = ranges[kept - 1].1.max(end);
        } else {
            ranges[kept] = (start, end);
            kept += 1;
        }
    }
    ranges.truncate(kept);
}

/// `dst[r] = src[r]` for each of the ascending, disjoint `ranges` (positions
/// counted from `base`, where `dst` and `src` start): many short runs (a
/// crowd's bones, a run per rig) are split between cores by position.
fn copy_ranges(dst: &mut [Affine3x4], src: &[Affine3x4], base: usize, ranges: &[(u32, u32)]) {
    let total: usize = ranges.iter().map(|&(s, e)| (e - s) as usize).sum();
    if ranges.len() < 2 || total <= PARALLEL_COPY {
        for &(start, end) in ranges {
            let range = start as usize - base..end as usize - base;
            copy_parallel(&mut dst[range.clone()], &src[range]);
        }
        return;
    }
    let mid = ranges.len() / 2;
    let cut = ranges[mid].0 as usize - base;
    let (d0, d1) = dst.split_at_mut(cut);
    let (s0, s1) = src.split_at(cut);
    let (r0, r1) = ranges.split_at(mid);
    rayon::join(
        || copy_ranges(d0, s0, base, r0),
        || copy_ranges(d1, s1, base + cut, r1),
    );
}

/// `dst` = `src`, long runs split across cores (a crowd's step copies
/// megabytes of world transforms, bound by memory bandwidth one core cannot
/// fill).
fn copy_parallel(dst: &mut [Affine3x4], src: &[Affine3x4]) {
    if dst.len() <= PARALLEL_COPY {
        dst.copy_from_slice(src);
        return;
    }
    let half = dst.len() / 2;
    let (d0, d1) = dst.split_at_mut(half);
    let (s0, s1) = src.split_at(half);
    rayon::join(|| copy_parallel(d0, s0), || copy_parallel(d1, s1));
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    #[test]
    fn ranges_out_of_order_and_overlapping_are_merged_and_copied() {
        let mut ranges = vec![
            (40_000, 50_000),
            (5, 9),
            (0, 6),
            (20_000, 40_000),
            (9, 10),
            (60, 61),
        ];
        sort_and_merge(&mut ranges);
        assert_eq!(ranges, [(0, 10), (60, 61), (20_000, 50_000)]);
        let src: Vec<Affine3x4> = (0..50_000)
            .map(|i| Affine3x4::from_affine(&Affine3A::from_translation(Vec3::X * i as f32)))
            .collect();
        let mut dst = vec![Affine3x4::IDENTITY; 50_000];
        copy_ranges(&mut dst, &src, 0, &ranges);
        for (i, (d, s)) in dst.iter().zip(&src).enumerate() {
            let inside = ranges
                .iter()
                .any(|&(a, b)| (a as usize..b as usize).contains(&i));
            assert_eq!(d == s, inside || i == 0, "position {i}");
        }
    }
    use super::*;
    use crate::scene::Keep;

    fn at(x: f32) -> Transform {
        Transform::from_translation(Vec3::new(x, 0.0, 0.0))
    }

    /// A chain root -> a -> b plus an unrelated subtree other -> c.
    fn sample() -> (Scene, [NodeId; 5]) {
        let mut scene = Scene::new();
        let root = scene.spawn(None, "root", at(1.0)).unwrap();
        let a = scene.spawn(Some(root), "a", at(2.0)).unwrap();
        let b = scene.spawn(Some(a), "b", at(3.0)).unwrap();
        let other = scene.spawn(None, "other", at(10.0)).unwrap();
        let c = scene.spawn(Some(other), "c", at(20.0)).unwrap();
        scene.propagate();
        (scene, [root, a, b, other, c])
    }

    #[test]
    fn world_is_the_product_of_locals_down_the_chain() {
        let (scene, [_, _, b, _, c]) = sample();
        assert_eq!(
            scene.world(b).unwrap().translation,
            Vec3::new(6.0, 0.0, 0.0).into()
        );
        assert_eq!(
            scene.world(c).unwrap().translation,
            Vec3::new(30.0, 0.0, 0.0).into()
        );
    }

    #[test]
    fn moving_a_parent_recomputes_its_subtree_only() {
        let (mut scene, [root, _, b, other, c]) = sample();
        // The first propagation's nodes were consumed (as the index does).
        scene.clear_changed();
        scene.set_local(root, at(5.0)).unwrap();
        let stats = scene.propagate();
        assert_eq!(stats.recomputed, 3, "root, a and b; not the other subtree");
        assert_eq!(scene.world(b).unwrap().translation.x, 10.0);
        assert_eq!(scene.world(c).unwrap().translation.x, 30.0);
        assert!(!scene.is_dirty(root));
        let changed: Vec<NodeId> = scene.changed_nodes().collect();
        assert!(!changed.contains(&other) && changed.len() == 3);
    }

    #[test]
    fn each_node_is_recomputed_once_however_many_ancestors_are_dirty() {
        let (mut scene, [root, a, b, _, _]) = sample();
        scene.set_local(b, at(4.0)).unwrap();
        scene.set_local(a, at(4.0)).unwrap();
        scene.set_local(root, at(4.0)).unwrap();
        let stats = scene.propagate();
        assert_eq!(stats.recomputed, 3);
        assert_eq!(stats.roots, 1);
        assert_eq!(scene.world(b).unwrap().translation.x, 12.0);
    }

    #[test]
    fn setting_the_same_value_marks_nothing() {
        let (mut scene, [_, a, _, _, _]) = sample();
        assert!(!scene.set_local(a, at(2.0)).unwrap());
        assert_eq!(scene.propagate().recomputed, 0);
    }

    #[test]
    fn a_clean_scene_costs_nothing() {
        let (mut scene, _) = sample();
        assert_eq!(scene.propagate(), PropagationStats::default());
    }

    #[test]
    fn nan_is_refused_and_the_old_transform_kept() {
        let (mut scene, [_, a, _, _, _]) = sample();
        let err = scene.set_local(a, at(f32::NAN)).unwrap_err();
        assert!(matches!(err, NodeError::InvalidTransform { ref node, .. } if node == "a"));
        assert_eq!(scene.local(a), Some(at(2.0)));
    }

    #[test]
    fn interpolation_blends_previous_and_current() {
        let (mut scene, [root, ..]) = sample();
        scene.snapshot_previous();
        scene.set_local(root, at(3.0)).unwrap();
        scene.propagate();
        let half = scene.interpolated_world(root, 0.5).unwrap();
        assert!(
            (half.translation.x - 2.0).abs() < 1e-6,
            "got {}",
            half.translation.x
        );
        let rotated = at(3.0).with_rotation(Quat::from_rotation_y(1.0));
        scene.snapshot_previous();
        scene.set_local(root, rotated).unwrap();
        scene.propagate();
        let (_, r, _) = scene
            .interpolated_world(root, 0.5)
            .unwrap()
            .to_scale_rotation_translation();
        assert!(r.angle_between(Quat::from_rotation_y(0.5)) < 1e-4);
    }

    #[test]
    fn small_steps_blend_within_a_hair_of_slerp_and_big_ones_are_exact() {
        for (angle, tolerance) in [(0.015f32, 1e-4f32), (1.2, 1e-5)] {
            let (mut scene, [root, ..]) = sample();
            let from = at(1.0).with_scale(Vec3::splat(3.0));
            scene.teleport(root, from).unwrap();
            scene.propagate();
            scene.snapshot_previous();
            scene
                .set_local(root, from.with_rotation(Quat::from_rotation_y(angle)))
                .unwrap();
            scene.propagate();
            for alpha in [0.25, 0.5, 0.75] {
                let got = scene.interpolated_world(root, alpha).unwrap();
                let exact = Affine3A::from_scale_rotation_translation(
                    Vec3::splat(3.0),
                    Quat::IDENTITY.slerp(Quat::from_rotation_y(angle), alpha),
                    Vec3::new(1.0, 0.0, 0.0),
                );
                assert!(
                    got.abs_diff_eq(exact, tolerance * 3.0),
                    "angle {angle}, alpha {alpha}: {got:?} vs {exact:?}"
                );
            }
        }
    }

    #[test]
    fn teleport_is_not_smeared_across_the_jump() {
        let (mut scene, [root, a, ..]) = sample();
        scene.snapshot_previous();
        scene.teleport(root, at(100.0)).unwrap();
        scene.propagate();
        for node in [root, a] {
            let drawn = scene.interpolated_world(node, 0.5).unwrap();
            assert_eq!(
                drawn,
                scene.world(node).unwrap(),
                "{node} must be drawn at its new place"
            );
        }
    }

    #[test]
    fn a_teleport_inside_a_moving_subtree_snaps_its_children_too() {
        let (mut scene, [root, a, b, ..]) = sample();
        scene.snapshot_previous();
        scene.set_local(root, at(1.5)).unwrap();
        scene.teleport(a, at(50.0)).unwrap();
        scene.propagate();
        assert_eq!(
            scene.interpolated_world(b, 0.5),
            scene.world(b),
            "b follows a's jump at once"
        );
        assert_ne!(
            scene.interpolated_world(root, 0.5),
            scene.world(root),
            "root still slides"
        );
    }

    #[test]
    fn the_linear_pass_for_many_dirty_nodes_recomputes_each_node_once() {
        let mut scene = Scene::new();
        let mut nodes = Vec::new();
        for i in 0..64 {
            let parent = (i % 8 != 0).then(|| nodes[i - 1 - (i * 7) % (i % 8)]);
            nodes.push(scene.spawn(parent, "n", at(1.0)).unwrap());
        }
        scene.propagate();
        for &node in &nodes {
            scene.set_local(node, at(2.0)).unwrap();
        }
        let stats = scene.propagate();
        assert_eq!(stats.recomputed, 64, "every node once");
        assert_eq!(stats.roots, 8, "one range per tree");
        for &node in &nodes {
            let depth = scene.depth(node).unwrap() as f32;
            assert_eq!(
                scene.world(node).unwrap().translation.x,
                2.0 * (depth + 1.0)
            );
        }
    }

    #[test]
    fn snapshot_makes_previous_equal_current() {
        let (mut scene, [root, _, b, _, _]) = sample();
        scene.snapshot_previous();
        scene.set_local(root, at(7.0)).unwrap();
        scene.propagate();
        assert_ne!(scene.previous_world(b), scene.world(b));
        scene.snapshot_previous();
        assert_eq!(scene.previous_world(b), scene.world(b));
        scene.reparent(b, None, Keep::Local).unwrap();
        scene.propagate();
        scene.snapshot_previous();
        for node in scene.nodes().collect::<Vec<_>>() {
            assert_eq!(scene.previous_world(node), scene.world(node), "{node}");
        }
    }

    /// Every node's world, previous world and halfway blend, in both scenes.
    fn same_transforms(swapped: &Scene, copied: &Scene, when: &str) {
        let nodes: Vec<NodeId> = copied.nodes().collect();
        assert_eq!(swapped.nodes().count(), nodes.len(), "{when}");
        for n in nodes {
            assert_eq!(swapped.world(n), copied.world(n), "world of {n} {when}");
            let (a, b) = (swapped.previous_world(n), copied.previous_world(n));
            assert_eq!(a, b, "previous world of {n} {when}");
            let (a, b) = (
                swapped.interpolated_world(n, 0.5),
                copied.interpolated_world(n, 0.5),
            );
            assert_eq!(a, b, "halfway world of {n} {when}");
        }
    }

    /// A snapshot that swaps the world columns (much of the scene moved in
    /// the last step) against one that copies them: the same edits,
    /// propagations (linear and sparse), teleports, reparents, despawns and
    /// reads in the middle of a step give the same transforms.
    #[test]
    fn a_swapped_snapshot_answers_as_a_copied_one() {
        let mut scene = Scene::new();
        let mut roots = Vec::new();
        let mut kids = Vec::new();
        for r in 0..12 {
            let root = scene.spawn(None, "root", at(r as f32)).unwrap();
            roots.push(root);
            for _ in 0..4 {
                let child = scene.spawn(Some(root), "child", at(1.0)).unwrap();
                let grandchild = scene.spawn(Some(child), "grandchild", at(0.5)).unwrap();
                kids.push((r, child, grandchild));
            }
        }
        scene.propagate();
        let mut copied = scene.clone();
        let turn = |i: usize, k: f32| at(i as f32 + k).with_rotation(Quat::from_rotation_y(k));
        // Both scenes step alike; the copy's snapshot is told to copy all.
        let step = |swapped: &mut Scene, copied: &mut Scene, edit: &dyn Fn(&mut Scene)| {
            // (All but one step follow a step that moved many nodes.)
            let moved: u32 = swapped.unsnapped.iter().map(|r| r.1 - r.0).sum();
            let many = moved as usize > SWAP_MIN;
            swapped.snapshot_previous();
            assert_eq!(!swapped.stale.is_empty(), many, "the snapshot swapped");
            copied.snapshot_all = true;
            copied.snapshot_previous();
            same_transforms(swapped, copied, "after the snapshot");
            edit(swapped);
            edit(copied);
            same_transforms(swapped, copied, "before propagating");
            swapped.propagate();
            copied.propagate();
            same_transforms(swapped, copied, "after propagating");
        };
        // Everything moves.
        let all = |s: &mut Scene| {
            for (i, &root) in roots.iter().enumerate() {
                s.set_local(root, turn(i, 0.1)).unwrap();
            }
            // (Ignoring the nodes despawned on the way.)
            for (i, &(_, child, grandchild)) in kids.iter().enumerate() {
                let _ = s.set_local(child, turn(i, 0.2));
                let _ = s.set_local(grandchild, turn(i, 0.3));
            }
        };
        step(&mut scene, &mut copied, &all);
        // The children of half the roots move (a linear pass: the roots are
        // kept, their worlds read where the swap left them), one teleports.
        let children = |s: &mut Scene| {
            for (i, &(r, child, grandchild)) in kids.iter().enumerate() {
                if r < 6 {
                    s.set_local(child, turn(i, 0.4)).unwrap();
                    s.set_local(grandchild, turn(i, 0.5)).unwrap();
                }
            }
            s.teleport(kids[3].2, at(9.0)).unwrap();
        };
        step(&mut scene, &mut copied, &children);
        // One node under a parent that moved last step and stays put now (a
        // sparse pass reads the parent where the swap left it).
        let one = |s: &mut Scene| s.set_local(kids[5].2, turn(5, 0.7)).map(drop).unwrap();
        step(&mut scene, &mut copied, &one);
        // The other roots (the children moved before are kept and settled
        // back), reparents (to the end before anything is propagated, then
        // keeping the world: a propagation inside the step), a despawn and
        // a spawn.
        let others = |s: &mut Scene| {
            // Moved to the end with nothing propagated yet this step.
            s.reparent(kids[2].2, Some(roots[10]), Keep::Local).unwrap();
            for (i, &root) in roots.iter().enumerate().skip(6) {
                s.set_local(root, turn(i, 0.6)).unwrap();
            }
            s.reparent(kids[1].1, Some(roots[11]), Keep::World).unwrap();
            s.despawn(kids[20].1).unwrap();
            s.spawn(Some(roots[2]), "late", at(3.0)).unwrap();
        };
        step(&mut scene, &mut copied, &others);
        step(&mut scene, &mut copied, &all);
        // Swapped and settled: a step leaves nothing stale.
        assert!(scene.stale.is_empty());
        assert!(scene.hot.flags.iter().all(|f| f & flag::STALE == 0));
    }

    #[test]
    fn a_100k_deep_chain_saves_loads_and_propagates_without_recursion() {
        let mut scene = Scene::new();
        let mut last = None;
        for _ in 0..100_000 {
            last = Some(scene.spawn(last, "link", at(1.0)).unwrap());
        }
        let text = scene
            .to_file()
            .to_text(std::path::Path::new("chain.ron"))
            .unwrap();
        // Loading propagates.
        let mut loaded = Scene::from_text(
            &text,
            std::path::Path::new("chain.ron"),
            &crate::Assets::new(),
        )
        .unwrap();
        let tip = loaded.nodes().last().unwrap();
        assert_eq!(loaded.depth(tip), Some(99_999));
        assert_eq!(loaded.world(tip).unwrap().translation.x, 100_000.0);
        let root = loaded.roots().next().unwrap();
        assert_eq!(loaded.despawn(root).unwrap(), 100_000);
        assert!(loaded.is_empty());
    }
}
