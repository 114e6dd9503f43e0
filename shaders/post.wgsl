// Post pass: the HDR frame to the output. Bloom (bright pixels, thresholded
// with a soft knee, downsampled through a mip chain with a 13-tap filter and
// added back up with a 3x3 tent), then exposure and a tonemapper (none, ACES
// fitted, AgX) into the output format, whose sRGB encoding the target does.

struct Post {
    // x: exposure scale (2^EV), y: tonemapper (0 none, 1 ACES fitted, 2 AgX),
    // z: bloom intensity (0: no bloom), w: bloom threshold.
    params: vec4<f32>,
}

@group(0) @binding(0) var<uniform> post: Post;
@group(0) @binding(1) var source: texture_2d<f32>;
@group(0) @binding(2) var linear_clamp: sampler;
@group(0) @binding(3) var bloom: texture_2d<f32>;

struct FullScreen {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
}

// One triangle covering the screen.
@vertex
fn vs_fullscreen(@builtin(vertex_index) index: u32) -> FullScreen {
    let uv = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    var out: FullScreen;
    out.position = vec4<f32>(uv * vec2<f32>(2.0, -2.0) + vec2<f32>(-1.0, 1.0), 0.0, 1.0);
    out.uv = uv;
    return out;
}

// The 13-tap downsample (Jimenez, "Next generation post processing in Call of
// Duty"): five overlapping 2x2 boxes, weighted, so no pixel flickers as it moves.
fn downsample13(uv: vec2<f32>) -> vec3<f32> {
    let t = 1.0 / vec2<f32>(textureDimensions(source));
    let a = textureSampleLevel(source, linear_clamp, uv + t * vec2<f32>(-2.0, -2.0), 0.0).rgb;
    let b = textureSampleLevel(source, linear_clamp, uv + t * vec2<f32>(0.0, -2.0), 0.0).rgb;
    let c = textureSampleLevel(source, linear_clamp, uv + t * vec2<f32>(2.0, -2.0), 0.0).rgb;
    let d = textureSampleLevel(source, linear_clamp, uv + t * vec2<f32>(-2.0, 0.0), 0.0).rgb;
    let e = textureSampleLevel(source, linear_clamp, uv, 0.0).rgb;
    let f = textureSampleLevel(source, linear_clamp, uv + t * vec2<f32>(2.0, 0.0), 0.0).rgb;
    let g = textureSampleLevel(source, linear_clamp, uv + t * vec2<f32>(-2.0, 2.0), 0.0).rgb;
    let h = textureSampleLevel(source, linear_clamp, uv + t * vec2<f32>(0.0, 2.0), 0.0).rgb;
    let i = textureSampleLevel(source, linear_clamp, uv + t * vec2<f32>(2.0, 2.0), 0.0).rgb;
    let j = textureSampleLevel(source, linear_clamp, uv + t * vec2<f32>(-1.0, -1.0), 0.0).rgb;
    let k = textureSampleLevel(source, linear_clamp, uv + t * vec2<f32>(1.0, -1.0), 0.0).rgb;
    let l = textureSampleLevel(source, linear_clamp, uv + t * vec2<f32>(-1.0, 1.0), 0.0).rgb;
    let m = textureSampleLevel(source, linear_clamp, uv + t * vec2<f32>(1.0, 1.0), 0.0).rgb;
    return e * 0.125 + (a + c + g + i) * 0.03125 + (b + d + f + h) * 0.0625 + (j + k + l + m) * 0.125;
}

// The first step down from the HDR frame: only what is brighter than the
// threshold passes, with a soft knee of half the threshold.
@fragment
fn fs_prefilter(in: FullScreen) -> @location(0) vec4<f32> {
    let color = downsample13(in.uv) * post.params.x;
    let threshold = post.params.w;
    let knee = threshold * 0.5;
    let brightness = max(color.r, max(color.g, color.b));
    var soft = clamp(brightness - threshold + knee, 0.0, 2.0 * knee);
    soft = soft * soft / (4.0 * knee + 1e-4);
    let contribution = max(soft, brightness - threshold) / max(brightness, 1e-4);
    return vec4<f32>(color * contribution, 1.0);
}

@fragment
fn fs_downsample(in: FullScreen) -> @location(0) vec4<f32> {
    return vec4<f32>(downsample13(in.uv), 1.0);
}

// One step up: a 3x3 tent of the smaller mip, added (by blending) to the larger.
@fragment
fn fs_upsample(in: FullScreen) -> @location(0) vec4<f32> {
    let t = 1.0 / vec2<f32>(textureDimensions(source));
    var sum = textureSampleLevel(source, linear_clamp, in.uv, 0.0).rgb * 4.0;
    sum += textureSampleLevel(source, linear_clamp, in.uv + t * vec2<f32>(-1.0, 0.0), 0.0).rgb * 2.0;
    sum += textureSampleLevel(source, linear_clamp, in.uv + t * vec2<f32>(1.0, 0.0), 0.0).rgb * 2.0;
    sum += textureSampleLevel(source, linear_clamp, in.uv + t * vec2<f32>(0.0, -1.0), 0.0).rgb * 2.0;
    sum += textureSampleLevel(source, linear_clamp, in.uv + t * vec2<f32>(0.0, 1.0), 0.0).rgb * 2.0;
    sum += textureSampleLevel(source, linear_clamp, in.uv + t * vec2<f32>(-1.0, -1.0), 0.0).rgb;
    sum += textureSampleLevel(source, linear_clamp, in.uv + t * vec2<f32>(1.0, -1.0), 0.0).rgb;
    sum += textureSampleLevel(source, linear_clamp, in.uv + t * vec2<f32>(-1.0, 1.0), 0.0).rgb;
    sum += textureSampleLevel(source, linear_clamp, in.uv + t * vec2<f32>(1.0, 1.0), 0.0).rgb;
    return vec4<f32>(sum / 16.0, 1.0);
}

// Stephen Hill's fit of the ACES reference rendering and output transforms.
fn aces_fitted(color: vec3<f32>) -> vec3<f32> {
    let input = mat3x3<f32>(
        vec3<f32>(0.59719, 0.07600, 0.02840),
        vec3<f32>(0.35458, 0.90834, 0.13383),
        vec3<f32>(0.04823, 0.01566, 0.83777),
    );
    let output = mat3x3<f32>(
        vec3<f32>(1.60475, -0.10208, -0.00327),
        vec3<f32>(-0.53108, 1.10813, -0.07276),
        vec3<f32>(-0.07367, -0.00605, 1.07602),
    );
    let v = input * color;
    let a = v * (v + 0.0245786) - 0.000090537;
    let b = v * (0.983729 * v + 0.4329510) + 0.238081;
    return clamp(output * (a / b), vec3<f32>(0.0), vec3<f32>(1.0));
}

// AgX (Troy Sobotka), with Benjamin Wrensch's polynomial fit of the base
// contrast curve; linear sRGB in, linear sRGB out.
fn agx(color: vec3<f32>) -> vec3<f32> {
    let inset = mat3x3<f32>(
        vec3<f32>(0.842479062253094, 0.0423282422610123, 0.0423756549057051),
        vec3<f32>(0.0784335999999992, 0.878468636469772, 0.0784336),
        vec3<f32>(0.0792237451477643, 0.0791661274605434, 0.879142973793104),
    );
    let outset = mat3x3<f32>(
        vec3<f32>(1.19687900512017, -0.0528968517574562, -0.0529716355144438),
        vec3<f32>(-0.0980208811401368, 1.15190312990417, -0.0980434501171241),
        vec3<f32>(-0.0990297440797205, -0.0989611768448433, 1.15107367264116),
    );
    let min_ev = -12.47393;
    let max_ev = 4.026069;
    var v = inset * max(color, vec3<f32>(1e-10));
    v = clamp((log2(v) - min_ev) / (max_ev - min_ev), vec3<f32>(0.0), vec3<f32>(1.0));
    let v2 = v * v;
    let v4 = v2 * v2;
    v = 15.5 * v4 * v2 - 40.14 * v4 * v + 31.96 * v4 - 6.868 * v2 * v + 0.4298 * v2 + 0.1191 * v - 0.00232;
    // The curve gives display-encoded values: back to linear for the sRGB target.
    return pow(max(outset * v, vec3<f32>(0.0)), vec3<f32>(2.2));
}

@fragment
fn fs_tonemap(in: FullScreen) -> @location(0) vec4<f32> {
    var color = textureSampleLevel(source, linear_clamp, in.uv, 0.0).rgb * post.params.x;
    if post.params.z > 0.0 {
        color += textureSampleLevel(bloom, linear_clamp, in.uv, 0.0).rgb * post.params.z;
    }
    let mode = u32(post.params.y);
    if mode == 1u {
        color = aces_fitted(color);
    } else if mode == 2u {
        color = agx(color);
    }
    return vec4<f32>(clamp(color, vec3<f32>(0.0), vec3<f32>(1.0)), 1.0);
}
