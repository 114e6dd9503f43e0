//! The scene graph: generational handles, the struct-of-arrays hierarchy,
//! components, dirty-flag transform propagation and the scene file format.
//!
//! What a [`Scene`] holds and how it is stored:
//!
//! - `handle`: [`NodeId`], index + generation.
//! - `hierarchy`: [`Scene`]: slots, structural edits and hierarchy queries.
//!   Its storage is private to it and its children: `layout` (the hot
//!   columns, parents before children, sibling links, holes and their
//!   compaction), `local_to_world` (setting local transforms, the dirty flag,
//!   the previous/current double buffer, interpolation), `propagate` (the
//!   dirty-flag pass), `state` (the columns as keyframe bytes) and
//!   `consistency` (the invariants, checked). Everything else in the scene
//!   goes through its methods.
//! - `components`, `environment`: the component columns (the engine's own
//!   kinds and the registered ones); the scene-wide settings.
//! - `registered`, `registry`, `behaviours`: [`Component`] (a type a game
//!   registers, stored in its own column), the types known by name, and the
//!   built-in behaviours as ordinary registered components.
//! - `collider`: the shape a node has for spatial queries and physics
//!   (a registered component; its geometry is `physics`').
//! - `body`: a rigid body on a node, dynamic, kinematic or fixed (a
//!   registered component; its simulation is `physics`').
//! - `resources`: typed state that belongs to no node.
//! - `query`: how systems walk component columns (`query_each`, one form over tuples of terms).
//! - `file`, `validate`: RON scene files and what a loaded value must satisfy.
//! - `spatial_index`: the octree of mesh bounds, fed by the dirty flag.
//! - `model`: imported models (glTF, OBJ) instanced as subtrees.
//! - `animator`: animation clips played on a model instance's nodes.
//! - `skin`: skinned and morphed meshes, and the joint palette.
//! - `prefab`: scene files used as pieces of other scenes, with overrides.
//! - `budget`: how many nodes one expansion may spawn, counted before any is.
//!
//! The types every user touches ([`Scene`], [`NodeId`], the components) are
//! re-exported at the crate root and only there; this module's public names
//! are the rest: scene files, prefabs, skins and the storage's iterators.

pub(crate) mod animator;
pub(crate) mod behaviours;
pub(crate) mod body;
pub(crate) mod character;
pub(crate) mod collider;
mod column;
pub(crate) mod components;
pub(crate) mod environment;
pub(crate) mod error;
pub(crate) mod file;
pub(crate) mod handle;
pub(crate) mod hierarchy;
pub(crate) mod joint;
pub(crate) mod model;
pub(crate) mod node_ref;
mod query;
pub(crate) mod registered;
mod registry;
pub(crate) mod resources;
pub(crate) mod scene_camera;
mod skin;
pub(crate) mod spatial_index;

// At the crate root (one path each); named here for the engine's own use.
pub(crate) use crate::light::{Light, LightKind};
pub(crate) use crate::transform::{Affine3x4, Transform};
pub(crate) use animator::{Animator, PlayMode};
pub(crate) use behaviours::{Orbit, Oscillate, Spin};
pub(crate) use body::Body;
pub(crate) use character::Character;
pub(crate) use collider::Collider;
pub(crate) use components::MeshRenderer;
pub(crate) use environment::Environment;
pub(crate) use error::{NodeError, SceneError};
pub(crate) use handle::NodeId;
pub(crate) use hierarchy::{Keep, Scene};
pub(crate) use joint::Joint;
pub(crate) use registered::Component;
pub(crate) use resources::Resource;

pub use animator::{CrossFade, clip_time};
pub use column::Column;
pub use components::{Components, ModelInstance, ModelPart, Stored, UnknownComponents};
pub use environment::{CameraSetup, MAX_CASCADES, PostSettings, ShadowSettings, Tonemapper};
pub use error::{NodeFieldError, SettingError};
pub use file::{
    AnimatorRecord, BUILT_IN_FIELDS, NodeRecord, ReadOptions, RecordSeed, SCENE_VERSION, SceneFile,
};
pub use file::{
    Orphans, Patch, Prefab, PrefabInstance, PrefabPart, expand_records, load_prefab,
    overridden_fields, reverted,
};
pub use hierarchy::{Children, PreOrder, PropagationStats, Transforms};
pub use node_ref::{index_refs, visit_refs};
pub use query::{Filter, Query, QueryError, Term, With, Without};
pub use registered::{AnyColumn, AnyComponent, ColorHint, RegisteredColumns};
pub use registry::{ComponentRegistry, ComponentType, RegistryError};
pub use resources::Resources;
pub use scene_camera::{Projection, SceneCamera};
pub use skin::{JointMatrix, JointPalette, MorphWeights, Skin, skinned_bounds};
pub(crate) use spatial_index::MovedCursor;
pub use spatial_index::{SpatialIndex, mesh_bounds};

#[cfg(test)]
mod tests;
