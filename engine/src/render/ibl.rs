//! Image-based lighting: the sky baked once on the GPU into the two cube
//! maps the mesh shader reads for ambient light, a prefiltered specular map
//! (one mip per roughness step, GGX) and a diffuse irradiance map
//! (`shaders/ibl.wgsl`). The default sky is the scene's sky/ground
//! hemisphere at unit strength (the shader scales it by the ambient colour,
//! so editing the ambient needs no new bake); an equirectangular HDR image
//! can stand in for it.
//!
//! Pattern: dirty flag: the maps are baked when the sky changes, never per frame.

use half::f16;
use wgpu::util::DeviceExt;

use super::post::{fullscreen_instance, fullscreen_pipeline};
use super::texture::{fragment_cube, fragment_sampler, fragment_texture};
use crate::assets::{Shader, ShaderLibrary, SkyImage};

/// Face size of the cube the sky is drawn into (its mips feed the convolutions).
const ENVIRONMENT_SIZE: u32 = 128;
/// Face size of the specular map's first mip (a mirror's reflection).
const SPECULAR_SIZE: u32 = 128;
/// Mips of the specular map: roughness 0, 0.2, .., 1.
const SPECULAR_LEVELS: u32 = 6;
/// Face size of the irradiance map (irradiance varies slowly).
const IRRADIANCE_SIZE: u32 = 32;
const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;
/// Share of the sky that still reaches a surface facing straight down.
const GROUND_AMBIENT: f32 = 0.35;

/// The baked maps, bound with the globals (group 0, bindings 3 to 5).
#[derive(Debug)]
pub(crate) struct EnvironmentMaps {
    /// The sky image itself (the background draws it).
    sky: wgpu::TextureView,
    specular: wgpu::TextureView,
    irradiance: wgpu::TextureView,
    sampler: wgpu::Sampler,
}

impl EnvironmentMaps {
    /// The sky image as uploaded (equirectangular).
    pub(crate) fn sky(&self) -> &wgpu::TextureView {
        &self.sky
    }

    /// The prefiltered specular map (a cube view of every mip).
    pub(crate) fn specular(&self) -> &wgpu::TextureView {
        &self.specular
    }

    /// The irradiance map (a cube view).
    pub(crate) fn irradiance(&self) -> &wgpu::TextureView {
        &self.irradiance
    }

    /// Linear and trilinear between mips; repeating across the sky image's
    /// longitude, clamped across its latitude.
    pub(crate) fn sampler(&self) -> &wgpu::Sampler {
        &self.sampler
    }

    /// The sky/ground hemisphere at unit strength, baked.
    pub(crate) fn hemisphere(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        shaders: &ShaderLibrary,
    ) -> Self {
        Self::bake(
            device,
            queue,
            &SkyImage::hemisphere(GROUND_AMBIENT),
            shaders,
        )
    }

    /// Draws `sky` into a cube, convolves it and submits the work.
    pub(crate) fn bake(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        sky: &SkyImage,
        shaders: &ShaderLibrary,
    ) -> Self {
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("ibl: linear sampler"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            // Across longitude the sky wraps; across latitude it clamps.
            address_mode_u: wgpu::AddressMode::Repeat,
            ..wgpu::SamplerDescriptor::default()
        });
        let sky_view = upload_sky(device, queue, sky);
        let environment_mips = ENVIRONMENT_SIZE.ilog2() + 1;
        let environment = cube(
            device,
            "ibl: environment",
            ENVIRONMENT_SIZE,
            environment_mips,
        );
        let specular = cube(device, "ibl: specular", SPECULAR_SIZE, SPECULAR_LEVELS);
        let irradiance = cube(device, "ibl: irradiance", IRRADIANCE_SIZE, 1);
        let params = [
            ENVIRONMENT_SIZE as f32,
            environment_mips as f32,
            SPECULAR_LEVELS as f32,
            0.0,
        ];
        let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("ibl: bake parameters"),
            contents: bytemuck::cast_slice(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let baker = Baker::new(device, shaders);
        let group = |cube_view: &wgpu::TextureView| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("ibl: bake bind group"),
                layout: &baker.layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(&sky_view),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(cube_view),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: wgpu::BindingResource::Sampler(&sampler),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: uniform.as_entire_binding(),
                    },
                ],
            })
        };
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("ibl: bake"),
        });
        // The sky into mip 0 (the cube bound is one not written here). Each
        // draw's instance is its face, plus 6 times the mip for the specular map.
        let unused = cube_view(&irradiance, 0, 1);
        let sky_group = group(&unused);
        for face in 0..6 {
            let target = face_view(&environment, face, 0);
            fullscreen_instance(&mut encoder, &target, &baker.sky, &sky_group, true, face);
        }
        for mip in 1..environment_mips {
            let finer = group(&cube_view(&environment, mip - 1, 1));
            for face in 0..6 {
                let target = face_view(&environment, face, mip);
                fullscreen_instance(&mut encoder, &target, &baker.downsample, &finer, true, face);
            }
        }
        let whole = group(&cube_view(&environment, 0, environment_mips));
        for level in 0..SPECULAR_LEVELS {
            for face in 0..6 {
                let target = face_view(&specular, face, level);
                fullscreen_instance(
                    &mut encoder,
                    &target,
                    &baker.specular,
                    &whole,
                    true,
                    face + 6 * level,
                );
            }
        }
        for face in 0..6 {
            let target = face_view(&irradiance, face, 0);
            fullscreen_instance(&mut encoder, &target, &baker.irradiance, &whole, true, face);
        }
        queue.submit([encoder.finish()]);
        Self {
            sky: sky_view,
            specular: cube_view(&specular, 0, SPECULAR_LEVELS),
            irradiance: cube_view(&irradiance, 0, 1),
            sampler,
        }
    }
}

/// The bake's pipelines and their layout.
struct Baker {
    layout: wgpu::BindGroupLayout,
    sky: wgpu::RenderPipeline,
    downsample: wgpu::RenderPipeline,
    specular: wgpu::RenderPipeline,
    irradiance: wgpu::RenderPipeline,
}

impl Baker {
    fn new(device: &wgpu::Device, shaders: &ShaderLibrary) -> Self {
        let shader = shaders.module(device, Shader::Ibl);
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("ibl: bake layout"),
            entries: &[
                fragment_texture(0),
                fragment_cube(1),
                fragment_sampler(2),
                wgpu::BindGroupLayoutEntry {
                    binding: 3,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: wgpu::BufferSize::new(16),
                    },
                    count: None,
                },
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("ibl: pipeline layout"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = |entry: &str| {
            fullscreen_pipeline(
                device,
                &pipeline_layout,
                &shader,
                "vs_face",
                entry,
                FORMAT.into(),
            )
        };
        Self {
            sky: pipeline("fs_sky"),
            downsample: pipeline("fs_downsample"),
            specular: pipeline("fs_specular"),
            irradiance: pipeline("fs_irradiance"),
            layout,
        }
    }
}

fn cube(device: &wgpu::Device, label: &str, size: u32, mips: u32) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: size,
            height: size,
            depth_or_array_layers: 6,
        },
        mip_level_count: mips,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    })
}

/// A cube view of `count` mips from `first`.
fn cube_view(texture: &wgpu::Texture, first: u32, count: u32) -> wgpu::TextureView {
    texture.create_view(&wgpu::TextureViewDescriptor {
        label: Some("ibl: cube view"),
        dimension: Some(wgpu::TextureViewDimension::Cube),
        base_mip_level: first,
        mip_level_count: Some(count),
        ..wgpu::TextureViewDescriptor::default()
    })
}

/// Face `face` of mip `mip`, as a render target.
fn face_view(texture: &wgpu::Texture, face: u32, mip: u32) -> wgpu::TextureView {
    texture.create_view(&wgpu::TextureViewDescriptor {
        label: Some("ibl: face view"),
        dimension: Some(wgpu::TextureViewDimension::D2),
        base_mip_level: mip,
        mip_level_count: Some(1),
        base_array_layer: face,
        array_layer_count: Some(1),
        ..wgpu::TextureViewDescriptor::default()
    })
}

fn upload_sky(device: &wgpu::Device, queue: &wgpu::Queue, sky: &SkyImage) -> wgpu::TextureView {
    let fallback;
    let sky =
        if sky.pixels.len() == sky.width as usize * sky.height as usize && !sky.pixels.is_empty() {
            sky
        } else {
            log::warn!(
                "sky image of {}x{} with {} texels: the hemisphere drawn instead",
                sky.width,
                sky.height,
                sky.pixels.len()
            );
            fallback = SkyImage::hemisphere(GROUND_AMBIENT);
            &fallback
        };
    let half = |v: f32| f16::from_f32(v).to_bits();
    let texels: Vec<[u16; 4]> = sky
        .pixels
        .iter()
        .map(|&[r, g, b]| [half(r), half(g), half(b), f16::ONE.to_bits()])
        .collect();
    let texture = device.create_texture_with_data(
        queue,
        &wgpu::TextureDescriptor {
            label: Some("ibl: sky image"),
            size: wgpu::Extent3d {
                width: sky.width,
                height: sky.height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: FORMAT,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        bytemuck::cast_slice(&texels),
    );
    texture.create_view(&wgpu::TextureViewDescriptor::default())
}
