//! Hot reload in the editor: the files the open scene draws from are
//! watched; a changed shader, model, texture or prefab is reloaded into the
//! running world (a broken one keeps the last good one and shows its error
//! with the file and line), and the scene's own file changed by another
//! program is reloaded, or, over unsaved edits, asked about first.

use std::path::{Path, PathBuf};

use keel_engine::reload::{FileWatcher, reload_assets};

use crate::app::EditorApp;
use crate::chrome::dialogs::Dialog;
use crate::document::Document;
use crate::panels::assets::AssetBrowser;

/// What the editor watches on disk: the open document's files, the project's
/// folder and the shader folder.
#[derive(Default)]
pub(crate) struct AssetWatch {
    /// Reports files changed on disk (none when the system offers no watching).
    watcher: Option<FileWatcher>,
    /// The document the watcher was set up for.
    watching: Option<u64>,
    /// The folder of WGSL files watched (`None`: shaders stay as built in).
    pub(crate) shader_dir: Option<PathBuf>,
}

impl AssetWatch {
    /// The watcher, made at first use; `None` when the system offers none.
    fn watcher(&mut self) -> Option<&mut FileWatcher> {
        if self.watcher.is_none() {
            match FileWatcher::new() {
                Ok(mut watcher) => {
                    if let Some(dir) = &self.shader_dir {
                        watch_logged(&mut watcher, dir, false);
                    }
                    self.watcher = Some(watcher);
                }
                Err(e) => log::warn!("hot reload is off: {e}"),
            }
        }
        self.watcher.as_mut()
    }
}

fn watch_logged(watcher: &mut FileWatcher, dir: &Path, recursive: bool) {
    if let Err(e) = watcher.watch(dir, recursive) {
        log::warn!("cannot watch {}: {e}", dir.display());
    }
}

impl AssetWatch {
    /// Watches what `doc` draws from and points the asset browser at its
    /// project (once per document).
    fn watch_document(&mut self, doc: &Document, browser: &mut AssetBrowser) {
        if self.watching == Some(doc.id()) {
            return;
        }
        self.watching = Some(doc.id());
        browser.set_root(
            crate::panels::assets::project_root(doc.path.as_deref()),
            &doc.scene().assets().importers(),
        );
        if let Some(watcher) = self.watcher() {
            watcher.watch_scene(doc.scene(), doc.path.as_deref());
            if let Some(index) = browser.index_mut() {
                watch_logged(watcher, index.root(), true);
            }
        }
    }
}

impl EditorApp {
    /// Reloads what changed on disk since the last frame.
    pub fn reload_changed_files(&mut self) {
        self.watch
            .watch_document(&self.doc, &mut self.workspace.assets);
        let Some(watcher) = &mut self.watch.watcher else {
            return;
        };
        let changed = watcher.changed();
        if changed.is_empty() {
            return;
        }
        self.workspace.assets.files_changed(&changed);
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
            crate::app::prefab_mode::refresh(&mut self.doc, &mut self.status);
        }
    }

    /// Opens the document's file again, keeping the camera.
    pub(crate) fn reload_document(&mut self) {
        let Some(path) = self.doc.path.clone() else {
            return;
        };
        let assets = self.doc.scene().assets().clone();
        match Document::open(&path, &assets) {
            Ok(doc) => {
                let rig = self.views.viewport.rig.take();
                self.replace_document(doc);
                self.views.viewport.rig = rig;
                self.status.info(format!(
                    "Reloaded {} (changed on disk)",
                    self.doc.display_name()
                ));
            }
            Err(e) => {
                // The broken file is not taken: the scene stays as it was.
                self.doc.accept_disk_version();
                let title = format!("Could not reload {}", path.display());
                self.dialog = Some(Dialog::error(title, &e, &mut self.status));
            }
        }
    }
}
