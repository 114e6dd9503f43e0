//! Where nodes live: the hot columns, the sibling links, holes and their
//! incremental compaction.
//!
//! Data locality with cheap structural edits. Every per-node column (local,
//! world, previous world, parent, flags, and `Meta`: links and slot) is indexed
//! by a dense position, and positions keep one order: a parent before its
//! children. That is all propagation needs to be one linear pass, and it is
//! cheap to keep: a new node is appended (after its parent, wherever that is),
//! a despawned node leaves a hole, and a subtree moved under a later parent is
//! appended again in pre-order. Nothing else moves, so an edit costs the nodes
//! it touches.
//!
//! The hierarchy itself is kept as links (parent, first and last child, previous
//! and next sibling, child count), by dense position, so sibling order survives
//! any edit and children, subtrees and pre-order walks follow links instead of
//! relying on positions.
//!
//! A spawn takes the first hole after its parent (a [`HoleSet`] finds it),
//! so steady churn (as many spawns as despawns) keeps the columns
//! dense without moving anything. Holes left over are reclaimed by a sweep
//! that slides live nodes down over them in their current order (so parents
//! stay before children), a bounded number of positions per fixed step: no
//! frame pays for the whole scene.
//!
//! # The hierarchy's layout in full
//!
//! Hot per-node columns (`scene/hierarchy/layout.rs`) are indexed by a dense position:
//! `local`, `world`, `prev_world` (`Affine3x4`, 48 bytes), `moved` (the epoch of
//! the node's last recomputation), `parent`, `flags` (one byte: every
//! `set_local` reads and writes it), and `meta`, a 24-byte record of what only
//! structural edits touch (the slot, and the links: first and last child,
//! previous and next sibling, child count). Positions keep one order:
//! **a parent before its children** (not strict pre-order), which is all a linear
//! propagation pass needs. The slot table maps a handle to its position; a freed
//! slot's generation is bumped. Sibling order lives in the links, not in positions.
//!
//! What each operation costs:
//!
//! | operation | cost |
//! | --- | --- |
//! | `spawn` | O(1): takes the first hole after its parent (`scene/holes.rs`, a two-level bitmap: one word, else the summary) or appends; linked as last child |
//! | `spawn_at(parent, i)` / `reparent_at(.., i)` | + a walk of min(i, siblings - i) sibling links |
//! | `despawn` (k nodes) | O(k): a pre-order walk; positions become holes |
//! | `reparent` (k nodes) | O(depth of the new parent) cycle check; O(1) if the new parent comes before the node, else O(k): the subtree is appended again in pre-order |
//! | `children`, `subtree`, `nodes` | follow links; `nodes()` is the forest in pre-order, siblings in order; `subtree_len` counts |
//! | `propagate` | sparse: dirty positions sorted, each still-dirty one walks its subtree through the links, clearing the flags of the dirty nodes inside it; every node at most once. Dense (1 node in 8 dirty or more): one linear pass, a node recomputed when dirty or when its parent was (MOVED bit, written earlier in the same pass); from 64k positions the pass is cut into spans (starting at roots where one is near) walked on several cores, a node whose parent lies in an earlier span deferred with its descendants there (DEFER bit) and its subtree walked through the links afterwards |
//! | `snapshot_previous` | the position ranges recomputed since the last one (a subtree moved to the end adds its new range; no structural edit forces a full copy): up to 16k nodes copied; more, and no upkeep due, the world and previous-world columns are swapped (the previous column is then every current world) and the ranges' nodes marked STALE (a byte each): their current world is in the previous column until propagation overwrites it (readers and the propagation pass's parent reads follow the mark), and the end of each propagation (and anything that moves positions) copies the ones left back. A crowd moving every step copies nothing. Each snapshot starts the next epoch, which propagation writes into `moved` for the nodes it recomputes |
//!
//! The layout is kept up by one bounded step per fixed step, at the end of
//! `snapshot_previous` (no position range is pending there):
//!
//! - **Relayout.** The linear propagation pass counts the nodes whose parent lies
//!   over 1,024 positions behind them (and is not the previous node's parent,
//!   which is in cache): what a scene built in creation order, or heavily
//!   reparented, pays in cache misses. Once they reach a quarter of the nodes, a
//!   pass walks the forest in pre-order and moves each subtree of up to 1,024
//!   nodes to the end in pre-order (same parent, same sibling place), 4,096 nodes
//!   a step; larger subtrees stay and the walk goes into them.
//! - **Sweep.** Once holes reach a quarter of the positions (and 256), live nodes
//!   slide down over them in their current order, 4,096 positions (plus
//!   re-pointed children) a step, and the columns are trimmed. It moves every
//!   node after the first hole: 4 moves per reclaimed hole.
//!
//! Both carry a node's world and previous world with it, so interpolation is exact
//! across them. `compact()` runs a whole relayout pass and sweep at once. Steady
//! churn (as many spawns as despawns) fills its own holes and starts neither.
//!
//! What this layout gives up: a one-node edit touches more cache lines than a
//! pointer tree's (the node in six columns, its slot, its siblings' records), so
//! random single-node churn costs about 1.3x the pointer tree's;
//! and a new child of an old node lives wherever the first hole after it is,
//! until a relayout.

use crate::transform::Affine3x4;

use super::holes::HoleSet;
use super::{NONE, Slot};
use crate::scene::Scene;
use crate::transform::Transform;

/// A relayout pass starts once the last linear propagation found 1 node in
/// `RELAYOUT_FRACTION` with its parent far behind it (see [`FAR`]).
pub(super) const RELAYOUT_FRACTION: usize = 4;
/// A parent more than this many positions behind its child (and not the
/// previous node's parent, which is in cache already) costs propagation a
/// cache miss.
pub(super) const FAR: u32 = 1024;
/// Scenes smaller than this are never relaid out on their own.
const RELAYOUT_MIN_NODES: usize = 4096;
/// Subtrees up to this size are moved whole by a relayout pass; larger ones
/// stay and the pass goes down into them.
const RELAYOUT_CHUNK: usize = 1024;
/// Nodes a relayout pass moves (or counts) per step.
const RELAYOUT_BUDGET: usize = 4096;
/// A sweep starts once holes exceed 1 in `SWEEP_FRACTION` positions. A
/// sweep moves every node after the first hole, so it costs
/// `SWEEP_FRACTION` moves per reclaimed hole.
pub(super) const SWEEP_FRACTION: usize = 4;
/// Fewer holes than this are never worth a sweep.
const SWEEP_MIN_HOLES: usize = 256;
/// Positions a sweep advances per step (live nodes moved, holes passed and
/// children re-pointed all count).
pub(super) const SWEEP_BUDGET: usize = 4096;

/// The hierarchy links of one node (or of the root level), by dense position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(super) struct Links {
    pub first_child: u32,
    pub last_child: u32,
    pub prev: u32,
    pub next: u32,
    pub children: u32,
}

impl Links {
    pub const EMPTY: Links = Links {
        first_child: NONE,
        last_child: NONE,
        prev: NONE,
        next: NONE,
        children: 0,
    };
}

/// What a structural edit reads and writes of a node besides its parent:
/// links and slot, in one record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(super) struct Meta {
    pub links: Links,
    /// Slot index of the node here; [`NONE`] for a hole.
    pub slot: u32,
}

impl Meta {
    /// A hole: no node, no links.
    pub const HOLE: Meta = Meta {
        links: Links::EMPTY,
        slot: NONE,
    };
}

/// Per-node columns, all the same length, parents before children; holes
/// (slot [`NONE`]) anywhere.
#[derive(Clone, Debug)]
pub(super) struct Hot {
    pub local: Vec<Transform>,
    pub world: Vec<Affine3x4>,
    pub prev_world: Vec<Affine3x4>,
    /// The epoch ([`Scene::epoch`]: snapshots taken) in which propagation
    /// last wrote the node's world: from the next one on, while this stays,
    /// its world and previous world are equal and unchanging (what the joint
    /// palette needs to keep a resting skeleton's matrices).
    pub moved: Vec<u32>,
    /// Dense position of the parent, or [`NONE`] (roots and holes).
    pub parent: Vec<u32>,
    /// Dirty and teleport marks, and the bits propagation writes (read and
    /// written by every `set_local`: a column of its own, one byte a node).
    pub flags: Vec<u8>,
    /// Links and slot.
    pub meta: Vec<Meta>,
    /// The root level's links: the roots are its children.
    pub roots: Links,
    /// Names where the nodes are: a new value whenever a node moves, appears
    /// or goes (see [`Scene::layout_stamp`]).
    pub layout: LayoutStamp,
}

/// A node entering the columns, linked to nothing yet.
#[derive(Clone, Copy, Debug)]
pub(super) struct NewNode {
    pub local: Transform,
    pub world: Affine3x4,
    pub flags: u8,
    /// The epoch it counts as moved in.
    pub epoch: u32,
    /// The slot whose handle names it.
    pub slot: u32,
}

/// A value no layout had before (never 0: "none"), unique to the process:
/// not printed, since the state hash reads the scene's `Debug` form and two
/// runs of the same steps must hash alike.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct LayoutStamp(pub u64);

impl std::fmt::Debug for LayoutStamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LayoutStamp")
    }
}

/// A new [`LayoutStamp`].
pub(super) fn next_layout() -> LayoutStamp {
    LayoutStamp(crate::identity::fresh())
}

impl Default for Hot {
    fn default() -> Self {
        Self {
            local: Vec::new(),
            world: Vec::new(),
            prev_world: Vec::new(),
            moved: Vec::new(),
            parent: Vec::new(),
            flags: Vec::new(),
            meta: Vec::new(),
            roots: Links::EMPTY,
            layout: next_layout(),
        }
    }
}

/// What keeps the layout up: the holes a spawn may take, the sweep that
/// reclaims the rest, and the relayout pass.
#[derive(Clone, Debug)]
pub(super) struct Upkeep {
    /// Holes a spawn may fill (not those inside the running sweep's gap).
    pub reusable: HoleSet,
    /// A sweep is running: `[write, read)` are holes, `[0, write)` swept.
    pub sweeping: bool,
    /// Where the sweep moves the next live node to.
    pub write: u32,
    /// The next position the sweep looks at.
    pub read: u32,
    /// Lowest hole not covered by the running sweep ([`NONE`] if none): where the next starts.
    pub first_hole: u32,
    /// The next node of a running relayout pass, in pre-order.
    pub relayout: Option<super::NodeId>,
    /// Nodes whose parent the last linear propagation found far behind
    /// them: what a relayout would save it.
    pub disorder: usize,
}

impl Default for Upkeep {
    fn default() -> Self {
        Self {
            reusable: HoleSet::default(),
            sweeping: false,
            write: 0,
            read: 0,
            first_hole: NONE,
            relayout: None,
            disorder: 0,
        }
    }
}

impl Hot {
    /// Positions, holes included.
    pub fn len(&self) -> usize {
        self.meta.len()
    }

    /// The links of `d`, or of the root level for [`NONE`].
    pub fn links_of(&mut self, d: u32) -> &mut Links {
        if d == NONE {
            &mut self.roots
        } else {
            &mut self.meta[d as usize].links
        }
    }

    /// The links of `d` (or of the root level), read only.
    pub fn links_at(&self, d: u32) -> &Links {
        if d == NONE {
            &self.roots
        } else {
            &self.meta[d as usize].links
        }
    }

    /// The current world transform at `d`: in the previous-world column
    /// while the node is [`flag::STALE`](super::flag::STALE).
    #[inline]
    pub fn current_world(&self, d: usize) -> &Affine3x4 {
        if self.flags[d] & super::flag::STALE != 0 {
            &self.prev_world[d]
        } else {
            &self.world[d]
        }
    }

    /// Appends `node`; returns its position.
    pub fn push(&mut self, node: NewNode) -> u32 {
        let d = self.len() as u32;
        self.local.push(node.local);
        self.world.push(node.world);
        self.prev_world.push(node.world);
        self.moved.push(node.epoch);
        self.parent.push(NONE);
        self.flags.push(node.flags);
        self.meta.push(Meta {
            slot: node.slot,
            ..Meta::HOLE
        });
        d
    }

    /// Writes `node` into the hole `d`.
    pub fn place(&mut self, d: u32, node: NewNode) {
        let i = d as usize;
        self.local[i] = node.local;
        self.world[i] = node.world;
        self.prev_world[i] = node.world;
        self.moved[i] = node.epoch;
        self.parent[i] = NONE;
        self.flags[i] = node.flags;
        self.meta[i] = Meta {
            slot: node.slot,
            ..Meta::HOLE
        };
    }

    /// Links the unlinked node `d` under `parent` (or at the root level),
    /// before the sibling `before` ([`NONE`]: as the last child).
    pub fn link(&mut self, d: u32, parent: u32, before: u32) {
        let prev = if before == NONE {
            self.links_at(parent).last_child
        } else {
            self.meta[before as usize].links.prev
        };
        self.parent[d as usize] = parent;
        let own = &mut self.meta[d as usize].links;
        own.prev = prev;
        own.next = before;
        if prev == NONE {
            self.links_of(parent).first_child = d;
        } else {
            self.meta[prev as usize].links.next = d;
        }
        if before == NONE {
            self.links_of(parent).last_child = d;
        } else {
            self.meta[before as usize].links.prev = d;
        }
        self.links_of(parent).children += 1;
    }

    /// Takes `d` out of its parent's children; its own children stay with it.
    pub fn unlink(&mut self, d: u32) {
        let parent = self.parent[d as usize];
        let Links { prev, next, .. } = self.meta[d as usize].links;
        if prev == NONE {
            self.links_of(parent).first_child = next;
        } else {
            self.meta[prev as usize].links.next = next;
        }
        if next == NONE {
            self.links_of(parent).last_child = prev;
        } else {
            self.meta[next as usize].links.prev = prev;
        }
        self.links_of(parent).children -= 1;
        let own = &mut self.meta[d as usize].links;
        own.prev = NONE;
        own.next = NONE;
        self.parent[d as usize] = NONE;
    }

    /// The child of `parent` (or root) at `index`, walking from the nearer
    /// end; [`NONE`] when `index` is past the last child.
    pub fn nth_child(&self, parent: u32, index: usize) -> u32 {
        let level = self.links_at(parent);
        let count = level.children as usize;
        if index >= count {
            return NONE;
        }
        if index <= count / 2 {
            let mut d = level.first_child;
            for _ in 0..index {
                d = self.meta[d as usize].links.next;
            }
            d
        } else {
            let mut d = level.last_child;
            for _ in index + 1..count {
                d = self.meta[d as usize].links.prev;
            }
            d
        }
    }

    /// The node after `d` in pre-order, staying inside the subtree of `root`
    /// ([`NONE`] as `root`: the whole forest). [`NONE`] when the walk is over.
    #[inline]
    pub fn next_preorder(&self, d: u32, root: u32) -> u32 {
        next_preorder(&self.meta, &self.parent, d, root)
    }

    /// The node after the whole subtree of `d` in the forest's pre-order;
    /// [`NONE`] at the end.
    pub fn next_after_subtree(&self, d: u32) -> u32 {
        let mut d = d;
        loop {
            let next = self.meta[d as usize].links.next;
            if next != NONE {
                return next;
            }
            d = self.parent[d as usize];
            if d == NONE {
                return NONE;
            }
        }
    }

    /// Turns position `d` into a hole.
    fn clear(&mut self, d: usize) {
        self.parent[d] = NONE;
        self.flags[d] = 0;
        self.meta[d] = Meta::HOLE;
    }

    /// Copies every column of position `from` to position `to` (a hole, or
    /// the end), leaving `from` as it was.
    fn copy(&mut self, from: usize, to: usize) {
        if to == self.len() {
            self.local.push(self.local[from]);
            self.world.push(self.world[from]);
            self.prev_world.push(self.prev_world[from]);
            self.moved.push(self.moved[from]);
            self.parent.push(self.parent[from]);
            self.flags.push(self.flags[from]);
            self.meta.push(self.meta[from]);
        } else {
            self.local[to] = self.local[from];
            self.world[to] = self.world[from];
            self.prev_world[to] = self.prev_world[from];
            self.moved[to] = self.moved[from];
            self.parent[to] = self.parent[from];
            self.flags[to] = self.flags[from];
            self.meta[to] = self.meta[from];
        }
    }

    /// Moves the node at `from` to `to` (a hole or the end) with everything
    /// that points at it (parent, siblings, children); `from` is left for the
    /// caller to clear. Returns how many children were re-pointed.
    fn relocate(&mut self, slots: &mut [Slot], from: u32, to: u32) -> usize {
        self.copy(from as usize, to as usize);
        let parent = self.parent[to as usize];
        let Links {
            prev,
            next,
            first_child,
            ..
        } = self.meta[to as usize].links;
        if parent != NONE || prev != NONE || next != NONE || self.roots.first_child == from {
            if prev == NONE {
                self.links_of(parent).first_child = to;
            } else {
                self.meta[prev as usize].links.next = to;
            }
            if next == NONE {
                self.links_of(parent).last_child = to;
            } else {
                self.meta[next as usize].links.prev = to;
            }
        }
        let mut moved = 0;
        let mut child = first_child;
        while child != NONE {
            self.parent[child as usize] = to;
            child = self.meta[child as usize].links.next;
            moved += 1;
        }
        slots[self.meta[to as usize].slot as usize].dense = to;
        self.layout = next_layout();
        moved
    }
}

impl Scene {
    /// Makes the node at `d` a hole (it is unlinked already and its slot freed).
    pub(super) fn release_position(&mut self, d: u32) {
        self.hot.clear(d as usize);
        let sweep = &mut self.upkeep;
        if !sweep.sweeping || d < sweep.write {
            sweep.first_hole = sweep.first_hole.min(d);
        }
        sweep.reusable.insert(d);
    }

    /// Moves the subtree of `root` (unlinked from its parent) to the end of the
    /// columns, in pre-order, so it may go under a parent that comes later.
    /// Returns the root's new position.
    pub(super) fn move_to_end(&mut self, root: u32) -> u32 {
        // The stale ranges name positions: none may move while they stand.
        self.settle_stale();
        let new_root = self.hot.len() as u32;
        let mut d = root;
        let mut bound = root;
        while d != NONE {
            let to = self.hot.len() as u32;
            self.hot.relocate(&mut self.slots, d, to);
            self.release_position(d);
            if d == root {
                bound = to;
            }
            d = self.hot.next_preorder(to, bound);
        }
        // Nodes recomputed since the last snapshot are in its ranges under
        // their old positions: the snapshot must find them at the new ones.
        self.unsnapped.push((new_root, self.hot.len() as u32));
        new_root
    }

    /// Up to `budget` nodes of a relayout pass: walking the forest in
    /// pre-order, each subtree of at most [`RELAYOUT_CHUNK`] nodes is moved
    /// to the end in pre-order (same parent, same sibling place); a larger
    /// one stays and the walk goes into it. The holes left behind go to the
    /// sweep. Returns whether positions moved.
    fn relayout_step(&mut self, budget: usize) -> bool {
        if self.upkeep.relayout.is_none() {
            if !self.relayout_due() {
                return false;
            }
            self.upkeep.disorder = 0;
            self.upkeep.relayout = self.roots().next();
        }
        // Positions move: the stale ranges must not stand.
        self.settle_stale();
        let mut work = 0;
        while work < budget {
            // A despawn of the next node moves it on (see `despawn`).
            let Some(d) = self.upkeep.relayout.and_then(|node| self.dense(node)) else {
                self.upkeep.relayout = None;
                break;
            };
            let d = d as u32;
            let size = self.subtree_up_to(d, RELAYOUT_CHUNK);
            let next = if size <= RELAYOUT_CHUNK {
                let next = self.hot.next_after_subtree(d);
                let (parent, before) = (
                    self.hot.parent[d as usize],
                    self.hot.meta[d as usize].links.next,
                );
                self.hot.unlink(d);
                let moved = self.move_to_end(d);
                self.hot.link(moved, parent, before);
                next
            } else {
                self.hot.meta[d as usize].links.first_child
            };
            work += size;
            self.upkeep.relayout = (next != NONE).then(|| self.id_at(next as usize));
        }
        work > 0
    }

    /// Size of the subtree at `d`, counted up to `cap + 1`.
    fn subtree_up_to(&self, d: u32, cap: usize) -> usize {
        let mut count = 0;
        let mut at = d;
        while at != NONE && count <= cap {
            count += 1;
            at = self.hot.next_preorder(at, d);
        }
        count
    }

    /// Whether [`Scene::upkeep_step`] would move positions now (a relayout
    /// or a sweep running or due).
    pub(super) fn upkeep_due(&self) -> bool {
        self.upkeep.relayout.is_some()
            || self.relayout_due()
            || self.upkeep.sweeping
            || self.sweep_due()
    }

    /// Whether enough nodes lie far from their parents to start a relayout.
    fn relayout_due(&self) -> bool {
        self.live >= RELAYOUT_MIN_NODES && self.upkeep.disorder * RELAYOUT_FRACTION >= self.live
    }

    /// Whether enough positions are holes to start a sweep.
    fn sweep_due(&self) -> bool {
        let holes = self.holes();
        holes >= SWEEP_MIN_HOLES && holes * SWEEP_FRACTION >= self.hot.len()
    }

    /// Keeps the layout up: a step of the relayout pass, then of the sweep.
    /// Called once per fixed step, where no dense range is pending. Returns
    /// whether positions moved.
    pub(super) fn upkeep_step(&mut self) -> bool {
        let relaid = self.relayout_step(RELAYOUT_BUDGET);
        let swept = self.compact_step(SWEEP_BUDGET);
        relaid || swept
    }

    /// Holes among the positions.
    pub(super) fn holes(&self) -> usize {
        self.hot.len() - self.live
    }

    /// One bounded step of the compaction sweep (called once per fixed step,
    /// from [`Scene::snapshot_previous`], where no dense range is pending).
    /// Returns whether positions moved.
    pub(super) fn compact_step(&mut self, budget: usize) -> bool {
        if !self.upkeep.sweeping {
            if !self.sweep_due() {
                return false;
            }
            self.start_sweep();
        }
        // Positions move: the stale ranges must not stand.
        self.settle_stale();
        let mut work = 0;
        let (mut write, mut read) = (self.upkeep.write, self.upkeep.read);
        let len = self.hot.len() as u32;
        while read < len && work < budget {
            if self.hot.meta[read as usize].slot != NONE {
                // The sweep may start on a hole a spawn has filled since.
                if read != write {
                    work += self.hot.relocate(&mut self.slots, read, write);
                    self.hot.clear(read as usize);
                }
                write += 1;
            } else {
                // Inside the gap now: no spawn may take it.
                self.upkeep.reusable.remove(read);
            }
            read += 1;
            work += 1;
        }
        self.upkeep.write = write;
        self.upkeep.read = read;
        if read == len {
            self.finish_sweep();
        }
        true
    }

    /// Restores the layout at once: a whole relayout pass (the forest in
    /// pre-order, up to subtrees larger than a chunk) and a whole sweep (no
    /// holes left). O(nodes); the fixed steps do the same a bounded piece at
    /// a time.
    pub fn compact(&mut self) {
        self.save_structure();
        self.settle_stale();
        // Positions move: pending ranges are void. Outside those ranges the
        // previous world equals the current one, so copying all is exact.
        self.last_changed.clear();
        self.unsnapped.clear();
        self.snapshot_all = true;
        self.upkeep.disorder = 0;
        self.upkeep.relayout = self.roots().next();
        while self.upkeep.relayout.is_some() {
            self.relayout_step(usize::MAX);
        }
        // A sweep already running leaves the holes behind it to the next one.
        loop {
            if !self.upkeep.sweeping {
                if self.holes() == 0 {
                    break;
                }
                self.start_sweep();
            }
            self.compact_step(usize::MAX);
        }
        // The relayout's moves recorded ranges that the sweep has moved since.
        self.unsnapped.clear();
    }

    fn start_sweep(&mut self) {
        let start = self.upkeep.first_hole.min(self.hot.len() as u32);
        let sweep = &mut self.upkeep;
        sweep.sweeping = true;
        sweep.write = start;
        sweep.read = start;
        sweep.first_hole = NONE;
    }

    fn finish_sweep(&mut self) {
        let end = self.upkeep.write as usize;
        let hot = &mut self.hot;
        hot.local.truncate(end);
        hot.world.truncate(end);
        hot.prev_world.truncate(end);
        hot.moved.truncate(end);
        hot.parent.truncate(end);
        hot.flags.truncate(end);
        hot.meta.truncate(end);
        self.upkeep.sweeping = false;
        self.upkeep.write = 0;
        self.upkeep.read = 0;
    }

    /// The first hole after `parent` (any hole for the root level): a new
    /// child may live there. Takes it out of the reusable holes.
    pub(super) fn take_hole(&mut self, parent: u32) -> Option<u32> {
        let hole = self.upkeep.reusable.first_after(parent, parent == NONE)?;
        self.upkeep.reusable.remove(hole);
        Some(hole)
    }
}

/// Iterator over the direct children of a node (or the roots), in order.
pub struct Children<'a> {
    pub(super) scene: &'a Scene,
    pub(super) next: u32,
    pub(super) left: usize,
}

impl Iterator for Children<'_> {
    type Item = super::NodeId;

    fn next(&mut self) -> Option<super::NodeId> {
        if self.next == NONE {
            return None;
        }
        let d = self.next;
        self.next = self.scene.hot.meta[d as usize].links.next;
        self.left -= 1;
        Some(self.scene.id_at(d as usize))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Children<'_> {}

/// Iterator over a subtree (or the whole forest) in depth-first pre-order,
/// following links: no stack, no allocation.
pub struct PreOrder<'a> {
    pub(super) scene: &'a Scene,
    pub(super) next: u32,
    pub(super) root: u32,
}

impl Iterator for PreOrder<'_> {
    type Item = super::NodeId;

    fn next(&mut self) -> Option<super::NodeId> {
        if self.next == NONE {
            return None;
        }
        let d = self.next;
        self.next = self.scene.hot.next_preorder(d, self.root);
        Some(self.scene.id_at(d as usize))
    }
}

/// [`Hot::next_preorder`] over the link and parent columns alone (what a
/// walk that writes other columns can borrow beside them).
#[inline]
pub(super) fn next_preorder(meta: &[Meta], parent: &[u32], d: u32, root: u32) -> u32 {
    let first = meta[d as usize].links.first_child;
    if first != NONE {
        return first;
    }
    let mut d = d;
    loop {
        if d == root {
            return NONE;
        }
        let next = meta[d as usize].links.next;
        if next != NONE {
            return next;
        }
        d = parent[d as usize];
        if d == NONE {
            return NONE;
        }
    }
}
