//! Cameras placed in the scene: a [`SceneCamera`] on a node looks down the
//! node's -Z with its +Y up, as glTF and Godot cameras do. The first active
//! one is what the game shows: the viewer's window and the editor's Game
//! view draw through it (`Scene::game_camera`, with the render camera it
//! makes, is extraction's: `extract/game_camera.rs`).
//!
//! A registered component like a game's own (`camera:` in scene files, the
//! inspector through reflection). Files before version 3 kept one camera
//! record in the scene itself; loading such a file puts it on a `Camera`
//! node (`file.rs`).

use bevy_reflect::Reflect;
use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::CameraSetup;
use super::registered::Component;
use crate::transform::Transform;
use crate::validation::InvalidValue;

/// How a camera projects the world onto the screen.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Reflect)]
pub enum Projection {
    /// Things shrink with distance.
    Perspective {
        /// Vertical field of view, degrees.
        #[reflect(@5.0..=150.0_f32)]
        fov_y_degrees: f32,
    },
    /// Parallel lines stay parallel: plans, strategy and 2D views.
    Orthographic {
        /// The view's height in world units (its width follows the window).
        #[reflect(@0.01..=10000.0_f32)]
        height: f32,
    },
}

/// A camera on a node.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Reflect)]
#[serde(deny_unknown_fields)]
pub struct SceneCamera {
    /// Perspective or orthographic.
    pub projection: Projection,
    /// Distance to the near clip plane.
    #[reflect(@0.001..=100.0_f32)]
    pub near: f32,
    /// Distance to the far clip plane.
    #[reflect(@0.01..=100000.0_f32)]
    pub far: f32,
    /// Whether the game may show it: the first active camera is the one drawn.
    pub active: bool,
}

impl Default for SceneCamera {
    /// Perspective, 50 degrees, 0.1 to 500, active.
    fn default() -> Self {
        Self {
            projection: Projection::Perspective {
                fov_y_degrees: 50.0,
            },
            near: 0.1,
            far: 500.0,
            active: true,
        }
    }
}

impl Component for SceneCamera {
    const NAME: &'static str = "camera";

    fn validate(&self) -> Result<(), InvalidValue> {
        match self.projection {
            Projection::Perspective { fov_y_degrees } => {
                InvalidValue::range("fov_y_degrees", fov_y_degrees, 5.0..=150.0)?;
            }
            Projection::Orthographic { height } => {
                InvalidValue::range("height", height, 0.01..=10_000.0)?;
            }
        }
        InvalidValue::range("near", self.near, 0.001..=100.0)?;
        InvalidValue::range("far", self.far, self.near + 1e-3..=100_000.0)
    }
}

impl SceneCamera {
    /// The node a camera record of an older file becomes: placed at its
    /// position looking at its target, perspective at its field of view,
    /// with the clip planes the viewer's orbit camera gave it (1% and 50x
    /// the distance to the target), so the scene looks as it did.
    pub fn from_setup(setup: &CameraSetup) -> (Transform, Self) {
        let distance = setup.position.distance(setup.target);
        let forward = (setup.target - setup.position)
            .try_normalize()
            .unwrap_or(Vec3::NEG_Z);
        let up = if forward.cross(Vec3::Y).length_squared() < 1e-6 {
            Vec3::Z
        } else {
            Vec3::Y
        };
        let look = glam::camera::rh::view::look_to_mat4(setup.position, forward, up).inverse();
        let (_, rotation, _) = look.to_scale_rotation_translation();
        let transform = Transform {
            translation: setup.position,
            rotation,
            ..Transform::IDENTITY
        };
        let camera = Self {
            projection: Projection::Perspective {
                fov_y_degrees: setup.fov_y_degrees.clamp(5.0, 150.0),
            },
            near: (distance * 0.01).clamp(0.01, 1.0),
            far: (distance * 50.0).clamp(500.0, 100_000.0),
            active: true,
        };
        (transform, camera)
    }
}
