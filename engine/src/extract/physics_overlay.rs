//! The physics overlay: every collider's outline where the simulation and
//! the queries see it (sized by the node's world scale, by `physics/shape.rs`'s
//! rule), coloured by what it is, and the contacts of the last step
//! (each point with its normal).
//!
//! Pattern: none of the book's; debug drawing into the line pass.

use glam::{Affine3A, Quat, Vec3, Vec4};

use crate::physics::{Physics, Sized3, outline_of};
use crate::render::{LineVertex, push_box, push_circle};
use crate::scene::Scene;
use crate::scene::body::{Body, BodyKind};
use crate::scene::collider::Collider;

/// A solid collider's outline (a dynamic body's when awake).
const SOLID: Vec4 = Vec4::new(0.35, 1.0, 0.45, 1.0);
/// A sleeping body's, or one that never moves (fixed, standing alone).
const STILL: Vec4 = Vec4::new(0.2, 0.55, 0.3, 1.0);
/// A kinematic body's.
const KINEMATIC: Vec4 = Vec4::new(0.3, 0.7, 1.0, 1.0);
/// A sensor's.
const SENSOR: Vec4 = Vec4::new(1.0, 0.75, 0.2, 1.0);
/// A contact point and its normal.
const CONTACT: Vec4 = Vec4::new(1.0, 0.2, 0.2, 1.0);

/// Outlines every collider of `scene` at `alpha` and the contacts `physics`
/// holds.
pub(super) fn push_physics(
    lines: &mut Vec<LineVertex>,
    scene: &Scene,
    physics: &Physics,
    alpha: f32,
) {
    let Some(column) = scene.components().column::<Collider>() else {
        return;
    };
    for (node, collider) in column.iter() {
        let Some(world) = scene.interpolated_world(node, alpha) else {
            continue;
        };
        let Some((rotation, center, shape)) = outline_of(collider, &world, scene, node) else {
            continue;
        };
        let color = if collider.sensor {
            SENSOR
        } else {
            match scene.get::<Body>(node).map(|b| b.kind) {
                Some(BodyKind::Dynamic) if physics.is_sleeping(node) == Some(false) => SOLID,
                Some(BodyKind::Kinematic) => KINEMATIC,
                _ => STILL,
            }
        };
        push_shape(lines, rotation, center, shape, color);
    }
    physics.each_contact(|point, normal| {
        lines.push(LineVertex::new(point, CONTACT));
        lines.push(LineVertex::new(point + normal * 0.3, CONTACT));
    });
}

fn push_shape(
    lines: &mut Vec<LineVertex>,
    rotation: Quat,
    center: Vec3,
    shape: Sized3,
    color: Vec4,
) {
    let (x, y, z) = (rotation * Vec3::X, rotation * Vec3::Y, rotation * Vec3::Z);
    let (half_height, radius, capsule) = match shape {
        Sized3::Ball(ball) => {
            let r = ball.radius;
            for (a, b) in [(x, y), (y, z), (z, x)] {
                push_circle(lines, center, a * r, b * r, color);
            }
            return;
        }
        Sized3::Cuboid(cuboid) => {
            let h = cuboid.half_extents;
            let placed = Affine3A::from_rotation_translation(rotation, center);
            push_box(lines, color, |i| {
                let sign = |bit: usize| if i & bit == 0 { -1.0 } else { 1.0 };
                placed.transform_point3(Vec3::new(sign(1) * h.x, sign(2) * h.y, sign(4) * h.z))
            });
            return;
        }
        Sized3::Capsule(c) => (c.half_height(), c.radius, true),
        Sized3::Cylinder(c) => (c.half_height, c.radius, false),
        // A mesh's hull or triangles: the box around them, turned with it.
        Sized3::Mesh(mesh) => {
            let aabb = mesh.compute_local_aabb();
            let placed = Affine3A::from_rotation_translation(rotation, center);
            push_box(lines, color, |i| {
                let pick = |bit: usize, lo: f32, hi: f32| if i & bit == 0 { lo } else { hi };
                placed.transform_point3(Vec3::new(
                    pick(1, aabb.mins.x, aabb.maxs.x),
                    pick(2, aabb.mins.y, aabb.maxs.y),
                    pick(4, aabb.mins.z, aabb.maxs.z),
                ))
            });
            return;
        }
    };
    for end in [-1.0, 1.0] {
        let at = center + y * (half_height * end);
        push_circle(lines, at, x * radius, z * radius, color);
        if capsule {
            push_circle(lines, at, x * radius, y * radius, color);
            push_circle(lines, at, z * radius, y * radius, color);
        }
    }
    for side in [x, -x, z, -z] {
        lines.push(LineVertex::new(
            center + side * radius - y * half_height,
            color,
        ));
        lines.push(LineVertex::new(
            center + side * radius + y * half_height,
            color,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Transform;
    use crate::world::World;

    #[test]
    fn each_shape_is_outlined_where_it_is_and_contacts_show_once_touching() {
        let mut scene = Scene::new();
        let floor = scene
            .spawn(None, "floor", Transform::from_translation(Vec3::NEG_Y))
            .unwrap();
        scene
            .insert(floor, Collider::cuboid(Vec3::new(5.0, 1.0, 5.0)))
            .unwrap();
        let ball = scene
            .spawn(
                None,
                "ball",
                Transform::from_translation(Vec3::Y * 0.6).with_scale(Vec3::splat(2.0)),
            )
            .unwrap();
        scene.insert(ball, Collider::ball(0.25)).unwrap();
        scene.insert(ball, Body::dynamic()).unwrap();
        let mut world = World::new(scene);
        let mut lines = Vec::new();
        push_physics(&mut lines, world.scene(), world.physics(), 1.0);
        // A box's 12 edges and a ball's three circles of 24 segments; no
        // contact before a step.
        assert_eq!(lines.len(), 2 * (12 + 3 * 24));
        let box_top = lines[..24]
            .iter()
            .map(|v| v.position[1])
            .fold(f32::MIN, f32::max);
        assert_eq!(box_top, 0.0);
        let ball_lines = &lines[24..];
        let farthest = ball_lines
            .iter()
            .map(|v| (Vec3::from(v.position) - Vec3::Y * 0.6).length())
            .fold(0.0, f32::max);
        assert!(
            (farthest - 0.5).abs() < 1e-5,
            "radius 0.25 at scale 2: {farthest}"
        );
        assert!(
            ball_lines.iter().all(|v| v.color == SOLID.to_array()),
            "awake"
        );
        for _ in 0..20 {
            world.step();
        }
        lines.clear();
        push_physics(&mut lines, world.scene(), world.physics(), 1.0);
        let contacts = lines
            .iter()
            .filter(|v| v.color == CONTACT.to_array())
            .count();
        assert!(
            contacts >= 2,
            "the resting ball touches the floor: {contacts}"
        );
    }
}
