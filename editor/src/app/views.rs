//! The editor's two 3D views: the scene viewport (its camera, overlays,
//! gizmo and counters) and the Game view. The scene renderer reads and fills
//! them each frame.

use crate::panels::game_view::GameView;
use crate::panels::gizmo::GizmoSettings;
use crate::panels::scene_view::{ViewOptions, ViewportState};
use crate::panels::stats::EditorStats;

/// The views' state, owned by the editor.
#[derive(Default)]
pub(crate) struct Views {
    /// Which panels and overlays are shown (read by the viewport).
    pub(crate) options: ViewOptions,
    /// Gizmo mode and space chosen in the toolbar (read by the viewport).
    pub(crate) gizmo: GizmoSettings,
    /// Counters shown in the stats panel; others may add their own.
    pub(crate) stats: EditorStats,
    /// Set by F (and View → Frame selection): the viewport should move the
    /// camera to show the selection, then clear it.
    pub(crate) frame_requested: bool,
    /// Camera, 3D texture and size of the viewport.
    pub(crate) viewport: ViewportState,
    /// The Game view's texture and size.
    pub(crate) game: GameView,
}
