//! The scene graph: node slots, the hierarchy and its struct-of-arrays storage.
//!
//! Data locality: the hot per-node data (local, world and previous world
//! transforms, parent, subtree size, flags) sits in parallel arrays kept in
//! depth-first pre-order. A parent therefore precedes its children and every
//! subtree is one contiguous range `[i, i + size[i])`, so transform propagation
//! is a linear walk with no pointer chasing. Handles stay stable while nodes move
//! inside those arrays: a slot table (object pool pattern, with a free list and
//! generations) maps each handle to the node's current position.
//!
//! Cold data (names) is indexed by slot and never moves.

use std::num::NonZeroU32;

use glam::Affine3A;

use super::components::Components;
use super::transform::Transform;
use super::{NodeId, SceneError};

/// Marker for "no parent" in the dense parent column.
pub(super) const NONE: u32 = u32::MAX;

/// Flag bits of the hot `flags` column.
pub(super) mod flag {
    /// The local transform changed since the last propagation.
    pub const DIRTY: u8 = 1;
    /// The node jumped (spawn, teleport, editor edit): do not interpolate across the jump.
    pub const TELEPORT: u8 = 2;
}

/// How [`Scene::reparent`] treats the node's transform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// The node stays where it is in the world; its local transform is recomputed.
    World,
    /// The local transform is kept; the node moves with its new parent.
    Local,
}

/// Hot per-node columns, all the same length, in depth-first pre-order.
#[derive(Clone, Debug, Default)]
pub(super) struct Hot {
    pub local: Vec<Transform>,
    pub world: Vec<Affine3A>,
    pub prev_world: Vec<Affine3A>,
    /// Dense index of the parent, or [`NONE`].
    pub parent: Vec<u32>,
    /// Number of nodes in the subtree rooted here, this node included.
    pub size: Vec<u32>,
    pub flags: Vec<u8>,
    /// Dense index -> slot index.
    pub slot: Vec<u32>,
}

impl Hot {
    pub fn len(&self) -> usize {
        self.slot.len()
    }

    fn drain(&mut self, start: usize, count: usize) -> Hot {
        let range = start..start + count;
        Hot {
            local: self.local.drain(range.clone()).collect(),
            world: self.world.drain(range.clone()).collect(),
            prev_world: self.prev_world.drain(range.clone()).collect(),
            parent: self.parent.drain(range.clone()).collect(),
            size: self.size.drain(range.clone()).collect(),
            flags: self.flags.drain(range.clone()).collect(),
            slot: self.slot.drain(range).collect(),
        }
    }

    fn splice(&mut self, at: usize, block: Hot) {
        let at = at..at;
        self.local.splice(at.clone(), block.local);
        self.world.splice(at.clone(), block.world);
        self.prev_world.splice(at.clone(), block.prev_world);
        self.parent.splice(at.clone(), block.parent);
        self.size.splice(at.clone(), block.size);
        self.flags.splice(at.clone(), block.flags);
        self.slot.splice(at, block.slot);
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Slot {
    pub generation: NonZeroU32,
    /// Dense index of the node living in this slot, or [`NONE`] when free.
    pub dense: u32,
}

/// A hierarchy of nodes with transforms and components.
///
/// See the module docs for the layout. All operations that take a [`NodeId`]
/// treat a stale handle as "no such node": queries answer `None`, edits answer
/// [`SceneError::StaleNode`].
#[derive(Clone, Debug, Default)]
pub struct Scene {
    pub(super) hot: Hot,
    pub(super) slots: Vec<Slot>,
    pub(super) free: Vec<u32>,
    /// Cold: names by slot.
    pub(super) names: Vec<String>,
    /// Nodes whose flags gained DIRTY since the last propagation (may hold stale handles).
    pub(super) dirty: Vec<NodeId>,
    /// Reused buffer of dirty positions for the sorted propagation path.
    pub(super) roots_scratch: Vec<u32>,
    /// Dense ranges recomputed by the last propagation.
    pub(super) last_changed: Vec<(u32, u32)>,
    /// Dense ranges recomputed since the last snapshot of previous transforms.
    pub(super) unsnapped: Vec<(u32, u32)>,
    /// Set by structural changes: dense indices moved, snapshot everything.
    pub(super) snapshot_all: bool,
    pub(super) last_recomputed: usize,
    /// Bumped by every structural change (spawn, despawn, reparent).
    pub(super) structure_version: u64,
    /// Nodes despawned since the last call to [`Scene::take_despawned`].
    pub(super) despawned: Vec<NodeId>,
    /// Per-node components, one packed column per kind.
    pub components: Components,
    /// Lighting and background of the scene.
    pub environment: super::Environment,
    /// Where the scene's camera starts.
    pub camera: super::CameraSetup,
}

impl Scene {
    /// An empty scene.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of live nodes.
    pub fn len(&self) -> usize {
        self.hot.len()
    }

    /// Number of node slots ever used (live or free): an upper bound of [`NodeId::index`].
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// Whether the scene has no nodes.
    pub fn is_empty(&self) -> bool {
        self.hot.len() == 0
    }

    /// Whether `node` is a live node of this scene.
    pub fn contains(&self, node: NodeId) -> bool {
        self.dense(node).is_some()
    }

    /// Dense index of a live node.
    pub(super) fn dense(&self, node: NodeId) -> Option<usize> {
        let slot = self.slots.get(node.index() as usize)?;
        (slot.generation == node.generation_nz() && slot.dense != NONE)
            .then_some(slot.dense as usize)
    }

    pub(super) fn dense_or_err(&self, node: NodeId) -> Result<usize, SceneError> {
        self.dense(node).ok_or(SceneError::StaleNode { node })
    }

    /// Handle of the node at dense index `d`.
    pub(super) fn id_at(&self, d: usize) -> NodeId {
        let slot = self.hot.slot[d];
        NodeId::new(slot, self.slots[slot as usize].generation)
    }

    /// Creates a node under `parent` (or at the root) with the given local transform.
    ///
    /// The node is appended after its parent's existing children.
    ///
    /// # Errors
    /// [`SceneError::StaleNode`] if `parent` is not a live node;
    /// [`SceneError::InvalidTransform`] if `local` holds NaN or infinite values.
    pub fn spawn(
        &mut self,
        parent: Option<NodeId>,
        name: impl Into<String>,
        local: Transform,
    ) -> Result<NodeId, SceneError> {
        let name = name.into();
        if !local.is_finite() {
            return Err(SceneError::InvalidTransform {
                node: name,
                transform: local,
            });
        }
        let parent_dense = match parent {
            Some(p) => self.dense_or_err(p)? as u32,
            None => NONE,
        };
        let slot = self.alloc_slot(name);
        let parent_world = self.world_at(parent_dense);
        let world = parent_world * local.to_affine();
        let block = Hot {
            local: vec![local],
            world: vec![world],
            prev_world: vec![world],
            parent: vec![NONE],
            size: vec![1],
            flags: vec![flag::DIRTY | flag::TELEPORT],
            slot: vec![slot],
        };
        self.insert_block(block, parent_dense);
        let id = NodeId::new(slot, self.slots[slot as usize].generation);
        self.dirty.push(id);
        Ok(id)
    }

    /// Removes `node` and its whole subtree, with their components.
    ///
    /// Returns how many nodes were removed. Their handles go stale at once.
    ///
    /// # Errors
    /// [`SceneError::StaleNode`] if `node` is not a live node.
    pub fn despawn(&mut self, node: NodeId) -> Result<usize, SceneError> {
        let d = self.dense_or_err(node)?;
        let count = self.hot.size[d] as usize;
        let block = self.remove_block(d);
        for &slot in &block.slot {
            let id = NodeId::new(slot, self.slots[slot as usize].generation);
            self.components.remove_all(id);
            self.despawned.push(id);
            self.free_slot(slot);
        }
        Ok(count)
    }

    /// Moves `node` (with its subtree) under `new_parent`, or to the root.
    ///
    /// The node becomes its new parent's last child. It is not interpolated
    /// across the move.
    ///
    /// # Errors
    /// [`SceneError::StaleNode`] for a dead handle; [`SceneError::CyclicReparent`]
    /// if `new_parent` is `node` itself or one of its descendants.
    pub fn reparent(
        &mut self,
        node: NodeId,
        new_parent: Option<NodeId>,
        keep: Keep,
    ) -> Result<(), SceneError> {
        let d = self.dense_or_err(node)?;
        if let Some(p) = new_parent {
            let pd = self.dense_or_err(p)?;
            if (d..d + self.hot.size[d] as usize).contains(&pd) {
                return Err(SceneError::CyclicReparent {
                    node,
                    new_parent: p,
                });
            }
        }
        if keep == Keep::World {
            self.propagate();
        }
        let d = self.dense_or_err(node)?;
        let node_world = self.hot.world[d];
        let block = self.remove_block(d);
        let parent_dense = match new_parent {
            Some(p) => self.dense_or_err(p)? as u32,
            None => NONE,
        };
        self.insert_block(block, parent_dense);
        let d = self.dense_or_err(node)?;
        if keep == Keep::World {
            let parent_world = self.world_at(parent_dense);
            let local = Transform::from_affine(parent_world.inverse() * node_world);
            if local.is_finite() {
                self.hot.local[d] = local;
            }
        }
        self.mark(d, flag::DIRTY | flag::TELEPORT);
        Ok(())
    }

    /// The parent of `node`; `None` for a root or a stale handle.
    pub fn parent(&self, node: NodeId) -> Option<NodeId> {
        let d = self.dense(node)?;
        let p = self.hot.parent[d];
        (p != NONE).then(|| self.id_at(p as usize))
    }

    /// The children of `node`, in order. Empty for a leaf or a stale handle.
    pub fn children(&self, node: NodeId) -> Children<'_> {
        match self.dense(node) {
            Some(d) => Children {
                scene: self,
                next: d + 1,
                end: d + self.hot.size[d] as usize,
            },
            None => Children {
                scene: self,
                next: 0,
                end: 0,
            },
        }
    }

    /// The root nodes, in order.
    pub fn roots(&self) -> Children<'_> {
        Children {
            scene: self,
            next: 0,
            end: self.hot.len(),
        }
    }

    /// Every live node, parents before children (depth-first pre-order).
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = NodeId> + '_ {
        (0..self.hot.len()).map(|d| self.id_at(d))
    }

    /// Number of nodes in the subtree of `node` (itself included); 0 for a stale handle.
    pub fn subtree_len(&self, node: NodeId) -> usize {
        self.dense(node).map_or(0, |d| self.hot.size[d] as usize)
    }

    /// The subtree of `node` in pre-order, `node` first. Empty for a stale handle.
    pub fn subtree(&self, node: NodeId) -> impl ExactSizeIterator<Item = NodeId> + '_ {
        let range = self
            .dense(node)
            .map_or(0..0, |d| d..d + self.hot.size[d] as usize);
        range.map(|d| self.id_at(d))
    }

    /// Whether `ancestor` is `node` or one of its ancestors.
    pub fn is_ancestor_or_self(&self, ancestor: NodeId, node: NodeId) -> bool {
        match (self.dense(ancestor), self.dense(node)) {
            (Some(a), Some(n)) => (a..a + self.hot.size[a] as usize).contains(&n),
            _ => false,
        }
    }

    /// Depth of `node` (0 for a root); `None` for a stale handle.
    pub fn depth(&self, node: NodeId) -> Option<usize> {
        let mut d = self.dense(node)?;
        let mut depth = 0;
        while self.hot.parent[d] != NONE {
            d = self.hot.parent[d] as usize;
            depth += 1;
        }
        Some(depth)
    }

    /// The name of `node`.
    pub fn name(&self, node: NodeId) -> Option<&str> {
        self.dense(node)?;
        Some(&self.names[node.index() as usize])
    }

    /// Renames `node`.
    ///
    /// # Errors
    /// [`SceneError::StaleNode`] if `node` is not a live node.
    pub fn set_name(&mut self, node: NodeId, name: impl Into<String>) -> Result<(), SceneError> {
        self.dense_or_err(node)?;
        self.names[node.index() as usize] = name.into();
        Ok(())
    }

    /// The first node (in pre-order) with this name.
    pub fn find(&self, name: &str) -> Option<NodeId> {
        (0..self.hot.len())
            .find(|&d| self.names[self.hot.slot[d] as usize] == name)
            .map(|d| self.id_at(d))
    }

    /// Finds a node by the names along its path from a root: `"ship/mast/crows_nest"`.
    ///
    /// At each level the first child with the name is taken.
    pub fn find_path(&self, path: &str) -> Option<NodeId> {
        let mut segments = path.split('/').filter(|s| !s.is_empty());
        let first = segments.next()?;
        let mut node = self.roots().find(|&n| self.name(n) == Some(first))?;
        for segment in segments {
            node = self
                .children(node)
                .find(|&n| self.name(n) == Some(segment))?;
        }
        Some(node)
    }

    /// The path of names from a root down to `node`, joined with `/`.
    pub fn path(&self, node: NodeId) -> Option<String> {
        let mut names = vec![self.name(node)?];
        let mut at = node;
        while let Some(parent) = self.parent(at) {
            names.push(self.name(parent)?);
            at = parent;
        }
        names.reverse();
        Some(names.join("/"))
    }

    /// Counter bumped by every spawn, despawn and reparent: caches keyed on the
    /// hierarchy's shape (the editor's tree rows) compare it to know when to rebuild.
    pub fn structure_version(&self) -> u64 {
        self.structure_version
    }

    /// Hands over the nodes despawned since the last call (for indices that must forget them).
    pub fn take_despawned(&mut self, out: &mut Vec<NodeId>) {
        out.append(&mut self.despawned);
    }

    /// Removes every node and component; keeps the environment and camera.
    pub fn clear(&mut self) {
        let roots: Vec<NodeId> = self.roots().collect();
        for root in roots {
            // Every root is live: it was just listed.
            let _ = self.despawn(root);
        }
    }

    fn alloc_slot(&mut self, name: String) -> u32 {
        if let Some(slot) = self.free.pop() {
            self.names[slot as usize] = name;
            slot
        } else {
            let slot = self.slots.len() as u32;
            self.slots.push(Slot {
                generation: NonZeroU32::MIN,
                dense: NONE,
            });
            self.names.push(name);
            slot
        }
    }

    fn free_slot(&mut self, slot: u32) {
        let entry = &mut self.slots[slot as usize];
        entry.dense = NONE;
        self.names[slot as usize] = String::new();
        // A slot whose generation would wrap is retired rather than risk aliasing an old handle.
        if let Some(next) = entry.generation.checked_add(1) {
            entry.generation = next;
            self.free.push(slot);
        }
    }

    /// World transform of the node at a dense index, identity for [`NONE`].
    pub(super) fn world_at(&self, d: u32) -> Affine3A {
        if d == NONE {
            Affine3A::IDENTITY
        } else {
            self.hot.world[d as usize]
        }
    }

    /// Sets flag bits; remembers the node for the next propagation when it becomes dirty.
    pub(super) fn mark(&mut self, d: usize, bits: u8) {
        if bits & flag::DIRTY != 0 && self.hot.flags[d] & flag::DIRTY == 0 {
            self.dirty.push(self.id_at(d));
        }
        self.hot.flags[d] |= bits;
    }

    /// Removes the subtree rooted at dense index `d`; returns it with block-local parent indices.
    fn remove_block(&mut self, d: usize) -> Hot {
        let count = self.hot.size[d] as usize;
        let mut ancestor = self.hot.parent[d];
        while ancestor != NONE {
            self.hot.size[ancestor as usize] -= count as u32;
            ancestor = self.hot.parent[ancestor as usize];
        }
        let mut block = self.hot.drain(d, count);
        block.parent[0] = NONE;
        for p in &mut block.parent[1..] {
            *p -= d as u32;
        }
        let end = (d + count) as u32;
        for p in &mut self.hot.parent[d..] {
            if *p != NONE && *p >= end {
                *p -= count as u32;
            }
        }
        self.reindex_from(d);
        self.structure_changed();
        block
    }

    /// Inserts a block (block-local parent indices) as the last child of `parent` (dense or NONE).
    fn insert_block(&mut self, mut block: Hot, parent: u32) {
        let at = if parent == NONE {
            self.hot.len()
        } else {
            parent as usize + self.hot.size[parent as usize] as usize
        };
        let count = block.len() as u32;
        for p in &mut self.hot.parent[at..] {
            if *p != NONE && *p >= at as u32 {
                *p += count;
            }
        }
        block.parent[0] = parent;
        for p in &mut block.parent[1..] {
            *p += at as u32;
        }
        self.hot.splice(at, block);
        let mut ancestor = parent;
        while ancestor != NONE {
            self.hot.size[ancestor as usize] += count;
            ancestor = self.hot.parent[ancestor as usize];
        }
        self.reindex_from(at);
        self.structure_changed();
    }

    fn reindex_from(&mut self, from: usize) {
        for (d, &slot) in self.hot.slot.iter().enumerate().skip(from) {
            self.slots[slot as usize].dense = d as u32;
        }
    }

    fn structure_changed(&mut self) {
        self.structure_version += 1;
        self.snapshot_all = true;
        self.unsnapped.clear();
        self.last_changed.clear();
    }

    /// Checks the storage invariants; used by tests.
    #[cfg(test)]
    pub(super) fn assert_invariants(&self) {
        let n = self.hot.len();
        for d in 0..n {
            let p = self.hot.parent[d];
            assert!(
                p == NONE || (p as usize) < d,
                "parent of {d} must precede it"
            );
            let end = d + self.hot.size[d] as usize;
            assert!(end <= n, "subtree of {d} overruns the arrays");
            let mut child = d + 1;
            let mut total = 1;
            while child < end {
                assert_eq!(
                    self.hot.parent[child] as usize, d,
                    "child at {child} of {d}"
                );
                total += self.hot.size[child] as usize;
                child += self.hot.size[child] as usize;
            }
            assert_eq!(total, self.hot.size[d] as usize, "size of {d}");
            let slot = self.hot.slot[d] as usize;
            assert_eq!(self.slots[slot].dense as usize, d, "slot table of {d}");
        }
    }
}

/// Iterator over the direct children of a node (or the roots), skipping grandchildren by subtree size.
pub struct Children<'a> {
    scene: &'a Scene,
    next: usize,
    end: usize,
}

impl Iterator for Children<'_> {
    type Item = NodeId;

    fn next(&mut self) -> Option<NodeId> {
        if self.next >= self.end {
            return None;
        }
        let d = self.next;
        self.next += self.scene.hot.size[d] as usize;
        Some(self.scene.id_at(d))
    }
}
