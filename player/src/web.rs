//! The web player: a game in a browser page, through WebGPU.
//!
//! [`play`] takes the same [`Game`] the native player takes. It fetches the
//! page's files (the list `files.txt` the build wrote beside them) into a
//! [`FileSource`], so the scene, its prefabs, models and `input.ron` load
//! through the same reads, limits and located errors as on native; then it
//! fills the page with a canvas, asks the browser for a WebGPU device and
//! runs the world's fixed steps, drawing each frame at the interpolation
//! alpha as the window loop does. Keys and the mouse reach the game through
//! the same [`InputCollector`]; the game's [`Hud`] text is shown over the
//! canvas. What stops it (no WebGPU, a file the server did not give, a broken
//! scene, a panic) is written in the page, not left as a blank canvas.
//!
//! The page is built and served by `scripts/web.sh` (see the README).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use keel_engine::files::{Fetch, FileSource, ReadLimits};
use keel_engine::input::InputCollector;
use keel_engine::render::{PresentModeChoice, SurfaceState};
use keel_engine::{
    Assets, FrameBuffers, Game, GpuContext, Hud, Overlays, RealTime, Renderer, World,
};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::platform::web::{EventLoopExtWebSys, WindowAttributesExtWebSys};
use winit::window::{Window, WindowId};

/// The list of the page's files, one path a line, written by the build.
pub const FILE_LIST: &str = "files.txt";

/// One frame's time with `?frames=N`: the native headless viewer's.
const STEP: std::time::Duration = std::time::Duration::from_nanos(16_666_667);

/// Plays `game` from `scene` (a path relative to the page, as listed in
/// [`FILE_LIST`]) in the page that loaded this module. Returns at once; the
/// game runs in the browser's event loop.
pub fn play(game: Game, scene: &str) {
    let _ = console_log::init_with_level(log::Level::Info);
    std::panic::set_hook(Box::new(|info| {
        let message = format!("The game stopped: {info}");
        web_sys::console::error_1(&JsValue::from_str(&message));
        show_message(&message);
    }));
    let scene = PathBuf::from(scene);
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(message) = start(game, &scene).await {
            log::error!("{message}");
            show_message(&message);
        }
    });
}

async fn start(game: Game, scene: &Path) -> Result<(), String> {
    let window = web_sys::window().ok_or("no browser window")?;
    let document = window.document().ok_or("no document")?;
    let base = document.base_uri().ok().flatten().unwrap_or_default();
    // The page's folder: what the file list's paths are relative to.
    let base = base.rfind('/').map_or("", |end| &base[..=end]).to_owned();
    if !has_webgpu(&window) {
        return Err(needs_webgpu("the browser has no navigator.gpu"));
    }
    let source = fetch_files(&window, &base).await?;
    let assets = Assets::with_limits(ReadLimits {
        source,
        ..ReadLimits::DEFAULT
    });
    let world = game.load(scene, &assets).map_err(|e| e.to_string())?;

    let canvas: web_sys::HtmlCanvasElement = document
        .create_element("canvas")
        .map_err(js_error)?
        .dyn_into()
        .map_err(|_| "not a canvas".to_owned())?;
    canvas.set_id("keel");
    let body = document.body().ok_or("no body")?;
    body.append_child(&canvas).map_err(js_error)?;
    let size = canvas_size(&window);
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
            keel_engine::render::RenderError::NoAdapter { reason, .. } => needs_webgpu(&reason),
            other => format!("WebGPU gave no device: {other}"),
        })?;
    log::info!("adapter: {}", ctx.adapter_summary());
    let surface = SurfaceState::new(&ctx, surface, size, PresentModeChoice::default())
        .map_err(|e| e.to_string())?;
    let renderer = Renderer::new(&ctx, surface.format());
    hide_message();

    let event_loop = EventLoop::new().map_err(|e| e.to_string())?;
    event_loop.spawn_app(WebPlayer {
        world,
        ctx,
        surface,
        renderer,
        canvas,
        window: None,
        buffers: FrameBuffers::default(),
        time: RealTime::default(),
        input: InputCollector::default(),
        hud_shown: String::new(),
        stopped: false,
        frames: 0,
        fixed_frames: fixed_frames(&window),
        frames_key: JsValue::from_str("__keelFrames"),
        page: window,
    });
    Ok(())
}

/// The running game in the page.
struct WebPlayer {
    world: World,
    ctx: GpuContext,
    surface: SurfaceState,
    renderer: Renderer,
    canvas: web_sys::HtmlCanvasElement,
    window: Option<Arc<Window>>,
    buffers: FrameBuffers,
    time: RealTime,
    input: InputCollector,
    hud_shown: String,
    stopped: bool,
    /// Frames presented, published to the page as `window.__keelFrames`
    /// (what a test waits on).
    frames: u32,
    /// The page's window and the name `frames` is published under.
    page: web_sys::Window,
    frames_key: JsValue,
    /// `?frames=N` in the page's address: step the world one fixed step a
    /// frame for N frames, then hold (what the native viewer's `--headless
    /// --frames N` draws, for comparing the two).
    fixed_frames: Option<u32>,
}

impl WebPlayer {
    fn redraw(&mut self) {
        if self.stopped {
            return;
        }
        match self.fixed_frames {
            None => {
                self.world.frame_with_input(&mut self.time, &mut self.input);
            }
            Some(n) if self.frames < n => {
                self.world.advance(STEP);
            }
            Some(_) => {}
        }
        if let Some(panic) = self.world.system_panic() {
            self.stop(&format!("The game stopped: {panic}"));
            return;
        }
        if let Some(hud) = self.world.resource::<Hud>()
            && hud.text != self.hud_shown
        {
            self.hud_shown.clone_from(&hud.text);
            show_hud(&self.hud_shown);
        }
        let texture = match self.surface.acquire(&self.ctx) {
            Ok(Some(texture)) => texture,
            Ok(None) => return,
            Err(error) => return self.stop(&error.to_string()),
        };
        let view = self.surface.view(&texture);
        let (width, height) = self.surface.size();
        let camera = self.world.game_camera();
        let aspect = width as f32 / height.max(1) as f32;
        let frame =
            self.buffers
                .extract_world(&mut self.world, camera, aspect, &Overlays::default());
        self.renderer
            .render(&self.ctx, &frame, &view, self.surface.size());
        self.ctx.queue.present(texture);
        if let Some(problem) = self.ctx.errors.take().into_iter().next() {
            return self.stop(&format!("The GPU refused a frame: {problem}"));
        }
        self.frames += 1;
        let _ = js_sys::Reflect::set(&self.page, &self.frames_key, &JsValue::from(self.frames));
    }

    fn stop(&mut self, message: &str) {
        log::error!("{message}");
        show_message(message);
        self.stopped = true;
    }
}

impl ApplicationHandler for WebPlayer {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.window.is_some() {
            return;
        }
        let attributes = Window::default_attributes()
            .with_canvas(Some(self.canvas.clone()))
            .with_prevent_default(true)
            .with_focusable(true);
        match event_loop.create_window(attributes) {
            Ok(window) => {
                let window = Arc::new(window);
                window.focus_window();
                window.request_redraw();
                self.window = Some(window);
            }
            Err(error) => self.stop(&format!("no window on the canvas: {error}")),
        }
    }

    fn window_event(&mut self, _: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        self.input.window_event(&event);
        match event {
            WindowEvent::Resized(size) => {
                self.surface.resize(&self.ctx, size.width, size.height);
            }
            WindowEvent::RedrawRequested => self.redraw(),
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _: &ActiveEventLoop) {
        if let Some(window) = &self.window
            && !self.stopped
        {
            window.request_redraw();
        }
    }
}

/// The `frames` of the page's query (`?frames=N`).
fn fixed_frames(window: &web_sys::Window) -> Option<u32> {
    let search = window.location().search().ok()?;
    search
        .trim_start_matches('?')
        .split('&')
        .find_map(|pair| pair.strip_prefix("frames="))
        .and_then(|n| n.parse().ok())
}

/// What the page says where WebGPU is missing or offers no adapter.
fn needs_webgpu(detail: &str) -> String {
    format!(
        "This page needs WebGPU, which this browser does not offer or has turned off \
         ({detail}). Chrome and Edge 113 or newer have it, as do the newest Firefox and Safari."
    )
}

fn has_webgpu(window: &web_sys::Window) -> bool {
    let navigator = window.navigator();
    js_sys::Reflect::get(&navigator, &JsValue::from_str("gpu"))
        .is_ok_and(|gpu| !gpu.is_undefined() && !gpu.is_null())
}

/// The canvas's size in device pixels: the page's inner size.
fn canvas_size(window: &web_sys::Window) -> (u32, u32) {
    let ratio = window.device_pixel_ratio();
    let css = |v: Result<JsValue, JsValue>| v.ok().and_then(|v| v.as_f64()).unwrap_or(1.0);
    let width = css(window.inner_width()) * ratio;
    let height = css(window.inner_height()) * ratio;
    (width.max(1.0) as u32, height.max(1.0) as u32)
}

/// Fetches every file [`FILE_LIST`] names; a file the server refuses keeps its
/// status, named when a read asks for it.
async fn fetch_files(window: &web_sys::Window, base: &str) -> Result<FileSource, String> {
    let list = match fetch(window, &format!("{base}{FILE_LIST}")).await? {
        Fetch::Bytes(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Fetch::Status(status) => {
            return Err(format!(
                "{base}{FILE_LIST}: the server answered HTTP {status} (the page's file list; \
                 build the page with scripts/web.sh)"
            ));
        }
    };
    let mut files = Vec::new();
    for path in list.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let fetched = fetch(window, &format!("{base}{path}")).await?;
        files.push((PathBuf::from(path), fetched));
    }
    Ok(FileSource::fetched(base, files))
}

async fn fetch(window: &web_sys::Window, url: &str) -> Result<Fetch, String> {
    let failed = |e: JsValue| format!("{url}: {}", js_error(e));
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(failed)?
        .dyn_into()
        .map_err(failed)?;
    if !response.ok() {
        return Ok(Fetch::Status(response.status()));
    }
    let buffer = JsFuture::from(response.array_buffer().map_err(failed)?)
        .await
        .map_err(failed)?;
    Ok(Fetch::Bytes(
        js_sys::Uint8Array::new(&buffer).to_vec().into(),
    ))
}

fn js_error(value: JsValue) -> String {
    value
        .as_string()
        .or_else(|| {
            value
                .dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| format!("{value:?}"))
}

fn element(id: &str) -> Option<web_sys::HtmlElement> {
    web_sys::window()?
        .document()?
        .get_element_by_id(id)?
        .dyn_into()
        .ok()
}

/// Writes `message` in the page's message box (made if the page has none).
fn show_message(message: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let element = element("message").or_else(|| {
        let made: web_sys::HtmlElement = document.create_element("div").ok()?.dyn_into().ok()?;
        made.set_id("message");
        document.body()?.append_child(&made).ok()?;
        Some(made)
    });
    if let Some(element) = element {
        element.set_inner_text(message);
        element.set_class_name("shown");
    }
}

fn hide_message() {
    if let Some(element) = element("message") {
        element.set_class_name("");
    }
}

fn show_hud(text: &str) {
    if let Some(element) = element("hud") {
        element.set_inner_text(text);
    }
}
