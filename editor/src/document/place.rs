//! Adding to a document: empty nodes, primitives, and instances of models
//! and prefabs (imported from the menu, dropped from the asset browser),
//! each one undo entry that selects what it added.

use std::path::Path;

use keel_engine::Primitive;
use keel_engine::assets::ModelWarning;
use keel_engine::scene::{NodeRecord, expand_records};
use keel_engine::{NodeId, SceneError, Transform};

use super::{Document, primitive_name};
use crate::component::{ComponentKind, ComponentValue};
use crate::subtree::{self, Placement};
use crate::undo::EditError;

impl Document {
    /// Adds a node with the given components as the last child of `parent`; selects it.
    ///
    /// # Errors
    /// [`EditError::NoSuchNode`] for a dead parent.
    pub fn add_node(
        &mut self,
        parent: Option<NodeId>,
        name: &str,
        components: &[ComponentValue],
    ) -> Result<NodeId, EditError> {
        self.check_parent(parent)?;
        let mut record = NodeRecord::new(name);
        for c in components {
            c.clone().store_in(&mut record);
        }
        self.spawn_last(parent, vec![record], "Add")
    }

    /// Adds a node drawing `primitive` with the default material; selects it.
    ///
    /// # Errors
    /// As [`Document::add_node`].
    pub fn add_primitive(
        &mut self,
        parent: Option<NodeId>,
        primitive: Primitive,
    ) -> Result<NodeId, EditError> {
        let name = primitive_name(primitive);
        let Some(ComponentValue::Mesh(mut mesh)) =
            ComponentKind::Mesh.default_value(&self.scene().registry())
        else {
            unreachable!("the default of Mesh is a mesh")
        };
        mesh.mesh = primitive.into();
        self.add_node(parent, name, &[ComponentValue::Mesh(mesh)])
    }

    /// Imports a glTF model (`.gltf` or `.glb`) as an instance under `parent`
    /// (last child), named after the file; one undo entry; selects it. Returns
    /// the instance node and what the import skipped.
    ///
    /// # Errors
    /// [`EditError::Scene`] with the model error (file and element named) when
    /// the file cannot be imported: nothing changes then. As [`Document::add_node`].
    pub fn import_model(
        &mut self,
        parent: Option<NodeId>,
        path: &Path,
    ) -> Result<(NodeId, Vec<ModelWarning>), EditError> {
        let model = self
            .scene()
            .assets()
            .load_model(path)
            .map_err(|e| EditError::Scene {
                action: format!("import {}", path.display()),
                source: e.into(),
            })?;
        let node = self.spawn_asset(&model.path, parent, None, "Import")?;
        Ok((node, model.warnings.clone()))
    }

    /// Adds an instance of the model or prefab (scene file) at `path` under
    /// `parent` (at the root for `None`), its origin at `world_at` when given;
    /// one undo entry; selects it.
    ///
    /// # Errors
    /// [`EditError::NotPlaceable`] for another kind of file;
    /// [`EditError::Scene`] for a file that does not load, or a prefab that
    /// would contain this document's own file.
    pub fn place_asset(
        &mut self,
        path: &Path,
        parent: Option<NodeId>,
        world_at: Option<glam::Vec3>,
    ) -> Result<NodeId, EditError> {
        self.spawn_asset(path, parent, world_at, "Place")
    }

    fn spawn_asset(
        &mut self,
        path: &Path,
        parent: Option<NodeId>,
        world_at: Option<glam::Vec3>,
        verb: &str,
    ) -> Result<NodeId, EditError> {
        self.check_parent(parent)?;
        let refused = |source: SceneError| EditError::Scene {
            action: format!("place {}", path.display()),
            source,
        };
        let canonical = std::fs::canonicalize(path).map_err(|source| {
            refused(SceneError::Io {
                path: path.to_path_buf(),
                source,
            })
        })?;
        let name = path
            .file_stem()
            .map_or_else(|| "asset".to_string(), |s| s.to_string_lossy().into_owned());
        let mut record = NodeRecord::new(&name);
        let written = canonical.to_string_lossy().into_owned();
        let model = self.scene().assets().importers().reads(path);
        match path.extension().and_then(|e| e.to_str()) {
            _ if model => record.model = Some(written),
            Some("ron") => record.prefab = Some(written),
            _ => {
                return Err(EditError::NotPlaceable {
                    path: path.to_path_buf(),
                });
            }
        }
        if let Some(at) = world_at {
            let parent_world = parent.and_then(|p| self.scene().world(p));
            let local = parent_world.map_or(at, |w| w.inverse().transform_point3(at));
            record.transform = Transform::from_translation(local);
        }
        let host = self.path.clone();
        let assets = self.scene().assets().clone();
        let records = expand_records(&[record], path, host.as_deref(), &assets).map_err(refused)?;
        self.spawn_last(parent, records, verb)
    }

    /// Refuses a dead parent, or one spawned from a model file.
    fn check_parent(&self, parent: Option<NodeId>) -> Result<(), EditError> {
        let Some(p) = parent else {
            return Ok(());
        };
        if !self.scene().contains(p) {
            return Err(EditError::NoSuchNode { node: p });
        }
        self.editable(p)
    }

    /// Spawns `records` (a subtree) as the last child of `parent` (or root);
    /// one undo entry ("`verb` name"); selects it.
    fn spawn_last(
        &mut self,
        parent: Option<NodeId>,
        records: Vec<NodeRecord>,
        verb: &str,
    ) -> Result<NodeId, EditError> {
        let index = subtree::sibling_count(self.scene(), parent);
        let mut edits = Vec::new();
        let root = self.push_spawn(&mut edits, Placement { parent, index }, records)?;
        self.record_spawns(edits, &[root], verb);
        Ok(root)
    }
}
