// Particle pass: camera-facing billboards expanded from instance data, with a
// soft round sprite computed per fragment (no texture). Quad corners come from
// the vertex index, so no vertex buffer is bound.

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

// Two counter-clockwise triangles covering -1..1.
const CORNERS = array<vec2<f32>, 6>(
    vec2<f32>(-1.0, -1.0),
    vec2<f32>(1.0, -1.0),
    vec2<f32>(1.0, 1.0),
    vec2<f32>(-1.0, -1.0),
    vec2<f32>(1.0, 1.0),
    vec2<f32>(-1.0, 1.0),
);

struct ParticleIn {
    // xyz: centre, w: edge length.
    @location(0) position_size: vec4<f32>,
    @location(1) color: vec4<f32>,
}

struct VertexOut {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) corner: vec2<f32>,
    @location(1) color: vec4<f32>,
}

@vertex
fn vs_main(@builtin(vertex_index) vertex_index: u32, in: ParticleIn) -> VertexOut {
    var corners = CORNERS;
    let corner = corners[vertex_index % 6u];
    let half_size = in.position_size.w * 0.5;
    let world = in.position_size.xyz
        + (globals.camera_right.xyz * corner.x + globals.camera_up.xyz * corner.y) * half_size;
    var out: VertexOut;
    out.clip_position = globals.view_proj * vec4<f32>(world, 1.0);
    out.corner = corner;
    out.color = in.color;
    return out;
}

// 1 at the centre, easing to 0 at the rim of the inscribed circle.
fn sprite(corner: vec2<f32>) -> f32 {
    let r2 = dot(corner, corner);
    let fade = max(1.0 - r2, 0.0);
    return fade * fade;
}

@fragment
fn fs_additive(in: VertexOut) -> @location(0) vec4<f32> {
    let weight = sprite(in.corner);
    if weight <= 0.0 {
        discard;
    }
    return vec4<f32>(in.color.rgb * in.color.a * weight, 0.0);
}

@fragment
fn fs_alpha(in: VertexOut) -> @location(0) vec4<f32> {
    let weight = sprite(in.corner);
    if weight <= 0.0 {
        discard;
    }
    return vec4<f32>(in.color.rgb, in.color.a * weight);
}
