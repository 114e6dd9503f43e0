//! Renderer CPU cost: preparing 10,000 mesh instances for the GPU.
//!
//! `prepare/batched` is the mesh pass's path (frustum cull, bucket by primitive,
//! pack into one reused byte buffer, one draw group per primitive);
//! `prepare/naive` is what it replaces (cull, then one freshly allocated upload
//! and one draw per visible instance). Both run on the CPU only, so the bench
//! needs no GPU.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use glam::{Affine3A, Quat, Vec3, Vec4};
use keel_engine::assets::Primitive;
use keel_engine::render::{Camera, InstanceBatcher, MeshInstance, prepare_unbatched};

const INSTANCES: usize = 10_000;

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
            mesh: Primitive::ALL
                [(next() * Primitive::ALL.len() as f32) as usize % Primitive::ALL.len()],
            model: Affine3A::from_scale_rotation_translation(
                Vec3::splat(0.5 + next()),
                Quat::from_rotation_y(next() * std::f32::consts::TAU),
                Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5) * 120.0,
            ),
            color: Vec4::new(next(), next(), next(), 1.0),
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
    group.bench_with_input(
        BenchmarkId::new("prepare/batched", INSTANCES),
        &instances,
        |b, instances| {
            b.iter(|| {
                batcher.prepare(view_proj, black_box(instances));
                black_box((batcher.bytes().len(), batcher.groups().len()))
            });
        },
    );
    group.bench_with_input(
        BenchmarkId::new("prepare/naive", INSTANCES),
        &instances,
        |b, instances| {
            b.iter(|| {
                let draws = prepare_unbatched(view_proj, black_box(instances));
                black_box(draws.len())
            });
        },
    );
    group.finish();
}

criterion_group!(benches, prepare);
criterion_main!(benches);
