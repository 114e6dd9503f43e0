//! Particles: a fixed-capacity pool (object pool pattern, struct-of-arrays for data locality)
//! and the emitters that feed it.
//!
//! [`ParticleSystem`] owns one [`ParticlePool`] shared by every emitter. The scene stores an
//! [`Emitter`] per node and calls [`ParticleSystem::step`] once per fixed step with each
//! emitter's key and world transform; the renderer calls [`ParticleSystem::instances`] once per
//! frame. Emitters are filed under dense slots so that the update passes index small per-slot
//! tables (forces, colour and size curves) instead of hashing keys per particle.

mod emitter;
mod instance;
mod pool;

use std::collections::HashMap;

use glam::{Affine3A, Vec3};

pub use emitter::{
    Burst, ColorStop, Emitter, EmitterState, FloatRange, MAX_POOL_CAPACITY, OVER_LIFE_SAMPLES,
    OverLifeTable, Overflow, ParticleError, SizeStop,
};
pub use instance::{BlendMode, ParticleInstance};
pub use pool::{ParticleInit, ParticlePool, PoolStats, StepForces, UPDATE_TILE};

/// What the system remembers about an emitter between steps, so its particles keep their forces
/// and curves after the emitter itself stops being stepped (a deleted node's smoke drifts on).
#[derive(Clone, Debug)]
struct Slot {
    key: u32,
    in_use: bool,
    seen: bool,
    live: u32,
    gravity: Vec3,
    drag: f32,
    color_over_life: Vec<ColorStop>,
    size_over_life: Vec<SizeStop>,
}

fn release(slots: &mut [Slot], slot: u32) {
    if let Some(s) = slots.get_mut(slot as usize) {
        s.live = s.live.saturating_sub(1);
    }
}

/// Emitter keys to dense slots, and the per-slot tables the pool's passes read.
#[derive(Clone, Debug, Default)]
struct Slots {
    by_key: HashMap<u32, u32>,
    slots: Vec<Slot>,
    free: Vec<u32>,
    forces: Vec<StepForces>,
    over_life: OverLifeTable,
}

/// Slots reserved up front; more emitters than this allocate once when they first appear.
const INITIAL_SLOTS: usize = 64;

impl Slots {
    fn with_capacity(slots: usize) -> Self {
        Self {
            by_key: HashMap::with_capacity(slots),
            slots: Vec::with_capacity(slots),
            free: Vec::with_capacity(slots),
            forces: Vec::with_capacity(slots),
            over_life: OverLifeTable::with_slots(slots),
        }
    }

    fn release(&mut self, slot: u32) {
        release(&mut self.slots, slot);
    }

    /// The slot of `key`, created or refreshed from `emitter`'s current parameters; its curves
    /// are re-baked only when they changed.
    fn refresh(&mut self, key: u32, emitter: &Emitter) -> u32 {
        let index = match self.by_key.get(&key) {
            Some(&index) => index,
            None => {
                let index = self.free.pop().unwrap_or(self.slots.len() as u32);
                let fresh = Slot {
                    key,
                    in_use: true,
                    seen: false,
                    live: 0,
                    gravity: emitter.gravity,
                    drag: emitter.drag,
                    color_over_life: emitter.color_over_life.clone(),
                    size_over_life: emitter.size_over_life.clone(),
                };
                if let Some(slot) = self.slots.get_mut(index as usize) {
                    *slot = fresh;
                } else {
                    self.slots.push(fresh);
                    self.forces.push(StepForces::default());
                }
                self.over_life.bake(index, emitter);
                self.by_key.insert(key, index);
                index
            }
        };
        let slot = &mut self.slots[index as usize];
        slot.seen = true;
        slot.gravity = emitter.gravity;
        slot.drag = emitter.drag;
        if slot.color_over_life != emitter.color_over_life
            || slot.size_over_life != emitter.size_over_life
        {
            slot.color_over_life.clone_from(&emitter.color_over_life);
            slot.size_over_life.clone_from(&emitter.size_over_life);
            self.over_life.bake(index, emitter);
        }
        index
    }

    fn prepare_forces(&mut self, dt: f32) {
        for (forces, slot) in self.forces.iter_mut().zip(&self.slots) {
            *forces = StepForces::new(slot.gravity, slot.drag, dt);
        }
    }

    /// Frees the slots of emitters that were not stepped and have no particle left.
    fn collect(&mut self) {
        for (index, slot) in self.slots.iter_mut().enumerate() {
            if slot.in_use && !slot.seen && slot.live == 0 {
                slot.in_use = false;
                self.by_key.remove(&slot.key);
                self.free.push(index as u32);
            }
            slot.seen = false;
        }
    }

    fn clear(&mut self) {
        self.by_key.clear();
        self.free.clear();
        self.slots.clear();
        self.forces.clear();
    }
}

/// Every particle of a world: one pool, fed by any number of emitters.
#[derive(Clone, Debug)]
pub struct ParticleSystem {
    pool: ParticlePool,
    slots: Slots,
}

impl ParticleSystem {
    /// A system whose pool holds `capacity` particles (at most [`MAX_POOL_CAPACITY`]); emitters
    /// with [`Overflow::Grow`] may enlarge it.
    #[must_use]
    pub fn new(capacity: u32) -> Self {
        Self {
            pool: ParticlePool::with_capacity(capacity),
            slots: Slots::with_capacity(INITIAL_SLOTS),
        }
    }

    /// Advances every particle by `dt` seconds, then lets each emitter spawn.
    ///
    /// In order: the position buffers swap (the current positions become the previous ones),
    /// particles age and the expired ones die, velocities and positions integrate with their
    /// emitter's gravity and drag, colour and size are read from their emitter's curves, and
    /// finally each emitter of `emitters` (its key, itself, its world transform) spawns what its
    /// rate and bursts owe, at its world position, applying its overflow policy. New particles
    /// start with age 0 and are not moved until the next step.
    ///
    /// Forces and curves of live particles come from the previous time their emitter was
    /// stepped, so a parameter edit reaches existing particles one step later. Emitters that fail
    /// [`Emitter::validate`] spawn nothing (logged once). A `dt` that is not a positive finite
    /// number leaves everything untouched.
    ///
    /// Allocates only when an emitter key is seen for the first time beyond the 64 slots reserved
    /// up front, when an emitter's curves change, or when a [`Overflow::Grow`] policy grows the
    /// pool.
    pub fn step<'e>(
        &mut self,
        dt: f32,
        emitters: impl Iterator<Item = (u32, &'e mut Emitter, Affine3A)>,
    ) {
        if !(dt.is_finite() && dt > 0.0) {
            return;
        }
        let slots = &mut self.slots;
        slots.prepare_forces(dt);
        let live = &mut slots.slots;
        self.pool
            .update(dt, &slots.forces, &slots.over_life, |owner| {
                release(live, owner);
            });
        for (key, emitter, world) in emitters {
            if let Err(error) = emitter.validate() {
                if !emitter.state.reported_invalid {
                    log::warn!("particle emitter {key} spawns nothing: {error}");
                    emitter.state.reported_invalid = true;
                }
                continue;
            }
            emitter.state.reported_invalid = false;
            let slot = slots.refresh(key, emitter);
            let due = emitter.advance(dt);
            let room = self
                .pool
                .make_room(due, emitter.overflow, |owner| slots.release(owner));
            let pool = &mut self.pool;
            emitter.sample_particles(room, &world, slot, |init| {
                pool.spawn(init, Overflow::Drop, |_| {});
            });
            slots.slots[slot as usize].live += room;
        }
        slots.collect();
    }

    /// Appends a billboard per live particle, interpolated `alpha` of the way from the previous
    /// step to the last one, to `additive` or `alpha_blended` by its emitter's blend mode.
    /// See [`ParticlePool::instances`].
    pub fn instances(
        &self,
        alpha: f32,
        additive: &mut Vec<ParticleInstance>,
        alpha_blended: &mut Vec<ParticleInstance>,
    ) {
        self.pool.instances(alpha, additive, alpha_blended);
    }

    /// The pool's counters.
    #[must_use]
    pub fn stats(&self) -> PoolStats {
        self.pool.stats()
    }

    /// The pool, for inspection (its `owners()` are slots; see [`ParticleSystem::slot_of`]).
    #[must_use]
    pub fn pool(&self) -> &ParticlePool {
        &self.pool
    }

    /// The slot particles of emitter `key` are filed under, if it has one.
    #[must_use]
    pub fn slot_of(&self, key: u32) -> Option<u32> {
        self.slots.by_key.get(&key).copied()
    }

    /// Live particles spawned by emitter `key`.
    #[must_use]
    pub fn particles_of(&self, key: u32) -> u32 {
        self.slot_of(key)
            .and_then(|slot| self.slots.slots.get(slot as usize))
            .map_or(0, |slot| slot.live)
    }

    /// Kills every particle and forgets every emitter slot (emitters keep their own state).
    pub fn clear(&mut self) {
        self.pool.clear();
        self.slots.clear();
    }

    /// Kills the particles of emitter `key` (for a node deleted with its effect). Returns how
    /// many died.
    pub fn remove_emitter_particles(&mut self, key: u32) -> usize {
        let Some(slot) = self.slot_of(key) else {
            return 0;
        };
        let killed = self.pool.kill_where(|owner| owner == slot, |_| {});
        if let Some(s) = self.slots.slots.get_mut(slot as usize) {
            s.live = 0;
        }
        killed
    }
}
