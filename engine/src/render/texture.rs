//! Material textures on the GPU: each registry texture uploaded once, with
//! its whole mip chain (sRGB or linear as its data says), the first time
//! something draws with it; one bind group per look (base colour texture and
//! material maps) holding all five textures, with 1x1 stand-ins (white, flat
//! normal) for those a material lacks.
//!
//! Pattern: flyweight (the GPU side of the asset registry): one texture per
//! image and one bind group per look, however many instances use them.

use std::collections::HashMap;

use super::uploaded::Uploaded;
use crate::assets::{
    MapsHandle, MaterialMaps, Registry, SLOTS, Sampling, TextureData, TextureFilter, TextureHandle,
    Wrap,
};

/// Sampling quality: trilinear with up to this much anisotropy.
const ANISOTROPY: u16 = 8;

/// What a mesh is drawn with: its base colour texture and its material maps.
pub(crate) type Look = (Option<TextureHandle>, Option<MapsHandle>);

/// The mesh shader's variant for a look: 0 samples nothing, 1 the base
/// colour, 2 every map (the pipeline arrays are indexed by it).
pub(crate) fn shading((texture, maps): Look) -> usize {
    if maps.is_some() {
        2
    } else {
        usize::from(texture.is_some())
    }
}

/// Where the sampler of each texture slot is bound (the base colour's is 1).
const SAMPLER_BINDINGS: [u32; SLOTS] = [1, 7, 8, 9, 10];

/// The material uniform: normal scale and occlusion strength, then two rows
/// of each slot's coordinate transform (the first row's w: its coordinate set).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct MaterialUniform {
    values: [f32; 4],
    uv: [[f32; 4]; 2 * SLOTS],
}

impl MaterialUniform {
    fn new(maps: &MaterialMaps) -> Self {
        let mut uv = [[0.0; 4]; 2 * SLOTS];
        for (slot, rows) in maps.slots.iter().zip(uv.chunks_exact_mut(2)) {
            let [a, b] = slot.transform.rows();
            rows[0] = [a[0], a[1], a[2], f32::from(slot.tex_coord)];
            rows[1] = [b[0], b[1], b[2], 0.0];
        }
        Self {
            values: [maps.normal_scale, maps.occlusion_strength, 0.0, 0.0],
            uv,
        }
    }
}

/// The bind group layout, samplers and uploaded textures of the mesh pass.
#[derive(Debug)]
pub(crate) struct TextureSet {
    layout: wgpu::BindGroupLayout,
    /// One per sampling any material asked for (glTF samplers are few).
    samplers: HashMap<Sampling, wgpu::Sampler>,
    white: wgpu::TextureView,
    flat_normal: wgpu::TextureView,
    /// Bound where the look is plain.
    plain: wgpu::BindGroup,
    /// By texture handle, uploaded when first drawn.
    views: Uploaded<wgpu::TextureView>,
    groups: HashMap<Look, wgpu::BindGroup>,
}

/// A filterable 2D float texture the fragment stage samples at `binding`.
pub(super) fn fragment_texture(binding: u32) -> wgpu::BindGroupLayoutEntry {
    fragment_view(binding, wgpu::TextureViewDimension::D2)
}

/// A filterable float cube map the fragment stage samples at `binding`.
pub(super) fn fragment_cube(binding: u32) -> wgpu::BindGroupLayoutEntry {
    fragment_view(binding, wgpu::TextureViewDimension::Cube)
}

fn fragment_view(
    binding: u32,
    view_dimension: wgpu::TextureViewDimension,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: true },
            view_dimension,
            multisampled: false,
        },
        count: None,
    }
}

/// A filtering sampler the fragment stage uses at `binding`.
pub(super) fn fragment_sampler(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
        count: None,
    }
}

impl TextureSet {
    /// Drops the GPU copies of textures the registry released, and every
    /// bind group (they are made again, from what is left, when drawn).
    pub(crate) fn forget_released(&mut self, registry: &crate::assets::Registry) {
        self.views.retain(|i| registry.has_texture(i));
        self.groups.clear();
    }

    /// How many textures are on the GPU.
    pub(crate) fn uploaded(&self) -> usize {
        self.views.len()
    }

    pub(crate) fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Self {
        let mut entries: Vec<wgpu::BindGroupLayoutEntry> =
            [0, 2, 3, 4, 5].into_iter().map(fragment_texture).collect();
        entries.extend(SAMPLER_BINDINGS.map(fragment_sampler));
        entries.push(wgpu::BindGroupLayoutEntry {
            binding: 6,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: wgpu::BufferSize::new(size_of::<MaterialUniform>() as u64),
            },
            count: None,
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("mesh pass: material layout"),
            entries: &entries,
        });
        let mut samplers = HashMap::new();
        samplers.insert(Sampling::default(), sampler(device, Sampling::default()));
        let pixel = |name: &str, rgba: [u8; 4], srgb: bool| {
            let data = TextureData {
                name: name.into(),
                width: 1,
                height: 1,
                mips: vec![rgba.to_vec()],
                srgb,
            };
            upload(device, queue, &data).create_view(&wgpu::TextureViewDescriptor::default())
        };
        let white = pixel("white", [255; 4], true);
        let flat_normal = pixel("flat normal", [128, 128, 255, 255], false);
        let views = Uploaded::default();
        let parts = Parts {
            layout: &layout,
            samplers: &samplers,
            views: &views,
            white: &white,
            flat_normal: &flat_normal,
        };
        let plain = parts.bind(device, (None, None), &MaterialMaps::default());
        Self {
            plain,
            layout,
            samplers,
            white,
            flat_normal,
            views,
            groups: HashMap::new(),
        }
    }

    /// The layout of group 1 of the mesh pipelines.
    pub(crate) fn layout(&self) -> &wgpu::BindGroupLayout {
        &self.layout
    }

    /// Uploads the textures of `look` not on the GPU yet and makes its bind group.
    pub(crate) fn ensure(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        registry: &Registry,
        look: Look,
    ) {
        if self.groups.contains_key(&look) {
            return;
        }
        let maps = look
            .1
            .and_then(|m| registry.maps(m).copied())
            .unwrap_or_default();
        let textures = [
            look.0,
            maps.metal_rough,
            maps.normal,
            maps.occlusion,
            maps.emissive,
        ];
        for handle in textures.into_iter().flatten() {
            self.views.ensure(handle.index(), || {
                let data = registry.texture(handle)?;
                Some(
                    upload(device, queue, data)
                        .create_view(&wgpu::TextureViewDescriptor::default()),
                )
            });
        }
        for slot in &maps.slots {
            self.samplers
                .entry(slot.sampling)
                .or_insert_with(|| sampler(device, slot.sampling));
        }
        let parts = Parts {
            layout: &self.layout,
            samplers: &self.samplers,
            views: &self.views,
            white: &self.white,
            flat_normal: &self.flat_normal,
        };
        let group = parts.bind(device, look, &maps);
        self.groups.insert(look, group);
    }

    /// The bind group of `look` (the plain one until [`TextureSet::ensure`] made it).
    pub(crate) fn bind_group(&self, look: Look) -> &wgpu::BindGroup {
        self.groups.get(&look).unwrap_or(&self.plain)
    }
}

/// What a material bind group is made of.
struct Parts<'a> {
    layout: &'a wgpu::BindGroupLayout,
    /// Holds every sampling of the maps bound.
    samplers: &'a HashMap<Sampling, wgpu::Sampler>,
    views: &'a Uploaded<wgpu::TextureView>,
    white: &'a wgpu::TextureView,
    flat_normal: &'a wgpu::TextureView,
}

impl Parts<'_> {
    fn bind(&self, device: &wgpu::Device, look: Look, maps: &MaterialMaps) -> wgpu::BindGroup {
        let view = |handle: Option<TextureHandle>, fallback| {
            handle
                .and_then(|h| self.views.get(h.index()))
                .unwrap_or(fallback)
        };
        let uniform = wgpu::util::DeviceExt::create_buffer_init(
            device,
            &wgpu::util::BufferInitDescriptor {
                label: Some("mesh pass: material uniform"),
                contents: bytemuck::bytes_of(&MaterialUniform::new(maps)),
                usage: wgpu::BufferUsages::UNIFORM,
            },
        );
        let texture = |binding, view| wgpu::BindGroupEntry {
            binding,
            resource: wgpu::BindingResource::TextureView(view),
        };
        let mut entries = vec![
            texture(0, view(look.0, self.white)),
            texture(2, view(maps.metal_rough, self.white)),
            texture(3, view(maps.normal, self.flat_normal)),
            texture(4, view(maps.occlusion, self.white)),
            texture(5, view(maps.emissive, self.white)),
            wgpu::BindGroupEntry {
                binding: 6,
                resource: uniform.as_entire_binding(),
            },
        ];
        let fallback = &self.samplers[&Sampling::default()];
        for (binding, slot) in SAMPLER_BINDINGS.into_iter().zip(&maps.slots) {
            let sampler = self.samplers.get(&slot.sampling).unwrap_or(fallback);
            entries.push(wgpu::BindGroupEntry {
                binding,
                resource: wgpu::BindingResource::Sampler(sampler),
            });
        }
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("mesh pass: material bind group"),
            layout: self.layout,
            entries: &entries,
        })
    }
}

/// The sampler of `sampling`: anisotropic where it filters linearly throughout
/// (wgpu allows anisotropy only then).
fn sampler(device: &wgpu::Device, sampling: Sampling) -> wgpu::Sampler {
    let address = |wrap| match wrap {
        Wrap::Repeat => wgpu::AddressMode::Repeat,
        Wrap::MirroredRepeat => wgpu::AddressMode::MirrorRepeat,
        Wrap::ClampToEdge => wgpu::AddressMode::ClampToEdge,
    };
    let filter = |filter| match filter {
        TextureFilter::Linear => wgpu::FilterMode::Linear,
        TextureFilter::Nearest => wgpu::FilterMode::Nearest,
    };
    let mipmap_filter = match sampling.mipmap {
        Some(TextureFilter::Nearest) => wgpu::MipmapFilterMode::Nearest,
        _ => wgpu::MipmapFilterMode::Linear,
    };
    let trilinear = sampling.mag == TextureFilter::Linear
        && sampling.min == TextureFilter::Linear
        && sampling.mipmap == Some(TextureFilter::Linear);
    device.create_sampler(&wgpu::SamplerDescriptor {
        label: Some("mesh pass: material sampler"),
        address_mode_u: address(sampling.wrap_u),
        address_mode_v: address(sampling.wrap_v),
        address_mode_w: wgpu::AddressMode::Repeat,
        mag_filter: filter(sampling.mag),
        min_filter: filter(sampling.min),
        mipmap_filter,
        // Without mipmapping only the full-size image is read.
        lod_max_clamp: if sampling.mipmap.is_some() { 32.0 } else { 0.0 },
        anisotropy_clamp: if trilinear { ANISOTROPY } else { 1 },
        ..wgpu::SamplerDescriptor::default()
    })
}

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
        format: if data.srgb {
            wgpu::TextureFormat::Rgba8UnormSrgb
        } else {
            wgpu::TextureFormat::Rgba8Unorm
        },
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
