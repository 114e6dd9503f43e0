//! Hot reload while a world runs and renders on the software adapter: a
//! texture image beside a `.gltf` rewritten on disk shows in the next frame;
//! a shader edited on disk (valid) changes the pixels, then (broken) leaves
//! the last good pipeline drawing and names its line. An OBJ's material
//! library edited on disk recolours the model. Each prints the time
//! from the file write to the new pixels. A piece the shaders `#import`
//! edited on disk reloads every shader that imports it.
//!
//! Each test's scene has an asset store of its own (shaders included), so
//! they run side by side without seeing each other's reloads.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{add_sun, gpu_or_skip};
use glam::{Quat, Vec3, Vec4};
use keel_engine::MeshRef;
use keel_engine::assets::gltf::mip_chain;
use keel_engine::assets::gltf::{Export, Resources};
use keel_engine::assets::shaders::{self, Shader};
use keel_engine::assets::{
    MeshData, MeshVertex, ModelData, ModelMaterial, ModelMesh, ModelNode, ModelPrimitive,
    TextureData,
};
use keel_engine::reload::{FileWatcher, reload_assets};
use keel_engine::render::{image::RgbaImage, wgpu};
use keel_engine::{Camera, GpuContext, Renderer};
use keel_engine::{Extractor, Overlays};
use keel_engine::{MeshRenderer, Scene, Transform};

/// A 2 x 2 texture of one colour.
fn solid(rgb: [u8; 3]) -> TextureData {
    let texel = [rgb[0], rgb[1], rgb[2], 255];
    TextureData {
        name: "paint".into(),
        width: 2,
        height: 2,
        mips: mip_chain(2, 2, texel.repeat(4)),
        srgb: true,
    }
}

/// A 4 x 4 quad facing +Z, textured with `texture`.
fn sign(texture: TextureData) -> ModelData {
    let corners = [[-2.0, -2.0], [2.0, -2.0], [2.0, 2.0], [-2.0, 2.0]];
    let quad = MeshData {
        vertices: corners
            .iter()
            .map(|&[x, y]| MeshVertex::new([x, y, 0.0], [0.0, 0.0, 1.0], [0.5, 0.5]))
            .collect(),
        indices: vec![0, 1, 2, 0, 2, 3],
        ..MeshData::default()
    };
    ModelData {
        path: PathBuf::new(),
        meshes: vec![ModelMesh {
            name: "quad".into(),
            primitives: vec![ModelPrimitive {
                mesh: quad,
                material: Some(0),
            }],
        }],
        materials: vec![ModelMaterial {
            name: "painted".into(),
            base_color: Vec4::ONE,
            base_color_texture: Some(0),
            roughness: 1.0,
            ..ModelMaterial::default()
        }],
        textures: vec![texture],
        nodes: vec![ModelNode {
            name: "sign".into(),
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

/// Writes the sign as `sign.gltf` with its image in `sign_0.png`; returns both paths.
fn write_sign(dir: &Path, rgb: [u8; 3]) -> (PathBuf, PathBuf) {
    let files = Export::new(&sign(solid(rgb)))
        .unwrap()
        .to_gltf(Resources::Files { stem: "sign" })
        .unwrap();
    let gltf = dir.join("sign.gltf");
    std::fs::write(&gltf, &files.json).unwrap();
    let mut png = None;
    for (name, bytes) in &files.files {
        std::fs::write(dir.join(name), bytes).unwrap();
        if name.ends_with(".png") {
            png = Some(dir.join(name));
        }
    }
    (gltf, png.expect("the image is a file of its own"))
}

fn scene_with_sign(gltf: &Path) -> Scene {
    let mut scene = Scene::new();
    scene
        .spawn_model(None, "sign", Transform::IDENTITY, gltf)
        .unwrap();
    add_sun(&mut scene, Quat::IDENTITY, 3.0);
    scene.propagate();
    scene
}

fn draw(ctx: &GpuContext, renderer: &mut Renderer, scene: &Scene) -> RgbaImage {
    let camera = Camera {
        position: Vec3::new(0.0, 0.0, 5.0),
        target: Vec3::ZERO,
        ..Camera::default()
    };
    let mut buffers = Extractor::default();
    let frame = buffers.extract(scene, 1.0, camera, &Overlays::default());
    renderer.render_to_image(ctx, &frame, 64, 64).unwrap()
}

fn centre(image: &RgbaImage) -> [u8; 4] {
    image.get_pixel(32, 32).0
}

/// Waits (up to 10 s) until the watcher reports `file`; returns all it reported.
fn wait_for(watcher: &mut FileWatcher, file: &Path) -> Vec<PathBuf> {
    watcher
        .wait_for(file, Duration::from_secs(10))
        .unwrap_or_else(|| panic!("the watcher never reported {}", file.display()))
}

#[test]
fn a_texture_rewritten_on_disk_shows_in_the_next_frame() {
    let Some(ctx) = gpu_or_skip() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (gltf, png) = write_sign(dir.path(), [230, 20, 20]);
    let mut scene = scene_with_sign(&gltf);
    let mut watcher = FileWatcher::new().unwrap();
    watcher.watch_scene(&scene, None);
    let mut renderer = Renderer::new(&ctx, wgpu::TextureFormat::Rgba8UnormSrgb);
    let [r, g, b, _] = centre(&draw(&ctx, &mut renderer, &scene));
    assert!(r > 2 * b.max(g) && r > 60, "red at first: {r} {g} {b}");

    // The mesh of the import drawn now, to see it let go of below.
    let old_mesh = scene
        .nodes()
        .find_map(|n| match scene.get::<MeshRenderer>(n)?.mesh {
            MeshRef::Asset(handle) => Some(handle),
            MeshRef::Primitive(_) => None,
        })
        .expect("the sign draws an imported mesh");
    // Another program repaints the image.
    let blue = dir.path().join("blue");
    std::fs::create_dir(&blue).unwrap();
    let (_, blue_png) = write_sign(&blue, [20, 20, 230]);
    let written = Instant::now();
    std::fs::copy(&blue_png, &png).unwrap();
    let changed = wait_for(&mut watcher, &png);
    let reloaded = reload_assets(&changed, &mut scene);
    assert!(reloaded.errors.is_empty(), "{:?}", reloaded.errors);
    assert_eq!(reloaded.instances, 1, "the sign's model was imported again");
    // The scene's store holds this test's imports only: exactly the old one goes.
    assert_eq!(reloaded.released.models, 1, "the old import is let go of");
    assert!(
        scene.assets().registry().mesh(old_mesh).is_none(),
        "the old import's mesh is released"
    );
    assert_eq!(reloaded.released.meshes, 1);
    assert_eq!(reloaded.released.textures, 1);
    assert!(reloaded.released.bytes > 0);
    let [r, g, b, _] = centre(&draw(&ctx, &mut renderer, &scene));
    assert_eq!(
        renderer.uploaded_assets(),
        (1, 1),
        "the GPU holds the new mesh and texture only"
    );
    eprintln!(
        "texture: {} ms from the file write to new pixels (debounce {} ms)",
        written.elapsed().as_millis(),
        keel_engine::reload::DEBOUNCE.as_millis()
    );
    assert!(
        b > 2 * r.max(g) && b > 60,
        "blue after the reload: {r} {g} {b}"
    );
}

/// A quad facing the camera, coloured by `m.mtl`.
const QUAD_OBJ: &str = "mtllib m.mtl\nv -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nvn 0 0 1\nusemtl paint\nf 1//1 2//1 3//1 4//1\n";

fn paint(rgb: [f32; 3]) -> String {
    format!("newmtl paint\nKd {} {} {}\n", rgb[0], rgb[1], rgb[2])
}

#[test]
fn an_obj_material_library_edited_on_disk_recolours_the_model() {
    let Some(ctx) = gpu_or_skip() else { return };
    let dir = tempfile::tempdir().unwrap();
    let obj = dir.path().join("quad.obj");
    let mtl = dir.path().join("m.mtl");
    std::fs::write(&obj, QUAD_OBJ).unwrap();
    std::fs::write(&mtl, paint([0.9, 0.05, 0.05])).unwrap();
    let mut scene = scene_with_sign(&obj);
    let mut watcher = FileWatcher::new().unwrap();
    watcher.watch_scene(&scene, None);
    let mut renderer = Renderer::new(&ctx, wgpu::TextureFormat::Rgba8UnormSrgb);
    let [r, g, b, _] = centre(&draw(&ctx, &mut renderer, &scene));
    assert!(r > 2 * b.max(g) && r > 60, "red at first: {r} {g} {b}");

    // Another program saves the library with another colour (written aside
    // and renamed, as editors save).
    let aside = dir.path().join("m.mtl.tmp");
    std::fs::write(&aside, paint([0.05, 0.05, 0.9])).unwrap();
    std::fs::rename(&aside, &mtl).unwrap();
    let changed = wait_for(&mut watcher, &mtl);
    let reloaded = reload_assets(&changed, &mut scene);
    assert!(reloaded.errors.is_empty(), "{:?}", reloaded.errors);
    assert_eq!(reloaded.instances, 1, "the quad's model was imported again");
    let [r, g, b, _] = centre(&draw(&ctx, &mut renderer, &scene));
    assert!(
        b > 2 * r.max(g) && b > 60,
        "blue after the reload: {r} {g} {b}"
    );

    // A broken library keeps the last good copy and names its line.
    std::fs::write(&mtl, "newmtl paint\nKd 0.1 blue 0.9\n").unwrap();
    let changed = wait_for(&mut watcher, &mtl);
    let reloaded = reload_assets(&changed, &mut scene);
    assert_eq!(reloaded.errors.len(), 1, "{:?}", reloaded.errors);
    assert!(
        reloaded.errors[0].contains("m.mtl: line 2"),
        "{:?}",
        reloaded.errors
    );
    let [r, g, b, _] = centre(&draw(&ctx, &mut renderer, &scene));
    assert!(b > 2 * r.max(g), "still blue: {r} {g} {b}");
}

#[test]
fn an_edited_shader_redraws_and_a_broken_one_keeps_the_last_good_pipeline() {
    let Some(ctx) = gpu_or_skip() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (gltf, _) = write_sign(dir.path(), [230, 20, 20]);
    let mut scene = scene_with_sign(&gltf);
    let mut renderer = Renderer::new(&ctx, wgpu::TextureFormat::Rgba8UnormSrgb);
    let before = draw(&ctx, &mut renderer, &scene);
    assert_ne!(centre(&before), [255, 0, 255, 255]);

    // A copy of the shader folder, watched as the viewer watches `shaders/`.
    let shader_dir = dir.path().join("shaders");
    std::fs::create_dir(&shader_dir).unwrap();
    let post = shader_dir.join("post.wgsl");
    let original = scene.assets().shaders().source(Shader::Post);
    std::fs::write(&post, original.as_bytes()).unwrap();
    let mut watcher = FileWatcher::new().unwrap();
    watcher.watch(&shader_dir, false).unwrap();
    let last = "return vec4<f32>(clamp(color, vec3<f32>(0.0), vec3<f32>(1.0)), 1.0);";
    assert!(
        original.contains(last),
        "the tonemapper ends as this test expects"
    );

    // Valid: every pixel magenta.
    let written = Instant::now();
    std::fs::write(
        &post,
        original.replace(last, "return vec4<f32>(1.0, 0.0, 1.0, 1.0);"),
    )
    .unwrap();
    let changed = wait_for(&mut watcher, &post);
    let reloaded = reload_assets(&changed, &mut scene);
    assert_eq!(reloaded.shaders, [Shader::Post], "{:?}", reloaded.errors);
    let magenta = draw(&ctx, &mut renderer, &scene);
    eprintln!(
        "shader: {} ms from the file write to new pixels (debounce {} ms)",
        written.elapsed().as_millis(),
        keel_engine::reload::DEBOUNCE.as_millis()
    );
    assert!(magenta.pixels().all(|p| p.0 == [255, 0, 255, 255]));

    // Broken: the error names the file and line; the last good one draws on.
    let line = original.lines().position(|l| l.contains(last)).unwrap() + 1;
    std::fs::write(
        &post,
        original.replace(last, "return vec4<f32>(1.0, 0.0, 1.0, 1.0) +;"),
    )
    .unwrap();
    let changed = wait_for(&mut watcher, &post);
    let reloaded = reload_assets(&changed, &mut scene);
    assert!(reloaded.shaders.is_empty());
    let error = reloaded.errors.join("\n");
    assert!(error.contains(&format!("post.wgsl:{line}:")), "{error}");
    let still = draw(&ctx, &mut renderer, &scene);
    assert!(
        still.pixels().all(|p| p.0 == [255, 0, 255, 255]),
        "the last good shader draws"
    );

    // The repository's shader back, and the frame as it was.
    let repo = shaders::source_dir().join("post.wgsl");
    assert_eq!(
        scene.assets().shaders().reload(&[repo]).unwrap(),
        [Shader::Post]
    );
    let again = draw(&ctx, &mut renderer, &scene);
    assert_eq!(centre(&again), centre(&before));
}

#[test]
fn an_edited_piece_reloads_every_shader_that_imports_it() {
    // The shader library alone: no GPU needed.
    let dir = tempfile::tempdir().unwrap();
    let shader_dir = dir.path().join("shaders");
    std::fs::create_dir(&shader_dir).unwrap();
    for entry in std::fs::read_dir(shaders::source_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "wgsl") {
            std::fs::copy(&path, shader_dir.join(path.file_name().unwrap())).unwrap();
        }
    }
    let mut watcher = FileWatcher::new().unwrap();
    watcher.watch(&shader_dir, false).unwrap();
    let mut scene = Scene::new();

    // Valid: the lights, imported by the frame block, reach its four shaders.
    let lights = shader_dir.join("lights.wgsl");
    let original = std::fs::read_to_string(&lights).unwrap();
    let marker = "const LIGHTS_EDITED: f32 = 1.0;";
    std::fs::write(&lights, format!("{original}{marker}\n")).unwrap();
    let changed = wait_for(&mut watcher, &lights);
    let reloaded = reload_assets(&changed, &mut scene);
    let mut swapped: Vec<&str> = reloaded.shaders.iter().map(|s| s.file_name()).collect();
    swapped.sort_unstable();
    assert_eq!(
        swapped,
        ["lines.wgsl", "mesh.wgsl", "particles.wgsl", "sky.wgsl"],
        "{:?}",
        reloaded.errors
    );
    assert!(
        scene
            .assets()
            .shaders()
            .source(Shader::Mesh)
            .contains(marker)
    );
    assert!(
        !scene
            .assets()
            .shaders()
            .source(Shader::Shadow)
            .contains(marker)
    );

    // Broken: the error names the piece and its own line; nothing is swapped.
    let broken = original.replace("spot: vec4<f32>,", "spot vec4<f32>,");
    let line = broken
        .lines()
        .position(|l| l.contains("spot vec4"))
        .unwrap()
        + 1;
    std::fs::write(&lights, broken).unwrap();
    let changed = wait_for(&mut watcher, &lights);
    let reloaded = reload_assets(&changed, &mut scene);
    assert!(reloaded.shaders.is_empty());
    let error = reloaded.errors.join("\n");
    assert!(error.contains(&format!("lights.wgsl:{line}:")), "{error}");
    assert!(
        scene
            .assets()
            .shaders()
            .source(Shader::Lines)
            .contains(marker),
        "the last good one stays"
    );

    // The repository's pieces back.
    let repo = shaders::source_dir().join("lights.wgsl");
    assert_eq!(scene.assets().shaders().reload(&[repo]).unwrap().len(), 4);
    assert!(
        !scene
            .assets()
            .shaders()
            .source(Shader::Mesh)
            .contains(marker)
    );
}
