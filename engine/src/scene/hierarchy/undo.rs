//! A fixed step as all or nothing: what puts a scene back as it was before
//! the step, should a user system panic in it.
//!
//! Armed at the step's start, the undo saves each part the first time the
//! step writes it, so what a step only reads costs nothing:
//!
//! - the double buffer's turn at the step's start
//!   ([`Scene::snapshot_previous`]): the previous worlds its copy
//!   overwrites (its swap is undone by swapping back);
//! - a local transform written ([`Scene::set_local`] and its kin, a query's
//!   writes): its position, old value and old flags, in a journal;
//! - a pass that writes many locals in place (the animator's pose): every
//!   local and flag at once;
//! - any other change to the hierarchy (a spawn, a despawn, a reservation,
//!   a reparent, a rename, a propagation in the middle of the step): the
//!   whole hierarchy, components, resources and environment aside;
//! - a component column: the column, at its first mutable access
//!   ([`Column::arm`](crate::scene::Column));
//! - resources, the environment: all of them, at the first mutable access.
//!
//! The step's end (before its commands are applied, which run no user
//! code) drops what was saved; a panic puts it back.

use super::local_to_world::SWAP_MIN;
use super::{Scene, flag};
use crate::scene::{Environment, Resources};
use crate::transform::{Affine3x4, Transform};

/// What a scene needs to roll the running step back (see the module docs).
/// Its buffers stay from step to step: a warm step that changes no
/// structure allocates nothing for its undo.
#[derive(Default)]
pub(crate) struct StepUndo {
    armed: bool,
    /// Whether local writes go to the journal (armed, and no bulk or
    /// structural copy makes it needless).
    journal: bool,
    /// The hierarchy as it was (components, resources and environment
    /// taken out), once the step changed its structure.
    structure: Option<Box<Scene>>,
    /// Local writes before any bulk copy: position, old local, old flags.
    locals: Vec<(u32, Transform, u8)>,
    /// Slots reserved: the slot, whether it was new, the name it had.
    reserves: Vec<(u32, bool, String)>,
    /// Every local and flag, copied by a pass that writes many in place.
    bulk: (Vec<Transform>, Vec<u8>),
    holds_bulk: bool,
    /// Lengths of the dirty list and count when armed.
    dirty: usize,
    dirty_unlisted: usize,
    resources: Resources,
    holds_resources: bool,
    environment: Option<Box<Environment>>,
    /// The double buffer's turn, when the step made it (see [`Previous`]).
    previous: Option<Previous>,
    last_changed: Vec<(u32, u32)>,
    unsnapped: Vec<(u32, u32)>,
    /// The previous worlds a copying turn overwrote, range after range.
    overwritten: Vec<Affine3x4>,
}

/// How the double buffer turned (see [`Scene::snapshot_previous`]).
#[derive(Clone, Copy)]
struct Previous {
    epoch: u32,
    /// Whether the columns were swapped (the ranges marked stale), else the
    /// ranges copied.
    swapped: bool,
}

impl Clone for StepUndo {
    /// A copy of a scene is in no step: it starts disarmed.
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for StepUndo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StepUndo")
            .field("armed", &self.armed)
            .finish_non_exhaustive()
    }
}

impl StepUndo {
    /// Notes a local write at `d` of what it held (while journaling).
    #[inline]
    pub(super) fn local_written(&mut self, d: usize, local: Transform, flags: u8) {
        if self.journal {
            self.locals.push((d as u32, local, flags));
        }
    }

    /// Disarms, forgetting what was saved (the buffers stay).
    fn reset(&mut self) {
        self.armed = false;
        self.journal = false;
        self.structure = None;
        self.locals.clear();
        self.reserves.clear();
        self.holds_bulk = false;
        self.holds_resources = false;
        self.environment = None;
        self.previous = None;
    }
}

impl Scene {
    /// Starts a step that [`Scene::roll_back_step`] can undo (see the
    /// module docs); a step already armed is committed first.
    pub(crate) fn arm_step(&mut self) {
        self.commit_step();
        self.components.arm();
        let undo = &mut self.undo;
        undo.armed = true;
        undo.journal = true;
        undo.dirty = self.dirty.len();
        undo.dirty_unlisted = self.dirty_unlisted;
    }

    /// Ends the armed step: it stands, what was saved is dropped.
    pub(crate) fn commit_step(&mut self) {
        if self.undo.armed {
            self.components.disarm();
            self.undo.reset();
        }
    }

    /// Puts the scene back as it was when the step was armed; nothing
    /// happens when none is.
    pub(crate) fn roll_back_step(&mut self) {
        if !self.undo.armed {
            return;
        }
        let mut undo = std::mem::take(&mut self.undo);
        self.components.roll_back();
        if undo.holds_resources {
            std::mem::swap(&mut self.resources, &mut undo.resources);
        }
        if let Some(environment) = undo.environment.take() {
            self.environment = *environment;
        }
        // Latest copy first, then what was saved before it: the structure
        // (taken after any bulk copy and journal entries), the bulk copy,
        // the journal and the reservations in reverse, the double buffer's
        // turn (the step's first change).
        if let Some(structure) = undo.structure.take() {
            let mut before = *structure;
            before.components = std::mem::take(&mut self.components);
            before.resources = std::mem::take(&mut self.resources);
            before.environment = std::mem::take(&mut self.environment);
            *self = before;
        }
        if undo.holds_bulk {
            std::mem::swap(&mut self.hot.local, &mut undo.bulk.0);
            std::mem::swap(&mut self.hot.flags, &mut undo.bulk.1);
        }
        for &(d, local, flags) in undo.locals.iter().rev() {
            self.hot.local[d as usize] = local;
            self.hot.flags[d as usize] = flags;
        }
        for (slot, new, name) in undo.reserves.drain(..).rev() {
            self.reserved.pop();
            if new {
                self.slots.pop();
                self.names.pop();
            } else {
                self.names[slot as usize] = name;
                self.free.push(slot);
            }
        }
        self.dirty.truncate(undo.dirty);
        self.dirty_unlisted = undo.dirty_unlisted;
        if let Some(previous) = undo.previous.take() {
            self.undo_previous(previous, &mut undo);
        }
        undo.reset();
        self.undo = undo;
    }

    /// Before a change to the hierarchy's structure while armed: copies the
    /// hierarchy aside (once per step).
    pub(super) fn save_structure(&mut self) {
        if !self.undo.armed || self.undo.structure.is_some() {
            return;
        }
        let components = std::mem::take(&mut self.components);
        let resources = std::mem::take(&mut self.resources);
        let environment = std::mem::take(&mut self.environment);
        let undo = std::mem::take(&mut self.undo);
        let copy = self.clone();
        self.components = components;
        self.resources = resources;
        self.environment = environment;
        self.undo = undo;
        self.undo.structure = Some(Box::new(copy));
        self.undo.journal = false;
    }

    /// A slot for a reservation: journaled while armed (the slot, whether
    /// it is new, the name it held), so a roll-back frees it again.
    pub(super) fn reserve_slot(&mut self) -> u32 {
        let journal = self.undo.armed && self.undo.structure.is_none();
        let reused = self.free.last().copied();
        let old_name = match (journal, reused) {
            (true, Some(slot)) => std::mem::take(&mut self.names[slot as usize]),
            _ => String::new(),
        };
        let slot = self.alloc_slot(String::new());
        if journal {
            self.undo.reserves.push((slot, reused.is_none(), old_name));
        }
        slot
    }

    /// Before a pass writes many locals and flags in place while armed:
    /// copies them all aside (once per step).
    pub(super) fn save_locals(&mut self) {
        let undo = &mut self.undo;
        if !undo.armed || undo.structure.is_some() || undo.holds_bulk {
            return;
        }
        undo.bulk.0.clone_from(&self.hot.local);
        undo.bulk.1.clone_from(&self.hot.flags);
        undo.holds_bulk = true;
        undo.journal = false;
    }

    /// Before the double buffer's turn while armed: what it will change,
    /// or (when it would settle stale nodes, copy everything, renew the
    /// epochs or move positions) the whole hierarchy.
    pub(super) fn save_previous(&mut self) {
        if !self.undo.armed || self.undo.structure.is_some() {
            return;
        }
        if !self.stale.is_empty()
            || self.snapshot_all
            || self.upkeep_due()
            || self.epoch == u32::MAX
        {
            self.save_structure();
            return;
        }
        let total: usize = self.unsnapped.iter().map(|&(s, e)| (e - s) as usize).sum();
        let swapped = total > SWAP_MIN;
        let undo = &mut self.undo;
        undo.overwritten.clear();
        if !swapped {
            for &(start, end) in &self.unsnapped {
                let range = start as usize..end as usize;
                undo.overwritten
                    .extend_from_slice(&self.hot.prev_world[range]);
            }
        }
        undo.last_changed.clone_from(&self.last_changed);
        undo.unsnapped.clone_from(&self.unsnapped);
        undo.previous = Some(Previous {
            epoch: self.epoch,
            swapped,
        });
    }

    /// Undoes the double buffer's turn (the last thing rolled back: the
    /// first the step did), from the lists `undo` kept.
    fn undo_previous(&mut self, previous: Previous, undo: &mut StepUndo) {
        let hot = &mut self.hot;
        if previous.swapped {
            std::mem::swap(&mut hot.world, &mut hot.prev_world);
            for &(start, end) in &undo.unsnapped {
                for f in &mut hot.flags[start as usize..end as usize] {
                    *f &= !flag::STALE;
                }
            }
            self.stale.clear();
        } else {
            // Back to front, so overlapping ranges end with the oldest values.
            let mut at = undo.overwritten.len();
            for &(start, end) in undo.unsnapped.iter().rev() {
                let range = start as usize..end as usize;
                let from = at - range.len();
                hot.prev_world[range].copy_from_slice(&undo.overwritten[from..at]);
                at = from;
            }
        }
        self.epoch = previous.epoch;
        std::mem::swap(&mut self.last_changed, &mut undo.last_changed);
        std::mem::swap(&mut self.unsnapped, &mut undo.unsnapped);
    }

    /// Before resources change while armed: copies them aside (once per
    /// step, into the buffers of the last copy).
    pub(crate) fn save_resources(&mut self) {
        if self.undo.armed && !self.undo.holds_resources {
            self.resources.copy_into(&mut self.undo.resources);
            self.undo.holds_resources = true;
        }
    }

    /// Before the environment changes while armed: copies it aside.
    pub(super) fn save_environment(&mut self) {
        if self.undo.armed && self.undo.environment.is_none() {
            self.undo.environment = Some(Box::new(self.environment.clone()));
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::scene::NodeId;

    /// The scene's whole state as the hashes see it.
    fn state(scene: &mut Scene) -> (Vec<u8>, String) {
        let mut raw = Vec::new();
        let rest = scene.save_state(&mut raw);
        (raw, format!("{rest:?}"))
    }

    /// A scene whose `moved` first nodes moved in the last step.
    fn stepped(moved: usize) -> (Scene, Vec<NodeId>) {
        let mut scene = Scene::new();
        let nodes: Vec<NodeId> = (0..40)
            .map(|i| {
                let parent = None;
                let at = Transform::from_translation(Vec3::X * i as f32);
                scene.spawn(parent, "n", at).unwrap()
            })
            .collect();
        scene.propagate();
        scene.snapshot_previous();
        for &node in &nodes[..moved] {
            scene
                .update_local(node, |l| l.translation.y += 1.0)
                .unwrap();
        }
        scene.propagate();
        (scene, nodes)
    }

    /// Every way a step writes the hierarchy, rolled back to the bit: the
    /// double buffer's copy (few moved) and swap (many moved, past
    /// `SWAP_MIN`), the journal, the bulk copy, the structural copy.
    #[test]
    fn a_rolled_back_step_leaves_the_hierarchy_as_it_found_it() {
        for moved in [2, 30] {
            for writes in 0..4 {
                let (mut scene, nodes) = stepped(moved);
                scene.despawn(nodes[39]).unwrap();
                let before = state(&mut scene);
                scene.arm_step();
                scene.snapshot_previous();
                scene
                    .set_local(nodes[1], Transform::from_translation(Vec3::Y))
                    .unwrap();
                scene
                    .teleport(nodes[3], Transform::from_translation(Vec3::Z))
                    .unwrap();
                if writes >= 1 {
                    // One slot reused (its old name back after), one new.
                    scene.reserve();
                    scene.reserve();
                    let (locals, flags) = scene.locals_and_flags_mut();
                    locals[5].translation.x = 9.0;
                    flags[5] |= flag::DIRTY;
                    scene.note_dirtied(&[nodes[5]], 0);
                }
                if writes >= 2 {
                    scene
                        .set_local(nodes[7], Transform::from_translation(Vec3::NEG_Y))
                        .unwrap();
                    scene.set_name(nodes[2], "renamed").unwrap();
                    scene.despawn(nodes[8]).unwrap();
                }
                if writes >= 3 {
                    scene.propagate();
                    scene.reserve();
                }
                scene.roll_back_step();
                assert!(
                    state(&mut scene) == before,
                    "{moved} moved, writes {writes}"
                );
                // And a step that stands changes it.
                scene.arm_step();
                scene.snapshot_previous();
                scene
                    .set_local(nodes[1], Transform::from_translation(Vec3::Y))
                    .unwrap();
                scene.commit_step();
                assert!(state(&mut scene) != before);
            }
        }
    }
}
