//! Skinned and morphed meshes drawn through extraction and the vertex shader:
//! goldens of SimpleSkin and the Fox (`tests/models` and `assets/models`, made
//! outside this project) mid-animation and of a morph-target sheet written here, and checks
//! that a skinned mesh is drawn where its joints are, not at its node.

mod common;

use std::path::{Path, PathBuf};

use base64::Engine as _;
use common::{add_sun, assert_matches_golden, gpu_or_skip};
use glam::{Quat, Vec3};
use keel_engine::World;
use keel_engine::render::wgpu;
use keel_engine::scene::{MorphWeights, Skin};
use keel_engine::{Animator, NodeId, Scene, Transform};
use keel_engine::{Camera, GpuContext, Renderer};
use keel_engine::{Extractor, Overlays};

/// A bundled model: the Fox is the demo's (`assets/models`), the others are
/// test inputs (`tests/models`, credits in its `CREDITS.md`).
fn bundled(name: &str) -> PathBuf {
    let folder = if name == "Fox.glb" {
        "assets/models"
    } else {
        "tests/models"
    };
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(folder)
        .join(name)
}

fn lit_scene() -> Scene {
    let mut scene = Scene::new();
    let rotation = Quat::from_euler(glam::EulerRot::YXZ, 0.6, -0.8, 0.0);
    add_sun(&mut scene, rotation, 1.2);
    scene
}

/// A world with `model` at `transform` playing `clip`, run for `seconds`.
fn animated(model: &Path, transform: Transform, clip: &str, seconds: f32) -> (World, NodeId) {
    let mut scene = lit_scene();
    let (root, warnings) = scene
        .spawn_model(None, "model", transform, model)
        .expect("the model loads");
    assert!(
        warnings.iter().all(|w| !w.element.starts_with("skins")),
        "{warnings:?}"
    );
    scene.insert(root, Animator::new(clip)).unwrap();
    let mut world = World::new(scene);
    let steps = (seconds / world.clock().step().as_secs_f32()).round() as usize;
    for _ in 0..steps {
        world.step();
    }
    (world, root)
}

/// The Fox (`assets/models`, at its usual 1/50 scale) 0.4 s into its walk.
fn walking_fox() -> World {
    let fox = Transform::IDENTITY.with_scale(Vec3::splat(0.02));
    animated(&bundled("Fox.glb"), fox, "Walk", 0.4).0
}

fn render(
    ctx: &GpuContext,
    world: &mut World,
    camera: Camera,
) -> (keel_engine::render::image::RgbaImage, usize) {
    let mut renderer = Renderer::new(ctx, wgpu::TextureFormat::Rgba8UnormSrgb);
    let mut buffers = Extractor::default();
    let frame = buffers.extract_world(world, camera, 1.0, &Overlays::default());
    let deformed = frame.deformed.len();
    let image = renderer.render_to_image(ctx, &frame, 256, 256).unwrap();
    (image, deformed)
}

#[test]
fn simple_skin_bends_with_its_joint() {
    let Some(ctx) = gpu_or_skip() else { return };
    let (mut world, _) = animated(
        &bundled("SimpleSkin.gltf"),
        Transform::IDENTITY,
        "animation 0",
        1.0,
    );
    let camera = Camera {
        position: Vec3::new(0.5, 1.0, 4.0),
        target: Vec3::new(0.5, 1.0, 0.0),
        ..Camera::default()
    };
    let (image, deformed) = render(&ctx, &mut world, camera);
    assert_eq!(deformed, 1, "the strip is drawn skinned");
    assert_matches_golden("skinned_simple_skin", &image);
}

#[test]
fn the_fox_walks() {
    let Some(ctx) = gpu_or_skip() else { return };
    let mut world = walking_fox();
    let camera = Camera {
        position: Vec3::new(3.2, 1.6, 2.4),
        target: Vec3::new(0.0, 0.8, 0.0),
        ..Camera::default()
    };
    let (image, deformed) = render(&ctx, &mut world, camera);
    assert_eq!(deformed, 1);
    assert_matches_golden("skinned_fox_walk", &image);
}

/// The walking Fox over a ground plane, the sun high behind it, seen from
/// above: the ground beside it is in its shadow (skinned casters are drawn
/// into the shadow map at their joints, as they are into the view), which
/// disappears with shadows off.
#[test]
fn the_fox_casts_its_shadow() {
    let Some(ctx) = gpu_or_skip() else { return };
    let mut world = walking_fox();
    let scene = world.scene_mut();
    let sun = scene.find("sun").expect("the lit scene's sun");
    scene
        .set_local(
            sun,
            Transform::IDENTITY.with_rotation(Quat::from_rotation_x(-1.0)),
        )
        .unwrap();
    let ground = scene
        .spawn(
            None,
            "ground",
            Transform::IDENTITY.with_scale(Vec3::new(8.0, 1.0, 8.0)),
        )
        .unwrap();
    let mut mesh = keel_engine::MeshRenderer::new(
        keel_engine::Primitive::Plane.into(),
        keel_engine::Material::rgb(0.6, 0.6, 0.6),
    );
    mesh.cast_shadows = false;
    scene.insert(ground, mesh).unwrap();
    world.step();
    let camera = Camera {
        position: Vec3::new(0.0, 5.0, 0.01),
        target: Vec3::ZERO,
        ..Camera::default()
    };
    let (lit, _) = render(&ctx, &mut world, camera);
    world.scene_mut().environment_mut().shadows.enabled = false;
    let (unshadowed, _) = render(&ctx, &mut world, camera);
    let darker = lit
        .pixels()
        .zip(unshadowed.pixels())
        .filter(|(a, b)| u16::from(a[1]) + 25 < u16::from(b[1]))
        .count();
    assert!(darker > 200, "ground pixels in the Fox's shadow: {darker}");
}

#[test]
fn a_skinned_mesh_is_drawn_at_its_joints_not_its_node() {
    let Some(ctx) = gpu_or_skip() else { return };
    let (mut world, root) = animated(
        &bundled("SimpleSkin.gltf"),
        Transform::IDENTITY,
        "animation 0",
        0.0,
    );
    let scene = world.scene_mut();
    let mesh = scene
        .subtree(root)
        .find(|&n| scene.get::<Skin>(n).is_some())
        .unwrap();
    let joints = scene.get::<Skin>(mesh).unwrap().joints.clone();
    // The mesh's node goes far away; the joints' root moves 1 left.
    let mut local = scene.local(mesh).unwrap();
    local.translation += Vec3::new(0.0, 0.0, -100.0);
    scene.set_local(mesh, local).unwrap();
    let mut joint = scene.local(joints[0]).unwrap();
    joint.translation.x -= 1.0;
    scene.set_local(joints[0], joint).unwrap();
    scene.propagate();
    world.sync_index();
    let camera = Camera {
        position: Vec3::new(0.5, 1.0, 4.0),
        target: Vec3::new(0.5, 1.0, 0.0),
        ..Camera::default()
    };
    let mut renderer = Renderer::new(&ctx, wgpu::TextureFormat::Rgba8UnormSrgb);
    let mut buffers = Extractor::default();
    let frame = buffers.extract_world(&mut world, camera, 1.0, &Overlays::default());
    assert_eq!(
        frame.deformed.len(),
        1,
        "culled by the joints' bounds, kept"
    );
    let image = renderer.render_to_image(&ctx, &frame, 128, 128).unwrap();
    let background = *image.get_pixel(127, 0);
    let covered = |x0: u32, x1: u32| {
        (x0..x1)
            .flat_map(|x| (0..128).map(move |y| (x, y)))
            .filter(|&(x, y)| *image.get_pixel(x, y) != background)
            .count()
    };
    // The strip spans x 0..1 in its bind pose, centred at 0.5: moved 1 left,
    // it covers the left part of the image and not the right.
    assert!(covered(0, 40) > 200, "{}", covered(0, 40));
    assert_eq!(covered(70, 128), 0);
}

/// A 1 x 1 sheet of 16 x 16 quads facing +Z, with two morph targets (a bump
/// in the middle, the top edge pushed sideways) and a clip that takes both
/// weights from 0 to 1 over a second.
fn morph_sheet_gltf() -> String {
    const N: usize = 16;
    let mut bytes: Vec<u8> = Vec::new();
    let push = |values: &[f32], bytes: &mut Vec<u8>| {
        bytes.extend(values.iter().flat_map(|v| v.to_le_bytes()));
    };
    let grid =
        (0..=N).flat_map(|y| (0..=N).map(move |x| (x as f32 / N as f32, y as f32 / N as f32)));
    let vertices = (N + 1) * (N + 1);
    for (x, y) in grid.clone() {
        push(&[x - 0.5, y, 0.0], &mut bytes);
    }
    let normals_at = bytes.len();
    for _ in 0..vertices {
        push(&[0.0, 0.0, 1.0], &mut bytes);
    }
    let bump_at = bytes.len();
    for (x, y) in grid.clone() {
        let r2 = (x - 0.5) * (x - 0.5) + (y - 0.5) * (y - 0.5);
        push(
            &[0.0, 0.0, 0.5 * keel_engine::math::exp(-r2 * 12.0)],
            &mut bytes,
        );
    }
    let bump_normals_at = bytes.len();
    for (x, y) in grid.clone() {
        // The bump's slope tilts the normal: (-dz/dx, -dz/dy, 1), normalised, minus +Z.
        let (dx, dy) = (x - 0.5, y - 0.5);
        let z = 0.5 * keel_engine::math::exp(-(dx * dx + dy * dy) * 12.0);
        let n = Vec3::new(24.0 * dx * z, 24.0 * dy * z, 1.0).normalize() - Vec3::Z;
        push(&n.to_array(), &mut bytes);
    }
    let lean_at = bytes.len();
    for (_, y) in grid {
        push(&[0.4 * y * y, 0.0, 0.0], &mut bytes);
    }
    let indices_at = bytes.len();
    for y in 0..N {
        for x in 0..N {
            let at = |dx: usize, dy: usize| ((y + dy) * (N + 1) + x + dx) as u16;
            for i in [at(0, 0), at(1, 0), at(1, 1), at(0, 0), at(1, 1), at(0, 1)] {
                bytes.extend(i.to_le_bytes());
            }
        }
    }
    while !bytes.len().is_multiple_of(4) {
        bytes.push(0);
    }
    let times_at = bytes.len();
    push(&[0.0, 1.0], &mut bytes);
    let weights_at = bytes.len();
    push(&[0.0, 0.0, 1.0, 1.0], &mut bytes);
    let end = bytes.len();
    let view = |from: usize, to: usize| serde_json::json!({ "buffer": 0, "byteOffset": from, "byteLength": to - from });
    let vec3 = |view: usize| {
        serde_json::json!({
            "bufferView": view, "componentType": 5126, "count": vertices, "type": "VEC3"
        })
    };
    let mut position = vec3(0);
    position["min"] = serde_json::json!([-0.5, 0.0, 0.0]);
    position["max"] = serde_json::json!([0.5, 1.0, 0.0]);
    let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
    serde_json::json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "name": "sheet", "mesh": 0 }],
        "meshes": [{
            "primitives": [{
                "attributes": { "POSITION": 0, "NORMAL": 1 },
                "indices": 5,
                "targets": [{ "POSITION": 2, "NORMAL": 3 }, { "POSITION": 4 }]
            }],
            "weights": [0.0, 0.0]
        }],
        "animations": [{
            "name": "Morph",
            "samplers": [{ "input": 6, "output": 7, "interpolation": "LINEAR" }],
            "channels": [{ "sampler": 0, "target": { "node": 0, "path": "weights" } }]
        }],
        "accessors": [
            position,
            vec3(1),
            vec3(2),
            vec3(3),
            vec3(4),
            { "bufferView": 5, "componentType": 5123, "count": N * N * 6, "type": "SCALAR" },
            { "bufferView": 6, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0] },
            { "bufferView": 7, "componentType": 5126, "count": 4, "type": "SCALAR" }
        ],
        "bufferViews": [
            view(0, normals_at), view(normals_at, bump_at), view(bump_at, bump_normals_at),
            view(bump_normals_at, lean_at),
            view(lean_at, indices_at), view(indices_at, times_at), view(times_at, weights_at),
            view(weights_at, end)
        ],
        "buffers": [{ "byteLength": end, "uri": format!("data:application/octet-stream;base64,{data}") }]
    })
    .to_string()
}

#[test]
fn morph_targets_blend_by_animated_weights() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sheet.gltf");
    std::fs::write(&path, morph_sheet_gltf()).unwrap();
    let (mut world, root) = animated(&path, Transform::IDENTITY, "Morph", 0.75);
    let sheet = world.scene().children(root).next().unwrap();
    let weights = &world.scene().get::<MorphWeights>(sheet).unwrap().weights;
    assert!(
        weights.iter().all(|w| (w - 0.75).abs() < 1e-4),
        "linear keys 0 -> 1 over a second, at 0.75 s: {weights:?}"
    );
    let Some(ctx) = gpu_or_skip() else { return };
    let camera = Camera {
        position: Vec3::new(1.4, 1.2, 1.6),
        target: Vec3::new(0.1, 0.5, 0.0),
        ..Camera::default()
    };
    let (image, deformed) = render(&ctx, &mut world, camera);
    assert_eq!(deformed, 1);
    assert_matches_golden("morph_sheet", &image);
}

/// The Fox behind the camera, the sun behind it too: out of the view, it is
/// still extracted, for the shadow map only (its shadow falls into the view);
/// without shadows it is left out.
#[test]
fn a_skinned_mesh_out_of_view_still_casts_into_it() {
    let mut world = walking_fox();
    let sun = world.scene().find("sun").expect("the lit scene's sun");
    // Shining down and towards +Z: from behind the Fox, over the camera.
    let towards = Vec3::new(0.0, -0.84, 0.54).normalize();
    let rotation = Quat::from_rotation_arc(Vec3::NEG_Z, towards);
    world
        .scene_mut()
        .set_local(sun, Transform::IDENTITY.with_rotation(rotation))
        .unwrap();
    world.step();
    let camera = Camera {
        position: Vec3::new(0.0, 1.0, 3.0),
        target: Vec3::new(0.0, 0.0, 8.0),
        ..Camera::default()
    };
    let mut buffers = Extractor::default();
    let frame = buffers.extract_world(&mut world, camera, 1.0, &Overlays::default());
    assert_eq!(
        frame.deformed.len(),
        1,
        "the Fox is extracted for its shadow"
    );
    assert!(!frame.deformed[0].in_view && frame.deformed[0].cast_shadows);
    world.scene_mut().environment_mut().shadows.enabled = false;
    let frame = buffers.extract_world(&mut world, camera, 1.0, &Overlays::default());
    assert!(
        frame.deformed.is_empty(),
        "without shadows nothing out of view is extracted"
    );
}
