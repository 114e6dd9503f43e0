//! Colliders: the shape a node has for the things that touch (spatial
//! queries now, the physics step with bodies).
//!
//! A registered component like a game's own (`collider:` in scene files, the
//! inspector through reflection, undo, copy and paste, prefab overrides).
//! The shape is given in the node's space and follows its world transform:
//! sizes scale with the node's world scale, as Unity's and Godot's do (a
//! ball by its largest axis, a capsule's and a cylinder's radius by the
//! larger of X and Z). A convex hull or a triangle mesh is of the node's
//! own mesh, scaled the same way (`physics/mesh_shape.rs`). The geometry
//! itself (bounds, exact tests) is `physics/shape.rs`'s.

use bevy_reflect::Reflect;
use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::registered::Component;
use crate::validation::InvalidValue;

/// A collider's shape, centred on its node, in the node's space.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Reflect)]
pub enum ColliderShape {
    /// A sphere.
    Ball {
        /// Its radius.
        #[reflect(@0.0..=10000.0_f32)]
        radius: f32,
    },
    /// A box.
    Cuboid {
        /// Half its size along each local axis.
        half_extents: Vec3,
    },
    /// A cylinder with hemispheres at both ends, along the local Y axis.
    Capsule {
        /// Half the length of the cylinder between the two hemispheres' centres.
        #[reflect(@0.0..=10000.0_f32)]
        half_height: f32,
        /// The radius of the cylinder and the hemispheres.
        #[reflect(@0.0..=10000.0_f32)]
        radius: f32,
    },
    /// A cylinder along the local Y axis.
    Cylinder {
        /// Half its height.
        #[reflect(@0.0..=10000.0_f32)]
        half_height: f32,
        /// Its radius.
        #[reflect(@0.0..=10000.0_f32)]
        radius: f32,
    },
    /// The convex hull of the node's own mesh (its `MeshRenderer`'s), at its
    /// world scale (`physics/mesh_shape.rs`).
    ConvexHull,
    /// The node's own mesh's triangles, at its world scale: for fixed bodies
    /// and colliders standing alone (triangles enclose no volume, so a
    /// dynamic body gets no mass from them).
    TriMesh,
}

/// Which layers a collider is on and which it meets, 32 of them, as bits
/// (rapier's interaction groups). Two colliders interact when each one's
/// `filter` holds a layer of the other's `membership`; a query with a layer
/// mask finds the colliders on one of its layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Reflect)]
pub struct CollisionLayers {
    /// The layers this collider is on.
    pub membership: u32,
    /// The layers this collider meets.
    pub filter: u32,
}

impl CollisionLayers {
    /// On every layer, meeting every layer.
    pub const ALL: Self = Self {
        membership: u32::MAX,
        filter: u32::MAX,
    };

    /// Whether these layers and `other` meet (each filter holds a layer of
    /// the other's membership).
    pub fn meet(self, other: Self) -> bool {
        self.filter & other.membership != 0 && other.filter & self.membership != 0
    }
}

impl Default for CollisionLayers {
    /// [`CollisionLayers::ALL`].
    fn default() -> Self {
        Self::ALL
    }
}

/// The shape a node has for spatial queries and the physics step.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Reflect)]
#[serde(deny_unknown_fields)]
pub struct Collider {
    /// Its shape, in the node's space.
    pub shape: ColliderShape,
    /// A sensor detects what enters it and stops nothing (a trigger).
    #[serde(default)]
    pub sensor: bool,
    /// Friction coefficient against what it touches (0: ice).
    #[serde(default = "default_friction")]
    #[reflect(@0.0..=10.0_f32)]
    pub friction: f32,
    /// How much of its speed a bounce keeps (0: none, 1: all).
    #[serde(default)]
    #[reflect(@0.0..=1.0_f32)]
    pub restitution: f32,
    /// Mass per unit volume, for the body it belongs to.
    #[serde(default = "default_density")]
    #[reflect(@0.0..=100000.0_f32)]
    pub density: f32,
    /// The layers it is on and meets.
    #[serde(default)]
    pub layers: CollisionLayers,
}

fn default_friction() -> f32 {
    0.5
}

fn default_density() -> f32 {
    1.0
}

impl Collider {
    /// A solid collider of `shape` with the default material.
    pub fn new(shape: ColliderShape) -> Self {
        Self {
            shape,
            sensor: false,
            friction: default_friction(),
            restitution: 0.0,
            density: default_density(),
            layers: CollisionLayers::ALL,
        }
    }

    /// A ball of `radius`.
    pub fn ball(radius: f32) -> Self {
        Self::new(ColliderShape::Ball { radius })
    }

    /// A box of `half_extents`.
    pub fn cuboid(half_extents: Vec3) -> Self {
        Self::new(ColliderShape::Cuboid { half_extents })
    }

    /// The same collider as a sensor.
    pub fn sensor(self) -> Self {
        Self {
            sensor: true,
            ..self
        }
    }

    /// The same collider on `layers`.
    pub fn with_layers(self, layers: CollisionLayers) -> Self {
        Self { layers, ..self }
    }
}

impl Default for Collider {
    /// A solid unit box (the size of the primitive cube mesh).
    fn default() -> Self {
        Self::cuboid(Vec3::splat(0.5))
    }
}

impl Component for Collider {
    const NAME: &'static str = "collider";

    /// Sizes finite and not negative (zero is a point or a flat shape, and
    /// allowed), the material finite and in range.
    fn validate(&self) -> Result<(), InvalidValue> {
        match self.shape {
            ColliderShape::Ball { radius } => InvalidValue::non_negative("shape.radius", radius)?,
            ColliderShape::Cuboid { half_extents } => {
                InvalidValue::finite_vec3("shape.half_extents", half_extents)?;
                if half_extents.min_element() < 0.0 {
                    return Err(InvalidValue::new(
                        "shape.half_extents",
                        "three numbers >= 0",
                        half_extents,
                    ));
                }
            }
            ColliderShape::Capsule {
                half_height,
                radius,
            }
            | ColliderShape::Cylinder {
                half_height,
                radius,
            } => {
                InvalidValue::non_negative("shape.half_height", half_height)?;
                InvalidValue::non_negative("shape.radius", radius)?;
            }
            // Their sizes are the mesh's, checked when the shape is made.
            ColliderShape::ConvexHull | ColliderShape::TriMesh => {}
        }
        InvalidValue::non_negative("friction", self.friction)?;
        InvalidValue::range("restitution", self.restitution, 0.0..=1.0)?;
        InvalidValue::non_negative("density", self.density)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_meet_only_both_ways() {
        let player = CollisionLayers {
            membership: 0b01,
            filter: 0b10,
        };
        let wall = CollisionLayers {
            membership: 0b10,
            filter: 0b01,
        };
        let ghost = CollisionLayers {
            membership: 0b10,
            filter: 0,
        };
        assert!(player.meet(wall) && wall.meet(player));
        assert!(!player.meet(ghost) && !ghost.meet(player));
        assert!(CollisionLayers::ALL.meet(wall));
    }

    #[test]
    fn validation_names_the_bad_field() {
        let bad = |collider: Collider| collider.validate().unwrap_err().to_string();
        assert!(bad(Collider::ball(f32::NAN)).contains("shape.radius"));
        assert!(bad(Collider::ball(-1.0)).contains("shape.radius"));
        assert!(bad(Collider::cuboid(Vec3::new(1.0, -1.0, 1.0))).contains("half_extents"));
        assert!(bad(Collider::cuboid(Vec3::splat(f32::INFINITY))).contains("half_extents"));
        let capsule = Collider::new(ColliderShape::Capsule {
            half_height: 1.0,
            radius: f32::NAN,
        });
        assert!(bad(capsule).contains("shape.radius"));
        let bouncy = Collider {
            restitution: 2.0,
            ..Collider::default()
        };
        assert!(bad(bouncy).contains("restitution"));
        assert!(Collider::ball(0.0).validate().is_ok(), "a point is allowed");
        assert!(Collider::default().validate().is_ok());
    }
}
