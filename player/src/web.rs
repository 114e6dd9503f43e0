//! The web player: a game in a browser page, through WebGPU.
//!
//! [`play`] takes the same [`Game`] the native player takes. It fetches the
//! page's files (the list `files.txt` the build wrote beside them) into a
//! [`FileSource`], so the scene, its prefabs, models and `input.ron` load
//! through the same reads, limits and located errors as on native; then it
//! fills the page with a canvas, asks the browser for a WebGPU device and
//! runs the world's fixed steps, drawing each frame at the interpolation
//! alpha as the window loop does. Keys, the mouse and gamepads (the
//! browser's Gamepad API, through gilrs) reach the game through the same
//! [`InputCollector`]; the game's [`Hud`] text is shown over the canvas.
//! What stops it (no WebGPU, a file the server did not give, a broken
//! scene, a panic) is written in the page, not left as a blank canvas.
//!
//! Every step's input is recorded as in the window player's `--record
//! --play`: the page's "Save recording" button (shown once a step has run)
//! downloads the run as a recording file that `keel-viewer --replay` (or the
//! game's own player) replays natively. The page's build is named
//! `NAME.wasm+HASH` in its recordings, as a native player names its own
//! (`scripts/web.sh` writes it in the page), so a replay across the two says
//! so rather than blaming an unknown build. `?replay=FILE` (a recording
//! beside the page, made anywhere) replays it in the page instead and shows
//! the verdict; the
//! simulation's math is the same on both (glam's scalar path and libm, see
//! ARCHITECTURE.md), so both say `identical`.
//!
//! The page is built and served by `scripts/web.sh` (see the README); a
//! game's entry point is [`web_page!`](crate::web_page), which needs no
//! `wasm-bindgen` of the game's own.

mod page;

/// The `wasm-bindgen` the web player is built with, for the entry point
/// [`web_page!`](crate::web_page) writes (a game needs no dependency of its
/// own on it, nor one of the same version).
pub use wasm_bindgen;

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use keel_engine::files::{self, FileKind, ReadLimits};
use keel_engine::input::InputCollector;
use keel_engine::record::{RecordSettings, Recording, Simulation};
use keel_engine::render::{GpuProblem, PresentModeChoice, SurfaceEncoding, SurfaceState};
use keel_engine::runner::{self, Flow, Host, RunOptions, RunnerError, Target, Update};
use keel_engine::{Assets, Extractor, Game, GpuContext, Hud, Overlays, Renderer, World};
use wasm_bindgen::{JsCast, JsValue};
use winit::event::WindowEvent;
use winit::platform::web::WindowAttributesExtWebSys;
use winit::window::{Window, WindowAttributes};

/// The list of the page's files, one path a line, written by the build.
pub const FILE_LIST: &str = "files.txt";

/// Memory the page's recording may keep keyframes in (the input of every
/// step is kept whatever the budget: it is what a saved recording holds).
const RECORD_BUDGET: usize = 64 << 20;

/// Plays `game` from `scene` (a path relative to the page, as listed in
/// [`FILE_LIST`]) in the page that loaded this module, or from the listed
/// scene the address names (`?scene=assets/scenes/physics.ron`). Returns at
/// once; the game runs in the browser's event loop.
pub fn play(game: Game, scene: &str) {
    let _ = console_log::init_with_level(log::Level::Info);
    std::panic::set_hook(Box::new(|info| {
        let message = format!("The game stopped: {info}");
        web_sys::console::error_1(&JsValue::from_str(&message));
        page::show_message(&message);
    }));
    let scene = PathBuf::from(scene);
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(message) = start(game, scene).await {
            log::error!("{message}");
            page::show_message(&message);
        }
    });
}

async fn start(game: Game, scene: PathBuf) -> Result<(), String> {
    let window = web_sys::window().ok_or("no browser window")?;
    let document = window.document().ok_or("no document")?;
    let base = document.base_uri().ok().flatten().unwrap_or_default();
    // The page's folder: what the file list's paths are relative to (the
    // query, whose paths hold slashes of their own, left off).
    let base = base.split(['?', '#']).next().unwrap_or_default();
    let base = base.rfind('/').map_or("", |end| &base[..=end]).to_owned();
    if !page::has_webgpu(&window) {
        return Err(page::no_webgpu(&window));
    }
    let build = page::build_id(&document);
    // `?scene=assets/scenes/physics.ron`: another scene the page lists.
    let scene = page::query(&window, "scene").map_or(scene, PathBuf::from);
    let replay = page::query(&window, "replay");
    let source = page::fetch_files(&window, &base, replay.as_deref()).await?;
    let limits = ReadLimits {
        source,
        ..ReadLimits::DEFAULT
    };
    let mut world = game
        .load(&scene, &Assets::with_limits(limits.clone()))
        .map_err(|e| e.to_string())?;
    // The scene's bytes as loaded: a recording names their hash.
    let scene_bytes = files::read(&scene, FileKind::Scene, &limits)
        .map_err(|e| format!("{}: {e}", scene.display()))?;
    let mut fixed_frames = page::query(&window, "frames").and_then(|n| n.parse().ok());
    // A played run records every step; a replay, or `?frames=N` (a fixed run
    // to compare with native, whose pixels are the canvas's alone), does not.
    let played = match replay {
        Some(file) => {
            let verdict = replay_in_page(
                &mut world,
                Path::new(&file),
                (&scene, &scene_bytes),
                &build,
                &limits,
            )?;
            page::show_verdict(&window, &verdict);
            // The replayed world is shown as it ended.
            fixed_frames = Some(0);
            false
        }
        None => fixed_frames.is_none(),
    };
    if played {
        world.start_recording(RecordSettings {
            budget_bytes: RECORD_BUDGET,
            ..RecordSettings::default()
        });
    }
    let world = Rc::new(RefCell::new(world));
    if played {
        let world = Rc::clone(&world);
        page::offer_recording(&window, move || {
            let mut world = world
                .try_borrow_mut()
                .map_err(|_| "the game is in the middle of a frame".to_owned())?;
            let assets = Assets::with_limits(limits.clone());
            let mut recording =
                crate::played::recording_of(&mut world, &game, &scene, &assets, &scene_bytes)?;
            recording.game_build.clone_from(&build);
            recording.to_text(&scene).map_err(|e| e.to_string())
        });
    }

    let canvas: web_sys::HtmlCanvasElement = document
        .create_element("canvas")
        .map_err(page::js_error)?
        .dyn_into()
        .map_err(|_| "not a canvas".to_owned())?;
    canvas.set_id("keel");
    let body = document.body().ok_or("no body")?;
    body.append_child(&canvas).map_err(page::js_error)?;
    let size = page::canvas_size(&window);
    canvas.set_width(size.0);
    canvas.set_height(size.1);

    let backends = wgpu::Backends::BROWSER_WEBGPU;
    let instance = GpuContext::new_instance(backends, None);
    let surface = instance
        .create_surface(wgpu::SurfaceTarget::Canvas(canvas.clone()))
        .map_err(|e| format!("the canvas gives no WebGPU surface: {e}"))?;
    let ctx = GpuContext::for_surface_async(instance, backends, &surface)
        .await
        .map_err(|e| match e {
            keel_engine::render::RenderError::NoAdapter { reason, .. } => {
                // wgpu's account (each backend and why not) is for the console.
                log::error!("WebGPU gave no adapter: {reason}");
                page::needs_webgpu("the browser gave no GPU adapter for it (the console says why)")
            }
            other => format!("WebGPU gave no device: {other}"),
        })?;
    log::info!("adapter: {}", ctx.adapter_summary());
    let surface = SurfaceState::new(
        &ctx,
        surface,
        size,
        PresentModeChoice::default(),
        SurfaceEncoding::Srgb,
    )
    .map_err(|e| e.to_string())?;
    page::hide_message();

    let host = WebPlayer {
        world,
        canvas,
        renderer: None,
        buffers: Extractor::default(),
        input: InputCollector::default(),
        hud_shown: String::new(),
        save_hidden: played,
        frames: 0,
        fixed_frames,
        frames_key: JsValue::from_str("__keelFrames"),
        page: window,
    };
    runner::spawn(host, RunOptions::default(), ctx, surface).map_err(|e| e.to_string())
}

/// Replays the recording `file` (fetched beside the page) in `world`, fresh
/// from `scene` (its path and bytes); the lines the native `--replay`
/// prints: what differs (scene, builds; this page's is `build`), the
/// verdict, the HUD at the end.
fn replay_in_page(
    world: &mut World,
    file: &Path,
    (scene, scene_bytes): (&Path, &[u8]),
    build: &str,
    limits: &ReadLimits,
) -> Result<String, String> {
    let recording = Recording::read(file, limits).map_err(|e| e.to_string())?;
    let mut lines = recording.differences_for_build(scene, scene_bytes, "the game", build);
    let verdict = recording.replay(world);
    if let Some(panic) = world.system_panic() {
        return Err(format!("The game stopped during the replay: {panic}"));
    }
    lines.push(verdict.to_string());
    if let Some(hud) = world.resource::<Hud>() {
        lines.push(format!("hud: {}", hud.text));
    }
    Ok(lines.join("\n"))
}

/// The running game in the page, a [`Host`] of the engine's runner.
struct WebPlayer {
    /// Shared with the page's `__keelRecording()`, which replays what was
    /// played into a recording file.
    world: Rc<RefCell<World>>,
    canvas: web_sys::HtmlCanvasElement,
    /// The renderer, once the runner has attached the page's device.
    renderer: Option<Renderer>,
    buffers: Extractor,
    input: InputCollector,
    hud_shown: String,
    /// The "Save recording" button is still hidden: no step has run yet.
    save_hidden: bool,
    /// Frames presented, published to the page as `window.__keelFrames`
    /// (what a test waits on).
    frames: u64,
    /// The page's window and the name `frames` is published under.
    page: web_sys::Window,
    frames_key: JsValue,
    /// `?frames=N` in the page's address: step the world one fixed step a
    /// frame for N frames, then hold (what the native viewer's `--headless
    /// --frames N` draws, for comparing the two).
    fixed_frames: Option<u32>,
}

/// The page stopped: why is written in the page and to the console when
/// this is made ([`Stopped::shown`]).
#[derive(Debug)]
struct Stopped;

impl From<RunnerError> for Stopped {
    fn from(error: RunnerError) -> Self {
        Stopped::shown(error.to_string())
    }
}

impl Stopped {
    fn shown(message: String) -> Self {
        log::error!("{message}");
        page::show_message(&message);
        Stopped
    }
}

impl Host for WebPlayer {
    type Error = Stopped;

    fn window_attributes(&self) -> WindowAttributes {
        Window::default_attributes()
            .with_canvas(Some(self.canvas.clone()))
            .with_prevent_default(true)
            .with_focusable(true)
    }

    fn attach(
        &mut self,
        gpu: &GpuContext,
        format: wgpu::TextureFormat,
        _: &Arc<Window>,
    ) -> Result<(), Stopped> {
        self.buffers = Extractor::default();
        self.renderer = Some(Renderer::new(gpu, format));
        Ok(())
    }

    fn detach(&mut self) {
        self.renderer = None;
    }

    fn event(&mut self, _: &Window, event: &WindowEvent) -> Flow<Stopped> {
        self.input.window_event(event);
        Flow::Go
    }

    fn gpu_problems(&mut self, problems: &[GpuProblem]) -> Flow<Stopped> {
        match problems.first() {
            Some(problem) => Flow::Fail(Stopped::shown(format!(
                "The GPU refused a frame: {problem}"
            ))),
            None => Flow::Go,
        }
    }

    fn update(&mut self, update: Update<'_>) -> Flow<Stopped> {
        let mut world = self.world.borrow_mut();
        if let Some(pads) = update.gamepads {
            pads.poll(&mut self.input);
        }
        match self.fixed_frames {
            None => {
                world.frame_with_input(update.time, &mut self.input);
            }
            Some(n) if self.frames < u64::from(n) => {
                world.advance(keel_engine::DEFAULT_STEP);
            }
            Some(_) => {}
        }
        if let Some(panic) = world.system_panic() {
            return Flow::Fail(Stopped::shown(format!("The game stopped: {panic}")));
        }
        if self.save_hidden && world.steps() > 0 {
            self.save_hidden = false;
            page::show_save();
        }
        if let Some(hud) = world.resource::<Hud>()
            && hud.text != self.hud_shown
        {
            self.hud_shown.clone_from(&hud.text);
            page::show_hud(&self.hud_shown);
        }
        Flow::Go
    }

    fn draw(&mut self, gpu: &GpuContext, target: &Target<'_>) -> Flow<Stopped> {
        let Some(renderer) = &mut self.renderer else {
            return Flow::Go;
        };
        let mut world = self.world.borrow_mut();
        let (width, height) = target.size;
        let camera = world.game_camera();
        let aspect = width as f32 / height.max(1) as f32;
        let frame = self
            .buffers
            .extract_world(&mut world, camera, aspect, &Overlays::default());
        renderer.render(gpu, &frame, target.view, target.size);
        Flow::Go
    }

    fn presented(&mut self, frame: u64) -> Flow<Stopped> {
        self.frames = frame;
        let _ = js_sys::Reflect::set(&self.page, &self.frames_key, &JsValue::from(frame as f64));
        Flow::Go
    }
}
