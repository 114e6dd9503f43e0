//! Prefab mode: opening a prefab from one of its instances parks the scene
//! (unsaved edits and all) and edits the prefab file; "Back" returns to the
//! scene, whose instances then pick up what was saved. Instances also follow
//! their prefab files when another program changes them (checked twice a
//! second, once per distinct prefab).

use std::path::Path;

use keel_engine::SceneError;

use crate::document::Document;
use crate::status::Status;

/// Prefab mode: the scenes a prefab was opened from.
pub struct PrefabMode {
    /// Scenes a prefab was opened from, innermost last.
    pub(crate) parked: Vec<Document>,
    /// When the prefab files were last looked at.
    checked: f64,
}

impl Default for PrefabMode {
    fn default() -> Self {
        Self {
            parked: Vec::new(),
            checked: f64::NEG_INFINITY,
        }
    }
}

/// Seconds between two looks at the prefab files on disk.
const CHECK_INTERVAL: f64 = 0.5;

impl PrefabMode {
    /// The scene a prefab was opened from, if a prefab is being edited.
    pub fn parked(&self) -> Option<&Document> {
        self.parked.last()
    }

    /// Parks `doc` and puts the prefab file at `path` in its place.
    ///
    /// # Errors
    /// The prefab's read error; `doc` stays as it was.
    pub(crate) fn open(
        &mut self,
        doc: &mut Document,
        path: &Path,
        status: &mut Status,
    ) -> Result<(), SceneError> {
        let assets = doc.scene().assets().clone();
        let prefab = Document::open(path, &assets)?;
        self.parked.push(std::mem::replace(doc, prefab));
        status.info(format!(
            "Editing prefab {}: save it, then Back",
            doc.display_name()
        ));
        Ok(())
    }

    /// Puts back the scene the prefab in `doc` was opened from and brings
    /// its instances up to date. Refused (false, said in `status`) while
    /// the prefab has unsaved edits, and outside prefab mode.
    pub(crate) fn back(&mut self, doc: &mut Document, status: &mut Status) -> bool {
        if self.parked.is_empty() {
            return false;
        }
        if doc.is_dirty() {
            status.error(format!(
                "{} has unsaved changes: save or undo them first",
                doc.display_name()
            ));
            return false;
        }
        if let Some(scene) = self.parked.pop() {
            *doc = scene;
            refresh(doc, status);
        }
        true
    }

    /// Brings `doc`'s instances up to date when the check interval is up
    /// (not while the gizmo drags: the edit in progress would be undone).
    pub(crate) fn refresh_if_due(
        &mut self,
        now: f64,
        doc: &mut Document,
        dragging: bool,
        status: &mut Status,
    ) {
        if now - self.checked >= CHECK_INTERVAL && !dragging {
            self.checked = now;
            refresh(doc, status);
        }
    }
}

/// Brings `doc`'s instances whose prefab changed on disk up to date.
pub(crate) fn refresh(doc: &mut Document, status: &mut Status) {
    match doc.refresh_prefabs() {
        Ok(0) => {}
        Ok(n) => status.info(format!("{n} prefab instances updated from their files")),
        Err(e) => status.error(format!("prefab not updated: {e}")),
    }
}
