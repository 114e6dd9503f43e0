//! What the renderer draws: a plain, borrowed description of one frame that the
//! engine extracts from the scene, and the uniform block every pass shares.
//!
//! Pattern: double buffer, seen from the renderer's side. The scene is free to
//! change while the GPU works, because the renderer only ever reads this snapshot
//! (built from the interpolated transforms) and copies what it needs into its own
//! buffers during `prepare`.

use glam::{Affine3A, Mat4, Vec3, Vec4};

use super::camera::Camera;
use super::packed::{PackedInstances, RetainedInstances};
use super::records::{GpuCaster, GpuInstance, InstanceRecord};
use super::shadow::{MAX_SHADOW_VIEWS, MAX_SPOT_SHADOWS, ShadowViews, SpotCone, SpotShadows};
use std::ops::Range;

use crate::assets::{Assets, Material, MeshHandle, MeshRef, SkyHandle};
use crate::particles::ParticleInstance;
use crate::scene::{MAX_CASCADES, PostSettings, ShadowSettings};

/// Point lights beyond this many are ignored (the uniform block has fixed room).
pub const MAX_POINT_LIGHTS: usize = 8;

/// A light infinitely far away, like the sun.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DirectionalLight {
    /// Direction the light travels (from the light towards the scene); need not be unit length.
    pub direction: Vec3,
    /// Linear RGB colour.
    pub color: Vec3,
    /// Multiplier on `color`.
    pub intensity: f32,
}

impl Default for DirectionalLight {
    fn default() -> Self {
        Self {
            direction: Vec3::new(-0.4, -1.0, -0.55),
            color: Vec3::new(1.0, 0.96, 0.9),
            intensity: 1.0,
        }
    }
}

/// A light radiating from a point, fading to nothing at `range`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointLight {
    /// World-space position.
    pub position: Vec3,
    /// Linear RGB colour.
    pub color: Vec3,
    /// Multiplier on `color` (at one unit of distance).
    pub intensity: f32,
    /// Distance at which the light's contribution reaches zero.
    pub range: f32,
    /// A spot light's cone: the direction it shines and the cosines of its
    /// inner and outer half-angles. `None` for a light shining all around.
    pub spot: Option<Spot>,
    /// A spot casts shadows (the first [`MAX_SPOT_SHADOWS`] that ask; a
    /// light shining all around casts none).
    pub cast_shadows: bool,
}

/// The cone of a spot light.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spot {
    /// Unit direction the light shines along.
    pub direction: Vec3,
    /// Cosine of the half-angle inside which the light is full.
    pub cos_inner: f32,
    /// Cosine of the half-angle where the light reaches zero.
    pub cos_outer: f32,
}

impl Default for PointLight {
    fn default() -> Self {
        Self {
            position: Vec3::new(0.0, 2.0, 0.0),
            color: Vec3::ONE,
            intensity: 3.0,
            range: 8.0,
            spot: None,
            cast_shadows: false,
        }
    }
}

/// The spots of `lights` (of those the shaders read) that cast shadows this
/// frame, with their views; none when `settings` turn shadows off.
#[must_use]
pub fn spot_shadows(lights: &[PointLight], settings: &ShadowSettings) -> SpotShadows {
    let mut spots = SpotShadows::default();
    if !settings.enabled {
        return spots;
    }
    for (i, light) in lights.iter().enumerate().take(MAX_POINT_LIGHTS) {
        if let Some(spot) = light.spot
            && light.cast_shadows
            && light.intensity > 0.0
            && !spots.push(
                i,
                SpotCone {
                    position: light.position,
                    direction: spot.direction,
                    cos_outer: spot.cos_outer,
                    range: light.range,
                },
                settings,
            )
        {
            break;
        }
    }
    spots
}

/// One mesh to draw, placed by a world transform.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshInstance {
    /// Which mesh to draw.
    pub mesh: MeshRef,
    /// Object-to-world transform.
    pub model: Affine3A,
    /// Its material (factors, textures, alpha mode, sidedness).
    pub material: Material,
    /// Whether it casts a shadow from the sun.
    pub cast_shadows: bool,
}

impl MeshInstance {
    /// The instance as the mesh shader reads it.
    #[must_use]
    pub fn record(&self) -> GpuInstance {
        GpuInstance::pack(&self.model, &self.material)
    }
}

impl Default for MeshInstance {
    fn default() -> Self {
        Self {
            mesh: MeshRef::Primitive(crate::assets::Primitive::Cube),
            model: Affine3A::IDENTITY,
            material: Material::default(),
            cast_shadows: true,
        }
    }
}

/// A mesh the vertex shader deforms: skinned by joint matrices, blended
/// from morph targets, or both.
#[derive(Clone, Debug, PartialEq)]
pub struct DeformedInstance {
    /// The imported mesh (its vertices carry the skin and the targets).
    pub mesh: MeshHandle,
    /// Object-to-world transform, for a mesh that is not skinned (a skinned
    /// mesh is placed by its joints).
    pub model: Affine3A,
    /// Its material (factors, textures, alpha mode, sidedness).
    pub material: Material,
    /// Its joint matrices: a range of [`FrameData::joints`] (empty when not skinned).
    pub joints: Range<u32>,
    /// Its morph weights: a range of [`FrameData::morph_weights`].
    pub weights: Range<u32>,
    /// Drawn in the view (else only into the shadow map: out of the
    /// camera's view, in a cascade's).
    pub in_view: bool,
    /// Drawn into the shadow map.
    pub cast_shadows: bool,
}

/// One end of a debug line; consecutive pairs form segments.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LineVertex {
    /// World-space position.
    pub position: [f32; 3],
    /// Linear RGBA colour.
    pub color: [f32; 4],
}

impl LineVertex {
    /// A vertex from glam values.
    #[must_use]
    pub fn new(position: Vec3, color: Vec4) -> Self {
        Self {
            position: position.to_array(),
            color: color.to_array(),
        }
    }
}

/// Everything the renderer needs for one frame. Borrowed, so building it each
/// frame costs no allocation beyond what the caller keeps.
#[derive(Clone, Copy, Debug)]
pub struct FrameData<'a> {
    /// The viewpoint.
    pub camera: Camera,
    /// Linear RGBA colour the frame is cleared to.
    pub clear_color: Vec4,
    /// Linear RGB ambient light from the sky; the ground side receives less of it.
    pub ambient: Vec3,
    /// The one directional light.
    pub sun: DirectionalLight,
    /// Point lights; only the first [`MAX_POINT_LIGHTS`] are used.
    pub point_lights: &'a [PointLight],
    /// Meshes to draw (batched by the renderer, and culled unless `instances_in_view`).
    pub instances: &'a [MeshInstance],
    /// Every instance is already known to be in the camera's view (the octree
    /// culled them), so the renderer skips its own per-instance test.
    pub instances_in_view: bool,
    /// Meshes extraction already culled and packed in the GPU layout, drawn
    /// in addition to `instances`.
    pub packed: PackedInstances<'a>,
    /// The scene's retained meshes, culled and drawn on the GPU (drawn in
    /// addition to `instances` and `packed`); `None` for hand-built frames
    /// and CPU-culled extractions.
    pub retained: Option<RetainedInstances<'a>>,
    /// How the sun casts shadows.
    pub shadows: ShadowSettings,
    /// Exposure, tonemapper and bloom.
    pub post: PostSettings,
    /// The sky image that lights the frame (image-based, scaled by `ambient`)
    /// and is drawn behind it; `None`: the sky/ground hemisphere lights it
    /// and the clear colour shows.
    pub sky: Option<SkyHandle>,
    /// Per view of the shadow map (the sun's cascades, then the shadowed
    /// spots: [`MAX_SHADOW_VIEWS`]), the casters extraction found in it
    /// (packed like `packed`, as the shadow pass's records), drawn with the
    /// loose `instances` that cast.
    pub casters: [PackedInstances<'a, GpuCaster>; MAX_SHADOW_VIEWS],
    /// Skinned and morphed meshes (already culled).
    pub deformed: &'a [DeformedInstance],
    /// Joint matrices (world x inverse bind) that `deformed` refers to.
    pub joints: &'a [crate::scene::JointMatrix],
    /// Morph weights that `deformed` refers to.
    pub morph_weights: &'a [f32],
    /// Particles blended additively (order-independent).
    pub additive: &'a [ParticleInstance],
    /// Particles alpha-blended over the scene (sorted back to front by the renderer).
    pub alpha: &'a [ParticleInstance],
    /// Debug line segments: vertices taken in pairs.
    pub lines: &'a [LineVertex],
    /// Draws a ground grid on the XZ plane around the camera's target.
    pub grid: bool,
    /// The store the frame's mesh, texture and sky handles belong to (the
    /// scene's); `None`: the renderer's last one (primitives need none).
    pub assets: Option<&'a Assets>,
}

impl Default for FrameData<'_> {
    fn default() -> Self {
        Self {
            camera: Camera::default(),
            clear_color: Vec4::new(0.02, 0.025, 0.035, 1.0),
            ambient: Vec3::new(0.16, 0.18, 0.22),
            sun: DirectionalLight::default(),
            point_lights: &[],
            instances: &[],
            instances_in_view: false,
            packed: PackedInstances::default(),
            retained: None,
            shadows: ShadowSettings::default(),
            post: PostSettings::default(),
            sky: None,
            casters: [PackedInstances::default(); MAX_SHADOW_VIEWS],
            deformed: &[],
            joints: &[],
            morph_weights: &[],
            additive: &[],
            alpha: &[],
            lines: &[],
            grid: false,
            assets: None,
        }
    }
}

/// A point light as the shaders read it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct GpuPointLight {
    /// xyz: position, w: range.
    position_range: [f32; 4],
    /// rgb: colour times intensity, w: the cone's scale.
    color: [f32; 4],
    /// xyz: the direction a spot shines, w: the cone's offset; the cone lets
    /// through `saturate(dot(direction, -l) * scale + offset)` squared
    /// (glTF's formula; scale 0 and offset 1 for a point light).
    spot: [f32; 4],
    /// x: the shadow map layer of a spot casting shadows (-1: none), y: its
    /// index among the shadowed spots, z: a texel's world size at unit distance.
    shadow: [f32; 4],
}

/// The uniform block at group 0, binding 0 of every pass. Only vec4 and mat4
/// members, so the Rust and WGSL layouts agree without manual padding.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Globals {
    view_proj: [[f32; 4]; 4],
    camera_position: [f32; 4],
    /// Camera right and up in world space: the billboard axes.
    camera_right: [f32; 4],
    camera_up: [f32; 4],
    ambient: [f32; 4],
    /// Unit vector from the surface towards the sun.
    sun_direction: [f32; 4],
    sun_color: [f32; 4],
    /// x: number of point lights in use, y: how many of them (the last
    /// ones) are spots casting shadows.
    point_count: [u32; 4],
    point_lights: [GpuPointLight; MAX_POINT_LIGHTS],
    /// Unit view direction: view depth is `dot(p - camera_position, camera_forward)`.
    camera_forward: [f32; 4],
    /// World to each cascade's clip space.
    shadow_matrices: [[[f32; 4]; 4]; MAX_CASCADES],
    /// View depth where each cascade ends.
    shadow_far: [f32; 4],
    /// World size of a texel of each cascade.
    shadow_texel: [f32; 4],
    /// x: cascades in use, y: depth bias and z: normal offset (in texels),
    /// w: one texel in texture coordinates.
    shadow_params: [f32; 4],
    /// World to each shadowed spot's clip space.
    spot_matrices: [[[f32; 4]; 4]; MAX_SPOT_SHADOWS],
}

impl Globals {
    /// Packs the frame's camera, lights and `shadows` (the sun's cascades,
    /// the shadowed spots) for a viewport of `aspect` = width / height.
    pub(crate) fn new(frame: &FrameData<'_>, aspect: f32, shadows: &ShadowViews) -> Self {
        let ShadowViews { cascades, spots } = shadows;
        let camera = &frame.camera;
        let view = camera.view();
        let view_proj = camera.projection(aspect) * view;
        // Rows of the view matrix's rotation are the camera axes in world space.
        let inverse_view = view.inverse();
        let right = inverse_view.x_axis.truncate().normalize_or(Vec3::X);
        let up = inverse_view.y_axis.truncate().normalize_or(Vec3::Y);
        let mut point_lights = [GpuPointLight::default(); MAX_POINT_LIGHTS];
        let used = frame.point_lights.len().min(MAX_POINT_LIGHTS);
        for (slot, light) in point_lights.iter_mut().zip(frame.point_lights) {
            let (direction, scale, offset) = match light.spot {
                Some(spot) => {
                    let scale = 1.0 / (spot.cos_inner - spot.cos_outer).max(1e-3);
                    let direction = spot.direction.normalize_or(Vec3::NEG_Y);
                    (direction, scale, -spot.cos_outer * scale)
                }
                None => (Vec3::NEG_Y, 0.0, 1.0),
            };
            *slot = GpuPointLight {
                position_range: light.position.extend(light.range.max(1e-3)).to_array(),
                color: (light.color * light.intensity).extend(scale).to_array(),
                spot: direction.extend(offset).to_array(),
                shadow: [-1.0, 0.0, 0.0, 0.0],
            };
        }
        // Shadowed spots go last, in their order, so the shader loops over
        // the others and then over them (no per-light branch).
        let mut shadowed = 0;
        for j in 0..spots.count {
            if let Some(slot) = point_lights[..used].get_mut(spots.light[j]) {
                let layer = (cascades.count + j) as f32;
                slot.shadow = [layer, j as f32, spots.texel[j], 0.0];
                shadowed += 1;
            }
        }
        // Stable, by layer: the unshadowed (-1) keep their order, then the
        // shadowed in layer (and so spot) order.
        point_lights[..used].sort_by(|a, b| a.shadow[0].total_cmp(&b.shadow[0]));
        let sun = &frame.sun;
        Self {
            view_proj: view_proj.to_cols_array_2d(),
            camera_position: camera.position.extend(1.0).to_array(),
            camera_right: right.extend(0.0).to_array(),
            camera_up: up.extend(0.0).to_array(),
            ambient: frame.ambient.extend(0.0).to_array(),
            sun_direction: (-sun.direction)
                .normalize_or(Vec3::Y)
                .extend(0.0)
                .to_array(),
            sun_color: (sun.color * sun.intensity).extend(0.0).to_array(),
            point_count: [
                u32::try_from(used).unwrap_or(0),
                u32::try_from(shadowed).unwrap_or(0),
                0,
                0,
            ],
            point_lights,
            camera_forward: camera.forward().extend(0.0).to_array(),
            shadow_matrices: cascades.view_proj.map(|m| m.to_cols_array_2d()),
            shadow_far: cascades.far,
            shadow_texel: cascades.texel,
            shadow_params: [
                cascades.count as f32,
                frame.shadows.depth_bias,
                frame.shadows.normal_offset,
                1.0 / frame.shadows.map_size() as f32,
            ],
            spot_matrices: spots.view_proj.map(|m| m.to_cols_array_2d()),
        }
    }

    /// The same block seen from another world-to-clip matrix (a shadow
    /// cascade's), for vertex stages that read only the matrix.
    pub(crate) fn with_view_proj(mut self, view_proj: Mat4) -> Self {
        self.view_proj = view_proj.to_cols_array_2d();
        self
    }

    /// The packed world-to-clip matrix.
    pub(crate) fn view_proj(&self) -> Mat4 {
        Mat4::from_cols_array_2d(&self.view_proj)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::shadow::Cascades;

    #[test]
    fn globals_keep_only_the_first_point_lights() {
        let lights: Vec<PointLight> = (0..12)
            .map(|i| PointLight {
                position: Vec3::splat(i as f32),
                ..PointLight::default()
            })
            .collect();
        let frame = FrameData {
            point_lights: &lights,
            ..FrameData::default()
        };
        let globals = Globals::new(&frame, 1.0, &ShadowViews::default());
        assert_eq!(globals.point_count[0] as usize, MAX_POINT_LIGHTS);
        assert_eq!(globals.point_lights[7].position_range[0], 7.0);
    }

    #[test]
    fn shadowed_spots_are_packed_last_in_their_shadow_order() {
        let spot = |x: f32, cast_shadows| PointLight {
            position: Vec3::new(x, 3.0, 0.0),
            spot: Some(Spot {
                direction: Vec3::NEG_Y,
                cos_inner: 0.9,
                cos_outer: 0.8,
            }),
            cast_shadows,
            ..PointLight::default()
        };
        let lights = [
            spot(0.0, true),
            spot(1.0, false),
            spot(2.0, true),
            spot(3.0, false),
        ];
        let frame = FrameData {
            point_lights: &lights,
            ..FrameData::default()
        };
        let spots = spot_shadows(&lights, &ShadowSettings::default());
        assert_eq!((spots.count, &spots.light[..2]), (2, &[0, 2][..]));
        let cascades = Cascades {
            count: 3,
            ..Cascades::default()
        };
        let globals = Globals::new(&frame, 1.0, &ShadowViews { cascades, spots });
        assert_eq!(globals.point_count[..2], [4, 2]);
        let order: Vec<f32> = globals.point_lights[..4]
            .iter()
            .map(|l| l.position_range[0])
            .collect();
        assert_eq!(
            order,
            [1.0, 3.0, 0.0, 2.0],
            "plain lights first, then the shadowed in order"
        );
        // Layers after the cascades, and each spot's index among the shadowed.
        assert_eq!(globals.point_lights[2].shadow[..2], [3.0, 0.0]);
        assert_eq!(globals.point_lights[3].shadow[..2], [4.0, 1.0]);
        assert_eq!(globals.point_lights[0].shadow[0], -1.0);
    }

    #[test]
    fn billboard_axes_are_orthogonal_to_the_view() {
        let frame = FrameData {
            camera: Camera {
                position: Vec3::new(3.0, 4.0, -2.0),
                ..Camera::default()
            },
            ..FrameData::default()
        };
        let globals = Globals::new(&frame, 1.5, &ShadowViews::default());
        let forward = frame.camera.forward();
        let right = Vec4::from(globals.camera_right).truncate();
        let up = Vec4::from(globals.camera_up).truncate();
        assert!(right.dot(forward).abs() < 1e-5 && up.dot(forward).abs() < 1e-5);
        assert!(
            right.cross(up).dot(-forward) > 0.99,
            "axes are not right-handed"
        );
        assert!(
            globals
                .view_proj()
                .abs_diff_eq(frame.camera.view_projection(1.5), 1e-5)
        );
    }

    #[test]
    fn globals_match_the_shader_block_size() {
        let mesh = crate::assets::Shader::Mesh
            .composed_embedded()
            .expect("mesh shader's imports compose");
        let module = naga::front::wgsl::parse_str(mesh.text()).expect("mesh shader parses");
        let mut layouter = naga::proc::Layouter::default();
        layouter
            .update(module.to_ctx())
            .expect("shader types lay out");
        let (handle, _) = module
            .types
            .iter()
            .find(|(_, ty)| ty.name.as_deref() == Some("Globals"))
            .expect("mesh shader declares Globals");
        assert_eq!(layouter[handle].size as usize, size_of::<Globals>());
    }

    #[test]
    fn sun_direction_points_towards_the_light() {
        let frame = FrameData {
            sun: DirectionalLight {
                direction: Vec3::new(0.0, -2.0, 0.0),
                ..DirectionalLight::default()
            },
            ..FrameData::default()
        };
        assert_eq!(
            Globals::new(&frame, 1.0, &ShadowViews::default()).sun_direction,
            [0.0, 1.0, 0.0, 0.0]
        );
    }
}
