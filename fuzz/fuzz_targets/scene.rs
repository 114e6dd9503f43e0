//! Fuzz target for the scene-file parser: see [`checks::scene`].
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::scene(data));
