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

/// The methods an axis-aligned box has in any number of dimensions (`Aabb`
/// in 3D, `Rect` on the ground plane): one body for both.
macro_rules! axis_aligned {
    ($name:ident, $vec:ty, $noun:literal, $plural:literal, $non_finite:ident, $inverted:ident) => {
        impl $name {
            #[doc = concat!("A ", $noun, " from its corners, unchecked (see [`", stringify!($name), "::validate`]).")]
            #[must_use]
            pub const fn new(min: $vec, max: $vec) -> Self {
                Self { min, max }
            }

            #[doc = concat!("A ", $noun, " centred on `center` reaching `half_extents` along each axis.")]
            #[must_use]
            pub fn from_center_half_extents(center: $vec, half_extents: $vec) -> Self {
                Self {
                    min: center - half_extents,
                    max: center + half_extents,
                }
            }

            #[doc = concat!("Centre point. Halves before adding so ", $plural, " near `f32::MAX` stay finite.")]
            #[must_use]
            pub fn center(&self) -> $vec {
                self.min * 0.5 + self.max * 0.5
            }

            /// Half the size along each axis.
            #[must_use]
            pub fn half_extents(&self) -> $vec {
                (self.max - self.min) * 0.5
            }

            /// Size along each axis.
            #[must_use]
            pub fn size(&self) -> $vec {
                self.max - self.min
            }

            #[doc = concat!("Smallest ", $noun, " holding both.")]
            #[must_use]
            pub fn union(&self, other: &$name) -> $name {
                $name::new(self.min.min(other.min), self.max.max(other.max))
            }

            /// Whether `other` lies entirely inside (boundaries included).
            #[must_use]
            pub fn contains(&self, other: &$name) -> bool {
                self.min.cmple(other.min).all() && other.max.cmple(self.max).all()
            }

            /// Whether `point` lies inside or on the boundary.
            #[must_use]
            pub fn contains_point(&self, point: $vec) -> bool {
                self.min.cmple(point).all() && point.cmple(self.max).all()
            }

            #[doc = concat!("Whether the ", $plural, " share at least one point.")]
            #[must_use]
            pub fn intersects(&self, other: &$name) -> bool {
                self.min.cmple(other.max).all() && other.min.cmple(self.max).all()
            }

            #[doc = concat!("Squared distance from `point` to the nearest point of the ", $noun, " (0 inside).")]
            #[must_use]
            pub fn distance_squared_to_point(&self, point: $vec) -> f32 {
                (point.clamp(self.min, self.max) - point).length_squared()
            }

            #[doc = concat!("Squared distance from `point` to the farthest point of the ", $noun, ".")]
            #[must_use]
            pub fn max_distance_squared_to_point(&self, point: $vec) -> f32 {
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

            #[doc = concat!("Checks that the ", $noun, " can be stored in a spatial structure.")]
            ///
            /// # Errors
            #[doc = concat!("[`SpatialError::", stringify!($non_finite), "`] for a NaN or infinite coordinate,")]
            #[doc = concat!("[`SpatialError::", stringify!($inverted), "`] where `min > max` on some axis.")]
            pub fn validate(&self) -> Result<(), SpatialError> {
                if !self.is_finite() {
                    return Err(SpatialError::$non_finite {
                        min: self.min,
                        max: self.max,
                    });
                }
                if !self.min.cmple(self.max).all() {
                    return Err(SpatialError::$inverted {
                        min: self.min,
                        max: self.max,
                    });
                }
                Ok(())
            }
        }
    };
}

axis_aligned!(Aabb, Vec3, "box", "boxes", NonFiniteBounds, InvertedBounds);
axis_aligned!(
    Rect,
    Vec2,
    "rectangle",
    "rectangles",
    NonFiniteRect,
    InvertedRect
);

/// Axis-aligned box, closed on all sides.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Aabb {
    /// Lower corner.
    pub min: Vec3,
    /// Upper corner.
    pub max: Vec3,
}

impl Aabb {
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

    /// Whether the box and the sphere share at least one point.
    #[must_use]
    pub fn intersects_sphere(&self, sphere: &Sphere) -> bool {
        sphere.intersects_aabb(self)
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

impl Overlap {
    /// `Outside` unless the shape `meets` the box, then `Inside` if it
    /// `holds` it (asked only then), else `Partial`.
    #[inline]
    pub(crate) fn classify(meets: bool, holds: impl FnOnce() -> bool) -> Self {
        if !meets {
            Overlap::Outside
        } else if holds() {
            Overlap::Inside
        } else {
            Overlap::Partial
        }
    }
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
        Overlap::classify(self.intersects_aabb(aabb), || self.contains_aabb(aabb))
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
    /// Whether the rectangle and the circle share at least one point.
    #[must_use]
    pub fn intersects_circle(&self, circle: &Circle) -> bool {
        circle.intersects_rect(self)
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
mod tests;
