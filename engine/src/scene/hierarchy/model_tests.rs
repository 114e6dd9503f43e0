//! The hierarchy against a naive reference model: a tree of `HashMap`s and
//! `Vec`s that knows, for every node, its parent, its ordered children, its
//! local transform, the world and previous world the scene must answer, and
//! whether it waits for the next propagation (dirty) and snaps there (teleport).
//!
//! Every edit, propagation, snapshot, compaction step and full compaction is
//! applied to both, and after each one the scene is compared with the model:
//! pre-order, roots and children in order, subtrees, depths, sibling indices,
//! ancestry, names, locals, dirty flags, worlds, previous worlds, both ends of
//! the interpolation, the storage invariants and stale handles. Moving nodes in
//! memory (sweep steps, compaction) must leave every transform bit for bit.
//!
//! This file holds the reference model, the ops and the proptest; the harness
//! that applies an op to both and compares them is in `harness`, a large
//! deterministic churn across sweep steps in `sweep`, and the smallest cases
//! the model found, as plain tests, in `repros`.

mod harness;
mod repros;
mod sweep;

use std::collections::{HashMap, HashSet};

use glam::{Affine3A, Quat, Vec3};
use proptest::prelude::*;

use crate::scene::{NodeId, Transform};

use harness::Harness;

/// A local transform from small numbers: translation, a turn about Y (small
/// steps blend directly, larger ones take the slerp path) and a uniform scale.
fn pose(x: i8, turn: i8, scale: u8) -> Transform {
    Transform::from_translation(Vec3::new(f32::from(x) * 0.5, 1.0, f32::from(turn) * 0.25))
        .with_rotation(Quat::from_rotation_y(f32::from(turn) * 0.004))
        .with_scale(Vec3::splat([1.0, 1.0, 0.5, 2.0][usize::from(scale % 4)]))
}

/// splitmix64: parents and poses of the batch ops, and the churn of the large test.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[derive(Clone, Debug)]
enum Op {
    /// `spawn`, or `spawn_at` with `index`.
    Spawn {
        parent: Option<usize>,
        index: Option<usize>,
        x: i8,
        turn: i8,
    },
    /// Many spawns under random parents (earlier ones of the batch included).
    SpawnBatch {
        count: u16,
        seed: u64,
    },
    Despawn(usize),
    /// Despawns the ancestor `up` levels above the picked node (or its root).
    DespawnBig {
        node: usize,
        up: u8,
    },
    /// Despawns the subtrees of one in `1 << shift` random nodes: holes all over the columns.
    Thin {
        seed: u64,
        shift: u8,
    },
    /// `reparent`, or `reparent_at` with `index`.
    Reparent {
        node: usize,
        parent: Option<usize>,
        index: Option<usize>,
        keep_world: bool,
    },
    /// `set_local`, or `teleport` when `jump`.
    Move {
        node: usize,
        x: i8,
        turn: i8,
        scale: u8,
        jump: bool,
    },
    /// Sets the local transform the node already has: no change, nothing dirty.
    Touch {
        node: usize,
        jump: bool,
    },
    Propagate,
    Snapshot,
    /// A compaction step with a small budget (see [`Harness::sweep_step`]).
    SweepStep {
        budget: u16,
    },
    Compact,
    /// Every query and edit through a despawned handle.
    Stale(usize),
}

fn op() -> impl Strategy<Value = Op> {
    let pick = any::<usize>();
    let index = prop_oneof![
        2 => Just(None),
        2 => (0usize..4).prop_map(Some),
        1 => Just(Some(usize::MAX / 2)),
    ];
    prop_oneof![
        6 => (proptest::option::weighted(0.8, pick), index.clone(), any::<i8>(), -8i8..8)
            .prop_map(|(parent, index, x, turn)| Op::Spawn { parent, index, x, turn }),
        1 => (prop_oneof![1u16..40, 200u16..400], any::<u64>())
            .prop_map(|(count, seed)| Op::SpawnBatch { count, seed }),
        2 => pick.prop_map(Op::Despawn),
        1 => (pick, 0u8..6).prop_map(|(node, up)| Op::DespawnBig { node, up }),
        2 => (any::<u64>(), 1u8..4).prop_map(|(seed, shift)| Op::Thin { seed, shift }),
        4 => (pick, proptest::option::weighted(0.8, pick), index, any::<bool>())
            .prop_map(|(node, parent, index, keep_world)| Op::Reparent { node, parent, index, keep_world }),
        6 => (pick, any::<i8>(), -8i8..8, 0u8..4, proptest::bool::weighted(0.3))
            .prop_map(|(node, x, turn, scale, jump)| Op::Move { node, x, turn, scale, jump }),
        1 => (pick, any::<bool>()).prop_map(|(node, jump)| Op::Touch { node, jump }),
        3 => Just(Op::Propagate),
        2 => Just(Op::Snapshot),
        5 => prop_oneof![1u16..16, 16u16..512].prop_map(|budget| Op::SweepStep { budget }),
        1 => Just(Op::Compact),
        1 => pick.prop_map(Op::Stale),
    ]
}

#[derive(Clone, Debug)]
struct Node {
    parent: Option<NodeId>,
    children: Vec<NodeId>,
    local: Transform,
    /// What `Scene::world` must answer: the world as of the node's last
    /// recomputation (at spawn: its parent's world then, times its local).
    world: Affine3A,
    /// What `Scene::previous_world` must answer.
    prev: Affine3A,
    /// Recomputed by the next propagation, with its subtree.
    dirty: bool,
    /// Snaps at the next propagation, with its subtree: previous = world.
    teleport: bool,
    name: String,
}

#[derive(Default)]
struct Model {
    nodes: HashMap<NodeId, Node>,
    roots: Vec<NodeId>,
    /// Live nodes in a stable order, for picking, and where each one is in it.
    alive: Vec<NodeId>,
    alive_at: HashMap<NodeId, usize>,
    dead: Vec<NodeId>,
    dead_set: HashSet<NodeId>,
    names: usize,
}

impl Model {
    fn len(&self) -> usize {
        self.nodes.len()
    }

    fn pick(&self, i: usize) -> Option<NodeId> {
        (!self.alive.is_empty()).then(|| self.alive[i % self.alive.len()])
    }

    fn siblings(&self, parent: Option<NodeId>) -> &[NodeId] {
        match parent {
            Some(p) => &self.nodes[&p].children,
            None => &self.roots,
        }
    }

    fn siblings_mut(&mut self, parent: Option<NodeId>) -> &mut Vec<NodeId> {
        match parent {
            Some(p) => &mut self.nodes.get_mut(&p).unwrap().children,
            None => &mut self.roots,
        }
    }

    /// The world the scene holds for `parent` now (identity for the root level).
    fn world_of(&self, parent: Option<NodeId>) -> Affine3A {
        parent.map_or(Affine3A::IDENTITY, |p| self.nodes[&p].world)
    }

    fn is_under(&self, node: NodeId, ancestor: NodeId) -> bool {
        let mut at = Some(node);
        while let Some(n) = at {
            if n == ancestor {
                return true;
            }
            at = self.nodes[&n].parent;
        }
        false
    }

    /// The subtrees of `start`, in order, each in pre-order.
    fn preorder(&self, start: &[NodeId]) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack: Vec<NodeId> = start.iter().rev().copied().collect();
        while let Some(n) = stack.pop() {
            out.push(n);
            stack.extend(self.nodes[&n].children.iter().rev());
        }
        out
    }

    /// The whole forest in pre-order, with each node's depth.
    fn walk(&self) -> Vec<(NodeId, usize)> {
        let mut out = Vec::with_capacity(self.nodes.len());
        let mut stack: Vec<(NodeId, usize)> = self.roots.iter().rev().map(|&r| (r, 0)).collect();
        while let Some((n, depth)) = stack.pop() {
            out.push((n, depth));
            stack.extend(
                self.nodes[&n]
                    .children
                    .iter()
                    .rev()
                    .map(|&c| (c, depth + 1)),
            );
        }
        out
    }

    fn fresh_name(&mut self) -> String {
        self.names += 1;
        format!("n{}", self.names)
    }

    fn spawn(
        &mut self,
        id: NodeId,
        parent: Option<NodeId>,
        index: usize,
        local: Transform,
        name: String,
    ) {
        let world = self.world_of(parent) * local.to_affine();
        let siblings = self.siblings_mut(parent);
        siblings.insert(index.min(siblings.len()), id);
        self.nodes.insert(
            id,
            Node {
                parent,
                children: Vec::new(),
                local,
                world,
                prev: world,
                dirty: true,
                teleport: true,
                name,
            },
        );
        self.alive_at.insert(id, self.alive.len());
        self.alive.push(id);
    }

    /// Removes the subtree of `node`; returns it in pre-order.
    fn despawn(&mut self, node: NodeId) -> Vec<NodeId> {
        let removed = self.preorder(&[node]);
        let parent = self.nodes[&node].parent;
        self.siblings_mut(parent).retain(|&c| c != node);
        for &n in &removed {
            self.nodes.remove(&n);
            self.dead.push(n);
            self.dead_set.insert(n);
            let i = self.alive_at.remove(&n).unwrap();
            self.alive.swap_remove(i);
            if let Some(&moved) = self.alive.get(i) {
                self.alive_at.insert(moved, i);
            }
        }
        removed
    }

    fn reparent(&mut self, node: NodeId, parent: Option<NodeId>, index: usize, local: Transform) {
        let old = self.nodes[&node].parent;
        self.siblings_mut(old).retain(|&c| c != node);
        let siblings = self.siblings_mut(parent);
        siblings.insert(index.min(siblings.len()), node);
        let n = self.nodes.get_mut(&node).unwrap();
        n.parent = parent;
        n.local = local;
        n.dirty = true;
        n.teleport = true;
    }

    /// `set_local` / `teleport`: whether the value changed.
    fn set_local(&mut self, node: NodeId, local: Transform, jump: bool) -> bool {
        let n = self.nodes.get_mut(&node).unwrap();
        if n.local == local {
            return false;
        }
        n.local = local;
        n.dirty = true;
        n.teleport |= jump;
        true
    }

    /// Recomputes the subtrees of dirty nodes; returns the recomputed nodes
    /// (pre-order) and how many of them started a recomputed subtree.
    fn propagate(&mut self) -> (Vec<NodeId>, usize) {
        let mut recomputed = Vec::new();
        let mut starts = 0;
        // (node, whether its parent snapped; None when the parent was not recomputed)
        let mut stack: Vec<(NodeId, Option<bool>)> =
            self.roots.iter().rev().map(|&r| (r, None)).collect();
        while let Some((id, parent_snap)) = stack.pop() {
            let parent_world = self.world_of(self.nodes[&id].parent);
            let n = self.nodes.get_mut(&id).unwrap();
            let mut snapped = None;
            if n.dirty || parent_snap.is_some() {
                starts += usize::from(parent_snap.is_none());
                let snap = n.teleport || parent_snap == Some(true);
                n.world = parent_world * n.local.to_affine();
                if snap {
                    n.prev = n.world;
                }
                n.dirty = false;
                n.teleport = false;
                recomputed.push(id);
                snapped = Some(snap);
            }
            stack.extend(n.children.iter().rev().map(|&c| (c, snapped)));
        }
        (recomputed, starts)
    }

    fn snapshot(&mut self) {
        for n in self.nodes.values_mut() {
            n.prev = n.world;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, max_shrink_iters: 4096, ..ProptestConfig::default() })]
    #[test]
    fn hierarchy_matches_a_naive_model(
        prelude in proptest::option::weighted(0.5, (300u16..600, any::<u64>())),
        ops in proptest::collection::vec(op(), 1..60),
    ) {
        let mut h = Harness::default();
        if let Some((count, seed)) = prelude {
            // A populated scene, where holes are soon many enough for a sweep.
            for op in [Op::SpawnBatch { count, seed }, Op::Propagate, Op::Snapshot] {
                h.apply(&op)?;
            }
            h.check()?;
        }
        for op in &ops {
            h.apply(op)?;
            h.check()?;
        }
        for op in [Op::Propagate, Op::Snapshot, Op::Compact] {
            h.apply(&op)?;
            h.check_with(true)?;
        }
    }
}
