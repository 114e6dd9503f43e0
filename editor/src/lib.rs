//! Keel's editor: an egui UI over the live world. The world keeps running its
//! game loop while the UI edits it between fixed steps; every edit is a
//! command on an undo stack, and unsaved work is a dirty flag with autosave.
//!
//! A game's editor binary is one call, [`run_game`] (Keel's own is
//! [`main_with_default_scene`]); the rest of this list is what tests and
//! tools drive an [`EditorApp`] with. The modules are private: each name
//! below has this one path.
//!
//! Inside (ARCHITECTURE.md draws the map): `document` (the edited world,
//! its file, selection and dirty flag), `undo` (the command pattern),
//! `subtree` (subtrees as scene-file records), `component` (every component
//! kind as one value), `persist` (recent files, autosave, recovery),
//! `log_book`, `live_build` and `live_mode` (live mode: a game crate rebuilt
//! in the background, and the editing state handed to the new build, whose
//! data is `ui::handover`), `assets_index`, `ui` (the app and its dock tabs, testable
//! without a window), `shell` (winit, the wgpu surface, egui-winit and
//! egui-wgpu), `cli` and `capture`.
//!
//! In the browser build (wasm32) the crate is empty: a game that depends on
//! it for its editor binary still builds its web page.
#![cfg(not(target_arch = "wasm32"))]

mod assets_index;
mod capture;
mod cli;
mod component;
mod document;
mod gpu;
mod live_build;
mod live_mode;
mod log_book;
mod persist;
mod scene_view;
mod shell;
mod subtree;
mod ui;
mod undo;

// Running the editor.
pub use live_mode::{LiveMode, LiveStep};
pub use shell::{main_with_default_scene, run_game};
// The app and what tests drive it with.
pub use assets_index::AssetKind;
pub use component::ComponentValue;
pub use document::{Document, PrefabLink};
/// The egui this editor draws with (a game's panels and tests name it
/// through here: one version).
pub use egui;
#[cfg(feature = "test-kit")]
pub mod test_kit;
pub use live_build::{
    BuildEvent, BuildOutcome, BuildStatus, Diagnostic, GameCrate, LiveBuild, Severity, WatchError,
    log_event,
};
pub use log_book::{CaptureLogger, LogBook};
pub use persist::PersistError;
pub use ui::divergence::Divergence;
pub use ui::dock::{Layout, Panel};
pub use ui::gizmo::{GizmoMode, GizmoSpace, Pivot};
pub use ui::handover::{HANDOVER_VERSION, Handover, HandoverError};
pub use ui::shortcuts::SHORTCUTS;
pub use ui::{EditorApp, EditorOptions, PlayState};
pub use undo::EditError;
