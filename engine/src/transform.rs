//! Transform values: the translation, rotation and scale a node carries
//! ([`Transform`]) and the packed affine rows world transforms are stored and
//! drawn as ([`Affine3x4`]). Plain values with no hierarchy: the scene, glTF
//! import and the renderer all speak them.

mod affine;
mod lanes;

use glam::{Affine3A, Quat, Vec3};
use serde::{Deserialize, Serialize};

pub use affine::Affine3x4;
pub(crate) use affine::interpolate;
pub(crate) use lanes::F4;

/// Translation, rotation and scale of a node relative to its parent.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Transform {
    /// Position relative to the parent.
    pub translation: Vec3,
    /// Orientation relative to the parent (a unit quaternion).
    pub rotation: Quat,
    /// Scale along the node's own axes.
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    /// No translation, no rotation, unit scale.
    pub const IDENTITY: Self = Self {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// A pure translation.
    pub fn from_translation(translation: Vec3) -> Self {
        Self {
            translation,
            ..Self::IDENTITY
        }
    }

    /// This transform with another rotation.
    pub fn with_rotation(self, rotation: Quat) -> Self {
        Self { rotation, ..self }
    }

    /// This transform with another scale.
    pub fn with_scale(self, scale: Vec3) -> Self {
        Self { scale, ..self }
    }

    /// The matrix this transform stands for (scale, then rotate, then translate).
    pub fn to_affine(&self) -> Affine3A {
        Affine3A::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// Decomposes a matrix (exact for matrices without shear).
    pub fn from_affine(affine: Affine3A) -> Self {
        let (scale, rotation, translation) = affine.to_scale_rotation_translation();
        Self {
            translation,
            rotation,
            scale,
        }
    }

    /// Whether every component is a finite number.
    pub fn is_finite(&self) -> bool {
        self.translation.is_finite() && self.rotation.is_finite() && self.scale.is_finite()
    }
}
