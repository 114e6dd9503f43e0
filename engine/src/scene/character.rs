//! Characters: a node walked by game code that stops at walls, slides
//! along them, climbs slopes and steps up to a height and keeps to the
//! ground going down (a kinematic character controller, what Unity's
//! `CharacterController` and Godot's `CharacterBody3D` are).
//!
//! A registered component (`character:` in scene files, the inspector,
//! undo, copy and paste, prefab overrides) on a node with a collider, best
//! with a kinematic body so that it pushes what it walks into. A system asks
//! where a wished move really takes it (`StepContext::bodies`,
//! [`crate::physics::Bodies::move_character`]) and moves the node by that;
//! the sweep itself is `physics/character.rs`'s (rapier's controller). Up
//! is the world's +Y.

use bevy_reflect::Reflect;
use serde::{Deserialize, Serialize};

use super::registered::Component;
use crate::validation::InvalidValue;

/// How a character walks (see the module).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Reflect)]
#[serde(deny_unknown_fields)]
pub struct Character {
    /// The steepest slope it walks up, degrees.
    #[serde(default = "forty_five")]
    #[reflect(@0.0..=90.0_f32)]
    pub max_slope: f32,
    /// Slopes steeper than this slide it down, degrees.
    #[serde(default = "forty_five")]
    #[reflect(@0.0..=90.0_f32)]
    pub slide_slope: f32,
    /// The tallest step it climbs without a jump, metres (0: none).
    #[serde(default = "step_height")]
    #[reflect(@0.0..=10.0_f32)]
    pub step_height: f32,
    /// The room it needs on top of a step to take it, metres.
    #[serde(default = "step_width")]
    #[reflect(@0.0..=10.0_f32)]
    pub step_width: f32,
    /// The gap it keeps from what it touches, metres.
    #[serde(default = "skin")]
    #[reflect(@0.0..=1.0_f32)]
    pub skin: f32,
    /// How far down it keeps to the ground when walking off a step or
    /// down a slope, metres (0: it walks off into the air).
    #[serde(default = "snap")]
    #[reflect(@0.0..=10.0_f32)]
    pub snap_to_ground: f32,
    /// Whether a move into a wall slides along it (or stops).
    #[serde(default = "yes")]
    pub slide: bool,
}

fn forty_five() -> f32 {
    45.0
}
fn step_height() -> f32 {
    0.3
}
fn step_width() -> f32 {
    0.2
}
fn skin() -> f32 {
    0.02
}
fn snap() -> f32 {
    0.2
}
fn yes() -> bool {
    true
}

impl Default for Character {
    /// 45° slopes, 0.3 m steps, 2 cm of skin, kept to the ground within
    /// 0.2 m, sliding along walls.
    fn default() -> Self {
        Self {
            max_slope: forty_five(),
            slide_slope: forty_five(),
            step_height: step_height(),
            step_width: step_width(),
            skin: skin(),
            snap_to_ground: snap(),
            slide: yes(),
        }
    }
}

impl Component for Character {
    const NAME: &'static str = "character";

    /// Angles within 0..=90, lengths finite and not negative.
    fn validate(&self) -> Result<(), InvalidValue> {
        InvalidValue::range("max_slope", self.max_slope, 0.0..=90.0)?;
        InvalidValue::range("slide_slope", self.slide_slope, 0.0..=90.0)?;
        InvalidValue::non_negative("step_height", self.step_height)?;
        InvalidValue::non_negative("step_width", self.step_width)?;
        InvalidValue::non_negative("skin", self.skin)?;
        InvalidValue::non_negative("snap_to_ground", self.snap_to_ground)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_names_the_bad_field() {
        let bad = |c: Character| c.validate().unwrap_err().to_string();
        let steep = Character {
            max_slope: 120.0,
            ..Character::default()
        };
        assert!(bad(steep).contains("max_slope"));
        let thin = Character {
            skin: -0.1,
            ..Character::default()
        };
        assert!(bad(thin).contains("skin"));
        let tall = Character {
            step_height: f32::NAN,
            ..Character::default()
        };
        assert!(bad(tall).contains("step_height"));
        assert!(Character::default().validate().is_ok());
    }
}
