//! Gamepads, through gilrs (the `gamepads` feature; on Linux it links
//! libudev: `libudev-dev` to build, which `scripts/install-deps.sh` installs).
//!
//! A window loop polls [`Gamepads`] once per frame into the same
//! [`InputCollector`] the keyboard feeds, so pads reach fixed steps, the
//! recorder and replays exactly as keys do. Every connected pad feeds the
//! one set of buttons and axes (a single-player game's view).

use super::{GamepadAxis, GamepadButton, InputCollector};

/// Why the system's gamepads could not be opened.
#[derive(Debug, thiserror::Error)]
#[error("gamepads: {0}")]
pub struct GamepadError(String);

/// The system's gamepads.
pub struct Gamepads {
    gilrs: gilrs::Gilrs,
}

impl std::fmt::Debug for Gamepads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gamepads")
            .field("connected", &self.gilrs.gamepads().count())
            .finish()
    }
}

impl Gamepads {
    /// Opens the system's gamepad service.
    ///
    /// # Errors
    /// [`GamepadError`] when the platform refuses gamepad access (a
    /// container without udev, say): the game runs on without pads.
    pub fn new() -> Result<Self, GamepadError> {
        match gilrs::Gilrs::new() {
            Ok(gilrs) => Ok(Self { gilrs }),
            // A platform gilrs has no backend for: a service with no pads.
            Err(gilrs::Error::NotImplemented(gilrs)) => Ok(Self { gilrs }),
            Err(error) => Err(GamepadError(error.to_string())),
        }
    }

    /// Names of the pads connected now.
    pub fn connected(&self) -> Vec<String> {
        self.gilrs
            .gamepads()
            .map(|(_, pad)| pad.name().to_owned())
            .collect()
    }

    /// Feeds every pad event since the last poll to `collector`.
    pub fn poll(&mut self, collector: &mut InputCollector) {
        while let Some(event) = self.gilrs.next_event() {
            apply(&event.event, collector);
        }
    }
}

/// Feeds one gilrs event to `collector`.
fn apply(event: &gilrs::EventType, collector: &mut InputCollector) {
    use gilrs::EventType as E;
    match *event {
        E::ButtonPressed(b, _) => press(b, true, collector),
        E::ButtonReleased(b, _) => press(b, false, collector),
        E::ButtonChanged(b, value, _) => {
            if let Some(axis) = trigger_axis(b) {
                collector.pad_axis(axis, value);
            }
        }
        E::AxisChanged(a, value, _) => {
            if let Some(axis) = axis(a) {
                collector.pad_axis(axis, value);
            }
        }
        E::Disconnected => {
            for &b in GamepadButton::ALL {
                collector.pad_button(b, false);
            }
            for axis in GamepadAxis::ALL {
                collector.pad_axis(axis, 0.0);
            }
        }
        _ => {}
    }
}

fn press(b: gilrs::Button, down: bool, collector: &mut InputCollector) {
    if let Some(b) = button(b) {
        collector.pad_button(b, down);
    }
}

/// The engine's button for a gilrs button (gilrs names the bumpers
/// `LeftTrigger` and the analog triggers `LeftTrigger2`).
pub(crate) fn button(b: gilrs::Button) -> Option<GamepadButton> {
    use gilrs::Button as B;
    Some(match b {
        B::South => GamepadButton::South,
        B::East => GamepadButton::East,
        B::North => GamepadButton::North,
        B::West => GamepadButton::West,
        B::LeftTrigger => GamepadButton::LeftBumper,
        B::RightTrigger => GamepadButton::RightBumper,
        B::LeftTrigger2 => GamepadButton::LeftTrigger,
        B::RightTrigger2 => GamepadButton::RightTrigger,
        B::Select => GamepadButton::Select,
        B::Start => GamepadButton::Start,
        B::LeftThumb => GamepadButton::LeftStick,
        B::RightThumb => GamepadButton::RightStick,
        B::DPadUp => GamepadButton::DPadUp,
        B::DPadDown => GamepadButton::DPadDown,
        B::DPadLeft => GamepadButton::DPadLeft,
        B::DPadRight => GamepadButton::DPadRight,
        B::C | B::Z | B::Mode | B::Unknown => return None,
    })
}

/// The axis an analog trigger's travel drives.
fn trigger_axis(b: gilrs::Button) -> Option<GamepadAxis> {
    match b {
        gilrs::Button::LeftTrigger2 => Some(GamepadAxis::LeftZ),
        gilrs::Button::RightTrigger2 => Some(GamepadAxis::RightZ),
        _ => None,
    }
}

/// The engine's axis for a gilrs axis (both have sticks up positive).
pub(crate) fn axis(a: gilrs::Axis) -> Option<GamepadAxis> {
    use gilrs::Axis as A;
    Some(match a {
        A::LeftStickX => GamepadAxis::LeftStickX,
        A::LeftStickY => GamepadAxis::LeftStickY,
        A::RightStickX => GamepadAxis::RightStickX,
        A::RightStickY => GamepadAxis::RightStickY,
        A::LeftZ => GamepadAxis::LeftZ,
        A::RightZ => GamepadAxis::RightZ,
        A::DPadX | A::DPadY | A::Unknown => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Input;

    #[test]
    fn every_engine_button_and_axis_comes_from_one_gilrs_one() {
        use gilrs::{Axis as A, Button as B};
        let buttons = [
            B::South,
            B::East,
            B::North,
            B::West,
            B::C,
            B::Z,
            B::LeftTrigger,
            B::LeftTrigger2,
            B::RightTrigger,
            B::RightTrigger2,
            B::Select,
            B::Start,
            B::Mode,
            B::LeftThumb,
            B::RightThumb,
            B::DPadUp,
            B::DPadDown,
            B::DPadLeft,
            B::DPadRight,
            B::Unknown,
        ];
        let mapped: Vec<_> = buttons.iter().filter_map(|&b| button(b)).collect();
        assert_eq!(mapped.len(), GamepadButton::ALL.len());
        for b in GamepadButton::ALL {
            assert_eq!(mapped.iter().filter(|&&m| m == *b).count(), 1, "{b:?}");
        }
        let axes = [
            A::LeftStickX,
            A::LeftStickY,
            A::LeftZ,
            A::RightStickX,
            A::RightStickY,
            A::RightZ,
            A::DPadX,
            A::DPadY,
            A::Unknown,
        ];
        let mapped: Vec<_> = axes.iter().filter_map(|&a| axis(a)).collect();
        assert_eq!(mapped.len(), GamepadAxis::ALL.len());
    }

    #[test]
    fn pad_presses_and_sticks_reach_a_step() {
        let mut collector = InputCollector::default();
        press(gilrs::Button::South, true, &mut collector);
        press(gilrs::Button::South, false, &mut collector);
        press(gilrs::Button::DPadLeft, true, &mut collector);
        collector.pad_axis(axis(gilrs::Axis::LeftStickY).unwrap(), 0.8);
        let mut input = Input::default();
        input.advance(&collector.take_frame());
        assert!(
            input.pad_pressed(GamepadButton::South),
            "a tap inside one step"
        );
        assert!(!input.pad_held(GamepadButton::South));
        assert!(input.pad_held(GamepadButton::DPadLeft));
        assert_eq!(input.pad_axis(GamepadAxis::LeftStickY), 0.8);
        apply(&gilrs::EventType::Disconnected, &mut collector);
        input.advance(&collector.take_frame());
        assert!(
            !input.pad_held(GamepadButton::DPadLeft),
            "a pad gone lets go"
        );
        assert_eq!(input.pad_axis(GamepadAxis::LeftStickY), 0.0);
    }
}
