//! Components a node can carry, each kind in its own packed [`Column`].
//!
//! Behaviours (update method pattern) store the state their update needs
//! between steps (the spin's accumulated angle lives in the rotation, the
//! oscillation's phase and offset in the component), so a step depends only on
//! the state and the fixed step length: the same inputs give the same result.

use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::{Column, NodeId};
use crate::assets::{Material, MeshRef};
use crate::light::Light;
use crate::particles::Emitter;

/// Turns the node about a local axis at a constant rate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spin {
    /// Axis in the node's parent space (normalised when used).
    pub axis: Vec3,
    /// Radians per second.
    pub rate: f32,
}

/// Moves the node back and forth along an axis around where it started.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Oscillate {
    /// Direction of motion in the parent's space (normalised when used).
    pub axis: Vec3,
    /// Largest displacement, in world units (or radians for [`Oscillate::rock`]).
    pub amplitude: f32,
    /// Cycles per second.
    pub frequency: f32,
    /// Phase at time zero, in radians.
    pub phase: f32,
    /// Rock about the axis (an angle) instead of sliding along it.
    #[serde(default)]
    pub rock: bool,
    /// Seconds simulated so far (state, saved so a saved scene resumes exactly).
    #[serde(default)]
    pub elapsed: f32,
    /// The displacement (or angle) currently applied on top of the rest pose.
    #[serde(default)]
    pub applied: f32,
}

impl Oscillate {
    /// An oscillation starting at time zero.
    pub fn new(axis: Vec3, amplitude: f32, frequency: f32, phase: f32) -> Self {
        Self {
            axis,
            amplitude,
            frequency,
            phase,
            rock: false,
            elapsed: 0.0,
            applied: 0.0,
        }
    }

    /// The same oscillation as a rocking motion about the axis.
    pub fn rocking(self) -> Self {
        Self { rock: true, ..self }
    }
}

/// Moves the node on a horizontal circle around a centre in its parent's space.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Orbit {
    /// Centre of the circle in the parent's space.
    pub center: Vec3,
    /// Radius of the circle.
    pub radius: f32,
    /// Radians per second (negative goes clockwise seen from above).
    pub rate: f32,
    /// Current angle on the circle, radians (state; its saved value is where it starts).
    #[serde(default)]
    pub angle: f32,
    /// Turn the node to face its direction of travel.
    #[serde(default)]
    pub face_forward: bool,
}

/// The root of an imported model: its children are the file's hierarchy,
/// spawned when the model is instanced and rebuilt from the file each time the
/// scene loads (like a prefab instance), so scene files store only the path.
#[derive(Clone)]
pub struct ModelInstance {
    /// The model file, absolute; scene files store it relative to themselves.
    pub source: std::path::PathBuf,
    /// The import its parts came from: held, so the registry keeps its
    /// meshes and textures while an instance (or a recording) needs them.
    pub model: std::sync::Arc<crate::assets::Model>,
}

impl PartialEq for ModelInstance {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source && std::sync::Arc::ptr_eq(&self.model, &other.model)
    }
}

impl Eq for ModelInstance {}

impl std::fmt::Debug for ModelInstance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ModelInstance({})", self.source.display())
    }
}

/// Marks a node spawned from an imported model: not saved (the model's file is
/// the source of truth) and not editable in the editor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelPart {
    /// Index of the glTF node it came from.
    pub gltf_node: u32,
}

/// Draws a mesh at the node's world transform.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeshRenderer {
    /// Which mesh: a primitive or an imported one.
    pub mesh: MeshRef,
    /// How it looks.
    #[serde(default)]
    pub material: Material,
    /// Whether it casts a shadow from the sun (written only when it does not).
    #[serde(default = "casts_by_default", skip_serializing_if = "is_true")]
    pub cast_shadows: bool,
}

fn casts_by_default() -> bool {
    true
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_true(value: &bool) -> bool {
    *value
}

impl MeshRenderer {
    /// Whether it casts shadows at all (see-through meshes cast none).
    #[inline]
    #[must_use]
    pub fn can_cast(&self) -> bool {
        self.cast_shadows && self.material.alpha_mode != crate::assets::AlphaMode::Blend
    }

    /// A mesh drawn with `material`, casting shadows.
    #[must_use]
    pub fn new(mesh: MeshRef, material: Material) -> Self {
        Self {
            mesh,
            material,
            cast_shadows: true,
        }
    }
}

/// One packed column per component kind.
#[derive(Clone, Debug, Default)]
pub struct Components {
    /// [`Spin`] behaviours.
    pub spin: Column<Spin>,
    /// [`Oscillate`] behaviours.
    pub oscillate: Column<Oscillate>,
    /// [`Orbit`] behaviours.
    pub orbit: Column<Orbit>,
    /// Meshes to draw.
    pub mesh: Column<MeshRenderer>,
    /// Light sources.
    pub light: Column<Light>,
    /// Particle emitters.
    pub emitter: Column<Emitter>,
    /// Roots of imported model instances.
    pub model: Column<ModelInstance>,
    /// Nodes spawned from an imported model.
    pub model_part: Column<ModelPart>,
    /// Animation players.
    pub animator: Column<super::Animator>,
    /// Skinned meshes' joints.
    pub skin: Column<super::Skin>,
    /// Morph target weights.
    pub morph: Column<super::MorphWeights>,
    /// Prefab instances.
    pub prefab: Column<super::PrefabInstance>,
    /// Nodes spawned from a prefab.
    pub prefab_part: Column<super::PrefabPart>,
}

impl Components {
    /// Drops every component of `node`.
    pub(crate) fn remove_all(&mut self, node: NodeId) {
        self.spin.remove(node);
        self.oscillate.remove(node);
        self.orbit.remove(node);
        self.mesh.remove(node);
        self.light.remove(node);
        self.emitter.remove(node);
        self.model.remove(node);
        self.model_part.remove(node);
        self.animator.remove(node);
        self.skin.remove(node);
        self.morph.remove(node);
        self.prefab.remove(node);
        self.prefab_part.remove(node);
    }
}

/// A type stored in one of the scene's component columns.
pub trait Component: Sized + 'static {
    /// Its column.
    fn column(components: &Components) -> &Column<Self>;
    /// Its column, mutably.
    fn column_mut(components: &mut Components) -> &mut Column<Self>;
}

macro_rules! component {
    ($($ty:ty => $field:ident),* $(,)?) => {$(
        impl Component for $ty {
            fn column(components: &Components) -> &Column<Self> {
                &components.$field
            }
            fn column_mut(components: &mut Components) -> &mut Column<Self> {
                &mut components.$field
            }
        }
    )*};
}

component!(
    Spin => spin,
    Oscillate => oscillate,
    Orbit => orbit,
    MeshRenderer => mesh,
    Light => light,
    Emitter => emitter,
    ModelInstance => model,
    ModelPart => model_part,
    super::Animator => animator,
    super::Skin => skin,
    super::MorphWeights => morph,
    super::PrefabInstance => prefab,
    super::PrefabPart => prefab_part,
);

impl super::Scene {
    /// Gives `node` a component, returning the one it replaces.
    ///
    /// # Errors
    /// [`SceneError::StaleNode`](super::SceneError::StaleNode) if `node` is not alive.
    pub fn insert<C: Component>(
        &mut self,
        node: NodeId,
        component: C,
    ) -> Result<Option<C>, super::SceneError> {
        self.dense_or_err(node)?;
        Ok(C::column_mut(&mut self.components).insert(node, component))
    }

    /// Removes a component from `node`.
    pub fn remove<C: Component>(&mut self, node: NodeId) -> Option<C> {
        C::column_mut(&mut self.components).remove(node)
    }

    /// The component of `node`.
    pub fn get<C: Component>(&self, node: NodeId) -> Option<&C> {
        C::column(&self.components).get(node)
    }

    /// The component of `node`, mutably.
    pub fn get_mut<C: Component>(&mut self, node: NodeId) -> Option<&mut C> {
        C::column_mut(&mut self.components).get_mut(node)
    }
}
