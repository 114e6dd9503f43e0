//! `harbour-editor`: the Keel editor that knows the harbour game's
//! components (the inspector edits them, Play runs the game's systems with
//! the keyboard while the 3D view has focus).

fn main() -> std::process::ExitCode {
    keel_editor::run_game(harbour::game(), Some(harbour::scene_path()))
}
