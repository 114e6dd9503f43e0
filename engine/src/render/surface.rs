//! The window surface: its configuration, resizing (including minimised
//! windows) and frame acquisition with recovery from the transient failures
//! swap chains report.
//!
//! Pattern: double buffer. The swap chain is the double (or triple) buffer the
//! game loop presents into: the window shows the last complete image while the
//! next is drawn, and `present` swaps them.

use super::{GpuContext, RenderError};

/// Consecutive `Lost` frames tolerated (each answered by reconfiguring) before
/// the surface is reported lost for good and must be recreated.
const LOST_RETRIES: u32 = 3;

/// How frames are paced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PresentModeChoice {
    /// Wait for vertical blank: no tearing, capped to the display rate; always supported.
    #[default]
    Fifo,
    /// Newest complete frame at vertical blank: low latency without tearing.
    Mailbox,
    /// Present at once: lowest latency, may tear.
    Immediate,
}

impl PresentModeChoice {
    fn wgpu_mode(self) -> wgpu::PresentMode {
        match self {
            PresentModeChoice::Fifo => wgpu::PresentMode::Fifo,
            PresentModeChoice::Mailbox => wgpu::PresentMode::Mailbox,
            PresentModeChoice::Immediate => wgpu::PresentMode::Immediate,
        }
    }
}

/// How a surface's frames encode the colour drawn into them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SurfaceEncoding {
    /// Drawn through an sRGB format: the hardware encodes the linear colour
    /// the renderer writes.
    #[default]
    Srgb,
    /// Drawn through a plain format: the colour is stored as written, for
    /// what writes colour already encoded (egui).
    AsWritten,
}

/// Picks `choice` when the surface supports it, else FIFO (which every surface supports).
fn resolve_present_mode(
    choice: PresentModeChoice,
    supported: &[wgpu::PresentMode],
) -> wgpu::PresentMode {
    let wanted = choice.wgpu_mode();
    if supported.contains(&wanted) {
        wanted
    } else {
        wgpu::PresentMode::Fifo
    }
}

/// The surface's format, and the format frames are drawn through.
///
/// [`SurfaceEncoding::Srgb`]: an sRGB one where the surface offers it;
/// else (a web page's canvas offers only `rgba8unorm`, `bgra8unorm` and
/// `rgba16float`) the first format, drawn through its sRGB view so the
/// encoding is the same as native's. [`SurfaceEncoding::AsWritten`]: the
/// first plain 8-bit format; else the first format through its plain view.
fn pick_format(
    formats: &[wgpu::TextureFormat],
    encoding: SurfaceEncoding,
) -> Option<(wgpu::TextureFormat, wgpu::TextureFormat)> {
    let first = formats.first().copied()?;
    match encoding {
        SurfaceEncoding::Srgb => {
            if let Some(srgb) = formats.iter().copied().find(wgpu::TextureFormat::is_srgb) {
                return Some((srgb, srgb));
            }
            Some((first, first.add_srgb_suffix()))
        }
        SurfaceEncoding::AsWritten => {
            let plain = [
                wgpu::TextureFormat::Rgba8Unorm,
                wgpu::TextureFormat::Bgra8Unorm,
            ];
            if let Some(plain) = formats.iter().copied().find(|f| plain.contains(f)) {
                return Some((plain, plain));
            }
            Some((first, first.remove_srgb_suffix()))
        }
    }
}

/// A configured window surface.
#[derive(Debug)]
pub struct SurfaceState {
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    /// False while the window has a zero-sized side (minimised): nothing may be drawn.
    renderable: bool,
    lost_frames: u32,
    /// Set when the last frame was suboptimal.
    reconfigure: bool,
}

impl SurfaceState {
    /// Configures `surface` for the context's device at `size` (width,
    /// height), its frames encoded as `encoding` says.
    ///
    /// # Errors
    ///
    /// [`RenderError::SurfaceUnsupported`] when the context's adapter cannot
    /// present to this surface.
    pub fn new(
        ctx: &GpuContext,
        surface: wgpu::Surface<'static>,
        size: (u32, u32),
        present_mode: PresentModeChoice,
        encoding: SurfaceEncoding,
    ) -> Result<Self, RenderError> {
        let caps = surface.get_capabilities(&ctx.adapter);
        let unsupported = || RenderError::SurfaceUnsupported {
            adapter: ctx.adapter.get_info().name,
        };
        let (format, view_format) = pick_format(&caps.formats, encoding).ok_or_else(unsupported)?;
        let alpha_mode = caps
            .alpha_modes
            .first()
            .copied()
            .unwrap_or(wgpu::CompositeAlphaMode::Auto);
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            color_space: wgpu::SurfaceColorSpace::Auto,
            width: size.0.max(1),
            height: size.1.max(1),
            present_mode: resolve_present_mode(present_mode, &caps.present_modes),
            desired_maximum_frame_latency: 2,
            alpha_mode,
            view_formats: if view_format == format {
                Vec::new()
            } else {
                vec![view_format]
            },
        };
        let mut state = Self {
            surface,
            config,
            renderable: false,
            lost_frames: 0,
            reconfigure: false,
        };
        state.resize(ctx, size.0, size.1);
        Ok(state)
    }

    /// Follows a window resize. A zero width or height (a minimised window) leaves
    /// the surface unconfigured and not renderable until the next real size.
    pub fn resize(&mut self, ctx: &GpuContext, width: u32, height: u32) {
        self.renderable = width > 0 && height > 0;
        if self.renderable {
            self.config.width = width;
            self.config.height = height;
            self.surface.configure(&ctx.device, &self.config);
            self.reconfigure = false;
        }
    }

    /// Whether a frame can be drawn now.
    #[must_use]
    pub fn is_renderable(&self) -> bool {
        self.renderable
    }

    /// The format frames are rendered in (create the renderer with it): the
    /// surface's, or its sRGB view's where the surface has no sRGB format.
    #[must_use]
    pub fn format(&self) -> wgpu::TextureFormat {
        self.config
            .view_formats
            .first()
            .copied()
            .unwrap_or(self.config.format)
    }

    /// The view of an acquired frame to draw into, in [`SurfaceState::format`].
    #[must_use]
    pub fn view(&self, frame: &wgpu::SurfaceTexture) -> wgpu::TextureView {
        frame.texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(self.format()),
            ..Default::default()
        })
    }

    /// The configured size (width, height).
    #[must_use]
    pub fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    /// The present mode in use, after any fallback to FIFO.
    #[must_use]
    pub fn present_mode(&self) -> wgpu::PresentMode {
        self.config.present_mode
    }

    /// Acquires the next frame to draw into. `Ok(None)` means "skip this frame":
    /// the window is minimised or occluded, the acquire timed out, or the
    /// surface was outdated or lost and has just been reconfigured.
    ///
    /// # Errors
    ///
    /// [`RenderError::SurfaceLost`] when reconfiguring has not recovered the
    /// surface for several frames in a row (recreate it from the window), and
    /// [`RenderError::SurfaceAcquire`] when wgpu reports a validation error.
    pub fn acquire(
        &mut self,
        ctx: &GpuContext,
    ) -> Result<Option<wgpu::SurfaceTexture>, RenderError> {
        if !self.renderable {
            return Ok(None);
        }
        if std::mem::take(&mut self.reconfigure) {
            self.surface.configure(&ctx.device, &self.config);
        }
        match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(frame) => {
                self.lost_frames = 0;
                Ok(Some(frame))
            }
            wgpu::CurrentSurfaceTexture::Suboptimal(frame) => {
                // Still presentable: show it, and reconfigure before the next
                // acquire (configuring while a frame is alive would panic).
                self.lost_frames = 0;
                self.reconfigure = true;
                Ok(Some(frame))
            }
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                Ok(None)
            }
            wgpu::CurrentSurfaceTexture::Outdated => {
                self.surface.configure(&ctx.device, &self.config);
                Ok(None)
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                self.lost_frames += 1;
                if self.lost_frames > LOST_RETRIES {
                    return Err(RenderError::SurfaceLost {
                        attempts: self.lost_frames,
                    });
                }
                self.surface.configure(&ctx.device, &self.config);
                Ok(None)
            }
            wgpu::CurrentSurfaceTexture::Validation => Err(RenderError::SurfaceAcquire {
                status: "validation error while acquiring the frame (see the wgpu log)".to_owned(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsupported_present_modes_fall_back_to_fifo() {
        let only_fifo = [wgpu::PresentMode::Fifo];
        assert_eq!(
            resolve_present_mode(PresentModeChoice::Mailbox, &only_fifo),
            wgpu::PresentMode::Fifo
        );
        assert_eq!(
            resolve_present_mode(PresentModeChoice::Immediate, &only_fifo),
            wgpu::PresentMode::Fifo
        );
        let all = [
            wgpu::PresentMode::Fifo,
            wgpu::PresentMode::Mailbox,
            wgpu::PresentMode::Immediate,
        ];
        assert_eq!(
            resolve_present_mode(PresentModeChoice::Mailbox, &all),
            wgpu::PresentMode::Mailbox
        );
        assert_eq!(
            resolve_present_mode(PresentModeChoice::default(), &all),
            wgpu::PresentMode::Fifo
        );
    }

    #[test]
    fn srgb_formats_are_preferred() {
        let formats = [
            wgpu::TextureFormat::Bgra8Unorm,
            wgpu::TextureFormat::Bgra8UnormSrgb,
        ];
        let srgb = wgpu::TextureFormat::Bgra8UnormSrgb;
        assert_eq!(
            pick_format(&formats, SurfaceEncoding::Srgb),
            Some((srgb, srgb))
        );
        // A web canvas: no sRGB format; drawn through the sRGB view.
        assert_eq!(
            pick_format(&[wgpu::TextureFormat::Rgba8Unorm], SurfaceEncoding::Srgb),
            Some((
                wgpu::TextureFormat::Rgba8Unorm,
                wgpu::TextureFormat::Rgba8UnormSrgb
            ))
        );
        assert_eq!(
            pick_format(&[wgpu::TextureFormat::Rgba16Float], SurfaceEncoding::Srgb),
            Some((
                wgpu::TextureFormat::Rgba16Float,
                wgpu::TextureFormat::Rgba16Float
            ))
        );
        assert_eq!(pick_format(&[], SurfaceEncoding::Srgb), None);
    }

    #[test]
    fn encoded_colour_is_stored_as_written() {
        let plain = wgpu::TextureFormat::Bgra8Unorm;
        let formats = [wgpu::TextureFormat::Bgra8UnormSrgb, plain];
        assert_eq!(
            pick_format(&formats, SurfaceEncoding::AsWritten),
            Some((plain, plain))
        );
        // Only an sRGB format: drawn through its plain view.
        assert_eq!(
            pick_format(&formats[..1], SurfaceEncoding::AsWritten),
            Some((wgpu::TextureFormat::Bgra8UnormSrgb, plain))
        );
        assert_eq!(pick_format(&[], SurfaceEncoding::AsWritten), None);
    }
}
