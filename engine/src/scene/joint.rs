//! Joints: a body held to another (a door on its hinge, a piston in its
//! sleeve, a chain's links) or to the world, as a component naming the
//! other body with a [`NodeRef`].
//!
//! A registered component like every other (`joint:` in scene files, the
//! inspector, undo, copy and paste, prefab overrides; the reference follows
//! its target through files and copies). The joint holds the two bodies as
//! they stood when it was made: the other body's anchor is wherever this
//! node's anchor was then (what Unity's automatic connected anchor does).
//! The simulation is `physics/joints.rs`'s.

use bevy_reflect::Reflect;
use glam::{Vec2, Vec3};
use serde::{Deserialize, Serialize};

use super::node_ref::NodeRef;
use super::registered::Component;
use crate::validation::InvalidValue;

/// What a joint leaves free between its two bodies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Reflect)]
pub enum JointKind {
    /// Nothing: the two move as one (a weld).
    #[default]
    Fixed,
    /// Turning about the axis (a hinge, a wheel).
    Revolute,
    /// Sliding along the axis (a piston, a drawer).
    Prismatic,
    /// Turning every way about the anchor (a ball and socket, a rope's links).
    Spherical,
}

/// A joint from this node's body to another's (see the module).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Reflect)]
#[serde(deny_unknown_fields)]
pub struct Joint {
    /// What it leaves free.
    #[serde(default)]
    pub kind: JointKind,
    /// The body it holds this one to; none holds it to the world where it
    /// stood when the joint was made.
    #[serde(default)]
    pub other: NodeRef,
    /// Where it holds, in this node's space.
    #[serde(default)]
    pub anchor: Vec3,
    /// The hinge's or the slide's axis, in this node's space.
    #[serde(default = "x_axis")]
    pub axis: Vec3,
    /// Whether `limits` bound the turn (radians) or the slide (metres).
    #[serde(default)]
    pub limited: bool,
    /// The least and the most turn or slide, from where it was made.
    #[serde(default)]
    pub limits: Vec2,
    /// Whether the two bodies still collide with each other.
    #[serde(default)]
    pub contacts: bool,
}

fn x_axis() -> Vec3 {
    Vec3::X
}

impl Joint {
    /// A joint of `kind` to `other` at this node's origin, about or along X.
    pub fn new(kind: JointKind, other: NodeRef) -> Self {
        Self {
            kind,
            other,
            anchor: Vec3::ZERO,
            axis: Vec3::X,
            limited: false,
            limits: Vec2::ZERO,
            contacts: false,
        }
    }

    /// The same joint holding at `anchor` (this node's space).
    pub fn at(self, anchor: Vec3) -> Self {
        Self { anchor, ..self }
    }

    /// The same joint about or along `axis` (this node's space).
    pub fn about(self, axis: Vec3) -> Self {
        Self { axis, ..self }
    }

    /// The same joint bounded to `min..=max` (radians or metres).
    pub fn limited(self, min: f32, max: f32) -> Self {
        Self {
            limited: true,
            limits: Vec2::new(min, max),
            ..self
        }
    }
}

impl Default for Joint {
    /// A weld to the world.
    fn default() -> Self {
        Self::new(JointKind::Fixed, NodeRef::NONE)
    }
}

impl Component for Joint {
    const NAME: &'static str = "joint";

    /// Numbers finite, an axis that is not zero, limits in order.
    fn validate(&self) -> Result<(), InvalidValue> {
        InvalidValue::finite_vec3("anchor", self.anchor)?;
        InvalidValue::finite_vec3("axis", self.axis)?;
        if self.axis.length_squared() < 1e-12 {
            return Err(InvalidValue::new(
                "axis",
                "a direction (not zero)",
                format!("{:?}", self.axis),
            ));
        }
        InvalidValue::finite("limits.x", self.limits.x)?;
        InvalidValue::finite("limits.y", self.limits.y)?;
        if self.limits.x > self.limits.y {
            return Err(InvalidValue::new(
                "limits",
                "the least first (min <= max)",
                format!("{:?}", self.limits),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_names_the_bad_field() {
        let bad = |joint: Joint| joint.validate().unwrap_err().to_string();
        assert!(bad(Joint::default().about(Vec3::ZERO)).contains("axis"));
        assert!(bad(Joint::default().at(Vec3::splat(f32::NAN))).contains("anchor"));
        assert!(bad(Joint::default().limited(1.0, -1.0)).contains("limits"));
        assert!(bad(Joint::default().limited(f32::INFINITY, 1.0)).contains("limits.x"));
        assert!(Joint::default().limited(-1.0, 1.0).validate().is_ok());
    }
}
