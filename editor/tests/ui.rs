//! The editor's UI driven like a user would (egui_kittest): clicks, typing,
//! keyboard shortcuts and drag-and-drop on the real panels, checked against
//! the world underneath.

use std::path::{Path, PathBuf};

use egui::{Modifiers, Pos2, Vec2, vec2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::Vec3;
use keel_editor::{Document, EditorApp, EditorOptions};
use keel_engine::assets::Primitive;
use keel_engine::particles::{Burst, Emitter, FloatRange, Overflow};
use keel_engine::scene::{Material, MeshRenderer, NodeId, Scene, Spin, Transform};

fn demo_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes/demo.ron")
}

/// ship ─┬─ mast ── flag (spins)
///       └─ hull (mesh)
/// sea (mesh)
fn small_scene() -> Scene {
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
            mesh: Primitive::Plane.into(),
            material: Material::default(),
        },
    )
    .unwrap();
    s
}

/// [`small_scene`] with a spray emitter on the hull.
fn scene_with_emitter() -> Scene {
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

fn harness(app: EditorApp) -> Harness<'static, EditorApp> {
    Harness::builder()
        .with_size(vec2(1400.0, 860.0))
        .build_ui_state(|ui, app: &mut EditorApp| app.ui(ui), app)
}

fn editor(scene: Scene, path: Option<PathBuf>) -> Harness<'static, EditorApp> {
    harness(EditorApp::with_document(Document::new(scene, path), None))
}

fn node(h: &Harness<'_, EditorApp>, name: &str) -> NodeId {
    h.state()
        .doc
        .scene()
        .find(name)
        .unwrap_or_else(|| panic!("no node named {name}"))
}

fn center_of(h: &Harness<'_, EditorApp>, label: &str) -> Pos2 {
    h.get_by_label(label).rect().center()
}

/// Presses at `from`, moves to `to` in steps, releases: a real pointer drag.
fn drag(h: &mut Harness<'_, EditorApp>, from: Pos2, to: Pos2) {
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

#[test]
fn clicking_a_row_selects_the_node_and_the_inspector_shows_it() {
    let mut h = editor(small_scene(), None);
    h.get_by_label("mast").click();
    h.run();
    let mast = node(&h, "mast");
    assert_eq!(h.state().doc.selection.primary(), Some(mast));
    assert_eq!(h.state().doc.selection.len(), 1);
    let name_field = h.get_by_label("Name");
    assert_eq!(name_field.value().as_deref(), Some("mast"));
    assert!(h.query_by_label("Translation X").is_some());

    h.get_by_label("hull").click_modifiers(Modifiers::COMMAND);
    h.run();
    assert_eq!(h.state().doc.selection.len(), 2, "Ctrl+click adds");
    h.get_by_label("sea").click_modifiers(Modifiers::SHIFT);
    h.run();
    let sel = h.state().doc.selection.nodes().to_vec();
    assert_eq!(
        sel,
        vec![node(&h, "hull"), node(&h, "sea")],
        "Shift+click selects the rows from the last clicked (hull) to sea, replacing the rest"
    );
    assert_eq!(h.state().doc.selection.primary(), Some(node(&h, "sea")));
}

#[test]
fn dragging_a_translation_moves_the_node_in_the_world_as_one_undo_step() {
    let mut h = editor(small_scene(), None);
    h.get_by_label("mast").click();
    h.run();
    let mast = node(&h, "mast");
    let world_before = h.state().doc.scene().world(mast).unwrap().translation;
    let start = h.state().doc.scene().to_file();

    let field = center_of(&h, "Translation X");
    drag(&mut h, field, field + vec2(120.0, 0.0));

    let doc = &h.state().doc;
    let local = doc.scene().local(mast).unwrap().translation;
    assert!(local.x > 1.0, "the drag moved mast along x: {local}");
    let world_after = doc.scene().world(mast).unwrap().translation;
    assert!(
        (world_after.x - world_before.x - local.x).abs() < 1e-4,
        "world transform follows: {world_before} -> {world_after}"
    );
    assert_eq!(doc.undo.len(), 1, "the whole drag is one undo entry");
    assert!(doc.is_dirty());
    assert!(h.state().title().ends_with('*'));
    let moved = doc.scene().to_file();

    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(
        h.state().doc.scene().to_file(),
        start,
        "Ctrl+Z undoes the drag"
    );
    assert_eq!(
        h.state().doc.scene().world(mast).unwrap().translation,
        world_before
    );
    assert!(!h.state().doc.is_dirty());

    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, egui::Key::Z);
    h.run();
    assert_eq!(
        h.state().doc.scene().to_file(),
        moved,
        "Ctrl+Shift+Z redoes it"
    );
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Y);
    h.run();
    assert_eq!(h.state().doc.scene().to_file(), moved, "Ctrl+Y redoes too");
}

#[test]
fn a_value_set_through_accessibility_lands_exactly() {
    let mut h = editor(small_scene(), None);
    h.get_by_label("sea").click();
    h.run();
    h.get_by_label("Scale Y").set_value_accesskit(3.5);
    h.run();
    let sea = node(&h, "sea");
    assert_eq!(h.state().doc.scene().local(sea).unwrap().scale.y, 3.5);
    assert_eq!(
        h.state().doc.scene().world(sea).unwrap().y_axis.length(),
        3.5
    );
}

#[test]
fn dropping_a_row_onto_another_reparents_and_keeps_the_world_place() {
    let mut h = editor(small_scene(), None);
    let hull = node(&h, "hull");
    let sea = node(&h, "sea");
    let world = h.state().doc.scene().world(hull).unwrap();
    let (from, to) = (center_of(&h, "hull"), center_of(&h, "sea"));
    drag(&mut h, from, to);
    let doc = &h.state().doc;
    assert_eq!(
        doc.scene().parent(hull),
        Some(sea),
        "{}",
        h.state().status().text()
    );
    assert!(doc.scene().world(hull).unwrap().abs_diff_eq(world, 1e-5));
    assert_eq!(doc.undo.len(), 1);
    assert_eq!(doc.undo.undo_label(), Some("Move hull under sea"));

    // The scene line above the rows takes drops too: back to the root level.
    let (from, to) = (center_of(&h, "hull"), center_of(&h, "Scene root"));
    drag(&mut h, from, to);
    let doc = &h.state().doc;
    assert_eq!(doc.scene().parent(hull), None);
    assert_eq!(doc.scene().roots().last(), Some(hull));
}

#[test]
fn dropping_a_node_into_its_own_subtree_is_refused_with_a_red_message() {
    let mut h = editor(small_scene(), None);
    let start = h.state().doc.scene().to_file();
    let (from, to) = (center_of(&h, "ship"), center_of(&h, "mast"));
    drag(&mut h, from, to);
    let app = h.state();
    assert_eq!(app.doc.scene().to_file(), start, "nothing moved");
    assert!(!app.doc.undo.can_undo(), "a refused drop is not an edit");
    assert!(app.status().is_error());
    assert!(
        app.status().text().contains("inside its own subtree"),
        "{}",
        app.status().text()
    );
}

#[test]
fn delete_then_undo_brings_back_the_subtree_with_its_components() {
    let mut h = editor(small_scene(), None);
    let start = h.state().doc.scene().to_file();
    h.get_by_label("mast").click();
    h.run();
    h.key_press(egui::Key::Delete);
    h.run();
    assert!(h.state().doc.scene().find("mast").is_none());
    assert!(
        h.state().doc.scene().find("flag").is_none(),
        "the subtree goes too"
    );
    assert!(h.query_by_label("mast").is_none(), "and leaves the tree");

    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    let doc = &h.state().doc;
    assert_eq!(
        doc.scene().to_file(),
        start,
        "names, order, parent, components"
    );
    let flag = doc.scene().find("flag").unwrap();
    assert_eq!(doc.scene().get::<Spin>(flag).map(|s| s.rate), Some(2.0));
    assert_eq!(
        doc.selection.primary(),
        doc.scene().find("mast"),
        "restored selected"
    );
    assert!(h.query_by_label("mast").is_some());
}

#[test]
fn duplicate_and_rename_through_the_keyboard() {
    let mut h = editor(small_scene(), None);
    h.get_by_label("hull").click();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::D);
    h.run();
    let copy = h.state().doc.scene().find("hull (copy)").expect("a copy");
    assert_eq!(h.state().doc.selection.primary(), Some(copy));
    assert!(h.state().doc.scene().get::<MeshRenderer>(copy).is_some());

    h.key_press(egui::Key::F2);
    h.run();
    let field = h.get_by_label("Rename");
    field.focus();
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::A);
    h.get_by_label("Rename").type_text("keel");
    h.key_press(egui::Key::Enter);
    h.run();
    assert_eq!(h.state().doc.scene().name(copy), Some("keel"));
    assert_eq!(h.state().doc.undo.len(), 2);
}

#[test]
fn saving_and_reopening_gives_the_same_scene() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("boat.ron");
    let config = dir.path().join("config");
    let mut h = harness(EditorApp::with_document(
        Document::new(small_scene(), None),
        Some(config.clone()),
    ));
    h.get_by_label("sea").click();
    h.run();
    h.get_by_label("Translation Z").set_value_accesskit(-4.25);
    h.run();
    assert!(h.state().doc.is_dirty());

    // Untitled: Ctrl+S asks where to save.
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::S);
    h.run();
    h.get_by_label("Path").focus();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::A);
    h.get_by_label("Path")
        .type_text(&path.display().to_string());
    h.run();
    h.get_by_label("Save").click();
    h.run();

    let app = h.state();
    assert!(!app.has_dialog());
    assert!(!app.doc.is_dirty(), "{}", app.status().text());
    assert_eq!(app.title(), "Keel — boat.ron");
    let reopened = Document::open(&path).unwrap();
    assert_eq!(reopened.scene().to_file(), app.doc.scene().to_file());
    assert_eq!(app.recent_files(), std::slice::from_ref(&path));
    let recent = std::fs::read_to_string(config.join("recent.ron")).unwrap();
    assert!(
        recent.contains("boat.ron"),
        "the recent list is on disk: {recent}"
    );

    // Edit again and save over the same file with Ctrl+S, no dialog this time.
    h.get_by_label("Translation Z").set_value_accesskit(7.0);
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::S);
    h.run();
    assert!(!h.state().has_dialog());
    let reopened = Document::open(&path).unwrap();
    assert_eq!(reopened.scene().to_file(), h.state().doc.scene().to_file());
    let mut again = harness(EditorApp::new(EditorOptions {
        scene: Some(path.clone()),
        ..EditorOptions::default()
    }));
    again.run();
    assert_eq!(
        again.state().doc.scene().to_file(),
        h.state().doc.scene().to_file()
    );
}

#[test]
fn new_with_unsaved_changes_asks_first() {
    let mut h = editor(small_scene(), None);
    h.get_by_label("sea").click();
    h.run();
    h.key_press(egui::Key::Delete);
    h.run();
    let edited = h.state().doc.scene().to_file();
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::N);
    h.run();
    assert!(h.state().has_dialog());
    h.get_by_label("Cancel").click();
    h.run();
    assert!(!h.state().has_dialog());
    assert_eq!(
        h.state().doc.scene().to_file(),
        edited,
        "cancel keeps everything"
    );
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::N);
    h.run();
    h.get_by_label("Don't save").click();
    h.run();
    assert!(h.state().doc.scene().is_empty(), "a new, empty scene");
    assert!(!h.state().doc.is_dirty());
}

#[test]
fn a_broken_scene_shows_where_it_is_broken_and_keeps_the_current_one() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.ron");
    std::fs::write(&bad, "(\n    version: 1,\n    nodes: [ (name: 3) ],\n)\n").unwrap();
    let mut h = editor(small_scene(), None);
    let before = h.state().doc.scene().to_file();
    h.state_mut().open_now(&bad);
    h.run();
    let app = h.state();
    assert_eq!(app.doc.scene().to_file(), before);
    assert!(app.status().is_error());
    let text = app.status().text();
    assert!(text.contains("bad.ron:3:"), "file and line: {text}");
    assert!(
        h.query_all_by_label_contains("bad.ron:3:").count() >= 2,
        "the modal shows it as well as the status bar"
    );
    h.get_by_label("OK").click();
    h.run();
    assert!(!h.state().has_dialog());
}

#[test]
fn a_newer_recovery_file_is_offered_and_restored_unsaved() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("boat.ron");
    small_scene().save(&path).unwrap();
    let mut changed = small_scene();
    let sea = changed.find("sea").unwrap();
    changed.despawn(sea).unwrap();
    let recovery = dir.path().join(".boat.ron.recovery.ron");
    changed.save(&recovery).unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    std::fs::File::options()
        .append(true)
        .open(&path)
        .unwrap()
        .set_modified(old)
        .unwrap();

    let mut h = harness(EditorApp::new(EditorOptions {
        scene: Some(path.clone()),
        ..EditorOptions::default()
    }));
    assert!(h.state().has_dialog());
    h.get_by_label("Restore").click();
    h.run();
    let doc = &h.state().doc;
    assert_eq!(doc.scene().to_file(), changed.to_file());
    assert!(doc.is_dirty(), "restored changes are not saved yet");
    assert_eq!(doc.path.as_deref(), Some(path.as_path()));
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::S);
    h.run();
    assert!(!recovery.exists(), "saving removes the recovery file");
}

#[test]
fn play_step_and_reset_go_back_to_the_scene_at_play() {
    let mut h = editor(small_scene(), None);
    let start = h.state().doc.scene().to_file();
    h.get_by_label("Play").click();
    h.run();
    for _ in 0..10 {
        h.state_mut().advance(std::time::Duration::from_millis(20));
    }
    h.run();
    assert_ne!(h.state().doc.scene().to_file(), start, "the flag spins");
    h.get_by_label("Pause").click();
    h.run();
    let paused = h.state().doc.scene().to_file();
    h.state_mut().advance(std::time::Duration::from_millis(100));
    assert_eq!(
        h.state().doc.scene().to_file(),
        paused,
        "paused means no steps"
    );
    h.get_by_label("Step").click();
    h.run();
    h.state_mut().advance(std::time::Duration::ZERO);
    assert_eq!(
        h.state().stats.frame.tick.steps,
        1,
        "Step runs exactly one fixed update"
    );
    h.get_by_label("Reset").click();
    h.run();
    assert_eq!(h.state().doc.scene().to_file(), start);
}

#[test]
fn the_hierarchy_draws_a_bounded_number_of_rows_for_100_000_nodes() {
    let mut scene = Scene::new();
    for i in 0..100_000 {
        scene
            .spawn(None, format!("n{i}"), Transform::IDENTITY)
            .unwrap();
    }
    let mut h = editor(scene, None);
    h.run();
    let hierarchy = h.state().hierarchy();
    assert_eq!(hierarchy.row_count(), 100_000);
    let drawn = hierarchy.rows_drawn();
    assert!((1..100).contains(&drawn), "drew {drawn} rows");
    assert!(h.query_by_label("n0").is_some());
    assert!(
        h.query_by_label("n99999").is_none(),
        "rows far below are not laid out"
    );
    let labelled = h.query_all_by_label_contains("n9").count();
    assert!(labelled < 100, "{labelled} row widgets exist");

    // Filtering walks the scene once and shows the matches.
    h.get_by_label("Filter").focus();
    h.get_by_label("Filter").type_text("n99999");
    h.run();
    assert_eq!(h.state().hierarchy().row_count(), 1);
    assert!(h.query_by_label("n99999").is_some());
}

/// Whether a GPU (or a software rasteriser) is there to render snapshots.
fn gpu_available() -> bool {
    let found = keel_engine::render::GpuContext::headless(wgpu::Backends::all()).is_ok();
    if !found && std::env::var("KEEL_REQUIRE_GPU").as_deref() == Ok("1") {
        panic!("KEEL_REQUIRE_GPU is set but no GPU adapter was found");
    }
    found
}

#[test]
fn snapshot_of_the_editor_on_the_demo_scene() {
    if !gpu_available() {
        eprintln!("skipped: no GPU adapter (set KEEL_REQUIRE_GPU=1 to fail instead)");
        return;
    }
    let app = EditorApp::new(EditorOptions {
        scene: Some(demo_path()),
        ..EditorOptions::default()
    });
    let mut h = Harness::builder()
        .with_size(Vec2::new(1400.0, 860.0))
        .wgpu()
        .build_ui_state(|ui, app: &mut EditorApp| app.ui(ui), app);
    assert!(!h.state().has_dialog(), "{}", h.state().status().text());
    h.get_by_label("lantern").click();
    h.state_mut().advance(std::time::Duration::ZERO);
    h.run();
    h.remove_cursor();
    h.run();
    h.snapshot("editor_demo");
}

#[test]
fn the_context_menu_adds_a_primitive_under_the_clicked_node() {
    let mut h = editor(small_scene(), None);
    h.get_by_label("hull").click_secondary();
    h.run();
    assert_eq!(
        h.state().doc.selection.primary(),
        Some(node(&h, "hull")),
        "right-click selects"
    );
    h.get_by_label("Add child").click();
    h.run();
    h.get_by_label("Cone").click();
    h.run();
    let doc = &h.state().doc;
    let cone = doc.scene().find("cone").expect("a cone was added");
    assert_eq!(doc.scene().parent(cone), doc.scene().find("hull"));
    assert_eq!(
        doc.scene().get::<MeshRenderer>(cone).map(|m| m.mesh),
        Some(Primitive::Cone.into())
    );
    assert_eq!(
        doc.selection.primary(),
        Some(cone),
        "the new node is selected"
    );
    assert!(
        h.query_by_label("cone").is_some(),
        "and shown (its parent opened)"
    );
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert!(h.state().doc.scene().find("cone").is_none());
}

#[test]
fn components_are_added_edited_and_removed_in_the_inspector() {
    let mut h = editor(small_scene(), None);
    h.get_by_label("sea").click();
    h.run();
    h.get_by_label("Add component").click();
    h.run();
    h.get_by_label("Light").click();
    h.run();
    let sea = node(&h, "sea");
    assert!(
        h.state()
            .doc
            .scene()
            .get::<keel_engine::scene::Light>(sea)
            .is_some()
    );
    h.get_by_label("Intensity").set_value_accesskit(4.5);
    h.run();
    let light = *h
        .state()
        .doc
        .scene()
        .get::<keel_engine::scene::Light>(sea)
        .unwrap();
    assert_eq!(light.intensity, 4.5);
    h.get_by_label("Remove Light").click();
    h.run();
    assert!(
        h.state()
            .doc
            .scene()
            .get::<keel_engine::scene::Light>(sea)
            .is_none()
    );
    assert_eq!(h.state().doc.undo.len(), 3, "add, edit, remove");
    for _ in 0..3 {
        h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
        h.run();
    }
    assert_eq!(h.state().doc.scene().to_file(), small_scene().to_file());
}

#[test]
fn f_frames_the_selection_and_the_view_menu_hides_panels() {
    let mut h = editor(small_scene(), None);
    h.get_by_label("ship").click();
    h.run();
    let before = h
        .state()
        .viewport
        .rig
        .as_ref()
        .expect("the viewport placed its camera")
        .orbit;
    h.key_press(egui::Key::F);
    h.run();
    assert!(
        !h.state_mut().take_frame_request(),
        "the viewport took the request"
    );
    let after = h.state().viewport.rig.as_ref().unwrap().orbit;
    let ship = h.state().doc.scene().find("ship").unwrap();
    let ship_at = glam::Vec3::from(h.state().doc.scene().world(ship).unwrap().translation);
    assert_ne!(before, after, "F moved the camera");
    assert!(
        after.target.distance(ship_at) < 2.0,
        "the camera looks at the ship: {:?}",
        after.target
    );
    h.get_by_label("View").click();
    h.run();
    h.get_by_role_and_label(egui::accesskit::Role::CheckBox, "Hierarchy")
        .click();
    h.run();
    assert!(!h.state().view.hierarchy);
    h.get_by_label("View").click();
    h.run();
    h.get_by_role_and_label(egui::accesskit::Role::CheckBox, "Octree cells")
        .click();
    h.run();
    assert!(h.state().view.octree_cells);
    h.key_press(egui::Key::Escape);
    h.run();
    assert!(
        h.query_by_label("ship").is_none(),
        "the hierarchy is hidden"
    );
}

#[test]
fn delete_then_undo_brings_back_an_emitter() {
    let mut h = editor(scene_with_emitter(), None);
    let start = h.state().doc.scene().to_file();
    let hull = node(&h, "hull");
    let emitter = h.state().doc.scene().get::<Emitter>(hull).cloned().unwrap();
    h.get_by_label("hull").click();
    h.run();
    assert!(h.query_by_label("Emission rate (/s)").is_some());
    h.key_press(egui::Key::Delete);
    h.run();
    assert!(h.state().doc.scene().find("hull").is_none());

    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    let scene = h.state().doc.scene();
    assert_eq!(scene.to_file(), start);
    let hull = scene.find("hull").unwrap();
    assert_eq!(scene.get::<Emitter>(hull), Some(&emitter));
}

#[test]
fn duplicating_a_node_copies_its_emitter() {
    let mut h = editor(scene_with_emitter(), None);
    let hull = node(&h, "hull");
    h.get_by_label("hull").click();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::D);
    h.run();
    let scene = h.state().doc.scene();
    let copy = scene.find("hull (copy)").expect("a copy");
    assert_eq!(scene.get::<Emitter>(copy), scene.get::<Emitter>(hull));
    assert!(scene.get::<Emitter>(copy).is_some());
}

#[test]
fn editing_the_emission_rate_in_the_inspector_is_one_undoable_edit() {
    let mut h = editor(scene_with_emitter(), None);
    let hull = node(&h, "hull");
    let before = h.state().doc.scene().get::<Emitter>(hull).unwrap().rate;
    h.get_by_label("hull").click();
    h.run();
    h.get_by_label("Emission rate (/s)")
        .set_value_accesskit(f64::from(before) + 30.5);
    h.run();
    let doc = &h.state().doc;
    assert_eq!(
        doc.scene().get::<Emitter>(hull).unwrap().rate,
        before + 30.5
    );
    assert_eq!(doc.undo.len(), 1);

    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    let scene = h.state().doc.scene();
    assert_eq!(scene.get::<Emitter>(hull).unwrap().rate, before);
    assert_eq!(scene.to_file(), scene_with_emitter().to_file());
}

#[test]
fn an_invalid_emitter_edit_is_not_applied_and_says_why() {
    let mut h = editor(scene_with_emitter(), None);
    let hull = node(&h, "hull");
    let start = h.state().doc.scene().to_file();
    h.get_by_label("hull").click();
    h.run();
    // Lifetime min above max: the scene keeps the valid emitter.
    h.get_by_label("Lifetime min").set_value_accesskit(5.0);
    h.run();
    assert_eq!(h.state().doc.scene().to_file(), start);
    assert!(!h.state().doc.undo.can_undo());
    assert!(
        h.query_by_label_contains("`lifetime` has min 5").is_some(),
        "the reason is shown"
    );
    // Raising max finishes the edit, which then applies as a whole.
    h.get_by_label("Lifetime max").set_value_accesskit(6.0);
    h.run();
    let lifetime = h.state().doc.scene().get::<Emitter>(hull).unwrap().lifetime;
    assert_eq!(lifetime, FloatRange::new(5.0, 6.0));
    assert!(h.query_by_label_contains("`lifetime` has min").is_none());
}

#[test]
fn emitter_stops_and_bursts_are_added_and_removed_in_the_inspector() {
    let mut h = editor(scene_with_emitter(), None);
    let hull = node(&h, "hull");
    h.get_by_label("hull").click();
    h.run();
    // The emitter's rows sit below the mesh's in the inspector: scrolled to, as a user would.
    for button in ["Add color stop", "Add burst"] {
        h.get_by_label(button).scroll_to_me();
        h.run();
        h.get_by_label(button).click();
        h.run();
    }
    let e = h.state().doc.scene().get::<Emitter>(hull).unwrap().clone();
    assert_eq!(e.color_over_life.len(), 3);
    assert!(e.color_over_life.windows(2).all(|w| w[0].t <= w[1].t));
    assert_eq!(e.bursts.len(), 2);
    h.get_by_label("Remove burst 1").scroll_to_me();
    h.run();
    h.get_by_label("Remove burst 1").click();
    h.run();
    let e = h.state().doc.scene().get::<Emitter>(hull).unwrap().clone();
    assert_eq!(e.bursts.len(), 1);
    assert_eq!(e.bursts[0].time, 0.75);
    assert_eq!(h.state().doc.undo.len(), 3);
}

/// Where `world` lands on screen in the viewport (screen points).
fn to_screen(h: &Harness<'_, EditorApp>, world: Vec3) -> Pos2 {
    let state = h.state();
    let rect = state.viewport.rect.expect("the viewport was drawn");
    let camera = state.viewport.rig.as_ref().expect("camera placed").camera();
    let ndc = camera
        .view_projection(rect.width() / rect.height())
        .project_point3(world);
    egui::pos2(
        rect.min.x + (ndc.x + 1.0) * 0.5 * rect.width(),
        rect.min.y + (1.0 - ndc.y) * 0.5 * rect.height(),
    )
}

#[test]
fn dragging_the_translate_gizmos_x_arrow_moves_the_node_along_x_as_one_undo_step() {
    let mut h = editor(small_scene(), None);
    h.get_by_label("mast").click();
    h.run();
    h.run();
    let mast = node(&h, "mast");
    let local_before = h.state().doc.scene().local(mast).unwrap();
    let world_before = Vec3::from(h.state().doc.scene().world(mast).unwrap().translation);
    let orbit_before = h.state().viewport.rig.as_ref().unwrap().orbit;
    let start = h.state().doc.scene().to_file();

    // The X arrow runs from the node's origin along the screen image of +X;
    // its tip is the farthest point along that line the gizmo picks (plane
    // handles sit off the axis, the centre handle at the origin).
    let origin = to_screen(&h, world_before);
    let along_x = (to_screen(&h, world_before + Vec3::X * 0.01) - origin).normalized();
    let tip = (1..200)
        .map(|d| origin + along_x * d as f32)
        .filter(|&p| h.state().viewport.gizmo.handle_at(p))
        .last()
        .expect("the gizmo has a handle along the node's x axis");
    let grab = tip - along_x * 8.0;
    assert!(
        (grab - origin).length() > 30.0,
        "the grabbed point is on the arrow, clear of the centre handle"
    );
    drag(&mut h, grab, grab + along_x * 90.0);

    let doc = &h.state().doc;
    let local = doc.scene().local(mast).unwrap();
    assert!(
        local.translation.x > local_before.translation.x + 0.1,
        "the drag moved mast along +x: {} -> {}",
        local_before.translation,
        local.translation
    );
    assert!(
        (local.translation.y - local_before.translation.y).abs() < 1e-4
            && (local.translation.z - local_before.translation.z).abs() < 1e-4,
        "only x changed: {} -> {}",
        local_before.translation,
        local.translation
    );
    assert_eq!(local.rotation, local_before.rotation);
    assert_eq!(local.scale, local_before.scale);
    let world_after = Vec3::from(doc.scene().world(mast).unwrap().translation);
    assert!(
        (world_after - world_before - (local.translation - local_before.translation)).length()
            < 1e-4,
        "the world transform follows: {world_before} -> {world_after}"
    );
    assert_eq!(doc.undo.len(), 1, "the whole drag is one undo entry");
    assert_eq!(doc.selection.primary(), Some(mast), "the drag did not pick");
    assert_eq!(
        h.state().viewport.rig.as_ref().unwrap().orbit,
        orbit_before,
        "the drag did not orbit the camera"
    );

    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(
        h.state().doc.scene().to_file(),
        start,
        "Ctrl+Z undoes the drag"
    );
}

#[test]
fn rotate_mode_turns_the_node_about_a_ring_without_moving_it() {
    let mut h = editor(small_scene(), None);
    h.state_mut().gizmo.mode = keel_editor::GizmoMode::Rotate;
    h.get_by_label("ship").click();
    h.run();
    h.run();
    let ship = node(&h, "ship");
    let before = h.state().doc.scene().local(ship).unwrap();
    let at = Vec3::from(h.state().doc.scene().world(ship).unwrap().translation);
    let origin = to_screen(&h, at);
    // Some ring crosses the screen's vertical through the centre; grab it there.
    let ring = (20..200)
        .map(|d| origin - vec2(0.0, d as f32))
        .find(|&p| h.state().viewport.gizmo.handle_at(p))
        .expect("a rotation ring above the node");
    drag(&mut h, ring, ring + vec2(70.0, 20.0));

    let doc = &h.state().doc;
    let after = doc.scene().local(ship).unwrap();
    assert!(
        after.rotation.angle_between(before.rotation) > 0.05,
        "the ring turned the node: {:?} -> {:?}",
        before.rotation,
        after.rotation
    );
    assert!((after.translation - before.translation).length() < 1e-4);
    assert_eq!(doc.undo.len(), 1, "the whole drag is one undo entry");
}

fn lighthouse_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/models/lighthouse.glb")
}

fn model_parts(h: &Harness<'_, EditorApp>, root: NodeId) -> usize {
    let scene = h.state().doc.scene();
    scene
        .subtree(root)
        .filter(|&n| scene.is_model_part(n))
        .count()
}

#[test]
fn file_import_gltf_adds_a_model_instance_as_one_undo_step() {
    let mut h = editor(small_scene(), None);
    let before = h.state().doc.scene().len();
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Import glTF…").click();
    h.run();
    h.get_by_label("Path").focus();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::A);
    h.get_by_label("Path")
        .type_text(&lighthouse_path().display().to_string());
    h.run();
    h.get_by_label("Import").click();
    h.run();

    assert!(!h.state().has_dialog(), "{}", h.state().status().text());
    let root = node(&h, "lighthouse");
    let parts = model_parts(&h, root);
    assert!(parts >= 4, "{parts} parts");
    assert_eq!(h.state().doc.scene().len(), before + 1 + parts);
    assert_eq!(h.state().doc.selection.primary(), Some(root));

    // Parts are read-only: the inspector says why, and edits are refused.
    let part = h.state().doc.scene().subtree(root).nth(1).unwrap();
    let refused = h
        .state_mut()
        .doc
        .set_transform(part, Transform::from_translation(Vec3::X), None);
    assert!(refused.is_err());
    assert!(h.state_mut().doc.delete(&[part]).is_err());

    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(
        h.state().doc.scene().len(),
        before,
        "undo removes the whole instance"
    );
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, egui::Key::Z);
    h.run();
    let root = node(&h, "lighthouse");
    assert_eq!(model_parts(&h, root), parts, "redo rebuilds the parts");
}

/// A file dropped on the window, as winit reports it.
#[derive(Debug)]
struct Dropped(PathBuf);

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &Path {
        &self.0
    }

    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

#[test]
fn dropping_a_model_file_on_the_window_imports_it_and_saving_keeps_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = editor(small_scene(), None);
    h.input_mut()
        .dropped_files
        .push(std::sync::Arc::new(Dropped(lighthouse_path())));
    h.run();
    let root = node(&h, "lighthouse");
    assert!(model_parts(&h, root) >= 4);

    // Deleting and undoing brings the parts back from the file.
    h.state_mut().doc.delete(&[root]).unwrap();
    assert!(h.state().doc.scene().find("lighthouse").is_none());
    h.state_mut().doc.undo().unwrap();
    let root = node(&h, "lighthouse");
    assert!(model_parts(&h, root) >= 4);

    let path = dir.path().join("with_model.ron");
    h.state_mut().doc.save_to(&path).unwrap();
    let reopened = Document::open(&path).unwrap();
    assert_eq!(reopened.scene().len(), h.state().doc.scene().len());
    assert_eq!(reopened.scene().to_file(), h.state().doc.scene().to_file());

    // Anything else dropped is refused with a message, and nothing changes.
    let len = h.state().doc.scene().len();
    h.input_mut()
        .dropped_files
        .push(std::sync::Arc::new(Dropped(dir.path().join("notes.txt"))));
    h.run();
    assert_eq!(h.state().doc.scene().len(), len);
    assert!(h.state().status().text().contains("notes.txt"));
}

#[test]
fn importing_a_broken_model_shows_the_file_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.glb");
    std::fs::write(&bad, b"glTF\x02\x00\x00\x00").unwrap();
    let mut h = editor(small_scene(), None);
    let before = h.state().doc.scene().to_file();
    h.state_mut().import_model(&bad);
    h.run();
    assert!(h.state().has_dialog(), "an error dialog");
    assert!(
        h.state().status().text().contains("broken.glb"),
        "{}",
        h.state().status().text()
    );
    assert_eq!(h.state().doc.scene().to_file(), before);
    assert!(!h.state().doc.is_dirty());
}

/// Runs exactly one fixed step through the editor's frame loop.
fn one_step(h: &mut Harness<'_, EditorApp>) {
    let step = h.state().doc.world.clock.step();
    h.state_mut().advance(step);
    h.run();
}

#[test]
fn scrubbing_the_timeline_back_shows_the_old_transform_in_the_inspector() {
    let mut h = editor(small_scene(), None);
    let flag = node(&h, "flag");
    h.state_mut().doc.selection.select_only(flag);
    h.run();
    h.get_by_label("Play").click();
    h.run();
    let mut seen = Vec::new();
    while h.state().doc.step() < 120 {
        one_step(&mut h);
        let doc = &h.state().doc;
        let shown = h.get_by_label("Rotation Y").value();
        seen.push((doc.step(), doc.scene().local(flag).unwrap(), shown));
    }
    h.get_by_label("Pause").click();
    h.run();
    let timeline = h.get_by_label("Timeline").rect();
    assert!(
        timeline.width() > 50.0,
        "the timeline is shown while recording"
    );

    // Drag the slider to a quarter of its length: about step 30.
    let from = timeline.right_center() - vec2(2.0, 0.0);
    let to = timeline.left_center() + vec2(timeline.width() * 0.25, 0.0);
    drag(&mut h, from, to);
    let at = h.state().doc.step();
    assert!((10..=60).contains(&at), "scrubbed to step {at}");
    let (_, old_local, old_shown) = seen.iter().find(|(s, ..)| *s == at).unwrap().clone();
    assert_eq!(h.state().doc.scene().local(flag), Some(old_local));
    assert_eq!(
        h.get_by_label("Rotation Y").value(),
        old_shown,
        "the inspector follows"
    );
    assert_ne!(old_local, seen.last().unwrap().1, "the flag spun since");

    // One step back with `,`, one forward with the button: along the recording.
    h.key_press(egui::Key::Comma);
    h.run();
    assert_eq!(h.state().doc.step(), at - 1);
    let before = seen.iter().find(|(s, ..)| *s == at - 1).unwrap().1;
    assert_eq!(h.state().doc.scene().local(flag), Some(before));
    h.get_by_label("Step forward >").click();
    h.run();
    assert_eq!(h.state().doc.step(), at);
    assert_eq!(h.state().doc.scene().local(flag), Some(old_local));
    assert_eq!(
        h.state().doc.world.recorder().unwrap().range(),
        Some(0..=120),
        "scrubbing keeps the recorded future"
    );
}

/// Play (recording) until fixed step `step`, then Pause.
fn play_then_pause_at(h: &mut Harness<'_, EditorApp>, step: u64) {
    h.get_by_label("Play").click();
    h.run();
    while h.state().doc.step() < step {
        one_step(h);
    }
    h.get_by_label("Pause").click();
    h.run();
}

#[test]
fn an_edit_at_a_past_step_branches_and_its_undo_brings_the_future_back() {
    let mut h = editor(small_scene(), None);
    let ship = node(&h, "ship");
    play_then_pause_at(&mut h, 90);
    let at_90 = h.state_mut().doc.world.state_hash();
    h.state_mut().doc.seek(40).unwrap();
    let moved = Transform::from_translation(Vec3::new(7.0, 0.0, 0.0));
    h.state_mut().doc.set_transform(ship, moved, None).unwrap();
    h.run();
    let range = h.state().doc.world.recorder().unwrap().range();
    assert_eq!(range, Some(0..=40), "the edit discarded the future");
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    let doc = &mut h.state_mut().doc;
    assert_eq!(
        doc.world.recorder().unwrap().range(),
        Some(0..=90),
        "undo restores it"
    );
    doc.seek(90).unwrap();
    assert_eq!(doc.world.state_hash(), at_90);
}

/// The Fox (../shared/models) as the only node, with an animator set up by `setup`.
fn animated_fox(setup: impl FnOnce(&mut keel_engine::scene::Animator)) -> (Scene, NodeId) {
    let fox = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/models/Fox.glb");
    let mut scene = Scene::new();
    let (root, _) = scene
        .spawn_model(None, "fox", Transform::IDENTITY, &fox)
        .unwrap();
    let mut animator = keel_engine::scene::Animator::new("Walk");
    setup(&mut animator);
    scene.insert(root, animator).unwrap();
    (scene, root)
}

#[test]
fn deleting_an_animated_model_and_undoing_keeps_its_animator() {
    let (scene, root) = animated_fox(|a| a.speed = 2.0);
    let mut doc = Document::new(scene, None);
    doc.delete(&[root]).unwrap();
    assert!(doc.scene().find("fox").is_none());
    doc.undo().unwrap();
    let root = doc.scene().find("fox").expect("back");
    let animator = doc.scene().get::<keel_engine::scene::Animator>(root);
    assert_eq!(
        animator.map(|a| (a.clip.as_str(), a.speed)),
        Some(("Walk", 2.0))
    );
}

#[test]
fn scrubbing_an_animator_while_paused_poses_the_bones_and_undo_puts_them_back() {
    let (scene, root) = animated_fox(|a| a.playing = false);
    let mut h = editor(scene, None);
    h.state_mut().doc.selection.select_only(root);
    h.run();
    let pose = |h: &Harness<'_, EditorApp>| -> Vec<Transform> {
        let scene = h.state().doc.scene();
        scene
            .subtree(root)
            .map(|n| scene.local(n).unwrap())
            .collect()
    };
    let before = pose(&h);
    let time = center_of(&h, "Clip time");
    drag(&mut h, time, time + vec2(60.0, 0.0));
    let scrubbed = h
        .state()
        .doc
        .scene()
        .get::<keel_engine::scene::Animator>(root)
        .unwrap()
        .time;
    assert!(scrubbed > 0.05, "the scrub moved the clip time: {scrubbed}");
    assert_ne!(pose(&h), before, "the bones follow the scrub while paused");
    assert_eq!(h.state().doc.undo.len(), 1, "one undo entry for the drag");
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    let animator = h
        .state()
        .doc
        .scene()
        .get::<keel_engine::scene::Animator>(root);
    assert_eq!(animator.map(|a| a.time), Some(0.0));
    assert_eq!(pose(&h), before, "undo poses the bones back");
}

#[test]
fn a_drag_at_a_past_step_is_one_branch_that_one_undo_brings_back() {
    let mut h = editor(small_scene(), None);
    let ship = node(&h, "ship");
    play_then_pause_at(&mut h, 60);
    let doc = &mut h.state_mut().doc;
    doc.seek(20).unwrap();
    // A drag: several edits merged into one undo entry; only the first discards the future.
    for x in [1.0, 2.0, 3.0] {
        let t = Transform::from_translation(Vec3::new(x, 0.0, 0.0));
        doc.set_transform(ship, t, Some(7)).unwrap();
    }
    assert_eq!(doc.undo.len(), 1);
    assert_eq!(doc.world.recorder().unwrap().range(), Some(0..=20));
    doc.undo().unwrap();
    assert_eq!(
        doc.world.recorder().unwrap().range(),
        Some(0..=60),
        "the merged drag's undo brings the future back"
    );
}
