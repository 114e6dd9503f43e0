//! Extraction of the sun's shadow casters: each cascade's volume asked of the
//! octree, the answers marked by slot (a bit per cascade), then packed during
//! the same walk of the mesh column that packs the camera's meshes, so a mesh
//! both seen and casting is interpolated and packed once.

use glam::Vec3;

use super::FrameBuffers;
use crate::render::{
    BatchKey, Camera, Cascades, DirectionalLight, GpuInstance, MAX_CASCADES, PackedInstances,
    cascades,
};
use crate::scene::{LightKind, NodeId, Scene, SpatialIndex};
use crate::spatial::Frustum;
use crate::world::World;

/// One cascade's casters, packed for the GPU.
#[derive(Debug, Default)]
pub(super) struct CasterBuffer {
    pub(super) records: Vec<GpuInstance>,
    pub(super) keys: Vec<BatchKey>,
}

impl CasterBuffer {
    pub(super) fn packed(&self) -> PackedInstances<'_> {
        PackedInstances {
            records: &self.records,
            keys: &self.keys,
        }
    }
}

/// The scene's sun: its first directional light, at `alpha`.
pub(super) fn find_sun(scene: &Scene, alpha: f32) -> Option<DirectionalLight> {
    scene.components.light.iter().find_map(|(node, light)| {
        if !matches!(light.kind, LightKind::Directional) {
            return None;
        }
        let world = scene.interpolated_world(node, alpha)?;
        Some(DirectionalLight {
            direction: world
                .transform_vector3(Vec3::NEG_Z)
                .normalize_or(Vec3::NEG_Y),
            color: light.color,
            intensity: light.intensity,
        })
    })
}

impl FrameBuffers {
    /// Only the sun's casters of `world` for this view, per cascade (what
    /// [`FrameBuffers::extract_world`] packs beside the camera's meshes):
    /// each cascade's volume asked of the octree, the casters interpolated
    /// and packed. Empty when the scene has no sun or no shadows.
    pub fn extract_shadow_casters(
        &mut self,
        world: &mut World,
        camera: Camera,
        aspect: f32,
    ) -> [PackedInstances<'_>; MAX_CASCADES] {
        let alpha = world.clock.alpha();
        let World { scene, index, .. } = world;
        self.clear();
        let sun = find_sun(scene, alpha);
        let cascades = self.mark_casters(scene, index, (&camera, aspect), sun.as_ref());
        // The camera sees nothing here: only casters are packed.
        self.visible_marks.clear();
        self.visible_marks
            .resize(scene.slot_count().div_ceil(64), 0);
        self.pack_meshes(scene, alpha, cascades);
        self.caster_frames()
    }

    /// Fits the cascades for this view and marks, by slot, the meshes the
    /// octree finds in each (bit `i` for cascade `i`). Returns how many
    /// cascades there are (0: no shadows, nothing marked).
    pub(super) fn mark_casters(
        &mut self,
        scene: &Scene,
        index: &mut SpatialIndex,
        (camera, aspect): (&Camera, f32),
        sun: Option<&DirectionalLight>,
    ) -> usize {
        let set = match sun {
            Some(sun) if sun.intensity > 0.0 => {
                cascades(camera, aspect, sun.direction, &scene.environment.shadows)
            }
            _ => Cascades::default(),
        };
        if set.count == 0 {
            return 0;
        }
        self.caster_marks.clear();
        self.caster_marks.resize(scene.slot_count(), 0);
        let mut found = std::mem::take(&mut self.caster_nodes);
        for (i, view_proj) in set.view_proj.iter().enumerate().take(set.count) {
            found.clear();
            found.reserve(scene.components.mesh.len());
            let frustum = Frustum::from_view_projection(view_proj);
            index.visible(&frustum, &mut found);
            self.cascade_frustums.push(frustum);
            let bit = 1u8 << i;
            for node in &found {
                if let Some(mark) = self.caster_marks.get_mut(node.index() as usize) {
                    *mark |= bit;
                }
            }
        }
        self.caster_nodes = found;
        set.count
    }

    /// Packs `record` (mesh `key`) into every cascade whose bit `marks` has.
    #[inline]
    pub(super) fn push_caster(&mut self, marks: u8, record: &GpuInstance, key: BatchKey) {
        for (i, buffer) in self.casters.iter_mut().enumerate() {
            if marks & (1 << i) != 0 {
                buffer.records.push(*record);
                buffer.keys.push(key);
            }
        }
    }

    /// The cascade marks of `node` (0 when shadows are off this frame).
    #[inline]
    pub(super) fn caster_marks_of(&self, node: NodeId, cascades: usize) -> u8 {
        if cascades == 0 {
            return 0;
        }
        self.caster_marks
            .get(node.index() as usize)
            .copied()
            .unwrap_or(0)
    }

    /// Every cascade's casters for the frame.
    pub(super) fn caster_frames(&self) -> [PackedInstances<'_>; MAX_CASCADES] {
        [0, 1, 2, 3].map(|i| self.casters[i].packed())
    }
}
