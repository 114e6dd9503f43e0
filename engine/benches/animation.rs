//! Skeletal animation through the dirty-flag hierarchy, measured (criterion
//! group `animation`).
//!
//! A rig is a glTF model written here: 68 bones (a root and four chains of
//! 17), one skin over all of them on a small skinned mesh, one clip rotating
//! every bone (30 keys a second, LINEAR). The crowd is 4,000 instances, each with an `Animator`.
//!
//! - `crowd/4000`: one step: every animator samples its clip and writes the
//!   bones that moved (`set_local`), the dirty flag propagates, and every rig's
//!   joint matrices (world x inverse bind) are packed into one buffer.
//! - `crowd_half_paused/4000`: the same with every other animator paused: a
//!   paused animator writes nothing, so its bones are not recomputed.
//! - `floor/4000`: only the bytes a step must move per bone, streamed on all
//!   cores in rig order as the crowd runs: the local read and written
//!   (2 x `Transform`), the world written and read back (2 x `Affine3x4`: 3x4
//!   rows, as the scene stores them; the previous world is the column
//!   swapped, not copied), the joint matrix written (`JointMatrix`: the rows
//!   the vertex shader reads): [`FLOOR_BYTES_PER_BONE`], 224 bytes today
//!   (a `Transform` is 40: glam's scalar math aligns its quaternion to 4).
//!   Hosts differ 2-3x in memory speed; this says how close `crowd` is to it.
//! - `arithmetic/4000`: only the arithmetic a step must do per bone, on all
//!   cores in rig order as the crowd runs: the clip's two keys blended
//!   (rotations two at a time, as the crowd's sampler does), the local
//!   composed and multiplied by its parent's world, the world by the
//!   inverse bind; each rig's keys, worlds and joints in a thread's own
//!   buffers (in L1), no bookkeeping and no stream of columns. Checked
//!   before timing to give the crowd's joint matrices. With `floor`, it
//!   says what the crowd costs beyond the two things it cannot skip.
//! - `crowd_naive/4000`: the naive twin, on all cores like the crowd (rigs
//!   split across rayon's pool): per rig, each bone's channel looked up in a
//!   table built once at load, keys found by binary search, world matrices
//!   computed recursively from the root through child lists into per-thread
//!   buffers (made once per rayon split: a handful a step), joint matrices
//!   written into one buffer allocated once; checked before timing to give
//!   the crowd's joint matrices. It lacks
//!   the dirty flag (every bone recomputed), the packed columns and the
//!   sampler's shared key cursors.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use criterion::{Criterion, criterion_group, criterion_main};
use glam::{Mat4, Quat, Vec3};
use keel_engine::Systems;
use keel_engine::assets::{Clip, Sample, slerp_pair};
use keel_engine::scene::{JointMatrix, JointPalette};
use keel_engine::{Affine3x4, Animator, Scene, Transform};
use rayon::prelude::*;

#[path = "common/twin.rs"]
mod twin;

const BONES: usize = 68;
const RIGS: usize = 4_000;
const KEYS: usize = 31;

fn parent_of(bone: usize) -> Option<usize> {
    match bone {
        0 => None,
        b if (b - 1) % 17 == 0 => Some(0),
        b => Some(b - 1),
    }
}

/// The rig as glTF JSON with one embedded buffer.
fn rig_gltf() -> String {
    let mut bytes: Vec<u8> = Vec::new();
    let times: Vec<f32> = (0..KEYS).map(|k| k as f32 / 30.0).collect();
    bytes.extend(times.iter().flat_map(|t| t.to_le_bytes()));
    let rotations_at = bytes.len();
    for bone in 0..BONES {
        for (k, t) in times.iter().enumerate() {
            let angle = keel_engine::math::sin(t * 6.0 + bone as f32 * 0.3) * 0.4 + k as f32 * 0.0;
            let q = Quat::from_rotation_z(angle);
            bytes.extend(q.to_array().iter().flat_map(|v| v.to_le_bytes()));
        }
    }
    let ibm_at = bytes.len();
    for bone in 0..BONES {
        let ibm = Mat4::from_translation(Vec3::new(0.0, -(bone as f32) * 0.1, 0.0));
        bytes.extend(ibm.to_cols_array().iter().flat_map(|v| v.to_le_bytes()));
    }
    // The skinned mesh: one triangle a bone, each corner on that bone.
    let mesh_at = bytes.len();
    for bone in 0..BONES {
        let y = bone as f32 * 0.1;
        for corner in [[0.0, y, 0.0], [0.05, y, 0.0], [0.0, y + 0.05, 0.0]] {
            bytes.extend(corner.iter().flat_map(|v: &f32| v.to_le_bytes()));
        }
    }
    let joints_at = bytes.len();
    for bone in 0..BONES {
        for _ in 0..3 {
            for j in [bone as u16, 0, 0, 0] {
                bytes.extend(j.to_le_bytes());
            }
        }
    }
    let weights_at = bytes.len();
    for _ in 0..BONES * 3 {
        bytes.extend([1.0f32, 0.0, 0.0, 0.0].iter().flat_map(|v| v.to_le_bytes()));
    }
    let mut nodes: Vec<serde_json::Value> = (0..BONES)
        .map(|b| {
            let children: Vec<usize> = (0..BONES).filter(|&c| parent_of(c) == Some(b)).collect();
            let mut node =
                serde_json::json!({ "name": format!("bone{b}"), "translation": [0.0, 0.1, 0.0] });
            if !children.is_empty() {
                node["children"] = children.into();
            }
            node
        })
        .collect();
    nodes.push(serde_json::json!({ "name": "body", "mesh": 0, "skin": 0 }));
    let key_bytes = KEYS * 16;
    let mut accessors = vec![serde_json::json!({
        "bufferView": 0, "componentType": 5126, "count": KEYS, "type": "SCALAR",
        "min": [0.0], "max": [times[KEYS - 1]]
    })];
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    for bone in 0..BONES {
        accessors.push(serde_json::json!({
            "bufferView": 1, "byteOffset": bone * key_bytes, "componentType": 5126,
            "count": KEYS, "type": "VEC4"
        }));
        samplers
            .push(serde_json::json!({ "input": 0, "output": bone + 1, "interpolation": "LINEAR" }));
        channels.push(
            serde_json::json!({ "sampler": bone, "target": { "node": bone, "path": "rotation" } }),
        );
    }
    accessors.push(serde_json::json!({
        "bufferView": 2, "componentType": 5126, "count": BONES, "type": "MAT4"
    }));
    let corners = BONES * 3;
    accessors.push(serde_json::json!({
        "bufferView": 3, "componentType": 5126, "count": corners, "type": "VEC3",
        "min": [0.0, 0.0, 0.0], "max": [0.05, BONES as f32 * 0.1, 0.0]
    }));
    accessors.push(serde_json::json!({
        "bufferView": 4, "componentType": 5123, "count": corners, "type": "VEC4"
    }));
    accessors.push(serde_json::json!({
        "bufferView": 5, "componentType": 5126, "count": corners, "type": "VEC4"
    }));
    let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
    serde_json::json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": [0, BONES] }],
        "meshes": [{ "primitives": [{ "attributes": {
            "POSITION": BONES + 2, "JOINTS_0": BONES + 3, "WEIGHTS_0": BONES + 4
        } }] }],
        "nodes": nodes,
        "skins": [{ "joints": (0..BONES).collect::<Vec<_>>(), "inverseBindMatrices": BONES + 1 }],
        "animations": [{ "name": "Wave", "samplers": samplers, "channels": channels }],
        "accessors": accessors,
        "bufferViews": [
            { "buffer": 0, "byteOffset": 0, "byteLength": rotations_at },
            { "buffer": 0, "byteOffset": rotations_at, "byteLength": ibm_at - rotations_at },
            { "buffer": 0, "byteOffset": ibm_at, "byteLength": mesh_at - ibm_at },
            { "buffer": 0, "byteOffset": mesh_at, "byteLength": joints_at - mesh_at },
            { "buffer": 0, "byteOffset": joints_at, "byteLength": weights_at - joints_at },
            { "buffer": 0, "byteOffset": weights_at, "byteLength": bytes.len() - weights_at }
        ],
        "buffers": [{ "byteLength": bytes.len(), "uri": format!("data:application/octet-stream;base64,{data}") }]
    })
    .to_string()
}

fn rig_path() -> PathBuf {
    let path = std::env::temp_dir().join(format!("keel-bench-rig-{}.gltf", std::process::id()));
    std::fs::write(&path, rig_gltf()).expect("temp dir writable");
    path
}

/// Where rig `i` stands: a grid 64 rigs wide.
fn place(i: usize) -> Vec3 {
    Vec3::new((i % 64) as f32, 0.0, (i / 64) as f32)
}

/// The crowd: `RIGS` instances in a grid, each animated (at a different phase).
fn crowd(path: &Path, paused_every: Option<usize>) -> Scene {
    let mut scene = Scene::new();
    for i in 0..RIGS {
        let at = place(i);
        let (root, _) = scene
            .spawn_model(
                None,
                format!("rig{i}"),
                Transform::from_translation(at),
                path,
            )
            .expect("the rig loads");
        let mut animator = Animator::new("Wave");
        animator.time = i as f64 * 0.013;
        animator.playing = paused_every.is_none_or(|n| i % n != 0);
        scene.insert(root, animator).expect("alive");
    }
    scene.propagate();
    scene
}

/// One step the way the engine runs it, then the joint matrices packed.
fn step(systems: &mut Systems, scene: &mut Scene, palette: &mut JointPalette) {
    systems.run_step(
        scene,
        keel_engine::physics::Space::EMPTY,
        keel_engine::physics::Bodies::EMPTY,
        1.0 / 60.0,
    );
    scene.clear_changed();
    scene.pack_joints(1.0, palette);
}

/// Bytes the floor streams per bone: the local read and written, the world
/// written and read back, the joint matrix written.
const FLOOR_BYTES_PER_BONE: usize =
    2 * size_of::<Transform>() + 2 * size_of::<Affine3x4>() + size_of::<JointMatrix>();

/// The naive twin's rig: child lists, the rest pose, the clip, the inverse
/// binds, and each bone's channel (looked up by name once, at load).
struct NaiveRig {
    children: Vec<Vec<usize>>,
    rest: Vec<Transform>,
    clip: Clip,
    inverse_bind: Vec<Mat4>,
    channel_of: Vec<Option<usize>>,
}

/// A thread's buffers for posing one rig after another.
struct NaiveScratch {
    locals: Vec<Transform>,
    worlds: Vec<Mat4>,
}

/// Poses one rig standing at `place` at `t` into `joints` (world x inverse
/// bind per bone).
fn naive_pose(
    rig: &NaiveRig,
    place: Mat4,
    t: f32,
    scratch: &mut NaiveScratch,
    joints: &mut [Mat4],
) {
    let locals = &mut scratch.locals;
    locals.clone_from(&rig.rest);
    for (bone, channel) in rig.channel_of.iter().enumerate() {
        if let Some(c) = *channel
            && let Some(Sample::Quat(q)) = rig.clip.sample(c, t, &mut 0)
        {
            locals[bone].rotation = q;
        }
    }
    fn walk(rig: &NaiveRig, locals: &[Transform], bone: usize, parent: Mat4, out: &mut [Mat4]) {
        let l = &locals[bone];
        let world =
            parent * Mat4::from_scale_rotation_translation(l.scale, l.rotation, l.translation);
        out[bone] = world;
        for &child in &rig.children[bone] {
            walk(rig, locals, child, world, out);
        }
    }
    walk(rig, locals, 0, place, &mut scratch.worlds);
    for ((joint, world), ibm) in joints
        .iter_mut()
        .zip(&scratch.worlds)
        .zip(&rig.inverse_bind)
    {
        *joint = *world * *ibm;
    }
}

/// The rig as the arithmetic row reads it: each bone's rotation keys
/// (bone after bone), the key times, the rest locals, parents and inverse
/// binds.
struct ArithmeticRig {
    keys: Vec<Quat>,
    times: Vec<f32>,
    rest: Vec<Transform>,
    parent: Vec<Option<usize>>,
    inverse_bind: Vec<Affine3x4>,
}

impl ArithmeticRig {
    /// From the naive twin's rig: every bone has a rotation channel, its
    /// keys on the clip's one run of times.
    fn new(rig: &NaiveRig) -> Self {
        let clip = &rig.clip;
        let mut keys = Vec::new();
        // The skin's joints are the model's first nodes (the body follows).
        for channel in &rig.channel_of[..BONES] {
            let channel = &clip.channels[channel.expect("every bone is animated")];
            let values = &clip.values[channel.values.start as usize..channel.values.end as usize];
            keys.extend(values.chunks_exact(4).map(Quat::from_slice));
        }
        let keys_of = &clip.channels[0].keys;
        let parent = (0..BONES)
            .map(|b| (0..BONES).find(|&p| rig.children[p].contains(&b)))
            .collect();
        ArithmeticRig {
            keys,
            times: clip.times[keys_of.start as usize..keys_of.end as usize].to_vec(),
            rest: rig.rest[..BONES].to_vec(),
            parent,
            inverse_bind: (rig.inverse_bind.iter())
                .map(|m| Affine3x4::from_affine(&glam::Affine3A::from_mat4(*m)))
                .collect(),
        }
    }

    /// Poses one rig standing at `place` at clip time `t` into `joints`,
    /// its worlds in `worlds` (a bone's parent comes before it).
    fn pose(
        &self,
        place: &Affine3x4,
        t: f32,
        worlds: &mut [Affine3x4],
        joints: &mut [JointMatrix],
    ) {
        let n = self.times.len();
        let k = self.times.partition_point(|&key| key <= t).clamp(1, n - 1) - 1;
        let u = ((t - self.times[k]) / (self.times[k + 1] - self.times[k])).clamp(0.0, 1.0);
        let key = |bone: usize, k: usize| self.keys[bone * n + k];
        let bones = self.rest.len();
        for pair in (0..bones).step_by(2) {
            let other = (pair + 1).min(bones - 1);
            let turns = slerp_pair(
                [key(pair, k), key(other, k)],
                [key(pair, k + 1), key(other, k + 1)],
                u,
            );
            for (bone, rotation) in [pair, other].into_iter().zip(turns) {
                let local = Affine3x4::from_transform(&self.rest[bone].with_rotation(rotation));
                let parent = self.parent[bone].map_or(place, |p| &worlds[p]);
                let world = parent.mul(&local);
                worlds[bone] = world;
                joints[bone] = JointMatrix::from_rows(&world.mul(&self.inverse_bind[bone]));
            }
        }
    }
}

/// Rig `r`'s clip time at play time `time` (its phase `r x 0.013`, as the
/// crowd's animators), for the twin and the arithmetic row.
fn rig_time(r: usize, time: f32, duration: f32) -> f32 {
    (time + r as f32 * 0.013) % duration
}

/// Where rig `r` stands, as a matrix, and its clip time at play time `time`.
fn rig_at(r: usize, time: f32, duration: f32) -> (Affine3x4, f32) {
    let at = Affine3x4::from_transform(&Transform::from_translation(place(r)));
    (at, rig_time(r, time, duration))
}

/// One step of the arithmetic row at play time `time`: rigs split across
/// rayon's pool, each thread posing rig after rig into its own buffers.
fn arithmetic_step(rig: &ArithmeticRig, time: f32, duration: f32) {
    (0..RIGS).into_par_iter().for_each_init(
        || {
            let bones = rig.rest.len();
            (
                vec![Affine3x4::IDENTITY; bones],
                vec![JointMatrix::default(); bones],
            )
        },
        |(worlds, joints), r| {
            let (at, t) = rig_at(r, time, duration);
            rig.pose(&at, t, worlds, joints);
            black_box(joints);
        },
    );
}

/// Fails unless the arithmetic row's joint matrices at play time `time` are
/// the crowd's `palette` ([`twin::assert_close`]).
fn assert_arithmetic_same(rig: &ArithmeticRig, palette: &JointPalette, time: f32, duration: f32) {
    let bones = rig.rest.len();
    let mut worlds = vec![Affine3x4::IDENTITY; bones];
    let mut joints = vec![JointMatrix::default(); bones];
    for (r, packed) in palette.matrices.chunks(BONES).enumerate() {
        let (at, t) = rig_at(r, time, duration);
        rig.pose(&at, t, &mut worlds, &mut joints);
        for (j, (p, a)) in packed.iter().zip(&joints).enumerate() {
            let what = format!("rig {r} joint {j}");
            twin::assert_close(p.rows.as_flattened(), a.rows.as_flattened(), &what);
        }
    }
}

/// The naive twin's rig, read from the model at `path`.
fn naive_rig(path: &Path) -> NaiveRig {
    let model = keel_engine::Assets::new()
        .load_model(path)
        .expect("the rig loads");
    let data = &model.data;
    let names: Vec<&str> = data.nodes.iter().map(|n| n.name.as_str()).collect();
    let clip = data.animations[0].clone();
    NaiveRig {
        channel_of: names
            .iter()
            .map(|name| (clip.channels.iter()).position(|ch| names[ch.node as usize] == *name))
            .collect(),
        children: (0..data.nodes.len())
            .map(|b| {
                (0..data.nodes.len())
                    .filter(|&c| data.nodes[c].parent == Some(b))
                    .collect()
            })
            .collect(),
        rest: data.nodes.iter().map(|n| n.transform).collect(),
        clip,
        inverse_bind: data.skins[0].inverse_bind.clone(),
    }
}

/// One naive step: every rig posed at play time `time` (rig i at its phase
/// `i x 0.013`, as the crowd's animators), rigs split across rayon's pool.
fn naive_step(rig: &NaiveRig, time: f32, joints: &mut [Mat4]) {
    let rig_bones = rig.rest.len();
    joints.par_chunks_mut(rig_bones).enumerate().for_each_init(
        || NaiveScratch {
            locals: Vec::with_capacity(rig_bones),
            worlds: vec![Mat4::IDENTITY; rig_bones],
        },
        |scratch, (i, joints)| {
            let t = rig_time(i, time, rig.clip.duration);
            naive_pose(rig, Mat4::from_translation(place(i)), t, scratch, joints);
        },
    );
}

/// Fails unless the twin's joint matrices at play time `time` are the
/// crowd's `palette` ([`twin::assert_close`]: the twin also takes the clip
/// time in f32 rather than f64).
fn assert_same(rig: &NaiveRig, palette: &JointPalette, time: f32) {
    let rig_bones = rig.rest.len();
    let mut joints = vec![Mat4::IDENTITY; RIGS * rig_bones];
    naive_step(rig, time, &mut joints);
    for (r, (packed, naive)) in (palette.matrices.chunks(BONES))
        .zip(joints.chunks(rig_bones))
        .enumerate()
    {
        for (j, (p, n)) in packed.iter().zip(naive).enumerate() {
            let crowd = Mat4::from(p.to_affine()).to_cols_array();
            twin::assert_close(&crowd, &n.to_cols_array(), &format!("rig {r} joint {j}"));
        }
    }
}

fn bench(c: &mut Criterion) {
    // As the viewer does: the stepping thread works in rayon's pool.
    keel_engine::join_pool();
    let path = rig_path();
    let mut group = c.benchmark_group("animation");
    group.sample_size(20);
    let mut palette = JointPalette::default();
    let mut systems = Systems::new();
    let mut scene = crowd(&path, None);
    step(&mut systems, &mut scene, &mut palette);
    assert_eq!(palette.matrices.len(), RIGS * BONES);
    // One step played: the twin posed at 1/60 s must give the same joints.
    let rig = naive_rig(&path);
    assert_same(&rig, &palette, 1.0 / 60.0);
    let arithmetic = ArithmeticRig::new(&rig);
    let duration = rig.clip.duration;
    assert_arithmetic_same(&arithmetic, &palette, 1.0 / 60.0, duration);
    group.bench_function("crowd/4000", |b| {
        b.iter(|| step(&mut systems, &mut scene, &mut palette))
    });
    drop(scene);
    let mut scene = crowd(&path, Some(2));
    group.bench_function("crowd_half_paused/4000", |b| {
        b.iter(|| step(&mut systems, &mut scene, &mut palette))
    });
    drop(scene);

    let rig_bones = rig.rest.len();
    let bones = RIGS * (BONES + 2);
    let mut locals = vec![Transform::IDENTITY; bones];
    let mut worlds = vec![Affine3x4::IDENTITY; bones];
    let mut joints = vec![JointMatrix::default(); RIGS * BONES];
    assert_eq!(FLOOR_BYTES_PER_BONE, 224, "the doc's byte count");
    group.bench_function("floor/4000", |b| {
        b.iter(|| {
            (locals.par_chunks_mut(BONES + 2))
                .zip(worlds.par_chunks_mut(BONES + 2))
                .zip(joints.par_chunks_mut(BONES))
                .for_each(|((locals, worlds), joints)| {
                    for (l, w) in locals.iter_mut().zip(worlds.iter_mut()) {
                        l.translation.x += 1.0;
                        w.rows[0].w = l.translation.x;
                    }
                    for (j, w) in joints.iter_mut().zip(worlds.iter()) {
                        *j = JointMatrix::from_rows(w);
                    }
                });
            black_box((&locals, &joints));
        })
    });
    drop((locals, worlds, joints));
    let mut time = 0.0f32;
    group.bench_function("arithmetic/4000", |b| {
        b.iter(|| {
            time += 1.0 / 60.0;
            arithmetic_step(&arithmetic, time, duration);
        })
    });
    let mut time = 0.0f32;
    let mut joints = vec![Mat4::IDENTITY; RIGS * rig_bones];
    group.bench_function("crowd_naive/4000", |b| {
        b.iter(|| {
            time += 1.0 / 60.0;
            naive_step(&rig, time, &mut joints);
            black_box(&joints);
        })
    });
    group.finish();
    let _ = std::fs::remove_file(&path);
}

criterion_group!(benches, bench);
criterion_main!(benches);
