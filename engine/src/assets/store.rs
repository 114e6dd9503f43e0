//! [`Assets`]: everything a world loads from disk or makes once and shares,
//! owned by whoever runs worlds (the editor, the viewer, a test), never by
//! the process.
//!
//! Pattern: flyweight, the book's companion to data locality. A node stores
//! a 4-byte handle; the heavy data (vertices, decoded images) exists once in
//! its `Assets` and once on the GPU, however many nodes (and scenes) draw it.
//! A handle means something only in the `Assets` that issued it: a scene
//! holds the `Assets` it was loaded with, and extraction hands it to the
//! renderer with each frame.
//!
//! An `Assets` is a cheap handle (like egui's `Context`): clones share one
//! store, so a scene, its copies and the renderer that draws them see the
//! same imports; two `Assets` made apart share nothing (a preview world, a
//! thumbnail scene or a server simulation has its own). Inside, each part
//! has its own lock, taken for a lookup or an import and never across a
//! frame.

use std::any::Any;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::import::Importers;
use super::registry::Registry;
use super::shaders::ShaderLibrary;
use super::sky::Skies;
use crate::files::ReadLimits;

/// The meshes, textures, models, skies, shaders and prefab expansions one
/// owner's worlds share (see [`crate::assets`]).
#[derive(Clone)]
pub struct Assets {
    shared: Arc<Shared>,
}

/// A store made without saying ([`Scene::new`](crate::scene::Scene::new), a
/// renderer before its first frame) has the default limits, as
/// [`Assets::new`] does.
impl Default for Assets {
    fn default() -> Self {
        Self::new()
    }
}

#[derive(Default)]
struct Shared {
    registry: RwLock<Registry>,
    skies: RwLock<Skies>,
    shaders: ShaderLibrary,
    /// Expanded prefab files by canonical path. The scene layer, above this
    /// one, keeps its type; the store only keeps the value for it.
    prefabs: Mutex<HashMap<PathBuf, Arc<dyn Any + Send + Sync>>>,
    /// The component types the scenes of this store know by name; kept by
    /// type like the prefabs (the scene layer names it).
    component_types: RwLock<Option<Arc<dyn Any + Send + Sync>>>,
    limits: ReadLimits,
    /// The model formats this store imports.
    importers: RwLock<Importers>,
}

impl std::fmt::Debug for Assets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let registry = self.registry();
        // What it holds, not where it reads from or how much it may: a
        // world's state hash prints its store, and a replay elsewhere (another
        // folder, limits, a web page) is the same run.
        f.debug_struct("Assets")
            .field("meshes", &registry.mesh_count())
            .field("textures", &registry.texture_count())
            .finish_non_exhaustive()
    }
}

impl Assets {
    /// An empty store with [`ReadLimits::DEFAULT`] (an application passes
    /// the limits it read at start to [`Assets::with_limits`]).
    #[must_use]
    pub fn new() -> Self {
        Self::with_limits(ReadLimits::DEFAULT)
    }

    /// An empty store whose imports read files within `limits`.
    #[must_use]
    pub fn with_limits(limits: ReadLimits) -> Self {
        Self {
            shared: Arc::new(Shared {
                limits,
                ..Shared::default()
            }),
        }
    }

    /// Whether `self` and `other` are the same store (clones of one handle).
    #[must_use]
    pub fn same(&self, other: &Assets) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// The caps every file this store imports is read within.
    #[must_use]
    pub fn limits(&self) -> &ReadLimits {
        &self.shared.limits
    }

    /// The model formats this store imports (glTF and OBJ unless more were
    /// added): what loading, hot reload and the editor ask which files
    /// are models.
    pub fn importers(&self) -> RwLockReadGuard<'_, Importers> {
        read(&self.shared.importers)
    }

    /// Adds a model format (a [`Plugin`](crate::Plugin) does it through
    /// [`Plugin::importers`](crate::Plugin::importers)).
    pub fn add_importer(&self, importer: impl super::ModelImporter) {
        write(&self.shared.importers).add(importer);
    }

    pub(crate) fn importers_mut(&self) -> RwLockWriteGuard<'_, Importers> {
        write(&self.shared.importers)
    }

    /// Shared access to the meshes, textures and models.
    pub fn registry(&self) -> RwLockReadGuard<'_, Registry> {
        read(&self.shared.registry)
    }

    pub(super) fn registry_mut(&self) -> RwLockWriteGuard<'_, Registry> {
        write(&self.shared.registry)
    }

    pub(super) fn skies(&self) -> RwLockReadGuard<'_, Skies> {
        read(&self.shared.skies)
    }

    pub(super) fn skies_mut(&self) -> RwLockWriteGuard<'_, Skies> {
        write(&self.shared.skies)
    }

    /// The WGSL the renderers drawing this store's frames build from.
    #[must_use]
    pub fn shaders(&self) -> &ShaderLibrary {
        &self.shared.shaders
    }

    /// The expansion kept for the prefab file at `canonical`, of the type the
    /// scene layer stored it as.
    pub(crate) fn prefab<T: Any + Send + Sync>(&self, canonical: &Path) -> Option<Arc<T>> {
        let prefabs = self
            .shared
            .prefabs
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        prefabs
            .get(canonical)
            .and_then(|p| Arc::clone(p).downcast().ok())
    }

    /// The component registry of this store's scenes, of the type the scene
    /// layer stored it as.
    pub(crate) fn component_types<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        let types = read(&self.shared.component_types);
        types.as_ref().and_then(|t| Arc::clone(t).downcast().ok())
    }

    /// Puts `types` in place of this store's component registry.
    pub(crate) fn set_component_types<T: Any + Send + Sync>(&self, types: Arc<T>) {
        *write(&self.shared.component_types) = Some(types);
    }

    /// Keeps `expansion` as the prefab file at `canonical`'s.
    pub(crate) fn keep_prefab<T: Any + Send + Sync>(&self, canonical: PathBuf, expansion: Arc<T>) {
        self.shared
            .prefabs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(canonical, expansion);
    }
}

// Every write leaves the registry and the skies whole (appends and flag
// flips), so a panic elsewhere cannot leave them half-written: a poisoned
// lock is still usable.
fn read<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

fn write<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}
