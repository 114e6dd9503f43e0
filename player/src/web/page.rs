//! The page around the web player: its address's query, the files it
//! fetches, and what it shows besides the canvas (the message box, the HUD,
//! a replay's verdict, the button that saves a recording).

use std::path::PathBuf;

use keel_engine::files::{Fetch, FileSource};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::FILE_LIST;

/// The value of `name` in the page's query (`?frames=600&replay=run.ron`).
pub(super) fn query(window: &web_sys::Window, name: &str) -> Option<String> {
    let search = window.location().search().ok()?;
    search
        .trim_start_matches('?')
        .split('&')
        .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
        .map(|value| {
            js_sys::decode_uri_component(value)
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_else(|| value.to_owned())
        })
}

/// What the page says where the browser offers no WebGPU: a page over plain
/// HTTP from an address other than localhost is not a secure context, and
/// browsers give WebGPU to secure contexts only.
pub(super) fn no_webgpu(window: &web_sys::Window) -> String {
    if !window.is_secure_context() {
        let origin = window.location().origin().unwrap_or_default();
        return format!(
            "This page needs WebGPU, which browsers give only to secure pages: open it over \
             HTTPS or from localhost (this is {origin}, plain HTTP)."
        );
    }
    needs_webgpu("this browser does not offer it or has turned it off")
}

/// What the page says where WebGPU is missing or offers no adapter: `why`
/// in a few words (the details, wgpu's list of backends, go to the console).
pub(super) fn needs_webgpu(why: &str) -> String {
    format!(
        "This page needs WebGPU, and {why}. Chrome and Edge 113 or newer have it, as do the \
         newest Firefox and Safari."
    )
}

pub(super) fn has_webgpu(window: &web_sys::Window) -> bool {
    let navigator = window.navigator();
    js_sys::Reflect::get(&navigator, &JsValue::from_str("gpu"))
        .is_ok_and(|gpu| !gpu.is_undefined() && !gpu.is_null())
}

/// The page's game build, `NAME.wasm+HASH` (the module's name and hash, which
/// `scripts/web.sh` writes in the page's `<meta name="keel-build">`), for the
/// recordings made and replayed here; `page.wasm+unknown` in a page that
/// was assembled without one.
pub(super) fn build_id(document: &web_sys::Document) -> String {
    document
        .query_selector("meta[name=keel-build]")
        .ok()
        .flatten()
        .and_then(|meta| meta.get_attribute("content"))
        .filter(|id| id.contains(".wasm+"))
        .unwrap_or_else(|| "page.wasm+unknown".to_owned())
}

/// The canvas's size in device pixels: the page's inner size.
pub(super) fn canvas_size(window: &web_sys::Window) -> (u32, u32) {
    let ratio = window.device_pixel_ratio();
    let css = |v: Result<JsValue, JsValue>| v.ok().and_then(|v| v.as_f64()).unwrap_or(1.0);
    let width = css(window.inner_width()) * ratio;
    let height = css(window.inner_height()) * ratio;
    (width.max(1.0) as u32, height.max(1.0) as u32)
}

/// Fetches every file [`FILE_LIST`] names, and `extra` (a recording to
/// replay) where given; a file the server refuses keeps its status, named
/// when a read asks for it.
pub(super) async fn fetch_files(
    window: &web_sys::Window,
    base: &str,
    extra: Option<&str>,
) -> Result<FileSource, String> {
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
    let listed = list.lines().map(str::trim).filter(|l| !l.is_empty());
    for path in listed.chain(extra) {
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

pub(super) fn js_error(value: JsValue) -> String {
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
pub(super) fn show_message(message: &str) {
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

pub(super) fn hide_message() {
    if let Some(element) = element("message") {
        element.set_class_name("");
    }
}

pub(super) fn show_hud(text: &str) {
    if let Some(element) = element("hud") {
        element.set_inner_text(text);
    }
}

/// Shows a replay's verdict (and what it was told first) in the page and
/// publishes it as `window.__keelReplay` (what a test reads).
pub(super) fn show_verdict(window: &web_sys::Window, text: &str) {
    if let Some(element) = element("verdict") {
        element.set_inner_text(text);
        element.set_class_name("shown");
    }
    let _ = js_sys::Reflect::set(
        window,
        &JsValue::from_str("__keelReplay"),
        &JsValue::from_str(text),
    );
}

/// Publishes `make` as `window.__keelRecording()`, which the page's "Save
/// recording" button (see [`show_save`]) turns into a download; it returns
/// the recording file's text or throws what went wrong.
pub(super) fn offer_recording(
    window: &web_sys::Window,
    mut make: impl FnMut() -> Result<String, String> + 'static,
) {
    let closure =
        wasm_bindgen::closure::Closure::<dyn FnMut() -> Result<JsValue, JsValue>>::new(move || {
            make()
                .map(|text| JsValue::from_str(&text))
                .map_err(|message| js_sys::Error::new(&message).into())
        });
    let _ = js_sys::Reflect::set(
        window,
        &JsValue::from_str("__keelRecording"),
        closure.as_ref(),
    );
    // The page holds the function for as long as it lives.
    closure.forget();
}

/// Shows the "Save recording" button: once a step has run, so a game that
/// never started offers no empty recording.
pub(super) fn show_save() {
    if let Some(button) = element("save") {
        button.set_hidden(false);
    }
}
