//! Imported models as plain CPU data: what a glTF file holds once it has been
//! read, checked and decoded, before anything is spawned or uploaded.
//!
//! Pattern: none of the book's; this is the boundary between files and the
//! engine. Everything here is owned, validated data (indices in range, images
//! decoded with their mip chains), so the steps after it (registering assets,
//! spawning nodes, uploading to the GPU) cannot fail on bad input.

use std::fmt;
use std::path::PathBuf;

use glam::{Vec3, Vec4};

use super::{AlphaMode, MeshData, SLOTS, TextureSlot};
use crate::light::Light;
use crate::transform::Transform;

/// An RGBA8 image, sRGB-encoded, with its full mip chain.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TextureData {
    /// Name from the file (the image's name or URI), for messages and the UI.
    pub name: String,
    /// Width of level 0 in pixels (at least 1).
    pub width: u32,
    /// Height of level 0 in pixels (at least 1).
    pub height: u32,
    /// Level 0 first, then each level half the size of the one before (rounded
    /// down, at least 1) down to 1 x 1; each level is `4 * w * h` bytes, rows top first.
    pub mips: Vec<Vec<u8>>,
    /// Colour (sRGB-encoded, decoded when sampled) or data (sampled as stored).
    pub srgb: bool,
}

/// A material as the importer understood it.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelMaterial {
    /// Name from the file (may be empty).
    pub name: String,
    /// Linear RGBA factor, multiplied with the texture.
    pub base_color: Vec4,
    /// Index into [`ModelData::textures`] of the base-colour texture.
    pub base_color_texture: Option<usize>,
    /// Metallic factor (0 dielectric .. 1 metal).
    pub metallic: f32,
    /// Roughness factor (0 mirror .. 1 matte).
    pub roughness: f32,
    /// Linear RGB emitted light: `emissiveFactor` times
    /// `KHR_materials_emissive_strength`.
    pub emissive: Vec3,
    /// Index into [`ModelData::textures`] of the metallic (blue) and
    /// roughness (green) texture.
    pub metal_rough_texture: Option<usize>,
    /// The tangent-space normal map and its scale.
    pub normal_texture: Option<(usize, f32)>,
    /// The ambient occlusion texture (red) and its strength.
    pub occlusion_texture: Option<(usize, f32)>,
    /// The emission texture (multiplied with `emissive`).
    pub emissive_texture: Option<usize>,
    /// How alpha is used.
    pub alpha_mode: AlphaMode,
    /// Drawn from both sides.
    pub double_sided: bool,
    /// How each texture is read, indexed by [`Slot`](super::Slot).
    pub slots: [TextureSlot; SLOTS],
}

impl Default for ModelMaterial {
    fn default() -> Self {
        // glTF's default material.
        Self {
            name: String::new(),
            base_color: Vec4::ONE,
            base_color_texture: None,
            metallic: 1.0,
            roughness: 1.0,
            emissive: Vec3::ZERO,
            metal_rough_texture: None,
            normal_texture: None,
            occlusion_texture: None,
            emissive_texture: None,
            alpha_mode: AlphaMode::Opaque,
            double_sided: false,
            slots: [TextureSlot::default(); SLOTS],
        }
    }
}

/// One drawable piece of a mesh: triangles with one material.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelPrimitive {
    /// Vertices (positions, normals, texture coordinates) and triangle indices.
    pub mesh: MeshData,
    /// Index into [`ModelData::materials`]; `None` uses the default material.
    pub material: Option<usize>,
}

/// A glTF mesh: one or more primitives drawn together.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelMesh {
    /// Name from the file (may be empty).
    pub name: String,
    /// The primitives, in file order.
    pub primitives: Vec<ModelPrimitive>,
}

/// A node of the model's hierarchy.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelNode {
    /// Name from the file, or a generated one (`node 3`) when it has none.
    pub name: String,
    /// Index into [`ModelData::nodes`] of the parent; parents come before their
    /// children. `None` for a root of the model's scene.
    pub parent: Option<usize>,
    /// Transform relative to the parent.
    pub transform: Transform,
    /// Index into [`ModelData::meshes`].
    pub mesh: Option<usize>,
    /// Index into [`ModelData::skins`]: the mesh follows that skin's joints.
    pub skin: Option<usize>,
    /// Initial morph target weights of its mesh (the node's, else the mesh's
    /// defaults; empty without targets).
    pub weights: Vec<f32>,
    /// Its `KHR_lights_punctual` light.
    pub light: Option<Light>,
}

/// Something in the file the importer skipped; the rest still loads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelWarning {
    /// The file.
    pub path: PathBuf,
    /// The element: a glTF JSON path (`meshes[2].primitives[0]`, `skins[0]`),
    /// an OBJ or MTL line (`line 12`).
    pub element: String,
    /// What was skipped and why.
    pub message: String,
}

impl fmt::Display for ModelWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {}",
            self.path.display(),
            self.element,
            self.message
        )
    }
}

/// Everything imported from one model file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelData {
    /// The file it came from.
    pub path: PathBuf,
    /// Meshes, indexed by [`ModelNode::mesh`].
    pub meshes: Vec<ModelMesh>,
    /// Materials, indexed by [`ModelPrimitive::material`].
    pub materials: Vec<ModelMaterial>,
    /// Decoded images, indexed by [`ModelMaterial::base_color_texture`]; each
    /// image is decoded once however many materials use it.
    pub textures: Vec<TextureData>,
    /// The hierarchy of the file's default scene (or of its first scene), parents first.
    pub nodes: Vec<ModelNode>,
    /// Animation clips, in the file's order.
    pub animations: Vec<crate::assets::animation::Clip>,
    /// Skins, in the file's order.
    pub skins: Vec<ModelSkin>,
    /// What was skipped.
    pub warnings: Vec<ModelWarning>,
    /// The other files the import read (buffers, images, material
    /// libraries): a change to one reloads the model.
    pub files: Vec<PathBuf>,
}

/// A glTF skin: the nodes that act as its joints and their inverse bind matrices.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelSkin {
    /// The name in the file.
    pub name: String,
    /// The joints, as indices into [`ModelData::nodes`].
    pub joints: Vec<u32>,
    /// One per joint: from the mesh's space to the joint's space in the bind pose.
    pub inverse_bind: Vec<glam::Mat4>,
    /// The same matrices as joint packing reads them (rows), shared by every
    /// instance of the model.
    pub bind_rows: std::sync::Arc<[crate::transform::Affine3x4]>,
    /// The common root of the joints, if the file names one.
    pub skeleton: Option<u32>,
}
