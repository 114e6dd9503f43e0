//! Keel's editor: an egui UI over the live world. The world keeps running its
//! game loop while the UI edits it between fixed steps; every edit is a
//! command on an undo stack, and unsaved work is a dirty flag with autosave.
//!
//! - [`document`]: the edited world, its file, selection and dirty flag.
//! - [`undo`]: reversible edits and the undo stack (command pattern).
//! - [`subtree`]: subtrees as scene-file records, for delete and duplicate.
//! - [`component`]: every component kind as one value type.
//! - [`persist`]: recent files, autosave and recovery files.
//! - [`log_book`]: the warnings and errors the Log tab lists.
//! - [`ui`]: [`EditorApp`], the panels, drawn with egui, testable without a window.
//! - [`shell`]: the window shell (winit, wgpu surface, egui-winit, egui-wgpu).
//! - [`cli`]: the command line; [`capture`]: screenshots of the window.

pub mod assets_index;
pub mod capture;
pub mod cli;
pub mod component;
pub mod document;
mod gpu;
pub mod log_book;
pub mod persist;
pub mod scene_view;
pub mod shell;
pub mod subtree;
pub mod ui;
pub mod undo;

pub use document::{Document, PrefabLink, Selection};
pub use gpu::{Gpu, GpuError};
pub use log_book::{CaptureLogger, LogBook, LogEntry};
pub use shell::{ShellError, ShellOptions, main_with_default_scene, run, run_game};
pub use ui::dock::{Layout, Panel};
pub use ui::game_view::GameView;
pub use ui::stats::EditorStats;
pub use ui::viewport::{GizmoMode, GizmoSettings, GizmoSpace, Pivot, SnapSteps, ViewOptions};
pub use ui::{EditorApp, EditorOptions, PlayState, Status};
