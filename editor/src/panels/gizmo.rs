//! The transform gizmo drawn over the viewport on the selection: arrows,
//! rings or boxes to translate, rotate or scale it with the pointer. A
//! multi-selection moves as one, about its median or its active node.
//! Command pattern: every frame of a drag is a transform edit, and all of one
//! drag share a merge key so the undo stack records the drag as one command.
//!
//! The handles' geometry, picking and dragging maths come from the
//! `transform-gizmo` crate, which works in its own (f64, `mint`) types and
//! its own `emath`; this module converts at the boundary, feeds it the
//! pointer from egui and paints the triangles it returns.

use glam::{Affine3A, Mat4, Quat, Vec3};
use keel_engine::Camera;
use keel_engine::{NodeId, Scene, Transform};
use transform_gizmo::math::{DMat4, DQuat, DVec3, Pos2 as GizmoPos2, Transform as GizmoTransform};
use transform_gizmo::{Gizmo, GizmoConfig, GizmoInteraction, GizmoOrientation, GizmoResult};

use crate::document::Document;

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

/// Where the gizmo of a multi-selection sits, and what it turns and scales about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pivot {
    /// The mean of the moved nodes' origins.
    #[default]
    Median,
    /// The active (primary) node's origin.
    Active,
}

impl Pivot {
    /// The toolbar label.
    pub fn label(self) -> &'static str {
        match self {
            Pivot::Median => "Median",
            Pivot::Active => "Active",
        }
    }
}

/// The gizmo settings chosen in the toolbar.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GizmoSettings {
    /// Translate, rotate or scale.
    pub mode: GizmoMode,
    /// Local or world axes.
    pub space: GizmoSpace,
    /// What a multi-selection turns and scales about.
    pub pivot: Pivot,
    /// Drags move in whole steps (also while Ctrl is held).
    pub snap: bool,
    /// The steps.
    pub steps: SnapSteps,
}

/// Snapping increments of a gizmo drag (what the drag adds is a whole number of them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SnapSteps {
    /// World units a translation moves by.
    pub translate: f32,
    /// Degrees a rotation turns by.
    pub rotate_degrees: f32,
    /// What a scaling adds to the scale factor.
    pub scale: f32,
}

impl Default for SnapSteps {
    fn default() -> Self {
        Self {
            translate: 0.5,
            rotate_degrees: 15.0,
            scale: 0.1,
        }
    }
}

/// Merge keys of gizmo drags start here, far above the small counters the
/// inspector uses, so a drag never merges into an inspector edit of the same
/// node (or the other way round).
const FIRST_DRAG_KEY: u64 = 1 << 62;

/// What the gizmo keeps between frames.
#[derive(Clone, Debug)]
pub struct TransformGizmo {
    gizmo: Gizmo,
    /// The merge key of the drag in progress, if any.
    drag: Option<u64>,
    next_key: u64,
    /// Whether the last frame showed the gizmo (a node was selected).
    shown: bool,
}

impl Default for TransformGizmo {
    fn default() -> Self {
        Self {
            gizmo: Gizmo::default(),
            drag: None,
            next_key: FIRST_DRAG_KEY,
            shown: false,
        }
    }
}

/// What one frame of the gizmo did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GizmoFrame {
    /// The pointer is over a handle, drags one, or just let go of one: camera
    /// controls and click-picking must leave the pointer alone this frame.
    pub captured: bool,
    /// A drag changed the node's transform this frame.
    pub moved: bool,
}

impl TransformGizmo {
    /// Whether a drag is in progress.
    pub fn dragging(&self) -> bool {
        self.drag.is_some()
    }

    /// Whether the pointer was over a handle or dragging one on the last
    /// frame: camera controls should leave it alone.
    pub fn holds_pointer(&self) -> bool {
        self.drag.is_some() || (self.shown && self.gizmo.is_focused())
    }

    /// Whether a handle lies under `pointer` (screen points), as the gizmo
    /// was placed on the last frame; false when it was not shown.
    pub fn handle_at(&self, pointer: egui::Pos2) -> bool {
        self.shown && self.gizmo.pick_preview((pointer.x, pointer.y))
    }

    /// Shows the gizmo on the selection (at the toolbar's pivot) inside `rect`, with `camera`
    /// and the toolbar's `settings`; applies drags to `doc` (one undo entry per
    /// drag). `response` is the viewport's: the gizmo only takes a pointer
    /// that is over the viewport and not already dragging something else.
    pub fn ui(
        &mut self,
        ui: &egui::Ui,
        response: &egui::Response,
        camera: &Camera,
        settings: GizmoSettings,
        doc: &mut Document,
    ) -> GizmoFrame {
        let rect = response.rect;
        let targets = doc.gizmo_targets();
        let Some(pivot) = pivot_of(doc.scene(), &targets, settings.pivot) else {
            self.drag = None;
            self.shown = false;
            return GizmoFrame::default();
        };
        self.shown = true;

        let aspect = rect.width() / rect.height().max(1.0);
        self.gizmo.update_config(GizmoConfig {
            view_matrix: to_gizmo_matrix(camera.view()).into(),
            projection_matrix: to_gizmo_matrix(camera.projection(aspect)).into(),
            viewport: transform_gizmo::Rect::from_min_max(
                GizmoPos2::new(rect.min.x, rect.min.y),
                GizmoPos2::new(rect.max.x, rect.max.y),
            ),
            modes: match settings.mode {
                GizmoMode::Translate => transform_gizmo::GizmoMode::all_translate(),
                GizmoMode::Rotate => transform_gizmo::GizmoMode::all_rotate(),
                GizmoMode::Scale => transform_gizmo::GizmoMode::all_scale(),
            },
            orientation: match settings.space {
                GizmoSpace::Local => GizmoOrientation::Local,
                GizmoSpace::World => GizmoOrientation::Global,
            },
            pixels_per_point: ui.ctx().pixels_per_point(),
            // The toolbar's toggle, or Ctrl held during the drag.
            snapping: settings.snap || ui.input(|i| i.modifiers.ctrl),
            snap_distance: settings.steps.translate.max(1e-4),
            snap_angle: settings.steps.rotate_degrees.max(1e-3).to_radians(),
            snap_scale: settings.steps.scale.max(1e-4),
            ..*self.gizmo.config()
        });

        let (pointer, pressed, down) = ui.input(|i| {
            (
                i.pointer.hover_pos(),
                i.pointer.button_pressed(egui::PointerButton::Primary),
                i.pointer.button_down(egui::PointerButton::Primary),
            )
        });
        // A button held since before this frame belongs to whatever it
        // pressed (an orbit, a panel): passing over a handle must not steal it.
        let free = !down || pressed;
        let interaction = GizmoInteraction {
            cursor_pos: pointer.map_or((f32::NAN, f32::NAN), |p| (p.x, p.y)),
            hovered: free && pointer.is_some_and(|p| rect.contains(p)) && response.hovered(),
            drag_started: pressed,
            dragging: down,
        };
        let was_dragging = self.drag.is_some();
        let update = self.gizmo.update(interaction, &[to_gizmo_transform(pivot)]);

        let mut moved = false;
        match update {
            Some((result, new_pivot)) => {
                let key = *self.drag.get_or_insert_with(|| {
                    self.next_key += 1;
                    self.next_key
                });
                if let Some(&new_pivot) = new_pivot.first() {
                    // What this frame of the drag did, in world space, applied
                    // to every moved node about the pivot.
                    let delta = from_gizmo_transform(new_pivot) * pivot.inverse();
                    let scene = doc.scene();
                    let changes: Vec<(NodeId, Transform)> = targets
                        .iter()
                        .filter_map(|&node| {
                            let world = scene.world(node)?;
                            let parent = scene.parent(node).and_then(|p| scene.world(p));
                            let mut local = world_to_local(parent, delta * world);
                            keep_untouched_parts(&mut local, scene, node, &result);
                            Some((node, local))
                        })
                        .collect();
                    match doc.set_transforms(&changes, Some(key)) {
                        Ok(()) => moved = true,
                        Err(e) => log::warn!("gizmo drag rejected: {e}"),
                    }
                }
            }
            None => self.drag = None,
        }

        self.paint(ui, rect);
        GizmoFrame {
            captured: was_dragging || self.drag.is_some() || self.gizmo.is_focused(),
            moved,
        }
    }

    fn paint(&self, ui: &egui::Ui, rect: egui::Rect) {
        let data = self.gizmo.draw();
        if data.indices.is_empty() {
            return;
        }
        let vertices = data
            .vertices
            .iter()
            .zip(&data.colors)
            .map(|(&[x, y], &[r, g, b, a])| egui::epaint::Vertex {
                pos: egui::pos2(x, y),
                uv: egui::epaint::WHITE_UV,
                color: egui::Rgba::from_rgba_premultiplied(r, g, b, a).into(),
            })
            .collect();
        let mesh = egui::epaint::Mesh {
            indices: data.indices,
            vertices,
            ..Default::default()
        };
        ui.painter_at(rect).add(egui::Shape::mesh(mesh));
    }
}

/// Where the gizmo of `targets` sits (`targets[0]` is the active node): at
/// the pivot, turned and scaled as the active node is, so local axes are the
/// active node's. `None` when nothing can be moved.
fn pivot_of(scene: &Scene, targets: &[NodeId], pivot: Pivot) -> Option<Affine3A> {
    let active = scene.world(*targets.first()?)?;
    let (scale, rotation, at) = active.to_scale_rotation_translation();
    let at = match pivot {
        Pivot::Active => at,
        Pivot::Median => {
            let sum: Vec3 = targets
                .iter()
                .filter_map(|&n| scene.world(n))
                .map(|w| Vec3::from(w.translation))
                .sum();
            sum / targets.len() as f32
        }
    };
    Some(Affine3A::from_scale_rotation_translation(
        scale, rotation, at,
    ))
}

/// The local transform that puts a node whose parent sits at `parent_world`
/// (`None` for a root) at `world`. Exact unless the parent's non-uniform
/// scale shears the node; then the nearest transform without shear.
pub fn world_to_local(parent_world: Option<Affine3A>, world: Affine3A) -> Transform {
    let local = match parent_world {
        Some(parent) => parent.inverse() * world,
        None => world,
    };
    Transform::from_affine(local)
}

/// Decomposing a matrix loses a few bits; a translate drag must not nudge the
/// node's rotation or scale in the undo entry (nor a rotation its scale), so
/// the parts the drag did not touch keep their exact stored values.
fn keep_untouched_parts(local: &mut Transform, scene: &Scene, node: NodeId, result: &GizmoResult) {
    let Some(before) = scene.local(node) else {
        return;
    };
    match result {
        GizmoResult::Translation { .. } => {
            local.rotation = before.rotation;
            local.scale = before.scale;
        }
        GizmoResult::Rotation { .. } | GizmoResult::Arcball { .. } => {
            local.scale = before.scale;
        }
        GizmoResult::Scale { .. } => {}
    }
}

fn to_gizmo_matrix(m: Mat4) -> DMat4 {
    DMat4::from_cols_array(&m.to_cols_array().map(f64::from))
}

fn to_gizmo_transform(world: Affine3A) -> GizmoTransform {
    let (scale, rotation, translation) = world.to_scale_rotation_translation();
    GizmoTransform::from_scale_rotation_translation(
        DVec3::from_array(scale.to_array().map(f64::from)),
        DQuat::from_array(rotation.to_array().map(f64::from)),
        DVec3::from_array(translation.to_array().map(f64::from)),
    )
}

fn from_gizmo_transform(t: GizmoTransform) -> Affine3A {
    // The gizmo computes in f64; the scene stores f32.
    let v = |v: transform_gizmo::mint::Vector3<f64>| Vec3::new(v.x as f32, v.y as f32, v.z as f32);
    let q = t.rotation;
    let rotation =
        Quat::from_xyzw(q.v.x as f32, q.v.y as f32, q.v.z as f32, q.s as f32).normalize();
    Affine3A::from_scale_rotation_translation(v(t.scale), rotation, v(t.translation))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Vec3, b: Vec3) -> bool {
        a.abs_diff_eq(b, 1e-4)
    }

    /// A node under a rotated, uniformly scaled, moved parent: a new world
    /// transform maps back to the local one that reproduces it.
    #[test]
    fn world_result_maps_back_to_local_under_a_rotated_scaled_parent() {
        let mut scene = Scene::new();
        let parent_local = Transform {
            translation: Vec3::new(3.0, -1.0, 2.0),
            rotation: Quat::from_rotation_y(0.7) * Quat::from_rotation_x(-0.3),
            scale: Vec3::splat(2.5),
        };
        let parent = scene.spawn(None, "parent", parent_local).unwrap();
        let child_local = Transform {
            translation: Vec3::new(0.5, 1.0, -0.25),
            rotation: Quat::from_rotation_z(0.4),
            scale: Vec3::new(1.0, 0.5, 2.0),
        };
        let child = scene.spawn(Some(parent), "child", child_local).unwrap();
        scene.propagate();
        let parent_world = scene.world(parent).unwrap();
        let child_world = scene.world(child).unwrap();

        let same = world_to_local(Some(parent_world), child_world);
        assert!(close(same.translation, child_local.translation), "{same:?}");
        assert!(
            same.rotation.abs_diff_eq(child_local.rotation, 1e-4)
                || same.rotation.abs_diff_eq(-child_local.rotation, 1e-4)
        );
        assert!(close(same.scale, child_local.scale), "{same:?}");

        // What a world-space X drag of 1.5 produces.
        let moved = Affine3A::from_translation(Vec3::X * 1.5) * child_world;
        let local = world_to_local(Some(parent_world), moved);
        let back = parent_world * local.to_affine();
        assert!(close(back.translation.into(), moved.translation.into()));
        assert!(close(
            Vec3::from(back.translation) - Vec3::from(child_world.translation),
            Vec3::X * 1.5
        ));
        // In the parent's frame the move is turned back by its rotation and
        // shrunk by its scale.
        let (_, parent_rotation, _) = parent_world.to_scale_rotation_translation();
        let expected = child_local.translation + parent_rotation.inverse() * (Vec3::X * 1.5 / 2.5);
        assert!(
            close(local.translation, expected),
            "{local:?} vs {expected}"
        );
        assert!(back.matrix3.abs_diff_eq(moved.matrix3, 1e-4));

        // And a world-space turn about Y.
        let turned = Affine3A::from_translation(child_world.translation.into())
            * Affine3A::from_quat(Quat::from_rotation_y(1.1))
            * Affine3A::from_translation(-Vec3::from(child_world.translation))
            * child_world;
        let back = parent_world * world_to_local(Some(parent_world), turned).to_affine();
        assert!(back.abs_diff_eq(turned, 1e-4), "{back:?} vs {turned:?}");
    }

    #[test]
    fn a_root_keeps_its_world_transform_as_local() {
        let world = Transform {
            translation: Vec3::new(1.0, 2.0, 3.0),
            rotation: Quat::from_rotation_x(0.9),
            scale: Vec3::new(2.0, 3.0, 4.0),
        };
        let local = world_to_local(None, world.to_affine());
        assert!(local.to_affine().abs_diff_eq(world.to_affine(), 1e-5));
    }

    #[test]
    fn transforms_survive_the_trip_through_the_gizmo_types() {
        let world = Transform {
            translation: Vec3::new(-4.0, 0.5, 9.0),
            rotation: Quat::from_rotation_y(-2.0) * Quat::from_rotation_z(0.3),
            scale: Vec3::new(0.5, 1.5, 3.0),
        }
        .to_affine();
        let back = from_gizmo_transform(to_gizmo_transform(world));
        assert!(back.abs_diff_eq(world, 1e-5));
    }
}
