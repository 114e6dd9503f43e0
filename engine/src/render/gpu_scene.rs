//! The retained scene, GPU half: the slots' records live in a storage
//! buffer from frame to frame and a frame uploads only the records
//! extraction marked dirty ([`RetainedInstances::dirty`]); a compute pass
//! culls every slot against the camera and writes each batch's visible
//! slots and its indirect draw, so no CPU walks the scene to draw it.
//!
//! Dirty records in a few runs are copied in place (a `write_buffer` each);
//! records scattered over the scene (a moving 1% of it, say) are gathered
//! into one upload with their slots, and a compute pass (`scatter_main`)
//! puts each in its slot: two copies a frame, not one per record (each
//! `write_buffer` costs microseconds of its own).
//!
//! Per frame the CPU does work per batch, not per instance: each batch's
//! run of the index stream (a prefix sum of its members) and its mesh's
//! radius, and its draw arguments with the instance count zeroed. A slot
//! is in two batch sets: the camera's (mesh and material) and, when it
//! casts, the shadow casters' (its mesh, depth only or masked). Each view
//! (the camera, then every shadow view of the frame) has its own cull
//! uniform, indirect arguments and index stream. The cull pass
//! (`shaders/cull.wgsl`, 64 slots a workgroup, once per view) tests each
//! slot's bounding sphere as the CPU batcher does (`sphere_visible` is
//! the same test, the reference the GPU is checked against), appends the
//! visible slot to its batch's run and counts it; the mesh and shadow
//! passes then bind each batch's run as the per-instance stream and draw
//! it with `draw_indexed_indirect`. The mesh shader reads the records as
//! it reads the CPU-packed ones.

use std::ops::Range;

use glam::Mat4;

use super::buffer::GrowableBuffer;
use super::gpu_timing::GpuTimer;
use super::packed::{BatchKey, RetainedInstances};
use super::records::GpuInstance;
use crate::assets::{Shader, ShaderLibrary};
use crate::spatial::Frustum;

/// Words of one `DrawIndexedIndirect` argument block.
const ARGS_WORDS: usize = 5;
/// Slots one workgroup of the cull pass tests.
const WORKGROUP: u32 = 64;
/// Dirty records in more runs than this are scattered by the GPU.
const DIRECT_RUNS: usize = 8;

/// Where a batch's mesh lies in its index and vertex buffers.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct IndexedMesh {
    pub(crate) indices: Range<u32>,
    pub(crate) base_vertex: i32,
    /// Bounding-sphere radius around the mesh's origin.
    pub(crate) radius: f32,
}

/// One batch's indirect draw.
#[derive(Clone, Debug)]
pub(crate) struct RetainedDraw {
    pub(crate) key: BatchKey,
    /// The batch's run of the index stream, in slots.
    pub(crate) run: Range<u32>,
    /// Where its arguments are in the argument buffer, in bytes.
    pub(crate) args_offset: u64,
}

/// The cull pass's uniform block (`Cull` in `cull.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct CullParams {
    planes: [[f32; 4]; 6],
    slots: u32,
    batches: u32,
    slot_base: u32,
    updates: u32,
    info_base: u32,
    pad: [u32; 3],
}

/// Whether the cull pass keeps a slot holding `record` whose mesh has
/// `radius`, before its rounding slack: the CPU batcher's sphere test (the
/// reference the tests hold the GPU to).
#[cfg(test)]
#[must_use]
pub(crate) fn sphere_visible(frustum: &Frustum, record: &GpuInstance, radius: f32) -> bool {
    use glam::{Vec3, Vec4};
    let [r0, r1, r2] = record.rows.map(Vec4::from);
    let axes = [
        Vec3::new(r0.x, r1.x, r2.x),
        Vec3::new(r0.y, r1.y, r2.y),
        Vec3::new(r0.z, r1.z, r2.z),
    ];
    let scale = axes.map(Vec3::length_squared);
    let radius = radius * scale[0].max(scale[1]).max(scale[2]).sqrt();
    let center = Vec3::new(r0.w, r1.w, r2.w);
    frustum
        .planes
        .iter()
        .all(|plane| plane.truncate().dot(center) + plane.w >= -radius)
}

/// One batch set's layout this frame: each batch's [radius bits, run
/// start], its arguments (instance count zeroed) and its draws.
#[derive(Debug, Default)]
struct BatchSet {
    info: Vec<[u32; 2]>,
    template: Vec<[u32; ARGS_WORDS]>,
    draws: Vec<RetainedDraw>,
}

impl BatchSet {
    /// Lays out `keys` with `members` slots each; `mesh_of` says where a
    /// batch's mesh is (`None`: not drawable, it keeps a run but draws
    /// nothing).
    fn lay_out(
        &mut self,
        keys: &[BatchKey],
        members: &[u32],
        mesh_of: &mut impl FnMut(&BatchKey) -> Option<IndexedMesh>,
    ) {
        self.info.clear();
        self.template.clear();
        self.draws.clear();
        let mut run = 0u32;
        for (key, &members) in keys.iter().zip(members) {
            let mesh = (members > 0).then(|| mesh_of(key)).flatten();
            let (radius, indices, base_vertex) = match &mesh {
                Some(m) => (m.radius, m.indices.clone(), m.base_vertex),
                None => (0.0, 0..0, 0),
            };
            self.info.push([radius.to_bits(), run]);
            self.template.push([
                indices.end - indices.start,
                0,
                indices.start,
                base_vertex.cast_unsigned(),
                0,
            ]);
            if mesh.is_some() {
                self.draws.push(RetainedDraw {
                    key: *key,
                    run: run..run + members,
                    args_offset: ((self.template.len() - 1) * ARGS_WORDS * 4) as u64,
                });
            }
            run += members;
        }
        // Grouped by look and pipeline, so a pass binds each once.
        self.draws.sort_unstable_by_key(|d| d.key);
    }
}

/// One view's culling: its uniform, indirect arguments and index stream.
#[derive(Debug)]
struct CullView {
    params: wgpu::Buffer,
    args: GrowableBuffer,
    visible: GrowableBuffer,
    bind_group: Option<wgpu::BindGroup>,
    /// The shadow view it culls for (`None`: the camera).
    shadow: Option<usize>,
}

impl CullView {
    fn new(device: &wgpu::Device) -> Self {
        use wgpu::BufferUsages as U;
        let buffer = |label, usage| GrowableBuffer::new(device, label, usage, 0);
        Self {
            params: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("gpu scene: cull parameters"),
                size: size_of::<CullParams>() as u64,
                usage: U::UNIFORM | U::COPY_DST,
                mapped_at_creation: false,
            }),
            // Readable back (COPY_SRC) for the tests of what the GPU culled.
            args: buffer(
                "gpu scene: indirect draws",
                U::STORAGE | U::INDIRECT | U::COPY_SRC,
            ),
            visible: buffer(
                "gpu scene: visible slots",
                U::STORAGE | U::VERTEX | U::COPY_SRC,
            ),
            bind_group: None,
            shadow: None,
        }
    }
}

/// What a pass draws of the retained scene in one view.
pub(crate) struct ViewDraws<'a> {
    /// The batches' indirect draws, grouped by key.
    pub(crate) draws: &'a [RetainedDraw],
    /// The index stream (each draw binds its run of it).
    pub(crate) visible: &'a wgpu::Buffer,
    /// The indirect argument buffer.
    pub(crate) args: &'a wgpu::Buffer,
}

/// The retained slots on the GPU and their cull pass.
#[derive(Debug)]
pub(crate) struct GpuScene {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    scatter: wgpu::ComputePipeline,
    scatter_layout: wgpu::BindGroupLayout,
    scatter_group: Option<wgpu::BindGroup>,
    /// This frame's scattered records and their slots, and how many.
    update_slots: GrowableBuffer,
    update_records: GrowableBuffer,
    updates: u32,
    gathered: Vec<GpuInstance>,
    records: GrowableBuffer,
    /// Two words per batch (radius, run) of the camera's set, then of the
    /// casters' (room for `batch_room` each); then each slot's batch and
    /// each slot's caster batch (room for `slot_room` each).
    table: GrowableBuffer,
    batch_room: usize,
    slot_room: usize,
    /// The records bound for the mesh shader; remade with the buffers.
    instances: Option<wgpu::BindGroup>,
    /// Counts the bindings made, so passes holding one know it is stale.
    bindings: u64,
    /// The store and epoch the buffers hold.
    uploaded: Option<(u64, u64)>,
    /// The camera's batch set and the casters'.
    sets: [BatchSet; 2],
    /// The camera's view, then this frame's shadow views (`active` of them).
    views: Vec<CullView>,
    active: usize,
    slots: u32,
}

impl GpuScene {
    pub(crate) fn new(device: &wgpu::Device, shaders: &ShaderLibrary) -> Self {
        let shader = shaders.module(device, Shader::Cull);
        let storage = |binding, read_only| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let uniform = wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("gpu scene: cull layout"),
            entries: &[
                uniform,
                storage(1, true),
                storage(2, true),
                storage(3, false),
                storage(4, false),
            ],
        });
        let scatter_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("gpu scene: scatter layout"),
            entries: &[
                uniform,
                storage(5, false),
                storage(6, true),
                storage(7, true),
            ],
        });
        let pipeline = compute_pipeline(device, &shader, &layout, "cull_main");
        let scatter = compute_pipeline(device, &shader, &scatter_layout, "scatter_main");
        use wgpu::BufferUsages as U;
        let buffer = |label, usage| GrowableBuffer::new(device, label, usage, 0);
        Self {
            pipeline,
            layout,
            scatter,
            scatter_layout,
            scatter_group: None,
            update_slots: buffer("gpu scene: scattered slots", U::STORAGE),
            update_records: buffer("gpu scene: scattered records", U::STORAGE),
            updates: 0,
            gathered: Vec::new(),
            records: buffer("gpu scene: records", U::STORAGE),
            table: buffer("gpu scene: batches and each slot's", U::STORAGE),
            batch_room: 0,
            slot_room: 0,
            instances: None,
            bindings: 0,
            uploaded: None,
            sets: [BatchSet::default(), BatchSet::default()],
            views: vec![CullView::new(device)],
            active: 0,
            slots: 0,
        }
    }

    /// Nothing retained this frame: the cull pass and the draws are skipped
    /// (the buffers are kept; the next retained frame uploads everything).
    pub(crate) fn clear(&mut self) {
        self.active = 0;
        self.slots = 0;
        self.updates = 0;
        self.uploaded = None;
    }

    /// Uploads what changed of `scene`, the batch sets' runs and zeroed
    /// draws, and each view's planes: the camera's `view_proj`, then each
    /// of `shadow_views` (its index and world-to-clip matrix). `mesh_of`
    /// says where a batch's mesh is (`None`: not drawable, its slots are
    /// culled). `instance_layout` is the mesh shader's, for the records'
    /// bind group.
    #[expect(clippy::too_many_arguments, reason = "one call, from the mesh pass")]
    pub(crate) fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        scene: &RetainedInstances<'_>,
        view_proj: Mat4,
        shadow_views: &[(usize, Mat4)],
        instance_layout: &wgpu::BindGroupLayout,
        mut mesh_of: impl FnMut(&BatchKey) -> Option<IndexedMesh>,
    ) {
        puffin::profile_scope!("gpu scene upload");
        let slots = scene
            .records
            .len()
            .min(scene.batch_of.len())
            .min(scene.caster_of.len());
        let batches = scene.batches.len().min(scene.members.len());
        let casters = scene.caster_batches.len().min(scene.caster_members.len());
        // Room for batches and slots grows by doubling; what follows moves then.
        let mut grew = batches.max(casters) > self.batch_room || slots > self.slot_room;
        if grew {
            self.batch_room = batches.max(casters).next_power_of_two().max(256);
            self.slot_room = slots.next_power_of_two().max(1024);
        }
        grew |= self
            .records
            .reserve(device, (slots * size_of::<GpuInstance>()) as u64);
        grew |= self.table.reserve(
            device,
            ((2 * 2 * self.batch_room + 2 * self.slot_room) * 4) as u64,
        );
        // The buffers can hold only so much on this device (warned by the
        // buffers): the slots past it are not drawn.
        let fits = (self.records.max_bytes() / size_of::<GpuInstance>() as u64)
            .min((self.table.max_bytes() / 4).saturating_sub(4 * self.batch_room as u64) / 2);
        let slots = slots.min(usize::try_from(fits).unwrap_or(usize::MAX));
        self.upload(device, queue, scene, slots, grew);
        self.sets[0].lay_out(&scene.batches[..batches], scene.members, &mut mesh_of);
        self.sets[1].lay_out(
            &scene.caster_batches[..casters],
            scene.caster_members,
            &mut mesh_of,
        );
        for (set, info) in self.sets.iter().enumerate() {
            let at = (set * 2 * self.batch_room * 4) as u64;
            queue.write_buffer(self.table.buffer(), at, bytemuck::cast_slice(&info.info));
        }
        self.slots = to_u32(slots);
        // The views: the camera's, then each shadow view's.
        self.active = 1 + shadow_views.len();
        while self.views.len() < self.active {
            self.views.push(CullView::new(device));
        }
        let views = std::iter::once((None, view_proj))
            .chain(shadow_views.iter().map(|&(i, m)| (Some(i), m)));
        let rebind = grew || self.instances.is_none();
        for (k, (shadow, view_proj)) in views.enumerate() {
            let set = usize::from(shadow.is_some());
            let layout = &self.sets[set];
            let view = &mut self.views[k];
            view.shadow = shadow;
            let mut stale = view.visible.reserve(device, (slots * 4) as u64);
            stale |= view
                .args
                .reserve(device, (layout.template.len() * ARGS_WORDS * 4) as u64);
            queue.write_buffer(
                view.args.buffer(),
                0,
                bytemuck::cast_slice(&layout.template),
            );
            let params = CullParams {
                planes: Frustum::from_view_projection(&view_proj)
                    .planes
                    .map(|p| p.to_array()),
                slots: self.slots,
                batches: to_u32(layout.info.len()),
                slot_base: to_u32(2 * 2 * self.batch_room + set * self.slot_room),
                updates: self.updates,
                info_base: to_u32(set * 2 * self.batch_room),
                pad: [0; 3],
            };
            queue.write_buffer(&view.params, 0, bytemuck::bytes_of(&params));
            if stale || rebind || view.bind_group.is_none() {
                view.bind_group = Some(bind_view(
                    device,
                    &self.layout,
                    view,
                    &self.records,
                    &self.table,
                ));
            }
        }
        if rebind || self.scatter_group.is_none() {
            self.bind(device, instance_layout);
        }
    }

    /// Uploads the records and batches `scene` changed (all of them when
    /// the buffers do not hold its last epoch, or `grew`).
    fn upload(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        scene: &RetainedInstances<'_>,
        slots: usize,
        grew: bool,
    ) {
        let continues = self.uploaded == Some((scene.id, scene.epoch.wrapping_sub(1)));
        self.updates = 0;
        self.uploaded = Some((scene.id, scene.epoch));
        let Some(dirty) = scene.dirty.filter(|_| continues && !grew) else {
            self.write_records(queue, scene, 0..slots);
            self.write_batches(queue, scene, slots);
            return;
        };
        if scene.batches_changed {
            self.write_batches(queue, scene, slots);
        }
        // The dirty slots below what fits, sorted: in runs or scattered.
        let dirty = &dirty[..dirty.partition_point(|&s| (s as usize) < slots)];
        let runs = 1 + dirty.windows(2).filter(|w| w[1] != w[0] + 1).count();
        if runs > DIRECT_RUNS {
            if self.gather(device, queue, scene, dirty) {
                self.scatter_group = None;
            }
            return;
        }
        let mut start = 0;
        for i in 1..=dirty.len() {
            if i == dirty.len() || dirty[i] != dirty[i - 1] + 1 {
                let run = dirty[start] as usize..dirty[i - 1] as usize + 1;
                self.write_records(queue, scene, run);
                start = i;
            }
        }
    }

    fn write_records(
        &self,
        queue: &wgpu::Queue,
        scene: &RetainedInstances<'_>,
        range: Range<usize>,
    ) {
        if !range.is_empty() {
            let record = size_of::<GpuInstance>() as u64;
            queue.write_buffer(
                self.records.buffer(),
                range.start as u64 * record,
                bytemuck::cast_slice(&scene.records[range]),
            );
        }
    }

    /// Uploads the first `slots` slots' batches and caster batches.
    fn write_batches(&self, queue: &wgpu::Queue, scene: &RetainedInstances<'_>, slots: usize) {
        if slots == 0 {
            return;
        }
        let base = 2 * 2 * self.batch_room;
        for (set, of) in [scene.batch_of, scene.caster_of].into_iter().enumerate() {
            let at = ((base + set * self.slot_room) * 4) as u64;
            queue.write_buffer(self.table.buffer(), at, bytemuck::cast_slice(&of[..slots]));
        }
    }

    /// Uploads the records of the `dirty` slots one after another, with the
    /// slots, for the scatter pass; true when a buffer was reallocated.
    fn gather(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        scene: &RetainedInstances<'_>,
        dirty: &[u32],
    ) -> bool {
        self.gathered.clear();
        self.gathered
            .extend(dirty.iter().map(|&slot| scene.records[slot as usize]));
        let grew = self
            .update_slots
            .write(device, queue, bytemuck::cast_slice(dirty))
            | self
                .update_records
                .write(device, queue, bytemuck::cast_slice(&self.gathered));
        self.updates = to_u32(dirty.len());
        grew
    }

    fn bind(&mut self, device: &wgpu::Device, instance_layout: &wgpu::BindGroupLayout) {
        self.bindings += 1;
        self.instances = Some(device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("gpu scene: records for the mesh shader"),
            layout: instance_layout,
            entries: &[whole(0, self.records.buffer())],
        }));
        self.scatter_group = Some(device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("gpu scene: scatter bind group"),
            layout: &self.scatter_layout,
            entries: &[
                whole(0, &self.views[0].params),
                whole(5, self.records.buffer()),
                whole(6, self.update_slots.buffer()),
                whole(7, self.update_records.buffer()),
            ],
        }));
    }

    /// Records the scatter pass (when records came scattered) and each
    /// view's cull pass, before the passes that draw the batches.
    pub(crate) fn cull(&self, encoder: &mut wgpu::CommandEncoder, timer: &GpuTimer) {
        let Some(scatter_group) = &self.scatter_group else {
            return;
        };
        let views = &self.views[..self.active];
        let culls = self.slots > 0;
        if self.updates == 0 && !culls {
            return;
        }
        let timed = timer.begin("gpu culling", encoder);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("gpu scene: cull pass"),
            timestamp_writes: timed.compute_writes(),
        });
        // Even with nothing to draw: the records must hold this frame's.
        if self.updates > 0 {
            pass.set_pipeline(&self.scatter);
            pass.set_bind_group(0, scatter_group, &[]);
            dispatch(&mut pass, self.updates);
        }
        if culls {
            pass.set_pipeline(&self.pipeline);
            for view in views {
                let set = &self.sets[usize::from(view.shadow.is_some())];
                if let (Some(group), false) = (&view.bind_group, set.draws.is_empty()) {
                    pass.set_bind_group(0, group, &[]);
                    dispatch(&mut pass, self.slots);
                }
            }
        }
        drop(pass);
        timer.end(encoder, timed);
    }

    /// What the camera (`None`) or shadow view `Some(i)` draws this frame.
    pub(crate) fn view(&self, shadow: Option<usize>) -> Option<ViewDraws<'_>> {
        if self.slots == 0 {
            return None;
        }
        let view = self.views[..self.active]
            .iter()
            .find(|v| v.shadow == shadow)?;
        let set = &self.sets[usize::from(shadow.is_some())];
        Some(ViewDraws {
            draws: &set.draws,
            visible: view.visible.buffer(),
            args: view.args.buffer(),
        })
    }

    /// The records, as the mesh shader's instance bind group.
    pub(crate) fn instances(&self) -> Option<&wgpu::BindGroup> {
        self.instances.as_ref()
    }

    /// The records' buffer, and how many times it was bound anew (a pass
    /// holding a bind group of it remakes that when the count moves on).
    pub(crate) fn records(&self) -> (&wgpu::Buffer, u64) {
        (self.records.buffer(), self.bindings)
    }

    /// Slots uploaded this frame (drawn or culled on the GPU).
    pub(crate) fn slots(&self) -> u32 {
        self.slots
    }
}

fn whole(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}

fn bind_view(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    view: &CullView,
    records: &GrowableBuffer,
    table: &GrowableBuffer,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("gpu scene: cull bind group"),
        layout,
        entries: &[
            whole(0, &view.params),
            whole(1, records.buffer()),
            whole(2, table.buffer()),
            whole(3, view.args.buffer()),
            whole(4, view.visible.buffer()),
        ],
    })
}

/// One invocation per item, 64 a workgroup; a dimension holds at most
/// 65,535 workgroups (4.2 million items), the rest go in rows.
fn dispatch(pass: &mut wgpu::ComputePass<'_>, items: u32) {
    let groups = items.div_ceil(WORKGROUP);
    let x = groups.min(65_535);
    pass.dispatch_workgroups(x, groups.div_ceil(x), 1);
}

fn compute_pipeline(
    device: &wgpu::Device,
    shader: &wgpu::ShaderModule,
    layout: &wgpu::BindGroupLayout,
    entry: &str,
) -> wgpu::ComputePipeline {
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(entry),
        bind_group_layouts: &[Some(layout)],
        immediate_size: 0,
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: Some(&pipeline_layout),
        module: shader,
        entry_point: Some(entry),
        compilation_options: wgpu::PipelineCompilationOptions::default(),
        cache: None,
    })
}

fn to_u32(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests;
