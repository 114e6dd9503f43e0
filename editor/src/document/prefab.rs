//! Prefabs in the editor: what a part overrides (and putting a field back),
//! saving a subtree as a prefab, and bringing instances up to date when
//! their prefab file changed (saved here, or by another program).
//!
//! An instance is brought up to date by writing it as the scene file would
//! (its overrides against the prefab it was made from) and spawning that
//! again against the prefab as it is now: every override survives, and the
//! swap is one undo entry.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use keel_engine::scene::{
    NodeRecord, Prefab, PrefabInstance, PrefabPart, SceneFile, expand_records,
};
use keel_engine::scene::{overridden_fields, reverted};
use keel_engine::{NodeId, SceneError};

use super::Document;
use crate::component::{ComponentKind, ComponentValue};
use crate::subtree::Placement;
use crate::undo::{Edit, EditError};

/// What the inspector shows of a node's prefab link.
#[derive(Clone, Debug, PartialEq)]
pub enum PrefabLink {
    /// The node is an instance of this prefab file.
    Instance {
        /// The prefab file.
        source: PathBuf,
        /// Keys of the prefab's nodes this instance removed.
        removed: Vec<String>,
        /// Keys the instance's file overrides or removes that the prefab no
        /// longer has (kept and saved until removed).
        orphans: Vec<String>,
    },
    /// The node is a part of an instance.
    Part {
        /// The instance.
        instance: NodeId,
        /// The prefab file.
        source: PathBuf,
        /// The part's key in the prefab.
        key: String,
        /// Dotted paths of the fields this instance changed (`name`,
        /// `transform.translation`, `mesh.material.base_color`).
        overridden: Vec<String>,
    },
}

fn scene_error(action: &str) -> impl FnOnce(SceneError) -> EditError + '_ {
    move |source| EditError::Scene {
        action: action.to_string(),
        source,
    }
}

impl Document {
    /// The prefab instance `node` belongs to as a part, with its key.
    fn owner_of(&self, node: NodeId) -> Option<(NodeId, &PrefabInstance, &str)> {
        let scene = self.scene();
        let part = scene.get::<PrefabPart>(node)?;
        let instance = std::iter::successors(scene.parent(node), |&p| scene.parent(p))
            .find(|&p| scene.get::<PrefabInstance>(p).is_some())?;
        Some((instance, scene.get::<PrefabInstance>(instance)?, &part.key))
    }

    /// How `node` is tied to a prefab, if it is.
    pub fn prefab_link(&self, node: NodeId) -> Option<PrefabLink> {
        let scene = self.scene();
        if let Some(instance) = scene.get::<PrefabInstance>(node) {
            let records = scene.to_records(&[node], None);
            let orphans: Vec<String> = instance.orphans.keys().map(str::to_owned).collect();
            let mut removed = records.into_iter().next()?.removed;
            removed.retain(|key| !orphans.contains(key));
            return Some(PrefabLink::Instance {
                source: instance.source.clone(),
                removed,
                orphans,
            });
        }
        let (instance, prefab, key) = self.owner_of(node)?;
        // In the prefab's form: an untouched reference is no override.
        let current = scene.part_record(node)?;
        let overridden = prefab
            .prefab
            .node(key)
            .map(|original| overridden_fields(original, &current))
            .unwrap_or_default();
        Some(PrefabLink::Part {
            instance,
            source: prefab.source.clone(),
            key: key.to_string(),
            overridden,
        })
    }

    /// Puts the dotted `field` of the part `node` back to its prefab's value;
    /// one undo entry.
    ///
    /// # Errors
    /// [`EditError::NoSuchNode`] when `node` is no part of an instance;
    /// [`EditError::Scene`] when the field cannot be put back.
    pub fn revert_override(&mut self, node: NodeId, field: &str) -> Result<(), EditError> {
        let (_, prefab, key) = self.owner_of(node).ok_or(EditError::NoSuchNode { node })?;
        let original = prefab
            .prefab
            .node(key)
            .ok_or(EditError::NoSuchNode { node })?;
        let current = self
            .scene()
            .part_record(node)
            .ok_or(EditError::NoSuchNode { node })?;
        let registry = self.scene().registry();
        let mut record = reverted(original, &current, field, &registry).map_err(|message| {
            EditError::Revert {
                field: field.to_string(),
                message,
            }
        })?;
        // Back from the prefab's form: its places name this instance's parts.
        self.scene().resolve_part_refs(node, &mut record);
        self.set_record(node, &record, format!("Revert {field}"))
    }

    /// Forgets what the instance `node` kept for `key`, a key its prefab no
    /// longer has (see [`keel_engine::scene::Orphans`]); one undo entry.
    ///
    /// # Errors
    /// [`EditError::NoSuchNode`] when `node` is no instance or keeps nothing for `key`.
    pub fn remove_orphan(&mut self, node: NodeId, key: &str) -> Result<(), EditError> {
        self.editable(node)?;
        let instance = self
            .scene()
            .get::<PrefabInstance>(node)
            .ok_or(EditError::NoSuchNode { node })?;
        let before = instance.orphans.clone();
        let mut after = before.clone();
        if !after.remove(key) {
            return Err(EditError::NoSuchNode { node });
        }
        self.apply(
            Edit::Orphans {
                node,
                before,
                after,
            },
            format!("Remove orphaned override {key}"),
            None,
        )
    }

    /// Makes `node`'s name, transform and components those of `record`, as
    /// one undo entry (nothing when they already are).
    fn set_record(
        &mut self,
        node: NodeId,
        record: &NodeRecord,
        label: String,
    ) -> Result<(), EditError> {
        self.editable(node)?;
        let scene = self.scene();
        let mut edits = Vec::new();
        let name = scene.name(node).ok_or(EditError::NoSuchNode { node })?;
        if name != record.name {
            edits.push(Edit::Rename {
                node,
                before: name.to_string(),
                after: record.name.clone(),
            });
        }
        let before = scene.local(node).ok_or(EditError::NoSuchNode { node })?;
        if before != record.transform {
            edits.push(Edit::Transform {
                node,
                before,
                after: record.transform,
            });
        }
        let wanted = ComponentValue::from_record(record);
        let mut kinds = ComponentKind::all(&scene.registry());
        // Components of types this build lacks the registry's names for.
        for kind in wanted.iter().map(ComponentValue::kind) {
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        for kind in kinds {
            let before = kind.get(scene, node);
            let after = wanted.iter().find(|v| v.kind() == kind).cloned();
            if before != after {
                edits.push(Edit::Component {
                    node,
                    kind,
                    before,
                    after,
                });
            }
        }
        match edits.len() {
            0 => Ok(()),
            1 => self.apply(edits.remove(0), label, None),
            _ => self.apply(Edit::Group(edits), label, None),
        }
    }

    /// Saves the children of `node` (their subtrees) as a prefab file at
    /// `path`, and makes `node` an instance of it in their place (one undo
    /// entry); `node` keeps its name, transform and components.
    ///
    /// # Errors
    /// [`EditError::Scene`] when the file cannot be written (nothing changes
    /// then) or read back.
    pub fn save_as_prefab(&mut self, node: NodeId, path: &Path) -> Result<NodeId, EditError> {
        self.editable(node)?;
        let scene = self.scene();
        let children: Vec<NodeId> = scene.children(node).collect();
        let file = SceneFile::new(
            Default::default(),
            scene.to_records(&children, path.parent()),
        );
        file.write(path).map_err(scene_error("save prefab"))?;
        let source = std::fs::canonicalize(path).map_err(|source| EditError::Scene {
            action: "save prefab".into(),
            source: SceneError::Io {
                path: path.to_path_buf(),
                source,
            },
        })?;
        let mut record = self.scene().record_of(node, None);
        record.prefab = Some(source.to_string_lossy().into_owned());
        let label = format!("Save {} as prefab", record.name);
        self.replace_with(node, &[record], label)
    }

    /// Brings every instance whose prefab file (or a prefab it pulls in)
    /// changed on disk up to date, keeping its overrides; one undo entry
    /// each. Returns how many were updated.
    ///
    /// # Errors
    /// The first instance whose prefab no longer loads (a broken file keeps
    /// the instances as they are).
    pub fn refresh_prefabs(&mut self) -> Result<usize, EditError> {
        let scene = self.scene();
        let files = &scene.assets().limits().source;
        // One look at the disk per distinct prefab (a fleet shares one).
        let mut stale_prefab: HashMap<*const Prefab, bool> = HashMap::new();
        let stale: Vec<NodeId> = scene
            .components()
            .prefab
            .iter()
            .filter(|(_, p)| {
                *stale_prefab
                    .entry(Arc::as_ptr(&p.prefab))
                    .or_insert_with(|| p.prefab.is_stale(files))
            })
            .map(|(n, _)| n)
            .collect();
        let mut updated = 0;
        for node in stale {
            // An instance inside an updated one was replaced with it.
            if !self.scene().contains(node) {
                continue;
            }
            // With its overrides and added nodes, against the prefab as it is now.
            let file = self.scene().to_records(&[node], None);
            let label = format!("Update {} from its prefab", file[0].name);
            self.replace_with(node, &file, label)?;
            updated += 1;
        }
        Ok(updated)
    }

    /// Replaces the subtree of `node` with `file` (a scene file's records,
    /// absolute paths; prefab instances expanded against their prefabs as
    /// they are now); one undo entry. Returns the new root.
    fn replace_with(
        &mut self,
        node: NodeId,
        file: &[NodeRecord],
        label: String,
    ) -> Result<NodeId, EditError> {
        let selected = self.selection.contains(node);
        let at = Placement::of(self.scene(), node).ok_or(EditError::NoSuchNode { node })?;
        let origin = Path::new("<prefab instance>");
        let host = self.path.clone();
        let assets = self.scene().assets().clone();
        let records = expand_records(file, origin, host.as_deref(), &assets)
            .map_err(scene_error("update prefab"))?;
        let mut edits = Vec::new();
        self.push_despawn(&mut edits, node)?;
        let root = self.push_spawn(&mut edits, at, records)?;
        self.record(Edit::Group(edits), label);
        if selected {
            self.selection.add(root);
        }
        Ok(root)
    }
}
