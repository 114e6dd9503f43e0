//! Cascaded shadow maps for the sun: the settings a scene chooses and the
//! cascades fitted to a camera. Pure math, shared by extraction (which culls
//! each cascade's casters through the octree) and the renderer (which draws
//! them and samples the maps): both call [`cascades`] with the same camera,
//! aspect and light, so they agree on every volume.
//!
//! Each cascade covers a slice of the camera's view depth with an orthographic
//! box around the slice's bounding sphere. The sphere's radius depends only on
//! the projection, so turning the camera never resizes a cascade, and the box
//! is moved in whole shadow-map texels, so moving the camera never shifts a
//! shadow's edge by part of a texel: shadows stand still instead of shimmering.

use glam::{Mat4, Vec3};

use super::camera::Camera;
use crate::scene::{MAX_CASCADES, ShadowSettings};

/// The most spot lights that cast shadows in one frame (the first ones of
/// the frame's lights that ask to).
pub const MAX_SPOT_SHADOWS: usize = 4;
/// Every view the shadow map can be drawn from: the sun's cascades (views
/// 0..4), then the spots (views 4..8). Extraction marks casters with one bit per view.
pub const MAX_SHADOW_VIEWS: usize = MAX_CASCADES + MAX_SPOT_SHADOWS;

/// The spot lights casting shadows this frame, each drawn from its own
/// perspective view into a layer of the shadow map after the cascades'.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpotShadows {
    /// Spots in use.
    pub count: usize,
    /// Each one's index in the frame's point lights.
    pub light: [usize; MAX_SPOT_SHADOWS],
    /// World to each spot's clip space.
    pub view_proj: [Mat4; MAX_SPOT_SHADOWS],
    /// World size of one texel of each spot's map at unit distance from the light.
    pub texel: [f32; MAX_SPOT_SHADOWS],
}

impl Default for SpotShadows {
    fn default() -> Self {
        Self {
            count: 0,
            light: [0; MAX_SPOT_SHADOWS],
            view_proj: [Mat4::IDENTITY; MAX_SPOT_SHADOWS],
            texel: [0.0; MAX_SPOT_SHADOWS],
        }
    }
}

/// The volume a spot light shines into, which its shadow view covers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpotCone {
    /// Where the light is.
    pub position: Vec3,
    /// The direction it shines along; need not be unit length.
    pub direction: Vec3,
    /// Cosine of the cone's half-angle.
    pub cos_outer: f32,
    /// Distance at which the light reaches zero.
    pub range: f32,
}

impl SpotShadows {
    /// Adds the spot shining into `cone` as light `light`; false when full.
    pub fn push(&mut self, light: usize, cone: SpotCone, settings: &ShadowSettings) -> bool {
        if self.count == MAX_SPOT_SHADOWS {
            return false;
        }
        let SpotCone {
            position,
            direction,
            cos_outer,
            range,
        } = cone;
        let direction = direction.normalize_or(Vec3::NEG_Y);
        // The cone's full width and a texel's margin, short of a half-space.
        let half_angle = crate::math::acos(cos_outer.clamp(-1.0, 1.0)).clamp(0.01, 1.45);
        let size = settings.map_size() as f32;
        let half_tan = crate::math::tan(half_angle) * (1.0 + 2.0 / size);
        let range = range.max(1e-2);
        let near = (range * 0.005).max(0.02);
        let up = if direction.y.abs() > 0.99 {
            Vec3::Z
        } else {
            Vec3::Y
        };
        let view = glam::camera::rh::view::look_to_mat4(position, direction, up);
        let projection = glam::camera::rh::proj::directx::perspective(
            2.0 * crate::math::atan(half_tan),
            1.0,
            near,
            range,
        );
        let i = self.count;
        self.light[i] = light;
        self.view_proj[i] = projection * view;
        self.texel[i] = 2.0 * half_tan / size;
        self.count += 1;
        true
    }
}

/// The cascades of one frame: what culls casters, renders the maps and
/// samples them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cascades {
    /// Cascades in use (0: no shadows this frame).
    pub count: usize,
    /// World to the cascade's clip space (wgpu's: x, y in -1..1, depth 0..1).
    pub view_proj: [Mat4; MAX_CASCADES],
    /// View depth (along the camera's forward axis) where each cascade ends.
    pub far: [f32; MAX_CASCADES],
    /// World size of one texel of each cascade's map.
    pub texel: [f32; MAX_CASCADES],
}

impl Default for Cascades {
    fn default() -> Self {
        Self {
            count: 0,
            view_proj: [Mat4::IDENTITY; MAX_CASCADES],
            far: [0.0; MAX_CASCADES],
            texel: [0.0; MAX_CASCADES],
        }
    }
}

/// Every view the shadow map is drawn from in one frame: the sun's
/// cascades, then the shadowed spots. The renderer draws each into a layer
/// of the map (cascades first, the spots after them); extraction culls each
/// one's casters; the shaders read both from the globals.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct ShadowViews {
    /// The sun's cascades.
    pub(crate) cascades: Cascades,
    /// The spots casting shadows.
    pub(crate) spots: SpotShadows,
}

impl ShadowViews {
    /// Views in use: the map's layers.
    pub(crate) fn count(&self) -> usize {
        self.cascades.count + self.spots.count
    }

    /// Each view in use as (view, layer, world to its clip space): views
    /// number the cascades from 0 and the spots from [`MAX_CASCADES`]
    /// (extraction's bit per view), layers count them without gaps.
    pub(crate) fn in_use(&self) -> impl Iterator<Item = (usize, usize, &Mat4)> {
        let cascades = self.cascades.view_proj.iter().take(self.cascades.count);
        let spots = self.spots.view_proj.iter().take(self.spots.count);
        let first_spot = self.cascades.count;
        (cascades.enumerate().map(|(i, m)| (i, i, m))).chain(
            spots
                .enumerate()
                .map(move |(j, m)| (MAX_CASCADES + j, first_spot + j, m)),
        )
    }
}

/// Share of the split placement that is logarithmic (the rest uniform):
/// the usual "practical split scheme".
const SPLIT_LAMBDA: f32 = 0.8;

/// Fits the cascades of `settings` to `camera` at `aspect` (width / height)
/// for a sun shining along `light_direction` (from the sun into the scene).
/// Casters up to `reach` behind a cascade (towards the sun) still land in it.
#[must_use]
pub fn cascades(
    camera: &Camera,
    aspect: f32,
    light_direction: Vec3,
    settings: &ShadowSettings,
) -> Cascades {
    let count = settings.cascade_count();
    let direction = light_direction.normalize_or_zero();
    let near = camera.near.max(1e-3);
    let far = settings.distance.min(camera.far).max(near * 1.01);
    if count == 0 || direction == Vec3::ZERO || !far.is_finite() {
        return Cascades::default();
    }
    let size = settings.map_size() as f32;
    // The light's axes: fixed for a given direction, whatever the camera does.
    let up = if direction.y.abs() > 0.99 {
        Vec3::Z
    } else {
        Vec3::Y
    };
    let light_view = glam::camera::rh::view::look_to_mat4(Vec3::ZERO, direction, up);
    let forward = camera.forward();
    let (tan_x, tan_y) = camera.half_extents_at(1.0, aspect);
    let mut out = Cascades {
        count,
        ..Cascades::default()
    };
    let mut start = near;
    for i in 0..count {
        let t = (i + 1) as f32 / count as f32;
        let log = near * crate::math::powf(far / near, t);
        let uniform = near + (far - near) * t;
        let end = SPLIT_LAMBDA * log + (1.0 - SPLIT_LAMBDA) * uniform;
        // The slice's bounding sphere: its centre on the view axis where the
        // corners of both ends are equally far (or at the far end's centre
        // when that is nearer than the near end's corners allow).
        // (An orthographic slice is a box: its centre is half way.)
        let along = match camera.orthographic {
            Some(_) => (start + end) * 0.5,
            None => ((start + end) * 0.5 * (1.0 + tan_x * tan_x + tan_y * tan_y)).min(end),
        };
        let corner = |d: f32| {
            let (x, y) = camera.half_extents_at(d, aspect);
            Vec3::new(x, y, d - along).length()
        };
        let radius = corner(start).max(corner(end));
        // Rounded up so that float noise in the corners never changes the size.
        let radius = (radius * 16.0).ceil() / 16.0;
        let center = camera.position + forward * along;
        let texel = 2.0 * radius / size;
        // Moved in whole texels across the light's view plane.
        let c = light_view.transform_point3(center);
        let snapped = Vec3::new(
            (c.x / texel).floor() * texel,
            (c.y / texel).floor() * texel,
            c.z,
        );
        let reach = settings.distance.max(radius);
        // Looking down -z: depth 0 at the sun's side (reach behind the
        // sphere), 1 at the sphere's far side.
        let projection = glam::camera::rh::proj::directx::orthographic(
            snapped.x - radius,
            snapped.x + radius,
            snapped.y - radius,
            snapped.y + radius,
            -snapped.z - radius - reach,
            -snapped.z + radius,
        );
        out.view_proj[i] = projection * light_view;
        out.far[i] = end;
        out.texel[i] = texel;
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn camera(position: Vec3, target: Vec3) -> Camera {
        Camera {
            position,
            target,
            ..Camera::default()
        }
    }

    fn sun() -> Vec3 {
        Vec3::new(-0.4, -1.0, -0.55)
    }

    /// The corners of the camera's view slice between depths `a` and `b`.
    fn slice_corners(camera: &Camera, aspect: f32, a: f32, b: f32) -> Vec<Vec3> {
        let forward = camera.forward();
        let right = forward.cross(camera.up).normalize();
        let up = right.cross(forward);
        let mut corners = Vec::new();
        for d in [a, b] {
            let (x, y) = camera.half_extents_at(d, aspect);
            for (sx, sy) in [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0)] {
                corners.push(camera.position + forward * d + right * (sx * x) + up * (sy * y));
            }
        }
        corners
    }

    #[test]
    fn every_cascade_contains_its_slice_of_the_view() {
        for (position, target, aspect, orthographic) in [
            (Vec3::new(0.0, 2.0, 6.0), Vec3::ZERO, 1.5, None),
            (
                Vec3::new(30.0, 40.0, -20.0),
                Vec3::new(5.0, 0.0, 3.0),
                0.6,
                None,
            ),
            (
                Vec3::new(0.0, 1.0, 0.0),
                Vec3::new(0.0, 1.0, -10.0),
                2.4,
                None,
            ),
            (Vec3::new(0.0, 20.0, 20.0), Vec3::ZERO, 1.5, Some(30.0)),
            (Vec3::new(5.0, 3.0, 0.0), Vec3::ZERO, 0.7, Some(4.0)),
        ] {
            let camera = Camera {
                orthographic,
                ..camera(position, target)
            };
            let set = cascades(&camera, aspect, sun(), &ShadowSettings::default());
            assert_eq!(set.count, 3);
            let mut start = camera.near;
            for i in 0..set.count {
                assert!(set.far[i] > start, "splits grow: {:?}", set.far);
                for corner in slice_corners(&camera, aspect, start, set.far[i]) {
                    let clip = set.view_proj[i].project_point3(corner);
                    assert!(
                        clip.x.abs() <= 1.0 + 1e-4
                            && clip.y.abs() <= 1.0 + 1e-4
                            && (-1e-4..=1.0 + 1e-4).contains(&clip.z),
                        "cascade {i} misses corner {corner} (clip {clip})"
                    );
                }
                start = set.far[i];
            }
            assert!((set.far[2] - ShadowSettings::default().distance).abs() < 1e-3);
        }
    }

    #[test]
    fn casters_towards_the_sun_land_in_the_map() {
        let camera = camera(Vec3::new(0.0, 2.0, 6.0), Vec3::ZERO);
        let set = cascades(&camera, 1.0, sun(), &ShadowSettings::default());
        // A point 30 units up-sun of the view's centre still has a depth in 0..1.
        let up_sun = Vec3::ZERO - sun().normalize() * 30.0;
        let clip = set.view_proj[0].project_point3(up_sun);
        assert!((0.0..=1.0).contains(&clip.z), "depth {}", clip.z);
    }

    #[test]
    fn moving_the_camera_moves_cascades_by_whole_texels() {
        let settings = ShadowSettings::default();
        let point = Vec3::new(1.3, 0.2, -2.7);
        let texel_position = |set: &Cascades, i: usize| {
            let clip = set.view_proj[i].project_point3(point);
            let size = settings.map_size() as f32;
            ((clip.x * 0.5 + 0.5) * size, (clip.y * 0.5 + 0.5) * size)
        };
        let base = camera(Vec3::new(0.0, 2.0, 6.0), Vec3::ZERO);
        let first = cascades(&base, 1.5, sun(), &settings);
        for step in [0.013, 0.29, 1.7] {
            let offset = Vec3::new(step, 0.0, step * 0.5);
            let moved = camera(base.position + offset, base.target + offset);
            let second = cascades(&moved, 1.5, sun(), &settings);
            for i in 0..first.count {
                assert_eq!(first.texel[i], second.texel[i], "cascade size changed");
                let (a, b) = (texel_position(&first, i), texel_position(&second, i));
                let fract = |v: f32| v - v.round();
                assert!(
                    (fract(a.0) - fract(b.0)).abs() < 2e-2
                        && (fract(a.1) - fract(b.1)).abs() < 2e-2,
                    "cascade {i}: the point moved by part of a texel ({a:?} -> {b:?})"
                );
            }
        }
    }

    #[test]
    fn turning_the_camera_keeps_the_cascade_sizes() {
        let settings = ShadowSettings::default();
        let a = cascades(&camera(Vec3::ZERO, Vec3::NEG_Z), 1.5, sun(), &settings);
        let b = cascades(
            &camera(Vec3::ZERO, Vec3::new(3.0, -1.0, 2.0)),
            1.5,
            sun(),
            &settings,
        );
        assert_eq!(a.texel, b.texel);
    }

    #[test]
    fn disabled_or_lightless_shadows_have_no_cascades() {
        let camera = Camera::default();
        let off = ShadowSettings {
            enabled: false,
            ..ShadowSettings::default()
        };
        assert_eq!(cascades(&camera, 1.0, sun(), &off).count, 0);
        assert_eq!(
            cascades(&camera, 1.0, Vec3::ZERO, &ShadowSettings::default()).count,
            0
        );
        let many = ShadowSettings {
            cascades: 9,
            ..ShadowSettings::default()
        };
        assert_eq!(cascades(&camera, 1.0, sun(), &many).count, MAX_CASCADES);
    }

    #[test]
    fn shadow_views_number_spots_after_every_cascade_and_layer_them_without_gaps() {
        let settings = ShadowSettings {
            cascades: 2,
            ..ShadowSettings::default()
        };
        let mut spots = SpotShadows::default();
        for light in [3, 5] {
            let cone = SpotCone {
                position: Vec3::new(light as f32, 4.0, 0.0),
                direction: Vec3::NEG_Y,
                cos_outer: 0.8,
                range: 10.0,
            };
            assert!(spots.push(light, cone, &settings));
        }
        let views = ShadowViews {
            cascades: cascades(&Camera::default(), 1.0, sun(), &settings),
            spots,
        };
        let used: Vec<(usize, usize)> = views.in_use().map(|(v, l, _)| (v, l)).collect();
        assert_eq!(
            used,
            [(0, 0), (1, 1), (MAX_CASCADES, 2), (MAX_CASCADES + 1, 3)],
            "(view, layer) of each view in use"
        );
        assert_eq!(views.count(), 4);
        let matrices: Vec<Mat4> = views.in_use().map(|(_, _, m)| *m).collect();
        assert_eq!(matrices[1], views.cascades.view_proj[1]);
        assert_eq!(matrices[3], views.spots.view_proj[1]);
    }
}
