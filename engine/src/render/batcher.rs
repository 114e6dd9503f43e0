//! The CPU half of the mesh pass: culls, groups instances by mesh and texture,
//! and packs them in the layout the mesh shader reads. Kept apart from the GPU
//! objects so it can be tested and measured without a device.
//!
//! Pattern: data locality. Instances are packed in the order they come (one
//! sequential stream of 64-byte records) and grouped by a counting sort of
//! 4-byte indices: one pass over the instances packs each one and counts its
//! (mesh, texture) batch (each instance is read from memory once), a prefix sum
//! gives every batch its run of the index array, and a pass over the 4-byte
//! batch numbers drops each packed position into its batch's run. The GPU reads the
//! indices as a per-instance vertex stream and fetches the record from a
//! storage buffer. Scattering 64-byte records into hundreds of runs instead
//! would miss the cache on nearly every write. Every buffer is kept from frame
//! to frame, so a steady scene allocates nothing.

use std::ops::Range;

use glam::{Affine3A, Mat4, Vec3};

use super::frame::{FrameData, MeshInstance};
use super::packed::{BatchKey, PackedInstances};
use super::records::{GpuCaster, GpuInstance, InstanceRecord};
use super::sphere_culling::Frustum;
use crate::assets::AlphaMode;
use crate::assets::{MeshRef, Primitive, Registry, TextureHandle};

/// A run of consecutive instances sharing a batch key: one draw call.
/// Alpha-blended groups come last, one instance each, back to front.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrawGroup {
    /// What the instances share: mesh, textures, sidedness, alpha mode.
    pub key: BatchKey,
    /// Range in the index array ([`InstanceBatcher::indices`]).
    pub instances: Range<u32>,
}

const NONE: u32 = u32::MAX;

/// A batch being counted: the instances of one (mesh, texture) pair.
#[derive(Clone, Copy, Debug)]
struct Batch {
    key: BatchKey,
    count: u32,
    /// Next batch of the same mesh (another texture), or `NONE`.
    next: u32,
}

/// The batches of a frame and what finding them needs.
#[derive(Debug, Default)]
struct Batches {
    /// Bounding-sphere radius by mesh key (primitives, then registry meshes).
    radii: Vec<f32>,
    /// Registry meshes whose radius `radii` holds (keys past them that a
    /// frame named hold 0 until the registry has them).
    learned: usize,
    /// First batch of each mesh key this frame, or `NONE`.
    first: Vec<u32>,
    list: Vec<Batch>,
}

impl Batches {
    /// Forgets the last frame's batches (touching only the keys it used).
    fn clear(&mut self) {
        for batch in &self.list {
            self.first[mesh_key(batch.key.mesh)] = NONE;
        }
        self.list.clear();
    }

    /// Radius of mesh key `key` (0 for a handle `registry` never issued).
    #[inline]
    fn radius(&mut self, key: usize) -> f32 {
        if key >= self.radii.len() {
            self.grow(key);
        }
        self.radii[key]
    }

    /// Finds or opens the batch of (`mesh` with key `key`, `texture`).
    #[inline]
    fn find(&mut self, key: usize, batch_key: BatchKey) -> u32 {
        if key >= self.first.len() {
            self.grow(key);
        }
        let mut at = self.first[key];
        while let Some(batch) = self.list.get(at as usize) {
            if batch.key == batch_key {
                return at;
            }
            at = batch.next;
        }
        let id = to_u32(self.list.len());
        self.list.push(Batch {
            key: batch_key,
            count: 0,
            next: self.first[key],
        });
        self.first[key] = id;
        id
    }

    /// Learns the radii of the meshes `registry` gained since the last call
    /// (what a frame's keys are looked up in).
    fn learn(&mut self, registry: &Registry) {
        if self.radii.is_empty() {
            self.radii.extend_from_slice(&PRIMITIVE_RADII);
        }
        let new = registry.meshes().get(self.learned..).unwrap_or_default();
        if new.is_empty() {
            return;
        }
        let start = Primitive::ALL.len() + self.learned;
        if self.radii.len() < start + new.len() {
            self.radii.resize(start + new.len(), 0.0);
        }
        for (radius, mesh) in self.radii[start..].iter_mut().zip(new) {
            *radius = mesh.radius;
        }
        self.learned += new.len();
        self.first.resize(self.radii.len(), NONE);
    }

    /// Extends the tables to cover mesh key `key`: a handle the registry never
    /// issued draws nothing but must not panic.
    #[cold]
    fn grow(&mut self, key: usize) {
        if self.radii.is_empty() {
            self.radii.extend_from_slice(&PRIMITIVE_RADII);
        }
        self.radii.resize(self.radii.len().max(key + 1), 0.0);
        self.first.resize(self.radii.len(), NONE);
    }
}

/// Culls, groups and packs mesh instances into one reusable array.
///
/// The per-instance buffers only ever grow (to the largest frame seen) and
/// are overwritten in place: a frame neither clears nor fills them first.
#[derive(Debug, Default)]
pub struct InstanceBatcher<R: InstanceRecord = GpuInstance> {
    batches: Batches,
    /// The batches of the second half of many extracted keys (grouped on
    /// another core), and where each went among `batches`.
    side: Batches,
    remap: Vec<u32>,
    /// Batch of each packed instance.
    batch_of: Vec<u32>,
    /// Next free slot of each batch's run in `indices` while filling.
    cursors: Vec<u32>,
    order: Vec<u32>,
    /// The visible instances, in input order (the first `visible`).
    packed: Vec<R>,
    /// Positions in `packed`, grouped: each group's run is contiguous (the first `visible`).
    indices: Vec<u32>,
    /// Records that came packed from extraction (ahead of `packed` on the GPU).
    extracted: usize,
    visible: usize,
    groups: Vec<DrawGroup>,
    /// Blended instances while sorting: view depth, position, group.
    blended: Vec<(f32, u32, u32)>,
    culled: usize,
    /// The version of the extracted keys the last `prepare` grouped, when
    /// they were all it had (0: none).
    grouped: u64,
}

/// Bounding-sphere radius of each primitive around its origin.
const PRIMITIVE_RADII: [f32; Primitive::ALL.len()] = {
    let mut radii = [0.0; Primitive::ALL.len()];
    let mut i = 0;
    while i < radii.len() {
        radii[i] = Primitive::ALL[i].bounding_radius();
        i += 1;
    }
    radii
};

/// Dense index of a mesh: primitives first, then registry meshes.
fn mesh_key(mesh: MeshRef) -> usize {
    match mesh {
        MeshRef::Primitive(p) => p as usize,
        MeshRef::Asset(handle) => Primitive::ALL.len() + handle.index(),
    }
}

/// Packs the instances `frustum` lets through (all without one; of a
/// caster's records, only those that cast) into the front of `packed`,
/// their batches into `batch_of`, counting each batch; returns how many
/// were packed. Packed positions do not depend on the grouping, so each
/// instance is read once: the instances are far larger than a cache, and a
/// second pass would fetch them all again.
fn pack<R: InstanceRecord>(
    instances: &[MeshInstance],
    frustum: Option<&Frustum>,
    batches: &mut Batches,
    packed: &mut [R],
    batch_of: &mut [u32],
) -> usize {
    let mut visible = 0;
    for instance in instances {
        if R::CASTER && !instance.cast_shadows {
            continue;
        }
        let key = mesh_key(instance.mesh);
        if let Some(frustum) = frustum
            && !is_visible(frustum, batches.radius(key), &instance.model)
        {
            continue;
        }
        let batch_key = if R::CASTER {
            if instance.material.alpha_mode == AlphaMode::Blend {
                // See-through: casts no shadow.
                continue;
            }
            BatchKey::caster(instance.mesh, &instance.material)
        } else {
            BatchKey::new(instance.mesh, &instance.material)
        };
        let batch = batches.find(key, batch_key);
        batches.list[batch as usize].count += 1;
        packed[visible] = R::pack(&instance.model, &instance.material);
        batch_of[visible] = batch;
        visible += 1;
    }
    visible
}

/// Extracted keys from this many on are grouped on two cores.
const PARALLEL_KEYS: usize = 8 * 1024;

/// Finds and counts the batch of each of `keys` into `out`.
fn count_keys(batches: &mut Batches, keys: &[BatchKey], out: &mut [u32]) {
    for (slot, key) in out.iter_mut().zip(keys) {
        let batch = batches.find(mesh_key(key.mesh), *key);
        batches.list[batch as usize].count += 1;
        *slot = batch;
    }
}

/// The counting sort's second pass: drops each packed position into its
/// batch's run. Only the 4-byte batch numbers are read again.
fn scatter(batch_of: &[u32], cursors: &mut [u32], indices: &mut [u32]) {
    for (at, &batch) in (0u32..).zip(batch_of) {
        let cursor = &mut cursors[batch as usize];
        indices[*cursor as usize] = at;
        *cursor += 1;
    }
}

impl<R: InstanceRecord> InstanceBatcher<R> {
    /// Creates an empty batcher.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

impl InstanceBatcher<GpuInstance> {
    /// Packs `instances` grouped by (texture, mesh), in input order within a
    /// group. Unless `already_culled` (the caller culled them against this view,
    /// as the octree does), each instance's bounding sphere is first tested
    /// against `view_proj`'s frustum. Imported meshes are `registry`'s.
    pub fn prepare(
        &mut self,
        view_proj: Mat4,
        instances: &[MeshInstance],
        already_culled: bool,
        registry: &Registry,
    ) {
        self.prepare_with(
            view_proj,
            instances,
            already_culled,
            PackedInstances::default(),
            registry,
        );
    }

    /// Prepares everything `frame` draws: the instances extraction already
    /// packed (grouped, not copied: their records are uploaded as they are,
    /// ahead of the batcher's own) and the loose [`MeshInstance`]s (culled
    /// unless `instances_in_view`, then packed). Imported meshes are `registry`'s.
    pub fn prepare_frame(&mut self, view_proj: Mat4, frame: &FrameData<'_>, registry: &Registry) {
        self.prepare_with(
            view_proj,
            frame.instances,
            frame.instances_in_view,
            frame.packed,
            registry,
        );
    }
}

impl InstanceBatcher<GpuCaster> {
    /// Prepares the shadow casters of one cascade (`view_proj` is the
    /// cascade's): the records extraction packed for it, and the loose
    /// instances that cast shadows and touch its volume. Grouped by mesh
    /// alone: a depth-only pass binds no texture.
    pub fn prepare_casters(
        &mut self,
        view_proj: Mat4,
        instances: &[MeshInstance],
        packed: PackedInstances<'_, GpuCaster>,
        registry: &Registry,
    ) {
        self.prepare_with(view_proj, instances, false, packed, registry);
    }
}

impl<R: InstanceRecord> InstanceBatcher<R> {
    /// Groups `packed` and packs `instances` (culled against `view_proj`
    /// unless `already_culled`; only the casters for a caster's records).
    fn prepare_with(
        &mut self,
        view_proj: Mat4,
        instances: &[MeshInstance],
        already_culled: bool,
        packed: PackedInstances<'_, R>,
        registry: &Registry,
    ) {
        puffin::profile_scope!("cull and batch");
        self.batches.learn(registry);
        self.side.learn(registry);
        let extracted = packed.len();
        let n = instances.len();
        if n == 0
            && packed.version != 0
            && packed.version == self.grouped
            && extracted == self.extracted
        {
            // The same keys as last frame: the same batches, counts and runs.
            // Only the blended instances' order depends on the view.
            if self.groups.iter().any(|g| g.key.blend) {
                self.lay_out_groups();
                self.fill_runs();
                self.sort_blended(view_proj, packed.records);
            }
            return;
        }
        self.grouped = if n == 0 { packed.version } else { 0 };
        let frustum = Frustum::from_view_projection(view_proj);
        self.batches.clear();
        if self.packed.len() < n {
            self.packed.resize(n, R::default());
        }
        if self.batch_of.len() < extracted + n {
            self.batch_of.resize(extracted + n, 0);
        }
        // Extracted records first: only their keys are read here.
        self.count_extracted(&packed.keys[..extracted]);
        self.extracted = extracted;
        self.visible = pack(
            instances,
            (!already_culled).then_some(&frustum),
            &mut self.batches,
            &mut self.packed,
            &mut self.batch_of[extracted..],
        );
        self.culled = n - self.visible;
        self.lay_out_groups();
        self.fill_runs();
        self.sort_blended(view_proj, packed.records);
    }

    /// Drops each drawn instance's position into its batch's run of the
    /// index array (the cursors start where [`Self::lay_out_groups`] put them).
    fn fill_runs(&mut self) {
        let drawn = self.drawn();
        if self.indices.len() < drawn {
            self.indices.resize(drawn, 0);
        }
        // Not needed for the values (each position is written once below), but
        // one sequential sweep brings the array into the cache at streaming
        // speed; the scattered writes into hundreds of runs would otherwise
        // each wait for their line.
        self.indices[..drawn].fill(0);
        scatter(
            &self.batch_of[..drawn],
            &mut self.cursors,
            &mut self.indices,
        );
    }

    /// Finds and counts the batch of each extracted key into `batch_of`:
    /// many keys in two halves on two cores (the second half's batches then
    /// merged into the first's and its batch numbers mapped), with the same
    /// result as one pass.
    fn count_extracted(&mut self, keys: &[BatchKey]) {
        let n = keys.len();
        if n < PARALLEL_KEYS {
            count_keys(&mut self.batches, keys, &mut self.batch_of[..n]);
            return;
        }
        let half = n / 2;
        let (front, back) = self.batch_of[..n].split_at_mut(half);
        let (batches, side) = (&mut self.batches, &mut self.side);
        side.clear();
        rayon::join(
            || count_keys(batches, &keys[..half], front),
            || count_keys(side, &keys[half..], back),
        );
        self.remap.clear();
        for batch in &self.side.list {
            let at = self.batches.find(mesh_key(batch.key.mesh), batch.key);
            self.batches.list[at as usize].count += batch.count;
            self.remap.push(at);
        }
        for b in back {
            *b = self.remap[*b as usize];
        }
    }

    /// Splits the blended groups (ordered last) into one group per
    /// instance, farthest from the camera first, so each is blended over
    /// what lies behind it.
    fn sort_blended(&mut self, view_proj: Mat4, extracted: &[R]) {
        let Some(first) = self.groups.iter().position(|g| g.key.blend) else {
            return;
        };
        let start = self.groups[first].instances.start as usize;
        self.blended.clear();
        for (g, group) in self.groups.iter().enumerate().skip(first) {
            let run = group.instances.start as usize..group.instances.end as usize;
            for &index in &self.indices[run] {
                let at = index as usize;
                let record = match extracted.get(at) {
                    Some(record) => record,
                    None => &self.packed[at - self.extracted],
                };
                let depth = (view_proj * record.position().extend(1.0)).w;
                self.blended.push((depth, index, to_u32(g)));
            }
        }
        self.blended
            .sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let templates = self.groups.len();
        for (i, &(_, index, g)) in (0u32..).zip(&self.blended) {
            let at = to_u32(start) + i;
            self.indices[at as usize] = index;
            let group = DrawGroup {
                instances: at..at + 1,
                ..self.groups[g as usize].clone()
            };
            self.groups.push(group);
        }
        self.groups.drain(first..templates);
    }

    /// Instances the last `prepare` will draw: the extracted ones, then the
    /// batcher's own visible ones.
    #[must_use]
    pub fn drawn(&self) -> usize {
        self.extracted + self.visible
    }

    /// Orders the batches and gives each its run of the index array.
    fn lay_out_groups(&mut self) {
        let batches = &self.batches.list;
        self.order.clear();
        self.order.extend(0..to_u32(batches.len()));
        self.order.sort_unstable_by_key(|&b| {
            let k = &batches[b as usize].key;
            (k.blend, k.texture, k.maps, k.double_sided, k.masked, k.mesh)
        });
        self.groups.clear();
        self.cursors.clear();
        self.cursors.resize(batches.len(), 0);
        let mut start = 0;
        for &b in &self.order {
            let batch = &batches[b as usize];
            self.cursors[b as usize] = start;
            let end = start + batch.count;
            self.groups.push(DrawGroup {
                key: batch.key,
                instances: start..end,
            });
            start = end;
        }
    }

    /// The loose instances of the last `prepare` that were found visible,
    /// packed in input order. They follow the extracted records in the GPU
    /// buffer.
    #[must_use]
    pub fn instances(&self) -> &[R] {
        &self.packed[..self.visible]
    }

    /// Positions in the GPU buffer (the extracted records, then
    /// [`InstanceBatcher::instances`]), grouped: a group's `instances` range is
    /// a run of this array.
    #[must_use]
    pub fn indices(&self) -> &[u32] {
        &self.indices[..self.drawn()]
    }

    /// The batcher's own packed instances as bytes, ready to upload after the
    /// extracted records.
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        bytemuck::cast_slice(self.instances())
    }

    /// The index array as bytes, ready to upload.
    #[must_use]
    pub fn index_bytes(&self) -> &[u8] {
        bytemuck::cast_slice(self.indices())
    }

    /// One group per (texture, mesh) pair with visible instances, sorted so
    /// groups sharing a texture are consecutive.
    #[must_use]
    pub fn groups(&self) -> &[DrawGroup] {
        &self.groups
    }

    /// How many instances the last `prepare` culled.
    #[must_use]
    pub fn culled(&self) -> usize {
        self.culled
    }
}

/// One instance drawn on its own, as [`prepare_unbatched`] produces it.
#[derive(Clone, Debug, PartialEq)]
pub struct UnbatchedDraw {
    /// The mesh drawn.
    pub mesh: MeshRef,
    /// The texture bound for it.
    pub texture: Option<TextureHandle>,
    /// The instance's record, uploaded by its own write.
    pub record: GpuInstance,
}

/// The straightforward path the batcher replaces: cull each instance and give
/// every visible one its own upload and its own draw, in input order, into
/// `draws` (cleared first; reused from frame to frame, so a steady frame
/// allocates nothing), each sphere tested one plane after the other. Kept as
/// the reference the batcher is tested and benchmarked against.
pub fn prepare_unbatched(
    view_proj: Mat4,
    instances: &[MeshInstance],
    registry: &Registry,
    draws: &mut Vec<UnbatchedDraw>,
) {
    let frustum = Frustum::from_view_projection(view_proj);
    draws.clear();
    for instance in instances {
        let radius = match instance.mesh {
            MeshRef::Primitive(p) => PRIMITIVE_RADII[p as usize],
            MeshRef::Asset(handle) => registry.mesh(handle).map_or(0.0, |m| m.radius),
        };
        let (center, radius) = bounding_sphere(radius, &instance.model);
        if frustum.intersects_sphere_by_plane(center, radius) {
            draws.push(UnbatchedDraw {
                mesh: instance.mesh,
                texture: instance.material.texture,
                record: instance.record(),
            });
        }
    }
}

/// Tests an instance's bounding sphere, scaled by its largest axis, against the view.
#[inline]
fn is_visible(frustum: &Frustum, radius: f32, model: &Affine3A) -> bool {
    let (center, radius) = bounding_sphere(radius, model);
    frustum.intersects_sphere(center, radius)
}

/// The world bounding sphere of a mesh of bounding radius `radius` drawn
/// at `model`: its centre moved, its radius scaled by the largest axis.
#[inline]
fn bounding_sphere(radius: f32, model: &Affine3A) -> (Vec3, f32) {
    let m = &model.matrix3;
    let max_scale_squared = m
        .x_axis
        .length_squared()
        .max(m.y_axis.length_squared())
        .max(m.z_axis.length_squared());
    (
        Vec3::from(model.translation),
        radius * max_scale_squared.sqrt(),
    )
}

fn to_u32(value: usize) -> u32 {
    u32::try_from(value).expect("fewer than 2^32 mesh instances in one frame")
}

#[cfg(test)]
mod tests;
