//! Assets: generated primitives, models imported from glTF and OBJ files (meshes,
//! materials, textures, animation clips), sky images and shader sources, all
//! kept in an owned [`Assets`] store.

pub mod gltf;
pub mod import;
pub mod obj;
pub mod shaders;

pub(crate) mod animation;
pub(crate) mod material;
mod model;
pub(crate) mod primitives;
pub(crate) mod registry;
mod sampling;
mod shader_imports;
mod sky;
pub(crate) mod store;
mod tangents;

// At the crate root (one path each); named here for the engine's own use.
pub(crate) use material::Material;
pub(crate) use primitives::Primitive;
pub(crate) use registry::MeshRef;
pub(crate) use shaders::{Shader, ShaderLibrary};
pub(crate) use store::Assets;

pub use animation::{Channel, Clip, Interpolation, Property, Sample, slerp, slerp_pair};
pub use import::{Importers, ModelError, ModelImporter};
pub use material::{AlphaMode, DEFAULT_ROUGHNESS, MaterialMaps, roughness_from_gloss};
pub use model::{
    ModelData, ModelMaterial, ModelMesh, ModelNode, ModelPrimitive, ModelSkin, ModelWarning,
    TextureData,
};
pub use primitives::{MeshData, MeshVertex, MorphTarget, VertexSkin};
pub use registry::{MapsHandle, MeshAsset, MeshHandle, Model, Registry, Released, TextureHandle};
pub use sampling::{SLOTS, Sampling, Slot, TextureFilter, TextureSlot, UvTransform, Wrap};
pub use sky::{MAX_SKY_WIDTH, SkyError, SkyHandle, SkyImage};

/// glTF, then Wavefront OBJ: the formats every store starts with (made here,
/// above both, so the seam knows no format).
impl Default for Importers {
    fn default() -> Self {
        Self::empty()
            .with(gltf::GltfImporter)
            .with(obj::ObjImporter)
    }
}
