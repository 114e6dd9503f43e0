//! `keel`: opens the editor on the bundled demo scene (or on the scene named on
//! the command line; see `keel --help`).

use std::path::PathBuf;

fn main() -> std::process::ExitCode {
    // The checkout's demo scene when run from it (`cargo run`), else the working directory's.
    let bundled = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/scenes/demo.ron");
    let demo = if bundled.exists() {
        bundled
    } else {
        PathBuf::from("assets/scenes/demo.ron")
    };
    keel_editor::main_with_default_scene(Some(demo))
}
