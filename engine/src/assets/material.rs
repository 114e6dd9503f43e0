//! Surface materials: glTF's metallic-roughness model, the one the mesh
//! shader draws (GGX microfacets, Smith visibility, Schlick Fresnel). Scene
//! files and imported models both describe surfaces with it; the renderer
//! packs it per instance. It belongs to the assets, not to the scene: the
//! renderer reads it without reaching into the scene module.

use glam::{Vec3, Vec4};
use serde::{Deserialize, Serialize};

use super::{MapsHandle, SLOTS, TextureHandle, TextureSlot};
use crate::validation::InvalidValue;

/// Surface appearance of a mesh (glTF 2.0 metallic-roughness).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "MaterialFields")]
pub struct Material {
    /// Linear RGBA base colour (albedo of a dielectric, reflectance of a metal).
    pub base_color: Vec4,
    /// 0 (dielectric) to 1 (metal).
    pub metallic: f32,
    /// Perceptual roughness, 0 (mirror) to 1 (matte).
    pub roughness: f32,
    /// Linear RGB light the surface emits (strength folded in: may exceed 1).
    #[serde(skip_serializing_if = "is_black")]
    pub emissive: Vec3,
    /// How the base colour's alpha is used.
    #[serde(skip_serializing_if = "AlphaMode::is_opaque")]
    pub alpha_mode: AlphaMode,
    /// Drawn from both sides (back faces lit with the normal turned round).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub double_sided: bool,
    /// Base-colour texture, multiplied with `base_color`. Only imported models
    /// carry one, and their parts are not written to scene files.
    #[serde(skip)]
    pub texture: Option<TextureHandle>,
    /// The imported material's other textures (metallic-roughness, normal,
    /// occlusion, emission), registered once per material.
    #[serde(skip)]
    pub maps: Option<MapsHandle>,
}

/// The textures of an imported material beyond its base colour: what the
/// registry keeps behind a [`MapsHandle`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MaterialMaps {
    /// Metallic in blue, roughness in green (multiplied with the factors).
    pub metal_rough: Option<TextureHandle>,
    /// Tangent-space normals (+Y up, glTF's convention).
    pub normal: Option<TextureHandle>,
    /// How far the normal map tilts the surface (1: as stored).
    pub normal_scale: f32,
    /// Ambient occlusion in red.
    pub occlusion: Option<TextureHandle>,
    /// How much of the occlusion applies (0 none, 1 all).
    pub occlusion_strength: f32,
    /// Emission colour (sRGB), multiplied with the emissive factor.
    pub emissive: Option<TextureHandle>,
    /// How each texture is read (sampler, coordinate set, transform), the
    /// base colour's included, indexed by [`Slot`](super::Slot).
    pub slots: [TextureSlot; SLOTS],
}

impl Default for MaterialMaps {
    fn default() -> Self {
        Self {
            metal_rough: None,
            normal: None,
            normal_scale: 1.0,
            occlusion: None,
            occlusion_strength: 1.0,
            emissive: None,
            slots: [TextureSlot::default(); SLOTS],
        }
    }
}

impl MaterialMaps {
    /// Whether it holds no texture and reads the base colour's as a
    /// material without maps does.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        !self.has_textures() && self.slots.iter().all(TextureSlot::is_default)
    }

    /// Whether it holds any texture.
    #[must_use]
    pub fn has_textures(&self) -> bool {
        self.metal_rough.is_some()
            || self.normal.is_some()
            || self.occlusion.is_some()
            || self.emissive.is_some()
    }
}

fn is_black(c: &Vec3) -> bool {
    *c == Vec3::ZERO
}

/// glTF's alpha modes: how a material's alpha (base colour factor times
/// texture) is used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum AlphaMode {
    /// Alpha is ignored.
    #[default]
    Opaque,
    /// Fully drawn where alpha reaches `cutoff`, not at all below (leaves, fences).
    Mask {
        /// The alpha threshold, 0 to 1.
        cutoff: f32,
    },
    /// Blended over what is behind (glass): drawn after the opaque meshes,
    /// back to front, without writing depth.
    Blend,
}

impl AlphaMode {
    /// Whether alpha is ignored.
    #[must_use]
    pub fn is_opaque(&self) -> bool {
        *self == AlphaMode::Opaque
    }
}

/// Roughness of a scene file's material that gives none.
pub const DEFAULT_ROUGHNESS: f32 = 0.5;

impl Default for Material {
    fn default() -> Self {
        Self {
            base_color: Vec4::new(0.8, 0.8, 0.8, 1.0),
            metallic: 0.0,
            roughness: DEFAULT_ROUGHNESS,
            emissive: Vec3::ZERO,
            alpha_mode: AlphaMode::Opaque,
            double_sided: false,
            texture: None,
            maps: None,
        }
    }
}

impl Material {
    /// Checks the numbers a scene file, the inspector and a prefab override
    /// must hold to: a linear RGBA colour with alpha up to 1, metallic and
    /// roughness from 0 to 1, an emission colour, a mask cutoff from 0 to 1.
    ///
    /// # Errors
    /// The field (`base_color`, `metallic`, `roughness`, `emissive`,
    /// `alpha_mode.cutoff`) and what it must be.
    pub fn validate(&self) -> Result<(), InvalidValue> {
        InvalidValue::rgba("base_color", self.base_color)?;
        InvalidValue::range("metallic", self.metallic, 0.0..=1.0)?;
        InvalidValue::range("roughness", self.roughness, 0.0..=1.0)?;
        InvalidValue::color("emissive", self.emissive)?;
        if let AlphaMode::Mask { cutoff } = self.alpha_mode {
            InvalidValue::range("alpha_mode.cutoff", cutoff, 0.0..=1.0)?;
        }
        Ok(())
    }

    /// An untextured dielectric of a linear RGBA colour, default roughness.
    pub fn from_color(base_color: Vec4) -> Self {
        Self {
            base_color,
            ..Self::default()
        }
    }

    /// An opaque dielectric of a linear RGB colour.
    pub fn rgb(r: f32, g: f32, b: f32) -> Self {
        Self::from_color(Vec4::new(r, g, b, 1.0))
    }
}

/// The roughness whose GGX highlight matches the one a version-1 scene file's
/// `gloss` gave (Blinn-Phong exponent `8..128` over gloss `0..1`; GGX alpha
/// `sqrt(2 / (n + 2))`, perceptual roughness its square root): gloss 0 is
/// roughness 0.67, gloss 1 is 0.35.
#[must_use]
pub fn roughness_from_gloss(gloss: f32) -> f32 {
    let exponent = 8.0 + 120.0 * gloss.clamp(0.0, 1.0);
    (2.0 / (exponent + 2.0)).sqrt().sqrt()
}

/// A material as scene files spell it: version 2 gives `metallic` and
/// `roughness`; version 1 gave `gloss`, read as [`roughness_from_gloss`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MaterialFields {
    base_color: Vec4,
    #[serde(default)]
    metallic: f32,
    roughness: Option<f32>,
    #[serde(default)]
    emissive: Vec3,
    #[serde(default)]
    alpha_mode: AlphaMode,
    #[serde(default)]
    double_sided: bool,
    gloss: Option<f32>,
}

impl TryFrom<MaterialFields> for Material {
    type Error = String;

    /// The other fields are checked with the rest of the scene; `gloss` is
    /// checked here, where it is still there to name.
    fn try_from(f: MaterialFields) -> Result<Self, String> {
        if let Some(gloss) = f.gloss
            && !(0.0..=1.0).contains(&gloss)
        {
            return Err(format!(
                "field gloss: expected a number from 0 to 1, found {gloss}"
            ));
        }
        let roughness = f
            .roughness
            .or(f.gloss.map(roughness_from_gloss))
            .unwrap_or(DEFAULT_ROUGHNESS);
        Ok(Self {
            base_color: f.base_color,
            metallic: f.metallic,
            roughness,
            emissive: f.emissive,
            alpha_mode: f.alpha_mode,
            double_sided: f.double_sided,
            texture: None,
            maps: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gloss_maps_to_the_roughness_of_the_same_highlight() {
        assert!((roughness_from_gloss(0.0) - 0.669).abs() < 1e-3);
        assert!((roughness_from_gloss(1.0) - 0.352).abs() < 1e-3);
        // Glossier is smoother, all the way.
        let r: Vec<f32> = (0..=10)
            .map(|g| roughness_from_gloss(g as f32 / 10.0))
            .collect();
        assert!(r.windows(2).all(|w| w[1] < w[0]), "{r:?}");
    }
}
