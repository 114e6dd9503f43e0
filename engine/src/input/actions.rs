//! Named actions and what they are bound to, read from an `input.ron`:
//!
//! ```ron
//! {
//!     "steer": Axis(keys: (A, D), gamepad: LeftStickX),
//!     "throttle": Axis(keys: (S, W), gamepad: LeftStickY),
//!     "horn": Button(keys: [Space], mouse: [Left], gamepad: [South]),
//! }
//! ```
//!
//! A key, button or axis name this build lacks is an error at its line; so
//! is an action the game does not declare.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{GamepadAxis, GamepadButton, Input, Key, MouseButton};
use crate::files::{FileKind, ReadLimits};

/// The file beside a scene that rebinds its game's actions.
pub const INPUT_FILE: &str = "input.ron";

/// What an action reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Binding {
    /// A value from -1 to 1: two keys (negative, positive) and a stick.
    Axis {
        /// The keys for -1 and +1.
        #[serde(default)]
        keys: Option<(Key, Key)>,
        /// A gamepad axis.
        #[serde(default)]
        gamepad: Option<GamepadAxis>,
    },
    /// Held or not: any of its keys or buttons.
    Button {
        /// Keys.
        #[serde(default)]
        keys: Vec<Key>,
        /// Mouse buttons.
        #[serde(default)]
        mouse: Vec<MouseButton>,
        /// Gamepad buttons.
        #[serde(default)]
        gamepad: Vec<GamepadButton>,
    },
}

/// Why an input file was refused.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The text is not a map of bindings (an unknown key name, say).
    #[error("{}:{line}:{column}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
        /// What the parser expected.
        message: String,
    },
    /// An action the game does not have.
    #[error("{}: unknown action `{action}`; the game's actions are {}", path.display(), declared.join(", "))]
    UnknownAction {
        /// The file.
        path: PathBuf,
        /// The action named.
        action: String,
        /// The actions the game declares.
        declared: Vec<String>,
    },
}

/// Named actions and their bindings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Actions {
    bindings: BTreeMap<String, Binding>,
}

impl Actions {
    /// Binds `name` (replacing its binding).
    #[must_use]
    pub fn bind(mut self, name: impl Into<String>, binding: Binding) -> Self {
        self.bindings.insert(name.into(), binding);
        self
    }

    /// The binding of `name`.
    pub fn get(&self, name: &str) -> Option<&Binding> {
        self.bindings.get(name)
    }

    /// Names of every bound action.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.bindings.keys().map(String::as_str)
    }

    /// Every action with its binding, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Binding)> {
        self.bindings.iter().map(|(name, b)| (name.as_str(), b))
    }

    /// `self` with the bindings of an `input.ron` text put over it; every
    /// action the text names must be one of `self`'s (the game's).
    ///
    /// # Errors
    /// [`InputError::Parse`] at the line of a bad name or shape,
    /// [`InputError::UnknownAction`].
    pub fn overridden(&self, text: &str, path: &Path) -> Result<Actions, InputError> {
        let options = ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
        let file: BTreeMap<String, Binding> =
            options.from_str(text).map_err(|e| InputError::Parse {
                path: path.to_path_buf(),
                line: e.span.start.line,
                column: e.span.start.col,
                message: e.code.to_string(),
            })?;
        let mut out = self.clone();
        for (action, binding) in file {
            if !self.bindings.contains_key(&action) {
                return Err(InputError::UnknownAction {
                    path: path.to_path_buf(),
                    action,
                    declared: self.bindings.keys().cloned().collect(),
                });
            }
            out.bindings.insert(action, binding);
        }
        Ok(out)
    }

    /// As [`Actions::overridden`], reading the file at `path` within `limits`.
    ///
    /// # Errors
    /// [`InputError::Io`] and those of [`Actions::overridden`].
    pub fn overridden_by_file(
        &self,
        path: &Path,
        limits: &ReadLimits,
    ) -> Result<Actions, InputError> {
        let text =
            crate::files::read_to_string(path, FileKind::Settings, limits).map_err(|source| {
                InputError::Io {
                    path: path.to_path_buf(),
                    source,
                }
            })?;
        self.overridden(&text, path)
    }

    pub(super) fn axis(&self, input: &Input, name: &str) -> f32 {
        let (keys, gamepad) = match self.bindings.get(name) {
            Some(Binding::Axis { keys, gamepad }) => (keys, gamepad),
            Some(Binding::Button { .. }) => self.misread(name, "a button", "an axis"),
            None => self.undeclared(name),
        };
        let from_keys = keys.map_or(0.0, |(minus, plus)| {
            f32::from(u8::from(input.held(plus))) - f32::from(u8::from(input.held(minus)))
        });
        let from_pad = gamepad.map_or(0.0, |axis| input.pad_axis(axis));
        if from_pad.abs() > from_keys.abs() {
            from_pad
        } else {
            from_keys
        }
    }

    pub(super) fn held(&self, input: &Input, name: &str) -> bool {
        self.any_button(
            name,
            |k| input.held(k),
            |b| input.mouse_held(b),
            |b| input.pad_held(b),
        )
    }

    pub(super) fn pressed(&self, input: &Input, name: &str) -> bool {
        self.any_button(
            name,
            |k| input.pressed(k),
            |b| input.mouse_pressed(b),
            |b| input.pad_pressed(b),
        )
    }

    /// Whether any key or button the button action `name` binds passes its test.
    fn any_button(
        &self,
        name: &str,
        key: impl Fn(Key) -> bool,
        mouse_button: impl Fn(MouseButton) -> bool,
        pad_button: impl Fn(GamepadButton) -> bool,
    ) -> bool {
        match self.bindings.get(name) {
            Some(Binding::Button {
                keys,
                mouse,
                gamepad,
            }) => {
                keys.iter().any(|&k| key(k))
                    || mouse.iter().any(|&b| mouse_button(b))
                    || gamepad.iter().any(|&b| pad_button(b))
            }
            Some(Binding::Axis { .. }) => self.misread(name, "an axis", "a button"),
            None => self.undeclared(name),
        }
    }

    /// A read of an action no plugin declares: a typo in a system, which
    /// would otherwise read as nothing pressed, for ever, in silence. The
    /// system's panic names it, the system and the step.
    #[track_caller]
    pub(super) fn undeclared(&self, name: &str) -> ! {
        let declared: Vec<&str> = self.bindings.keys().map(String::as_str).collect();
        panic!(
            "input action `{name}` is declared by no plugin (declared: {})",
            if declared.is_empty() {
                "none".to_owned()
            } else {
                declared.join(", ")
            }
        )
    }

    /// A button action read as an axis, or the other way round.
    #[track_caller]
    pub(super) fn misread(&self, name: &str, is: &str, read_as: &str) -> ! {
        panic!("input action `{name}` is {is}, read as {read_as}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{InputCollector, InputFrame};

    fn game() -> Actions {
        Actions::default()
            .bind(
                "steer",
                Binding::Axis {
                    keys: Some((Key::Left, Key::Right)),
                    gamepad: None,
                },
            )
            .bind(
                "horn",
                Binding::Button {
                    keys: vec![Key::H],
                    mouse: vec![],
                    gamepad: vec![],
                },
            )
    }

    #[test]
    fn a_file_rebinds_the_games_actions() {
        let text = r#"{
            "steer": Axis(keys: (A, D), gamepad: LeftStickX),
            "horn": Button(keys: [Space], gamepad: [South]),
        }"#;
        let actions = game().overridden(text, Path::new("input.ron")).unwrap();
        let mut input = Input::with_actions(std::sync::Arc::new(actions));
        let mut collector = InputCollector::default();
        collector.key(Key::D, true);
        collector.key(Key::Space, true);
        input.advance(&collector.take_frame());
        assert_eq!(input.axis("steer"), 1.0);
        assert!(input.action_pressed("horn") && input.action_held("horn"));
        collector.pad_axis(GamepadAxis::LeftStickX, -0.5);
        collector.key(Key::D, false);
        input.advance(&collector.take_frame());
        assert_eq!(input.axis("steer"), -0.5, "the stick when the keys rest");
        let _ = InputFrame::default();
        let undeclared = std::panic::catch_unwind(|| input.axis("stear"))
            .expect_err("an action no plugin declares is a mistake, said out loud");
        let message = undeclared.downcast_ref::<String>().unwrap();
        assert!(
            message.contains("`stear`") && message.contains("horn, steer"),
            "{message}"
        );
        let misread = std::panic::catch_unwind(|| input.action_held("steer")).unwrap_err();
        let message = misread.downcast_ref::<String>().unwrap();
        assert!(
            message.contains("is an axis, read as a button"),
            "{message}"
        );
    }

    #[test]
    fn unknown_keys_and_actions_are_named_where_they_are() {
        let text = "{\n  \"steer\": Axis(keys: (A, Dee)),\n}";
        let error = game().overridden(text, Path::new("input.ron")).unwrap_err();
        let message = error.to_string();
        assert!(message.starts_with("input.ron:2:"), "{message}");
        assert!(message.contains("Dee"), "{message}");
        let text = "{ \"jump\": Button(keys: [Space]) }";
        let error = game().overridden(text, Path::new("input.ron")).unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("`jump`") && message.contains("horn, steer"),
            "{message}"
        );
    }
}
