//! Extraction of shadow casters, for the sun's cascades and the spots that
//! cast shadows: each view's volume asked of the octree, the answers marked
//! by slot (a bit per view), then packed during the same walk of the mesh
//! column that packs the camera's meshes, so a mesh both seen and casting is
//! interpolated and packed once.

use super::FrameBuffers;
use crate::render::{
    BatchKey, Camera, Cascades, GpuInstance, MAX_CASCADES, MAX_SHADOW_VIEWS, PackedInstances,
    cascades, spot_shadows,
};
use crate::scene::{NodeId, Scene, SpatialIndex};
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

impl FrameBuffers {
    /// Only the shadow casters of `world` for this view, per shadow view
    /// (what [`FrameBuffers::extract_world`] packs beside the camera's meshes):
    /// each view's volume asked of the octree, the casters interpolated and
    /// packed. Empty when nothing casts shadows.
    pub fn extract_shadow_casters(
        &mut self,
        world: &mut World,
        camera: Camera,
        aspect: f32,
    ) -> [PackedInstances<'_>; MAX_SHADOW_VIEWS] {
        let alpha = world.clock.alpha();
        let World { scene, index, .. } = world;
        self.clear();
        self.gather_lights(scene, alpha);
        let views = self.mark_casters(scene, index, (&camera, aspect));
        // The camera sees nothing here: only casters are packed.
        self.visible_marks.clear();
        self.visible_marks
            .resize(scene.slot_count().div_ceil(64), 0);
        self.pack_meshes(scene, alpha, views);
        self.caster_frames()
    }

    /// Fits the sun's cascades for this view and the shadowed spots' views
    /// (from the lights gathered), and marks, by slot, the meshes the octree
    /// finds in each (bit `i` for view `i`: cascades from 0, spots from
    /// [`MAX_CASCADES`]). Returns how many views there are (0: nothing marked).
    pub(super) fn mark_casters(
        &mut self,
        scene: &Scene,
        index: &mut SpatialIndex,
        (camera, aspect): (&Camera, f32),
    ) -> usize {
        let settings = &scene.environment.shadows;
        let set = match &self.sun {
            Some(sun) if sun.intensity > 0.0 => cascades(camera, aspect, sun.direction, settings),
            _ => Cascades::default(),
        };
        let spots = spot_shadows(&self.point_lights, settings);
        if set.count + spots.count == 0 {
            return 0;
        }
        self.caster_marks.clear();
        self.caster_marks.resize(scene.slot_count(), 0);
        let mut found = std::mem::take(&mut self.caster_nodes);
        let views = (set.view_proj.iter().enumerate().take(set.count)).chain(
            (spots.view_proj.iter().enumerate().take(spots.count))
                .map(|(j, m)| (MAX_CASCADES + j, m)),
        );
        for (i, view_proj) in views {
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
        set.count + spots.count
    }

    /// Packs `record` (mesh `key`) into every shadow view whose bit `marks` has.
    #[inline]
    pub(super) fn push_caster(&mut self, marks: u8, record: &GpuInstance, key: BatchKey) {
        // Only the views marked: most casters are in one or two of eight.
        let mut left = marks;
        while left != 0 {
            let buffer = &mut self.casters[left.trailing_zeros() as usize];
            buffer.records.push(*record);
            buffer.keys.push(key);
            left &= left - 1;
        }
    }

    /// The shadow view marks of `node` (0 when nothing casts this frame).
    #[inline]
    pub(super) fn caster_marks_of(&self, node: NodeId, views: usize) -> u8 {
        if views == 0 {
            return 0;
        }
        self.caster_marks
            .get(node.index() as usize)
            .copied()
            .unwrap_or(0)
    }

    /// Every shadow view's casters for the frame.
    pub(super) fn caster_frames(&self) -> [PackedInstances<'_>; MAX_SHADOW_VIEWS] {
        std::array::from_fn(|i| self.casters[i].packed())
    }
}
