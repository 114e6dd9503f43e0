// Particle pass: camera-facing billboards expanded from instance data, with a
// soft round sprite computed per fragment (no texture). Quad corners come from
// the vertex index, so no vertex buffer is bound.

#import "frame.wgsl"

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
