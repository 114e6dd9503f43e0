//! Light sources: what a light node carries (a scene component) and what
//! glTF import reads from `KHR_lights_punctual`. Plain values: the renderer
//! packs them, the scene places them by their node's transform.

use glam::Vec3;
use serde::{Deserialize, Serialize};

/// The kind of a [`Light`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum LightKind {
    /// Parallel light shining along the node's local -Z (a sun).
    Directional,
    /// Light from the node's position, fading to nothing at `range`.
    Point {
        /// Distance at which the light has faded out.
        range: f32,
    },
    /// A cone of light from the node's position along its local -Z, full
    /// inside `inner_degrees` of the axis, fading to nothing at
    /// `outer_degrees`, and with distance to nothing at `range`.
    Spot {
        /// Distance at which the light has faded out.
        range: f32,
        /// Half-angle of the fully lit core, degrees.
        inner_degrees: f32,
        /// Half-angle of the cone's edge, degrees (up to 90).
        outer_degrees: f32,
    },
}

impl LightKind {
    /// The range of a point or spot light.
    #[must_use]
    pub fn range(&self) -> Option<f32> {
        match *self {
            LightKind::Directional => None,
            LightKind::Point { range } | LightKind::Spot { range, .. } => Some(range),
        }
    }
}

/// A light source placed by its node.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Light {
    /// Directional or point.
    pub kind: LightKind,
    /// Linear RGB colour.
    pub color: Vec3,
    /// Brightness multiplier.
    pub intensity: f32,
    /// A spot light casts shadows (the sun's are set in the environment's
    /// shadow settings; point lights cast none).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cast_shadows: bool,
}
