//! Base-colour textures on the GPU: each registry texture uploaded once, with
//! its whole mip chain, the first time something draws with it; a 1x1 white
//! texture stands in for "no texture" so every mesh uses one pipeline.
//!
//! Pattern: flyweight (the GPU side of the asset registry): one texture and
//! one bind group per image, however many instances sample it.

use super::uploaded::Uploaded;
use crate::assets::{Registry, TextureData, TextureHandle};

/// Sampling quality: trilinear with up to this much anisotropy.
const ANISOTROPY: u16 = 8;

/// The bind group layout, sampler and uploaded textures of the mesh pass.
#[derive(Debug)]
pub(crate) struct TextureSet {
    layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    white: wgpu::BindGroup,
    /// By texture handle, uploaded when first drawn.
    uploaded: Uploaded<wgpu::BindGroup>,
}

impl TextureSet {
    pub(crate) fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("mesh pass: texture layout"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("mesh pass: trilinear sampler"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            address_mode_w: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            anisotropy_clamp: ANISOTROPY,
            ..wgpu::SamplerDescriptor::default()
        });
        let white_data = TextureData {
            name: "white".into(),
            width: 1,
            height: 1,
            mips: vec![vec![255; 4]],
        };
        Self {
            white: bind(
                device,
                &layout,
                &sampler,
                &upload(device, queue, &white_data),
            ),
            layout,
            sampler,
            uploaded: Uploaded::default(),
        }
    }

    /// The bind group layout (group 1 of the mesh pipeline).
    pub(crate) fn layout(&self) -> &wgpu::BindGroupLayout {
        &self.layout
    }

    /// Uploads `handle`'s texture unless it is already on the GPU.
    pub(crate) fn ensure(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        registry: &Registry,
        handle: TextureHandle,
    ) {
        let (layout, sampler) = (&self.layout, &self.sampler);
        self.uploaded.ensure(handle.index(), || {
            let texture = upload(device, queue, registry.texture(handle)?);
            Some(bind(device, layout, sampler, &texture))
        });
    }

    /// The bind group to draw with: the texture's, or white when it has none
    /// (or it is not uploaded).
    pub(crate) fn bind_group(&self, texture: Option<TextureHandle>) -> &wgpu::BindGroup {
        texture
            .and_then(|t| self.uploaded.get(t.index()))
            .unwrap_or(&self.white)
    }
}

/// Creates a texture holding every level of `data`'s mip chain.
/// Images larger than the device allows start at the first mip level that fits
/// (the chain holds every smaller size), instead of failing the upload.
fn upload(device: &wgpu::Device, queue: &wgpu::Queue, data: &TextureData) -> wgpu::Texture {
    let limit = device.limits().max_texture_dimension_2d.max(1);
    let skip = first_fitting_level(data.width, data.height, limit);
    if skip > 0 {
        log::warn!(
            "texture {}: {}x{} is over the device's {limit}; drawn from mip level {skip}",
            data.name,
            data.width,
            data.height
        );
    }
    let mips = data.mips.get(skip as usize..).unwrap_or_default();
    let levels = u32::try_from(mips.len()).unwrap_or(1).max(1);
    let size = wgpu::Extent3d {
        width: (data.width >> skip).max(1),
        height: (data.height >> skip).max(1),
        depth_or_array_layers: 1,
    };
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some(&format!("mesh pass: texture {}", data.name)),
        size,
        mip_level_count: levels,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8UnormSrgb,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    for (level, pixels) in (0..levels).zip(mips) {
        let extent = size.mip_level_size(level, wgpu::TextureDimension::D2);
        let expected = 4 * extent.width as usize * extent.height as usize;
        if pixels.len() != expected {
            // Importers build exact chains; a wrong one is skipped rather than
            // handed to wgpu, which would reject the whole submission.
            log::warn!(
                "texture {}: mip {level} has {} bytes, expected {expected}",
                data.name,
                pixels.len()
            );
            continue;
        }
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &texture,
                mip_level: level,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            pixels,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(4 * extent.width),
                rows_per_image: Some(extent.height),
            },
            extent,
        );
    }
    texture
}

fn bind(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    sampler: &wgpu::Sampler,
    texture: &wgpu::Texture,
) -> wgpu::BindGroup {
    let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("mesh pass: texture bind group"),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&view),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::Sampler(sampler),
            },
        ],
    })
}

/// The first mip level of a `width` x `height` image whose sides are both at most `limit`.
fn first_fitting_level(width: u32, height: u32, limit: u32) -> u32 {
    let mut level = 0;
    while (width >> level).max(1) > limit || (height >> level).max(1) > limit {
        level += 1;
    }
    level
}

#[cfg(test)]
mod tests {
    use super::first_fitting_level;

    #[test]
    fn oversized_images_start_at_the_first_level_that_fits() {
        assert_eq!(first_fitting_level(2048, 1024, 8192), 0);
        assert_eq!(first_fitting_level(16384, 512, 8192), 1);
        assert_eq!(first_fitting_level(40000, 3, 8192), 3);
        assert_eq!(first_fitting_level(1, 1, 1), 0);
    }
}
