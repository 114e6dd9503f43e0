// A point or spot light as the frame's uniform block holds it
// (render/frame.rs: GpuPointLight).
//
// A piece, not a shader: a shader (or another piece) takes it with the line
//     #import "lights.wgsl"
// which the shader library replaces with this text, once per shader
// (engine/src/render/shader_imports.rs).

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
