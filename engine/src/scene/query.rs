//! Queries: how a system walks the components it updates.
//!
//! Each form borrows the typed columns once and walks their packed values
//! front to back (data locality): no allocation, no lookup or dispatch per
//! node.
//!
//! - [`Scene::query`] / [`Scene::query_mut`]: one column's owners and values.
//! - [`Scene::each_mut`]: one column's values with the rest of the scene at
//!   hand (transforms, other components), for updates that move nodes.
//! - [`Scene::join_mut`]: two different columns together, for the nodes
//!   that have both (`&mut Health` with `&Armor`).
//!
//! ```
//! use bevy_reflect::Reflect;
//! use glam::Vec3;
//! use keel_engine::{Component, Scene, Transform, World};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Clone, Debug, Default, Serialize, Deserialize, Reflect)]
//! struct Health { hp: f32 }
//! impl Component for Health { const NAME: &'static str = "health"; }
//!
//! #[derive(Clone, Debug, Default, Serialize, Deserialize, Reflect)]
//! struct Drift { velocity: Vec3 }
//! impl Component for Drift { const NAME: &'static str = "drift"; }
//!
//! let mut world = World::new(Scene::new());
//! world.register::<Health>()?;
//! world.register::<Drift>()?;
//! let scene = world.scene_mut();
//! let raft = scene.spawn(None, "raft", Transform::IDENTITY)?;
//! scene.insert(raft, Health { hp: 10.0 })?;
//! scene.insert(raft, Drift { velocity: Vec3::X })?;
//! world.systems_mut().add("weather", |scene, _, step| {
//!     // One column: every health, packed.
//!     for health in scene.query_mut::<Health>().1 {
//!         health.hp -= step.dt;
//!     }
//!     // One column with the rest of the scene: move the drifting nodes.
//!     scene.each_mut::<Drift>(|scene, node, drift| {
//!         let mut local = scene.local(node).unwrap();
//!         local.translation += drift.velocity * step.dt;
//!         scene.set_local(node, local).unwrap();
//!     });
//!     // Two columns, for the nodes with both.
//!     scene
//!         .join_mut::<Health, Drift>(|_, health, drift| {
//!             drift.velocity *= health.hp / 10.0;
//!         })
//!         .unwrap();
//! })?;
//! world.step();
//! assert!(world.scene().get::<Health>(raft).unwrap().hp < 10.0);
//! assert!(world.scene().local(raft).unwrap().translation.x > 0.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::registered::Component;
use super::{Column, NodeId, Scene};

/// Why a query could not borrow what it asked for.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum QueryError {
    /// One column asked for twice, mutably.
    #[error("query borrows component `{name}` twice mutably; join two different components")]
    SameColumnTwice {
        /// The component's name.
        name: &'static str,
    },
}

impl Scene {
    /// Owners and values of `C`, in storage order (empty when no node has one).
    pub fn query<C: Component>(&self) -> (&[NodeId], &[C]) {
        self.components
            .registered
            .get::<C>()
            .map_or((&[], &[]), Column::parts)
    }

    /// Owners and mutable values of `C`, in storage order.
    pub fn query_mut<C: Component>(&mut self) -> (&[NodeId], &mut [C]) {
        self.components.registered.get_or_insert::<C>().parts_mut()
    }

    /// Calls `update` for every node with a `C`, in storage order, with the
    /// rest of the scene at hand: read and set transforms, read other
    /// components. The column is moved out during the walk, so `update` sees
    /// no `C` through the scene (not even its own node's); spawn and despawn
    /// through [`crate::Commands`].
    pub fn each_mut<C: Component>(&mut self, mut update: impl FnMut(&mut Scene, NodeId, &mut C)) {
        let Some(column) = self.components.registered.get_mut::<C>() else {
            return;
        };
        if column.is_empty() {
            return;
        }
        let mut column = std::mem::take(column);
        let (owners, values) = column.parts_mut();
        for (&node, value) in owners.iter().zip(values) {
            update(self, node, value);
        }
        *self.components.registered.get_or_insert::<C>() = column;
    }

    /// Calls `update` for every node that has both an `A` and a `B`, walking
    /// `A`'s column in storage order.
    ///
    /// # Errors
    /// [`QueryError::SameColumnTwice`] when `A` and `B` are one type.
    pub fn join_mut<A: Component, B: Component>(
        &mut self,
        mut update: impl FnMut(NodeId, &mut A, &mut B),
    ) -> Result<(), QueryError> {
        if std::any::TypeId::of::<A>() == std::any::TypeId::of::<B>() {
            return Err(QueryError::SameColumnTwice { name: A::NAME });
        }
        let registered = &mut self.components.registered;
        let Some(b) = registered.get_mut::<B>() else {
            return Ok(());
        };
        let mut b = std::mem::take(b);
        if let Some(a) = registered.get_mut::<A>() {
            let (owners, values) = a.parts_mut();
            for (&node, a) in owners.iter().zip(values) {
                if let Some(b) = b.get_mut(node) {
                    update(node, a, b);
                }
            }
        }
        *registered.get_or_insert::<B>() = b;
        Ok(())
    }
}
