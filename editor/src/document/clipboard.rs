//! Copy, cut and paste of subtrees. The clipboard holds scene-file text (a
//! version-2 scene whose nodes are the copied subtrees, models by absolute
//! path), so a copy pastes into any open scene, into another editor, or into
//! a text editor as readable RON; pasting checks every value as loading a
//! scene file does before anything changes, and is one undo entry.

use std::path::Path;

use keel_engine::scene::{NodeRecord, SceneFile, expand_records, visit_refs};
use keel_engine::{Environment, NodeId};

use super::Document;
use crate::subtree::Placement;
use crate::undo::EditError;

/// What errors name as the file pasted text came from.
const CLIPBOARD: &str = "<clipboard>";

impl Document {
    /// The subtrees of `nodes` (the top-most of them) as scene-file text.
    ///
    /// # Errors
    /// [`EditError::NoSuchNode`] for a stale handle.
    pub fn copy_text(&self, nodes: &[NodeId]) -> Result<String, EditError> {
        let roots = self.top_level(nodes)?;
        // Scene-file form: prefab instances as their prefab and overrides.
        let all = self.scene().to_records(&roots, None);
        let file = SceneFile::new(Environment::default(), all);
        file.to_text(Path::new(CLIPBOARD))
            .map_err(|source| EditError::Scene {
                action: "copy".to_owned(),
                source,
            })
    }

    /// Pastes scene-file `text` (what [`Document::copy_text`] makes, or any
    /// scene file's): its root nodes with their subtrees go right after the
    /// primary selection, as its siblings (at the end of the roots when
    /// nothing is selected), and become the selection. One undo entry.
    ///
    /// # Errors
    /// [`EditError::Scene`] naming the line and field for text that is no
    /// scene or holds a bad value; nothing changes then.
    pub fn paste_text(&mut self, text: &str) -> Result<Vec<NodeId>, EditError> {
        let origin = Path::new(CLIPBOARD);
        let refused = |source| EditError::Scene {
            action: "paste".to_owned(),
            source,
        };
        let registry = self.scene().registry();
        let file = SceneFile::parse(text, origin, &registry).map_err(refused)?;
        // Every value checked (and every model loaded) as a scene load does.
        let assets = self.scene().assets().clone();
        file.to_scene(origin, &assets).map_err(refused)?;
        let host = self.path.clone();
        let nodes =
            expand_records(&file.nodes, origin, host.as_deref(), &assets).map_err(refused)?;
        let scene = self.scene();
        let at = match self
            .selection
            .primary()
            .and_then(|n| Placement::of(scene, n))
        {
            Some(place) => Placement {
                index: place.index + 1,
                ..place
            },
            None => Placement {
                parent: None,
                index: scene.roots().len(),
            },
        };
        let mut edits = Vec::new();
        let mut pasted = Vec::new();
        for (k, records) in subtrees(&nodes).into_iter().enumerate() {
            let place = Placement {
                index: at.index + k,
                ..at
            };
            pasted.push(self.push_spawn(&mut edits, place, records)?);
        }
        self.record_spawns(edits, &pasted, "Paste");
        Ok(pasted)
    }
}

/// `nodes` (a scene file's, parents before children) cut into one list per
/// root, each with parents and node references relative to its own list (a
/// reference into another root's list names no node, with a warning).
fn subtrees(nodes: &[NodeRecord]) -> Vec<Vec<NodeRecord>> {
    let mut lists: Vec<Vec<NodeRecord>> = Vec::new();
    // For each node: its list, and its position there.
    let mut place: Vec<(usize, usize)> = Vec::with_capacity(nodes.len());
    for record in nodes {
        let mut record = record.clone();
        let (list, parent) = match record.parent.and_then(|p| place.get(p).copied()) {
            Some((list, position)) => (list, Some(position)),
            None => {
                lists.push(Vec::new());
                (lists.len() - 1, None)
            }
        };
        record.parent = parent;
        place.push((list, lists[list].len()));
        lists[list].push(record);
    }
    for (list, records) in lists.iter_mut().enumerate() {
        for record in records.iter_mut() {
            let holder = record.name.clone();
            for value in &mut record.components {
                let name = value.name();
                visit_refs(value.reflect_mut().as_partial_reflect_mut(), &mut |r| {
                    let Some(i) = r.written_index() else {
                        return;
                    };
                    match place.get(i as usize) {
                        Some(&(l, at)) if l == list => r.set_index(Some(at as u32)),
                        _ => {
                            log::warn!(
                                "pasted node `{holder}`: component `{name}` names a node pasted \
                                 under another root; it names no node"
                            );
                            r.set_index(None);
                        }
                    }
                });
            }
        }
    }
    lists
}
