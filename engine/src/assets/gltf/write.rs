//! [`ModelData`] back to glTF: a `.glb`, or a `.gltf` with its data in data
//! URIs or in files beside it. The repository's generated models are written
//! with it, and the importer's tests use it to make files (editing
//! [`Export::root`] first to produce the cases a model cannot express).
//!
//! Only what [`ModelData`] holds is written: TRS nodes, one scene, triangle
//! lists with positions, normals, `TEXCOORD_0` (and TANGENT, TEXCOORD_1 and
//! COLOR_0 where a mesh has them), metallic-roughness factors
//! and base-colour and normal textures as PNG (level 0; the importer rebuilds the mips).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::Cursor;

use base64::Engine as _;
use glam::{Quat, Vec3};
use gltf::json;
use json::validation::{Checked, USize64};

use crate::assets::{ModelData, ModelMaterial, ModelNode, ModelPrimitive, TextureData};
use crate::transform::Transform;

/// Why a model could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A texture's level 0 is not `4 * width * height` bytes.
    #[error("textures[{index}] ({name}): expected {expected} bytes of RGBA8, found {found}")]
    TextureSize {
        /// Index in [`ModelData::textures`].
        index: usize,
        /// The texture's name.
        name: String,
        /// `4 * width * height`.
        expected: usize,
        /// The length of level 0.
        found: usize,
    },
    /// PNG encoding failed.
    #[error("textures[{index}]: cannot encode PNG: {source}")]
    Png {
        /// Index in [`ModelData::textures`].
        index: usize,
        /// What the encoder said.
        source: image::ImageError,
    },
    /// The document could not be serialised.
    #[error("cannot serialise the glTF document: {message}")]
    Serialize {
        /// What the serialiser said.
        message: String,
    },
}

/// Where a `.gltf` file's binary data goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resources<'a> {
    /// Inside the JSON, as base64 `data:` URIs.
    Embedded,
    /// In files beside the JSON: `{stem}.bin` and `{stem}_{i}.png` (the URIs
    /// are percent-encoded; the returned file names are not).
    Files {
        /// The common start of the file names.
        stem: &'a str,
    },
}

/// A `.gltf` file and the files it refers to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GltfFiles {
    /// The `.gltf` JSON.
    pub json: Vec<u8>,
    /// File name (relative to the JSON's folder) and contents of each external file.
    pub files: Vec<(String, Vec<u8>)>,
}

/// A model as a glTF document before serialisation: buffer 0 is [`Export::bin`];
/// image `i` is [`Export::images`]`[i]` and gets its `uri` or `bufferView` when
/// serialised.
#[derive(Clone, Debug)]
pub struct Export {
    /// The JSON document.
    pub root: json::Root,
    /// The contents of buffer 0 (vertex and index data).
    pub bin: Vec<u8>,
    /// The encoded bytes of each image (PNG from [`Export::new`]).
    pub images: Vec<Vec<u8>>,
}

impl Export {
    /// Lays out `model` as a glTF document.
    ///
    /// # Errors
    ///
    /// [`ExportError`] when a texture's data does not match its size or does not encode.
    pub fn new(model: &ModelData) -> Result<Self, ExportError> {
        let mut export = Self {
            root: json::Root {
                asset: json::Asset {
                    generator: Some("keel-engine".into()),
                    ..json::Asset::default()
                },
                ..json::Root::default()
            },
            bin: Vec::new(),
            images: Vec::new(),
        };
        for (index, texture) in model.textures.iter().enumerate() {
            export.push_texture(index, texture)?;
        }
        for material in &model.materials {
            export.push_material(material);
        }
        for mesh in &model.meshes {
            let primitives = mesh
                .primitives
                .iter()
                .map(|primitive| export.primitive(primitive))
                .collect();
            export.root.push(json::Mesh {
                name: Some(mesh.name.clone()).filter(|name| !name.is_empty()),
                primitives,
                weights: None,
                extensions: None,
                extras: json::Extras::default(),
            });
        }
        export.push_nodes(&model.nodes);
        Ok(export)
    }

    /// Serialises as a binary `.glb`, with the images in its `BIN` chunk.
    ///
    /// # Errors
    ///
    /// [`ExportError::Serialize`] if the JSON cannot be written.
    pub fn to_glb(mut self) -> Result<Vec<u8>, ExportError> {
        let images = std::mem::take(&mut self.images);
        for (i, png) in images.iter().enumerate() {
            let view = self.push_view(png, None);
            let image = &mut self.root.images[i];
            image.buffer_view = Some(view);
            image.uri = None;
        }
        self.finish_buffer(None);
        let json = self.root.to_vec().map_err(serialize_error)?;
        let glb = gltf::binary::Glb {
            header: gltf::binary::Header {
                magic: *b"glTF",
                version: 2,
                // `to_vec` computes the real length.
                length: 0,
            },
            json: Cow::Owned(json),
            bin: (!self.bin.is_empty()).then_some(Cow::Owned(self.bin)),
        };
        glb.to_vec().map_err(serialize_error)
    }

    /// Serialises as a `.gltf` JSON document with its data placed as `resources` says.
    ///
    /// # Errors
    ///
    /// [`ExportError::Serialize`] if the JSON cannot be written.
    pub fn to_gltf(mut self, resources: Resources<'_>) -> Result<GltfFiles, ExportError> {
        let mut files = Vec::new();
        let images = std::mem::take(&mut self.images);
        for (i, png) in images.into_iter().enumerate() {
            let uri = match resources {
                Resources::Embedded => data_uri("image/png", &png),
                Resources::Files { stem } => {
                    let name = format!("{stem}_{i}.png");
                    let uri = percent_encode(&name);
                    files.push((name, png));
                    uri
                }
            };
            let image = &mut self.root.images[i];
            image.uri = Some(uri);
            image.buffer_view = None;
            image.mime_type = None;
        }
        let bin = std::mem::take(&mut self.bin);
        let buffer_uri = match resources {
            Resources::Embedded => data_uri("application/octet-stream", &bin),
            Resources::Files { stem } => {
                let name = format!("{stem}.bin");
                let uri = percent_encode(&name);
                files.push((name, bin.clone()));
                uri
            }
        };
        self.bin = bin;
        self.finish_buffer(Some(buffer_uri));
        let json = self.root.to_vec().map_err(serialize_error)?;
        Ok(GltfFiles { json, files })
    }

    /// Sets buffer 0 to the final [`Export::bin`], or drops it when there is
    /// no data (glTF forbids empty buffers).
    fn finish_buffer(&mut self, uri: Option<String>) {
        self.root.buffers.clear();
        if self.bin.is_empty() {
            return;
        }
        self.root.push(json::Buffer {
            byte_length: USize64::from(self.bin.len()),
            name: None,
            uri,
            extensions: None,
            extras: json::Extras::default(),
        });
    }

    /// Appends `bytes` to buffer 0 at a 4-byte boundary and returns its view.
    pub fn push_view(
        &mut self,
        bytes: &[u8],
        target: Option<json::buffer::Target>,
    ) -> json::Index<json::buffer::View> {
        self.bin.resize(self.bin.len().next_multiple_of(4), 0);
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.root.push(json::buffer::View {
            buffer: json::Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Checked::Valid),
            extensions: None,
            extras: json::Extras::default(),
        })
    }

    /// A tightly packed accessor with one element per item of `elements`.
    fn push_accessor<T: bytemuck::Pod>(
        &mut self,
        elements: &[T],
        dimensions: json::accessor::Type,
        component_type: json::accessor::ComponentType,
        target: json::buffer::Target,
        bounds: Option<(Vec3, Vec3)>,
    ) -> json::Index<json::Accessor> {
        let view = self.push_view(bytemuck::cast_slice(elements), Some(target));
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(elements.len()),
            component_type: Checked::Valid(json::accessor::GenericComponentType(component_type)),
            extensions: None,
            extras: json::Extras::default(),
            type_: Checked::Valid(dimensions),
            min: bounds.map(|(min, _)| json::Value::from(min.to_array().to_vec())),
            max: bounds.map(|(_, max)| json::Value::from(max.to_array().to_vec())),
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    fn primitive(&mut self, primitive: &ModelPrimitive) -> json::mesh::Primitive {
        use json::accessor::{ComponentType, Type};
        use json::buffer::Target;
        use json::mesh::Semantic;

        let vertices = &primitive.mesh.vertices;
        let positions: Vec<[f32; 3]> = vertices.iter().map(|v| v.position).collect();
        let normals: Vec<[f32; 3]> = vertices.iter().map(|v| v.normal).collect();
        let uvs: Vec<[f32; 2]> = vertices.iter().map(|v| v.uv).collect();
        let bounds = positions
            .iter()
            .map(|&p| Vec3::from(p))
            .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(min, max), p| {
                (min.min(p), max.max(p))
            });
        let mut attributes = BTreeMap::new();
        for (semantic, accessor) in [
            (
                Semantic::Positions,
                self.push_accessor(
                    &positions,
                    Type::Vec3,
                    ComponentType::F32,
                    Target::ArrayBuffer,
                    Some(bounds),
                ),
            ),
            (
                Semantic::Normals,
                self.push_accessor(
                    &normals,
                    Type::Vec3,
                    ComponentType::F32,
                    Target::ArrayBuffer,
                    None,
                ),
            ),
            (
                Semantic::TexCoords(0),
                self.push_accessor(
                    &uvs,
                    Type::Vec2,
                    ComponentType::F32,
                    Target::ArrayBuffer,
                    None,
                ),
            ),
        ] {
            attributes.insert(Checked::Valid(semantic), accessor);
        }
        // What only some meshes have: written when it differs from what an
        // importer assumes without it.
        if vertices.iter().any(|v| v.tangent != [0.0; 4]) {
            let tangents: Vec<[f32; 4]> = vertices.iter().map(|v| v.tangent).collect();
            let accessor = self.push_accessor(
                &tangents,
                Type::Vec4,
                ComponentType::F32,
                Target::ArrayBuffer,
                None,
            );
            attributes.insert(Checked::Valid(Semantic::Tangents), accessor);
        }
        if vertices.iter().any(|v| v.uv1 != v.uv) {
            let uvs1: Vec<[f32; 2]> = vertices.iter().map(|v| v.uv1).collect();
            let accessor = self.push_accessor(
                &uvs1,
                Type::Vec2,
                ComponentType::F32,
                Target::ArrayBuffer,
                None,
            );
            attributes.insert(Checked::Valid(Semantic::TexCoords(1)), accessor);
        }
        if vertices.iter().any(|v| v.color != [u16::MAX; 4]) {
            let colors: Vec<[u16; 4]> = vertices.iter().map(|v| v.color).collect();
            let accessor = self.push_accessor(
                &colors,
                Type::Vec4,
                ComponentType::U16,
                Target::ArrayBuffer,
                None,
            );
            // Colours are stored as fractions of the largest short.
            self.root.accessors[accessor.value()].normalized = true;
            attributes.insert(Checked::Valid(Semantic::Colors(0)), accessor);
        }
        let indices = self.push_accessor(
            &primitive.mesh.indices,
            Type::Scalar,
            ComponentType::U32,
            Target::ElementArrayBuffer,
            None,
        );
        json::mesh::Primitive {
            attributes,
            indices: Some(indices),
            material: primitive.material.map(index),
            mode: Checked::Valid(json::mesh::Mode::Triangles),
            targets: None,
            extensions: None,
            extras: json::Extras::default(),
        }
    }

    fn push_texture(&mut self, index: usize, texture: &TextureData) -> Result<(), ExportError> {
        let level0 = texture.mips.first().cloned().unwrap_or_default();
        let expected = 4 * texture.width as usize * texture.height as usize;
        let found = level0.len();
        let image = image::RgbaImage::from_raw(texture.width, texture.height, level0)
            .filter(|_| found == expected)
            .ok_or_else(|| ExportError::TextureSize {
                index,
                name: texture.name.clone(),
                expected,
                found,
            })?;
        let mut png = Vec::new();
        image
            .write_to(&mut Cursor::new(&mut png), image::ImageFormat::Png)
            .map_err(|source| ExportError::Png { index, source })?;
        self.images.push(png);
        let source = self.root.push(json::Image {
            buffer_view: None,
            mime_type: Some(json::image::MimeType("image/png".into())),
            name: Some(texture.name.clone()).filter(|name| !name.is_empty()),
            uri: None,
            extensions: None,
            extras: json::Extras::default(),
        });
        self.root.push(json::Texture {
            name: None,
            sampler: None,
            source,
            extensions: None,
            extras: json::Extras::default(),
        });
        Ok(())
    }

    fn push_material(&mut self, material: &ModelMaterial) {
        // The factor stays within 0..1; brighter emission goes through the strength.
        let strength = material.emissive.max_element().max(1.0);
        let extensions = (strength > 1.0).then(|| {
            const NAME: &str = "KHR_materials_emissive_strength";
            if !self.root.extensions_used.iter().any(|e| e == NAME) {
                self.root.extensions_used.push(NAME.to_owned());
            }
            json::extensions::material::Material {
                emissive_strength: Some(json::extensions::material::EmissiveStrength {
                    emissive_strength: json::extensions::material::EmissiveStrengthFactor(strength),
                }),
                ..json::extensions::material::Material::default()
            }
        });
        self.root.push(json::Material {
            emissive_factor: json::material::EmissiveFactor(
                (material.emissive / strength).to_array(),
            ),
            extensions,
            name: Some(material.name.clone()).filter(|name| !name.is_empty()),
            pbr_metallic_roughness: json::material::PbrMetallicRoughness {
                base_color_factor: json::material::PbrBaseColorFactor(
                    material.base_color.to_array(),
                ),
                base_color_texture: material.base_color_texture.map(|texture| {
                    json::texture::Info {
                        index: index(texture),
                        tex_coord: 0,
                        extensions: None,
                        extras: json::Extras::default(),
                    }
                }),
                metallic_factor: json::material::StrengthFactor(material.metallic),
                roughness_factor: json::material::StrengthFactor(material.roughness),
                ..Default::default()
            },
            normal_texture: material.normal_texture.map(|(texture, scale)| {
                json::material::NormalTexture {
                    index: index(texture),
                    scale,
                    tex_coord: 0,
                    extensions: None,
                    extras: json::Extras::default(),
                }
            }),
            ..Default::default()
        });
    }

    /// One glTF node per model node (same indices) and a default scene of the roots.
    fn push_nodes(&mut self, nodes: &[ModelNode]) {
        let mut children = vec![Vec::new(); nodes.len()];
        let mut roots = Vec::new();
        for (i, node) in nodes.iter().enumerate() {
            match node.parent {
                Some(parent) if parent < nodes.len() => children[parent].push(index(i)),
                _ => roots.push(index(i)),
            }
        }
        for (node, children) in nodes.iter().zip(children) {
            let Transform {
                translation,
                rotation,
                scale,
            } = node.transform;
            self.root.push(json::Node {
                name: Some(node.name.clone()),
                mesh: node.mesh.map(index),
                children: (!children.is_empty()).then_some(children),
                translation: (translation != Vec3::ZERO).then(|| translation.to_array()),
                rotation: (rotation != Quat::IDENTITY)
                    .then(|| json::scene::UnitQuaternion(rotation.to_array())),
                scale: (scale != Vec3::ONE).then(|| scale.to_array()),
                ..Default::default()
            });
        }
        let scene = self.root.push(json::Scene {
            name: None,
            nodes: roots,
            extensions: None,
            extras: json::Extras::default(),
        });
        self.root.scene = Some(scene);
    }
}

/// A glTF index from a `usize` that came from a `Vec` the writer itself filled.
fn index<T>(i: usize) -> json::Index<T> {
    json::Index::new(u32::try_from(i).unwrap_or(u32::MAX))
}

fn data_uri(mime: &str, bytes: &[u8]) -> String {
    format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// Escapes every byte but the URI-unreserved ones and `/`.
fn percent_encode(name: &str) -> String {
    name.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn serialize_error(e: impl std::fmt::Display) -> ExportError {
    ExportError::Serialize {
        message: e.to_string(),
    }
}
