// Line pass: coloured, depth-tested debug lines and the ground grid.

struct PointLight {
    position_range: vec4<f32>,
    // w: a spot's cone scale (0 for a point light).
    color: vec4<f32>,
    // xyz: the direction a spot shines, w: its cone offset (1 for a point light).
    spot: vec4<f32>,
    // x: the shadow map layer of a shadowed spot (-1: none), y: its index
    // among the shadowed spots, z: a texel's world size at unit distance.
    shadow: vec4<f32>,
}

struct Globals {
    view_proj: mat4x4<f32>,
    camera_position: vec4<f32>,
    camera_right: vec4<f32>,
    camera_up: vec4<f32>,
    ambient: vec4<f32>,
    sun_direction: vec4<f32>,
    sun_color: vec4<f32>,
    point_count: vec4<u32>,
    point_lights: array<PointLight, 8>,
    camera_forward: vec4<f32>,
    shadow_matrices: array<mat4x4<f32>, 4>,
    shadow_far: vec4<f32>,
    shadow_texel: vec4<f32>,
    shadow_params: vec4<f32>,
    // World to each shadowed spot's clip space.
    spot_matrices: array<mat4x4<f32>, 4>,
}

@group(0) @binding(0) var<uniform> globals: Globals;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) color: vec4<f32>,
}

struct VertexOut {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) color: vec4<f32>,
}

@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    var out: VertexOut;
    out.clip_position = globals.view_proj * vec4<f32>(in.position, 1.0);
    out.color = in.color;
    return out;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    return in.color;
}
