//! How long the editor's frames take while its asset browser lists a folder
//! of 5,000 files and makes thumbnails for the images scrolled past: the UI
//! thread's time per frame (headless, as the UI tests run it), the listing's
//! time, and how long the thumbnails take to come in.
//!
//! Run: `cargo run --release -p keel-editor --example browser_frame_time`.

use std::time::{Duration, Instant};

use egui_kittest::Harness;
use keel_editor::{Document, EditorApp};
use keel_engine::Scene;
use keel_engine::render::image::{Rgba, RgbaImage};

const FILES: usize = 5_000;
const IMAGES: usize = 2_000;

fn main() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let assets = dir.path().join("assets");
    for sub in ["scenes", "textures", "prefabs"] {
        std::fs::create_dir_all(assets.join(sub)).expect("folders");
    }
    for i in 0..IMAGES {
        let shade = (i % 250) as u8;
        RgbaImage::from_pixel(256, 256, Rgba([shade, 90, 255 - shade, 255]))
            .save(assets.join(format!("textures/t{i:04}.png")))
            .expect("an image");
    }
    for i in 0..FILES - IMAGES {
        std::fs::write(
            assets.join(format!("prefabs/p{i:04}.ron")),
            "(version: 2, nodes: [])",
        )
        .expect("a file");
    }
    let scene = assets.join("scenes/main.ron");
    Scene::new().save(&scene).expect("a scene");

    let start = Instant::now();
    let doc = Document::open(&scene, &keel_engine::Assets::new()).expect("the scene opens");
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_ui_state(
            |ui, app: &mut EditorApp| app.ui(ui),
            EditorApp::with_game(doc, None, keel_engine::Game::new()),
        );
    let mut frames: Vec<Duration> = Vec::new();
    let mut step = |h: &mut Harness<'_, EditorApp>| {
        let t = Instant::now();
        h.step();
        frames.push(t.elapsed());
    };
    while h.state().workspace().asset_browser().listed() < FILES {
        step(&mut h);
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "listing never finished"
        );
    }
    let listed = start.elapsed();
    let listed_in = h.state().workspace().asset_browser().listed();
    // Filter to the images and scroll through them: every row drawn asks for
    // its thumbnail.
    h.state_mut().workspace_mut().asset_browser_mut().filter = "textures/".into();
    step(&mut h);
    let list = {
        use egui_kittest::kittest::Queryable;
        h.get_by_label("Filter assets").rect().center() + egui::vec2(0.0, 60.0)
    };
    h.hover_at(list);
    let scroll_start = Instant::now();
    for _ in 0..400 {
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Line,
            delta: egui::vec2(0.0, -3.0),
            modifiers: egui::Modifiers::NONE,
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Wheel,
        });
        step(&mut h);
    }
    let scrolled = scroll_start.elapsed();
    let wait_start = Instant::now();
    while h.state().workspace().asset_browser().pending_thumbnails() > 0
        && wait_start.elapsed() < Duration::from_secs(120)
    {
        step(&mut h);
        std::thread::sleep(Duration::from_millis(1));
    }
    let made = h.state().workspace().asset_browser().ready_thumbnails();
    let mut sorted = frames.clone();
    sorted.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("{FILES} files ({IMAGES} PNG images 256x256)");
    println!(
        "listing: {listed_in} files in {:.0} ms from opening the scene (off the UI thread)",
        ms(listed)
    );
    println!(
        "frames: {} , median {:.2} ms, 95th {:.2} ms, max {:.2} ms",
        sorted.len(),
        ms(sorted[sorted.len() / 2]),
        ms(sorted[sorted.len() * 95 / 100]),
        ms(sorted[sorted.len() - 1])
    );
    println!(
        "scrolling 400 frames: {:.0} ms; {made} thumbnails made, the last {:.0} ms after scrolling stopped",
        ms(scrolled),
        ms(wait_start.elapsed())
    );
}
