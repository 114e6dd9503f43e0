//! The editor's UI driven like a user would (egui_kittest): clicks, typing,
//! keyboard shortcuts and drag-and-drop on the real panels, checked against
//! the world underneath.

use egui::{Modifiers, Vec2, vec2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::Vec3;
use keel_editor::{Document, EditorApp, EditorOptions};
use keel_engine::Primitive;
use keel_engine::{MeshRenderer, Scene, Spin, Transform};

mod common;

use common::*;

#[test]
fn clicking_a_row_selects_the_node_and_the_inspector_shows_it() {
    let mut h = editor(small_scene(), None);
    h.get_by_label("mast").click();
    h.run();
    let mast = node(&h, "mast");
    assert_eq!(h.state().doc().selection.primary(), Some(mast));
    assert_eq!(h.state().doc().selection.len(), 1);
    let name_field = h.get_by_label("Name");
    assert_eq!(name_field.value().as_deref(), Some("mast"));
    assert!(h.query_by_label("Translation X").is_some());

    h.get_by_label("hull").click_modifiers(Modifiers::COMMAND);
    h.run();
    assert_eq!(h.state().doc().selection.len(), 2, "Ctrl+click adds");
    h.get_by_label("sea").click_modifiers(Modifiers::SHIFT);
    h.run();
    let sel = h.state().doc().selection.nodes().to_vec();
    assert_eq!(
        sel,
        vec![node(&h, "hull"), node(&h, "sea")],
        "Shift+click selects the rows from the last clicked (hull) to sea, replacing the rest"
    );
    assert_eq!(h.state().doc().selection.primary(), Some(node(&h, "sea")));
}

#[test]
fn dragging_a_translation_moves_the_node_in_the_world_as_one_undo_step() {
    let mut h = editor(small_scene(), None);
    h.get_by_label("mast").click();
    h.run();
    let mast = node(&h, "mast");
    let world_before = h.state().doc().scene().world(mast).unwrap().translation;
    let start = h.state().doc().scene().to_file();

    let field = center_of(&h, "Translation X");
    drag(&mut h, field, field + vec2(120.0, 0.0));

    let doc = &h.state().doc();
    let local = doc.scene().local(mast).unwrap().translation;
    assert!(local.x > 1.0, "the drag moved mast along x: {local}");
    let world_after = doc.scene().world(mast).unwrap().translation;
    assert!(
        (world_after.x - world_before.x - local.x).abs() < 1e-4,
        "world transform follows: {world_before} -> {world_after}"
    );
    assert_eq!(doc.undo.len(), 1, "the whole drag is one undo entry");
    assert!(doc.is_dirty());
    assert!(h.state().doc().title().ends_with('*'));
    let moved = doc.scene().to_file();

    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(
        h.state().doc().scene().to_file(),
        start,
        "Ctrl+Z undoes the drag"
    );
    assert_eq!(
        h.state().doc().scene().world(mast).unwrap().translation,
        world_before
    );
    assert!(!h.state().doc().is_dirty());

    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, egui::Key::Z);
    h.run();
    assert_eq!(
        h.state().doc().scene().to_file(),
        moved,
        "Ctrl+Shift+Z redoes it"
    );
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Y);
    h.run();
    assert_eq!(
        h.state().doc().scene().to_file(),
        moved,
        "Ctrl+Y redoes too"
    );
}

#[test]
fn a_value_set_through_accessibility_lands_exactly() {
    let mut h = editor(small_scene(), None);
    h.get_by_label("sea").click();
    h.run();
    h.get_by_label("Scale Y").set_value_accesskit(3.5);
    h.run();
    let sea = node(&h, "sea");
    assert_eq!(h.state().doc().scene().local(sea).unwrap().scale.y, 3.5);
    assert_eq!(
        h.state().doc().scene().world(sea).unwrap().y_axis.length(),
        3.5
    );
}

#[test]
fn dropping_a_row_onto_another_reparents_and_keeps_the_world_place() {
    let mut h = editor(small_scene(), None);
    let hull = node(&h, "hull");
    let sea = node(&h, "sea");
    let world = h.state().doc().scene().world(hull).unwrap();
    let (from, to) = (center_of(&h, "hull"), center_of(&h, "sea"));
    drag(&mut h, from, to);
    let doc = &h.state().doc();
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
    let doc = &h.state().doc();
    assert_eq!(doc.scene().parent(hull), None);
    assert_eq!(doc.scene().roots().last(), Some(hull));
}

#[test]
fn dropping_a_node_into_its_own_subtree_is_refused_with_a_red_message() {
    let mut h = editor(small_scene(), None);
    let start = h.state().doc().scene().to_file();
    let (from, to) = (center_of(&h, "ship"), center_of(&h, "mast"));
    drag(&mut h, from, to);
    let app = h.state();
    assert_eq!(app.doc().scene().to_file(), start, "nothing moved");
    assert!(!app.doc().undo.can_undo(), "a refused drop is not an edit");
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
    let start = h.state().doc().scene().to_file();
    h.get_by_label("mast").click();
    h.run();
    h.key_press(egui::Key::Delete);
    h.run();
    assert!(h.state().doc().scene().find("mast").is_none());
    assert!(
        h.state().doc().scene().find("flag").is_none(),
        "the subtree goes too"
    );
    assert!(h.query_by_label("mast").is_none(), "and leaves the tree");

    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    let doc = &h.state().doc();
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
    let copy = h.state().doc().scene().find("hull (copy)").expect("a copy");
    assert_eq!(h.state().doc().selection.primary(), Some(copy));
    assert!(h.state().doc().scene().get::<MeshRenderer>(copy).is_some());

    h.key_press(egui::Key::F2);
    h.run();
    let field = h.get_by_label("Rename");
    field.focus();
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::A);
    h.get_by_label("Rename").type_text("keel");
    h.key_press(egui::Key::Enter);
    h.run();
    assert_eq!(h.state().doc().scene().name(copy), Some("keel"));
    assert_eq!(h.state().doc().undo.len(), 2);
}

#[test]
fn saving_and_reopening_gives_the_same_scene() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("boat.ron");
    let config = dir.path().join("config");
    let mut h = harness(EditorApp::with_game(
        Document::new(small_scene(), None),
        Some(config.clone()),
        keel_engine::Game::new(),
    ));
    h.get_by_label("sea").click();
    h.run();
    h.get_by_label("Translation Z").set_value_accesskit(-4.25);
    h.run();
    assert!(h.state().doc().is_dirty());

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
    assert!(!app.doc().is_dirty(), "{}", app.status().text());
    assert_eq!(app.doc().title(), "Keel — boat.ron");
    let reopened = Document::open(&path, &keel_engine::Assets::new()).unwrap();
    assert_eq!(reopened.scene().to_file(), app.doc().scene().to_file());
    assert_eq!(app.files().recent(), std::slice::from_ref(&path));
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
    let reopened = Document::open(&path, &keel_engine::Assets::new()).unwrap();
    assert_eq!(
        reopened.scene().to_file(),
        h.state().doc().scene().to_file()
    );
    let mut again = harness(EditorApp::new(EditorOptions {
        scene: Some(path.clone()),
        ..EditorOptions::default()
    }));
    again.run();
    assert_eq!(
        again.state().doc().scene().to_file(),
        h.state().doc().scene().to_file()
    );
}

#[test]
fn new_with_unsaved_changes_asks_first() {
    let mut h = editor(small_scene(), None);
    h.get_by_label("sea").click();
    h.run();
    h.key_press(egui::Key::Delete);
    h.run();
    let edited = h.state().doc().scene().to_file();
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::N);
    h.run();
    assert!(h.state().has_dialog());
    h.get_by_label("Cancel").click();
    h.run();
    assert!(!h.state().has_dialog());
    assert_eq!(
        h.state().doc().scene().to_file(),
        edited,
        "cancel keeps everything"
    );
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::N);
    h.run();
    h.get_by_label("Don't save").click();
    h.run();
    assert!(h.state().doc().scene().is_empty(), "a new, empty scene");
    assert!(!h.state().doc().is_dirty());
}

#[test]
fn a_broken_scene_shows_where_it_is_broken_and_keeps_the_current_one() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.ron");
    std::fs::write(&bad, "(\n    version: 1,\n    nodes: [ (name: 3) ],\n)\n").unwrap();
    let mut h = editor(small_scene(), None);
    let before = h.state().doc().scene().to_file();
    h.state_mut().open_now(&bad);
    h.run();
    let app = h.state();
    assert_eq!(app.doc().scene().to_file(), before);
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
    let doc = &h.state().doc();
    assert_eq!(doc.scene().to_file(), changed.to_file());
    assert!(doc.is_dirty(), "restored changes are not saved yet");
    assert_eq!(doc.path.as_deref(), Some(path.as_path()));
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::S);
    h.run();
    assert!(!recovery.exists(), "saving removes the recovery file");
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
    let hierarchy = h.state().workspace().hierarchy();
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
    assert_eq!(h.state().workspace().hierarchy().row_count(), 1);
    assert!(h.query_by_label("n99999").is_some());
}

/// Whether a GPU (or a software rasteriser) is there to render snapshots.
fn gpu_available() -> bool {
    let found = keel_engine::GpuContext::headless(wgpu::Backends::all()).is_ok();
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
    // The asset browser fills in from background threads: not in a snapshot.
    h.state_mut()
        .workspace_mut()
        .layout_mut()
        .close(keel_editor::Panel::Assets);
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
        h.state().doc().selection.primary(),
        Some(node(&h, "hull")),
        "right-click selects"
    );
    h.get_by_label("Add child").click();
    h.run();
    h.get_by_label("Cone").click();
    h.run();
    let doc = &h.state().doc();
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
    assert!(h.state().doc().scene().find("cone").is_none());
}

#[test]
fn components_are_added_edited_and_removed_in_the_inspector() {
    let mut h = editor(small_scene(), None);
    h.get_by_label("sea").click();
    h.run();
    click_scrolled(&mut h, "Add component");
    h.run();
    h.get_by_label("Light").click();
    h.run();
    let sea = node(&h, "sea");
    assert!(
        h.state()
            .doc()
            .scene()
            .get::<keel_engine::Light>(sea)
            .is_some()
    );
    h.get_by_label("Intensity").set_value_accesskit(4.5);
    h.run();
    let light = *h
        .state()
        .doc()
        .scene()
        .get::<keel_engine::Light>(sea)
        .unwrap();
    assert_eq!(light.intensity, 4.5);
    // The light's rows sit below the mesh's: scrolled to, as a user would.
    h.get_by_label("Remove Light").scroll_to_me();
    h.run();
    h.get_by_label("Remove Light").click();
    h.run();
    assert!(
        h.state()
            .doc()
            .scene()
            .get::<keel_engine::Light>(sea)
            .is_none()
    );
    assert_eq!(h.state().doc().undo.len(), 3, "add, edit, remove");
    for _ in 0..3 {
        h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
        h.run();
    }
    assert_eq!(h.state().doc().scene().to_file(), small_scene().to_file());
}

#[test]
fn f_frames_the_selection_and_the_view_menu_hides_panels() {
    let mut h = editor(small_scene(), None);
    h.get_by_label("ship").click();
    h.run();
    let before = h
        .state()
        .views()
        .viewport
        .rig
        .as_ref()
        .expect("the viewport placed its camera")
        .orbit;
    h.key_press(egui::Key::F);
    h.run();
    assert!(
        !h.state_mut().views_mut().take_frame_request(),
        "the viewport took the request"
    );
    let after = h.state().views().viewport.rig.as_ref().unwrap().orbit;
    let ship = h.state().doc().scene().find("ship").unwrap();
    let ship_at = glam::Vec3::from(h.state().doc().scene().world(ship).unwrap().translation);
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
    assert!(
        !h.state()
            .workspace()
            .layout()
            .is_open(keel_editor::Panel::Hierarchy)
    );
    h.get_by_label("View").click();
    h.run();
    h.get_by_role_and_label(egui::accesskit::Role::CheckBox, "Octree cells")
        .click();
    h.run();
    assert!(h.state().views().options.octree_cells);
    h.get_by_label("View").click();
    h.run();
    h.get_by_role_and_label(egui::accesskit::Role::CheckBox, "Colliders and contacts")
        .click();
    h.run();
    assert!(h.state().views().options.colliders);
    h.key_press(egui::Key::Escape);
    h.run();
    assert!(
        h.query_by_label("ship").is_none(),
        "the hierarchy is hidden"
    );
}

/// Grabs the translate gizmo's X arrow of `node` near its tip and drags it
/// `pixels` along the arrow's screen direction. The arrow runs from the
/// node's origin along the screen image of +X; its tip is the farthest point
/// along that line the gizmo picks (plane handles sit off the axis, the
/// centre handle at the origin).
fn drag_x_arrow(
    h: &mut egui_kittest::Harness<'_, keel_editor::EditorApp>,
    node: keel_engine::NodeId,
    pixels: f32,
) {
    let world = Vec3::from(h.state().doc().scene().world(node).unwrap().translation);
    let origin = to_screen(h, world);
    let along_x = (to_screen(h, world + Vec3::X * 0.01) - origin).normalized();
    let tip = (1..200)
        .map(|d| origin + along_x * d as f32)
        .filter(|&p| h.state().views().viewport.gizmo.handle_at(p))
        .last()
        .expect("the gizmo has a handle along the node's x axis");
    let grab = tip - along_x * 8.0;
    assert!(
        (grab - origin).length() > 30.0,
        "the grabbed point is on the arrow, clear of the centre handle"
    );
    drag(h, grab, grab + along_x * pixels);
}

#[test]
fn a_snapped_translate_drag_moves_in_whole_steps() {
    let mut h = editor(small_scene(), None);
    h.get_by_label("mast").click();
    h.run();
    h.run();
    let mast = node(&h, "mast");
    let before = h.state().doc().scene().local(mast).unwrap().translation;
    h.state_mut().views_mut().gizmo.snap = true;
    h.state_mut().views_mut().gizmo.steps.translate = 0.25;
    drag_x_arrow(&mut h, mast, 90.0);
    let moved = h.state().doc().scene().local(mast).unwrap().translation - before;
    let steps = moved.x / 0.25;
    assert!(moved.x > 0.2, "the drag moved the mast: {moved}");
    assert!(
        (steps - steps.round()).abs() < 1e-3,
        "moved {} along x: not a whole number of 0.25 steps",
        moved.x
    );
    // Without snapping the same drag lands between steps.
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    h.state_mut().views_mut().gizmo.snap = false;
    drag_x_arrow(&mut h, mast, 90.0);
    let free = h.state().doc().scene().local(mast).unwrap().translation - before;
    let steps = free.x / 0.25;
    assert!(
        (steps - steps.round()).abs() > 1e-3,
        "unsnapped, {} is a whole number of steps only by chance",
        free.x
    );
}

#[test]
fn dragging_the_translate_gizmos_x_arrow_moves_the_node_along_x_as_one_undo_step() {
    let mut h = editor(small_scene(), None);
    h.get_by_label("mast").click();
    h.run();
    h.run();
    let mast = node(&h, "mast");
    let local_before = h.state().doc().scene().local(mast).unwrap();
    let world_before = Vec3::from(h.state().doc().scene().world(mast).unwrap().translation);
    let orbit_before = h.state().views().viewport.rig.as_ref().unwrap().orbit;
    let start = h.state().doc().scene().to_file();

    drag_x_arrow(&mut h, mast, 90.0);

    let doc = &h.state().doc();
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
        h.state().views().viewport.rig.as_ref().unwrap().orbit,
        orbit_before,
        "the drag did not orbit the camera"
    );

    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(
        h.state().doc().scene().to_file(),
        start,
        "Ctrl+Z undoes the drag"
    );
}

#[test]
fn rotate_mode_turns_the_node_about_a_ring_without_moving_it() {
    let mut h = editor(small_scene(), None);
    h.state_mut().views_mut().gizmo.mode = keel_editor::GizmoMode::Rotate;
    h.get_by_label("ship").click();
    h.run();
    h.run();
    let ship = node(&h, "ship");
    let before = h.state().doc().scene().local(ship).unwrap();
    let at = Vec3::from(h.state().doc().scene().world(ship).unwrap().translation);
    let origin = to_screen(&h, at);
    // Some ring crosses the screen's vertical through the centre; grab it there.
    let ring = (20..200)
        .map(|d| origin - vec2(0.0, d as f32))
        .find(|&p| h.state().views().viewport.gizmo.handle_at(p))
        .expect("a rotation ring above the node");
    drag(&mut h, ring, ring + vec2(70.0, 20.0));

    let doc = &h.state().doc();
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

/// A game's component: the editor has no code for it.
#[derive(
    Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, bevy_reflect::Reflect,
)]
struct Cargo {
    crates: u32,
    #[reflect(@0.0..=100.0_f32)]
    weight: f32,
    fragile: bool,
    #[reflect(@keel_engine::scene::ColorHint)]
    tint: Vec3,
}

impl keel_engine::Component for Cargo {
    const NAME: &'static str = "cargo";
}

#[test]
fn an_added_collider_fits_what_the_node_draws() {
    // The ship's hull raised a metre: the box around the ship reaches 1.5
    // up and down from it.
    let mut scene = small_scene();
    let hull = scene.find("hull").unwrap();
    let raised = keel_engine::Transform::from_translation(glam::Vec3::Y);
    scene.set_local(hull, raised).unwrap();
    let mut h = editor(scene, None);
    h.get_by_label("ship").click();
    h.run();
    click_scrolled(&mut h, "Add component");
    h.run();
    h.get_by_label("Collider").click();
    h.run();
    let ship = node(&h, "ship");
    let added = h
        .state()
        .doc()
        .scene()
        .get::<keel_engine::Collider>(ship)
        .copied();
    let fitted = keel_engine::Collider::cuboid(glam::Vec3::new(0.5, 1.5, 0.5));
    assert_eq!(
        added,
        Some(fitted),
        "the box around the ship's hull, not the unit box"
    );
}

#[test]
fn a_game_component_is_added_and_edited_through_reflection() {
    let mut scene = small_scene();
    scene.register::<Cargo>().unwrap();
    let mut h = editor(scene, None);
    h.get_by_label("sea").click();
    h.run();
    click_scrolled(&mut h, "Add component");
    h.run();
    h.get_by_label("Cargo").click();
    h.run();
    let sea = node(&h, "sea");
    let cargo = |h: &Harness<'_, EditorApp>| h.state().doc().scene().get::<Cargo>(sea).cloned();
    assert_eq!(cargo(&h), Some(Cargo::default()), "added with its default");
    h.get_by_label("Weight").scroll_to_me();
    h.run();
    h.get_by_label("Weight").set_value_accesskit(250.0);
    h.run();
    assert_eq!(
        cargo(&h).map(|c| c.weight),
        Some(100.0),
        "the field's range attribute clamps the edit"
    );
    h.get_by_label("Fragile").click();
    h.run();
    assert_eq!(cargo(&h).map(|c| c.fragile), Some(true));
    assert!(
        h.query_by_label("Tint linear X").is_some(),
        "a colour field gets the colour row"
    );
    assert!(h.state().doc().is_dirty());
    assert_eq!(h.state().doc().undo.len(), 3, "add, weight, fragile");
    let saved = h.state().doc().scene().to_file();
    assert_eq!(
        saved
            .nodes
            .iter()
            .find(|n| n.name == "sea")
            .and_then(|n| n.component::<Cargo>()),
        cargo(&h).as_ref(),
        "the scene file holds the edited component"
    );
    for _ in 0..3 {
        h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
        h.run();
    }
    assert_eq!(cargo(&h), None, "every edit undoes");
}
