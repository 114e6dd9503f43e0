//! The sun's cascaded shadows through the whole path: extraction culls each
//! cascade's casters through the octree, the renderer draws the maps and the
//! mesh shader samples them. A golden of a row of poles seen from a low camera
//! (the shadows cross all three cascades: no seam may show where they meet),
//! and the checks that shadows only ever take light away, that a caster out of
//! the camera's view still casts into it, and that a mesh told not to cast
//! does not.

mod common;

use common::{add_sun, assert_matches_golden, gpu_or_skip};
use glam::{Quat, Vec3};
use keel_engine::Primitive;
use keel_engine::World;
use keel_engine::render::image::RgbaImage;
use keel_engine::render::wgpu;
use keel_engine::{Camera, GpuContext, Renderer};
use keel_engine::{Extractor, Overlays};
use keel_engine::{Material, MeshRenderer, Scene, Transform};

/// A sun shining along `direction` and a grey ground plane of side `size` that
/// receives shadows but casts none.
fn sun_and_ground(scene: &mut Scene, direction: Vec3, size: f32) {
    let rotation = Quat::from_rotation_arc(Vec3::NEG_Z, direction.normalize());
    add_sun(scene, rotation, 1.6);
    let ground = scene
        .spawn(
            None,
            "ground",
            Transform::IDENTITY.with_scale(Vec3::new(size, 1.0, size)),
        )
        .unwrap();
    let matte = Material {
        roughness: 1.0,
        ..Material::rgb(0.3, 0.3, 0.3)
    };
    let mut mesh = MeshRenderer::new(Primitive::Plane.into(), matte);
    mesh.cast_shadows = false;
    scene.insert(ground, mesh).unwrap();
    scene.environment_mut().clear_color = Vec3::new(0.45, 0.6, 0.8);
}

fn render(ctx: &GpuContext, world: &mut World, camera: Camera, size: (u32, u32)) -> RgbaImage {
    let mut renderer = Renderer::new(ctx, wgpu::TextureFormat::Rgba8UnormSrgb);
    let mut buffers = Extractor::default();
    let aspect = size.0 as f32 / size.1 as f32;
    let frame = buffers.extract_world(world, camera, aspect, &Overlays::default());
    renderer
        .render_to_image(ctx, &frame, size.0, size.1)
        .expect("renders")
}

fn luma(image: &RgbaImage, x: u32, y: u32) -> f32 {
    let [r, g, b, _] = image.get_pixel(x, y).0;
    0.2126 * f32::from(r) + 0.7152 * f32::from(g) + 0.0722 * f32::from(b)
}

fn poles() -> World {
    let mut scene = Scene::new();
    sun_and_ground(&mut scene, Vec3::new(-1.0, -0.6, 0.8), 200.0);
    for i in 0..14 {
        let z = 4.0 - i as f32 * 5.0;
        let pole = scene
            .spawn(
                None,
                "pole",
                Transform::from_translation(Vec3::new(1.5, 2.0, z))
                    .with_scale(Vec3::new(0.35, 4.0, 0.35)),
            )
            .unwrap();
        let color = Material::rgb(0.8, 0.35, 0.2);
        scene
            .insert(pole, MeshRenderer::new(Primitive::Cylinder.into(), color))
            .unwrap();
    }
    World::new(scene)
}

fn low_camera() -> Camera {
    Camera {
        position: Vec3::new(-1.5, 1.6, 9.0),
        target: Vec3::new(1.0, 0.6, -20.0),
        ..Camera::default()
    }
}

#[test]
fn poles_cast_shadows_across_the_cascades() {
    let Some(ctx) = gpu_or_skip() else { return };
    let size = (384, 256);
    let mut world = poles();
    let shadowed = render(&ctx, &mut world, low_camera(), size);
    world.scene_mut().environment_mut().shadows.enabled = false;
    let unshadowed = render(&ctx, &mut world, low_camera(), size);

    // Shadows only take light away, and they take a lot of it somewhere on
    // the ground in each third of the view's depth (the cascades).
    let mut darker_rows = [0usize; 3];
    for y in 0..size.1 {
        for x in 0..size.0 {
            let (lit, shaded) = (luma(&unshadowed, x, y), luma(&shadowed, x, y));
            assert!(
                shaded <= lit + 3.0,
                "pixel ({x}, {y}) got brighter with shadows: {lit} -> {shaded}"
            );
            if shaded < lit - 25.0 {
                // The ground below the horizon, near (bottom) to far (top).
                let band = match y {
                    y if y >= 200 => 0,
                    y if y >= 150 => 1,
                    _ => 2,
                };
                darker_rows[band] += 1;
            }
        }
    }
    assert!(
        darker_rows.iter().all(|&n| n > 40),
        "shadowed pixels per depth band, near to far: {darker_rows:?}"
    );
    assert_matches_golden("shadow_poles", &shadowed);
}

/// A camera straight above the origin, looking down with a narrow view, and
/// a wall up-sun of the origin, well outside that view.
fn wall_out_of_view(casts: bool) -> (World, Camera) {
    let mut scene = Scene::new();
    let sun = Vec3::new(-1.0, -1.0, 0.0);
    sun_and_ground(&mut scene, sun, 60.0);
    let wall = scene
        .spawn(
            None,
            "wall",
            Transform::from_translation(-sun.normalize() * 8.5)
                .with_scale(Vec3::new(1.0, 1.0, 3.0)),
        )
        .unwrap();
    let mut mesh = MeshRenderer::new(Primitive::Cube.into(), Material::rgb(0.9, 0.9, 0.9));
    mesh.cast_shadows = casts;
    scene.insert(wall, mesh).unwrap();
    let camera = Camera {
        position: Vec3::new(0.0, 10.0, 0.01),
        target: Vec3::ZERO,
        fov_y: 30f32.to_radians(),
        ..Camera::default()
    };
    (World::new(scene), camera)
}

#[test]
fn a_caster_out_of_view_shades_what_is_in_view_unless_told_not_to() {
    let Some(ctx) = gpu_or_skip() else { return };
    let size = (64, 64);
    let (mut world, camera) = wall_out_of_view(true);
    // The octree's answer (the CPU-culled path packs what it finds).
    let mut buffers = Extractor::default();
    buffers.set_cpu_culling(true);
    let frame = buffers.extract_world(&mut world, camera, 1.0, &Overlays::default());
    assert_eq!(frame.packed.len(), 1, "only the ground is in view");
    assert!(
        frame.casters.iter().any(|casters| casters.len() == 1),
        "the wall is a caster of a cascade and the ground is none's"
    );
    let image = render(&ctx, &mut world, camera, size);
    let (centre, corner) = (luma(&image, 32, 32), luma(&image, 2, 2));
    assert!(
        centre < corner - 40.0,
        "the wall's shadow falls on the view's centre: centre {centre}, corner {corner}"
    );

    let (mut world, camera) = wall_out_of_view(false);
    let image = render(&ctx, &mut world, camera, size);
    let (centre, corner) = (luma(&image, 32, 32), luma(&image, 2, 2));
    assert!(
        (centre - corner).abs() < 6.0,
        "a wall that casts no shadow leaves the ground lit: centre {centre}, corner {corner}"
    );
}

/// No sun: a spot light up and to the -X side of the origin shining at it,
/// a cube between the spot and the ground point (1, 0, 0), and a second cube
/// far outside the cone; the camera looks straight down.
fn spot_over_cube(casts: bool) -> (World, Camera) {
    use keel_engine::{Light, LightKind};
    let mut scene = Scene::new();
    scene.environment_mut().ambient = Vec3::splat(0.02);
    let ground = scene
        .spawn(
            None,
            "ground",
            Transform::IDENTITY.with_scale(Vec3::new(30.0, 1.0, 30.0)),
        )
        .unwrap();
    let mut mesh = MeshRenderer::new(Primitive::Plane.into(), Material::rgb(0.5, 0.5, 0.5));
    mesh.cast_shadows = false;
    scene.insert(ground, mesh).unwrap();
    let light = Vec3::new(-3.0, 6.0, 0.0);
    let spot = scene
        .spawn(
            None,
            "spot",
            Transform {
                translation: light,
                rotation: Quat::from_rotation_arc(Vec3::NEG_Z, (-light).normalize()),
                scale: Vec3::ONE,
            },
        )
        .unwrap();
    scene
        .insert(
            spot,
            Light {
                kind: LightKind::Spot {
                    range: 20.0,
                    inner_degrees: 25.0,
                    outer_degrees: 35.0,
                },
                color: Vec3::ONE,
                intensity: 40.0,
                cast_shadows: casts,
            },
        )
        .unwrap();
    // On the segment from (1, 0, 0) to the light, a third of the way up.
    for (name, at) in [
        ("blocker", Vec3::new(-1.0 / 3.0, 2.0, 0.0)),
        ("far", Vec3::new(20.0, 0.5, 20.0)),
    ] {
        let cube = scene
            .spawn(None, name, Transform::from_translation(at))
            .unwrap();
        scene
            .insert(
                cube,
                MeshRenderer::new(Primitive::Cube.into(), Material::rgb(0.8, 0.8, 0.8)),
            )
            .unwrap();
    }
    let camera = Camera {
        position: Vec3::new(0.0, 12.0, 0.01),
        target: Vec3::ZERO,
        fov_y: 40f32.to_radians(),
        ..Camera::default()
    };
    (World::new(scene), camera)
}

#[test]
fn a_spot_light_casts_shadows_of_what_its_cone_holds() {
    use keel_engine::scene::MAX_CASCADES;
    let Some(ctx) = gpu_or_skip() else { return };
    let size = (96, 96);
    let pixel = |camera: &Camera, point: Vec3| {
        let ndc = camera.view_projection(1.0).project_point3(point);
        (
            ((ndc.x * 0.5 + 0.5) * size.0 as f32) as u32,
            ((0.5 - ndc.y * 0.5) * size.1 as f32) as u32,
        )
    };
    let (mut world, camera) = spot_over_cube(true);
    // The octree's answer (the CPU-culled path packs what it finds).
    let mut buffers = Extractor::default();
    buffers.set_cpu_culling(true);
    let frame = buffers.extract_world(&mut world, camera, 1.0, &Overlays::default());
    assert!(
        frame.casters[..MAX_CASCADES].iter().all(|c| c.is_empty()),
        "no sun, no cascade casters"
    );
    assert_eq!(
        frame.casters[MAX_CASCADES].len(),
        1,
        "the spot's view holds the blocker, not the cube outside its cone"
    );
    let image = render(&ctx, &mut world, camera, size);
    let (shadowed, lit) = (
        pixel(&camera, Vec3::X),
        pixel(&camera, Vec3::new(1.0, 0.0, 2.0)),
    );
    let (in_shadow, in_light) = (
        luma(&image, shadowed.0, shadowed.1),
        luma(&image, lit.0, lit.1),
    );
    assert!(
        in_shadow < in_light - 40.0,
        "the blocker shades (1, 0, 0): {in_shadow} there, {in_light} beside it"
    );

    let (mut world, camera) = spot_over_cube(false);
    let image = render(&ctx, &mut world, camera, size);
    let (unshadowed, in_light) = (
        luma(&image, shadowed.0, shadowed.1),
        luma(&image, lit.0, lit.1),
    );
    assert!(
        unshadowed > in_light - 15.0,
        "a spot told not to cast leaves (1, 0, 0) lit: {unshadowed}, beside it {in_light}"
    );
}
