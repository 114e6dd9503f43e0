//! How a material reads each of its textures: glTF's sampler (wrapping and
//! filtering), the texture coordinate set, and `KHR_texture_transform`'s
//! offset, rotation and scale. Imported models carry one [`TextureSlot`] per
//! texture of a material; the renderer turns each into a sampler and a row
//! of the material's uniform.

use glam::Vec2;

/// The textures of a material, in the order of [`MaterialMaps::slots`](super::MaterialMaps::slots).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// Base colour (sRGB).
    BaseColor = 0,
    /// Metallic (blue) and roughness (green).
    MetalRough = 1,
    /// Tangent-space normals.
    Normal = 2,
    /// Ambient occlusion (red).
    Occlusion = 3,
    /// Emission (sRGB).
    Emissive = 4,
}

/// How many texture slots a material has.
pub const SLOTS: usize = 5;

/// How texture coordinates outside 0..1 are read (glTF's wrapS / wrapT).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Wrap {
    /// Tiled (glTF's default).
    #[default]
    Repeat,
    /// Tiled, every other tile mirrored.
    MirroredRepeat,
    /// The edge texel stretched outwards.
    ClampToEdge,
}

/// Texel filtering: the nearest texel or a blend of the closest ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TextureFilter {
    /// Blended (glTF's default where the file leaves it to the renderer).
    #[default]
    Linear,
    /// The nearest texel (pixel art, lookup tables).
    Nearest,
}

/// A texture's sampler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sampling {
    /// Along u.
    pub wrap_u: Wrap,
    /// Along v.
    pub wrap_v: Wrap,
    /// When a texel covers several pixels.
    pub mag: TextureFilter,
    /// When a pixel covers several texels.
    pub min: TextureFilter,
    /// Between mip levels; `None` reads the full-size image only.
    pub mipmap: Option<TextureFilter>,
}

impl Default for Sampling {
    /// Repeating, trilinear: what glTF's renderers use where the file gives no sampler.
    fn default() -> Self {
        Self {
            wrap_u: Wrap::Repeat,
            wrap_v: Wrap::Repeat,
            mag: TextureFilter::Linear,
            min: TextureFilter::Linear,
            mipmap: Some(TextureFilter::Linear),
        }
    }
}

/// `KHR_texture_transform`: texture coordinates scaled, then rotated, then offset.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UvTransform {
    /// Added last.
    pub offset: Vec2,
    /// Radians (the extension's sense: the matrix below).
    pub rotation: f32,
    /// Applied first.
    pub scale: Vec2,
}

impl Default for UvTransform {
    fn default() -> Self {
        Self {
            offset: Vec2::ZERO,
            rotation: 0.0,
            scale: Vec2::ONE,
        }
    }
}

impl UvTransform {
    /// The rows of the 2x3 matrix `translation * rotation * scale` of the
    /// extension (its GLSL, column-major rotation `(cos, sin), (-sin, cos)`):
    /// `uv' = (row0 . (u, v, 1), row1 . (u, v, 1))`.
    #[must_use]
    pub fn rows(&self) -> [[f32; 3]; 2] {
        let (sin, cos) = crate::math::sin_cos(self.rotation);
        let Vec2 { x: sx, y: sy } = self.scale;
        [
            [cos * sx, -sin * sy, self.offset.x],
            [sin * sx, cos * sy, self.offset.y],
        ]
    }

    /// `uv` transformed.
    #[must_use]
    pub fn apply(&self, uv: Vec2) -> Vec2 {
        let [a, b] = self.rows();
        Vec2::new(
            a[0] * uv.x + a[1] * uv.y + a[2],
            b[0] * uv.x + b[1] * uv.y + b[2],
        )
    }
}

/// How a material reads one texture.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TextureSlot {
    /// The sampler.
    pub sampling: Sampling,
    /// Texture coordinate set: 0 (TEXCOORD_0) or 1 (TEXCOORD_1).
    pub tex_coord: u8,
    /// Applied to the coordinates before sampling.
    pub transform: UvTransform,
}

impl TextureSlot {
    /// Whether it reads as a slot of a material without one would.
    #[must_use]
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transforms_scale_then_rotate_then_offset() {
        let t = UvTransform {
            offset: Vec2::new(0.5, 0.25),
            rotation: std::f32::consts::FRAC_PI_2,
            scale: Vec2::new(2.0, 3.0),
        };
        // (1, 0) scaled to (2, 0), turned a quarter (the extension's sense) to
        // (0, 2), offset to (0.5, 2.25); (0, 1) to (0, 3), then (-3, 0), then (-2.5, 0.25).
        assert!(t.apply(Vec2::X).abs_diff_eq(Vec2::new(0.5, 2.25), 1e-6));
        assert!(t.apply(Vec2::Y).abs_diff_eq(Vec2::new(-2.5, 0.25), 1e-6));
        assert_eq!(
            UvTransform::default().apply(Vec2::new(0.3, 0.7)),
            Vec2::new(0.3, 0.7)
        );
    }
}
