//! glTF 2.0 import (`.gltf` with external or embedded buffers, and `.glb`) into
//! [`ModelData`], and the matching export used to write the repository's models.
//!
//! Pattern: none of the book's; this is a loader at the data boundary. Every
//! check happens here, once: buffer ranges, accessor layouts, index ranges,
//! the shape of the hierarchy and image decoding, so what comes out is plain
//! owned data that the asset registry, the scene and the GPU upload can trust.
//! Malformed files give a [`GltfError`] naming the file and the element, never
//! a panic; features the engine cannot show (skinned drawing, morph targets,
//! cameras) load without them and leave a [`ModelWarning`]. Animation clips and
//! skins are imported (`gltf/animation.rs`).

mod animation;
mod hierarchy;
mod material;
mod mesh;
mod source;
mod texture;
mod write;

#[cfg(test)]
mod tests;

use std::io;
use std::path::{Path, PathBuf};

use gltf::json;

use super::{ModelData, ModelMesh, ModelNode, ModelSkin, ModelWarning};
use crate::files::ReadLimits;
use source::Sources;
use texture::TextureCache;
pub use texture::{mip_chain, mip_chain_in, srgb_to_linear};
pub use write::{Export, ExportError, GltfFiles, Resources};

/// Required extensions that change how geometry is stored: without them the
/// vertex data cannot be read at all, so the file is refused instead of loaded
/// with a warning.
const GEOMETRY_EXTENSIONS: [&str; 3] = [
    "KHR_draco_mesh_compression",
    "EXT_meshopt_compression",
    "KHR_mesh_quantization",
];

/// Extensions the importer reads (lights, texture transforms, emission
/// strength): a file that lists them as required loads without a warning.
const SUPPORTED_EXTENSIONS: [&str; 3] = [
    "KHR_lights_punctual",
    "KHR_texture_transform",
    "KHR_materials_emissive_strength",
];

/// Why a model file could not be imported. Every message starts with the file
/// and names the element (as a glTF JSON path) and what was wrong with it.
#[derive(Debug, thiserror::Error)]
pub enum GltfError {
    /// The model file itself could not be read.
    #[error("{}: cannot read the file: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the file system said.
        source: io::Error,
    },
    /// Not a glTF 2.0 document: bad JSON, a truncated or malformed GLB
    /// container, or a document that breaks the schema (a dangling index, a
    /// missing required property).
    #[error("{}: not a valid glTF 2.0 file: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// What the parser or the schema check reported.
        message: String,
    },
    /// A required extension stores geometry in a form this importer cannot decode.
    #[error(
        "{}: extensionsRequired names {extension}: compressed or quantized geometry is not supported",
        path.display()
    )]
    UnsupportedExtension {
        /// The file.
        path: PathBuf,
        /// The extension's name.
        extension: String,
    },
    /// A buffer or image URI that is neither a base64 `data:` URI nor a relative file path.
    #[error("{}: {element}: bad URI `{uri}`: {reason}", path.display())]
    BadUri {
        /// The file.
        path: PathBuf,
        /// The buffer or image (`buffers[1]`, `images[0]`).
        element: String,
        /// The URI as written in the file (data URIs shortened).
        uri: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The external file a buffer or image points to could not be read.
    #[error("{}: {element}: cannot read {}: {source}", path.display(), file.display())]
    MissingFile {
        /// The model file.
        path: PathBuf,
        /// The buffer or image (`buffers[0]`, `images[2] (wood.png)`).
        element: String,
        /// The external file, resolved against the model's folder.
        file: PathBuf,
        /// What the file system said.
        source: io::Error,
    },
    /// A buffer without a URI in a file that has no GLB `BIN` chunk for it.
    #[error(
        "{}: {element}: expected its data in the GLB's BIN chunk, found no BIN chunk",
        path.display()
    )]
    MissingBin {
        /// The file.
        path: PathBuf,
        /// The buffer (`buffers[0]`).
        element: String,
    },
    /// A buffer, buffer view or accessor reaches past the end of the data it reads.
    #[error(
        "{}: {element}: needs {needed} bytes of {within}, which holds only {available}",
        path.display()
    )]
    OutOfBounds {
        /// The file.
        path: PathBuf,
        /// The reader (`accessors[3]`, `bufferViews[1]`, `buffers[0]`).
        element: String,
        /// What it reads from (`bufferViews[2]`, `buffers[0]`, `the BIN chunk`).
        within: String,
        /// The end of the byte range it needs.
        needed: u64,
        /// The bytes that are there.
        available: u64,
    },
    /// An accessor whose type or layout does not fit what it is used for.
    #[error("{}: {element}: expected {expected}, found {found}", path.display())]
    BadAccessor {
        /// The file.
        path: PathBuf,
        /// The accessor and its use (`accessors[2] (NORMAL of meshes[0].primitives[0])`).
        element: String,
        /// What the importer needs.
        expected: String,
        /// What the file has.
        found: String,
    },
    /// A triangle refers to a vertex that does not exist.
    #[error(
        "{}: {element}: index {index} is out of range: expected less than the vertex count {vertex_count}",
        path.display()
    )]
    IndexOutOfRange {
        /// The file.
        path: PathBuf,
        /// The primitive (`meshes[0].primitives[1]`).
        element: String,
        /// The bad index.
        index: u32,
        /// The primitive's vertex count.
        vertex_count: usize,
    },
    /// A primitive without vertex positions.
    #[error(
        "{}: {element}: expected a POSITION attribute, found none",
        path.display()
    )]
    MissingPositions {
        /// The file.
        path: PathBuf,
        /// The primitive (`meshes[0].primitives[1]`).
        element: String,
    },
    /// An image that could not be decoded as PNG or JPEG.
    #[error("{}: {element}: cannot decode the image: {message}", path.display())]
    Texture {
        /// The file.
        path: PathBuf,
        /// The image and its URI or name (`images[2] (wood.png)`).
        element: String,
        /// What the decoder said.
        message: String,
    },
    /// An animation channel or a skin that cannot be used as it is.
    #[error("{}: {element}: expected {expected}, found {found}", path.display())]
    BadAnimation {
        /// The file.
        path: PathBuf,
        /// The element (`animations[2].channels[5]`, `skins[0].joints[3]`).
        element: String,
        /// What the importer needs.
        expected: String,
        /// What the file has.
        found: String,
    },
    /// The node graph is not a tree: a node is its own ancestor or has two parents.
    #[error(
        "{}: {element}: reached twice in the hierarchy: expected a tree, found a cycle or a second parent",
        path.display()
    )]
    Cycle {
        /// The file.
        path: PathBuf,
        /// The node reached twice (`nodes[4]`).
        element: String,
    },
}

/// glTF 2.0 as a [`ModelImporter`](super::import::ModelImporter): `.gltf` and `.glb`.
#[derive(Clone, Copy, Debug, Default)]
pub struct GltfImporter;

impl super::import::ModelImporter for GltfImporter {
    type Error = GltfError;

    fn format(&self) -> &'static str {
        "glTF 2.0"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["gltf", "glb"]
    }

    fn import(&self, path: &Path, limits: &ReadLimits) -> Result<ModelData, GltfError> {
        load(path, limits)
    }
}

/// Reads and imports the model file at `path` (`.gltf` or `.glb`).
///
/// # Errors
///
/// [`GltfError::Io`] if the file cannot be read, and every error of [`from_slice`].
pub fn load(path: &Path, limits: &ReadLimits) -> Result<ModelData, GltfError> {
    let bytes =
        crate::files::read(path, crate::files::FileKind::Model, limits).map_err(|source| {
            GltfError::Io {
                path: path.to_path_buf(),
                source,
            }
        })?;
    from_slice(&bytes, path, limits)
}

/// Imports a model from the bytes of a `.gltf` or `.glb` file. `path` names
/// the file in messages and is the base that relative URIs are resolved against.
///
/// # Errors
///
/// A [`GltfError`] naming the element at fault when the document is malformed,
/// an external file is missing, data lies outside its buffer, an index is out
/// of range, an image does not decode or the hierarchy is not a tree.
pub fn from_slice(bytes: &[u8], path: &Path, limits: &ReadLimits) -> Result<ModelData, GltfError> {
    let parse_error = |message: String| GltfError::Parse {
        path: path.to_path_buf(),
        message,
    };
    check_glb_header(bytes).map_err(parse_error)?;
    let gltf::Gltf { document, blob } =
        gltf::Gltf::from_slice_without_validation(bytes).map_err(|e| parse_error(e.to_string()))?;
    let mut warnings = Vec::new();
    validate(document.as_json(), path, &mut warnings)?;
    let sources = Sources::resolve(&document, blob, path, limits)?;
    Importer {
        path,
        document: &document,
        sources,
        warnings,
    }
    .import()
}

/// The files beside `path` that `document`'s buffers and images name (not
/// data URIs), for hot reload.
fn external_files(document: &gltf::Document, path: &Path) -> Vec<PathBuf> {
    let json = document.as_json();
    let uris = json.buffers.iter().filter_map(|b| b.uri.as_deref());
    let uris = uris.chain(json.images.iter().filter_map(|i| i.uri.as_deref()));
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut files: Vec<PathBuf> = Vec::new();
    for uri in uris.filter(|uri| !uri.starts_with("data:")) {
        if let Some(relative) = source::percent_decode(uri) {
            let file = dir.join(relative);
            if !files.contains(&file) {
                files.push(file);
            }
        }
    }
    files
}

/// `Gltf::from_slice` computes `length - 12` from the GLB header without a
/// check, which overflows on a header that claims fewer than 12 bytes.
fn check_glb_header(bytes: &[u8]) -> Result<(), String> {
    let Some(length) = bytes
        .strip_prefix(b"glTF")
        .and_then(|rest| rest.get(4..8))
        .and_then(|field| <[u8; 4]>::try_from(field).ok())
        .map(u32::from_le_bytes)
    else {
        return Ok(());
    };
    if length < 12 {
        return Err(format!(
            "GLB header: expected a length of at least 12 bytes, found {length}"
        ));
    }
    Ok(())
}

/// The schema check, with required extensions sorted into refusals and
/// warnings instead of failing the whole file.
fn validate(
    root: &json::Root,
    path: &Path,
    warnings: &mut Vec<ModelWarning>,
) -> Result<(), GltfError> {
    use json::validation::Validate;

    check_position_accessors(root, path)?;
    animation::check_indices(root, path)?;
    for (i, extension) in root.extensions_required.iter().enumerate() {
        if GEOMETRY_EXTENSIONS.contains(&extension.as_str()) {
            return Err(GltfError::UnsupportedExtension {
                path: path.to_path_buf(),
                extension: extension.clone(),
            });
        }
        if SUPPORTED_EXTENSIONS.contains(&extension.as_str()) {
            continue;
        }
        warnings.push(warning(
            path,
            format!("extensionsRequired[{i}]"),
            format!("{extension} is not supported and was ignored; the model may look different"),
        ));
    }
    let mut errors = Vec::new();
    root.validate(root, json::Path::new, &mut |element, error| {
        let element = element().to_string();
        if !element.starts_with("extensionsRequired") {
            errors.push(format!("{element}: {error}"));
        }
    });
    if errors.is_empty() {
        Ok(())
    } else {
        Err(GltfError::Parse {
            path: path.to_path_buf(),
            message: errors.join("; "),
        })
    }
}

/// The schema check indexes the accessors with each primitive's POSITION
/// without checking the index first, so it runs only once this has.
fn check_position_accessors(root: &json::Root, path: &Path) -> Result<(), GltfError> {
    let positions = json::validation::Checked::Valid(json::mesh::Semantic::Positions);
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            let element = format!("meshes[{m}].primitives[{p}]");
            let Some(accessor) = primitive.attributes.get(&positions) else {
                return Err(GltfError::MissingPositions {
                    path: path.to_path_buf(),
                    element,
                });
            };
            if accessor.value() >= root.accessors.len() {
                return Err(GltfError::Parse {
                    path: path.to_path_buf(),
                    message: format!(
                        "{element}.attributes.POSITION: expected an accessor index below {}, found {}",
                        root.accessors.len(),
                        accessor.value()
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Every joint a skinned node's mesh names exists in the node's skin.
fn check_skinned_meshes(
    path: &Path,
    nodes: &[ModelNode],
    meshes: &[ModelMesh],
    skins: &[ModelSkin],
) -> Result<(), GltfError> {
    for node in nodes {
        let (Some(m), Some(s)) = (node.mesh, node.skin) else {
            continue;
        };
        let (Some(mesh), Some(skin)) = (meshes.get(m), skins.get(s)) else {
            continue;
        };
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            let used = primitive.mesh.skin.iter().flat_map(|v| {
                v.joints
                    .iter()
                    .zip(v.weights)
                    .filter(|(_, w)| *w > 0.0)
                    .map(|(&j, _)| j)
            });
            if let Some(joint) = used.max()
                && usize::from(joint) >= skin.joints.len()
            {
                return Err(GltfError::BadAnimation {
                    path: path.to_path_buf(),
                    element: format!("meshes[{m}].primitives[{p}].attributes.JOINTS_0"),
                    expected: format!(
                        "joint indices below {} (the joints of skins[{s}])",
                        skin.joints.len()
                    ),
                    found: joint.to_string(),
                });
            }
        }
    }
    Ok(())
}

fn warning(path: &Path, element: String, message: impl Into<String>) -> ModelWarning {
    ModelWarning {
        path: path.to_path_buf(),
        element,
        message: message.into(),
    }
}

/// One import in progress: the parsed document, its resolved data and the
/// warnings gathered so far.
struct Importer<'a> {
    path: &'a Path,
    document: &'a gltf::Document,
    sources: Sources,
    warnings: Vec<ModelWarning>,
}

impl Importer<'_> {
    fn import(mut self) -> Result<ModelData, GltfError> {
        self.warn_unsupported();
        let meshes = self
            .document
            .meshes()
            .map(|mesh| self.mesh(&mesh))
            .collect::<Result<Vec<_>, _>>()?;
        let mut textures = TextureCache::default();
        let materials = self
            .document
            .materials()
            .map(|material| self.material(&material, &mut textures))
            .collect::<Result<_, _>>()?;
        let (nodes, node_map) = self.nodes()?;
        let animations = self.animations(&node_map)?;
        let skins = self.skins(&node_map)?;
        check_skinned_meshes(self.path, &nodes, &meshes, &skins)?;
        Ok(ModelData {
            path: self.path.to_path_buf(),
            meshes,
            materials,
            textures: textures.into_textures(),
            nodes,
            animations,
            skins,
            warnings: self.warnings,
            files: external_files(self.document, self.path),
        })
    }

    fn warn(&mut self, element: String, message: impl Into<String>) {
        self.warnings.push(warning(self.path, element, message));
    }

    /// One warning per element the engine has no place for.
    fn warn_unsupported(&mut self) {
        let root = self.document.as_json();
        let skipped = [("cameras", root.cameras.len(), "cameras are not imported")];
        for (array, count, message) in skipped {
            for i in 0..count {
                self.warn(format!("{array}[{i}]"), message);
            }
        }
    }
}
