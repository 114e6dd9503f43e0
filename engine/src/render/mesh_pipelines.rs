//! The mesh shader's pipelines for one vertex entry point (plain instances or
//! deformed ones), made the first time a frame needs each: by shading
//! (nothing sampled, the base colour texture, every material map), by
//! sidedness (back faces culled or drawn) and by alpha (opaque; blended over
//! what is behind, not writing depth; masked, discarding below the cutoff:
//! only those pipelines discard, so the others keep the early depth test).

use super::targets::{ColorTarget, DEPTH_FORMAT};
use super::texture::{Look, shading};
use crate::assets::MeshVertex;

/// Pipelines per entry point: 3 shadings x 2 sidednesses x 3 alpha modes.
const VARIANTS: usize = 18;

/// [`MeshVertex`]'s attributes as the mesh shader's `Attributes` reads them.
pub(super) const VERTEX_ATTRIBUTES: [wgpu::VertexAttribute; 6] = wgpu::vertex_attr_array![
    0 => Float32x3, 1 => Float32x3, 2 => Float32x2, 6 => Float32x4, 7 => Float32x2, 8 => Unorm16x4
];

/// How a group uses alpha.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Alpha {
    Opaque = 0,
    Blend = 1,
    Mask = 2,
}

impl Alpha {
    pub(super) fn of(blend: bool, masked: bool) -> Self {
        match (blend, masked) {
            (true, _) => Alpha::Blend,
            (false, true) => Alpha::Mask,
            (false, false) => Alpha::Opaque,
        }
    }
}

/// The variant a group is drawn with.
pub(super) fn variant(look: Look, double_sided: bool, alpha: Alpha) -> usize {
    shading(look) + 3 * usize::from(double_sided) + 6 * alpha as usize
}

/// The second vertex stream of an entry point (the first is [`MeshVertex`]).
#[derive(Debug)]
pub(super) struct SecondStream {
    pub(super) stride: u64,
    pub(super) step_mode: wgpu::VertexStepMode,
    pub(super) attributes: Vec<wgpu::VertexAttribute>,
}

/// The pipelines of one entry point, made on demand.
#[derive(Debug)]
pub(super) struct PipelineSet {
    layout: wgpu::PipelineLayout,
    shader: wgpu::ShaderModule,
    entry: &'static str,
    second: SecondStream,
    target: ColorTarget,
    pipelines: [Option<wgpu::RenderPipeline>; VARIANTS],
}

impl PipelineSet {
    pub(super) fn new(
        device: &wgpu::Device,
        layouts: &[&wgpu::BindGroupLayout],
        target: ColorTarget,
        entry: &'static str,
        second: SecondStream,
        shader: &wgpu::ShaderModule,
    ) -> Self {
        let shader = shader.clone();
        let bind_group_layouts: Vec<Option<&wgpu::BindGroupLayout>> =
            layouts.iter().copied().map(Some).collect();
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("mesh pass: pipeline layout"),
            bind_group_layouts: &bind_group_layouts,
            immediate_size: 0,
        });
        Self {
            layout,
            shader,
            entry,
            second,
            target,
            pipelines: std::array::from_fn(|_| None),
        }
    }

    /// Makes variant `index` if no frame needed it before.
    pub(super) fn ensure(&mut self, device: &wgpu::Device, index: usize) {
        if self.pipelines[index].is_none() {
            self.pipelines[index] = Some(self.create(device, index));
        }
    }

    /// Variant `index`, once [`PipelineSet::ensure`] made it.
    pub(super) fn get(&self, index: usize) -> Option<&wgpu::RenderPipeline> {
        self.pipelines.get(index)?.as_ref()
    }

    fn create(&self, device: &wgpu::Device, index: usize) -> wgpu::RenderPipeline {
        let (shading, double_sided) = (index % 3, index / 3 % 2 == 1);
        let (blend, masked) = (
            index / 6 == Alpha::Blend as usize,
            index / 6 == Alpha::Mask as usize,
        );
        let buffers = [
            Some(wgpu::VertexBufferLayout {
                array_stride: size_of::<MeshVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &VERTEX_ATTRIBUTES,
            }),
            Some(wgpu::VertexBufferLayout {
                array_stride: self.second.stride,
                step_mode: self.second.step_mode,
                attributes: &self.second.attributes,
            }),
        ];
        let label = format!(
            "mesh pass: {}, {}{}{}",
            self.entry,
            ["untextured", "textured", "mapped"][shading],
            if double_sided { ", double-sided" } else { "" },
            ["", ", blended", ", masked"][index / 6],
        );
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(&label),
            layout: Some(&self.layout),
            vertex: wgpu::VertexState {
                module: &self.shader,
                entry_point: Some(self.entry),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                buffers: &buffers,
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::TriangleList,
                front_face: wgpu::FrontFace::Ccw,
                cull_mode: (!double_sided).then_some(wgpu::Face::Back),
                ..wgpu::PrimitiveState::default()
            },
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                // Blended surfaces hide nothing behind them.
                depth_write_enabled: Some(!blend),
                depth_compare: Some(wgpu::CompareFunction::Less),
                stencil: wgpu::StencilState::default(),
                bias: wgpu::DepthBiasState::default(),
            }),
            multisample: self.target.multisample(),
            fragment: Some(wgpu::FragmentState {
                module: &self.shader,
                entry_point: Some("fs_main"),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &[
                        ("TEXTURED", f64::from(u8::from(shading >= 1))),
                        ("MAPPED", f64::from(u8::from(shading >= 2))),
                        ("MASKED", f64::from(u8::from(masked))),
                    ],
                    ..wgpu::PipelineCompilationOptions::default()
                },
                targets: &[Some(
                    self.target
                        .state(blend.then_some(wgpu::BlendState::ALPHA_BLENDING)),
                )],
            }),
            multiview_mask: None,
            cache: None,
        })
    }
}
