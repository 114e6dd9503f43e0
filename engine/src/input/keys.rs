//! The keys a game can read, by the names action files use, and the set of
//! them held or tapped in one step (a bit each).

use serde::{Deserialize, Serialize};

macro_rules! keys {
    ($($key:ident => $code:ident),* $(,)?) => {
        /// A key on the keyboard, by its position (a US layout's names).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum Key {
            $(
                #[doc = concat!("The `", stringify!($key), "` key.")]
                $key,
            )*
        }

        impl Key {
            /// Every key, in bit order.
            pub const ALL: &'static [Key] = &[$(Key::$key),*];

            /// The key at a physical position winit reports, if games can read it.
            pub fn from_winit(code: winit::keyboard::KeyCode) -> Option<Key> {
                use winit::keyboard::KeyCode;
                match code {
                    $(KeyCode::$code => Some(Key::$key),)*
                    _ => None,
                }
            }
        }
    };
}

keys! {
    A => KeyA, B => KeyB, C => KeyC, D => KeyD, E => KeyE, F => KeyF, G => KeyG,
    H => KeyH, I => KeyI, J => KeyJ, K => KeyK, L => KeyL, M => KeyM, N => KeyN,
    O => KeyO, P => KeyP, Q => KeyQ, R => KeyR, S => KeyS, T => KeyT, U => KeyU,
    V => KeyV, W => KeyW, X => KeyX, Y => KeyY, Z => KeyZ,
    Digit0 => Digit0, Digit1 => Digit1, Digit2 => Digit2, Digit3 => Digit3,
    Digit4 => Digit4, Digit5 => Digit5, Digit6 => Digit6, Digit7 => Digit7,
    Digit8 => Digit8, Digit9 => Digit9,
    Up => ArrowUp, Down => ArrowDown, Left => ArrowLeft, Right => ArrowRight,
    Space => Space, Enter => Enter, Escape => Escape, Tab => Tab, Backspace => Backspace,
    ShiftLeft => ShiftLeft, ShiftRight => ShiftRight,
    ControlLeft => ControlLeft, ControlRight => ControlRight,
    AltLeft => AltLeft, AltRight => AltRight,
    F1 => F1, F2 => F2, F3 => F3, F4 => F4, F5 => F5, F6 => F6,
    F7 => F7, F8 => F8, F9 => F9, F10 => F10, F11 => F11, F12 => F12,
    Minus => Minus, Equal => Equal, Comma => Comma, Period => Period, Slash => Slash,
    Semicolon => Semicolon, Quote => Quote, BracketLeft => BracketLeft,
    BracketRight => BracketRight, Backslash => Backslash, Backquote => Backquote,
    Insert => Insert, Delete => Delete, Home => Home, End => End,
    PageUp => PageUp, PageDown => PageDown,
}

/// A set of keys, a bit each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct KeySet([u64; 2]);

impl KeySet {
    fn bit(key: Key) -> (usize, u64) {
        let i = key as usize;
        (i / 64, 1 << (i % 64))
    }

    /// Whether `key` is in the set.
    pub fn contains(&self, key: Key) -> bool {
        let (word, bit) = Self::bit(key);
        self.0[word] & bit != 0
    }

    /// Puts `key` in.
    pub fn insert(&mut self, key: Key) {
        let (word, bit) = Self::bit(key);
        self.0[word] |= bit;
    }

    /// Takes `key` out.
    pub fn remove(&mut self, key: Key) {
        let (word, bit) = Self::bit(key);
        self.0[word] &= !bit;
    }

    /// Whether no key is in.
    pub fn is_empty(&self) -> bool {
        self.0 == [0; 2]
    }

    /// The keys in the set, in bit order.
    pub fn iter(&self) -> impl Iterator<Item = Key> + '_ {
        Key::ALL.iter().copied().filter(|&k| self.contains(k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_has_its_own_bit() {
        assert!(Key::ALL.len() <= 128, "two words hold every key");
        let mut set = KeySet::default();
        for &key in Key::ALL {
            assert!(!set.contains(key), "{key:?} shares a bit");
            set.insert(key);
        }
        assert_eq!(set.iter().count(), Key::ALL.len());
        set.remove(Key::Space);
        assert!(!set.contains(Key::Space) && set.contains(Key::Enter));
        let code = winit::keyboard::KeyCode::ArrowLeft;
        assert_eq!(Key::from_winit(code), Some(Key::Left));
    }
}
