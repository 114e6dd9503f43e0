//! Orbit and fly cameras driven by device-independent input: the viewer's
//! free camera (C) and the editor's Scene view share them.

use glam::Vec3;

use super::orbit_from_setup;
use crate::render::{Camera, FlyController, OrbitController};
use crate::scene::{CameraSetup, Scene};

/// Orbit and fly cameras, fed by device-independent input (the viewer's winit
/// events, the editor's egui events).
#[derive(Clone, Debug)]
pub struct CameraRig {
    /// The orbit camera.
    pub orbit: OrbitController,
    /// The fly camera.
    pub fly: FlyController,
    /// Whether the fly camera is in use.
    pub flying: bool,
    /// Movement keys held: forward, back, left, right, up, down.
    pub held: [bool; 6],
}

/// A camera as an orbit's setup: its eye, the point it looks at on the
/// ground (1 to 50 units ahead) or else 10 units ahead, its field of view.
fn setup_of(camera: &Camera) -> CameraSetup {
    let forward = camera.forward();
    let ground = (forward.y < -1e-3)
        .then(|| -camera.position.y / forward.y)
        .filter(|t| (1.0..=50.0).contains(t));
    let distance = ground.unwrap_or(10.0);
    CameraSetup {
        position: camera.position,
        target: camera.position + forward * distance,
        fov_y_degrees: camera.fov_y.to_degrees(),
    }
}

impl CameraRig {
    /// Cameras placed where the scene's game camera is
    /// ([`Scene::game_camera`]), orbiting the point it looks at on the
    /// ground (or 10 units ahead when it looks at no ground near by).
    pub fn new(scene: &Scene) -> Self {
        let mut rig = Self {
            orbit: OrbitController::default(),
            fly: FlyController::default(),
            flying: false,
            held: [false; 6],
        };
        rig.place_at(&scene.game_camera(0.0));
        rig
    }

    /// Places the orbit camera where `camera` is.
    pub fn place_at(&mut self, camera: &Camera) {
        self.orbit = orbit_from_setup(&setup_of(camera));
        self.sync_fly_to_orbit();
    }

    fn sync_fly_to_orbit(&mut self) {
        self.fly.position = self.orbit.position();
        self.fly.yaw = self.orbit.yaw;
        self.fly.pitch = -self.orbit.pitch;
        self.fly.fov_y = self.orbit.fov_y;
    }

    /// Switches between orbit and fly, keeping the current view.
    pub fn toggle_fly(&mut self) {
        self.flying = !self.flying;
        if self.flying {
            self.sync_fly_to_orbit();
        } else {
            let camera = self.fly.camera();
            self.orbit.target = camera.position
                + (camera.target - camera.position).normalize_or(Vec3::NEG_Z) * self.orbit.distance;
            self.orbit.yaw = self.fly.yaw;
            self.orbit.pitch = -self.fly.pitch;
        }
    }

    /// A mouse drag of (dx, dy) pixels: rotates, or pans when `pan` is set (middle button, shift).
    pub fn drag(&mut self, dx: f32, dy: f32, pan: bool) {
        if self.flying {
            self.fly.look(dx, dy);
        } else if pan {
            self.orbit.pan(dx, dy);
        } else {
            self.orbit.rotate(dx, dy);
        }
    }

    /// Mouse wheel lines (positive zooms in).
    pub fn wheel(&mut self, lines: f32) {
        if self.flying {
            self.fly.speed = (self.fly.speed * crate::math::powf(1.1f32, lines)).clamp(0.5, 500.0);
        } else {
            self.orbit.zoom(lines);
        }
    }

    /// Frames a bounding sphere (the selection, say).
    pub fn frame(&mut self, center: Vec3, radius: f32) {
        if self.flying {
            self.toggle_fly();
        }
        self.orbit.frame(center, radius);
    }

    /// Moves the fly camera by the held keys for `dt` seconds.
    pub fn update(&mut self, dt: f32) {
        if !self.flying {
            return;
        }
        let axis = |plus: bool, minus: bool| f32::from(u8::from(plus)) - f32::from(u8::from(minus));
        let h = self.held;
        self.fly
            .move_local(axis(h[0], h[1]), axis(h[3], h[2]), axis(h[4], h[5]), dt);
    }

    /// The camera in use.
    pub fn camera(&self) -> Camera {
        if self.flying {
            self.fly.camera()
        } else {
            self.orbit.camera()
        }
    }
}
