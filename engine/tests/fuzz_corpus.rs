//! The fuzzers' findings kept as regression tests: every input of the
//! cargo-fuzz corpora (`fuzz/corpus/<target>/`) and every saved crash input
//! (`fuzz/regressions/<target>/`) goes through the same checks as the fuzz
//! targets, under plain `cargo test` (no nightly, no sanitizer).

use std::path::{Path, PathBuf};

#[path = "../../fuzz/checks.rs"]
mod checks;

/// Files of `fuzz/<kind>/<target>/` (none when the folder is missing),
/// sorted so a failure is reproducible.
fn inputs(kind: &str, target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz")
        .join(kind)
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.expect("a readable folder entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

/// Runs `check` on every corpus and regression input of `target`; the corpus
/// must not be empty (a missing corpus would make this test prove nothing).
fn replay(target: &str, check: fn(&[u8])) {
    let corpus = inputs("corpus", target);
    assert!(
        corpus.len() >= 5,
        "fuzz/corpus/{target} holds {} inputs",
        corpus.len()
    );
    for path in corpus.iter().chain(&inputs("regressions", target)) {
        let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let outcome = std::panic::catch_unwind(|| check(&data));
        assert!(outcome.is_ok(), "{} panicked (see above)", path.display());
    }
}

#[test]
fn scene_corpus_and_regressions_load_without_panicking() {
    replay("scene", checks::scene);
}

#[test]
fn gltf_corpus_and_regressions_import_without_panicking() {
    replay("gltf", checks::gltf);
}

#[test]
fn prefab_corpus_and_regressions_expand_without_panicking() {
    replay("prefab", checks::prefab);
}

#[test]
fn recording_corpus_and_regressions_read_without_panicking() {
    replay("recording", checks::recording);
}
