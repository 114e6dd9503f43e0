//! Fuzz target for prefab expansion (several files from one input): see [`checks::prefab`].
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code)] // each target calls one of the checks
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::prefab(data));
