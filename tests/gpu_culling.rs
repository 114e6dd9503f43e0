//! The retained scene, culled on the GPU, draws the pixels of the CPU's
//! reference: every mesh extracted at the frame's alpha and culled by the
//! renderer's batcher one by one (the sphere test the GPU runs). A moving world (orbits, plain, textured, masked, blended and
//! imported meshes, a sun casting shadows) rendered both ways at several
//! interpolation alphas, and again after despawns, spawns and a material
//! edit between frames, and while paused.
//!
//! (The CPU-culled `extract_world` is not the reference here: its octree
//! holds each mesh's bounds at the current step, not at the frame's alpha,
//! so a fast mesh entering the view at its edge shows a step late there.)

mod common;

use std::time::Duration;

use common::{add_sun, gpu_or_skip};
use glam::{Quat, Vec3, Vec4};
use keel_engine::Assets;
use keel_engine::assets::{AlphaMode, TextureData};
use keel_engine::render::image::RgbaImage;
use keel_engine::{
    Camera, Extractor, Material, MeshRenderer, NodeId, Orbit, Overlays, Primitive, Renderer, Scene,
    Transform, World,
};

const SIZE: (u32, u32) = (320, 180);

fn checker(assets: &Assets) -> keel_engine::assets::TextureHandle {
    let mut pixels = Vec::new();
    for y in 0..8 {
        for x in 0..8 {
            let v = if (x + y) % 2 == 0 { 230 } else { 40 };
            pixels.extend([v, v, 255 - v, if (x * y) % 3 == 0 { 0 } else { 255 }]);
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

/// 40 groups of 25 parts around the origin, every other group orbiting.
fn world() -> (World, Vec<NodeId>) {
    let mut scene = Scene::new();
    add_sun(
        &mut scene,
        Quat::from_euler(glam::EulerRot::YXZ, 0.6, -0.8, 0.0),
        2.5,
    );
    let assets = scene.assets().clone();
    let texture = checker(&assets);
    let imported =
        keel_engine::MeshRef::Asset(assets.add_mesh("imported sphere", Primitive::Sphere.mesh()));
    let ground = scene
        .spawn(
            None,
            "ground",
            Transform::IDENTITY.with_scale(Vec3::new(80.0, 1.0, 80.0)),
        )
        .unwrap();
    scene
        .insert(
            ground,
            MeshRenderer::new(Primitive::Plane.into(), Material::rgb(0.2, 0.3, 0.2)),
        )
        .unwrap();
    let mut roots = Vec::new();
    for g in 0..40 {
        let angle = g as f32 * 0.41;
        let radius = 6.0 + (g % 8) as f32 * 2.5;
        let root = scene.spawn(None, "group", Transform::IDENTITY).unwrap();
        let orbit = Orbit {
            center: Vec3::ZERO,
            radius,
            rate: if g % 2 == 0 { 0.9 } else { 0.0 },
            angle,
            face_forward: true,
        };
        scene.insert(root, orbit).unwrap();
        for i in 0..25 {
            let at = Vec3::new((i % 5) as f32 * 0.7, 0.4 + (i / 5) as f32 * 0.7, 0.0);
            let node = scene
                .spawn(
                    Some(root),
                    "part",
                    Transform::from_translation(at)
                        .with_scale(Vec3::splat(0.5))
                        .with_rotation(Quat::from_rotation_y(i as f32 * 0.3)),
                )
                .unwrap();
            let color = Vec4::new((g % 7) as f32 / 7.0, (i % 5) as f32 / 5.0, 0.6, 1.0);
            let (mesh, material) = match i % 6 {
                0 => (Primitive::Cube.into(), Material::from_color(color)),
                1 => (
                    Primitive::Cube.into(),
                    Material {
                        texture: Some(texture),
                        ..Material::from_color(color)
                    },
                ),
                2 => (
                    Primitive::Plane.into(),
                    Material {
                        texture: Some(texture),
                        alpha_mode: AlphaMode::Mask { cutoff: 0.5 },
                        double_sided: true,
                        ..Material::from_color(color)
                    },
                ),
                3 => (
                    Primitive::Sphere.into(),
                    Material {
                        alpha_mode: AlphaMode::Blend,
                        ..Material::from_color(color.with_w(0.5))
                    },
                ),
                4 => (imported, Material::from_color(color)),
                _ => (Primitive::ALL[g % 5].into(), Material::from_color(color)),
            };
            scene
                .insert(node, MeshRenderer::new(mesh, material))
                .unwrap();
        }
        roots.push(root);
    }
    let mut world = World::new(scene);
    world.step();
    (world, roots)
}

struct Side {
    buffers: Extractor,
    renderer: Renderer,
    /// Every mesh as a loose instance, culled by the batcher.
    reference: bool,
}

impl Side {
    fn draw(
        &mut self,
        ctx: &keel_engine::GpuContext,
        world: &mut World,
        camera: Camera,
    ) -> RgbaImage {
        let aspect = SIZE.0 as f32 / SIZE.1 as f32;
        let frame = if self.reference {
            let alpha = world.clock().alpha();
            self.buffers
                .extract(world.scene(), alpha, camera, &Overlays::default())
        } else {
            let frame = self
                .buffers
                .extract_world(world, camera, aspect, &Overlays::default());
            assert!(frame.retained.is_some(), "GPU-culled");
            frame
        };
        let image = self
            .renderer
            .render_to_image(ctx, &frame, SIZE.0, SIZE.1)
            .expect("render");
        let problems = ctx.errors.take();
        assert!(problems.is_empty(), "{problems:?}");
        image
    }
}

/// Share of pixels with a channel more than 8 apart.
fn differing(a: &RgbaImage, b: &RgbaImage) -> f64 {
    let off = a
        .pixels()
        .zip(b.pixels())
        .filter(|(p, q)| p.0.iter().zip(q.0).any(|(x, y)| x.abs_diff(y) > 8))
        .count();
    off as f64 / f64::from(a.width() * a.height())
}

#[test]
fn gpu_culled_frames_draw_the_cpu_culled_pixels() {
    let Some(ctx) = gpu_or_skip() else { return };
    let (mut world, roots) = world();
    let side = |reference| Side {
        buffers: Extractor::default(),
        reference,
        renderer: Renderer::new(
            &ctx,
            keel_engine::render::wgpu::TextureFormat::Rgba8UnormSrgb,
        ),
    };
    let (mut gpu, mut cpu) = (side(false), side(true));
    let cameras = [
        Camera {
            position: Vec3::new(0.0, 14.0, 34.0),
            target: Vec3::ZERO,
            ..Camera::default()
        },
        Camera {
            position: Vec3::new(12.0, 3.0, 6.0),
            target: Vec3::new(-4.0, 1.0, -8.0),
            ..Camera::default()
        },
    ];
    let step = world.clock().step_seconds();
    let mut alphas = Vec::new();
    let mut worst: f64 = 0.0;
    for frame in 0..12usize {
        // A third, a half, ... of a step: frames between steps at new alphas.
        let fraction = [0.33, 0.5, 0.9, 1.25, 0.1, 0.75][frame % 6];
        world.advance(Duration::from_secs_f32(step * fraction));
        match frame {
            4 => {
                world.scene_mut().despawn(roots[3]).unwrap();
                world.scene_mut().despawn(roots[8]).unwrap();
            }
            6 => {
                let part = world.scene().children(roots[5]).next().unwrap();
                let mesh = world.scene_mut().get_mut::<MeshRenderer>(part).unwrap();
                mesh.material.base_color = Vec4::new(1.0, 0.0, 1.0, 1.0);
            }
            8 => {
                let node = world
                    .scene_mut()
                    .spawn(
                        None,
                        "late",
                        Transform::from_translation(Vec3::new(2.0, 2.0, 8.0)),
                    )
                    .unwrap();
                world
                    .scene_mut()
                    .insert(
                        node,
                        MeshRenderer::new(Primitive::Cube.into(), Material::rgb(1.0, 1.0, 0.0)),
                    )
                    .unwrap();
            }
            10 => world.clock_mut().set_paused(true),
            _ => {}
        }
        let camera = cameras[frame % 2];
        let (a, b) = (
            gpu.draw(&ctx, &mut world, camera),
            cpu.draw(&ctx, &mut world, camera),
        );
        let share = differing(&a, &b);
        eprintln!(
            "frame {frame} alpha {:.3}: {:.4}% differ",
            world.clock().alpha(),
            share * 100.0
        );
        alphas.push(world.clock().alpha());
        worst = worst.max(share);
        if share > 0.001 {
            let off: Vec<(u32, u32)> = a
                .enumerate_pixels()
                .filter(|(x, y, p)| {
                    p.0.iter()
                        .zip(b.get_pixel(*x, *y).0)
                        .any(|(s, t)| s.abs_diff(t) > 8)
                })
                .map(|(x, y, _)| (x, y))
                .collect();
            eprintln!(
                "{} off, first {:?} last {:?}",
                off.len(),
                off.first(),
                off.last()
            );
            let xs = off.iter().map(|p| p.0);
            eprintln!("x {:?}..{:?}", xs.clone().min(), xs.max());
            a.save("gpu_culling-gpu.png").unwrap();
            b.save("gpu_culling-cpu.png").unwrap();
            panic!("frame {frame}: {:.3}% of the pixels differ", share * 100.0);
        }
        let clear = a.get_pixel(0, 0).0;
        let drawn = a.pixels().filter(|p| p.0 != clear).count();
        assert!(
            drawn > (SIZE.0 * SIZE.1 / 4) as usize,
            "frame {frame}: the scene is drawn"
        );
    }
    alphas.sort_by(f32::total_cmp);
    alphas.dedup();
    assert!(alphas.len() >= 4, "several alphas: {alphas:?}");
    eprintln!("worst frame: {:.4}% of the pixels differ", worst * 100.0);
}
