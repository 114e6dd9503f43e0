//! The mesh pass: every generated primitive lives in one shared vertex buffer
//! and one index buffer, each imported mesh in its own pair, uploaded the first
//! time it is drawn; each frame the [`InstanceBatcher`] packs the visible
//! instances into one instance buffer, and every (texture, mesh) group is drawn
//! with one instanced call.
//!
//! Pattern: data locality and flyweight: instances are small (a transform and
//! a colour) and packed; the meshes and textures they share exist once.

use std::ops::Range;

use glam::Mat4;
use wgpu::util::DeviceExt;

use super::batcher::{DrawGroup, InstanceBatcher};
use super::buffer::{GrowableBuffer, vertex_storage};
use super::deform_pass::DeformPass;
use super::frame::FrameData;
use super::gpu_scene::{GpuScene, IndexedMesh, RetainedDraw, ViewDraws};
use super::gpu_timing::GpuTimer;
use super::mesh_pipelines::{Alpha, PipelineSet, SecondStream, variant};
use super::packed::{BatchKey, RetainedInstances};
use super::records::GpuInstance;
use super::shadow::ShadowViews;
use super::targets::ColorTarget;
use super::texture::TextureSet;
use super::uploaded::Uploaded;
use crate::assets::{MeshData, MeshRef, MeshVertex, Primitive, Registry, Shader, ShaderLibrary};

/// Where one primitive lives in the shared buffers.
#[derive(Clone, Debug, PartialEq, Eq)]
struct MeshRange {
    base_vertex: i32,
    indices: Range<u32>,
}

/// An imported mesh on the GPU.
#[derive(Debug)]
struct GpuMesh {
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    index_count: u32,
}

impl GpuMesh {
    fn new(device: &wgpu::Device, name: &str, data: &MeshData) -> Self {
        let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(&format!("mesh pass: vertices of {name}")),
            contents: bytemuck::cast_slice(&data.vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(&format!("mesh pass: indices of {name}")),
            contents: bytemuck::cast_slice(&data.indices),
            usage: wgpu::BufferUsages::INDEX,
        });
        Self {
            vertices,
            indices,
            index_count: to_u32(data.indices.len()),
        }
    }
}

/// What the mesh pass drew in its last `prepare`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct MeshStats {
    pub(crate) drawn: usize,
    pub(crate) culled: usize,
    pub(crate) draw_calls: usize,
}

/// GPU objects of the mesh pass.
#[derive(Debug)]
pub(crate) struct MeshPass {
    /// By shading, sidedness and blending, made when first needed.
    pipelines: PipelineSet,
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    ranges: [MeshRange; Primitive::ALL.len()],
    /// Imported meshes by handle, uploaded when first drawn.
    imported: Uploaded<GpuMesh>,
    textures: TextureSet,
    /// The packed instances, read by the shader as a storage buffer.
    instance_buffer: GrowableBuffer,
    instance_layout: wgpu::BindGroupLayout,
    /// Binds `instance_buffer`; rebuilt when the buffer grows.
    instance_bind_group: wgpu::BindGroup,
    /// Per drawn instance, its position in `instance_buffer`, grouped by batch.
    instance_indices: GrowableBuffer,
    batcher: InstanceBatcher,
    /// The retained meshes, culled on the GPU, and this frame's shadow
    /// views (index and world-to-clip matrix) it culls casters for.
    scene: GpuScene,
    shadow_views: Vec<(usize, Mat4)>,
    /// Skinned and morphed meshes.
    deform: DeformPass,
}

impl MeshPass {
    /// Drops the GPU copies of meshes and textures the registry released.
    pub(crate) fn forget_released(&mut self, registry: &crate::assets::Registry) {
        self.imported.retain(|i| registry.has_mesh(i));
        self.deform.forget_released(registry);
        self.textures.forget_released(registry);
    }

    /// Imported meshes and textures on the GPU.
    pub(crate) fn uploaded(&self) -> (usize, usize) {
        (self.imported.len(), self.textures.uploaded())
    }

    /// Uploads every primitive once and builds the lit pipeline.
    pub(crate) fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        globals_layout: &wgpu::BindGroupLayout,
        target: ColorTarget,
        shaders: &ShaderLibrary,
    ) -> Self {
        let shader = shaders.module(device, Shader::Mesh);
        let mut vertices: Vec<MeshVertex> = Vec::new();
        let mut indices: Vec<u32> = Vec::new();
        let ranges = Primitive::ALL.map(|primitive| {
            let mesh = primitive.mesh();
            let base_vertex = i32::try_from(vertices.len()).expect("primitive vertices fit in i32");
            let first = to_u32(indices.len());
            vertices.extend_from_slice(&mesh.vertices);
            indices.extend_from_slice(&mesh.indices);
            MeshRange {
                base_vertex,
                indices: first..to_u32(indices.len()),
            }
        });
        let vertex_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("mesh pass: primitive vertices"),
            contents: bytemuck::cast_slice(&vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let index_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("mesh pass: primitive indices"),
            contents: bytemuck::cast_slice(&indices),
            usage: wgpu::BufferUsages::INDEX,
        });
        let instance_buffer = GrowableBuffer::new(
            device,
            "mesh pass: instances",
            wgpu::BufferUsages::STORAGE,
            256 * size_of::<GpuInstance>() as u64,
        );
        let instance_indices = GrowableBuffer::new(
            device,
            "mesh pass: instance indices",
            wgpu::BufferUsages::VERTEX,
            256 * size_of::<u32>() as u64,
        );
        let instance_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("mesh pass: instance layout"),
            entries: &[vertex_storage(0)],
        });
        let instance_bind_group = bind_instances(device, &instance_layout, &instance_buffer);
        let textures = TextureSet::new(device, queue);
        let deform = DeformPass::new(device, globals_layout, &textures, target, &shader);
        Self {
            // The second stream is each instance's position in the storage buffer.
            pipelines: PipelineSet::new(
                device,
                &[globals_layout, textures.layout(), &instance_layout],
                target,
                "vs_main",
                SecondStream {
                    stride: size_of::<u32>() as u64,
                    step_mode: wgpu::VertexStepMode::Instance,
                    attributes: wgpu::vertex_attr_array![3 => Uint32].to_vec(),
                },
                &shader,
            ),
            vertices: vertex_buffer,
            indices: index_buffer,
            ranges,
            imported: Uploaded::default(),
            textures,
            instance_buffer,
            instance_layout,
            instance_bind_group,
            instance_indices,
            batcher: InstanceBatcher::new(),
            scene: GpuScene::new(device, shaders),
            shadow_views: Vec::new(),
            deform,
        }
    }

    /// Culls (unless `in_view`), batches and uploads this frame's instances,
    /// and uploads the meshes and textures they draw with for the first time.
    pub(crate) fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        view_proj: Mat4,
        frame: &FrameData<'_>,
        shadow_views: &ShadowViews,
        registry: &Registry,
    ) -> MeshStats {
        self.batcher.prepare_frame(view_proj, frame, registry);
        let packed = frame.packed;
        let extracted = bytemuck::cast_slice(&packed.records[..packed.len()]);
        if self
            .instance_buffer
            .write_parts(device, queue, &[extracted, self.batcher.bytes()])
        {
            self.instance_bind_group =
                bind_instances(device, &self.instance_layout, &self.instance_buffer);
        }
        self.instance_indices
            .write(device, queue, self.batcher.index_bytes());
        for group in self.batcher.groups() {
            let look = (group.key.texture, group.key.maps);
            let alpha = Alpha::of(group.key.blend, group.key.masked);
            self.pipelines
                .ensure(device, variant(look, group.key.double_sided, alpha));
        }
        let imports = |g: &DrawGroup| {
            matches!(g.key.mesh, MeshRef::Asset(_))
                || g.key.texture.is_some()
                || g.key.maps.is_some()
        };
        if self.batcher.groups().iter().any(imports) {
            for i in 0..self.batcher.groups().len() {
                let key = self.batcher.groups()[i].key;
                self.upload_batch_assets(device, queue, &key, registry);
            }
        }
        let retained = match &frame.retained {
            Some(retained) => {
                self.shadow_views.clear();
                self.shadow_views
                    .extend(shadow_views.in_use().map(|(view, _, m)| (view, *m)));
                self.prepare_retained(device, queue, view_proj, retained, registry)
            }
            None => {
                self.scene.clear();
                0
            }
        };
        let deformed_calls = if frame.deformed.is_empty() {
            self.deform.clear();
            0
        } else {
            self.deform
                .prepare(device, queue, frame, registry, &mut self.textures)
        };
        MeshStats {
            // The retained slots count as drawn: the GPU culls them.
            drawn: self.batcher.drawn() + deformed_calls + retained,
            culled: self.batcher.culled(),
            draw_calls: self.batcher.groups().len()
                + deformed_calls
                + self.scene.view(None).map_or(0, |v| v.draws.len()),
        }
    }

    /// Uploads the retained slots that changed and the batches' draws, with
    /// the meshes, textures and pipelines the batches need; returns the
    /// slots uploaded.
    fn prepare_retained(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        view_proj: Mat4,
        retained: &RetainedInstances<'_>,
        registry: &Registry,
    ) -> usize {
        for (key, &members) in retained.batches.iter().zip(retained.members) {
            if members > 0 {
                self.upload_batch_assets(device, queue, key, registry);
                let alpha = Alpha::of(key.blend, key.masked);
                self.pipelines.ensure(
                    device,
                    variant((key.texture, key.maps), key.double_sided, alpha),
                );
            }
        }
        // Masked casters' textures (their meshes are the batches' above).
        let casters = retained.caster_batches.iter().zip(retained.caster_members);
        for (key, _) in casters.filter(|(_, members)| **members > 0) {
            self.upload_batch_assets(device, queue, key, registry);
        }
        let (ranges, imported) = (&self.ranges, &self.imported);
        self.scene.prepare(
            device,
            queue,
            retained,
            view_proj,
            &self.shadow_views,
            &self.instance_layout,
            |key| {
                let range = mesh_range(ranges, imported, key.mesh)?;
                let radius = match key.mesh {
                    MeshRef::Primitive(primitive) => primitive.bounding_radius(),
                    MeshRef::Asset(handle) => registry.mesh(handle)?.radius,
                };
                Some(IndexedMesh {
                    indices: range.indices,
                    base_vertex: range.base_vertex,
                    radius,
                })
            },
        );
        self.scene.slots() as usize
    }

    /// Records the retained meshes' cull pass (before the main pass).
    pub(crate) fn cull(&self, encoder: &mut wgpu::CommandEncoder, timer: &GpuTimer) {
        self.scene.cull(encoder, timer);
    }

    /// Uploads the imported meshes `groups` draw that are not on the GPU yet
    /// (the shadow pass's casters).
    pub(crate) fn upload_meshes<'g>(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        groups: impl Iterator<Item = &'g DrawGroup>,
        registry: &Registry,
    ) {
        for group in groups {
            self.upload_batch_assets(device, queue, &group.key, registry);
        }
    }

    /// Uploads the imported mesh and the textures `key` draws with, unless
    /// they are on the GPU already.
    fn upload_batch_assets(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        key: &BatchKey,
        registry: &Registry,
    ) {
        if key.texture.is_some() || key.maps.is_some() {
            self.textures
                .ensure(device, queue, registry, (key.texture, key.maps));
        }
        if let MeshRef::Asset(handle) = key.mesh {
            self.imported.ensure(handle.index(), || {
                let asset = registry.mesh(handle)?;
                Some(GpuMesh::new(device, &asset.name, &asset.data))
            });
        }
    }

    /// The material textures (the shadow pass alpha-tests masked casters).
    pub(crate) fn textures(&self) -> &TextureSet {
        &self.textures
    }

    /// The skinned and morphed meshes.
    pub(super) fn deform(&self) -> &DeformPass {
        &self.deform
    }

    /// Draws the prepared groups: one indexed, instanced call per group.
    pub(crate) fn record(&self, pass: &mut wgpu::RenderPass<'_>) {
        self.record_plain(pass);
        self.deform.record(pass, &self.textures);
    }

    fn record_plain(&self, pass: &mut wgpu::RenderPass<'_>) {
        // The retained (opaque and masked) batches first: the CPU's groups
        // end with the blended ones.
        self.record_retained(pass);
        if self.batcher.groups().is_empty() {
            return;
        }
        pass.set_bind_group(2, &self.instance_bind_group, &[]);
        pass.set_vertex_buffer(1, self.instance_indices.buffer().slice(..));
        let mut bound = Bound::default();
        for group in self.batcher.groups() {
            if self.bind_look(pass, &group.key, &mut bound) {
                self.draw_group(pass, group, &mut bound.shared_buffers);
            }
        }
    }

    /// The retained batches: each binds its run of the GPU's index stream
    /// and draws as many instances as the cull pass counted.
    fn record_retained(&self, pass: &mut wgpu::RenderPass<'_>) {
        let (Some(view), Some(instances)) = (self.scene.view(None), self.scene.instances()) else {
            return;
        };
        if view.draws.is_empty() {
            return;
        }
        pass.set_bind_group(2, instances, &[]);
        let mut bound = Bound::default();
        for draw in view.draws {
            if self.bind_look(pass, &draw.key, &mut bound) {
                self.draw_retained(pass, &view, draw, &mut bound.shared_buffers);
            }
        }
    }

    /// One retained batch's indirect draw in `view`, with whatever pipeline
    /// and bind groups the caller set (`shared_bound`: as for
    /// [`MeshPass::draw_group`]).
    pub(crate) fn draw_retained(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        view: &ViewDraws<'_>,
        draw: &RetainedDraw,
        shared_bound: &mut bool,
    ) {
        if self.bind_mesh(pass, draw.key.mesh, shared_bound).is_none() {
            return;
        }
        let run = u64::from(draw.run.start) * 4..u64::from(draw.run.end) * 4;
        pass.set_vertex_buffer(1, view.visible.slice(run));
        pass.draw_indexed_indirect(view.args, draw.args_offset);
    }

    /// The layout the mesh shader reads instance records through (group 2).
    pub(crate) fn instance_layout(&self) -> &wgpu::BindGroupLayout {
        &self.instance_layout
    }

    /// The retained scene on the GPU (the shadow pass draws its casters).
    pub(crate) fn scene(&self) -> &GpuScene {
        &self.scene
    }

    /// Sets the pipeline and textures `key` draws with, unless bound
    /// already; false when its pipeline is not built.
    fn bind_look(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        key: &BatchKey,
        bound: &mut Bound,
    ) -> bool {
        let look = (key.texture, key.maps);
        let index = variant(look, key.double_sided, Alpha::of(key.blend, key.masked));
        if bound.pipeline != Some(index) {
            let Some(pipeline) = self.pipelines.get(index) else {
                return false;
            };
            pass.set_pipeline(pipeline);
            bound.pipeline = Some(index);
        }
        if bound.look != Some(look) {
            pass.set_bind_group(1, self.textures.bind_group(look), &[]);
            bound.look = Some(look);
        }
        true
    }

    /// One group's call, with whatever pipeline and bind groups the caller
    /// set; `shared_bound` says whether the primitives' shared buffers are
    /// still bound from the last call.
    pub(crate) fn draw_group(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        group: &DrawGroup,
        shared_bound: &mut bool,
    ) {
        if let Some(range) = self.bind_mesh(pass, group.key.mesh, shared_bound) {
            pass.draw_indexed(range.indices, range.base_vertex, group.instances.clone());
        }
    }

    /// Binds `mesh`'s vertex and index buffers (the primitives' shared ones
    /// unless `shared_bound` says they still are) and says where its indices
    /// are; `None` for an imported mesh not on the GPU.
    fn bind_mesh(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        mesh: MeshRef,
        shared_bound: &mut bool,
    ) -> Option<MeshRange> {
        let range = mesh_range(&self.ranges, &self.imported, mesh)?;
        match mesh {
            MeshRef::Primitive(_) if !*shared_bound => {
                pass.set_vertex_buffer(0, self.vertices.slice(..));
                pass.set_index_buffer(self.indices.slice(..), wgpu::IndexFormat::Uint32);
                *shared_bound = true;
            }
            MeshRef::Primitive(_) => {}
            MeshRef::Asset(handle) => {
                let gpu = self.imported.get(handle.index())?;
                pass.set_vertex_buffer(0, gpu.vertices.slice(..));
                pass.set_index_buffer(gpu.indices.slice(..), wgpu::IndexFormat::Uint32);
                *shared_bound = false;
            }
        }
        Some(range)
    }
}

/// Where `mesh`'s indices are in the buffers it is drawn from: its range of
/// the primitives' shared ones, or the whole of an imported mesh's own
/// (`None` when that is not on the GPU).
fn mesh_range(
    ranges: &[MeshRange; Primitive::ALL.len()],
    imported: &Uploaded<GpuMesh>,
    mesh: MeshRef,
) -> Option<MeshRange> {
    match mesh {
        MeshRef::Primitive(primitive) => Some(ranges[primitive as usize].clone()),
        MeshRef::Asset(handle) => Some(MeshRange {
            base_vertex: 0,
            indices: 0..imported.get(handle.index())?.index_count,
        }),
    }
}

/// What a run of draws has bound so far.
#[derive(Default)]
struct Bound {
    pipeline: Option<usize>,
    look: Option<super::texture::Look>,
    /// The primitives' shared vertex and index buffers.
    shared_buffers: bool,
}

fn bind_instances(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    buffer: &GrowableBuffer,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("mesh pass: instances bind group"),
        layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: buffer.buffer().as_entire_binding(),
        }],
    })
}

fn to_u32(value: usize) -> u32 {
    u32::try_from(value).expect("fewer than 2^32 indices")
}
