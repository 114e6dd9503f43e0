//! [`Bodies`]: what a system reads of the simulation during a step
//! (`StepContext::bodies`): bodies' velocities and sleep as the last step
//! left them, and where a character's wished move takes it
//! (`physics/character.rs`). Writing goes through
//! [`Commands::body`](crate::Commands::body), applied before the next
//! physics step, so every system of a step reads the same simulation.

use glam::Vec3;

use super::Physics;
use crate::scene::NodeId;

/// The simulation as a step's systems read it (see the module).
#[derive(Clone, Copy, Debug)]
pub struct Bodies<'a> {
    pub(super) physics: Option<&'a Physics>,
}

impl<'a> Bodies<'a> {
    /// No simulation (a scene stepped on its own): every answer is `None`.
    pub const EMPTY: Bodies<'static> = Bodies { physics: None };

    /// The simulation of `physics`.
    pub fn of(physics: &'a Physics) -> Self {
        Self {
            physics: Some(physics),
        }
    }

    /// `node`'s body's velocity, metres a second (world axes), if it has a body.
    pub fn velocity(&self, node: NodeId) -> Option<Vec3> {
        self.physics?.velocity(node).map(|(v, _)| v)
    }

    /// `node`'s body's spin, radians a second about each world axis.
    pub fn angular_velocity(&self, node: NodeId) -> Option<Vec3> {
        self.physics?.velocity(node).map(|(_, w)| w)
    }

    /// Whether `node`'s body sleeps.
    pub fn is_sleeping(&self, node: NodeId) -> Option<bool> {
        self.physics?.is_sleeping(node)
    }

    /// `node`'s body's mass, kilograms (from its colliders' densities).
    pub fn mass(&self, node: NodeId) -> Option<f32> {
        self.physics?.mass(node)
    }
}
