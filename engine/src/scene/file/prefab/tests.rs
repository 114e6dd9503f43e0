use std::path::Path;

use glam::{Vec3, Vec4};

use super::*;
use crate::scene::{MeshRenderer, NodeId, Scene};

const BOAT: &str = r#"(
    version: 2,
    nodes: [
        (name: "body", oscillate: (axis: (0.0, 0.0, 1.0), amplitude: 0.1, frequency: 0.5, phase: 0.0, rock: true)),
        (name: "hull", parent: 0, transform: (translation: (0.0, 0.2, 0.0)),
         mesh: (mesh: Cube, material: (base_color: (0.3, 0.1, 0.0, 1.0)))),
        (name: "sail", parent: 0, transform: (translation: (0.0, 1.3, 0.0)),
         mesh: (mesh: Cube, material: (base_color: (0.9, 0.9, 0.8, 1.0)))),
        (name: "flag", parent: 2, transform: (translation: (0.0, 1.0, 0.0))),
    ],
)"#;

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Rewrites a file so its stamp surely changes (same second, new length or not).
fn rewrite(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(later).unwrap();
}

fn child(scene: &Scene, parent: NodeId, name: &str) -> NodeId {
    scene
        .children(parent)
        .find(|&c| scene.name(c) == Some(name))
        .unwrap_or_else(|| panic!("no child {name}"))
}

fn color(scene: &Scene, node: NodeId) -> Vec4 {
    scene.get::<MeshRenderer>(node).unwrap().material.base_color
}

const SCENE: &str = r#"(
    version: 2,
    nodes: [
        (name: "a", prefab: "boat.ron", transform: (translation: (5.0, 0.0, 0.0))),
        (name: "b", prefab: "boat.ron",
         overrides: {"body/hull": {"mesh": {"material": {"base_color": (1.0, 0.0, 0.0, 1.0)}}}},
         removed: ["body/sail/flag"]),
        (name: "lamp", parent: 1, under: "body/hull", transform: (translation: (0.0, 1.0, 0.0))),
    ],
)"#;

#[test]
fn instances_get_the_prefabs_nodes_with_their_overrides_removals_and_additions() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "boat.ron", BOAT);
    let path = write(dir.path(), "harbour.ron", SCENE);
    let scene = Scene::load(&path, &crate::Assets::new()).unwrap();
    let a = scene.find("a").unwrap();
    let b = scene.find("b").unwrap();
    for instance in [a, b] {
        let body = child(&scene, instance, "body");
        assert_eq!(scene.get::<PrefabPart>(body).unwrap().key.as_ref(), "body");
        assert!(scene.get::<PrefabInstance>(instance).is_some());
    }
    let (hull_a, hull_b) = (
        child(&scene, child(&scene, a, "body"), "hull"),
        child(&scene, child(&scene, b, "body"), "hull"),
    );
    assert_eq!(color(&scene, hull_a), Vec4::new(0.3, 0.1, 0.0, 1.0));
    assert_eq!(
        color(&scene, hull_b),
        Vec4::new(1.0, 0.0, 0.0, 1.0),
        "overridden"
    );
    let sail_a = child(&scene, child(&scene, a, "body"), "sail");
    let sail_b = child(&scene, child(&scene, b, "body"), "sail");
    assert_eq!(scene.children(sail_a).count(), 1, "a keeps the flag");
    assert_eq!(scene.children(sail_b).count(), 0, "b removed it");
    let lamp = child(&scene, hull_b, "lamp");
    assert!(
        scene.get::<PrefabPart>(lamp).is_none(),
        "an added node is no part"
    );
    // Parts sit where the prefab puts them, under the instance.
    let world = scene.world(hull_a).unwrap().translation;
    assert!(Vec3::from(world).abs_diff_eq(Vec3::new(5.0, 0.2, 0.0), 1e-6));

    // Saved, only what the instances changed is written, and it loads back the same.
    let saved = scene.to_file_in(Some(dir.path()));
    assert_eq!(saved.nodes.len(), 3, "{:#?}", saved.nodes);
    assert_eq!(saved.nodes[0].prefab.as_deref(), Some("boat.ron"));
    assert!(saved.nodes[0].overrides.is_empty() && saved.nodes[0].removed.is_empty());
    assert_eq!(saved.nodes[1].removed, ["body/sail/flag"]);
    assert_eq!(
        saved.nodes[1].overrides.keys().collect::<Vec<_>>(),
        ["body/hull"]
    );
    assert_eq!(saved.nodes[2].under.as_deref(), Some("body/hull"));
    assert_eq!(saved.nodes[2].parent, Some(1));
    let text = saved.to_text(&path).unwrap();
    assert!(
        text.contains("\"base_color\": (1.0, 0.0, 0.0, 1.0)")
            || text.contains("\"base_color\": [1.0, 0.0, 0.0, 1.0]"),
        "overrides are written as the file's own numbers:\n{text}"
    );
    let again = Scene::from_text(&text, &path, &crate::Assets::new()).unwrap();
    assert_eq!(again.to_file_in(Some(dir.path())), saved);
}

#[test]
fn edits_to_a_part_become_overrides_and_survive_a_changed_prefab() {
    let dir = tempfile::tempdir().unwrap();
    let boat = write(dir.path(), "boat.ron", BOAT);
    let path = write(dir.path(), "harbour.ron", SCENE);
    let mut scene = Scene::load(&path, &crate::Assets::new()).unwrap();
    let a = scene.find("a").unwrap();
    let sail = child(&scene, child(&scene, a, "body"), "sail");
    scene.set_name(sail, "mainsail").unwrap();
    let mut t = scene.local(sail).unwrap();
    t.translation.y = 2.0;
    scene.set_local(sail, t).unwrap();
    let saved = scene.to_file_in(Some(dir.path()));
    let patch = &saved.nodes[0].overrides["body/sail"].0;
    assert_eq!(patch["name"], "mainsail");
    assert_eq!(patch["transform"]["translation"][1], 2.0);
    assert!(
        patch["transform"].get("rotation").is_none(),
        "only what changed"
    );
    saved.write(&path).unwrap();

    // The prefab changes: the sail's colour and the hull's. Instance `a` keeps
    // its own sail edits and gets both colours; `b` keeps its hull colour.
    rewrite(
        &boat,
        &BOAT
            .replace("(0.9, 0.9, 0.8, 1.0)", "(0.0, 0.0, 1.0, 1.0)")
            .replace("(0.3, 0.1, 0.0, 1.0)", "(0.0, 1.0, 0.0, 1.0)"),
    );
    let scene = Scene::load(&path, &crate::Assets::new()).unwrap();
    let (a, b) = (scene.find("a").unwrap(), scene.find("b").unwrap());
    let sail = child(&scene, child(&scene, a, "body"), "mainsail");
    assert_eq!(color(&scene, sail), Vec4::new(0.0, 0.0, 1.0, 1.0));
    assert_eq!(scene.local(sail).unwrap().translation.y, 2.0);
    let hull_a = child(&scene, child(&scene, a, "body"), "hull");
    let hull_b = child(&scene, child(&scene, b, "body"), "hull");
    assert_eq!(color(&scene, hull_a), Vec4::new(0.0, 1.0, 0.0, 1.0));
    assert_eq!(color(&scene, hull_b), Vec4::new(1.0, 0.0, 0.0, 1.0));
}

#[test]
fn nested_prefabs_flatten_and_their_parts_take_overrides_by_key() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "lamp.ron",
        r#"(version: 2, nodes: [(name: "bulb", light: (kind: Point(range: 6.0), color: (1.0, 0.8, 0.5), intensity: 3.0))])"#,
    );
    write(
        dir.path(),
        "boat.ron",
        r#"(version: 2, nodes: [
            (name: "hull"),
            (name: "lantern", parent: 0, prefab: "lamp.ron", transform: (translation: (0.0, 2.0, 0.0))),
        ])"#,
    );
    let path = write(
        dir.path(),
        "s.ron",
        r#"(version: 2, nodes: [
            (name: "boat", prefab: "boat.ron",
             overrides: {"hull/lantern/bulb": {"light": {"intensity": 7.0}}}),
        ])"#,
    );
    let scene = Scene::load(&path, &crate::Assets::new()).unwrap_or_else(|e| panic!("{e}"));
    let boat = scene.find("boat").unwrap();
    let lantern = child(&scene, child(&scene, boat, "hull"), "lantern");
    let bulb = child(&scene, lantern, "bulb");
    assert_eq!(
        scene.get::<crate::scene::Light>(bulb).unwrap().intensity,
        7.0
    );
    assert!(
        scene.get::<PrefabInstance>(lantern).is_none(),
        "a nested instance is a plain part of the outer prefab"
    );
    assert_eq!(
        scene.get::<PrefabPart>(bulb).unwrap().key.as_ref(),
        "hull/lantern/bulb"
    );
    let saved = scene.to_file_in(Some(dir.path()));
    assert_eq!(saved.nodes.len(), 1);
}

#[test]
fn a_prefab_that_contains_itself_is_refused_with_the_chain_of_files() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a.ron",
        r#"(version: 2, nodes: [(name: "x", prefab: "b.ron")])"#,
    );
    write(
        dir.path(),
        "b.ron",
        r#"(version: 2, nodes: [(name: "y"), (name: "z", parent: 0, prefab: "a.ron")])"#,
    );
    let path = write(
        dir.path(),
        "s.ron",
        r#"(version: 2, nodes: [(name: "top", prefab: "a.ron")])"#,
    );
    let error = Scene::load(&path, &crate::Assets::new()).unwrap_err();
    let SceneError::PrefabCycle { chain } = &error else {
        panic!("expected a cycle, got {error}");
    };
    let names: Vec<_> = chain
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["s.ron", "a.ron", "b.ron", "a.ron"], "{error}");
    assert!(error.to_string().contains("a.ron -> "), "{error}");
    // A scene used as its own prefab, too.
    let own = write(
        dir.path(),
        "own.ron",
        r#"(version: 2, nodes: [(name: "me", prefab: "own.ron")])"#,
    );
    assert!(matches!(
        Scene::load(&own, &crate::Assets::new()),
        Err(SceneError::PrefabCycle { .. })
    ));
}

#[test]
fn bad_overrides_and_missing_prefabs_name_the_node_and_field() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "boat.ron", BOAT);
    let path = write(
        dir.path(),
        "s.ron",
        "(version: 2, nodes: [\n(name: \"b\", prefab: \"boat.ron\",\n overrides: {\"body/hull\": {\"mesh\": {\"matrial\": 1}}}),\n])",
    );
    let error = Scene::load(&path, &crate::Assets::new())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("overrides.body/hull") && error.contains("`b`") && error.contains("matrial"),
        "{error}"
    );
    let path = write(
        dir.path(),
        "t.ron",
        r#"(version: 2, nodes: [(name: "b", prefab: "nowhere.ron")])"#,
    );
    let error = Scene::load(&path, &crate::Assets::new())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("field `prefab`") && error.contains("nowhere.ron"),
        "{error}"
    );
    let path = write(
        dir.path(),
        "u.ron",
        r#"(version: 2, nodes: [(name: "b", prefab: "boat.ron"), (name: "c", parent: 0, under: "body/mast")])"#,
    );
    let error = Scene::load(&path, &crate::Assets::new())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("field `under`") && error.contains("body/mast"),
        "{error}"
    );
}

#[test]
fn keys_number_repeated_sibling_names() {
    let mut nodes = vec![
        NodeRecord::new("a"),
        NodeRecord::new("b"),
        NodeRecord::new("b"),
    ];
    nodes[1].parent = Some(0);
    nodes[2].parent = Some(0);
    nodes.push(NodeRecord::new("a"));
    assert_eq!(keys_of(&nodes), ["a", "a/b", "a/b#1", "a#1"]);
}

#[test]
fn reverting_a_field_puts_the_prefabs_value_back() {
    let mut prefab = NodeRecord::new("hull");
    prefab.transform.translation = Vec3::new(0.0, 0.2, 0.0);
    let mut now = prefab.clone();
    now.name = "keel".into();
    now.transform.translation.x = 3.0;
    let fields = overridden_fields(&prefab, &now);
    assert_eq!(fields, ["name", "transform.translation"]);
    let back = reverted(&prefab, &now, "transform.translation", &Default::default()).unwrap();
    assert_eq!(back.transform, prefab.transform);
    assert_eq!(back.name, "keel");
    assert_eq!(overridden_fields(&prefab, &back), ["name"]);
}

/// Opened by a path relative to the working folder (as `keel-editor
/// assets/scenes/demo.ron` is), a scene's models and prefabs, and a prefab's
/// own model beside it in another folder, are found once, and saved back
/// relative to the scene.
#[test]
fn a_scene_opened_by_a_relative_path_finds_models_and_prefabs_relative_to_their_files() {
    let dir = tempfile::tempdir().unwrap();
    let prefabs = dir.path().join("prefabs");
    std::fs::create_dir(&prefabs).unwrap();
    let glb = crate::assets::gltf::Export::new(&crate::assets::ModelData {
        path: std::path::PathBuf::new(),
        meshes: Vec::new(),
        materials: Vec::new(),
        textures: Vec::new(),
        nodes: vec![crate::assets::ModelNode {
            name: "lid".into(),
            parent: None,
            transform: crate::scene::Transform::IDENTITY,
            mesh: None,
            skin: None,
            weights: Vec::new(),
            light: None,
        }],
        animations: Vec::new(),
        skins: Vec::new(),
        warnings: Vec::new(),
        files: Vec::new(),
    })
    .unwrap()
    .to_glb()
    .unwrap();
    std::fs::write(prefabs.join("crate.glb"), &glb).unwrap();
    std::fs::write(dir.path().join("crate.glb"), &glb).unwrap();
    write(
        &prefabs,
        "boat.ron",
        r#"(version: 2, nodes: [(name: "cargo", model: "crate.glb")])"#,
    );
    let path = write(
        dir.path(),
        "s.ron",
        r#"(version: 2, nodes: [(name: "boat", prefab: "prefabs/boat.ron"), (name: "spare", model: "crate.glb")])"#,
    );
    let cwd = std::env::current_dir().unwrap();
    let relative = crate::files::written_path(&std::fs::canonicalize(&path).unwrap(), &cwd);
    assert!(!Path::new(&relative).is_absolute(), "{relative}");
    let scene =
        Scene::load(Path::new(&relative), &crate::Assets::new()).unwrap_or_else(|e| panic!("{e}"));
    let boat = scene.find("boat").unwrap();
    let cargo = child(&scene, boat, "cargo");
    let instance = scene.get::<crate::scene::ModelInstance>(cargo).unwrap();
    assert_eq!(
        instance.source,
        std::fs::canonicalize(prefabs.join("crate.glb")).unwrap()
    );
    let saved = scene.to_file_in(Some(dir.path()));
    assert_eq!(saved.nodes[0].prefab.as_deref(), Some("prefabs/boat.ron"));
    assert!(
        saved.nodes[0].overrides.is_empty(),
        "{:?}",
        saved.nodes[0].overrides
    );
    assert_eq!(saved.nodes[1].model.as_deref(), Some("crate.glb"));
}

#[test]
fn overrides_of_nodes_the_prefab_lost_are_kept_and_saved_until_removed() {
    let dir = tempfile::tempdir().unwrap();
    let boat = write(dir.path(), "boat.ron", BOAT);
    let path = write(dir.path(), "harbour.ron", SCENE);
    // The prefab loses its hull and flag: `b` overrides the one and removes the other.
    let without = BOAT
        .replace(
            "        (name: \"hull\", parent: 0, transform: (translation: (0.0, 0.2, 0.0)),\n         mesh: (mesh: Cube, material: (base_color: (0.3, 0.1, 0.0, 1.0)))),\n",
            "",
        )
        .replace("parent: 2", "parent: 1");
    assert_ne!(without, BOAT);
    let only_sail = without.replace(
        "        (name: \"flag\", parent: 1, transform: (translation: (0.0, 1.0, 0.0))),\n",
        "",
    );
    assert_ne!(only_sail, without);
    rewrite(&boat, &only_sail);
    // The lamp hung under the hull: an `under` naming no part is still refused.
    let scene_text = SCENE.replace(
        "        (name: \"lamp\", parent: 1, under: \"body/hull\", transform: (translation: (0.0, 1.0, 0.0))),\n",
        "",
    );
    rewrite(&path, &scene_text);
    let mut scene =
        Scene::load(&path, &crate::Assets::new()).expect("loads without the lost nodes");
    let b = scene.find("b").unwrap();
    let orphans = &scene.get::<PrefabInstance>(b).unwrap().orphans;
    assert_eq!(
        orphans.keys().collect::<Vec<_>>(),
        ["body/hull", "body/sail/flag"]
    );
    let a = scene.find("a").unwrap();
    assert!(scene.get::<PrefabInstance>(a).unwrap().orphans.is_empty());

    // Saved unchanged: the override and the removal are still in the file.
    let saved = scene.to_file_in(Some(dir.path()));
    assert_eq!(
        saved.nodes[1].overrides.keys().collect::<Vec<_>>(),
        ["body/hull"]
    );
    assert_eq!(saved.nodes[1].removed, ["body/sail/flag"]);
    saved.write(&path).unwrap();

    // The prefab gets its nodes back: the kept override and removal apply again.
    rewrite(&boat, BOAT);
    let again = Scene::load(&path, &crate::Assets::new()).unwrap();
    let b2 = again.find("b").unwrap();
    assert!(again.get::<PrefabInstance>(b2).unwrap().orphans.is_empty());
    let hull = child(&again, child(&again, b2, "body"), "hull");
    assert_eq!(color(&again, hull), Vec4::new(1.0, 0.0, 0.0, 1.0));
    let sail = child(&again, child(&again, b2, "body"), "sail");
    assert_eq!(again.children(sail).count(), 0, "the flag stays removed");

    // Removed by the user, they are gone from the file.
    let instance = scene.get_mut::<PrefabInstance>(b).unwrap();
    assert!(instance.orphans.remove("body/hull"));
    assert!(instance.orphans.remove("body/sail/flag"));
    assert!(!instance.orphans.remove("body/sail/flag"));
    let saved = scene.to_file_in(Some(dir.path()));
    assert!(saved.nodes[1].overrides.is_empty() && saved.nodes[1].removed.is_empty());
}
