//! The built-in behaviours (update method pattern): spin, oscillate and
//! orbit, each walking its component column front to back and moving its
//! owners' local transforms, registered as systems by `systems.rs`.

use glam::{Quat, Vec3};

use crate::scene::{
    Component, NodeError, NodeId, Orbit, Oscillate, Scene, Spin, Transform, Transforms,
};

/// Writes a local transform produced by a system; owners are alive (components die with their nodes).
fn write_local(transforms: &mut Transforms<'_>, node: NodeId, local: Transform) {
    match transforms.set_local(node, local) {
        Ok(_) => {}
        // A behaviour that produces NaN (a zero axis, say) leaves the node where it was.
        Err(NodeError::InvalidTransform { .. } | NodeError::StaleNode { .. }) => {}
        Err(other) => log::warn!("behaviour could not move {node}: {other}"),
    }
}

/// Runs a built-in behaviour over every node with a `C`: one required term,
/// so the query has neither of its errors.
fn behave<C: Component>(
    scene: &mut Scene,
    mut update: impl FnMut(NodeId, &mut C, &mut Transforms<'_>),
) {
    let walked = scene.query_each::<(&mut C,)>(|node, (value,), transforms| {
        update(node, value, transforms);
    });
    debug_assert!(walked.is_ok(), "one required term: {walked:?}");
}

pub(super) fn spin(scene: &mut Scene, dt: f32) {
    behave(scene, |node, spin: &mut Spin, transforms| {
        let Some(mut local) = transforms.local(node) else {
            return;
        };
        let turn = Quat::from_axis_angle(spin.axis.normalize_or(Vec3::Y), spin.rate * dt);
        local.rotation = (turn * local.rotation).normalize();
        write_local(transforms, node, local);
    });
}

pub(super) fn oscillate(scene: &mut Scene, dt: f32) {
    behave(scene, |node, osc: &mut Oscillate, transforms| {
        osc.elapsed += dt;
        let omega = std::f32::consts::TAU * osc.frequency;
        // Displacement relative to time zero, so the rest pose is the saved pose.
        let target = osc.amplitude
            * (crate::math::sin(omega * osc.elapsed + osc.phase) - crate::math::sin(osc.phase));
        let delta = target - osc.applied;
        osc.applied = target;
        let (axis, rock) = (osc.axis.normalize_or(Vec3::Y), osc.rock);
        let Some(mut local) = transforms.local(node) else {
            return;
        };
        if rock {
            local.rotation = (local.rotation * Quat::from_axis_angle(axis, delta)).normalize();
        } else {
            local.translation += axis * delta;
        }
        write_local(transforms, node, local);
    });
}

pub(super) fn orbit(scene: &mut Scene, dt: f32) {
    behave(scene, |node, orbit: &mut Orbit, transforms| {
        orbit.angle = (orbit.angle + orbit.rate * dt) % std::f32::consts::TAU;
        let orbit = *orbit;
        let Some(mut local) = transforms.local(node) else {
            return;
        };
        let (sin, cos) = crate::math::sin_cos(orbit.angle);
        local.translation = orbit.center + Vec3::new(cos, 0.0, -sin) * orbit.radius;
        if orbit.face_forward {
            // Forward is -Z; rotating it by `angle` about Y points along the circle's tangent.
            let yaw = if orbit.rate >= 0.0 {
                orbit.angle
            } else {
                orbit.angle + std::f32::consts::PI
            };
            local.rotation = Quat::from_rotation_y(yaw);
        }
        write_local(transforms, node, local);
    });
}
