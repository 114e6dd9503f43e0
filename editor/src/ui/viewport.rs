//! The central viewport and the settings it reads: view overlays, gizmo mode
//! and space, and the "frame the selection" request. No pattern of its own:
//! it draws whatever the game loop's last frame left in the world.
//!
//! The 3D view is drawn by the engine's renderer through egui-wgpu's paint
//! callback inside [`viewport_ui`]'s rectangle; until then the panel shows the
//! scene's background colour and where the camera is.

use keel_engine::scene::Scene;

/// What the View menu toggles: which panels are shown and which debug
/// overlays the viewport draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewOptions {
    /// The hierarchy panel.
    pub hierarchy: bool,
    /// The inspector panel.
    pub inspector: bool,
    /// The stats panel.
    pub stats: bool,
    /// Overlay: the octree's cells.
    pub octree_cells: bool,
    /// Overlay: each mesh's bounding box.
    pub aabbs: bool,
    /// Overlay: tint nodes whose world transform was recomputed this frame (dirty flag).
    pub dirty_highlight: bool,
}

impl Default for ViewOptions {
    fn default() -> Self {
        Self {
            hierarchy: true,
            inspector: true,
            stats: true,
            octree_cells: false,
            aabbs: false,
            dirty_highlight: false,
        }
    }
}

/// What the transform gizmo does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GizmoMode {
    /// Move along axes.
    #[default]
    Translate,
    /// Turn about axes.
    Rotate,
    /// Scale along axes.
    Scale,
}

impl GizmoMode {
    /// Every mode, in toolbar order.
    pub const ALL: [GizmoMode; 3] = [GizmoMode::Translate, GizmoMode::Rotate, GizmoMode::Scale];

    /// The toolbar label.
    pub fn label(self) -> &'static str {
        match self {
            GizmoMode::Translate => "Translate",
            GizmoMode::Rotate => "Rotate",
            GizmoMode::Scale => "Scale",
        }
    }
}

/// Which axes the gizmo follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GizmoSpace {
    /// The node's own axes.
    #[default]
    Local,
    /// The world's axes.
    World,
}

impl GizmoSpace {
    /// The toolbar label.
    pub fn label(self) -> &'static str {
        match self {
            GizmoSpace::Local => "Local",
            GizmoSpace::World => "World",
        }
    }
}

/// The gizmo settings chosen in the toolbar.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GizmoSettings {
    /// Translate, rotate or scale.
    pub mode: GizmoMode,
    /// Local or world axes.
    pub space: GizmoSpace,
}

/// Draws the viewport into `ui`'s whole area: the scene's background colour
/// and the camera placement. Returns the viewport's response (hover, clicks)
/// for whoever adds camera controls and picking.
pub fn viewport_ui(ui: &mut egui::Ui, scene: &Scene) -> egui::Response {
    let rect = ui.max_rect();
    let response = ui.allocate_rect(rect, egui::Sense::click_and_drag());
    let bg = scene.environment.clear_color;
    // Stored linear; egui's Rgba is linear too and converts to sRGB.
    let fill: egui::Color32 = egui::Rgba::from_rgb(bg.x, bg.y, bg.z).into();
    ui.painter().rect_filled(rect, 0.0, fill);
    let cam = scene.camera;
    let text = format!(
        "Viewport\ncamera at ({:.1}, {:.1}, {:.1}) looking at ({:.1}, {:.1}, {:.1}), fov {:.0}°",
        cam.position.x,
        cam.position.y,
        cam.position.z,
        cam.target.x,
        cam.target.y,
        cam.target.z,
        cam.fov_y_degrees
    );
    ui.painter().text(
        rect.center(),
        egui::Align2::CENTER_CENTER,
        text,
        egui::FontId::proportional(14.0),
        egui::Color32::from_white_alpha(200),
    );
    response
}
