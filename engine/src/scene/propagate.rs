//! The dirty-flag pass: [`Scene::propagate`] recomputes the world transforms
//! of flagged nodes and their descendants (see `transform.rs` for the flags).
//! Few dirty nodes: each flagged subtree is walked through the child links.
//! Many: one linear pass over the columns (parents come before children),
//! split in two across cores when no node in the second half has its parent
//! in the first (a crowd of model instances, a scene of many trees).
//!
//! Pattern: dirty flag, data locality.

use glam::Affine3A;

use super::graph::{NONE, flag};
use super::layout::FAR;
use super::transform::PropagationStats;
use super::{Scene, Transform};

impl Scene {
    /// Recomputes the world transforms of dirty nodes and their descendants.
    ///
    /// Cost grows with the size of the changed subtrees, not with the scene:
    /// the dirty nodes are sorted by position (parents come before children),
    /// and each one still dirty has its subtree walked once, in pre-order
    /// through the child links, which clears the flags of the dirty nodes
    /// inside it. When most nodes are dirty, one linear pass over the columns
    /// costs less than sorting; the result is the same.
    ///
    /// The recomputed nodes are added to [`Scene::changed_nodes`]: a
    /// propagation in the middle of a step (reparenting with [`Keep::World`](super::Keep::World)
    /// reads current worlds) must not hide its nodes from the one at the end.
    pub fn propagate(&mut self) -> PropagationStats {
        if self.dirty.is_empty() {
            self.last_recomputed = 0;
            return PropagationStats::default();
        }
        let first = self.last_changed.len();
        let stats = if self.dirty.len() * 8 >= self.hot.len() {
            self.dirty.clear();
            self.propagate_linear(first)
        } else {
            self.propagate_sparse()
        };
        self.unsnapped
            .extend_from_slice(&self.last_changed[first..]);
        self.last_recomputed = stats.recomputed;
        stats
    }

    /// Every position in order: a node is recomputed if it is dirty or its
    /// parent was (the parent's MOVED and SNAP bits are always from this pass,
    /// because the parent comes first).
    /// `first`: where this pass's ranges start in `last_changed`.
    fn propagate_linear(&mut self, first: usize) -> PropagationStats {
        let split = if self.hot.len() >= PARALLEL_PROPAGATE {
            self.independent_split()
        } else {
            None
        };
        let Scene {
            hot,
            last_changed,
            changed_scratch,
            ..
        } = self;
        let mut columns = Columns {
            base: 0,
            local: &hot.local,
            parent: &hot.parent,
            world: &mut hot.world,
            prev_world: &mut hot.prev_world,
            flags: &mut hot.flags,
        };
        let (roots, far) = match split {
            Some(at) => {
                let right = columns.split_off(at);
                changed_scratch.clear();
                let before = last_changed.len();
                let ((left_roots, left_far), (right_roots, right_far)) = rayon::join(
                    || columns.linear_pass(last_changed),
                    || right.linear_pass_owned(changed_scratch),
                );
                // The same ranges as one pass: a range across the split is one.
                let mut rest = &changed_scratch[..];
                let left = &mut last_changed[before..];
                if let (Some(last), Some(&(start, end))) = (left.last_mut(), rest.first())
                    && last.1 == start
                {
                    last.1 = end;
                    rest = &rest[1..];
                }
                last_changed.extend_from_slice(rest);
                (left_roots + right_roots, left_far + right_far)
            }
            None => columns.linear_pass(last_changed),
        };
        self.upkeep.disorder = far;
        PropagationStats {
            roots,
            recomputed: self.last_changed[first..]
                .iter()
                .map(|&(s, e)| (e - s) as usize)
                .sum(),
        }
    }

    /// A position near the middle where a linear pass can split: a root (or
    /// hole) such that no node after it has its parent before it.
    fn independent_split(&self) -> Option<usize> {
        use rayon::prelude::*;
        let parent = &self.hot.parent;
        let at = (parent.len() / 2..parent.len()).find(|&d| parent[d] == NONE)?;
        let bound = at as u32;
        let after = parent[at..].par_iter().with_min_len(16_384);
        after.all(|&p| p == NONE || p >= bound).then_some(at)
    }

    /// The dirty nodes by position; each one still dirty starts a pre-order walk.
    fn propagate_sparse(&mut self) -> PropagationStats {
        let mut roots = std::mem::take(&mut self.roots_scratch);
        roots.clear();
        for node in self.dirty.drain(..) {
            let slot = self.slots[node.index() as usize];
            if slot.generation == node.generation_nz() && slot.dense != NONE {
                roots.push(slot.dense);
            }
        }
        roots.sort_unstable();
        let mut stats = PropagationStats::default();
        let mut run = Run::default();
        for &root in &roots {
            if self.hot.flags[root as usize] & flag::DIRTY == 0 {
                // Inside a subtree recomputed already in this pass.
                continue;
            }
            stats.roots += 1;
            stats.recomputed += self.recompute_subtree(root, &mut run);
        }
        run.finish(&mut self.last_changed);
        self.roots_scratch = roots;
        stats
    }

    /// The kernel of the sparse pass: recomputes the subtree of `root` in
    /// pre-order. A teleported node snaps its whole subtree: nothing below it
    /// may slide either (SNAP, read from the parent, carries that down).
    fn recompute_subtree(&mut self, root: u32, run: &mut Run) -> usize {
        let hot = &mut self.hot;
        let mut count = 0;
        let mut d = root;
        while d != NONE {
            let i = d as usize;
            let parent = hot.parent[i];
            let (parent_world, parent_snap) = if parent == NONE {
                (Affine3A::IDENTITY, false)
            } else {
                let p = parent as usize;
                (hot.world[p], d != root && hot.flags[p] & flag::SNAP != 0)
            };
            let world = parent_world * hot.local[i].to_affine();
            hot.world[i] = world;
            let flags = hot.flags[i];
            let snap = parent_snap || flags & flag::TELEPORT != 0;
            if snap {
                hot.prev_world[i] = world;
            }
            hot.flags[i] = (flags & !(flag::DIRTY | flag::TELEPORT | flag::SNAP))
                | if snap { flag::SNAP } else { 0 };
            run.add(d, &mut self.last_changed);
            count += 1;
            d = hot.next_preorder(d, root);
        }
        count
    }
}

/// Linear propagations over at least this many positions split in two when
/// the hierarchy allows (see [`Scene::independent_split`]).
const PARALLEL_PROPAGATE: usize = 65_536;

/// The hot columns from position `base` on, for one linear pass. Parents of
/// the nodes here lie here too (or are `NONE`).
struct Columns<'a> {
    base: usize,
    local: &'a [Transform],
    parent: &'a [u32],
    world: &'a mut [Affine3A],
    prev_world: &'a mut [Affine3A],
    flags: &'a mut [u8],
}

impl<'a> Columns<'a> {
    /// Splits off the positions from `at` on.
    fn split_off(&mut self, at: usize) -> Columns<'a> {
        let k = at - self.base;
        let (local, local_r) = self.local.split_at(k);
        let (parent, parent_r) = self.parent.split_at(k);
        let (world, world_r) = std::mem::take(&mut self.world).split_at_mut(k);
        let (prev, prev_r) = std::mem::take(&mut self.prev_world).split_at_mut(k);
        let (flags, flags_r) = std::mem::take(&mut self.flags).split_at_mut(k);
        (
            self.local,
            self.parent,
            self.world,
            self.prev_world,
            self.flags,
        ) = (local, parent, world, prev, flags);
        Columns {
            base: at,
            local: local_r,
            parent: parent_r,
            world: world_r,
            prev_world: prev_r,
            flags: flags_r,
        }
    }

    fn linear_pass_owned(mut self, changed: &mut Vec<(u32, u32)>) -> (usize, usize) {
        self.linear_pass(changed)
    }

    /// Every position in order: a node is recomputed if it is dirty or its
    /// parent was. Appends the recomputed ranges to `changed`; returns the
    /// dirty nodes that started a range and the children far from their parent.
    fn linear_pass(&mut self, changed: &mut Vec<(u32, u32)>) -> (usize, usize) {
        let base = self.base;
        let mut roots = 0;
        let mut run = Run::default();
        let (mut far, mut last_parent) = (0, NONE);
        for i in 0..self.local.len() {
            let d = base + i;
            let flags = self.flags[i];
            let parent = self.parent[i];
            if parent != last_parent {
                far += usize::from(parent != NONE && d as u32 - parent > FAR);
                last_parent = parent;
            }
            let (parent_world, parent_flags) = if parent == NONE {
                (Affine3A::IDENTITY, 0)
            } else {
                let p = parent as usize - base;
                (self.world[p], self.flags[p])
            };
            if flags & flag::DIRTY == 0 && parent_flags & flag::MOVED == 0 {
                if flags & (flag::MOVED | flag::SNAP) != 0 {
                    self.flags[i] = flags & !(flag::MOVED | flag::SNAP);
                }
                continue;
            }
            if parent_flags & flag::MOVED == 0 {
                roots += 1;
            }
            let world = parent_world * self.local[i].to_affine();
            self.world[i] = world;
            let snap = (flags & flag::TELEPORT) | (parent_flags & flag::SNAP) != 0;
            if snap {
                self.prev_world[i] = world;
            }
            self.flags[i] = (flags & !(flag::DIRTY | flag::TELEPORT | flag::SNAP))
                | flag::MOVED
                | if snap { flag::SNAP } else { 0 };
            run.add(d as u32, changed);
        }
        run.finish(changed);
        (roots, far)
    }
}

/// Consecutive recomputed positions, gathered into ranges as they come.
#[derive(Default)]
struct Run {
    start: u32,
    end: u32,
}

impl Run {
    #[inline]
    fn add(&mut self, d: u32, out: &mut Vec<(u32, u32)>) {
        if d != self.end || self.start == self.end {
            self.finish(out);
            self.start = d;
        }
        self.end = d + 1;
    }

    fn finish(&mut self, out: &mut Vec<(u32, u32)>) {
        if self.start != self.end {
            out.push((self.start, self.end));
        }
        self.start = self.end;
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;
    use crate::scene::{Keep, NodeId};

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

    /// 800 trees of 100 nodes (chains of 10 under a root): more than a
    /// parallel linear pass needs.
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

    fn dirty_all(scene: &mut Scene, nodes: &[NodeId], angle: f32) {
        for &node in nodes {
            let local = scene.local(node).unwrap();
            scene
                .set_local(node, local.with_rotation(Quat::from_rotation_z(angle)))
                .unwrap();
        }
    }

    #[test]
    fn a_split_linear_pass_matches_recursion_and_records_every_node_once() {
        let (mut scene, nodes) = forest();
        assert!(scene.hot.len() >= PARALLEL_PROPAGATE);
        assert!(scene.independent_split().is_some(), "a forest splits");
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

    #[test]
    fn a_child_far_from_its_parent_keeps_the_pass_whole_and_right() {
        let (mut scene, nodes) = forest();
        // A node of the last tree moves under the first tree's root: a child
        // after the split whose parent is before it.
        let last = *nodes.last().unwrap();
        scene.reparent(last, Some(nodes[0]), Keep::Local).unwrap();
        assert!(scene.independent_split().is_none());
        dirty_all(&mut scene, &nodes, -0.3);
        scene.propagate();
        check_against_recursion(&scene);
    }
}
