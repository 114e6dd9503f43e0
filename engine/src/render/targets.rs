//! Size-dependent render targets: the depth buffer and, when the adapter can
//! multisample the colour format, the MSAA colour buffer resolved into the
//! caller's view.
//!
//! Pattern: dirty flag, keyed on the output size: the targets are derived data
//! rebuilt only when the size they were made for differs from the frame's.

/// Depth format of every pass.
pub(crate) const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Samples per pixel when the adapter allows multisampling.
const PREFERRED_SAMPLES: u32 = 4;

/// Picks 4x MSAA when both the colour format (rendered and resolved) and the
/// depth format support it on this adapter, else 1.
pub(crate) fn choose_sample_count(
    adapter: &wgpu::Adapter,
    color_format: wgpu::TextureFormat,
) -> u32 {
    let color = adapter.get_texture_format_features(color_format);
    let depth = adapter.get_texture_format_features(DEPTH_FORMAT);
    let color_ok = color.flags.sample_count_supported(PREFERRED_SAMPLES)
        && color
            .flags
            .contains(wgpu::TextureFormatFeatureFlags::MULTISAMPLE_RESOLVE);
    if color_ok && depth.flags.sample_count_supported(PREFERRED_SAMPLES) {
        PREFERRED_SAMPLES
    } else {
        1
    }
}

/// The depth buffer and optional MSAA colour buffer for one output size.
#[derive(Debug)]
pub(crate) struct RenderTargets {
    size: (u32, u32),
    depth: wgpu::TextureView,
    msaa: Option<wgpu::TextureView>,
}

impl RenderTargets {
    /// Creates targets of `size` (each side at least 1).
    pub(crate) fn new(
        device: &wgpu::Device,
        size: (u32, u32),
        color_format: wgpu::TextureFormat,
        sample_count: u32,
    ) -> Self {
        let extent = wgpu::Extent3d {
            width: size.0.max(1),
            height: size.1.max(1),
            depth_or_array_layers: 1,
        };
        let texture = |label: &str, format: wgpu::TextureFormat| {
            device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size: extent,
                    mip_level_count: 1,
                    sample_count,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                    view_formats: &[],
                })
                .create_view(&wgpu::TextureViewDescriptor {
                    label: Some(label),
                    ..wgpu::TextureViewDescriptor::default()
                })
        };
        Self {
            size,
            depth: texture("renderer: depth", DEPTH_FORMAT),
            msaa: (sample_count > 1).then(|| texture("renderer: msaa colour", color_format)),
        }
    }

    /// Rebuilds the targets when `size` differs from theirs.
    pub(crate) fn resize(
        &mut self,
        device: &wgpu::Device,
        size: (u32, u32),
        color_format: wgpu::TextureFormat,
        sample_count: u32,
    ) {
        if size != self.size {
            *self = Self::new(device, size, color_format, sample_count);
        }
    }

    /// The depth view.
    pub(crate) fn depth(&self) -> &wgpu::TextureView {
        &self.depth
    }

    /// The multisampled colour view, when multisampling.
    pub(crate) fn msaa(&self) -> Option<&wgpu::TextureView> {
        self.msaa.as_ref()
    }
}
