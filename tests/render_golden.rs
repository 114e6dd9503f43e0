//! Rendering tests: golden images of the three passes, plus checks of culling,
//! batching, back-face culling, lighting direction and sRGB output that do not
//! depend on exact pixels. Without a GPU adapter they skip (see `common`).

mod common;

use common::{assert_matches_golden, gpu_or_skip};
use glam::{Affine3A, Quat, Vec3, Vec4};
use keel_engine::Material;
use keel_engine::Primitive;
use keel_engine::particles::ParticleInstance;
use keel_engine::render::{
    DirectionalLight, FrameData, MeshInstance, PointLight, RenderError, Spot, wgpu,
};
use keel_engine::{Camera, GpuContext, Renderer};

const GOLDEN_SIZE: u32 = 256;

fn renderer(ctx: &GpuContext) -> Renderer {
    Renderer::new(ctx, wgpu::TextureFormat::Rgba8UnormSrgb)
}

fn ground(size: f32, y: f32, grey: f32) -> MeshInstance {
    MeshInstance {
        cast_shadows: true,
        mesh: Primitive::Plane.into(),
        model: Affine3A::from_scale_rotation_translation(
            Vec3::new(size, 1.0, size),
            Quat::IDENTITY,
            Vec3::Y * y,
        ),
        material: Material::from_color(Vec4::new(grey, grey, grey, 1.0)),
    }
}

/// A saturated colour for `t` in 0..1 around the hue wheel (linear RGB).
fn hue(t: f32) -> Vec4 {
    let channel = |offset: f32| {
        let x = ((t + offset).fract() * 6.0 - 3.0).abs() - 1.0;
        keel_engine::math::powf(x.clamp(0.0, 1.0), 2.2)
    };
    Vec4::new(channel(0.0), channel(2.0 / 3.0), channel(1.0 / 3.0), 1.0)
}

#[test]
fn primitives_lighting() {
    let Some(ctx) = gpu_or_skip() else { return };
    let mut instances = vec![ground(12.0, -0.5, 0.45)];
    let row = [
        (Primitive::Cube, Quat::from_rotation_y(0.5)),
        (Primitive::Sphere, Quat::IDENTITY),
        // Tilted towards the camera so the flat square is seen, not its edge.
        (Primitive::Plane, Quat::from_rotation_x(0.9)),
        (Primitive::Cylinder, Quat::IDENTITY),
        (Primitive::Cone, Quat::IDENTITY),
    ];
    for (i, (mesh, rotation)) in row.into_iter().enumerate() {
        instances.push(MeshInstance {
            cast_shadows: true,
            mesh: mesh.into(),
            model: Affine3A::from_rotation_translation(
                rotation,
                Vec3::new(i as f32 * 1.5 - 3.0, 0.0, 0.0),
            ),
            material: Material::from_color(
                hue(i as f32 / 5.0) * 0.8 + Vec4::new(0.1, 0.1, 0.1, 0.2),
            ),
        });
    }
    let lights = [PointLight {
        position: Vec3::new(0.8, 1.2, 1.6),
        color: Vec3::new(1.0, 0.55, 0.2),
        intensity: 4.0,
        range: 6.0,
        spot: None,
        cast_shadows: false,
    }];
    let frame = FrameData {
        camera: Camera {
            position: Vec3::new(0.0, 3.0, 8.0),
            target: Vec3::new(0.0, 0.0, 0.0),
            fov_y: 50f32.to_radians(),
            ..Camera::default()
        },
        sun: DirectionalLight {
            direction: Vec3::new(-0.5, -1.0, -0.4),
            intensity: 0.9,
            ..DirectionalLight::default()
        },
        point_lights: &lights,
        instances: &instances,
        ..FrameData::default()
    };
    let mut renderer = renderer(&ctx);
    let image = renderer
        .render_to_image(&ctx, &frame, GOLDEN_SIZE, GOLDEN_SIZE)
        .expect("render primitives");
    let stats = renderer.stats();
    assert_eq!(stats.instances_drawn, 6, "{stats:?}");
    assert_eq!(
        stats.draw_calls, 5,
        "one draw per primitive kind: {stats:?}"
    );
    assert_matches_golden("primitives_lighting", &image);
}

#[test]
fn many_instances() {
    let Some(ctx) = gpu_or_skip() else { return };
    let mut instances = Vec::with_capacity(400);
    for z in 0..20 {
        for x in 0..20 {
            let height = 0.4 + ((x * 7 + z * 13) % 10) as f32 * 0.12;
            instances.push(MeshInstance {
                cast_shadows: true,
                mesh: Primitive::Cube.into(),
                model: Affine3A::from_scale_rotation_translation(
                    Vec3::new(0.8, height, 0.8),
                    Quat::IDENTITY,
                    Vec3::new(x as f32 - 9.5, height * 0.5, z as f32 - 9.5),
                ),
                material: Material::from_color(hue((x + z) as f32 / 40.0 + (z % 3) as f32 * 0.11)),
            });
        }
    }
    let frame = FrameData {
        camera: Camera {
            position: Vec3::new(16.0, 19.0, 21.0),
            target: Vec3::new(0.0, 0.0, 0.0),
            fov_y: 45f32.to_radians(),
            ..Camera::default()
        },
        instances: &instances,
        ..FrameData::default()
    };
    let mut renderer = renderer(&ctx);
    let image = renderer
        .render_to_image(&ctx, &frame, GOLDEN_SIZE, GOLDEN_SIZE)
        .expect("render cube grid");
    let stats = renderer.stats();
    assert_eq!(stats.instances_drawn + stats.instances_culled, 400);
    assert_eq!(
        stats.instances_drawn, 400,
        "the whole grid is in view: {stats:?}"
    );
    assert_eq!(
        stats.draw_calls, 1,
        "400 cubes batch into one draw: {stats:?}"
    );
    assert_matches_golden("many_instances", &image);
}

#[test]
fn particles() {
    let Some(ctx) = gpu_or_skip() else { return };
    let instances = [
        ground(8.0, 0.0, 0.08),
        // Hides the lower half of the left smoke puff: particles are depth tested.
        MeshInstance {
            cast_shadows: true,
            mesh: Primitive::Cube.into(),
            model: Affine3A::from_scale_rotation_translation(
                Vec3::new(1.2, 1.3, 0.4),
                Quat::IDENTITY,
                Vec3::new(-1.4, 0.65, 1.4),
            ),
            material: Material::from_color(Vec4::new(0.2, 0.3, 0.25, 1.0)),
        },
    ];
    let spark = |x: f32, y: f32, z: f32, size: f32, color: [f32; 4]| ParticleInstance {
        position: [x, y, z],
        size,
        color,
    };
    let additive = [
        spark(0.6, 1.0, 0.0, 1.6, [1.0, 0.45, 0.1, 1.0]),
        spark(1.1, 1.2, 0.2, 1.4, [1.0, 0.45, 0.1, 1.0]),
        spark(0.9, 1.7, 0.1, 0.8, [1.0, 0.9, 0.5, 1.0]),
        spark(1.6, 0.7, -0.3, 0.6, [0.4, 1.0, 0.3, 1.0]),
    ];
    let alpha = [
        spark(-1.4, 0.9, 0.6, 1.8, [0.55, 0.6, 0.8, 0.8]),
        spark(-1.0, 1.5, 0.2, 1.5, [0.25, 0.25, 0.3, 0.9]),
        spark(-0.3, 0.5, -1.0, 1.2, [0.9, 0.9, 0.95, 0.6]),
    ];
    let frame = FrameData {
        camera: Camera {
            position: Vec3::new(0.0, 3.2, 5.0),
            target: Vec3::new(0.0, 0.6, 0.0),
            fov_y: 55f32.to_radians(),
            ..Camera::default()
        },
        instances: &instances,
        additive: &additive,
        alpha: &alpha,
        ..FrameData::default()
    };
    let mut renderer = renderer(&ctx);
    let image = renderer
        .render_to_image(&ctx, &frame, GOLDEN_SIZE, GOLDEN_SIZE)
        .expect("render particles");
    let stats = renderer.stats();
    assert_eq!(stats.particles_drawn, 7, "{stats:?}");
    assert_eq!(
        stats.draw_calls,
        2 + 2,
        "two mesh kinds plus one draw per blend mode: {stats:?}"
    );
    assert_matches_golden("particles", &image);
}

#[test]
fn culled_instances_are_counted_and_not_drawn() {
    let Some(ctx) = gpu_or_skip() else { return };
    let camera = Camera::default();
    let behind = camera.position - camera.forward() * 4.0;
    let at = |mesh: Primitive, position| MeshInstance {
        cast_shadows: true,
        mesh: mesh.into(),
        model: Affine3A::from_translation(position),
        material: Material::from_color(Vec4::ONE),
    };
    let instances = [
        at(Primitive::Cube, Vec3::ZERO),
        at(Primitive::Sphere, Vec3::new(1.5, 0.0, 0.0)),
        at(Primitive::Cube, Vec3::new(-1.5, 0.0, 0.0)),
        // Behind the camera: the only cone and the only cylinder.
        at(Primitive::Cone, behind),
        at(Primitive::Cylinder, behind + Vec3::X),
        at(Primitive::Sphere, behind - Vec3::X),
        // Far past the far plane.
        at(
            Primitive::Plane,
            camera.position + camera.forward() * (camera.far * 2.0),
        ),
    ];
    let frame = FrameData {
        camera,
        instances: &instances,
        ..FrameData::default()
    };
    let mut renderer = renderer(&ctx);
    renderer
        .render_to_image(&ctx, &frame, 64, 64)
        .expect("render");
    let stats = renderer.stats();
    assert_eq!(stats.instances_drawn, 3, "{stats:?}");
    assert_eq!(stats.instances_culled, 4, "{stats:?}");
    assert_eq!(
        stats.draw_calls, 2,
        "visible kinds are cube and sphere: {stats:?}"
    );
}

#[test]
fn render_to_image_is_not_blank_and_clear_colour_is_srgb_encoded() {
    let Some(ctx) = gpu_or_skip() else { return };
    let mut renderer = renderer(&ctx);
    let clear = Vec4::new(0.2, 0.05, 0.5, 1.0);
    let empty = FrameData {
        clear_color: clear,
        ..FrameData::default()
    };
    let image = renderer
        .render_to_image(&ctx, &empty, 48, 32)
        .expect("render empty frame");
    assert_eq!(image.dimensions(), (48, 32));
    let encode = |linear: f32| {
        let srgb = if linear <= 0.003_130_8 {
            linear * 12.92
        } else {
            1.055 * keel_engine::math::powf(linear, 1.0 / 2.4) - 0.055
        };
        (srgb * 255.0).round() as i32
    };
    for pixel in image.pixels() {
        for (channel, linear) in [clear.x, clear.y, clear.z].into_iter().enumerate() {
            let got = i32::from(pixel[channel]);
            assert!(
                (got - encode(linear)).abs() <= 1,
                "channel {channel}: {got} vs {}",
                encode(linear)
            );
        }
    }

    let cube = [MeshInstance {
        model: Affine3A::from_rotation_y(0.6),
        material: Material::from_color(Vec4::new(0.9, 0.9, 0.9, 1.0)),
        ..MeshInstance::default()
    }];
    let frame = FrameData {
        instances: &cube,
        ..empty
    };
    let image = renderer
        .render_to_image(&ctx, &frame, 48, 32)
        .expect("render cube");
    let centre = image.get_pixel(24, 16);
    let corner = image.get_pixel(0, 0);
    assert_ne!(centre, corner, "the cube does not cover the centre");
    let distinct: std::collections::HashSet<[u8; 4]> = image.pixels().map(|p| p.0).collect();
    assert!(
        distinct.len() > 4,
        "only {} colours: the cube is not shaded",
        distinct.len()
    );
}

#[test]
fn back_faces_are_culled_and_light_comes_from_the_sun() {
    let Some(ctx) = gpu_or_skip() else { return };
    let mut renderer = renderer(&ctx);
    let brightness = |image: &keel_engine::render::image::RgbaImage, x: u32, y: u32| {
        let p = image.get_pixel(x, y);
        u32::from(p[0]) + u32::from(p[1]) + u32::from(p[2])
    };
    let floor = [MeshInstance {
        cast_shadows: true,
        mesh: Primitive::Plane.into(),
        model: Affine3A::from_scale(Vec3::splat(10.0)),
        material: Material::from_color(Vec4::ONE),
    }];
    let from = |y: f32| FrameData {
        camera: Camera {
            position: Vec3::new(0.0, y, 0.01),
            target: Vec3::ZERO,
            ..Camera::default()
        },
        instances: &floor,
        ..FrameData::default()
    };
    let above = renderer
        .render_to_image(&ctx, &from(3.0), 32, 32)
        .expect("render");
    let background = renderer
        .render_to_image(&ctx, &FrameData::default(), 32, 32)
        .expect("render");
    assert_ne!(
        above.get_pixel(16, 16),
        background.get_pixel(16, 16),
        "plane seen from above is missing"
    );
    let below = renderer
        .render_to_image(&ctx, &from(-3.0), 32, 32)
        .expect("render");
    assert_eq!(
        below.get_pixel(16, 16),
        background.get_pixel(16, 16),
        "plane seen from below was drawn"
    );

    let sphere = [MeshInstance {
        cast_shadows: true,
        mesh: Primitive::Sphere.into(),
        model: Affine3A::from_scale(Vec3::splat(2.0)),
        material: Material::from_color(Vec4::ONE),
    }];
    let lit_from_above = FrameData {
        camera: Camera {
            position: Vec3::new(0.0, 0.0, 3.0),
            target: Vec3::ZERO,
            ..Camera::default()
        },
        sun: DirectionalLight {
            direction: Vec3::NEG_Y,
            ..DirectionalLight::default()
        },
        instances: &sphere,
        ..FrameData::default()
    };
    let image = renderer
        .render_to_image(&ctx, &lit_from_above, 64, 64)
        .expect("render");
    let (top, bottom) = (brightness(&image, 32, 14), brightness(&image, 32, 50));
    assert!(
        top > bottom + 60,
        "top {top} should be far brighter than bottom {bottom}"
    );
}

/// A spot light straight down on a white floor, seen from above: full inside
/// its inner cone, dark beyond its outer cone, in between at the edge.
#[test]
fn a_spot_light_lights_its_cone_and_nothing_outside() {
    let Some(ctx) = gpu_or_skip() else { return };
    let floor = [MeshInstance {
        cast_shadows: false,
        mesh: Primitive::Plane.into(),
        model: Affine3A::from_scale(Vec3::splat(20.0)),
        material: Material::from_color(Vec4::ONE),
    }];
    let spot = [PointLight {
        position: Vec3::new(0.0, 4.0, 0.0),
        color: Vec3::ONE,
        intensity: 16.0,
        range: 20.0,
        spot: Some(Spot {
            direction: Vec3::NEG_Y,
            cos_inner: keel_engine::math::cos(20f32.to_radians()),
            cos_outer: keel_engine::math::cos(30f32.to_radians()),
        }),
        cast_shadows: false,
    }];
    let frame = FrameData {
        camera: Camera {
            position: Vec3::new(0.0, 10.0, 0.01),
            target: Vec3::ZERO,
            fov_y: 60f32.to_radians(),
            ..Camera::default()
        },
        ambient: Vec3::ZERO,
        sun: DirectionalLight {
            intensity: 0.0,
            ..DirectionalLight::default()
        },
        point_lights: &spot,
        instances: &floor,
        ..FrameData::default()
    };
    let image = renderer(&ctx)
        .render_to_image(&ctx, &frame, 64, 64)
        .expect("render");
    // 64 pixels span 2 * 10 * tan(30 deg) = 11.5 units: 5.5 pixels a unit.
    // The inner cone reaches 4 * tan(20 deg) = 1.46 units (8 pixels), the
    // outer 4 * tan(30 deg) = 2.31 units (12.7 pixels).
    let red = |dx: u32| image.get_pixel(32 + dx, 32)[0];
    assert!(red(0) > 200, "under the spot: {}", red(0));
    assert!(red(6) > 150, "inside the inner cone: {}", red(6));
    assert!(
        red(16) < 3 && red(25) < 3,
        "beyond the cone: {} {}",
        red(16),
        red(25)
    );
    assert!(
        red(10) < red(6) && red(10) > red(16),
        "the edge fades: {}",
        red(10)
    );
}

/// A normal map tilting every normal towards its +Y (up the image, glTF's
/// convention), on a floor whose texture's top lies towards -Z: the floor is
/// brighter under a sun from -Z than under the same sun from +Z, and equal
/// under both without the map.
#[test]
fn a_normal_map_tilts_the_surface_the_way_gltf_says() {
    use keel_engine::assets::{MaterialMaps, TextureData};
    let assets = keel_engine::Assets::new();
    let Some(ctx) = gpu_or_skip() else { return };
    let tilted = assets.add_texture(TextureData {
        name: "tilted normals".into(),
        width: 1,
        height: 1,
        mips: vec![vec![128, 220, 200, 255]],
        srgb: false,
    });
    let maps = assets.add_maps(MaterialMaps {
        normal: Some(tilted),
        ..MaterialMaps::default()
    });
    let floor = |maps| {
        [MeshInstance {
            cast_shadows: false,
            mesh: Primitive::Plane.into(),
            model: Affine3A::from_scale(Vec3::splat(10.0)),
            material: Material {
                maps,
                roughness: 1.0,
                ..Material::from_color(Vec4::splat(0.6))
            },
        }]
    };
    let mut renderer = renderer(&ctx);
    let mut brightness = |maps, sun_z: f32| {
        let instances = floor(maps);
        let frame = FrameData {
            camera: Camera {
                position: Vec3::new(0.0, 5.0, 0.0),
                target: Vec3::ZERO,
                up: Vec3::NEG_Z,
                ..Camera::default()
            },
            ambient: Vec3::ZERO,
            sun: DirectionalLight {
                // Shining down and along +Z comes from -Z.
                direction: Vec3::new(0.0, -1.0, -sun_z),
                ..DirectionalLight::default()
            },
            instances: &instances,
            assets: Some(&assets),
            ..FrameData::default()
        };
        let image = renderer
            .render_to_image(&ctx, &frame, 16, 16)
            .expect("render");
        image.get_pixel(8, 8)[0]
    };
    let (from_minus_z, from_plus_z) = (brightness(Some(maps), -1.0), brightness(Some(maps), 1.0));
    assert!(
        from_minus_z > from_plus_z + 20,
        "the normals lean towards -Z: lit {from_minus_z} from -Z, {from_plus_z} from +Z"
    );
    let (a, b) = (brightness(None, -1.0), brightness(None, 1.0));
    assert!(
        a.abs_diff(b) <= 2,
        "without the map both sides light it alike: {a} {b}"
    );
}

/// Red and green of a row of pixels.
type Row = Vec<[u8; 2]>;

/// A floor seen from above (+X to the right) textured with one black and one
/// white texel (u left to right), drawn with each way a material can read its
/// texture: the second coordinate set, an offset repeating or clamped, nearest
/// or linear magnification, and a red vertex colour. Returns the red and green
/// of the centre row, 16 pixels wide.
fn texture_slot_rows() -> Option<Vec<(&'static str, Row)>> {
    use keel_engine::assets::{
        MaterialMaps, MeshData, MeshVertex, Slot, TextureData, TextureFilter, TextureSlot,
        UvTransform, Wrap,
    };
    let ctx = gpu_or_skip()?;
    let assets = keel_engine::Assets::new();
    let texture = assets.add_texture(TextureData {
        name: "black | white".into(),
        width: 2,
        height: 1,
        mips: vec![vec![0, 0, 0, 255, 255, 255, 255, 255]],
        srgb: true,
    });
    let floor = |color: [u16; 4]| {
        let corners = [(-3.0, 3.0), (3.0, 3.0), (3.0, -3.0), (-3.0, -3.0)];
        let vertices = corners
            .map(|(x, z): (f32, f32)| {
                let uv = [(x + 3.0) / 6.0, (z + 3.0) / 6.0];
                MeshVertex {
                    // The second set runs the other way along u.
                    uv1: [1.0 - uv[0], uv[1]],
                    color,
                    ..MeshVertex::new([x, 0.0, z], [0.0, 1.0, 0.0], uv)
                }
            })
            .to_vec();
        assets.add_mesh(
            "floor",
            MeshData {
                vertices,
                indices: vec![0, 1, 2, 0, 2, 3],
                ..MeshData::default()
            },
        )
    };
    let (white_floor, red_floor) = (floor([u16::MAX; 4]), floor([u16::MAX, 0, 0, u16::MAX]));
    let nearest = TextureSlot {
        sampling: keel_engine::assets::Sampling {
            mag: TextureFilter::Nearest,
            ..Default::default()
        },
        ..TextureSlot::default()
    };
    let shifted = |wrap| TextureSlot {
        sampling: keel_engine::assets::Sampling {
            wrap_u: wrap,
            ..nearest.sampling
        },
        transform: UvTransform {
            offset: glam::Vec2::new(0.5, 0.0),
            ..UvTransform::default()
        },
        ..nearest
    };
    let cases = [
        ("plain", nearest, white_floor),
        (
            "second set",
            TextureSlot {
                tex_coord: 1,
                ..nearest
            },
            white_floor,
        ),
        ("offset, repeating", shifted(Wrap::Repeat), white_floor),
        ("offset, clamped", shifted(Wrap::ClampToEdge), white_floor),
        ("linear", TextureSlot::default(), white_floor),
        ("red vertices", nearest, red_floor),
    ];
    let mut renderer = renderer(&ctx);
    let mut rows = Vec::new();
    for (name, slot, mesh) in cases {
        let mut slots = [TextureSlot::default(); 5];
        slots[Slot::BaseColor as usize] = slot;
        let maps = assets.add_maps(MaterialMaps {
            slots,
            ..MaterialMaps::default()
        });
        let instances = [MeshInstance {
            cast_shadows: false,
            mesh: keel_engine::MeshRef::Asset(mesh),
            model: Affine3A::IDENTITY,
            material: Material {
                texture: Some(texture),
                maps: Some(maps),
                roughness: 1.0,
                ..Material::from_color(Vec4::ONE)
            },
        }];
        let frame = FrameData {
            camera: Camera {
                position: Vec3::new(0.0, 5.0, 0.0),
                target: Vec3::ZERO,
                up: Vec3::NEG_Z,
                ..Camera::default()
            },
            ambient: Vec3::ZERO,
            sun: DirectionalLight {
                direction: Vec3::NEG_Y,
                ..DirectionalLight::default()
            },
            instances: &instances,
            assets: Some(&assets),
            ..FrameData::default()
        };
        let image = renderer
            .render_to_image(&ctx, &frame, 16, 16)
            .expect("render");
        rows.push((
            name,
            (0..16)
                .map(|x| {
                    let p = image.get_pixel(x, 8);
                    [p[0], p[1]]
                })
                .collect(),
        ));
    }
    Some(rows)
}

#[test]
fn materials_read_textures_through_their_set_transform_sampler_and_vertex_colours() {
    let Some(rows) = texture_slot_rows() else {
        return;
    };
    let row = |name: &str| &rows.iter().find(|(n, _)| *n == name).expect("rendered").1;
    // Black still reflects a little of the sun (a dielectric's 4%).
    let (dark, bright) = (|p: [u8; 2]| p[0] < 60, |p: [u8; 2]| p[0] > 150);
    let halves = |name: &str| (row(name)[3], row(name)[12]);
    // (case, left bright, right bright, why)
    let expected = [
        ("plain", false, true, "black left, white right"),
        ("second set", true, false, "TEXCOORD_1 runs the other way"),
        (
            "offset, repeating",
            true,
            false,
            "shifted half a texture, wrapped",
        ),
        (
            "offset, clamped",
            true,
            true,
            "shifted and clamped to the white edge",
        ),
    ];
    for (name, left_bright, right_bright, why) in expected {
        let (left, right) = halves(name);
        let looks = |p, lit| if lit { bright(p) } else { dark(p) };
        assert!(
            looks(left, left_bright) && looks(right, right_bright),
            "{name}: {why}: {:?}",
            row(name)
        );
    }
    // Just left of the middle: nearest is the black texel, linear a blend.
    let (nearest, linear) = (row("plain")[7][0], row("linear")[7][0]);
    assert!(
        linear > nearest + 40,
        "linear {linear} vs nearest {nearest} just left of the middle"
    );
    let (_, red) = halves("red vertices");
    assert!(
        bright(red) && red[1] < 60,
        "the vertex colour tints the texture: {:?}",
        row("red vertices")
    );
}

#[test]
fn zero_sized_images_are_rejected() {
    let Some(ctx) = gpu_or_skip() else { return };
    let mut renderer = renderer(&ctx);
    let error = renderer
        .render_to_image(&ctx, &FrameData::default(), 0, 16)
        .expect_err("a zero-width image");
    assert!(
        matches!(
            error,
            RenderError::InvalidSize {
                width: 0,
                height: 16,
                ..
            }
        ),
        "{error}"
    );
}
