//! Ambient light from the sky, image-based: the sky (the scene's sky/ground
//! hemisphere) is baked into an irradiance map and a GGX-prefiltered specular
//! map once, and surfaces read them. Checked against values computed by hand
//! from the hemisphere, and against what the old analytic ambient gave.

mod common;

use common::gpu_or_skip;
use glam::{Affine3A, Quat, Vec3, Vec4};
use keel_engine::assets::Primitive;
use keel_engine::render::{Camera, DirectionalLight, FrameData, MeshInstance, Renderer, wgpu};
use keel_engine::scene::Material;

/// The sky's share straight down (render/ibl.rs).
const GROUND: f32 = 0.35;

fn srgb_to_linear(c: u8) -> f32 {
    let c = f32::from(c) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
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
