//! What every fuzz input must satisfy, shared by the cargo-fuzz targets
//! (`fuzz_targets/`) and by `engine/tests/fuzz_corpus.rs`, which replays the
//! corpora and the saved crash inputs under plain `cargo test`.
//!
//! Ok and Err are both fine; a panic, a crash, a timeout or running out of
//! memory is a finding.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use keel_engine::assets::gltf;
use keel_engine::scene::{Scene, SceneFile};

/// An empty folder of its own in the temporary folder, created once: fuzzed
/// files "live" there, so the relative paths they name (models, buffers,
/// images) resolve to nothing and are errors, never reads of real files.
fn home(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("keel-fuzz-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create the fuzz temp folder");
    dir
}

/// Loads `data` as scene text (input that is not UTF-8 is skipped) with
/// [`Scene::from_text`], as the editor and viewer load a file; whatever
/// parses must survive a round trip: written back with [`SceneFile::to_text`],
/// the text parses again.
///
/// # Panics
/// When the engine does something a fuzz input must never make it do.
pub fn scene(data: &[u8]) {
    static ORIGIN: OnceLock<PathBuf> = OnceLock::new();
    let origin: &Path = ORIGIN.get_or_init(|| home("scene").join("fuzz.ron"));
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = Scene::from_text(text, origin);
    if let Ok(file) = SceneFile::parse(text, origin) {
        let written = file
            .to_text(origin)
            .expect("a scene file that parses can be written back");
        if let Err(error) = SceneFile::parse(&written, origin) {
            panic!("a written scene file does not parse again: {error}\n{written}");
        }
    }
}

/// Imports `data` with [`gltf::from_slice`] as the bytes of a `.glb` file.
///
/// # Panics
/// When the importer does something a fuzz input must never make it do.
pub fn gltf(data: &[u8]) {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    let path: &Path = PATH.get_or_init(|| home("gltf").join("fuzz.glb"));
    let _ = gltf::from_slice(data, path);
}
