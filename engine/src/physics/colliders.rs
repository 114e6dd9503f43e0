//! The colliders filed for queries: a loose octree of their world boxes and,
//! beside it, each one's world shape and layers as filed (spatial partition
//! pattern, fed by the dirty flag as the mesh index is).
//!
//! The world files them after every propagation, before the mesh index
//! consumes the changed nodes: only colliders whose world transform was
//! recomputed are re-filed; untouched ones cost nothing. An edit of the
//! collider column itself (a collider added, removed or resized, a collider
//! node despawned: its stamp changes) files them all anew. What a query
//! answers is what was filed: the world as the step found it, whatever the
//! step's systems change before the next propagation.

use glam::Vec3;

use crate::scene::collider::{Collider, ColliderShape, CollisionLayers};
use crate::scene::{Column, NodeId, Scene};
use crate::spatial::{Aabb, LooseOctree};

use super::shape::WorldShape;

/// Half the side of the tree's initial cube; colliders outside it are still found.
const WORLD_HALF: f32 = 512.0;

/// Colliders a leaf holds before it splits.
const LEAF_CAPACITY: usize = 16;

/// A collider as filed: its world shape and what filters read.
#[derive(Clone, Debug)]
pub(crate) struct Filed {
    pub(crate) shape: WorldShape,
    /// The collider's shape it was made of.
    pub(crate) shape_of: ColliderShape,
    pub(crate) layers: CollisionLayers,
    pub(crate) sensor: bool,
}

/// Every collider of a scene, filed by world box.
pub struct Colliders {
    pub(super) tree: LooseOctree<NodeId>,
    pub(super) filed: Column<Filed>,
    /// The collider column's stamp when everything was last filed.
    stamp: Option<(u64, u64)>,
    refiled: usize,
}

impl Default for Colliders {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Colliders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Colliders")
            .field("filed", &self.tree.len())
            .field("refiled", &self.refiled)
            .finish()
    }
}

impl Colliders {
    /// None filed.
    pub fn new() -> Self {
        let world = Aabb::from_center_half_extents(Vec3::ZERO, Vec3::splat(WORLD_HALF));
        Self {
            tree: LooseOctree::with_config(world, 12, LEAF_CAPACITY)
                .expect("the initial world box is finite"),
            filed: Column::default(),
            stamp: None,
            refiled: 0,
        }
    }

    /// Colliders filed (those whose world is finite).
    pub fn len(&self) -> usize {
        self.tree.len()
    }

    /// Whether none is filed.
    pub fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }

    /// Colliders filed by the last sync.
    pub fn refiled(&self) -> usize {
        self.refiled
    }

    /// Files every collider of `scene` anew.
    pub fn rebuild(&mut self, scene: &Scene) {
        self.tree.clear();
        self.filed.clear();
        self.refiled = 0;
        let Some(column) = scene.components().column::<Collider>() else {
            self.stamp = None;
            return;
        };
        self.stamp = Some(column.stamp());
        for (node, collider) in column.iter() {
            self.refiled += usize::from(self.file(scene, node, collider));
        }
    }

    /// Brings the filing up to date after a propagation, from the nodes it
    /// recomputed (read, not consumed: the mesh index consumes them after).
    pub fn sync(&mut self, scene: &Scene) {
        let stamp = scene.components().column::<Collider>().map(Column::stamp);
        if stamp != self.stamp {
            return self.rebuild(scene);
        }
        self.refiled = 0;
        if self.stamp.is_none() {
            return;
        }
        for node in scene.changed_nodes() {
            if let Some(collider) = scene.get::<Collider>(node) {
                self.refiled += usize::from(self.file(scene, node, collider));
            }
        }
    }

    /// Files `node`'s collider where its world puts it; one whose world is
    /// not finite is taken out (unfindable, not fatal) until it is again.
    fn file(&mut self, scene: &Scene, node: NodeId, collider: &Collider) -> bool {
        // The same collider at the same scale keeps its shape (a mesh's is
        // not made again for a move).
        let previous = self
            .filed
            .get(node)
            .filter(|f| f.shape_of == collider.shape)
            .map(|f| &f.shape);
        let placed = scene
            .world(node)
            .and_then(|w| WorldShape::of(collider, &w, scene, node, previous));
        let filed = placed.and_then(|(shape, bounds)| {
            let done = if self.tree.contains_key(node) {
                self.tree.update(node, bounds)
            } else {
                self.tree.insert(node, bounds)
            };
            done.ok().map(|()| shape)
        });
        match filed {
            Some(shape) => {
                self.filed.insert(
                    node,
                    Filed {
                        shape,
                        shape_of: collider.shape,
                        layers: collider.layers,
                        sensor: collider.sensor,
                    },
                );
                true
            }
            None => {
                self.tree.remove(node);
                self.filed.remove(node);
                false
            }
        }
    }

    /// Checks that exactly the scene's colliders with a finite world are
    /// filed, each where its world puts it (after a sync).
    ///
    /// # Errors
    /// The first collider missing, misplaced, or filed without one.
    pub fn check(&self, scene: &Scene) -> Result<(), String> {
        let mut expected = 0;
        if let Some(column) = scene.components().column::<Collider>() {
            for (node, collider) in column.iter() {
                let placed = scene
                    .world(node)
                    .and_then(|w| WorldShape::of(collider, &w, scene, node, None));
                let (Some((_, bounds)), filed) = (placed, self.tree.get(node)) else {
                    continue;
                };
                expected += 1;
                if filed != Some(bounds) {
                    return Err(format!(
                        "{node}'s collider is filed at {filed:?}, it is at {bounds:?}"
                    ));
                }
            }
        }
        if self.tree.len() != expected || self.filed.len() != expected {
            return Err(format!(
                "{} colliders filed ({} shapes), the scene has {expected}",
                self.tree.len(),
                self.filed.len()
            ));
        }
        Ok(())
    }
}
