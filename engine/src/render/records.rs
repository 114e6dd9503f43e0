//! The per-instance records the GPU reads from storage buffers: the mesh
//! pass's [`GpuInstance`] (the transform and the material's factors) and the
//! shadow pass's [`GpuCaster`] (the transform and what an alpha test needs).
//!
//! Packing a frame streams these records to memory, so their size is its
//! cost: a caster, drawn depth-only into every view it touches, carries no
//! colour it never reads, and is one cache line.

use glam::{Affine3A, Vec3};

use crate::assets::{AlphaMode, Material};
use crate::scene::Affine3x4;

/// A record packed from a transform and a material.
pub trait InstanceRecord: bytemuck::Pod + Default + Send + Sync + std::fmt::Debug {
    /// A shadow caster's record: a batcher of these takes only the loose
    /// instances that cast (blended ones cast none) and groups them as
    /// casters ([`BatchKey::caster`](super::BatchKey::caster)).
    const CASTER: bool = false;

    /// Packs `model` as the scene stores it (already the GPU's rows) drawn
    /// with `material`.
    fn from_rows(model: &Affine3x4, material: &Material) -> Self;

    /// Packs `model` drawn with `material`.
    #[inline]
    fn pack(model: &Affine3A, material: &Material) -> Self {
        Self::from_rows(&Affine3x4::from_affine(model), material)
    }

    /// The rows of the 3x4 model matrix.
    fn rows(&self) -> &[[f32; 4]; 3];

    /// Where the instance is (the model's translation).
    #[inline]
    fn position(&self) -> Vec3 {
        let [x, y, z] = self.rows();
        Vec3::new(x[3], y[3], z[3])
    }

    /// The model transform back from the packed rows.
    fn model(&self) -> Affine3A {
        let rows = self.rows().map(glam::Vec4::from);
        Affine3x4 { rows }.to_affine()
    }
}

/// One instance as the mesh shader reads it from its storage buffer (80 bytes:
/// four `vec4`s, then a `vec3` and a `u32`, so the Rust and WGSL layouts agree).
/// The normal matrix is derived in the shader from the model's axes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuInstance {
    /// The rows of the 3x4 model matrix (rotation-scale, then translation in `w`).
    pub rows: [[f32; 4]; 3],
    /// Linear RGBA base colour.
    pub color: [f32; 4],
    /// Linear RGB emitted light.
    pub emissive: [f32; 3],
    /// Unorm8s, low byte first: metallic, roughness and the alpha cutoff
    /// (0 unless alpha masks; masking itself is a pipeline of its own).
    pub metal_rough: u32,
}

impl InstanceRecord for GpuInstance {
    /// The transform and the material's factors.
    #[inline]
    fn from_rows(model: &Affine3x4, material: &Material) -> Self {
        Self {
            rows: model.to_array(),
            color: material.base_color.to_array(),
            emissive: material.emissive.to_array(),
            metal_rough: pack_surface(material),
        }
    }

    #[inline]
    fn rows(&self) -> &[[f32; 4]; 3] {
        &self.rows
    }
}

/// One shadow caster as the shadow pass reads it (64 bytes: three `vec4`s,
/// an `f32`, a `u32` and a `vec2<u32>`): the model rows and, for an
/// alpha-masked caster's cut-outs, its base colour's alpha and its cutoff.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuCaster {
    /// The rows of the 3x4 model matrix (rotation-scale, then translation in `w`).
    pub rows: [[f32; 4]; 3],
    /// The base colour's alpha.
    pub alpha: f32,
    /// The alpha cutoff where [`GpuInstance::metal_rough`] has it (the third
    /// unorm8; 0 unless alpha masks), the other bytes 0.
    pub cutoff: u32,
    /// Keeps the record a cache line.
    pub pad: [u32; 2],
}

impl InstanceRecord for GpuCaster {
    const CASTER: bool = true;

    /// The transform and what the material's alpha test reads.
    #[inline]
    fn from_rows(model: &Affine3x4, material: &Material) -> Self {
        Self {
            rows: model.to_array(),
            alpha: material.base_color.w,
            cutoff: unorm8(alpha_cutoff(material)) << 16,
            pad: [0; 2],
        }
    }

    #[inline]
    fn rows(&self) -> &[[f32; 4]; 3] {
        &self.rows
    }
}

/// Metallic, roughness and alpha cutoff as WGSL's `unpack4x8unorm` reads
/// them (metallic in the low byte).
#[inline]
fn pack_surface(material: &Material) -> u32 {
    let cutoff = alpha_cutoff(material);
    unorm8(material.metallic) | (unorm8(material.roughness) << 8) | (unorm8(cutoff) << 16)
}

/// The alpha cutoff a masked material cuts at (0 for the other modes).
#[inline]
fn alpha_cutoff(material: &Material) -> f32 {
    match material.alpha_mode {
        AlphaMode::Mask { cutoff } => cutoff,
        _ => 0.0,
    }
}

/// `v` in 0..=1 as WGSL's `unpack4x8unorm` reads a byte.
#[inline]
fn unorm8(v: f32) -> u32 {
    (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u32
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3, Vec4};

    use super::*;

    #[test]
    fn records_match_their_wgsl_layouts() {
        assert_eq!(size_of::<GpuInstance>(), 80);
        assert_eq!(size_of::<GpuCaster>(), 64);
    }

    #[test]
    fn a_caster_carries_the_instances_rows_alpha_and_cutoff() {
        let model = Affine3A::from_scale_rotation_translation(
            Vec3::new(1.0, 2.0, 0.5),
            Quat::from_rotation_y(0.7),
            Vec3::new(3.0, -1.0, 8.0),
        );
        let material = Material {
            base_color: Vec4::new(0.2, 0.4, 0.6, 0.35),
            alpha_mode: AlphaMode::Mask { cutoff: 0.4 },
            metallic: 0.9,
            ..Material::default()
        };
        let instance = GpuInstance::pack(&model, &material);
        let caster = GpuCaster::pack(&model, &material);
        assert_eq!(caster.rows, instance.rows);
        assert_eq!(caster.alpha, 0.35);
        assert_eq!(caster.cutoff, instance.metal_rough & 0xff_0000);
        assert_eq!(caster.cutoff >> 16, 102, "0.4 of 255");
        assert!(caster.model().abs_diff_eq(model, 1e-6));
        assert_eq!(caster.position(), Vec3::new(3.0, -1.0, 8.0));
        assert_eq!(instance.position(), caster.position());
    }
}
