//! Hot reload: a file watcher (the `notify` crate, debounced) over the
//! project's folders, and what a changed file does to a running world.
//!
//! - WGSL shaders: checked by naga and swapped into the shader library; every
//!   renderer rebuilds its passes before its next frame. A changed piece that
//!   shaders `#import` reloads every shader beside it that imports it. A
//!   broken one keeps the last good pipelines drawing and its error names the
//!   file and line (the piece's own, when the mistake is in a piece).
//! - Model files (every format of the store's importers), and the images,
//!   buffers and material libraries their import read: imported again, and every instance of the model rebuilt from the new copy. A
//!   broken file keeps the last good copy.
//! - Prefabs (`.ron` files other scenes use): instances rebuilt against the
//!   new file, overrides kept. A broken prefab keeps the instances as they are.
//! - The open scene itself: its owner decides (the viewer reloads it, the
//!   editor asks first when there are unsaved edits).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, SystemTime};

use notify_debouncer_mini::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_mini::{DebounceEventResult, Debouncer, new_debouncer};

use crate::assets::shaders::Shader;
use crate::assets::{Assets, Model};
use crate::files::FileSource;
use crate::scene::{Keep, ModelInstance, ModelPart, NodeId, PrefabInstance, Scene, SceneError};

/// How long a file must be quiet before its change is reported: an editor's
/// save is often several writes.
pub const DEBOUNCE: Duration = Duration::from_millis(50);

/// Watches folders (recursively) and reports the files that changed.
pub struct FileWatcher {
    debouncer: Debouncer<RecommendedWatcher>,
    events: Receiver<DebounceEventResult>,
    /// Folders watched, and whether with their subfolders.
    watched: Vec<(PathBuf, bool)>,
    /// What each file reported so far looked like (time, length): the system
    /// also reports files merely opened (a thumbnail read, an import), which
    /// are not changes.
    stamps: std::collections::HashMap<PathBuf, Option<(SystemTime, u64)>>,
    /// When watching began: a file first seen with an older modification time
    /// was only opened.
    since: SystemTime,
}

impl std::fmt::Debug for FileWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FileWatcher")
    }
}

impl FileWatcher {
    /// A watcher of nothing yet.
    ///
    /// # Errors
    /// When the system has no file watching to offer.
    pub fn new() -> Result<Self, notify_debouncer_mini::notify::Error> {
        let (tx, events) = channel();
        Ok(Self {
            debouncer: new_debouncer(DEBOUNCE, tx)?,
            events,
            watched: Vec::new(),
            stamps: std::collections::HashMap::new(),
            // File times come from a coarse clock, a tick or so behind this
            // one: a second's margin keeps a write right after this moment.
            since: SystemTime::now() - Duration::from_secs(1),
        })
    }

    /// Watches `dir` (with its subfolders when `recursive`); a folder already
    /// watched, or one that does not exist, is left as it is.
    ///
    /// # Errors
    /// When the system refuses the watch (too many watches, say).
    pub fn watch(
        &mut self,
        dir: &Path,
        recursive: bool,
    ) -> Result<(), notify_debouncer_mini::notify::Error> {
        let Ok(dir) = FileSource::DISK.canonicalize(dir) else {
            return Ok(());
        };
        if !dir.is_dir()
            || self
                .watched
                .iter()
                .any(|(d, r)| dir.starts_with(d) && (*r || *d == dir))
        {
            return Ok(());
        }
        let mode = if recursive {
            RecursiveMode::Recursive
        } else {
            RecursiveMode::NonRecursive
        };
        self.debouncer.watcher().watch(&dir, mode)?;
        self.watched.push((dir, recursive));
        Ok(())
    }

    /// Watches what a scene loaded from `path` draws from: the project's
    /// `assets` folder above it (else the scene's own folder), with
    /// subfolders; and the folders of its models, prefabs and sky image (the
    /// shader folder is the binary's to watch). Folders that cannot be
    /// watched are logged and skipped.
    pub fn watch_scene(&mut self, scene: &Scene, path: Option<&Path>) {
        let mut dirs: Vec<(PathBuf, bool)> = Vec::new();
        if let Some(folder) = path.and_then(Path::parent) {
            let folder = FileSource::DISK
                .canonicalize(folder)
                .unwrap_or(folder.to_path_buf());
            let root = folder
                .ancestors()
                .find(|a| a.file_name().is_some_and(|n| n == "assets"))
                .unwrap_or(&folder)
                .to_path_buf();
            dirs.push((root, true));
        }
        let c = scene.components();
        let files = c
            .model
            .iter()
            .map(|(_, m)| m.source.clone())
            .chain(c.prefab.iter().flat_map(|(_, p)| p.prefab.files()))
            .chain(scene.environment().sky.clone());
        for file in files {
            if let Some(dir) = file.parent() {
                dirs.push((dir.to_path_buf(), false));
            }
        }
        for (dir, recursive) in dirs {
            if let Err(e) = self.watch(&dir, recursive) {
                log::warn!("cannot watch {}: {e}", dir.display());
            }
        }
    }

    /// The files that changed since the last call (canonical, each once).
    pub fn changed(&mut self) -> Vec<PathBuf> {
        let batches: Vec<DebounceEventResult> = self.events.try_iter().collect();
        self.collect(batches.into_iter())
    }

    /// As [`FileWatcher::changed`], waiting up to `timeout` for a first change.
    pub fn wait(&mut self, timeout: Duration) -> Vec<PathBuf> {
        let first = self.events.recv_timeout(timeout).ok();
        let batches: Vec<DebounceEventResult> =
            first.into_iter().chain(self.events.try_iter()).collect();
        self.collect(batches.into_iter())
    }

    /// Waits (up to `timeout`) until `file` is among the changes reported;
    /// returns every change reported meanwhile, or `None` when it never came.
    pub fn wait_for(&mut self, file: &Path, timeout: Duration) -> Option<Vec<PathBuf>> {
        let file = FileSource::DISK
            .canonicalize(file)
            .unwrap_or_else(|_| file.to_path_buf());
        let start = std::time::Instant::now();
        let mut seen = Vec::new();
        while start.elapsed() < timeout {
            for path in self.wait(Duration::from_millis(100)) {
                if !seen.contains(&path) {
                    seen.push(path);
                }
            }
            if seen.contains(&file) {
                return Some(seen);
            }
        }
        None
    }

    fn collect(&mut self, batches: impl Iterator<Item = DebounceEventResult>) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        for batch in batches {
            match batch {
                Ok(events) => {
                    for event in events {
                        let path = FileSource::DISK
                            .canonicalize(&event.path)
                            .unwrap_or(event.path.clone());
                        if out.contains(&path) || is_temporary(&path) || path.is_dir() {
                            continue;
                        }
                        if self.changed_since_seen(&path) {
                            out.push(path);
                        }
                    }
                }
                Err(e) => log::warn!("file watcher: {e}"),
            }
        }
        out
    }

    /// Whether `path` differs from when it was last reported (or, first
    /// seen, was written after watching began, or is gone).
    fn changed_since_seen(&mut self, path: &Path) -> bool {
        // The watcher watches the disk (a page's fetched files never change).
        let now = FileSource::DISK.stamp(path);
        let changed = match (self.stamps.get(path), now) {
            (Some(before), now) => *before != now,
            (None, Some((modified, _))) => modified >= self.since,
            (None, None) => true,
        };
        self.stamps.insert(path.to_path_buf(), now);
        changed
    }
}

/// Files saves leave behind for a moment (atomic writes, editors' swap files).
fn is_temporary(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    name.starts_with('.') || name.ends_with('~') || name.ends_with(".tmp") || name.ends_with(".swp")
}

/// What a batch of changed files did to a scene.
#[derive(Debug, Default)]
pub struct Reloaded {
    /// Shaders swapped in.
    pub shaders: Vec<Shader>,
    /// Model files imported again.
    pub models: Vec<PathBuf>,
    /// Nodes (model and prefab instances) rebuilt.
    pub instances: usize,
    /// The superseded imports let go of (when no other scene holds them).
    pub released: crate::assets::Released,
    /// What could not be reloaded (the last good version stays).
    pub errors: Vec<String>,
}

impl Reloaded {
    /// Whether anything changed.
    pub fn is_empty(&self) -> bool {
        self.shaders.is_empty() && self.models.is_empty() && self.instances == 0
    }
}

/// Reloads the shaders and models among `changed` (shaders that import a
/// changed piece, and models that name a changed image or buffer, too) and
/// rebuilds the models' instances in `scene`.
/// Prefabs are left to the caller ([`Scene::refresh_prefabs`] here, an undo
/// entry in the editor), and so is the scene's own file.
pub fn reload_assets(changed: &[PathBuf], scene: &mut Scene) -> Reloaded {
    let mut out = Reloaded::default();
    let assets = scene.assets().clone();
    match assets.shaders().reload(changed) {
        Ok(swapped) => out.shaders = swapped,
        Err(e) => out.errors.push(e.to_string()),
    }
    for model in models_touched(changed, &assets) {
        match assets.reload_model(&model) {
            Ok(fresh) => {
                out.instances += scene.reinstantiate_model(&fresh);
                out.models.push(model);
            }
            Err(e) => out.errors.push(e.to_string()),
        }
    }
    if !out.models.is_empty() {
        out.released = assets.release_unused();
    }
    out
}

/// The loaded models a change to `changed` reaches: the model files
/// themselves, and those whose import read a changed file (an image, a
/// buffer, a material library).
fn models_touched(changed: &[PathBuf], assets: &Assets) -> Vec<PathBuf> {
    let loaded = assets.loaded_models();
    let mut out: Vec<PathBuf> = Vec::new();
    for path in changed {
        for model in &loaded {
            let hit = model.path == *path || model.data.files.contains(path);
            if hit && !out.contains(&model.path) {
                out.push(model.path.clone());
            }
        }
    }
    out
}

impl Scene {
    /// Rebuilds every instance of `model`'s file from `model` (a fresh import):
    /// their model parts go, the new hierarchy comes. Returns how many.
    pub fn reinstantiate_model(&mut self, model: &Arc<Model>) -> usize {
        let instances: Vec<NodeId> = self
            .components()
            .model
            .iter()
            .filter(|(_, m)| m.source == model.path)
            .map(|(n, _)| n)
            .collect();
        for &node in &instances {
            let parts: Vec<NodeId> = self
                .children(node)
                .filter(|&c| self.get::<ModelPart>(c).is_some())
                .collect();
            for part in parts {
                let _ = self.despawn(part);
            }
            self.remove::<ModelInstance>(node);
            if let Err(e) = self.instantiate_model(node, model) {
                log::warn!("{}: {e}", model.path.display());
            }
        }
        self.propagate();
        instances.len()
    }

    /// Brings every prefab instance whose file (or a prefab it pulls in)
    /// changed on disk up to date, keeping overrides and added nodes; each
    /// stays where it was among its siblings. Returns how many.
    ///
    /// # Errors
    /// The first prefab that no longer loads; the instances of it stay as they are.
    pub fn refresh_prefabs(&mut self) -> Result<usize, SceneError> {
        let files = self.assets().limits().source.clone();
        let stale: Vec<NodeId> = self
            .components()
            .prefab
            .iter()
            .filter(|(_, p)| p.prefab.is_stale(&files))
            .map(|(n, _)| n)
            .collect();
        let mut count = 0;
        for node in stale {
            if self.get::<PrefabInstance>(node).is_none() {
                continue;
            }
            let file = self.to_records(&[node], None);
            let origin = Path::new("<prefab instance>");
            let assets = self.assets().clone();
            let expanded = crate::scene::file::prefab::expand(&file, origin, &assets)?;
            let parent = self.parent(node);
            let place = self.sibling_index(node).unwrap_or(usize::MAX);
            let ids = self.spawn_expanded(parent, &expanded, origin)?;
            self.despawn(node)?;
            self.reparent_at(ids[0], parent, place, Keep::Local)?;
            count += 1;
        }
        self.propagate();
        Ok(count)
    }
}

#[cfg(test)]
mod tests;
