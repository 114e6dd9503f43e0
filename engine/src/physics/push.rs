//! Pushes: what game code does to a body's motion (forces, impulses,
//! velocities set), typed, queued by a system through
//! [`Commands::body`](crate::Commands::body) and applied in the order
//! queued just before the physics steps (after the step's commands, so a
//! body spawned this step can be pushed). A force or a torque acts for that
//! one step (as Unity's `AddForce` in `FixedUpdate`): push it every step to
//! keep it on. A push naming a node without a body, or with a number that
//! is not finite, does nothing (a warning names the node).

use glam::Vec3;
use rapier3d::prelude::RigidBodyHandle;

use super::Physics;
use crate::scene::{NodeId, Scene};

/// One change to a body's motion (see the module).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Push {
    /// A force through its centre of mass for this step, newtons.
    Force(Vec3),
    /// A force at a world point for this step (turns it too).
    ForceAt {
        /// The force, newtons.
        force: Vec3,
        /// Where it pushes, world space.
        point: Vec3,
    },
    /// A torque for this step, newton metres about each world axis.
    Torque(Vec3),
    /// A blow through its centre of mass: its velocity changes by this over its mass.
    Impulse(Vec3),
    /// A blow at a world point.
    ImpulseAt {
        /// The impulse, newton seconds.
        impulse: Vec3,
        /// Where it strikes, world space.
        point: Vec3,
    },
    /// A twisting blow, about each world axis.
    TorqueImpulse(Vec3),
    /// Its velocity set, metres a second.
    Velocity(Vec3),
    /// Its spin set, radians a second about each world axis.
    AngularVelocity(Vec3),
    /// Woken if asleep.
    Wake,
}

impl Push {
    /// Whether every number in it is finite.
    fn is_finite(&self) -> bool {
        match *self {
            Self::Force(v)
            | Self::Torque(v)
            | Self::Impulse(v)
            | Self::TorqueImpulse(v)
            | Self::Velocity(v)
            | Self::AngularVelocity(v) => v.is_finite(),
            Self::ForceAt { force, point } => force.is_finite() && point.is_finite(),
            Self::ImpulseAt { impulse, point } => impulse.is_finite() && point.is_finite(),
            Self::Wake => true,
        }
    }
}

impl Physics {
    /// Applies a step's pushes in order (see the module); the forces among
    /// them are taken off again after the step.
    pub(crate) fn push(&mut self, scene: &Scene, pushes: impl Iterator<Item = (NodeId, Push)>) {
        for (node, push) in pushes {
            let handle = self
                .state
                .links
                .get(node)
                .and_then(|link| link.body)
                .map(|(handle, _)| handle);
            let Some(rb) = handle.and_then(|h| self.state.bodies.get_mut(h)) else {
                log::warn!(
                    "{:?} pushed {}, which has no body: nothing moves",
                    push,
                    scene.name(node).unwrap_or("a node that is gone")
                );
                continue;
            };
            if !push.is_finite() {
                log::warn!(
                    "{:?} pushed {}: not finite, refused",
                    push,
                    scene.name(node).unwrap_or("a node")
                );
                continue;
            }
            match push {
                Push::Force(f) => rb.add_force(f, true),
                Push::ForceAt { force, point } => rb.add_force_at_point(force, point, true),
                Push::Torque(t) => rb.add_torque(t, true),
                Push::Impulse(j) => rb.apply_impulse(j, true),
                Push::ImpulseAt { impulse, point } => {
                    rb.apply_impulse_at_point(impulse, point, true)
                }
                Push::TorqueImpulse(j) => rb.apply_torque_impulse(j, true),
                Push::Velocity(v) => rb.set_linvel(v, true),
                Push::AngularVelocity(w) => rb.set_angvel(w, true),
                Push::Wake => rb.wake_up(true),
            }
            if matches!(
                push,
                Push::Force(_) | Push::ForceAt { .. } | Push::Torque(_)
            ) {
                self.forced.extend(handle);
            }
        }
    }

    /// Takes the step's forces and torques off again (they act one step).
    pub(super) fn unforce(&mut self) {
        for handle in self.forced.drain(..) {
            if let Some(rb) = self.state.bodies.get_mut(handle) {
                rb.reset_forces(false);
                rb.reset_torques(false);
            }
        }
    }
}

/// Handles pushed forces this step, kept to take them off after it.
pub(super) type Forced = Vec<RigidBodyHandle>;
