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
//! radius, and its draw arguments with the instance count zeroed. The cull
//! pass (`shaders/cull.wgsl`, 64 slots a workgroup) tests each slot's
//! bounding sphere as the CPU batcher does ([`sphere_visible`] is the same
//! test, the reference the GPU is checked against), appends the visible
//! slot to its batch's run and counts it; the mesh pass then binds each
//! batch's run as the per-instance stream and draws it with
//! `draw_indexed_indirect`. The mesh shader reads the records as it reads
//! the CPU-packed ones.

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
    params: wgpu::Buffer,
    records: GrowableBuffer,
    /// Each batch's radius and run (two words), room for `batch_room`
    /// batches, then each slot's batch.
    meta: GrowableBuffer,
    batch_room: usize,
    args: GrowableBuffer,
    visible: GrowableBuffer,
    /// The cull pass's bindings, and the records bound for the mesh shader;
    /// remade when a buffer is reallocated.
    bind_group: Option<wgpu::BindGroup>,
    instances: Option<wgpu::BindGroup>,
    /// The store and epoch the buffers hold.
    uploaded: Option<(u64, u64)>,
    /// This frame's draws, slots and batches (0: nothing to cull).
    draws: Vec<RetainedDraw>,
    slots: u32,
    batch_count: u32,
    /// Reused per frame: each batch's [radius bits, run start] and arguments.
    batch_info: Vec<[u32; 2]>,
    args_template: Vec<[u32; ARGS_WORDS]>,
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
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpu scene: cull parameters"),
            size: size_of::<CullParams>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
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
            params,
            records: buffer("gpu scene: records", U::STORAGE),
            meta: buffer("gpu scene: batches and the batch of each slot", U::STORAGE),
            batch_room: 0,
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
            instances: None,
            uploaded: None,
            draws: Vec::new(),
            slots: 0,
            batch_count: 0,
            batch_info: Vec::new(),
            args_template: Vec::new(),
        }
    }

    /// Nothing retained this frame: the cull pass and the draws are skipped
    /// (the buffers are kept; the next retained frame uploads everything).
    pub(crate) fn clear(&mut self) {
        self.draws.clear();
        self.slots = 0;
        self.uploaded = None;
    }

    /// Uploads what changed of `scene`, the batches' runs and zeroed draws,
    /// and the view's planes; `mesh_of` says where a batch's mesh is (`None`:
    /// not drawable, its slots are culled). `instance_layout` is the mesh
    /// shader's, for the records' bind group.
    pub(crate) fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        scene: &RetainedInstances<'_>,
        view_proj: Mat4,
        instance_layout: &wgpu::BindGroupLayout,
        mut mesh_of: impl FnMut(&BatchKey) -> Option<IndexedMesh>,
    ) {
        puffin::profile_scope!("gpu scene upload");
        let slots = scene.records.len().min(scene.batch_of.len());
        let batches = scene.batches.len().min(scene.members.len());
        // Room for the batches grows by doubling; the slots' batches move then.
        let mut grew = batches > self.batch_room;
        if grew {
            self.batch_room = batches.next_power_of_two().max(256);
        }
        grew |= self
            .records
            .reserve(device, (slots * size_of::<GpuInstance>()) as u64);
        grew |= self
            .meta
            .reserve(device, ((2 * self.batch_room + slots) * 4) as u64);
        grew |= self.visible.reserve(device, (slots * 4) as u64);
        grew |= self.args.reserve(device, (batches * ARGS_WORDS * 4) as u64);
        // The buffers can hold only so much on this device (warned by the
        // buffers): the slots past it are not drawn.
        let fits = (self.records.max_bytes() / size_of::<GpuInstance>() as u64)
            .min(self.meta.max_bytes() / 4 - 2 * self.batch_room as u64)
            .min(self.visible.max_bytes() / 4);
        let slots = slots.min(usize::try_from(fits).unwrap_or(usize::MAX));
        let continues = self.uploaded == Some((scene.id, scene.epoch.wrapping_sub(1)));
        self.updates = 0;
        match scene.dirty.filter(|_| continues && !grew) {
            None => {
                self.write_records(queue, scene, 0..slots);
                self.write_batches(queue, scene, 0..slots);
            }
            Some(dirty) => {
                if scene.batches_changed {
                    self.write_batches(queue, scene, 0..slots);
                }
                // The dirty slots below what fits, sorted: in runs or scattered.
                let dirty = &dirty[..dirty.partition_point(|&s| (s as usize) < slots)];
                let runs = 1 + dirty.windows(2).filter(|w| w[1] != w[0] + 1).count();
                if runs <= DIRECT_RUNS {
                    let mut start = 0;
                    for i in 1..=dirty.len() {
                        if i == dirty.len() || dirty[i] != dirty[i - 1] + 1 {
                            let run = dirty[start] as usize..dirty[i - 1] as usize + 1;
                            self.write_records(queue, scene, run);
                            start = i;
                        }
                    }
                } else {
                    grew |= self.gather(device, queue, scene, dirty);
                }
            }
        }
        self.uploaded = Some((scene.id, scene.epoch));
        if grew || self.bind_group.is_none() {
            self.bind(device, instance_layout);
        }
        // Each batch's run and arguments (a batch with no drawable mesh
        // keeps a run, with no indices: its slots draw nothing).
        self.draws.clear();
        self.batch_info.clear();
        self.args_template.clear();
        let mut run = 0u32;
        for (key, &members) in scene.batches.iter().zip(scene.members).take(batches) {
            let mesh = (members > 0).then(|| mesh_of(key)).flatten();
            let (radius, indices, base_vertex) = match &mesh {
                Some(m) => (m.radius, m.indices.clone(), m.base_vertex),
                None => (0.0, 0..0, 0),
            };
            self.batch_info.push([radius.to_bits(), run]);
            self.args_template.push([
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
                    args_offset: ((self.args_template.len() - 1) * ARGS_WORDS * 4) as u64,
                });
            }
            run += members;
        }
        // Grouped by look and pipeline, so the pass binds each once.
        self.draws.sort_unstable_by_key(|d| d.key);
        queue.write_buffer(
            self.meta.buffer(),
            0,
            bytemuck::cast_slice(&self.batch_info),
        );
        queue.write_buffer(
            self.args.buffer(),
            0,
            bytemuck::cast_slice(&self.args_template),
        );
        self.slots = to_u32(slots);
        self.batch_count = to_u32(batches);
        let planes = Frustum::from_view_projection(&view_proj)
            .planes
            .map(|p| p.to_array());
        let params = CullParams {
            planes,
            slots: self.slots,
            batches: self.batch_count,
            slot_base: to_u32(2 * self.batch_room),
            updates: self.updates,
        };
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
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

    fn write_batches(
        &self,
        queue: &wgpu::Queue,
        scene: &RetainedInstances<'_>,
        range: Range<usize>,
    ) {
        if !range.is_empty() {
            queue.write_buffer(
                self.meta.buffer(),
                (2 * self.batch_room + range.start) as u64 * 4,
                bytemuck::cast_slice(&scene.batch_of[range]),
            );
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
        fn whole(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
            wgpu::BindGroupEntry {
                binding,
                resource: buffer.as_entire_binding(),
            }
        }
        self.bind_group = Some(device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("gpu scene: cull bind group"),
            layout: &self.layout,
            entries: &[
                whole(0, &self.params),
                whole(1, self.records.buffer()),
                whole(2, self.meta.buffer()),
                whole(3, self.args.buffer()),
                whole(4, self.visible.buffer()),
            ],
        }));
        self.instances = Some(device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("gpu scene: records for the mesh shader"),
            layout: instance_layout,
            entries: &[whole(0, self.records.buffer())],
        }));
        self.scatter_group = Some(device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("gpu scene: scatter bind group"),
            layout: &self.scatter_layout,
            entries: &[
                whole(0, &self.params),
                whole(5, self.records.buffer()),
                whole(6, self.update_slots.buffer()),
                whole(7, self.update_records.buffer()),
            ],
        }));
    }

    /// Records the scatter pass (when records came scattered) and the cull
    /// pass, before the passes that draw the batches.
    pub(crate) fn cull(&self, encoder: &mut wgpu::CommandEncoder, timer: &GpuTimer) {
        let (Some(bind_group), Some(scatter_group)) = (&self.bind_group, &self.scatter_group)
        else {
            return;
        };
        let culls = self.slots > 0 && !self.draws.is_empty();
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
            pass.set_bind_group(0, bind_group, &[]);
            dispatch(&mut pass, self.slots);
        }
        drop(pass);
        timer.end(encoder, timed);
    }

    /// This frame's indirect draws, grouped by key.
    pub(crate) fn draws(&self) -> &[RetainedDraw] {
        if self.slots == 0 { &[] } else { &self.draws }
    }

    /// The records, as the mesh shader's instance bind group.
    pub(crate) fn instances(&self) -> Option<&wgpu::BindGroup> {
        self.instances.as_ref()
    }

    /// The index stream (each draw binds its run of it).
    pub(crate) fn visible(&self) -> &wgpu::Buffer {
        self.visible.buffer()
    }

    /// The indirect argument buffer.
    pub(crate) fn args(&self) -> &wgpu::Buffer {
        self.args.buffer()
    }

    /// Slots uploaded this frame (drawn or culled on the GPU).
    pub(crate) fn slots(&self) -> u32 {
        self.slots
    }
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
