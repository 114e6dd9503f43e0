//! The loose tree behind both spatial trees, written once over a [`Space`]
//! (the dimension's geometry): [`LooseOctree`](super::LooseOctree) is
//! [`LooseTree`] in 3D and [`Quadtree`](super::Quadtree) is it on the ground
//! plane. Everything the two share, public API included, is here;
//! `octree.rs` and `quadtree.rs` hold their `Space` and their queries by
//! shapes of their own dimension.
//!
//! Every node covers a cube cell; its *loose* bounds are the cell grown by
//! half a cell on each side (loose factor 2), so an object no larger than a
//! cell always fits the cell its centre falls in, whatever its position, and
//! large objects simply stay higher up instead of being split or duplicated.
//!
//! Layout follows the Data Locality pattern: nodes live in one `Vec`, a split
//! node's children are a contiguous block of 8 (4 in 2D) found by index, and
//! each node keeps its objects' bounds and keys packed in its own array, so a
//! query walks contiguous memory. A leaf splits when it holds more than its
//! leaf capacity (64 by default; never below the minimum cell size set by the
//! maximum depth, so 10,000 objects at one point stay finite) and a subtree
//! that drops to 3/8 of that folds back into its root. Large leaves measured
//! best: testing a few dozen packed boxes is cheaper than visiting the extra
//! nodes that small leaves need.
//!
//! An object whose bounds still fit its node after a move is updated in place
//! (one hash look-up and a containment test). Objects outside the root are
//! handled by growing the root (up to [`MAX_GROWTH`] doublings); anything
//! farther away goes to an "outside" list that every query scans, so it is
//! always found.

use std::collections::BinaryHeap;
use std::fmt::Debug;
use std::hash::Hash;

use super::shapes::{Overlap, SpatialError};
use super::{KeyMap, OrdF32};

#[cfg(test)]
mod check;
mod pairs;
mod search;
mod visit;

/// Default leaf capacity: a leaf holding more objects than this is split.
pub(super) const DEFAULT_LEAF_CAPACITY: usize = 64;
/// How many times the root may double to take in a far object.
pub(super) const MAX_GROWTH: u32 = 10;
/// Default number of levels below the root.
pub(super) const DEFAULT_MAX_DEPTH: u32 = 12;
/// Deepest level accepted: past this, cell sizes fall below `f32` resolution
/// of the world's coordinates.
pub(super) const MAX_DEPTH_LIMIT: u32 = 24;

/// Which part of a query's answer to find: the answer split in parts that
/// can be asked on separate threads and together hold each key once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueryPart {
    /// Which part, `0..count`.
    pub index: usize,
    /// How many parts the answer is split into.
    pub count: usize,
}

impl QueryPart {
    /// The whole answer, in one part.
    pub const WHOLE: Self = Self { index: 0, count: 1 };
}

/// Index of the pseudo-node holding objects outside the tree.
const OUTSIDE: u32 = 0;
/// Index of the root node (fixed: growing the root moves the old root away).
const ROOT: u32 = 1;
/// "No node" marker for links.
const NONE: u32 = u32::MAX;
/// Marks a stack entry whose whole subtree is known to match the query
/// (node indices never reach bit 31: that would take 2^31 nodes).
const INSIDE_BIT: u32 = 1 << 31;

/// The geometry a loose tree needs from its dimension.
///
/// Public in name only: its module is private and it is not re-exported, so
/// code outside `spatial` can neither name nor implement it.
pub trait Space {
    /// A point.
    type Point: Copy + Debug;
    /// An axis-aligned box.
    type Bounds: Copy + Debug + PartialEq;
    /// Children of a split node (`2^dimension`).
    const CHILDREN: usize;

    /// Refuses non-finite or inverted bounds.
    fn validate(bounds: &Self::Bounds) -> Result<(), SpatialError>;
    /// Centre of a box.
    fn center(bounds: &Self::Bounds) -> Self::Point;
    /// Loose bounds of the cell at `center` with half size `half`: the cell
    /// grown by `half` on every side.
    fn loose(center: Self::Point, half: f32) -> Self::Bounds;
    /// Child slot of the cell at `center` that `point` falls in.
    fn child_index(center: Self::Point, point: Self::Point) -> usize;
    /// Centre of child `index` of the cell at `center` with half size `half`.
    fn child_center(center: Self::Point, half: f32, index: usize) -> Self::Point;
    /// Root cell centre one doubling away from `center` towards `target`.
    fn grow_towards(center: Self::Point, half: f32, target: Self::Point) -> Self::Point;
    /// Cube (square) cell enclosing `world`: centre and half size.
    fn enclosing_cell(world: &Self::Bounds) -> (Self::Point, f32);
    /// Whether `inner` lies inside `outer`.
    fn contains(outer: &Self::Bounds, inner: &Self::Bounds) -> bool;
    /// Whether the boxes share a point.
    fn intersects(a: &Self::Bounds, b: &Self::Bounds) -> bool;
    /// A box that meets nothing and is the identity of `union`.
    fn empty() -> Self::Bounds;
    /// Smallest box holding both.
    fn union(a: &Self::Bounds, b: &Self::Bounds) -> Self::Bounds;
    /// Squared distance from `point` to the box.
    fn distance_squared(bounds: &Self::Bounds, point: Self::Point) -> f32;
    /// Whether the point is finite.
    fn point_is_finite(point: Self::Point) -> bool;
}

/// One stored object: its bounds, its key, and its slot in the id table.
#[derive(Debug, Clone, Copy)]
pub(super) struct Item<K, B> {
    pub(super) bounds: B,
    pub(super) key: K,
    id: u32,
}

/// Where an object lives: node and index in that node's item array.
#[derive(Debug, Clone, Copy)]
struct Loc {
    node: u32,
    slot: u32,
}

#[derive(Debug, Clone)]
struct Node<K, S: Space> {
    /// Cached loose bounds: every item here and below lies inside them.
    loose: S::Bounds,
    center: S::Point,
    half: f32,
    parent: u32,
    /// First of `S::CHILDREN` contiguous children, or `NONE` for a leaf.
    first_child: u32,
    /// Objects in this subtree, this node included.
    count: u32,
    items: Vec<Item<K, S::Bounds>>,
}

impl<K, S: Space> Node<K, S> {
    fn new(center: S::Point, half: f32, parent: u32) -> Self {
        Self {
            loose: S::loose(center, half),
            center,
            half,
            parent,
            first_child: NONE,
            count: 0,
            items: Vec::new(),
        }
    }

    /// Re-initialises a recycled node, keeping its item array's capacity.
    fn reset(&mut self, center: S::Point, half: f32, parent: u32) {
        self.loose = S::loose(center, half);
        self.center = center;
        self.half = half;
        self.parent = parent;
        self.first_child = NONE;
        self.count = 0;
        self.items.clear();
    }
}

/// Heap entry ordered by distance alone (nearest-first via `Reverse`, or
/// farthest-first for the k-best set).
#[derive(Debug, Clone, Copy)]
struct Ranked<T> {
    distance: OrdF32,
    value: T,
}

impl<T> PartialEq for Ranked<T> {
    fn eq(&self, other: &Self) -> bool {
        self.distance == other.distance
    }
}

impl<T> Eq for Ranked<T> {}

impl<T> PartialOrd for Ranked<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<T> Ord for Ranked<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.distance.cmp(&other.distance)
    }
}

/// Loose tree over keys `K` with the bounds of dimension `S`: the type behind
/// [`LooseOctree`](super::LooseOctree) (3D) and [`Quadtree`](super::Quadtree)
/// (ground plane), with the methods the two share. In their signatures
/// `S::Bounds` is [`Aabb`](super::Aabb) for the octree and
/// [`Rect`](super::Rect) for the quadtree, `S::Point` is `Vec3` or `Vec2`.
///
/// Use it through those two aliases: the dimensions `S` cannot be named
/// outside `spatial`.
#[derive(Debug, Clone)]
pub struct LooseTree<K, S: Space> {
    /// `nodes[OUTSIDE]` holds far objects; `nodes[ROOT]` is the root.
    nodes: Vec<Node<K, S>>,
    free_blocks: Vec<u32>,
    initial_center: S::Point,
    initial_half: f32,
    /// Cells never split below this half size.
    min_half: f32,
    /// The root never grows past this half size.
    max_half: f32,
    max_depth: u32,
    /// A leaf holding more objects than this is split.
    split: usize,
    /// A split subtree holding this many objects or fewer is folded into
    /// its root (below `split`, so that one object moving back and forth
    /// does not split and fold the same node every frame).
    merge: u32,
    locs: Vec<Loc>,
    free_ids: Vec<u32>,
    ids: KeyMap<K>,
    stack: Vec<u32>,
    near_nodes: BinaryHeap<std::cmp::Reverse<Ranked<u32>>>,
    best: BinaryHeap<Ranked<K>>,
    ancestors: Vec<Item<K, S::Bounds>>,
    fitted: Vec<S::Bounds>,
}

impl<K: Copy + Eq + Hash + Debug, S: Space> LooseTree<K, S> {
    /// Empty tree whose root cell is the cube (the square in 2D) enclosing
    /// `world`, with the default maximum depth (12 levels).
    ///
    /// # Errors
    /// The bounds' own error for a bad `world` ([`SpatialError::NonFiniteBounds`]
    /// / [`SpatialError::InvertedBounds`] for an [`Aabb`](super::Aabb),
    /// [`SpatialError::NonFiniteRect`] / [`SpatialError::InvertedRect`] for a
    /// [`Rect`](super::Rect)), [`SpatialError::EmptyWorld`] for one of zero
    /// size.
    pub fn new(world: S::Bounds) -> Result<Self, SpatialError> {
        Self::with_max_depth(world, DEFAULT_MAX_DEPTH)
    }

    /// Empty tree that never subdivides below `world / 2^max_depth`.
    ///
    /// # Errors
    /// As [`Self::new`], and [`SpatialError::MaxDepthTooLarge`] past 24.
    pub fn with_max_depth(world: S::Bounds, max_depth: u32) -> Result<Self, SpatialError> {
        Self::with_config(world, max_depth, DEFAULT_LEAF_CAPACITY)
    }

    /// Empty tree with a maximum depth and a leaf capacity (objects a leaf
    /// holds before it splits; 0 counts as 1).
    ///
    /// # Errors
    /// As [`Self::with_max_depth`].
    pub fn with_config(
        world: S::Bounds,
        max_depth: u32,
        leaf_capacity: usize,
    ) -> Result<Self, SpatialError> {
        S::validate(&world)?;
        if max_depth > MAX_DEPTH_LIMIT {
            return Err(SpatialError::MaxDepthTooLarge {
                max_depth,
                limit: MAX_DEPTH_LIMIT,
            });
        }
        let (center, half) = S::enclosing_cell(&world);
        if half <= 0.0 {
            return Err(SpatialError::EmptyWorld { size: 2.0 * half });
        }
        let mut tree = Self {
            nodes: Vec::new(),
            free_blocks: Vec::new(),
            initial_center: center,
            initial_half: half,
            min_half: half / (1u32 << max_depth) as f32,
            max_half: half * (1u32 << MAX_GROWTH) as f32,
            max_depth,
            split: leaf_capacity.max(1),
            merge: u32::try_from(leaf_capacity.max(1) * 3 / 8).unwrap_or(u32::MAX),
            locs: Vec::new(),
            free_ids: Vec::new(),
            ids: KeyMap::default(),
            stack: Vec::new(),
            near_nodes: BinaryHeap::new(),
            best: BinaryHeap::new(),
            ancestors: Vec::new(),
            fitted: Vec::new(),
        };
        tree.reset_nodes();
        Ok(tree)
    }

    fn reset_nodes(&mut self) {
        self.nodes.clear();
        self.free_blocks.clear();
        let (c, h) = (self.initial_center, self.initial_half);
        self.nodes.push(Node::new(c, h, NONE));
        self.nodes.push(Node::new(c, h, NONE));
    }

    /// Maximum depth below the initial root.
    #[must_use]
    pub fn max_depth(&self) -> u32 {
        self.max_depth
    }

    /// Number of objects stored.
    #[must_use]
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no object is stored.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Whether `key` is stored.
    #[must_use]
    pub fn contains_key(&self, key: K) -> bool {
        self.ids.contains_key(&key)
    }

    /// Bounds stored for `key`.
    #[must_use]
    pub fn get(&self, key: K) -> Option<S::Bounds> {
        let id = *self.ids.get(&key)?;
        let loc = self.locs[id as usize];
        Some(self.nodes[loc.node as usize].items[loc.slot as usize].bounds)
    }

    /// Removes every object and shrinks the root back to the initial world.
    pub fn clear(&mut self) {
        self.reset_nodes();
        self.locs.clear();
        self.free_ids.clear();
        self.ids.clear();
    }

    /// Stores `key` with `bounds`.
    ///
    /// # Errors
    /// The bounds' own error for bad bounds (as [`Self::new`]),
    /// [`SpatialError::DuplicateKey`] if `key` is present; the tree is
    /// unchanged then.
    pub fn insert(&mut self, key: K, bounds: S::Bounds) -> Result<(), SpatialError> {
        S::validate(&bounds)?;
        let next_id = self.locs.len();
        let id = match self.ids.entry(key) {
            std::collections::hash_map::Entry::Occupied(_) => {
                return Err(SpatialError::DuplicateKey {
                    key: format!("{key:?}"),
                });
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                let id = match self.free_ids.pop() {
                    Some(id) => id,
                    None if next_id < NONE as usize => {
                        self.locs.push(Loc {
                            node: NONE,
                            slot: NONE,
                        });
                        next_id as u32
                    }
                    None => {
                        return Err(SpatialError::CapacityExceeded {
                            limit: u64::from(NONE),
                        });
                    }
                };
                slot.insert(id);
                id
            }
        };
        self.place(Item { bounds, key, id });
        Ok(())
    }

    /// Moves `key` to `bounds`; in place when they still fit its node.
    ///
    /// # Errors
    /// The bounds' own error for bad bounds (as [`Self::new`]),
    /// [`SpatialError::UnknownKey`] if `key` is absent; the tree is
    /// unchanged then.
    pub fn update(&mut self, key: K, bounds: S::Bounds) -> Result<(), SpatialError> {
        S::validate(&bounds)?;
        let Some(&id) = self.ids.get(&key) else {
            return Err(SpatialError::UnknownKey {
                key: format!("{key:?}"),
            });
        };
        let loc = self.locs[id as usize];
        let stays = if loc.node == OUTSIDE {
            !self.could_fit_tree(&bounds)
        } else {
            S::contains(&self.nodes[loc.node as usize].loose, &bounds)
        };
        if stays {
            self.nodes[loc.node as usize].items[loc.slot as usize].bounds = bounds;
            return Ok(());
        }
        let mut item = self.take_item(id);
        item.bounds = bounds;
        self.place(item);
        Ok(())
    }

    /// Removes `key`; false if it was not stored.
    pub fn remove(&mut self, key: K) -> bool {
        match self.ids.remove(&key) {
            Some(id) => {
                self.take_item(id);
                self.free_ids.push(id);
                true
            }
            None => false,
        }
    }

    /// Whether growing the root could ever take in `bounds`: the grown root's
    /// loose bounds never reach past `initial_center ± 3 * max_half`.
    fn could_fit_tree(&self, bounds: &S::Bounds) -> bool {
        S::contains(&self.nodes[ROOT as usize].loose, bounds)
            || S::contains(&S::loose(self.initial_center, 1.5 * self.max_half), bounds)
    }

    /// Files `item` in the deepest node that takes it and splits that node if
    /// it overflows.
    fn place(&mut self, item: Item<K, S::Bounds>) {
        let bounds = item.bounds;
        if !self.fit_root(&bounds) {
            self.push_item(OUTSIDE, item);
            return;
        }
        let center = S::center(&bounds);
        let mut n = ROOT as usize;
        loop {
            let node = &mut self.nodes[n];
            node.count += 1;
            if node.first_child == NONE {
                break;
            }
            let child = node.first_child as usize + S::child_index(node.center, center);
            if !S::contains(&self.nodes[child].loose, &bounds) {
                break;
            }
            n = child;
        }
        self.push_item(n as u32, item);
        if self.nodes[n].items.len() > self.split {
            self.split(n as u32);
        }
    }

    fn push_item(&mut self, node: u32, item: Item<K, S::Bounds>) {
        let items = &mut self.nodes[node as usize].items;
        self.locs[item.id as usize] = Loc {
            node,
            slot: items.len() as u32,
        };
        items.push(item);
    }

    /// Grows the root until it holds `bounds`; false if it never could.
    fn fit_root(&mut self, bounds: &S::Bounds) -> bool {
        if S::contains(&self.nodes[ROOT as usize].loose, bounds) {
            return true;
        }
        if !self.could_fit_tree(bounds) {
            return false;
        }
        let target = S::center(bounds);
        while !S::contains(&self.nodes[ROOT as usize].loose, bounds) {
            let root = &self.nodes[ROOT as usize];
            if root.half * 2.0 > self.max_half {
                return false;
            }
            let (old_center, old_half, old_count) = (root.center, root.half, root.count);
            let new_center = S::grow_towards(old_center, old_half, target);
            let new_half = old_half * 2.0;
            let first = self.alloc_block(new_center, new_half, ROOT);
            let slot = first + S::child_index(new_center, old_center) as u32;
            // The fresh child and the old root trade places: the old root's
            // data (own centre, children, items) becomes that child.
            self.nodes.swap(ROOT as usize, slot as usize);
            let moved = &mut self.nodes[slot as usize];
            moved.parent = ROOT;
            let (moved_first, moved_items) = (moved.first_child, moved.items.len());
            if moved_first != NONE {
                for c in moved_first..moved_first + S::CHILDREN as u32 {
                    self.nodes[c as usize].parent = slot;
                }
            }
            for i in 0..moved_items {
                let id = self.nodes[slot as usize].items[i].id;
                self.locs[id as usize].node = slot;
            }
            let root = &mut self.nodes[ROOT as usize];
            root.reset(new_center, new_half, NONE);
            root.first_child = first;
            root.count = old_count;
        }
        // A sparse tree that grew keeps few objects under a split root: fold
        // them back so every split node stays worth its children.
        let root = &self.nodes[ROOT as usize];
        if root.first_child != NONE && root.count <= self.merge {
            self.merge(ROOT);
        }
        true
    }

    /// Takes a block of `S::CHILDREN` nodes subdividing the cell at `center`.
    fn alloc_block(&mut self, center: S::Point, half: f32, parent: u32) -> u32 {
        let child_half = 0.5 * half;
        if let Some(first) = self.free_blocks.pop() {
            for i in 0..S::CHILDREN {
                let c = S::child_center(center, half, i);
                self.nodes[first as usize + i].reset(c, child_half, parent);
            }
            first
        } else {
            let first = self.nodes.len() as u32;
            for i in 0..S::CHILDREN {
                let c = S::child_center(center, half, i);
                self.nodes.push(Node::new(c, child_half, parent));
            }
            first
        }
    }

    /// Splits leaf `n`, moving down each item that fits its child, and keeps
    /// splitting children that still overflow (down to the minimum cell).
    fn split(&mut self, n: u32) {
        let mut pending = std::mem::take(&mut self.stack);
        pending.clear();
        pending.push(n);
        while let Some(n) = pending.pop() {
            let node = &self.nodes[n as usize];
            if node.first_child != NONE
                || node.items.len() <= self.split
                || 0.5 * node.half < self.min_half
            {
                continue;
            }
            let (center, half) = (node.center, node.half);
            let first = self.alloc_block(center, half, n);
            self.nodes[n as usize].first_child = first;
            let mut items = std::mem::take(&mut self.nodes[n as usize].items);
            let mut kept = 0;
            for read in 0..items.len() {
                let item = items[read];
                let child = first + S::child_index(center, S::center(&item.bounds)) as u32;
                if S::contains(&self.nodes[child as usize].loose, &item.bounds) {
                    self.nodes[child as usize].count += 1;
                    self.push_item(child, item);
                } else {
                    items[kept] = item;
                    self.locs[item.id as usize] = Loc {
                        node: n,
                        slot: kept as u32,
                    };
                    kept += 1;
                }
            }
            items.truncate(kept);
            self.nodes[n as usize].items = items;
            pending.extend(first..first + S::CHILDREN as u32);
        }
        self.stack = pending;
    }

    /// Unlinks object `id` from its node, keeping counts and the tree shape.
    fn take_item(&mut self, id: u32) -> Item<K, S::Bounds> {
        let Loc { node, slot } = self.locs[id as usize];
        let items = &mut self.nodes[node as usize].items;
        let item = items.swap_remove(slot as usize);
        if let Some(moved) = items.get(slot as usize) {
            self.locs[moved.id as usize].slot = slot;
        }
        if node != OUTSIDE {
            let mut n = node;
            let mut fold = NONE;
            loop {
                let current = &mut self.nodes[n as usize];
                current.count -= 1;
                if current.first_child != NONE && current.count <= self.merge {
                    fold = n;
                }
                if n == ROOT {
                    break;
                }
                n = current.parent;
            }
            if fold != NONE {
                self.merge(fold);
            }
        }
        item
    }

    /// Folds the whole subtree below `n` into `n` and frees its nodes.
    fn merge(&mut self, n: u32) {
        let mut blocks = std::mem::take(&mut self.stack);
        blocks.clear();
        blocks.push(self.nodes[n as usize].first_child);
        self.nodes[n as usize].first_child = NONE;
        while let Some(first) = blocks.pop() {
            for c in first..first + S::CHILDREN as u32 {
                let mut items = std::mem::take(&mut self.nodes[c as usize].items);
                for item in items.drain(..) {
                    self.push_item(n, item);
                }
                let child = &mut self.nodes[c as usize];
                child.items = items;
                if child.first_child != NONE {
                    blocks.push(child.first_child);
                }
                child.first_child = NONE;
                child.count = 0;
            }
            self.free_blocks.push(first);
        }
        self.stack = blocks;
    }

    /// Collects the keys of items passing `item_test`, pruning with
    /// `node_test` on loose bounds (a node test saying `Inside` means the
    /// whole subtree matches and is collected without further tests).
    pub(super) fn query<N, I>(&mut self, node_test: N, item_test: I, out: &mut Vec<K>)
    where
        N: Fn(&S::Bounds) -> Overlap,
        I: Fn(&S::Bounds) -> bool,
    {
        let mut stack = std::mem::take(&mut self.stack);
        self.query_part(QueryPart::WHOLE, &mut stack, node_test, item_test, out);
        self.stack = stack;
    }

    /// [`Self::query`] for one `part` of the tree (the root's children
    /// dealt out in turn; part 0 also takes the root's and the far
    /// objects), reading the tree only, with the caller's `stack`: the
    /// parts of one query run on separate threads, and their answers
    /// together are the whole query's.
    pub(super) fn query_part<N, I>(
        &self,
        part: QueryPart,
        stack: &mut Vec<u32>,
        node_test: N,
        item_test: I,
        out: &mut Vec<K>,
    ) where
        N: Fn(&S::Bounds) -> Overlap,
        I: Fn(&S::Bounds) -> bool,
    {
        out.clear();
        stack.clear();
        let nodes = &self.nodes;
        let collect = |node: &Node<K, S>, inside: bool, out: &mut Vec<K>| {
            if inside {
                out.extend(node.items.iter().map(|item| item.key));
            } else {
                out.extend(
                    node.items
                        .iter()
                        .filter(|item| item_test(&item.bounds))
                        .map(|item| item.key),
                );
            }
        };
        // Children are tested before they are pushed, so the stack only
        // holds nodes known to match (flagged when wholly inside).
        let push = |c: u32, inside: bool, stack: &mut Vec<u32>| {
            let node = &nodes[c as usize];
            if node.count == 0 {
                return;
            }
            let overlap = if inside {
                Overlap::Inside
            } else {
                node_test(&node.loose)
            };
            match overlap {
                Overlap::Outside => {}
                Overlap::Inside => stack.push(c | INSIDE_BIT),
                Overlap::Partial => stack.push(c),
            }
        };
        let QueryPart {
            index: part,
            count: parts,
        } = part;
        if part == 0 {
            collect(&nodes[OUTSIDE as usize], false, out);
        }
        let root = &nodes[ROOT as usize];
        let root_inside = match (root.count > 0).then(|| node_test(&root.loose)) {
            None | Some(Overlap::Outside) => return,
            Some(overlap) => overlap == Overlap::Inside,
        };
        if part == 0 {
            collect(root, root_inside, out);
        }
        if root.first_child != NONE {
            for c in (0..S::CHILDREN as u32).filter(|c| *c as usize % parts == part) {
                push(root.first_child + c, root_inside, stack);
            }
        }
        while let Some(entry) = stack.pop() {
            let node = &nodes[(entry & !INSIDE_BIT) as usize];
            let inside = entry & INSIDE_BIT != 0;
            collect(node, inside, out);
            if node.first_child != NONE {
                for c in node.first_child..node.first_child + S::CHILDREN as u32 {
                    push(c, inside, stack);
                }
            }
        }
    }

    /// The node and slot holding `key` (tests check moves in place).
    #[cfg(test)]
    pub(super) fn place_of(&self, key: K) -> Option<(u32, u32)> {
        let loc = self.locs[*self.ids.get(&key)? as usize];
        Some((loc.node, loc.slot))
    }

    /// Loose bounds and depth (root 0) of every node that holds objects, for
    /// debug drawing.
    pub fn cells(&self, out: &mut Vec<(S::Bounds, usize)>) {
        out.clear();
        self.cells_below(ROOT, 0, out);
    }

    fn cells_below(&self, n: u32, depth: usize, out: &mut Vec<(S::Bounds, usize)>) {
        let node = &self.nodes[n as usize];
        if node.count == 0 {
            return;
        }
        if !node.items.is_empty() {
            out.push((node.loose, depth));
        }
        if node.first_child != NONE {
            for c in node.first_child..node.first_child + S::CHILDREN as u32 {
                self.cells_below(c, depth + 1, out);
            }
        }
    }

    /// Number of objects too far from the world for the root to grow over;
    /// every query scans them linearly.
    #[must_use]
    pub fn outside_len(&self) -> usize {
        self.nodes[OUTSIDE as usize].items.len()
    }

    /// Deepest level of the tree (root 0), counting levels added by growth.
    #[must_use]
    pub fn depth(&self) -> usize {
        let mut deepest = 0;
        let mut stack = vec![(ROOT, 0usize)];
        while let Some((n, depth)) = stack.pop() {
            deepest = deepest.max(depth);
            let first = self.nodes[n as usize].first_child;
            if first != NONE {
                stack.extend((first..first + S::CHILDREN as u32).map(|c| (c, depth + 1)));
            }
        }
        deepest
    }
}
