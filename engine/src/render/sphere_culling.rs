//! View-frustum culling of bounding spheres, so instances outside the view cost
//! no vertex work on the GPU.
//!
//! Pattern: none of the book's; it complements the spatial partition. The
//! scene's octree can hand the renderer a coarsely pre-filtered list, and this
//! per-instance test trims what such a query lets through.

use glam::{Mat4, Vec3, Vec4};

/// The six planes bounding what a camera sees, normals pointing inwards.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Frustum {
    /// Each plane as (normal, d) with `normal · p + d >= 0` inside; normals are unit length.
    planes: [Vec4; 6],
    /// The same planes by component (x, y, z, d), four planes to a vector:
    /// the test takes all six at once, without a branch a plane. Lanes 6
    /// and 7 are planes everything is inside.
    lanes: [[Vec4; 2]; 4],
}

impl Frustum {
    /// Extracts the planes of a world-to-clip matrix with wgpu's 0..1 depth range
    /// (Gribb and Hartmann's method: each plane is a sum or difference of rows).
    pub(crate) fn from_view_projection(view_proj: Mat4) -> Self {
        let [r0, r1, r2, r3] = [0, 1, 2, 3].map(|i| view_proj.row(i));
        let planes = [r3 + r0, r3 - r0, r3 + r1, r3 - r1, r2, r3 - r2].map(|plane| {
            let length = plane.truncate().length();
            if length > 0.0 { plane / length } else { plane }
        });
        let lane = |c: usize, pad: f32| {
            let at = |i: usize| planes.get(i).map_or(pad, |p| p[c]);
            [0, 4].map(|i| Vec4::new(at(i), at(i + 1), at(i + 2), at(i + 3)))
        };
        let lanes = [
            lane(0, 0.0),
            lane(1, 0.0),
            lane(2, 0.0),
            lane(3, f32::INFINITY),
        ];
        Self { planes, lanes }
    }

    /// Whether a sphere touches the frustum. Conservative: a sphere near a corner
    /// but outside may pass, a sphere with any point inside never fails.
    ///
    /// Each plane's `normal · center + d >= -radius`, the six in the lanes
    /// of two vectors: the same products and sums in the same order as
    /// [`Frustum::intersects_sphere_by_plane`], so the same answer to the
    /// bit, with one branch where that one has up to six (half a view's
    /// instances are culled, at random: each branch a likely misprediction).
    #[inline]
    pub(crate) fn intersects_sphere(&self, center: Vec3, radius: f32) -> bool {
        let [xs, ys, zs, ds] = &self.lanes;
        let (cx, cy, cz) = (
            Vec4::splat(center.x),
            Vec4::splat(center.y),
            Vec4::splat(center.z),
        );
        let least = Vec4::splat(-radius);
        let inside = |k: usize| (xs[k] * cx + ys[k] * cy + zs[k] * cz + ds[k]).cmpge(least);
        (inside(0) & inside(1)).all()
    }

    /// [`Frustum::intersects_sphere`] one plane after the other, as first
    /// written: the naive twin's test, and the reference for the lanes.
    pub(crate) fn intersects_sphere_by_plane(&self, center: Vec3, radius: f32) -> bool {
        self.planes
            .iter()
            .all(|plane| plane.truncate().dot(center) + plane.w >= -radius)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::render::camera::Camera;

    /// The reference: a point is visible when its clip coordinates lie in the view volume.
    fn clip_contains(view_proj: Mat4, point: Vec3) -> bool {
        let clip = view_proj * point.extend(1.0);
        clip.w > 0.0
            && clip.x.abs() <= clip.w
            && clip.y.abs() <= clip.w
            && clip.z >= 0.0
            && clip.z <= clip.w
    }

    fn camera_strategy() -> impl Strategy<Value = Camera> {
        (
            prop::array::uniform3(-20.0f32..20.0),
            prop::array::uniform3(-20.0f32..20.0),
            0.3f32..2.0,
        )
            .prop_filter("eye and target apart", |(eye, target, _)| {
                (Vec3::from(*eye) - Vec3::from(*target)).length() > 0.5
            })
            .prop_map(|(eye, target, fov_y)| Camera {
                position: eye.into(),
                target: target.into(),
                fov_y,
                near: 0.1,
                far: 60.0,
                ..Camera::default()
            })
    }

    proptest! {
        #[test]
        fn points_agree_with_clip_space(
            camera in camera_strategy(),
            aspect in 0.5f32..2.5,
            points in prop::collection::vec(prop::array::uniform3(-40.0f32..40.0), 64),
        ) {
            let view_proj = camera.view_projection(aspect);
            let frustum = Frustum::from_view_projection(view_proj);
            for point in points {
                let point = Vec3::from(point);
                // Skip points within rounding distance of a plane, where float
                // error decides either way. Clip-space depth loses precision
                // with the square of the distance (over the near distance):
                // about 2e-3 units at 60 with near 0.1.
                let d = point.distance(camera.position);
                let rounding = 1e-3 + 8.0 * f32::EPSILON * d * d / camera.near;
                let near_plane = frustum
                    .planes
                    .iter()
                    .any(|p| (p.truncate().dot(point) + p.w).abs() < rounding);
                if !near_plane {
                    prop_assert_eq!(
                        frustum.intersects_sphere(point, 0.0),
                        clip_contains(view_proj, point),
                        "point {}", point
                    );
                }
            }
        }

        #[test]
        fn the_lanes_answer_as_the_planes_one_by_one(
            camera in camera_strategy(),
            aspect in 0.5f32..2.5,
            spheres in prop::collection::vec(
                (prop::array::uniform3(-70.0f32..70.0), 0.0f32..8.0), 64),
        ) {
            let frustum = Frustum::from_view_projection(camera.view_projection(aspect));
            for (center, radius) in spheres {
                let center = Vec3::from(center);
                prop_assert_eq!(
                    frustum.intersects_sphere(center, radius),
                    frustum.intersects_sphere_by_plane(center, radius),
                    "center {} radius {}", center, radius
                );
                // Right on a plane: the sums round alike too.
                for plane in &frustum.planes {
                    let on = center - plane.truncate() * (plane.truncate().dot(center) + plane.w);
                    prop_assert_eq!(
                        frustum.intersects_sphere(on, 0.0),
                        frustum.intersects_sphere_by_plane(on, 0.0),
                        "on a plane: {}", on
                    );
                }
            }
        }

        #[test]
        fn spheres_with_a_visible_point_are_never_culled(
            camera in camera_strategy(),
            center in prop::array::uniform3(-30.0f32..30.0),
            radius in 0.1f32..5.0,
            offsets in prop::collection::vec(prop::array::uniform3(-1.0f32..1.0), 32),
        ) {
            let view_proj = camera.view_projection(1.3);
            let frustum = Frustum::from_view_projection(view_proj);
            let center = Vec3::from(center);
            let any_visible = offsets
                .iter()
                .map(|o| center + Vec3::from(*o).clamp_length_max(1.0) * radius)
                .any(|p| clip_contains(view_proj, p));
            if any_visible {
                prop_assert!(frustum.intersects_sphere(center, radius));
            }
        }
    }

    #[test]
    fn spheres_behind_or_beyond_are_culled() {
        let camera = Camera::default();
        let frustum = Frustum::from_view_projection(camera.view_projection(1.0));
        let forward = camera.forward();
        assert!(frustum.intersects_sphere(camera.target, 0.5));
        assert!(!frustum.intersects_sphere(camera.position - forward * 5.0, 1.0));
        assert!(!frustum.intersects_sphere(camera.position + forward * (camera.far + 10.0), 1.0));
        assert!(
            frustum.intersects_sphere(camera.position - forward * 0.5, 1.0),
            "sphere around the eye"
        );
    }
}
