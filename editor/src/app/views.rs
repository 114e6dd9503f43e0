//! The editor's two 3D views: the scene viewport (its camera, overlays,
//! gizmo and counters) and the Game view. The scene renderer reads and fills
//! them each frame.

use crate::panels::game_view::GameView;
use crate::panels::gizmo::GizmoSettings;
use crate::panels::scene_view::{ViewOptions, ViewportState};
use crate::panels::stats::EditorStats;

/// The views' state, owned by the editor ([`EditorApp::views`]): plain
/// state the panels draw and the shell, scripts and tests read or set.
///
/// [`EditorApp::views`]: crate::EditorApp::views
#[derive(Default)]
pub struct Views {
    /// Which panels and overlays are shown (read by the viewport).
    pub options: ViewOptions,
    /// Gizmo mode and space chosen in the toolbar (read by the viewport).
    pub gizmo: GizmoSettings,
    /// Counters shown in the stats panel; others may add their own.
    pub stats: EditorStats,
    /// Camera, 3D texture and size of the viewport.
    pub viewport: ViewportState,
    /// The Game view's texture and size.
    pub game: GameView,
    /// Set by F (and View → Frame selection): the viewport should move the
    /// camera to show the selection, then clear it.
    frame_requested: bool,
}

impl Views {
    /// Asks the viewport to move the camera to show the selection (what F does).
    pub fn request_frame_selection(&mut self) {
        self.frame_requested = true;
    }

    /// Returns and clears the "frame the selection" request.
    pub fn take_frame_request(&mut self) -> bool {
        std::mem::take(&mut self.frame_requested)
    }

    /// Forgets the views' textures on the GPU device: after the device is
    /// lost they are made again.
    pub fn forget_textures(&mut self) {
        self.viewport.texture = None;
        self.game.texture = None;
    }
}
