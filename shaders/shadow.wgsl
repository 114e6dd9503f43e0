// Shadow pass: the sun's casters drawn depth-only into one cascade of the
// shadow map. Reads the caster records (render/records.rs: GpuCaster; only
// the model rows here), positioned by the cascade's world-to-clip matrix.

#import "caster.wgsl"

@group(0) @binding(0) var<uniform> light_view_proj: mat4x4<f32>;
@group(0) @binding(1) var<storage, read> instances: array<Caster>;

// The retained scene's casters (render/gpu_scene.rs) read the mesh pass's
// records instead: five vec4s each, the model's rows first.
@group(0) @binding(2) var<storage, read> records: array<vec4<f32>>;

@vertex
fn vs_shadow_retained(@location(0) position: vec3<f32>, @location(3) slot: u32) -> @builtin(position) vec4<f32> {
    let base = slot * 5u;
    let p = vec4<f32>(position, 1.0);
    let world = vec3<f32>(dot(records[base], p), dot(records[base + 1u], p), dot(records[base + 2u], p));
    return light_view_proj * vec4<f32>(world, 1.0);
}

@vertex
fn vs_shadow(@location(0) position: vec3<f32>, @location(3) instance: u32) -> @builtin(position) vec4<f32> {
    let record = instances[instance];
    let p = vec4<f32>(position, 1.0);
    let world = vec3<f32>(dot(record.row_x, p), dot(record.row_y, p), dot(record.row_z, p));
    return light_view_proj * vec4<f32>(world, 1.0);
}
