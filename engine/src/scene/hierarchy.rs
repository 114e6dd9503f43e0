//! The scene graph: node slots, the hierarchy's edits and queries.
//!
//! Handles stay stable while nodes move inside the hot columns: a slot table
//! (object pool pattern, with a free list and generations) maps each handle to
//! the node's current dense position. How positions are kept, and what each
//! edit costs, is the business of [`layout`].
//!
//! Cold data (names) is indexed by slot and never moves.

mod consistency;
mod holes;
mod layout;
mod local_to_world;
mod many_writes;
mod propagate;
mod sparse;
mod state;
mod transforms;
mod undo;

pub use layout::{Children, PreOrder};
pub use local_to_world::PropagationStats;
pub use transforms::Transforms;

use std::num::NonZeroU32;

use glam::Affine3A;

use super::components::Components;
use super::{NodeError, NodeId};
use crate::assets::Assets;
use crate::transform::Transform;
use layout::NewNode;
use layout::{Hot, Upkeep};
pub(crate) use undo::StepUndo;

/// Marker for "no node" in the dense columns (no parent, no sibling, a hole's slot).
pub(super) const NONE: u32 = u32::MAX;

/// Flag bits of the hot `flags` column.
pub(super) mod flag {
    /// The local transform changed since the last propagation.
    pub const DIRTY: u8 = 1;
    /// The node jumped (spawn, teleport, editor edit): do not interpolate across the jump.
    pub const TELEPORT: u8 = 2;
    /// Written by propagation: the world was recomputed in the current pass.
    pub const MOVED: u8 = 4;
    /// Written by propagation: the node snapped (itself or an ancestor teleported).
    pub const SNAP: u8 = 8;
    /// Within one linear propagation pass only: the node waits for a parent
    /// in an earlier span (see `propagate.rs`).
    pub const DEFER: u8 = 16;
    /// Within one step only: the world column holds an older transform and
    /// the current one is in the previous-world column (the snapshot
    /// swapped the columns; see `transform.rs`).
    pub const STALE: u8 = 32;
}

/// How [`Scene::reparent`] treats the node's transform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// The node stays where it is in the world; its local transform is recomputed.
    World,
    /// The local transform is kept; the node moves with its new parent.
    Local,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Slot {
    pub generation: NonZeroU32,
    /// Dense position of the node living in this slot, or [`NONE`] when free.
    pub dense: u32,
}

/// Dense position of the live `node` in `slots`' scene, `None` for a stale handle.
fn dense_in(slots: &[Slot], node: NodeId) -> Option<usize> {
    let slot = slots.get(node.index() as usize)?;
    (slot.generation == node.generation_nz() && slot.dense != NONE).then_some(slot.dense as usize)
}

/// A hierarchy of nodes with transforms and components.
///
/// See the module docs for the layout. All operations that take a [`NodeId`]
/// treat a stale handle as "no such node": queries answer `None`, edits answer
/// [`NodeError::StaleNode`].
#[derive(Clone, Debug, Default)]
pub struct Scene {
    hot: Hot,
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Live nodes (positions minus holes).
    live: usize,
    upkeep: Upkeep,
    /// Cold: names by slot (a freed slot's old name until it is reused).
    names: Vec<String>,
    /// Nodes whose flags gained DIRTY since the last propagation (may hold stale handles).
    dirty: Vec<NodeId>,
    /// Nodes that gained DIRTY since the last propagation without being
    /// listed in `dirty`: a crowd's bones, too many to be worth a list. While
    /// any are, the next propagation is the linear pass, which reads the flags.
    dirty_unlisted: usize,
    /// Reused buffer of dirty positions for the sorted propagation path.
    roots_scratch: Vec<u32>,
    /// Reused buffer of the ranges a second core's sparse walk recomputed.
    ranges_scratch: Vec<(u32, u32)>,
    /// Where the sparse pass cuts the columns between two cores, for the
    /// layout stamp and structure version it was found under (`sparse.rs`).
    sparse_cut: Option<((u64, u64), Option<usize>)>,
    /// Reused outputs of the linear propagation pass's spans (one per span).
    span_scratch: Vec<propagate::SpanOut>,
    /// Dense ranges recomputed by the last propagation.
    last_changed: Vec<(u32, u32)>,
    /// Dense ranges recomputed since the last snapshot of previous transforms.
    unsnapped: Vec<(u32, u32)>,
    /// Dense ranges whose nodes may be [`flag::STALE`] (a snapshot swapped
    /// the columns); empty between steps.
    stale: Vec<(u32, u32)>,
    /// Set by [`Scene::compact`]: positions moved, the next snapshot copies all.
    snapshot_all: bool,
    last_recomputed: usize,
    /// Snapshots of previous transforms taken ([`Scene::snapshot_previous`]):
    /// the epoch propagation writes into `Hot::moved`.
    epoch: u32,
    /// Bumped by every structural change (spawn, despawn, reparent).
    structure_version: u64,
    /// Slots handed out by [`Scene::reserve`] and not spawned into yet.
    reserved: Vec<u32>,
    /// Nodes despawned since the last call to [`Scene::take_despawned`].
    despawned: Vec<NodeId>,
    /// Reused buffer of a despawn's positions and handles.
    doomed: Vec<(u32, NodeId)>,
    /// Per-node components, one packed column per kind.
    pub(in crate::scene) components: Components,
    /// Lighting and background of the scene.
    pub(in crate::scene) environment: super::Environment,
    /// The store its meshes, models and skies come from (shared by its clones).
    assets: Assets,
    /// Simulated state that belongs to no node.
    pub(in crate::scene) resources: super::Resources,
    /// The running step's undo, while one is armed (`undo.rs`).
    undo: StepUndo,
}

impl Scene {
    /// An empty scene with an empty [`Assets`] of its own.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty scene whose models and skies load into `assets` (shared
    /// with every other scene of the same owner).
    pub fn with_assets(assets: &Assets) -> Self {
        Self {
            assets: assets.clone(),
            ..Self::default()
        }
    }

    /// The store this scene's handles (meshes, textures, skies) belong to.
    pub fn assets(&self) -> &Assets {
        &self.assets
    }

    /// The component columns, one packed column per kind (read a node's with
    /// [`Scene::get`]).
    pub fn components(&self) -> &Components {
        &self.components
    }

    /// The component columns, to walk or edit one kind in bulk (a node's
    /// alone: [`Scene::get_mut`], [`Scene::insert`]).
    pub fn components_mut(&mut self) -> &mut Components {
        &mut self.components
    }

    /// Lighting and background of the scene.
    pub fn environment(&self) -> &super::Environment {
        &self.environment
    }

    /// Lighting and background, to edit.
    pub fn environment_mut(&mut self) -> &mut super::Environment {
        self.save_environment();
        &mut self.environment
    }

    /// Number of live nodes.
    pub fn len(&self) -> usize {
        self.live
    }

    /// Number of node slots ever used (live or free): an upper bound of [`NodeId::index`].
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// Whether the scene has no nodes.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Whether `node` is a live node of this scene.
    pub fn contains(&self, node: NodeId) -> bool {
        self.dense(node).is_some()
    }

    /// Dense position of a live node.
    pub(super) fn dense(&self, node: NodeId) -> Option<usize> {
        dense_in(&self.slots, node)
    }

    pub(super) fn dense_or_err(&self, node: NodeId) -> Result<usize, NodeError> {
        self.dense(node).ok_or(NodeError::StaleNode { node })
    }

    /// Dense position of `parent`, [`NONE`] for the root level.
    fn parent_dense(&self, parent: Option<NodeId>) -> Result<u32, NodeError> {
        match parent {
            Some(p) => Ok(self.dense_or_err(p)? as u32),
            None => Ok(NONE),
        }
    }

    /// Handle of the node at dense position `d`.
    pub(super) fn id_at(&self, d: usize) -> NodeId {
        let slot = self.hot.meta[d].slot;
        NodeId::new(slot, self.slots[slot as usize].generation)
    }

    /// Creates a node under `parent` (or at the root) with the given local
    /// transform, after its parent's existing children.
    ///
    /// O(1) (O(log holes) when it fills a hole): the node takes the last hole
    /// if that lies after its parent, else it is appended to the hot columns.
    ///
    /// # Errors
    /// [`NodeError::StaleNode`] if `parent` is not a live node;
    /// [`NodeError::InvalidTransform`] if `local` holds NaN or infinite values.
    pub fn spawn(
        &mut self,
        parent: Option<NodeId>,
        name: impl Into<String>,
        local: Transform,
    ) -> Result<NodeId, NodeError> {
        self.spawn_at(parent, usize::MAX, name, local)
    }

    /// As [`Scene::spawn`], at position `index` among the parent's children
    /// (or the roots); an index past the last child appends.
    ///
    /// Finding the position walks the siblings from the nearer end; the rest is O(1).
    ///
    /// # Errors
    /// As [`Scene::spawn`].
    pub fn spawn_at(
        &mut self,
        parent: Option<NodeId>,
        index: usize,
        name: impl Into<String>,
        local: Transform,
    ) -> Result<NodeId, NodeError> {
        self.save_structure();
        let name = name.into();
        if !local.is_finite() {
            return Err(NodeError::InvalidTransform {
                node: name,
                transform: local,
            });
        }
        let parent_dense = self.parent_dense(parent)?;
        let slot = self.alloc_slot(name);
        let world = crate::transform::Affine3x4::from_affine(
            &(self.world_at(parent_dense) * local.to_affine()),
        );
        let node = NewNode {
            local,
            world,
            flags: flag::DIRTY | flag::TELEPORT,
            epoch: self.epoch,
            slot,
        };
        let d = match self.take_hole(parent_dense) {
            Some(d) => {
                self.hot.place(d, node);
                d
            }
            None => self.hot.push(node),
        };
        let before = self.hot.nth_child(parent_dense, index);
        self.hot.link(d, parent_dense, before);
        self.slots[slot as usize].dense = d;
        self.hot.layout = layout::next_layout();
        self.live += 1;
        self.structure_version += 1;
        let id = NodeId::new(slot, self.slots[slot as usize].generation);
        self.dirty.push(id);
        Ok(id)
    }

    /// A handle for a node that does not exist yet: [`Scene::spawn_reserved`]
    /// creates it (a command buffer hands it out at once, to use in other
    /// commands and in components). Until then the scene has no such node.
    pub fn reserve(&mut self) -> NodeId {
        let slot = self.reserve_slot();
        self.reserved.push(slot);
        NodeId::new(slot, self.slots[slot as usize].generation)
    }

    /// Creates the node `id` was reserved for (see [`Scene::reserve`]), as
    /// [`Scene::spawn`] would.
    ///
    /// # Errors
    /// [`NodeError::StaleNode`] when `id` is no reservation (or was used),
    /// else as [`Scene::spawn`]; the reservation is released then.
    pub fn spawn_reserved(
        &mut self,
        id: NodeId,
        parent: Option<NodeId>,
        name: impl Into<String>,
        local: Transform,
    ) -> Result<NodeId, NodeError> {
        self.save_structure();
        let slot = id.index();
        let Some(at) = self.reserved.iter().position(|&s| s == slot) else {
            return Err(NodeError::StaleNode { node: id });
        };
        if self.slots[slot as usize].generation != id.generation_nz() {
            return Err(NodeError::StaleNode { node: id });
        }
        self.reserved.swap_remove(at);
        // The free list's last slot is the one `spawn` takes.
        self.free.push(slot);
        let spawned = self.spawn(parent, name, local);
        if spawned.is_err() && self.free.last() == Some(&slot) {
            // Refused before a slot was taken: the reservation is released.
            self.free.pop();
            self.free_slot(slot);
        }
        spawned
    }

    /// Removes `node` and its whole subtree, with their components.
    ///
    /// Returns how many nodes were removed. Their handles go stale at once.
    /// O(nodes removed): their positions become holes, reclaimed later by the
    /// compaction sweep.
    ///
    /// # Errors
    /// [`NodeError::StaleNode`] if `node` is not a live node.
    pub fn despawn(&mut self, node: NodeId) -> Result<usize, NodeError> {
        self.save_structure();
        let root = self.dense_or_err(node)? as u32;
        // Where a relayout pass whose next node goes resumes: after the subtree.
        let (parent, next) = (
            self.hot.parent[root as usize],
            self.hot.meta[root as usize].links.next,
        );
        self.hot.unlink(root);
        // The walk first, gathering handles: a tight loop keeps many of the
        // slot table's cache misses in flight at once.
        let mut doomed = std::mem::take(&mut self.doomed);
        doomed.clear();
        let mut d = root;
        while d != NONE {
            let slot = self.hot.meta[d as usize].slot;
            doomed.push((d, NodeId::new(slot, self.slots[slot as usize].generation)));
            d = self.hot.next_preorder(d, root);
        }
        let mut cursor_gone = false;
        for &(d, id) in &doomed {
            cursor_gone |= self.upkeep.relayout == Some(id);
            self.components.remove_all(id);
            self.free_slot(id.index());
            self.release_position(d);
        }
        self.despawned.extend(doomed.iter().map(|&(_, id)| id));
        let count = doomed.len();
        self.doomed = doomed;
        if cursor_gone {
            let after = match (next, parent) {
                (NONE, NONE) => NONE,
                (NONE, parent) => self.hot.next_after_subtree(parent),
                (next, _) => next,
            };
            self.upkeep.relayout = (after != NONE).then(|| self.id_at(after as usize));
        }
        self.live -= count;
        self.structure_version += 1;
        Ok(count)
    }

    /// Moves `node` (with its subtree) under `new_parent`, or to the root, as
    /// its new parent's last child. It is not interpolated across the move.
    ///
    /// # Errors
    /// [`NodeError::StaleNode`] for a dead handle; [`NodeError::CyclicReparent`]
    /// if `new_parent` is `node` itself or one of its descendants.
    pub fn reparent(
        &mut self,
        node: NodeId,
        new_parent: Option<NodeId>,
        keep: Keep,
    ) -> Result<(), NodeError> {
        self.reparent_at(node, new_parent, usize::MAX, keep)
    }

    /// As [`Scene::reparent`], at position `index` among the new siblings
    /// (counted without the node itself); an index past the last appends.
    ///
    /// Costs O(depth of the new parent) for the cycle check, plus the walk to
    /// the sibling position, plus O(subtree) only when the new parent lies
    /// after the node in the columns (the subtree is then moved to the end).
    ///
    /// # Errors
    /// As [`Scene::reparent`].
    pub fn reparent_at(
        &mut self,
        node: NodeId,
        new_parent: Option<NodeId>,
        index: usize,
        keep: Keep,
    ) -> Result<(), NodeError> {
        self.save_structure();
        let d = self.dense_or_err(node)? as u32;
        let parent = self.parent_dense(new_parent)?;
        if let Some(p) = new_parent
            && self.is_ancestor_at(d, parent)
        {
            return Err(NodeError::CyclicReparent {
                node,
                new_parent: p,
            });
        }
        if keep == Keep::World {
            // Current worlds are needed; propagation moves no position.
            self.propagate();
        }
        let node_world = self.hot.current_world(d as usize).to_affine();
        self.hot.unlink(d);
        let d = if parent != NONE && parent > d {
            self.move_to_end(d)
        } else {
            d
        };
        let before = self.hot.nth_child(parent, index);
        self.hot.link(d, parent, before);
        if keep == Keep::World {
            let local = Transform::from_affine(self.world_at(parent).inverse() * node_world);
            if local.is_finite() {
                self.hot.local[d as usize] = local;
            }
        }
        self.mark(node, d as usize, flag::DIRTY | flag::TELEPORT);
        self.structure_version += 1;
        Ok(())
    }

    /// Whether the node at `ancestor` is `d` or one of its ancestors: a walk up from `d`.
    fn is_ancestor_at(&self, ancestor: u32, d: u32) -> bool {
        let mut at = d;
        while at != NONE {
            if at == ancestor {
                return true;
            }
            at = self.hot.parent[at as usize];
        }
        false
    }

    /// The parent of `node`; `None` for a root or a stale handle.
    pub fn parent(&self, node: NodeId) -> Option<NodeId> {
        let d = self.dense(node)?;
        let p = self.hot.parent[d];
        (p != NONE).then(|| self.id_at(p as usize))
    }

    /// The children of `node`, in order. Empty for a leaf or a stale handle.
    pub fn children(&self, node: NodeId) -> Children<'_> {
        let links = self
            .dense(node)
            .map_or(&layout::Links::EMPTY, |d| &self.hot.meta[d].links);
        Children {
            scene: self,
            next: links.first_child,
            left: links.children as usize,
        }
    }

    /// Number of direct children of `node`; 0 for a leaf or a stale handle.
    pub fn child_count(&self, node: NodeId) -> usize {
        self.dense(node)
            .map_or(0, |d| self.hot.meta[d].links.children as usize)
    }

    /// The position of `node` among its siblings (or among the roots); `None`
    /// for a stale handle. Walks the earlier siblings.
    pub fn sibling_index(&self, node: NodeId) -> Option<usize> {
        let mut d = self.dense(node)? as u32;
        let mut index = 0;
        while self.hot.meta[d as usize].links.prev != NONE {
            d = self.hot.meta[d as usize].links.prev;
            index += 1;
        }
        Some(index)
    }

    /// The root nodes, in order.
    pub fn roots(&self) -> Children<'_> {
        Children {
            scene: self,
            next: self.hot.roots.first_child,
            left: self.hot.roots.children as usize,
        }
    }

    /// Every live node in depth-first pre-order (parents before children,
    /// siblings in order).
    pub fn nodes(&self) -> PreOrder<'_> {
        PreOrder {
            scene: self,
            next: self.hot.roots.first_child,
            root: NONE,
        }
    }

    /// Number of nodes in the subtree of `node` (itself included); 0 for a
    /// stale handle. Counts them: O(subtree).
    pub fn subtree_len(&self, node: NodeId) -> usize {
        self.subtree(node).count()
    }

    /// The subtree of `node` in pre-order, `node` first. Empty for a stale handle.
    pub fn subtree(&self, node: NodeId) -> PreOrder<'_> {
        let root = self.dense(node).map_or(NONE, |d| d as u32);
        PreOrder {
            scene: self,
            next: root,
            root,
        }
    }

    /// Whether `ancestor` is `node` or one of its ancestors. O(depth of `node`).
    pub fn is_ancestor_or_self(&self, ancestor: NodeId, node: NodeId) -> bool {
        match (self.dense(ancestor), self.dense(node)) {
            (Some(a), Some(n)) => self.is_ancestor_at(a as u32, n as u32),
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
    /// [`NodeError::StaleNode`] if `node` is not a live node.
    pub fn set_name(&mut self, node: NodeId, name: impl Into<String>) -> Result<(), NodeError> {
        self.save_structure();
        self.dense_or_err(node)?;
        self.names[node.index() as usize] = name.into();
        Ok(())
    }

    /// The first node (in pre-order) with this name.
    pub fn find(&self, name: &str) -> Option<NodeId> {
        self.nodes()
            .find(|&n| self.names[n.index() as usize] == name)
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

    /// Names where every node is: equal stamps, equal positions for every
    /// node (a new stamp whenever one moves, appears or goes, the layout's
    /// upkeep included; no two layouts share one). Positions found through
    /// handles can be kept while it holds.
    #[must_use]
    pub(crate) fn layout_stamp(&self) -> u64 {
        self.hot.layout.0
    }

    /// Hands over the nodes despawned since the last call (for indices that must forget them).
    pub fn take_despawned(&mut self, out: &mut Vec<NodeId>) {
        self.save_structure();
        out.append(&mut self.despawned);
    }

    /// Removes every node and component; keeps the environment.
    pub fn clear(&mut self) {
        while self.hot.roots.first_child != NONE {
            let root = self.id_at(self.hot.roots.first_child as usize);
            // Every root is live: it was just read from the root list.
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
        self.hot.layout = layout::next_layout();
        // The name stays until the slot is reused: dropping it here would
        // cost a despawn a cache miss per node.
        // A slot whose generation would wrap is retired rather than risk aliasing an old handle.
        if let Some(next) = entry.generation.checked_add(1) {
            entry.generation = next;
            self.free.push(slot);
        }
    }

    /// World transform of the node at a dense position, identity for [`NONE`].
    pub(super) fn world_at(&self, d: u32) -> Affine3A {
        if d == NONE {
            Affine3A::IDENTITY
        } else {
            self.hot.current_world(d as usize).to_affine()
        }
    }

    /// Sets flag bits of `node` (at `d`); remembers it for the next
    /// propagation when it becomes dirty.
    pub(super) fn mark(&mut self, node: NodeId, d: usize, bits: u8) {
        if bits & flag::DIRTY != 0 && self.hot.flags[d] & flag::DIRTY == 0 {
            self.dirty.push(node);
        }
        self.hot.flags[d] |= bits;
    }
}

/// What the scene's own passes outside the storage (components, the
/// animator, skins, the scene file) read and write of it: narrow doors that
/// keep the storage's invariants, instead of its columns.
impl Scene {
    /// Every emitter with its node's slot (a stable key) and world transform,
    /// for the particle system's step.
    pub fn emitters_mut(
        &mut self,
    ) -> impl Iterator<Item = (u32, &mut crate::particles::emitter::Emitter, Affine3A)> {
        let (hot, slots) = (&self.hot, &self.slots);
        let (owners, emitters) = self.components.emitter.parts_mut();
        owners
            .iter()
            .zip(emitters.iter_mut())
            .map(move |(node, emitter)| {
                let dense = slots[node.index() as usize].dense as usize;
                (node.index(), emitter, hot.current_world(dense).to_affine())
            })
    }

    /// Positions in the hot columns (live nodes and holes).
    pub(super) fn positions(&self) -> usize {
        self.hot.len()
    }

    /// The position of the parent of the node at position `d` (none: a root).
    pub(super) fn parent_position(&self, d: usize) -> Option<usize> {
        let parent = self.hot.parent[d];
        (parent != NONE).then_some(parent as usize)
    }

    /// The local transforms and flags by position, for a pass that writes
    /// many nodes' local transforms in place (the animator's pose): each node
    /// it writes must get [`flag::DIRTY`] and be reported to
    /// [`Scene::note_dirtied`] before the next propagation.
    pub(super) fn locals_and_flags_mut(&mut self) -> (&mut [Transform], &mut [u8]) {
        self.save_locals();
        (&mut self.hot.local, &mut self.hot.flags)
    }

    /// Records nodes a pass flagged dirty in place: `listed` go on the dirty
    /// list; `unlisted` were only flagged (the propagation after reads every
    /// flag in one linear pass anyway, see [`Scene::propagates_linearly`]).
    pub(super) fn note_dirtied(&mut self, listed: &[NodeId], unlisted: usize) {
        self.dirty.extend_from_slice(listed);
        self.dirty_unlisted += unlisted;
    }

    /// The snapshot count: each [`Scene::snapshot_previous`] starts the next.
    pub(super) fn epoch(&self) -> u32 {
        self.epoch
    }

    /// By position: the epoch in which each node's world transform last changed.
    pub(super) fn moved_epochs(&self) -> &[u32] {
        &self.hot.moved
    }

    /// Sets the snapshot count (tests of its wrapping).
    #[cfg(test)]
    pub(super) fn set_epoch(&mut self, epoch: u32) {
        self.epoch = epoch;
    }
}

#[cfg(test)]
mod model_tests;
