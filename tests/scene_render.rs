//! The scene drawn through extraction: a hierarchy golden image (the ship at
//! a fixed fixed-step count, every level moved by its own behaviour), and the
//! interpolation check that a node moving at constant speed is drawn halfway
//! between its fixed-step positions at alpha 0.5.

mod common;

use common::{add_sun, assert_matches_golden, gpu_or_skip};
use glam::{Quat, Vec3};
use keel_engine::Primitive;
use keel_engine::World;
use keel_engine::render::wgpu;
use keel_engine::{Camera, Renderer};
use keel_engine::{Extractor, Overlays};
use keel_engine::{
    Light, LightKind, Material, MeshRenderer, NodeId, Oscillate, Scene, Spin, Transform,
};

fn part(scene: &mut Scene, parent: NodeId, mesh: Primitive, at: Vec3, scale: Vec3, rgb: [f32; 3]) {
    let id = scene
        .spawn(
            Some(parent),
            "part",
            Transform::from_translation(at).with_scale(scale),
        )
        .unwrap();
    let material = Material::rgb(rgb[0], rgb[1], rgb[2]);
    scene
        .insert(
            id,
            MeshRenderer {
                cast_shadows: true,
                mesh: mesh.into(),
                material,
            },
        )
        .unwrap();
}

/// A sun at (yaw, pitch) and a square sea plane of side `size` under it.
fn sun_and_sea(scene: &mut Scene, (yaw, pitch): (f32, f32), size: f32, material: Material) {
    let rotation = Quat::from_euler(glam::EulerRot::YXZ, yaw, pitch, 0.0);
    add_sun(scene, rotation, 2.5);
    let sea = scene
        .spawn(
            None,
            "sea",
            Transform::IDENTITY.with_scale(Vec3::new(size, 1.0, size)),
        )
        .unwrap();
    let mesh = Primitive::Plane.into();
    scene
        .insert(sea, MeshRenderer::new(mesh, material))
        .unwrap();
}

/// Ship > mast > arm > lamp, each level animated, over a plane.
fn hierarchy_scene() -> Scene {
    let mut scene = Scene::new();
    sun_and_sea(
        &mut scene,
        (0.5, -0.9),
        20.0,
        Material::rgb(0.02, 0.12, 0.2),
    );
    let ship = scene
        .spawn(None, "ship", Transform::from_translation(Vec3::Y * 0.5))
        .unwrap();
    scene
        .insert(ship, Oscillate::new(Vec3::Z, 0.2, 0.25, 0.0).rocking())
        .unwrap();
    part(
        &mut scene,
        ship,
        Primitive::Cube,
        Vec3::ZERO,
        Vec3::new(1.6, 0.8, 4.0),
        [0.3, 0.12, 0.04],
    );
    let mast = scene
        .spawn(
            Some(ship),
            "mast",
            Transform::from_translation(Vec3::Y * 0.4),
        )
        .unwrap();
    scene
        .insert(
            mast,
            Spin {
                axis: Vec3::Y,
                rate: 0.8,
            },
        )
        .unwrap();
    part(
        &mut scene,
        mast,
        Primitive::Cylinder,
        Vec3::Y * 1.5,
        Vec3::new(0.2, 3.0, 0.2),
        [0.15, 0.07, 0.02],
    );
    let arm = scene
        .spawn(
            Some(mast),
            "arm",
            Transform::from_translation(Vec3::Y * 2.6),
        )
        .unwrap();
    scene
        .insert(arm, Oscillate::new(Vec3::X, 0.6, 0.5, 0.0))
        .unwrap();
    part(
        &mut scene,
        arm,
        Primitive::Cube,
        Vec3::ZERO,
        Vec3::new(2.0, 0.15, 0.15),
        [0.6, 0.6, 0.6],
    );
    let lamp = scene
        .spawn(Some(arm), "lamp", Transform::from_translation(Vec3::X))
        .unwrap();
    scene
        .insert(
            lamp,
            Spin {
                axis: Vec3::X,
                rate: 2.0,
            },
        )
        .unwrap();
    part(
        &mut scene,
        lamp,
        Primitive::Cone,
        Vec3::ZERO,
        Vec3::splat(0.5),
        [0.9, 0.6, 0.1],
    );
    part(
        &mut scene,
        lamp,
        Primitive::Sphere,
        Vec3::Y * 0.4,
        Vec3::splat(0.3),
        [0.8, 0.1, 0.1],
    );
    scene
}

fn camera() -> Camera {
    Camera {
        position: Vec3::new(6.0, 5.0, 7.0),
        target: Vec3::new(0.0, 1.5, 0.0),
        ..Camera::default()
    }
}

#[test]
fn hierarchy() {
    let Some(ctx) = gpu_or_skip() else { return };
    let mut world = World::new(hierarchy_scene());
    for _ in 0..45 {
        world.step();
    }
    let mut renderer = Renderer::new(&ctx, wgpu::TextureFormat::Rgba8UnormSrgb);
    let mut buffers = Extractor::default();
    let frame = buffers.extract(world.scene(), 1.0, camera(), &Overlays::default());
    let image = renderer.render_to_image(&ctx, &frame, 256, 256).unwrap();
    assert_eq!(
        renderer.stats().instances_drawn,
        6,
        "sea, hull, mast, arm, cone and sphere: nothing culled"
    );
    assert_matches_golden("hierarchy", &image);
}

#[test]
fn a_node_moving_at_constant_speed_is_drawn_halfway_at_alpha_half() {
    let Some(ctx) = gpu_or_skip() else { return };
    let mut scene = Scene::new();
    let sun = scene
        .spawn(
            None,
            "sun",
            Transform::IDENTITY.with_rotation(Quat::from_rotation_x(-1.2)),
        )
        .unwrap();
    scene
        .insert(
            sun,
            Light {
                kind: LightKind::Directional,
                color: Vec3::ONE,
                intensity: 3.0,
                cast_shadows: false,
            },
        )
        .unwrap();
    let cube = scene
        .spawn(
            None,
            "cube",
            Transform::from_translation(Vec3::new(-2.0, 0.0, 0.0)),
        )
        .unwrap();
    scene
        .insert(
            cube,
            MeshRenderer {
                cast_shadows: true,
                mesh: Primitive::Cube.into(),
                material: Material::rgb(1.0, 1.0, 1.0),
            },
        )
        .unwrap();
    scene.environment_mut().clear_color = Vec3::ZERO;
    let mut world = World::new(scene);
    world
        .systems_mut()
        .add("slide", move |scene, _, ctx| {
            let mut t = scene.local(cube).unwrap();
            t.translation.x += 60.0 * ctx.dt; // one unit per 1/60 s step
            scene.set_local(cube, t).unwrap();
        })
        .expect("a system of a new name");
    world.step();
    world.step();
    let view = Camera {
        position: Vec3::new(0.0, 0.0, 10.0),
        target: Vec3::ZERO,
        ..Camera::default()
    };
    let mut renderer = Renderer::new(&ctx, wgpu::TextureFormat::Rgba8UnormSrgb);
    let mut buffers = Extractor::default();
    // Centre of mass of the lit pixels, in columns, at three alphas.
    let mut centre = |alpha: f32| {
        let frame = buffers.extract(world.scene(), alpha, view, &Overlays::default());
        let image = renderer.render_to_image(&ctx, &frame, 200, 100).unwrap();
        let (mut sum, mut count) = (0.0f64, 0.0f64);
        for (x, _, pixel) in image.enumerate_pixels() {
            if pixel.0[0] > 40 {
                sum += f64::from(x);
                count += 1.0;
            }
        }
        assert!(count > 50.0, "the cube must be visible at alpha {alpha}");
        sum / count
    };
    let (start, half, end) = (centre(0.0), centre(0.5), centre(1.0));
    assert!(
        end > start + 5.0,
        "the cube moved right on screen: {start} -> {end}"
    );
    let midpoint = (start + end) / 2.0;
    assert!(
        (half - midpoint).abs() < 1.0,
        "drawn at column {half}, halfway is {midpoint}"
    );
}

/// Emitters on scene nodes, simulated for a fixed number of steps from fixed
/// seeds, drawn through extraction: deterministic, so a golden image holds.
#[test]
fn particles_from_emitters() {
    use keel_engine::Emitter;
    use keel_engine::particles::{BlendMode, ColorStop, FloatRange, SizeStop};
    let Some(ctx) = gpu_or_skip() else { return };
    let mut scene = Scene::new();
    let ground = scene
        .spawn(
            None,
            "ground",
            Transform::IDENTITY.with_scale(Vec3::new(8.0, 1.0, 8.0)),
        )
        .unwrap();
    scene
        .insert(
            ground,
            MeshRenderer {
                cast_shadows: true,
                mesh: Primitive::Plane.into(),
                material: Material::rgb(0.1, 0.1, 0.12),
            },
        )
        .unwrap();
    let fountain = |blend, color: [f32; 4], seed| Emitter {
        rate: 80.0,
        lifetime: FloatRange::new(0.8, 1.2),
        speed: FloatRange::new(3.0, 4.0),
        cone_angle: 15.0,
        color_over_life: vec![
            ColorStop { t: 0.0, color },
            ColorStop {
                t: 1.0,
                color: [color[0], color[1], color[2], 0.0],
            },
        ],
        size_over_life: vec![
            SizeStop { t: 0.0, size: 0.15 },
            SizeStop { t: 1.0, size: 0.3 },
        ],
        blend,
        seed,
        ..Emitter::default()
    };
    let left = scene
        .spawn(
            None,
            "sparks",
            Transform::from_translation(Vec3::new(-1.2, 0.0, 0.0)),
        )
        .unwrap();
    scene
        .insert(left, fountain(BlendMode::Additive, [1.0, 0.5, 0.1, 1.0], 7))
        .unwrap();
    let right = scene
        .spawn(
            None,
            "smoke",
            Transform::from_translation(Vec3::new(1.2, 0.0, 0.0)),
        )
        .unwrap();
    scene
        .insert(right, fountain(BlendMode::Alpha, [0.6, 0.7, 0.9, 0.8], 11))
        .unwrap();
    scene.environment_mut().clear_color = Vec3::splat(0.02);
    let mut world = World::new(scene);
    for _ in 0..40 {
        world.step();
    }
    let mut renderer = Renderer::new(&ctx, wgpu::TextureFormat::Rgba8UnormSrgb);
    let mut buffers = Extractor::default();
    let view = Camera {
        position: Vec3::new(0.0, 2.0, 6.0),
        target: Vec3::new(0.0, 1.2, 0.0),
        ..Camera::default()
    };
    let frame = buffers.extract_world(&mut world, view, 1.0, &Overlays::default());
    assert!(
        !frame.additive.is_empty() && !frame.alpha.is_empty(),
        "both blend modes present"
    );
    let image = renderer.render_to_image(&ctx, &frame, 256, 256).unwrap();
    assert!(renderer.stats().particles_drawn > 100);
    assert_matches_golden("particles_from_emitters", &image);
}

/// The repository's own glTF model, textured and mip-mapped, through the whole
/// path: import, instancing as a subtree, registry upload, batching, sampling.
#[test]
fn the_imported_lighthouse_renders_textured() {
    let Some(ctx) = gpu_or_skip() else { return };
    let model =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/models/lighthouse.glb");
    let mut scene = Scene::new();
    sun_and_sea(
        &mut scene,
        (0.6, -0.7),
        40.0,
        Material::rgb(0.05, 0.2, 0.35),
    );
    let (lighthouse, warnings) = scene
        .spawn_model(None, "lighthouse", Transform::IDENTITY, &model)
        .expect("the bundled model imports");
    assert!(warnings.is_empty(), "{warnings:?}");
    scene.environment_mut().clear_color = Vec3::new(0.5, 0.65, 0.8);
    let world = World::new(scene);
    let parts_with_meshes = world
        .scene()
        .subtree(lighthouse)
        .filter(|&n| world.scene().get::<MeshRenderer>(n).is_some())
        .count();
    let view = Camera {
        position: Vec3::new(7.0, 5.0, 9.0),
        target: Vec3::new(0.0, 3.2, 0.0),
        ..Camera::default()
    };
    let mut renderer = Renderer::new(&ctx, wgpu::TextureFormat::Rgba8UnormSrgb);
    let mut buffers = Extractor::default();
    let frame = buffers.extract(world.scene(), 1.0, view, &Overlays::default());
    let image = renderer.render_to_image(&ctx, &frame, 256, 256).unwrap();
    assert_eq!(renderer.stats().instances_drawn, parts_with_meshes + 1);
    // The tower's stripes: both strong red and near-white pixels on screen.
    let (mut red, mut white) = (0, 0);
    for pixel in image.pixels() {
        let [r, g, b, _] = pixel.0;
        red += usize::from(r > 150 && g < 80 && b < 80);
        white += usize::from(r > 200 && g > 200 && b > 200);
    }
    assert!(red > 100 && white > 100, "red {red}, white {white} pixels");
    assert_matches_golden("lighthouse_model", &image);
}
