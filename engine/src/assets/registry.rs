//! The asset registry: every imported mesh, texture and model of one
//! [`Assets`], loaded once and shared by every node (and every scene) that
//! uses it.
//!
//! The registry is append-only, like the resource caches of the big engines:
//! handles never dangle (a released one answers `None`), scenes can be cloned
//! or reloaded without re-importing, and the renderer uploads a handle's data
//! the first time it draws it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::import::ModelError;
use super::{Assets, Material, MaterialMaps};
use super::{MeshData, ModelData, ModelMaterial, ModelWarning, Primitive, TextureData};
use crate::spatial::Aabb;

/// An imported mesh in the registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MeshHandle(u32);

impl MeshHandle {
    /// Position in the registry (also the renderer's key for its GPU copy).
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A decoded texture in the registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TextureHandle(u32);

impl TextureHandle {
    /// Position in the registry (also the renderer's key for its GPU copy).
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A registered [`MaterialMaps`]: an imported material's textures beyond its base colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MapsHandle(u32);

impl MapsHandle {
    /// Position in the registry (also the renderer's key for its bind group).
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// What a mesh renderer draws: a generated primitive or an imported mesh.
///
/// In scene files a primitive is written by name (`mesh: Cube`); imported meshes
/// are never written there, because the model reference that spawned them is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MeshRef {
    /// A built-in primitive.
    Primitive(Primitive),
    /// An imported mesh.
    Asset(MeshHandle),
}

impl From<Primitive> for MeshRef {
    fn from(primitive: Primitive) -> Self {
        MeshRef::Primitive(primitive)
    }
}

impl MeshRef {
    /// The mesh's bounds in its own space (an imported one's from `registry`).
    #[must_use]
    pub fn local_bounds(self, registry: &Registry) -> Aabb {
        match self {
            // Every primitive fits the unit cube around the origin.
            MeshRef::Primitive(_) => Aabb::from_center_half_extents(Vec3::ZERO, Vec3::splat(0.5)),
            MeshRef::Asset(handle) => registry.mesh(handle).map_or(
                Aabb::from_center_half_extents(Vec3::ZERO, Vec3::ZERO),
                |m| m.bounds,
            ),
        }
    }

    /// The primitive, if this is one.
    #[must_use]
    pub fn primitive(self) -> Option<Primitive> {
        match self {
            MeshRef::Primitive(p) => Some(p),
            MeshRef::Asset(_) => None,
        }
    }
}

impl Serialize for MeshRef {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            MeshRef::Primitive(primitive) => primitive.serialize(serializer),
            MeshRef::Asset(_) => Err(serde::ser::Error::custom(
                "an imported mesh is saved through the model that spawned it",
            )),
        }
    }
}

impl<'de> Deserialize<'de> for MeshRef {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Primitive::deserialize(deserializer).map(MeshRef::Primitive)
    }
}

/// An imported mesh: its data, shared, and the bounds the engine culls and picks with.
#[derive(Clone, Debug)]
pub struct MeshAsset {
    /// Where it came from (`lighthouse.glb: tower #0`), for the UI.
    pub name: String,
    /// Vertices and indices.
    pub data: Arc<MeshData>,
    /// Bounds in the mesh's own space.
    pub bounds: Aabb,
    /// Radius of the smallest origin-centred sphere around every vertex.
    pub radius: f32,
    /// Its model was released (see [`Assets::release_unused`]): the data is gone and
    /// [`Registry::mesh`] no longer answers for it.
    pub released: bool,
}

/// A model file once imported: its hierarchy, with every mesh and texture in the registry.
#[derive(Debug)]
pub struct Model {
    /// The file, as opened.
    pub path: PathBuf,
    /// The file's hierarchy and materials (mesh and image data moved to the registry).
    pub data: ModelData,
    /// For each glTF mesh, each primitive's registered mesh and material.
    pub primitives: Vec<Vec<(MeshHandle, Material)>>,
    /// Everything the import skipped.
    pub warnings: Vec<ModelWarning>,
    modified: Option<SystemTime>,
}

impl Model {
    /// How many nodes an instance of the model spawns under its root: one a
    /// glTF node, and one more for each primitive of its mesh after the first.
    #[must_use]
    pub fn instance_nodes(&self) -> usize {
        let extra = |mesh: usize| {
            self.primitives
                .get(mesh)
                .map_or(0, |p| p.len().saturating_sub(1))
        };
        let nodes = &self.data.nodes;
        nodes.len()
            + nodes
                .iter()
                .filter_map(|n| n.mesh)
                .map(extra)
                .sum::<usize>()
    }
}

/// Every mesh, texture and model one [`Assets`] has loaded.
#[derive(Debug, Default)]
pub struct Registry {
    meshes: Vec<MeshAsset>,
    /// `None` once released.
    textures: Vec<Option<Arc<TextureData>>>,
    maps: Vec<MaterialMaps>,
    models: Vec<Arc<Model>>,
    /// How many times assets were released (renderers drop their GPU copies
    /// when it moves).
    releases: u64,
}

impl Registry {
    /// The mesh behind `handle`.
    #[must_use]
    pub fn mesh(&self, handle: MeshHandle) -> Option<&MeshAsset> {
        self.meshes.get(handle.index()).filter(|m| !m.released)
    }

    /// The texture behind `handle`.
    #[must_use]
    pub fn texture(&self, handle: TextureHandle) -> Option<&Arc<TextureData>> {
        self.textures.get(handle.index())?.as_ref()
    }

    /// How many times assets were released so far.
    #[must_use]
    pub fn releases(&self) -> u64 {
        self.releases
    }

    /// The material maps behind `handle`.
    #[must_use]
    pub fn maps(&self, handle: MapsHandle) -> Option<&MaterialMaps> {
        self.maps.get(handle.index())
    }

    /// Every mesh, in handle order.
    #[must_use]
    pub fn meshes(&self) -> &[MeshAsset] {
        &self.meshes
    }

    /// Whether the mesh at `index` is registered and not released.
    #[must_use]
    pub fn has_mesh(&self, index: usize) -> bool {
        self.meshes.get(index).is_some_and(|m| !m.released)
    }

    /// Whether the texture at `index` is registered and not released.
    #[must_use]
    pub fn has_texture(&self, index: usize) -> bool {
        self.textures.get(index).is_some_and(Option::is_some)
    }

    /// Number of meshes registered so far.
    #[must_use]
    pub fn mesh_count(&self) -> usize {
        self.meshes.len()
    }

    /// Number of textures registered so far.
    #[must_use]
    pub fn texture_count(&self) -> usize {
        self.textures.len()
    }

    fn add_mesh(&mut self, name: String, data: MeshData) -> MeshHandle {
        let points: Vec<Vec3> = data.vertices.iter().map(|v| v.position.into()).collect();
        let bounds = Aabb::from_points(&points)
            .unwrap_or_else(|| Aabb::from_center_half_extents(Vec3::ZERO, Vec3::ZERO));
        let radius = data.bounding_radius();
        let handle = MeshHandle(to_u32(self.meshes.len()));
        self.meshes.push(MeshAsset {
            name,
            data: Arc::new(data),
            bounds,
            radius,
            released: false,
        });
        handle
    }

    fn add_texture(&mut self, texture: TextureData) -> TextureHandle {
        let handle = TextureHandle(to_u32(self.textures.len()));
        self.textures.push(Some(Arc::new(texture)));
        handle
    }

    fn cached(&self, path: &Path, modified: Option<SystemTime>) -> Option<Arc<Model>> {
        self.models
            .iter()
            .rev()
            .find(|m| m.path == path && m.modified == modified)
            .cloned()
    }
}

fn to_u32(len: usize) -> u32 {
    u32::try_from(len).expect("fewer than 2^32 assets")
}

/// What [`Assets::release_unused`] let go of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Released {
    /// Model files (imports of them).
    pub models: usize,
    /// Meshes.
    pub meshes: usize,
    /// Textures.
    pub textures: usize,
    /// Bytes of vertex, index and texel data freed.
    pub bytes: usize,
}

impl Assets {
    /// Registers a mesh made in code (not from a file) and returns its handle.
    pub fn add_mesh(&self, name: impl Into<String>, data: MeshData) -> MeshHandle {
        self.registry_mut().add_mesh(name.into(), data)
    }

    /// Registers a texture made in code and returns its handle.
    pub fn add_texture(&self, texture: TextureData) -> TextureHandle {
        self.registry_mut().add_texture(texture)
    }

    /// Registers material maps made in code (textures already registered).
    pub fn add_maps(&self, maps: MaterialMaps) -> MapsHandle {
        let mut registry = self.registry_mut();
        registry.maps.push(maps);
        MapsHandle(to_u32(registry.maps.len() - 1))
    }

    /// Imports a model file with the importer its extension names (see
    /// [`Assets::importers`]), or returns the model already imported from it
    /// (the same path, unchanged on disk since).
    ///
    /// # Errors
    /// [`ModelError`] naming the file and the element at fault.
    pub fn load_model(&self, path: &Path) -> Result<Arc<Model>, ModelError> {
        let path = self
            .limits()
            .source
            .canonicalize(path)
            .unwrap_or_else(|_| path.to_path_buf());
        let modified = self.limits().source.stamp(&path).map(|(time, _)| time);
        if let Some(model) = self.registry().cached(&path, modified) {
            return Ok(model);
        }
        let data = self.importers().import(&path, self.limits())?;
        Ok(self.register_model(data, modified, false))
    }

    /// Imports a model file again even if it looks unchanged (an image, buffer
    /// or material file it refers to changed): later [`Assets::load_model`] calls get the new copy.
    ///
    /// # Errors
    /// [`ModelError`] naming the file and the element at fault; the last good
    /// copy stays then.
    pub fn reload_model(&self, path: &Path) -> Result<Arc<Model>, ModelError> {
        let path = self
            .limits()
            .source
            .canonicalize(path)
            .unwrap_or_else(|_| path.to_path_buf());
        let modified = self.limits().source.stamp(&path).map(|(time, _)| time);
        let data = self.importers().import(&path, self.limits())?;
        // The old copy stays registered (instances hold it) until
        // `release_unused` finds it held by no one; the new one answers for the
        // file from now on.
        Ok(self.register_model(data, modified, true))
    }

    /// Lets go of every imported model no scene holds any more (an instance
    /// holds its model; a superseded import, or the models of a closed scene, are
    /// held by no one): their meshes' and textures' data is freed, their handles
    /// answer `None` from then on, and renderers drop their GPU copies before
    /// their next frame. A later [`Assets::load_model`] of the file imports it again.
    pub fn release_unused(&self) -> Released {
        let mut registry = self.registry_mut();
        let mut out = Released::default();
        let (unused, kept): (Vec<Arc<Model>>, Vec<Arc<Model>>) =
            std::mem::take(&mut registry.models)
                .into_iter()
                .partition(|m| Arc::strong_count(m) == 1);
        registry.models = kept;
        for model in unused {
            out.models += 1;
            for (mesh, material) in model.primitives.iter().flatten() {
                if let Some(asset) = registry.meshes.get_mut(mesh.index())
                    && !asset.released
                {
                    out.bytes += asset.data.vertices.len() * size_of::<crate::assets::MeshVertex>()
                        + asset.data.indices.len() * 4;
                    asset.data = Arc::new(MeshData::default());
                    asset.released = true;
                    out.meshes += 1;
                }
                let maps = material
                    .maps
                    .and_then(|m| registry.maps.get(m.index()).copied());
                let textures = [material.texture]
                    .into_iter()
                    .chain(maps.map_or([None; 4], |m| {
                        [m.metal_rough, m.normal, m.occlusion, m.emissive]
                    }));
                for texture in textures.flatten() {
                    if let Some(slot) = registry.textures.get_mut(texture.index())
                        && let Some(data) = slot.take()
                    {
                        out.bytes += data.mips.iter().map(Vec::len).sum::<usize>();
                        out.textures += 1;
                    }
                }
            }
        }
        if out.models > 0 {
            registry.releases += 1;
        }
        out
    }

    /// The models imported so far (the newest copy of each file).
    pub fn loaded_models(&self) -> Vec<Arc<Model>> {
        let registry = self.registry();
        let mut out: Vec<Arc<Model>> = Vec::new();
        for model in registry.models.iter().rev() {
            if !out.iter().any(|m| m.path == model.path) {
                out.push(Arc::clone(model));
            }
        }
        out
    }

    /// Puts an imported model's meshes and textures in the registry (`fresh`:
    /// even when a copy of the same file and time is there).
    fn register_model(
        &self,
        mut data: ModelData,
        modified: Option<SystemTime>,
        fresh: bool,
    ) -> Arc<Model> {
        let file_name = data
            .path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        // Compared with the watcher's canonical paths on a change.
        data.files = std::mem::take(&mut data.files)
            .into_iter()
            .map(|f| self.limits().source.canonicalize(&f).unwrap_or(f))
            .collect();
        let mut registry = self.registry_mut();
        // Another thread may have imported the same file while this one did: one copy is
        // kept, so every world of this store sees the same handles for the same file.
        if !fresh && let Some(model) = registry.cached(&data.path, modified) {
            return model;
        }
        let textures: Vec<TextureHandle> = std::mem::take(&mut data.textures)
            .into_iter()
            .map(|texture| registry.add_texture(texture))
            .collect();
        let texture = |t: Option<usize>| t.and_then(|t| textures.get(t).copied());
        let mut import = |m: &ModelMaterial| {
            let maps = MaterialMaps {
                metal_rough: texture(m.metal_rough_texture),
                normal: texture(m.normal_texture.map(|(t, _)| t)),
                normal_scale: m.normal_texture.map_or(1.0, |(_, s)| s),
                occlusion: texture(m.occlusion_texture.map(|(t, _)| t)),
                occlusion_strength: m.occlusion_texture.map_or(1.0, |(_, s)| s),
                emissive: texture(m.emissive_texture),
                slots: m.slots,
            };
            let maps = (!maps.is_empty()).then(|| {
                registry.maps.push(maps);
                MapsHandle(to_u32(registry.maps.len() - 1))
            });
            Material {
                base_color: m.base_color,
                metallic: m.metallic,
                roughness: m.roughness,
                emissive: m.emissive,
                alpha_mode: m.alpha_mode,
                double_sided: m.double_sided,
                texture: texture(m.base_color_texture),
                maps,
            }
        };
        let materials: Vec<Material> = data.materials.iter().map(&mut import).collect();
        let default_material = import(&ModelMaterial::default());
        let primitives = data
            .meshes
            .iter_mut()
            .enumerate()
            .map(|(m, mesh)| {
                std::mem::take(&mut mesh.primitives)
                    .into_iter()
                    .enumerate()
                    .map(|(p, primitive)| {
                        let name = format!("{file_name}: {} #{m}.{p}", mesh.name);
                        let material = primitive
                            .material
                            .and_then(|i| materials.get(i).copied())
                            .unwrap_or(default_material);
                        (registry.add_mesh(name, primitive.mesh), material)
                    })
                    .collect()
            })
            .collect();
        let model = Arc::new(Model {
            path: data.path.clone(),
            warnings: data.warnings.clone(),
            data,
            primitives,
            modified,
        });
        registry.models.push(Arc::clone(&model));
        model
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_meshes_keep_their_bounds_and_data() {
        let assets = Assets::new();
        let data = Primitive::Cone.mesh();
        let count = data.indices.len();
        let handle = assets.add_mesh("test cone", data);
        let reg = assets.registry();
        let asset = reg.mesh(handle).expect("registered");
        assert_eq!(asset.data.indices.len(), count);
        assert!((asset.radius - Primitive::Cone.mesh().bounding_radius()).abs() < 1e-6);
        assert!(asset.bounds.max.abs_diff_eq(Vec3::splat(0.5), 1e-5));
        assert_eq!(MeshRef::Asset(handle).local_bounds(&reg), asset.bounds);
        assert_eq!(
            MeshRef::Asset(handle).local_bounds(&Registry::default()),
            Aabb::from_center_half_extents(Vec3::ZERO, Vec3::ZERO),
            "another store never issued it"
        );
    }

    #[test]
    fn primitives_serialize_by_name_and_assets_refuse() {
        let text = ron::to_string(&MeshRef::Primitive(Primitive::Sphere)).expect("serializes");
        assert_eq!(text, "Sphere");
        let back: MeshRef = ron::from_str(&text).expect("parses");
        assert_eq!(back, MeshRef::Primitive(Primitive::Sphere));
        let handle = Assets::new().add_mesh("unsaved", Primitive::Cube.mesh());
        assert!(ron::to_string(&MeshRef::Asset(handle)).is_err());
    }
}
