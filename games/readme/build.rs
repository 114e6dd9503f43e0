//! Cuts the README's "Make your own game" section into the files its steps
//! write: the Rust blocks, in order, are `src/lib.rs`, `src/main.rs`,
//! `src/bin/play.rs` and `tests/editor.rs`; the shell blocks are kept for
//! the tests to check.

use std::path::PathBuf;

fn main() {
    let readme = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"))
        .join("../../README.md");
    println!("cargo:rerun-if-changed={}", readme.display());
    let text = std::fs::read_to_string(&readme).expect("the README is beside the workspace");
    let start = text
        .find("## Make your own game")
        .expect("the README has a \"Make your own game\" section");
    let section = &text[start..];
    let end = section[3..].find("\n## ").map_or(section.len(), |e| e + 3);
    let section = &section[..end];
    let mut rust = Vec::new();
    let mut shell = Vec::new();
    let mut lines = section.lines();
    while let Some(line) = lines.next() {
        let target = match line.trim() {
            "```rust" => &mut rust,
            "```sh" => &mut shell,
            _ => continue,
        };
        let block: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "```").collect();
        target.push(block.join("\n") + "\n");
    }
    assert_eq!(
        rust.len(),
        4,
        "the README's game has four Rust files (lib, editor, player, editor test)"
    );
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    for (name, code) in ["lib.rs", "main.rs", "play.rs", "editor_test.rs"]
        .iter()
        .zip(&rust)
    {
        std::fs::write(out.join(name), code).expect("OUT_DIR is writable");
    }
    std::fs::write(out.join("commands.sh"), shell.join("")).expect("OUT_DIR is writable");
}
