//! What a game's editor tests need, at the versions this editor is built
//! with (the `test-kit` feature): egui, egui_kittest with its GPU renderer
//! and snapshots, and a harness that draws the editor as a window would.
//! A game adds `keel-editor` with this feature to its dev-dependencies and
//! copies no version by hand.
//!
//! ```no_run
//! use keel_editor::test_kit::{self, Queryable, egui};
//! use keel_editor::{EditorApp, EditorOptions};
//!
//! let app = EditorApp::new(EditorOptions::default());
//! let mut harness = test_kit::harness(app, egui::vec2(1280.0, 800.0));
//! harness.run();
//! harness.get_by_label("Play").click();
//! ```

pub use egui;
pub use egui_kittest;
pub use egui_kittest::Harness;
pub use egui_kittest::kittest::Queryable;

use crate::EditorApp;

/// A harness drawing `app` in a window of `size` points, as the editor's
/// own window draws it each frame.
pub fn harness(app: EditorApp, size: egui::Vec2) -> Harness<'static, EditorApp> {
    Harness::builder()
        .with_size(size)
        .build_ui_state(|ui, app: &mut EditorApp| app.ui(ui), app)
}
