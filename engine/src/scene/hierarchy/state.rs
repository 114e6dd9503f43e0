//! The scene as a recording keeps it: the columns that grow with the scene
//! (hot transforms, links, slots, names) as bytes, and the rest as a clone.
//!
//! The recorder XORs the bytes against the previous keyframe and compresses
//! them; the clone (layout upkeep, pending dirty and changed lists, settings)
//! is small. Components are kept apart, column by column, so a column that did
//! not change is shared between keyframes.

use std::num::NonZeroU32;

use glam::{Quat, Vec3};

use crate::transform::Affine3x4;

use super::Slot;
use super::layout::{Hot, Links, Meta};
use crate::bulk::{BulkError, BulkReader, BulkWriter};
use crate::scene::Scene;
use crate::scene::components::Components;
use crate::transform::Transform;

const TRANSFORM_BYTES: usize = size_of::<Vec3>() * 2 + size_of::<Quat>();
const AFFINE_BYTES: usize = size_of::<Affine3x4>();
const SLOT_BYTES: usize = 8;

fn put_transform(out: &mut Vec<u8>, t: &Transform) {
    out.extend_from_slice(bytemuck::bytes_of(&t.translation));
    out.extend_from_slice(bytemuck::bytes_of(&t.rotation));
    out.extend_from_slice(bytemuck::bytes_of(&t.scale));
}

fn get_transform(b: &[u8]) -> Transform {
    Transform {
        translation: bytemuck::pod_read_unaligned(&b[0..12]),
        rotation: bytemuck::pod_read_unaligned(&b[12..28]),
        scale: bytemuck::pod_read_unaligned(&b[28..40]),
    }
}

fn put_affine(out: &mut Vec<u8>, a: &Affine3x4) {
    out.extend_from_slice(bytemuck::cast_slice(&a.rows));
}

fn get_affine(b: &[u8]) -> Affine3x4 {
    Affine3x4 {
        rows: bytemuck::pod_read_unaligned(&b[..AFFINE_BYTES]),
    }
}

impl Scene {
    /// Writes the scene's bulk columns to `out` and returns the rest: a scene
    /// without nodes' columns or components (see [`Scene::from_state`]).
    pub(crate) fn save_state(&mut self, out: &mut Vec<u8>) -> Scene {
        // Both columns as a step leaves them (nothing stale).
        self.settle_stale();
        let mut w = BulkWriter::new(out);
        let hot = &self.hot;
        w.each(&hot.local, TRANSFORM_BYTES, put_transform);
        w.each(&hot.world, AFFINE_BYTES, put_affine);
        w.each(&hot.prev_world, AFFINE_BYTES, put_affine);
        w.pod(&hot.parent);
        w.pod(&hot.flags);
        w.pod(&hot.meta);
        w.value(hot.roots);
        w.each(&self.slots, SLOT_BYTES, |o, s| {
            o.extend_from_slice(&s.generation.get().to_le_bytes());
            o.extend_from_slice(&s.dense.to_le_bytes());
        });
        w.pod(&self.free);
        w.strings(&self.names);
        // Clone what is left with the bulk (and the components) moved out for a moment.
        let hot = std::mem::take(&mut self.hot);
        let slots = std::mem::take(&mut self.slots);
        let free = std::mem::take(&mut self.free);
        let names = std::mem::take(&mut self.names);
        let components = std::mem::take(&mut self.components);
        let mut rest = self.clone();
        // A statistic of the last pass, not state: a frame's extra propagation
        // zeroes it, and a run is the same run however its steps were framed.
        rest.last_recomputed = 0;
        (self.hot, self.slots, self.free, self.names) = (hot, slots, free, names);
        self.components = components;
        rest
    }

    /// Bytes held by the part of a scene [`Scene::save_state`] returns (what a
    /// recording charges for it besides the bulk).
    pub(crate) fn rest_bytes(&self) -> usize {
        size_of::<Scene>()
            + self.dirty.len() * 8
            + (self.last_changed.len() + self.unsnapped.len()) * 8
            + self.despawned.len() * 8
            + self.upkeep.reusable.heap_bytes()
    }

    /// The scene [`Scene::save_state`] split: `rest` with the bulk read back
    /// from `bulk` and `components` put in.
    pub(crate) fn from_state(
        rest: &Scene,
        components: Components,
        bulk: &mut BulkReader<'_>,
    ) -> Result<Scene, BulkError> {
        let local = bulk.each(TRANSFORM_BYTES, get_transform)?;
        let world = bulk.each(AFFINE_BYTES, get_affine)?;
        let prev_world = bulk.each(AFFINE_BYTES, get_affine)?;
        let parent = bulk.pod::<u32>()?;
        let flags = bulk.pod::<u8>()?;
        let meta = bulk.pod::<Meta>()?;
        let roots = bulk.value::<Links>()?;
        let mut bad_slot = false;
        let slots = bulk.each(SLOT_BYTES, |b| {
            let generation = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            let dense = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
            let generation = NonZeroU32::new(generation).unwrap_or_else(|| {
                bad_slot = true;
                NonZeroU32::MIN
            });
            Slot { generation, dense }
        })?;
        let free = bulk.pod::<u32>()?;
        let names = bulk.strings()?;
        let n = meta.len();
        let lengths = [
            local.len(),
            world.len(),
            prev_world.len(),
            parent.len(),
            flags.len(),
        ];
        if bad_slot || lengths.iter().any(|&l| l != n) {
            return Err(BulkError { column: 0 });
        }
        let mut scene = rest.clone();
        scene.hot = Hot {
            local,
            world,
            prev_world,
            // Not kept: every node counts as moved in the restored epoch.
            moved: vec![rest.epoch; n],
            parent,
            flags,
            meta,
            roots,
            // Read back: positions found in another scene say nothing here.
            layout: super::layout::next_layout(),
        };
        (scene.slots, scene.free, scene.names) = (slots, free, names);
        scene.components = components;
        Ok(scene)
    }
}
