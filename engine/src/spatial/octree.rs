//! Loose octree (Spatial Partition pattern, hierarchical and independent of
//! the objects' placement): the loose tree in three dimensions, over
//! [`Aabb`] bounds with octants (see `loose_tree.rs` for how the tree works).

use std::fmt::Debug;
use std::hash::Hash;

use glam::Vec3;

use super::loose_tree::{DEFAULT_LEAF_CAPACITY, DEFAULT_MAX_DEPTH, LooseTree, Space};
use super::shapes::{Aabb, Frustum, Overlap, Ray, RaySlabs, SpatialError, Sphere};

/// Three dimensions: [`Aabb`] bounds, octants.
#[derive(Debug, Clone, Copy)]
pub(super) struct Space3;

impl Space for Space3 {
    type Point = Vec3;
    type Bounds = Aabb;
    const CHILDREN: usize = 8;

    fn validate(bounds: &Aabb) -> Result<(), SpatialError> {
        bounds.validate()
    }

    fn center(bounds: &Aabb) -> Vec3 {
        bounds.center()
    }

    fn loose(center: Vec3, half: f32) -> Aabb {
        Aabb::from_center_half_extents(center, Vec3::splat(2.0 * half))
    }

    fn child_index(center: Vec3, point: Vec3) -> usize {
        usize::from(point.x >= center.x)
            | usize::from(point.y >= center.y) << 1
            | usize::from(point.z >= center.z) << 2
    }

    fn child_center(center: Vec3, half: f32, index: usize) -> Vec3 {
        let q = 0.5 * half;
        let side = |bit: usize| if index & bit == 0 { -q } else { q };
        center + Vec3::new(side(1), side(2), side(4))
    }

    fn grow_towards(center: Vec3, half: f32, target: Vec3) -> Vec3 {
        let side = |c: f32, t: f32| if t >= c { half } else { -half };
        center
            + Vec3::new(
                side(center.x, target.x),
                side(center.y, target.y),
                side(center.z, target.z),
            )
    }

    fn enclosing_cell(world: &Aabb) -> (Vec3, f32) {
        (world.center(), world.half_extents().max_element())
    }

    fn contains(outer: &Aabb, inner: &Aabb) -> bool {
        outer.contains(inner)
    }

    fn intersects(a: &Aabb, b: &Aabb) -> bool {
        a.intersects(b)
    }

    fn empty() -> Aabb {
        Aabb::new(Vec3::INFINITY, Vec3::NEG_INFINITY)
    }

    fn union(a: &Aabb, b: &Aabb) -> Aabb {
        a.union(b)
    }

    fn distance_squared(bounds: &Aabb, point: Vec3) -> f32 {
        bounds.distance_squared_to_point(point)
    }

    fn point_is_finite(point: Vec3) -> bool {
        point.is_finite()
    }
}

/// Loose octree over keys `K` with [`Aabb`] bounds.
///
/// ```
/// use glam::Vec3;
/// use keel_engine::spatial::{Aabb, LooseOctree};
///
/// let world = Aabb::new(Vec3::splat(-100.0), Vec3::splat(100.0));
/// let mut tree = LooseOctree::new(world)?;
/// tree.insert(7u32, Aabb::from_center_half_extents(Vec3::ZERO, Vec3::ONE))?;
/// let mut hits = Vec::new();
/// tree.query_aabb(&Aabb::new(Vec3::splat(0.5), Vec3::splat(2.0)), &mut hits);
/// assert_eq!(hits, [7]);
/// # Ok::<(), keel_engine::spatial::SpatialError>(())
/// ```
#[derive(Debug, Clone)]
pub struct LooseOctree<K> {
    tree: LooseTree<K, Space3>,
}

impl<K: Copy + Eq + Hash + Debug> LooseOctree<K> {
    /// Empty octree whose root cell is the cube enclosing `world`, with the
    /// default maximum depth (12 levels).
    ///
    /// # Errors
    /// [`SpatialError::NonFiniteBounds`] / [`SpatialError::InvertedBounds`]
    /// for a bad `world`, [`SpatialError::EmptyWorld`] for one of zero size.
    pub fn new(world: Aabb) -> Result<Self, SpatialError> {
        Self::with_max_depth(world, DEFAULT_MAX_DEPTH)
    }

    /// Empty octree that never subdivides below `world / 2^max_depth`.
    ///
    /// # Errors
    /// As [`LooseOctree::new`], and [`SpatialError::MaxDepthTooLarge`] past 24.
    pub fn with_max_depth(world: Aabb, max_depth: u32) -> Result<Self, SpatialError> {
        Self::with_config(world, max_depth, DEFAULT_LEAF_CAPACITY)
    }

    /// Empty octree with a maximum depth and a leaf capacity (objects a leaf
    /// holds before it splits; 0 counts as 1).
    ///
    /// # Errors
    /// As [`LooseOctree::with_max_depth`].
    pub fn with_config(
        world: Aabb,
        max_depth: u32,
        leaf_capacity: usize,
    ) -> Result<Self, SpatialError> {
        Ok(Self {
            tree: LooseTree::new(&world, max_depth, leaf_capacity)?,
        })
    }

    /// Maximum depth below the initial root.
    #[must_use]
    pub fn max_depth(&self) -> u32 {
        self.tree.max_depth()
    }

    /// Number of objects stored.
    #[must_use]
    pub fn len(&self) -> usize {
        self.tree.len()
    }

    /// Whether no object is stored.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.tree.len() == 0
    }

    /// Whether `key` is stored.
    #[must_use]
    pub fn contains_key(&self, key: K) -> bool {
        self.tree.contains_key(key)
    }

    /// Bounds stored for `key`.
    #[must_use]
    pub fn get(&self, key: K) -> Option<Aabb> {
        self.tree.get(key)
    }

    /// Removes every object and shrinks the root back to the initial world.
    pub fn clear(&mut self) {
        self.tree.clear();
    }

    /// Stores `key` with `bounds`.
    ///
    /// # Errors
    /// [`SpatialError::NonFiniteBounds`] / [`SpatialError::InvertedBounds`]
    /// for bad bounds, [`SpatialError::DuplicateKey`] if `key` is present;
    /// the octree is unchanged then.
    pub fn insert(&mut self, key: K, bounds: Aabb) -> Result<(), SpatialError> {
        self.tree.insert(key, bounds)
    }

    /// Moves `key` to `bounds`; in place when they still fit its node.
    ///
    /// # Errors
    /// [`SpatialError::NonFiniteBounds`] / [`SpatialError::InvertedBounds`]
    /// for bad bounds, [`SpatialError::UnknownKey`] if `key` is absent; the
    /// octree is unchanged then.
    pub fn update(&mut self, key: K, bounds: Aabb) -> Result<(), SpatialError> {
        self.tree.update(key, bounds)
    }

    /// Removes `key`; false if it was not stored.
    pub fn remove(&mut self, key: K) -> bool {
        self.tree.remove(key)
    }

    /// Keys of the objects overlapping `area` (touching counts), in no order.
    pub fn query_aabb(&mut self, area: &Aabb, out: &mut Vec<K>) {
        self.tree.query(
            |loose| {
                if !area.intersects(loose) {
                    Overlap::Outside
                } else if area.contains(loose) {
                    Overlap::Inside
                } else {
                    Overlap::Partial
                }
            },
            |bounds| area.intersects(bounds),
            out,
        );
    }

    /// Keys of the objects overlapping `sphere`, in no order.
    pub fn query_sphere(&mut self, sphere: &Sphere, out: &mut Vec<K>) {
        self.tree.query(
            |loose| {
                if !sphere.intersects_aabb(loose) {
                    Overlap::Outside
                } else if sphere.contains_aabb(loose) {
                    Overlap::Inside
                } else {
                    Overlap::Partial
                }
            },
            |bounds| sphere.intersects_aabb(bounds),
            out,
        );
    }

    /// Keys of the objects [`Frustum::intersects_aabb`] keeps, in no order.
    pub fn query_frustum(&mut self, frustum: &Frustum, out: &mut Vec<K>) {
        self.tree.query(
            |loose| frustum.classify_aabb(loose),
            |bounds| frustum.intersects_aabb(bounds),
            out,
        );
    }

    /// Part `part` of `parts` of [`Self::query_frustum`]'s answer, reading
    /// the tree only (with the caller's `stack`): the parts can be asked on
    /// separate threads, and together they are the whole answer, each key
    /// once.
    pub fn query_frustum_part(
        &self,
        frustum: &Frustum,
        (part, parts): (usize, usize),
        stack: &mut Vec<u32>,
        out: &mut Vec<K>,
    ) {
        self.tree.query_part(
            (part, parts.max(1)),
            stack,
            (
                |loose: &Aabb| frustum.classify_aabb(loose),
                |bounds: &Aabb| frustum.intersects_aabb(bounds),
            ),
            out,
        );
    }

    /// Every object the ray enters within `max_distance`, with the entry
    /// distance (0 for an origin inside), nearest first.
    pub fn raycast(&mut self, ray: &Ray, max_distance: f32, out: &mut Vec<(K, f32)>) {
        out.clear();
        if !ray.is_finite() || max_distance.is_nan() {
            return;
        }
        let slabs = RaySlabs::new(ray);
        self.tree
            .ray_hits(|bounds, limit| slabs.hit(bounds, limit), max_distance, out);
    }

    /// The nearest object the ray enters within `max_distance`, with its
    /// distance. Nodes are opened nearest-entry first and skipped once their
    /// entry lies beyond the best hit so far.
    pub fn raycast_nearest(&mut self, ray: &Ray, max_distance: f32) -> Option<(K, f32)> {
        if !ray.is_finite() || max_distance.is_nan() {
            return None;
        }
        let slabs = RaySlabs::new(ray);
        self.tree
            .ray_nearest(|bounds, limit| slabs.hit(bounds, limit), max_distance)
    }

    /// The `k` objects nearest to `point` by distance to their boxes (0
    /// inside), nearest first, with that distance. Ties are broken
    /// arbitrarily.
    pub fn nearest(&mut self, point: Vec3, k: usize, out: &mut Vec<(K, f32)>) {
        self.tree.nearest(point, k, out);
    }

    /// Every pair of overlapping objects (touching counts), each pair once in
    /// arbitrary order: the broad phase of collision detection.
    pub fn pairs(&mut self, out: &mut Vec<(K, K)>) {
        self.tree.pairs(out);
    }

    /// Loose bounds and depth (root 0) of every node that holds objects, for
    /// debug drawing.
    pub fn cells(&self, out: &mut Vec<(Aabb, usize)>) {
        self.tree.cells(out);
    }

    /// Number of objects too far from the world for the root to grow over;
    /// every query scans them linearly.
    #[must_use]
    pub fn outside_len(&self) -> usize {
        self.tree.outside_len()
    }

    /// Deepest level of the tree (root 0), counting levels added by growth.
    #[must_use]
    pub fn depth(&self) -> usize {
        self.tree.depth()
    }

    #[cfg(test)]
    fn check(&self) {
        self.tree.check_invariants();
    }
}

#[cfg(test)]
mod tests;
