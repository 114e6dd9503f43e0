//! The HDR path: ambient light from the sky, image-based (the sky/ground
//! hemisphere baked into an irradiance map and a GGX-prefiltered specular
//! map, checked against values computed by hand), and the finish: bloom
//! around bright emitters (a golden, and a halo that is there only with bloom
//! on), exposure in stops, and tonemappers that bring light above 1 back
//! under white instead of clipping it.

mod common;

use common::{assert_matches_golden, gpu_or_skip};
use glam::{Affine3A, Quat, Vec3, Vec4};
use keel_engine::Material;
use keel_engine::Primitive;
use keel_engine::render::image::RgbaImage;
use keel_engine::render::{DirectionalLight, FrameData, MeshInstance, wgpu};
use keel_engine::scene::{PostSettings, Tonemapper};
use keel_engine::{Camera, GpuContext, Renderer};

/// Three spheres glowing at 6 (red), 3 (green) and 1.5 (white) on black,
/// with no other light.
fn emitters() -> Vec<MeshInstance> {
    [
        (-2.2, Vec3::new(6.0, 0.4, 0.1)),
        (0.0, Vec3::new(0.2, 3.0, 0.4)),
        (2.2, Vec3::splat(1.5)),
    ]
    .into_iter()
    .map(|(x, emissive)| MeshInstance {
        mesh: Primitive::Sphere.into(),
        model: Affine3A::from_translation(Vec3::new(x, 0.0, 0.0)),
        material: Material {
            emissive,
            ..Material::from_color(Vec4::new(0.0, 0.0, 0.0, 1.0))
        },
        cast_shadows: true,
    })
    .collect()
}

fn camera() -> Camera {
    Camera {
        position: Vec3::new(0.0, 0.0, 7.0),
        target: Vec3::ZERO,
        ..Camera::default()
    }
}

/// Where `point` lands in the 256 x 128 image.
fn pixel_of(point: Vec3) -> (u32, u32) {
    let ndc = camera().view_projection(2.0).project_point3(point);
    (
        ((ndc.x * 0.5 + 0.5) * 256.0) as u32,
        ((0.5 - ndc.y * 0.5) * 128.0) as u32,
    )
}

fn render(ctx: &GpuContext, instances: &[MeshInstance], post: PostSettings) -> RgbaImage {
    let frame = FrameData {
        camera: camera(),
        clear_color: Vec4::new(0.0, 0.0, 0.0, 1.0),
        ambient: Vec3::ZERO,
        sun: DirectionalLight {
            intensity: 0.0,
            ..DirectionalLight::default()
        },
        instances,
        post,
        ..FrameData::default()
    };
    Renderer::new(ctx, wgpu::TextureFormat::Rgba8UnormSrgb)
        .render_to_image(ctx, &frame, 256, 128)
        .expect("renders")
}

fn glow() -> PostSettings {
    PostSettings {
        tonemapper: Tonemapper::AcesFitted,
        bloom: true,
        bloom_threshold: 1.0,
        bloom_intensity: 0.3,
        ..PostSettings::default()
    }
}

#[test]
fn bright_emitters_bloom_into_a_halo() {
    let Some(ctx) = gpu_or_skip() else { return };
    let spheres = emitters();
    let with = render(&ctx, &spheres, glow());
    let without = render(
        &ctx,
        &spheres,
        PostSettings {
            bloom: false,
            ..glow()
        },
    );
    // Just above the red sphere (radius 0.5 at x = -2.2), the background is
    // black without bloom and red with it.
    let (x, y) = pixel_of(Vec3::new(-2.2, 0.8, 0.0));
    let [r0, ..] = without.get_pixel(x, y).0;
    let [r1, g1, b1, _] = with.get_pixel(x, y).0;
    assert!(r0 < 3, "no bloom, no glow: {r0}");
    assert!(
        r1 > 20 && r1 > g1 && r1 > b1,
        "a red halo: {:?}",
        [r1, g1, b1]
    );
    // Bloom only adds light.
    for (a, b) in without.pixels().zip(with.pixels()) {
        assert!(
            (0..3).all(|c| b[c].saturating_add(2) >= a[c]),
            "{a:?} -> {b:?}"
        );
    }
    assert_matches_golden("bloom_emissive", &with);
}

#[test]
fn exposure_and_tonemappers_bring_bright_light_under_white() {
    let Some(ctx) = gpu_or_skip() else { return };
    let spheres = emitters();
    let centre_of_white = pixel_of(Vec3::new(2.2, 0.0, 0.0));
    let none = render(&ctx, &spheres, PostSettings::default());
    assert_eq!(
        none.get_pixel(centre_of_white.0, centre_of_white.1).0,
        [255, 255, 255, 255],
        "without a tonemapper light above 1 clips to white"
    );
    for tonemapper in [Tonemapper::AcesFitted, Tonemapper::Agx] {
        let post = PostSettings {
            tonemapper,
            ..PostSettings::default()
        };
        let mapped = render(&ctx, &spheres, post);
        let [r, g, b, _] = mapped.get_pixel(centre_of_white.0, centre_of_white.1).0;
        assert!(
            (150..255).contains(&r) && r.abs_diff(g) <= 2 && g.abs_diff(b) <= 2,
            "{tonemapper:?}: a white 1.5 maps under white and stays grey (within the HDR target's precision): {:?}",
            [r, g, b]
        );
        // Two stops down (a quarter of the light) is darker still.
        let darker = render(
            &ctx,
            &spheres,
            PostSettings {
                exposure: -2.0,
                ..post
            },
        );
        let [r2, ..] = darker.get_pixel(centre_of_white.0, centre_of_white.1).0;
        assert!(
            r2 + 40 < r,
            "{tonemapper:?}: exposure -2 gives {r2}, 0 gives {r}"
        );
    }
}

/// glTF's metallic-roughness model over its whole range: a 5 x 5 grid of
/// spheres, metallic from 0 (left) to 1 (right), roughness from 0.05 (top)
/// to 1 (bottom), under the sun and the sky, filmically tonemapped.
#[test]
fn a_grid_of_spheres_spans_metallic_and_roughness() {
    let Some(ctx) = gpu_or_skip() else { return };
    let mut spheres = Vec::new();
    for row in 0..5 {
        for column in 0..5 {
            spheres.push(MeshInstance {
                mesh: Primitive::Sphere.into(),
                model: Affine3A::from_translation(Vec3::new(
                    column as f32 * 1.2 - 2.4,
                    2.4 - row as f32 * 1.2,
                    0.0,
                )),
                material: Material {
                    metallic: column as f32 / 4.0,
                    roughness: 0.05 + 0.95 * row as f32 / 4.0,
                    ..Material::from_color(Vec4::new(0.9, 0.55, 0.3, 1.0))
                },
                cast_shadows: true,
            });
        }
    }
    let view = Camera {
        position: Vec3::new(0.0, 0.0, 9.0),
        target: Vec3::ZERO,
        fov_y: 45f32.to_radians(),
        ..Camera::default()
    };
    let frame = FrameData {
        camera: view,
        clear_color: Vec4::new(0.05, 0.06, 0.08, 1.0),
        ambient: Vec3::new(0.2, 0.25, 0.32),
        sun: DirectionalLight {
            direction: Vec3::new(-0.5, -0.6, -1.0),
            intensity: 2.5,
            ..DirectionalLight::default()
        },
        instances: &spheres,
        post: PostSettings {
            tonemapper: Tonemapper::AcesFitted,
            ..PostSettings::default()
        },
        ..FrameData::default()
    };
    let image = Renderer::new(&ctx, wgpu::TextureFormat::Rgba8UnormSrgb)
        .render_to_image(&ctx, &frame, 256, 256)
        .expect("renders");
    // The smooth dielectric (top left) shows a small, sharp highlight; the
    // rough metal (bottom right) none brighter than its body.
    let brightest = |cx: u32, cy: u32| {
        let mut top = 0u8;
        for y in cy - 12..cy + 12 {
            for x in cx - 12..cx + 12 {
                top = top.max(image.get_pixel(x, y)[1]);
            }
        }
        top
    };
    let pixel = |column: u32, row: u32| {
        let centre = Vec3::new(column as f32 * 1.2 - 2.4, 2.4 - row as f32 * 1.2, 0.0);
        let ndc = view.view_projection(1.0).project_point3(centre);
        (
            ((ndc.x * 0.5 + 0.5) * 256.0) as u32,
            ((0.5 - ndc.y * 0.5) * 256.0) as u32,
        )
    };
    let (x, y) = pixel(0, 0);
    let smooth = brightest(x, y);
    let (x, y) = pixel(4, 4);
    let rough_metal = brightest(x, y);
    assert!(
        smooth > rough_metal + 30,
        "highlights: smooth {smooth}, rough metal {rough_metal}"
    );
    assert_matches_golden("sphere_grid", &image);
}

/// The sky's share straight down (render/ibl.rs).
const GROUND: f32 = 0.35;

fn srgb_to_linear(c: u8) -> f32 {
    let c = f32::from(c) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        keel_engine::math::powf((c + 0.055) / 1.055, 2.4)
    }
}

/// The linear red of the middle of a large plane facing `up` (or down),
/// seen head-on, lit by the sky alone at unit ambient.
fn sky_lit(material: Material, up: bool) -> Option<f32> {
    let ctx = gpu_or_skip()?;
    let (rotation, eye) = if up {
        (Quat::IDENTITY, Vec3::Y * 5.0)
    } else {
        (
            Quat::from_rotation_x(std::f32::consts::PI),
            Vec3::NEG_Y * 5.0,
        )
    };
    let instances = [MeshInstance {
        cast_shadows: false,
        mesh: Primitive::Plane.into(),
        model: Affine3A::from_scale_rotation_translation(Vec3::splat(40.0), rotation, Vec3::ZERO),
        material,
    }];
    let frame = FrameData {
        camera: Camera {
            position: eye,
            target: Vec3::ZERO,
            up: Vec3::NEG_Z,
            ..Camera::default()
        },
        ambient: Vec3::ONE,
        sun: DirectionalLight {
            intensity: 0.0,
            ..DirectionalLight::default()
        },
        instances: &instances,
        ..FrameData::default()
    };
    let mut renderer = Renderer::new(&ctx, wgpu::TextureFormat::Rgba8UnormSrgb);
    let image = renderer
        .render_to_image(&ctx, &frame, 16, 16)
        .expect("renders");
    Some(srgb_to_linear(image.get_pixel(8, 8)[0]))
}

fn matte(grey: f32) -> Material {
    Material {
        roughness: 1.0,
        ..Material::from_color(Vec4::new(grey, grey, grey, 1.0))
    }
}

#[test]
fn matte_surfaces_receive_the_hemispheres_irradiance() {
    let Some(up) = sky_lit(matte(0.5), true) else {
        return;
    };
    let down = sky_lit(matte(0.5), false).expect("same adapter");
    // The sky is GROUND + (1 - GROUND)(y + 1) / 2 along a direction of height
    // y; averaged over the cosine lobe around a normal of height +-1 (mean
    // y of +-2/3): what a white matte surface reflects.
    let sky = |mean_y: f32| GROUND + (1.0 - GROUND) * (mean_y + 1.0) / 2.0;
    let (expected_up, expected_down) = (0.5 * sky(2.0 / 3.0), 0.5 * sky(-2.0 / 3.0));
    // A rough dielectric adds a few percent of specular on top.
    assert!(
        (up - expected_up).abs() < 0.04,
        "facing the sky: {up}, irradiance says {expected_up}"
    );
    assert!(
        (down - expected_down).abs() < 0.03,
        "facing the ground: {down}, irradiance says {expected_down}"
    );
    // The analytic hemisphere took the sky along the normal alone (1 and
    // GROUND): 2.9 times brighter up than down. Irradiance gathers the whole
    // hemisphere around the normal, so the two sides are closer.
    let ratio = up / down;
    assert!(
        ratio < 2.3,
        "up {up} / down {down} = {ratio}: ambient sampled along the normal, not integrated"
    );
}

#[test]
fn a_mirror_reflects_the_sky_and_roughness_blurs_it() {
    let metal = |roughness| Material {
        metallic: 1.0,
        roughness,
        ..Material::from_color(Vec4::ONE)
    };
    let Some(mirror_up) = sky_lit(metal(0.0), true) else {
        return;
    };
    let mirror_down = sky_lit(metal(0.0), false).expect("same adapter");
    let rough_down = sky_lit(metal(1.0), false).expect("same adapter");
    // A mirror facing up shows the zenith (1), facing down the nadir (GROUND).
    assert!(
        (mirror_up - 1.0).abs() < 0.06,
        "mirror facing up: {mirror_up}"
    );
    assert!(
        (mirror_down - GROUND).abs() < 0.05,
        "mirror facing down: {mirror_down}"
    );
    // A fully rough metal gathers the sky of the whole hemisphere around the
    // nadir (about what a matte surface does, a mean height of -2/3), times
    // the split-sum scale of f0 = 1 at roughness 1 (0.45: single scattering
    // loses the rest). Unblurred it would show the nadir alone (0.45 x GROUND).
    let gathered = 0.45 * (GROUND + (1.0 - GROUND) * (1.0 - 2.0 / 3.0) / 2.0);
    assert!(
        (rough_down - gathered).abs() < 0.025,
        "rough metal facing down: {rough_down}, the blurred sky says {gathered}, the nadir alone {}",
        0.45 * GROUND
    );
}

/// A sky image: green above the horizon, black below (unit strength).
fn green_over_black(assets: &keel_engine::Assets) -> keel_engine::assets::SkyHandle {
    use keel_engine::assets::SkyImage;
    let (width, height) = (16, 8);
    let pixels = (0..height)
        .flat_map(|row| {
            let above = row < height / 2;
            [if above { [0.0, 1.0, 0.0] } else { [0.0; 3] }; 16]
        })
        .collect();
    assets.add_sky(SkyImage {
        width,
        height,
        pixels,
    })
}

#[test]
fn an_image_sky_lights_the_scene_and_shows_behind_it() {
    let Some(ctx) = gpu_or_skip() else { return };
    let assets = keel_engine::Assets::new();
    let floor = [MeshInstance {
        cast_shadows: false,
        mesh: Primitive::Plane.into(),
        model: Affine3A::from_scale(Vec3::splat(40.0)),
        material: Material {
            roughness: 1.0,
            ..Material::from_color(Vec4::ONE)
        },
    }];
    // Looking level over the floor: sky above the horizon, floor below.
    let frame = FrameData {
        camera: Camera {
            position: Vec3::new(0.0, 1.0, 0.0),
            target: Vec3::new(0.0, 1.0, -5.0),
            ..Camera::default()
        },
        clear_color: Vec4::new(1.0, 0.0, 0.0, 1.0),
        ambient: Vec3::ONE,
        sun: DirectionalLight {
            intensity: 0.0,
            ..DirectionalLight::default()
        },
        instances: &floor,
        sky: Some(green_over_black(&assets)),
        assets: Some(&assets),
        ..FrameData::default()
    };
    let mut renderer = Renderer::new(&ctx, wgpu::TextureFormat::Rgba8UnormSrgb);
    let image = renderer
        .render_to_image(&ctx, &frame, 32, 32)
        .expect("renders");
    let [r, g, b, _] = image.get_pixel(16, 2).0;
    assert!(
        g > 240 && r < 10 && b < 10,
        "the sky, not the red clear colour, above: {r} {g} {b}"
    );
    // A white matte floor under a green upper hemisphere and a black lower
    // one: green irradiance, the half of the hemisphere's (2/3 + 1) / 2... all
    // of it green. Below the horizon in the image.
    let [r, g, b, _] = image.get_pixel(16, 28).0;
    assert!(
        g > 150 && r < 30 && b < 30,
        "the floor lit green by the sky: {r} {g} {b}"
    );
    // Without the sky: the hemisphere (grey) and the clear colour.
    let plain = FrameData { sky: None, ..frame };
    let image = renderer
        .render_to_image(&ctx, &plain, 32, 32)
        .expect("renders");
    let [r, g, _, _] = image.get_pixel(16, 2).0;
    assert!(r > 240 && g < 10, "the clear colour again: {r} {g}");
    let [r, g, b, _] = image.get_pixel(16, 28).0;
    assert!(
        r.abs_diff(g) < 8 && g.abs_diff(b) < 8,
        "a grey hemisphere's light: {r} {g} {b}"
    );
}

/// The bundled harbour sky behind a mirror, a rough metal and a matte ball,
/// all lit by it alone (ACES).
#[test]
fn the_harbour_sky() {
    let Some(ctx) = gpu_or_skip() else { return };
    let assets = keel_engine::Assets::new();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/skies/harbour.hdr");
    let sky = assets.load_sky(&path).expect("the bundled sky loads");
    let balls: Vec<MeshInstance> = [
        (-1.3, 1.0, 0.0, 1.0),
        (0.0, 1.0, 0.45, 1.0),
        (1.3, 0.0, 1.0, 0.8),
    ]
    .into_iter()
    .map(|(x, metallic, roughness, grey)| MeshInstance {
        cast_shadows: false,
        mesh: Primitive::Sphere.into(),
        model: Affine3A::from_translation(Vec3::new(x, 0.0, 0.0)),
        material: Material {
            metallic,
            roughness,
            ..Material::from_color(Vec4::new(grey, grey, grey, 1.0))
        },
    })
    .collect();
    let frame = FrameData {
        camera: Camera {
            position: Vec3::new(0.0, 0.4, 3.2),
            target: Vec3::new(0.0, 0.1, 0.0),
            ..Camera::default()
        },
        ambient: Vec3::ONE,
        sun: DirectionalLight {
            intensity: 0.0,
            ..DirectionalLight::default()
        },
        instances: &balls,
        sky: Some(sky),
        post: PostSettings {
            tonemapper: Tonemapper::AcesFitted,
            ..PostSettings::default()
        },
        assets: Some(&assets),
        ..FrameData::default()
    };
    let mut renderer = Renderer::new(&ctx, wgpu::TextureFormat::Rgba8UnormSrgb);
    let image = renderer
        .render_to_image(&ctx, &frame, 256, 128)
        .expect("renders");
    assert_matches_golden("harbour_sky", &image);
}
