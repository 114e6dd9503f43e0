//! Frame profiling: the engine's scopes reach an owned [`Profiler`] while it
//! records and not otherwise, and the renderer times its passes on the GPU.

use glam::{Quat, Vec3};
use keel_engine::profile::{GPU_LANE, Profiler, summarise};
use keel_engine::{
    Assets, Extractor, GpuContext, Light, LightKind, Material, MeshRenderer, Overlays, Primitive,
    Renderer, Scene, Spin, Transform, World,
};

fn spinning_world() -> World {
    let assets = Assets::new();
    let mut scene = Scene::with_assets(&assets);
    for i in 0..20 {
        let node = scene
            .spawn(
                None,
                format!("cube {i}"),
                Transform::from_translation(Vec3::new(i as f32 - 10.0, 0.0, -5.0)),
            )
            .unwrap();
        scene
            .insert(
                node,
                MeshRenderer::new(Primitive::Cube.into(), Material::default()),
            )
            .unwrap();
        scene
            .insert(
                node,
                Spin {
                    axis: Vec3::Y,
                    rate: 1.0,
                },
            )
            .unwrap();
    }
    // A sun casting shadows: every frame has shadow passes too.
    let sun = scene
        .spawn(
            None,
            "sun",
            Transform::IDENTITY.with_rotation(Quat::from_rotation_x(-0.9)),
        )
        .unwrap();
    let light = Light {
        kind: LightKind::Directional,
        color: Vec3::ONE,
        intensity: 2.0,
        cast_shadows: true,
    };
    scene.insert(sun, light).unwrap();
    let mut world = World::new(scene);
    world
        .systems_mut()
        .add("rise", |scene, _commands, step| {
            for node in scene.roots().collect::<Vec<_>>() {
                let mut local = scene.local(node).unwrap();
                local.translation.y += step.dt;
                scene.set_local(node, local).unwrap();
            }
        })
        .unwrap();
    world
}

#[test]
fn a_recording_profiler_sees_the_step_its_systems_and_propagation_and_a_stopped_one_nothing() {
    let mut world = spinning_world();
    let mut profiler = Profiler::new();
    // Not recording: frames end, nothing is kept.
    for _ in 0..3 {
        profiler.new_frame();
        world.step();
    }
    profiler.new_frame();
    assert_eq!(profiler.frame_count(), 0);

    profiler.set_recording(true);
    for _ in 0..4 {
        profiler.new_frame();
        world.step();
    }
    profiler.new_frame();
    assert!(profiler.frame_count() >= 3, "{profiler:?}");
    let frame = profiler.latest().expect("a frame was kept");
    let step = frame.find("fixed step").expect("the fixed step is a scope");
    let rise = frame
        .spans()
        .map(|(_, s)| s)
        .find(|s| s.name == "system" && s.data == "rise")
        .expect("the user system is a scope named by its system");
    let propagate = frame
        .spans()
        .map(|(_, s)| s)
        .find(|s| s.name.contains("propagate"))
        .expect("propagation is a scope");
    // Nested in the step and inside its time.
    for inner in [rise, propagate] {
        assert!(inner.depth > step.depth, "{inner:?} in {step:?}");
        assert!(inner.start_ns >= step.start_ns);
        assert!(inner.start_ns + inner.duration_ns <= step.start_ns + step.duration_ns);
    }
    assert!(step.location.contains("world.rs"), "{}", step.location);
    assert!(frame.duration_ns >= step.duration_ns);

    // The summary counts one step and one `rise` per frame.
    let summary = profiler.summary();
    let row = |label: &str| summary.iter().find(|r| r.label == label).unwrap().clone();
    assert!(
        (row("fixed step").calls_per_frame - 1.0).abs() < 0.34,
        "{summary:?}"
    );
    assert!((row("system rise").calls_per_frame - 1.0).abs() < 0.34);
    assert!(row("fixed step").mean_ns >= row("system rise").mean_ns);
    assert!(profiler.report().contains("system rise"));
    // Over the newest frame alone: exactly one step.
    let last = profiler.summary_of_last(1);
    let step = last.iter().find(|r| r.label == "fixed step").unwrap();
    assert_eq!(step.calls_per_frame, 1.0);
    assert_eq!(step.mean_ns, step.max_ns as f64);

    // Stopped again: what was kept stays, nothing new comes.
    profiler.set_recording(false);
    let kept = profiler.frame_lengths();
    world.step();
    profiler.new_frame();
    assert_eq!(profiler.frame_lengths(), kept);
    profiler.clear();
    assert_eq!(profiler.frame_count(), 0);
}

#[test]
fn the_renderer_times_its_passes_on_the_gpu_and_the_profiler_shows_them_in_their_frame() {
    let require = std::env::var("KEEL_REQUIRE_GPU").as_deref() == Ok("1");
    let ctx = match GpuContext::headless(wgpu::Backends::all()) {
        Ok(ctx) => ctx,
        Err(e) if !require => return eprintln!("skipping: {e}"),
        Err(e) => panic!("KEEL_REQUIRE_GPU=1 but no adapter: {e}"),
    };
    let mut world = spinning_world();
    let mut renderer = Renderer::new(&ctx, wgpu::TextureFormat::Rgba8UnormSrgb);
    let timestamps = ctx
        .device
        .features()
        .contains(wgpu::Features::TIMESTAMP_QUERY);
    assert_eq!(renderer.set_gpu_timing(&ctx, true), timestamps);
    assert_eq!(renderer.gpu_timing(), timestamps);
    if !timestamps {
        // An adapter without timestamp queries renders as before, untimed.
        assert!(!require || !ctx.adapter_summary().contains("llvmpipe"));
        return;
    }
    let mut profiler = Profiler::new();
    profiler.set_recording(true);
    let mut buffers = Extractor::default();
    let mut gpu_frames = Vec::new();
    for _ in 0..6 {
        profiler.new_frame();
        world.step();
        let camera = world.game_camera();
        let frame = buffers.extract_world(&mut world, camera, 4.0 / 3.0, &Overlays::default());
        renderer.render_to_image(&ctx, &frame, 64, 48).unwrap();
        let done = renderer.take_gpu_times();
        gpu_frames.extend(done.iter().cloned());
        profiler.add_gpu(done);
    }
    profiler.new_frame();
    assert!(gpu_frames.len() >= 3, "{} frames timed", gpu_frames.len());
    let frame = &gpu_frames[gpu_frames.len() - 1];
    let labels: Vec<&str> = frame.passes.iter().map(|p| p.label.as_str()).collect();
    for wanted in ["shadow view", "main pass", "tonemap"] {
        assert!(labels.contains(&wanted), "{labels:?}");
    }
    // The passes ran in the order they were recorded, each taking time.
    for pair in frame.passes.windows(2) {
        assert!(pair[0].start_ns <= pair[1].start_ns, "{:?}", frame.passes);
    }
    assert!(frame.passes.iter().all(|p| p.end_ns >= p.start_ns));
    assert!(frame.passes.iter().any(|p| p.end_ns > p.start_ns));

    // In the profiler, a GPU lane in the frames that encoded them.
    let frames: Vec<_> = profiler
        .frame_lengths()
        .into_iter()
        .filter_map(|(i, _)| profiler.frame(i))
        .collect();
    let with_gpu = frames
        .iter()
        .filter(|f| f.lanes.iter().any(|l| l.name == GPU_LANE))
        .count();
    assert!(with_gpu >= 2, "{with_gpu} of {} frames", frames.len());
    let summary = summarise(&frames);
    let main = summary
        .iter()
        .find(|r| r.gpu && r.label == "main pass")
        .expect("the main pass on the GPU lane");
    assert!(main.calls_per_frame > 0.0 && main.mean_ns > 0.0);
    // Its CPU encode is a scope of its own.
    assert!(summary.iter().any(|r| !r.gpu && r.label == "main pass"));
    assert!(
        summary
            .iter()
            .any(|r| !r.gpu && r.label == "cull and batch")
    );
}
