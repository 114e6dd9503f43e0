//! Scene files: versioned RON text, read with errors that name the file, the
//! line and what was expected, written atomically (temp file, then rename) so a
//! crash mid-save never leaves half a scene behind.
//!
//! Nodes are listed parents first; a node names its parent by its position in
//! the list. Components appear as optional fields of the node: the engine's
//! own (`mesh`, `light`, ...) and every registered one under its name
//! (`spin`, a game's `health`; see `record`):
//!
//! ```ron
//! #![enable(implicit_some)]
//! (
//!     version: 2,
//!     nodes: [
//!         (name: "ship", transform: (translation: (0.0, 0.5, 0.0))),
//!         (name: "mast", parent: 0, mesh: (mesh: Cylinder), spin: (axis: (0.0, 1.0, 0.0), rate: 1.0)),
//!     ],
//! )
//! ```

mod part_refs;
pub(crate) mod prefab;
mod record;
mod validate;

pub use record::{AnimatorRecord, BUILT_IN_FIELDS, NodeRecord, ReadOptions, RecordSeed};

pub use prefab::{
    Orphans, Patch, Prefab, PrefabInstance, PrefabPart, expand_records, load_prefab,
    overridden_fields, reverted,
};

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use serde::Serialize;
use serde::de::{self, DeserializeSeed, MapAccess, Visitor};

use crate::assets::Assets;
use crate::files::written_path;
use crate::files::{FileKind, ReadLimits};
use record::RecordsSeed;
use validate::Check;

use super::{CameraSetup, ComponentRegistry, Environment, NodeId, Scene, SceneError, Transform};

/// The format version this build writes. It reads every version from 1 on:
/// version 2 gave materials `metallic`, `roughness` and `emissive` in place of
/// version 1's `gloss` (read as the roughness of the same highlight);
/// version 3 keeps cameras on nodes (`camera:` components) where older files
/// had one `camera` record for the scene, read as a `Camera` node.
pub const SCENE_VERSION: u32 = 3;

/// A whole scene as stored in a file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SceneFile {
    /// Format version: 1 to [`SCENE_VERSION`].
    pub version: u32,
    /// Lighting and background.
    pub environment: Environment,
    /// Files before version 3: the scene's one camera (read into a
    /// `Camera` node; never written).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub camera: Option<CameraSetup>,
    /// Every node, parents before children.
    pub nodes: Vec<NodeRecord>,
    /// The text the file was parsed from: errors [`SceneFile::to_scene`]
    /// finds name their line and column in it. Not part of the file's value.
    #[serde(skip)]
    parsed_from: ParsedFrom,
}

/// The text a [`SceneFile`] was parsed from (equal to any other: two files
/// with the same content are the same file, however they were made).
#[derive(Clone, Default)]
struct ParsedFrom(Option<std::sync::Arc<str>>);

impl PartialEq for ParsedFrom {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for ParsedFrom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "parsed" } else { "made" })
    }
}

const FILE_FIELDS: &[&str] = &["version", "environment", "camera", "nodes"];

/// Reads a [`SceneFile`], its nodes' registered components through the registry.
struct FileSeed<'a>(&'a ComponentRegistry, ReadOptions);

impl<'de> DeserializeSeed<'de> for FileSeed<'_> {
    type Value = SceneFile;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<SceneFile, D::Error> {
        d.deserialize_struct("SceneFile", FILE_FIELDS, self)
    }
}

impl<'de> Visitor<'de> for FileSeed<'_> {
    type Value = SceneFile;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a scene: (version: 2, nodes: [...])")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SceneFile, A::Error> {
        let mut version = None;
        let mut file = SceneFile {
            version: 0,
            environment: Environment::default(),
            camera: None,
            nodes: Vec::new(),
            parsed_from: ParsedFrom::default(),
        };
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "version" => version = Some(map.next_value()?),
                "environment" => file.environment = map.next_value()?,
                "camera" => file.camera = Some(map.next_value()?),
                "nodes" => file.nodes = map.next_value_seed(RecordsSeed(self.0, self.1))?,
                other => return Err(de::Error::unknown_field(other, FILE_FIELDS)),
            }
        }
        file.version = version.ok_or_else(|| de::Error::missing_field("version"))?;
        Ok(file)
    }
}

fn ron_options() -> ron::Options {
    ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
}

impl SceneFile {
    /// A file of the current version holding `nodes` (parents before children).
    pub fn new(environment: Environment, nodes: Vec<NodeRecord>) -> Self {
        SceneFile {
            version: SCENE_VERSION,
            environment,
            camera: None,
            nodes,
            parsed_from: ParsedFrom::default(),
        }
    }

    /// Parses scene text, its components read as `registry`'s types. `path`
    /// only names the source in errors.
    ///
    /// # Errors
    /// [`SceneError::Parse`] with line and column, [`SceneError::UnsupportedVersion`].
    pub fn parse(
        text: &str,
        path: &Path,
        registry: &ComponentRegistry,
    ) -> Result<Self, SceneError> {
        Self::parse_with(text, path, registry, ReadOptions::default())
    }

    /// [`SceneFile::parse`], read as `options` say.
    ///
    /// # Errors
    /// As [`SceneFile::parse`].
    pub fn parse_with(
        text: &str,
        path: &Path,
        registry: &ComponentRegistry,
        options: ReadOptions,
    ) -> Result<Self, SceneError> {
        let mut file: SceneFile = ron_options()
            .from_str_seed(text, FileSeed(registry, options))
            .map_err(|e| {
                let message = e.code.to_string();
                let (line, column) = (e.span.start.line, e.span.start.col);
                // An unknown field is reported where it is written, not
                // where its value ended.
                let (line, column) = validate::unknown_field_at(text, line, column, &message)
                    .unwrap_or((line, column));
                SceneError::Parse {
                    path: path.to_path_buf(),
                    line,
                    column,
                    message,
                }
            })?;
        if !(1..=SCENE_VERSION).contains(&file.version) {
            return Err(SceneError::UnsupportedVersion {
                path: path.to_path_buf(),
                found: file.version,
                expected: SCENE_VERSION,
            });
        }
        file.parsed_from = ParsedFrom(Some(text.into()));
        Ok(file)
    }

    /// Reads (within `limits`) and parses a scene file.
    ///
    /// # Errors
    /// [`SceneError::Io`], and those of [`SceneFile::parse`].
    pub fn read(
        path: &Path,
        limits: &ReadLimits,
        registry: &ComponentRegistry,
    ) -> Result<Self, SceneError> {
        Self::parse(&read_text(path, limits)?, path, registry)
    }

    /// The file as pretty RON text.
    ///
    /// # Errors
    /// [`SceneError::Serialize`] (only for values serde can't represent).
    pub fn to_text(&self, path: &Path) -> Result<String, SceneError> {
        let pretty = ron::ser::PrettyConfig::new()
            .depth_limit(3)
            .extensions(ron::extensions::Extensions::IMPLICIT_SOME);
        ron_options()
            .to_string_pretty(self, pretty)
            .map_err(|e| SceneError::Serialize {
                path: path.to_path_buf(),
                message: e.to_string(),
            })
    }

    /// Writes the file atomically: a temporary file beside it, flushed to disk, then renamed.
    ///
    /// The old file is untouched until the new one is complete.
    ///
    /// # Errors
    /// [`SceneError::Io`] naming the file, [`SceneError::Serialize`].
    pub fn write(&self, path: &Path) -> Result<(), SceneError> {
        let text = self.to_text(path)?;
        crate::files::write_atomically(path, text.as_bytes()).map_err(|source| SceneError::Io {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Checks every value and builds the scene, its models, prefabs and sky
    /// loaded into `assets`.
    ///
    /// # Errors
    /// [`SceneError::InvalidField`] naming the node and the field (and, for
    /// a parsed file, the line and column).
    pub fn to_scene(&self, path: &Path, assets: &Assets) -> Result<Scene, SceneError> {
        self.build(path, assets)
            .map_err(|error| match &self.parsed_from.0 {
                Some(text) => validate::locate(error, text),
                None => error,
            })
    }

    fn build(&self, path: &Path, assets: &Assets) -> Result<Scene, SceneError> {
        if let Some(camera) = &self.camera {
            validate::camera(path, camera)?;
        }
        validate::environment(path, &self.environment)?;
        let mut scene = Scene::with_assets(assets);
        scene.environment = self.environment.clone();
        if let Some(written) = &self.environment.sky {
            let loaded = assets
                .load_scene_sky(Some(path), written)
                .map_err(|error| {
                    Check::section(path, "environment").fail(
                        "sky",
                        "a readable equirectangular Radiance HDR image (.hdr)",
                        error.to_string(),
                    )
                })?;
            scene.environment.sky = Some(loaded);
        }
        // An older file's camera record, unless it is the record every file
        // had by default (prefabs, scenes whose camera nobody placed).
        if let Some(setup) = self.camera.filter(|c| *c != CameraSetup::default()) {
            let (transform, lens) = super::SceneCamera::from_setup(&setup);
            let node = scene.spawn(None, "Camera", transform)?;
            scene.insert(node, lens)?;
        }
        let expanded = prefab::expand(&self.nodes, path, assets)?;
        scene.spawn_expanded(None, &expanded, path)?;
        scene.propagate();
        scene.snapshot_previous();
        Ok(scene)
    }
}

/// Reads a scene file's text, within `limits`.
pub(crate) fn read_text(path: &Path, limits: &ReadLimits) -> Result<String, SceneError> {
    crate::files::read_to_string(path, FileKind::Scene, limits).map_err(|source| SceneError::Io {
        path: path.to_path_buf(),
        source,
    })
}

impl Scene {
    /// Spawns an expanded node list (see [`prefab`]) under `parent`;
    /// `path` names the file in errors and is where relative model paths
    /// start. Returns the nodes in list order; on error nothing stays behind.
    pub(crate) fn spawn_expanded(
        &mut self,
        parent: Option<NodeId>,
        expanded: &[prefab::Expanded],
        path: &Path,
    ) -> Result<Vec<NodeId>, SceneError> {
        let mut ids: Vec<NodeId> = Vec::with_capacity(expanded.len());
        let result = self.spawn_expanded_into(parent, expanded, path, &mut ids);
        if let Err(error) = result {
            // Despawning the roots takes their subtrees: every node spawned.
            for (node, &id) in expanded.iter().zip(&ids) {
                if node.record.parent.is_none() {
                    let _ = self.despawn(id);
                }
            }
            return Err(error);
        }
        // References index the expanded list: point them at its nodes.
        self.resolve_refs(&ids);
        Ok(ids)
    }

    fn spawn_expanded_into(
        &mut self,
        parent: Option<NodeId>,
        expanded: &[prefab::Expanded],
        path: &Path,
        ids: &mut Vec<NodeId>,
    ) -> Result<(), SceneError> {
        let registry = self.registry();
        for node in expanded {
            let record = &node.record;
            let check = Check::node(path, node.origin, &record.name);
            // Expansion put parents first.
            let parent = record.parent.map_or(parent, |p| Some(ids[p]));
            let transform = check.transform(&record.transform)?;
            let id = self.spawn(parent, record.name.clone(), transform)?;
            check.components(record)?;
            check.unknown(record, &registry)?;
            let c = &mut self.components;
            for component in &record.components {
                c.registered.insert_any(id, component.clone());
            }
            if !record.unknown.0.is_empty() {
                c.unknown.insert(id, record.unknown.clone());
            }
            if let Some(mesh) = record.mesh {
                c.mesh.insert(id, mesh);
            }
            if let Some(light) = record.light {
                c.light.insert(id, light);
            }
            if let Some(emitter) = &record.emitter {
                c.emitter.insert(id, emitter.clone());
            }
            if let (Some(prefab), Some(source)) = (&node.prefab, &record.prefab) {
                let source = source.into();
                let instance = super::PrefabInstance {
                    source,
                    prefab: Arc::clone(prefab),
                    orphans: node.orphans.clone(),
                };
                c.prefab.insert(id, instance);
            }
            if let Some(key) = &record.part {
                let key = key.as_str().into();
                c.prefab_part.insert(id, super::PrefabPart { key });
            }
            if let Some(written) = &record.model {
                // Expansion resolved it against the file that wrote it.
                let model = self
                    .assets()
                    .load_model(Path::new(written))
                    .map_err(|error| {
                        let formats = self.assets().importers().extensions().join(", .");
                        check.fail(
                            "model",
                            format!("a readable model file (.{formats})"),
                            error.to_string(),
                        )
                    })?;
                for warning in &model.warnings {
                    log::warn!("{}: node `{}`: {warning}", path.display(), record.name);
                }
                self.instantiate_model(id, &model)?;
            }
            if let Some(record) = &record.animator {
                self.insert(id, check.animator(self, id, record)?)?;
            }
            ids.push(id);
        }
        Ok(())
    }

    /// The scene as a file record: nodes in pre-order, parents by position,
    /// model paths absolute. Nodes spawned from models are left out (the model
    /// reference brings them back); a node added under one is kept, under the
    /// nearest node that is saved.
    pub fn to_file(&self) -> SceneFile {
        self.to_file_in(None)
    }

    /// As [`Scene::to_file`], with model paths relative to `dir` (the folder of
    /// the scene file being written) when given.
    pub fn to_file_in(&self, dir: Option<&Path>) -> SceneFile {
        let mut environment = self.environment.clone();
        if let (Some(sky), Some(dir)) = (&environment.sky, dir) {
            environment.sky = Some(written_path(sky, dir).into());
        }
        SceneFile::new(
            environment,
            self.to_records(&self.roots().collect::<Vec<_>>(), dir),
        )
    }

    /// The subtrees of `roots` as a scene file's nodes (pre-order, parents by
    /// position, `roots` without one): model parts left out, prefab instances
    /// written as their prefab, overrides and removed nodes (their parts left
    /// out), paths relative to `dir` when given (else absolute).
    pub fn to_records(&self, roots: &[NodeId], dir: Option<&Path>) -> Vec<NodeRecord> {
        /// Where a node went in the file.
        #[derive(Clone, Copy, PartialEq)]
        enum Place {
            /// Not walked, or a model part.
            None,
            /// Written at this position.
            At(usize),
            /// A prefab instance written at this position.
            Instance(usize),
            /// A part of the instance written at this position.
            Part(usize),
        }
        let mut nodes: Vec<NodeRecord> = Vec::new();
        let mut place = vec![Place::None; self.positions()];
        // Per instance written (by its position): its node, and its parts by key.
        let mut instances: HashMap<usize, (NodeId, HashMap<Arc<str>, NodeId>)> = HashMap::new();
        // The keys of parts, by dense index (for nodes added under them).
        let mut keys: HashMap<usize, Arc<str>> = HashMap::new();
        // Each written node's position, for the references to it.
        let mut written: HashMap<NodeId, u32> = HashMap::new();
        let c = &self.components;
        for id in roots.iter().flat_map(|&r| self.subtree(r)) {
            let Some(d) = self.dense(id) else {
                continue;
            };
            if c.model_part.get(id).is_some() {
                continue;
            }
            // The nearest written ancestor (parts stand for their instance).
            let mut up = self.parent_position(d);
            while let Some(u) = up.filter(|&u| place[u] == Place::None) {
                up = self.parent_position(u);
            }
            let above = up.map_or(Place::None, |u| place[u]);
            let owner = match above {
                Place::Instance(i) | Place::Part(i) => Some(i),
                Place::At(_) | Place::None => None,
            };
            if let (Some(part), Some(i)) = (c.prefab_part.get(id), owner) {
                // A part of an instance in this walk: diffed, not written.
                place[d] = Place::Part(i);
                keys.insert(d, Arc::clone(&part.key));
                if let Some((_, parts)) = instances.get_mut(&i) {
                    parts.insert(Arc::clone(&part.key), id);
                }
                continue;
            }
            let mut record = self.record_of(id, dir);
            record.parent = match above {
                Place::At(i) | Place::Instance(i) => Some(i),
                Place::Part(i) => {
                    record.under = up.and_then(|u| keys.get(&u)).map(|k| k.to_string());
                    Some(i)
                }
                Place::None => None,
            };
            let at = nodes.len();
            place[d] = Place::At(at);
            if let Some(instance) = c.prefab.get(id) {
                record.prefab = Some(match dir {
                    Some(dir) => written_path(&instance.source, dir),
                    None => instance.source.to_string_lossy().into_owned(),
                });
                place[d] = Place::Instance(at);
                instances.insert(at, (id, HashMap::new()));
            }
            nodes.push(record);
            written.insert(id, at as u32);
        }
        // References to nodes written become their index, to others their path.
        let refs = super::node_ref::RefsOut {
            scene: self,
            written: &written,
        };
        for record in &mut nodes {
            let holder = record.name.clone();
            for value in &mut record.components {
                let component = value.name();
                super::node_ref::visit_refs(
                    value.reflect_mut().as_partial_reflect_mut(),
                    &mut |r| {
                        refs.write(r, &holder, component);
                    },
                );
            }
        }
        for (at, (id, parts)) in instances {
            if let Some(instance) = c.prefab.get(id) {
                // In the prefab's form, references and all (`part_refs.rs`).
                let parts = self.part_records(&instance.prefab, &parts);
                let (mut overrides, mut removed) = prefab::overrides_of(&instance.prefab, &parts);
                // Kept as the file wrote them, for keys the prefab lacks.
                let orphans = &instance.orphans;
                overrides.extend(orphans.overrides.clone());
                removed.extend(orphans.removed.iter().cloned());
                nodes[at].overrides = overrides;
                nodes[at].removed = removed;
            }
        }
        nodes
    }

    /// A live node's name, local transform, components and model as a file
    /// record (no parent, no prefab links); model paths relative to `dir`
    /// when given.
    pub fn record_of(&self, id: NodeId, dir: Option<&Path>) -> NodeRecord {
        let c = &self.components;
        let mut record = NodeRecord::new(self.name(id).unwrap_or_default());
        record.transform = self.local(id).unwrap_or(Transform::IDENTITY);
        record.components = c.registered.values_of(id);
        if let Some(unknown) = c.unknown.get(id) {
            record.unknown = unknown.clone();
        }
        record.mesh = c.mesh.get(id).copied();
        record.light = c.light.get(id).copied();
        record.emitter = c.emitter.get(id).cloned();
        record.model = c.model.get(id).map(|m| match dir {
            Some(dir) => written_path(&m.source, dir),
            None => m.source.to_string_lossy().into_owned(),
        });
        record.animator = c.animator.get(id).map(|a| AnimatorRecord {
            clip: a.clip.clone(),
            speed: a.speed,
            mode: a.mode,
        });
        record
    }

    /// Loads a scene file; its models, prefabs and sky load into `assets`.
    ///
    /// # Errors
    /// Any [`SceneError`] of reading, parsing or validating, naming the file.
    pub fn load(path: &Path, assets: &Assets) -> Result<Scene, SceneError> {
        Self::from_text(&read_text(path, assets.limits())?, path, assets)
    }

    /// Parses scene text; `origin` names it in errors.
    ///
    /// # Errors
    /// As [`Scene::load`], less the I/O.
    pub fn from_text(text: &str, origin: &Path, assets: &Assets) -> Result<Scene, SceneError> {
        Self::from_text_with(text, origin, assets, ReadOptions::default())
    }

    /// [`Scene::from_text`], read as `options` say.
    ///
    /// # Errors
    /// As [`Scene::from_text`].
    pub fn from_text_with(
        text: &str,
        origin: &Path,
        assets: &Assets,
        options: ReadOptions,
    ) -> Result<Scene, SceneError> {
        let registry = ComponentRegistry::of(assets);
        SceneFile::parse_with(text, origin, &registry, options)?.to_scene(origin, assets)
    }

    /// Saves the scene atomically (see [`SceneFile::write`]).
    ///
    /// # Errors
    /// [`SceneError::Io`] naming the file.
    pub fn save(&self, path: &Path) -> Result<(), SceneError> {
        self.to_file_in(path.parent()).write(path)
    }
}
