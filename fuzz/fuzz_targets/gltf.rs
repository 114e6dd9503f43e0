//! Fuzz target for the glTF importer: see [`checks::gltf`].
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::gltf(data));
