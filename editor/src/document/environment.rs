//! The document's side of the scene's environment: background, ambient
//! light and the sun's shadows, edited as one undoable value.

use keel_engine::Environment;

use super::Document;
use crate::undo::{Edit, EditError};

impl Document {
    /// Replaces the scene's environment. Edits sharing a `merge` key (one
    /// drag) become one undo entry.
    ///
    /// # Errors
    /// [`EditError::Scene`] for values a scene file would reject (negative
    /// or non-finite colours, shadow settings out of range), naming the field.
    pub fn set_environment(
        &mut self,
        after: Environment,
        merge: Option<u64>,
    ) -> Result<(), EditError> {
        let before = self.scene().environment().clone();
        if before == after {
            return Ok(());
        }
        after.validate().map_err(|source| EditError::Scene {
            action: "edit the environment".to_owned(),
            source,
        })?;
        self.apply(
            Edit::Environment { before, after },
            "Edit environment",
            merge,
        )
    }
}
