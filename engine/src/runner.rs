//! The one app runner: every program that shows a world in a window (the
//! editor, the native player, the web player) is a [`Host`] this loop drives.
//!
//! Game loop pattern, over winit: winit owns the event loop and Keel's loop
//! runs in its callbacks. The runner owns what is the same in every program
//! (the window, the GPU device and the swap chain's surface, frame pacing,
//! the real-time clock the fixed step reads, the gamepads, recovery from a
//! lost device or surface, the frame limit scripts and CI run under) and
//! asks its host for what differs: what a frame updates ([`Host::update`],
//! where the host runs its world's fixed steps), what it draws
//! ([`Host::draw`]), what the window's events mean ([`Host::event`]).
//! A subsystem that every program needs plugs in here once.
//!
//! A frame, on each redraw the runner asks for:
//! 1. the device's reports are taken: a lost device drops the host's GPU
//!    objects ([`Host::detach`]) and opens a new device for the same window
//!    ([`Host::attach`] again), the host's world untouched;
//! 2. [`Host::update`] with the real-time clock (the fixed steps and their
//!    interpolation alpha are the world's, see [`crate::World::frame`]);
//! 3. the window's title follows [`Host::title`];
//! 4. the next surface texture is acquired (a minimised window, an outdated
//!    or lost surface skip the frame; a surface lost for good is made again
//!    from the window), [`Host::draw`] draws into it and it is presented;
//! 5. [`Host::presented`], then the device's reports again, then the frame
//!    limit.
//!
//! Pacing is the swap chain's (vsync with [`PresentModeChoice::Fifo`]);
//! [`RunOptions::fps_cap`] sleeps in the event loop between frames instead
//! of spinning, and a minimised window is woken 20 times a second so its
//! world keeps running.
//!
//! On native, [`run`] opens the window and the device and returns the host
//! when the window closes. In a browser the device arrives asynchronously
//! before the loop starts: the page opens it on its canvas and hands it to
//! `spawn` (in the browser build), which returns at once; the browser's event loop drives the
//! host from then on (a lost device there stops the page).

use std::sync::Arc;
use std::time::Duration;

// winit's clock: std's on native, the browser's on the web.
use web_time::Instant;
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::window::{Window, WindowAttributes, WindowId};

use crate::RealTime;
use crate::render::{
    GpuContext, GpuProblem, PresentModeChoice, RenderError, SurfaceEncoding, SurfaceState,
};

/// How often a minimised window's world is woken.
const MINIMISED_WAKE: Duration = Duration::from_millis(50);

/// A program the runner drives: the editor, the native player, the web player.
pub trait Host {
    /// The host's own failure, which the runner's failures become.
    type Error: From<RunnerError>;

    /// The window to open: title, size, and on the web the page's canvas.
    fn window_attributes(&self) -> WindowAttributes;

    /// A device is open for `window`: make the GPU objects drawing needs,
    /// in the surface's `format`. Called once at the start and again after
    /// the device was lost.
    ///
    /// # Errors
    /// What the host could not make; the run stops with it.
    fn attach(
        &mut self,
        gpu: &GpuContext,
        format: wgpu::TextureFormat,
        window: &Arc<Window>,
    ) -> Result<(), Self::Error>;

    /// The device was lost: drop every GPU object made on it (an
    /// [`Host::attach`] on a new device follows).
    fn detach(&mut self) {}

    /// A window event, before the runner follows the window's resizing,
    /// closing and redrawing.
    fn event(&mut self, window: &Window, event: &WindowEvent) -> Flow<Self::Error>;

    /// The window's close button: [`Flow::Exit`] (the default) closes it; a
    /// host that asks first (unsaved changes) answers [`Flow::Go`] and exits
    /// from a later [`Host::update`].
    fn close_requested(&mut self) -> Flow<Self::Error> {
        Flow::Exit
    }

    /// What the device reported since the last frame. A lost device is made
    /// again after this unless it answers otherwise.
    fn gpu_problems(&mut self, problems: &[GpuProblem]) -> Flow<Self::Error>;

    /// The frame's work before drawing: input, the world's fixed steps for
    /// the time `update.time` says has passed, the UI.
    fn update(&mut self, update: Update<'_>) -> Flow<Self::Error>;

    /// Draws the frame into `target` (presented after).
    fn draw(&mut self, gpu: &GpuContext, target: &Target<'_>) -> Flow<Self::Error>;

    /// Frame `frame` (counted from 1) was presented.
    fn presented(&mut self, frame: u64) -> Flow<Self::Error> {
        let _ = frame;
        Flow::Go
    }

    /// The window's title now (`None`: as it opened); the window's is
    /// changed only when this differs from it.
    fn title(&self) -> Option<&str> {
        None
    }
}

/// What a host answers: go on, close the window, or stop with an error.
#[derive(Debug)]
#[must_use]
pub enum Flow<E> {
    /// Go on.
    Go,
    /// Close the window; the run ends well.
    Exit,
    /// Stop; the run ends with this error.
    Fail(E),
}

/// What a frame's update gets.
pub struct Update<'a> {
    /// The real-time clock the world's fixed steps are measured against.
    pub time: &'a mut RealTime,
    /// The window.
    pub window: &'a Window,
    /// The system's gamepads (none where the platform offers no access).
    #[cfg(feature = "gamepads")]
    pub gamepads: Option<&'a mut crate::input::Gamepads>,
}

/// The frame a host draws into.
#[derive(Debug)]
pub struct Target<'a> {
    /// The surface texture's view, in `format`.
    pub view: &'a wgpu::TextureView,
    /// Its size in pixels (width, height).
    pub size: (u32, u32),
    /// Its format (what the host's pipelines target).
    pub format: wgpu::TextureFormat,
    /// This frame's number, counted from 1.
    pub frame: u64,
    /// The last frame of a [`RunOptions::frame_limit`] (where screenshots are taken).
    pub last: bool,
}

/// How the runner runs.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Graphics backends to try.
    pub backends: wgpu::Backends,
    /// Presentation mode of the swap chain.
    pub present: PresentModeChoice,
    /// How the surface encodes what is drawn (the renderer's linear colour
    /// through sRGB, or egui's already encoded colour as written).
    pub encoding: SurfaceEncoding,
    /// Most frames per second to present (sleeps between frames), if any.
    pub fps_cap: Option<f64>,
    /// Close the window after presenting this many frames.
    pub frame_limit: Option<u64>,
    /// Destroy the GPU device after presenting this frame, once (to try the
    /// recovery from a lost device).
    pub lose_device_at: Option<u64>,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            backends: wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all()),
            present: PresentModeChoice::Fifo,
            encoding: SurfaceEncoding::Srgb,
            fps_cap: None,
            frame_limit: None,
            lose_device_at: None,
        }
    }
}

/// Why the runner could not open or keep a window to draw in.
#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    /// No event loop (no display server).
    #[error("cannot start the event loop (is there a display?): {0}")]
    EventLoop(#[from] winit::error::EventLoopError),
    /// The window could not be created.
    #[error("cannot create the window: {0}")]
    Window(#[from] winit::error::OsError),
    /// The window has no usable GPU surface.
    #[error("cannot create a GPU surface for the window: {0}")]
    Surface(#[from] wgpu::CreateSurfaceError),
    /// No GPU can draw to the window, or it was lost where it cannot be made
    /// again.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// The device was lost where a new one cannot be opened in the loop (a
    /// browser page).
    #[error("the GPU device was lost; reload the page")]
    DeviceLost,
}

/// Opens the host's window and runs it until the window closes, a host
/// answers [`Flow::Exit`] or the frame limit is reached; returns the host.
///
/// # Errors
/// The host's error: its own [`Flow::Fail`], or a [`RunnerError`] (no
/// display, window, surface or GPU).
pub fn run<H: Host>(host: H, options: RunOptions) -> Result<H, H::Error> {
    let event_loop = EventLoop::new().map_err(RunnerError::from)?;
    let mut running = Running::new(host, options, None);
    event_loop
        .run_app(&mut running)
        .map_err(RunnerError::from)?;
    match running.error {
        Some(error) => Err(error),
        None => Ok(running.host),
    }
}

/// Drives `host` in the browser's event loop, drawing with `gpu` and
/// `surface` (opened on the page's canvas, which
/// [`Host::window_attributes`] names); returns at once. A failure is the
/// host's to show: [`Host::gpu_problems`] and the flows it answers see it.
///
/// # Errors
/// [`RunnerError::EventLoop`] when the page gives no event loop.
#[cfg(target_arch = "wasm32")]
pub fn spawn<H: Host + 'static>(
    host: H,
    options: RunOptions,
    gpu: GpuContext,
    surface: SurfaceState,
) -> Result<(), RunnerError> {
    use winit::platform::web::EventLoopExtWebSys;
    let event_loop = EventLoop::new()?;
    event_loop.spawn_app(Running::new(host, options, Some(Device { gpu, surface })));
    Ok(())
}

/// The device and the surface it presents to.
struct Device {
    gpu: GpuContext,
    surface: SurfaceState,
}

/// The runner's state inside winit's loop.
struct Running<H: Host> {
    host: H,
    options: RunOptions,
    window: Option<Arc<Window>>,
    device: Option<Device>,
    time: RealTime,
    /// Frames presented.
    frames: u64,
    /// Times the device was made again after a loss.
    rebuilds: u32,
    title: Option<String>,
    last_frame: Instant,
    error: Option<H::Error>,
    /// Set once the run is over (an error on the web, where the loop goes on).
    stopped: bool,
    #[cfg(feature = "gamepads")]
    pads: Option<crate::input::Gamepads>,
}

impl<H: Host> Running<H> {
    fn new(host: H, options: RunOptions, device: Option<Device>) -> Self {
        Self {
            host,
            options,
            window: None,
            device,
            time: RealTime::default(),
            frames: 0,
            rebuilds: 0,
            title: None,
            last_frame: Instant::now(),
            error: None,
            stopped: false,
            #[cfg(feature = "gamepads")]
            pads: crate::input::Gamepads::new()
                .inspect_err(|e| log::warn!("no gamepads: {e}"))
                .ok(),
        }
    }

    /// Follows a host's answer: whether to go on with this frame.
    fn follow(&mut self, flow: Flow<H::Error>, event_loop: &ActiveEventLoop) -> bool {
        match flow {
            Flow::Go => !self.stopped,
            Flow::Exit => {
                self.stopped = true;
                event_loop.exit();
                false
            }
            Flow::Fail(error) => {
                self.error = Some(error);
                self.stopped = true;
                event_loop.exit();
                false
            }
        }
    }

    fn fail(&mut self, error: RunnerError, event_loop: &ActiveEventLoop) {
        let _ = self.follow(Flow::Fail(error.into()), event_loop);
    }

    /// Opens a device (and surface) for `window` and attaches the host to it.
    #[cfg(not(target_arch = "wasm32"))]
    fn open_device(
        &mut self,
        window: &Arc<Window>,
        instance: wgpu::Instance,
    ) -> Result<(), H::Error> {
        let backends = self.options.backends;
        let surface = instance
            .create_surface(window.clone())
            .map_err(RunnerError::from)?;
        let gpu =
            GpuContext::for_surface(instance, backends, &surface).map_err(RunnerError::from)?;
        log::info!("adapter: {}", gpu.adapter_summary());
        let size = window.inner_size();
        let surface = SurfaceState::new(
            &gpu,
            surface,
            (size.width, size.height),
            self.options.present,
            self.options.encoding,
        )
        .map_err(RunnerError::from)?;
        self.host.attach(&gpu, surface.format(), window)?;
        self.device = Some(Device { gpu, surface });
        Ok(())
    }

    /// Takes the device's reports; makes a lost device again. Whether to go
    /// on with this frame.
    fn check_device(&mut self, event_loop: &ActiveEventLoop) -> bool {
        let Some(device) = &self.device else {
            return !self.stopped;
        };
        let problems = device.gpu.errors.take();
        if problems.is_empty() {
            return !self.stopped;
        }
        let lost = problems.iter().any(|p| matches!(p, GpuProblem::Lost(_)));
        let flow = self.host.gpu_problems(&problems);
        if !self.follow(flow, event_loop) {
            return false;
        }
        if lost {
            self.remake_device(event_loop);
        }
        !self.stopped
    }

    /// The device was lost: the host's GPU objects and the device go, and a
    /// new device is opened for the same window (not in a browser, where
    /// devices arrive asynchronously: the run stops there).
    fn remake_device(&mut self, event_loop: &ActiveEventLoop) {
        self.host.detach();
        let Some(old) = self.device.take() else {
            return;
        };
        #[cfg(target_arch = "wasm32")]
        {
            drop(old);
            self.fail(RunnerError::DeviceLost, event_loop);
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            let instance = old.gpu.instance.clone();
            drop(old);
            let Some(window) = self.window.clone() else {
                return;
            };
            match self.open_device(&window, instance) {
                Ok(()) => {
                    self.rebuilds += 1;
                    log::warn!("the GPU device was lost; its objects were made again on a new one");
                }
                Err(error) => {
                    let _ = self.follow(Flow::Fail(error), event_loop);
                }
            }
        }
    }

    /// The surface was lost for good: made again from the window.
    fn remake_surface(&mut self, event_loop: &ActiveEventLoop) {
        let (Some(window), Some(device)) = (&self.window, &mut self.device) else {
            return;
        };
        let size = window.inner_size();
        let remade = device
            .gpu
            .instance
            .create_surface(window.clone())
            .map_err(RunnerError::from)
            .and_then(|surface| {
                SurfaceState::new(
                    &device.gpu,
                    surface,
                    (size.width, size.height),
                    self.options.present,
                    self.options.encoding,
                )
                .map_err(RunnerError::from)
            });
        match remade {
            Ok(surface) => {
                log::warn!("the window's surface was lost; made again");
                device.surface = surface;
            }
            Err(error) => self.fail(error, event_loop),
        }
    }

    fn frame(&mut self, event_loop: &ActiveEventLoop) {
        if self.stopped {
            return;
        }
        self.last_frame = Instant::now();
        // A device lost since the last frame says so when polled: made again
        // before anything is drawn with it.
        if let Some(device) = &self.device {
            let _ = device.gpu.device.poll(wgpu::PollType::Poll);
        }
        if !self.check_device(event_loop) {
            return;
        }
        let Some(window) = self.window.clone() else {
            return;
        };
        puffin::profile_scope!("frame");
        let flow = self.host.update(Update {
            time: &mut self.time,
            window: &window,
            #[cfg(feature = "gamepads")]
            gamepads: self.pads.as_mut(),
        });
        if !self.follow(flow, event_loop) {
            return;
        }
        if let Some(title) = self.host.title()
            && self.title.as_deref() != Some(title)
        {
            window.set_title(title);
            self.title = Some(title.to_owned());
        }
        let Some(device) = &mut self.device else {
            return;
        };
        let texture = match device.surface.acquire(&device.gpu) {
            Ok(Some(texture)) => texture,
            // Minimised, occluded, timed out, or just reconfigured: skip this frame.
            Ok(None) => return,
            Err(RenderError::SurfaceLost { .. }) => return self.remake_surface(event_loop),
            Err(error) => return self.fail(error.into(), event_loop),
        };
        let view = device.surface.view(&texture);
        let frame = self.frames + 1;
        let last = self.options.frame_limit.is_some_and(|n| frame >= n);
        let target = Target {
            view: &view,
            size: device.surface.size(),
            format: device.surface.format(),
            frame,
            last,
        };
        let flow = self.host.draw(&device.gpu, &target);
        if matches!(flow, Flow::Go) {
            puffin::profile_scope!("present");
            window.pre_present_notify();
            device.gpu.queue.present(texture);
        }
        if !self.follow(flow, event_loop) {
            return;
        }
        self.frames = frame;
        let flow = self.host.presented(frame);
        if !self.follow(flow, event_loop) {
            return;
        }
        if self.options.lose_device_at == Some(frame)
            && self.rebuilds == 0
            && let Some(device) = &self.device
        {
            log::warn!("lose the device at frame {frame}: destroying the GPU device");
            device.gpu.device.destroy();
        }
        if self.check_device(event_loop) && last {
            self.stopped = true;
            event_loop.exit();
        }
    }
}

impl<H: Host> ApplicationHandler for Running<H> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.window.is_some() || self.stopped {
            return;
        }
        let window = match event_loop.create_window(self.host.window_attributes()) {
            Ok(window) => Arc::new(window),
            Err(error) => return self.fail(error.into(), event_loop),
        };
        #[cfg(not(target_arch = "wasm32"))]
        {
            let instance = GpuContext::new_instance(
                self.options.backends,
                Some(Box::new(event_loop.owned_display_handle())),
            );
            if let Err(error) = self.open_device(&window, instance) {
                let _ = self.follow(Flow::Fail(error), event_loop);
                return;
            }
        }
        #[cfg(target_arch = "wasm32")]
        if let Some(device) = &self.device {
            let attached = self
                .host
                .attach(&device.gpu, device.surface.format(), &window);
            if let Err(error) = attached {
                let _ = self.follow(Flow::Fail(error), event_loop);
                return;
            }
            window.focus_window();
        }
        window.request_redraw();
        self.window = Some(window);
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(window) = self.window.clone() else {
            return;
        };
        let flow = self.host.event(&window, &event);
        if !self.follow(flow, event_loop) {
            return;
        }
        match event {
            WindowEvent::CloseRequested => {
                let flow = self.host.close_requested();
                if self.follow(flow, event_loop) {
                    window.request_redraw();
                }
            }
            WindowEvent::Resized(size) => {
                if let Some(device) = &mut self.device {
                    device.surface.resize(&device.gpu, size.width, size.height);
                }
                window.request_redraw();
            }
            WindowEvent::RedrawRequested => self.frame(event_loop),
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        let Some(window) = &self.window else {
            return;
        };
        if self.stopped {
            return;
        }
        let size = window.inner_size();
        if size.width == 0 || size.height == 0 {
            // Minimised: nothing to draw; keep the world running at a gentle pace.
            event_loop.set_control_flow(ControlFlow::WaitUntil(Instant::now() + MINIMISED_WAKE));
        } else if let Some(fps) = self.options.fps_cap.filter(|fps| *fps > 0.0) {
            let next = self.last_frame + Duration::from_secs_f64(1.0 / fps);
            if Instant::now() < next {
                event_loop.set_control_flow(ControlFlow::WaitUntil(next));
                return;
            }
        } else {
            event_loop.set_control_flow(ControlFlow::Wait);
        }
        window.request_redraw();
    }
}
