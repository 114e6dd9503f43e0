// Mesh pass: instanced primitives lit with Blinn-Phong (hemispheric ambient, one
// directional light, up to eight point lights). Lighting is computed in linear
// space; the sRGB render target encodes the output.

const MAX_POINT_LIGHTS: u32 = 8u;
const SHININESS: f32 = 48.0;
const SPECULAR_STRENGTH: f32 = 0.3;
// Share of the sky ambient that still reaches surfaces facing the ground.
const GROUND_AMBIENT: f32 = 0.35;

struct PointLight {
    position_range: vec4<f32>,
    color: vec4<f32>,
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
}

@group(0) @binding(0) var<uniform> globals: Globals;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    // Instance: model matrix columns, normal matrix columns, base colour.
    @location(2) model_x: vec3<f32>,
    @location(3) model_y: vec3<f32>,
    @location(4) model_z: vec3<f32>,
    @location(5) model_t: vec3<f32>,
    @location(6) normal_x: vec3<f32>,
    @location(7) normal_y: vec3<f32>,
    @location(8) normal_z: vec3<f32>,
    @location(9) color: vec4<f32>,
}

struct VertexOut {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) world_position: vec3<f32>,
    @location(1) world_normal: vec3<f32>,
    @location(2) color: vec4<f32>,
}

@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    let model = mat3x3<f32>(in.model_x, in.model_y, in.model_z);
    let normal_matrix = mat3x3<f32>(in.normal_x, in.normal_y, in.normal_z);
    let world = model * in.position + in.model_t;
    var out: VertexOut;
    out.clip_position = globals.view_proj * vec4<f32>(world, 1.0);
    out.world_position = world;
    out.world_normal = normal_matrix * in.normal;
    out.color = in.color;
    return out;
}

// Diffuse plus Blinn-Phong specular for one light of unit direction `l`.
fn shade(albedo: vec3<f32>, n: vec3<f32>, v: vec3<f32>, l: vec3<f32>, radiance: vec3<f32>) -> vec3<f32> {
    let n_dot_l = max(dot(n, l), 0.0);
    let h = normalize(l + v);
    let specular = pow(max(dot(n, h), 0.0), SHININESS) * SPECULAR_STRENGTH * step(0.0001, n_dot_l);
    return (albedo * n_dot_l + vec3<f32>(specular)) * radiance;
}

// Inverse-square falloff windowed to reach exactly zero at `range`, smoothly.
fn range_falloff(distance: f32, range: f32) -> f32 {
    let ratio = distance / range;
    let window = clamp(1.0 - ratio * ratio * ratio * ratio, 0.0, 1.0);
    return window * window / (distance * distance + 1.0);
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    let n = normalize(in.world_normal);
    let v = normalize(globals.camera_position.xyz - in.world_position);
    let albedo = in.color.rgb;

    let sky_share = n.y * 0.5 + 0.5;
    var color = albedo * globals.ambient.rgb * mix(GROUND_AMBIENT, 1.0, sky_share);
    color += shade(albedo, n, v, globals.sun_direction.xyz, globals.sun_color.rgb);

    let count = min(globals.point_count.x, MAX_POINT_LIGHTS);
    for (var i = 0u; i < count; i += 1u) {
        let light = globals.point_lights[i];
        let to_light = light.position_range.xyz - in.world_position;
        let distance = length(to_light);
        let l = to_light / max(distance, 0.0001);
        let radiance = light.color.rgb * range_falloff(distance, light.position_range.w);
        color += shade(albedo, n, v, l, radiance);
    }
    return vec4<f32>(color, 1.0);
}
