//! The window shell: egui-winit and egui-wgpu glue around [`EditorApp`], a
//! [`Host`] of the engine's [`runner`] (which owns the
//! loop, the device, the surface, pacing and device loss, as for the
//! players).
//!
//! Each frame: the world's fixed steps for the real time elapsed
//! ([`EditorApp::frame`] with the runner's clock), then the UI, which
//! applies edits between steps, then egui's drawing into the surface, which
//! egui writes already encoded ([`SurfaceEncoding::AsWritten`]).
//!
//! The device and queue live in [`Gpu`], created once and shared: the engine's
//! renderer uses the same device, and draws the 3D view inside egui's pass
//! through an egui-wgpu paint callback (its resources go in
//! `egui_wgpu::Renderer::callback_resources`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use keel_engine::GpuContext;
use keel_engine::render::{GpuProblem, SurfaceEncoding};
use keel_engine::runner::{self, Flow, Host, RunOptions, RunnerError, Target, Update};
use winit::dpi::LogicalSize;
use winit::event::WindowEvent;
use winit::window::{Window, WindowAttributes};

use crate::action::Action;
use crate::app::{EditorApp, EditorOptions};
use crate::capture::{self, CaptureError};
use crate::gpu::Gpu;

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
    /// No display, window, surface or GPU to draw with.
    #[error(transparent)]
    Runner(#[from] RunnerError),
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

/// What draws into the window (made again on a new device after a loss).
struct WindowState {
    window: Arc<Window>,
    gpu: Gpu,
    egui: egui_winit::State,
    renderer: egui_wgpu::Renderer,
    scene_view: crate::view_renderer::SceneView,
}

/// What egui made in a frame's update, for the frame's drawing.
struct Painted {
    shapes: Vec<egui::epaint::ClippedShape>,
    pixels_per_point: f32,
    /// Textures to free once the frame that may still use them is drawn.
    to_free: Vec<egui::TextureId>,
}

/// The editor window: a [`Host`] of the engine's runner, which owns the
/// loop, the device, the surface and the pacing.
struct Shell {
    app: EditorApp,
    ctx: egui::Context,
    options: ShellOptions,
    win: Option<WindowState>,
    /// The frame's UI, between its update and its drawing.
    painted: Option<Painted>,
    captured: bool,
    /// The window's title, as the editor said it after the frame's UI.
    title: String,
    /// Live mode: the game's rebuild and the handover to the new build.
    live: Option<crate::live::process::LiveMode>,
    /// The handover this editor started from, until its first frame shows.
    resumed_file: Option<PathBuf>,
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
    live: Option<crate::live::process::LiveMode>,
    resume: Option<Resume>,
) -> Result<(), ShellError> {
    let (mut app, resumed_file) = match resume {
        Some(r) => {
            let started = Instant::now();
            let app = match EditorApp::resume(options.editor.clone(), r.handover) {
                Ok(app) => app,
                Err(e) => {
                    // The old build reads why, and stays up.
                    let _ =
                        std::fs::write(crate::live::process::reason_file(&r.file), e.to_string());
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
        app.workspace_mut()
            .show_panel(crate::chrome::dock::Panel::Game);
    }
    let run = RunOptions {
        encoding: SurfaceEncoding::AsWritten,
        frame_limit: options.frame_limit,
        lose_device_at: options.lose_device_at,
        ..RunOptions::default()
    };
    let shell = Shell {
        title: app.doc().title(),
        app,
        ctx: egui::Context::default(),
        options,
        win: None,
        painted: None,
        captured: false,
        live,
        resumed_file,
    };
    let shell = runner::run(shell, run)?;
    if shell.options.screenshot.is_some() && !shell.captured {
        return Err(ShellError::NoFrame);
    }
    Ok(())
}

impl Shell {
    /// Frees the textures of a frame whose UI was made but not drawn
    /// (minimised, or the surface skipped it).
    fn free_undrawn(&mut self) {
        if let (Some(painted), Some(win)) = (self.painted.take(), self.win.as_mut()) {
            for id in &painted.to_free {
                win.renderer.free_texture(id);
            }
        }
    }

    /// `--screenshot`, `--view-screenshot` and `--game-screenshot` of the
    /// last frame, whose UI is `primitives`.
    fn screenshots(
        &mut self,
        primitives: &[egui::ClippedPrimitive],
        screen: &egui_wgpu::ScreenDescriptor,
    ) -> Result<(), ShellError> {
        let Some(win) = self.win.as_mut() else {
            return Ok(());
        };
        let save = |path: &PathBuf, image: Option<Result<_, CaptureError>>| match image {
            None => Err(ShellError::NoFrame),
            Some(image) => {
                capture::save_png(&image?, path)?;
                log::info!("wrote {}", path.display());
                Ok(())
            }
        };
        if let Some(path) = &self.options.view_screenshot {
            save(path, win.scene_view.read_back())?;
        }
        if let Some(path) = &self.options.game_screenshot {
            save(path, win.scene_view.read_back_game())?;
        }
        if let Some(path) = &self.options.screenshot {
            let gpu = &win.gpu;
            let target =
                capture::capture_target(&gpu.ctx.device, screen.size_in_pixels, gpu.surface_format);
            let view = target.create_view(&wgpu::TextureViewDescriptor::default());
            paint(win, primitives, screen, &view);
            let gpu = &win.gpu;
            let image = capture::read_texture(&gpu.ctx.device, &gpu.ctx.queue, &target)?;
            capture::save_png(&image, path)?;
            self.captured = true;
            log::info!("wrote {}", path.display());
        }
        Ok(())
    }

    /// `--save-every`: an edit as a user makes one, then a save as Ctrl+S
    /// does, each announced on stdout (`saving F` before the file is
    /// touched, `saved F` after) for the crash tests that kill the editor.
    fn rename_and_save(&mut self, every: u64, frame: u64) {
        use std::io::Write as _;
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
            self.app.act(Action::Save);
            let _ = writeln!(out, "saved {frame}");
            let _ = out.flush();
        }
    }
}

impl Host for Shell {
    type Error = ShellError;

    fn window_attributes(&self) -> WindowAttributes {
        let [width, height] = self.options.size.unwrap_or([1600, 900]).map(f64::from);
        Window::default_attributes()
            .with_title(self.title.as_str())
            .with_inner_size(LogicalSize::new(width, height))
    }

    /// egui's renderer and the 3D view on the device.
    fn attach(
        &mut self,
        ctx: &GpuContext,
        format: wgpu::TextureFormat,
        window: &Arc<Window>,
    ) -> Result<(), ShellError> {
        let gpu = Gpu {
            ctx: ctx.clone(),
            surface_format: format,
        };
        let egui = egui_winit::State::new(
            self.ctx.clone(),
            egui::ViewportId::ROOT,
            window,
            Some(window.scale_factor() as f32),
            window.theme(),
            Some(ctx.device.limits().max_texture_dimension_2d as usize),
        );
        let renderer =
            egui_wgpu::Renderer::new(&ctx.device, format, egui_wgpu::RendererOptions::default());
        let scene_view = crate::view_renderer::SceneView::new(&gpu);
        self.win = Some(WindowState {
            window: window.clone(),
            gpu,
            egui,
            renderer,
            scene_view,
        });
        Ok(())
    }

    /// Every GPU object goes, and egui's context, whose textures lived on
    /// the device. The document, its undo history and the running world
    /// are untouched.
    fn detach(&mut self) {
        self.win = None;
        self.painted = None;
        self.ctx = egui::Context::default();
        self.app.workspace_mut().forget_textures();
        self.app.views_mut().forget_textures();
    }

    fn event(&mut self, _: &Window, event: &WindowEvent) -> Flow<ShellError> {
        if let Some(win) = self.win.as_mut() {
            let _ = win.egui.on_window_event(&win.window, event);
        }
        Flow::Go
    }

    /// The editor asks about unsaved changes; it says when to exit.
    fn close_requested(&mut self) -> Flow<ShellError> {
        self.app.act(Action::Quit);
        Flow::Go
    }

    /// Filed in the status line; a lost device is made again by the runner.
    fn gpu_problems(&mut self, problems: &[GpuProblem]) -> Flow<ShellError> {
        for problem in problems {
            self.app.status_mut().error(problem.to_string());
        }
        Flow::Go
    }

    /// The world's fixed steps, live mode, the 3D view (at the size and
    /// camera the UI left last frame), then the UI, which applies edits
    /// between steps.
    fn update(&mut self, update: Update<'_>) -> Flow<ShellError> {
        self.free_undrawn();
        let Some(win) = self.win.as_mut() else {
            return Flow::Go;
        };
        #[cfg(feature = "gamepads")]
        if let Some(pads) = update.gamepads {
            self.app.playback_mut().poll_gamepads(pads);
        }
        self.app.frame(update.time);
        if let Some(live) = &mut self.live
            && live.frame(&mut self.app) == crate::live::process::AfterFrame::Quit
        {
            return Flow::Exit;
        }
        win.scene_view.render(&mut win.renderer, &mut self.app);
        win.scene_view.draw_thumbnail(&mut self.app);
        let input = win.egui.take_egui_input(&win.window);
        let app = &mut self.app;
        let mut output = self.ctx.run_ui(input, |ui| app.ui(ui));
        win.egui
            .handle_platform_output(&win.window, std::mem::take(&mut output.platform_output));
        // Texture uploads happen even when nothing is drawn, or later frames would miss them;
        // frees wait until the frame that may still use the textures is drawn.
        let gpu = &win.gpu;
        for (id, deltas) in output.textures_delta.set.drain() {
            for delta in deltas {
                win.renderer
                    .update_texture(&gpu.ctx.device, &gpu.ctx.queue, id, &delta);
            }
        }
        self.painted = Some(Painted {
            shapes: output.shapes,
            pixels_per_point: output.pixels_per_point,
            to_free: output.textures_delta.free.drain().collect(),
        });
        self.title = self.app.doc().title();
        if self.app.should_quit() {
            return Flow::Exit;
        }
        Flow::Go
    }

    fn title(&self) -> Option<&str> {
        Some(&self.title)
    }

    fn draw(&mut self, _: &GpuContext, target: &Target<'_>) -> Flow<ShellError> {
        let (Some(painted), Some(win)) = (self.painted.take(), self.win.as_mut()) else {
            return Flow::Go;
        };
        let primitives = {
            keel_engine::profile::puffin::profile_scope!("tessellate ui");
            self.ctx
                .tessellate(painted.shapes, painted.pixels_per_point)
        };
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [target.size.0, target.size.1],
            pixels_per_point: painted.pixels_per_point,
        };
        paint(win, &primitives, &screen, target.view);
        let shots = if target.last {
            self.screenshots(&primitives, &screen)
        } else {
            Ok(())
        };
        if let Some(win) = self.win.as_mut() {
            for id in &painted.to_free {
                win.renderer.free_texture(id);
            }
        }
        match shots {
            Ok(()) => Flow::Go,
            Err(error) => Flow::Fail(error),
        }
    }

    fn presented(&mut self, frame: u64) -> Flow<ShellError> {
        if let Some(file) = self.resumed_file.take() {
            // The old build quits on seeing it gone.
            if let Err(e) = std::fs::remove_file(&file) {
                log::warn!("live: {}: {e}", file.display());
            }
        }
        if let Some(every) = self.options.save_every {
            self.rename_and_save(every, frame);
        }
        Flow::Go
    }
}

/// Draws egui's primitives into `view`, cleared first.
fn paint(
    win: &mut WindowState,
    primitives: &[egui::ClippedPrimitive],
    screen: &egui_wgpu::ScreenDescriptor,
    view: &wgpu::TextureView,
) {
    keel_engine::profile::puffin::profile_scope!("paint ui");
    let gpu = &win.gpu;
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
) -> Result<crate::live::process::LiveMode, crate::live::build::WatchError> {
    let bin = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.file_stem().map(|s| s.to_string_lossy().into_owned()));
    let game = crate::live::build::GameCrate {
        bin,
        profile: (!cfg!(debug_assertions)).then(|| "release".to_owned()),
        ..crate::live::build::GameCrate::new(dir.join("Cargo.toml"))
    };
    if !dir.join("Cargo.toml").is_file() {
        return Err(crate::live::build::WatchError {
            dir: dir.to_path_buf(),
            reason: "no Cargo.toml there (--live takes the game crate's folder)".to_owned(),
        });
    }
    let build = crate::live::build::LiveBuild::new(game).watching()?;
    log::info!("live: watching {}", dir.display());
    let args = std::env::args_os().skip(1).collect();
    Ok(crate::live::process::LiveMode::new(
        build,
        log.clone(),
        args,
    ))
}
