//! Animation clips and skins imported from real-world files (the
//! bundled models, made outside this project) and from broken ones.

use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec3};
use keel_engine::assets::gltf::{self, GltfError};
use keel_engine::assets::{Interpolation, Property, Sample};

/// A bundled model: the Fox is the demo's (`assets/models`), the others are
/// test inputs (`tests/models`, credits in its `CREDITS.md`).
fn bundled(name: &str) -> PathBuf {
    let folder = if name == "Fox.glb" {
        "../assets/models"
    } else {
        "../tests/models"
    };
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(folder)
        .join(name)
}

#[test]
fn the_fox_has_three_clips_and_one_skin_of_24_joints() {
    let fox = gltf::load(
        &bundled("Fox.glb"),
        &keel_engine::files::ReadLimits::DEFAULT,
    )
    .expect("the Fox loads");
    let names: Vec<&str> = fox.animations.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Survey", "Walk", "Run"]);
    for clip in &fox.animations {
        assert!(
            clip.duration > 0.5 && !clip.channels.is_empty(),
            "{}",
            clip.name
        );
        for channel in &clip.channels {
            let keys = (channel.keys.end - channel.keys.start) as usize;
            let values = (channel.values.end - channel.values.start) as usize;
            assert_eq!(values, keys * channel.width as usize, "{}", clip.name);
            assert!((channel.node as usize) < fox.nodes.len());
        }
    }
    assert_eq!(fox.skins.len(), 1);
    assert_eq!(fox.skins[0].joints.len(), 24);
    assert_eq!(fox.skins[0].inverse_bind.len(), 24);
    assert!(
        !fox.warnings
            .iter()
            .any(|w| w.element.starts_with("animations")),
        "{:?}",
        fox.warnings
    );
}

#[test]
fn simple_skin_matches_the_file_by_hand() {
    let model = gltf::load(
        &bundled("SimpleSkin.gltf"),
        &keel_engine::files::ReadLimits::DEFAULT,
    )
    .expect("SimpleSkin loads");
    // nodes[0] (the skinned mesh) -> nodes[1] (joint, y = 1) -> nodes[2] (joint).
    assert_eq!(model.nodes.len(), 3);
    let skin = &model.skins[0];
    assert_eq!(skin.joints, [1, 2]);
    let expected = Mat4::from_translation(Vec3::new(-0.5, -1.0, 0.0));
    assert_eq!(skin.inverse_bind[0], expected);
    assert_eq!(skin.inverse_bind[1], expected);
    assert_eq!(model.nodes[0].skin, Some(0));
    // Every vertex on joints 0 and 1: the bottom row all on 0, the top row all on 1.
    let strip = &model.meshes[0].primitives[0].mesh;
    assert_eq!(strip.skin.len(), strip.vertices.len());
    for (vertex, skin) in strip.vertices.iter().zip(&strip.skin) {
        assert_eq!(skin.joints[..2], [0, 1]);
        assert!((skin.weights.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        match vertex.position[1] {
            0.0 => assert_eq!(skin.weights[0], 1.0),
            2.0 => assert_eq!(skin.weights[1], 1.0),
            _ => {}
        }
    }
    let clip = &model.animations[0];
    assert_eq!(clip.duration, 5.5);
    let channel = &clip.channels[0];
    assert_eq!((channel.node, channel.property), (2, Property::Rotation));
    assert_eq!(channel.interpolation, Interpolation::Linear);
    // Keys 0.0, 0.5, ... with z = 0, 0.383, 0.707, ...: at 0.5 s the second key exactly.
    let at = |t: f32| match clip.sample(0, t, &mut 0) {
        Some(Sample::Quat(q)) => q,
        other => panic!("{other:?}"),
    };
    let key1 = Quat::from_xyzw(0.0, 0.0, 0.383, 0.924).normalize();
    assert!(at(0.5).angle_between(key1) < 1e-3, "{:?}", at(0.5));
    // Half way to it: the slerp of the first two keys.
    let half = Quat::IDENTITY.slerp(key1, 0.5);
    assert!(at(0.25).angle_between(half) < 1e-3, "{:?}", at(0.25));
}

/// SimpleSkin with its JSON changed by `edit`.
fn broken(edit: impl FnOnce(&mut serde_json::Value)) -> Result<(), GltfError> {
    let text = std::fs::read_to_string(bundled("SimpleSkin.gltf")).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    edit(&mut json);
    let bytes = serde_json::to_vec(&json).unwrap();
    gltf::from_slice(
        &bytes,
        &bundled("SimpleSkin.gltf"),
        &keel_engine::files::ReadLimits::DEFAULT,
    )
    .map(|_| ())
}

#[test]
fn bad_channels_and_joints_are_errors_naming_them() {
    // Key values that do not match the key times.
    let error = broken(|j| j["accessors"][6]["count"] = 11.into())
        .unwrap_err()
        .to_string();
    assert!(error.contains("animations[0].channels[0]"), "{error}");
    // Key times read from a VEC4 accessor.
    let error = broken(|j| j["animations"][0]["samplers"][0]["input"] = 6.into())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("key times of animations[0].channels[0]"),
        "{error}"
    );
    // A joint that is not in the scene.
    let error = broken(|j| {
        j["nodes"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({}));
        j["skins"][0]["joints"][1] = 3.into();
    })
    .unwrap_err()
    .to_string();
    assert!(error.contains("skins[0].joints[1]"), "{error}");
    // A vertex on a joint the skin does not have.
    let error = broken(|j| {
        j["skins"][0]["joints"] = serde_json::json!([1]);
        j["accessors"][4]["count"] = 1.into();
    })
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("meshes[0].primitives[0].attributes.JOINTS_0"),
        "{error}"
    );
    // Joints without weights.
    let error = broken(|j| {
        let attributes = j["meshes"][0]["primitives"][0]["attributes"]
            .as_object_mut()
            .unwrap();
        attributes.remove("WEIGHTS_0");
    })
    .unwrap_err()
    .to_string();
    assert!(error.contains("attributes.WEIGHTS_0"), "{error}");
    // A node naming a skin the file does not have.
    let error = broken(|j| j["nodes"][0]["skin"] = 4.into())
        .unwrap_err()
        .to_string();
    assert!(error.contains("nodes[0].skin"), "{error}");
    // Fewer inverse bind matrices than joints.
    let error = broken(|j| j["accessors"][4]["count"] = 1.into())
        .unwrap_err()
        .to_string();
    assert!(error.contains("skins[0].inverseBindMatrices"), "{error}");
}
