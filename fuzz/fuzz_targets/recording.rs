//! Fuzz target for recording files: see [`checks::recording`].
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code)] // each target calls one of the checks
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::recording(data));
