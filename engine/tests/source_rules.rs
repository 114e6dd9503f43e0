//! Rules the programs' source keeps, read from the source (not their tests):
//!
//! - Every file a Keel program reads goes through the one reader
//!   (`keel_engine::files::read`: regular files only, each kind within its
//!   cap). The direct reads (`std::fs::read`, `read_to_string`,
//!   `File::open`) outside the reader itself are each in the short list
//!   below, for its reason.
//! - Engine code touches the disk through `keel_engine::files` alone.
//! - No process-wide mutable state: the few statics are listed with why
//!   they cannot belong to a world.

use std::path::{Path, PathBuf};

/// Direct reads that stay, by file and count, with why.
const ALLOWED: &[(&str, usize, &str)] = &[
    // The running program's own executable, hashed for its build id.
    (
        "engine/src/record/file.rs",
        1,
        "the program's own executable",
    ),
    // The reason a new build of the editor wrote for why it stopped.
    (
        "editor/src/live/process.rs",
        1,
        "the editor's own hand-over note",
    ),
    // The kernel's memory counters.
    ("player/src/soak.rs", 1, "/proc/self/statm"),
];

/// The calls that read a file without the reader.
const DIRECT: &[&str] = &[
    "fs::read(",
    "fs::read_to_string(",
    "File::open(",
    "fs::File::open(",
    "OpenOptions::new().read(",
];

/// The source folders of the programs and libraries (not their tests).
const SOURCES: &[&str] = &[
    "engine/src",
    "editor/src",
    "player/src",
    "src",
    "games/harbour/src",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The part of `text` that is not a test module: inline `#[cfg(test)]`
/// modules sit at the end of a file by the project's style.
fn without_tests(text: &str) -> &str {
    text.find("#[cfg(test)]\nmod ")
        .map_or(text, |at| &text[..at])
}

/// Every non-test source file under `folders` of `root`, as its path
/// relative to `root` (with `/`) and its code without the test module.
fn program_sources(root: &Path, folders: &[&str]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for folder in folders {
        let mut files = Vec::new();
        rust_files(&root.join(folder), &mut files);
        for file in files {
            let relative = file
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if relative.ends_with("/tests.rs") || relative.contains("/tests/") {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            out.push((relative, without_tests(&text).to_owned()));
        }
    }
    out
}

#[test]
fn every_program_file_read_goes_through_the_reader() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found: Vec<(String, usize)> = Vec::new();
    for (relative, code) in program_sources(&root, SOURCES) {
        if relative == "engine/src/files.rs" || relative.starts_with("engine/src/files/") {
            continue; // the reader itself
        }
        let count: usize = code
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .filter(|line| DIRECT.iter().any(|call| line.contains(call)))
            .count();
        if count > 0 {
            found.push((relative, count));
        }
    }
    found.sort();
    let mut unexplained = Vec::new();
    for (file, count) in &found {
        match ALLOWED.iter().find(|(f, _, _)| f == file) {
            Some(&(_, allowed, _)) if *count <= allowed => {}
            _ => unexplained.push(format!("{file}: {count}")),
        }
    }
    assert!(
        unexplained.is_empty(),
        "files read without keel_engine::files::read (regular files only, a cap per kind): {unexplained:?}; \
         read them through it, or add the call to ALLOWED with its reason"
    );
    // The list stays true: a read that went away leaves it.
    for (file, _, why) in ALLOWED {
        assert!(
            found.iter().any(|(f, _)| f == file),
            "{file} ({why}) no longer reads a file directly: take it off ALLOWED"
        );
    }
}

/// Engine code touches the disk through `keel_engine::files` alone (its
/// reader, its atomic writer and the `FileSource` a web page swaps for
/// fetched files): no `std::fs` outside `files/`, but for the one read of
/// the program's own executable.
#[test]
fn engine_code_touches_the_disk_through_the_files_layer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for (relative, code) in program_sources(&root, &["engine/src"]) {
        if relative == "engine/src/files.rs" || relative.starts_with("engine/src/files/") {
            continue; // the layer itself
        }
        let touches = code.lines().filter(|line| {
            let code = line.trim_start();
            !code.starts_with("//") && (code.contains("std::fs") || code.contains(" fs::"))
        });
        found.extend(touches.map(|_| relative.clone()));
    }
    assert_eq!(
        found,
        ["engine/src/record/file.rs"],
        "std::fs outside the files layer (the program's own executable is the one read allowed)"
    );
}

/// The process-wide statics that stay, by file, with why none belongs to a
/// world (each is a counter only ever compared, or puffin's own state).
const STATICS: &[(&str, &str)] = &[
    (
        "engine/src/identity.rs",
        "identities no other value was given",
    ),
    (
        "engine/src/profile.rs",
        "the count of recording profilers: puffin's scopes are process-wide",
    ),
    (
        "editor/src/document.rs",
        "document ids, only compared (a view's cache names its document)",
    ),
];

/// No `static` in the programs' source but those in [`STATICS`]: state a
/// world or a window needs lives in it, so two worlds in one process share
/// nothing (`engine/tests/two_worlds.rs` runs two).
#[test]
fn no_process_wide_state_but_the_listed_statics() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for (relative, code) in program_sources(&root, SOURCES) {
        let statics = code.lines().any(|line| {
            let code = line.trim_start();
            let code = code.strip_prefix("pub(crate) ").unwrap_or(code);
            let code = code.strip_prefix("pub ").unwrap_or(code);
            code.starts_with("static ") || code.starts_with("thread_local!")
        });
        if statics {
            found.push(relative);
        }
    }
    let unexplained: Vec<_> = found
        .iter()
        .filter(|file| !STATICS.iter().any(|(f, _)| f == file))
        .collect();
    assert!(
        unexplained.is_empty(),
        "process-wide state in {unexplained:?}: keep it in the world, the app or the \
         caller, or add the static to STATICS with why no world can own it"
    );
    for (file, why) in STATICS {
        assert!(
            found.iter().any(|f| f == file),
            "{file} ({why}) has no static any more: take it off STATICS"
        );
    }
}
