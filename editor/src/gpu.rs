//! The GPU objects the editor window shares: the engine's [`GpuContext`]
//! (device and queue, used by the scene view's renderer) and the surface
//! format egui draws in (the runner opens both).

use keel_engine::GpuContext;

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
