//! The undo stack: every change the editor makes to a scene is an [`Edit`]
//! that knows how to apply itself forwards and backwards (command pattern).
//!
//! Edits hold [`NodeId`]s. Some edits recreate nodes (undoing a delete,
//! redoing an add or a duplicate), and recreated nodes get new handles; the
//! edit reports old → new in a [`Remap`], and the stack rewrites every handle
//! it holds (and the caller its own: selection, expanded rows), so older
//! entries keep pointing at the right nodes. Generational handles make this
//! safe: a dead handle is never handed out again, so an old id can't alias a
//! new node.
//!
//! Dragging a value produces one change per frame; those that share a merge
//! key (one per drag) fold into a single entry, so a whole drag undoes at once.
//!
//! Each entry carries a revision number, unique for the stack's life: the
//! document is unsaved exactly when the revision on top differs from the one
//! saved (the editor's dirty flag).

use std::collections::HashMap;

use keel_engine::scene::{NodeRecord, Orphans, PrefabInstance};
use keel_engine::{Environment, Keep, NodeId, Scene, SceneError, Transform};

use crate::component::{ComponentKind, ComponentValue};
use crate::subtree::{self, Placement};

/// Old handle → new handle, for nodes recreated by an undo or redo.
pub type Remap = HashMap<NodeId, NodeId>;

/// Why an edit could not be made, undone or redone.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    /// The scene refused the change (a node died under the edit, a bad value).
    #[error("{action}: {source}")]
    Scene {
        /// What was being done.
        action: String,
        /// What the scene said.
        #[source]
        source: SceneError,
    },
    /// Reparenting onto the node itself or one of its descendants.
    #[error("cannot move `{node}` under `{new_parent}`: that is inside its own subtree")]
    Cycle {
        /// Name of the node being moved.
        node: String,
        /// Name of the refused new parent.
        new_parent: String,
    },
    /// A component value a scene file would reject.
    #[error("`{node}`: invalid {kind} values {value}")]
    InvalidComponent {
        /// Name of the node.
        node: String,
        /// The component's kind, as shown in the UI.
        kind: String,
        /// The refused value.
        value: String,
    },
    /// A subtree edit that holds no nodes.
    #[error("{action}: the edit holds no nodes")]
    Empty {
        /// What was being done.
        action: &'static str,
    },
    /// The node is gone (deleted, or never existed).
    #[error("no such node: {node}")]
    NoSuchNode {
        /// The stale handle.
        node: NodeId,
    },
    /// Only models and scene files (prefabs) can be placed in a scene.
    #[error("{}: only glTF models and scene files (prefabs) can be placed in a scene", path.display())]
    NotPlaceable {
        /// The file.
        path: std::path::PathBuf,
    },
    /// A prefab part's field could not be put back to the prefab's value.
    #[error("revert `{field}` to the prefab: {message}")]
    Revert {
        /// The dotted field.
        field: String,
        /// Why.
        message: String,
    },
    /// The node was spawned from a model file, which is rebuilt at each load:
    /// edits to it could not be saved, so they are refused.
    #[error(
        "`{node}` is part of the model {model}: edit the model file, or the instance node above it"
    )]
    ModelPart {
        /// Name of the node.
        node: String,
        /// The model file.
        model: String,
    },
}

fn scene_err<E: Into<SceneError>>(action: &str) -> impl FnOnce(E) -> EditError + '_ {
    move |source| EditError::Scene {
        action: action.to_string(),
        source: source.into(),
    }
}

/// One reversible change to a scene.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// A node's local transform.
    Transform {
        /// The node.
        node: NodeId,
        /// Before the change.
        before: Transform,
        /// After the change.
        after: Transform,
    },
    /// A node's name.
    Rename {
        /// The node.
        node: NodeId,
        /// Before the change.
        before: String,
        /// After the change.
        after: String,
    },
    /// A node (with its subtree) moved under another parent.
    Reparent {
        /// The node.
        node: NodeId,
        /// Where it was.
        from: Placement,
        /// Where it went.
        to: Placement,
        /// Its local transform where it was.
        before: Transform,
        /// Its local transform where it went (so it stayed put in the world).
        after: Transform,
    },
    /// A subtree created (add node, add primitive, duplicate, paste).
    Spawn {
        /// Where its root goes.
        at: Placement,
        /// The subtree, as made by `subtree::extract`.
        records: Vec<NodeRecord>,
        /// Its nodes while they exist (record order).
        ids: Vec<NodeId>,
    },
    /// A subtree removed.
    Despawn {
        /// Where its root was.
        at: Placement,
        /// The subtree, as made by `subtree::extract`.
        records: Vec<NodeRecord>,
        /// Its nodes while they exist (record order).
        ids: Vec<NodeId>,
    },
    /// A component added (`before` is `None`), removed (`after` is `None`) or changed.
    Component {
        /// The node.
        node: NodeId,
        /// Which component.
        kind: ComponentKind,
        /// Before the change.
        before: Option<ComponentValue>,
        /// After the change.
        after: Option<ComponentValue>,
    },
    /// What a prefab instance keeps for keys its prefab lacks.
    Orphans {
        /// The instance.
        node: NodeId,
        /// Before the change.
        before: Orphans,
        /// After the change.
        after: Orphans,
    },
    /// The scene's environment (background, ambient light, shadows).
    Environment {
        /// Before the change.
        before: Environment,
        /// After the change.
        after: Environment,
    },
    /// Several edits made as one (delete of a multi-selection, say); undone in reverse.
    Group(Vec<Edit>),
}

impl Edit {
    /// Applies the edit forwards (`redo`) or backwards (`undo`).
    ///
    /// Handles of nodes it recreates are added to `remap`, and the edit itself
    /// is updated to the new handles.
    ///
    /// # Errors
    /// [`EditError::Scene`] when a node it refers to is gone.
    pub fn apply(
        &mut self,
        scene: &mut Scene,
        forward: bool,
        remap: &mut Remap,
    ) -> Result<(), EditError> {
        match self {
            Edit::Transform {
                node,
                before,
                after,
            } => {
                let value = if forward { *after } else { *before };
                scene
                    .teleport(*node, value)
                    .map_err(scene_err("set transform"))?;
            }
            Edit::Rename {
                node,
                before,
                after,
            } => {
                let value = if forward {
                    after.clone()
                } else {
                    before.clone()
                };
                scene.set_name(*node, value).map_err(scene_err("rename"))?;
            }
            Edit::Reparent {
                node,
                from,
                to,
                before,
                after,
            } => {
                let (place, local) = if forward {
                    (*to, *after)
                } else {
                    (*from, *before)
                };
                scene
                    .reparent_at(*node, place.parent, place.index, Keep::Local)
                    .map_err(scene_err("reparent"))?;
                scene
                    .teleport(*node, local)
                    .map_err(scene_err("reparent"))?;
            }
            Edit::Spawn { at, records, ids } => {
                if forward {
                    respawn(scene, *at, records, ids, remap)?;
                } else {
                    despawn(scene, ids)?;
                }
            }
            Edit::Despawn { at, records, ids } => {
                if forward {
                    despawn(scene, ids)?;
                } else {
                    respawn(scene, *at, records, ids, remap)?;
                }
            }
            Edit::Component {
                node,
                kind,
                before,
                after,
            } => {
                let value = if forward { after } else { before }.clone();
                if !scene.contains(*node) {
                    return Err(EditError::NoSuchNode { node: *node });
                }
                match value {
                    Some(v) => v.insert(scene, *node).map_err(scene_err("set component"))?,
                    None => {
                        kind.remove(scene, *node);
                    }
                }
            }
            Edit::Orphans {
                node,
                before,
                after,
            } => {
                let value = if forward { after } else { before }.clone();
                let instance = scene
                    .get_mut::<PrefabInstance>(*node)
                    .ok_or(EditError::NoSuchNode { node: *node })?;
                instance.orphans = value;
            }
            Edit::Environment { before, after } => {
                *scene.environment_mut() = if forward { after } else { before }.clone();
            }
            Edit::Group(edits) => {
                let count = edits.len();
                for step in 0..count {
                    let i = if forward { step } else { count - 1 - step };
                    let mut local = Remap::new();
                    edits[i].apply(scene, forward, &mut local)?;
                    if !local.is_empty() {
                        for edit in edits.iter_mut() {
                            edit.remap(&local);
                        }
                        remap.extend(local);
                    }
                }
            }
        }
        Ok(())
    }

    /// Rewrites every handle the edit holds that `map` knows.
    pub fn remap(&mut self, map: &Remap) {
        let fix = |id: &mut NodeId| {
            if let Some(&new) = map.get(id) {
                *id = new;
            }
        };
        let fix_place = |p: &mut Placement| {
            if let Some(parent) = p.parent.as_mut()
                && let Some(&new) = map.get(parent)
            {
                *parent = new;
            }
        };
        match self {
            Edit::Transform { node, .. }
            | Edit::Rename { node, .. }
            | Edit::Orphans { node, .. }
            | Edit::Component { node, .. } => fix(node),
            Edit::Reparent { node, from, to, .. } => {
                fix(node);
                fix_place(from);
                fix_place(to);
            }
            Edit::Spawn { at, records, ids } | Edit::Despawn { at, records, ids } => {
                fix_place(at);
                ids.iter_mut().for_each(fix);
                // A reference by handle to a node outside the subtree (another
                // root of one paste) follows that node when it is recreated.
                subtree::remap_records(records, map);
            }
            Edit::Group(edits) => edits.iter_mut().for_each(|e| e.remap(map)),
            Edit::Environment { .. } => {}
        }
    }

    /// Folds `next` into this edit when both change the same value of the same
    /// node (successive frames of one drag). Returns whether it did.
    fn absorb(&mut self, next: &Edit) -> bool {
        match (self, next) {
            // One drag of a multi-selection: the same nodes' transforms.
            (Edit::Group(edits), Edit::Group(next))
                if edits.len() == next.len()
                    && edits.iter().zip(next).all(|pair| {
                        matches!(pair, (Edit::Transform { node, .. }, Edit::Transform { node: n, .. }) if node == n)
                    }) =>
            {
                edits.iter_mut().zip(next).all(|(e, n)| e.absorb(n))
            }
            (Edit::Environment { after, .. }, Edit::Environment { after: a, .. }) => {
                after.clone_from(a);
                true
            }
            (
                Edit::Transform { node, after, .. },
                Edit::Transform {
                    node: n, after: a, ..
                },
            ) if node == n => {
                after.clone_from(a);
                true
            }
            (
                Edit::Rename { node, after, .. },
                Edit::Rename {
                    node: n, after: a, ..
                },
            ) if node == n => {
                after.clone_from(a);
                true
            }
            (
                Edit::Component {
                    node,
                    kind,
                    before: Some(_),
                    after: after @ Some(_),
                },
                Edit::Component {
                    node: n,
                    kind: k,
                    before: Some(_),
                    after: a @ Some(_),
                },
            ) if node == n && kind == k => {
                after.clone_from(a);
                true
            }
            _ => false,
        }
    }
}

fn despawn(scene: &mut Scene, ids: &[NodeId]) -> Result<(), EditError> {
    let root = *ids.first().ok_or(EditError::Empty { action: "delete" })?;
    scene.despawn(root).map_err(scene_err("delete"))?;
    Ok(())
}

fn respawn(
    scene: &mut Scene,
    at: Placement,
    records: &[NodeRecord],
    ids: &mut Vec<NodeId>,
    remap: &mut Remap,
) -> Result<(), EditError> {
    let new = subtree::spawn(scene, records, at).map_err(scene_err("restore"))?;
    // A first application has no old handles to map from.
    for (&old, &new) in ids.iter().zip(&new) {
        remap.insert(old, new);
    }
    *ids = new;
    Ok(())
}

/// One entry of the stack.
#[derive(Clone, Debug)]
struct Entry {
    edit: Edit,
    label: String,
    revision: u64,
    merge: Option<u64>,
}

/// What an undo or redo did.
#[derive(Clone, Debug, Default)]
pub struct Applied {
    /// The entry's label ("Delete cube").
    pub label: String,
    /// Handles that changed because nodes were recreated.
    pub remap: Remap,
}

/// The undo and redo stacks.
#[derive(Clone, Debug)]
pub struct UndoStack {
    done: Vec<Entry>,
    undone: Vec<Entry>,
    next_revision: u64,
    limit: usize,
}

impl Default for UndoStack {
    fn default() -> Self {
        Self::new()
    }
}

impl UndoStack {
    /// How many entries are kept by default; the oldest go first.
    pub const DEFAULT_LIMIT: usize = 1000;

    /// An empty stack.
    pub fn new() -> Self {
        Self::with_limit(Self::DEFAULT_LIMIT)
    }

    /// An empty stack keeping at most `limit` entries (at least 1).
    pub fn with_limit(limit: usize) -> Self {
        Self {
            done: Vec::new(),
            undone: Vec::new(),
            next_revision: 1,
            limit: limit.max(1),
        }
    }

    /// Records an edit that has already been applied to the scene.
    ///
    /// With a `merge` key equal to the top entry's, and an edit of the same
    /// value of the same node, the top entry absorbs it instead (one drag, one
    /// entry). Recording clears the redo stack.
    pub fn push_applied(&mut self, edit: Edit, label: impl Into<String>, merge: Option<u64>) {
        self.undone.clear();
        let revision = self.next_revision;
        self.next_revision += 1;
        if let (Some(key), Some(top)) = (merge, self.done.last_mut())
            && top.merge == Some(key)
            && top.edit.absorb(&edit)
        {
            top.revision = revision;
            return;
        }
        self.done.push(Entry {
            edit,
            label: label.into(),
            revision,
            merge,
        });
        if self.done.len() > self.limit {
            let excess = self.done.len() - self.limit;
            self.done.drain(..excess);
        }
    }

    /// Undoes the top entry; `Ok(None)` when there is nothing to undo.
    ///
    /// # Errors
    /// When the scene no longer matches the entry (a node it needs is gone); the
    /// entry and the redo stack are dropped, since they can no longer be replayed.
    pub fn undo(&mut self, scene: &mut Scene) -> Result<Option<Applied>, EditError> {
        let Some(mut entry) = self.done.pop() else {
            return Ok(None);
        };
        let mut remap = Remap::new();
        if let Err(e) = entry.edit.apply(scene, false, &mut remap) {
            self.undone.clear();
            return Err(e);
        }
        self.remap(&remap);
        entry.edit.remap(&remap);
        let label = entry.label.clone();
        // A redone entry must not absorb the next drag of an unrelated session.
        entry.merge = None;
        self.undone.push(entry);
        Ok(Some(Applied { label, remap }))
    }

    /// Redoes the last undone entry; `Ok(None)` when there is nothing to redo.
    ///
    /// # Errors
    /// As [`UndoStack::undo`].
    pub fn redo(&mut self, scene: &mut Scene) -> Result<Option<Applied>, EditError> {
        let Some(mut entry) = self.undone.pop() else {
            return Ok(None);
        };
        let mut remap = Remap::new();
        if let Err(e) = entry.edit.apply(scene, true, &mut remap) {
            self.undone.clear();
            return Err(e);
        }
        self.remap(&remap);
        entry.edit.remap(&remap);
        let label = entry.label.clone();
        self.done.push(entry);
        Ok(Some(Applied { label, remap }))
    }

    /// Rewrites every handle held by every entry.
    pub fn remap(&mut self, map: &Remap) {
        if map.is_empty() {
            return;
        }
        for entry in self.done.iter_mut().chain(self.undone.iter_mut()) {
            entry.edit.remap(map);
        }
    }

    /// Revision of the state the scene is in: the top entry's, 0 for the state
    /// before any entry.
    pub fn revision(&self) -> u64 {
        self.done.last().map_or(0, |e| e.revision)
    }

    /// Whether there is something to undo.
    pub fn can_undo(&self) -> bool {
        !self.done.is_empty()
    }

    /// Whether there is something to redo.
    pub fn can_redo(&self) -> bool {
        !self.undone.is_empty()
    }

    /// Label of the entry [`UndoStack::undo`] would undo.
    pub fn undo_label(&self) -> Option<&str> {
        self.done.last().map(|e| e.label.as_str())
    }

    /// Label of the entry [`UndoStack::redo`] would redo.
    pub fn redo_label(&self) -> Option<&str> {
        self.undone.last().map(|e| e.label.as_str())
    }

    /// Number of entries that can be undone.
    pub fn len(&self) -> usize {
        self.done.len()
    }

    /// Whether nothing can be undone.
    pub fn is_empty(&self) -> bool {
        self.done.is_empty()
    }

    /// Number of entries that can be redone.
    pub fn redo_len(&self) -> usize {
        self.undone.len()
    }

    /// Forgets everything (a new or reloaded scene). Revisions keep counting up.
    pub fn clear(&mut self) {
        self.done.clear();
        self.undone.clear();
    }
}

mod handover;
pub use handover::{Handles, Tokens};

#[cfg(test)]
mod tests;
