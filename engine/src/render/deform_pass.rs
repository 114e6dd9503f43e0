//! The mesh pass's deformed meshes: skinned and morphed meshes, deformed in
//! the vertex shader (`vs_deformed` in `mesh.wgsl`) and shaded like every
//! other mesh.
//!
//! Per frame, one storage buffer holds every skinned mesh's joint matrices
//! (extraction packed them), one the morph weights, one a 96-byte record per
//! instance. The morph targets' offsets of every mesh drawn so far live in one
//! more storage buffer, appended to when a new mesh first appears; each
//! mesh's vertices carry a second stream with their four joints and weights.
//! One draw call per instance: each has its own joints.

use bytemuck::Zeroable;
use wgpu::util::DeviceExt;

use super::InstanceRecord;
use super::buffer::{GrowableBuffer, vertex_storage};
use super::frame::{DeformedInstance, FrameData};
use super::mesh_pipelines::{Alpha, PipelineSet, SecondStream, variant};
use super::targets::ColorTarget;
use super::texture::{Look, TextureSet};
use super::uploaded::Uploaded;
use crate::assets::{AlphaMode, MeshData, Registry, VertexSkin};

/// One deformed instance as `vs_deformed` reads it (`vec4`s, but for one
/// `vec3` and `u32`, as in [`super::GpuInstance`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct GpuDeformed {
    /// Rows of the model matrix (used when not skinned).
    rows: [[f32; 4]; 3],
    /// Linear RGBA base colour.
    color: [f32; 4],
    /// Linear RGB emitted light.
    emissive: [f32; 3],
    /// Metallic and roughness, as unorm16s.
    metal_rough: u32,
    /// First joint matrix, joint count (0: not skinned), first weight, target count.
    joints: [u32; 4],
    /// First offset of the mesh's targets in the offsets buffer, its vertex count.
    morph: [u32; 4],
}

/// A deformed mesh on the GPU.
#[derive(Debug)]
struct GpuMesh {
    vertices: wgpu::Buffer,
    /// Joints and weights per vertex (zeros for a mesh that is not skinned).
    skin: wgpu::Buffer,
    indices: wgpu::Buffer,
    index_count: u32,
    vertex_count: u32,
    /// Where its targets' offsets start in the offsets buffer (in vec4s).
    first_offset: u32,
}

/// GPU objects of the deformed meshes.
#[derive(Debug)]
pub(super) struct DeformPass {
    /// By shading, sidedness and blending, made when first needed.
    pipelines: PipelineSet,
    layout: wgpu::BindGroupLayout,
    records: GrowableBuffer,
    joints: GrowableBuffer,
    weights: GrowableBuffer,
    offsets: GrowableBuffer,
    bind_group: wgpu::BindGroup,
    meshes: Uploaded<GpuMesh>,
    /// Every uploaded mesh's target offsets: per target, per vertex, the
    /// position offset then the normal offset (a CPU copy, to re-upload when
    /// the buffer grows).
    offset_data: Vec<[f32; 4]>,
    /// This frame's records and what each draws with.
    frame_records: Vec<GpuDeformed>,
    /// What each deformed instance of the frame is drawn with.
    draws: Vec<Draw>,
}

/// One deformed instance's draw.
#[derive(Clone, Copy, Debug)]
struct Draw {
    mesh: usize,
    look: Look,
    pipeline: usize,
    /// Drawn in the view (else only into the shadow map).
    in_view: bool,
    /// Drawn into the shadow map.
    casts: bool,
}

impl DeformPass {
    /// Drops the GPU copies of meshes the registry released.
    pub(crate) fn forget_released(&mut self, registry: &crate::assets::Registry) {
        self.meshes.retain(|i| registry.has_mesh(i));
    }

    pub(super) fn new(
        device: &wgpu::Device,
        globals_layout: &wgpu::BindGroupLayout,
        textures: &TextureSet,
        target: ColorTarget,
        shader: &wgpu::ShaderModule,
    ) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("deform pass: layout"),
            entries: &[1, 2, 3, 4].map(vertex_storage),
        });
        let buffer = |label| GrowableBuffer::new(device, label, wgpu::BufferUsages::STORAGE, 4096);
        let records = buffer("deform pass: instances");
        let joints = buffer("deform pass: joint matrices");
        let weights = buffer("deform pass: morph weights");
        let offsets = buffer("deform pass: morph offsets");
        let bind_group = bind(device, &layout, [&records, &joints, &weights, &offsets]);
        let skin_attributes = wgpu::vertex_attr_array![4 => Uint16x4, 5 => Float32x4];
        let pipelines = PipelineSet::new(
            device,
            &[globals_layout, textures.layout(), &layout],
            target,
            "vs_deformed",
            SecondStream {
                stride: size_of::<VertexSkin>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: skin_attributes.to_vec(),
            },
            shader,
        );
        Self {
            pipelines,
            layout,
            records,
            joints,
            weights,
            offsets,
            bind_group,
            meshes: Uploaded::default(),
            offset_data: Vec::new(),
            frame_records: Vec::new(),
            draws: Vec::new(),
        }
    }

    /// Uploads the frame's joints, weights and records, and every mesh and
    /// texture drawn for the first time. Returns the number of draw calls.
    pub(super) fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        frame: &FrameData<'_>,
        registry: &Registry,
        textures: &mut TextureSet,
    ) -> usize {
        self.clear();
        let mut offsets_grew = false;
        for instance in frame.deformed {
            let index = instance.mesh.index();
            if self.meshes.get(index).is_none() {
                offsets_grew |= self.upload_mesh(device, registry, index);
            }
            let Some(mesh) = self.meshes.get(index) else {
                continue;
            };
            let look = (instance.material.texture, instance.material.maps);
            if look != (None, None) {
                textures.ensure(device, queue, registry, look);
            }
            let alpha = match instance.material.alpha_mode {
                AlphaMode::Opaque => Alpha::Opaque,
                AlphaMode::Blend => Alpha::Blend,
                AlphaMode::Mask { .. } => Alpha::Mask,
            };
            let pipeline = variant(look, instance.material.double_sided, alpha);
            let record = record(instance, mesh.first_offset, mesh.vertex_count);
            self.frame_records.push(record);
            self.draws.push(Draw {
                mesh: index,
                look,
                pipeline,
                in_view: instance.in_view,
                casts: instance.cast_shadows,
            });
            self.pipelines.ensure(device, pipeline);
        }
        if offsets_grew {
            self.offsets
                .write(device, queue, bytemuck::cast_slice(&self.offset_data));
        }
        let mut grew = offsets_grew;
        grew |= self
            .records
            .write(device, queue, bytemuck::cast_slice(&self.frame_records));
        grew |= self
            .joints
            .write(device, queue, bytemuck::cast_slice(frame.joints));
        grew |= self
            .weights
            .write(device, queue, bytemuck::cast_slice(frame.morph_weights));
        if grew {
            let buffers = [&self.records, &self.joints, &self.weights, &self.offsets];
            self.bind_group = bind(device, &self.layout, buffers);
        }
        self.draws.iter().filter(|d| d.in_view).count()
    }

    /// Draws nothing this frame.
    pub(super) fn clear(&mut self) {
        self.frame_records.clear();
        self.draws.clear();
    }

    /// Uploads mesh `index` and appends its target offsets; returns whether
    /// there were any.
    fn upload_mesh(&mut self, device: &wgpu::Device, registry: &Registry, index: usize) -> bool {
        let Some(asset) = registry.meshes().get(index) else {
            return false;
        };
        let data: &MeshData = &asset.data;
        let first_offset = self.offset_data.len() as u32;
        for target in &data.targets {
            for (p, n) in target.positions.iter().zip(&target.normals) {
                self.offset_data.push([p[0], p[1], p[2], 0.0]);
                self.offset_data.push([n[0], n[1], n[2], 0.0]);
            }
        }
        let skin = if data.skin.len() == data.vertices.len() {
            std::borrow::Cow::Borrowed(&data.skin[..])
        } else {
            std::borrow::Cow::Owned(vec![VertexSkin::zeroed(); data.vertices.len()])
        };
        let init = |what: &str, contents: &[u8], usage| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(&format!("deform pass: {what} of {}", asset.name)),
                contents,
                usage,
            })
        };
        self.meshes.ensure(index, || {
            Some(GpuMesh {
                vertices: init(
                    "vertices",
                    bytemuck::cast_slice(&data.vertices),
                    wgpu::BufferUsages::VERTEX,
                ),
                skin: init(
                    "skin",
                    bytemuck::cast_slice(&skin),
                    wgpu::BufferUsages::VERTEX,
                ),
                indices: init(
                    "indices",
                    bytemuck::cast_slice(&data.indices),
                    wgpu::BufferUsages::INDEX,
                ),
                index_count: data.indices.len() as u32,
                vertex_count: data.vertices.len() as u32,
                first_offset,
            })
        });
        !data.targets.is_empty()
    }

    /// The layout of the deformed meshes' storage buffers (group 2).
    pub(super) fn layout(&self) -> &wgpu::BindGroupLayout {
        &self.layout
    }

    /// Draws every prepared instance with the caller's pipeline and groups 0
    /// and 1 (the shadow pass's depth-only one): only positions matter.
    pub(super) fn record_depth(&self, pass: &mut wgpu::RenderPass<'_>) {
        if self.draws.is_empty() {
            return;
        }
        pass.set_bind_group(2, &self.bind_group, &[]);
        for (i, draw) in self.draws.iter().enumerate() {
            let Some(mesh) = self.meshes.get(draw.mesh).filter(|_| draw.casts) else {
                continue;
            };
            pass.set_vertex_buffer(0, mesh.vertices.slice(..));
            pass.set_vertex_buffer(1, mesh.skin.slice(..));
            pass.set_index_buffer(mesh.indices.slice(..), wgpu::IndexFormat::Uint32);
            let i = i as u32;
            pass.draw_indexed(0..mesh.index_count, 0, i..i + 1);
        }
    }

    /// Whether the last `prepare` left anything to draw.
    pub(super) fn is_empty(&self) -> bool {
        self.draws.is_empty()
    }

    /// Draws each prepared instance (the mesh pass's globals are bound).
    pub(super) fn record(&self, pass: &mut wgpu::RenderPass<'_>, textures: &TextureSet) {
        if self.draws.is_empty() {
            return;
        }
        pass.set_bind_group(2, &self.bind_group, &[]);
        let mut bound = None;
        for (
            i,
            &Draw {
                mesh,
                look,
                pipeline,
                in_view,
                ..
            },
        ) in self.draws.iter().enumerate()
        {
            let (Some(mesh), Some(pipeline), true) =
                (self.meshes.get(mesh), self.pipelines.get(pipeline), in_view)
            else {
                continue;
            };
            if bound != Some((look, pipeline)) {
                pass.set_pipeline(pipeline);
                pass.set_bind_group(1, textures.bind_group(look), &[]);
                bound = Some((look, pipeline));
            }
            pass.set_vertex_buffer(0, mesh.vertices.slice(..));
            pass.set_vertex_buffer(1, mesh.skin.slice(..));
            pass.set_index_buffer(mesh.indices.slice(..), wgpu::IndexFormat::Uint32);
            let i = i as u32;
            pass.draw_indexed(0..mesh.index_count, 0, i..i + 1);
        }
    }
}

/// The record of one instance.
fn record(instance: &DeformedInstance, first_offset: u32, vertex_count: u32) -> GpuDeformed {
    let packed = super::GpuInstance::pack(&instance.model, &instance.material);
    GpuDeformed {
        rows: packed.rows,
        color: packed.color,
        emissive: packed.emissive,
        metal_rough: packed.metal_rough,
        joints: [
            instance.joints.start,
            instance.joints.len() as u32,
            instance.weights.start,
            instance.weights.len() as u32,
        ],
        morph: [first_offset, vertex_count, 0, 0],
    }
}

fn bind(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    buffers: [&GrowableBuffer; 4],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry<'_>> = buffers
        .iter()
        .zip(1..)
        .map(|(buffer, binding)| wgpu::BindGroupEntry {
            binding,
            resource: buffer.buffer().as_entire_binding(),
        })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("deform pass: bind group"),
        layout,
        entries: &entries,
    })
}
