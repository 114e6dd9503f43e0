//! The bench's side of every edit: the random stream, the `Tree` operations
//! Keel and its twin both offer, the mirror that makes the random choices, and
//! the forest that applies each edit to a tree and its mirror together.

use std::hint::black_box;

use glam::{Quat, Vec3};
use keel_engine::{Keep, NodeId, Scene, Transform};

/// Xorshift64: deterministic, and the same stream for Keel and its twin.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// A random local transform: translation in the unit cube, small y rotation.
pub(crate) fn local(rng: &mut Rng) -> Transform {
    Transform::from_translation(Vec3::new(rng.unit(), rng.unit(), rng.unit()))
        .with_rotation(Quat::from_rotation_y(rng.unit()))
}

/// The operations both trees offer the bench.
pub(crate) trait Tree {
    /// A node handle.
    type H: Copy;
    /// Spawns a node as its parent's last child (or as the last root).
    fn spawn_node(&mut self, parent: Option<Self::H>, local: Transform) -> Self::H;
    /// Removes the node's subtree; returns how many nodes went.
    fn despawn_node(&mut self, node: Self::H) -> usize;
    /// Moves the node, keeping its local transform, as `parent`'s last child.
    fn move_node(&mut self, node: Self::H, parent: Self::H);
    /// Current worlds become the previous ones.
    fn snapshot(&mut self);
    /// Recomputes the worlds of what changed.
    fn update(&mut self);
    /// Live nodes.
    fn count(&self) -> usize;
}

impl Tree for Scene {
    type H = NodeId;
    fn spawn_node(&mut self, parent: Option<NodeId>, local: Transform) -> NodeId {
        self.spawn(parent, String::new(), local)
            .expect("live parent")
    }
    fn despawn_node(&mut self, node: NodeId) -> usize {
        self.despawn(node).expect("live node")
    }
    fn move_node(&mut self, node: NodeId, parent: NodeId) {
        self.reparent(node, Some(parent), Keep::Local)
            .expect("acyclic move");
    }
    fn snapshot(&mut self) {
        self.snapshot_previous();
    }
    fn update(&mut self) {
        black_box(self.propagate());
    }
    fn count(&self) -> usize {
        self.len()
    }
}

/// No node: a root's parent key.
const NONE: u32 = u32::MAX;

/// The bench's copy of the structure, by key (keys are reused): parent, child
/// keys, the live nodes and the leaves (swap-remove sets). It makes the random
/// choices, so both trees see the same edits, in O(1) per leaf edit.
#[derive(Default)]
pub(crate) struct Mirror {
    pub(crate) parent: Vec<u32>,
    kids: Vec<Vec<u32>>,
    pub(crate) live: Vec<u32>,
    live_pos: Vec<u32>,
    leaves: Vec<u32>,
    /// Position in `leaves`, or `NONE` when not a leaf.
    leaf_pos: Vec<u32>,
    free: Vec<u32>,
    stack: Vec<u32>,
}

impl Mirror {
    /// Records a new leaf under `parent` (or a root); returns its key.
    fn add(&mut self, parent: u32) -> u32 {
        let k = self.free.pop().unwrap_or_else(|| {
            self.parent.push(NONE);
            self.kids.push(Vec::new());
            self.live_pos.push(NONE);
            self.leaf_pos.push(NONE);
            self.parent.len() as u32 - 1
        });
        self.live_pos[k as usize] = self.live.len() as u32;
        self.live.push(k);
        self.leaf_pos[k as usize] = self.leaves.len() as u32;
        self.leaves.push(k);
        self.link(k, parent);
        k
    }

    pub(crate) fn link(&mut self, k: u32, parent: u32) {
        self.parent[k as usize] = parent;
        if parent != NONE {
            if self.kids[parent as usize].is_empty() {
                self.unleaf(parent);
            }
            self.kids[parent as usize].push(k);
        }
    }

    pub(crate) fn unlink(&mut self, k: u32) {
        let p = self.parent[k as usize];
        if p != NONE {
            let kids = &mut self.kids[p as usize];
            let i = kids.iter().position(|&c| c == k).expect("linked");
            kids.swap_remove(i);
            if kids.is_empty() {
                self.leaf_pos[p as usize] = self.leaves.len() as u32;
                self.leaves.push(p);
            }
        }
    }

    fn unleaf(&mut self, k: u32) {
        let pos = self.leaf_pos[k as usize];
        self.leaves.swap_remove(pos as usize);
        if let Some(&moved) = self.leaves.get(pos as usize) {
            self.leaf_pos[moved as usize] = pos;
        }
        self.leaf_pos[k as usize] = NONE;
    }

    /// Forgets the subtree of `root`; returns its size.
    pub(crate) fn remove_subtree(&mut self, root: u32) -> usize {
        self.unlink(root);
        let mut count = 0;
        self.stack.push(root);
        while let Some(k) = self.stack.pop() {
            self.stack.extend_from_slice(&self.kids[k as usize]);
            self.kids[k as usize].clear();
            let pos = self.live_pos[k as usize];
            self.live.swap_remove(pos as usize);
            if let Some(&moved) = self.live.get(pos as usize) {
                self.live_pos[moved as usize] = pos;
            }
            if self.leaf_pos[k as usize] != NONE {
                self.unleaf(k);
            }
            self.free.push(k);
            count += 1;
        }
        count
    }

    /// Whether `a` is `k` or one of its ancestors.
    fn is_ancestor_or_self(&self, a: u32, mut k: u32) -> bool {
        while k != NONE {
            if k == a {
                return true;
            }
            k = self.parent[k as usize];
        }
        false
    }

    /// Size of the subtree of `k` if it is at most `cap`.
    fn subtree_len_within(&mut self, k: u32, cap: usize) -> Option<usize> {
        self.stack.clear();
        self.stack.push(k);
        let mut count = 0;
        while let Some(k) = self.stack.pop() {
            count += 1;
            if count > cap {
                self.stack.clear();
                return None;
            }
            self.stack.extend_from_slice(&self.kids[k as usize]);
        }
        Some(count)
    }

    fn random_live(&self, rng: &mut Rng) -> u32 {
        self.live[rng.below(self.live.len())]
    }

    fn random_leaf(&self, rng: &mut Rng) -> u32 {
        self.leaves[rng.below(self.leaves.len())]
    }
}

/// A tree and the bench's mirror of it, edited together.
pub(crate) struct Forest<T: Tree> {
    pub(crate) tree: T,
    /// The tree's handle for each key.
    pub(crate) h: Vec<T::H>,
    pub(crate) m: Mirror,
}

impl<T: Tree> Forest<T> {
    /// Spawns the forest in creation order (keys are the indices), then propagates.
    pub(crate) fn build(tree: T, parents: &[Option<usize>], locals: &[Transform]) -> Self {
        let (h, m) = (Vec::new(), Mirror::default());
        let mut f = Forest { tree, h, m };
        for (p, l) in parents.iter().zip(locals) {
            f.spawn(p.map_or(NONE, |p| p as u32), *l);
        }
        f.tree.update();
        f
    }

    fn spawn(&mut self, parent: u32, local: Transform) -> u32 {
        let p = (parent != NONE).then(|| self.h[parent as usize]);
        let h = self.tree.spawn_node(p, local);
        let k = self.m.add(parent);
        match self.h.get_mut(k as usize) {
            Some(slot) => *slot = h,
            None => self.h.push(h),
        }
        k
    }

    fn despawn(&mut self, k: u32) -> usize {
        let count = self.tree.despawn_node(self.h[k as usize]);
        assert_eq!(
            count,
            self.m.remove_subtree(k),
            "the tree and its mirror agree"
        );
        count
    }

    fn reparent(&mut self, k: u32, parent: u32) {
        let (node, to) = (self.h[k as usize], self.h[parent as usize]);
        self.tree.move_node(node, to);
        self.m.unlink(k);
        self.m.link(k, parent);
    }

    /// A random tree of `count` nodes under `parent`; returns its root's key.
    pub(crate) fn spawn_random_subtree(&mut self, parent: u32, count: usize, rng: &mut Rng) -> u32 {
        let mut keys = Vec::with_capacity(count);
        for j in 0..count {
            let p = if j == 0 { parent } else { keys[rng.below(j)] };
            keys.push(self.spawn(p, local(rng)));
        }
        keys[0]
    }

    /// One frame: `k` leaf despawns, `k` spawns, snapshot, propagate.
    pub(crate) fn churn_frame(&mut self, k: usize, rng: &mut Rng) {
        for _ in 0..k {
            let leaf = self.m.random_leaf(rng);
            self.despawn(leaf);
        }
        for _ in 0..k {
            let parent = self.m.random_live(rng);
            self.spawn(parent, local(rng));
        }
        self.tree.snapshot();
        self.tree.update();
    }

    /// One random structural edit: 40% leaf despawn + spawn, 30% subtree
    /// reparent, 30% despawn of a subtree of at most 32 nodes + a respawn.
    fn random_edit(&mut self, rng: &mut Rng) {
        match rng.below(10) {
            0..=3 => {
                let leaf = self.m.random_leaf(rng);
                self.despawn(leaf);
                let parent = self.m.random_live(rng);
                self.spawn(parent, local(rng));
            }
            4..=6 => {
                let node = self.m.random_live(rng);
                let target = loop {
                    let t = self.m.random_live(rng);
                    if !self.m.is_ancestor_or_self(node, t) {
                        break t;
                    }
                };
                self.reparent(node, target);
            }
            _ => {
                let node = loop {
                    let k = self.m.random_live(rng);
                    if self.m.subtree_len_within(k, 32).is_some() {
                        break k;
                    }
                };
                let count = self.despawn(node);
                let parent = self.m.random_live(rng);
                self.spawn_random_subtree(parent, count, rng);
            }
        }
    }
}

/// `edits` random edits, with a snapshot and a propagate every 100 (fixed
/// steps), then a last propagate.
pub(crate) fn random_edits<T: Tree>(f: &mut Forest<T>, edits: usize, rng: &mut Rng) {
    for e in 0..edits {
        f.random_edit(rng);
        if e % 100 == 99 {
            f.tree.snapshot();
            f.tree.update();
        }
    }
    f.tree.update();
}
