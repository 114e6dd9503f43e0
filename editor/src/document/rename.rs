//! Renaming many nodes at once from a pattern: `*` stands for each node's
//! current name, a run of `#` for its position in the selection counted from
//! 1 (zero-padded to the run's length): `boat_###` names three boats
//! `boat_001` to `boat_003`, `* (old)` appends to every name.

use keel_engine::NodeId;

use super::{Document, group};
use crate::undo::{Edit, EditError, Remap};

/// The name `pattern` gives a node called `name`, `number`-th of the selection.
#[must_use]
pub fn expand(pattern: &str, name: &str, number: usize) -> String {
    let mut out = String::with_capacity(pattern.len() + name.len());
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' => out.push_str(name),
            '#' => {
                let mut width = 1;
                while chars.next_if_eq(&'#').is_some() {
                    width += 1;
                }
                out.push_str(&format!("{number:0width$}"));
            }
            other => out.push(other),
        }
    }
    out
}

impl Document {
    /// Renames `nodes` (in the order given) by `pattern` (see the module
    /// docs); one undo entry. Returns how many names changed; an empty
    /// pattern renames nothing.
    ///
    /// # Errors
    /// [`EditError::NoSuchNode`] or a node that may not be edited (a model's
    /// part); nothing changes then.
    pub fn rename_many(&mut self, nodes: &[NodeId], pattern: &str) -> Result<usize, EditError> {
        if pattern.trim().is_empty() {
            return Ok(0);
        }
        let mut edits = Vec::new();
        for (i, &node) in nodes.iter().enumerate() {
            self.editable(node)?;
            let before = self
                .scene()
                .name(node)
                .ok_or(EditError::NoSuchNode { node })?
                .to_string();
            let after = expand(pattern, &before, i + 1);
            if after != before {
                edits.push(Edit::Rename {
                    node,
                    before,
                    after,
                });
            }
        }
        let count = edits.len();
        for (i, edit) in edits.iter_mut().enumerate() {
            if let Err(e) = edit.apply(self.world.scene_mut(), true, &mut Remap::new()) {
                let done = edits.drain(..i).collect();
                self.roll_back(done);
                return Err(e);
            }
        }
        if count > 0 {
            self.record(group(edits), format!("Rename {count} nodes"));
        }
        Ok(count)
    }
}

#[cfg(test)]
mod tests {
    use super::expand;

    #[test]
    fn patterns_expand_names_and_padded_numbers() {
        assert_eq!(expand("boat_###", "x", 7), "boat_007");
        assert_eq!(expand("* (old)", "mast", 1), "mast (old)");
        assert_eq!(expand("#-*-#", "a", 12), "12-a-12");
        assert_eq!(expand("plain", "a", 3), "plain");
        assert_eq!(
            expand("##", "a", 123),
            "123",
            "a number wider than the run keeps its digits"
        );
    }
}
