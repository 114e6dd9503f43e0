//! The README's `src/bin/play.rs`: the game's player.

include!(concat!(env!("OUT_DIR"), "/play.rs"));
