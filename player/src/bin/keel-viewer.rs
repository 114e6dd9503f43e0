//! `keel-viewer`: opens a scene file in a window without the editor, or
//! renders it headless to a PNG (the engine with no game plugins).

fn main() -> std::process::ExitCode {
    keel_player::run_viewer(keel_engine::Game::new())
}
