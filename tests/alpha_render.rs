//! glTF's alpha modes and double-sided materials: a masked cut-out and three
//! blended panes over a checkerboard (a golden), blended panes drawn back to
//! front whatever order they come in, and a double-sided plane seen from
//! below.

mod common;

use common::{assert_matches_golden, gpu_or_skip};
use glam::{Affine3A, Quat, Vec3, Vec4};
use keel_engine::Assets;
use keel_engine::Material;
use keel_engine::Primitive;
use keel_engine::assets::{AlphaMode, TextureData};
use keel_engine::render::image::RgbaImage;
use keel_engine::render::{FrameData, MeshInstance, wgpu};
use keel_engine::{Camera, GpuContext, Renderer};

fn checker(assets: &Assets) -> keel_engine::assets::TextureHandle {
    let mut pixels = Vec::new();
    for y in 0..8 {
        for x in 0..8 {
            let v = if (x + y) % 2 == 0 { 230 } else { 40 };
            pixels.extend([v, v, v, 255]);
        }
    }
    assets.add_texture(TextureData {
        name: "checker".into(),
        width: 8,
        height: 8,
        mips: keel_engine::assets::gltf::mip_chain(8, 8, pixels),
        srgb: true,
    })
}

/// Opaque inside a disc, transparent outside.
fn disc(assets: &Assets) -> keel_engine::assets::TextureHandle {
    let mut pixels = Vec::new();
    for y in 0..32 {
        for x in 0..32 {
            let (dx, dy) = (x as f32 - 15.5, y as f32 - 15.5);
            let a = if dx * dx + dy * dy < 12.0 * 12.0 {
                255
            } else {
                0
            };
            pixels.extend([255, 255, 255, a]);
        }
    }
    assets.add_texture(TextureData {
        name: "disc".into(),
        width: 32,
        height: 32,
        mips: keel_engine::assets::gltf::mip_chain(32, 32, pixels),
        srgb: true,
    })
}

/// A unit plane standing up, facing +Z, at `at`.
fn pane(at: Vec3, material: Material) -> MeshInstance {
    MeshInstance {
        mesh: Primitive::Plane.into(),
        model: Affine3A::from_scale_rotation_translation(
            Vec3::splat(1.6),
            Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
            at,
        ),
        material,
        cast_shadows: true,
    }
}

fn glass(rgb: Vec3) -> Material {
    Material {
        alpha_mode: AlphaMode::Blend,
        double_sided: true,
        ..Material::from_color(rgb.extend(0.5))
    }
}

fn scene(reverse_panes: bool, assets: &Assets) -> Vec<MeshInstance> {
    let floor = MeshInstance {
        mesh: Primitive::Plane.into(),
        model: Affine3A::from_scale(Vec3::new(8.0, 1.0, 8.0)),
        material: Material {
            texture: Some(checker(assets)),
            ..Material::from_color(Vec4::ONE)
        },
        cast_shadows: false,
    };
    let cutout = pane(
        Vec3::new(-1.4, 0.9, 0.0),
        Material {
            texture: Some(disc(assets)),
            alpha_mode: AlphaMode::Mask { cutoff: 0.5 },
            double_sided: true,
            ..Material::from_color(Vec4::new(0.9, 0.6, 0.2, 1.0))
        },
    );
    let mut panes = vec![
        pane(Vec3::new(1.0, 0.9, 1.0), glass(Vec3::new(1.0, 0.1, 0.1))),
        pane(Vec3::new(1.3, 1.0, 0.0), glass(Vec3::new(0.1, 1.0, 0.1))),
        pane(Vec3::new(1.6, 1.1, -1.0), glass(Vec3::new(0.1, 0.2, 1.0))),
    ];
    if reverse_panes {
        panes.reverse();
    }
    let mut all = vec![floor, cutout];
    all.extend(panes);
    all
}

fn render(
    ctx: &GpuContext,
    instances: &[MeshInstance],
    camera: Camera,
    assets: &Assets,
) -> RgbaImage {
    let frame = FrameData {
        camera,
        instances,
        assets: Some(assets),
        ..FrameData::default()
    };
    Renderer::new(ctx, wgpu::TextureFormat::Rgba8UnormSrgb)
        .render_to_image(ctx, &frame, 256, 192)
        .expect("renders")
}

fn front() -> Camera {
    Camera {
        position: Vec3::new(0.0, 2.2, 6.0),
        target: Vec3::new(0.0, 0.8, 0.0),
        ..Camera::default()
    }
}

#[test]
fn masked_and_blended_materials_over_a_checkerboard() {
    let Some(ctx) = gpu_or_skip() else { return };
    let assets = Assets::new();
    let image = render(&ctx, &scene(false, &assets), front(), &assets);
    // The same panes given back to front or front to back blend alike: the
    // renderer sorts them.
    let reversed = render(&ctx, &scene(true, &assets), front(), &assets);
    let differing = image
        .pixels()
        .zip(reversed.pixels())
        .filter(|(a, b)| (0..3).any(|c| a[c].abs_diff(b[c]) > 2))
        .count();
    assert!(
        differing < 20,
        "{differing} pixels depend on the panes' order"
    );
    // The cut-out: solid inside its disc, the checkerboard shows through its corners.
    let centre = camera_pixel(Vec3::new(-1.4, 0.9, 0.0));
    let corner = camera_pixel(Vec3::new(-1.4 + 0.75, 0.9 + 0.75, 0.0));
    let [r, g, b, _] = image.get_pixel(centre.0, centre.1).0;
    assert!(
        r > g && g > b && r > 120,
        "the disc is orange: {:?}",
        [r, g, b]
    );
    let [r, g, b, _] = image.get_pixel(corner.0, corner.1).0;
    assert!(
        r.abs_diff(g) < 12 && g.abs_diff(b) < 30,
        "grey checkerboard through the cut corner: {:?}",
        [r, g, b]
    );
    // Through the front (red) pane the others show: red leads but is not alone.
    let through = camera_pixel(Vec3::new(1.0, 0.9, 1.0));
    let [r, g, b, _] = image.get_pixel(through.0, through.1).0;
    assert!(
        r > g && r > b && g > 20,
        "red over green over the rest: {:?}",
        [r, g, b]
    );
    assert_matches_golden("alpha_mask_blend", &image);
}

/// Where `point` lands in the 256 x 192 image seen by [`front`].
fn camera_pixel(point: Vec3) -> (u32, u32) {
    let ndc = front().view_projection(256.0 / 192.0).project_point3(point);
    (
        ((ndc.x * 0.5 + 0.5) * 256.0) as u32,
        ((0.5 - ndc.y * 0.5) * 192.0) as u32,
    )
}

#[test]
fn a_double_sided_plane_is_seen_from_below() {
    let Some(ctx) = gpu_or_skip() else { return };
    let below = Camera {
        position: Vec3::new(0.0, -3.0, 0.01),
        target: Vec3::ZERO,
        ..Camera::default()
    };
    let plane = |double_sided| {
        [MeshInstance {
            mesh: Primitive::Plane.into(),
            model: Affine3A::from_scale(Vec3::splat(4.0)),
            material: Material {
                double_sided,
                ..Material::from_color(Vec4::new(0.9, 0.2, 0.2, 1.0))
            },
            cast_shadows: false,
        }]
    };
    let assets = Assets::new();
    let one = render(&ctx, &plane(false), below, &assets);
    let two = render(&ctx, &plane(true), below, &assets);
    let background = render(&ctx, &[], below, &assets);
    assert_eq!(
        one.get_pixel(128, 96),
        background.get_pixel(128, 96),
        "culled from below"
    );
    let [r, g, _, _] = two.get_pixel(128, 96).0;
    assert!(
        r > g + 20,
        "the double-sided plane's underside is drawn red: {:?}",
        two.get_pixel(128, 96)
    );
}

/// A masked disc on a square card lying above the ground, the sun high and
/// to the side: the ground is shaded under the disc's shadow and lit where
/// the card's cut-away corner would have shaded it.
#[test]
fn a_masked_caster_casts_only_its_opaque_part() {
    let Some(ctx) = gpu_or_skip() else { return };
    let assets = Assets::new();
    let ground = MeshInstance {
        mesh: Primitive::Plane.into(),
        model: Affine3A::from_scale(Vec3::new(8.0, 1.0, 8.0)),
        material: Material {
            roughness: 1.0,
            ..Material::from_color(Vec4::splat(0.5))
        },
        cast_shadows: false,
    };
    let card = MeshInstance {
        mesh: Primitive::Plane.into(),
        model: Affine3A::from_translation(Vec3::Y),
        material: Material {
            texture: Some(disc(&assets)),
            alpha_mode: AlphaMode::Mask { cutoff: 0.5 },
            double_sided: true,
            ..Material::from_color(Vec4::ONE)
        },
        cast_shadows: true,
    };
    let instances = [ground, card];
    let camera = Camera {
        position: Vec3::new(0.7, 6.0, 0.01),
        target: Vec3::new(0.7, 0.0, 0.0),
        ..Camera::default()
    };
    let frame = FrameData {
        camera,
        ambient: Vec3::splat(0.1),
        sun: keel_engine::render::DirectionalLight {
            // One unit down moves 0.7 along +X: the card's shadow is centred at x = 0.7.
            direction: Vec3::new(0.7, -1.0, 0.0),
            ..keel_engine::render::DirectionalLight::default()
        },
        instances: &instances,
        assets: Some(&assets),
        ..FrameData::default()
    };
    let image = Renderer::new(&ctx, wgpu::TextureFormat::Rgba8UnormSrgb)
        .render_to_image(&ctx, &frame, 128, 128)
        .expect("renders");
    let at = |p: Vec3| {
        let ndc = camera.view_projection(1.0).project_point3(p);
        let (x, y) = (
            ((ndc.x * 0.5 + 0.5) * 128.0) as u32,
            ((0.5 - ndc.y * 0.5) * 128.0) as u32,
        );
        image.get_pixel(x, y)[1]
    };
    let (under_disc, under_corner, open) = (
        at(Vec3::new(0.7, 0.0, 0.0)),
        at(Vec3::new(1.15, 0.0, 0.42)),
        at(Vec3::new(1.5, 0.0, -1.2)),
    );
    assert!(
        under_disc + 40 < open,
        "the disc shades: {under_disc} vs open ground {open}"
    );
    assert!(
        under_corner.abs_diff(open) < 8,
        "the cut-away corner lets the sun through: {under_corner} vs open ground {open}"
    );
}
