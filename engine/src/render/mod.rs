//! The wgpu renderer, decoupled from the scene: it draws a plain [`FrameData`]
//! that the engine extracts from the scene each frame.
//!
//! Layout (one struct per pass, owned by the [`Renderer`], which records
//! them in the order [`PASSES`] gives):
//!
//! - `context`: [`GpuContext`] (instance, adapter, device, queue) and backend parsing;
//!   `gpu_errors`: [`GpuErrors`], what the device reports instead of panicking.
//! - `camera`: [`Camera`] plus the orbit and fly controllers.
//! - `frame`: [`FrameData`] and its parts, and the shared uniform block.
//! - `records`, `packed`: the per-instance records the GPU reads, and the
//!   records extraction packed with the [`BatchKey`] of each
//!   ([`PackedInstances`]).
//! - `batcher`, `mesh_pass`, `texture`, `uploaded`: culled, batched, instanced
//!   meshes (primitives and imported) with base-colour textures and glTF's
//!   metallic-roughness lighting.
//! - `shadow`, `shadow_pass`: the sun's cascaded shadow maps (fitting,
//!   per-cascade caster batches, depth-only drawing).
//! - `particle_pass`: additive and alpha billboards.
//! - `post`: the HDR target every scene pass draws into, bloom, exposure and
//!   the tonemapper that finish the frame into the output.
//! - `line_pass`: debug lines and the ground grid.
//! - `surface`: the window surface and frame acquisition.
//! - `targets`: the depth and MSAA targets, and [`target_descriptor`], the
//!   one description of a texture to render into (the editor's views and
//!   screenshots and the player's offscreen frames start from it too).
//! - `capture`, `culling`, `buffer`: private plumbing (offscreen readback,
//!   frustum test, growable GPU buffers).
//!
//! Pattern: game loop (render half) over double-buffered state: the renderer
//! reads a snapshot and never the live scene.

mod batcher;
mod buffer;
pub(crate) mod camera;
mod capture;
pub(crate) mod context;
mod deform_pass;
mod frame;
mod gpu_errors;
mod gpu_scene;
mod gpu_timing;
mod ibl;
mod line_pass;
mod mesh_pass;
mod mesh_pipelines;
mod packed;
mod particle_pass;
mod post;
mod records;
pub(crate) mod renderer;
pub(crate) mod shadow;
mod shadow_pass;
mod sky_pass;
mod sphere_culling;
mod surface;
mod targets;
mod texture;
mod uploaded;

// Re-exported because they appear in this module's API (`wgpu` types in the
// context and passes, `image::RgbaImage` from captures): users need no
// version-matched dependency of their own.
pub use image;
pub use wgpu;

pub use batcher::{DrawGroup, InstanceBatcher, UnbatchedDraw, prepare_unbatched};
pub(crate) use camera::Camera;
pub(crate) use context::GpuContext;
pub(crate) use renderer::Renderer;
pub use renderer::{PASSES, Pass};

pub use camera::{FlyController, OrbitController};
pub use context::{backend_names, parse_backends};
pub use frame::{
    DeformedInstance, DirectionalLight, FrameData, LineVertex, MAX_POINT_LIGHTS, MeshInstance,
    PointLight, Spot, spot_shadows,
};
pub use gpu_errors::{GpuErrors, GpuProblem};
pub(crate) use line_pass::push_box;
pub use line_pass::{push_aabb, push_axes, push_circle, push_frustum, push_grid};
pub use packed::{BatchKey, FREE_SLOT, PackedInstances, RetainedInstances};
pub use records::{GpuCaster, GpuInstance, InstanceRecord};
pub use renderer::RenderStats;
pub use shadow::{Cascades, MAX_SHADOW_VIEWS, MAX_SPOT_SHADOWS, SpotCone, SpotShadows, cascades};
pub use surface::{PresentModeChoice, SurfaceEncoding, SurfaceState};
pub use targets::target_descriptor;

/// Everything that can go wrong in the renderer.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// No adapter was found on the requested backends.
    #[error(
        "no GPU adapter found on backends [{backends}]: {reason} (install a driver, or Mesa's llvmpipe/lavapipe for software rendering)"
    )]
    NoAdapter {
        /// The backends that were tried.
        backends: String,
        /// What wgpu said.
        reason: String,
    },
    /// The adapter refused to create a device.
    #[error("adapter {adapter} refused a device: {source}")]
    RequestDevice {
        /// Name of the adapter.
        adapter: String,
        /// What wgpu said.
        source: wgpu::RequestDeviceError,
    },
    /// A backend name that is not one of vulkan, gl, metal, dx12, primary or all.
    #[error("unknown backend {name:?} (expected vulkan, gl, metal, dx12, primary or all)")]
    UnknownBackend {
        /// The word that was not recognised.
        name: String,
    },
    /// The adapter cannot present to the window's surface.
    #[error("adapter {adapter} cannot present to this window surface")]
    SurfaceUnsupported {
        /// Name of the adapter.
        adapter: String,
    },
    /// The surface stayed lost after reconfiguring; it must be recreated from the window.
    #[error("window surface lost {attempts} frames in a row; recreate it")]
    SurfaceLost {
        /// Consecutive lost frames.
        attempts: u32,
    },
    /// Acquiring a frame from the surface failed.
    #[error("could not acquire a frame from the window surface: {status}")]
    SurfaceAcquire {
        /// What went wrong.
        status: String,
    },
    /// An offscreen image with a zero or oversized side was requested.
    #[error("cannot render a {width}x{height} image (each side must be 1..={max})")]
    InvalidSize {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
        /// The device's largest texture side.
        max: u32,
    },
    /// The renderer's colour format cannot be read back as 8-bit RGBA.
    #[error("cannot capture images in format {format} (use an 8-bit RGBA or BGRA format)")]
    UnsupportedCaptureFormat {
        /// The renderer's colour format.
        format: String,
    },
    /// wgpu rejected the frame's commands.
    #[error("wgpu validation failed: {message}")]
    Validation {
        /// wgpu's report.
        message: String,
    },
    /// Rendered pixels could not be read back.
    #[error("reading the rendered image back failed: {reason}")]
    Readback {
        /// What went wrong.
        reason: String,
    },
}
