//! The README's `src/main.rs`: the game's editor.

include!(concat!(env!("OUT_DIR"), "/main.rs"));
