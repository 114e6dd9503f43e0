//! The shadow pass: each cascade of the sun's shadow map drawn depth-only
//! from its casters, before the main pass samples the map.
//!
//! Per cascade: an [`InstanceBatcher`] groups the casters extraction packed
//! for it (and the loose instances that cast and touch it) by mesh, and one
//! instanced call per mesh draws them into the cascade's layer. The map is one
//! depth texture array, a layer per cascade, rebuilt only when the cascade
//! count or resolution changes.
//!
//! Pattern: data locality (casters packed per cascade, grouped by a counting
//! sort) and dirty flag (the map is rebuilt when its settings change).

use glam::Mat4;

use super::batcher::{DrawGroup, InstanceBatcher};
use super::buffer::{GrowableBuffer, vertex_storage};
use super::frame::{FrameData, Globals};
use super::gpu_timing::GpuTimer;
use super::mesh_pass::MeshPass;
use super::mesh_pipelines::VERTEX_ATTRIBUTES;
use super::packed::BatchKey;
use super::records::GpuCaster;
use super::shadow::{MAX_SHADOW_VIEWS, ShadowViews};
use crate::assets::{MeshVertex, Registry, Shader, ShaderLibrary, VertexSkin};

/// Depth format of the shadow map.
const SHADOW_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// The shadow map's extent: the side of each layer in texels, and the layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct MapSize {
    side: u32,
    layers: u32,
}

impl MapSize {
    /// The placeholder map of a frame without shadows (bindings need one).
    const EMPTY: Self = Self { side: 1, layers: 1 };
}

/// One view's GPU objects and caster batches (a cascade of the sun or a
/// shadowed spot).
#[derive(Debug)]
struct CascadeSlot {
    /// The view's world-to-clip matrix.
    uniform: wgpu::Buffer,
    /// The frame's globals as the cascade sees them, for the skinned and
    /// morphed casters (drawn by the mesh shader's deforming vertex stage).
    globals: wgpu::Buffer,
    globals_group: wgpu::BindGroup,
    /// The records as `vs_caster` reads them (for masked casters).
    instances_group: wgpu::BindGroup,
    records: GrowableBuffer,
    indices: GrowableBuffer,
    bind_group: wgpu::BindGroup,
    batcher: InstanceBatcher<GpuCaster>,
    /// The matrix and the retained scene's records, for its casters; and
    /// the records' binding count it was made at.
    retained_group: Option<(u64, wgpu::BindGroup)>,
}

/// The shadow map and everything that draws it.
#[derive(Debug)]
pub(crate) struct ShadowPass {
    pipeline: wgpu::RenderPipeline,
    /// Depth-only `vs_deformed`: skinned and morphed casters.
    deformed: wgpu::RenderPipeline,
    /// Group 1 of `deformed`: the stage reads no material.
    empty_group: wgpu::BindGroup,
    /// Alpha-masked casters: the mesh shader's `vs_caster` and its alpha test.
    masked: wgpu::RenderPipeline,
    /// The retained scene's casters, plain (`vs_shadow_retained`) and
    /// masked (`vs_caster_retained`), and the plain ones' group 0.
    retained: wgpu::RenderPipeline,
    retained_masked: wgpu::RenderPipeline,
    retained_layout: wgpu::BindGroupLayout,
    /// Group 2 of `masked`: the caster records.
    caster_layout: wgpu::BindGroupLayout,
    layout: wgpu::BindGroupLayout,
    /// By view: the cascades, then the spots ([`MAX_SHADOW_VIEWS`]).
    slots: Vec<CascadeSlot>,
    map_size: MapSize,
    layers: Vec<wgpu::TextureView>,
    /// All layers, as the mesh shader samples them.
    array_view: wgpu::TextureView,
    sampler: wgpu::Sampler,
    /// Views drawn by the last `prepare`, with the map layer of each.
    active: Vec<(usize, usize)>,
}

impl ShadowPass {
    /// The pass; `deform_layout` is the deformed meshes' group 2.
    pub(crate) fn new(device: &wgpu::Device, meshes: &MeshPass, shaders: &ShaderLibrary) -> Self {
        let deform_layout = meshes.deform().layout();
        let globals_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("shadow pass: cascade globals layout"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: wgpu::BufferSize::new(size_of::<Globals>() as u64),
                },
                count: None,
            }],
        });
        let caster_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("shadow pass: caster layout"),
            entries: &[vertex_storage(CASTERS_BINDING)],
        });
        let empty_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("shadow pass: empty layout"),
            entries: &[],
        });
        let layout = matrix_and_records_layout(device, "shadow pass: cascade layout", 1);
        let slots = (0..MAX_SHADOW_VIEWS)
            .map(|_| {
                let uniform = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("shadow pass: cascade matrix"),
                    size: size_of::<Mat4>() as u64,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                let records = GrowableBuffer::new(
                    device,
                    "shadow pass: casters",
                    wgpu::BufferUsages::STORAGE,
                    256 * size_of::<GpuCaster>() as u64,
                );
                let indices = GrowableBuffer::new(
                    device,
                    "shadow pass: caster indices",
                    wgpu::BufferUsages::VERTEX,
                    256 * size_of::<u32>() as u64,
                );
                let bind_group = bind_cascade(device, &layout, &uniform, &records);
                let instances_group = bind_records(device, &caster_layout, &records);
                let globals = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("shadow pass: cascade globals"),
                    size: size_of::<Globals>() as u64,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                let globals_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("shadow pass: cascade globals"),
                    layout: &globals_layout,
                    entries: &[wgpu::BindGroupEntry {
                        binding: 0,
                        resource: globals.as_entire_binding(),
                    }],
                });
                CascadeSlot {
                    uniform,
                    globals,
                    globals_group,
                    instances_group,
                    records,
                    indices,
                    bind_group,
                    batcher: InstanceBatcher::new(),
                    retained_group: None,
                }
            })
            .collect();
        let retained_layout =
            matrix_and_records_layout(device, "shadow pass: retained casters layout", 2);
        let (retained, retained_masked) = create_retained_pipelines(
            device,
            &retained_layout,
            &[
                &globals_layout,
                meshes.textures().layout(),
                meshes.instance_layout(),
            ],
            shaders,
        );
        let (layers, array_view) = create_map(device, MapSize::EMPTY);
        let (deformed, masked) = create_mesh_shader_pipelines(
            device,
            &[&globals_layout, &empty_layout, deform_layout],
            &[&globals_layout, meshes.textures().layout(), &caster_layout],
            shaders,
        );
        Self {
            pipeline: create_pipeline(device, &layout, shaders),
            deformed,
            masked,
            retained,
            retained_masked,
            retained_layout,
            caster_layout,
            empty_group: device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("shadow pass: empty group"),
                layout: &empty_layout,
                entries: &[],
            }),
            layout,
            slots,
            map_size: MapSize::EMPTY,
            layers,
            array_view,
            sampler: device.create_sampler(&wgpu::SamplerDescriptor {
                label: Some("shadow pass: comparison sampler"),
                mag_filter: wgpu::FilterMode::Linear,
                min_filter: wgpu::FilterMode::Linear,
                compare: Some(wgpu::CompareFunction::LessEqual),
                ..wgpu::SamplerDescriptor::default()
            }),
            active: Vec::with_capacity(MAX_SHADOW_VIEWS),
        }
    }

    /// The map as the mesh shader samples it (all cascades).
    pub(crate) fn map_view(&self) -> &wgpu::TextureView {
        &self.array_view
    }

    /// The comparison sampler for the map.
    pub(crate) fn sampler(&self) -> &wgpu::Sampler {
        &self.sampler
    }

    /// Batches and uploads the casters of each of the frame's `shadows`
    /// (one layer of the map each), with their copies of `globals`. Returns
    /// whether the map was rebuilt (whatever binds [`ShadowPass::map_view`]
    /// must be rebuilt).
    pub(crate) fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        frame: &FrameData<'_>,
        shadows: &ShadowViews,
        globals: &Globals,
        registry: &Registry,
    ) -> bool {
        let layers = shadows.count();
        let wanted = if layers == 0 {
            MapSize::EMPTY
        } else {
            MapSize {
                side: frame.shadows.map_size(),
                layers: layers as u32,
            }
        };
        let rebuilt = wanted != self.map_size;
        if rebuilt {
            (self.layers, self.array_view) = create_map(device, wanted);
            self.map_size = wanted;
        }
        self.active.clear();
        for (view, layer, &view_proj) in shadows.in_use() {
            self.active.push((view, layer));
            let slot = &mut self.slots[view];
            queue.write_buffer(&slot.uniform, 0, bytemuck::bytes_of(&view_proj));
            slot.batcher
                .prepare_casters(view_proj, frame.instances, frame.casters[view], registry);
            // For the casters the mesh shader draws (skinned, morphed,
            // masked; retained ones too, known only once the mesh pass has
            // prepared: a few hundred bytes).
            let seen = globals.with_view_proj(view_proj);
            queue.write_buffer(&slot.globals, 0, bytemuck::bytes_of(&seen));
            let packed = frame.casters[view];
            let extracted = bytemuck::cast_slice(&packed.records[..packed.len()]);
            if slot
                .records
                .write_parts(device, queue, &[extracted, slot.batcher.bytes()])
            {
                slot.bind_group = bind_cascade(device, &self.layout, &slot.uniform, &slot.records);
                slot.instances_group = bind_records(device, &self.caster_layout, &slot.records);
            }
            slot.indices
                .write(device, queue, slot.batcher.index_bytes());
        }
        rebuilt
    }

    /// Binds the retained scene's records for each active view's casters
    /// (after the mesh pass prepared them: its buffer may have moved).
    pub(crate) fn bind_retained(&mut self, device: &wgpu::Device, meshes: &MeshPass) {
        let (records, bindings) = meshes.scene().records();
        for &(view, _) in &self.active {
            let slot = &mut self.slots[view];
            if slot
                .retained_group
                .as_ref()
                .is_some_and(|(b, _)| *b == bindings)
            {
                continue;
            }
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("shadow pass: retained casters"),
                layout: &self.retained_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: slot.uniform.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: records.as_entire_binding(),
                    },
                ],
            });
            slot.retained_group = Some((bindings, group));
        }
    }

    /// The retained casters' draws of the active views.
    pub(crate) fn retained_draw_calls(&self, meshes: &MeshPass) -> usize {
        let scene = meshes.scene();
        (self.active.iter())
            .filter_map(|&(view, _)| scene.view(Some(view)))
            .map(|v| v.draws.len())
            .sum()
    }

    /// The mesh groups the views draw (their meshes must be uploaded).
    pub(crate) fn groups(&self) -> impl Iterator<Item = &DrawGroup> {
        self.active
            .iter()
            .flat_map(|&(view, _)| self.slots[view].batcher.groups())
    }

    /// Draw calls the last `prepare` set up.
    pub(crate) fn draw_calls(&self) -> usize {
        self.groups().count()
    }

    /// Draws every active view into its layer of the map.
    pub(crate) fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        meshes: &MeshPass,
        gpu: &GpuTimer,
    ) {
        puffin::profile_scope!("shadow passes");
        for &(view, layer) in &self.active {
            let (slot, layer) = (&self.slots[view], &self.layers[layer]);
            let timed = gpu.begin("shadow view", encoder);
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("shadow pass: cascade"),
                color_attachments: &[],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: layer,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: timed.writes(),
                occlusion_query_set: None,
                multiview_mask: None,
            });
            if !slot.batcher.groups().is_empty() {
                pass.set_vertex_buffer(1, slot.indices.buffer().slice(..));
                let (mut bound, mut shared) = (None, false);
                let pipelines = CasterPipelines {
                    plain: (&self.pipeline, &slot.bind_group),
                    masked: (&self.masked, &slot.instances_group),
                    globals: &slot.globals_group,
                };
                for group in slot.batcher.groups() {
                    pipelines.bind(&mut pass, &group.key, &mut bound, meshes);
                    meshes.draw_group(&mut pass, group, &mut shared);
                }
            }
            self.record_retained(&mut pass, view, meshes);
            // Skinned and morphed meshes (the camera's; few) in every cascade.
            if !meshes.deform().is_empty() {
                pass.set_pipeline(&self.deformed);
                pass.set_bind_group(0, &slot.globals_group, &[]);
                pass.set_bind_group(1, &self.empty_group, &[]);
                meshes.deform().record_depth(&mut pass);
            }
            drop(pass);
            gpu.end(encoder, timed);
        }
    }

    /// View `view`'s retained casters: the plain ones through their own
    /// pipeline, the masked ones through the mesh shader's alpha test.
    fn record_retained(&self, pass: &mut wgpu::RenderPass<'_>, view: usize, meshes: &MeshPass) {
        let scene = meshes.scene();
        let slot = &self.slots[view];
        let (Some(draws), Some((_, group)), Some(instances)) = (
            scene.view(Some(view)),
            &slot.retained_group,
            scene.instances(),
        ) else {
            return;
        };
        let (mut bound, mut shared) = (None, false);
        let pipelines = CasterPipelines {
            plain: (&self.retained, group),
            masked: (&self.retained_masked, instances),
            globals: &slot.globals_group,
        };
        for draw in draws.draws {
            pipelines.bind(pass, &draw.key, &mut bound, meshes);
            meshes.draw_retained(pass, &draws, draw, &mut shared);
        }
    }
}

/// How one view draws a kind of caster: plain ones through a pipeline of
/// their own with its group 0, masked ones through the mesh shader's alpha
/// test with the view's globals (group 0), the records (group 2) and the
/// batch's textures (group 1).
struct CasterPipelines<'a> {
    plain: (&'a wgpu::RenderPipeline, &'a wgpu::BindGroup),
    masked: (&'a wgpu::RenderPipeline, &'a wgpu::BindGroup),
    globals: &'a wgpu::BindGroup,
}

impl CasterPipelines<'_> {
    /// Binds what a caster of batch `key` draws with; the pipeline only when
    /// it differs from the last one (`bound`: whether that was the masked).
    fn bind(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        key: &BatchKey,
        bound: &mut Option<bool>,
        meshes: &MeshPass,
    ) {
        if *bound != Some(key.masked) {
            if key.masked {
                pass.set_pipeline(self.masked.0);
                pass.set_bind_group(0, self.globals, &[]);
                pass.set_bind_group(2, self.masked.1, &[]);
            } else {
                pass.set_pipeline(self.plain.0);
                pass.set_bind_group(0, self.plain.1, &[]);
            }
            *bound = Some(key.masked);
        }
        if key.masked {
            let look = meshes.textures().bind_group((key.texture, key.maps));
            pass.set_bind_group(1, look, &[]);
        }
    }
}

/// The retained scene's casters: plain ones through `shadow.wgsl`'s
/// `vs_shadow_retained` (group 0: `plain`), masked ones through the mesh
/// shader's `vs_caster_retained` and alpha test (`masked_layouts`).
fn create_retained_pipelines(
    device: &wgpu::Device,
    plain: &wgpu::BindGroupLayout,
    masked_layouts: &[&wgpu::BindGroupLayout],
    shaders: &ShaderLibrary,
) -> (wgpu::RenderPipeline, wgpu::RenderPipeline) {
    let shadow = shaders.module(device, Shader::Shadow);
    let mesh = shaders.module(device, Shader::Mesh);
    let positions = wgpu::vertex_attr_array![0 => Float32x3];
    let vertex = VERTEX_ATTRIBUTES;
    let instance = wgpu::vertex_attr_array![3 => Uint32];
    let plain_pipeline = depth_pipeline(
        device,
        &[plain],
        &shadow,
        "vs_shadow_retained",
        None,
        &[vertices(&positions), instances(&instance)],
    );
    let masked = depth_pipeline(
        device,
        masked_layouts,
        &mesh,
        "vs_caster_retained",
        Some("fs_shadow_mask"),
        &[vertices(&vertex), instances(&instance)],
    );
    (plain_pipeline, masked)
}

/// A view's group 0 for `shadow.wgsl`: its world-to-clip matrix (binding
/// 0) and records at `records` (1: the casters, 2: the retained scene's).
fn matrix_and_records_layout(
    device: &wgpu::Device,
    label: &str,
    records: u32,
) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &[
            wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: wgpu::BufferSize::new(size_of::<Mat4>() as u64),
                },
                count: None,
            },
            vertex_storage(records),
        ],
    })
}

fn bind_cascade(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    uniform: &wgpu::Buffer,
    records: &GrowableBuffer,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("shadow pass: cascade bind group"),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: records.buffer().as_entire_binding(),
            },
        ],
    })
}

/// The map of `size`: a view per layer to draw into and one of them all to
/// sample.
fn create_map(device: &wgpu::Device, size: MapSize) -> (Vec<wgpu::TextureView>, wgpu::TextureView) {
    let MapSize { side, layers } = size;
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("shadow pass: map"),
        size: wgpu::Extent3d {
            width: side,
            height: side,
            depth_or_array_layers: layers,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: SHADOW_FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    });
    let layer_views = (0..layers)
        .map(|layer| {
            texture.create_view(&wgpu::TextureViewDescriptor {
                label: Some("shadow pass: cascade layer"),
                dimension: Some(wgpu::TextureViewDimension::D2),
                base_array_layer: layer,
                array_layer_count: Some(1),
                ..wgpu::TextureViewDescriptor::default()
            })
        })
        .collect();
    let array = texture.create_view(&wgpu::TextureViewDescriptor {
        label: Some("shadow pass: map array"),
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        ..wgpu::TextureViewDescriptor::default()
    });
    (layer_views, array)
}

/// The static casters' pipeline: `shadow.wgsl`, positions and each
/// instance's place in the cascade's records.
fn create_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    shaders: &ShaderLibrary,
) -> wgpu::RenderPipeline {
    let shader = shaders.module(device, Shader::Shadow);
    let positions = wgpu::vertex_attr_array![0 => Float32x3];
    let instance = wgpu::vertex_attr_array![3 => Uint32];
    let streams = [vertices(&positions), instances(&instance)];
    depth_pipeline(device, &[layout], &shader, "vs_shadow", None, &streams)
}

/// The mesh shader's casters: skinned and morphed ones through
/// `vs_deformed`, and alpha-masked ones through `vs_main` and
/// `fs_shadow_mask` (which discards the cut-outs), both reading the
/// cascade's copy of the globals.
fn create_mesh_shader_pipelines(
    device: &wgpu::Device,
    deformed_layouts: &[&wgpu::BindGroupLayout],
    masked_layouts: &[&wgpu::BindGroupLayout],
    shaders: &ShaderLibrary,
) -> (wgpu::RenderPipeline, wgpu::RenderPipeline) {
    let shader = shaders.module(device, Shader::Mesh);
    let vertex = VERTEX_ATTRIBUTES;
    let skin = wgpu::vertex_attr_array![4 => Uint16x4, 5 => Float32x4];
    let instance = wgpu::vertex_attr_array![3 => Uint32];
    let skinned = [
        vertices(&vertex),
        (
            size_of::<VertexSkin>(),
            wgpu::VertexStepMode::Vertex,
            &skin[..],
        ),
    ];
    let deformed = depth_pipeline(
        device,
        deformed_layouts,
        &shader,
        "vs_deformed",
        None,
        &skinned,
    );
    let masked = depth_pipeline(
        device,
        masked_layouts,
        &shader,
        "vs_caster",
        Some("fs_shadow_mask"),
        &[vertices(&vertex), instances(&instance)],
    );
    (deformed, masked)
}

/// A vertex stream: stride, step mode, attributes.
type Stream<'a> = (usize, wgpu::VertexStepMode, &'a [wgpu::VertexAttribute]);

/// [`MeshVertex`] attributes, per vertex.
fn vertices(attributes: &[wgpu::VertexAttribute]) -> Stream<'_> {
    (
        size_of::<MeshVertex>(),
        wgpu::VertexStepMode::Vertex,
        attributes,
    )
}

/// Each instance's place in the records, per instance.
fn instances(attributes: &[wgpu::VertexAttribute]) -> Stream<'_> {
    (size_of::<u32>(), wgpu::VertexStepMode::Instance, attributes)
}

/// Where the mesh shader's `vs_caster` reads the caster records (group 2).
const CASTERS_BINDING: u32 = 5;

/// The cascade's records as `vs_caster` reads them.
fn bind_records(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    records: &GrowableBuffer,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("shadow pass: records for vs_caster"),
        layout,
        entries: &[wgpu::BindGroupEntry {
            binding: CASTERS_BINDING,
            resource: records.buffer().as_entire_binding(),
        }],
    })
}

/// A depth-only pipeline into the shadow map, `shader`'s `entry` vertex
/// stage and, for casters with cut-outs, its `fragment` stage: both faces
/// (thin casters such as sails and planes have no back to hide behind), a
/// slope-scaled bias.
fn depth_pipeline(
    device: &wgpu::Device,
    layouts: &[&wgpu::BindGroupLayout],
    shader: &wgpu::ShaderModule,
    entry: &str,
    fragment: Option<&str>,
    streams: &[Stream<'_>],
) -> wgpu::RenderPipeline {
    let bind_group_layouts: Vec<Option<&wgpu::BindGroupLayout>> =
        layouts.iter().copied().map(Some).collect();
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("shadow pass: pipeline layout"),
        bind_group_layouts: &bind_group_layouts,
        immediate_size: 0,
    });
    let buffers: Vec<Option<wgpu::VertexBufferLayout<'_>>> = streams
        .iter()
        .map(|&(stride, step_mode, attributes)| {
            Some(wgpu::VertexBufferLayout {
                array_stride: stride as u64,
                step_mode,
                attributes,
            })
        })
        .collect();
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(entry),
        layout: Some(&layout),
        vertex: wgpu::VertexState {
            module: shader,
            entry_point: Some(entry),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            buffers: &buffers,
        },
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::TriangleList,
            front_face: wgpu::FrontFace::Ccw,
            cull_mode: None,
            ..wgpu::PrimitiveState::default()
        },
        depth_stencil: Some(wgpu::DepthStencilState {
            format: SHADOW_FORMAT,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Less),
            stencil: wgpu::StencilState::default(),
            bias: wgpu::DepthBiasState {
                constant: 0,
                slope_scale: 1.0,
                clamp: 0.0,
            },
        }),
        multisample: wgpu::MultisampleState::default(),
        fragment: fragment.map(|entry| wgpu::FragmentState {
            module: shader,
            entry_point: Some(entry),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            targets: &[],
        }),
        multiview_mask: None,
        cache: None,
    })
}
