// Mesh pass: instanced meshes with a base-colour texture, shaded with glTF's
// metallic-roughness BRDF (Lambert diffuse, GGX distribution, height-correlated
// Smith visibility, Schlick Fresnel) under one directional light (with cascaded shadows), up to eight
// point lights and image-based ambient light from the sky (prefiltered
// specular and irradiance cube maps, with an analytic fit of the split-sum
// environment BRDF). A light's intensity is what
// a white matte surface facing it reflects: the Lambertian pi is folded into
// the light's unit. Lighting is computed in linear space; the sRGB texture is
// decoded by the sampler and the sRGB render target encodes the output.

const MAX_POINT_LIGHTS: u32 = 8u;
// One pipeline per value: untextured meshes skip the sampling entirely.
override TEXTURED: bool = true;
// Imported materials with maps: metallic-roughness, normal, occlusion, emission.
override MAPPED: bool = false;
// Alpha-masked materials: only their pipelines discard (a shader that may
// discard loses the early depth test).
override MASKED: bool = false;

#import "frame.wgsl"

@group(0) @binding(1) var shadow_map: texture_depth_2d_array;
@group(0) @binding(2) var shadow_sampler: sampler_comparison;
// The sky at unit strength (times the ambient colour), baked for image-based
// lighting: GGX-prefiltered by roughness, and diffuse irradiance over pi.
@group(0) @binding(3) var specular_map: texture_cube<f32>;
@group(0) @binding(4) var irradiance_map: texture_cube<f32>;
@group(0) @binding(5) var environment_sampler: sampler;
@group(1) @binding(0) var base_color_texture: texture_2d<f32>;
@group(1) @binding(1) var base_color_sampler: sampler;
@group(1) @binding(2) var metal_rough_texture: texture_2d<f32>;
@group(1) @binding(3) var normal_texture: texture_2d<f32>;
@group(1) @binding(4) var occlusion_texture: texture_2d<f32>;
@group(1) @binding(5) var emissive_texture: texture_2d<f32>;
// How the material reads its textures.
struct MaterialUniform {
    // x: normal scale, y: occlusion strength.
    values: vec4<f32>,
    // Per texture (base colour, metallic-roughness, normal, occlusion,
    // emission), two rows of its KHR_texture_transform matrix; the first
    // row's w is the texture coordinate set (0 or 1).
    uv: array<vec4<f32>, 10>,
}
@group(1) @binding(6) var<uniform> material: MaterialUniform;
@group(1) @binding(7) var metal_rough_sampler: sampler;
@group(1) @binding(8) var normal_sampler: sampler;
@group(1) @binding(9) var occlusion_sampler: sampler;
@group(1) @binding(10) var emissive_sampler: sampler;

// One instance: the rows of its 3x4 model matrix, linear RGBA base colour,
// linear RGB emission, and unorm8s: metallic, roughness, the alpha cutoff.
struct Instance {
    row_x: vec4<f32>,
    row_y: vec4<f32>,
    row_z: vec4<f32>,
    color: vec4<f32>,
    emissive: vec3<f32>,
    metal_rough: u32,
}

// The material factors the fragment stage reads.
struct Surface {
    color: vec4<f32>,
    emissive: vec3<f32>,
    metal_rough: u32,
}

@group(2) @binding(0) var<storage, read> instances: array<Instance>;

#import "caster.wgsl"

// Read by the shadow pass's masked casters alone (`vs_caster`).
@group(2) @binding(5) var<storage, read> casters: array<Caster>;

// The per-vertex attributes of every mesh (assets::MeshVertex).
struct Attributes {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    // xyz: the tangent along +u, w: the bitangent's handedness.
    @location(6) tangent: vec4<f32>,
    @location(7) uv1: vec2<f32>,
    @location(8) color: vec4<f32>,
}

struct VertexOut {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) world_position: vec3<f32>,
    @location(1) world_normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    // The instance's base colour times the vertex colour.
    @location(3) color: vec4<f32>,
    // Per instance, so not interpolated (a software rasteriser then skips them).
    @location(4) @interpolate(flat) emissive: vec3<f32>,
    // Metallic, roughness, alpha cutoff.
    @location(5) @interpolate(flat) metal_rough: vec4<f32>,
    // xyz: the world tangent, w: the bitangent's handedness.
    @location(6) world_tangent: vec4<f32>,
    @location(7) uv1: vec2<f32>,
}

@vertex
fn vs_main(vertex: Attributes, @location(3) index: u32) -> VertexOut {
    // `index`: where the instance's record is in `instances` (draws are grouped by mesh).
    let instance = instances[index];
    let surface = Surface(instance.color, instance.emissive, instance.metal_rough);
    return place(instance.row_x, instance.row_y, instance.row_z, vertex, surface);
}

// A masked shadow caster: placed as `vs_main` places an instance, with the
// alpha and cutoff its alpha test (`fs_shadow_mask`) reads.
@vertex
fn vs_caster(vertex: Attributes, @location(3) index: u32) -> VertexOut {
    let caster = casters[index];
    let surface = Surface(vec4<f32>(1.0, 1.0, 1.0, caster.alpha), vec3<f32>(0.0), caster.cutoff);
    return place(caster.row_x, caster.row_y, caster.row_z, vertex, surface);
}

// A masked caster of the retained scene (render/gpu_scene.rs): `vs_caster`
// reading the mesh pass's records, whose cutoff is the third byte of
// `metal_rough` as a caster record's is.
@vertex
fn vs_caster_retained(vertex: Attributes, @location(3) index: u32) -> VertexOut {
    let instance = instances[index];
    let alpha = vec4<f32>(1.0, 1.0, 1.0, instance.color.a);
    let surface = Surface(alpha, vec3<f32>(0.0), instance.metal_rough & 0xff0000u);
    return place(instance.row_x, instance.row_y, instance.row_z, vertex, surface);
}

// The vertex placed by the model matrix with rows `row_x`, `row_y`, `row_z`.
fn place(row_x: vec4<f32>, row_y: vec4<f32>, row_z: vec4<f32>, vertex: Attributes, surface: Surface) -> VertexOut {
    let position = vertex.position;
    let normal = vertex.normal;
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
    // Tangents lie in the surface: they follow the matrix itself.
    out.world_tangent = vec4<f32>(mat3x3<f32>(x, y, z) * vertex.tangent.xyz, vertex.tangent.w);
    out.uv = vertex.uv;
    out.uv1 = vertex.uv1;
    out.color = surface.color * vertex.color;
    out.emissive = surface.emissive;
    out.metal_rough = unpack4x8unorm(surface.metal_rough);
    return out;
}

// A skinned and/or morphed instance (see render/deform_pass.rs).
struct Deformed {
    row_x: vec4<f32>,
    row_y: vec4<f32>,
    row_z: vec4<f32>,
    color: vec4<f32>,
    emissive: vec3<f32>,
    metal_rough: u32,
    // x: first joint matrix, y: joint count (0: not skinned), z: first morph weight, w: target count.
    joints: vec4<u32>,
    // x: first morph offset, y: the mesh's vertex count.
    morph: vec4<u32>,
}

@group(2) @binding(1) var<storage, read> deformed: array<Deformed>;
// A joint's matrix (world x inverse bind): the rows of the 3x4 matrix.
struct JointRows {
    x: vec4<f32>,
    y: vec4<f32>,
    z: vec4<f32>,
}

@group(2) @binding(2) var<storage, read> joint_matrices: array<JointRows>;
@group(2) @binding(3) var<storage, read> morph_weights: array<f32>;
// Per target, per vertex: the position offset, then the normal offset.
@group(2) @binding(4) var<storage, read> morph_offsets: array<vec4<f32>>;

struct DeformedIn {
    @builtin(vertex_index) vertex: u32,
    @builtin(instance_index) instance: u32,
    @location(4) joints: vec4<u32>,
    @location(5) weights: vec4<f32>,
}

@vertex
fn vs_deformed(attributes: Attributes, in: DeformedIn) -> VertexOut {
    let d = deformed[in.instance];
    var vertex = attributes;
    var position = vertex.position;
    var normal = vertex.normal;
    for (var t = 0u; t < d.joints.w; t += 1u) {
        let w = morph_weights[d.joints.z + t];
        if w != 0.0 {
            let at = d.morph.x + 2u * (t * d.morph.y + in.vertex);
            position += w * morph_offsets[at].xyz;
            normal += w * morph_offsets[at + 1u].xyz;
        }
    }
    vertex.position = position;
    vertex.normal = normal;
    let surface = Surface(d.color, d.emissive, d.metal_rough);
    if d.joints.y == 0u {
        return place(d.row_x, d.row_y, d.row_z, vertex, surface);
    }
    // Four influences; a joint index past the skin's end reads its last joint.
    let last = d.joints.y - 1u;
    let j = d.joints.x + min(in.joints, vec4<u32>(last));
    let a = joint_matrices[j.x];
    let b = joint_matrices[j.y];
    let c = joint_matrices[j.z];
    let e = joint_matrices[j.w];
    let w = in.weights;
    let row_x = a.x * w.x + b.x * w.y + c.x * w.z + e.x * w.w;
    let row_y = a.y * w.x + b.y * w.y + c.y * w.z + e.y * w.w;
    let row_z = a.z * w.x + b.z * w.y + c.z * w.z + e.z * w.w;
    return place(row_x, row_y, row_z, vertex, surface);
}

const PI: f32 = 3.14159265;

// The glTF BRDF for one light of unit direction `l` and intensity `radiance`
// (times n.l and pi, see the top): diffuse (1 - F)(1 - metallic) albedo / pi,
// specular D V F with alpha = roughness squared.
fn shade(albedo: vec3<f32>, metallic: f32, alpha: f32, n: vec3<f32>, v: vec3<f32>, l: vec3<f32>, radiance: vec3<f32>) -> vec3<f32> {
    let n_dot_l = dot(n, l);
    if n_dot_l <= 0.0 {
        return vec3<f32>(0.0);
    }
    let h = normalize(l + v);
    let n_dot_v = max(dot(n, v), 1e-4);
    let n_dot_h = max(dot(n, h), 0.0);
    let v_dot_h = max(dot(v, h), 0.0);
    let a2 = alpha * alpha;
    let f = n_dot_h * n_dot_h * (a2 - 1.0) + 1.0;
    let distribution = a2 / (PI * f * f);
    let view_term = n_dot_l * sqrt(n_dot_v * n_dot_v * (1.0 - a2) + a2);
    let light_term = n_dot_v * sqrt(n_dot_l * n_dot_l * (1.0 - a2) + a2);
    let visibility = 0.5 / max(view_term + light_term, 1e-6);
    let f0 = mix(vec3<f32>(0.04), albedo, metallic);
    let fresnel = f0 + (1.0 - f0) * pow(1.0 - v_dot_h, 5.0);
    let diffuse = (1.0 - fresnel) * (1.0 - metallic) * albedo / PI;
    return (diffuse + distribution * visibility * fresnel) * radiance * (n_dot_l * PI);
}

// The split-sum environment BRDF (scale and bias of f0) by Karis' analytic fit.
fn environment_brdf(f0: vec3<f32>, roughness: f32, n_dot_v: f32) -> vec3<f32> {
    let r = roughness * vec4<f32>(-1.0, -0.0275, -0.572, 0.022) + vec4<f32>(1.0, 0.0425, 1.04, -0.04);
    let a004 = min(r.x * r.x, exp2(-9.28 * n_dot_v)) * r.x + r.y;
    let ab = vec2<f32>(-1.04, 1.04) * a004 + r.zw;
    return f0 * ab.x + ab.y;
}

// Inverse-square falloff windowed to reach exactly zero at `range`, smoothly.
fn range_falloff(distance: f32, range: f32) -> f32 {
    let ratio = distance / range;
    let window = clamp(1.0 - ratio * ratio * ratio * ratio, 0.0, 1.0);
    return window * window / (distance * distance + 1.0);
}

// How much of the sun reaches `position` (1: lit, 0: in shadow): the
// cascade its view depth falls in, sampled 3 x 3 with bilinear comparison
// (a soft 4-texel edge), faded out over the last tenth of the shadow distance.
fn sun_visibility(position: vec3<f32>, n: vec3<f32>) -> f32 {
    let count = u32(globals.shadow_params.x);
    if count == 0u {
        return 1.0;
    }
    let depth = dot(position - globals.camera_position.xyz, globals.camera_forward.xyz);
    var cascade = 0u;
    while cascade < count && depth > globals.shadow_far[cascade] {
        cascade += 1u;
    }
    if cascade == count {
        return 1.0;
    }
    let texel = globals.shadow_texel[cascade];
    let l = globals.sun_direction.xyz;
    // Moved off the surface along its normal (more where the light grazes it)
    // and towards the sun, both in texels of this cascade.
    let grazing = 1.0 - clamp(dot(n, l), 0.0, 1.0);
    let offset = n * (globals.shadow_params.z * texel * (0.5 + grazing)) + l * (globals.shadow_params.y * texel);
    let clip = globals.shadow_matrices[cascade] * vec4<f32>(position + offset, 1.0);
    let uv = clip.xy * vec2<f32>(0.5, -0.5) + 0.5;
    let step = globals.shadow_params.w;
    var lit = 0.0;
    for (var y = -1; y <= 1; y += 1) {
        for (var x = -1; x <= 1; x += 1) {
            let at = uv + vec2<f32>(f32(x), f32(y)) * step;
            lit += textureSampleCompareLevel(shadow_map, shadow_sampler, at, cascade, clip.z);
        }
    }
    lit /= 9.0;
    let last = globals.shadow_far[count - 1u];
    let fade = clamp((depth - 0.9 * last) / (0.1 * last), 0.0, 1.0);
    return mix(lit, 1.0, fade);
}

// Light from a point or spot light arriving at a surface point.
struct Incoming {
    // Unit direction towards the light.
    l: vec3<f32>,
    distance: f32,
    radiance: vec3<f32>,
}

fn incoming(light: PointLight, position: vec3<f32>) -> Incoming {
    let to_light = light.position_range.xyz - position;
    let distance = length(to_light);
    let l = to_light / max(distance, 0.0001);
    let cone = clamp(dot(light.spot.xyz, -l) * light.color.w + light.spot.w, 0.0, 1.0);
    let radiance = light.color.rgb * range_falloff(distance, light.position_range.w) * cone * cone;
    return Incoming(l, distance, radiance);
}

// How much of spot light `light` reaches `position` (1: lit): its layer of
// the shadow map, sampled 3 x 3 with comparison like the sun's, the receiver
// moved off the surface and towards the light by texels of the spot's map
// at this distance.
fn spot_visibility(light: PointLight, position: vec3<f32>, n: vec3<f32>, l: vec3<f32>, distance: f32) -> f32 {
    let texel = light.shadow.z * distance;
    let grazing = 1.0 - clamp(dot(n, l), 0.0, 1.0);
    let offset = n * (globals.shadow_params.z * texel * (0.5 + grazing)) + l * (globals.shadow_params.y * texel);
    let clip = globals.spot_matrices[u32(light.shadow.y)] * vec4<f32>(position + offset, 1.0);
    if clip.w <= 0.0 {
        return 1.0;
    }
    let ndc = clip.xyz / clip.w;
    let uv = ndc.xy * vec2<f32>(0.5, -0.5) + 0.5;
    let layer = u32(light.shadow.x);
    let step = globals.shadow_params.w;
    var lit = 0.0;
    for (var y = -1; y <= 1; y += 1) {
        for (var x = -1; x <= 1; x += 1) {
            let at = uv + vec2<f32>(f32(x), f32(y)) * step;
            lit += textureSampleCompareLevel(shadow_map, shadow_sampler, at, layer, ndc.z);
        }
    }
    return lit / 9.0;
}

// The normal map's tangent-space normal `t` in world space: the vertex
// tangent made perpendicular to the surface normal `n`, the bitangent
// cross(n, tangent) times the stored handedness (glTF's TANGENT; MikkTSpace
// where the file has none). A mesh without tangents keeps its normal.
fn perturb(n: vec3<f32>, tangent: vec4<f32>, t: vec3<f32>) -> vec3<f32> {
    let along = tangent.xyz - n * dot(n, tangent.xyz);
    let length2 = dot(along, along);
    if length2 < 1e-12 {
        return n;
    }
    let u = along * inverseSqrt(length2);
    let v = cross(n, u) * select(-1.0, 1.0, tangent.w >= 0.0);
    return normalize(mat3x3<f32>(u, v, n) * t);
}

// Where texture `slot` is read: its coordinate set through its transform.
fn slot_uv(in: VertexOut, slot: u32) -> vec2<f32> {
    let a = material.uv[2u * slot];
    let b = material.uv[2u * slot + 1u];
    let uv = vec3<f32>(select(in.uv, in.uv1, a.w > 0.5), 1.0);
    return vec2<f32>(dot(a.xyz, uv), dot(b.xyz, uv));
}

// The shadow pass's alpha test of a masked caster: its cut-outs cast nothing.
@fragment
fn fs_shadow_mask(in: VertexOut) {
    let opacity = in.color.a * textureSample(base_color_texture, base_color_sampler, slot_uv(in, 0u)).a;
    if opacity < in.metal_rough.z {
        discard;
    }
}

@fragment
fn fs_main(in: VertexOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    // A back face is only drawn for double-sided materials: lit as the
    // other side of the surface.
    var n = normalize(in.world_normal) * select(-1.0, 1.0, front);
    let v = normalize(globals.camera_position.xyz - in.world_position);
    // The instance's colour times the vertex colour (COLOR_0).
    var albedo = in.color.rgb;
    var opacity = in.color.a;
    if TEXTURED {
        let texel = textureSample(base_color_texture, base_color_sampler, slot_uv(in, 0u));
        albedo *= texel.rgb;
        opacity *= texel.a;
    }
    var metallic = clamp(in.metal_rough.x, 0.0, 1.0);
    var roughness = in.metal_rough.y;
    var occlusion = 1.0;
    var emissive = in.emissive;
    if MAPPED {
        let mr = textureSample(metal_rough_texture, metal_rough_sampler, slot_uv(in, 1u));
        metallic *= mr.b;
        roughness *= mr.g;
        let ao = textureSample(occlusion_texture, occlusion_sampler, slot_uv(in, 3u)).r;
        occlusion = mix(1.0, ao, material.values.y);
        emissive *= textureSample(emissive_texture, emissive_sampler, slot_uv(in, 4u)).rgb;
        let stored = textureSample(normal_texture, normal_sampler, slot_uv(in, 2u)).xyz * 2.0 - 1.0;
        let t = normalize(vec3<f32>(stored.xy * material.values.x, max(stored.z, 1e-3)));
        // A back face's whole frame turns with its normal (as glTF's sample viewer does).
        let tangent = in.world_tangent * select(-1.0, 1.0, front);
        n = perturb(n, tangent, t);
    }
    roughness = clamp(roughness, 0.03, 1.0);
    let alpha = roughness * roughness;

    // Ambient, image-based: diffuse from the irradiance around the normal;
    // specular from the sky prefiltered at the surface's roughness along the
    // reflection, scaled by the split-sum BRDF.
    let n_dot_v = max(dot(n, v), 1e-4);
    let f0 = mix(vec3<f32>(0.04), albedo, metallic);
    let irradiance = textureSampleLevel(irradiance_map, environment_sampler, n, 0.0).rgb;
    // The specular map's mips step roughness from 0 to 1 (render/ibl.rs).
    let lod = roughness * f32(textureNumLevels(specular_map) - 1u);
    let prefiltered = textureSampleLevel(specular_map, environment_sampler, reflect(-v, n), lod).rgb;
    var color = globals.ambient.rgb * (irradiance * albedo * (1.0 - metallic)
        + prefiltered * environment_brdf(f0, roughness, n_dot_v)) * occlusion;
    let sun = globals.sun_color.rgb * sun_visibility(in.world_position, n);
    color += shade(albedo, metallic, alpha, n, v, globals.sun_direction.xyz, sun);

    // The lights without shadows first, then the shadowed spots (the
    // renderer orders them so): two loops of uniform length, so a rasteriser
    // that runs both sides of a branch never samples shadows it doesn't need.
    let count = min(globals.point_count.x, MAX_POINT_LIGHTS);
    let plain = count - min(globals.point_count.y, count);
    for (var i = 0u; i < plain; i += 1u) {
        let c = incoming(globals.point_lights[i], in.world_position);
        color += shade(albedo, metallic, alpha, n, v, c.l, c.radiance);
    }
    for (var i = plain; i < count; i += 1u) {
        let light = globals.point_lights[i];
        let c = incoming(light, in.world_position);
        let lit = spot_visibility(light, in.world_position, n, c.l, c.distance);
        color += shade(albedo, metallic, alpha, n, v, c.l, c.radiance * lit);
    }
    // Alpha mask: all or nothing at the cutoff (z).
    if MASKED && opacity < in.metal_rough.z {
        discard;
    }
    return vec4<f32>(color + emissive, opacity);
}
