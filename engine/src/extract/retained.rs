//! The retained scene, CPU half: every drawable mesh node keeps a slot of
//! GPU records from frame to frame (the object pool, on the GPU), and a
//! frame rewrites only the slots whose record changed: the dirty flag
//! carried to the GPU.
//!
//! What changed is known without looking at every mesh:
//! - transforms: the octree's log of re-filed mesh nodes
//!   ([`SpatialIndex::moved_since`]); a node that moved stays in the
//!   `moving` set, re-interpolated every frame at the frame's alpha, until a
//!   frame finds its previous and current world transforms equal (it is then
//!   written once more, at rest);
//! - meshes and materials: the mesh column's stamp (and the skin and morph
//!   columns', which take meshes to the deformed path). A new stamp walks
//!   the column once and rewrites the slots that differ.
//!
//! Anything the log cannot vouch for (another index, a rebuild, a frame
//! not extracted) walks the column too. A frame where nothing moved and no
//! component changed costs a few comparisons, whatever the scene's size.
//!
//! Alpha-blended meshes keep no slot: they are sorted back to front for
//! each view, so they come as loose instances, culled and sorted by the
//! batcher.

use std::collections::HashMap;

use rayon::prelude::*;

use super::deformed::is_deformed;
use super::pack::PACK_SPAN;
use crate::render::{BatchKey, FREE_SLOT, GpuInstance, InstanceRecord, RetainedInstances};
use crate::scene::{Affine3x4, MovedCursor, NodeId, Scene, SpatialIndex};

/// Moving slots beyond this share of all slots are re-interpolated in one
/// parallel walk over every slot (and uploaded whole) instead of one by one.
const WALK_ALL_SHARE: usize = 4;

/// What a column walk is redone for: the mesh, skin and morph columns'
/// stamps.
type Stamps = [(u64, u64); 3];

fn stamps(scene: &Scene) -> Stamps {
    let c = scene.components();
    [c.mesh.stamp(), c.skin.stamp(), c.morph.stamp()]
}

/// The slots, their records and batches (see the [module docs](self)).
#[derive(Debug, Default)]
pub(super) struct Retained {
    /// This store's identity (given at the first update).
    id: u64,
    /// Updates so far.
    epoch: u64,
    /// By node slot index, the node's slot here, or `FREE_SLOT`.
    slot_of: Vec<u32>,
    /// Each slot's node (`None`: free).
    nodes: Vec<Option<NodeId>>,
    records: Vec<GpuInstance>,
    batch_of: Vec<u32>,
    free: Vec<u32>,
    /// Batches by id, how many slots each has, and the ids by key.
    batches: Batches,
    /// Each slot's shadow caster batch (`FREE_SLOT`: casts none), and the
    /// caster batches (depth only, or masked with their texture).
    caster_of: Vec<u32>,
    casters: Batches,
    /// Slots re-interpolated each frame, and a flag per slot for membership.
    moving: Vec<u32>,
    in_moving: Vec<bool>,
    /// Slots written this update (sorted and each once after it), or all.
    dirty: Vec<u32>,
    dirty_all: bool,
    /// Whether this update changed a slot's batch.
    batches_changed: bool,
    /// The blended mesh nodes (drawn as loose instances).
    pub(super) blended: Vec<NodeId>,
    /// Where the octree's log was read up to, and the stamps walked at.
    cursor: Option<MovedCursor>,
    stamps: Option<Stamps>,
    /// Per slot, the walk that last found its node (frees the others).
    seen: Vec<u64>,
    /// Column walks so far.
    walks: usize,
}

impl Retained {
    /// Brings every slot to `scene` at `alpha` (see the [module docs](self)).
    pub(super) fn update(&mut self, scene: &Scene, index: &SpatialIndex, alpha: f32) {
        puffin::profile_scope!("retained scene");
        if self.id == 0 {
            self.id = crate::identity::fresh();
        }
        self.epoch += 1;
        self.dirty.clear();
        self.dirty_all = false;
        self.batches_changed = false;
        let now = stamps(scene);
        let moved = self.cursor.and_then(|c| index.moved_since(c));
        match moved {
            Some(moved) if self.stamps == Some(now) => {
                if moved.len() * WALK_ALL_SHARE > self.nodes.len() {
                    // Much of the scene moved: every slot in slot order
                    // (those that did not move leave the set at once).
                    self.start_all_moving();
                } else {
                    for &node in moved {
                        self.start_moving(node);
                    }
                }
            }
            _ => self.walk(scene, alpha),
        }
        self.cursor = Some(index.moved_cursor());
        self.stamps = Some(now);
        self.interpolate_moving(scene, alpha);
        if self.dirty.len() * WALK_ALL_SHARE > self.nodes.len() {
            self.dirty_all = true;
        } else {
            self.dirty.sort_unstable();
            self.dirty.dedup();
        }
    }

    /// The frame's view of the slots.
    pub(super) fn instances(&self) -> RetainedInstances<'_> {
        RetainedInstances {
            id: self.id,
            epoch: self.epoch,
            records: &self.records,
            batch_of: &self.batch_of,
            batches: &self.batches.keys,
            members: &self.batches.members,
            caster_of: &self.caster_of,
            caster_batches: &self.casters.keys,
            caster_members: &self.casters.members,
            dirty: (!self.dirty_all).then_some(&self.dirty[..]),
            batches_changed: self.batches_changed,
        }
    }

    /// The nodes holding a slot, in slot order.
    pub(super) fn nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.nodes.iter().flatten().copied()
    }

    fn slot(&self, node: NodeId) -> Option<u32> {
        let slot = *self.slot_of.get(node.index() as usize)?;
        (slot != FREE_SLOT && self.nodes[slot as usize] == Some(node)).then_some(slot)
    }

    fn start_moving(&mut self, node: NodeId) {
        if let Some(slot) = self.slot(node)
            && !self.in_moving[slot as usize]
        {
            self.in_moving[slot as usize] = true;
            self.moving.push(slot);
        }
    }

    fn start_all_moving(&mut self) {
        for (s, (node, moving)) in self.nodes.iter().zip(&mut self.in_moving).enumerate() {
            if node.is_some() && !*moving {
                *moving = true;
                self.moving.push(to_u32(s));
            }
        }
    }

    /// Walks the mesh column: every drawable node gets (or keeps) a slot
    /// holding its record and batch, slots of nodes gone are freed.
    fn walk(&mut self, scene: &Scene, alpha: f32) {
        puffin::profile_scope!("retained scene walk");
        self.walks += 1;
        let walk = self.epoch;
        self.blended.clear();
        for (node, mesh) in scene.components().mesh.iter() {
            if is_deformed(scene, node) {
                continue;
            }
            let key = BatchKey::new(mesh.mesh, &mesh.material);
            if key.blend {
                self.blended.push(node);
                continue;
            }
            let mut model = Affine3x4::IDENTITY;
            let Some(moving) = scene.interpolate_moving_into(node, alpha, &mut model) else {
                continue;
            };
            let slot = match self.slot(node) {
                Some(slot) => slot,
                None => self.allocate(node),
            };
            let s = slot as usize;
            self.seen[s] = walk;
            let batch = self.batches.id(key);
            let caster = if mesh.can_cast() {
                self.casters.id(BatchKey::caster(mesh.mesh, &mesh.material))
            } else {
                FREE_SLOT
            };
            if self.caster_of[s] != caster {
                self.casters.leave(self.caster_of[s]);
                self.casters.join(caster);
                self.caster_of[s] = caster;
                self.batches_changed = true;
            }
            let record = GpuInstance::from_rows(&model, &mesh.material);
            if self.batch_of[s] != batch {
                self.batches.leave(self.batch_of[s]);
                self.batches.join(batch);
                self.batch_of[s] = batch;
                self.batches_changed = true;
                self.records[s] = record;
                self.dirty.push(slot);
            } else if self.records[s] != record {
                self.records[s] = record;
                self.dirty.push(slot);
            }
            if moving && !self.in_moving[s] {
                self.in_moving[s] = true;
                self.moving.push(slot);
            }
        }
        for s in 0..self.nodes.len() {
            if self.nodes[s].is_some() && self.seen[s] != walk {
                self.release(s);
            }
        }
        // A slot is written at most once by a walk and once by the moving
        // pass: sized once for the most a frame can list, never grown frame
        // by frame.
        let slots = self.nodes.len();
        self.dirty
            .reserve((2 * slots).saturating_sub(self.dirty.len()));
        self.moving.reserve(slots.saturating_sub(self.moving.len()));
    }

    fn allocate(&mut self, node: NodeId) -> u32 {
        let slot = self.free.pop().unwrap_or_else(|| {
            let slot = to_u32(self.nodes.len());
            self.nodes.push(None);
            self.records.push(GpuInstance::default());
            self.batch_of.push(FREE_SLOT);
            self.caster_of.push(FREE_SLOT);
            self.in_moving.push(false);
            self.seen.push(0);
            slot
        });
        let at = node.index() as usize;
        if self.slot_of.len() <= at {
            self.slot_of.resize(at + 1, FREE_SLOT);
        }
        self.slot_of[at] = slot;
        self.nodes[slot as usize] = Some(node);
        slot
    }

    fn release(&mut self, s: usize) {
        if let Some(node) = self.nodes[s].take()
            && let Some(at) = self.slot_of.get_mut(node.index() as usize)
        {
            *at = FREE_SLOT;
        }
        self.batches.leave(self.batch_of[s]);
        self.batch_of[s] = FREE_SLOT;
        self.casters.leave(self.caster_of[s]);
        self.caster_of[s] = FREE_SLOT;
        self.batches_changed = true;
        // Left in `moving` (if there): a free slot is skipped and dropped there.
        self.free.push(to_u32(s));
        self.dirty.push(to_u32(s));
    }

    /// Writes every moving slot's rows at `alpha`; slots found at rest
    /// leave the set (written at rest this once).
    fn interpolate_moving(&mut self, scene: &Scene, alpha: f32) {
        if self.moving.is_empty() {
            return;
        }
        puffin::profile_scope!("retained scene moving");
        if self.moving.len() * WALK_ALL_SHARE > self.nodes.len() {
            // Much of the scene moves: one walk in slot order, on several
            // cores when the scene is large (a small one wakes no other core).
            let write =
                |((record, moving), node): ((&mut GpuInstance, &mut bool), &Option<NodeId>)| {
                    let Some(node) = node.filter(|_| *moving) else {
                        *moving = false;
                        return;
                    };
                    let mut model = Affine3x4::IDENTITY;
                    *moving = scene
                        .interpolate_moving_into(node, alpha, &mut model)
                        .unwrap_or(false);
                    record.rows = model.to_array();
                };
            if self.nodes.len() >= 2 * PACK_SPAN {
                (self.records.par_iter_mut(), self.in_moving.par_iter_mut())
                    .into_par_iter()
                    .zip(&self.nodes)
                    .for_each(write);
            } else {
                (self.records.iter_mut().zip(self.in_moving.iter_mut()))
                    .zip(&self.nodes)
                    .for_each(write);
            }
            let in_moving = &self.in_moving;
            self.moving.retain(|&slot| in_moving[slot as usize]);
            self.dirty_all = true;
            return;
        }
        let (records, in_moving, nodes, dirty) = (
            &mut self.records,
            &mut self.in_moving,
            &self.nodes,
            &mut self.dirty,
        );
        self.moving.retain(|&slot| {
            let s = slot as usize;
            let mut model = Affine3x4::IDENTITY;
            let still = nodes[s]
                .and_then(|node| scene.interpolate_moving_into(node, alpha, &mut model))
                .unwrap_or(false);
            if nodes[s].is_some() {
                records[s].rows = model.to_array();
                dirty.push(slot);
            }
            in_moving[s] = still;
            still
        });
    }
}

/// Batches by id (kept when they empty, so ids stay), how many slots each
/// has, and the ids by key.
#[derive(Debug, Default)]
struct Batches {
    keys: Vec<BatchKey>,
    members: Vec<u32>,
    ids: HashMap<BatchKey, u32>,
}

impl Batches {
    fn id(&mut self, key: BatchKey) -> u32 {
        *self.ids.entry(key).or_insert_with(|| {
            self.keys.push(key);
            self.members.push(0);
            to_u32(self.keys.len() - 1)
        })
    }

    /// A slot joins batch `id` (none for `FREE_SLOT`).
    fn join(&mut self, id: u32) {
        if let Some(members) = self.members.get_mut(id as usize) {
            *members += 1;
        }
    }

    /// A slot leaves batch `id` (none for `FREE_SLOT`).
    fn leave(&mut self, id: u32) {
        if let Some(members) = self.members.get_mut(id as usize) {
            *members -= 1;
        }
    }
}

fn to_u32(value: usize) -> u32 {
    u32::try_from(value).expect("fewer than 2^32 retained meshes")
}

#[cfg(test)]
mod tests;
