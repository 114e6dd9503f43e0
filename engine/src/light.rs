//! Light sources: what a light node carries (a scene component) and what
//! glTF import reads from `KHR_lights_punctual`. Plain values: the renderer
//! packs them, the scene places them by their node's transform.

use glam::Vec3;
use serde::{Deserialize, Serialize};

use crate::validation::InvalidValue;

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

impl Light {
    /// Checks the numbers a scene file, the inspector and a prefab override
    /// must hold to: a colour, an intensity of 0 or more, a positive range,
    /// a spot's cone from 0 to 90 degrees with its inner angle under its outer.
    ///
    /// # Errors
    /// The field (`color`, `intensity`, `kind.range`, `kind.outer_degrees`,
    /// `kind.inner_degrees`) and what it must be.
    pub fn validate(&self) -> Result<(), InvalidValue> {
        InvalidValue::color("color", self.color)?;
        InvalidValue::non_negative("intensity", self.intensity)?;
        if let Some(range) = self.kind.range() {
            InvalidValue::positive("kind.range", range)?;
        }
        if let LightKind::Spot {
            inner_degrees,
            outer_degrees,
            ..
        } = self.kind
        {
            if !(0.0..=90.0).contains(&outer_degrees) {
                return Err(InvalidValue::new(
                    "kind.outer_degrees",
                    "an angle from 0 to 90 degrees",
                    outer_degrees,
                ));
            }
            if !(0.0..outer_degrees).contains(&inner_degrees) {
                return Err(InvalidValue::new(
                    "kind.inner_degrees",
                    "an angle from 0 up to outer_degrees (not including it)",
                    inner_degrees,
                ));
            }
        }
        Ok(())
    }
}
