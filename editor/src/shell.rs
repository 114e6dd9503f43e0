//! The window shell: a winit event loop, a wgpu surface, and egui-winit and
//! egui-wgpu glue around [`EditorApp`].
//!
//! Game loop: winit owns the loop. Each redraw runs one editor frame: the
//! world's fixed steps for the real time elapsed ([`EditorApp::frame`] with
//! [`RealTime`]), then the UI, which applies edits between steps, then egui's
//! drawing. The surface presents with vsync, which paces the loop; after each
//! frame the next redraw is requested so the world keeps moving.
//!
//! The device and queue live in [`Gpu`], created once and shared: the engine's
//! renderer uses the same device, and draws the 3D view inside egui's pass
//! through an egui-wgpu paint callback (its resources go in
//! `egui_wgpu::Renderer::callback_resources`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use keel_engine::RealTime;
use keel_engine::render::GpuProblem;
use winit::application::ApplicationHandler;
use winit::dpi::LogicalSize;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::window::{Window, WindowId};

use crate::capture::{self, CaptureError};
use crate::gpu::{Gpu, GpuError};
use crate::ui::{EditorApp, EditorOptions};

/// How the shell runs.
#[derive(Clone, Debug, Default)]
pub struct ShellOptions {
    /// How the editor starts.
    pub editor: EditorOptions,
    /// Exit after rendering this many frames.
    pub frame_limit: Option<u64>,
    /// Write the last rendered frame here (PNG).
    pub screenshot: Option<PathBuf>,
    /// Write the Scene view's last frame here (PNG).
    pub view_screenshot: Option<PathBuf>,
    /// Open the Game view and write its last frame here (PNG).
    pub game_screenshot: Option<PathBuf>,
    /// Destroy the GPU device after this frame (to try the recovery).
    pub lose_device_at: Option<u64>,
    /// Every this many frames rename the first root node, and half as many
    /// frames later save (the crash tests kill the editor meanwhile).
    pub save_every: Option<u64>,
    /// The window's size in points (`None`: 1600x900).
    pub size: Option<[u32; 2]>,
}

/// Why the editor could not run.
#[derive(Debug, thiserror::Error)]
pub enum ShellError {
    /// No event loop (no display server).
    #[error("cannot start the event loop (is there a display?): {source}")]
    EventLoop {
        /// What winit said.
        #[from]
        source: winit::error::EventLoopError,
    },
    /// The window could not be created.
    #[error("cannot create the window: {source}")]
    Window {
        /// What winit said.
        #[from]
        source: winit::error::OsError,
    },
    /// The window has no usable GPU surface.
    #[error("cannot create a GPU surface for the window: {source}")]
    Surface {
        /// What wgpu said.
        #[from]
        source: wgpu::CreateSurfaceError,
    },
    /// No GPU can draw to the window.
    #[error(transparent)]
    Gpu {
        /// What opening the device said.
        #[from]
        source: GpuError,
    },
    /// `--screenshot` failed.
    #[error("screenshot: {source}")]
    Capture {
        /// What went wrong.
        #[from]
        source: CaptureError,
    },
    /// `--resume`: this build cannot take the state handed over.
    #[error("{source}")]
    Resume {
        /// Why.
        source: crate::HandoverError,
    },
    /// The window closed before `--frames` frames were rendered, so there is nothing to capture.
    #[error("no frame was rendered (window minimised or closed), so no screenshot was written")]
    NoFrame,
}

/// The open window and what draws into it.
struct WindowState {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    egui: egui_winit::State,
    renderer: egui_wgpu::Renderer,
    scene_view: crate::scene_view::SceneView,
}

/// The application handler winit drives.
struct Shell {
    app: EditorApp,
    ctx: egui::Context,
    options: ShellOptions,
    gpu: Option<Gpu>,
    win: Option<WindowState>,
    time: RealTime,
    frames: u64,
    error: Option<ShellError>,
    title: String,
    captured: bool,
    /// Times the GPU objects were made again after the device was lost.
    gpu_rebuilds: u32,
    /// Live mode: the game's rebuild and the handover to the new build.
    live: Option<crate::live_mode::LiveMode>,
    /// The handover this editor started from, until its first frame shows.
    resumed_file: Option<PathBuf>,
    /// The system's gamepads (none where the platform offers no access).
    #[cfg(feature = "gamepads")]
    pads: Option<keel_engine::input::Gamepads>,
}

/// A handover to start from, and its file (deleted once the window has
/// drawn a frame from it: the signal that this build took over).
pub struct Resume {
    /// The editing state handed over.
    pub handover: crate::Handover,
    /// Its file.
    pub file: PathBuf,
}

/// Opens the editor window and runs until it is closed (or `frame_limit`
/// frames are drawn), in live mode when `live` is given (rebuilding and
/// handing over), starting from `resume` when given.
///
/// # Errors
/// A [`ShellError`] when there is no display, GPU or window, or the screenshot fails.
pub fn run(
    options: ShellOptions,
    live: Option<crate::live_mode::LiveMode>,
    resume: Option<Resume>,
) -> Result<(), ShellError> {
    let event_loop = EventLoop::new()?;
    event_loop.set_control_flow(ControlFlow::Poll);
    let (mut app, resumed_file) = match resume {
        Some(r) => {
            let started = Instant::now();
            let app = match EditorApp::resume(options.editor.clone(), r.handover) {
                Ok(app) => app,
                Err(e) => {
                    // The old build reads why, and stays up.
                    let _ = std::fs::write(crate::live_mode::reason_file(&r.file), e.to_string());
                    return Err(ShellError::Resume { source: e });
                }
            };
            log::info!(
                "live: resumed in {:.0} ms",
                started.elapsed().as_secs_f64() * 1e3
            );
            (app, Some(r.file))
        }
        None => (EditorApp::new(options.editor.clone()), None),
    };
    if options.game_screenshot.is_some() {
        app.show_panel(crate::ui::dock::Panel::Game);
    }
    let mut shell = Shell {
        title: app.title(),
        app,
        ctx: egui::Context::default(),
        options,
        gpu: None,
        win: None,
        time: RealTime::default(),
        frames: 0,
        error: None,
        captured: false,
        gpu_rebuilds: 0,
        live,
        resumed_file,
        #[cfg(feature = "gamepads")]
        pads: keel_engine::input::Gamepads::new()
            .inspect_err(|e| log::warn!("no gamepads: {e}"))
            .ok(),
    };
    event_loop.run_app(&mut shell)?;
    if let Some(e) = shell.error {
        return Err(e);
    }
    if shell.options.screenshot.is_some() && !shell.captured {
        return Err(ShellError::NoFrame);
    }
    Ok(())
}

impl Shell {
    fn open_window(&mut self, event_loop: &ActiveEventLoop) -> Result<(), ShellError> {
        let [width, height] = self.options.size.unwrap_or([1600, 900]).map(f64::from);
        let attributes = Window::default_attributes()
            .with_title(self.app.title())
            .with_inner_size(LogicalSize::new(width, height));
        let window = Arc::new(event_loop.create_window(attributes)?);
        self.attach_gpu(event_loop, window)
    }

    /// Opens the GPU objects that draw into `window`: the device (unless there
    /// is one), the surface, egui's renderer and the 3D view.
    fn attach_gpu(
        &mut self,
        event_loop: &ActiveEventLoop,
        window: Arc<Window>,
    ) -> Result<(), ShellError> {
        let instance = match &self.gpu {
            Some(gpu) => gpu.ctx.instance.clone(),
            None => {
                wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(
                    Box::new(event_loop.owned_display_handle()),
                ))
            }
        };
        let surface = instance.create_surface(window.clone())?;
        if self.gpu.is_none() {
            self.gpu = Some(Gpu::new(instance, &surface)?);
        }
        let gpu = self.gpu.as_ref().expect("created just above");
        let size = window.inner_size();
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format: gpu.surface_format,
            width: size.width.max(1),
            height: size.height.max(1),
            present_mode: wgpu::PresentMode::AutoVsync,
            alpha_mode: surface.get_capabilities(&gpu.ctx.adapter).alpha_modes[0],
            view_formats: vec![],
            desired_maximum_frame_latency: 2,
            color_space: wgpu::SurfaceColorSpace::Auto,
        };
        surface.configure(&gpu.ctx.device, &config);
        let egui = egui_winit::State::new(
            self.ctx.clone(),
            egui::ViewportId::ROOT,
            &window,
            Some(window.scale_factor() as f32),
            window.theme(),
            Some(gpu.ctx.device.limits().max_texture_dimension_2d as usize),
        );
        let renderer = egui_wgpu::Renderer::new(
            &gpu.ctx.device,
            gpu.surface_format,
            egui_wgpu::RendererOptions::default(),
        );
        let scene_view = crate::scene_view::SceneView::new(gpu);
        self.win = Some(WindowState {
            window,
            surface,
            config,
            egui,
            renderer,
            scene_view,
        });
        Ok(())
    }

    /// Files what the device reported this frame in the status line; when it
    /// was lost, drops every GPU object (and egui's context, whose textures
    /// lived on it) and makes them again for the same window. The document,
    /// its undo history and the running world are untouched.
    fn handle_gpu_problems(&mut self, event_loop: &ActiveEventLoop) {
        let Some(gpu) = &self.gpu else {
            return;
        };
        let problems = gpu.ctx.errors.take();
        let lost = problems.iter().any(|p| matches!(p, GpuProblem::Lost(_)));
        for problem in &problems {
            self.app.report_gpu_problem(problem);
        }
        if !lost {
            return;
        }
        let Some(window) = self.win.take().map(|win| win.window) else {
            return;
        };
        self.gpu = None;
        self.ctx = egui::Context::default();
        self.app.forget_gpu_textures();
        match self.attach_gpu(event_loop, window) {
            Ok(()) => {
                self.gpu_rebuilds += 1;
                log::warn!("the GPU device was lost; its objects were made again on a new one");
            }
            Err(error) => self.fail(event_loop, error),
        }
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, error: ShellError) {
        log::error!("{error}");
        self.error = Some(error);
        event_loop.exit();
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        // A device lost since the last frame says so when polled: rebuilt
        // before anything is drawn with it.
        if let Some(gpu) = &self.gpu {
            let _ = gpu.ctx.device.poll(wgpu::PollType::Poll);
        }
        self.handle_gpu_problems(event_loop);
        let (Some(win), Some(gpu)) = (self.win.as_mut(), self.gpu.as_ref()) else {
            return;
        };
        #[cfg(feature = "gamepads")]
        if let Some(pads) = &mut self.pads {
            self.app.poll_gamepads(pads);
        }
        self.app.frame(&mut self.time);
        if let Some(live) = &mut self.live
            && live.frame(&mut self.app) == crate::live_mode::LiveStep::Quit
        {
            event_loop.exit();
            return;
        }
        // The 3D view first, at the size and camera the UI left last frame.
        win.scene_view.render(&mut win.renderer, &mut self.app);
        win.scene_view.draw_thumbnail(&mut self.app);
        let input = win.egui.take_egui_input(&win.window);
        let app = &mut self.app;
        let mut output = self.ctx.run_ui(input, |ui| app.ui(ui));
        win.egui
            .handle_platform_output(&win.window, std::mem::take(&mut output.platform_output));
        // Texture uploads happen even when nothing is drawn, or later frames would miss them;
        // frees wait until the frame that may still use the textures is drawn.
        for (id, deltas) in output.textures_delta.set.drain() {
            for delta in deltas {
                win.renderer
                    .update_texture(&gpu.ctx.device, &gpu.ctx.queue, id, &delta);
            }
        }
        let to_free: Vec<egui::TextureId> = output.textures_delta.free.drain().collect();

        let title = self.app.title();
        if title != self.title {
            win.window.set_title(&title);
            self.title = title;
        }
        if self.app.should_quit() {
            event_loop.exit();
        }

        let size = win.window.inner_size();
        let minimised = size.width == 0 || size.height == 0;
        if !minimised && !self.app.should_quit() {
            let primitives = {
                keel_engine::profile::puffin::profile_scope!("tessellate ui");
                self.ctx
                    .tessellate(std::mem::take(&mut output.shapes), output.pixels_per_point)
            };
            let screen = egui_wgpu::ScreenDescriptor {
                size_in_pixels: [win.config.width, win.config.height],
                pixels_per_point: output.pixels_per_point,
            };
            if let Some(frame) = acquire(win, gpu) {
                let view = frame
                    .texture
                    .create_view(&wgpu::TextureViewDescriptor::default());
                paint(win, gpu, &primitives, &screen, &view);
                keel_engine::profile::puffin::profile_scope!("present");
                win.window.pre_present_notify();
                gpu.ctx.queue.present(frame);
                self.frames += 1;
                if let Some(file) = self.resumed_file.take() {
                    // The old build quits on seeing it gone.
                    if let Err(e) = std::fs::remove_file(&file) {
                        log::warn!("live: {}: {e}", file.display());
                    }
                }
                let last = self.options.frame_limit.is_some_and(|n| self.frames >= n);
                // The 3D views first: they need the window, which a failure below gives up.
                let shot = |path: PathBuf, image: Option<Result<_, capture::CaptureError>>| {
                    let result = match image {
                        None => Err(ShellError::NoFrame),
                        Some(image) => image
                            .and_then(|image| capture::save_png(&image, &path))
                            .map_err(ShellError::from),
                    };
                    (path, result)
                };
                let mut view_shots = Vec::new();
                if last && let Some(path) = self.options.view_screenshot.clone() {
                    view_shots.push(shot(path, win.scene_view.read_back()));
                }
                if last && let Some(path) = self.options.game_screenshot.clone() {
                    view_shots.push(shot(path, win.scene_view.read_back_game()));
                }
                if last && let Some(path) = self.options.screenshot.clone() {
                    let target = capture::capture_target(
                        &gpu.ctx.device,
                        screen.size_in_pixels,
                        gpu.surface_format,
                    );
                    let view = target.create_view(&wgpu::TextureViewDescriptor::default());
                    paint(win, gpu, &primitives, &screen, &view);
                    let result = capture::read_texture(&gpu.ctx.device, &gpu.ctx.queue, &target)
                        .and_then(|image| capture::save_png(&image, &path));
                    match result {
                        Ok(()) => {
                            self.captured = true;
                            log::info!("wrote {}", path.display());
                        }
                        Err(e) => self.fail(event_loop, e.into()),
                    }
                }
                for shot in view_shots {
                    match shot {
                        (path, Ok(())) => log::info!("wrote {}", path.display()),
                        (_, Err(e)) => self.fail(event_loop, e),
                    }
                }
                if last {
                    event_loop.exit();
                }
            }
        }
        if let Some(win) = self.win.as_mut() {
            for id in &to_free {
                win.renderer.free_texture(id);
            }
        }
        if self.options.lose_device_at == Some(self.frames)
            && self.gpu_rebuilds == 0
            && let Some(gpu) = &self.gpu
        {
            log::warn!(
                "--lose-device-at {}: destroying the GPU device",
                self.frames
            );
            gpu.ctx.device.destroy();
        }
        self.handle_gpu_problems(event_loop);
        if let Some(every) = self.options.save_every {
            self.rename_and_save(every);
        }
    }

    /// `--save-every`: an edit as a user makes one, then a save as Ctrl+S
    /// does, each announced on stdout (`saving F` before the file is
    /// touched, `saved F` after) for the crash tests that kill the editor.
    fn rename_and_save(&mut self, every: u64) {
        use std::io::Write as _;
        let frame = self.frames;
        if frame.is_multiple_of(every) {
            let root = self.app.doc.scene().roots().next();
            if let Some(root) = root
                && let Err(e) = self.app.doc.rename(root, format!("saved at frame {frame}"))
            {
                log::error!("--save-every: {e}");
            }
        } else if frame % every == every / 2 && self.app.doc.is_dirty() {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "saving {frame}");
            let _ = out.flush();
            self.app.save();
            let _ = writeln!(out, "saved {frame}");
            let _ = out.flush();
        }
    }
}

/// Gets the next surface texture, reconfiguring or recreating the surface when
/// it went stale; `None` to skip this frame.
fn acquire(win: &mut WindowState, gpu: &Gpu) -> Option<wgpu::SurfaceTexture> {
    for _ in 0..2 {
        match win.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(frame) => return Some(frame),
            wgpu::CurrentSurfaceTexture::Suboptimal(frame) => {
                // Use this one; the next frame gets a matching configuration.
                win.surface.configure(&gpu.ctx.device, &win.config);
                return Some(frame);
            }
            wgpu::CurrentSurfaceTexture::Outdated => {
                win.surface.configure(&gpu.ctx.device, &win.config)
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                match gpu.ctx.instance.create_surface(win.window.clone()) {
                    Ok(surface) => {
                        win.surface = surface;
                        win.surface.configure(&gpu.ctx.device, &win.config);
                    }
                    Err(e) => {
                        log::error!("the window surface was lost and cannot be recreated: {e}");
                        return None;
                    }
                }
            }
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                return None;
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                log::error!("the window surface reported a validation error; skipping the frame");
                return None;
            }
        }
    }
    None
}

/// Draws egui's primitives into `view`, cleared first.
fn paint(
    win: &mut WindowState,
    gpu: &Gpu,
    primitives: &[egui::ClippedPrimitive],
    screen: &egui_wgpu::ScreenDescriptor,
    view: &wgpu::TextureView,
) {
    keel_engine::profile::puffin::profile_scope!("paint ui");
    let mut encoder = gpu
        .ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("keel-editor egui"),
        });
    let callbacks = win.renderer.update_buffers(
        &gpu.ctx.device,
        &gpu.ctx.queue,
        &mut encoder,
        primitives,
        screen,
    );
    {
        let mut pass = encoder
            .begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("keel-editor egui pass"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                    depth_slice: None,
                })],
                ..Default::default()
            })
            .forget_lifetime();
        win.renderer.render(&mut pass, primitives, screen);
    }
    gpu.ctx.queue.submit(
        callbacks
            .into_iter()
            .chain(std::iter::once(encoder.finish())),
    );
}

impl ApplicationHandler for Shell {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.win.is_none()
            && let Err(e) = self.open_window(event_loop)
        {
            self.fail(event_loop, e);
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(win) = self.win.as_mut() else {
            return;
        };
        let response = win.egui.on_window_event(&win.window, &event);
        match event {
            WindowEvent::CloseRequested => {
                // The editor asks about unsaved changes; it says when to exit.
                self.app.request_quit();
                win.window.request_redraw();
            }
            WindowEvent::Resized(size) => {
                if size.width > 0
                    && size.height > 0
                    && let Some(gpu) = &self.gpu
                {
                    win.config.width = size.width;
                    win.config.height = size.height;
                    win.surface.configure(&gpu.ctx.device, &win.config);
                }
                win.window.request_redraw();
            }
            WindowEvent::RedrawRequested => self.redraw(event_loop),
            _ => {
                if response.repaint {
                    win.window.request_redraw();
                }
            }
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        let Some(win) = &self.win else {
            return;
        };
        let size = win.window.inner_size();
        if size.width == 0 || size.height == 0 {
            // Minimised: nothing to draw; keep simulating at a gentle pace.
            event_loop.set_control_flow(ControlFlow::WaitUntil(
                Instant::now() + Duration::from_millis(50),
            ));
        } else {
            event_loop.set_control_flow(ControlFlow::Poll);
        }
        win.window.request_redraw();
    }
}

/// Entry point shared by the `keel-editor` and `keel` binaries: parses the
/// command line (opening `default_scene` when none is named) and runs the editor.
pub fn main_with_default_scene(default_scene: Option<PathBuf>) -> std::process::ExitCode {
    run_game(keel_engine::Game::new(), default_scene)
}

/// The editor's `main` for a game: its plugins' components are known to
/// every scene opened (shown and edited in the inspector), its resources and
/// systems run in Play. A game's editor binary is
/// `fn main() -> ExitCode { keel_editor::run_game(game(), Some(scene)) }`.
pub fn run_game(game: keel_engine::Game, default_scene: Option<PathBuf>) -> std::process::ExitCode {
    use std::process::ExitCode;
    // Warnings and errors go to stderr as before and to the editor's Log tab.
    let log = crate::log_book::LogBook::default();
    if let Err(e) = crate::log_book::CaptureLogger::install(log.clone()) {
        eprintln!("keel-editor: no log capture: {e}");
    }
    // The event loop runs the fixed updates on this thread.
    keel_engine::join_pool();
    let cli = match crate::cli::Cli::parse(std::env::args_os().skip(1)) {
        Ok(cli) => cli,
        Err(crate::cli::CliError::Help) => {
            println!("{}", crate::cli::USAGE);
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("keel-editor: {e}\n\n{}", crate::cli::USAGE);
            return ExitCode::from(2);
        }
    };
    let resume = match cli.resume.as_deref().map(|f| (f, crate::Handover::read(f))) {
        None => None,
        Some((file, Ok(handover))) => Some(Resume {
            handover,
            file: file.to_path_buf(),
        }),
        Some((_, Err(e))) => {
            eprintln!("keel-editor: {e}");
            return ExitCode::from(2);
        }
    };
    let live = match cli.live.as_deref().map(|dir| live_mode(dir, &log)) {
        None => None,
        Some(Ok(live)) => Some(live),
        Some(Err(e)) => {
            eprintln!("keel-editor: --live: {e}");
            return ExitCode::from(2);
        }
    };
    let options = ShellOptions {
        editor: EditorOptions {
            scene: cli.scene.clone().or(default_scene),
            config_dir: crate::persist::default_config_dir(),
            play: cli.play,
            log,
            autosave: cli.autosave,
            game,
            limits: keel_engine::files::ReadLimits::from_env(),
            shader_dir: Some(keel_engine::assets::shaders::dir_from_env()),
        },
        frame_limit: cli.frame_limit(),
        screenshot: cli.screenshot.clone(),
        view_screenshot: cli.view_screenshot.clone(),
        game_screenshot: cli.game_screenshot.clone(),
        lose_device_at: cli.lose_device_at,
        save_every: cli.save_every,
        size: cli.size,
    };
    match run(options, live, resume) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("keel-editor: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Live mode on the game crate in `dir`: this executable rebuilt (its
/// binary, in the profile it was built in) when the crate's sources change.
fn live_mode(
    dir: &std::path::Path,
    log: &crate::log_book::LogBook,
) -> Result<crate::live_mode::LiveMode, crate::live_build::WatchError> {
    let bin = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.file_stem().map(|s| s.to_string_lossy().into_owned()));
    let game = crate::live_build::GameCrate {
        bin,
        profile: (!cfg!(debug_assertions)).then(|| "release".to_owned()),
        ..crate::live_build::GameCrate::new(dir.join("Cargo.toml"))
    };
    if !dir.join("Cargo.toml").is_file() {
        return Err(crate::live_build::WatchError {
            dir: dir.to_path_buf(),
            reason: "no Cargo.toml there (--live takes the game crate's folder)".to_owned(),
        });
    }
    let build = crate::live_build::LiveBuild::new(game).watching()?;
    log::info!("live: watching {}", dir.display());
    let args = std::env::args_os().skip(1).collect();
    Ok(crate::live_mode::LiveMode::new(build, log.clone(), args))
}
