// Sky pass: the environment's sky image behind everything, drawn first
// over the whole frame (no depth test, no depth write), each pixel the
// equirectangular image along its view ray, scaled like the lighting by the
// ambient colour.

#import "frame.wgsl"

@group(1) @binding(0) var sky: texture_2d<f32>;
@group(1) @binding(1) var sky_sampler: sampler;
// Clip space back to world space.
struct SkyView {
    inverse_view_proj: mat4x4<f32>,
}
@group(1) @binding(2) var<uniform> view: SkyView;

const PI: f32 = 3.14159265;

struct FullScreen {
    @builtin(position) position: vec4<f32>,
    @location(0) ndc: vec2<f32>,
}

// One triangle covering the screen.
@vertex
fn vs_sky(@builtin(vertex_index) index: u32) -> FullScreen {
    let uv = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    let ndc = uv * vec2<f32>(2.0, -2.0) + vec2<f32>(-1.0, 1.0);
    var out: FullScreen;
    out.position = vec4<f32>(ndc, 1.0, 1.0);
    out.ndc = ndc;
    return out;
}

@fragment
fn fs_sky(in: FullScreen) -> @location(0) vec4<f32> {
    let far = view.inverse_view_proj * vec4<f32>(in.ndc, 1.0, 1.0);
    let d = normalize(far.xyz / far.w - globals.camera_position.xyz);
    // The mapping of render/ibl.rs: longitude across, latitude down.
    let u = atan2(d.x, -d.z) / (2.0 * PI) + 0.5;
    let v = acos(clamp(d.y, -1.0, 1.0)) / PI;
    let color = textureSampleLevel(sky, sky_sampler, vec2<f32>(u, v), 0.0).rgb;
    return vec4<f32>(color * globals.ambient.rgb, 1.0);
}
