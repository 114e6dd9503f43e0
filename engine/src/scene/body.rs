//! Bodies: what makes a node move by physics (a dynamic body), be moved by
//! game code and push what it meets (kinematic), or stand still for others
//! to hit (fixed).
//!
//! A registered component like a game's own (`body:` in scene files, the
//! inspector through reflection, undo, copy and paste, prefab overrides).
//! A body's shape and mass come from the `collider` on its node (mass from
//! the collider's density); the simulation itself is `physics/bodies.rs`'s.
//! What the fields say is applied when the body is made and again whenever
//! they are edited: setting `linear_velocity` sets the body's velocity.

use bevy_reflect::Reflect;
use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::registered::Component;
use crate::validation::InvalidValue;

/// How a body moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Reflect)]
pub enum BodyKind {
    /// Moved by the simulation: gravity, contacts, forces. Its node's
    /// transform is written each step it is awake.
    #[default]
    Dynamic,
    /// Moved by game code (its node's transform); pushes dynamic bodies
    /// out of its way and is not pushed back.
    Kinematic,
    /// Never moves by the simulation (a floor, a wall); moving its node
    /// places it anew.
    Fixed,
}

/// Three axes, each on or off (the axes a body may not move or turn along).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Reflect)]
pub struct Axes {
    /// The world X axis.
    #[serde(default)]
    pub x: bool,
    /// The world Y axis.
    #[serde(default)]
    pub y: bool,
    /// The world Z axis.
    #[serde(default)]
    pub z: bool,
}

impl Axes {
    /// None of the three.
    pub const NONE: Self = Self {
        x: false,
        y: false,
        z: false,
    };
    /// All three.
    pub const ALL: Self = Self {
        x: true,
        y: true,
        z: true,
    };
}

/// A rigid body on a node (its collider gives it shape and mass).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Reflect)]
#[serde(deny_unknown_fields)]
pub struct Body {
    /// How it moves.
    #[serde(default)]
    pub kind: BodyKind,
    /// How fast its speed fades by itself, per second (air drag).
    #[serde(default)]
    #[reflect(@0.0..=1000.0_f32)]
    pub linear_damping: f32,
    /// How fast its spin fades by itself, per second.
    #[serde(default)]
    #[reflect(@0.0..=1000.0_f32)]
    pub angular_damping: f32,
    /// How much of the world's gravity pulls it (0: floats, -1: falls up).
    #[serde(default = "one")]
    #[reflect(@-100.0..=100.0_f32)]
    pub gravity_scale: f32,
    /// Continuous collision detection: a fast small body does not pass
    /// through thin walls between two steps (costs more).
    #[serde(default)]
    pub ccd: bool,
    /// World axes it may not move along.
    #[serde(default)]
    pub lock_translation: Axes,
    /// World axes it may not turn about.
    #[serde(default)]
    pub lock_rotation: Axes,
    /// Its velocity, metres a second, when made or edited (a ball rolled in
    /// at the start).
    #[serde(default)]
    pub linear_velocity: Vec3,
    /// Its spin, radians a second about each world axis, when made or edited.
    #[serde(default)]
    pub angular_velocity: Vec3,
}

fn one() -> f32 {
    1.0
}

impl Body {
    /// A body of `kind` with no damping, full gravity, nothing locked, at rest.
    pub const fn new(kind: BodyKind) -> Self {
        Self {
            kind,
            linear_damping: 0.0,
            angular_damping: 0.0,
            gravity_scale: 1.0,
            ccd: false,
            lock_translation: Axes::NONE,
            lock_rotation: Axes::NONE,
            linear_velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
        }
    }

    /// A dynamic body.
    pub const fn dynamic() -> Self {
        Self::new(BodyKind::Dynamic)
    }

    /// A kinematic body.
    pub const fn kinematic() -> Self {
        Self::new(BodyKind::Kinematic)
    }

    /// A fixed body.
    pub const fn fixed() -> Self {
        Self::new(BodyKind::Fixed)
    }

    /// The same body starting at `velocity`.
    pub fn with_velocity(self, velocity: Vec3) -> Self {
        Self {
            linear_velocity: velocity,
            ..self
        }
    }
}

impl Default for Body {
    /// A dynamic body.
    fn default() -> Self {
        Self::dynamic()
    }
}

impl Component for Body {
    const NAME: &'static str = "body";

    /// Damping not negative, every number finite.
    fn validate(&self) -> Result<(), InvalidValue> {
        InvalidValue::non_negative("linear_damping", self.linear_damping)?;
        InvalidValue::non_negative("angular_damping", self.angular_damping)?;
        InvalidValue::finite("gravity_scale", self.gravity_scale)?;
        InvalidValue::finite_vec3("linear_velocity", self.linear_velocity)?;
        InvalidValue::finite_vec3("angular_velocity", self.angular_velocity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_names_the_bad_field() {
        let bad = |body: Body| body.validate().unwrap_err().to_string();
        let damped = Body {
            linear_damping: -1.0,
            ..Body::dynamic()
        };
        assert!(bad(damped).contains("linear_damping"));
        let spun = Body {
            angular_damping: f32::NAN,
            ..Body::dynamic()
        };
        assert!(bad(spun).contains("angular_damping"));
        let heavy = Body {
            gravity_scale: f32::INFINITY,
            ..Body::dynamic()
        };
        assert!(bad(heavy).contains("gravity_scale"));
        let fast = Body::dynamic().with_velocity(Vec3::new(0.0, f32::NAN, 0.0));
        assert!(bad(fast).contains("linear_velocity"));
        assert!(Body::default().validate().is_ok());
        assert!(Body::fixed().validate().is_ok());
    }
}
