// Mesh pass: instanced meshes with a base-colour texture, lit with Blinn-Phong
// (hemispheric ambient, one directional light, up to eight point lights).
// Lighting is computed in linear space; the sRGB texture is decoded by the
// sampler and the sRGB render target encodes the output.

const MAX_POINT_LIGHTS: u32 = 8u;
// One pipeline per value: untextured meshes skip the sampling entirely.
override TEXTURED: bool = true;
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
@group(1) @binding(0) var base_color_texture: texture_2d<f32>;
@group(1) @binding(1) var base_color_sampler: sampler;

// One instance: the rows of its 3x4 model matrix, then linear RGB base colour and gloss.
struct Instance {
    row_x: vec4<f32>,
    row_y: vec4<f32>,
    row_z: vec4<f32>,
    color_gloss: vec4<f32>,
}

@group(2) @binding(0) var<storage, read> instances: array<Instance>;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    // Per instance: where its record is in `instances` (draws are grouped by mesh).
    @location(3) instance: u32,
}

struct VertexOut {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) world_position: vec3<f32>,
    @location(1) world_normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) color_gloss: vec4<f32>,
}

@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    let instance = instances[in.instance];
    return place(instance.row_x, instance.row_y, instance.row_z, in.position, in.normal, in.uv, instance.color_gloss);
}

// The vertex placed by the model matrix with rows `row_x`, `row_y`, `row_z`.
fn place(row_x: vec4<f32>, row_y: vec4<f32>, row_z: vec4<f32>, position: vec3<f32>, normal: vec3<f32>, uv: vec2<f32>, color_gloss: vec4<f32>) -> VertexOut {
    let p = vec4<f32>(position, 1.0);
    let world = vec3<f32>(dot(row_x, p), dot(row_y, p), dot(row_z, p));
    let x = vec3<f32>(row_x.x, row_y.x, row_z.x);
    let y = vec3<f32>(row_x.y, row_y.y, row_z.y);
    let z = vec3<f32>(row_x.z, row_y.z, row_z.z);
    // The cofactor matrix is det * inverse-transpose: the right normals after
    // normalising, with no division, and still defined for a flattened axis.
    // The determinant's sign keeps mirrored instances' normals outwards.
    let cofactor = mat3x3<f32>(cross(y, z), cross(z, x), cross(x, y));
    let handedness = select(1.0, -1.0, dot(x, cross(y, z)) < 0.0);
    var out: VertexOut;
    out.clip_position = globals.view_proj * vec4<f32>(world, 1.0);
    out.world_position = world;
    out.world_normal = cofactor * normal * handedness;
    out.uv = uv;
    out.color_gloss = color_gloss;
    return out;
}

// A skinned and/or morphed instance (see render/deform_pass.rs).
struct Deformed {
    row_x: vec4<f32>,
    row_y: vec4<f32>,
    row_z: vec4<f32>,
    color_gloss: vec4<f32>,
    // x: first joint matrix, y: joint count (0: not skinned), z: first morph weight, w: target count.
    joints: vec4<u32>,
    // x: first morph offset, y: the mesh's vertex count.
    morph: vec4<u32>,
}

@group(2) @binding(1) var<storage, read> deformed: array<Deformed>;
@group(2) @binding(2) var<storage, read> joint_matrices: array<mat4x4<f32>>;
@group(2) @binding(3) var<storage, read> morph_weights: array<f32>;
// Per target, per vertex: the position offset, then the normal offset.
@group(2) @binding(4) var<storage, read> morph_offsets: array<vec4<f32>>;

struct DeformedIn {
    @builtin(vertex_index) vertex: u32,
    @builtin(instance_index) instance: u32,
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(4) joints: vec4<u32>,
    @location(5) weights: vec4<f32>,
}

@vertex
fn vs_deformed(in: DeformedIn) -> VertexOut {
    let d = deformed[in.instance];
    var position = in.position;
    var normal = in.normal;
    for (var t = 0u; t < d.joints.w; t += 1u) {
        let w = morph_weights[d.joints.z + t];
        if w != 0.0 {
            let at = d.morph.x + 2u * (t * d.morph.y + in.vertex);
            position += w * morph_offsets[at].xyz;
            normal += w * morph_offsets[at + 1u].xyz;
        }
    }
    if d.joints.y == 0u {
        return place(d.row_x, d.row_y, d.row_z, position, normal, in.uv, d.color_gloss);
    }
    // Four influences; a joint index past the skin's end reads its last joint.
    let last = d.joints.y - 1u;
    let j = d.joints.x + min(in.joints, vec4<u32>(last));
    let skin = joint_matrices[j.x] * in.weights.x + joint_matrices[j.y] * in.weights.y
        + joint_matrices[j.z] * in.weights.z + joint_matrices[j.w] * in.weights.w;
    let rows = transpose(skin);
    return place(rows[0], rows[1], rows[2], position, normal, in.uv, d.color_gloss);
}

// Diffuse plus Blinn-Phong specular for one light of unit direction `l`; gloss
// 0..1 sharpens and strengthens the highlight.
fn shade(albedo: vec3<f32>, gloss: f32, n: vec3<f32>, v: vec3<f32>, l: vec3<f32>, radiance: vec3<f32>) -> vec3<f32> {
    let n_dot_l = max(dot(n, l), 0.0);
    let h = normalize(l + v);
    let shininess = mix(8.0, 128.0, gloss);
    let strength = mix(0.04, 0.6, gloss);
    let specular = pow(max(dot(n, h), 0.0), shininess) * strength * step(0.0001, n_dot_l);
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
    var albedo = in.color_gloss.rgb;
    if TEXTURED {
        albedo *= textureSample(base_color_texture, base_color_sampler, in.uv).rgb;
    }
    let gloss = in.color_gloss.a;

    let sky_share = n.y * 0.5 + 0.5;
    var color = albedo * globals.ambient.rgb * mix(GROUND_AMBIENT, 1.0, sky_share);
    color += shade(albedo, gloss, n, v, globals.sun_direction.xyz, globals.sun_color.rgb);

    let count = min(globals.point_count.x, MAX_POINT_LIGHTS);
    for (var i = 0u; i < count; i += 1u) {
        let light = globals.point_lights[i];
        let to_light = light.position_range.xyz - in.world_position;
        let distance = length(to_light);
        let l = to_light / max(distance, 0.0001);
        let radiance = light.color.rgb * range_falloff(distance, light.position_range.w);
        color += shade(albedo, gloss, n, v, l, radiance);
    }
    return vec4<f32>(color, 1.0);
}
