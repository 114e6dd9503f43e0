//! Imported models in the scene graph: a [`ModelInstance`] node whose children
//! are the model file's hierarchy, rebuilt from the file whenever the scene
//! loads, the way prefab (Unity) or instanced-scene (Godot) nodes work.
//!
//! Pattern: flyweight again: an instance's nodes hold handles to meshes and
//! textures the registry loaded once; ten lighthouses cost ten small subtrees,
//! not ten copies of the vertex data.

use std::path::Path;
use std::sync::Arc;

use super::{
    MeshRenderer, ModelInstance, ModelPart, MorphWeights, NodeId, Scene, SceneError, Skin,
};
use crate::assets::{MeshRef, Model, ModelWarning};

impl Scene {
    /// Imports the model file at `path` (or reuses the registry's copy) and
    /// spawns an instance of it: a node named `name` under `parent`, with the
    /// file's hierarchy as its children. Returns the node and what the import
    /// skipped.
    ///
    /// # Errors
    /// [`SceneError::Model`] naming the file and the element at fault (nothing
    /// is spawned then); [`NodeError::StaleNode`](crate::NodeError::StaleNode) for a dead parent.
    pub fn spawn_model(
        &mut self,
        parent: Option<NodeId>,
        name: impl Into<String>,
        transform: super::Transform,
        path: &Path,
    ) -> Result<(NodeId, Vec<ModelWarning>), SceneError> {
        let model = self.assets().load_model(path)?;
        let root = self.spawn(parent, name, transform)?;
        if let Err(error) = self.instantiate_model(root, &model) {
            // The root was spawned just above, so it is alive.
            let _ = self.despawn(root);
            return Err(error);
        }
        Ok((root, model.warnings.clone()))
    }

    /// Makes `root` an instance of `model`: marks it and spawns the model's
    /// hierarchy as its children, each node a [`ModelPart`]. A glTF mesh with
    /// several primitives gets one extra child per primitive after the first.
    ///
    /// # Errors
    /// [`NodeError::StaleNode`](crate::NodeError::StaleNode) for a dead root;
    /// [`NodeError::InvalidTransform`](crate::NodeError::InvalidTransform)
    /// for a model node whose transform is not finite (no part stays behind then).
    pub fn instantiate_model(
        &mut self,
        root: NodeId,
        model: &Arc<Model>,
    ) -> Result<(), SceneError> {
        self.insert(
            root,
            ModelInstance {
                source: model.path.clone(),
                model: Arc::clone(model),
            },
        )?;
        let mut ids: Vec<NodeId> = Vec::with_capacity(model.data.nodes.len());
        for (index, node) in model.data.nodes.iter().enumerate() {
            let parent = node
                .parent
                .and_then(|p| ids.get(p).copied())
                .unwrap_or(root);
            let spawned = self.spawn_part(parent, index, model);
            match spawned {
                Ok(id) => ids.push(id),
                Err(error) => {
                    for part in self.children(root).collect::<Vec<_>>() {
                        if self.get::<ModelPart>(part).is_some() {
                            let _ = self.despawn(part);
                        }
                    }
                    self.remove::<ModelInstance>(root);
                    return Err(error);
                }
            }
        }
        self.attach_skins(model, &ids);
        Ok(())
    }

    /// Gives every skinned mesh node of a new instance (`ids`: its node of
    /// each model node) a [`Skin`] with the instance's joints.
    fn attach_skins(&mut self, model: &Model, ids: &[NodeId]) {
        let skins: Vec<Option<Skin>> = model
            .data
            .skins
            .iter()
            .map(|skin| {
                let joints = skin.joints.iter().map(|&j| ids.get(j as usize).copied());
                Some(Skin {
                    joints: joints.collect::<Option<Vec<_>>>()?,
                    inverse_bind: skin.bind_rows.clone(),
                })
            })
            .collect();
        for (index, node) in model.data.nodes.iter().enumerate() {
            let (Some(s), Some(&id)) = (node.skin, ids.get(index)) else {
                continue;
            };
            let Some(Some(skin)) = skins.get(s) else {
                continue;
            };
            // The node and the extra children holding its other primitives.
            let primitives: Vec<NodeId> = std::iter::once(id)
                .chain(self.children(id).filter(|&c| {
                    self.get::<ModelPart>(c).map(|p| p.gltf_node as usize) == Some(index)
                }))
                .filter(|&n| self.get::<MeshRenderer>(n).is_some())
                .collect();
            for target in primitives {
                let _ = self.insert(target, skin.clone());
            }
        }
    }

    fn spawn_part(
        &mut self,
        parent: NodeId,
        index: usize,
        model: &Model,
    ) -> Result<NodeId, SceneError> {
        let node = &model.data.nodes[index];
        let (name, mesh) = (&node.name, node.mesh);
        let part = ModelPart {
            gltf_node: u32::try_from(index).unwrap_or(u32::MAX),
        };
        let id = self.spawn(Some(parent), name, node.transform)?;
        self.insert(id, part)?;
        if let Some(light) = node.light {
            self.insert(id, light)?;
        }
        let primitives = mesh
            .and_then(|m| model.primitives.get(m))
            .map_or(&[][..], Vec::as_slice);
        for (k, &(handle, material)) in primitives.iter().enumerate() {
            let renderer = MeshRenderer {
                cast_shadows: true,
                mesh: MeshRef::Asset(handle),
                material,
            };
            let target = if k == 0 {
                id
            } else {
                let extra =
                    self.spawn(Some(id), format!("{name} #{k}"), super::Transform::IDENTITY)?;
                self.insert(extra, part)?;
                extra
            };
            self.insert(target, renderer)?;
            if !node.weights.is_empty() {
                let weights = node.weights.clone();
                self.insert(target, MorphWeights { weights })?;
            }
        }
        Ok(id)
    }

    /// Whether `node` was spawned from a model file (and is rebuilt from it,
    /// so edits to it would not be saved).
    #[must_use]
    pub fn is_model_part(&self, node: NodeId) -> bool {
        self.get::<ModelPart>(node).is_some()
    }
}
