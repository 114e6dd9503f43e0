//! [`Input`]: what a fixed step reads of the player's devices, a resource
//! every world has (`keel_engine::Input` at the crate's root).

use std::sync::Arc;

use glam::Vec2;

use super::{Actions, DEAD_ZONE, GamepadAxis, GamepadButton, InputFrame, Key, MouseButton};

/// The input a fixed step reads (a resource every world has).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Input {
    now: InputFrame,
    before: InputFrame,
    actions: Arc<Actions>,
}

impl Input {
    /// Input read through `actions`' bindings.
    pub fn with_actions(actions: Arc<Actions>) -> Self {
        Self {
            actions,
            ..Self::default()
        }
    }

    /// Moves to the next step's frame.
    pub(crate) fn advance(&mut self, frame: &InputFrame) {
        self.before = self.now;
        self.now = *frame;
    }

    /// This step's frame.
    pub fn frame(&self) -> &InputFrame {
        &self.now
    }

    /// The bindings named actions read through.
    pub fn actions(&self) -> &Arc<Actions> {
        &self.actions
    }

    /// Uses `actions` from the next read on.
    pub fn set_actions(&mut self, actions: Arc<Actions>) {
        self.actions = actions;
    }

    /// Whether `key` is down this step.
    pub fn held(&self, key: Key) -> bool {
        self.now.keys.contains(key)
    }

    /// Whether `key` went down since the last step.
    pub fn pressed(&self, key: Key) -> bool {
        self.now.tapped_keys.contains(key) || (self.held(key) && !self.before.keys.contains(key))
    }

    /// Whether `key` went up since the last step.
    pub fn released(&self, key: Key) -> bool {
        self.now.tapped_keys.contains(key) || (!self.held(key) && self.before.keys.contains(key))
    }

    /// Whether mouse `button` is down this step.
    pub fn mouse_held(&self, button: MouseButton) -> bool {
        self.now.mouse & button.bit() != 0
    }

    /// Whether mouse `button` went down since the last step.
    pub fn mouse_pressed(&self, button: MouseButton) -> bool {
        let b = button.bit();
        self.now.tapped_mouse & b != 0 || (self.now.mouse & b != 0 && self.before.mouse & b == 0)
    }

    /// Whether gamepad `button` is down this step.
    pub fn pad_held(&self, button: GamepadButton) -> bool {
        self.now.pad & button.bit() != 0
    }

    /// Whether gamepad `button` went down since the last step.
    pub fn pad_pressed(&self, button: GamepadButton) -> bool {
        let b = button.bit();
        self.now.tapped_pad & b != 0 || (self.now.pad & b != 0 && self.before.pad & b == 0)
    }

    /// A gamepad axis, with the dead zone applied.
    pub fn pad_axis(&self, axis: GamepadAxis) -> f32 {
        let value = self.now.pad_axes[axis as usize];
        if value.abs() < DEAD_ZONE { 0.0 } else { value }
    }

    /// The cursor in the window.
    pub fn cursor(&self) -> Vec2 {
        self.now.cursor
    }

    /// How far the cursor moved since the last step.
    pub fn cursor_delta(&self) -> Vec2 {
        self.now.cursor_delta
    }

    /// The value of the axis action `name`, from -1 to 1 (0 when unbound).
    ///
    /// # Panics
    /// When no plugin declares the action `name`, or declares it as the
    /// other kind (a button read as an axis): a misspelt action would
    /// otherwise read as idle for ever. In a system, the panic stops the
    /// world and names the system and the step.
    pub fn axis(&self, name: &str) -> f32 {
        self.actions.axis(self, name)
    }

    /// Whether the button action `name` is held.
    ///
    /// # Panics
    /// As [`Input::axis`].
    pub fn action_held(&self, name: &str) -> bool {
        self.actions.held(self, name)
    }

    /// Whether the button action `name` went down since the last step.
    ///
    /// # Panics
    /// As [`Input::axis`].
    pub fn action_pressed(&self, name: &str) -> bool {
        self.actions.pressed(self, name)
    }
}
