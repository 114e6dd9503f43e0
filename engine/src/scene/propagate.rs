//! The dirty-flag pass: [`Scene::propagate`] recomputes the world transforms
//! of flagged nodes and their descendants (see `transform.rs` for the flags).
//! Few dirty nodes: each flagged subtree is walked through the child links.
//! Many: one linear pass over the columns (parents come before children).
//!
//! Pattern: dirty flag, data locality.

use glam::Affine3A;

use super::Scene;
use super::graph::{NONE, flag};
use super::layout::FAR;
use super::transform::PropagationStats;

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
        let hot = &mut self.hot;
        let mut stats = PropagationStats::default();
        let mut run = Run::default();
        let (mut far, mut last_parent) = (0, NONE);
        for d in 0..hot.len() {
            let flags = hot.flags[d];
            let parent = hot.parent[d];
            if parent != last_parent {
                far += usize::from(parent != NONE && d as u32 - parent > FAR);
                last_parent = parent;
            }
            let (parent_world, parent_flags) = if parent == NONE {
                (&Affine3A::IDENTITY, 0)
            } else {
                (&hot.world[parent as usize], hot.flags[parent as usize])
            };
            if flags & flag::DIRTY == 0 && parent_flags & flag::MOVED == 0 {
                if flags & (flag::MOVED | flag::SNAP) != 0 {
                    hot.flags[d] = flags & !(flag::MOVED | flag::SNAP);
                }
                continue;
            }
            if parent_flags & flag::MOVED == 0 {
                stats.roots += 1;
            }
            let world = *parent_world * hot.local[d].to_affine();
            hot.world[d] = world;
            let snap = (flags & flag::TELEPORT) | (parent_flags & flag::SNAP) != 0;
            if snap {
                hot.prev_world[d] = world;
            }
            hot.flags[d] = (flags & !(flag::DIRTY | flag::TELEPORT | flag::SNAP))
                | flag::MOVED
                | if snap { flag::SNAP } else { 0 };
            run.add(d as u32, &mut self.last_changed);
        }
        run.finish(&mut self.last_changed);
        self.upkeep.disorder = far;
        stats.recomputed = self.last_changed[first..]
            .iter()
            .map(|&(s, e)| (e - s) as usize)
            .sum();
        stats
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
