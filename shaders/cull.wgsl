// GPU culling of the retained scene (engine/src/render/gpu_scene.rs), and
// the upload of records scattered over it.
//
// One invocation per slot: a slot that holds a mesh tests its bounding
// sphere (its mesh's radius around the model's origin, scaled by the
// model's largest axis) against the view's six planes, and a visible slot
// appends itself to its batch's run of the index stream, counting itself
// into the batch's indirect draw. The test is the CPU's (`is_visible` in
// batcher.rs) with a rounding slack, so the GPU keeps a superset of what
// the CPU would keep, never less.

struct Cull {
    // Normals inward, unit length: inside where dot(n, p) + d >= 0.
    planes: array<vec4<f32>, 6>,
    slots: u32,
    batches: u32,
    // Where the slots' batches start in `table`.
    slot_base: u32,
    // Records `scatter_main` writes this frame.
    updates: u32,
    // Where the batches' radius and run start in `table`.
    info_base: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> cull: Cull;
// The slots' records (GpuInstance: five vec4s, the model's rows first).
@group(0) @binding(1) var<storage, read> records: array<vec4<f32>>;
// From `info_base`, two words per batch: its mesh radius (bits of an f32)
// and the start of its run; from `slot_base`, each slot's batch (>=
// cull.batches: a free slot, or one casting no shadow in a shadow view).
// One buffer: downlevel devices bind four storage buffers a stage.
@group(0) @binding(2) var<storage, read> table: array<u32>;
// Each batch's DrawIndexedIndirect arguments (five words, the instance
// count second), the counts zeroed before this pass.
@group(0) @binding(3) var<storage, read_write> args: array<atomic<u32>>;
// The index stream: each batch's visible slots in its run.
@group(0) @binding(4) var<storage, read_write> visible: array<u32>;

const RECORD_VEC4S: u32 = 5u;
const ARGS_WORDS: u32 = 5u;
// Relative rounding slack of the plane test (f32 has 2^-24).
const SLACK: f32 = 1e-5;

// The item an invocation works on: dispatches past 65,535 workgroups go on
// in rows (gpu_scene.rs: `dispatch`).
fn item(id: vec3<u32>, groups: vec3<u32>) -> u32 {
    return id.x + id.y * groups.x * 64u;
}

// The upload of records at scattered slots (`scatter_main`): the slots,
// and their records one after another, copied into `targets` (the records).
@group(0) @binding(5) var<storage, read_write> targets: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> update_slots: array<u32>;
@group(0) @binding(7) var<storage, read> update_records: array<vec4<f32>>;

// One invocation per updated record (before the cull pass reads them).
@compute @workgroup_size(64)
fn scatter_main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let i = item(id, groups);
    if i >= cull.updates {
        return;
    }
    let into = update_slots[i] * RECORD_VEC4S;
    let source = i * RECORD_VEC4S;
    for (var k = 0u; k < RECORD_VEC4S; k++) {
        targets[into + k] = update_records[source + k];
    }
}

@compute @workgroup_size(64)
fn cull_main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let slot = item(id, groups);
    if slot >= cull.slots {
        return;
    }
    let batch = table[cull.slot_base + slot];
    if batch >= cull.batches {
        return;
    }
    let base = slot * RECORD_VEC4S;
    let r0 = records[base];
    let r1 = records[base + 1u];
    let r2 = records[base + 2u];
    let x = vec3<f32>(r0.x, r1.x, r2.x);
    let y = vec3<f32>(r0.y, r1.y, r2.y);
    let z = vec3<f32>(r0.z, r1.z, r2.z);
    let entry = cull.info_base + 2u * batch;
    let info = vec2<u32>(table[entry], table[entry + 1u]);
    let radius = bitcast<f32>(info.x) * sqrt(max(dot(x, x), max(dot(y, y), dot(z, z))));
    let center = vec3<f32>(r0.w, r1.w, r2.w);
    for (var i = 0u; i < 6u; i++) {
        let plane = cull.planes[i];
        let slack = SLACK * (abs(plane.w) + radius + dot(abs(plane.xyz), abs(center)));
        if dot(plane.xyz, center) + plane.w < -radius - slack {
            return;
        }
    }
    let at = atomicAdd(&args[batch * ARGS_WORDS + 1u], 1u);
    visible[info.y + at] = slot;
}
