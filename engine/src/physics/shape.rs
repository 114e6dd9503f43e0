//! A collider's shape in the world: its size scaled by the node's world
//! scale, posed by the node's world rotation and translation, as a parry
//! shape for exact tests (ray casts, overlaps, distances) and its world box
//! for the tree.
//!
//! parry (rapier's geometry) is built with `enhanced-determinism`, which
//! puts its glam on the scalar path and libm, as the project's own is
//! (`engine/src/math.rs`): one float implementation, the same bits on every
//! target.

use glam::{Affine3A, Quat, Vec3};
use parry3d::math::Pose;
use parry3d::query::Ray as ParryRay;
use parry3d::shape::{Ball, Capsule, Cuboid, Cylinder, Shape, SharedShape};

use super::mesh_shape::{MeshShapeError, mesh_shape};
use crate::scene::collider::{Collider, ColliderShape};
use crate::scene::{NodeId, Scene};
use crate::spatial::{Aabb, Ray};

/// A parry shape of one of the collider kinds: the four solids by value (no
/// allocation), a mesh's shared.
#[derive(Clone, Debug)]
pub(crate) enum Sized3 {
    Ball(Ball),
    Cuboid(Cuboid),
    Capsule(Capsule),
    Cylinder(Cylinder),
    /// A convex hull or a triangle mesh of the node's mesh, at its scale.
    Mesh(SharedShape),
}

impl Sized3 {
    /// `collider`'s shape on `node` of `scene` at world `scale` (the one
    /// rule for both the queries' shapes and the simulation's).
    ///
    /// # Errors
    /// A mesh shape that cannot be made (`mesh_shape.rs`).
    pub(crate) fn of(
        collider: &Collider,
        scale: Vec3,
        scene: &Scene,
        node: NodeId,
    ) -> Result<Self, MeshShapeError> {
        let scale = scale.abs();
        let across = scale.x.max(scale.z);
        Ok(match collider.shape {
            ColliderShape::Ball { radius } => Self::Ball(Ball::new(radius * scale.max_element())),
            ColliderShape::Cuboid { half_extents } => {
                Self::Cuboid(Cuboid::new(half_extents * scale))
            }
            ColliderShape::Capsule {
                half_height,
                radius,
            } => Self::Capsule(Capsule::new_y(half_height * scale.y, radius * across)),
            ColliderShape::Cylinder {
                half_height,
                radius,
            } => Self::Cylinder(Cylinder::new(half_height * scale.y, radius * across)),
            ColliderShape::ConvexHull => Self::Mesh(mesh_shape(scene, node, true, scale)?),
            ColliderShape::TriMesh => Self::Mesh(mesh_shape(scene, node, false, scale)?),
        })
    }
}

impl Sized3 {
    /// As parry's shape.
    pub(crate) fn as_shape(&self) -> &dyn Shape {
        match self {
            Sized3::Ball(s) => s,
            Sized3::Cuboid(s) => s,
            Sized3::Capsule(s) => s,
            Sized3::Cylinder(s) => s,
            Sized3::Mesh(s) => s.as_ref(),
        }
    }
}

/// `collider`'s shape on `node` at world `scale`, for the simulation.
///
/// # Errors
/// A size that is not finite (a world that overflowed), or a mesh shape
/// that cannot be made, with why.
pub(crate) fn shared_shape(
    collider: &Collider,
    scale: Vec3,
    scene: &Scene,
    node: NodeId,
) -> Result<SharedShape, String> {
    let finite = |ok: bool, shape: SharedShape| {
        ok.then_some(shape)
            .ok_or_else(|| "its world scale is not finite".to_owned())
    };
    match Sized3::of(collider, scale, scene, node).map_err(|e| e.to_string())? {
        Sized3::Ball(s) => finite(s.radius.is_finite(), SharedShape::new(s)),
        Sized3::Cuboid(s) => finite(s.half_extents.is_finite(), SharedShape::new(s)),
        Sized3::Capsule(s) => finite(
            s.radius.is_finite() && s.half_height().is_finite(),
            SharedShape::new(s),
        ),
        Sized3::Cylinder(s) => finite(
            s.radius.is_finite() && s.half_height.is_finite(),
            SharedShape::new(s),
        ),
        Sized3::Mesh(s) => Ok(s),
    }
}

/// `collider`'s shape on `node` as placed by `world`: its rotation, its
/// centre and its sized shape (what an outline draws); `None` for a world
/// not finite or a mesh shape that cannot be made.
pub(crate) fn outline_of(
    collider: &Collider,
    world: &Affine3A,
    scene: &Scene,
    node: NodeId,
) -> Option<(Quat, Vec3, Sized3)> {
    let (scale, rotation, translation) = world.to_scale_rotation_translation();
    let ok = scale.is_finite() && rotation.is_finite() && translation.is_finite();
    let shape = Sized3::of(collider, scale, scene, node).ok()?;
    ok.then_some((rotation, translation, shape))
}

/// A shape placed in the world.
#[derive(Clone, Debug)]
pub(crate) struct WorldShape {
    pose: Pose,
    shape: Sized3,
    /// The world scale it was sized at.
    scale: Vec3,
}

impl WorldShape {
    /// `collider` on `node`, whose world transform is `world`, with its
    /// world box (the tree files it); `None` when the transform or the
    /// scaled sizes are not finite (a world that overflowed: the node cannot
    /// be found until it is finite again) or its mesh shape cannot be made.
    /// `previous`, the shape filed before, is moved rather than made anew
    /// when its scale is the same (a mesh's hull is not made for a move).
    pub(crate) fn of(
        collider: &Collider,
        world: &Affine3A,
        scene: &Scene,
        node: NodeId,
        previous: Option<&WorldShape>,
    ) -> Option<(Self, Aabb)> {
        let (scale, rotation, translation) = world.to_scale_rotation_translation();
        let shape = match previous {
            Some(p) if p.scale == scale => p.shape.clone(),
            _ => Sized3::of(collider, scale, scene, node).ok()?,
        };
        let mut placed = Self::placed(translation, rotation, shape);
        placed.scale = scale;
        let bounds = placed.bounds();
        bounds.is_finite().then_some((placed, bounds))
    }

    /// A ball of `radius` at `center` (a query's shape).
    pub(crate) fn ball(center: Vec3, radius: f32) -> Self {
        Self::placed(center, Quat::IDENTITY, Sized3::Ball(Ball::new(radius)))
    }

    /// A box of `half_extents` at `center`, turned by `rotation` (a query's shape).
    pub(crate) fn cuboid(center: Vec3, half_extents: Vec3, rotation: Quat) -> Self {
        let shape = Sized3::Cuboid(Cuboid::new(half_extents));
        Self::placed(center, rotation.normalize(), shape)
    }

    fn placed(translation: Vec3, rotation: Quat, shape: Sized3) -> Self {
        Self {
            pose: Pose::from_parts(translation, rotation),
            shape,
            scale: Vec3::ONE,
        }
    }

    fn shape(&self) -> &dyn Shape {
        self.shape.as_shape()
    }

    /// The world box around the shape (not finite for a pose that overflowed).
    pub(crate) fn bounds(&self) -> Aabb {
        let aabb = self.shape().compute_aabb(&self.pose);
        Aabb::new(aabb.mins, aabb.maxs)
    }

    /// Whether this shape and `other` touch or overlap.
    pub(crate) fn touches(&self, other: &WorldShape) -> bool {
        // Every pair of the convex kinds is supported, and a convex one
        // against a triangle mesh (a query's shape is always convex).
        parry3d::query::intersection_test(&self.pose, self.shape(), &other.pose, other.shape())
            .is_ok_and(|hit| hit.intersecting)
    }

    /// Where `ray` enters the shape within `max_distance` (0 from inside):
    /// the distance and the outward normal there.
    pub(crate) fn cast(&self, ray: &Ray, max_distance: f32) -> Option<(f32, Vec3)> {
        let ray = ParryRay::new(ray.origin, ray.dir);
        let hit = self
            .shape()
            .cast_ray_and_get_normal(&self.pose, &ray, max_distance, true)?;
        Some((hit.time_of_impact, hit.normal))
    }

    /// Distance from `point` to the shape (0 inside).
    pub(crate) fn distance_to(&self, point: Vec3) -> f32 {
        self.shape().distance_to_point(&self.pose, point, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::Transform;

    /// A solid collider's shape, of no node's mesh.
    fn of(collider: &Collider, world: &Affine3A) -> Option<(WorldShape, Aabb)> {
        let nobody = NodeId::new(0, std::num::NonZeroU32::MIN);
        WorldShape::of(collider, world, &Scene::new(), nobody, None)
    }

    fn at(translation: Vec3, scale: Vec3) -> Affine3A {
        Transform::from_translation(translation)
            .with_scale(scale)
            .to_affine()
    }

    #[test]
    fn sizes_follow_the_world_scale() {
        let b = of(
            &Collider::ball(1.0),
            &at(Vec3::X * 10.0, Vec3::new(1.0, 3.0, 2.0)),
        )
        .unwrap()
        .1;
        assert_eq!(
            (b.min, b.max),
            (Vec3::new(7.0, -3.0, -3.0), Vec3::new(13.0, 3.0, 3.0))
        );
        let b = of(
            &Collider::cuboid(Vec3::ONE),
            &at(Vec3::ZERO, Vec3::new(2.0, -1.0, 0.5)),
        )
        .unwrap()
        .1;
        assert_eq!(
            (b.min, b.max),
            (Vec3::new(-2.0, -1.0, -0.5), Vec3::new(2.0, 1.0, 0.5))
        );
        let capsule = Collider::new(ColliderShape::Capsule {
            half_height: 1.0,
            radius: 0.5,
        });
        let b = of(&capsule, &at(Vec3::ZERO, Vec3::new(1.0, 2.0, 4.0)))
            .unwrap()
            .1;
        assert_eq!(
            (b.min, b.max),
            (Vec3::new(-2.0, -4.0, -2.0), Vec3::new(2.0, 4.0, 2.0))
        );
    }

    #[test]
    fn a_world_that_overflowed_has_no_shape() {
        let huge = at(Vec3::splat(f32::MAX), Vec3::splat(f32::MAX));
        assert!(of(&Collider::ball(1.0), &huge).is_none());
        let (_, zero) = of(&Collider::ball(1.0), &at(Vec3::ONE, Vec3::ZERO)).unwrap();
        assert_eq!(zero.min, Vec3::ONE, "scale 0 is a point");
    }

    #[test]
    fn a_ray_finds_the_surface_and_its_normal() {
        let turned = Transform::from_translation(Vec3::new(0.0, 0.0, -10.0))
            .with_rotation(Quat::from_rotation_y(std::f32::consts::FRAC_PI_4))
            .to_affine();
        let (cube, _) = of(&Collider::cuboid(Vec3::ONE), &turned).unwrap();
        let ray = Ray::new(Vec3::ZERO, Vec3::NEG_Z).unwrap();
        let (t, normal) = cube.cast(&ray, 100.0).unwrap();
        // The cube stands on an edge towards the ray: its corner is sqrt(2) out.
        assert!((t - (10.0 - std::f32::consts::SQRT_2)).abs() < 1e-4, "{t}");
        assert!(normal.z > 0.5 && normal.y.abs() < 1e-4, "{normal}");
        assert!(cube.cast(&ray, 5.0).is_none(), "beyond the reach");
        let inside = Ray::new(Vec3::new(0.0, 0.0, -10.0), Vec3::X).unwrap();
        assert_eq!(cube.cast(&inside, 100.0).map(|h| h.0), Some(0.0));
    }

    #[test]
    fn overlaps_and_distances_are_exact() {
        let ball = WorldShape::ball(Vec3::ZERO, 1.0);
        let corner = of(
            &Collider::cuboid(Vec3::splat(0.5)),
            &at(Vec3::splat(1.2), Vec3::ONE),
        )
        .unwrap()
        .0;
        // The box's corner at 0.7 on each axis is 1.21 from the centre: the
        // boxes meet, the shapes do not.
        assert!(ball.bounds().intersects(&corner.bounds()));
        assert!(!ball.touches(&corner));
        assert!(ball.touches(&WorldShape::ball(Vec3::X * 1.9, 1.0)));
        assert!((corner.distance_to(Vec3::ZERO) - 0.7 * 3f32.sqrt()).abs() < 1e-5);
        assert_eq!(corner.distance_to(Vec3::splat(1.2)), 0.0, "inside");
    }
}
