//! The game's input in Play: while the 3D view has the game's focus, keys,
//! mouse buttons, the cursor and the wheel go to the game's systems (through
//! the world's [`InputCollector`], as in the viewer) and not to the editor's
//! shortcuts; Escape gives them back to the editor.
//!
//! Play gives the game focus, as Unity's and Godot's Play do; a click on the
//! 3D view during Play gives it back after Escape.

use egui::{Event, Key as EguiKey, Rect};
use glam::Vec2;
use keel_engine::input::{InputCollector, Key, MouseButton};

/// Whether the game has the input, and what it gathered since the last frame.
#[derive(Debug, Default)]
pub struct GameInput {
    focused: bool,
    collector: InputCollector,
    /// Modifiers held, to turn egui's modifier changes into key presses.
    modifiers: egui::Modifiers,
}

impl GameInput {
    /// Whether the game reads the keyboard and mouse now.
    pub fn focused(&self) -> bool {
        self.focused
    }

    /// Gives the game the input.
    pub fn focus(&mut self) {
        self.focused = true;
    }

    /// Gives the input back to the editor; what the game held goes up.
    pub fn release(&mut self) {
        self.focused = false;
        self.collector.release_all();
        self.modifiers = egui::Modifiers::NONE;
    }

    /// What the world's next fixed steps read.
    pub fn collector(&mut self) -> &mut InputCollector {
        &mut self.collector
    }

    /// Takes this frame's input events for the game while it has focus
    /// (the editor's shortcuts and widgets do not see them); Escape releases.
    /// `view` is the 3D view's rectangle: the cursor is measured from its
    /// top left, in pixels.
    pub fn take_events(&mut self, ctx: &egui::Context, view: Option<Rect>) {
        if !self.focused {
            return;
        }
        let ppp = ctx.pixels_per_point();
        let origin = view.map_or(egui::Pos2::ZERO, |r| r.min);
        let mut escape = false;
        ctx.input_mut(|i| {
            i.events.retain(|event| match event {
                Event::Key {
                    key,
                    pressed,
                    repeat,
                    physical_key,
                    ..
                } => {
                    if *key == EguiKey::Escape && *pressed {
                        escape = true;
                    } else if !repeat && let Some(key) = from_egui(physical_key.unwrap_or(*key)) {
                        self.collector.key(key, *pressed);
                    }
                    false
                }
                Event::Text(_) | Event::Copy | Event::Cut | Event::Paste(_) => false,
                Event::PointerButton {
                    pos,
                    button,
                    pressed,
                    ..
                } => {
                    if view.is_none_or(|r| r.contains(*pos) || !*pressed)
                        && let Some(button) = mouse_from_egui(*button)
                    {
                        self.collector.mouse_button(button, *pressed);
                    }
                    true
                }
                Event::PointerMoved(pos) => {
                    let at = (*pos - origin) * ppp;
                    self.collector.cursor(Vec2::new(at.x, at.y));
                    true
                }
                Event::MouseWheel { delta, unit, .. } => {
                    let lines = match unit {
                        egui::MouseWheelUnit::Line => delta.y,
                        egui::MouseWheelUnit::Point => delta.y / 40.0,
                        egui::MouseWheelUnit::Page => delta.y * 10.0,
                    };
                    self.collector.wheel(lines);
                    false
                }
                Event::WindowFocused(false) => {
                    self.collector.release_all();
                    true
                }
                _ => true,
            });
            // Modifiers come as state, not events: their changes are presses.
            let now = i.modifiers;
            for (key, was, is) in [
                (Key::ShiftLeft, self.modifiers.shift, now.shift),
                (Key::ControlLeft, self.modifiers.ctrl, now.ctrl),
                (Key::AltLeft, self.modifiers.alt, now.alt),
            ] {
                if was != is {
                    self.collector.key(key, is);
                }
            }
            self.modifiers = now;
            // Widgets that poll held keys (the camera's fly keys) see none.
            i.keys_down.clear();
        });
        if escape {
            self.release();
        }
    }
}

fn mouse_from_egui(button: egui::PointerButton) -> Option<MouseButton> {
    Some(match button {
        egui::PointerButton::Primary => MouseButton::Left,
        egui::PointerButton::Secondary => MouseButton::Right,
        egui::PointerButton::Middle => MouseButton::Middle,
        egui::PointerButton::Extra1 => MouseButton::Back,
        egui::PointerButton::Extra2 => MouseButton::Forward,
    })
}

/// The game's key for an egui key (its physical position where known).
pub fn from_egui(key: EguiKey) -> Option<Key> {
    use EguiKey as E;
    Some(match key {
        E::A => Key::A,
        E::B => Key::B,
        E::C => Key::C,
        E::D => Key::D,
        E::E => Key::E,
        E::F => Key::F,
        E::G => Key::G,
        E::H => Key::H,
        E::I => Key::I,
        E::J => Key::J,
        E::K => Key::K,
        E::L => Key::L,
        E::M => Key::M,
        E::N => Key::N,
        E::O => Key::O,
        E::P => Key::P,
        E::Q => Key::Q,
        E::R => Key::R,
        E::S => Key::S,
        E::T => Key::T,
        E::U => Key::U,
        E::V => Key::V,
        E::W => Key::W,
        E::X => Key::X,
        E::Y => Key::Y,
        E::Z => Key::Z,
        E::Num0 => Key::Digit0,
        E::Num1 => Key::Digit1,
        E::Num2 => Key::Digit2,
        E::Num3 => Key::Digit3,
        E::Num4 => Key::Digit4,
        E::Num5 => Key::Digit5,
        E::Num6 => Key::Digit6,
        E::Num7 => Key::Digit7,
        E::Num8 => Key::Digit8,
        E::Num9 => Key::Digit9,
        E::ArrowUp => Key::Up,
        E::ArrowDown => Key::Down,
        E::ArrowLeft => Key::Left,
        E::ArrowRight => Key::Right,
        E::Space => Key::Space,
        E::Enter => Key::Enter,
        E::Escape => Key::Escape,
        E::Tab => Key::Tab,
        E::Backspace => Key::Backspace,
        E::F1 => Key::F1,
        E::F2 => Key::F2,
        E::F3 => Key::F3,
        E::F4 => Key::F4,
        E::F5 => Key::F5,
        E::F6 => Key::F6,
        E::F7 => Key::F7,
        E::F8 => Key::F8,
        E::F9 => Key::F9,
        E::F10 => Key::F10,
        E::F11 => Key::F11,
        E::F12 => Key::F12,
        E::Minus => Key::Minus,
        E::Equals => Key::Equal,
        E::Comma => Key::Comma,
        E::Period => Key::Period,
        E::Slash => Key::Slash,
        E::Semicolon => Key::Semicolon,
        E::Quote => Key::Quote,
        E::OpenBracket => Key::BracketLeft,
        E::CloseBracket => Key::BracketRight,
        E::Backslash => Key::Backslash,
        E::Backtick => Key::Backquote,
        E::Insert => Key::Insert,
        E::Delete => Key::Delete,
        E::Home => Key::Home,
        E::End => Key::End,
        E::PageUp => Key::PageUp,
        E::PageDown => Key::PageDown,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_key_but_the_modifiers_has_an_egui_key() {
        let mapped: std::collections::HashSet<Key> =
            EguiKey::ALL.iter().filter_map(|&k| from_egui(k)).collect();
        let modifiers = [
            Key::ShiftLeft,
            Key::ShiftRight,
            Key::ControlLeft,
            Key::ControlRight,
            Key::AltLeft,
            Key::AltRight,
        ];
        for key in Key::ALL {
            assert_eq!(
                mapped.contains(key),
                !modifiers.contains(key),
                "{key:?} reachable from egui"
            );
        }
    }
}
