//! The player's window: the viewer is a [`Host`] of the engine's
//! [`runner`], which owns the loop, the device, the
//! surface and the pacing. Each frame feeds the real elapsed time to the
//! world's fixed-step clock, runs the fixed updates it asks for, and renders
//! once at the clock's interpolation alpha. Also here: the headless run,
//! one offscreen frame read back.

use std::path::{Path, PathBuf};
use std::sync::Arc;

// winit's clock: std's on native, the browser's on the web.
use web_time::Instant;

use winit::dpi::PhysicalSize;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Window, WindowAttributes};

use keel_engine::files::{FileKind, ReadLimits};
use keel_engine::profile::Profiler;
use keel_engine::reload::{FileWatcher, reload_assets};
use keel_engine::render::{GpuProblem, PresentModeChoice, RenderError, SurfaceEncoding};
use keel_engine::runner::{self, Flow, Host, RunOptions, RunnerError, Target, Update};
use keel_engine::{
    Assets, CameraRig, Extractor, Game, GameError, GpuContext, Hud, Overlays, Renderer, Scene,
    SceneError, SystemPanic, World,
};

/// How the viewer was asked to run.
#[derive(Clone, Debug)]
pub struct PlayerOptions {
    /// Scene file to open.
    pub scene: PathBuf,
    /// The plugins the world runs with.
    pub game: Game,
    /// Render offscreen, with no window.
    pub headless: bool,
    /// Stop after this many rendered frames.
    pub frames: Option<u32>,
    /// Window (or image) size in pixels.
    pub size: (u32, u32),
    /// Write the last frame to this PNG.
    pub screenshot: Option<PathBuf>,
    /// Graphics backends to try.
    pub backends: wgpu::Backends,
    /// Presentation mode of the swap chain.
    pub present: PresentModeChoice,
    /// Most frames per second to render (sleeps between frames), if any.
    pub fps_cap: Option<f64>,
    /// Record what is played in the window (every fixed step's input) and
    /// write it here as a replayable recording when the window closes.
    pub record: Option<PathBuf>,
    /// Time every frame (CPU scopes and GPU passes) and print where the
    /// time went when the run ends.
    pub profile: bool,
    /// The viewer's own keys (free look, pause, step, overlays, Esc): on in
    /// `keel-viewer`, off in a game's player unless asked for. A key the
    /// viewer takes never reaches the game.
    pub debug_keys: bool,
    /// The file and node limits the scene and its models are read within
    /// (the command line reads them from the environment).
    pub limits: ReadLimits,
    /// The folder of WGSL files watched for hot reload (`None`: shaders
    /// stay as built in; the command line names the source tree's folder).
    pub shader_dir: Option<PathBuf>,
    /// Cull and pack the camera's meshes on the CPU every frame (the
    /// reference path) instead of culling the retained scene on the GPU:
    /// `--benchmark --cpu-culling` measures the two against each other.
    pub cpu_culling: bool,
    /// Destroy the GPU device after this frame, once (to try how the
    /// window's drawing is made again on a new device).
    pub lose_device_at: Option<u64>,
}

/// Why the viewer stopped early.
#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    /// The scene file could not be loaded.
    #[error(transparent)]
    Scene(Box<SceneError>),
    /// The GPU could not be set up or drawn to.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// The platform refused a window or an event loop.
    #[error("windowing: {message}")]
    Window {
        /// What the platform said.
        message: String,
    },
    /// The device refused work it was given, or was lost (reported by its
    /// handlers instead of a panic; see [`keel_engine::render::GpuErrors`]).
    #[error("{0}")]
    Gpu(keel_engine::render::GpuProblem),
    /// A plugin could not set the world up.
    #[error(transparent)]
    Game(Box<GameError>),
    /// A user system panicked: the run stops (exit code 2).
    #[error(transparent)]
    System(SystemPanic),
    /// What was played could not be written as a recording.
    #[error("{}: recording not written: {message}", path.display())]
    Record {
        /// The recording's path.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The screenshot could not be written.
    #[error("{}: could not write the screenshot: {source}", path.display())]
    Screenshot {
        /// The image path.
        path: PathBuf,
        /// What went wrong.
        source: image::ImageError,
    },
}

impl From<GameError> for PlayerError {
    fn from(error: GameError) -> Self {
        match error {
            GameError::Scene(scene) => Self::Scene(Box::new(scene)),
            other => Self::Game(Box::new(other)),
        }
    }
}

impl From<RunnerError> for PlayerError {
    fn from(error: RunnerError) -> Self {
        match error {
            RunnerError::Render(render) => Self::Render(render),
            other => Self::Window {
                message: other.to_string(),
            },
        }
    }
}

impl From<SceneError> for PlayerError {
    fn from(error: SceneError) -> Self {
        Self::Scene(Box::new(error))
    }
}

/// Loads the scene and renders it offscreen: `frames` frames of 1/60 s, then reads the last back.
///
/// # Errors
/// Scene, GPU and image errors.
pub fn render_headless(options: &PlayerOptions) -> Result<image::RgbaImage, PlayerError> {
    let mut world = options
        .game
        .load(&options.scene, &Assets::with_limits(options.limits.clone()))?;
    let ctx = GpuContext::headless(options.backends)?;
    log::info!("adapter: {}", ctx.adapter_summary());
    let mut renderer = Renderer::new(&ctx, wgpu::TextureFormat::Rgba8UnormSrgb);
    let profiler = start_profiler(options.profile, &ctx, &mut renderer);
    let mut buffers = Extractor::default();
    buffers.set_cpu_culling(options.cpu_culling);
    let frames = options.frames.unwrap_or(1).max(1);
    let (width, height) = options.size;
    let aspect = width as f32 / height as f32;
    // Every frame is drawn (offscreen), so the timing below is a real frame rate.
    let target = offscreen_target(&ctx, options.size);
    let view = target.create_view(&wgpu::TextureViewDescriptor::default());
    let start = Instant::now();
    let (mut draw_calls, mut shadow_draw_calls) = (0, 0);
    let mut last = None;
    for i in 1..=frames {
        if let Some(profiler) = &profiler {
            profiler.new_frame();
            profiler.add_gpu(renderer.take_gpu_times());
        }
        puffin::profile_scope!("frame");
        world.advance(keel_engine::DEFAULT_STEP);
        if let Some(panic) = world.system_panic() {
            return Err(PlayerError::System(panic.clone()));
        }
        let camera = world.game_camera();
        let frame = buffers.extract_world(&mut world, camera, aspect, &Overlays::default());
        if i == frames {
            last = Some(renderer.render_to_image(&ctx, &frame, width, height)?);
        } else {
            renderer.render(&ctx, &frame, &view, (width, height));
        }
        draw_calls += renderer.stats().draw_calls;
        shadow_draw_calls += renderer.stats().shadow_draw_calls;
        if let Some(problem) = ctx.errors.take().into_iter().next() {
            return Err(PlayerError::Gpu(problem));
        }
    }
    let image = last.expect("frames >= 1, and the last one is read back");
    if let Some(profiler) = profiler {
        print_profile(&profiler, &ctx, &mut renderer);
    }
    let seconds = start.elapsed().as_secs_f64();
    log::info!(
        "{frames} frames in {seconds:.2} s: {:.1} frames per second, {:.1} draw calls per frame \
         (+ {:.1} into the shadow map)",
        f64::from(frames) / seconds,
        draw_calls as f64 / f64::from(frames),
        shadow_draw_calls as f64 / f64::from(frames)
    );
    if let Some(path) = &options.screenshot {
        save_png(&image, path)?;
    }
    Ok(image)
}

/// An sRGB image of `size` to render into offscreen (the headless viewer's
/// and the benchmark's frames).
pub(crate) fn offscreen_target(ctx: &GpuContext, size: (u32, u32)) -> wgpu::Texture {
    ctx.device
        .create_texture(&keel_engine::render::target_descriptor(
            "keel-viewer offscreen target",
            size,
            wgpu::TextureFormat::Rgba8UnormSrgb,
            wgpu::TextureUsages::empty(),
        ))
}

fn save_png(image: &image::RgbaImage, path: &std::path::Path) -> Result<(), PlayerError> {
    image.save(path).map_err(|source| PlayerError::Screenshot {
        path: path.to_path_buf(),
        source,
    })
}

/// A profiler recording, and the renderer timing its passes, when asked for.
fn start_profiler(on: bool, ctx: &GpuContext, renderer: &mut Renderer) -> Option<Profiler> {
    if !on {
        return None;
    }
    if !renderer.set_gpu_timing(ctx, true) {
        log::warn!("--profile: this adapter has no timestamp queries: no GPU pass times");
    }
    let mut profiler = Profiler::new();
    profiler.set_recording(true);
    Some(profiler)
}

/// Prints where the frames' time went (the GPU's last frames waited for).
fn print_profile(profiler: &Profiler, ctx: &GpuContext, renderer: &mut Renderer) {
    profiler.new_frame();
    let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
    renderer.finish_gpu_frame(ctx);
    profiler.add_gpu(renderer.take_gpu_times());
    println!("{}", profiler.report());
}

fn window_title(options: &PlayerOptions) -> String {
    format!("Keel viewer: {}", options.scene.display())
}

/// The GPU objects the viewer draws with (made again after a lost device).
struct Drawing {
    /// The device the renderer is on, for `--profile`'s report once the
    /// runner has returned (frames draw with the runner's).
    ctx: GpuContext,
    renderer: Renderer,
}

/// The viewer: a world, its cameras and (once attached to a device) a
/// renderer; the [`runner`] drives it.
struct Viewer {
    options: PlayerOptions,
    world: World,
    rig: CameraRig,
    /// Drawing through `rig` (C toggles), not the scene's active camera.
    free_look: bool,
    overlays: Overlays<'static>,
    buffers: Extractor,
    drawing: Option<Drawing>,
    buttons: [bool; 3],
    shift: bool,
    cursor: Option<(f64, f64)>,
    last_frame: Instant,
    /// Reports changed files (hot reload); none when the system offers no watching.
    watcher: Option<FileWatcher>,
    /// The window's input, read by the game's systems each fixed step.
    input: keel_engine::input::InputCollector,
    /// Frames timed with `--profile` (set up with the GPU).
    profiler: Option<Profiler>,
    /// The game's [`Hud`] text the title shows, and the title showing it.
    hud_shown: String,
    title: Option<String>,
}

impl Viewer {
    /// Hot reload: the scene's own file loads again (a broken one is logged
    /// and the world keeps running); shaders, models, textures and prefabs
    /// reload into the running world.
    fn reload_changed_files(&mut self) {
        let Some(watcher) = &mut self.watcher else {
            return;
        };
        let changed = watcher.changed();
        if changed.is_empty() {
            return;
        }
        let own = std::fs::canonicalize(&self.options.scene).ok();
        let own_changed = own.as_ref().is_some_and(|p| changed.contains(p));
        if own_changed && self.options.record.is_some() {
            // A recording is of one scene: the running one stays.
            log::warn!("the scene changed on disk; not reloaded while recording");
        } else if own_changed {
            let assets = self.world.scene().assets().clone();
            match Scene::load(&self.options.scene, &assets) {
                Ok(scene) => {
                    watcher.watch_scene(&scene, Some(&self.options.scene));
                    let mut world = World::new(scene);
                    if let Err(e) = self.options.game.build_for(&mut world, &self.options.scene) {
                        log::error!("not reloaded: {e}");
                        return;
                    }
                    self.world = world;
                    log::info!("reloaded {}", self.options.scene.display());
                    let released = assets.release_unused();
                    if released.models > 0 {
                        log::info!("released {released:?}");
                    }
                }
                Err(e) => log::error!("not reloaded: {e}"),
            }
        }
        let reloaded = reload_assets(&changed, self.world.scene_mut());
        for error in &reloaded.errors {
            log::error!("not reloaded: {error}");
        }
        if !reloaded.is_empty() {
            log::info!(
                "reloaded shaders {:?}, models {:?} ({} instances)",
                reloaded.shaders,
                reloaded.models,
                reloaded.instances
            );
        }
        if changed
            .iter()
            .any(|p| p.extension().is_some_and(|e| e == "ron"))
        {
            match self.world.scene_mut().refresh_prefabs() {
                Ok(0) => {}
                Ok(n) => log::info!("{n} prefab instances updated"),
                Err(e) => log::error!("prefab not reloaded: {e}"),
            }
        }
    }

    /// A fresh extractor (its retained slots are the renderer's, so a new
    /// renderer starts from empty ones).
    fn new_buffers(&self) -> Extractor {
        let mut buffers = Extractor::default();
        buffers.set_cpu_culling(self.options.cpu_culling);
        buffers
    }

    fn key(&mut self, code: KeyCode, pressed: bool) -> Flow<PlayerError> {
        let held = match code {
            KeyCode::KeyW => Some(0),
            KeyCode::KeyS => Some(1),
            KeyCode::KeyA => Some(2),
            KeyCode::KeyD => Some(3),
            KeyCode::KeyE => Some(4),
            KeyCode::KeyQ => Some(5),
            _ => None,
        };
        if let Some(i) = held
            && self.free_look
        {
            self.rig.held[i] = pressed;
        }
        if !pressed {
            return Flow::Go;
        }
        let clock = self.world.clock_mut();
        match code {
            KeyCode::Escape => return Flow::Exit,
            KeyCode::Space => clock.set_paused(!clock.is_paused()),
            KeyCode::Period => clock.step_once(),
            KeyCode::Tab => self.rig.toggle_fly(),
            KeyCode::KeyC => {
                // Free look starts where the scene's camera is.
                self.free_look = !self.free_look;
                if self.free_look {
                    self.rig.place_at(&self.world.game_camera());
                }
                self.rig.held = [false; 6];
            }
            KeyCode::KeyG => self.overlays.grid = !self.overlays.grid,
            KeyCode::KeyB => self.overlays.aabbs = !self.overlays.aabbs,
            KeyCode::KeyO => self.overlays.octree_cells = !self.overlays.octree_cells,
            KeyCode::KeyR => {
                self.overlays.recomputed = !self.overlays.recomputed;
                self.world.set_track_recomputed(self.overlays.recomputed);
            }
            _ => {}
        }
        Flow::Go
    }

    /// The free look's mouse: drags orbit or pan, the wheel zooms.
    fn mouse(&mut self, event: &WindowEvent) {
        match event {
            WindowEvent::ModifiersChanged(modifiers) => self.shift = modifiers.state().shift_key(),
            WindowEvent::MouseInput { state, button, .. } => {
                let index = match button {
                    MouseButton::Left => 0,
                    MouseButton::Middle => 1,
                    MouseButton::Right => 2,
                    _ => return,
                };
                self.buttons[index] = *state == ElementState::Pressed;
            }
            WindowEvent::CursorMoved { position, .. } => {
                if let Some((x, y)) = self.cursor
                    && self.free_look
                {
                    let (dx, dy) = ((position.x - x) as f32, (position.y - y) as f32);
                    let [left, middle, right] = self.buttons;
                    if middle || (left && self.shift) {
                        self.rig.drag(dx, dy, true);
                    } else if left || right {
                        self.rig.drag(dx, dy, false);
                    }
                }
                self.cursor = Some((position.x, position.y));
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let lines = match delta {
                    MouseScrollDelta::LineDelta(_, y) => *y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                if self.free_look {
                    self.rig.wheel(lines);
                }
            }
            _ => {}
        }
    }
}

impl Host for Viewer {
    type Error = PlayerError;

    fn window_attributes(&self) -> WindowAttributes {
        Window::default_attributes()
            .with_title(window_title(&self.options))
            .with_inner_size(PhysicalSize::new(self.options.size.0, self.options.size.1))
    }

    fn attach(
        &mut self,
        gpu: &GpuContext,
        format: wgpu::TextureFormat,
        _: &Arc<Window>,
    ) -> Result<(), PlayerError> {
        let mut renderer = Renderer::new(gpu, format);
        if self.profiler.is_none() {
            self.profiler = start_profiler(self.options.profile, gpu, &mut renderer);
        } else if !renderer.set_gpu_timing(gpu, true) {
            log::warn!("--profile: the new device has no timestamp queries: no GPU pass times");
        }
        self.buffers = self.new_buffers();
        self.drawing = Some(Drawing {
            ctx: gpu.clone(),
            renderer,
        });
        Ok(())
    }

    fn detach(&mut self) {
        self.drawing = None;
    }

    fn event(&mut self, _: &Window, event: &WindowEvent) -> Flow<PlayerError> {
        if let WindowEvent::KeyboardInput { event: key, .. } = event
            && let PhysicalKey::Code(code) = key.physical_key
            && viewer_key(code, self.options.debug_keys, self.free_look)
        {
            return self.key(code, key.state == ElementState::Pressed);
        }
        self.input.window_event(event);
        self.mouse(event);
        Flow::Go
    }

    fn gpu_problems(&mut self, problems: &[GpuProblem]) -> Flow<PlayerError> {
        // A lost device is made again; anything else the device refused is
        // the scene's or the engine's fault, and stops the run.
        match problems.iter().find(|p| !matches!(p, GpuProblem::Lost(_))) {
            Some(problem) => Flow::Fail(PlayerError::Gpu(problem.clone())),
            None => {
                for problem in problems {
                    log::warn!("{problem}");
                }
                Flow::Go
            }
        }
    }

    fn update(&mut self, update: Update<'_>) -> Flow<PlayerError> {
        if let (Some(profiler), Some(drawing)) = (&self.profiler, &mut self.drawing) {
            profiler.new_frame();
            profiler.add_gpu(drawing.renderer.take_gpu_times());
        }
        let now = Instant::now();
        let dt = now.duration_since(self.last_frame).as_secs_f32().min(0.1);
        self.last_frame = now;
        if self.free_look {
            self.rig.update(dt);
        }
        self.reload_changed_files();
        #[cfg(feature = "gamepads")]
        if let Some(pads) = update.gamepads {
            pads.poll(&mut self.input);
        }
        self.world.frame_with_input(update.time, &mut self.input);
        if let Some(hud) = self.world.resource::<Hud>()
            && hud.text != self.hud_shown
        {
            self.hud_shown.clone_from(&hud.text);
            self.title = Some(format!("{}: {}", window_title(&self.options), hud.text));
        }
        match self.world.system_panic() {
            Some(panic) => Flow::Fail(PlayerError::System(panic.clone())),
            None => Flow::Go,
        }
    }

    fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    fn draw(&mut self, gpu: &GpuContext, target: &Target<'_>) -> Flow<PlayerError> {
        let Some(drawing) = &mut self.drawing else {
            return Flow::Go;
        };
        let camera = if self.free_look {
            self.rig.camera()
        } else {
            self.world.game_camera()
        };
        let (width, height) = target.size;
        let aspect = width as f32 / height.max(1) as f32;
        let frame = self
            .buffers
            .extract_world(&mut self.world, camera, aspect, &self.overlays);
        drawing
            .renderer
            .render(gpu, &frame, target.view, target.size);
        if target.last
            && let Some(path) = &self.options.screenshot
        {
            // The same frame, drawn offscreen at the window's size and read back.
            let image = drawing.renderer.render_to_image(gpu, &frame, width, height);
            match image
                .map_err(PlayerError::from)
                .and_then(|img| save_png(&img, path))
            {
                Ok(()) => log::info!("wrote {}", path.display()),
                Err(error) => return Flow::Fail(error),
            }
        }
        Flow::Go
    }
}

/// Whether `code` is the viewer's key (to the viewer, not the game): none
/// without `debug_keys`; the movement keys only while the free look flies.
fn viewer_key(code: KeyCode, debug_keys: bool, free_look: bool) -> bool {
    if !debug_keys {
        return false;
    }
    match code {
        KeyCode::KeyW
        | KeyCode::KeyS
        | KeyCode::KeyA
        | KeyCode::KeyD
        | KeyCode::KeyE
        | KeyCode::KeyQ => free_look,
        KeyCode::Escape
        | KeyCode::Space
        | KeyCode::Period
        | KeyCode::Tab
        | KeyCode::KeyC
        | KeyCode::KeyG
        | KeyCode::KeyB
        | KeyCode::KeyO
        | KeyCode::KeyR => true,
        _ => false,
    }
}

/// Opens a window on the scene and runs until it is closed (or `frames` are drawn).
///
/// # Errors
/// Scene, windowing, GPU and screenshot errors.
pub fn run_windowed(options: PlayerOptions) -> Result<(), PlayerError> {
    let mut world = options
        .game
        .load(&options.scene, &Assets::with_limits(options.limits.clone()))?;
    // The scene's bytes as loaded: a recording names their hash.
    let recorded_scene =
        match &options.record {
            Some(out) => {
                let limits = &options.limits;
                let bytes = keel_engine::files::read(&options.scene, FileKind::Scene, limits)
                    .map_err(|e| PlayerError::Record {
                        path: out.clone(),
                        message: format!("{}: {e}", options.scene.display()),
                    })?;
                world.start_recording(keel_engine::record::RecordSettings::default());
                Some(bytes)
            }
            None => None,
        };
    let run = RunOptions {
        backends: options.backends,
        present: options.present,
        encoding: SurfaceEncoding::Srgb,
        fps_cap: options.fps_cap,
        frame_limit: options.frames.map(u64::from),
        lose_device_at: options.lose_device_at,
    };
    let mut viewer = Viewer {
        rig: CameraRig::new(world.scene()),
        free_look: world.scene().active_camera(0.0).is_none(),
        world,
        options,
        overlays: Overlays::default(),
        buffers: Extractor::default(),
        drawing: None,
        buttons: [false; 3],
        shift: false,
        cursor: None,
        last_frame: Instant::now(),
        watcher: None,
        input: keel_engine::input::InputCollector::default(),
        profiler: None,
        hud_shown: String::new(),
        title: None,
    };
    match FileWatcher::new() {
        Ok(mut watcher) => {
            watcher.watch_scene(viewer.world.scene(), Some(&viewer.options.scene));
            if let Some(dir) = &viewer.options.shader_dir
                && let Err(e) = watcher.watch(dir, false)
            {
                log::warn!("cannot watch {}: {e}", dir.display());
            }
            viewer.watcher = Some(watcher);
        }
        Err(e) => log::warn!("hot reload is off: {e}"),
    }
    let mut viewer = runner::run(viewer, run)?;
    if let (Some(profiler), Some(drawing)) = (&viewer.profiler, &mut viewer.drawing) {
        print_profile(profiler, &drawing.ctx, &mut drawing.renderer);
    }
    if let (Some(out), Some(bytes)) = (&viewer.options.record, recorded_scene) {
        write_played(&mut viewer.world, &viewer.options, out, &bytes)?;
    }
    Ok(())
}

/// Writes what was played in `world` as a recording (see
/// [`crate::played`]); nothing is written when the run did not reproduce.
fn write_played(
    world: &mut World,
    options: &PlayerOptions,
    out: &Path,
    bytes: &[u8],
) -> Result<(), PlayerError> {
    let fail = |message: String| PlayerError::Record {
        path: out.to_path_buf(),
        message,
    };
    let assets = Assets::with_limits(options.limits.clone());
    let recording =
        crate::played::recording_of(world, &options.game, &options.scene, &assets, bytes)
            .map_err(fail)?;
    recording.write(out).map_err(|e| fail(e.to_string()))?;
    log::info!(
        "recorded {} played steps to {}",
        recording.steps,
        out.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::viewer_key;
    use winit::keyboard::KeyCode;

    #[test]
    fn a_key_goes_to_the_viewer_or_the_game_never_both() {
        let all = [
            KeyCode::Space,
            KeyCode::Escape,
            KeyCode::Period,
            KeyCode::Tab,
            KeyCode::KeyC,
            KeyCode::KeyR,
            KeyCode::KeyW,
            KeyCode::KeyQ,
            KeyCode::ArrowLeft,
            KeyCode::Enter,
        ];
        for code in all {
            assert!(
                !viewer_key(code, false, true),
                "{code:?}: a game's player without --debug-keys gives every key to the game"
            );
        }
        assert!(
            viewer_key(KeyCode::Space, true, false),
            "Space pauses the viewer"
        );
        assert!(
            !viewer_key(KeyCode::KeyW, true, false),
            "W moves the game's ship while the free look is off"
        );
        assert!(
            viewer_key(KeyCode::KeyW, true, true),
            "and flies the free look while on"
        );
        assert!(
            !viewer_key(KeyCode::ArrowLeft, true, true),
            "arrows are the game's"
        );
    }
}
