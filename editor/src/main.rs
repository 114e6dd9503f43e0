//! `keel-editor [SCENE] [--frames N] [--screenshot OUT.png] [--view-screenshot OUT.png] [--play]`:
//! the Keel editor.

fn main() -> std::process::ExitCode {
    keel_editor::main_with_default_scene(None)
}
