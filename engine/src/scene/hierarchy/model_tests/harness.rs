//! The checking harness: a scene and its model side by side. Each op is
//! applied to both, the scene's answers are checked against the model's as it
//! goes, and `check_with` compares the whole scene with the model.

use std::collections::HashMap;

use glam::Affine3A;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use super::{Model, Op, Rng, pose};
use crate::scene::{Keep, NodeError, NodeId, Scene, Transform};

/// Largest absolute element of a matrix.
fn size(m: &Affine3A) -> f32 {
    m.matrix3
        .x_axis
        .abs()
        .max(m.matrix3.y_axis.abs())
        .max(m.matrix3.z_axis.abs())
        .max(m.translation.abs())
        .max_element()
}

/// Equal within float rounding, relative to the size of the matrices.
fn close(a: Affine3A, b: Affine3A) -> bool {
    close_within(a, b, 1e-4)
}

/// `a` and `b` equal to `relative` of their size.
fn close_within(a: Affine3A, b: Affine3A, relative: f32) -> bool {
    a.abs_diff_eq(b, relative * size(&a).max(size(&b)).max(1.0))
}

/// Each node's (world, previous world) in the scene.
fn transforms(scene: &Scene) -> Vec<(NodeId, Affine3A, Affine3A)> {
    scene
        .nodes()
        .map(|n| (n, scene.world(n).unwrap(), scene.previous_world(n).unwrap()))
        .collect()
}

/// Moving nodes in memory (sweep steps, compaction) changes no transform, not even by rounding.
fn unchanged(scene: &Scene, before: &[(NodeId, Affine3A, Affine3A)]) -> Result<(), TestCaseError> {
    for &(n, world, prev) in before {
        prop_assert_eq!(scene.world(n), Some(world), "world of {:?} moved", n);
        prop_assert_eq!(
            scene.previous_world(n),
            Some(prev),
            "previous of {:?} moved",
            n
        );
    }
    Ok(())
}

#[derive(Default)]
pub(super) struct Harness {
    pub(super) scene: Scene,
    pub(super) model: Model,
    /// Checks so far: picks which nodes a sampled check covers in depth.
    checks: usize,
    /// Nodes recomputed by a propagation inside a reparent (keeping worlds),
    /// which `changed_nodes` must still list after the next propagation.
    pending_changed: Vec<NodeId>,
}

impl Harness {
    pub(super) fn spawn(
        &mut self,
        parent: Option<NodeId>,
        index: Option<usize>,
        local: Transform,
    ) -> Result<NodeId, TestCaseError> {
        let name = self.model.fresh_name();
        let id = match index {
            None => self.scene.spawn(parent, name.as_str(), local),
            Some(i) => self.scene.spawn_at(parent, i, name.as_str(), local),
        }
        .unwrap();
        prop_assert!(
            !self.model.nodes.contains_key(&id),
            "{:?} handed out twice",
            id
        );
        prop_assert!(
            !self.model.dead_set.contains(&id),
            "{:?} is a dead handle",
            id
        );
        self.model
            .spawn(id, parent, index.unwrap_or(usize::MAX), local, name);
        Ok(id)
    }

    pub(super) fn despawn(&mut self, node: NodeId) -> Result<(), TestCaseError> {
        let mut removed = self.model.despawn(node);
        prop_assert_eq!(self.scene.despawn(node).unwrap(), removed.len());
        prop_assert!(!self.scene.contains(node));
        let mut reported = Vec::new();
        self.scene.take_despawned(&mut reported);
        reported.sort();
        removed.sort();
        prop_assert_eq!(reported, removed, "take_despawned");
        Ok(())
    }

    pub(super) fn propagate(&mut self) -> Result<(), TestCaseError> {
        let stats = self.scene.propagate();
        let (mut recomputed, starts) = self.model.propagate();
        prop_assert_eq!(
            stats.recomputed,
            recomputed.len(),
            "nodes in changed subtrees"
        );
        prop_assert_eq!(stats.roots, starts, "changed subtrees");
        prop_assert_eq!(self.scene.last_recomputed(), recomputed.len());
        let mut changed: Vec<NodeId> = self.scene.changed_nodes().collect();
        changed.sort();
        changed.dedup();
        recomputed.sort();
        if self.pending_changed.is_empty() {
            prop_assert_eq!(changed, recomputed, "changed_nodes");
        } else {
            // After two propagations positions may have moved in between
            // (a subtree moved to the end): every node recomputed by either
            // must be listed, and nothing but live nodes.
            for node in self.pending_changed.drain(..).chain(recomputed) {
                prop_assert!(
                    !self.scene.contains(node) || changed.binary_search(&node).is_ok(),
                    "{:?} recomputed but not in changed_nodes",
                    node
                );
            }
            for &node in &changed {
                prop_assert!(self.scene.contains(node), "{:?} listed, not live", node);
            }
        }
        // Consumed, as the world's step consumes them.
        self.scene.clear_changed();
        // Nothing is pending: every world is the product of the locals from its root down.
        let mut product: HashMap<NodeId, Affine3A> = HashMap::with_capacity(self.model.len());
        for (id, _) in self.model.walk() {
            let n = &self.model.nodes[&id];
            let parent = n.parent.map_or(Affine3A::IDENTITY, |p| product[&p]);
            let expected = parent * n.local.to_affine();
            prop_assert!(
                close(n.world, expected),
                "{:?}: {:?} vs {:?}",
                id,
                n.world,
                expected
            );
            product.insert(id, expected);
        }
        Ok(())
    }

    pub(super) fn snapshot(&mut self) -> Result<(), TestCaseError> {
        let before = transforms(&self.scene);
        self.scene.snapshot_previous();
        self.model.snapshot();
        self.pending_changed.clear();
        for (n, world, _) in before {
            prop_assert_eq!(
                self.scene.world(n),
                Some(world),
                "snapshot changed the world of {:?}",
                n
            );
            prop_assert_eq!(
                self.scene.previous_world(n),
                Some(world),
                "previous of {:?} after a snapshot",
                n
            );
        }
        Ok(())
    }

    /// One compaction step with a small budget, so that a sweep spans many
    /// steps in a small scene. The step runs as `compact()` runs its steps:
    /// dense ranges still to be snapshotted are dropped and the next snapshot
    /// copies every previous world instead. No transform changes.
    fn sweep_step(&mut self, budget: usize) -> Result<(), TestCaseError> {
        let before = transforms(&self.scene);
        let scene = &mut self.scene;
        if !scene.unsnapped.is_empty() {
            scene.unsnapped.clear();
            scene.snapshot_all = true;
        }
        if scene.compact_step(budget) {
            scene.last_changed.clear();
            self.pending_changed.clear();
        }
        unchanged(&self.scene, &before)
    }

    pub(super) fn compact(&mut self) -> Result<(), TestCaseError> {
        let before = transforms(&self.scene);
        self.scene.compact();
        self.pending_changed.clear();
        unchanged(&self.scene, &before)?;
        prop_assert!(
            !self.scene.upkeep.sweeping,
            "compact() left the sweep running"
        );
        prop_assert_eq!(self.scene.holes(), 0, "holes left after compact()");
        prop_assert_eq!(self.scene.hot.len(), self.model.len());
        Ok(())
    }

    pub(super) fn set_local(
        &mut self,
        node: NodeId,
        local: Transform,
        jump: bool,
    ) -> Result<(), TestCaseError> {
        let changed = if jump {
            self.scene.teleport(node, local)
        } else {
            self.scene.set_local(node, local)
        }
        .unwrap();
        prop_assert_eq!(changed, self.model.set_local(node, local, jump));
        Ok(())
    }

    pub(super) fn reparent(
        &mut self,
        node: NodeId,
        parent: Option<NodeId>,
        index: Option<usize>,
        keep_world: bool,
    ) -> Result<(), TestCaseError> {
        let keep = if keep_world { Keep::World } else { Keep::Local };
        let result = match index {
            None => self.scene.reparent(node, parent, keep),
            Some(i) => self.scene.reparent_at(node, parent, i, keep),
        };
        if parent.is_some_and(|p| self.model.is_under(p, node)) {
            prop_assert!(
                matches!(result, Err(NodeError::CyclicReparent { .. })),
                "{:?}",
                result
            );
            return Ok(());
        }
        result.unwrap();
        let local = self.scene.local(node).unwrap();
        if keep_world {
            // Keeping the world position propagates first, to read current worlds.
            let (recomputed, _) = self.model.propagate();
            prop_assert_eq!(self.scene.last_recomputed(), recomputed.len());
            self.pending_changed.extend(recomputed);
            let world = self.model.nodes[&node].world;
            let kept = self.model.world_of(parent) * local.to_affine();
            // The local transform went through the new parent's inverse and
            // back: the round trip's float error grows with the chain's depth
            // (1.2e-4 seen under 224 turned nodes); a node that moved is off
            // by far more.
            prop_assert!(
                close_within(kept, world, 1e-3),
                "{:?} moved: {:?} vs {:?}",
                node,
                kept,
                world
            );
        } else {
            prop_assert_eq!(local, self.model.nodes[&node].local);
        }
        self.model
            .reparent(node, parent, index.unwrap_or(usize::MAX), local);
        Ok(())
    }

    pub(super) fn apply(&mut self, op: &Op) -> Result<(), TestCaseError> {
        let version = self.scene.structure_version();
        let len = self.model.len();
        let mut structural = false;
        let model = &self.model;
        match *op {
            Op::Spawn {
                parent,
                index,
                x,
                turn,
            } => {
                let parent = parent.and_then(|i| model.pick(i));
                self.spawn(parent, index, pose(x, turn, 0))?;
                structural = true;
            }
            Op::SpawnBatch { count, seed } => {
                let mut rng = Rng(seed);
                for _ in 0..count {
                    let r = rng.next();
                    let parent = if r.is_multiple_of(32) {
                        None
                    } else {
                        self.model.pick((r >> 8) as usize)
                    };
                    let index = (r >> 5)
                        .is_multiple_of(4)
                        .then_some(((r >> 40) % 4) as usize);
                    let local = pose((r >> 16) as i8, (r >> 24) as i8 % 8, (r >> 32) as u8);
                    self.spawn(parent, index, local)?;
                }
                structural = count > 0;
            }
            Op::Despawn(i) => {
                if let Some(node) = model.pick(i) {
                    self.despawn(node)?;
                    structural = true;
                }
            }
            Op::DespawnBig { node, up } => {
                if let Some(mut node) = model.pick(node) {
                    for _ in 0..up {
                        node = model.nodes[&node].parent.unwrap_or(node);
                    }
                    self.despawn(node)?;
                    structural = true;
                }
            }
            Op::Thin { seed, shift } => {
                let mut rng = Rng(seed);
                for _ in 0..len >> shift {
                    if let Some(node) = self.model.pick(rng.next() as usize) {
                        self.despawn(node)?;
                        structural = true;
                    }
                }
            }
            Op::Reparent {
                node,
                parent,
                index,
                keep_world,
            } => {
                if let Some(node) = model.pick(node) {
                    let parent = parent.and_then(|i| model.pick(i));
                    let refused = parent.is_some_and(|p| model.is_under(p, node));
                    self.reparent(node, parent, index, keep_world)?;
                    structural = !refused;
                }
            }
            Op::Move {
                node,
                x,
                turn,
                scale,
                jump,
            } => {
                if let Some(node) = model.pick(node) {
                    self.set_local(node, pose(x, turn, scale), jump)?;
                }
            }
            Op::Touch { node, jump } => {
                if let Some(node) = model.pick(node) {
                    let local = model.nodes[&node].local;
                    self.set_local(node, local, jump)?;
                }
            }
            Op::Propagate => self.propagate()?,
            Op::Snapshot => self.snapshot()?,
            Op::SweepStep { budget } => self.sweep_step(usize::from(budget))?,
            Op::Compact => self.compact()?,
            Op::Stale(i) => {
                if !model.dead.is_empty() {
                    let stale = model.dead[i % model.dead.len()];
                    self.check_stale(stale)?;
                    self.stale_edits(stale, i)?;
                }
            }
        }
        if structural {
            prop_assert!(
                self.scene.structure_version() > version,
                "{:?} bumps the structure version",
                op
            );
        } else {
            prop_assert_eq!(
                self.scene.structure_version(),
                version,
                "{:?} keeps the structure version",
                op
            );
        }
        Ok(())
    }

    /// Queries through a dead handle answer "no such node".
    fn check_stale(&self, stale: NodeId) -> Result<(), TestCaseError> {
        let scene = &self.scene;
        prop_assert!(!scene.contains(stale), "{:?} is dead", stale);
        prop_assert_eq!(scene.world(stale), None);
        prop_assert_eq!(scene.previous_world(stale), None);
        prop_assert_eq!(scene.interpolated_world(stale, 0.5), None);
        prop_assert_eq!(scene.local(stale), None);
        prop_assert_eq!(scene.parent(stale), None);
        prop_assert_eq!(scene.depth(stale), None);
        prop_assert_eq!(scene.sibling_index(stale), None);
        prop_assert_eq!(scene.name(stale), None);
        prop_assert_eq!(scene.children(stale).count(), 0);
        prop_assert_eq!(scene.child_count(stale), 0);
        prop_assert_eq!(scene.subtree(stale).count(), 0);
        prop_assert_eq!(scene.subtree_len(stale), 0);
        prop_assert!(!scene.is_dirty(stale));
        prop_assert!(!scene.is_ancestor_or_self(stale, stale));
        Ok(())
    }

    /// Edits through a dead handle (as the node or as the new parent) are
    /// refused; the check after the op sees that nothing changed.
    fn stale_edits(&mut self, stale: NodeId, i: usize) -> Result<(), TestCaseError> {
        let live = self.model.pick(i);
        let scene = &mut self.scene;
        let is_stale = |r: Result<(), NodeError>| matches!(r, Err(NodeError::StaleNode { node }) if node == stale);
        let t = Transform::IDENTITY;
        prop_assert!(is_stale(scene.set_local(stale, t).map(drop)));
        prop_assert!(is_stale(scene.teleport(stale, t).map(drop)));
        prop_assert!(is_stale(scene.despawn(stale).map(drop)));
        prop_assert!(is_stale(scene.reparent(stale, live, Keep::World)));
        prop_assert!(is_stale(scene.reparent_at(stale, None, 0, Keep::Local)));
        prop_assert!(is_stale(scene.spawn(Some(stale), "x", t).map(drop)));
        prop_assert!(is_stale(scene.spawn_at(Some(stale), 0, "x", t).map(drop)));
        prop_assert!(is_stale(scene.set_name(stale, "x")));
        if let Some(live) = live {
            prop_assert!(is_stale(scene.reparent(live, Some(stale), Keep::World)));
            prop_assert!(is_stale(scene.reparent_at(
                live,
                Some(stale),
                1,
                Keep::Local
            )));
        }
        Ok(())
    }

    /// The scene against the model. The whole forest's order, roots, parents,
    /// child counts, locals, dirty flags, worlds and previous worlds always;
    /// children, sibling indices, depths, subtrees, ancestry, names and
    /// interpolation for every node of a small scene (or with `all`), else for
    /// a rotating sample of about 128 nodes.
    pub(super) fn check_with(&mut self, all: bool) -> Result<(), TestCaseError> {
        self.checks += 1;
        let (scene, model) = (&self.scene, &self.model);
        scene.assert_invariants();
        prop_assert_eq!(scene.len(), model.len());
        prop_assert_eq!(scene.is_empty(), model.len() == 0);
        let walk = model.walk();
        let forest: Vec<NodeId> = walk.iter().map(|&(n, _)| n).collect();
        prop_assert!(
            scene.nodes().eq(forest.iter().copied()),
            "nodes(): {:?} vs {:?}",
            scene.nodes().collect::<Vec<_>>(),
            forest
        );
        prop_assert!(scene.roots().eq(model.roots.iter().copied()), "roots()");
        prop_assert_eq!(scene.roots().len(), model.roots.len());
        // Where each subtree ends in the forest: at the next node no deeper than its root.
        let mut end = vec![forest.len(); forest.len()];
        let mut open: Vec<usize> = Vec::new();
        for (k, &(_, depth)) in walk.iter().enumerate() {
            while open.last().is_some_and(|&o| walk[o].1 >= depth) {
                end[open.pop().unwrap()] = k;
            }
            open.push(k);
        }
        let stride = if all { 1 } else { (forest.len() / 128).max(1) };
        let phase = self.checks % stride;
        for (k, &id) in forest.iter().enumerate() {
            let n = &model.nodes[&id];
            prop_assert!(scene.contains(id));
            prop_assert_eq!(scene.parent(id), n.parent, "parent of {:?}", id);
            prop_assert_eq!(
                scene.child_count(id),
                n.children.len(),
                "child count of {:?}",
                id
            );
            prop_assert_eq!(scene.local(id), Some(n.local), "local of {:?}", id);
            prop_assert_eq!(scene.is_dirty(id), n.dirty, "dirty flag of {:?}", id);
            let world = scene.world(id).unwrap();
            let prev = scene.previous_world(id).unwrap();
            prop_assert!(
                close(world, n.world),
                "world of {:?}: {:?} vs {:?}",
                id,
                world,
                n.world
            );
            prop_assert!(
                close(prev, n.prev),
                "previous world of {:?}: {:?} vs {:?}",
                id,
                prev,
                n.prev
            );
            if k % stride != phase {
                continue;
            }
            prop_assert!(
                scene.children(id).eq(n.children.iter().copied()),
                "children of {:?}",
                id
            );
            prop_assert_eq!(scene.children(id).len(), n.children.len());
            let sibling = model.siblings(n.parent).iter().position(|&s| s == id);
            prop_assert_eq!(
                scene.sibling_index(id),
                sibling,
                "sibling index of {:?}",
                id
            );
            prop_assert_eq!(scene.depth(id), Some(walk[k].1), "depth of {:?}", id);
            prop_assert_eq!(scene.name(id), Some(n.name.as_str()));
            let subtree = &forest[k..end[k]];
            prop_assert_eq!(
                scene.subtree_len(id),
                subtree.len(),
                "subtree size of {:?}",
                id
            );
            prop_assert!(
                scene.subtree(id).eq(subtree.iter().copied()),
                "subtree of {:?}: {:?} vs {:?}",
                id,
                scene.subtree(id).collect::<Vec<_>>(),
                subtree
            );
            prop_assert!(scene.is_ancestor_or_self(id, id));
            if let Some(p) = n.parent {
                prop_assert!(scene.is_ancestor_or_self(p, id));
                prop_assert!(!scene.is_ancestor_or_self(id, p));
            }
            let other = forest[(k * 7919 + self.checks) % forest.len()];
            prop_assert_eq!(
                scene.is_ancestor_or_self(other, id),
                model.is_under(id, other),
                "is {:?} above {:?}",
                other,
                id
            );
            let start = scene.interpolated_world(id, 0.0).unwrap();
            let finish = scene.interpolated_world(id, 1.0).unwrap();
            prop_assert!(
                close(start, prev),
                "interpolated 0 of {:?}: {:?} vs {:?}",
                id,
                start,
                prev
            );
            prop_assert!(
                close(finish, world),
                "interpolated 1 of {:?}: {:?} vs {:?}",
                id,
                finish,
                world
            );
            if prev == world {
                prop_assert_eq!(
                    scene.interpolated_world(id, 0.5),
                    Some(world),
                    "{:?} at rest",
                    id
                );
            }
        }
        let recent = if all { model.dead.len() } else { 16 };
        for &stale in model.dead.iter().rev().take(recent) {
            self.check_stale(stale)?;
        }
        Ok(())
    }

    pub(super) fn check(&mut self) -> Result<(), TestCaseError> {
        self.check_with(false)
    }
}
