//! `keel-viewer`: opens a scene file in a window without the editor, or renders it headless to a PNG.

use std::path::PathBuf;
use std::process::ExitCode;

use keel_engine::app::{self, ViewerError, ViewerOptions};
use keel_engine::render::{PresentModeChoice, parse_backends};

const USAGE: &str = "\
usage: keel-viewer [SCENE] [--headless] [--frames N] [--size WxH] [--screenshot OUT.png]
                   [--backend vulkan|gl|metal|dx12|all] [--present fifo|mailbox|immediate] [--fps-cap N]

With no SCENE, opens the bundled demo scene. Keys: mouse drag orbits (shift or middle
button pans), wheel zooms, Tab toggles the fly camera (WASD, Q/E), Space pauses,
'.' steps one fixed update, G grid, B bounding boxes, O octree cells,
R nodes recomputed by the dirty flag, Esc quits.";

fn demo_scene() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes/demo.ron")
}

fn parse_size(text: &str) -> Option<(u32, u32)> {
    let (w, h) = text.split_once(['x', 'X'])?;
    let size = (w.parse().ok()?, h.parse().ok()?);
    (size.0 > 0 && size.1 > 0).then_some(size)
}

fn parse_args() -> Result<ViewerOptions, String> {
    use lexopt::prelude::*;
    let mut options = ViewerOptions {
        scene: demo_scene(),
        headless: false,
        frames: None,
        size: (1280, 720),
        screenshot: None,
        backends: wgpu::Backends::all(),
        present: PresentModeChoice::default(),
        fps_cap: None,
    };
    let mut parser = lexopt::Parser::from_env();
    let mut scene_given = false;
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        let value = |parser: &mut lexopt::Parser| -> Result<String, String> {
            parser
                .value()
                .map_err(|e| e.to_string())?
                .into_string()
                .map_err(|v| format!("not valid text: {v:?}"))
        };
        match arg {
            Long("headless") => options.headless = true,
            Long("frames") => {
                let v = value(&mut parser)?;
                options.frames = Some(
                    v.parse()
                        .map_err(|_| format!("--frames: expected a whole number, got `{v}`"))?,
                );
            }
            Long("size") => {
                let v = value(&mut parser)?;
                options.size =
                    parse_size(&v).ok_or(format!("--size: expected WIDTHxHEIGHT, got `{v}`"))?;
            }
            Long("screenshot") => options.screenshot = Some(PathBuf::from(value(&mut parser)?)),
            Long("backend") => {
                options.backends =
                    parse_backends(&value(&mut parser)?).map_err(|e| e.to_string())?;
            }
            Long("present") => {
                options.present = match value(&mut parser)?.as_str() {
                    "fifo" => PresentModeChoice::Fifo,
                    "mailbox" => PresentModeChoice::Mailbox,
                    "immediate" => PresentModeChoice::Immediate,
                    other => {
                        return Err(format!(
                            "--present: expected fifo, mailbox or immediate, got `{other}`"
                        ));
                    }
                };
            }
            Long("fps-cap") => {
                let v = value(&mut parser)?;
                options.fps_cap = Some(
                    v.parse()
                        .map_err(|_| format!("--fps-cap: expected a number, got `{v}`"))?,
                );
            }
            Short('h') | Long("help") => return Err(String::new()),
            Value(path) if !scene_given => {
                options.scene = PathBuf::from(path);
                scene_given = true;
            }
            other => return Err(other.unexpected().to_string()),
        }
    }
    Ok(options)
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(
        env_logger::Env::default().default_filter_or("warn,keel_engine=info"),
    )
    .init();
    keel_engine::workers::join_pool();
    let options = match parse_args() {
        Ok(options) => options,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("keel-viewer: {message}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = if options.headless {
        app::render_headless(&options).map(|_| ())
    } else {
        app::run_windowed(options)
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error @ ViewerError::Scene(_)) => {
            eprintln!("keel-viewer: {error}");
            ExitCode::from(2)
        }
        Err(error) => {
            eprintln!("keel-viewer: {error}");
            ExitCode::FAILURE
        }
    }
}
