//! Components a node can carry, each kind in its own packed [`Column`]: the
//! engine's own kinds (meshes, lights, emitters, models, animation, prefab
//! links) as named columns, and every registered [`Component`] (the built-in
//! behaviours and a game's types) in [`RegisteredColumns`].

use serde::{Deserialize, Serialize};

use super::registered::{Component, RegisteredColumns};
use super::{Column, NodeId};
use crate::assets::{Material, MeshRef};
use crate::light::Light;
use crate::particles::Emitter;

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

/// Components a file named that this build has no type for, kept as the file
/// wrote them so that saving loses nothing (see `scene::file`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnknownComponents(pub Vec<(&'static str, Box<ron::value::RawValue>)>);

/// One packed column per component kind.
#[derive(Clone, Debug, Default)]
pub struct Components {
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
    /// Components a file named that no registered type has (kept for saving).
    pub unknown: Column<UnknownComponents>,
    /// Every registered component type's column (behaviours, a game's types).
    pub registered: RegisteredColumns,
}

/// Calls `$method` on every column of a [`Components`] (destructured, so a
/// column added to the struct must be named here).
macro_rules! each_column {
    ($components:expr, $method:ident) => {{
        let Components {
            mesh,
            light,
            emitter,
            model,
            model_part,
            animator,
            skin,
            morph,
            prefab,
            prefab_part,
            unknown,
            registered,
        } = $components;
        mesh.$method();
        light.$method();
        emitter.$method();
        model.$method();
        model_part.$method();
        animator.$method();
        skin.$method();
        morph.$method();
        prefab.$method();
        prefab_part.$method();
        unknown.$method();
        registered.$method();
    }};
}

impl Components {
    /// Owners and values of `T`, in storage order (empty when no node has
    /// one): a column read whole. To walk several columns, or to set
    /// transforms while walking, use [`Scene::query_each`].
    ///
    /// [`Scene::query_each`]: crate::Scene::query_each
    pub fn parts<T: Stored>(&self) -> (&[NodeId], &[T]) {
        T::column(self).map_or((&[], &[]), Column::parts)
    }

    /// Owners and mutable values of `T`, in storage order (see
    /// [`Components::parts`]).
    pub fn parts_mut<T: Stored>(&mut self) -> (&[NodeId], &mut [T]) {
        T::column_mut(self).parts_mut()
    }

    /// Starts a step's undo: each column copies itself aside at its first
    /// mutable access (see [`Column::arm`]).
    pub(crate) fn arm(&mut self) {
        each_column!(self, arm);
    }

    /// Ends a step's undo: the step stands.
    pub(crate) fn disarm(&mut self) {
        each_column!(self, disarm);
    }

    /// Puts every column back as it was when armed.
    pub(crate) fn roll_back(&mut self) {
        each_column!(self, roll_back);
    }

    /// Drops every component of `node`.
    pub(crate) fn remove_all(&mut self, node: NodeId) {
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
        self.unknown.remove(node);
        self.registered.remove_all(node);
    }

    /// The column of `T`, if it has one yet (registered columns are made
    /// when the first node gets the component).
    pub fn column<T: Stored>(&self) -> Option<&Column<T>> {
        T::column(self)
    }

    /// The column of `T`, made if missing.
    pub fn column_mut<T: Stored>(&mut self) -> &mut Column<T> {
        T::column_mut(self)
    }
}

/// A type stored in one of the scene's component columns: the engine's own
/// kinds and every [`Component`].
pub trait Stored: Sized + 'static {
    /// Its column, if there is one yet.
    fn column(components: &Components) -> Option<&Column<Self>>;
    /// Its column, made if missing.
    fn column_mut(components: &mut Components) -> &mut Column<Self>;
    /// Its column, mutably, if there is one yet (reads and removals make none).
    fn existing_mut(components: &mut Components) -> Option<&mut Column<Self>>;
}

impl<C: Component> Stored for C {
    fn column(components: &Components) -> Option<&Column<Self>> {
        components.registered.get::<C>()
    }
    fn column_mut(components: &mut Components) -> &mut Column<Self> {
        components.registered.get_or_insert::<C>()
    }
    fn existing_mut(components: &mut Components) -> Option<&mut Column<Self>> {
        components.registered.get_mut::<C>()
    }
}

macro_rules! stored {
    ($($ty:ty => $field:ident),* $(,)?) => {$(
        impl Stored for $ty {
            fn column(components: &Components) -> Option<&Column<Self>> {
                Some(&components.$field)
            }
            fn column_mut(components: &mut Components) -> &mut Column<Self> {
                &mut components.$field
            }
            fn existing_mut(components: &mut Components) -> Option<&mut Column<Self>> {
                Some(&mut components.$field)
            }
        }
    )*};
}

stored!(
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
    UnknownComponents => unknown,
);

impl super::Scene {
    /// Gives `node` a component, returning the one it replaces.
    ///
    /// # Errors
    /// [`NodeError::StaleNode`](super::NodeError::StaleNode) if `node` is not alive.
    pub fn insert<C: Stored>(
        &mut self,
        node: NodeId,
        component: C,
    ) -> Result<Option<C>, super::NodeError> {
        self.dense_or_err(node)?;
        Ok(C::column_mut(&mut self.components).insert(node, component))
    }

    /// Removes a component from `node`.
    pub fn remove<C: Stored>(&mut self, node: NodeId) -> Option<C> {
        C::existing_mut(&mut self.components)?.remove(node)
    }

    /// The component of `node`.
    pub fn get<C: Stored>(&self, node: NodeId) -> Option<&C> {
        C::column(&self.components)?.get(node)
    }

    /// The component of `node`, mutably.
    pub fn get_mut<C: Stored>(&mut self, node: NodeId) -> Option<&mut C> {
        C::existing_mut(&mut self.components)?.get_mut(node)
    }
}
