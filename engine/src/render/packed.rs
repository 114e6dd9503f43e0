//! Instances extraction already packed for the GPU, as the frame hands
//! them to the renderer: the records in the order they are uploaded, and
//! beside each its [`BatchKey`], which the batcher groups by without
//! copying a record.

use super::records::GpuInstance;
use crate::assets::{AlphaMode, MapsHandle, Material, MeshRef, Primitive, TextureHandle};

/// The batch an already packed instance belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BatchKey {
    /// The mesh drawn.
    pub mesh: MeshRef,
    /// The base-colour texture.
    pub texture: Option<TextureHandle>,
    /// The material's other textures.
    pub maps: Option<MapsHandle>,
    /// Drawn from both sides.
    pub double_sided: bool,
    /// Alpha-blended: drawn after the opaque meshes, back to front.
    pub blend: bool,
    /// Alpha-masked: cut out below its cutoff.
    pub masked: bool,
}

impl BatchKey {
    /// The batch of `mesh` drawn with `material`.
    #[must_use]
    pub fn new(mesh: MeshRef, material: &Material) -> Self {
        Self {
            mesh,
            texture: material.texture,
            maps: material.maps,
            double_sided: material.double_sided,
            blend: material.alpha_mode == AlphaMode::Blend,
            masked: matches!(material.alpha_mode, AlphaMode::Mask { .. }),
        }
    }

    /// The batch of `mesh` in a depth-only pass (no texture, no blending).
    #[must_use]
    pub fn depth_only(mesh: MeshRef) -> Self {
        Self {
            mesh,
            ..Self::default()
        }
    }

    /// The batch of `mesh` as a shadow caster drawn with `material`: depth
    /// only, but a masked material keeps its texture (its cut-outs let light
    /// through).
    #[must_use]
    pub fn caster(mesh: MeshRef, material: &Material) -> Self {
        match material.alpha_mode {
            AlphaMode::Mask { .. } => Self {
                mesh,
                texture: material.texture,
                masked: true,
                ..Self::default()
            },
            _ => Self::depth_only(mesh),
        }
    }
}

impl Default for BatchKey {
    fn default() -> Self {
        Self {
            mesh: MeshRef::Primitive(Primitive::Cube),
            texture: None,
            maps: None,
            double_sided: false,
            blend: false,
            masked: false,
        }
    }
}

/// Mesh instances that extraction already culled and packed in the GPU layout:
/// record `i` belongs to batch `keys[i]`. Drawn as they are, uploaded without
/// another copy.
#[derive(Clone, Copy, Debug, Default)]
pub struct PackedInstances<'a, R = GpuInstance> {
    /// The records, in the order the GPU buffer receives them.
    pub records: &'a [R],
    /// The batch of each record.
    pub keys: &'a [BatchKey],
    /// Names this array of keys: whoever fills it gives it a version no
    /// other keys had whenever they change (0: unknown). A batcher handed
    /// the keys it grouped last frame keeps that grouping.
    pub version: u64,
}

impl<R> PackedInstances<'_, R> {
    /// Number of instances (records without a key are ignored).
    #[must_use]
    pub fn len(&self) -> usize {
        self.records.len().min(self.keys.len())
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The retained scene, as extraction hands it to the renderer: every
/// drawable mesh node keeps its slot (its record at `records[slot]`, its
/// batch at `batch_of[slot]`) from frame to frame, and only the slots in
/// `dirty` changed since the extraction before (`epoch - 1`). The GPU culls
/// and counts the slots itself (`render/gpu_scene.rs`).
#[derive(Clone, Copy, Debug)]
pub struct RetainedInstances<'a> {
    /// The store the slots belong to (no two stores share one).
    pub id: u64,
    /// Counts the store's extractions: a renderer that uploaded `epoch - 1`
    /// of the same store uploads only `dirty`, any other everything.
    pub epoch: u64,
    /// Each slot's record (free slots keep whatever they held).
    pub records: &'a [GpuInstance],
    /// Each slot's batch, an index into `batches`; [`FREE_SLOT`] when free.
    pub batch_of: &'a [u32],
    /// What each batch draws with (never blended: those are sorted on the CPU).
    pub batches: &'a [BatchKey],
    /// How many slots each batch has.
    pub members: &'a [u32],
    /// Each slot's batch as a shadow caster, an index into
    /// `caster_batches`; [`FREE_SLOT`] when it casts none.
    pub caster_of: &'a [u32],
    /// What each caster batch draws with ([`BatchKey::caster`]).
    pub caster_batches: &'a [BatchKey],
    /// How many slots each caster batch has.
    pub caster_members: &'a [u32],
    /// The slots whose record changed since `epoch - 1`, sorted, each
    /// once; `None`: (nearly) every slot.
    pub dirty: Option<&'a [u32]>,
    /// Whether a slot's batch or caster batch changed (or a slot was taken
    /// or freed) since `epoch - 1`.
    pub batches_changed: bool,
}

/// A slot no node holds ([`RetainedInstances::batch_of`]).
pub const FREE_SLOT: u32 = u32::MAX;
