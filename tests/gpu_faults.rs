//! What the renderer does when the GPU says no: work past the device's limits
//! is clamped instead of refused, a refused command is reported instead of
//! panicking the process, and a lost device is reported.

mod common;

use common::gpu_or_skip;
use glam::Vec3;
use keel_engine::Emitter;
use keel_engine::World;
use keel_engine::particles::{FloatRange, Overflow};
use keel_engine::render::{GpuProblem, parse_backends, wgpu};
use keel_engine::{Camera, GpuContext, Renderer};
use keel_engine::{Extractor, Overlays};
use keel_engine::{Scene, Transform};

fn backends() -> wgpu::Backends {
    std::env::var("KEEL_BACKEND").map_or(wgpu::Backends::all(), |name| {
        parse_backends(&name).expect("KEEL_BACKEND names a backend")
    })
}

/// One emitter that keeps `alive` particles in the air, half additive and half alpha.
fn fountains(alive: u32) -> World {
    let mut scene = Scene::new();
    for (i, blend) in [
        keel_engine::particles::BlendMode::Additive,
        keel_engine::particles::BlendMode::Alpha,
    ]
    .into_iter()
    .enumerate()
    {
        let node = scene
            .spawn(
                None,
                "fountain",
                Transform::from_translation(Vec3::new(i as f32 * 2.0 - 1.0, 0.0, 0.0)),
            )
            .unwrap();
        let emitter = Emitter {
            rate: alive as f32 / 2.0 * 60.0,
            lifetime: FloatRange::new(10.0, 10.0),
            speed: FloatRange::new(0.1, 0.5),
            overflow: Overflow::Grow { max: alive },
            blend,
            seed: i as u64 + 1,
            ..Emitter::default()
        };
        scene.insert(node, emitter).unwrap();
    }
    World::new(scene)
}

fn camera() -> Camera {
    Camera {
        position: Vec3::new(0.0, 2.0, 8.0),
        target: Vec3::ZERO,
        ..Camera::default()
    }
}

#[test]
fn particles_past_what_one_buffer_holds_are_clamped_not_refused() {
    // Make sure a GPU exists (or the test is skipped / fails under KEEL_REQUIRE_GPU).
    let Some(_) = gpu_or_skip() else { return };
    // A device that allows 1 MiB buffers: 32,768 particles of 32 bytes.
    let limits = wgpu::Limits {
        max_buffer_size: 1 << 20,
        ..wgpu::Limits::downlevel_defaults()
    };
    let ctx = GpuContext::headless_with_limits(backends(), limits).expect("a limited device");
    let room = (1 << 20) / size_of::<keel_engine::particles::ParticleInstance>();
    let mut world = fountains(60_000);
    for _ in 0..2 {
        world.step();
    }
    let mut buffers = Extractor::default();
    let frame = buffers.extract_world(&mut world, camera(), 1.0, &Overlays::default());
    let alive = frame.additive.len() + frame.alpha.len();
    assert!(
        alive > room,
        "{alive} particles, more than the {room} a buffer holds"
    );
    let mut renderer = Renderer::new(&ctx, wgpu::TextureFormat::Rgba8UnormSrgb);
    let image = renderer.render_to_image(&ctx, &frame, 64, 64).unwrap();
    assert_eq!(ctx.errors.take(), [], "no command was refused");
    assert_eq!(
        renderer.stats().particles_drawn,
        room,
        "clamped to what fits"
    );
    assert!(
        image.pixels().any(|p| p.0[..3] != [0, 0, 0]),
        "something was drawn"
    );
}

#[test]
fn a_refused_command_is_reported_instead_of_panicking() {
    let Some(ctx) = gpu_or_skip() else { return };
    // Larger than any buffer the device allows: wgpu's default handler would panic here.
    let too_large = ctx.device.limits().max_buffer_size + 4;
    let _buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("too large"),
        size: too_large,
        usage: wgpu::BufferUsages::VERTEX,
        mapped_at_creation: false,
    });
    let problems = ctx.errors.take();
    assert!(
        matches!(problems.as_slice(), [GpuProblem::Error(message)] if message.contains("too large")),
        "{problems:?}"
    );
    assert_eq!(ctx.errors.take(), [], "taken once");
}

#[test]
fn a_destroyed_device_is_reported_lost_and_drawing_goes_on_without_panics() {
    let Some(ctx) = gpu_or_skip() else { return };
    let mut world = fountains(100);
    world.step();
    let mut renderer = Renderer::new(&ctx, wgpu::TextureFormat::Rgba8UnormSrgb);
    let mut buffers = Extractor::default();
    let frame = buffers.extract_world(&mut world, camera(), 1.0, &Overlays::default());
    renderer.render_to_image(&ctx, &frame, 32, 32).unwrap();
    assert_eq!(ctx.errors.take(), []);

    ctx.device.destroy();
    let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
    let target = ctx.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("after the loss"),
        size: wgpu::Extent3d {
            width: 32,
            height: 32,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8UnormSrgb,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let view = target.create_view(&wgpu::TextureViewDescriptor::default());
    renderer.render(&ctx, &frame, &view, (32, 32));
    let problems = ctx.errors.take();
    assert!(
        problems.iter().any(|p| matches!(p, GpuProblem::Lost(_))),
        "{problems:?}"
    );
}
