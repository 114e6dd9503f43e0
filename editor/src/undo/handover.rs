//! The undo history as data another build of the editor reads back (live
//! mode's handover): handles become tokens, subtrees and component values
//! become scene-file text, so a game's component goes through its serde path
//! and a field the new build lacks is kept as the scene file keeps it.
//!
//! A token is a node's place in the scene's pre-order walk for the nodes that
//! exist, and a number past them for the handles of deleted nodes the history
//! holds (an undo brings those back). Both sides walk the same scene text, so
//! the same token names the same node.

use std::collections::HashMap;
use std::path::Path;

use keel_engine::scene::{NodeRecord, Orphans, ReadOptions, SceneFile};
use keel_engine::{Environment, NodeId, Scene, SceneError};

use super::{Edit, Entry, UndoStack};
use crate::component::{ComponentKind, ComponentValue};
use crate::saved;
use crate::subtree::Placement;

/// What errors name as the text's origin.
const ORIGIN: &str = "<handover>";

/// Handles to tokens, on the side that writes.
pub struct Tokens {
    of: HashMap<NodeId, u32>,
}

impl Tokens {
    /// The scene's nodes in pre-order get tokens `0..len`.
    pub fn of_scene(scene: &Scene) -> Self {
        Self {
            of: scene.nodes().zip(0..).collect(),
        }
    }

    /// The token of `id`; a handle of no node gets the next one past them.
    pub fn token(&mut self, id: NodeId) -> u32 {
        let next = self.of.len() as u32;
        *self.of.entry(id).or_insert(next)
    }
}

/// Tokens to handles, on the side that reads.
pub struct Handles {
    live: Vec<NodeId>,
}

impl Handles {
    /// The scene's nodes in pre-order stand for tokens `0..len`.
    pub fn of_scene(scene: &Scene) -> Self {
        Self {
            live: scene.nodes().collect(),
        }
    }

    /// The handle a token stands for (a detached one past the live nodes).
    pub fn id(&self, token: u32) -> NodeId {
        match self.live.get(token as usize) {
            Some(&id) => id,
            None => NodeId::detached(token - self.live.len() as u32),
        }
    }
}

impl saved::Subtree {
    fn of(
        at: &Placement,
        records: &[NodeRecord],
        ids: &[NodeId],
        tokens: &mut Tokens,
    ) -> Result<Self, SceneError> {
        Ok(Self {
            at: place_text(at, tokens),
            records: records_text(records)?,
            ids: ids.iter().map(|&id| tokens.token(id)).collect(),
        })
    }

    fn read(
        self,
        scene: &Scene,
        handles: &Handles,
    ) -> Result<(Placement, Vec<NodeRecord>, Vec<NodeId>), String> {
        Ok((
            place_of(self.at, handles),
            records_of(&self.records, scene)?,
            self.ids.into_iter().map(|t| handles.id(t)).collect(),
        ))
    }
}

fn records_text(records: &[NodeRecord]) -> Result<saved::Records, SceneError> {
    let parts = records.iter().map(|r| r.part.clone()).collect();
    let file = SceneFile::new(Environment::default(), records.to_vec());
    Ok(saved::Records {
        text: file.to_text(Path::new(ORIGIN))?,
        parts,
    })
}

fn records_of(text: &saved::Records, scene: &Scene) -> Result<Vec<NodeRecord>, String> {
    let registry = scene.registry();
    let file =
        // The history came from another build: what no longer reads is kept as written.
        SceneFile::parse_with(&text.text, Path::new(ORIGIN), &registry, ReadOptions::KEEP_UNREADABLE)
            .map_err(|e| e.to_string())?;
    let mut nodes = file.nodes;
    if nodes.len() != text.parts.len() {
        return Err(format!(
            "{} records for {} part keys",
            nodes.len(),
            text.parts.len()
        ));
    }
    for (node, part) in nodes.iter_mut().zip(&text.parts) {
        node.part.clone_from(part);
    }
    Ok(nodes)
}

fn value_text(value: Option<&ComponentValue>) -> Result<Option<saved::Records>, SceneError> {
    value
        .map(|v| {
            let mut record = NodeRecord::new("value");
            v.clone().store_in(&mut record);
            records_text(&[record])
        })
        .transpose()
}

fn value_of(
    text: Option<&saved::Records>,
    kind: ComponentKind,
    scene: &Scene,
) -> Result<Option<ComponentValue>, String> {
    let Some(text) = text else {
        return Ok(None);
    };
    let records = records_of(text, scene)?;
    let record = records.first().ok_or("no record")?;
    ComponentValue::from_record(record)
        .into_iter()
        .find(|v| v.kind() == kind)
        .map(Some)
        .ok_or_else(|| format!("its `{}` value no longer reads as one", kind.record_field()))
}

fn kind_named(name: &str, scene: &Scene) -> Option<ComponentKind> {
    ComponentKind::all(&scene.registry())
        .into_iter()
        .find(|k| k.record_field() == name)
}

fn place_text(place: &Placement, tokens: &mut Tokens) -> saved::Place {
    saved::Place {
        parent: place.parent.map(|p| tokens.token(p)),
        index: place.index,
    }
}

fn place_of(place: saved::Place, handles: &Handles) -> Placement {
    Placement {
        parent: place.parent.map(|p| handles.id(p)),
        index: place.index,
    }
}

impl Edit {
    fn to_text(&self, tokens: &mut Tokens) -> Result<saved::Edit, SceneError> {
        Ok(match self {
            Edit::Transform {
                node,
                before,
                after,
            } => saved::Edit::Transform(tokens.token(*node), *before, *after),
            Edit::Rename {
                node,
                before,
                after,
            } => saved::Edit::Rename(tokens.token(*node), before.clone(), after.clone()),
            Edit::Reparent {
                node,
                from,
                to,
                before,
                after,
            } => saved::Edit::Reparent(
                tokens.token(*node),
                place_text(from, tokens),
                place_text(to, tokens),
                *before,
                *after,
            ),
            Edit::Spawn { at, records, ids } => {
                saved::Edit::Spawn(saved::Subtree::of(at, records, ids, tokens)?)
            }
            Edit::Despawn { at, records, ids } => {
                saved::Edit::Despawn(saved::Subtree::of(at, records, ids, tokens)?)
            }
            Edit::Component {
                node,
                kind,
                before,
                after,
            } => saved::Edit::Component(
                tokens.token(*node),
                kind.record_field().to_owned(),
                value_text(before.as_ref())?,
                value_text(after.as_ref())?,
            ),
            Edit::Orphans {
                node,
                before,
                after,
            } => saved::Edit::Orphans(
                tokens.token(*node),
                saved::Orphans {
                    overrides: before.overrides.clone(),
                    removed: before.removed.clone(),
                },
                saved::Orphans {
                    overrides: after.overrides.clone(),
                    removed: after.removed.clone(),
                },
            ),
            Edit::Environment { before, after } => {
                saved::Edit::Environment(Box::new(before.clone()), Box::new(after.clone()))
            }
            Edit::Group(edits) => saved::Edit::Group(
                edits
                    .iter()
                    .map(|e| e.to_text(tokens))
                    .collect::<Result<_, _>>()?,
            ),
        })
    }

    fn from_text(text: saved::Edit, scene: &Scene, handles: &Handles) -> Result<Edit, String> {
        Ok(match text {
            saved::Edit::Transform(node, before, after) => Edit::Transform {
                node: handles.id(node),
                before,
                after,
            },
            saved::Edit::Rename(node, before, after) => Edit::Rename {
                node: handles.id(node),
                before,
                after,
            },
            saved::Edit::Reparent(node, from, to, before, after) => Edit::Reparent {
                node: handles.id(node),
                from: place_of(from, handles),
                to: place_of(to, handles),
                before,
                after,
            },
            saved::Edit::Spawn(subtree) => {
                let (at, records, ids) = subtree.read(scene, handles)?;
                Edit::Spawn { at, records, ids }
            }
            saved::Edit::Despawn(subtree) => {
                let (at, records, ids) = subtree.read(scene, handles)?;
                Edit::Despawn { at, records, ids }
            }
            saved::Edit::Component(node, name, before, after) => {
                let kind = kind_named(&name, scene)
                    .ok_or_else(|| format!("this build has no component `{name}`"))?;
                Edit::Component {
                    node: handles.id(node),
                    kind,
                    before: value_of(before.as_ref(), kind, scene)?,
                    after: value_of(after.as_ref(), kind, scene)?,
                }
            }
            saved::Edit::Orphans(node, before, after) => Edit::Orphans {
                node: handles.id(node),
                before: Orphans {
                    overrides: before.overrides,
                    removed: before.removed,
                },
                after: Orphans {
                    overrides: after.overrides,
                    removed: after.removed,
                },
            },
            saved::Edit::Environment(before, after) => Edit::Environment {
                before: *before,
                after: *after,
            },
            saved::Edit::Group(edits) => Edit::Group(
                edits
                    .into_iter()
                    .map(|e| Edit::from_text(e, scene, handles))
                    .collect::<Result<_, _>>()?,
            ),
        })
    }
}

impl UndoStack {
    /// The history by tokens and text (merges end: a drag goes on as a new entry).
    ///
    /// # Errors
    /// [`SceneError::Serialize`] for a value serde can't write.
    pub(crate) fn to_handover(&self, tokens: &mut Tokens) -> Result<saved::History, SceneError> {
        let mut entries = |list: &[Entry]| -> Result<Vec<saved::Entry>, SceneError> {
            list.iter()
                .map(|e| {
                    Ok(saved::Entry {
                        label: e.label.clone(),
                        revision: e.revision,
                        edit: e.edit.to_text(tokens)?,
                    })
                })
                .collect()
        };
        Ok(saved::History {
            done: entries(&self.done)?,
            undone: entries(&self.undone)?,
            next_revision: self.next_revision,
            limit: self.limit,
        })
    }

    /// The history read back against `scene` (the same scene text, loaded).
    /// An entry this build cannot read (a component it no longer has) is
    /// dropped with every entry behind it (older ones to undo, later ones to
    /// redo, which would need it first); `dropped` says which and why.
    pub(crate) fn from_handover(
        text: saved::History,
        scene: &Scene,
        handles: &Handles,
        dropped: &mut Vec<String>,
    ) -> Self {
        let mut read = |list: Vec<saved::Entry>| -> Vec<Entry> {
            let mut out = Vec::new();
            // Nearest the present first: an unreadable entry cuts off the rest.
            for (k, e) in list.into_iter().enumerate().rev() {
                match Edit::from_text(e.edit, scene, handles) {
                    Ok(edit) => out.push(Entry {
                        edit,
                        label: e.label,
                        revision: e.revision,
                        merge: None,
                    }),
                    Err(why) => {
                        dropped.push(format!(
                            "\"{}\" and the {k} entries behind it: {why}",
                            e.label
                        ));
                        break;
                    }
                }
            }
            out.reverse();
            out
        };
        let done = read(text.done);
        // The redo stack's nearest entry is its last.
        let undone = read(text.undone);
        Self {
            done,
            undone,
            next_revision: text.next_revision.max(1),
            limit: text.limit.max(1),
        }
    }
}
