use std::time::Duration;

use glam::Vec4;

use super::*;
use crate::assets::gltf::Export;
use crate::assets::{ModelData, ModelMesh, ModelNode, ModelPrimitive, Primitive};
use crate::scene::{MeshRenderer, Transform};
use crate::world::World;

/// Waits (up to 10 s) until the watcher reports `file`.
fn wait_for(watcher: &mut FileWatcher, file: &Path) -> Vec<PathBuf> {
    watcher
        .wait_for(file, Duration::from_secs(10))
        .unwrap_or_else(|| panic!("the watcher never reported {}", file.display()))
}

#[test]
fn the_watcher_reports_a_written_file_once_and_skips_temporary_ones() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.glb");
    std::fs::write(&old, "unchanged").unwrap();
    let past = std::time::SystemTime::now() - Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(&old)
        .unwrap()
        .set_modified(past)
        .unwrap();
    let mut watcher = FileWatcher::new().unwrap();
    watcher.watch(dir.path(), true).unwrap();
    // Read (opened) but not changed: not reported.
    let _ = std::fs::read(&old).unwrap();
    std::fs::write(dir.path().join(".scene.ron.tmp123"), "x").unwrap();
    let file = dir.path().join("scene.ron");
    std::fs::write(&file, "a").unwrap();
    std::fs::write(&file, "ab").unwrap();
    let seen = wait_for(&mut watcher, &file);
    assert_eq!(seen.iter().filter(|p| p.ends_with("scene.ron")).count(), 1);
    assert!(seen.iter().all(|p| !is_temporary(p)), "{seen:?}");
    assert!(
        !seen.iter().any(|p| p.ends_with("old.glb")),
        "opened only: {seen:?}"
    );
    // Read again after being seen: still no change.
    let _ = std::fs::read(&file).unwrap();
    std::fs::write(dir.path().join("next.ron"), "c").unwrap();
    let seen = wait_for(&mut watcher, &dir.path().join("next.ron"));
    assert!(!seen.iter().any(|p| p.ends_with("scene.ron")), "{seen:?}");
}

const BOAT: &str = r#"(version: 2, nodes: [
    (name: "hull", mesh: (mesh: Cube, material: (base_color: (0.3, 0.1, 0.0, 1.0)))),
])"#;

fn color(scene: &Scene, node: NodeId) -> Vec4 {
    scene.get::<MeshRenderer>(node).unwrap().material.base_color
}

fn hull(scene: &Scene, boat: &str) -> NodeId {
    let boat = scene.find(boat).unwrap();
    scene.children(boat).next().unwrap()
}

#[test]
fn a_prefab_changed_on_disk_updates_a_running_worlds_instances_and_keeps_overrides() {
    let dir = tempfile::tempdir().unwrap();
    let prefab = dir.path().join("boat.ron");
    std::fs::write(&prefab, BOAT).unwrap();
    let path = dir.path().join("s.ron");
    std::fs::write(
        &path,
        r#"(version: 2, nodes: [
            (name: "a", prefab: "boat.ron"),
            (name: "b", prefab: "boat.ron",
             overrides: {"hull": {"mesh": {"material": {"base_color": [1.0, 0.0, 0.0, 1.0]}}}}),
            (name: "c"),
        ])"#,
    )
    .unwrap();
    let mut world = World::new(Scene::load(&path, &crate::Assets::new()).unwrap());
    let mut watcher = FileWatcher::new().unwrap();
    watcher.watch_scene(&world.scene, Some(&path));
    world.step();

    std::fs::write(
        &prefab,
        BOAT.replace("(0.3, 0.1, 0.0, 1.0)", "(0.0, 0.0, 1.0, 1.0)"),
    )
    .unwrap();
    wait_for(&mut watcher, &prefab);
    assert_eq!(world.scene.refresh_prefabs().unwrap(), 2);
    world.step();
    let scene = &world.scene;
    assert_eq!(
        color(scene, hull(scene, "a")),
        Vec4::new(0.0, 0.0, 1.0, 1.0)
    );
    assert_eq!(
        color(scene, hull(scene, "b")),
        Vec4::new(1.0, 0.0, 0.0, 1.0)
    );
    let order: Vec<_> = scene
        .roots()
        .map(|r| scene.name(r).unwrap().to_string())
        .collect();
    assert_eq!(order, ["a", "b", "c"], "instances keep their places");
    scene.check_consistency().unwrap();

    // A broken prefab: refused, the instances stay as they are.
    std::fs::write(&prefab, "(version: 2, nodes: [(name: 3)])").unwrap();
    wait_for(&mut watcher, &prefab);
    let before = world.scene.to_file();
    let error = world.scene.refresh_prefabs().unwrap_err().to_string();
    assert!(error.contains("boat.ron:1:"), "{error}");
    assert_eq!(world.scene.to_file(), before);
}

/// A model of one node named `name` drawing a cube.
fn model(name: &str) -> ModelData {
    ModelData {
        path: PathBuf::new(),
        meshes: vec![ModelMesh {
            name: "cube".into(),
            primitives: vec![ModelPrimitive {
                mesh: Primitive::Cube.mesh(),
                material: None,
            }],
        }],
        materials: Vec::new(),
        textures: Vec::new(),
        nodes: vec![ModelNode {
            name: name.into(),
            parent: None,
            transform: Transform::IDENTITY,
            mesh: Some(0),
            skin: None,
            weights: Vec::new(),
            light: None,
        }],
        animations: Vec::new(),
        skins: Vec::new(),
        warnings: Vec::new(),
        files: Vec::new(),
    }
}

#[test]
fn a_re_exported_model_rebuilds_its_instances_and_a_broken_one_keeps_the_last_good() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("crate.glb");
    std::fs::write(&file, Export::new(&model("lid")).unwrap().to_glb().unwrap()).unwrap();
    let mut scene = Scene::new();
    let (instance, _) = scene
        .spawn_model(None, "crate", Transform::IDENTITY, &file)
        .unwrap();
    let mut watcher = FileWatcher::new().unwrap();
    watcher.watch_scene(&scene, None);
    let part = |scene: &Scene| {
        let child = scene.children(instance).next().unwrap();
        scene.name(child).unwrap().to_string()
    };
    assert_eq!(part(&scene), "lid");

    std::fs::write(
        &file,
        Export::new(&model("lid, new")).unwrap().to_glb().unwrap(),
    )
    .unwrap();
    let changed = wait_for(&mut watcher, &file);
    let reloaded = reload_assets(&changed, &mut scene);
    assert!(reloaded.errors.is_empty(), "{:?}", reloaded.errors);
    assert_eq!(reloaded.instances, 1);
    assert_eq!(part(&scene), "lid, new");
    assert_eq!(
        scene.children(instance).count(),
        1,
        "the old parts are gone"
    );

    std::fs::write(&file, b"glTF broken").unwrap();
    let changed = wait_for(&mut watcher, &file);
    let reloaded = reload_assets(&changed, &mut scene);
    assert!(
        reloaded.errors.iter().any(|e| e.contains("crate.glb")),
        "{:?}",
        reloaded.errors
    );
    assert_eq!(part(&scene), "lid, new", "the last good model stays");
    scene.check_consistency().unwrap();
}
