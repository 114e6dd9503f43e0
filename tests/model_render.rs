//! A real-world glTF model no one here wrote, the Flight Helmet (Khronos
//! sample, CC0; `tests/models/FlightHelmet`), imported with its whole
//! material: base colour, metallic-roughness, normal and occlusion maps. The
//! importer warns about none of them, the maps change the picture, and a
//! golden of the helmet from the front.

mod common;

use std::path::PathBuf;

use common::{add_sun, assert_matches_golden, gpu_or_skip};
use glam::{Quat, Vec3};
use keel_engine::World;
use keel_engine::render::image::RgbaImage;
use keel_engine::render::wgpu;
use keel_engine::{Camera, GpuContext, Renderer};
use keel_engine::{Extractor, Overlays};
use keel_engine::{MeshRenderer, Scene, Transform};

fn helmet_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/models/FlightHelmet/FlightHelmet.gltf")
}

fn helmet_scene() -> Scene {
    let mut scene = Scene::new();
    let rotation = Quat::from_euler(glam::EulerRot::YXZ, 0.5, -0.6, 0.0);
    add_sun(&mut scene, rotation, 2.5);
    scene.environment_mut().ambient = Vec3::splat(0.35);
    scene.environment_mut().clear_color = Vec3::new(0.2, 0.22, 0.25);
    let (_, warnings) = scene
        .spawn_model(None, "helmet", Transform::IDENTITY, &helmet_path())
        .expect("the Flight Helmet imports");
    assert!(
        warnings.is_empty(),
        "the importer skipped parts of the Flight Helmet: {warnings:#?}"
    );
    scene
}

fn render(ctx: &GpuContext, scene: Scene) -> RgbaImage {
    let mut world = World::new(scene);
    let camera = Camera {
        position: Vec3::new(0.0, 0.35, 1.15),
        target: Vec3::new(0.0, 0.32, 0.0),
        fov_y: 40f32.to_radians(),
        ..Camera::default()
    };
    let mut buffers = Extractor::default();
    let frame = buffers.extract_world(&mut world, camera, 1.0, &Overlays::default());
    Renderer::new(ctx, wgpu::TextureFormat::Rgba8UnormSrgb)
        .render_to_image(ctx, &frame, 256, 256)
        .expect("renders")
}

#[test]
fn the_flight_helmet_imports_its_whole_material_and_renders() {
    let Some(ctx) = gpu_or_skip() else { return };
    let scene = helmet_scene();
    let mapped = scene
        .components()
        .mesh
        .iter()
        .filter(|(_, mesh)| mesh.material.maps.is_some())
        .count();
    assert!(
        mapped >= 5,
        "every material has its maps: {mapped} meshes with maps"
    );
    let mut plain = scene.clone();
    let nodes: Vec<_> = plain
        .components()
        .mesh
        .iter()
        .map(|(node, _)| node)
        .collect();
    for node in nodes {
        let mut mesh = *plain.get::<MeshRenderer>(node).unwrap();
        mesh.material.maps = None;
        plain.insert(node, mesh).unwrap();
    }
    let with_maps = render(&ctx, scene);
    let without = render(&ctx, plain);
    let changed = with_maps
        .pixels()
        .zip(without.pixels())
        .filter(|(a, b)| (0..3).any(|c| a[c].abs_diff(b[c]) > 12))
        .count();
    assert!(
        changed > 256 * 256 / 10,
        "the maps (normals, occlusion, roughness) change a good part of the helmet: {changed} pixels"
    );
    assert_matches_golden("flight_helmet", &with_maps);
}

/// The asset browser's picture of a model: the model fills the frame (its
/// bounds framed), drawn over the background.
#[test]
fn a_model_thumbnail_frames_the_model() {
    let Some(ctx) = gpu_or_skip() else { return };
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/models/lighthouse.glb");
    let mut renderer = Renderer::new(&ctx, wgpu::TextureFormat::Rgba8UnormSrgb);
    let image =
        keel_engine::model_thumbnail(&ctx, &mut renderer, &path, 64).expect("the lighthouse draws");
    assert_eq!((image.width(), image.height()), (64, 64));
    let covered = covered(&image);
    let share = covered as f32 / (64.0 * 64.0);
    assert!(
        (0.1..0.95).contains(&share),
        "the model covers {share:.2} of the picture"
    );
    let missing = std::path::Path::new("no such model.glb");
    assert!(keel_engine::model_thumbnail(&ctx, &mut renderer, missing, 64).is_none());
}

/// An OBJ model (the bundled crate, through its `.mtl` and texture) draws the
/// same pixels as the same model exported to glTF and imported back: the
/// second format joins through the importer seam and nothing after it tells
/// them apart.
#[test]
fn an_obj_model_draws_the_same_pixels_as_its_gltf_twin() {
    let Some(ctx) = gpu_or_skip() else { return };
    let obj = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/models/crate.obj");
    let data = keel_engine::assets::obj::load(&obj, &keel_engine::files::ReadLimits::DEFAULT)
        .expect("the crate imports");
    let glb = keel_engine::assets::gltf::Export::new(&data)
        .expect("exports")
        .to_glb()
        .expect("packs");
    let dir = tempfile::tempdir().unwrap();
    let twin = dir.path().join("crate.glb");
    std::fs::write(&twin, glb).unwrap();
    let scene_of = |path: &std::path::Path| {
        let mut scene = Scene::new();
        add_sun(
            &mut scene,
            Quat::from_euler(glam::EulerRot::YXZ, 0.6, -0.9, 0.0),
            2.5,
        );
        scene.environment_mut().ambient = Vec3::splat(0.3);
        scene.environment_mut().clear_color = Vec3::new(0.2, 0.22, 0.25);
        let spin = Transform {
            rotation: Quat::from_euler(glam::EulerRot::YXZ, 0.7, 0.0, 0.0),
            ..Transform::IDENTITY
        };
        let (_, warnings) = scene
            .spawn_model(None, "crate", spin, path)
            .expect("spawns");
        assert!(warnings.is_empty(), "{warnings:?}");
        scene
    };
    let camera = Camera {
        position: Vec3::new(0.0, 1.3, 2.2),
        target: Vec3::ZERO,
        fov_y: 40f32.to_radians(),
        ..Camera::default()
    };
    let draw = |scene: Scene| {
        let mut world = World::new(scene);
        let mut buffers = Extractor::default();
        let frame = buffers.extract_world(&mut world, camera, 1.0, &Overlays::default());
        Renderer::new(&ctx, wgpu::TextureFormat::Rgba8UnormSrgb)
            .render_to_image(&ctx, &frame, 128, 128)
            .expect("renders")
    };
    let from_obj = draw(scene_of(&obj));
    let from_gltf = draw(scene_of(&twin));
    if let Ok(out) = std::env::var("KEEL_SAVE_RENDERS") {
        from_obj
            .save(std::path::Path::new(&out).join("crate_obj.png"))
            .unwrap();
        from_gltf
            .save(std::path::Path::new(&out).join("crate_gltf.png"))
            .unwrap();
    }
    let covered = covered(&from_obj);
    assert!(
        covered > 128 * 128 / 8,
        "the crate is drawn: {covered} pixels"
    );
    let differ = from_obj
        .pixels()
        .zip(from_gltf.pixels())
        .filter(|(a, b)| (0..3).any(|c| a[c].abs_diff(b[c]) > 2))
        .count();
    assert_eq!(
        differ, 0,
        "pixels that differ between the OBJ and its glTF twin"
    );
}

/// Pixels that differ from the top-left one (the background) by more than 12
/// in a channel: what a model covers.
fn covered(image: &RgbaImage) -> usize {
    let background = image.get_pixel(0, 0).0;
    image
        .pixels()
        .filter(|p| {
            p.0.iter()
                .zip(&background)
                .any(|(a, b)| a.abs_diff(*b) > 12)
        })
        .count()
}
