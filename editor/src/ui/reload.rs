//! Live reload in the editor: the files the open scene draws from are
//! watched; a changed shader, model, texture or prefab is reloaded into the
//! running world (a broken one keeps the last good one and shows its error
//! with the file and line), and the scene's own file changed by another
//! program is reloaded, or, over unsaved edits, asked about first.

use keel_engine::reload::{FileWatcher, reload_assets};

use super::EditorApp;
use super::dialogs::Dialog;
use crate::document::Document;

impl EditorApp {
    /// Watches what the current document draws from (once per document).
    fn watch_document(&mut self) {
        if self.watching == Some(self.doc.id()) {
            return;
        }
        self.watching = Some(self.doc.id());
        self.assets.set_root(
            super::asset_browser::project_root(self.doc.path.as_deref()),
            &self.doc.scene().assets().importers(),
        );
        if self.watcher.is_none() {
            match FileWatcher::new() {
                Ok(watcher) => self.watcher = Some(watcher),
                Err(e) => {
                    log::warn!("live reload is off: {e}");
                    return;
                }
            }
        }
        if let Some(watcher) = &mut self.watcher {
            watcher.watch_scene(self.doc.scene(), self.doc.path.as_deref());
            if let Some(index) = self.assets.index_mut()
                && let Err(e) = watcher.watch(index.root(), true)
            {
                log::warn!("cannot watch {}: {e}", index.root().display());
            }
        }
    }

    /// Reloads what changed on disk since the last frame.
    pub fn reload_changed_files(&mut self) {
        self.watch_document();
        let Some(watcher) = &mut self.watcher else {
            return;
        };
        let changed = watcher.changed();
        if changed.is_empty() {
            return;
        }
        self.assets.files_changed(&changed);
        let own = self
            .doc
            .path
            .as_deref()
            .and_then(|p| std::fs::canonicalize(p).ok());
        if own.as_ref().is_some_and(|p| changed.contains(p)) && self.doc.changed_on_disk() {
            match (self.doc.is_dirty(), &self.dialog) {
                (false, _) => self.reload_document(),
                (true, None) => {
                    self.dialog = Some(Dialog::ChangedOnDisk {
                        path: self.doc.path.clone().unwrap_or_default(),
                    });
                }
                (true, Some(_)) => {}
            }
        }
        let reloaded = reload_assets(&changed, self.doc.world.scene_mut());
        if let Some(error) = reloaded.errors.first() {
            log::warn!("reload: {error}");
            self.status.error(format!("not reloaded: {error}"));
        } else if !reloaded.is_empty() {
            let shaders: Vec<&str> = reloaded.shaders.iter().map(|s| s.file_name()).collect();
            let models: Vec<String> = reloaded
                .models
                .iter()
                .filter_map(|m| m.file_name().map(|n| n.to_string_lossy().into_owned()))
                .collect();
            self.status.info(format!(
                "Reloaded {}",
                [shaders.join(", "), models.join(", ")]
                    .into_iter()
                    .filter(|s| !s.is_empty())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if changed
            .iter()
            .any(|p| p.extension().is_some_and(|e| e == "ron"))
        {
            self.refresh_prefabs();
        }
    }

    pub(super) fn browser_request(&mut self, request: super::asset_browser::BrowserRequest) {
        match request {
            super::asset_browser::BrowserRequest::Open(path) => {
                self.request(super::dialogs::Pending::Open(path));
            }
        }
    }

    /// Opens the document's file again, keeping the camera.
    pub(super) fn reload_document(&mut self) {
        let Some(path) = self.doc.path.clone() else {
            return;
        };
        let assets = self.doc.scene().assets().clone();
        match Document::open(&path, &assets) {
            Ok(doc) => {
                let rig = self.viewport.rig.take();
                self.replace_document(doc);
                self.viewport.rig = rig;
                self.status.info(format!(
                    "Reloaded {} (changed on disk)",
                    self.doc.display_name()
                ));
            }
            Err(e) => {
                // The broken file is not taken: the scene stays as it was.
                self.doc.accept_disk_version();
                self.show_error(&format!("Could not reload {}", path.display()), &e);
            }
        }
    }
}
