//! Tests of the bounding shapes.

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
    let projection =
        glam::camera::rh::proj::directx::perspective(60f32.to_radians(), 1.5, 0.5, 100.0);
    let view = glam::camera::rh::view::look_at_mat4(Vec3::new(0.0, 0.0, 10.0), Vec3::ZERO, Vec3::Y);
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
    let projection = glam::camera::rh::proj::directx::perspective_infinite(1.0, 1.0, 0.1);
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
