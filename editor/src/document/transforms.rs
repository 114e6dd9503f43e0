//! Moving nodes: one node's local transform, several as one edit (a gizmo
//! drag of a multi-selection), and which selected nodes a drag moves.

use keel_engine::{NodeError, NodeId, Transform};

use super::{Document, has_ancestor_in};
use crate::undo::{Edit, EditError};

impl Document {
    /// Sets a node's local transform. Edits sharing a `merge` key (one drag) become one undo entry.
    ///
    /// # Errors
    /// [`EditError::NoSuchNode`]; [`EditError::Scene`] for NaN or infinite values.
    pub fn set_transform(
        &mut self,
        node: NodeId,
        after: Transform,
        merge: Option<u64>,
    ) -> Result<(), EditError> {
        self.set_transforms(&[(node, after)], merge)
    }

    /// Sets several nodes' local transforms as one edit (a gizmo drag of a
    /// multi-selection). Edits sharing a `merge` key become one undo entry.
    ///
    /// # Errors
    /// As [`Document::set_transform`], for the first node that fails; nothing
    /// changes then.
    pub fn set_transforms(
        &mut self,
        changes: &[(NodeId, Transform)],
        merge: Option<u64>,
    ) -> Result<(), EditError> {
        let mut edits = Vec::with_capacity(changes.len());
        for &(node, after) in changes {
            self.editable(node)?;
            let before = self
                .scene()
                .local(node)
                .ok_or(EditError::NoSuchNode { node })?;
            if !after.is_finite() {
                return Err(EditError::Scene {
                    action: "set transform".into(),
                    source: NodeError::InvalidTransform {
                        node: self.name_of(node),
                        transform: after,
                    }
                    .into(),
                });
            }
            edits.push(Edit::Transform {
                node,
                before,
                after,
            });
        }
        // A drag keeps every node in its group, moved this frame or not, so
        // that its frames merge into one entry.
        if changes.iter().zip(&edits).all(|(&(_, after), edit)| {
            matches!(edit, Edit::Transform { before, .. } if *before == after)
        }) {
            return Ok(());
        }
        if let [(node, _)] = changes {
            let label = format!("Move {}", self.name_of(*node));
            return self.apply(edits.remove(0), label, merge);
        }
        let label = format!("Move {} nodes", edits.len());
        self.apply(Edit::Group(edits), label, merge)
    }

    /// The nodes a gizmo drag moves: the selected ones that can be edited and
    /// have no selected ancestor (it carries them), the primary first.
    pub fn gizmo_targets(&self) -> Vec<NodeId> {
        let scene = self.scene();
        let selected = self.selection.nodes();
        let mut out: Vec<NodeId> = selected
            .iter()
            .copied()
            .filter(|&n| scene.contains(n) && self.editable(n).is_ok())
            .filter(|&n| !has_ancestor_in(scene, n, |p| self.selection.contains(p)))
            .collect();
        if let Some(primary) = self.selection.primary()
            && let Some(i) = out.iter().position(|&n| n == primary)
        {
            out[..=i].rotate_right(1);
        }
        out
    }
}
