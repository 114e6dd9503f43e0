//! Keel's player: what runs a game made with Keel for its players, outside
//! the editor. The engine (`keel-engine`) is the library; this crate is the
//! application around it, and the only one that reads the command line and
//! the environment.
//!
//! - [`play`]: a game's own player binary (`fn main() { keel_player::play(game(), scene) }`),
//!   under the binary's name, the viewer's debug keys off unless `--debug-keys`.
//! - [`run_viewer`]: `keel-viewer`, Keel's own viewer of any scene, its keys on.
//! - [`run_windowed`] and [`render_headless`]: the window loop (game loop
//!   pattern over winit: fixed steps, rendering at the clock's alpha) and
//!   one offscreen frame, for a program with its own command line.
//! - [`soak`]: long runs under a chaos system, invariants and memory checked.
//! - `web` (in the browser build): the web player, [`Game`](keel_engine::Game)
//!   in a page through WebGPU; [`web_page!`] is a game's entry point there.

mod benchmark;
mod cli;
mod played;
pub mod soak;
#[cfg(target_arch = "wasm32")]
pub mod web;
mod window;

pub use cli::{play, run_viewer, run_viewer_with_scene};
pub use window::{PlayerError, PlayerOptions, render_headless, run_windowed};

/// A game's web page entry point: `keel_player::web_page!(game(), "assets/scene.ron");`
/// in the game's `src/lib.rs` plays `game()` from that scene (a path in the
/// page's folder, as `scripts/web.sh` lays it out) when the page loads. It is
/// `#[wasm_bindgen(start)]` through the player's own `wasm-bindgen`, so the
/// game depends on nothing more; on other targets it is nothing.
// rustfmt indents the attribute's arguments further on every run.
#[rustfmt::skip]
#[macro_export]
macro_rules! web_page {
    ($game:expr, $scene:expr $(,)?) => {
        /// The web page's entry point (`keel_player::web_page!`).
        #[cfg(target_arch = "wasm32")]
        #[$crate::web::wasm_bindgen::prelude::wasm_bindgen(
            start,
            wasm_bindgen = $crate::web::wasm_bindgen
        )]
        pub fn keel_web_page() {
            $crate::web::play($game, $scene);
        }
    };
}

// The demo page's entry point (`scripts/web.sh demo`): the bundled demo
// scene in the web player.
#[cfg(feature = "web-demo")]
web_page!(keel_engine::Game::new(), "assets/scenes/demo.ron");
