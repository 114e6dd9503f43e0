//! The GPU objects the editor window shares: the engine's [`GpuContext`]
//! (device and queue, used by the scene view's renderer) and the surface
//! format egui draws in.

use keel_engine::GpuContext;
use keel_engine::render::RenderError;

/// Why no GPU can draw to the editor window.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No GPU adapter can draw to the window, or it refused a device.
    #[error(transparent)]
    Device(#[from] RenderError),
    /// The surface supports no format.
    #[error("the window surface supports no texture format")]
    NoSurfaceFormat,
}

/// The GPU objects shared by everything that draws in the editor window.
#[derive(Debug)]
pub struct Gpu {
    /// Instance, adapter, device and queue, shared with the engine's renderer.
    pub ctx: GpuContext,
    /// Format of the window surface and of egui's output. Not sRGB: egui
    /// writes gamma-encoded colour, so a paint callback drawing into egui's
    /// pass must encode too (or draw to its own texture and show it as an image).
    pub surface_format: wgpu::TextureFormat,
}

impl Gpu {
    /// Opens a device that can draw to `surface` (the engine's [`GpuContext::for_surface`]).
    ///
    /// # Errors
    /// [`GpuError::Device`], [`GpuError::NoSurfaceFormat`].
    pub fn new(instance: wgpu::Instance, surface: &wgpu::Surface<'_>) -> Result<Self, GpuError> {
        let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all());
        let ctx = GpuContext::for_surface(instance, backends, surface)?;
        let caps = surface.get_capabilities(&ctx.adapter);
        let surface_format = egui_wgpu::preferred_framebuffer_format(&caps.formats)
            .map_err(|_| GpuError::NoSurfaceFormat)?;
        log::info!("GPU: {}", ctx.adapter_summary());
        Ok(Self {
            ctx,
            surface_format,
        })
    }
}
