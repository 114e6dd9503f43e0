//! Prefab mode: opening a prefab from one of its instances parks the scene
//! (unsaved edits and all) and edits the prefab file; "Back" returns to the
//! scene, whose instances then pick up what was saved. Instances also follow
//! their prefab files when another program changes them (checked twice a
//! second, once per distinct prefab).

use std::path::Path;

use crate::app::EditorApp;
use crate::chrome::dialogs::{Dialog, FileDialog, FilePurpose};
use crate::document::Document;
use crate::panels::inspector::prefab::PrefabRequest;

/// Prefab mode: the scenes a prefab was opened from.
pub(crate) struct PrefabMode {
    /// Scenes a prefab was opened from, innermost last.
    pub(crate) parked: Vec<Document>,
    /// When the prefab files were last looked at.
    pub(crate) checked: f64,
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

impl EditorApp {
    pub(crate) fn prefab_request(&mut self, request: PrefabRequest) {
        match request {
            PrefabRequest::Open(path) => self.open_prefab(&path),
            PrefabRequest::SaveAs(node) => {
                let start = self.files.dialog_start(&self.doc).with_file_name(format!(
                    "{}.ron",
                    self.doc.scene().name(node).unwrap_or("prefab")
                ));
                self.dialog = Some(Dialog::File(FileDialog::new(
                    FilePurpose::SavePrefab(node),
                    &start,
                    &self.doc.scene().assets().importers(),
                )));
            }
        }
    }

    /// Parks the scene and edits the prefab file at `path`.
    pub fn open_prefab(&mut self, path: &Path) {
        let assets = self.doc.scene().assets().clone();
        match Document::open(path, &assets) {
            Ok(doc) => {
                let scene = std::mem::replace(&mut self.doc, doc);
                self.prefabs.parked.push(scene);
                self.workspace.inspector = Default::default();
                self.status.info(format!(
                    "Editing prefab {}: save it, then Back",
                    self.doc.display_name()
                ));
            }
            Err(e) => self.show_error(&format!("Could not open {}", path.display()), &e),
        }
    }

    /// The scene a prefab was opened from, if a prefab is being edited.
    pub fn parked_scene(&self) -> Option<&Document> {
        self.prefabs.parked.last()
    }

    /// Leaves the prefab for the scene it was opened from and brings the
    /// scene's instances up to date. Refused (false) while the prefab has
    /// unsaved edits.
    pub fn back_from_prefab(&mut self) -> bool {
        if self.prefabs.parked.is_empty() {
            return false;
        }
        if self.doc.is_dirty() {
            self.status.error(format!(
                "{} has unsaved changes: save or undo them first",
                self.doc.display_name()
            ));
            return false;
        }
        if let Some(scene) = self.prefabs.parked.pop() {
            self.doc = scene;
            self.workspace.inspector = Default::default();
            self.refresh_prefabs();
        }
        true
    }

    pub(crate) fn save_prefab(&mut self, node: keel_engine::NodeId, path: &Path) {
        match self.doc.save_as_prefab(node, path) {
            Ok(_) => self.status.info(format!("Saved prefab {}", path.display())),
            Err(e) => self.status.error(e.to_string()),
        }
    }

    /// Brings instances whose prefab changed on disk up to date.
    pub fn refresh_prefabs(&mut self) {
        match self.doc.refresh_prefabs() {
            Ok(0) => {}
            Ok(n) => self
                .status
                .info(format!("{n} prefab instances updated from their files")),
            Err(e) => self.status.error(format!("prefab not updated: {e}")),
        }
    }

    pub(crate) fn refresh_prefabs_if_due(&mut self, now: f64) {
        if now - self.prefabs.checked >= CHECK_INTERVAL && !self.views.viewport.gizmo.dragging() {
            self.prefabs.checked = now;
            self.refresh_prefabs();
        }
    }
}
