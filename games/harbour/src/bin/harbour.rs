//! `harbour`: plays the harbour game in a window (the engine's player with
//! the game's plugins: every key goes to the game; every viewer option
//! works, `--record` and `--replay` included, and `--debug-keys` turns the
//! viewer's keys on).

fn main() -> std::process::ExitCode {
    keel_player::play(harbour::game(), harbour::scene_path())
}
