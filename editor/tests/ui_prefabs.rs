//! Prefabs and hot reload driven like a user would (egui_kittest): an
//! instance's override shown in bold and reverted, a prefab opened from its
//! instance, edited and saved, updating both instances of the open scene, a
//! paste that would make a prefab contain itself refused with the chain of
//! files, an override of a node the prefab lost kept, listed in the Log and
//! removed on request, and the open scene changed on disk by another program (reloaded,
//! or asked about over unsaved edits).

mod common;

use std::path::{Path, PathBuf};

use common::*;
use egui::Modifiers;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::Vec4;
use keel_editor::{CaptureLogger, Document, EditorApp, EditorOptions, LogBook};
use keel_engine::scene::PrefabInstance;
use keel_engine::{MeshRenderer, NodeId, Scene};

const BOAT: &str = r#"(
    version: 2,
    nodes: [
        (name: "body"),
        (name: "hull", parent: 0, transform: (translation: (0.0, 0.2, 0.0)),
         mesh: (mesh: Cube, material: (base_color: (0.3, 0.1, 0.0, 1.0)))),
        (name: "sail", parent: 0, transform: (translation: (0.0, 1.3, 0.0)),
         mesh: (mesh: Cube, material: (base_color: (0.9, 0.9, 0.8, 1.0)))),
    ],
)"#;

const HARBOUR: &str = r#"(
    version: 2,
    nodes: [
        (name: "boat_a", prefab: "boat.ron", transform: (translation: (-3.0, 0.0, 0.0))),
        (name: "boat_b", prefab: "boat.ron", transform: (translation: (3.0, 0.0, 0.0)),
         overrides: {"body/hull": {"mesh": {"material": {"base_color": (1.0, 0.0, 0.0, 1.0)}}}}),
    ],
)"#;

/// A folder with the boat prefab and a harbour scene of two boats.
fn harbour() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("boat.ron"), BOAT).unwrap();
    let scene = dir.path().join("harbour.ron");
    std::fs::write(&scene, HARBOUR).unwrap();
    (dir, scene)
}

fn open(path: &Path) -> Harness<'static, EditorApp> {
    harness(EditorApp::with_game(
        Document::open(path, &keel_engine::Assets::new()).unwrap(),
        None,
        keel_engine::Game::new(),
    ))
}

/// The node at `names` (a path of names from a root).
fn at(h: &Harness<'_, EditorApp>, names: &[&str]) -> NodeId {
    let scene = h.state().doc().scene();
    let mut node = scene.find(names[0]).unwrap();
    for name in &names[1..] {
        node = scene
            .children(node)
            .find(|&c| scene.name(c) == Some(*name))
            .unwrap_or_else(|| panic!("no {name}"));
    }
    node
}

fn color(scene: &Scene, node: NodeId) -> Vec4 {
    scene.get::<MeshRenderer>(node).unwrap().material.base_color
}

#[test]
fn an_override_is_shown_in_bold_and_reverted_to_the_prefab() {
    let (_dir, path) = harbour();
    let mut h = open(&path);
    let hull = at(&h, &["boat_b", "body", "hull"]);
    h.state_mut().doc_mut().selection.select_only(hull);
    h.run();
    assert!(
        h.query_by_label_contains("Part `body/hull` of boat.ron")
            .is_some()
    );
    let field = "mesh.material.base_color";
    let shown = h.get_by_label(field);
    assert!(shown.rect().width() > 0.0, "the overridden field is listed");
    // The other instance's hull changed nothing: no field listed.
    let plain = at(&h, &["boat_a", "body", "hull"]);
    h.state_mut().doc_mut().selection.select_only(plain);
    h.run();
    assert!(h.query_by_label(field).is_none());

    h.state_mut().doc_mut().selection.select_only(hull);
    h.run();
    h.get_by_label(&format!("Revert {field}")).click();
    h.run();
    let scene = h.state().doc().scene();
    assert_eq!(color(scene, hull), Vec4::new(0.3, 0.1, 0.0, 1.0));
    assert!(h.query_by_label(field).is_none(), "no longer overridden");
    let saved = h.state().doc().scene().to_file();
    assert!(saved.nodes.iter().all(|n| n.overrides.is_empty()));
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    let hull = at(&h, &["boat_b", "body", "hull"]);
    assert_eq!(
        color(h.state().doc().scene(), hull),
        Vec4::new(1.0, 0.0, 0.0, 1.0),
        "undo brings the override back"
    );
}

#[test]
fn an_override_of_a_node_the_prefab_lost_is_shown_kept_and_removed_on_request() {
    let (dir, path) = harbour();
    // The prefab loses its hull, which boat_b overrides.
    let without_hull = BOAT.replace(
        "        (name: \"hull\", parent: 0, transform: (translation: (0.0, 0.2, 0.0)),\n         mesh: (mesh: Cube, material: (base_color: (0.3, 0.1, 0.0, 1.0)))),\n",
        "",
    );
    assert_ne!(without_hull, BOAT);
    std::fs::write(dir.path().join("boat.ron"), without_hull).unwrap();
    // The engine's warning reaches the Log tab as it does in the editor binary.
    let book = LogBook::default();
    CaptureLogger::install(book.clone()).expect("the only logger of this test binary");
    let mut h = harness(EditorApp::new(EditorOptions {
        scene: Some(path.clone()),
        log: book,
        ..EditorOptions::default()
    }));
    h.run();
    h.get_by_label_contains("new warning").click();
    h.run();
    let said = "has no node `body/hull` any more";
    h.get_by_label_contains(said).click();
    h.run();
    let boat = at(&h, &["boat_b"]);
    assert_eq!(
        h.state().doc().selection.primary(),
        Some(boat),
        "the entry names boat_b"
    );
    let warning = "Orphaned `body/hull`: the prefab has no such node any more";
    assert!(h.query_by_label(warning).is_some(), "the orphan is shown");
    // Saved as it was read: the override stays in the file.
    let saved = h.state().doc().scene().to_file();
    assert_eq!(
        saved.nodes[1].overrides.keys().collect::<Vec<_>>(),
        ["body/hull"]
    );

    click_scrolled(&mut h, "Remove orphaned body/hull");
    h.run();
    assert!(h.query_by_label(warning).is_none());
    let saved = h.state().doc().scene().to_file();
    assert!(saved.nodes[1].overrides.is_empty(), "removed by the user");
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert!(h.query_by_label(warning).is_some(), "undo brings it back");
    let saved = h.state().doc().scene().to_file();
    assert_eq!(
        saved.nodes[1].overrides.keys().collect::<Vec<_>>(),
        ["body/hull"]
    );
}

#[test]
fn a_prefab_opened_from_an_instance_and_saved_updates_both_instances() {
    let (dir, path) = harbour();
    let mut h = open(&path);
    // An edit of the scene that must survive the trip into the prefab.
    let a = at(&h, &["boat_a"]);
    h.state_mut().doc_mut().rename(a, "flagship").unwrap();
    h.state_mut().doc_mut().selection.select_only(a);
    h.run();
    h.get_by_label("Open prefab").click();
    h.run();
    assert_eq!(
        h.state()
            .doc()
            .path
            .as_deref()
            .map(|p| p.file_name().unwrap().to_owned()),
        Some("boat.ron".into())
    );
    // Recolour the sail and the hull in the prefab, save.
    let sail = at(&h, &["body", "sail"]);
    let hull = at(&h, &["body", "hull"]);
    for (node, rgb) in [
        (sail, Vec4::new(0.0, 0.0, 1.0, 1.0)),
        (hull, Vec4::new(0.0, 1.0, 0.0, 1.0)),
    ] {
        let mut mesh = *h.state().doc().scene().get::<MeshRenderer>(node).unwrap();
        mesh.material.base_color = rgb;
        h.state_mut()
            .doc_mut()
            .set_component(node, keel_editor::ComponentValue::Mesh(mesh), None)
            .unwrap();
    }
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::S);
    h.run();
    assert!(!h.state().doc().is_dirty(), "{}", h.state().status().text());
    let saved = std::fs::read_to_string(dir.path().join("boat.ron")).unwrap();
    assert!(saved.contains("0.0, 0.0, 1.0, 1.0"), "{saved}");

    h.get_by_label_contains("Back to harbour.ron").click();
    h.run();
    let scene = h.state().doc().scene();
    assert_eq!(scene.name(scene.roots().next().unwrap()), Some("flagship"));
    for boat in ["flagship", "boat_b"] {
        let sail = at(&h, &[boat, "body", "sail"]);
        assert_eq!(
            color(h.state().doc().scene(), sail),
            Vec4::new(0.0, 0.0, 1.0, 1.0),
            "{boat} has the prefab's new sail"
        );
    }
    let hull_a = at(&h, &["flagship", "body", "hull"]);
    let hull_b = at(&h, &["boat_b", "body", "hull"]);
    assert_eq!(
        color(h.state().doc().scene(), hull_a),
        Vec4::new(0.0, 1.0, 0.0, 1.0)
    );
    assert_eq!(
        color(h.state().doc().scene(), hull_b),
        Vec4::new(1.0, 0.0, 0.0, 1.0),
        "boat_b keeps its own hull colour"
    );
}

#[test]
fn pasting_an_instance_into_its_own_prefab_is_refused_with_the_chain() {
    let (_dir, path) = harbour();
    let mut h = open(&path);
    let a = at(&h, &["boat_a"]);
    h.state_mut().doc_mut().selection.select_only(a);
    h.run();
    let text = copy_selection(&mut h);
    assert!(
        text.contains("prefab:"),
        "an instance is copied as one:\n{text}"
    );
    h.run();
    h.get_by_label("Open prefab").click();
    h.run();
    let before = h.state().doc().scene().to_file();
    h.event(egui::Event::Paste(text));
    h.run();
    let status = h.state().status().text().to_string();
    assert!(h.state().status().is_error(), "{status}");
    assert!(
        status.contains("prefab cycle")
            && status.contains("boat.ron -> ")
            && status.ends_with("boat.ron"),
        "the chain of files is shown: {status}"
    );
    assert_eq!(h.state().doc().scene().to_file(), before, "nothing pasted");
    assert!(
        h.state().doc().scene().nodes().all(|n| h
            .state()
            .doc()
            .scene()
            .get::<PrefabInstance>(n)
            .is_none())
    );
}

/// Runs frames (up to 10 s) until `done` holds.
fn frames_until(
    h: &mut Harness<'_, EditorApp>,
    mut done: impl FnMut(&Harness<'_, EditorApp>) -> bool,
) {
    let start = std::time::Instant::now();
    while !done(h) {
        assert!(
            start.elapsed().as_secs() < 10,
            "timed out: {}",
            h.state().status().text()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
        h.run();
    }
}

fn first_root(h: &Harness<'_, EditorApp>) -> String {
    let scene = h.state().doc().scene();
    scene
        .name(scene.roots().next().unwrap())
        .unwrap()
        .to_string()
}

#[test]
fn a_scene_changed_on_disk_reloads_and_asks_first_over_unsaved_edits() {
    let (_dir, path) = harbour();
    let mut h = open(&path);
    h.run();
    // No edits: the new file is taken as it is.
    std::fs::write(&path, HARBOUR.replace("boat_a", "skiff")).unwrap();
    frames_until(&mut h, |h| first_root(h) == "skiff");
    assert!(!h.state().doc().is_dirty());
    assert!(h.state().status().text().contains("changed on disk"));

    // Unsaved edits: asked; "Keep my edits" keeps them.
    let b = at(&h, &["boat_b"]);
    h.state_mut().doc_mut().rename(b, "mine").unwrap();
    std::fs::write(&path, HARBOUR.replace("boat_a", "dinghy")).unwrap();
    frames_until(&mut h, |h| h.query_by_label("Keep my edits").is_some());
    h.get_by_label("Keep my edits").click();
    h.run();
    assert!(h.state().doc().scene().find("mine").is_some());
    assert_eq!(first_root(&h), "skiff");
    assert!(h.state().doc().is_dirty());

    // Changed again: asked again; "Reload from disk" takes the file.
    std::fs::write(&path, HARBOUR.replace("boat_a", "ketch")).unwrap();
    frames_until(&mut h, |h| h.query_by_label("Reload from disk").is_some());
    h.get_by_label("Reload from disk").click();
    h.run();
    assert_eq!(first_root(&h), "ketch");
    assert!(h.state().doc().scene().find("mine").is_none());
    assert!(!h.state().doc().is_dirty());
}

/// A project folder: `assets/scenes/harbour.ron` (the two boats) and
/// `assets/prefabs/boat.ron`.
fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let assets = dir.path().join("assets");
    std::fs::create_dir_all(assets.join("scenes")).unwrap();
    std::fs::create_dir_all(assets.join("prefabs")).unwrap();
    std::fs::write(assets.join("prefabs/boat.ron"), BOAT).unwrap();
    let scene = assets.join("scenes/harbour.ron");
    std::fs::write(
        &scene,
        HARBOUR.replace("\"boat.ron\"", "\"../prefabs/boat.ron\""),
    )
    .unwrap();
    (dir, scene)
}

#[test]
fn a_prefab_dragged_from_the_asset_browser_lands_in_the_view_and_under_a_row() {
    let (_dir, path) = project();
    let mut h = open(&path);
    frames_until(&mut h, |h| h.query_by_label("prefabs/boat.ron").is_some());
    // A tree: the folder closes and opens.
    assert!(h.query_by_label("scenes/").is_some());
    h.get_by_label("prefabs/").click();
    h.run();
    assert!(h.query_by_label("prefabs/boat.ron").is_none(), "closed");
    h.get_by_label("prefabs/").click();
    h.run();
    let instances = |h: &Harness<'_, EditorApp>| {
        let scene = h.state().doc().scene();
        scene
            .nodes()
            .filter(|&n| scene.get::<PrefabInstance>(n).is_some())
            .count()
    };
    assert_eq!(instances(&h), 2);

    // Into the 3D view: a new root where the cursor ray meets the ground.
    let from = center_of(&h, "prefabs/boat.ron");
    let view = h
        .state()
        .views()
        .viewport
        .rect
        .expect("the viewport was drawn");
    let to = view.center() + egui::vec2(0.0, view.height() * 0.3);
    drag(&mut h, from, to);
    assert_eq!(instances(&h), 3, "{}", h.state().status().text());
    let placed = h
        .state()
        .doc()
        .selection
        .primary()
        .expect("the new instance is selected");
    let scene = h.state().doc().scene();
    assert_eq!(scene.name(placed), Some("boat"));
    assert_eq!(scene.parent(placed), None);
    let spot = scene.world(placed).unwrap().translation;
    assert!(spot.y.abs() < 1e-3, "on the ground plane: {spot:?}");
    assert_eq!(scene.children(placed).count(), 1, "with the prefab's nodes");
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(instances(&h), 2, "one undo step");

    // Onto a hierarchy row: a child of that node.
    let from = center_of(&h, "prefabs/boat.ron");
    let row = center_of(&h, "boat_b");
    drag(&mut h, from, row);
    let boat_b = at(&h, &["boat_b"]);
    let scene = h.state().doc().scene();
    let child = scene
        .children(boat_b)
        .find(|&c| scene.get::<PrefabInstance>(c).is_some())
        .unwrap_or_else(|| {
            panic!(
                "the prefab went under boat_b: {}",
                h.state().status().text()
            )
        });
    assert_eq!(scene.name(child), Some("boat"));
}

#[test]
fn double_clicking_a_scene_in_the_browser_opens_it() {
    let (dir, path) = project();
    let other = dir.path().join("assets/scenes/other.ron");
    std::fs::write(&other, r#"(version: 2, nodes: [(name: "lonely")])"#).unwrap();
    // Frames a fiftieth of a second apart (the harness takes a press and
    // its release in separate frames): two clicks make a double click.
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 860.0))
        .with_step_dt(0.02)
        .build_ui_state(
            |ui, app: &mut EditorApp| app.ui(ui),
            EditorApp::with_game(
                Document::open(&path, &keel_engine::Assets::new()).unwrap(),
                None,
                keel_engine::Game::new(),
            ),
        );
    frames_until(&mut h, |h| h.query_by_label("scenes/").is_some());
    // The filter narrows the list to it.
    h.get_by_label("Filter assets").click();
    h.run();
    h.get_by_label("Filter assets").type_text("OTHER");
    h.run();
    assert!(h.query_by_label("scenes/other.ron").is_some());
    assert!(h.query_by_label("prefabs/boat.ron").is_none());
    // Half a second passes, so the click into the filter is not counted
    // with the next two (that would be a triple click).
    for _ in 0..25 {
        h.step();
    }
    // Two clicks in one frame: a double click.
    let row = h.get_by_label("scenes/other.ron");
    row.click();
    row.click();
    h.run();
    assert_eq!(first_root(&h), "lonely", "{}", h.state().status().text());
}
