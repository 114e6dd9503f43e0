//! Copy, cut and paste of subtrees. The clipboard holds scene-file text (a
//! version-2 scene whose nodes are the copied subtrees, models by absolute
//! path), so a copy pastes into any open scene, into another editor, or into
//! a text editor as readable RON; pasting checks every value as loading a
//! scene file does before anything changes, and is one undo entry.

use std::path::Path;

use keel_engine::scene::{NodeRecord, SceneFile, expand_records};
use keel_engine::{Environment, NodeId};

use super::Document;
use crate::subtree::{self, Placement};
use crate::undo::{Edit, EditError};

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
        let places: Vec<Placement> = (0..nodes.iter().filter(|r| r.parent.is_none()).count())
            .map(|k| Placement {
                index: at.index + k,
                ..at
            })
            .collect();
        self.spawn_copies(&nodes, &places, "Paste")
    }

    /// Spawns `records` (several roots, references between them by place
    /// in the list) with the `k`-th root at `places[k]`, as one undo entry
    /// ("`verb` name" or "`verb` n nodes") of one spawn per root; selects
    /// and returns the new roots.
    ///
    /// # Errors
    /// [`EditError::Scene`] when the scene refuses a record; nothing changes then.
    pub(super) fn spawn_copies(
        &mut self,
        records: &[NodeRecord],
        places: &[Placement],
        verb: &str,
    ) -> Result<Vec<NodeId>, EditError> {
        let ids =
            subtree::spawn_roots(self.world.scene_mut(), records, places).map_err(|source| {
                EditError::Scene {
                    action: verb.to_lowercase(),
                    source,
                }
            })?;
        let mut edits = Vec::new();
        let mut roots = Vec::new();
        for ((records, ids), &at) in subtree::split(records, &ids).into_iter().zip(places) {
            roots.push(ids[0]);
            edits.push(Edit::Spawn { at, records, ids });
        }
        self.record_spawns(edits, &roots, verb);
        Ok(roots)
    }
}
