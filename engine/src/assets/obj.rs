//! Wavefront OBJ import (`.obj` with its `.mtl` material libraries and their
//! images) into [`ModelData`], through the `tobj` crate.
//!
//! Each object or group of the file becomes one node and one mesh, a
//! primitive per material it uses. MTL's diffuse colour and map, dissolve,
//! emission, bump/normal map and the PBR extension's `Pr`/`Pm` map onto the
//! engine's metallic-roughness material (`Ns` becomes roughness where `Pr` is
//! absent). Faces are triangulated as fans; a mesh without normals is shaded
//! flat. Errors name the file and the line at fault (`tobj` reports only the
//! kind, so the line is found by checking the file's lines of that kind).

mod locate;

#[cfg(test)]
mod tests;

use std::cell::RefCell;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use glam::{Vec3, Vec4};

use super::gltf::mip_chain_in;
use super::import::ModelImporter;
use super::{
    AlphaMode, MeshData, MeshVertex, ModelData, ModelMaterial, ModelMesh, ModelNode,
    ModelPrimitive, ModelWarning, TextureData,
};
use crate::files::{FileKind, ReadLimits};
use crate::transform::Transform;

/// Wavefront OBJ as a [`ModelImporter`]: `.obj`.
#[derive(Clone, Copy, Debug, Default)]
pub struct ObjImporter;

impl ModelImporter for ObjImporter {
    type Error = ObjError;

    fn format(&self) -> &'static str {
        "Wavefront OBJ"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["obj"]
    }

    fn import(&self, path: &Path, limits: &ReadLimits) -> Result<ModelData, ObjError> {
        load(path, limits)
    }
}

/// Why an OBJ file could not be imported. Every message starts with the file
/// (the `.obj`, or the `.mtl` at fault) and, where there is one, the line.
#[derive(Debug, thiserror::Error)]
pub enum ObjError {
    /// The OBJ file itself could not be read.
    #[error("{}: cannot read the file: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the file system said.
        source: io::Error,
    },
    /// A line that does not parse: a bad number, a face index out of range.
    #[error("{}{}: {message}", path.display(), at_line(*line))]
    Parse {
        /// The `.obj` or `.mtl` file.
        path: PathBuf,
        /// The line (from 1), where it could be found.
        line: Option<usize>,
        /// What was expected and found.
        message: String,
    },
    /// A material library or image named by a line could not be read.
    #[error("{}{}: cannot read {}: {source}", path.display(), at_line(*line), file.display())]
    MissingFile {
        /// The file that names it.
        path: PathBuf,
        /// The line that names it.
        line: Option<usize>,
        /// The file named, resolved against the naming file's folder.
        file: PathBuf,
        /// What the file system said.
        source: io::Error,
    },
    /// An image a material names that does not decode.
    #[error("{}{}: {}: cannot decode the image: {message}", path.display(), at_line(*line), file.display())]
    Texture {
        /// The `.mtl` file.
        path: PathBuf,
        /// The line that names the image.
        line: Option<usize>,
        /// The image file.
        file: PathBuf,
        /// What the decoder said.
        message: String,
    },
}

fn at_line(line: Option<usize>) -> String {
    line.map_or_else(String::new, |line| format!(": line {line}"))
}

/// Reads and imports the OBJ file at `path`, its material libraries and
/// their images, each within `limits`.
///
/// # Errors
/// An [`ObjError`] naming the file and line at fault.
pub fn load(path: &Path, limits: &ReadLimits) -> Result<ModelData, ObjError> {
    let bytes =
        crate::files::read(path, FileKind::Model, limits).map_err(|source| ObjError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    from_slice(&bytes, path, limits)
}

/// A material library as read: its file and its text.
struct Library {
    path: PathBuf,
    text: Vec<u8>,
}

/// Imports an OBJ file from its bytes; `path` names it in messages and is
/// the folder its material libraries are read from.
///
/// # Errors
/// An [`ObjError`] naming the file and line at fault.
pub fn from_slice(bytes: &[u8], path: &Path, limits: &ReadLimits) -> Result<ModelData, ObjError> {
    if let Some(line) = locate::bad_face(bytes) {
        return Err(ObjError::Parse {
            path: path.to_path_buf(),
            line: Some(line),
            message: locate::message(&tobj::LoadError::FaceParseError),
        });
    }
    let dir = path.parent().unwrap_or(Path::new(""));
    let libraries: RefCell<Vec<Library>> = RefCell::new(Vec::new());
    let failed: RefCell<Option<ObjError>> = RefCell::new(None);
    let options = tobj::LoadOptions {
        single_index: true,
        triangulate: true,
        ignore_points: true,
        ignore_lines: true,
    };
    let read = || {
        tobj::load_obj_buf(&mut &bytes[..], &options, |name| {
            let file = dir.join(name);
            let text = match crate::files::read(&file, FileKind::Model, limits) {
                Ok(text) => text,
                Err(source) => {
                    failed.borrow_mut().get_or_insert(ObjError::MissingFile {
                        path: path.to_path_buf(),
                        line: locate::naming_line(bytes, &["mtllib"], &name.to_string_lossy()),
                        file,
                        source,
                    });
                    return Err(tobj::LoadError::OpenFileFailed);
                }
            };
            let result = match locate::short_colour(&text) {
                // tobj would panic on it.
                Some(line) => {
                    failed.borrow_mut().get_or_insert(ObjError::Parse {
                        path: file.clone(),
                        line: Some(line),
                        message: locate::message(&tobj::LoadError::MaterialParseError),
                    });
                    Err(tobj::LoadError::MaterialParseError)
                }
                None => tobj::load_mtl_buf(&mut &text[..]),
            };
            if let Err(error) = &result {
                failed.borrow_mut().get_or_insert(ObjError::Parse {
                    path: file.clone(),
                    line: locate::error_line(&text, error),
                    message: locate::message(error),
                });
            }
            libraries.borrow_mut().push(Library { path: file, text });
            result
        })
    };
    // The reader is not ours: a panic in it (none is known past the check
    // above) is the file's error, not the program's end.
    let loaded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(read)).map_err(|_| {
        ObjError::Parse {
            path: path.to_path_buf(),
            line: None,
            message: "the OBJ reader failed on this file".into(),
        }
    })?;
    if let Some(error) = failed.into_inner() {
        return Err(error);
    }
    let (models, materials) = loaded.map_err(|error| ObjError::Parse {
        path: path.to_path_buf(),
        line: locate::error_line(bytes, &error),
        message: locate::message(&error),
    })?;
    // Every library's error was kept above; none is left to lose here.
    let materials = materials.unwrap_or_default();
    let libraries = libraries.into_inner();
    let mut out = ModelData {
        path: path.to_path_buf(),
        files: libraries.iter().map(|l| l.path.clone()).collect(),
        ..ModelData::default()
    };
    let mut textures = Textures::default();
    for material in &materials {
        let converted = convert_material(material, &libraries, limits, &mut textures)?;
        out.materials.push(converted);
    }
    out.textures = textures.list;
    out.files.extend(textures.files);
    for model in models {
        add_model(&mut out, model, path)?;
    }
    Ok(out)
}

/// Adds `model` as a primitive of the last mesh when it continues the same
/// object (a material change inside it), else as a new node and mesh.
fn add_model(out: &mut ModelData, model: tobj::Model, path: &Path) -> Result<(), ObjError> {
    let material = model.mesh.material_id.filter(|&m| m < out.materials.len());
    let normal_mapped = material.is_some_and(|m| out.materials[m].normal_texture.is_some());
    let Some(mut mesh) = mesh(&model.mesh, path, &model.name)? else {
        out.warnings.push(ModelWarning {
            path: path.to_path_buf(),
            element: format!("object {}", model.name),
            message: "has no faces (points and lines are not drawn); skipped".into(),
        });
        return Ok(());
    };
    if normal_mapped {
        mesh.generate_tangents();
    }
    let primitive = ModelPrimitive { mesh, material };
    let continues = out.nodes.last().is_some_and(|node| node.name == model.name);
    if continues && let Some(last) = out.meshes.last_mut() {
        last.primitives.push(primitive);
        return Ok(());
    }
    out.nodes.push(ModelNode {
        name: model.name.clone(),
        parent: None,
        transform: Transform::IDENTITY,
        mesh: Some(out.meshes.len()),
        skin: None,
        weights: Vec::new(),
        light: None,
    });
    out.meshes.push(ModelMesh {
        name: model.name,
        primitives: vec![primitive],
    });
    Ok(())
}

/// The engine's mesh for one of tobj's (one index per corner: `single_index`),
/// flat-shaded where the file gives no normals. `None` without triangles.
fn mesh(mesh: &tobj::Mesh, path: &Path, name: &str) -> Result<Option<MeshData>, ObjError> {
    let count = mesh.positions.len() / 3;
    if mesh.indices.len() < 3 {
        return Ok(None);
    }
    if let Some(&index) = mesh.indices.iter().find(|&&i| i as usize >= count) {
        return Err(ObjError::Parse {
            path: path.to_path_buf(),
            line: None,
            message: format!(
                "object {name}: index {index} is out of range: expected less than the vertex count {count}"
            ),
        });
    }
    let three = |v: &[f32], i: usize| v.get(3 * i..3 * i + 3).map(|s| [s[0], s[1], s[2]]);
    let has_normals = mesh.normals.len() >= 3 * count;
    let vertex = |i: usize| {
        let uv = mesh
            .texcoords
            .get(2 * i..2 * i + 2)
            // OBJ's v grows upwards from the image's bottom row; the engine's
            // (glTF's) from its top.
            .map_or([0.0; 2], |t| [t[0], 1.0 - t[1]]);
        let normal = three(&mesh.normals, i).unwrap_or([0.0, 1.0, 0.0]);
        let mut vertex = MeshVertex::new(three(&mesh.positions, i).unwrap_or([0.0; 3]), normal, uv);
        vertex.uv1 = uv;
        if let Some(rgb) = three(&mesh.vertex_color, i) {
            let unorm = |c: f32| (c.clamp(0.0, 1.0) * 65535.0).round() as u16;
            vertex.color = [unorm(rgb[0]), unorm(rgb[1]), unorm(rgb[2]), u16::MAX];
        }
        vertex
    };
    let whole = mesh.indices.len() / 3 * 3;
    let indices = &mesh.indices[..whole];
    if has_normals {
        return Ok(Some(MeshData {
            vertices: (0..count).map(vertex).collect(),
            indices: indices.to_vec(),
            ..MeshData::default()
        }));
    }
    // No normals: each corner its own vertex with its face's normal.
    let mut vertices: Vec<MeshVertex> = indices.iter().map(|&i| vertex(i as usize)).collect();
    for face in vertices.chunks_exact_mut(3) {
        let [a, b, c] = [0, 1, 2].map(|k| Vec3::from(face[k].position));
        let normal = (b - a).cross(c - a).normalize_or(Vec3::Y).to_array();
        for corner in face {
            corner.normal = normal;
        }
    }
    let indices = (0..u32::try_from(vertices.len()).unwrap_or(u32::MAX)).collect();
    Ok(Some(MeshData {
        vertices,
        indices,
        ..MeshData::default()
    }))
}

/// The images the materials name, decoded once each.
#[derive(Default)]
struct Textures {
    list: Vec<TextureData>,
    by_file: HashMap<(PathBuf, bool), usize>,
    files: Vec<PathBuf>,
}

/// MTL's terms in the engine's metallic-roughness material.
fn convert_material(
    material: &tobj::Material,
    libraries: &[Library],
    limits: &ReadLimits,
    textures: &mut Textures,
) -> Result<ModelMaterial, ObjError> {
    let library = libraries
        .iter()
        .find(|l| locate::naming_line(&l.text, &["newmtl"], &material.name).is_some())
        .or(libraries.first());
    let mut texture = |name: &Option<String>, srgb: bool, keys: &[&str]| {
        let (Some(name), Some(library)) = (name, library) else {
            return Ok(None);
        };
        textures.get(library, name, keys, srgb, limits).map(Some)
    };
    let diffuse = material.diffuse.unwrap_or([1.0; 3]);
    let alpha = material.dissolve.unwrap_or(1.0).clamp(0.0, 1.0);
    let param = |key: &str| {
        material
            .unknown_param
            .get(key)
            .and_then(|v| v.trim().parse::<f32>().ok())
    };
    let roughness = param("Pr").unwrap_or_else(|| {
        // Blender's reading of the Phong exponent (0..1000).
        let shininess = material.shininess.unwrap_or(0.0).clamp(0.0, 1000.0);
        1.0 - (shininess / 1000.0).sqrt()
    });
    Ok(ModelMaterial {
        name: material.name.clone(),
        base_color: Vec4::new(diffuse[0], diffuse[1], diffuse[2], alpha),
        base_color_texture: texture(&material.diffuse_texture, true, &["map_Kd"])?,
        metallic: param("Pm").unwrap_or(0.0).clamp(0.0, 1.0),
        roughness: roughness.clamp(0.0, 1.0),
        emissive: material.emissive.map_or(Vec3::ZERO, Vec3::from),
        normal_texture: texture(
            &material.normal_texture,
            false,
            &["map_Bump", "map_bump", "bump"],
        )?
        .map(|t| (t, 1.0)),
        alpha_mode: if alpha < 1.0 {
            AlphaMode::Blend
        } else {
            AlphaMode::Opaque
        },
        ..ModelMaterial::default()
    })
}

impl Textures {
    /// The index of the image `name` (relative to `library`'s folder),
    /// decoding it the first time.
    fn get(
        &mut self,
        library: &Library,
        name: &str,
        keys: &[&str],
        srgb: bool,
        limits: &ReadLimits,
    ) -> Result<usize, ObjError> {
        // Options before the file name (`-bm 0.5 normal.png`) are not read:
        // the name is the last word.
        let file_name = name.split_whitespace().last().unwrap_or(name);
        let file = library
            .path
            .parent()
            .unwrap_or(Path::new(""))
            .join(file_name);
        if let Some(&index) = self.by_file.get(&(file.clone(), srgb)) {
            return Ok(index);
        }
        let line = locate::naming_line(&library.text, keys, name);
        let bytes = crate::files::read(&file, FileKind::Image, limits).map_err(|source| {
            ObjError::MissingFile {
                path: library.path.clone(),
                line,
                file: file.clone(),
                source,
            }
        })?;
        let refused = |message: String| ObjError::Texture {
            path: library.path.clone(),
            line,
            file: file.clone(),
            message,
        };
        let image = image::load_from_memory(&bytes)
            .map_err(|e| refused(e.to_string()))?
            .into_rgba8();
        let (width, height) = image.dimensions();
        if width == 0 || height == 0 {
            return Err(refused(format!(
                "expected a non-empty image, found {width} x {height}"
            )));
        }
        let mips = mip_chain_in(width, height, image.into_raw(), srgb);
        self.list.push(TextureData {
            name: file_name.to_owned(),
            width,
            height,
            mips,
            srgb,
        });
        if !self.files.contains(&file) {
            self.files.push(file.clone());
        }
        self.by_file.insert((file, srgb), self.list.len() - 1);
        Ok(self.list.len() - 1)
    }
}
