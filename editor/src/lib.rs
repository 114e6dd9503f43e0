//! Keel's editor: an egui UI over the live world. The world keeps running its
//! game loop while the UI edits it between fixed steps; every edit is a
//! command on an undo stack, and unsaved work is a dirty flag with autosave.
//!
//! A game's editor binary is one call, [`run_game`] (Keel's own is
//! [`main_with_default_scene`]); the rest of this list is what tests and
//! tools drive an [`EditorApp`] with. The modules are private: each name
//! below has this one path.
//!
//! Inside (ARCHITECTURE.md draws the map and its layers): `app` (the
//! editor's state and its frame), `panels` (one per tab), `chrome` (dock,
//! menus, shortcuts, dialogs), `live` (live mode: the game rebuilt in the
//! background and the editing state handed to the new build, whose serialised
//! forms are [`saved`]), `document` (the edited world, its file, selection and
//! dirty flag), `undo` (the command pattern), `subtree` (subtrees as
//! scene-file records), `component` (every component kind as one value),
//! `persist` (recent files, autosave, recovery), `action`, `status`,
//! `game_input`, `divergence`, `log_book`, `assets_index`, `shell` (a host of
//! the engine's runner: winit, the wgpu surface, egui-winit and egui-wgpu),
//! `cli` and `capture`.
//!
//! In the browser build (wasm32) the crate is empty: a game that depends on
//! it for its editor binary still builds its web page.
#![cfg(not(target_arch = "wasm32"))]

mod action;
mod app;
mod assets_index;
mod capture;
mod chrome;
mod cli;
mod component;
mod divergence;
mod document;
mod game_input;
mod gpu;
mod live;
mod log_book;
mod panels;
mod persist;
pub mod saved;
mod shell;
mod status;
mod subtree;
mod undo;
mod view_renderer;

// Running the editor.
pub use live::process::{AfterFrame, LiveMode};
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
pub use action::Action;
pub use app::{
    Diagnostics, EditorApp, EditorOptions, Files, Playback, PrefabMode, PreviousRun, Views,
    Workspace,
};
pub use assets_index::{AssetEntry, AssetIndex, Thumbnail};
pub use chrome::dock::{Layout, Panel};
pub use chrome::shortcuts::SHORTCUTS;
pub use chrome::shortcuts::{Shortcut, Trigger};
pub use component::ComponentKind;
pub use divergence::Divergence;
pub use document::{PlaySnapshot, Selection};
pub use live::build::{
    BuildEvent, BuildOutcome, BuildStatus, Diagnostic, GameCrate, LiveBuild, Severity, WatchError,
    log_event,
};
pub use live::handover::HandoverError;
pub use log_book::LogEntry;
pub use log_book::{CaptureLogger, LogBook};
pub use panels::assets::{AssetBrowser, BrowserRequest};
pub use panels::game_view::GameView;
pub use panels::gizmo::{GizmoFrame, GizmoSettings, SnapSteps, TransformGizmo};
pub use panels::gizmo::{GizmoMode, GizmoSpace, Pivot};
pub use panels::hierarchy::Hierarchy;
pub use panels::profiler::ProfilerTab;
pub use panels::scene_view::{ViewOptions, ViewportState};
pub use panels::stats::EditorStats;
pub use persist::PersistError;
pub use saved::{HANDOVER_VERSION, Handover};
pub use status::{PlayState, Status};
pub use subtree::Placement;
pub use undo::{Applied, Edit, EditError, UndoStack};
