//! Cameras and the two controllers that drive them: an orbit camera for
//! inspecting a scene and a fly camera for moving through it.
//!
//! Pattern: none of the book's. The controllers keep their own state (angles,
//! distance) and produce a plain [`Camera`] each frame, so the renderer never
//! depends on how the user steers.
//!
//! Conventions: right-handed, +Y up, a camera with zero yaw looks down -Z, and
//! clip-space depth runs 0..1 (wgpu's).

use std::f32::consts::FRAC_PI_2;

use glam::{Mat4, Vec3};

/// Radians turned per pixel of mouse movement.
const LOOK_SENSITIVITY: f32 = 0.005;
/// Keeps pitch away from the poles, where the look-at basis degenerates.
const PITCH_LIMIT: f32 = FRAC_PI_2 - 0.01;
/// Fraction of the distance zoomed per wheel notch.
const ZOOM_STEP: f32 = 0.9;
/// Fraction of the orbit distance panned per pixel: panning feels the same at
/// every zoom level.
const PAN_SPEED: f32 = 0.0015;

/// A camera looking from `position` at `target`: perspective, or
/// orthographic when [`Camera::orthographic`] gives the view's height.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Eye position in world space.
    pub position: Vec3,
    /// The point the camera looks at.
    pub target: Vec3,
    /// World-space up hint (need not be orthogonal to the view direction).
    pub up: Vec3,
    /// Vertical field of view in radians.
    pub fov_y: f32,
    /// Distance to the near clip plane (> 0).
    pub near: f32,
    /// Distance to the far clip plane (> `near`).
    pub far: f32,
    /// Orthographic: the view's height in world units (`fov_y` unused);
    /// `None` for perspective.
    pub orthographic: Option<f32>,
}

impl Default for Camera {
    fn default() -> Self {
        Self {
            position: Vec3::new(0.0, 2.0, 6.0),
            target: Vec3::ZERO,
            up: Vec3::Y,
            fov_y: 60f32.to_radians(),
            near: 0.1,
            far: 500.0,
            orthographic: None,
        }
    }
}

impl Camera {
    /// World-to-view matrix.
    #[must_use]
    pub fn view(&self) -> Mat4 {
        glam::camera::rh::view::look_at_mat4(self.position, self.target, self.up)
    }

    /// View-to-clip matrix for a viewport of `aspect` = width / height.
    #[must_use]
    pub fn projection(&self, aspect: f32) -> Mat4 {
        let aspect = aspect.max(1e-4);
        match self.orthographic {
            Some(height) => {
                let (x, y) = (height * 0.5 * aspect, height * 0.5);
                glam::camera::rh::proj::directx::orthographic(-x, x, -y, y, self.near, self.far)
            }
            None => glam::camera::rh::proj::directx::perspective(
                self.fov_y, aspect, self.near, self.far,
            ),
        }
    }

    /// Half the width and height of the view at `depth` along the view axis
    /// (world units; the same at every depth when orthographic).
    #[must_use]
    pub fn half_extents_at(&self, depth: f32, aspect: f32) -> (f32, f32) {
        let half_height = match self.orthographic {
            Some(height) => height * 0.5,
            None => depth * crate::math::tan(self.fov_y * 0.5),
        };
        (half_height * aspect.max(1e-4), half_height)
    }

    /// World-to-clip matrix.
    #[must_use]
    pub fn view_projection(&self, aspect: f32) -> Mat4 {
        self.projection(aspect) * self.view()
    }

    /// Unit vector from the eye towards the target.
    #[must_use]
    pub fn forward(&self) -> Vec3 {
        (self.target - self.position).normalize_or(Vec3::NEG_Z)
    }
}

/// Unit direction for a yaw (around +Y, zero looking down -Z) and pitch (up positive).
fn look_direction(yaw: f32, pitch: f32) -> Vec3 {
    Vec3::new(
        -crate::math::sin(yaw) * crate::math::cos(pitch),
        crate::math::sin(pitch),
        -crate::math::cos(yaw) * crate::math::cos(pitch),
    )
}

/// Right and up vectors of a view looking along `forward`.
fn view_basis(forward: Vec3) -> (Vec3, Vec3) {
    let right = forward.cross(Vec3::Y).normalize_or(Vec3::X);
    (right, right.cross(forward))
}

/// Orbits a target point: drag to rotate, wheel to zoom, drag with a modifier to pan.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitController {
    /// The point orbited and looked at.
    pub target: Vec3,
    /// Distance from the target to the eye.
    pub distance: f32,
    /// Rotation around +Y in radians; zero puts the eye on the +Z side.
    pub yaw: f32,
    /// Elevation in radians; positive looks down on the target.
    pub pitch: f32,
    /// Vertical field of view of the produced camera, in radians.
    pub fov_y: f32,
    /// Closest the eye may zoom to the target.
    pub min_distance: f32,
    /// Farthest the eye may zoom from the target.
    pub max_distance: f32,
}

impl Default for OrbitController {
    fn default() -> Self {
        Self {
            target: Vec3::ZERO,
            distance: 8.0,
            yaw: 0.0,
            pitch: 0.35,
            fov_y: 60f32.to_radians(),
            min_distance: 0.2,
            max_distance: 2_000.0,
        }
    }
}

impl OrbitController {
    /// Unit vector from the eye to the target.
    fn forward(&self) -> Vec3 {
        look_direction(self.yaw, -self.pitch)
    }

    /// The eye position.
    #[must_use]
    pub fn position(&self) -> Vec3 {
        self.target - self.forward() * self.distance
    }

    /// Turns around the target by a mouse delta in pixels (right and down positive).
    pub fn rotate(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * LOOK_SENSITIVITY;
        self.pitch = (self.pitch + dy * LOOK_SENSITIVITY).clamp(-PITCH_LIMIT, PITCH_LIMIT);
    }

    /// Moves towards (positive `wheel`) or away from the target by wheel notches,
    /// geometrically, within `min_distance..=max_distance`.
    pub fn zoom(&mut self, wheel: f32) {
        self.distance = (self.distance * crate::math::powf(ZOOM_STEP, wheel))
            .clamp(self.min_distance, self.max_distance);
    }

    /// Slides the target (and the eye with it) in the view plane by a mouse delta
    /// in pixels, so the scene follows the cursor.
    pub fn pan(&mut self, dx: f32, dy: f32) {
        let (right, up) = view_basis(self.forward());
        self.target += (up * dy - right * dx) * self.distance * PAN_SPEED;
    }

    /// Looks at a bounding sphere from the current direction, from just far
    /// enough that the whole sphere fits in the vertical field of view.
    pub fn frame(&mut self, center: Vec3, radius: f32) {
        self.target = center;
        let fit = radius.max(1e-3) / crate::math::sin(self.fov_y * 0.5);
        self.distance = (fit * 1.05).clamp(self.min_distance, self.max_distance);
    }

    /// The camera for the current state, with clip planes scaled to the distance
    /// so depth precision follows the zoom level.
    #[must_use]
    pub fn camera(&self) -> Camera {
        Camera {
            position: self.position(),
            target: self.target,
            up: Vec3::Y,
            fov_y: self.fov_y,
            near: (self.distance * 0.01).clamp(0.01, 1.0),
            far: (self.distance * 50.0).max(500.0),
            orthographic: None,
        }
    }
}

/// A free-flying first-person camera.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlyController {
    /// Eye position.
    pub position: Vec3,
    /// Rotation around +Y in radians; zero looks down -Z.
    pub yaw: f32,
    /// Elevation of the view in radians; positive looks up.
    pub pitch: f32,
    /// Movement speed in world units per second.
    pub speed: f32,
    /// Vertical field of view of the produced camera, in radians.
    pub fov_y: f32,
}

impl Default for FlyController {
    fn default() -> Self {
        Self {
            position: Vec3::new(0.0, 2.0, 8.0),
            yaw: 0.0,
            pitch: 0.0,
            speed: 5.0,
            fov_y: 60f32.to_radians(),
        }
    }
}

impl FlyController {
    /// Unit view direction.
    #[must_use]
    pub fn forward(&self) -> Vec3 {
        look_direction(self.yaw, self.pitch)
    }

    /// Turns the view by a mouse delta in pixels (right and down positive).
    pub fn look(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * LOOK_SENSITIVITY;
        self.pitch = (self.pitch - dy * LOOK_SENSITIVITY).clamp(-PITCH_LIMIT, PITCH_LIMIT);
    }

    /// Moves along the view direction, its right vector and world up; each input
    /// is in -1..=1 (a key held or an axis), scaled by `speed` and `dt` seconds.
    pub fn move_local(&mut self, forward: f32, right: f32, up: f32, dt: f32) {
        let direction = self.forward();
        let (right_axis, _) = view_basis(direction);
        self.position +=
            (direction * forward + right_axis * right + Vec3::Y * up) * self.speed * dt;
    }

    /// The camera for the current state.
    #[must_use]
    pub fn camera(&self) -> Camera {
        Camera {
            position: self.position,
            target: self.position + self.forward(),
            up: Vec3::Y,
            fov_y: self.fov_y,
            ..Camera::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec4;

    use super::*;

    fn close(a: Vec3, b: Vec3) -> bool {
        (a - b).length() < 1e-4
    }

    #[test]
    fn default_camera_projects_its_target_to_the_screen_centre() {
        let camera = Camera::default();
        let clip = camera.view_projection(16.0 / 9.0) * camera.target.extend(1.0);
        let ndc = clip.truncate() / clip.w;
        assert!(ndc.x.abs() < 1e-5 && ndc.y.abs() < 1e-5, "target at {ndc}");
        assert!((0.0..1.0).contains(&ndc.z), "depth {} outside 0..1", ndc.z);
    }

    #[test]
    fn points_behind_the_camera_have_negative_w() {
        let camera = Camera::default();
        let behind = camera.position - camera.forward();
        let clip = camera.view_projection(1.0) * behind.extend(1.0);
        assert!(clip.w < 0.0, "clip {clip}");
        let ahead = camera.view_projection(1.0) * Vec4::from((camera.target, 1.0));
        assert!(ahead.w > 0.0);
    }

    #[test]
    fn orbit_rotation_keeps_the_distance_and_looks_at_the_target() {
        let mut orbit = OrbitController {
            target: Vec3::new(1.0, 2.0, 3.0),
            distance: 7.0,
            ..OrbitController::default()
        };
        let start = orbit.position();
        orbit.rotate(120.0, -40.0);
        let moved = orbit.position();
        assert!(!close(start, moved), "rotate did not move the eye");
        assert!(((moved - orbit.target).length() - 7.0).abs() < 1e-4);
        let camera = orbit.camera();
        assert!(close(camera.forward(), (orbit.target - moved).normalize()));
    }

    #[test]
    fn orbit_pitch_is_clamped_short_of_the_poles() {
        let mut orbit = OrbitController::default();
        orbit.rotate(0.0, 1e6);
        assert!(orbit.pitch <= PITCH_LIMIT);
        orbit.rotate(0.0, -1e6);
        assert!(orbit.pitch >= -PITCH_LIMIT);
        assert!(orbit.camera().view().is_finite());
    }

    #[test]
    fn positive_pitch_puts_the_eye_above_the_target() {
        let orbit = OrbitController {
            pitch: 0.5,
            ..OrbitController::default()
        };
        assert!(orbit.position().y > orbit.target.y);
    }

    #[test]
    fn zoom_moves_in_and_out_and_clamps() {
        let mut orbit = OrbitController::default();
        let start = orbit.distance;
        orbit.zoom(1.0);
        assert!(orbit.distance < start);
        orbit.zoom(-2.0);
        assert!(orbit.distance > start);
        orbit.zoom(1_000.0);
        assert_eq!(orbit.distance, orbit.min_distance);
        orbit.zoom(-1_000.0);
        assert_eq!(orbit.distance, orbit.max_distance);
    }

    #[test]
    fn pan_moves_the_target_within_the_view_plane() {
        let mut orbit = OrbitController {
            yaw: 0.7,
            pitch: 0.4,
            ..OrbitController::default()
        };
        let forward = orbit.forward();
        let (target, eye) = (orbit.target, orbit.position());
        orbit.pan(30.0, -12.0);
        let shift = orbit.target - target;
        assert!(shift.length() > 1e-3, "pan did not move the target");
        assert!(
            shift.dot(forward).abs() < 1e-4,
            "pan moved along the view axis"
        );
        assert!(
            close(orbit.position() - eye, shift),
            "eye and target moved apart"
        );
    }

    #[test]
    fn frame_fits_the_sphere_in_the_field_of_view() {
        let mut orbit = OrbitController::default();
        orbit.frame(Vec3::new(5.0, 0.0, -2.0), 3.0);
        assert_eq!(orbit.target, Vec3::new(5.0, 0.0, -2.0));
        let half_angle = crate::math::asin(3.0 / orbit.distance);
        assert!(
            half_angle <= orbit.fov_y * 0.5,
            "sphere wider than the view"
        );
        assert!(
            half_angle > orbit.fov_y * 0.4,
            "camera much farther than needed"
        );
    }

    #[test]
    fn fly_moves_along_its_view_and_right_vectors() {
        let mut fly = FlyController::default();
        let start = fly.position;
        fly.move_local(1.0, 0.0, 0.0, 0.5);
        assert!(close(fly.position - start, Vec3::NEG_Z * fly.speed * 0.5));
        fly.look(-FRAC_PI_2 / LOOK_SENSITIVITY, 0.0);
        let turned = fly.position;
        fly.move_local(0.0, 1.0, 0.0, 1.0);
        // A quarter turn to the left faces -X, whose right-hand side is -Z.
        assert!(close(fly.position - turned, Vec3::NEG_Z * fly.speed));
    }

    #[test]
    fn fly_look_turns_right_and_down_with_positive_deltas() {
        let mut fly = FlyController::default();
        fly.look(100.0, 100.0);
        let forward = fly.forward();
        assert!(
            forward.x > 0.0,
            "moving the mouse right should turn right: {forward}"
        );
        assert!(
            forward.y < 0.0,
            "moving the mouse down should look down: {forward}"
        );
        assert!(close(fly.camera().forward(), forward));
    }
}
