//! The Scene view (the editor's 3D view through its free camera) and the
//! settings it reads: view overlays, gizmo mode and space, and the "frame the
//! selection" request. No pattern of its own: it draws whatever the game
//! loop's last frame left in the world.
//!
//! The shell renders the 3D view into a texture at the size this panel had
//! last frame, and the panel shows it; until then it shows the scene's
//! background colour and where the camera is.

use glam::Vec3;
use keel_engine::CameraRig;
use keel_engine::Overlays;
use keel_engine::scene::mesh_bounds;
use keel_engine::spatial::{Aabb, Ray};
use keel_engine::{MeshRenderer, NodeId, Scene};

use crate::document::Document;
use crate::panels::collider_handles::ColliderHandles;
use crate::panels::gizmo::{GizmoSettings, TransformGizmo};
use crate::panels::view_ray::pick_ray;
use crate::status::Status;

/// Which debug overlays the Scene view draws (the View menu toggles them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ViewOptions {
    /// Overlay: the octree's cells.
    pub octree_cells: bool,
    /// Overlay: collider outlines and the last step's contacts.
    pub colliders: bool,
    /// Overlay: each mesh's bounding box.
    pub aabbs: bool,
    /// Overlay: tint nodes whose world transform was recomputed this frame (dirty flag).
    pub dirty_highlight: bool,
}

impl ViewOptions {
    /// The overlays these options ask the renderer for, outlining `selection`.
    pub fn overlays<'a>(&self, selection: &'a [NodeId]) -> Overlays<'a> {
        Overlays {
            grid: true,
            aabbs: self.aabbs,
            highlight: selection,
            octree_cells: self.octree_cells,
            colliders: self.colliders,
            recomputed: self.dirty_highlight,
            cameras: true,
        }
    }
}

/// What the viewport keeps between frames.
#[derive(Debug, Default)]
pub struct ViewportState {
    /// Orbit and fly cameras; placed from the scene's camera setup on first use.
    pub rig: Option<CameraRig>,
    /// The texture the shell renders the 3D view into, once it exists.
    pub texture: Option<egui::TextureId>,
    /// Size in pixels the 3D view should be rendered at (the panel's size).
    pub size_px: [u32; 2],
    /// Where the viewport was drawn last frame, in screen points; `None`
    /// before the first.
    pub rect: Option<egui::Rect>,
    /// The transform gizmo on the primary selection.
    pub gizmo: TransformGizmo,
    /// The handles on the primary selection's collider.
    pub(crate) collider_handles: ColliderHandles,
}

impl ViewportState {
    /// Forgets the camera, so the next frame places it from the (new) scene.
    pub fn reset_camera(&mut self) {
        self.rig = None;
    }

    /// The camera rig, placed from `scene` if it has not been yet.
    pub fn rig(&mut self, scene: &Scene) -> &mut CameraRig {
        self.rig.get_or_insert_with(|| CameraRig::new(scene))
    }
}

/// Where a dropped asset lands: where the ray meets the scene (`hit`: the
/// node and distance the octree found), else the ground plane (y = 0) in
/// front of the camera, else 10 units along the ray.
pub fn drop_point(hit: Option<(NodeId, f32)>, ray: &Ray) -> Option<Vec3> {
    let t = match hit {
        Some((_, t)) => t,
        None if ray.dir.y < -1e-4 => -ray.origin.y / ray.dir.y,
        None => 10.0,
    };
    let point = ray.origin + ray.dir * t;
    point.is_finite().then_some(point)
}

/// A 3D view's size in pixels for its rectangle in points.
pub(crate) fn size_px(ui: &egui::Ui, rect: egui::Rect) -> [u32; 2] {
    let ppp = ui.ctx().pixels_per_point();
    [rect.width(), rect.height()].map(|points| (points * ppp).round().max(1.0) as u32)
}

/// Paints a 3D view's texture over `rect`, or the scene's background colour
/// before the shell has rendered one.
pub(crate) fn show_texture(
    ui: &egui::Ui,
    texture: Option<egui::TextureId>,
    rect: egui::Rect,
    scene: &Scene,
) {
    match texture {
        Some(texture) => {
            let uv = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
            ui.painter().image(texture, rect, uv, egui::Color32::WHITE);
        }
        None => {
            let bg = scene.environment().clear_color;
            // Stored linear; egui's Rgba is linear too and converts to sRGB.
            let fill: egui::Color32 = egui::Rgba::from_rgb(bg.x, bg.y, bg.z).into();
            ui.painter().rect_filled(rect, 0.0, fill);
        }
    }
}

/// Centre and radius of a sphere around the meshes under `nodes`.
fn selection_bounds(scene: &Scene, nodes: &[NodeId]) -> Option<(Vec3, f32)> {
    let mut bounds: Option<Aabb> = None;
    for &node in nodes {
        for part in scene.subtree(node) {
            let Some(world) = scene.world(part) else {
                continue;
            };
            let b = if let Some(mesh) = scene.get::<MeshRenderer>(part) {
                mesh_bounds(mesh.mesh, &world, &scene.assets().registry())
            } else {
                let p = Vec3::from(world.translation);
                Aabb {
                    min: p - 0.5,
                    max: p + 0.5,
                }
            };
            bounds = Some(bounds.map_or(b, |a| a.union(&b)));
        }
    }
    bounds.map(|b| (b.center(), b.half_extents().length().max(0.5)))
}

impl ViewportState {
    /// Draws the viewport into `ui`'s whole area: the 3D view the shell rendered
    /// (or the background colour before it exists), camera controls (drag to
    /// orbit, middle or shift-drag to pan, wheel to zoom, Tab to fly with WASD),
    /// click to select through the scene's ray cast, F to frame the selection,
    /// and the transform gizmo on the primary selection (its handles take the
    /// pointer before the camera and picking do; the handles on its collider
    /// take it before the gizmo).
    ///
    /// `frame` asks to frame the selection this frame; placing a dropped
    /// asset says what it did in `status`.
    pub(crate) fn ui(
        &mut self,
        ui: &mut egui::Ui,
        gizmo_settings: GizmoSettings,
        frame: bool,
        doc: &mut Document,
        status: &mut Status,
    ) -> egui::Response {
        let rect = ui.max_rect();
        let response = ui.allocate_rect(rect, egui::Sense::click_and_drag());
        self.rect = Some(rect);
        self.size_px = size_px(ui, rect);
        show_texture(ui, self.texture, rect, doc.scene());

        // Judged from last frame's gizmo: a drag on a handle must not also orbit.
        let gizmo_held = self.gizmo.holds_pointer() || self.collider_handles.holds_pointer();
        let scene = doc.world.scene();
        let rig = self.rig.get_or_insert_with(|| CameraRig::new(scene));
        let shift = ui.input(|i| i.modifiers.shift);
        let delta = response.drag_delta();
        if gizmo_held {
            // The gizmo has the pointer.
        } else if response.dragged_by(egui::PointerButton::Middle)
            || (response.dragged_by(egui::PointerButton::Primary) && shift)
        {
            rig.drag(delta.x, delta.y, true);
        } else if response.dragged_by(egui::PointerButton::Primary)
            || response.dragged_by(egui::PointerButton::Secondary)
        {
            rig.drag(delta.x, delta.y, false);
        }
        if response.hovered() {
            let (scroll, dt, keys, tab) = ui.input(|i| {
                let keys = [
                    egui::Key::W,
                    egui::Key::S,
                    egui::Key::A,
                    egui::Key::D,
                    egui::Key::E,
                    egui::Key::Q,
                ]
                .map(|k| i.key_down(k));
                (
                    i.smooth_scroll_delta.y,
                    i.stable_dt,
                    keys,
                    i.key_pressed(egui::Key::Tab),
                )
            });
            if scroll != 0.0 {
                rig.wheel(scroll / 50.0);
            }
            if tab {
                rig.toggle_fly();
            }
            rig.held = keys;
            rig.update(dt.min(0.1));
        }
        let camera = rig.camera();
        if frame
            && let Some((center, radius)) =
                selection_bounds(doc.world.scene(), doc.selection.nodes())
            && let Some(rig) = self.rig.as_mut()
        {
            rig.frame(center, radius);
        }
        // After the camera moved, so the handles sit where the 3D view draws the node.
        // A collider's handle held: the transform gizmo steps aside.
        let resizing = self.collider_handles.ui(ui, &response, &camera, doc);
        let captured = resizing
            || self
                .gizmo
                .ui(ui, &response, &camera, gizmo_settings, doc)
                .captured;
        if response.clicked()
            && !captured
            && let Some(pointer) = response.interact_pointer_pos()
            && let Some(ray) = pick_ray(&camera, rect, pointer)
        {
            let world = &mut doc.world;
            let hit = world.raycast(&ray);
            let toggle = ui.input(|i| i.modifiers.command);
            match hit {
                Some((node, _)) if toggle => doc.selection.toggle(node),
                Some((node, _)) => doc.selection.select_only(node),
                None if !toggle => doc.selection.clear(),
                None => {}
            }
        }
        if let Some(asset) =
            crate::panels::assets::dropped::<crate::panels::assets::AssetDrag>(&response)
        {
            let at = ui
                .input(|i| i.pointer.interact_pos())
                .and_then(|p| pick_ray(&camera, rect, p))
                .and_then(|ray| {
                    let world = &mut doc.world;
                    drop_point(world.raycast(&ray), &ray)
                });
            match doc.place_asset(&asset.0, None, at) {
                Ok(_) => status.info(format!("Placed {}", asset.0.display())),
                Err(e) => status.error(e.to_string()),
            }
        }
        if self.texture.is_none() {
            let text = format!(
                "camera at ({:.1}, {:.1}, {:.1})",
                camera.position.x, camera.position.y, camera.position.z
            );
            ui.painter().text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                text,
                egui::FontId::proportional(14.0),
                egui::Color32::from_white_alpha(200),
            );
        }
        response
    }
}
