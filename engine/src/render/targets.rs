//! Size-dependent render targets: the depth buffer and, when the adapter can
//! multisample the colour format, the MSAA colour buffer resolved into the
//! caller's view.
//!
//! Pattern: dirty flag, keyed on the output size: the targets are derived data
//! rebuilt only when the size they were made for differs from the frame's.

/// A 2D texture of `size` (each side at least 1) to render into: one mip,
/// one sample, `usage` beside `RENDER_ATTACHMENT`, no other view formats.
/// Change a field with struct update syntax where a target needs more
/// (`wgpu::TextureDescriptor { view_formats: .., ..target_descriptor(..) }`).
#[must_use]
pub fn target_descriptor(
    label: &str,
    (width, height): (u32, u32),
    format: wgpu::TextureFormat,
    usage: wgpu::TextureUsages,
) -> wgpu::TextureDescriptor<'_> {
    wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: width.max(1),
            height: height.max(1),
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | usage,
        view_formats: &[],
    }
}

/// Depth format of every pass.
pub(crate) const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Samples per pixel when the adapter allows multisampling.
const PREFERRED_SAMPLES: u32 = 4;

/// The colour target every scene pass draws into: the HDR format and the
/// samples per pixel, fixed when the renderer is made. Each pass builds its
/// pipelines for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ColorTarget {
    /// The colour format.
    pub(crate) format: wgpu::TextureFormat,
    /// Samples per pixel (1: no multisampling).
    pub(crate) samples: u32,
}

impl ColorTarget {
    /// A pipeline's multisampling for this target.
    pub(crate) fn multisample(self) -> wgpu::MultisampleState {
        wgpu::MultisampleState {
            count: self.samples,
            ..wgpu::MultisampleState::default()
        }
    }

    /// A pipeline's colour output into this target, blended by `blend`.
    pub(crate) fn state(self, blend: Option<wgpu::BlendState>) -> wgpu::ColorTargetState {
        wgpu::ColorTargetState {
            format: self.format,
            blend,
            write_mask: wgpu::ColorWrites::ALL,
        }
    }
}

/// The target of `format`, with 4x MSAA when both the colour format
/// (rendered and resolved) and the depth format support it on this adapter,
/// else 1 sample.
pub(crate) fn choose_target(adapter: &wgpu::Adapter, format: wgpu::TextureFormat) -> ColorTarget {
    let color = adapter.get_texture_format_features(format);
    let depth = adapter.get_texture_format_features(DEPTH_FORMAT);
    let color_ok = color.flags.sample_count_supported(PREFERRED_SAMPLES)
        && color
            .flags
            .contains(wgpu::TextureFormatFeatureFlags::MULTISAMPLE_RESOLVE);
    let samples = if color_ok && depth.flags.sample_count_supported(PREFERRED_SAMPLES) {
        PREFERRED_SAMPLES
    } else {
        1
    };
    ColorTarget { format, samples }
}

/// The depth buffer and optional MSAA colour buffer for one output size.
#[derive(Debug)]
pub(crate) struct RenderTargets {
    size: (u32, u32),
    depth: wgpu::TextureView,
    msaa: Option<wgpu::TextureView>,
}

impl RenderTargets {
    /// Creates targets of `size` (each side at least 1) for `target`.
    pub(crate) fn new(device: &wgpu::Device, size: (u32, u32), target: ColorTarget) -> Self {
        let texture = |label: &str, format: wgpu::TextureFormat| {
            device
                .create_texture(&wgpu::TextureDescriptor {
                    sample_count: target.samples,
                    ..target_descriptor(label, size, format, wgpu::TextureUsages::empty())
                })
                .create_view(&wgpu::TextureViewDescriptor {
                    label: Some(label),
                    ..wgpu::TextureViewDescriptor::default()
                })
        };
        Self {
            size,
            depth: texture("renderer: depth", DEPTH_FORMAT),
            msaa: (target.samples > 1).then(|| texture("renderer: msaa colour", target.format)),
        }
    }

    /// Rebuilds the targets when `size` differs from theirs.
    pub(crate) fn resize(&mut self, device: &wgpu::Device, size: (u32, u32), target: ColorTarget) {
        if size != self.size {
            *self = Self::new(device, size, target);
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
