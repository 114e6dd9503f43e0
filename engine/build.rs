//! Build identity for recordings: a hash of the engine's sources and shaders,
//! so a replay made by a different build says so instead of diverging silently.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let dirs = [root.join("src"), root.join("../shaders")];
    let mut all = Vec::new();
    for dir in &dirs {
        println!("cargo:rerun-if-changed={}", dir.display());
        files(dir, &mut all);
    }
    all.sort();
    // SipHash with fixed keys: the same sources give the same id on every run.
    let mut hasher = std::hash::DefaultHasher::new();
    for path in &all {
        path.strip_prefix(&root).unwrap_or(path).hash(&mut hasher);
        std::fs::read(path).unwrap_or_default().hash(&mut hasher);
    }
    println!("cargo:rustc-env=KEEL_BUILD_ID={:016x}", hasher.finish());
}
