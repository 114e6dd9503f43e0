//! The built-in behaviours (update method pattern): spin, oscillate and
//! orbit. They are ordinary registered [`Component`]s, stored, saved, copied
//! and recorded through the same path as a game's own; only their systems
//! (`systems.rs`) are built in.
//!
//! Each stores the state its update needs between steps (the spin's
//! accumulated angle lives in the rotation, the oscillation's phase and
//! offset in the component), so a step depends only on the state and the
//! fixed step length: the same inputs give the same result.

use bevy_reflect::Reflect;
use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::registered::Component;
use crate::validation::InvalidValue;

/// Turns the node about a local axis at a constant rate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Reflect)]
#[serde(deny_unknown_fields)]
pub struct Spin {
    /// Axis in the node's parent space (normalised when used).
    pub axis: Vec3,
    /// Radians per second.
    pub rate: f32,
}

/// Moves the node back and forth along an axis around where it started.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Reflect)]
#[serde(deny_unknown_fields)]
pub struct Oscillate {
    /// Direction of motion in the parent's space (normalised when used).
    pub axis: Vec3,
    /// Largest displacement, in world units (or radians for [`Oscillate::rock`]).
    pub amplitude: f32,
    /// Cycles per second.
    pub frequency: f32,
    /// Phase at time zero, in radians.
    pub phase: f32,
    /// Rock about the axis (an angle) instead of sliding along it.
    #[serde(default)]
    pub rock: bool,
    /// Seconds simulated so far (state, saved so a saved scene resumes exactly).
    #[serde(default)]
    pub elapsed: f32,
    /// The displacement (or angle) currently applied on top of the rest pose.
    #[serde(default)]
    pub applied: f32,
}

impl Oscillate {
    /// An oscillation starting at time zero.
    pub fn new(axis: Vec3, amplitude: f32, frequency: f32, phase: f32) -> Self {
        Self {
            axis,
            amplitude,
            frequency,
            phase,
            rock: false,
            elapsed: 0.0,
            applied: 0.0,
        }
    }

    /// The same oscillation as a rocking motion about the axis.
    pub fn rocking(self) -> Self {
        Self { rock: true, ..self }
    }
}

/// Moves the node on a horizontal circle around a centre in its parent's space.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Reflect)]
#[serde(deny_unknown_fields)]
pub struct Orbit {
    /// Centre of the circle in the parent's space.
    pub center: Vec3,
    /// Radius of the circle.
    pub radius: f32,
    /// Radians per second (negative goes clockwise seen from above).
    pub rate: f32,
    /// Current angle on the circle, radians (state; its saved value is where it starts).
    #[serde(default)]
    pub angle: f32,
    /// Turn the node to face its direction of travel.
    #[serde(default)]
    pub face_forward: bool,
}

impl Default for Spin {
    /// A turn a second about +Y.
    fn default() -> Self {
        Self {
            axis: Vec3::Y,
            rate: 1.0,
        }
    }
}

impl Default for Oscillate {
    /// Half a unit up and down every two seconds.
    fn default() -> Self {
        Self::new(Vec3::Y, 0.5, 0.5, 0.0)
    }
}

impl Default for Orbit {
    /// A circle of radius 3 about the parent's origin, slowly.
    fn default() -> Self {
        Self {
            center: Vec3::ZERO,
            radius: 3.0,
            rate: 0.5,
            angle: 0.0,
            face_forward: false,
        }
    }
}

impl Component for Spin {
    const NAME: &'static str = "spin";

    fn validate(&self) -> Result<(), InvalidValue> {
        InvalidValue::finite_vec3("axis", self.axis)?;
        InvalidValue::finite("rate", self.rate)
    }
}

impl Component for Oscillate {
    const NAME: &'static str = "oscillate";

    fn validate(&self) -> Result<(), InvalidValue> {
        InvalidValue::finite_vec3("axis", self.axis)?;
        InvalidValue::finite("amplitude", self.amplitude)?;
        InvalidValue::non_negative("frequency", self.frequency)?;
        InvalidValue::finite("phase", self.phase)?;
        InvalidValue::non_negative("elapsed", self.elapsed)?;
        InvalidValue::finite("applied", self.applied)
    }
}

impl Component for Orbit {
    const NAME: &'static str = "orbit";

    fn validate(&self) -> Result<(), InvalidValue> {
        InvalidValue::finite_vec3("center", self.center)?;
        InvalidValue::non_negative("radius", self.radius)?;
        InvalidValue::finite("rate", self.rate)?;
        InvalidValue::finite("angle", self.angle)
    }
}
