//! Tests of the scene graph as a whole: hierarchy edits against a naive
//! reference model, and scene files.

use std::path::Path;

use glam::{Quat, Vec3, Vec4};
use proptest::prelude::*;

use super::*;
use crate::Material;

fn at(x: f32, y: f32, z: f32) -> Transform {
    Transform::from_translation(Vec3::new(x, y, z))
}

fn ship() -> (Scene, NodeId, NodeId, NodeId) {
    let mut scene = Scene::new();
    let ship = scene.spawn(None, "ship", at(0.0, 1.0, 0.0)).unwrap();
    let mast = scene.spawn(Some(ship), "mast", at(0.0, 2.0, 0.0)).unwrap();
    let nest = scene
        .spawn(Some(mast), "crows_nest", at(0.0, 3.0, 0.0))
        .unwrap();
    scene.propagate();
    (scene, ship, mast, nest)
}

#[test]
fn find_by_name_and_by_path() {
    let (mut scene, ship, _, nest) = ship();
    scene.spawn(None, "mast", Transform::IDENTITY).unwrap();
    assert_eq!(scene.find("crows_nest"), Some(nest));
    assert_eq!(scene.find_path("ship/mast/crows_nest"), Some(nest));
    assert_eq!(scene.find_path("ship"), Some(ship));
    assert_eq!(scene.find_path("ship/crows_nest"), None);
    assert_eq!(scene.path(nest).as_deref(), Some("ship/mast/crows_nest"));
}

#[test]
fn stale_handles_never_reach_the_node_that_reuses_the_slot() {
    let (mut scene, ship, mast, nest) = ship();
    assert_eq!(scene.despawn(mast).unwrap(), 2);
    let newcomer = scene.spawn(None, "newcomer", Transform::IDENTITY).unwrap();
    assert!(
        newcomer.index() == mast.index() || newcomer.index() == nest.index(),
        "slot reused"
    );
    for stale in [mast, nest] {
        assert!(!scene.contains(stale));
        assert_eq!(scene.name(stale), None);
        assert_eq!(scene.world(stale), None);
        assert!(matches!(
            scene.set_local(stale, Transform::IDENTITY),
            Err(NodeError::StaleNode { .. })
        ));
        assert!(matches!(
            scene.despawn(stale),
            Err(NodeError::StaleNode { .. })
        ));
    }
    assert_eq!(scene.children(ship).count(), 0);
    scene.assert_invariants();
}

#[test]
fn despawn_takes_components_of_the_whole_subtree() {
    let (mut scene, ship, mast, nest) = ship();
    scene
        .insert(
            nest,
            Spin {
                axis: Vec3::Y,
                rate: 1.0,
            },
        )
        .unwrap();
    scene
        .insert(
            mast,
            Spin {
                axis: Vec3::Y,
                rate: 2.0,
            },
        )
        .unwrap();
    scene
        .insert(
            ship,
            Spin {
                axis: Vec3::Y,
                rate: 3.0,
            },
        )
        .unwrap();
    scene.despawn(mast).unwrap();
    assert_eq!(scene.components.column::<Spin>().map(Column::len), Some(1));
    assert_eq!(scene.get::<Spin>(ship).map(|s| s.rate), Some(3.0));
}

#[test]
fn reparent_keeping_world_leaves_the_node_in_place() {
    let (mut scene, _, mast, nest) = ship();
    let other = scene
        .spawn(
            None,
            "other",
            at(5.0, 0.0, 0.0).with_rotation(Quat::from_rotation_y(1.0)),
        )
        .unwrap();
    scene.propagate();
    let before = scene.world(nest).unwrap();
    scene.reparent(nest, Some(other), Keep::World).unwrap();
    scene.propagate();
    assert_eq!(scene.parent(nest), Some(other));
    let after = scene.world(nest).unwrap();
    assert!(
        after.abs_diff_eq(before, 1e-5),
        "moved from {before:?} to {after:?}"
    );
    assert_eq!(scene.children(mast).count(), 0);
    scene.assert_invariants();
}

#[test]
fn reparent_keeping_local_moves_with_the_new_parent() {
    let (mut scene, _, _, nest) = ship();
    let other = scene.spawn(None, "other", at(5.0, 0.0, 0.0)).unwrap();
    scene.reparent(nest, Some(other), Keep::Local).unwrap();
    scene.propagate();
    assert_eq!(
        scene.world(nest).unwrap().translation,
        Vec3::new(5.0, 3.0, 0.0).into()
    );
    scene.reparent(nest, None, Keep::Local).unwrap();
    scene.propagate();
    assert_eq!(scene.roots().count(), 3);
    scene.assert_invariants();
}

#[test]
fn reparent_under_own_descendant_is_refused_and_changes_nothing() {
    let (mut scene, ship, _, nest) = ship();
    let before = scene.to_file();
    let err = scene.reparent(ship, Some(nest), Keep::World).unwrap_err();
    assert!(matches!(err, NodeError::CyclicReparent { .. }), "{err}");
    assert!(matches!(
        scene.reparent(ship, Some(ship), Keep::Local),
        Err(NodeError::CyclicReparent { .. })
    ));
    assert_eq!(scene.to_file(), before);
}

#[test]
fn children_keep_their_order() {
    let mut scene = Scene::new();
    let root = scene.spawn(None, "root", Transform::IDENTITY).unwrap();
    let kids: Vec<NodeId> = (0..4)
        .map(|i| {
            scene
                .spawn(Some(root), format!("k{i}"), Transform::IDENTITY)
                .unwrap()
        })
        .collect();
    scene
        .spawn(Some(kids[1]), "grandchild", Transform::IDENTITY)
        .unwrap();
    assert_eq!(scene.children(root).collect::<Vec<_>>(), kids);
    assert_eq!(scene.subtree_len(root), 6);
}

#[test]
fn a_node_goes_back_to_its_place_among_100k_siblings() {
    let mut scene = Scene::new();
    let parent = scene.spawn(None, "crowd", Transform::IDENTITY).unwrap();
    let mut kids: Vec<NodeId> = (0..100_000)
        .map(|i| {
            scene
                .spawn(Some(parent), format!("k{i}"), Transform::IDENTITY)
                .unwrap()
        })
        .collect();
    for index in [0, 1, 40_000, 60_000, 99_998, 99_999] {
        let node = kids[index];
        assert_eq!(scene.sibling_index(node), Some(index));
        scene.despawn(node).unwrap();
        let back = scene
            .spawn_at(Some(parent), index, "back", Transform::IDENTITY)
            .unwrap();
        assert_eq!(
            scene.sibling_index(back),
            Some(index),
            "restored at {index}"
        );
        assert_eq!(scene.child_count(parent), 100_000);
        let around = index.saturating_sub(1)..(index + 2).min(100_000);
        let neighbours: Vec<NodeId> = scene
            .children(parent)
            .skip(around.start)
            .take(around.len())
            .collect();
        let expected: Vec<NodeId> = kids[around]
            .iter()
            .map(|&k| if k == node { back } else { k })
            .collect();
        assert_eq!(neighbours, expected, "around {index}");
        scene.despawn(back).unwrap();
        let node = scene
            .spawn_at(Some(parent), index, "k", Transform::IDENTITY)
            .unwrap();
        scene.reparent_at(node, None, 0, Keep::Local).unwrap();
        scene
            .reparent_at(node, Some(parent), index, Keep::Local)
            .unwrap();
        assert_eq!(
            scene.sibling_index(node),
            Some(index),
            "moved back to {index}"
        );
        scene.despawn(node).unwrap();
        let node = scene
            .spawn_at(Some(parent), index, "k", Transform::IDENTITY)
            .unwrap();
        assert_eq!(scene.sibling_index(node), Some(index));
        kids[index] = node;
    }
    assert_eq!(scene.children(parent).collect::<Vec<_>>(), kids);
    scene.assert_invariants();
}

#[test]
fn propagation_cost_follows_the_change_not_the_scene() {
    let mut scene = Scene::new();
    let mut leaves = Vec::new();
    for i in 0..1_000 {
        let root = scene
            .spawn(None, format!("r{i}"), at(i as f32, 0.0, 0.0))
            .unwrap();
        for j in 0..9 {
            leaves.push(
                scene
                    .spawn(Some(root), format!("c{j}"), at(0.0, j as f32, 0.0))
                    .unwrap(),
            );
        }
    }
    assert_eq!(scene.propagate().recomputed, 10_000);
    let root = scene.find("r500").unwrap();
    scene.set_local(root, at(0.0, 0.0, 7.0)).unwrap();
    scene.set_local(leaves[0], at(1.0, 1.0, 1.0)).unwrap();
    let stats = scene.propagate();
    assert_eq!(
        stats.recomputed, 11,
        "one root with 9 children plus one leaf"
    );
}

// ---- Scene files --------------------------------------------------------------------

fn furnished() -> Scene {
    let (mut scene, ship, mast, nest) = ship();
    scene
        .insert(ship, Oscillate::new(Vec3::Z, 0.05, 0.25, 0.0).rocking())
        .unwrap();
    scene
        .insert(
            mast,
            MeshRenderer {
                cast_shadows: true,
                mesh: crate::assets::Primitive::Cylinder.into(),
                material: Material::rgb(0.4, 0.25, 0.1),
            },
        )
        .unwrap();
    scene
        .insert(
            nest,
            Spin {
                axis: Vec3::Y,
                rate: 0.5,
            },
        )
        .unwrap();
    let sun = scene
        .spawn(
            None,
            "sun",
            Transform::IDENTITY.with_rotation(Quat::from_rotation_x(-0.8)),
        )
        .unwrap();
    scene
        .insert(
            sun,
            Light {
                kind: LightKind::Directional,
                color: Vec3::ONE,
                intensity: 2.0,
                cast_shadows: false,
            },
        )
        .unwrap();
    let boat = scene.spawn(None, "boat", at(9.0, 0.0, 0.0)).unwrap();
    scene
        .insert(
            boat,
            Orbit {
                center: Vec3::ZERO,
                radius: 9.0,
                rate: 0.3,
                angle: 0.25,
                face_forward: true,
            },
        )
        .unwrap();
    scene.environment.ambient = Vec3::new(0.1, 0.2, 0.3);
    scene.propagate();
    scene
}

#[test]
fn save_then_load_gives_back_the_same_scene() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ship.ron");
    let mut scene = furnished();
    let mut systems = crate::systems::Systems::new();
    for _ in 0..37 {
        systems.run_step(
            &mut scene,
            crate::physics::Space::EMPTY,
            crate::physics::Bodies::EMPTY,
            1.0 / 60.0,
        );
    }
    scene.save(&path).unwrap();
    let loaded = Scene::load(&path, &crate::Assets::new()).unwrap();
    assert_eq!(loaded.to_file(), scene.to_file());
    for (a, b) in scene.nodes().zip(loaded.nodes()) {
        assert_eq!(scene.name(a), loaded.name(b));
        assert!(
            scene
                .world(a)
                .unwrap()
                .abs_diff_eq(loaded.world(b).unwrap(), 1e-6)
        );
    }
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(
        leftovers.len(),
        1,
        "no temporary file left beside the scene"
    );
}

#[test]
fn a_failed_save_leaves_the_old_file_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scene.ron");
    furnished().save(&path).unwrap();
    let before = std::fs::read_to_string(&path).unwrap();
    let bad = dir.path().join("missing-folder").join("scene.ron");
    let err = furnished().save(&bad).unwrap_err();
    assert!(err.to_string().contains("missing-folder"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
}

#[test]
fn syntax_errors_name_the_file_and_the_line() {
    let text = "(\n    version: 1,\n    nodes: [\n        (name: \"a\", transform: (translation: (1.0, 2.0))),\n    ],\n)\n";
    let err = Scene::from_text(text, Path::new("bad.ron"), &crate::Assets::new()).unwrap_err();
    let message = err.to_string();
    assert!(
        matches!(err, SceneError::Parse { line: 4, .. }),
        "{message}"
    );
    assert!(message.starts_with("bad.ron:4:"), "{message}");
}

#[test]
fn version_1_gloss_loads_as_roughness_and_saves_as_the_current_version() {
    let text = "(version: 1, nodes: [\
        (name: \"a\", mesh: (mesh: Cube, material: (base_color: (0.5, 0.5, 0.5, 1.0), gloss: 0.9))),\
        (name: \"b\", mesh: (mesh: Cube, material: (base_color: (0.5, 0.5, 0.5, 1.0)))),\
    ])";
    let scene = Scene::from_text(text, Path::new("old.ron"), &crate::Assets::new()).unwrap();
    let materials: Vec<Material> = scene
        .roots()
        .map(|n| scene.get::<MeshRenderer>(n).unwrap().material)
        .collect();
    assert_eq!(
        materials[0].roughness,
        crate::assets::roughness_from_gloss(0.9)
    );
    assert_eq!(materials[0].metallic, 0.0);
    assert_eq!(materials[1].roughness, crate::assets::DEFAULT_ROUGHNESS);
    let saved = scene.to_file().to_text(Path::new("old.ron")).unwrap();
    assert!(
        saved.contains(&format!("version: {}", SCENE_VERSION)),
        "{saved}"
    );
    assert!(!saved.contains("gloss"), "{saved}");
    let again = Scene::from_text(&saved, Path::new("old.ron"), &crate::Assets::new()).unwrap();
    let first = again.roots().next().unwrap();
    assert_eq!(
        again.get::<MeshRenderer>(first).unwrap().material,
        materials[0]
    );
    let bad = text.replace("gloss: 0.9", "gloss: 1.5");
    let err = Scene::from_text(&bad, Path::new("old.ron"), &crate::Assets::new()).unwrap_err();
    let message = err.to_string();
    assert!(
        message.starts_with("old.ron:") && message.contains("gloss") && message.contains("1.5"),
        "{message}"
    );
}

#[test]
fn unknown_fields_and_versions_are_reported() {
    let err = Scene::from_text(
        "(version: 1, nodes: [(name: \"a\", colour: 3)])",
        Path::new("x.ron"),
        &crate::Assets::new(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("colour"), "{err}");
    let err = Scene::from_text(
        "(version: 99, nodes: [])",
        Path::new("x.ron"),
        &crate::Assets::new(),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            SceneError::UnsupportedVersion {
                found: 99,
                expected: SCENE_VERSION,
                ..
            }
        ),
        "{err}"
    );
    let err = Scene::load(Path::new("/no/such/scene.ron"), &crate::Assets::new()).unwrap_err();
    assert!(err.to_string().contains("/no/such/scene.ron"), "{err}");
}

#[test]
fn bad_values_name_the_node_and_the_field() {
    let cases = [
        (
            "(name: \"b\", orbit: (center: (0.0, 0.0, 0.0), radius: -1.0, rate: 1.0))",
            "orbit.radius",
        ),
        ("(name: \"b\", parent: 5)", "parent"),
        (
            "(name: \"b\", transform: (rotation: (0.0, 0.0, 0.0, 0.0)))",
            "transform.rotation",
        ),
        (
            "(name: \"b\", light: (kind: Point(range: 0.0), color: (1.0, 1.0, 1.0), intensity: 1.0))",
            "light.kind.range",
        ),
        (
            "(name: \"b\", mesh: (mesh: Cube, material: (base_color: (1.0, -1.0, 0.0, 1.0))))",
            "mesh.material.base_color",
        ),
    ];
    for (node, field) in cases {
        let text =
            format!("(\n  version: 1,\n  nodes: [\n    (name: \"a\"),\n    {node},\n  ],\n)");
        let err = Scene::from_text(&text, Path::new("v.ron"), &crate::Assets::new()).unwrap_err();
        match &err {
            SceneError::InvalidField(e) => {
                let (index, node, f, line, column) =
                    (&e.index, &e.node, &e.field, &e.line, &e.column);
                assert_eq!(
                    (*index, node.as_str(), f.as_ref()),
                    (1, "b", field),
                    "{err}"
                );
                assert_eq!(*line, 5, "{err}");
                let key = field.rsplit('.').next().unwrap();
                let expected_column = text
                    .lines()
                    .nth(4)
                    .unwrap()
                    .find(&format!("{key}:"))
                    .unwrap()
                    + 1;
                assert_eq!(*column as usize, expected_column, "{err}");
                let prefix = format!("v.ron:5:{expected_column}: node 1 (`b`)");
                assert!(err.to_string().starts_with(&prefix), "{err}");
            }
            other => panic!("expected an invalid field {field}, got {other}"),
        }
    }
}

#[test]
fn hand_written_files_may_omit_defaults_and_some() {
    let text = r#"#![enable(implicit_some)]
(
    version: 1,
    nodes: [
        (name: "ship", mesh: (mesh: Cube, material: (base_color: (0.5, 0.3, 0.1, 1.0)))),
        (name: "flag", parent: 0, transform: (translation: (0.0, 3.0, 0.0), rotation: (0.0, 0.0, 0.0, 2.0))),
    ],
)"#;
    let scene = Scene::from_text(text, Path::new("hand.ron"), &crate::Assets::new()).unwrap();
    let flag = scene.find_path("ship/flag").unwrap();
    assert_eq!(
        scene.local(flag).unwrap().rotation,
        Quat::IDENTITY,
        "rotation normalised"
    );
    let ship = scene.find("ship").unwrap();
    assert_eq!(
        scene.get::<MeshRenderer>(ship).unwrap().material.base_color,
        Vec4::new(0.5, 0.3, 0.1, 1.0)
    );
}

#[test]
fn missing_fields_and_unknown_components_are_named_with_their_line() {
    let text = "(\n  version: 1,\n  nodes: [\n    (name: \"a\", orbit: (radius: 2.0)),\n  ],\n)";
    let err = Scene::from_text(text, Path::new("m.ron"), &crate::Assets::new()).unwrap_err();
    assert!(matches!(err, SceneError::Parse { line: 4, .. }), "{err}");
    assert!(
        err.to_string().contains("center"),
        "names the missing field: {err}"
    );
    let text = "(\n  version: 1,\n  nodes: [\n    (name: \"a\", rigidbody: (mass: 2.0)),\n  ],\n)";
    let err = Scene::from_text(text, Path::new("u.ron"), &crate::Assets::new()).unwrap_err();
    let SceneError::InvalidField(field) = &err else {
        panic!("an unknown component is a located field error: {err}");
    };
    assert_eq!(
        (field.line, field.field.as_ref()),
        (4, "rigidbody"),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("(body, camera, character, collider, joint, orbit, oscillate, spin)"),
        "lists the registered components: {err}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// Whatever the damage to a valid file, loading answers Ok or Err and never panics.
    #[test]
    fn mangled_files_never_panic(
        cuts in proptest::collection::vec((any::<proptest::sample::Index>(), 0u8..4, any::<u8>()), 1..6),
    ) {
        let mut text = furnished().to_file().to_text(Path::new("f.ron")).unwrap().into_bytes();
        for (at, kind, byte) in cuts {
            if text.is_empty() {
                break;
            }
            let i = at.index(text.len());
            match kind {
                0 => text.truncate(i),
                1 => text[i] = byte,
                2 => { text.remove(i); }
                _ => text.insert(i, b"(),:[]\"-9e99NaN"[usize::from(byte) % 15]),
            }
        }
        let text = String::from_utf8_lossy(&text);
        let _ = Scene::from_text(&text, Path::new("mangled.ron"), &crate::Assets::new());
    }
}

#[test]
fn a_sky_image_is_loaded_relative_to_the_scene_and_saved_so() {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets");
    let scene_path = assets.join("scenes/sky_test.ron");
    let text = "(version: 2, environment: (sky: \"../skies/harbour.hdr\"), nodes: [])";
    let store = crate::Assets::new();
    let scene = Scene::from_text(text, &scene_path, &store).expect("the bundled sky loads");
    let sky = scene.environment.sky.clone().expect("a sky");
    assert!(
        sky.is_absolute() && sky.ends_with("skies/harbour.hdr"),
        "{}",
        sky.display()
    );
    let handle = store.loaded_sky(&sky).expect("loaded with the scene");
    let image = store.sky(handle).unwrap();
    assert_eq!((image.width, image.height), (1024, 512));
    let written = scene.to_file_in(Some(&assets.join("scenes")));
    assert_eq!(
        written.environment.sky.as_deref(),
        Some(Path::new("../skies/harbour.hdr")),
        "written relative to the scene's folder"
    );

    let missing = "(version: 2, environment: (sky: \"../skies/none.hdr\"), nodes: [])";
    let error = Scene::from_text(missing, &scene_path, &crate::Assets::new())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("sky_test.ron") && error.contains("sky") && error.contains("none.hdr"),
        "{error}"
    );
}
