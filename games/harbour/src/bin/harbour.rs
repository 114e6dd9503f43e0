//! `harbour`: plays the harbour game in a window (the engine's viewer with
//! the game's plugins: every viewer option works, `--record` and `--replay`
//! included).

fn main() -> std::process::ExitCode {
    keel_engine::viewer::main_with_scene(harbour::game(), harbour::scene_path())
}
