//! Player input, sampled once per fixed step (game loop pattern: input is
//! part of the step's state, so a recorded run replays bit for bit).
//!
//! The window loop feeds events to an [`InputCollector`]; before each fixed
//! step the world takes the collector's [`InputFrame`]: keys, mouse buttons
//! and gamepad buttons held, and those pressed and released again since the
//! last step (so a tap shorter than a step is not lost), the cursor, its
//! motion and the wheel. A step reads it through the [`crate::Input`] resource,
//! which keeps this step's frame and the previous one: pressed means down now
//! and up before (or tapped), released the reverse. Named actions
//! ([`Actions`], bound in `input.ron`) read through the same resource.
//!
//! A game declares its actions (a plugin's [`crate::Plugin::actions`]; an
//! `input.ron` beside its scene may rebind them) and its systems read them:
//!
//! ```
//! use std::sync::Arc;
//! use keel_engine::input::{Actions, Binding, InputFrame, Key, KeySet};
//! use keel_engine::{Input, Scene, Transform, World};
//!
//! let mut world = World::new(Scene::new());
//! let boat = world.scene_mut().spawn(None, "boat", Transform::IDENTITY)?;
//! world.set_actions(Arc::new(Actions::default().bind(
//!     "steer",
//!     Binding::Axis { keys: Some((Key::A, Key::D)), gamepad: None },
//! )));
//! world.systems_mut().add("steer", move |scene, _, step| {
//!     let steer = scene.resource::<Input>().map_or(0.0, |i| i.axis("steer"));
//!     let mut local = scene.local(boat).unwrap();
//!     local.translation.x += steer * 2.0 * step.dt;
//!     scene.set_local(boat, local).unwrap();
//! })?;
//! // What a window's collector would gather: D held for one second.
//! let mut keys = KeySet::default();
//! keys.insert(Key::D);
//! for _ in 0..60 {
//!     world.set_input(InputFrame { keys, ..InputFrame::default() });
//!     world.step();
//! }
//! let x = world.scene().local(boat).unwrap().translation.x;
//! assert!((x - 2.0).abs() < 1e-3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod actions;
#[cfg(feature = "gamepads")]
mod gamepads;
mod keys;
pub(crate) mod resource;

pub use actions::{Actions, Binding, INPUT_FILE, InputError};
#[cfg(feature = "gamepads")]
pub use gamepads::{GamepadError, Gamepads};
pub use keys::{Key, KeySet};
pub(crate) use resource::Input;

use glam::Vec2;
use serde::{Deserialize, Serialize};

macro_rules! named_bits {
    ($(#[$doc:meta])* $name:ident { $($variant:ident),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            $(
                #[doc = concat!("`", stringify!($variant), "`.")]
                $variant,
            )*
        }

        impl $name {
            /// Every one, in bit order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            fn bit(self) -> u16 {
                1 << (self as u16)
            }
        }
    };
}

named_bits!(
    /// A mouse button.
    MouseButton { Left, Right, Middle, Back, Forward }
);

named_bits!(
    /// A gamepad button, by position (`South` is A on Xbox, Cross on PlayStation).
    GamepadButton {
        South, East, North, West, LeftBumper, RightBumper, LeftTrigger, RightTrigger,
        Select, Start, LeftStick, RightStick, DPadUp, DPadDown, DPadLeft, DPadRight,
    }
);

/// A gamepad axis, from -1 to 1 (triggers from 0 to 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GamepadAxis {
    /// The left stick, right positive.
    LeftStickX,
    /// The left stick, up positive.
    LeftStickY,
    /// The right stick, right positive.
    RightStickX,
    /// The right stick, up positive.
    RightStickY,
    /// The left trigger's travel.
    LeftZ,
    /// The right trigger's travel.
    RightZ,
}

impl GamepadAxis {
    /// Every axis, in the order [`InputFrame::pad_axes`] keeps them.
    pub const ALL: [GamepadAxis; 6] = [
        GamepadAxis::LeftStickX,
        GamepadAxis::LeftStickY,
        GamepadAxis::RightStickX,
        GamepadAxis::RightStickY,
        GamepadAxis::LeftZ,
        GamepadAxis::RightZ,
    ];
}

/// Stick values below this are read as zero (a resting stick drifts).
pub const DEAD_ZONE: f32 = 0.15;

/// What one fixed step reads of the player's devices; recordings store one
/// per step (only the steps where it changed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct InputFrame {
    /// Keys held.
    pub keys: KeySet,
    /// Keys that went down and up again since the last step.
    pub tapped_keys: KeySet,
    /// Mouse buttons held, a bit per [`MouseButton`].
    pub mouse: u16,
    /// Mouse buttons that went down and up again since the last step.
    pub tapped_mouse: u16,
    /// The cursor in the window, pixels from the top left.
    pub cursor: Vec2,
    /// How far the cursor moved since the last step.
    pub cursor_delta: Vec2,
    /// Wheel lines turned since the last step (away from the user positive).
    pub wheel: f32,
    /// Gamepad axes, by [`GamepadAxis`].
    pub pad_axes: [f32; 6],
    /// Gamepad buttons held, a bit per [`GamepadButton`].
    pub pad: u16,
    /// Gamepad buttons that went down and up again since the last step.
    pub tapped_pad: u16,
}

impl InputFrame {
    /// The same frame for a later step of the same display frame: what is
    /// held stays, what happened once (taps, motion, wheel) was read.
    #[must_use]
    pub fn held_only(&self) -> Self {
        Self {
            tapped_keys: KeySet::default(),
            tapped_mouse: 0,
            cursor_delta: Vec2::ZERO,
            wheel: 0.0,
            tapped_pad: 0,
            ..*self
        }
    }
}

/// Gathers a window's input events between fixed steps.
#[derive(Clone, Debug, Default)]
pub struct InputCollector {
    frame: InputFrame,
    /// Keys, mouse and pad buttons that went down since the last frame taken
    /// (a release of one of these is a tap).
    down_keys: KeySet,
    down_mouse: u16,
    down_pad: u16,
}

impl InputCollector {
    /// Notes a key going down or up.
    pub fn key(&mut self, key: Key, down: bool) {
        if down {
            self.frame.keys.insert(key);
            self.down_keys.insert(key);
        } else {
            self.frame.keys.remove(key);
            if self.down_keys.contains(key) {
                self.frame.tapped_keys.insert(key);
            }
        }
    }

    /// Notes a mouse button going down or up.
    pub fn mouse_button(&mut self, button: MouseButton, down: bool) {
        let frame = &mut self.frame;
        let bits = (
            &mut frame.mouse,
            &mut self.down_mouse,
            &mut frame.tapped_mouse,
        );
        press(bits, button.bit(), down);
    }

    /// Notes a gamepad button going down or up.
    pub fn pad_button(&mut self, button: GamepadButton, down: bool) {
        let frame = &mut self.frame;
        let bits = (&mut frame.pad, &mut self.down_pad, &mut frame.tapped_pad);
        press(bits, button.bit(), down);
    }

    /// Notes a gamepad axis's new value.
    pub fn pad_axis(&mut self, axis: GamepadAxis, value: f32) {
        self.frame.pad_axes[axis as usize] = if value.is_finite() {
            value.clamp(-1.0, 1.0)
        } else {
            0.0
        };
    }

    /// Notes the cursor at `at` (window pixels).
    pub fn cursor(&mut self, at: Vec2) {
        self.frame.cursor_delta += at - self.frame.cursor;
        self.frame.cursor = at;
    }

    /// Notes wheel lines turned.
    pub fn wheel(&mut self, lines: f32) {
        if lines.is_finite() {
            self.frame.wheel += lines;
        }
    }

    /// Everything held goes up (the window lost focus: no key stays stuck).
    pub fn release_all(&mut self) {
        for &key in Key::ALL {
            if self.frame.keys.contains(key) {
                self.key(key, false);
            }
        }
        self.frame.mouse = 0;
        self.frame.pad = 0;
    }

    /// Feeds a winit window event; whether it was input.
    pub fn window_event(&mut self, event: &winit::event::WindowEvent) -> bool {
        use winit::event::{ElementState, MouseScrollDelta, WindowEvent};
        use winit::keyboard::PhysicalKey;
        match event {
            WindowEvent::KeyboardInput { event, .. } => {
                if event.repeat {
                    return true;
                }
                if let PhysicalKey::Code(code) = event.physical_key
                    && let Some(key) = Key::from_winit(code)
                {
                    self.key(key, event.state == ElementState::Pressed);
                }
                true
            }
            WindowEvent::MouseInput { state, button, .. } => {
                let button = match button {
                    winit::event::MouseButton::Left => MouseButton::Left,
                    winit::event::MouseButton::Right => MouseButton::Right,
                    winit::event::MouseButton::Middle => MouseButton::Middle,
                    winit::event::MouseButton::Back => MouseButton::Back,
                    winit::event::MouseButton::Forward => MouseButton::Forward,
                    winit::event::MouseButton::Other(_) => return true,
                };
                self.mouse_button(button, *state == ElementState::Pressed);
                true
            }
            WindowEvent::CursorMoved { position, .. } => {
                self.cursor(Vec2::new(position.x as f32, position.y as f32));
                true
            }
            WindowEvent::MouseWheel { delta, .. } => {
                self.wheel(match delta {
                    MouseScrollDelta::LineDelta(_, y) => *y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                });
                true
            }
            WindowEvent::Focused(false) => {
                self.release_all();
                false
            }
            _ => false,
        }
    }

    /// The frame the next fixed step reads; what happened once is cleared
    /// for the steps after it.
    pub fn take_frame(&mut self) -> InputFrame {
        let frame = self.frame;
        self.frame = frame.held_only();
        self.down_keys = KeySet::default();
        self.down_mouse = 0;
        self.down_pad = 0;
        frame
    }
}

/// A button `bit` going down or up: held, went down since the last frame,
/// tapped (down and up again since it).
fn press((held, went_down, tapped): (&mut u16, &mut u16, &mut u16), bit: u16, down: bool) {
    if down {
        *held |= bit;
        *went_down |= bit;
    } else {
        *held &= !bit;
        if *went_down & bit != 0 {
            *tapped |= bit;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(input: &mut Input, collector: &mut InputCollector) {
        input.advance(&collector.take_frame());
    }

    #[test]
    fn pressed_held_released_and_a_tap_between_steps() {
        let (mut input, mut collector) = (Input::default(), InputCollector::default());
        collector.key(Key::W, true);
        step(&mut input, &mut collector);
        assert!(input.pressed(Key::W) && input.held(Key::W));
        step(&mut input, &mut collector);
        assert!(
            !input.pressed(Key::W) && input.held(Key::W),
            "held, not pressed again"
        );
        collector.key(Key::W, false);
        step(&mut input, &mut collector);
        assert!(input.released(Key::W) && !input.held(Key::W));
        collector.key(Key::Space, true);
        collector.key(Key::Space, false);
        step(&mut input, &mut collector);
        assert!(
            input.pressed(Key::Space) && input.released(Key::Space),
            "a tap inside one step is seen"
        );
        step(&mut input, &mut collector);
        assert!(!input.pressed(Key::Space), "once");
    }

    #[test]
    fn motion_and_wheel_are_read_once() {
        let (mut input, mut collector) = (Input::default(), InputCollector::default());
        collector.cursor(Vec2::new(10.0, 5.0));
        collector.cursor(Vec2::new(14.0, 2.0));
        collector.wheel(1.0);
        step(&mut input, &mut collector);
        assert_eq!(input.cursor_delta(), Vec2::new(14.0, 2.0));
        assert_eq!(input.frame().wheel, 1.0);
        step(&mut input, &mut collector);
        assert_eq!(input.cursor_delta(), Vec2::ZERO);
        assert_eq!(input.cursor(), Vec2::new(14.0, 2.0), "the cursor stays");
    }

    #[test]
    fn sticks_rest_in_the_dead_zone() {
        let (mut input, mut collector) = (Input::default(), InputCollector::default());
        collector.pad_axis(GamepadAxis::LeftStickX, 0.1);
        collector.pad_axis(GamepadAxis::LeftStickY, -0.8);
        collector.pad_button(GamepadButton::South, true);
        step(&mut input, &mut collector);
        assert_eq!(input.pad_axis(GamepadAxis::LeftStickX), 0.0);
        assert_eq!(input.pad_axis(GamepadAxis::LeftStickY), -0.8);
        assert!(input.pad_pressed(GamepadButton::South));
    }
}
