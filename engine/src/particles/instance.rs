//! The per-particle data handed to the GPU: what the pool packs and the particle pass draws.

use serde::{Deserialize, Serialize};

/// How a particle's colour combines with what is behind it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BlendMode {
    /// Colours add up (fire, sparks, spray): order does not matter.
    Additive,
    /// Ordinary "over" blending with the particle's alpha (smoke).
    #[default]
    Alpha,
}

/// One camera-facing billboard, as the particle pass reads it from its instance buffer.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ParticleInstance {
    /// Centre of the billboard in world space (already interpolated for the frame).
    pub position: [f32; 3],
    /// Edge length of the billboard in world units.
    pub size: f32,
    /// Linear RGBA colour; alpha scales the soft round sprite.
    pub color: [f32; 4],
}
