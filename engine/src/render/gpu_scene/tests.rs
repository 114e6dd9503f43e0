//! The cull pass against the CPU's sphere test, on 1,000 random
//! scene/camera pairs: the GPU keeps every slot the CPU keeps, each once
//! and in its batch's run, and any slot it keeps besides is within the
//! rounding slack of a plane (a conservative superset, documented in
//! `cull.wgsl`). Between the cameras records move, uploaded in runs or
//! scattered by the GPU: the culling sees where they moved to.

use glam::{Mat4, Quat, Vec3};

use super::*;
use crate::assets::{MeshRef, Primitive};
use crate::render::{Camera, FREE_SLOT, GpuContext, InstanceRecord};
use crate::scene::Affine3x4;

fn gpu() -> Option<GpuContext> {
    match GpuContext::headless(wgpu::Backends::all()) {
        Ok(ctx) => Some(ctx),
        Err(e) if std::env::var("KEEL_REQUIRE_GPU").as_deref() == Ok("1") => {
            panic!("KEEL_REQUIRE_GPU=1 but no adapter: {e}")
        }
        Err(e) => {
            eprintln!("skipping: {e}");
            None
        }
    }
}

struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    fn range(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * self.unit()
    }

    fn vec3(&mut self, half: f32) -> Vec3 {
        Vec3::new(
            self.range(-half, half),
            self.range(-half, half),
            self.range(-half, half),
        )
    }
}

/// Copies `bytes` of `buffer` back as words.
fn read(ctx: &GpuContext, buffer: &wgpu::Buffer, bytes: u64) -> Vec<u32> {
    let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("test readback"),
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, bytes);
    ctx.queue.submit([encoder.finish()]);
    let slice = staging.slice(..);
    slice.map_async(wgpu::MapMode::Read, |r| r.expect("map the readback"));
    ctx.device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("wait for the GPU");
    let words = bytemuck::cast_slice(&slice.get_mapped_range().expect("mapped")).to_vec();
    let problems = ctx.errors.take();
    assert!(problems.is_empty(), "{problems:?}");
    staging.unmap();
    words
}

const BATCHES: usize = 7;

/// A scene of `count` slots over [`BATCHES`] batches (primitives, some
/// slots free), scattered in a 60-unit cube, rotated and scaled.
fn scene(rng: &mut Rng, count: usize) -> (Vec<GpuInstance>, Vec<u32>, Vec<BatchKey>, Vec<u32>) {
    let batches: Vec<BatchKey> = (0..BATCHES)
        .map(|i| BatchKey {
            double_sided: i >= Primitive::ALL.len(),
            ..BatchKey::depth_only(MeshRef::Primitive(Primitive::ALL[i % Primitive::ALL.len()]))
        })
        .collect();
    let mut members = vec![0; BATCHES];
    let mut records = Vec::new();
    let mut batch_of = Vec::new();
    for _ in 0..count {
        let model = Affine3x4::from_affine(&glam::Affine3A::from_scale_rotation_translation(
            Vec3::new(
                rng.range(0.1, 3.0),
                rng.range(0.1, 3.0),
                rng.range(0.1, 3.0),
            ),
            Quat::from_euler(
                glam::EulerRot::YXZ,
                rng.range(-3.0, 3.0),
                rng.range(-1.5, 1.5),
                rng.range(-3.0, 3.0),
            ),
            rng.vec3(30.0),
        ));
        records.push(GpuInstance::from_rows(&model, &crate::Material::default()));
        if rng.unit() < 0.1 {
            batch_of.push(FREE_SLOT);
        } else {
            let batch = (rng.unit() * BATCHES as f32) as usize % BATCHES;
            members[batch] += 1;
            batch_of.push(batch as u32);
        }
    }
    (records, batch_of, batches, members)
}

fn mesh_of(key: &BatchKey) -> Option<IndexedMesh> {
    let MeshRef::Primitive(primitive) = key.mesh else {
        return None;
    };
    Some(IndexedMesh {
        indices: 0..36,
        base_vertex: 0,
        radius: primitive.bounding_radius(),
    })
}

/// Each slot's caster batch (one per primitive, depth only): every third
/// slot casts none.
fn casters(batch_of: &[u32]) -> (Vec<u32>, Vec<BatchKey>, Vec<u32>) {
    let keys: Vec<BatchKey> = Primitive::ALL
        .map(|p| BatchKey::depth_only(MeshRef::Primitive(p)))
        .to_vec();
    let mut members = vec![0; keys.len()];
    let caster_of = batch_of
        .iter()
        .enumerate()
        .map(|(slot, &batch)| {
            if batch == FREE_SLOT || slot % 3 == 0 {
                return FREE_SLOT;
            }
            let caster = batch as usize % keys.len();
            members[caster] += 1;
            caster as u32
        })
        .collect();
    (caster_of, keys, members)
}

fn random_view(rng: &mut Rng) -> Mat4 {
    let camera = Camera {
        position: rng.vec3(40.0),
        target: rng.vec3(10.0),
        fov_y: rng.range(0.3, 2.0),
        near: rng.range(0.05, 2.0),
        far: rng.range(10.0, 120.0),
        ..Camera::default()
    };
    camera.view_projection(rng.range(0.5, 2.5))
}

/// What the GPU kept in `view` against the CPU's test of every slot
/// `of` puts in one of `keys`; returns (kept by both, kept by the GPU's
/// slack only).
fn check_view(
    ctx: &GpuContext,
    scene: &GpuScene,
    view: Option<usize>,
    view_proj: Mat4,
    records: &[GpuInstance],
    (of, keys): (&[u32], &[BatchKey]),
    what: &str,
) -> (usize, usize) {
    let draws = scene.view(view).expect("the view was prepared");
    let args = read(ctx, draws.args, (keys.len() * ARGS_WORDS * 4) as u64);
    let visible = read(ctx, draws.visible, (records.len() * 4) as u64);
    assert_eq!(draws.draws.len(), keys.len(), "{what}: every batch draws");
    let mut found = vec![false; records.len()];
    for draw in draws.draws {
        let b = draw.args_offset as usize / (ARGS_WORDS * 4);
        let count = args[b * ARGS_WORDS + 1];
        assert_eq!(args[b * ARGS_WORDS], 36, "{what}: index count of batch {b}");
        assert!(count <= draw.run.end - draw.run.start);
        for &slot in &visible[draw.run.start as usize..(draw.run.start + count) as usize] {
            let slot = slot as usize;
            assert_eq!(of[slot], b as u32, "{what}: slot {slot} in its batch's run");
            assert!(!found[slot], "{what}: slot {slot} listed twice");
            found[slot] = true;
        }
    }
    let frustum = Frustum::from_view_projection(&view_proj);
    let (mut kept, mut extra) = (0, 0);
    for (slot, &got) in found.iter().enumerate() {
        if of[slot] == FREE_SLOT {
            assert!(!got, "{what}: slot {slot}, in no batch, is never drawn");
            continue;
        }
        let radius = mesh_of(&keys[of[slot] as usize]).unwrap().radius;
        if sphere_visible(&frustum, &records[slot], radius) {
            assert!(got, "{what}: slot {slot} culled on the GPU only");
            kept += 1;
        } else if got {
            // Only within the slack: a sphere 0.1% larger touches.
            assert!(
                sphere_visible(&frustum, &records[slot], radius * 1.001 + 1e-3),
                "{what}: slot {slot} kept far outside"
            );
            extra += 1;
        }
    }
    (kept, extra)
}

#[test]
fn the_gpu_keeps_what_the_cpu_sphere_test_keeps() {
    let Some(ctx) = gpu() else { return };
    let device = &ctx.device;
    let shaders = ShaderLibrary::default();
    let mut scene_gpu = GpuScene::new(device, &shaders);
    let instance_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: None,
        entries: &[super::super::buffer::vertex_storage(0)],
    });
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut pairs, mut kept, mut extra) = (0, 0, 0);
    for s in 0..20 {
        let (mut records, batch_of, batches, members) = scene(&mut rng, 200 + 40 * s);
        let (caster_of, caster_batches, caster_members) = casters(&batch_of);
        let mut dirty = Vec::new();
        for c in 0..50u64 {
            // After the first frame, some records move: one run of them
            // (copied in place), or every seventh (scattered by the GPU).
            dirty.clear();
            if c % 5 == 1 {
                dirty.extend(40..70);
            } else if c > 0 {
                dirty.extend((c as u32 % 7..records.len() as u32).step_by(7));
            }
            for &slot in &dirty {
                let at = rng.vec3(30.0);
                let rows = &mut records[slot as usize].rows;
                (rows[0][3], rows[1][3], rows[2][3]) = (at.x, at.y, at.z);
            }
            // The camera, and a shadow view (its casters' batches).
            let (view_proj, shadow) = (random_view(&mut rng), random_view(&mut rng));
            let retained = RetainedInstances {
                id: 1 + s as u64,
                epoch: c + 1,
                records: &records,
                batch_of: &batch_of,
                batches: &batches,
                members: &members,
                caster_of: &caster_of,
                caster_batches: &caster_batches,
                caster_members: &caster_members,
                dirty: (c > 0).then_some(&dirty[..]),
                batches_changed: c == 0,
            };
            scene_gpu.prepare(
                device,
                &ctx.queue,
                &retained,
                view_proj,
                &[(2, shadow)],
                &instance_layout,
                mesh_of,
            );
            let mut encoder = device.create_command_encoder(&Default::default());
            scene_gpu.cull(&mut encoder, &GpuTimer::default());
            ctx.queue.submit([encoder.finish()]);
            let problems = ctx.errors.take();
            assert!(problems.is_empty(), "{problems:?}");
            for (view, matrix, set) in [
                (None, view_proj, (&batch_of[..], &batches[..])),
                (Some(2), shadow, (&caster_of[..], &caster_batches[..])),
            ] {
                let what = format!("scene {s} camera {c} view {view:?}");
                let (k, e) = check_view(&ctx, &scene_gpu, view, matrix, &records, set, &what);
                kept += k;
                extra += e;
            }
            pairs += 1;
        }
    }
    eprintln!("{pairs} pairs: {kept} slots kept by both, {extra} by the GPU's slack only");
    assert_eq!(pairs, 1000);
    assert!(kept > 10_000, "the cameras must see something: {kept}");
}
