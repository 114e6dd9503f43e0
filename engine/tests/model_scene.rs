//! Imported models in scenes: instancing, saving by reference, reloading, and
//! scene files whose model reference is broken.

use std::path::{Path, PathBuf};

use glam::Vec3;
use keel_engine::MeshRef;
use keel_engine::scene::ModelInstance;
use keel_engine::{MeshRenderer, Scene, SceneError, Transform};

fn lighthouse() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/models/lighthouse.glb")
}

/// A project folder with the model under `models/` and room for scenes under `scenes/`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join("models")).expect("models dir");
    std::fs::create_dir_all(dir.path().join("scenes")).expect("scenes dir");
    std::fs::copy(lighthouse(), dir.path().join("models/lighthouse.glb")).expect("copy model");
    dir
}

#[test]
fn a_model_instance_spawns_its_hierarchy_with_shared_meshes() {
    let mut scene = Scene::new();
    let at = Transform::from_translation(Vec3::new(10.0, 0.0, 0.0));
    let (first, warnings) = scene
        .spawn_model(None, "lighthouse", at, &lighthouse())
        .expect("imports");
    assert!(warnings.is_empty(), "{warnings:?}");
    let parts: Vec<_> = scene.subtree(first).skip(1).collect();
    assert!(parts.len() >= 4, "{} parts", parts.len());
    assert!(parts.iter().all(|&p| scene.is_model_part(p)));
    assert!(!scene.is_model_part(first));
    let meshes: Vec<MeshRenderer> = parts
        .iter()
        .filter_map(|&p| scene.get::<MeshRenderer>(p).copied())
        .collect();
    assert!(meshes.iter().all(|m| matches!(m.mesh, MeshRef::Asset(_))));
    let textured = meshes
        .iter()
        .find_map(|m| m.material.texture)
        .expect("a textured part");
    assert!(
        scene
            .assets()
            .registry()
            .texture(textured)
            .expect("registered")
            .mips
            .len()
            > 1
    );

    // A second instance shares every mesh: the file is imported once.
    let (second, _) = scene
        .spawn_model(None, "another", Transform::IDENTITY, &lighthouse())
        .expect("imports again");
    let mesh_of = |root| -> Vec<MeshRef> {
        scene
            .subtree(root)
            .filter_map(|p| scene.get::<MeshRenderer>(p).map(|m| m.mesh))
            .collect()
    };
    assert_eq!(mesh_of(first), mesh_of(second));
    scene.propagate();
    let part_x = scene.world(parts[0]).expect("alive").translation.x;
    assert!(
        (part_x - 10.0).abs() < 10.0,
        "parts follow the instance root"
    );
}

#[test]
fn saving_writes_the_reference_and_loading_rebuilds_the_parts() {
    let dir = project();
    let scene_path = dir.path().join("scenes/harbour.ron");
    let mut scene = Scene::new();
    let (root, _) = scene
        .spawn_model(
            None,
            "lighthouse",
            Transform::from_translation(Vec3::new(3.0, 0.0, -4.0)),
            &dir.path().join("models/lighthouse.glb"),
        )
        .expect("imports");
    let parts = scene.subtree(root).count() - 1;
    let extra = scene
        .spawn(None, "buoy", Transform::IDENTITY)
        .expect("spawns");
    scene.propagate();
    scene.save(&scene_path).expect("saves");

    let text = std::fs::read_to_string(&scene_path).expect("reads");
    assert!(
        text.contains("model: \"../models/lighthouse.glb\""),
        "{text}"
    );
    let file = keel_engine::scene::SceneFile::parse(&text, &scene_path, &Default::default())
        .expect("parses");
    assert_eq!(
        file.nodes.len(),
        2,
        "parts are not listed, only the instance and the buoy"
    );

    let loaded = Scene::load(&scene_path, &keel_engine::Assets::new()).expect("loads");
    let root2 = loaded.find("lighthouse").expect("instance");
    assert_eq!(loaded.subtree(root2).count() - 1, parts);
    assert!(loaded.get::<ModelInstance>(root2).is_some());
    assert!(loaded.find("buoy").is_some());
    let worlds = |s: &Scene, r| -> Vec<Vec3> {
        s.subtree(r)
            .map(|n| s.world(n).expect("alive").translation.into())
            .collect()
    };
    for (a, b) in worlds(&scene, root).iter().zip(worlds(&loaded, root2)) {
        assert!(a.abs_diff_eq(b, 1e-5), "{a} vs {b}");
    }
    // Saving again writes the same text: nothing was lost or duplicated.
    loaded.save(&scene_path).expect("saves again");
    assert_eq!(std::fs::read_to_string(&scene_path).expect("reads"), text);
    let _ = extra;
}

#[test]
fn a_missing_model_names_the_scene_line_node_and_file() {
    let dir = project();
    let scene_path = dir.path().join("scenes/broken.ron");
    let text = "(\n    version: 1,\n    nodes: [\n        (name: \"ghost\", model: \"../models/nowhere.glb\"),\n    ],\n)\n";
    std::fs::write(&scene_path, text).expect("writes");
    let error =
        Scene::load(&scene_path, &keel_engine::Assets::new()).expect_err("the model is missing");
    let message = error.to_string();
    assert!(
        matches!(&error, SceneError::InvalidField(e) if e.line == 4),
        "{message}"
    );
    assert!(message.contains("broken.ron"), "{message}");
    assert!(
        message.contains("ghost") && message.contains("model"),
        "{message}"
    );
    assert!(message.contains("nowhere.glb"), "{message}");
}

#[test]
fn a_broken_model_file_is_an_error_not_a_panic() {
    let dir = project();
    let bad = dir.path().join("models/truncated.glb");
    let bytes = std::fs::read(lighthouse()).expect("reads");
    std::fs::write(&bad, &bytes[..bytes.len() / 2]).expect("writes");
    let mut scene = Scene::new();
    let error = scene
        .spawn_model(None, "bad", Transform::IDENTITY, &bad)
        .expect_err("truncated");
    assert!(error.to_string().contains("truncated.glb"), "{error}");
    assert_eq!(scene.len(), 0, "nothing spawned");
}
