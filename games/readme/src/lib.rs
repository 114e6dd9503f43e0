//! The README's `src/lib.rs`, as written there (see `build.rs`).

include!(concat!(env!("OUT_DIR"), "/lib.rs"));

/// The README's shell steps, in order, for the tests to check.
#[doc(hidden)]
pub const README_COMMANDS: &str = include_str!(concat!(env!("OUT_DIR"), "/commands.sh"));
