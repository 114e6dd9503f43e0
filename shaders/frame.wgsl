// The frame's uniform block, bound at group 0, binding 0 by every pass that
// draws the scene (render/frame.rs: Globals): the camera, the sun, the point
// and spot lights, and the shadow views.
//
// A piece, not a shader: a shader takes it with the line
//     #import "frame.wgsl"
// which the shader library replaces with this text, once per shader
// (engine/src/render/shader_imports.rs).

#import "lights.wgsl"

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
    // The sun's shadow cascades: world to each cascade's clip space, the view
    // depth where each ends, the world size of one of its texels, and
    // x: cascades in use, y: depth bias, z: normal offset (both in texels),
    // w: one texel in texture coordinates.
    shadow_matrices: array<mat4x4<f32>, 4>,
    shadow_far: vec4<f32>,
    shadow_texel: vec4<f32>,
    shadow_params: vec4<f32>,
    // World to each shadowed spot's clip space.
    spot_matrices: array<mat4x4<f32>, 4>,
}

@group(0) @binding(0) var<uniform> globals: Globals;
