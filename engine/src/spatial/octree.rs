//! Loose octree (Spatial Partition pattern, hierarchical and independent of
//! the objects' placement): the loose tree in three dimensions, over
//! [`Aabb`] bounds with octants (see `loose_tree.rs` for how the tree works
//! and for the API both trees share); here only the 3D geometry and the
//! queries by 3D shapes.

use std::fmt::Debug;
use std::hash::Hash;

use glam::Vec3;

use super::loose_tree::{LooseTree, QueryPart, Space};
use super::shapes::{Aabb, Frustum, Overlap, Ray, RaySlabs, SpatialError, Sphere};

/// Three dimensions: [`Aabb`] bounds, octants. Public in name only, as the
/// `Space` trait it implements.
#[derive(Debug, Clone, Copy)]
pub struct Space3;

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
pub type LooseOctree<K> = LooseTree<K, Space3>;

impl<K: Copy + Eq + Hash + Debug> LooseOctree<K> {
    /// Keys of the objects overlapping `area` (touching counts), in no order.
    pub fn query_aabb(&mut self, area: &Aabb, out: &mut Vec<K>) {
        // The shape's own tests rather than `Space3`'s: these closures run per
        // node and item, and `Space3`'s methods, not `#[inline]`, would be
        // called out of line where another crate instantiates the query.
        self.query(
            |loose| Overlap::classify(area.intersects(loose), || area.contains(loose)),
            |bounds| area.intersects(bounds),
            out,
        );
    }

    /// Keys of the objects overlapping `sphere`, in no order.
    pub fn query_sphere(&mut self, sphere: &Sphere, out: &mut Vec<K>) {
        self.query(
            |loose| {
                Overlap::classify(sphere.intersects_aabb(loose), || {
                    sphere.contains_aabb(loose)
                })
            },
            |bounds| sphere.intersects_aabb(bounds),
            out,
        );
    }

    /// Keys of the objects [`Frustum::intersects_aabb`] keeps, in no order.
    pub fn query_frustum(&mut self, frustum: &Frustum, out: &mut Vec<K>) {
        self.query(
            |loose| frustum.classify_aabb(loose),
            |bounds| frustum.intersects_aabb(bounds),
            out,
        );
    }

    /// One `part` of [`Self::query_frustum`]'s answer, reading the tree
    /// only (with the caller's `stack`): the parts can be asked on separate
    /// threads, and together they are the whole answer, each key once.
    pub fn query_frustum_part(
        &self,
        frustum: &Frustum,
        part: QueryPart,
        stack: &mut Vec<u32>,
        out: &mut Vec<K>,
    ) {
        let part = QueryPart {
            count: part.count.max(1),
            ..part
        };
        self.query_part(
            part,
            stack,
            |loose: &Aabb| frustum.classify_aabb(loose),
            |bounds: &Aabb| frustum.intersects_aabb(bounds),
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
        self.ray_hits(|bounds, limit| slabs.hit(bounds, limit), max_distance, out);
    }

    /// The nearest object the ray enters within `max_distance`, with its
    /// distance. Nodes are opened nearest-entry first and skipped once their
    /// entry lies beyond the best hit so far.
    pub fn raycast_nearest(&mut self, ray: &Ray, max_distance: f32) -> Option<(K, f32)> {
        if !ray.is_finite() || max_distance.is_nan() {
            return None;
        }
        let slabs = RaySlabs::new(ray);
        self.ray_nearest(|bounds, limit| slabs.hit(bounds, limit), max_distance)
    }

    /// Nearest first along `ray`, reading the tree only (see
    /// [`LooseTree::visit_nearest`]): `visit` gets each object whose box the
    /// ray enters within the limit, with the entry distance, and returns the
    /// new limit (`max_distance` is the first). Returns the last limit.
    pub fn visit_ray<V>(&self, ray: &Ray, max_distance: f32, visit: V) -> f32
    where
        V: FnMut(K, &Aabb, f32) -> f32,
    {
        if !ray.is_finite() || max_distance.is_nan() {
            return max_distance;
        }
        let slabs = RaySlabs::new(ray);
        self.visit_nearest(
            |bounds| slabs.hit(bounds, max_distance),
            visit,
            max_distance,
        )
    }
}

#[cfg(test)]
mod tests;
