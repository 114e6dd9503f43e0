// Image-based lighting, baked once on the GPU: the sky (an equirectangular
// image, linear HDR) drawn into a cube map with a mip chain, then convolved
// into the two maps the mesh shader reads: specular (GGX, one mip per
// roughness step, filtered importance sampling) and diffuse irradiance
// (cosine-weighted, divided by pi: what a white matte surface reflects).
// Every draw is one triangle covering a face; the face (and the mip of the
// specular map) come in as the instance index.

const PI: f32 = 3.14159265;
const SPECULAR_SAMPLES: u32 = 96u;
const IRRADIANCE_SAMPLES: u32 = 256u;

@group(0) @binding(0) var sky: texture_2d<f32>;
@group(0) @binding(1) var environment: texture_cube<f32>;
@group(0) @binding(2) var linear_clamp: sampler;
// x: the source cube's face size, y: its mip count, z: specular mips.
struct Bake {
    params: vec4<f32>,
}
@group(0) @binding(3) var<uniform> bake: Bake;

struct Face {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) @interpolate(flat) face: u32,
    @location(2) @interpolate(flat) level: u32,
}

@vertex
fn vs_face(@builtin(vertex_index) index: u32, @builtin(instance_index) instance: u32) -> Face {
    let uv = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    var out: Face;
    out.position = vec4<f32>(uv * vec2<f32>(2.0, -2.0) + vec2<f32>(-1.0, 1.0), 0.0, 1.0);
    out.uv = uv;
    out.face = instance % 6u;
    out.level = instance / 6u;
    return out;
}

// The direction through `uv` of cube face `face` (+X, -X, +Y, -Y, +Z, -Z;
// v runs down the face, as wgpu's cube maps are laid out).
fn direction(face: u32, uv: vec2<f32>) -> vec3<f32> {
    let s = uv.x * 2.0 - 1.0;
    let t = uv.y * 2.0 - 1.0;
    var d: vec3<f32>;
    switch face {
        case 0u: { d = vec3<f32>(1.0, -t, -s); }
        case 1u: { d = vec3<f32>(-1.0, -t, s); }
        case 2u: { d = vec3<f32>(s, 1.0, t); }
        case 3u: { d = vec3<f32>(s, -1.0, -t); }
        case 4u: { d = vec3<f32>(s, -t, 1.0); }
        default: { d = vec3<f32>(-s, -t, -1.0); }
    }
    return normalize(d);
}

// The sky image along `d`: longitude across (u = 0.5 looks along -Z, +X to
// the right of it), latitude down (v = 0 is straight up).
fn sky_along(d: vec3<f32>) -> vec3<f32> {
    let u = atan2(d.x, -d.z) / (2.0 * PI) + 0.5;
    let v = acos(clamp(d.y, -1.0, 1.0)) / PI;
    return textureSampleLevel(sky, linear_clamp, vec2<f32>(u, v), 0.0).rgb;
}

// Mip 0 of the environment cube: the sky, 4 x 4 samples a texel (a large
// image has many texels under each).
@fragment
fn fs_sky(in: Face) -> @location(0) vec4<f32> {
    let texel = 1.0 / bake.params.x;
    var sum = vec3<f32>(0.0);
    for (var y = 0; y < 4; y += 1) {
        for (var x = 0; x < 4; x += 1) {
            let offset = (vec2<f32>(f32(x), f32(y)) - 1.5) * 0.25 * texel;
            sum += sky_along(direction(in.face, in.uv + offset));
        }
    }
    return vec4<f32>(sum / 16.0, 1.0);
}

// Each further mip: the one above, averaged 2 x 2 by the linear sampler
// (the view bound is the finer mip alone).
@fragment
fn fs_downsample(in: Face) -> @location(0) vec4<f32> {
    return vec4<f32>(textureSampleLevel(environment, linear_clamp, direction(in.face, in.uv), 0.0).rgb, 1.0);
}

// The i-th of n points of the Hammersley set.
fn hammersley(i: u32, n: u32) -> vec2<f32> {
    return vec2<f32>(f32(i) / f32(n), f32(reverseBits(i)) * 2.3283064365386963e-10);
}

// A frame around `n`: `local` turned from (tangent, bitangent, n) space.
fn around(n: vec3<f32>, local: vec3<f32>) -> vec3<f32> {
    let up = select(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 0.0, 1.0), abs(n.z) < 0.999);
    let tangent = normalize(cross(up, n));
    let bitangent = cross(n, tangent);
    return tangent * local.x + bitangent * local.y + n * local.z;
}

// The mip of the environment whose texels cover `solid_angle` (filtered
// importance sampling: each sample reads the area it stands for, so few
// samples give no fireflies).
fn level_for(solid_angle: f32) -> f32 {
    let size = bake.params.x;
    let texel = 4.0 * PI / (6.0 * size * size);
    return clamp(0.5 * log2(solid_angle / texel) + 1.0, 0.0, bake.params.y - 1.0);
}

// The specular map's mip `level`: the environment convolved with GGX at
// roughness level / (mips - 1), with n = v = r (Karis' split-sum approximation).
@fragment
fn fs_specular(in: Face) -> @location(0) vec4<f32> {
    let n = direction(in.face, in.uv);
    let roughness = f32(in.level) / max(bake.params.z - 1.0, 1.0);
    if in.level == 0u {
        return vec4<f32>(textureSampleLevel(environment, linear_clamp, n, 0.0).rgb, 1.0);
    }
    let alpha = roughness * roughness;
    let a2 = alpha * alpha;
    var sum = vec3<f32>(0.0);
    var weight = 0.0;
    for (var i = 0u; i < SPECULAR_SAMPLES; i += 1u) {
        let xi = hammersley(i, SPECULAR_SAMPLES);
        let cos_theta = sqrt((1.0 - xi.y) / (1.0 + (a2 - 1.0) * xi.y));
        let sin_theta = sqrt(1.0 - cos_theta * cos_theta);
        let phi = 2.0 * PI * xi.x;
        let h = around(n, vec3<f32>(sin_theta * cos(phi), sin_theta * sin(phi), cos_theta));
        let l = 2.0 * dot(n, h) * h - n;
        let n_dot_l = dot(n, l);
        if n_dot_l > 0.0 {
            // pdf of l: D(h) (n.h) / (4 v.h), with n = v.
            let f = cos_theta * cos_theta * (a2 - 1.0) + 1.0;
            let d = a2 / (PI * f * f);
            let pdf = d / 4.0;
            let solid_angle = 1.0 / (f32(SPECULAR_SAMPLES) * pdf + 1e-6);
            sum += textureSampleLevel(environment, linear_clamp, l, level_for(solid_angle)).rgb * n_dot_l;
            weight += n_dot_l;
        }
    }
    return vec4<f32>(sum / max(weight, 1e-6), 1.0);
}

// Diffuse irradiance over pi around `n`: the mean of the environment over
// cosine-distributed directions.
@fragment
fn fs_irradiance(in: Face) -> @location(0) vec4<f32> {
    let n = direction(in.face, in.uv);
    var sum = vec3<f32>(0.0);
    for (var i = 0u; i < IRRADIANCE_SAMPLES; i += 1u) {
        let xi = hammersley(i, IRRADIANCE_SAMPLES);
        let r = sqrt(xi.y);
        let phi = 2.0 * PI * xi.x;
        let l = around(n, vec3<f32>(r * cos(phi), r * sin(phi), sqrt(max(1.0 - xi.y, 0.0))));
        // pdf cos / pi: each sample stands for pi / (N cos) steradians.
        let cos_theta = max(dot(n, l), 1e-3);
        let solid_angle = PI / (f32(IRRADIANCE_SAMPLES) * cos_theta);
        sum += textureSampleLevel(environment, linear_clamp, l, level_for(solid_angle)).rgb;
    }
    return vec4<f32>(sum / f32(IRRADIANCE_SAMPLES), 1.0);
}
