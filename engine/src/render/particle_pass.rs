//! The particle pass: camera-facing billboards, one instanced draw per blend
//! mode, depth-tested against the scene without writing depth.
//!
//! Pattern: data locality again. Both blend modes share one instance buffer
//! (additive first, then alpha) so a frame uploads particles with one copy.
//! The pool that produces them is an object pool; this pass only reads its
//! packed output.

use glam::Vec3;

use super::buffer::GrowableBuffer;
use super::frame::FrameData;
use super::targets::{ColorTarget, DEPTH_FORMAT};
use crate::assets::{Shader, ShaderLibrary};
use crate::particles::ParticleInstance;

/// Vertices per billboard: two triangles, corners picked by vertex index.
const QUAD_VERTICES: u32 = 6;

/// GPU objects and staging memory of the particle pass.
#[derive(Debug)]
pub(crate) struct ParticlePass {
    additive_pipeline: wgpu::RenderPipeline,
    alpha_pipeline: wgpu::RenderPipeline,
    instances: GrowableBuffer,
    /// Additive particles followed by the alpha ones, sorted back to front.
    staging: Vec<ParticleInstance>,
    additive_count: u32,
    alpha_count: u32,
    /// Whether a frame had more particles than the buffer can hold (warned once).
    clamped: bool,
}

impl ParticlePass {
    /// Builds the two pipelines (they differ only in blend state and fragment entry).
    pub(crate) fn new(
        device: &wgpu::Device,
        globals_layout: &wgpu::BindGroupLayout,
        target: ColorTarget,
        shaders: &ShaderLibrary,
    ) -> Self {
        let shader = shaders.module(device, Shader::Particles);
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("particle pass: pipeline layout"),
            bind_group_layouts: &[Some(globals_layout)],
            immediate_size: 0,
        });
        let additive = wgpu::BlendState {
            color: wgpu::BlendComponent {
                src_factor: wgpu::BlendFactor::One,
                dst_factor: wgpu::BlendFactor::One,
                operation: wgpu::BlendOperation::Add,
            },
            alpha: wgpu::BlendComponent {
                src_factor: wgpu::BlendFactor::Zero,
                dst_factor: wgpu::BlendFactor::One,
                operation: wgpu::BlendOperation::Add,
            },
        };
        let alpha = wgpu::BlendState {
            color: wgpu::BlendComponent {
                src_factor: wgpu::BlendFactor::SrcAlpha,
                dst_factor: wgpu::BlendFactor::OneMinusSrcAlpha,
                operation: wgpu::BlendOperation::Add,
            },
            alpha: wgpu::BlendComponent::OVER,
        };
        let pipeline = |label: &str, entry: &str, blend: wgpu::BlendState| {
            create_pipeline(
                device,
                &PipelineParts {
                    label,
                    layout: &layout,
                    shader: &shader,
                    fragment_entry: entry,
                    blend,
                    target,
                },
            )
        };
        Self {
            additive_pipeline: pipeline(
                "particle pass: additive pipeline",
                "fs_additive",
                additive,
            ),
            alpha_pipeline: pipeline("particle pass: alpha pipeline", "fs_alpha", alpha),
            instances: GrowableBuffer::new(
                device,
                "particle pass: instances",
                wgpu::BufferUsages::VERTEX,
                1024 * size_of::<ParticleInstance>() as u64,
            ),
            staging: Vec::new(),
            additive_count: 0,
            alpha_count: 0,
            clamped: false,
        }
    }

    /// Packs both blend groups into the instance buffer, sorting the alpha
    /// particles back to front (additive ones commute, so they stay as given).
    /// Returns the number of particles to draw.
    pub(crate) fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        frame: &FrameData<'_>,
    ) -> usize {
        // What one buffer on this device holds: the rest is not drawn (additive
        // particles first, then the nearest alpha ones), said once.
        let room = (self.instances.max_bytes() / size_of::<ParticleInstance>() as u64) as usize;
        let additive = &frame.additive[..frame.additive.len().min(room)];
        let alpha_room = room - additive.len();
        if frame.additive.len() + frame.alpha.len() > room && !self.clamped {
            self.clamped = true;
            log::warn!(
                "{} particles are more than one GPU buffer holds on this device ({room}); the rest are not drawn",
                frame.additive.len() + frame.alpha.len()
            );
        }
        self.staging.clear();
        self.staging.extend_from_slice(additive);
        self.staging.extend_from_slice(frame.alpha);
        let eye = frame.camera.position;
        let forward = frame.camera.forward();
        let depth = |p: &ParticleInstance| (Vec3::from(p.position) - eye).dot(forward);
        let alpha = &mut self.staging[additive.len()..];
        alpha.sort_unstable_by(|a, b| depth(b).total_cmp(&depth(a)));
        if alpha.len() > alpha_room {
            // Back to front: the farthest come first, and are the ones left out.
            let skipped = alpha.len() - alpha_room;
            self.staging.drain(additive.len()..additive.len() + skipped);
        }
        self.additive_count = to_u32(additive.len());
        self.alpha_count = to_u32(self.staging.len() - additive.len());
        self.instances
            .write(device, queue, bytemuck::cast_slice(&self.staging));
        self.staging.len()
    }

    /// Draw calls `record` will issue: one per non-empty blend group.
    pub(crate) fn draw_calls(&self) -> usize {
        usize::from(self.additive_count > 0) + usize::from(self.alpha_count > 0)
    }

    /// Draws the additive group, then the alpha group: one call each, skipped when empty.
    pub(crate) fn record(&self, pass: &mut wgpu::RenderPass<'_>) {
        if self.staging.is_empty() {
            return;
        }
        pass.set_vertex_buffer(0, self.instances.buffer().slice(..));
        if self.additive_count > 0 {
            pass.set_pipeline(&self.additive_pipeline);
            pass.draw(0..QUAD_VERTICES, 0..self.additive_count);
        }
        if self.alpha_count > 0 {
            let start = self.additive_count;
            pass.set_pipeline(&self.alpha_pipeline);
            pass.draw(0..QUAD_VERTICES, start..start + self.alpha_count);
        }
    }
}

fn to_u32(value: usize) -> u32 {
    u32::try_from(value).expect("more than 2^32 particles in one frame")
}

/// What differs between the two particle pipelines, plus what they share.
struct PipelineParts<'a> {
    label: &'a str,
    layout: &'a wgpu::PipelineLayout,
    shader: &'a wgpu::ShaderModule,
    fragment_entry: &'a str,
    blend: wgpu::BlendState,
    target: ColorTarget,
}

fn create_pipeline(device: &wgpu::Device, parts: &PipelineParts<'_>) -> wgpu::RenderPipeline {
    let attributes = wgpu::vertex_attr_array![0 => Float32x4, 1 => Float32x4];
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(parts.label),
        layout: Some(parts.layout),
        vertex: wgpu::VertexState {
            module: parts.shader,
            entry_point: Some("vs_main"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: size_of::<ParticleInstance>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &attributes,
            })],
        },
        // Billboards always face the camera, so culling would only ever drop
        // quads whose corner order a mirrored camera flips.
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull_mode: None,
            ..wgpu::PrimitiveState::default()
        },
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(false),
            depth_compare: Some(wgpu::CompareFunction::Less),
            stencil: wgpu::StencilState::default(),
            bias: wgpu::DepthBiasState::default(),
        }),
        multisample: parts.target.multisample(),
        fragment: Some(wgpu::FragmentState {
            module: parts.shader,
            entry_point: Some(parts.fragment_entry),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            targets: &[Some(parts.target.state(Some(parts.blend)))],
        }),
        multiview_mask: None,
        cache: None,
    })
}
