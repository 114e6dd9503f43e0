//! Bounding shapes and their exact intersection tests, the vocabulary of the
//! spatial partitions (Spatial Partition pattern): boxes, spheres, rays, view
//! frusta and their 2D counterparts on the ground plane.
//!
//! Boxes are closed: touching counts as overlapping, so a query never loses an
//! object that merely grazes its edge.

use glam::{Affine3A, Mat4, Vec2, Vec3, Vec3A, Vec4};
use thiserror::Error;

/// Why a spatial structure refused a call. The structure is unchanged.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SpatialError {
    /// A box has a NaN or infinite coordinate.
    #[error("bounds are not finite: min {min}, max {max}")]
    NonFiniteBounds {
        /// Lower corner as given.
        min: Vec3,
        /// Upper corner as given.
        max: Vec3,
    },
    /// A box has `min > max` on some axis.
    #[error("bounds are inverted: min {min} is above max {max} on some axis")]
    InvertedBounds {
        /// Lower corner as given.
        min: Vec3,
        /// Upper corner as given.
        max: Vec3,
    },
    /// A rectangle has a NaN or infinite coordinate.
    #[error("rectangle is not finite: min {min}, max {max}")]
    NonFiniteRect {
        /// Lower corner as given.
        min: Vec2,
        /// Upper corner as given.
        max: Vec2,
    },
    /// A rectangle has `min > max` on some axis.
    #[error("rectangle is inverted: min {min} is above max {max} on some axis")]
    InvertedRect {
        /// Lower corner as given.
        min: Vec2,
        /// Upper corner as given.
        max: Vec2,
    },
    /// The world given to a structure has no extent to subdivide.
    #[error("world has zero extent (largest side {size})")]
    EmptyWorld {
        /// Largest side of the world as given.
        size: f32,
    },
    /// A tree was asked for more levels than `f32` cell centres can resolve.
    #[error("max depth {max_depth} exceeds the limit {limit}")]
    MaxDepthTooLarge {
        /// Depth asked for.
        max_depth: u32,
        /// Largest depth accepted.
        limit: u32,
    },
    /// A grid cell size is zero, negative or not finite.
    #[error("cell size {cell_size} is not a positive finite number")]
    InvalidCellSize {
        /// Cell size as given.
        cell_size: f32,
    },
    /// A grid would have more cells than it accepts.
    #[error("grid of {columns} x {rows} cells exceeds the limit of {limit} cells")]
    GridTooLarge {
        /// Columns the world and cell size ask for.
        columns: u64,
        /// Rows the world and cell size ask for.
        rows: u64,
        /// Largest number of cells accepted.
        limit: u64,
    },
    /// A ray's origin is not finite or its direction cannot be normalised.
    #[error("invalid ray: origin {origin}, direction {dir}")]
    InvalidRay {
        /// Origin as given.
        origin: Vec3,
        /// Direction as given.
        dir: Vec3,
    },
    /// `update` or a lookup named a key the structure does not hold.
    #[error("unknown key {key}")]
    UnknownKey {
        /// The key, formatted with `Debug`.
        key: String,
    },
    /// `insert` named a key the structure already holds.
    #[error("key {key} is already present")]
    DuplicateKey {
        /// The key, formatted with `Debug`.
        key: String,
    },
    /// The structure's 32-bit internal indices are exhausted.
    #[error("capacity exceeded: at most {limit} entries")]
    CapacityExceeded {
        /// Largest number of entries accepted.
        limit: u64,
    },
}

/// Axis-aligned box, closed on all sides.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Aabb {
    /// Lower corner.
    pub min: Vec3,
    /// Upper corner.
    pub max: Vec3,
}

impl Aabb {
    /// Box from its corners, unchecked (see [`Aabb::validate`]).
    #[must_use]
    pub const fn new(min: Vec3, max: Vec3) -> Self {
        Self { min, max }
    }

    /// Box centred on `center` reaching `half_extents` along each axis.
    #[must_use]
    pub fn from_center_half_extents(center: Vec3, half_extents: Vec3) -> Self {
        Self {
            min: center - half_extents,
            max: center + half_extents,
        }
    }

    /// Smallest box holding every point of `points`, or `None` for none.
    #[must_use]
    pub fn from_points(points: &[Vec3]) -> Option<Self> {
        let (first, rest) = points.split_first()?;
        let mut out = Self::new(*first, *first);
        for p in rest {
            out.min = out.min.min(*p);
            out.max = out.max.max(*p);
        }
        Some(out)
    }

    /// Centre point. Halves before adding so boxes near `f32::MAX` stay finite.
    #[must_use]
    pub fn center(&self) -> Vec3 {
        self.min * 0.5 + self.max * 0.5
    }

    /// Half the size along each axis.
    #[must_use]
    pub fn half_extents(&self) -> Vec3 {
        (self.max - self.min) * 0.5
    }

    /// Size along each axis.
    #[must_use]
    pub fn size(&self) -> Vec3 {
        self.max - self.min
    }

    /// Smallest box holding both.
    #[must_use]
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb::new(self.min.min(other.min), self.max.max(other.max))
    }

    /// Whether `other` lies entirely inside (boundaries included).
    #[must_use]
    pub fn contains(&self, other: &Aabb) -> bool {
        self.min.cmple(other.min).all() && other.max.cmple(self.max).all()
    }

    /// Whether `point` lies inside or on the boundary.
    #[must_use]
    pub fn contains_point(&self, point: Vec3) -> bool {
        self.min.cmple(point).all() && point.cmple(self.max).all()
    }

    /// Whether the boxes share at least one point.
    #[must_use]
    pub fn intersects(&self, other: &Aabb) -> bool {
        self.min.cmple(other.max).all() && other.min.cmple(self.max).all()
    }

    /// Whether the box and the sphere share at least one point.
    #[must_use]
    pub fn intersects_sphere(&self, sphere: &Sphere) -> bool {
        sphere.intersects_aabb(self)
    }

    /// Squared distance from `point` to the nearest point of the box (0 inside).
    #[must_use]
    pub fn distance_squared_to_point(&self, point: Vec3) -> f32 {
        (point.clamp(self.min, self.max) - point).length_squared()
    }

    /// Squared distance from `point` to the farthest point of the box.
    #[must_use]
    pub fn max_distance_squared_to_point(&self, point: Vec3) -> f32 {
        (point - self.min)
            .abs()
            .max((self.max - point).abs())
            .length_squared()
    }

    /// Whether every coordinate is finite.
    #[must_use]
    pub fn is_finite(&self) -> bool {
        self.min.is_finite() && self.max.is_finite()
    }

    /// Checks that the box can be stored in a spatial structure.
    ///
    /// # Errors
    /// [`SpatialError::NonFiniteBounds`] for a NaN or infinite coordinate,
    /// [`SpatialError::InvertedBounds`] where `min > max` on some axis.
    pub fn validate(&self) -> Result<(), SpatialError> {
        if !self.is_finite() {
            return Err(SpatialError::NonFiniteBounds {
                min: self.min,
                max: self.max,
            });
        }
        if !self.min.cmple(self.max).all() {
            return Err(SpatialError::InvertedBounds {
                min: self.min,
                max: self.max,
            });
        }
        Ok(())
    }

    /// Smallest axis-aligned box holding this box after `transform`.
    ///
    /// Exact for affine maps: each output half extent is the sum of the input
    /// half extents weighted by the absolute matrix entries (Arvo's method).
    #[must_use]
    pub fn transformed(&self, transform: &Affine3A) -> Aabb {
        let center = transform.transform_point3a(Vec3A::from(self.center()));
        let h = Vec3A::from(self.half_extents());
        let m = &transform.matrix3;
        let half = m.x_axis.abs() * h.x + m.y_axis.abs() * h.y + m.z_axis.abs() * h.z;
        Aabb::new((center - half).into(), (center + half).into())
    }

    /// The box's footprint on the ground plane: `(x, z)` becomes `(x, y)`.
    #[must_use]
    pub fn ground_rect(&self) -> Rect {
        Rect::new(
            Vec2::new(self.min.x, self.min.z),
            Vec2::new(self.max.x, self.max.z),
        )
    }
}

/// Ball given by centre and radius.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Sphere {
    /// Centre.
    pub center: Vec3,
    /// Radius (not negative for a meaningful test).
    pub radius: f32,
}

impl Sphere {
    /// Sphere from centre and radius.
    #[must_use]
    pub const fn new(center: Vec3, radius: f32) -> Self {
        Self { center, radius }
    }

    /// Whether the sphere and the box share at least one point.
    #[must_use]
    pub fn intersects_aabb(&self, aabb: &Aabb) -> bool {
        aabb.distance_squared_to_point(self.center) <= self.radius * self.radius
    }

    /// Whether the box lies entirely inside the sphere.
    #[must_use]
    pub fn contains_aabb(&self, aabb: &Aabb) -> bool {
        aabb.max_distance_squared_to_point(self.center) <= self.radius * self.radius
    }

    /// Whether the spheres share at least one point.
    #[must_use]
    pub fn intersects_sphere(&self, other: &Sphere) -> bool {
        let reach = self.radius + other.radius;
        self.center.distance_squared(other.center) <= reach * reach
    }

    /// Whether centre and radius are finite and the radius is not negative.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.center.is_finite() && self.radius.is_finite() && self.radius >= 0.0
    }
}

/// Half-line from `origin` along the unit vector `dir`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ray {
    /// Start point.
    pub origin: Vec3,
    /// Unit direction; build with [`Ray::new`] to have it normalised.
    pub dir: Vec3,
}

impl Ray {
    /// Ray from `origin` towards `dir`, which is normalised here.
    ///
    /// # Errors
    /// [`SpatialError::InvalidRay`] when the origin is not finite or `dir` is
    /// zero, too small to normalise, or not finite.
    pub fn new(origin: Vec3, dir: Vec3) -> Result<Self, SpatialError> {
        match dir.try_normalize() {
            Some(unit) if origin.is_finite() => Ok(Self { origin, dir: unit }),
            _ => Err(SpatialError::InvalidRay { origin, dir }),
        }
    }

    /// Point at distance `t` along the ray.
    #[must_use]
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + self.dir * t
    }

    /// Distance along the ray to where it enters the box (0 when the origin is
    /// inside), or `None` if it misses.
    #[must_use]
    pub fn intersect_aabb(&self, aabb: &Aabb) -> Option<f32> {
        RaySlabs::new(self).hit(aabb, f32::INFINITY)
    }

    /// Distance along the ray to the first point of the sphere (0 inside).
    #[must_use]
    pub fn intersect_sphere(&self, sphere: &Sphere) -> Option<f32> {
        let to_center = sphere.center - self.origin;
        let c = to_center.length_squared() - sphere.radius * sphere.radius;
        if c <= 0.0 {
            return Some(0.0);
        }
        let b = to_center.dot(self.dir);
        if b < 0.0 {
            return None;
        }
        let discriminant = b * b - c;
        (discriminant >= 0.0).then(|| (b - discriminant.sqrt()).max(0.0))
    }

    /// Whether origin and direction are finite.
    #[must_use]
    pub fn is_finite(&self) -> bool {
        self.origin.is_finite() && self.dir.is_finite()
    }
}

/// A ray prepared for many box tests: the reciprocal direction is computed
/// once. Axes where the reciprocal is not finite (a zero or denormal direction
/// component) are treated as parallel to the slabs, which keeps `0 * inf`
/// NaNs out of the slab arithmetic.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RaySlabs {
    origin: Vec3,
    inv_dir: Vec3,
    parallel: [bool; 3],
}

impl RaySlabs {
    pub(crate) fn new(ray: &Ray) -> Self {
        let inv_dir = ray.dir.recip();
        Self {
            origin: ray.origin,
            inv_dir,
            parallel: [
                !inv_dir.x.is_finite(),
                !inv_dir.y.is_finite(),
                !inv_dir.z.is_finite(),
            ],
        }
    }

    /// Entry distance into `aabb` if the ray meets it within `[0, t_max]`.
    #[inline]
    pub(crate) fn hit(&self, aabb: &Aabb, t_max: f32) -> Option<f32> {
        let mut near = 0.0f32;
        let mut far = t_max;
        for axis in 0..3 {
            let o = self.origin[axis];
            let (lo, hi) = (aabb.min[axis], aabb.max[axis]);
            if self.parallel[axis] {
                if o < lo || o > hi {
                    return None;
                }
            } else {
                let inv = self.inv_dir[axis];
                let t0 = (lo - o) * inv;
                let t1 = (hi - o) * inv;
                near = near.max(t0.min(t1));
                far = far.min(t0.max(t1));
            }
        }
        (near <= far).then_some(near)
    }
}

/// How a shape relates to a box, for tests that can skip whole subtrees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Overlap {
    /// No common point.
    Outside,
    /// Some common point, maybe not all.
    Partial,
    /// The box lies entirely inside the shape.
    Inside,
}

/// View volume bounded by six planes, each stored as `(normal, d)` with the
/// inside where `normal.dot(p) + d >= 0` and `normal` of unit length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frustum {
    /// Left, right, bottom, top, near, far.
    pub planes: [Vec4; 6],
}

impl Frustum {
    /// Planes of the volume a view-projection matrix maps into wgpu's clip
    /// space (`-w <= x, y <= w`, `0 <= z <= w`), as built by glam's
    /// `Mat4::perspective_rh` or `Mat4::orthographic_rh` times a view matrix.
    ///
    /// A plane that degenerates (the far plane of an infinite projection) is
    /// replaced by one every point passes.
    #[must_use]
    pub fn from_view_projection(view_projection: &Mat4) -> Self {
        let m = view_projection;
        let (r0, r1, r2, r3) = (m.row(0), m.row(1), m.row(2), m.row(3));
        let raw = [r3 + r0, r3 - r0, r3 + r1, r3 - r1, r2, r3 - r2];
        Self {
            planes: raw.map(|plane| {
                let length = plane.truncate().length();
                if length > f32::EPSILON && length.is_finite() && plane.w.is_finite() {
                    plane / length
                } else {
                    Vec4::new(0.0, 0.0, 0.0, 1.0)
                }
            }),
        }
    }

    /// Signed distance of `point` to `plane`, positive inside.
    fn distance(plane: Vec4, point: Vec3) -> f32 {
        plane.truncate().dot(point) + plane.w
    }

    /// Whether `point` is inside or on the boundary.
    #[must_use]
    pub fn contains_point(&self, point: Vec3) -> bool {
        self.planes
            .iter()
            .all(|plane| Self::distance(*plane, point) >= 0.0)
    }

    /// Conservative box test: `false` only when the box is entirely outside
    /// one plane, so a visible box is never rejected (a box near a corner of
    /// the frustum may be kept although it is just outside).
    #[must_use]
    pub fn intersects_aabb(&self, aabb: &Aabb) -> bool {
        self.planes.iter().all(|plane| {
            let normal = plane.truncate();
            // The corner farthest along the normal decides "entirely outside".
            let far_corner = Vec3::select(normal.cmpge(Vec3::ZERO), aabb.max, aabb.min);
            Self::distance(*plane, far_corner) >= 0.0
        })
    }

    /// Whether the box lies entirely inside all six planes.
    #[must_use]
    pub fn contains_aabb(&self, aabb: &Aabb) -> bool {
        self.planes.iter().all(|plane| {
            let normal = plane.truncate();
            let near_corner = Vec3::select(normal.cmpge(Vec3::ZERO), aabb.min, aabb.max);
            Self::distance(*plane, near_corner) >= 0.0
        })
    }

    pub(crate) fn classify_aabb(&self, aabb: &Aabb) -> Overlap {
        if !self.intersects_aabb(aabb) {
            Overlap::Outside
        } else if self.contains_aabb(aabb) {
            Overlap::Inside
        } else {
            Overlap::Partial
        }
    }

    /// Conservative sphere test: `false` only when the sphere is entirely
    /// outside one plane.
    #[must_use]
    pub fn intersects_sphere(&self, sphere: &Sphere) -> bool {
        self.planes
            .iter()
            .all(|plane| Self::distance(*plane, sphere.center) >= -sphere.radius)
    }

    /// Whether every plane is finite.
    #[must_use]
    pub fn is_finite(&self) -> bool {
        self.planes.iter().all(|plane| plane.is_finite())
    }
}

/// Axis-aligned rectangle on the ground plane, closed on all sides.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rect {
    /// Lower corner.
    pub min: Vec2,
    /// Upper corner.
    pub max: Vec2,
}

impl Rect {
    /// Rectangle from its corners, unchecked (see [`Rect::validate`]).
    #[must_use]
    pub const fn new(min: Vec2, max: Vec2) -> Self {
        Self { min, max }
    }

    /// Rectangle centred on `center` reaching `half_extents` along each axis.
    #[must_use]
    pub fn from_center_half_extents(center: Vec2, half_extents: Vec2) -> Self {
        Self {
            min: center - half_extents,
            max: center + half_extents,
        }
    }

    /// Centre point. Halves before adding so rectangles near `f32::MAX` stay finite.
    #[must_use]
    pub fn center(&self) -> Vec2 {
        self.min * 0.5 + self.max * 0.5
    }

    /// Half the size along each axis.
    #[must_use]
    pub fn half_extents(&self) -> Vec2 {
        (self.max - self.min) * 0.5
    }

    /// Size along each axis.
    #[must_use]
    pub fn size(&self) -> Vec2 {
        self.max - self.min
    }

    /// Smallest rectangle holding both.
    #[must_use]
    pub fn union(&self, other: &Rect) -> Rect {
        Rect::new(self.min.min(other.min), self.max.max(other.max))
    }

    /// Whether `other` lies entirely inside (boundaries included).
    #[must_use]
    pub fn contains(&self, other: &Rect) -> bool {
        self.min.cmple(other.min).all() && other.max.cmple(self.max).all()
    }

    /// Whether `point` lies inside or on the boundary.
    #[must_use]
    pub fn contains_point(&self, point: Vec2) -> bool {
        self.min.cmple(point).all() && point.cmple(self.max).all()
    }

    /// Whether the rectangles share at least one point.
    #[must_use]
    pub fn intersects(&self, other: &Rect) -> bool {
        self.min.cmple(other.max).all() && other.min.cmple(self.max).all()
    }

    /// Whether the rectangle and the circle share at least one point.
    #[must_use]
    pub fn intersects_circle(&self, circle: &Circle) -> bool {
        circle.intersects_rect(self)
    }

    /// Squared distance from `point` to the nearest point of the rectangle.
    #[must_use]
    pub fn distance_squared_to_point(&self, point: Vec2) -> f32 {
        (point.clamp(self.min, self.max) - point).length_squared()
    }

    /// Squared distance from `point` to the farthest point of the rectangle.
    #[must_use]
    pub fn max_distance_squared_to_point(&self, point: Vec2) -> f32 {
        (point - self.min)
            .abs()
            .max((self.max - point).abs())
            .length_squared()
    }

    /// Whether every coordinate is finite.
    #[must_use]
    pub fn is_finite(&self) -> bool {
        self.min.is_finite() && self.max.is_finite()
    }

    /// Checks that the rectangle can be stored in a spatial structure.
    ///
    /// # Errors
    /// [`SpatialError::NonFiniteRect`] for a NaN or infinite coordinate,
    /// [`SpatialError::InvertedRect`] where `min > max` on some axis.
    pub fn validate(&self) -> Result<(), SpatialError> {
        if !self.is_finite() {
            return Err(SpatialError::NonFiniteRect {
                min: self.min,
                max: self.max,
            });
        }
        if !self.min.cmple(self.max).all() {
            return Err(SpatialError::InvertedRect {
                min: self.min,
                max: self.max,
            });
        }
        Ok(())
    }
}

/// Disc on the ground plane.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Circle {
    /// Centre.
    pub center: Vec2,
    /// Radius (not negative for a meaningful test).
    pub radius: f32,
}

impl Circle {
    /// Circle from centre and radius.
    #[must_use]
    pub const fn new(center: Vec2, radius: f32) -> Self {
        Self { center, radius }
    }

    /// Whether the circle and the rectangle share at least one point.
    #[must_use]
    pub fn intersects_rect(&self, rect: &Rect) -> bool {
        rect.distance_squared_to_point(self.center) <= self.radius * self.radius
    }

    /// Whether the rectangle lies entirely inside the circle.
    #[must_use]
    pub fn contains_rect(&self, rect: &Rect) -> bool {
        rect.max_distance_squared_to_point(self.center) <= self.radius * self.radius
    }

    /// Whether centre and radius are finite and the radius is not negative.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.center.is_finite() && self.radius.is_finite() && self.radius >= 0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;
    use proptest::prelude::*;

    fn unit_box() -> Aabb {
        Aabb::new(Vec3::ZERO, Vec3::ONE)
    }

    #[test]
    fn aabb_overlap_counts_touching_faces_and_rejects_gaps() {
        let a = unit_box();
        let touching = Aabb::new(Vec3::new(1.0, 0.0, 0.0), Vec3::new(2.0, 1.0, 1.0));
        let apart = Aabb::new(Vec3::new(1.01, 0.0, 0.0), Vec3::new(2.0, 1.0, 1.0));
        let diagonal_gap = Aabb::new(Vec3::new(1.1, 1.1, -1.0), Vec3::new(2.0, 2.0, 2.0));
        let inside = Aabb::new(Vec3::splat(0.25), Vec3::splat(0.75));
        assert!(a.intersects(&touching) && touching.intersects(&a));
        assert!(!a.intersects(&apart) && !apart.intersects(&a));
        assert!(!a.intersects(&diagonal_gap));
        assert!(a.intersects(&inside) && inside.intersects(&a));
        assert!(a.contains(&inside) && !inside.contains(&a));
    }

    #[test]
    fn aabb_sphere_uses_distance_to_nearest_point() {
        let a = unit_box();
        // Nearest point of the box to (2, 2, 0.5) is the edge point (1, 1, 0.5).
        let corner_distance = 2.0f32.sqrt();
        let center = Vec3::new(2.0, 2.0, 0.5);
        assert!(a.intersects_sphere(&Sphere::new(center, corner_distance + 1e-4)));
        assert!(!a.intersects_sphere(&Sphere::new(center, corner_distance - 1e-4)));
        // A sphere inside the box.
        assert!(a.intersects_sphere(&Sphere::new(Vec3::splat(0.5), 0.1)));
        // A box inside a sphere.
        assert!(Sphere::new(Vec3::splat(0.5), 0.9).contains_aabb(&a));
        assert!(!Sphere::new(Vec3::splat(0.5), 0.8).contains_aabb(&a));
    }

    #[test]
    fn ray_aabb_returns_entry_distance_or_zero_inside() {
        let a = Aabb::new(Vec3::new(2.0, -1.0, -1.0), Vec3::new(4.0, 1.0, 1.0));
        let ray = Ray::new(Vec3::ZERO, Vec3::X).unwrap();
        assert_eq!(ray.intersect_aabb(&a), Some(2.0));
        let inside = Ray::new(Vec3::new(3.0, 0.0, 0.0), Vec3::X).unwrap();
        assert_eq!(inside.intersect_aabb(&a), Some(0.0));
        let away = Ray::new(Vec3::ZERO, -Vec3::X).unwrap();
        assert_eq!(away.intersect_aabb(&a), None);
        let past = Ray::new(Vec3::new(5.0, 0.0, 0.0), Vec3::X).unwrap();
        assert_eq!(past.intersect_aabb(&a), None);
    }

    #[test]
    fn ray_aabb_diagonal_entry_point_lies_on_the_box() {
        let a = Aabb::new(Vec3::splat(1.0), Vec3::splat(2.0));
        let ray = Ray::new(Vec3::new(0.0, 0.5, 0.0), Vec3::new(1.0, 1.0, 1.0)).unwrap();
        let t = ray.intersect_aabb(&a).expect("diagonal ray enters the box");
        let entry = ray.at(t);
        // The ray reaches x = 1 and z = 1 last: that is where it enters.
        assert!((entry.x - 1.0).abs() < 1e-5 && (entry.z - 1.0).abs() < 1e-5);
        assert!(a.contains_point(entry + ray.dir * 1e-3));
    }

    #[test]
    fn ray_aabb_axis_parallel_rays_never_produce_nan() {
        let a = unit_box();
        // Parallel to x, inside the y and z slabs: hits.
        let hit = Ray::new(Vec3::new(-1.0, 0.5, 0.5), Vec3::X).unwrap();
        assert_eq!(hit.intersect_aabb(&a), Some(1.0));
        // Parallel to x, outside the y slab: misses.
        let miss = Ray::new(Vec3::new(-1.0, 1.5, 0.5), Vec3::X).unwrap();
        assert_eq!(miss.intersect_aabb(&a), None);
        // Parallel to x, origin exactly on the y = 0 face plane (0 * inf case).
        let on_face = Ray::new(Vec3::new(-1.0, 0.0, 0.0), Vec3::X).unwrap();
        assert_eq!(on_face.intersect_aabb(&a), Some(1.0));
        // Origin on a face plane and a denormal direction component.
        let denormal = Ray {
            origin: Vec3::new(-1.0, 1.0, 0.5),
            dir: Vec3::new(1.0, 1e-41, 0.0),
        };
        let t = denormal.intersect_aabb(&a);
        assert!(t.is_some_and(|t| t.is_finite()), "got {t:?}");
    }

    #[test]
    fn ray_rejects_zero_and_non_finite_directions() {
        assert!(matches!(
            Ray::new(Vec3::ZERO, Vec3::ZERO),
            Err(SpatialError::InvalidRay { .. })
        ));
        assert!(Ray::new(Vec3::NAN, Vec3::X).is_err());
        assert!(Ray::new(Vec3::ZERO, Vec3::new(f32::INFINITY, 0.0, 0.0)).is_err());
        let ray = Ray::new(Vec3::ZERO, Vec3::new(0.0, 3.0, 4.0)).unwrap();
        assert!((ray.dir.length() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn ray_sphere_entry_and_inside() {
        let sphere = Sphere::new(Vec3::new(5.0, 0.0, 0.0), 1.0);
        let ray = Ray::new(Vec3::ZERO, Vec3::X).unwrap();
        assert_eq!(ray.intersect_sphere(&sphere), Some(4.0));
        let inside = Ray::new(Vec3::new(5.5, 0.0, 0.0), Vec3::Y).unwrap();
        assert_eq!(inside.intersect_sphere(&sphere), Some(0.0));
        let miss = Ray::new(Vec3::new(0.0, 1.5, 0.0), Vec3::X).unwrap();
        assert_eq!(miss.intersect_sphere(&sphere), None);
    }

    #[test]
    fn aabb_helpers_agree_with_their_definitions() {
        let a = Aabb::from_center_half_extents(Vec3::new(1.0, 2.0, 3.0), Vec3::new(0.5, 1.0, 2.0));
        assert_eq!(a.min, Vec3::new(0.5, 1.0, 1.0));
        assert_eq!(a.max, Vec3::new(1.5, 3.0, 5.0));
        assert_eq!(a.center(), Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(a.half_extents(), Vec3::new(0.5, 1.0, 2.0));
        let b = Aabb::new(Vec3::splat(-1.0), Vec3::ZERO);
        let u = a.union(&b);
        assert!(u.contains(&a) && u.contains(&b));
        assert_eq!(u.min, Vec3::splat(-1.0));
        assert_eq!(u.max, a.max);
        assert!(a.contains_point(a.center()) && !a.contains_point(Vec3::ZERO));
        let huge = Aabb::new(Vec3::splat(-f32::MAX), Vec3::splat(f32::MAX));
        assert!(huge.center().is_finite(), "centre overflowed");
    }

    #[test]
    fn validate_refuses_nan_infinite_and_inverted_bounds() {
        assert!(unit_box().validate().is_ok());
        let nan = Aabb::new(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::ONE);
        assert!(matches!(
            nan.validate(),
            Err(SpatialError::NonFiniteBounds { .. })
        ));
        assert!(!nan.is_finite());
        let inf = Aabb::new(Vec3::ZERO, Vec3::new(1.0, f32::INFINITY, 1.0));
        assert!(matches!(
            inf.validate(),
            Err(SpatialError::NonFiniteBounds { .. })
        ));
        let inverted = Aabb::new(Vec3::ONE, Vec3::ZERO);
        assert!(matches!(
            inverted.validate(),
            Err(SpatialError::InvertedBounds { .. })
        ));
        let rect = Rect::new(Vec2::ONE, Vec2::ZERO);
        assert!(matches!(
            rect.validate(),
            Err(SpatialError::InvertedRect { .. })
        ));
        let rect_nan = Rect::new(Vec2::NAN, Vec2::ZERO);
        assert!(matches!(
            rect_nan.validate(),
            Err(SpatialError::NonFiniteRect { .. })
        ));
    }

    fn corners(a: &Aabb) -> [Vec3; 8] {
        std::array::from_fn(|i| {
            Vec3::new(
                if i & 1 == 0 { a.min.x } else { a.max.x },
                if i & 2 == 0 { a.min.y } else { a.max.y },
                if i & 4 == 0 { a.min.z } else { a.max.z },
            )
        })
    }

    proptest! {
        #[test]
        fn transformed_aabb_is_the_box_of_the_transformed_corners(
            center in prop::array::uniform3(-50.0f32..50.0),
            half in prop::array::uniform3(0.0f32..10.0),
            axis in prop::array::uniform3(-1.0f32..1.0),
            angle in -3.2f32..3.2,
            scale in prop::array::uniform3(-3.0f32..3.0),
            shift in prop::array::uniform3(-20.0f32..20.0),
        ) {
            let axis = Vec3::from(axis).try_normalize().unwrap_or(Vec3::Y);
            let transform = Affine3A::from_scale_rotation_translation(
                Vec3::from(scale),
                Quat::from_axis_angle(axis, angle),
                Vec3::from(shift),
            );
            let a = Aabb::from_center_half_extents(center.into(), half.into());
            let moved = corners(&a).map(|c| transform.transform_point3(c));
            let expected = Aabb::from_points(&moved).unwrap();
            let got = a.transformed(&transform);
            let tolerance = 1e-3 * (1.0 + expected.size().max_element() + expected.max.abs().max_element());
            prop_assert!((got.min - expected.min).abs().max_element() <= tolerance, "{got:?} vs {expected:?}");
            prop_assert!((got.max - expected.max).abs().max_element() <= tolerance, "{got:?} vs {expected:?}");
        }

        #[test]
        fn ray_entry_agrees_with_marching_along_the_ray(
            origin in prop::array::uniform3(-10.0f32..10.0),
            dir in prop::array::uniform3(-1.0f32..1.0),
            zero_axis in 0usize..4,
            center in prop::array::uniform3(-5.0f32..5.0),
            half in prop::array::uniform3(0.1f32..4.0),
        ) {
            let mut dir = Vec3::from(dir);
            if zero_axis < 3 {
                dir[zero_axis] = 0.0;
            }
            prop_assume!(dir.length() > 0.1);
            let ray = Ray::new(origin.into(), dir).unwrap();
            let a = Aabb::from_center_half_extents(center.into(), half.into());
            // Reference: does some sample along the ray land in a slightly
            // shrunk box (surely hit) or only in a grown one (ambiguous)?
            let shrunk = Aabb::new(a.min + 1e-3, a.max - 1e-3);
            let grown = Aabb::new(a.min - 1e-3, a.max + 1e-3);
            let samples = (0..=40_000).map(|i| ray.at(i as f32 * 1e-3));
            let mut surely = false;
            let mut maybe = false;
            for p in samples {
                surely |= shrunk.contains_point(p);
                maybe |= grown.contains_point(p);
            }
            match ray.intersect_aabb(&a) {
                Some(t) => {
                    prop_assert!(maybe, "reported a hit at {t} but no sample is near the box");
                    prop_assert!(t.is_finite() && t >= 0.0);
                    prop_assert!(grown.contains_point(ray.at(t)), "entry point {} not on the box", ray.at(t));
                    if t > 0.0 {
                        prop_assert!(!shrunk.contains_point(ray.at(t - 2e-3)), "entry {t} is late");
                    }
                }
                None => prop_assert!(!surely, "missed a box the ray passes through"),
            }
        }

        #[test]
        fn aabb_overlap_and_sphere_tests_match_dense_sampling(
            a_center in prop::array::uniform3(-4.0f32..4.0),
            a_half in prop::array::uniform3(0.0f32..3.0),
            b_center in prop::array::uniform3(-4.0f32..4.0),
            b_half in prop::array::uniform3(0.0f32..3.0),
            radius in 0.0f32..4.0,
        ) {
            let a = Aabb::from_center_half_extents(a_center.into(), a_half.into());
            let b = Aabb::from_center_half_extents(b_center.into(), b_half.into());
            let per_axis = (0..3).all(|i| a.min[i] <= b.max[i] && b.min[i] <= a.max[i]);
            prop_assert_eq!(a.intersects(&b), per_axis);
            prop_assert_eq!(a.intersects(&b), b.intersects(&a));
            // The sphere test against the nearest point found by clamping.
            let sphere = Sphere::new(b_center.into(), radius);
            let nearest = sphere.center.clamp(a.min, a.max);
            prop_assert_eq!(
                a.intersects_sphere(&sphere),
                nearest.distance_squared(sphere.center) <= radius * radius
            );
            if a.intersects_sphere(&sphere) {
                prop_assert!(a.contains_point(nearest));
            }
        }
    }

    fn camera() -> (Mat4, Frustum) {
        let projection = Mat4::perspective_rh(60f32.to_radians(), 1.5, 0.5, 100.0);
        let view = Mat4::look_at_rh(Vec3::new(0.0, 0.0, 10.0), Vec3::ZERO, Vec3::Y);
        let vp = projection * view;
        (vp, Frustum::from_view_projection(&vp))
    }

    /// Whether `p` projects inside wgpu's clip volume, shrunk by `margin`.
    fn clip_inside(vp: &Mat4, p: Vec3, margin: f32) -> bool {
        let clip = *vp * p.extend(1.0);
        let w = clip.w;
        w > 0.0
            && clip.x.abs() <= w * (1.0 - margin)
            && clip.y.abs() <= w * (1.0 - margin)
            && clip.z >= w * margin
            && clip.z <= w * (1.0 - margin)
    }

    #[test]
    fn frustum_planes_follow_wgpu_depth_range() {
        let (vp, frustum) = camera();
        // On the view axis: 0.5 is the near plane, 100 the far plane.
        let eye = Vec3::new(0.0, 0.0, 10.0);
        assert!(frustum.contains_point(eye - Vec3::Z * 0.6));
        assert!(!frustum.contains_point(eye - Vec3::Z * 0.4));
        assert!(frustum.contains_point(eye - Vec3::Z * 99.0));
        assert!(!frustum.contains_point(eye - Vec3::Z * 101.0));
        assert!(clip_inside(&vp, eye - Vec3::Z * 50.0, 0.0));
        for plane in frustum.planes {
            assert!(
                (plane.truncate().length() - 1.0).abs() < 1e-5,
                "plane {plane} not normalised"
            );
        }
    }

    #[test]
    fn frustum_aabb_inside_outside_straddling() {
        let (_, frustum) = camera();
        let inside = Aabb::from_center_half_extents(Vec3::ZERO, Vec3::ONE);
        let behind = Aabb::from_center_half_extents(Vec3::new(0.0, 0.0, 20.0), Vec3::ONE);
        let far_left = Aabb::from_center_half_extents(Vec3::new(-60.0, 0.0, 0.0), Vec3::ONE);
        let beyond_far = Aabb::from_center_half_extents(Vec3::new(0.0, 0.0, -120.0), Vec3::ONE);
        let across_near = Aabb::from_center_half_extents(Vec3::new(0.0, 0.0, 10.0), Vec3::ONE);
        let across_left = Aabb::from_center_half_extents(Vec3::new(-8.66, 0.0, 0.0), Vec3::ONE);
        let around_all = Aabb::from_center_half_extents(Vec3::ZERO, Vec3::splat(500.0));
        assert!(frustum.intersects_aabb(&inside) && frustum.contains_aabb(&inside));
        assert!(!frustum.intersects_aabb(&behind));
        assert!(!frustum.intersects_aabb(&far_left));
        assert!(!frustum.intersects_aabb(&beyond_far));
        for straddling in [across_near, across_left, around_all] {
            assert!(
                frustum.intersects_aabb(&straddling),
                "{straddling:?} rejected"
            );
            assert!(
                !frustum.contains_aabb(&straddling),
                "{straddling:?} called inside"
            );
        }
        assert_eq!(frustum.classify_aabb(&inside), Overlap::Inside);
        assert_eq!(frustum.classify_aabb(&behind), Overlap::Outside);
        assert_eq!(frustum.classify_aabb(&across_left), Overlap::Partial);
    }

    #[test]
    fn frustum_sphere_inside_outside_straddling() {
        let (_, frustum) = camera();
        assert!(frustum.intersects_sphere(&Sphere::new(Vec3::ZERO, 1.0)));
        assert!(!frustum.intersects_sphere(&Sphere::new(Vec3::new(0.0, 0.0, 20.0), 1.0)));
        // Centre just behind the near plane, radius reaching through it.
        assert!(frustum.intersects_sphere(&Sphere::new(Vec3::new(0.0, 0.0, 9.8), 0.5)));
        assert!(!frustum.intersects_sphere(&Sphere::new(Vec3::new(0.0, 0.0, 9.8), 0.2)));
    }

    #[test]
    fn infinite_far_plane_passes_everything_ahead() {
        let projection = Mat4::perspective_infinite_rh(1.0, 1.0, 0.1);
        let frustum = Frustum::from_view_projection(&projection);
        assert!(frustum.is_finite());
        assert!(frustum.contains_point(Vec3::new(0.0, 0.0, -1e6)));
        assert!(!frustum.contains_point(Vec3::new(0.0, 0.0, 1.0)));
    }

    proptest! {
        #[test]
        fn frustum_never_rejects_a_box_with_a_visible_point(
            center in prop::array::uniform3(-40.0f32..40.0),
            half in prop::array::uniform3(0.0f32..15.0),
        ) {
            let (vp, frustum) = camera();
            let a = Aabb::from_center_half_extents(Vec3::from(center) - Vec3::Z * 30.0, half.into());
            let steps = 8;
            let mut visible = false;
            for i in 0..=steps {
                for j in 0..=steps {
                    for k in 0..=steps {
                        let t = Vec3::new(i as f32, j as f32, k as f32) / steps as f32;
                        visible |= clip_inside(&vp, a.min + (a.max - a.min) * t, 1e-4);
                    }
                }
            }
            if visible {
                prop_assert!(frustum.intersects_aabb(&a), "visible box {a:?} rejected");
            }
            if frustum.contains_aabb(&a) {
                prop_assert!(corners(&a).iter().all(|c| clip_inside(&vp, *c, -1e-4)));
            }
            let sphere = Sphere::new(a.center(), a.half_extents().length());
            if visible {
                prop_assert!(frustum.intersects_sphere(&sphere));
            }
        }
    }

    #[test]
    fn rect_and_circle_tests() {
        let r = Rect::new(Vec2::ZERO, Vec2::ONE);
        assert!(r.intersects(&Rect::new(Vec2::ONE, Vec2::splat(2.0))));
        assert!(!r.intersects(&Rect::new(Vec2::new(1.5, 0.0), Vec2::splat(2.0))));
        assert!(r.contains(&Rect::new(Vec2::splat(0.2), Vec2::splat(0.8))));
        let diagonal = Vec2::new(2.0, 2.0);
        let reach = Vec2::ONE.distance(diagonal);
        assert!(r.intersects_circle(&Circle::new(diagonal, reach + 1e-4)));
        assert!(!r.intersects_circle(&Circle::new(diagonal, reach - 1e-4)));
        assert!(Circle::new(Vec2::splat(0.5), 0.71).contains_rect(&r));
        assert!(!Circle::new(Vec2::splat(0.5), 0.7).contains_rect(&r));
        let u = r.union(&Rect::new(Vec2::splat(-1.0), Vec2::ZERO));
        assert_eq!(u, Rect::new(Vec2::splat(-1.0), Vec2::ONE));
        assert_eq!(r.center(), Vec2::splat(0.5));
        let from = Rect::from_center_half_extents(Vec2::splat(0.5), Vec2::splat(0.5));
        assert_eq!(from, r);
        let ground = Aabb::new(Vec3::new(1.0, 2.0, 3.0), Vec3::new(4.0, 5.0, 6.0)).ground_rect();
        assert_eq!(ground, Rect::new(Vec2::new(1.0, 3.0), Vec2::new(4.0, 6.0)));
    }
}
