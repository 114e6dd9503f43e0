//! What every fuzz input must satisfy, shared by the cargo-fuzz targets
//! (`fuzz_targets/`) and by `engine/tests/fuzz_corpus.rs`, which replays the
//! corpora and the saved crash inputs under plain `cargo test`.
//!
//! Ok and Err are both fine; a panic, a crash, a timeout or running out of
//! memory is a finding.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use keel_engine::Scene;
use keel_engine::assets::gltf;
use keel_engine::record::Recording;
use keel_engine::scene::SceneFile;

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
    let _ = Scene::from_text(text, origin, &keel_engine::Assets::new());
    let registry = keel_engine::scene::ComponentRegistry::default();
    if let Ok(file) = SceneFile::parse(text, origin, &registry) {
        let written = file
            .to_text(origin)
            .expect("a scene file that parses can be written back");
        if let Err(error) = SceneFile::parse(&written, origin, &registry) {
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
    let _ = gltf::from_slice(data, path, &keel_engine::files::ReadLimits::DEFAULT);
}

/// Splits `data` at each `\n===\n` into up to four files `p0.ron` .. `p3.ron`
/// (prefabs naming each other as `"p1.ron"`, ...) in a fresh folder, and loads
/// `p0.ron` as a scene, so the fuzzer reaches prefab expansion: nesting,
/// cycles, overrides, removals, `under` keys and the node budget.
///
/// # Panics
/// When expansion does something a fuzz input must never make it do.
pub fn prefab(data: &[u8]) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static ROUND: AtomicU64 = AtomicU64::new(0);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // A folder per input: the prefab cache knows files by path and stamp.
    let dir = home("prefab").join(ROUND.fetch_add(1, Ordering::Relaxed).to_string());
    std::fs::create_dir_all(&dir).expect("create the input's folder");
    for (i, part) in text.split("\n===\n").take(4).enumerate() {
        std::fs::write(dir.join(format!("p{i}.ron")), part).expect("write a prefab file");
    }
    if let Ok(scene) = Scene::load(&dir.join("p0.ron"), &keel_engine::Assets::new()) {
        // Whatever loads saves, and the saved file loads again.
        let file = scene.to_file_in(Some(&dir));
        let written = file
            .to_text(&dir.join("again.ron"))
            .expect("a loaded scene can be written");
        if let Err(error) = Scene::from_text(
            &written,
            &dir.join("again.ron"),
            &keel_engine::Assets::new(),
        ) {
            panic!("a saved prefab scene does not load again: {error}\n{written}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Reads `data` as a recording file (`keel-viewer --replay`); one that reads
/// must be one a replay can trust: a hash for every `hash_every` steps.
///
/// # Panics
/// When the reader accepts a recording that claims more than it holds.
pub fn recording(data: &[u8]) {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    let path: &Path = PATH.get_or_init(|| home("recording").join("fuzz.rec"));
    std::fs::write(path, data).expect("write the recording");
    if let Ok(recording) = Recording::read(path, &keel_engine::files::ReadLimits::DEFAULT) {
        assert!(recording.hash_every > 0, "hash_every 0 accepted");
        assert_eq!(
            recording.hashes.len() as u64,
            recording.steps / u64::from(recording.hash_every),
            "a recording claiming steps it holds no hashes for was accepted"
        );
    }
}
