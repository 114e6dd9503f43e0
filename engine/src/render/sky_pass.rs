//! The sky pass: an environment's sky image drawn behind the frame
//! (`shaders/sky.wgsl`), first in the main pass, one triangle, no depth.
//! Scenes lit by the plain hemisphere keep their clear colour instead.

use glam::Mat4;

use super::ibl::EnvironmentMaps;
use super::targets::ColorTarget;
use super::texture::{fragment_sampler, fragment_texture};
use crate::assets::{Shader, ShaderLibrary};

/// The pipeline and its bindings.
#[derive(Debug)]
pub(crate) struct SkyPass {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    /// Clip space to world space, per frame.
    view: wgpu::Buffer,
    /// The sky image, its sampler and `view`; made with each new sky.
    group: Option<wgpu::BindGroup>,
}

impl SkyPass {
    pub(crate) fn new(
        device: &wgpu::Device,
        globals_layout: &wgpu::BindGroupLayout,
        target: ColorTarget,
        shaders: &ShaderLibrary,
    ) -> Self {
        let shader = shaders.module(device, Shader::Sky);
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("sky pass: layout"),
            entries: &[
                fragment_texture(0),
                fragment_sampler(1),
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: wgpu::BufferSize::new(size_of::<Mat4>() as u64),
                    },
                    count: None,
                },
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("sky pass: pipeline layout"),
            bind_group_layouts: &[Some(globals_layout), Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("sky pass"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &shader,
                entry_point: Some("vs_sky"),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                buffers: &[],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: Some(wgpu::DepthStencilState {
                format: super::targets::DEPTH_FORMAT,
                depth_write_enabled: Some(false),
                depth_compare: Some(wgpu::CompareFunction::Always),
                stencil: wgpu::StencilState::default(),
                bias: wgpu::DepthBiasState::default(),
            }),
            multisample: target.multisample(),
            fragment: Some(wgpu::FragmentState {
                module: &shader,
                entry_point: Some("fs_sky"),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                targets: &[Some(target.state(None))],
            }),
            multiview_mask: None,
            cache: None,
        });
        let view = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("sky pass: view"),
            size: size_of::<Mat4>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Self {
            pipeline,
            layout,
            view,
            group: None,
        }
    }

    /// Binds the sky of `environment` (drawn from now on), or none (the
    /// clear colour shows).
    pub(crate) fn set_sky(&mut self, device: &wgpu::Device, environment: Option<&EnvironmentMaps>) {
        self.group = environment.map(|environment| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("sky pass: bind group"),
                layout: &self.layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(environment.sky()),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::Sampler(environment.sampler()),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: self.view.as_entire_binding(),
                    },
                ],
            })
        });
    }

    /// This frame's camera (world to clip).
    pub(crate) fn prepare(&self, queue: &wgpu::Queue, view_proj: Mat4) {
        if self.group.is_some() {
            let inverse = view_proj.inverse();
            queue.write_buffer(&self.view, 0, bytemuck::bytes_of(&inverse));
        }
    }

    /// Draws the sky, if one is set, with the globals bound at group 0.
    pub(crate) fn record(&self, pass: &mut wgpu::RenderPass<'_>) {
        if let Some(group) = &self.group {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(1, group, &[]);
            pass.draw(0..3, 0..1);
        }
    }
}
