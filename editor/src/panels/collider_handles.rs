//! Handles on the selected node's collider in the Scene view: a dot on each
//! of its shape's sizes (a ball's radius; a box's three half extents; a
//! capsule's or a cylinder's radius and half height; none for a mesh's
//! hull or triangles, which its mesh sizes), dragged along its
//! axis to resize the shape (what Unity's "Edit Collider" and Godot's shape
//! handles do). Command pattern, as the transform gizmo: every frame of a
//! drag is a component edit and one drag is one undo entry. While a handle
//! is held the transform gizmo steps aside.

use glam::{Affine3A, Vec3};
use keel_engine::spatial::Ray;
use keel_engine::{Camera, Collider, ColliderShape, NodeId, Scene};

use crate::component::ComponentValue;
use crate::document::Document;
use crate::panels::view_ray::{on_screen, pick_ray};

/// How near the pointer must come to a handle to take it, screen points.
const REACH: f32 = 8.0;

/// Radius of a handle's dot, screen points.
const DOT: f32 = 5.0;

/// The smallest size a drag leaves, metres (node space).
const LEAST: f32 = 0.01;

/// Merge keys of collider drags, apart from the transform gizmo's.
const FIRST_DRAG_KEY: u64 = 3 << 61;

/// One of a shape's sizes, as a handle drags it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Size {
    /// A ball's, a capsule's or a cylinder's radius (along node +X).
    Radius,
    /// A box's half extent along one node axis (0, 1, 2).
    Half(usize),
    /// A capsule's or a cylinder's half height (along node +Y; a capsule's
    /// handle sits on its cap's tip).
    HalfHeight,
}

impl Size {
    /// The node axis the handle moves along.
    fn axis(self) -> Vec3 {
        match self {
            Size::Radius => Vec3::X,
            Size::Half(i) => Vec3::AXES[i],
            Size::HalfHeight => Vec3::Y,
        }
    }
}

/// The sizes `shape` has handles for, each with how far along its axis the
/// handle sits (node space).
pub(crate) fn handles(shape: &ColliderShape) -> Vec<(Size, f32)> {
    match *shape {
        ColliderShape::Ball { radius } => vec![(Size::Radius, radius)],
        ColliderShape::Cuboid { half_extents } => {
            (0..3).map(|i| (Size::Half(i), half_extents[i])).collect()
        }
        ColliderShape::Capsule {
            half_height,
            radius,
        } => vec![
            (Size::Radius, radius),
            (Size::HalfHeight, half_height + radius),
        ],
        ColliderShape::Cylinder {
            half_height,
            radius,
        } => vec![(Size::Radius, radius), (Size::HalfHeight, half_height)],
        // Sized by the node's mesh (and its scale), not by numbers of its own.
        ColliderShape::ConvexHull | ColliderShape::TriMesh => Vec::new(),
    }
}

/// `shape` with `size` set so its handle sits `along` its axis (node space).
pub(crate) fn resized(shape: ColliderShape, size: Size, along: f32) -> ColliderShape {
    let along = along.max(LEAST);
    match (shape, size) {
        (ColliderShape::Ball { .. }, Size::Radius) => ColliderShape::Ball { radius: along },
        (ColliderShape::Cuboid { mut half_extents }, Size::Half(i)) => {
            half_extents[i] = along;
            ColliderShape::Cuboid { half_extents }
        }
        (ColliderShape::Capsule { half_height, .. }, Size::Radius) => ColliderShape::Capsule {
            half_height,
            radius: along,
        },
        (ColliderShape::Capsule { radius, .. }, Size::HalfHeight) => ColliderShape::Capsule {
            half_height: (along - radius).max(0.0),
            radius,
        },
        (ColliderShape::Cylinder { half_height, .. }, Size::Radius) => ColliderShape::Cylinder {
            half_height,
            radius: along,
        },
        (ColliderShape::Cylinder { radius, .. }, Size::HalfHeight) => ColliderShape::Cylinder {
            half_height: along,
            radius,
        },
        (shape, _) => shape,
    }
}

/// How far along the line through `origin` along `axis` (unit) the point
/// nearest to `ray` lies; `None` when the two are parallel.
pub(crate) fn along_axis(origin: Vec3, axis: Vec3, ray: &Ray) -> Option<f32> {
    // Closest points of two lines: origin + s axis, ray.origin + t ray.dir.
    let w = origin - ray.origin;
    let (b, d, e) = (axis.dot(ray.dir), axis.dot(w), ray.dir.dot(w));
    let (a, c) = (axis.length_squared(), ray.dir.length_squared());
    let denominator = a * c - b * b;
    if denominator.abs() < 1e-6 {
        return None;
    }
    Some((b * e - c * d) / denominator)
}

/// A drag in progress.
#[derive(Clone, Copy, Debug)]
struct Drag {
    node: NodeId,
    size: Size,
    key: u64,
}

/// What the handles keep between frames.
#[derive(Clone, Debug)]
pub struct ColliderHandles {
    drag: Option<Drag>,
    next_key: u64,
    /// Whether the pointer was over a handle last frame.
    hovered: bool,
}

impl Default for ColliderHandles {
    fn default() -> Self {
        Self {
            drag: None,
            next_key: FIRST_DRAG_KEY,
            hovered: false,
        }
    }
}

/// The selected node's collider and world, if it has one.
fn selected(scene: &Scene, doc: &Document) -> Option<(NodeId, Collider, Affine3A)> {
    let node = doc.selection.primary()?;
    Some((node, *scene.get::<Collider>(node)?, scene.world(node)?))
}

impl ColliderHandles {
    /// Whether a handle has the pointer (hovered or dragged last frame):
    /// camera controls and the transform gizmo leave it alone.
    pub fn holds_pointer(&self) -> bool {
        self.drag.is_some() || self.hovered
    }

    /// Shows the handles of the selected node's collider inside the
    /// viewport `response`'s rect, seen through `camera`, and applies their
    /// drags to `doc`. Returns whether they have the pointer this frame.
    pub fn ui(
        &mut self,
        ui: &egui::Ui,
        response: &egui::Response,
        camera: &Camera,
        doc: &mut Document,
    ) -> bool {
        let rect = response.rect;
        let Some((node, collider, world)) = selected(doc.scene(), doc) else {
            self.drag = None;
            self.hovered = false;
            return false;
        };
        let (pointer, pressed, down) = ui.input(|i| {
            (
                i.pointer.hover_pos(),
                i.pointer.button_pressed(egui::PointerButton::Primary),
                i.pointer.button_down(egui::PointerButton::Primary),
            )
        });
        let origin = Vec3::from(world.translation);
        let placed: Vec<(Size, egui::Pos2)> = handles(&collider.shape)
            .into_iter()
            .filter_map(|(size, along)| {
                let at = world.transform_point3(size.axis() * along);
                Some((size, on_screen(camera, rect, at)?))
            })
            .collect();
        let near = pointer
            .filter(|p| rect.contains(*p) && response.hovered())
            .and_then(|p| {
                placed
                    .iter()
                    .map(|&(size, at)| (size, at.distance(p)))
                    .filter(|&(_, d)| d <= REACH)
                    .min_by(|a, b| a.1.total_cmp(&b.1))
                    .map(|(size, _)| size)
            });
        if self.drag.is_some_and(|d| !down || d.node != node) {
            self.drag = None;
        }
        if pressed && let Some(size) = near {
            self.next_key += 1;
            self.drag = Some(Drag {
                node,
                size,
                key: self.next_key,
            });
        }
        if let Some(drag) = self.drag
            && let Some(ray) = pointer.and_then(|p| pick_ray(camera, rect, p))
        {
            let axis_world = world.transform_vector3(drag.size.axis());
            let scale = axis_world.length().max(1e-6);
            if let Some(t) = along_axis(origin, axis_world / scale, &ray) {
                let resized = Collider {
                    shape: resized(collider.shape, drag.size, t / scale),
                    ..collider
                };
                if let Err(e) =
                    doc.set_component(node, ComponentValue::registered(resized), Some(drag.key))
                {
                    log::warn!("collider resize rejected: {e}");
                }
            }
        }
        self.hovered = near.is_some();
        let painter = ui.painter_at(rect);
        for &(size, at) in &placed {
            let held = self.drag.is_some_and(|d| d.size == size) || near == Some(size);
            let fill = if held {
                egui::Color32::from_rgb(255, 220, 90)
            } else {
                egui::Color32::from_rgb(90, 220, 120)
            };
            painter.circle(at, DOT, fill, egui::Stroke::new(1.0, egui::Color32::BLACK));
        }
        self.drag.is_some() || self.hovered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_shape_has_a_handle_per_size_and_a_drag_sets_that_size_alone() {
        let boxed = ColliderShape::Cuboid {
            half_extents: Vec3::new(1.0, 2.0, 3.0),
        };
        assert_eq!(
            handles(&boxed),
            [
                (Size::Half(0), 1.0),
                (Size::Half(1), 2.0),
                (Size::Half(2), 3.0)
            ]
        );
        assert_eq!(
            resized(boxed, Size::Half(1), 5.0),
            ColliderShape::Cuboid {
                half_extents: Vec3::new(1.0, 5.0, 3.0)
            }
        );
        let capsule = ColliderShape::Capsule {
            half_height: 1.0,
            radius: 0.5,
        };
        assert_eq!(
            handles(&capsule)[1],
            (Size::HalfHeight, 1.5),
            "on the cap's tip"
        );
        assert_eq!(
            resized(capsule, Size::HalfHeight, 2.5),
            ColliderShape::Capsule {
                half_height: 2.0,
                radius: 0.5
            }
        );
        assert_eq!(
            resized(ColliderShape::Ball { radius: 1.0 }, Size::Radius, -3.0),
            ColliderShape::Ball { radius: LEAST },
            "dragged through the middle: the least size, never negative"
        );
    }

    #[test]
    fn the_point_on_an_axis_nearest_a_ray_is_found() {
        // A ray straight down through x = 2 meets the X axis there.
        let ray = Ray::new(Vec3::new(2.0, 10.0, 0.0), Vec3::NEG_Y).unwrap();
        let t = along_axis(Vec3::ZERO, Vec3::X, &ray).unwrap();
        assert!((t - 2.0).abs() < 1e-5, "{t}");
        let along = Ray::new(Vec3::new(0.0, 0.0, 0.0), Vec3::X).unwrap();
        assert_eq!(along_axis(Vec3::ZERO, Vec3::X, &along), None, "parallel");
    }
}
