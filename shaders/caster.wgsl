// A shadow caster's record (render/records.rs: GpuCaster): the model rows,
// the base colour's alpha and the packed alpha cutoff. The shadow pass's
// casters read the rows (shadow.wgsl); its masked casters read the alpha
// and cutoff too (mesh.wgsl: `vs_caster`).
//
// A piece, not a shader: a shader takes it with the line
//     #import "caster.wgsl"
// which the shader library replaces with this text, once per shader
// (engine/src/render/shader_imports.rs).

struct Caster {
    row_x: vec4<f32>,
    row_y: vec4<f32>,
    row_z: vec4<f32>,
    alpha: f32,
    // The alpha cutoff in the third byte (as Instance.metal_rough has it).
    cutoff: u32,
    pad: vec2<u32>,
}
