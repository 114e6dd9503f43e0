//! Keel's player: what runs a game made with Keel for its players, outside
//! the editor. The engine (`keel-engine`) is the library; this crate is the
//! application around it, and the only one that reads the command line and
//! the environment.
//!
//! - [`play`]: a game's own player binary (`fn main() { keel_player::play(game(), scene) }`),
//!   under the binary's name, the viewer's debug keys off unless `--debug-keys`.
//! - [`main`]: `keel-viewer`, Keel's own viewer of any scene, its keys on.
//! - [`run_windowed`] and [`render_headless`]: the window loop (game loop
//!   pattern over winit: fixed steps, rendering at the clock's alpha) and
//!   one offscreen frame, for a program with its own command line.
//! - [`soak`]: long runs under a chaos system, invariants and memory checked.
//! - `web` (in the browser build): the web player, [`Game`](keel_engine::Game)
//!   in a page through WebGPU.

mod benchmark;
mod cli;
mod played;
pub mod soak;
#[cfg(target_arch = "wasm32")]
pub mod web;
mod window;

pub use cli::{main, main_with_scene, play};
pub use window::{ViewerError, ViewerOptions, render_headless, run_windowed};

/// The demo page's entry point (`scripts/web.sh demo`): the bundled demo
/// scene in the web player.
#[cfg(all(target_arch = "wasm32", feature = "web-demo"))]
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn web_demo() {
    web::play(keel_engine::Game::new(), "assets/scenes/demo.ron");
}
