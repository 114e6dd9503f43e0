//! Shared helpers of the editor's UI tests: the small scene they edit, the
//! harness, and pointer gestures.

#![allow(dead_code, reason = "each test binary uses only some of them")]

use std::path::{Path, PathBuf};

use egui::{Pos2, vec2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::Vec3;
use keel_editor::{Document, EditorApp};
use keel_engine::Emitter;
use keel_engine::Primitive;
use keel_engine::particles::{Burst, FloatRange, Overflow};
use keel_engine::{Material, MeshRenderer, NodeId, Scene, Spin, Transform};

pub fn demo_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes/demo.ron")
}

/// ship ─┬─ mast ── flag (spins)
///       └─ hull (mesh)
/// sea (mesh)
pub fn small_scene() -> Scene {
    let mut s = Scene::new();
    let ship = s
        .spawn(
            None,
            "ship",
            Transform::from_translation(Vec3::new(1.0, 0.0, 0.0)),
        )
        .unwrap();
    let mast = s
        .spawn(
            Some(ship),
            "mast",
            Transform::from_translation(Vec3::Y * 2.0),
        )
        .unwrap();
    let flag = s
        .spawn(Some(mast), "flag", Transform::from_translation(Vec3::Y))
        .unwrap();
    s.insert(
        flag,
        Spin {
            axis: Vec3::Y,
            rate: 2.0,
        },
    )
    .unwrap();
    let hull = s.spawn(Some(ship), "hull", Transform::IDENTITY).unwrap();
    s.insert(
        hull,
        MeshRenderer {
            cast_shadows: true,
            mesh: Primitive::Cube.into(),
            material: Material::rgb(0.5, 0.2, 0.1),
        },
    )
    .unwrap();
    let sea = s
        .spawn(
            None,
            "sea",
            Transform::from_translation(Vec3::new(0.0, -1.0, 5.0)),
        )
        .unwrap();
    s.insert(
        sea,
        MeshRenderer {
            cast_shadows: true,
            mesh: Primitive::Plane.into(),
            material: Material::default(),
        },
    )
    .unwrap();
    s
}

/// [`small_scene`] with a spray emitter on the hull.
pub fn scene_with_emitter() -> Scene {
    let mut s = small_scene();
    let hull = s.find("hull").unwrap();
    s.insert(
        hull,
        Emitter {
            rate: 12.0,
            bursts: vec![Burst {
                time: 0.25,
                count: 30,
            }],
            burst_period: Some(3.0),
            speed: FloatRange::new(2.0, 4.0),
            overflow: Overflow::Grow { max: 8192 },
            seed: 7,
            ..Emitter::default()
        },
    )
    .unwrap();
    s
}

pub fn harness(app: EditorApp) -> Harness<'static, EditorApp> {
    Harness::builder()
        .with_size(vec2(1400.0, 860.0))
        .build_ui_state(|ui, app: &mut EditorApp| app.ui(ui), app)
}

pub fn editor(scene: Scene, path: Option<PathBuf>) -> Harness<'static, EditorApp> {
    harness(EditorApp::with_game(
        Document::new(scene, path),
        None,
        keel_engine::Game::new(),
    ))
}

pub fn node(h: &Harness<'_, EditorApp>, name: &str) -> NodeId {
    h.state()
        .doc()
        .scene()
        .find(name)
        .unwrap_or_else(|| panic!("no node named {name}"))
}

/// Clicks the widget labelled `label` after scrolling it into view (the
/// Inspector's Add component sits below the fold in a short panel).
pub fn click_scrolled(h: &mut Harness<'_, EditorApp>, label: &str) {
    h.get_by_label(label).scroll_to_me();
    // Scrolling eases over a few frames: click where the widget came to rest.
    for _ in 0..10 {
        h.step();
    }
    h.get_by_label(label).click();
}

/// A click (press and release without moving) at `at`.
pub fn click_at(h: &mut Harness<'_, EditorApp>, at: Pos2) {
    h.hover_at(at);
    h.run();
    h.drag_at(at);
    h.run();
    h.drop_at(at);
    h.run();
}

pub fn center_of(h: &Harness<'_, EditorApp>, label: &str) -> Pos2 {
    h.get_by_label(label).rect().center()
}

/// Presses at `from`, moves to `to` in steps, releases: a real pointer drag.
pub fn drag(h: &mut Harness<'_, EditorApp>, from: Pos2, to: Pos2) {
    h.hover_at(from);
    h.run();
    h.drag_at(from);
    h.run();
    for i in 1..=6 {
        h.hover_at(from + (to - from) * (i as f32 / 6.0));
        h.run();
    }
    h.drop_at(to);
    h.run();
}

/// Where `world` lands on screen in the viewport (screen points).
pub fn to_screen(h: &Harness<'_, EditorApp>, world: Vec3) -> Pos2 {
    let state = h.state();
    let rect = state.views().viewport.rect.expect("the viewport was drawn");
    let camera = state
        .views()
        .viewport
        .rig
        .as_ref()
        .expect("camera placed")
        .camera();
    let ndc = camera
        .view_projection(rect.width() / rect.height())
        .project_point3(world);
    egui::pos2(
        rect.min.x + (ndc.x + 1.0) * 0.5 * rect.width(),
        rect.min.y + (1.0 - ndc.y) * 0.5 * rect.height(),
    )
}

/// Copies the selection (Ctrl+C) and returns the text it put on the clipboard.
pub fn copy_selection(h: &mut Harness<'_, EditorApp>) -> String {
    h.event(egui::Event::Copy);
    // One frame: the clipboard command is in that frame's output only.
    h.step();
    h.output()
        .platform_output
        .commands
        .iter()
        .find_map(|c| match c {
            egui::OutputCommand::CopyText(text) => Some(text.clone()),
            _ => None,
        })
        .expect("the copy reached the clipboard")
}
