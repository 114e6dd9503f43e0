//! Fuzz target for the glTF importer: see [`checks::gltf`].
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code)] // each target calls one of the checks
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::gltf(data));
