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
//!     version: 1,
//!     nodes: [
//!         (name: "ship", transform: (translation: (0.0, 0.5, 0.0))),
//!         (name: "mast", parent: 0, mesh: (mesh: Cylinder)),
//!     ],
//! )
//! ```

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::model::{relative_model_path, resolve_model_path};
use crate::assets::load_model;
use crate::particles::Emitter;

use super::{
    CameraSetup, Environment, Light, LightKind, MeshRenderer, NodeId, Orbit, Oscillate, Scene,
    SceneError, Spin, Transform,
};

/// The format version this build writes and reads.
pub const SCENE_VERSION: u32 = 1;

/// A whole scene as stored in a file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneFile {
    /// Format version; must be [`SCENE_VERSION`].
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
        if file.version != SCENE_VERSION {
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
        let text = fs::read_to_string(path).map_err(|source| SceneError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, path)
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
        write_atomically(path, text.as_bytes())
    }

    /// Checks every value and builds the scene.
    ///
    /// # Errors
    /// [`SceneError::InvalidField`] naming the node and the field.
    pub fn to_scene(&self, path: &Path) -> Result<Scene, SceneError> {
        let mut scene = Scene::new();
        scene.environment = self.environment;
        scene.camera = self.camera;
        let mut ids: Vec<NodeId> = Vec::with_capacity(self.nodes.len());
        for (index, record) in self.nodes.iter().enumerate() {
            let check = Check {
                path,
                index,
                node: &record.name,
            };
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
            let c = &mut scene.components;
            if let Some(spin) = record.spin {
                check.vec3("spin.axis", spin.axis)?;
                check.finite("spin.rate", spin.rate)?;
                c.spin.insert(id, spin);
            }
            if let Some(osc) = record.oscillate {
                check.vec3("oscillate.axis", osc.axis)?;
                check.finite("oscillate.amplitude", osc.amplitude)?;
                check.non_negative("oscillate.frequency", osc.frequency)?;
                check.finite("oscillate.phase", osc.phase)?;
                check.finite("oscillate.elapsed", osc.elapsed)?;
                check.finite("oscillate.applied", osc.applied)?;
                c.oscillate.insert(id, osc);
            }
            if let Some(orbit) = record.orbit {
                check.vec3("orbit.center", orbit.center)?;
                check.non_negative("orbit.radius", orbit.radius)?;
                check.finite("orbit.rate", orbit.rate)?;
                check.finite("orbit.angle", orbit.angle)?;
                c.orbit.insert(id, orbit);
            }
            if let Some(mesh) = record.mesh {
                let color = mesh.material.base_color;
                if !color.is_finite() || color.min_element() < 0.0 {
                    return Err(check.fail(
                        "mesh.material.base_color",
                        "four finite, non-negative numbers",
                        format!("{color:?}"),
                    ));
                }
                check.non_negative("mesh.material.gloss", mesh.material.gloss)?;
                c.mesh.insert(id, mesh);
            }
            if let Some(light) = record.light {
                check.vec3("light.color", light.color)?;
                check.non_negative("light.intensity", light.intensity)?;
                if let LightKind::Point { range } = light.kind {
                    check.positive("light.kind.range", range)?;
                }
                c.light.insert(id, light);
            }
            if let Some(emitter) = &record.emitter {
                emitter.validate().map_err(|error| {
                    check.fail(
                        format!("emitter.{}", error.field()),
                        "a valid emitter parameter",
                        error.to_string(),
                    )
                })?;
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
            ids.push(id);
        }
        scene.propagate();
        scene.snapshot_previous();
        Ok(scene)
    }
}

/// Names the node and field of a bad value.
struct Check<'a> {
    path: &'a Path,
    index: usize,
    node: &'a str,
}

impl Check<'_> {
    fn fail(
        &self,
        field: impl Into<std::borrow::Cow<'static, str>>,
        expected: &'static str,
        found: String,
    ) -> SceneError {
        SceneError::InvalidField {
            path: self.path.to_path_buf(),
            line: 0,
            column: 0,
            index: self.index as u32,
            node: self.node.to_string(),
            field: field.into(),
            expected,
            found,
        }
    }

    fn finite(&self, field: &'static str, value: f32) -> Result<(), SceneError> {
        if value.is_finite() {
            Ok(())
        } else {
            Err(self.fail(field, "a finite number", value.to_string()))
        }
    }

    fn non_negative(&self, field: &'static str, value: f32) -> Result<(), SceneError> {
        if value.is_finite() && value >= 0.0 {
            Ok(())
        } else {
            Err(self.fail(field, "a finite number >= 0", value.to_string()))
        }
    }

    fn positive(&self, field: &'static str, value: f32) -> Result<(), SceneError> {
        if value.is_finite() && value > 0.0 {
            Ok(())
        } else {
            Err(self.fail(field, "a finite number > 0", value.to_string()))
        }
    }

    fn vec3(&self, field: &'static str, value: Vec3) -> Result<(), SceneError> {
        if value.is_finite() {
            Ok(())
        } else {
            Err(self.fail(field, "three finite numbers", format!("{value:?}")))
        }
    }

    /// Validates a transform and normalises its rotation (hand-written files rarely have unit quaternions).
    fn transform(&self, t: &Transform) -> Result<Transform, SceneError> {
        self.vec3("transform.translation", t.translation)?;
        self.vec3("transform.scale", t.scale)?;
        if t.scale.abs().min_element() < 1e-12 {
            return Err(self.fail(
                "transform.scale",
                "non-zero scale on every axis (a zero scale cannot be inverted)",
                format!("{:?}", t.scale),
            ));
        }
        let length = t.rotation.length();
        if !t.rotation.is_finite() || length < 1e-6 {
            return Err(self.fail(
                "transform.rotation",
                "a non-zero quaternion (x, y, z, w)",
                format!("{:?}", t.rotation),
            ));
        }
        // Saved rotations are unit already: leave them bit for bit, so save/load is exact.
        if (length - 1.0).abs() < 1e-4 {
            return Ok(*t);
        }
        Ok(Transform {
            rotation: t.rotation / length,
            ..*t
        })
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename.
///
/// # Errors
/// [`SceneError::Io`] naming `path`; the temporary file is removed on failure.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), SceneError> {
    let io = |source| SceneError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = path
        .file_name()
        .ok_or_else(|| io(std::io::Error::other("the path names no file")))?;
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(file_name);
    temp_name.push(format!(".tmp{}", std::process::id()));
    let temp = dir.join(temp_name);
    let result = (|| {
        let mut file = fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)
    })();
    if let Err(source) = result {
        let _ = fs::remove_file(&temp);
        return Err(io(source));
    }
    Ok(())
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
            });
        }
        SceneFile {
            version: SCENE_VERSION,
            environment: self.environment,
            camera: self.camera,
            nodes,
        }
    }

    /// Loads a scene file.
    ///
    /// # Errors
    /// Any [`SceneError`] of reading, parsing or validating, naming the file.
    pub fn load(path: &Path) -> Result<Scene, SceneError> {
        let text = fs::read_to_string(path).map_err(|source| SceneError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_text(&text, path)
    }

    /// Parses scene text; `origin` names it in errors.
    ///
    /// # Errors
    /// As [`Scene::load`], less the I/O.
    pub fn from_text(text: &str, origin: &Path) -> Result<Scene, SceneError> {
        SceneFile::parse(text, origin)?
            .to_scene(origin)
            .map_err(|error| locate(error, text))
    }

    /// Saves the scene atomically (see [`SceneFile::write`]).
    ///
    /// # Errors
    /// [`SceneError::Io`] naming the file.
    pub fn save(&self, path: &Path) -> Result<(), SceneError> {
        self.to_file_in(path.parent()).write(path)
    }
}

/// Fills in the line and column of an [`SceneError::InvalidField`] from the source text.
fn locate(mut error: SceneError, text: &str) -> SceneError {
    if let SceneError::InvalidField {
        line,
        column,
        index,
        field,
        ..
    } = &mut error
    {
        let key = field.rsplit('.').next().unwrap_or(field).to_string();
        let offset = field_offset(text, *index as usize, &key).unwrap_or(0);
        let before = &text[..offset];
        *line = before.matches('\n').count() as u32 + 1;
        *column = (before.len() - before.rfind('\n').map_or(0, |i| i + 1)) as u32 + 1;
    }
    error
}

/// Byte offset of `key:` inside the `index`-th node of the `nodes` list (or of
/// the node's opening parenthesis when the key is not written out).
///
/// A small scanner over RON's brackets, skipping strings and comments: the text
/// has parsed already, so its brackets balance.
fn field_offset(text: &str, index: usize, key: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let nodes_key = find_key(text, 0, text.len(), "nodes")?;
    let list = nodes_key + text[nodes_key..].find('[')?;
    let (mut depth, mut count, mut i) = (0usize, 0usize, list + 1);
    let mut node_start = None;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = skip_string(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i += text[i..].find('\n').unwrap_or(text.len() - i);
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += text[i..].find("*/").map_or(text.len() - i, |e| e + 1);
            }
            b'(' | b'[' | b'{' => {
                if depth == 0 {
                    if count == index {
                        node_start = Some(i);
                    }
                    count += 1;
                }
                depth += 1;
            }
            b')' | b']' | b'}' => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
                if depth == 0
                    && let Some(start) = node_start
                {
                    return Some(find_key(text, start, i, key).unwrap_or(start));
                }
            }
            _ => {}
        }
        i += 1;
    }
    node_start
}

fn skip_string(bytes: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < bytes.len() && bytes[i] != b'"' {
        i += if bytes[i] == b'\\' { 2 } else { 1 };
    }
    i
}

/// First `key` followed by `:` within `text[start..end]`, as a whole word outside strings.
fn find_key(text: &str, start: usize, end: usize, key: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = start;
    while i < end {
        if bytes[i] == b'"' {
            i = skip_string(bytes, i) + 1;
            continue;
        }
        if text[i..].starts_with(key)
            && (i == 0 || !word(bytes[i - 1]))
            && text[i + key.len()..].trim_start().starts_with(':')
        {
            return Some(i);
        }
        i += 1;
    }
    None
}
