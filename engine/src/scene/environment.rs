//! What a scene sets for the whole of it rather than per node: its lighting
//! and background ([`Environment`]), how the sun casts shadows
//! ([`ShadowSettings`]), exposure, tonemapping and bloom ([`PostSettings`]);
//! and older files' camera record ([`CameraSetup`]). Plain values saved in
//! the scene file; the renderer reads them.

use glam::Vec3;
use serde::{Deserialize, Serialize};

/// The most cascades a sun can have.
pub const MAX_CASCADES: usize = 4;
/// Lighting and background shared by the whole scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[serde(deny_unknown_fields)]
pub struct Environment {
    /// Linear RGB of the background (where no sky image is drawn).
    pub clear_color: Vec3,
    /// Linear RGB of the light that reaches everything: the sky's colour
    /// (the sky/ground hemisphere), or the multiplier of the sky image.
    pub ambient: Vec3,
    /// An equirectangular Radiance HDR image (`.hdr`) that lights the scene
    /// (image-based) and is drawn behind it; none: the hemisphere. Absolute
    /// here; scene files store it relative to themselves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sky: Option<std::path::PathBuf>,
    /// How the sun casts shadows.
    pub shadows: ShadowSettings,
    /// Exposure, tonemapper and bloom.
    pub post: PostSettings,
}

impl Default for Environment {
    fn default() -> Self {
        Self {
            clear_color: Vec3::new(0.35, 0.5, 0.7),
            ambient: Vec3::splat(0.15),
            sky: None,
            shadows: ShadowSettings::default(),
            post: PostSettings::default(),
        }
    }
}

/// The one camera record of scene files before version 3 (position,
/// target, field of view): read into a `Camera` node
/// ([`SceneCamera::from_setup`](super::SceneCamera::from_setup)), never written.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[serde(deny_unknown_fields)]
pub struct CameraSetup {
    /// Eye position in world space.
    pub position: Vec3,
    /// Point looked at.
    pub target: Vec3,
    /// Vertical field of view, degrees.
    pub fov_y_degrees: f32,
}

impl Default for CameraSetup {
    fn default() -> Self {
        Self {
            position: Vec3::new(0.0, 5.0, 12.0),
            target: Vec3::ZERO,
            fov_y_degrees: 50.0,
        }
    }
}

/// How the sun casts shadows: part of a scene's environment.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ShadowSettings {
    /// Whether the sun casts shadows at all.
    pub enabled: bool,
    /// Cascades, 1 to [`MAX_CASCADES`]: nearer ones are sharper.
    pub cascades: u32,
    /// View distance (world units) beyond which nothing is shadowed.
    pub distance: f32,
    /// Side of each cascade's map in texels, 256 to 4096.
    pub resolution: u32,
    /// How far a receiver is moved towards the sun before the depth test,
    /// in shadow texels: more removes acne, too much detaches shadows.
    pub depth_bias: f32,
    /// How far a receiver is moved along its normal, in shadow texels:
    /// removes acne on surfaces the light grazes.
    pub normal_offset: f32,
}

impl Default for ShadowSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            cascades: 3,
            distance: 80.0,
            resolution: 2048,
            depth_bias: 1.0,
            normal_offset: 1.5,
        }
    }
}

impl ShadowSettings {
    /// Cascades actually used (the setting clamped to 1..=MAX_CASCADES; 0 when disabled).
    #[must_use]
    pub fn cascade_count(&self) -> usize {
        if self.enabled {
            (self.cascades as usize).clamp(1, MAX_CASCADES)
        } else {
            0
        }
    }

    /// The map side in texels, clamped to what the renderer supports.
    #[must_use]
    pub fn map_size(&self) -> u32 {
        self.resolution.clamp(256, 4096)
    }
}

/// How HDR colour is brought into the output's 0..1 range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Tonemapper {
    /// Clipped at 1: what a light of intensity 1 on white gives is white.
    #[default]
    None,
    /// Stephen Hill's fit of ACES: filmic contrast, bright colours desaturate.
    AcesFitted,
    /// Troy Sobotka's AgX: softer, keeps hues of very bright colours.
    Agx,
}

impl Tonemapper {
    /// Every tonemapper, in menu order.
    pub const ALL: [Tonemapper; 3] = [Tonemapper::None, Tonemapper::AcesFitted, Tonemapper::Agx];

    /// The name shown in the editor.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Tonemapper::None => "None",
            Tonemapper::AcesFitted => "ACES fitted",
            Tonemapper::Agx => "AgX",
        }
    }
}

/// Exposure, tonemapping and bloom: part of a scene's environment.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PostSettings {
    /// Exposure in stops (EV): each +1 doubles the light.
    pub exposure: f32,
    /// The curve from HDR to the output.
    pub tonemapper: Tonemapper,
    /// Whether bright pixels glow.
    pub bloom: bool,
    /// Brightness (after exposure) above which a pixel blooms.
    pub bloom_threshold: f32,
    /// How much of the bloom is added to the frame.
    pub bloom_intensity: f32,
}

impl Default for PostSettings {
    fn default() -> Self {
        Self {
            exposure: 0.0,
            tonemapper: Tonemapper::None,
            bloom: false,
            bloom_threshold: 1.0,
            bloom_intensity: 0.2,
        }
    }
}
