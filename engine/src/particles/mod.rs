//! Particles: a fixed-capacity pool (object pool pattern) and the emitters that feed it.

mod instance;

pub use instance::{BlendMode, ParticleInstance};
