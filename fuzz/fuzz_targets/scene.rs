//! Fuzz target for the scene-file parser: see [`checks::scene`].
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code)] // each target calls one of the checks
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::scene(data));
