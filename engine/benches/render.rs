//! Renderer CPU cost, no GPU needed.
//!
//! - `prepare/batched/10000` against `prepare/naive/10000`: the mesh pass's
//!   batcher on 10,000 loose instances (frustum cull, group by mesh, pack into
//!   reused buffers) against the naive twin: each visible instance's record
//!   written into a reused list for its own upload and its own draw.
//! - `prepare/100000` against `prepare_naive/100000`: one whole frame of a world
//!   of 100,000 mesh nodes drawing 300 meshes (300 batches), the world
//!   stepped between frames (outside the timer) so every node moved. The
//!   engine's way (the retained scene, culled on the GPU): the moving slots
//!   re-interpolated and their records copied as `queue.write_buffer` copies
//!   them into its staging memory (the upload's CPU cost). The naive twin
//!   extracts every mesh and prepares a draw per instance.
//!   `prepare_1pct_moving/100000`: the same world with 1% of its nodes
//!   moving. `prepare_frozen/100000`: the world at rest (its orbits removed
//!   and stepped twice), frames drawn without steps.
//! - `prepare_cpu_culled/100000`: the CPU-culled path (the reference the GPU
//!   path is tested against, and what every frame cost before): octree
//!   frustum query, interpolation, packing every visible instance straight
//!   into the GPU layout, grouping. `prepare_regroup/100000`: that path on
//!   the frozen world with the camera turning between two views each frame,
//!   so the visible set changes and the batcher groups every instance again.
//! - `floor/100000`: only the bytes the CPU-culled path must move per
//!   instance, streamed on all cores: [`FLOOR_BYTES_PER_INSTANCE`] (the
//!   previous and current world transforms and the material read, the
//!   instance record and a batch key written; 256 bytes today).
//!   `floor_retained/100000`: the bytes `prepare` moves per moving
//!   instance, [`RETAINED_FLOOR_BYTES`]: the two world transforms read and
//!   the record's rows written on all cores, then the records and their
//!   batches copied (read and written) on one thread as `write_buffer`
//!   does. Hosts differ 2-3x in memory speed; these say how close the paths
//!   are to them.
//! - `prepare_shadows/100000`: the sun's casters of the same frame, all
//!   cascades: the octree asked for each cascade's volume, every caster
//!   interpolated once and packed (a 64-byte caster record) for each cascade
//!   it touches, grouped by mesh.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use glam::{Affine3A, Quat, Vec3, Vec4};
use keel_engine::Camera;
use keel_engine::Primitive;
use keel_engine::render::{
    GpuCaster, GpuInstance, InstanceBatcher, MeshInstance, cascades, prepare_unbatched,
};
use keel_engine::scene::MAX_CASCADES;
use keel_engine::{Affine3x4, Material};
use rayon::prelude::*;

const INSTANCES: usize = 10_000;

/// Bytes the floor streams per instance: two world transforms and the
/// material read, the GPU record and a 16-byte batch key written.
const FLOOR_BYTES_PER_INSTANCE: usize = 2 * size_of::<Affine3x4>()
    + size_of::<Material>()
    + size_of::<GpuInstance>()
    + size_of::<[u32; 4]>();

/// A deterministic scene: instances scattered in a 120-unit cube around the
/// camera's target, so a realistic share (about half) falls outside the view.
fn scene(count: usize) -> Vec<MeshInstance> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..count)
        .map(|_| MeshInstance {
            cast_shadows: true,
            mesh: Primitive::ALL
                [(next() * Primitive::ALL.len() as f32) as usize % Primitive::ALL.len()]
            .into(),
            model: Affine3A::from_scale_rotation_translation(
                Vec3::splat(0.5 + next()),
                Quat::from_rotation_y(next() * std::f32::consts::TAU),
                Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5) * 120.0,
            ),
            material: Material::from_color(Vec4::new(next(), next(), next(), 1.0)),
        })
        .collect()
}

fn prepare(c: &mut Criterion) {
    let instances = scene(INSTANCES);
    let camera = Camera {
        position: Vec3::new(0.0, 20.0, 60.0),
        target: Vec3::ZERO,
        ..Camera::default()
    };
    let view_proj = camera.view_projection(16.0 / 9.0);

    let mut group = c.benchmark_group("render");
    group.throughput(Throughput::Elements(INSTANCES as u64));
    let mut batcher = InstanceBatcher::new();
    // Primitives only: no imported mesh to look up.
    let registry = keel_engine::assets::Registry::default();
    group.bench_with_input(
        BenchmarkId::new("prepare/batched", INSTANCES),
        &instances,
        |b, instances| {
            b.iter(|| {
                batcher.prepare(view_proj, black_box(instances), false, &registry);
                black_box((batcher.bytes().len(), batcher.groups().len()))
            });
        },
    );
    group.bench_with_input(
        BenchmarkId::new("prepare/naive", INSTANCES),
        &instances,
        |b, instances| {
            let mut draws = Vec::new();
            b.iter(|| {
                prepare_unbatched(view_proj, black_box(instances), &registry, &mut draws);
                black_box(draws.len())
            });
        },
    );
    group.finish();
}

/// Bytes the retained path moves per moving instance: two world transforms
/// read, the record's rows written, and the record and its batch copied to
/// the upload (read and written).
const RETAINED_FLOOR_BYTES: usize = 2 * size_of::<Affine3x4>()
    + size_of::<[[f32; 4]; 3]>()
    + 2 * (size_of::<GpuInstance>() + size_of::<u32>());

/// Distinct meshes in the 100,000-instance world: one batch each.
const MESHES: usize = 300;

/// 100,000 mesh nodes in 1,000 groups of which one in `still_per_moving + 1`
/// orbits (0: all), simulated so the orbiting groups moved in the last step:
/// interpolation, octree culling and packing all do real work. They draw 300
/// registered meshes, a third of them textured: 300 batches.
fn moving_world(count: usize, still_per_moving: usize) -> keel_engine::World {
    use keel_engine::MeshRef;
    use keel_engine::assets::TextureData;
    use keel_engine::{MeshRenderer, Orbit, Scene, Transform};
    let mut scene = Scene::new();
    let assets = scene.assets().clone();
    let textures = [0u8, 1].map(|k| {
        assets.add_texture(TextureData {
            name: format!("bench texture {k}"),
            width: 1,
            height: 1,
            mips: vec![vec![200, 100 * k, 50, 255]],
            srgb: true,
        })
    });
    let meshes: Vec<(MeshRef, Option<_>)> = (0..MESHES)
        .map(|k| {
            let mesh = assets.add_mesh(format!("bench mesh {k}"), Primitive::ALL[k % 5].mesh());
            (
                MeshRef::Asset(mesh),
                (k % 3 == 0).then_some(textures[k % 2]),
            )
        })
        .collect();
    for g in 0..count / 100 {
        let angle = g as f32 * 0.37;
        let root = scene.spawn(None, "group", Transform::IDENTITY).unwrap();
        let orbit = Orbit {
            center: Vec3::ZERO,
            radius: 20.0 + (g % 50) as f32,
            rate: 0.2,
            angle,
            face_forward: true,
        };
        if g % (still_per_moving + 1) == 0 {
            scene.insert(root, orbit).unwrap();
        } else {
            let at = Vec3::new(
                keel_engine::math::cos(angle),
                0.0,
                keel_engine::math::sin(angle),
            ) * orbit.radius;
            scene
                .set_local(root, Transform::from_translation(at))
                .unwrap();
        }
        for i in 0..100 {
            let at = Vec3::new((i % 10) as f32 * 0.6, (i / 10) as f32 * 0.6, 0.0);
            let node = scene
                .spawn(
                    Some(root),
                    "part",
                    Transform::from_translation(at).with_scale(Vec3::splat(0.5)),
                )
                .unwrap();
            let (mesh, texture) = meshes[(g * 7 + i) % MESHES];
            let material = Material {
                texture,
                ..Material::rgb((g % 7) as f32 / 7.0, (i % 5) as f32 / 5.0, 0.5)
            };
            scene
                .insert(node, MeshRenderer::new(mesh, material))
                .unwrap();
        }
    }
    // A low sun, so the cascades' volumes reach across the whole fleet.
    let sun = scene
        .spawn(
            None,
            "sun",
            Transform::IDENTITY.with_rotation(Quat::from_rotation_x(-0.6)),
        )
        .unwrap();
    let light = keel_engine::Light {
        kind: keel_engine::LightKind::Directional,
        color: Vec3::ONE,
        intensity: 2.0,
        cast_shadows: false,
    };
    scene.insert(sun, light).unwrap();
    let mut world = keel_engine::World::new(scene);
    world.step();
    world.step();
    world
}

/// One frame's CPU work for 100,000 instances: octree frustum query,
/// interpolation, packing and batching into reused buffers (`prepare`),
/// against extracting every mesh and preparing a draw per instance (`prepare_naive`).
fn frame(c: &mut Criterion) {
    const COUNT: usize = 100_000;
    // As the app runs it: this thread is one of rayon's workers, so the
    // spans of a frame start on it at once and the other core joins in.
    keel_engine::join_pool();
    let mut world = moving_world(COUNT, 0);
    let camera = Camera {
        position: Vec3::new(0.0, 30.0, 90.0),
        target: Vec3::ZERO,
        ..Camera::default()
    };
    let aspect = 16.0 / 9.0;
    let view_proj = camera.view_projection(aspect);
    let overlays = keel_engine::Overlays::default();
    let mut group = c.benchmark_group("render");
    group.throughput(Throughput::Elements(COUNT as u64));
    group.sample_size(20);
    let mut buffers = keel_engine::Extractor::default();
    let mut cpu_buffers = keel_engine::Extractor::default();
    cpu_buffers.set_cpu_culling(true);
    let mut batcher = InstanceBatcher::new();
    let mut staging: Vec<u8> = Vec::new();
    let assets = world.scene().assets().clone();
    // The camera's frame alone here; the shadow casters have their own bench.
    world.scene_mut().environment_mut().shadows.enabled = false;
    // One frame's CPU work: extraction, the batcher (loose and packed
    // instances), and the retained slots' upload copied as wgpu's
    // `write_buffer` copies it.
    let mut prepare =
        |buffers: &mut keel_engine::Extractor, world: &mut keel_engine::World, camera: Camera| {
            let frame = buffers.extract_world(world, camera, aspect, &overlays);
            batcher.prepare_frame(camera.view_projection(aspect), &frame, &assets.registry());
            let mut uploaded = 0;
            if let Some(retained) = &frame.retained {
                // As the renderer uploads: everything, or the dirty records
                // gathered with their slots (the GPU scatters them).
                staging.clear();
                match retained.dirty {
                    None => {
                        staging.extend_from_slice(bytemuck::cast_slice(retained.records));
                        staging.extend_from_slice(bytemuck::cast_slice(retained.batch_of));
                    }
                    Some(slots) => {
                        for &slot in slots {
                            let record = &retained.records[slot as usize];
                            staging.extend_from_slice(bytemuck::bytes_of(record));
                        }
                        staging.extend_from_slice(bytemuck::cast_slice(slots));
                    }
                }
                uploaded = staging.len();
            }
            black_box((batcher.bytes().len(), batcher.groups().len(), uploaded))
        };
    // Times `iters` frames, the world stepped before each outside the timer.
    let mut moving_frames =
        |buffers: &mut keel_engine::Extractor, world: &mut keel_engine::World, iters: u64| {
            let mut total = std::time::Duration::ZERO;
            for _ in 0..iters {
                world.step();
                let start = std::time::Instant::now();
                prepare(buffers, world, camera);
                total += start.elapsed();
            }
            total
        };
    group.bench_function(BenchmarkId::new("prepare", COUNT), |b| {
        b.iter_custom(|iters| moving_frames(&mut buffers, &mut world, iters));
    });
    group.bench_function(BenchmarkId::new("prepare_cpu_culled", COUNT), |b| {
        b.iter_custom(|iters| moving_frames(&mut cpu_buffers, &mut world, iters));
    });
    let mut naive_buffers = keel_engine::Extractor::default();
    let mut draws = Vec::new();
    group.bench_function(BenchmarkId::new("prepare_naive", COUNT), |b| {
        b.iter_custom(|iters| {
            let mut total = std::time::Duration::ZERO;
            for _ in 0..iters {
                world.step();
                let start = std::time::Instant::now();
                let alpha = world.clock().alpha();
                let frame = naive_buffers.extract(world.scene(), alpha, camera, &overlays);
                prepare_unbatched(view_proj, frame.instances, &assets.registry(), &mut draws);
                black_box(draws.len());
                total += start.elapsed();
            }
            total
        });
    });
    drop(naive_buffers);
    let mut few_moving = moving_world(COUNT, 99);
    few_moving.scene_mut().environment_mut().shadows.enabled = false;
    group.bench_function(BenchmarkId::new("prepare_1pct_moving", COUNT), |b| {
        b.iter_custom(|iters| moving_frames(&mut buffers, &mut few_moving, iters));
    });
    drop(few_moving);
    // At rest: the orbits removed and two steps (the last moved nothing).
    let orbiting = world
        .scene()
        .components()
        .parts::<keel_engine::Orbit>()
        .0
        .to_vec();
    for root in orbiting {
        world.scene_mut().remove::<keel_engine::Orbit>(root);
    }
    world.step();
    world.step();
    prepare(&mut buffers, &mut world, camera);
    group.bench_function(BenchmarkId::new("prepare_frozen", COUNT), |b| {
        b.iter(|| prepare(&mut buffers, &mut world, camera));
    });
    // The same, the camera turning between two views each frame: the
    // visible set changes, so the batcher groups every key again (a steady
    // view keeps last frame's grouping).
    let turned = Camera {
        target: Vec3::new(12.0, 0.0, 0.0),
        ..camera
    };
    let mut flip = false;
    group.bench_function(BenchmarkId::new("prepare_regroup", COUNT), |b| {
        b.iter(|| {
            flip = !flip;
            let seen = if flip { turned } else { camera };
            prepare(&mut cpu_buffers, &mut world, seen)
        });
    });
    assert_eq!(FLOOR_BYTES_PER_INSTANCE, 256, "the doc's byte count");
    let worlds = vec![Affine3x4::from_affine(&Affine3A::from_translation(Vec3::ONE)); COUNT];
    let previous = worlds.clone();
    let materials = vec![Material::default(); COUNT];
    let mut records = vec![GpuInstance::default(); COUNT];
    let mut keys = vec![[0u32; 4]; COUNT];
    group.bench_function(BenchmarkId::new("floor", COUNT), |b| {
        b.iter(|| {
            (records.par_iter_mut().zip(keys.par_iter_mut()))
                .zip(
                    worlds
                        .par_iter()
                        .zip(previous.par_iter())
                        .zip(materials.par_iter()),
                )
                .enumerate()
                .for_each(|(i, ((r, key), ((w, p), m)))| {
                    r.rows[0] = w.rows[0].to_array();
                    r.rows[1] = p.rows[1].to_array();
                    r.rows[2] = (w.rows[2] + p.rows[0] + p.rows[2]).to_array();
                    r.color = m.base_color.to_array();
                    r.emissive = m.emissive.to_array();
                    r.metal_rough = m.roughness.to_bits();
                    *key = [i as u32, m.metallic.to_bits(), 0, 0];
                });
            black_box((&records, &keys));
        });
    });
    assert_eq!(RETAINED_FLOOR_BYTES, 312, "the doc's byte count");
    let batch_of = vec![0u32; COUNT];
    let mut staging: Vec<u8> = Vec::with_capacity(COUNT * 84);
    group.bench_function(BenchmarkId::new("floor_retained", COUNT), |b| {
        b.iter(|| {
            records
                .par_iter_mut()
                .zip(worlds.par_iter().zip(previous.par_iter()))
                .for_each(|(r, (w, p))| {
                    r.rows[0] = (w.rows[0] + p.rows[0]).to_array();
                    r.rows[1] = (w.rows[1] + p.rows[1]).to_array();
                    r.rows[2] = (w.rows[2] + p.rows[2]).to_array();
                });
            staging.clear();
            staging.extend_from_slice(bytemuck::cast_slice(&records));
            staging.extend_from_slice(bytemuck::cast_slice(&batch_of));
            black_box(&staging);
        });
    });
    drop((worlds, previous, materials, batch_of, staging));
    world.scene_mut().environment_mut().shadows.enabled = true;
    let settings = world.scene().environment().shadows;
    let mut cascade_batchers: Vec<InstanceBatcher<GpuCaster>> =
        (0..MAX_CASCADES).map(|_| InstanceBatcher::new()).collect();
    let mut cast = 0;
    group.bench_function(BenchmarkId::new("prepare_shadows", COUNT), |b| {
        b.iter(|| {
            let sun = Vec3::new(
                0.0,
                -keel_engine::math::sin(0.6f32),
                -keel_engine::math::cos(0.6f32),
            );
            let set = cascades(&camera, aspect, sun, &settings);
            let casters = buffers.extract_shadow_casters(&mut world, camera, aspect);
            cast = 0;
            for (i, batcher) in cascade_batchers.iter_mut().enumerate().take(set.count) {
                batcher.prepare_casters(set.view_proj[i], &[], casters[i], &assets.registry());
                cast += batcher.drawn();
            }
            black_box(cast)
        });
    });
    eprintln!("prepare_shadows: {cast} casters packed over the cascades");
    group.finish();
}

criterion_group!(benches, prepare, frame);
criterion_main!(benches);
