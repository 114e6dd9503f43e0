//! The post pass: the scene is drawn in HDR (a float target, linear light,
//! unbounded), then bloom, exposure and a tonemapper bring it to the output.
//! The editor's view and the viewer's window both end here, so they show the
//! same pixels.
//!
//! Bloom: the pixels brighter than a threshold (soft knee) are filtered down a
//! chain of half-size mips and added back up, each level blurring wider; the
//! result is added to the frame before tonemapping.
//!
//! Pattern: dirty flag, keyed on the output size: the HDR target, the bloom
//! chain and the bind groups reading them are rebuilt only when it changes.

use super::gpu_timing::GpuTimer;
use super::texture::{fragment_sampler, fragment_texture};
use crate::assets::{Shader, ShaderLibrary};
use crate::scene::{PostSettings, Tonemapper};

/// The HDR target every scene pass draws into: packed 32-bit floats (RGB
/// 11/11/10, no alpha: nothing reads the frame's alpha) where the device can
/// render, blend and multisample them, else 64-bit half floats.
pub(crate) fn hdr_format(device: &wgpu::Device, adapter: &wgpu::Adapter) -> wgpu::TextureFormat {
    let packed = wgpu::TextureFormat::Rg11b10Ufloat;
    let flags = adapter.get_texture_format_features(packed).flags;
    let usable = device
        .features()
        .contains(wgpu::Features::RG11B10UFLOAT_RENDERABLE)
        && flags.contains(
            wgpu::TextureFormatFeatureFlags::BLENDABLE
                | wgpu::TextureFormatFeatureFlags::FILTERABLE
                | wgpu::TextureFormatFeatureFlags::MULTISAMPLE_RESOLVE,
        )
        && flags.sample_count_supported(4);
    if usable {
        packed
    } else {
        wgpu::TextureFormat::Rgba16Float
    }
}
/// Most bloom mips (each half the last): the widest blur reaches 1/64 of the frame.
const BLOOM_LEVELS: u32 = 6;

/// The uniform block of the post shader for `settings`.
fn post_params(settings: &PostSettings) -> [f32; 4] {
    let tonemapper = match settings.tonemapper {
        Tonemapper::None => 0.0,
        Tonemapper::AcesFitted => 1.0,
        Tonemapper::Agx => 2.0,
    };
    let intensity = if settings.bloom {
        settings.bloom_intensity.max(0.0)
    } else {
        0.0
    };
    [
        crate::math::exp2(settings.exposure),
        tonemapper,
        intensity,
        settings.bloom_threshold.max(0.0),
    ]
}

/// What depends on the output size.
#[derive(Debug)]
struct Sized {
    size: (u32, u32),
    hdr: wgpu::TextureView,
    bloom: Vec<wgpu::TextureView>,
    /// Per bloom level going down: reads the level above (the HDR frame for 0).
    down: Vec<wgpu::BindGroup>,
    /// Per bloom level `i` >= 1 going up: reads level `i`, drawn onto `i - 1`.
    up: Vec<wgpu::BindGroup>,
    tonemap: wgpu::BindGroup,
}

/// The HDR target, the bloom chain and the pipelines that finish a frame.
#[derive(Debug)]
pub(crate) struct PostPass {
    layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    uniform: wgpu::Buffer,
    prefilter: wgpu::RenderPipeline,
    downsample: wgpu::RenderPipeline,
    upsample: wgpu::RenderPipeline,
    tonemap: wgpu::RenderPipeline,
    sized: Option<Sized>,
    bloom_on: bool,
    hdr_format: wgpu::TextureFormat,
}

impl PostPass {
    /// The pipelines, reading frames of `hdr_format` and finishing into
    /// views of `output_format`.
    pub(crate) fn new(
        device: &wgpu::Device,
        hdr_format: wgpu::TextureFormat,
        output_format: wgpu::TextureFormat,
        shaders: &ShaderLibrary,
    ) -> Self {
        let texture_entry = fragment_texture;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("post pass: layout"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: wgpu::BufferSize::new(16),
                    },
                    count: None,
                },
                texture_entry(1),
                fragment_sampler(2),
                texture_entry(3),
            ],
        });
        let shader = shaders.module(device, Shader::Post);
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("post pass: pipeline layout"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = |entry: &str, format, blend| {
            let target = wgpu::ColorTargetState {
                format,
                blend,
                write_mask: wgpu::ColorWrites::ALL,
            };
            fullscreen_pipeline(
                device,
                &pipeline_layout,
                &shader,
                "vs_fullscreen",
                entry,
                target,
            )
        };
        let additive = wgpu::BlendState {
            color: wgpu::BlendComponent {
                src_factor: wgpu::BlendFactor::One,
                dst_factor: wgpu::BlendFactor::One,
                operation: wgpu::BlendOperation::Add,
            },
            alpha: wgpu::BlendComponent::REPLACE,
        };
        Self {
            prefilter: pipeline("fs_prefilter", hdr_format, None),
            downsample: pipeline("fs_downsample", hdr_format, None),
            upsample: pipeline("fs_upsample", hdr_format, Some(additive)),
            tonemap: pipeline("fs_tonemap", output_format, None),
            sampler: device.create_sampler(&wgpu::SamplerDescriptor {
                label: Some("post pass: linear clamp"),
                mag_filter: wgpu::FilterMode::Linear,
                min_filter: wgpu::FilterMode::Linear,
                ..wgpu::SamplerDescriptor::default()
            }),
            uniform: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("post pass: settings"),
                size: 16,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            layout,
            sized: None,
            bloom_on: false,
            hdr_format,
        }
    }

    /// Makes the HDR target and bloom chain fit `size` and uploads `settings`.
    pub(crate) fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        size: (u32, u32),
        settings: &PostSettings,
    ) {
        if self.sized.as_ref().is_none_or(|s| s.size != size) {
            self.sized = Some(self.create_sized(device, size));
        }
        let params = post_params(settings);
        self.bloom_on = params[2] > 0.0;
        queue.write_buffer(&self.uniform, 0, bytemuck::cast_slice(&params));
    }

    /// The HDR view the scene passes draw into (or resolve into).
    pub(crate) fn hdr_view(&self) -> Option<&wgpu::TextureView> {
        self.sized.as_ref().map(|s| &s.hdr)
    }

    /// Bloom (when on) and tonemapping into `target`.
    pub(crate) fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        gpu: &GpuTimer,
    ) {
        let Some(sized) = &self.sized else {
            return;
        };
        puffin::profile_scope!("post passes");
        let pass = |encoder: &mut wgpu::CommandEncoder, label, target, pipeline, group, clear| {
            let timed = gpu.begin(label, encoder);
            draw_fullscreen(encoder, target, pipeline, group, clear, 0, timed.writes());
            gpu.end(encoder, timed);
        };
        let levels = sized.bloom.len();
        if self.bloom_on && levels > 0 {
            for (i, view) in sized.bloom.iter().enumerate() {
                let (label, pipeline) = if i == 0 {
                    ("bloom prefilter", &self.prefilter)
                } else {
                    ("bloom down", &self.downsample)
                };
                pass(encoder, label, view, pipeline, &sized.down[i], true);
            }
            for i in (1..levels).rev() {
                pass(
                    encoder,
                    "bloom up",
                    &sized.bloom[i - 1],
                    &self.upsample,
                    &sized.up[i - 1],
                    false,
                );
            }
        }
        pass(
            encoder,
            "tonemap",
            target,
            &self.tonemap,
            &sized.tonemap,
            true,
        );
    }

    fn create_sized(&self, device: &wgpu::Device, size: (u32, u32)) -> Sized {
        let texture = |label, size: (u32, u32), mips, usage| {
            device.create_texture(&wgpu::TextureDescriptor {
                mip_level_count: mips,
                ..super::targets::target_descriptor(label, size, self.hdr_format, usage)
            })
        };
        let hdr = texture(
            "post pass: HDR frame",
            size,
            1,
            wgpu::TextureUsages::TEXTURE_BINDING,
        )
        .create_view(&wgpu::TextureViewDescriptor::default());
        let half = (size.0 / 2, size.1 / 2);
        // Mips down to a few texels; none for a frame too small to blur.
        let levels = BLOOM_LEVELS.min(half.0.min(half.1).max(1).ilog2());
        let bloom: Vec<wgpu::TextureView> = if levels == 0 {
            Vec::new()
        } else {
            let chain = texture(
                "post pass: bloom chain",
                half,
                levels,
                wgpu::TextureUsages::TEXTURE_BINDING,
            );
            (0..levels)
                .map(|mip| {
                    chain.create_view(&wgpu::TextureViewDescriptor {
                        label: Some("post pass: bloom level"),
                        base_mip_level: mip,
                        mip_level_count: Some(1),
                        ..wgpu::TextureViewDescriptor::default()
                    })
                })
                .collect()
        };
        let group = |source: &wgpu::TextureView, glow: &wgpu::TextureView| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("post pass: bind group"),
                layout: &self.layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: self.uniform.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(source),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: wgpu::BindingResource::Sampler(&self.sampler),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: wgpu::BindingResource::TextureView(glow),
                    },
                ],
            })
        };
        // The bloom slot of the chain's own passes is never read: bound to the
        // HDR frame, which none of them draws into.
        let down = (0..bloom.len())
            .map(|i| group(if i == 0 { &hdr } else { &bloom[i - 1] }, &hdr))
            .collect();
        let up = (1..bloom.len()).map(|i| group(&bloom[i], &hdr)).collect();
        let tonemap = group(&hdr, bloom.first().unwrap_or(&hdr));
        Sized {
            size,
            hdr,
            bloom,
            down,
            up,
            tonemap,
        }
    }
}

/// One full-screen triangle into `target` (cleared first when `clear`),
/// drawn as instance `instance` (which the shader may read: the IBL bake
/// passes its cube face and mip that way).
pub(super) fn fullscreen_instance(
    encoder: &mut wgpu::CommandEncoder,
    target: &wgpu::TextureView,
    pipeline: &wgpu::RenderPipeline,
    group: &wgpu::BindGroup,
    clear: bool,
    instance: u32,
) {
    draw_fullscreen(encoder, target, pipeline, group, clear, instance, None);
}

/// As [`fullscreen_instance`], writing the pass's GPU times where asked.
fn draw_fullscreen(
    encoder: &mut wgpu::CommandEncoder,
    target: &wgpu::TextureView,
    pipeline: &wgpu::RenderPipeline,
    group: &wgpu::BindGroup,
    clear: bool,
    instance: u32,
    timestamp_writes: Option<wgpu::RenderPassTimestampWrites<'_>>,
) {
    let load = if clear {
        wgpu::LoadOp::Clear(wgpu::Color::BLACK)
    } else {
        wgpu::LoadOp::Load
    };
    let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("post pass"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view: target,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load,
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: None,
        timestamp_writes,
        occlusion_query_set: None,
        multiview_mask: None,
    });
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, group, &[]);
    pass.draw(0..3, instance..instance + 1);
}

/// A pipeline drawing one triangle over the whole target: no vertex buffers,
/// no depth, `vertex` and `fragment` the entry points of `shader`.
pub(super) fn fullscreen_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    shader: &wgpu::ShaderModule,
    vertex: &str,
    fragment: &str,
    target: wgpu::ColorTargetState,
) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(fragment),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module: shader,
            entry_point: Some(vertex),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            buffers: &[],
        },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: None,
        multisample: wgpu::MultisampleState::default(),
        fragment: Some(wgpu::FragmentState {
            module: shader,
            entry_point: Some(fragment),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            targets: &[Some(target)],
        }),
        multiview_mask: None,
        cache: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_pack_exposure_as_a_power_of_two_and_bloom_off_as_zero() {
        let settings = PostSettings {
            exposure: 1.5,
            tonemapper: Tonemapper::Agx,
            bloom: false,
            bloom_intensity: 0.7,
            ..PostSettings::default()
        };
        let [scale, mode, intensity, threshold] = post_params(&settings);
        assert!((scale - 2.828_427).abs() < 1e-5);
        assert_eq!((mode, intensity, threshold), (2.0, 0.0, 1.0));
        let on = PostSettings {
            bloom: true,
            ..settings
        };
        assert_eq!(post_params(&on)[2], 0.7);
    }
}
