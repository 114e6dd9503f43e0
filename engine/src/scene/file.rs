//! Scene files: versioned RON text, read with errors that name the file, the
//! line and what was expected, written atomically (temp file, then rename) so a
//! crash mid-save never leaves half a scene behind.
//!
//! Nodes are listed parents first; a node names its parent by its position in
//! the list. Components appear as optional fields of the node:
//!
//! ```ron
//! #![enable(implicit_some)]
//! (
//!     version: 2,
//!     nodes: [
//!         (name: "ship", transform: (translation: (0.0, 0.5, 0.0))),
//!         (name: "mast", parent: 0, mesh: (mesh: Cylinder)),
//!     ],
//! )
//! ```

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::model::{relative_model_path, resolve_model_path};
use super::validate::{self, Check};
use crate::assets::load_model;
use crate::files::FileKind;
use crate::particles::Emitter;

use super::{
    CameraSetup, Environment, Light, MeshRenderer, NodeId, Orbit, Oscillate, Scene, SceneError,
    Spin, Transform,
};

/// The format version this build writes. It reads every version from 1 on:
/// version 2 gave materials `metallic`, `roughness` and `emissive` in place of
/// version 1's `gloss` (read as the roughness of the same highlight).
pub const SCENE_VERSION: u32 = 2;

/// A whole scene as stored in a file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneFile {
    /// Format version: 1 to [`SCENE_VERSION`].
    pub version: u32,
    /// Lighting and background.
    #[serde(default)]
    pub environment: Environment,
    /// Where the camera starts.
    #[serde(default)]
    pub camera: CameraSetup,
    /// Every node, parents before children.
    #[serde(default)]
    pub nodes: Vec<NodeRecord>,
}

/// One node of a [`SceneFile`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeRecord {
    /// Display name (need not be unique).
    pub name: String,
    /// Position of the parent in the node list; absent for a root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<usize>,
    /// Local transform.
    #[serde(default)]
    pub transform: Transform,
    /// Spin behaviour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spin: Option<Spin>,
    /// Oscillate behaviour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oscillate: Option<Oscillate>,
    /// Orbit behaviour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orbit: Option<Orbit>,
    /// Mesh and material.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<MeshRenderer>,
    /// Light source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub light: Option<Light>,
    /// Particle emitter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emitter: Option<Emitter>,
    /// A glTF model (`.gltf` or `.glb`) instanced under this node, its path
    /// relative to the scene file. The model's nodes are rebuilt from the file
    /// at each load, so they are not listed in `nodes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Plays a clip of the model instanced here (or above).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub animator: Option<AnimatorRecord>,
}

/// An [`super::Animator`] as a scene file writes it: `animator: (clip: "Walk",
/// speed: 1.0, mode: Loop)`; it starts at the clip's beginning.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnimatorRecord {
    /// The clip's name in the model file.
    pub clip: String,
    /// Play speed.
    #[serde(default = "one")]
    pub speed: f32,
    /// Loop, Once or PingPong.
    #[serde(default)]
    pub mode: super::PlayMode,
}

fn one() -> f32 {
    1.0
}

impl NodeRecord {
    /// A node with no parent, the identity transform and no components.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            parent: None,
            transform: Transform::IDENTITY,
            spin: None,
            oscillate: None,
            orbit: None,
            mesh: None,
            light: None,
            emitter: None,
            model: None,
            animator: None,
        }
    }
}

fn ron_options() -> ron::Options {
    ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
}

impl SceneFile {
    /// Parses scene text. `path` only names the source in errors.
    ///
    /// # Errors
    /// [`SceneError::Parse`] with line and column, [`SceneError::UnsupportedVersion`].
    pub fn parse(text: &str, path: &Path) -> Result<Self, SceneError> {
        let file: SceneFile = ron_options()
            .from_str(text)
            .map_err(|e| SceneError::Parse {
                path: path.to_path_buf(),
                line: e.span.start.line,
                column: e.span.start.col,
                message: e.code.to_string(),
            })?;
        if !(1..=SCENE_VERSION).contains(&file.version) {
            return Err(SceneError::UnsupportedVersion {
                path: path.to_path_buf(),
                found: file.version,
                expected: SCENE_VERSION,
            });
        }
        Ok(file)
    }

    /// Reads and parses a scene file.
    ///
    /// # Errors
    /// [`SceneError::Io`], and those of [`SceneFile::parse`].
    pub fn read(path: &Path) -> Result<Self, SceneError> {
        Self::parse(&read_text(path)?, path)
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

    /// Checks every value and builds the scene.
    ///
    /// # Errors
    /// [`SceneError::InvalidField`] naming the node and the field.
    pub fn to_scene(&self, path: &Path) -> Result<Scene, SceneError> {
        validate::camera(path, &self.camera)?;
        validate::environment(path, &self.environment)?;
        let mut scene = Scene::new();
        scene.environment = self.environment.clone();
        if let Some(written) = &self.environment.sky {
            let loaded = crate::assets::load_scene_sky(Some(path), written).map_err(|error| {
                Check::section(path, "environment").fail(
                    "sky",
                    "a readable equirectangular Radiance HDR image (.hdr)",
                    error.to_string(),
                )
            })?;
            scene.environment.sky = Some(loaded);
        }
        scene.camera = self.camera;
        let mut ids: Vec<NodeId> = Vec::with_capacity(self.nodes.len());
        for (index, record) in self.nodes.iter().enumerate() {
            let check = Check::node(path, index, &record.name);
            let parent = match record.parent {
                None => None,
                Some(p) if p < index => Some(ids[p]),
                Some(p) => {
                    return Err(check.fail(
                        "parent",
                        "the index of an earlier node (forward references and cycles are refused)",
                        p.to_string(),
                    ));
                }
            };
            let transform = check.transform(&record.transform)?;
            let id = scene.spawn(parent, record.name.clone(), transform)?;
            check.components(record)?;
            let c = &mut scene.components;
            if let Some(spin) = record.spin {
                c.spin.insert(id, spin);
            }
            if let Some(osc) = record.oscillate {
                c.oscillate.insert(id, osc);
            }
            if let Some(orbit) = record.orbit {
                c.orbit.insert(id, orbit);
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
            if let Some(written) = &record.model {
                let model = load_model(&resolve_model_path(path, written)).map_err(|error| {
                    check.fail(
                        "model",
                        "a readable glTF 2.0 file (.gltf or .glb)",
                        error.to_string(),
                    )
                })?;
                for warning in &model.warnings {
                    log::warn!("{}: node `{}`: {warning}", path.display(), record.name);
                }
                scene.instantiate_model(id, &model)?;
            }
            if let Some(record) = &record.animator {
                scene.insert(id, check.animator(&scene, id, record)?)?;
            }
            ids.push(id);
        }
        scene.propagate();
        scene.snapshot_previous();
        Ok(scene)
    }
}

/// Reads a scene file's text, within the limits of [`crate::files::read`].
fn read_text(path: &Path) -> Result<String, SceneError> {
    crate::files::read_to_string(path, FileKind::Scene).map_err(|source| SceneError::Io {
        path: path.to_path_buf(),
        source,
    })
}

impl Scene {
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
        const UNSAVED: usize = usize::MAX;
        let mut nodes = Vec::with_capacity(self.len());
        // File position of each dense index, UNSAVED for model parts.
        let mut position = vec![UNSAVED; self.hot.len()];
        for id in self.nodes() {
            // Live: the pre-order walk yields only live nodes.
            let d = self.slots[id.index() as usize].dense as usize;
            let c = &self.components;
            if c.model_part.get(id).is_some() {
                continue;
            }
            let mut parent = self.hot.parent[d];
            while parent != super::graph::NONE && position[parent as usize] == UNSAVED {
                parent = self.hot.parent[parent as usize];
            }
            position[d] = nodes.len();
            let model = c.model.get(id).map(|m| match dir {
                Some(dir) => relative_model_path(&m.source, dir),
                None => m.source.to_string_lossy().into_owned(),
            });
            nodes.push(NodeRecord {
                name: self.names[id.index() as usize].clone(),
                // Pre-order: parents are saved before their children.
                parent: (parent != super::graph::NONE).then(|| position[parent as usize]),
                transform: self.hot.local[d],
                spin: c.spin.get(id).copied(),
                oscillate: c.oscillate.get(id).copied(),
                orbit: c.orbit.get(id).copied(),
                mesh: c.mesh.get(id).copied(),
                light: c.light.get(id).copied(),
                emitter: c.emitter.get(id).cloned(),
                model,
                animator: c.animator.get(id).map(|a| AnimatorRecord {
                    clip: a.clip.clone(),
                    speed: a.speed,
                    mode: a.mode,
                }),
            });
        }
        let mut environment = self.environment.clone();
        if let (Some(sky), Some(dir)) = (&environment.sky, dir) {
            environment.sky = Some(relative_model_path(sky, dir).into());
        }
        SceneFile {
            version: SCENE_VERSION,
            environment,
            camera: self.camera,
            nodes,
        }
    }

    /// Loads a scene file.
    ///
    /// # Errors
    /// Any [`SceneError`] of reading, parsing or validating, naming the file.
    pub fn load(path: &Path) -> Result<Scene, SceneError> {
        Self::from_text(&read_text(path)?, path)
    }

    /// Parses scene text; `origin` names it in errors.
    ///
    /// # Errors
    /// As [`Scene::load`], less the I/O.
    pub fn from_text(text: &str, origin: &Path) -> Result<Scene, SceneError> {
        SceneFile::parse(text, origin)?
            .to_scene(origin)
            .map_err(|error| validate::locate(error, text))
    }

    /// Saves the scene atomically (see [`SceneFile::write`]).
    ///
    /// # Errors
    /// [`SceneError::Io`] naming the file.
    pub fn save(&self, path: &Path) -> Result<(), SceneError> {
        self.to_file_in(path.parent()).write(path)
    }
}
