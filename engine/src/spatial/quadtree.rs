//! Loose quadtree on the ground plane (Spatial Partition pattern): the loose
//! tree of [`LooseOctree`](super::LooseOctree) in two dimensions, for worlds
//! that are flat enough that height does not help pruning (terrain units,
//! top-down games). Map a 3D box to it with [`Aabb::ground_rect`](super::Aabb::ground_rect).
//! Here only the 2D geometry and the queries by 2D shapes; the API both
//! trees share is in `loose_tree.rs`.

use std::fmt::Debug;
use std::hash::Hash;

use glam::Vec2;

use super::loose_tree::{LooseTree, Space};
use super::shapes::{Circle, Overlap, Rect, SpatialError};

/// Two dimensions: [`Rect`] bounds, quadrants. Public in name only, as the
/// `Space` trait it implements.
#[derive(Debug, Clone, Copy)]
pub struct Space2;

impl Space for Space2 {
    type Point = Vec2;
    type Bounds = Rect;
    const CHILDREN: usize = 4;

    fn validate(bounds: &Rect) -> Result<(), SpatialError> {
        bounds.validate()
    }

    fn center(bounds: &Rect) -> Vec2 {
        bounds.center()
    }

    fn loose(center: Vec2, half: f32) -> Rect {
        Rect::from_center_half_extents(center, Vec2::splat(2.0 * half))
    }

    fn child_index(center: Vec2, point: Vec2) -> usize {
        usize::from(point.x >= center.x) | usize::from(point.y >= center.y) << 1
    }

    fn child_center(center: Vec2, half: f32, index: usize) -> Vec2 {
        let q = 0.5 * half;
        let side = |bit: usize| if index & bit == 0 { -q } else { q };
        center + Vec2::new(side(1), side(2))
    }

    fn grow_towards(center: Vec2, half: f32, target: Vec2) -> Vec2 {
        let side = |c: f32, t: f32| if t >= c { half } else { -half };
        center + Vec2::new(side(center.x, target.x), side(center.y, target.y))
    }

    fn enclosing_cell(world: &Rect) -> (Vec2, f32) {
        (world.center(), world.half_extents().max_element())
    }

    fn contains(outer: &Rect, inner: &Rect) -> bool {
        outer.contains(inner)
    }

    fn intersects(a: &Rect, b: &Rect) -> bool {
        a.intersects(b)
    }

    fn empty() -> Rect {
        Rect::new(Vec2::INFINITY, Vec2::NEG_INFINITY)
    }

    fn union(a: &Rect, b: &Rect) -> Rect {
        a.union(b)
    }

    fn distance_squared(bounds: &Rect, point: Vec2) -> f32 {
        bounds.distance_squared_to_point(point)
    }

    fn point_is_finite(point: Vec2) -> bool {
        point.is_finite()
    }
}

/// Loose quadtree over keys `K` with [`Rect`] bounds.
///
/// ```
/// use glam::Vec2;
/// use keel_engine::spatial::{Circle, Quadtree, Rect};
///
/// let mut tree = Quadtree::new(Rect::new(Vec2::splat(-50.0), Vec2::splat(50.0)))?;
/// tree.insert("tower", Rect::from_center_half_extents(Vec2::new(10.0, 0.0), Vec2::ONE))?;
/// let mut hits = Vec::new();
/// tree.query_circle(&Circle::new(Vec2::ZERO, 9.5), &mut hits);
/// assert_eq!(hits, ["tower"]);
/// # Ok::<(), keel_engine::spatial::SpatialError>(())
/// ```
pub type Quadtree<K> = LooseTree<K, Space2>;

impl<K: Copy + Eq + Hash + Debug> Quadtree<K> {
    /// Keys of the objects overlapping `area` (touching counts), in no order.
    pub fn query_rect(&mut self, area: &Rect, out: &mut Vec<K>) {
        // The shape's own tests rather than `Space2`'s: these closures run per
        // node and item, and `Space2`'s methods, not `#[inline]`, would be
        // called out of line where another crate instantiates the query.
        self.query(
            |loose| Overlap::classify(area.intersects(loose), || area.contains(loose)),
            |bounds| area.intersects(bounds),
            out,
        );
    }

    /// Keys of the objects overlapping `circle`, in no order.
    pub fn query_circle(&mut self, circle: &Circle, out: &mut Vec<K>) {
        self.query(
            |loose| {
                Overlap::classify(circle.intersects_rect(loose), || {
                    circle.contains_rect(loose)
                })
            },
            |bounds| circle.intersects_rect(bounds),
            out,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(center: Vec2, half: f32) -> Rect {
        Rect::from_center_half_extents(center, Vec2::splat(half))
    }

    fn grid_points(side: usize, spacing: f32) -> Vec<Vec2> {
        (0..side * side)
            .map(|i| Vec2::new((i % side) as f32, (i / side) as f32) * spacing - 45.0)
            .collect()
    }

    #[test]
    fn queries_agree_with_brute_force_on_a_lattice() {
        let world = Rect::new(Vec2::splat(-50.0), Vec2::splat(50.0));
        let mut tree = Quadtree::with_config(world, 6, 4).unwrap();
        let points = grid_points(30, 3.0);
        for (i, p) in points.iter().enumerate() {
            tree.insert(i, square(*p, 0.4 + (i % 5) as f32 * 0.5))
                .unwrap();
        }
        tree.check_invariants();
        let area = Rect::new(Vec2::new(-10.0, -3.0), Vec2::new(12.0, 20.0));
        let circle = Circle::new(Vec2::new(5.0, -5.0), 13.0);
        let mut out = Vec::new();
        tree.query_rect(&area, &mut out);
        out.sort_unstable();
        let expected: Vec<_> = (0..points.len())
            .filter(|&i| tree.get(i).is_some_and(|r| r.intersects(&area)))
            .collect();
        assert_eq!(out, expected);
        tree.query_circle(&circle, &mut out);
        out.sort_unstable();
        let expected: Vec<_> = (0..points.len())
            .filter(|&i| tree.get(i).is_some_and(|r| circle.intersects_rect(&r)))
            .collect();
        assert_eq!(out, expected);
    }

    #[test]
    fn nearest_is_sorted_and_starts_with_the_containing_rect() {
        let mut tree = Quadtree::new(Rect::new(Vec2::splat(-50.0), Vec2::splat(50.0))).unwrap();
        for (i, p) in grid_points(20, 4.0).iter().enumerate() {
            tree.insert(i, square(*p, 0.5)).unwrap();
        }
        let mut out = Vec::new();
        let target = Vec2::new(-45.0 + 4.0 * 3.0, -45.0 + 4.0 * 7.0);
        tree.nearest(target, 5, &mut out);
        assert_eq!(out.len(), 5);
        assert_eq!(out[0], (7 * 20 + 3, 0.0));
        assert!(out.windows(2).all(|w| w[0].1 <= w[1].1));
        // The four lattice neighbours are 4 - 0.5 away.
        assert!(
            out[1..].iter().all(|(_, d)| (d - 3.5).abs() < 1e-4),
            "{out:?}"
        );
    }

    #[test]
    fn pairs_report_each_overlap_once() {
        let mut tree = Quadtree::new(Rect::new(Vec2::ZERO, Vec2::splat(10.0))).unwrap();
        tree.insert(0, Rect::new(Vec2::ZERO, Vec2::splat(2.0)))
            .unwrap();
        tree.insert(1, Rect::new(Vec2::ONE, Vec2::splat(3.0)))
            .unwrap();
        tree.insert(2, Rect::new(Vec2::splat(2.0), Vec2::splat(4.0)))
            .unwrap();
        tree.insert(3, Rect::new(Vec2::splat(8.0), Vec2::splat(9.0)))
            .unwrap();
        let mut pairs = Vec::new();
        tree.pairs(&mut pairs);
        let mut normalised: Vec<_> = pairs.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
        normalised.sort_unstable();
        assert_eq!(normalised, [(0, 1), (0, 2), (1, 2)]);
    }
}
