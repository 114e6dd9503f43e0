//! Extraction of shadow casters, for the sun's cascades and the spots that
//! cast shadows: each view's volume asked of the octree, the answers marked
//! by slot (a bit per view), then packed during the same walk of the mesh
//! column that packs the camera's meshes, so a mesh both seen and casting is
//! interpolated and packed once.

use super::Extractor;
use crate::render::{Camera, GpuCaster, MAX_SHADOW_VIEWS, PackedInstances};
use crate::world::World;

impl Extractor {
    /// Only the shadow casters of `world` for this view, per shadow view
    /// (what [`Extractor::extract_world`] packs beside the camera's meshes):
    /// each view's volume asked of the octree, the casters interpolated and
    /// packed. Empty when nothing casts shadows.
    pub fn extract_shadow_casters(
        &mut self,
        world: &mut World,
        camera: Camera,
        aspect: f32,
    ) -> [PackedInstances<'_, GpuCaster>; MAX_SHADOW_VIEWS] {
        puffin::profile_scope!("extract shadow casters");
        let alpha = world.clock.alpha();
        let World { scene, index, .. } = world;
        self.clear();
        self.gather_lights(scene, alpha);
        // The camera sees nothing here: only casters are packed.
        let views = self.cull(scene, index, None, &camera, aspect);
        self.pack_meshes(scene, alpha, views);
        self.caster_frames()
    }

    /// Every shadow view's casters for the frame.
    pub(super) fn caster_frames(&self) -> [PackedInstances<'_, GpuCaster>; MAX_SHADOW_VIEWS] {
        std::array::from_fn(|i| self.packed.casters[i].packed())
    }
}
