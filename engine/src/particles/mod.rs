//! Particles: a fixed-capacity pool (object pool pattern, struct-of-arrays for data locality)
//! and the emitters that feed it.
//!
//! [`ParticleSystem`] owns one [`ParticlePool`] shared by every emitter. The scene stores an
//! [`Emitter`] per node and calls [`ParticleSystem::step`] once per fixed step with each
//! emitter's key and world transform; the renderer calls [`ParticleSystem::instances`] once per
//! frame. Emitters are filed under dense slots so that the update passes index small per-slot
//! tables (forces, colour and size curves) instead of hashing keys per particle.
//!
//! # A particle step in full
//!
//! One `ParticlePool` per world holds every particle as columns (position,
//! velocity, age, lifetime, half-float colour, size, owner slot, blend), live
//! ones packed at the front. A step:
//!
//! 1. Update. Below 96K particles the live range is one span; above, it is cut
//!    into spans of 48K (the cut depends on the count alone, so results are the
//!    same bits on any number of threads) that rayon's workers step at once.
//!    Within a span, tiles of 128 particles go through age, integrate
//!    (semi-implicit Euler, positions in place), and colour/size (skipped when
//!    the over-life sample did not change), then the expired particles listed
//!    along the way are killed, highest first, each replaced by the span's last
//!    live particle. The gaps left at the ends of spans are closed by moving the
//!    pool's last particles into them, a block at a time; only then are the
//!    deaths reported to their emitter slots.
//! 2. Spawn. Each emitter's due particles take slots at the end of the live
//!    range (the shared columns filled at once) and the emitter hands out the
//!    draws of its generator (SplitMix64 advances by a constant, so any part of a
//!    run can be drawn on its own). The runs are turned into velocities and
//!    lifetimes together, split across workers when large, with an AVX2 build of
//!    the loop where the CPU has it (same bits). Runs are drawn before an
//!    overflow policy may move particles.
//!
//! Drawing needs the position a step ago: it is `position - velocity * dt`
//! (exact for this integrator), except for particles not stepped yet. The thread
//! that runs fixed steps joins rayon's pool at startup (`workers::join_pool`), so
//! it keeps a share of each split and hands work over without rayon's shared
//! queue (which allocates); the steady-state test counts the workers'
//! allocations too.

pub(crate) mod emitter;
mod half;
mod instance;
mod pool;
mod sampler;

use std::collections::HashMap;

use glam::{Affine3A, Vec3};

pub(crate) use emitter::Emitter;

pub use emitter::ParticleInit;
pub use emitter::{
    Burst, ColorStop, EmitterState, FloatRange, MAX_POOL_CAPACITY, OVER_LIFE_SAMPLES,
    OverLifeTable, Overflow, ParticleError, SizeStop,
};
pub use instance::{BlendMode, ParticleInstance};
pub use pool::{PARALLEL_SPAN, ParticlePool, PoolStats, StepForces, UPDATE_TILE};
pub use sampler::{PARALLEL_SAMPLES, SAMPLE_BATCH, Sampler};

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

/// Emitters whose new particles one step draws together at the most (more draw in turns).
const QUEUED_RUNS: usize = 32;

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
    /// Writes the pool's columns to `out` and returns the rest (a recording's keyframe).
    pub(crate) fn save_state(&self, out: &mut Vec<u8>) -> ParticleSystem {
        ParticleSystem {
            pool: self.pool.save_state(out),
            slots: self.slots.clone(),
        }
    }

    /// The system [`ParticleSystem::save_state`] split, put back together.
    pub(crate) fn from_state(
        rest: &ParticleSystem,
        bulk: &mut crate::bulk::BulkReader<'_>,
    ) -> Result<ParticleSystem, crate::bulk::BulkError> {
        Ok(ParticleSystem {
            pool: ParticlePool::from_state(&rest.pool, bulk)?,
            slots: rest.slots.clone(),
        })
    }

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
    /// Allocates only when an emitter key gets a slot (a copy of its curves, and room for more
    /// slots past the 64 reserved up front), when an emitter's curves change, or when a
    /// [`Overflow::Grow`] policy grows the pool; a steady set of emitters allocates nothing.
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
        // Emitters take their particles' random draws one after the other, and the draws are
        // turned into velocities and lifetimes together, shared out between threads.
        let mut runs = [Sampler::EMPTY; QUEUED_RUNS];
        let (mut first, mut queued) = (self.pool.len(), 0);
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
            // Overflow policies move and evict particles: the pending ones must be whole.
            let full = self.pool.len() + due as usize > self.pool.capacity();
            if queued == runs.len() || (full && queued > 0) {
                self.pool.fill_spawned(first, &runs[..queued]);
                (first, queued) = (self.pool.len(), 0);
            }
            let room = self
                .pool
                .make_room(due, emitter.overflow, |owner| slots.release(owner));
            if queued == 0 {
                first = self.pool.len();
            }
            let run = self.pool.reserve_from(emitter, room, &world, slot);
            slots.slots[slot as usize].live += run.len() as u32;
            runs[queued] = run;
            queued += 1;
        }
        self.pool.fill_spawned(first, &runs[..queued]);
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

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Quat, Vec4};

    const DT: f32 = 1.0 / 60.0;

    fn fountain(seed: u64) -> Emitter {
        Emitter {
            rate: 600.0,
            bursts: vec![Burst {
                time: 0.0,
                count: 50,
            }],
            burst_period: Some(0.5),
            lifetime: FloatRange::new(0.5, 1.5),
            speed: FloatRange::new(2.0, 4.0),
            cone_angle: 40.0,
            drag: 0.3,
            seed,
            ..Emitter::default()
        }
    }

    fn run(system: &mut ParticleSystem, emitters: &mut [Emitter], steps: usize) {
        let world = Affine3A::from_rotation_translation(
            Quat::from_rotation_z(0.4),
            Vec3::new(1.0, 2.0, 3.0),
        );
        for _ in 0..steps {
            system.step(
                DT,
                emitters
                    .iter_mut()
                    .enumerate()
                    .map(|(k, e)| (k as u32, e, world)),
            );
        }
    }

    fn bits(v: &[Vec3]) -> Vec<[u32; 3]> {
        v.iter()
            .map(|p| [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()])
            .collect()
    }

    #[test]
    fn same_seed_gives_bit_identical_particles() {
        let simulate = |seeds: [u64; 2]| {
            let mut system = ParticleSystem::new(2_000);
            let mut emitters = seeds.map(fountain);
            run(&mut system, &mut emitters, 240);
            assert!(system.stats().alive > 500, "the run must have particles");
            (
                bits(system.pool().positions()),
                bits(system.pool().velocities()),
            )
        };
        let first = simulate([1, 2]);
        assert_eq!(first, simulate([1, 2]));
        assert_ne!(first.0, simulate([1, 3]).0);
    }

    /// [`ParticleSystem::step`] as it reads without the queued draws: each emitter's particles
    /// spawned whole, one emitter after the other.
    fn step_one_by_one<'e>(
        system: &mut ParticleSystem,
        emitters: impl Iterator<Item = (u32, &'e mut Emitter, Affine3A)>,
    ) {
        let slots = &mut system.slots;
        slots.prepare_forces(DT);
        let live = &mut slots.slots;
        system
            .pool
            .update(DT, &slots.forces, &slots.over_life, |o| release(live, o));
        for (key, emitter, world) in emitters {
            let slot = slots.refresh(key, emitter);
            let due = emitter.advance(DT);
            let room = system
                .pool
                .make_room(due, emitter.overflow, |o| slots.release(o));
            let spawned = system.pool.spawn_from(emitter, room, &world, slot);
            slots.slots[slot as usize].live += spawned;
        }
        slots.collect();
    }

    #[test]
    fn queued_draws_give_the_particles_of_one_emitter_after_the_other() {
        // More emitters than draws are queued, overflowing a pool in every way, with bursts big
        // enough to be split between threads.
        let policies = [
            Overflow::Drop,
            Overflow::ReplaceOldest,
            Overflow::Grow { max: 30_000 },
        ];
        let emitters: Vec<Emitter> = (0..QUEUED_RUNS as u64 + 9)
            .map(|k| Emitter {
                rate: 300.0 + 50.0 * k as f32,
                bursts: vec![Burst {
                    time: 0.0,
                    count: if k % 7 == 0 {
                        3 * PARALLEL_SAMPLES as u32
                    } else {
                        20
                    },
                }],
                lifetime: FloatRange::new(0.1, 0.5),
                cone_angle: 10.0 * (k % 9) as f32,
                overflow: policies[k as usize % 3],
                seed: k,
                ..Emitter::default()
            })
            .collect();
        let worlds: Vec<Affine3A> = (0..emitters.len())
            .map(|k| Affine3A::from_translation(Vec3::new(k as f32, 0.0, 0.0)))
            .collect();
        let (mut queued, mut one_by_one) = (emitters.clone(), emitters);
        let mut system = ParticleSystem::new(12_000);
        let mut reference = system.clone();
        fn stepped<'e>(
            emitters: &'e mut [Emitter],
            worlds: &'e [Affine3A],
        ) -> impl Iterator<Item = (u32, &'e mut Emitter, Affine3A)> {
            emitters
                .iter_mut()
                .zip(worlds)
                .enumerate()
                .map(|(k, (e, w))| (k as u32, e, *w))
        }
        for _ in 0..30 {
            system.step(DT, stepped(&mut queued, &worlds));
            step_one_by_one(&mut reference, stepped(&mut one_by_one, &worlds));
            let (a, b) = (system.pool(), reference.pool());
            assert_eq!(bits(a.positions()), bits(b.positions()));
            assert_eq!(bits(a.velocities()), bits(b.velocities()));
            assert_eq!(a.lifetimes(), b.lifetimes());
            assert_eq!(a.owners(), b.owners());
            assert_eq!(system.stats(), reference.stats());
        }
        let stats = system.stats();
        assert!(stats.dropped > 0 && stats.replaced > 0 && stats.capacity > 12_000);
    }

    #[test]
    fn particles_spawn_at_the_emitter_in_world_space() {
        let mut system = ParticleSystem::new(64);
        let mut jet = Emitter {
            rate: 0.0,
            bursts: vec![Burst {
                time: 0.0,
                count: 10,
            }],
            cone_angle: 0.0,
            speed: FloatRange::new(3.0, 3.0),
            ..Emitter::default()
        };
        let rotation = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
        let world = Affine3A::from_rotation_translation(rotation, Vec3::new(5.0, 0.0, -2.0));
        system.step(DT, std::iter::once((42, &mut jet, world)));
        let pool = system.pool();
        assert_eq!(pool.len(), 10);
        let slot = system.slot_of(42).expect("the emitter has a slot");
        for ((p, v), &owner) in pool
            .positions()
            .iter()
            .zip(pool.velocities())
            .zip(pool.owners())
        {
            assert_eq!(*p, Vec3::new(5.0, 0.0, -2.0));
            assert!(
                v.abs_diff_eq(rotation * Vec3::Y * 3.0, 1e-5),
                "velocity {v}"
            );
            assert_eq!(owner, slot);
        }
        assert_eq!(system.particles_of(42), 10);
    }

    #[test]
    fn step_applies_forces_and_curves_of_the_owning_emitter() {
        let mut system = ParticleSystem::new(16);
        let falling = Emitter {
            rate: 0.0,
            bursts: vec![Burst {
                time: 0.0,
                count: 1,
            }],
            speed: FloatRange::new(0.0, 0.0),
            lifetime: FloatRange::new(1.0, 1.0),
            gravity: Vec3::new(0.0, -10.0, 0.0),
            color_over_life: vec![
                ColorStop {
                    t: 0.0,
                    color: [1.0, 0.0, 0.0, 1.0],
                },
                ColorStop {
                    t: 1.0,
                    color: [0.0, 0.0, 1.0, 0.0],
                },
            ],
            size_over_life: vec![
                SizeStop { t: 0.0, size: 1.0 },
                SizeStop { t: 1.0, size: 3.0 },
            ],
            ..Emitter::default()
        };
        let floating = Emitter {
            gravity: Vec3::ZERO,
            ..falling.clone()
        };
        let mut emitters = [falling, floating];
        for _ in 0..30 {
            system.step(
                DT,
                emitters
                    .iter_mut()
                    .enumerate()
                    .map(|(k, e)| (k as u32, e, Affine3A::IDENTITY)),
            );
        }
        let pool = system.pool();
        let fall = pool
            .owners()
            .iter()
            .position(|&o| Some(o) == system.slot_of(0));
        let float = pool
            .owners()
            .iter()
            .position(|&o| Some(o) == system.slot_of(1));
        let (fall, float) = (
            fall.expect("falling particle"),
            float.expect("floating particle"),
        );
        // Spawned in the first step, then moved by the 29 that followed.
        let steps = 29.0;
        assert!((pool.velocities()[fall].y + 10.0 * DT * steps).abs() < 1e-4);
        assert_eq!(pool.velocities()[float], Vec3::ZERO);
        let t = pool.ages()[fall] / pool.lifetimes()[fall];
        assert!((t - steps * DT).abs() < 1e-5);
        let expected = emitters[0].color_at(t);
        let color = pool.colors().nth(fall).expect("falling particle");
        assert!(
            color.abs_diff_eq(expected, 1.0 / 255.0),
            "colour at t = {t}"
        );
        assert!((pool.sizes()[fall] - emitters[0].size_at(t)).abs() < 2.0 / 255.0);
    }

    #[test]
    fn instances_split_by_emitter_blend_mode() {
        let mut system = ParticleSystem::new(4_000);
        let mut emitters = [
            Emitter {
                blend: BlendMode::Additive,
                ..fountain(1)
            },
            Emitter {
                blend: BlendMode::Alpha,
                ..fountain(2)
            },
        ];
        run(&mut system, &mut emitters, 30);
        let (mut additive, mut alpha) = (Vec::new(), Vec::new());
        system.instances(0.5, &mut additive, &mut alpha);
        assert_eq!(additive.len() as u32, system.particles_of(0));
        assert_eq!(alpha.len() as u32, system.particles_of(1));
        assert!(!additive.is_empty() && !alpha.is_empty());
    }

    #[test]
    fn overflow_policies_apply_per_emitter() {
        let mut system = ParticleSystem::new(100);
        let burst = |overflow| Emitter {
            rate: 0.0,
            bursts: vec![Burst {
                time: 0.0,
                count: 80,
            }],
            burst_period: Some(0.1),
            lifetime: FloatRange::new(10.0, 10.0),
            overflow,
            ..Emitter::default()
        };
        let mut emitters = [burst(Overflow::Drop), burst(Overflow::ReplaceOldest)];
        run(&mut system, &mut emitters, 1);
        let stats = system.stats();
        // The first burst fills 80 slots, the second evicts 60 of them.
        assert_eq!((stats.alive, stats.replaced, stats.dropped), (100, 60, 0));
        assert_eq!((system.particles_of(0), system.particles_of(1)), (20, 80));

        let mut growing = [burst(Overflow::Grow { max: 150 })];
        let mut system = ParticleSystem::new(100);
        for _ in 0..7 {
            run(&mut system, &mut growing, 1);
        }
        let stats = system.stats();
        assert_eq!((stats.capacity, stats.alive), (150, 150));
        assert_eq!(stats.dropped, 80 - 70);
    }

    #[test]
    fn slots_outlive_their_emitter_until_its_particles_die() {
        let mut system = ParticleSystem::new(1_000);
        let mut short = Emitter {
            rate: 0.0,
            bursts: vec![Burst {
                time: 0.0,
                count: 5,
            }],
            lifetime: FloatRange::new(0.1, 0.1),
            ..Emitter::default()
        };
        system.step(DT, std::iter::once((7, &mut short, Affine3A::IDENTITY)));
        assert_eq!(system.particles_of(7), 5);
        // Not stepped any more (its node was deleted), its particles live on, then go.
        system.step(DT, std::iter::empty());
        assert_eq!(system.particles_of(7), 5);
        assert!(system.slot_of(7).is_some());
        for _ in 0..10 {
            system.step(DT, std::iter::empty());
        }
        assert_eq!(system.stats().alive, 0);
        assert_eq!(system.slot_of(7), None, "the slot is freed");
        let mut other = Emitter::default();
        system.step(DT, std::iter::once((8, &mut other, Affine3A::IDENTITY)));
        assert_eq!(system.slot_of(8), Some(0), "and reused");
    }

    #[test]
    fn removing_an_emitters_particles_leaves_the_others() {
        let mut system = ParticleSystem::new(4_000);
        let mut emitters = [fountain(1), fountain(2)];
        run(&mut system, &mut emitters, 20);
        let others = system.particles_of(1);
        let removed = system.remove_emitter_particles(0);
        assert!(removed > 0);
        assert_eq!(system.particles_of(0), 0);
        assert_eq!(system.stats().alive, others);
        assert_eq!(system.remove_emitter_particles(99), 0);
        system.clear();
        assert_eq!(system.stats().alive, 0);
        assert_eq!(system.slot_of(1), None);
    }

    #[test]
    fn invalid_emitters_and_bad_steps_change_nothing() {
        let mut system = ParticleSystem::new(100);
        let mut broken = Emitter {
            lifetime: FloatRange::new(2.0, 1.0),
            ..Emitter::default()
        };
        system.step(1.0, std::iter::once((0, &mut broken, Affine3A::IDENTITY)));
        assert_eq!(system.stats().spawned, 0);
        let mut fine = Emitter::default();
        system.step(1.0, std::iter::once((0, &mut fine, Affine3A::IDENTITY)));
        let before = bits(system.pool().positions());
        assert!(!before.is_empty());
        for dt in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            system.step(dt, std::iter::once((0, &mut fine, Affine3A::IDENTITY)));
        }
        assert_eq!(bits(system.pool().positions()), before);
        assert_eq!(fine.state.time(), 1.0);
        assert!(system.pool().colors().all(|c| c.cmple(Vec4::ONE).all()));
    }
}
