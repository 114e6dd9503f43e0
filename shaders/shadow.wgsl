// Shadow pass: the sun's casters drawn depth-only into one cascade of the
// shadow map. Reads the caster records (render/records.rs: GpuCaster; only
// the model rows here), positioned by the cascade's world-to-clip matrix.

#import "caster.wgsl"

@group(0) @binding(0) var<uniform> light_view_proj: mat4x4<f32>;
@group(0) @binding(1) var<storage, read> instances: array<Caster>;

@vertex
fn vs_shadow(@location(0) position: vec3<f32>, @location(3) instance: u32) -> @builtin(position) vec4<f32> {
    let record = instances[instance];
    let p = vec4<f32>(position, 1.0);
    let world = vec3<f32>(dot(record.row_x, p), dot(record.row_y, p), dot(record.row_z, p));
    return light_view_proj * vec4<f32>(world, 1.0);
}
