//! The GPU context: instance, adapter, device and queue, created once and shared
//! by the renderer and whoever presents its frames.
//!
//! Pattern: none of the book's; this is the service every pass borrows, created
//! either headless (tests, captures) or for a window surface (the viewer).

use super::RenderError;
use super::gpu_errors::GpuErrors;

/// The wgpu objects every pass needs, created together.
#[derive(Clone, Debug)]
pub struct GpuContext {
    /// The instance the adapter (and any surface) came from.
    pub instance: wgpu::Instance,
    /// The physical device in use.
    pub adapter: wgpu::Adapter,
    /// The logical device that creates every GPU object.
    pub device: wgpu::Device,
    /// The queue that uploads data and runs command buffers.
    pub queue: wgpu::Queue,
    /// What the device reported outside error scopes (validation errors,
    /// loss): filed here instead of panicking; the owner takes them each frame.
    pub errors: GpuErrors,
}

impl GpuContext {
    /// Creates an instance limited to `backends`.
    ///
    /// `display` is the platform's display connection (winit's `OwnedDisplayHandle`):
    /// the GL backend needs it to present to a window, the others ignore it.
    /// Instance flags (validation, debug labels) still follow wgpu's environment
    /// variables, but `backends` always wins over `WGPU_BACKEND`.
    #[must_use]
    pub fn new_instance(
        backends: wgpu::Backends,
        display: Option<Box<dyn wgpu::wgt::WgpuHasDisplayHandle>>,
    ) -> wgpu::Instance {
        let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        descriptor.backends = backends;
        descriptor.display = display;
        wgpu::Instance::new(descriptor)
    }

    /// Creates a context with no window, for offscreen rendering and tests.
    ///
    /// # Errors
    ///
    /// [`RenderError::NoAdapter`] when none of `backends` offers an adapter (a
    /// machine without a GPU driver, or without Mesa's software ones), and
    /// [`RenderError::RequestDevice`] when the adapter refuses a device.
    pub fn headless(backends: wgpu::Backends) -> Result<Self, RenderError> {
        let instance = Self::new_instance(backends, None);
        Self::from_instance(instance, backends, None, None)
    }

    /// Creates a context with no window whose device has `limits` instead of
    /// the engine's usual ones: to see what a smaller GPU would do with a
    /// scene (each limit must be within what the adapter offers).
    ///
    /// # Errors
    /// As [`GpuContext::headless`].
    pub fn headless_with_limits(
        backends: wgpu::Backends,
        limits: wgpu::Limits,
    ) -> Result<Self, RenderError> {
        let instance = Self::new_instance(backends, None);
        Self::from_instance(instance, backends, None, Some(limits))
    }

    /// Creates a context whose adapter can present to `surface`, which must have
    /// been created from `instance` (see [`GpuContext::new_instance`]).
    ///
    /// # Errors
    ///
    /// [`RenderError::NoAdapter`] when no adapter of the instance can present to the
    /// surface, [`RenderError::RequestDevice`] when the adapter refuses a device.
    pub fn for_surface(
        instance: wgpu::Instance,
        backends: wgpu::Backends,
        surface: &wgpu::Surface<'_>,
    ) -> Result<Self, RenderError> {
        Self::from_instance(instance, backends, Some(surface), None)
    }

    /// As [`GpuContext::for_surface`], without blocking: the form a browser
    /// needs, where the adapter and the device arrive through the event loop
    /// (`wasm_bindgen_futures::spawn_local` drives it there).
    ///
    /// # Errors
    /// As [`GpuContext::for_surface`].
    pub async fn for_surface_async(
        instance: wgpu::Instance,
        backends: wgpu::Backends,
        surface: &wgpu::Surface<'_>,
    ) -> Result<Self, RenderError> {
        Self::request(instance, backends, Some(surface), None).await
    }

    fn from_instance(
        instance: wgpu::Instance,
        backends: wgpu::Backends,
        surface: Option<&wgpu::Surface<'_>>,
        limits: Option<wgpu::Limits>,
    ) -> Result<Self, RenderError> {
        pollster::block_on(Self::request(instance, backends, surface, limits))
    }

    async fn request(
        instance: wgpu::Instance,
        backends: wgpu::Backends,
        surface: Option<&wgpu::Surface<'_>>,
        limits: Option<wgpu::Limits>,
    ) -> Result<Self, RenderError> {
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                force_fallback_adapter: false,
                compatible_surface: surface,
                apply_limit_buckets: false,
            })
            .await
            .map_err(|error| RenderError::NoAdapter {
                backends: backend_names(backends),
                reason: error.to_string(),
            })?;
        // Ask for no more than the downlevel baseline (what GL and software
        // rasterisers offer) but allow textures as large as the adapter supports,
        // so big windows and captures still work.
        let required_limits = limits.unwrap_or_else(|| {
            wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits())
        });
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("keel device"),
                // A packed float target halves the HDR frame's bytes where the
                // adapter can render to it (software rasterisers feel every byte);
                // timestamp queries let a profiler time passes (unused otherwise).
                required_features: adapter.features()
                    & (wgpu::Features::RG11B10UFLOAT_RENDERABLE | wgpu::Features::TIMESTAMP_QUERY),
                required_limits,
                experimental_features: wgpu::ExperimentalFeatures::disabled(),
                memory_hints: wgpu::MemoryHints::Performance,
                trace: wgpu::Trace::Off,
            })
            .await
            .map_err(|source| RenderError::RequestDevice {
                adapter: adapter.get_info().name,
                source,
            })?;
        let errors = GpuErrors::watch(&device);
        Ok(Self {
            instance,
            adapter,
            device,
            queue,
            errors,
        })
    }

    /// One line naming the adapter, its driver and backend, for logs and reports.
    #[must_use]
    pub fn adapter_summary(&self) -> String {
        let info = self.adapter.get_info();
        format!(
            "{} ({:?}, driver {} {}) via {:?}",
            info.name, info.device_type, info.driver, info.driver_info, info.backend
        )
    }
}

/// Parses a backend choice such as `vulkan`, `gl`, `metal`, `dx12`, `all`, or a
/// comma-separated list of them (`vulkan,gl`), case-insensitively.
///
/// # Errors
///
/// [`RenderError::UnknownBackend`] naming the first word that is not a backend.
pub fn parse_backends(text: &str) -> Result<wgpu::Backends, RenderError> {
    let mut backends = wgpu::Backends::empty();
    for word in text.split(',').map(str::trim) {
        backends |= match word.to_ascii_lowercase().as_str() {
            "vulkan" | "vk" => wgpu::Backends::VULKAN,
            "gl" | "gles" | "opengl" => wgpu::Backends::GL,
            "metal" | "mtl" => wgpu::Backends::METAL,
            "dx12" | "d3d12" => wgpu::Backends::DX12,
            "primary" => wgpu::Backends::PRIMARY,
            "all" | "auto" => wgpu::Backends::all(),
            _ => {
                return Err(RenderError::UnknownBackend {
                    name: word.to_owned(),
                });
            }
        };
    }
    Ok(backends)
}

/// Names the backends in a set, e.g. `"vulkan, gl"`, for error messages.
#[must_use]
pub fn backend_names(backends: wgpu::Backends) -> String {
    let named = [
        (wgpu::Backends::VULKAN, "vulkan"),
        (wgpu::Backends::GL, "gl"),
        (wgpu::Backends::METAL, "metal"),
        (wgpu::Backends::DX12, "dx12"),
        (wgpu::Backends::BROWSER_WEBGPU, "webgpu"),
        (wgpu::Backends::NOOP, "noop"),
    ];
    let names: Vec<&str> = named
        .iter()
        .filter(|(flag, _)| backends.contains(*flag))
        .map(|&(_, name)| name)
        .collect();
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_single_and_listed_backends() {
        assert_eq!(parse_backends("vulkan").unwrap(), wgpu::Backends::VULKAN);
        assert_eq!(parse_backends("GL").unwrap(), wgpu::Backends::GL);
        assert_eq!(
            parse_backends("vk, gl").unwrap(),
            wgpu::Backends::VULKAN | wgpu::Backends::GL
        );
        assert_eq!(parse_backends("all").unwrap(), wgpu::Backends::all());
    }

    #[test]
    fn unknown_backend_is_named_in_the_error() {
        let error = parse_backends("vulkan,glide").unwrap_err();
        assert!(
            matches!(&error, RenderError::UnknownBackend { name } if name == "glide"),
            "{error:?}"
        );
        assert!(error.to_string().contains("glide"));
    }

    #[test]
    fn backend_names_round_trip_through_the_parser() {
        let set = wgpu::Backends::VULKAN | wgpu::Backends::GL | wgpu::Backends::DX12;
        let names = backend_names(set);
        assert_eq!(parse_backends(&names).unwrap(), set);
        assert_eq!(backend_names(wgpu::Backends::empty()), "none");
    }
}
