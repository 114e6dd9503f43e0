//! The particle pool: fixed-capacity struct-of-arrays storage for every live particle
//! (object pool pattern, laid out for data locality).
//!
//! Each field is its own column (`Vec<Vec3>` of positions, `Vec<f32>` of ages, ...), allocated
//! once to the pool's capacity. Live particles are packed at the front: killing one moves the last
//! live particle into the hole, so every pass walks `0..alive` of a few columns, touching only
//! the bytes it needs and never testing an "in use" flag. Spawning writes every column of the slot
//! it takes, so nothing of the previous occupant survives.
//!
//! Drawing interpolates between a particle's position before and after the last step without
//! storing the former: semi-implicit Euler moves a particle by exactly its new velocity times
//! the step, so the position a step ago is `position - velocity * dt`. Each step then updates
//! positions in place, and a spawn, a kill or a move carries one column fewer.
//!
//! The update is bound by memory traffic, so the pool keeps stores down: colours are stored as
//! half floats ([`super::half`]), emitters sample new particles straight into the columns
//! ([`ParticlePool::spawn_from`]), and colour and size, derived from a particle's normalised age,
//! are stored again only when that age reaches a new sample of the over-life table (a dirty
//! check, so long-lived particles leave those cache lines clean).
//!
//! A large pool's update is cut into spans stepped on several cores ([`crate::workers`]); each
//! span packs its own survivors, and the gaps left between spans are closed a block at a time.

use std::cmp::Ordering;

use glam::{Affine3A, Vec3, Vec4};

use super::emitter::{
    Emitter, MAX_POOL_CAPACITY, OVER_LIFE_SAMPLES, OverLifeTable, Overflow, ParticleInit,
};
use super::half::{from_half4, to_half4};
use super::instance::{BlendMode, ParticleInstance};
use super::sampler::Sampler;

mod state;
mod update;

pub use update::PARALLEL_SPAN;

/// Counters describing a pool's occupancy and history.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Particles alive now.
    pub alive: u32,
    /// Slots allocated.
    pub capacity: u32,
    /// Particles ever spawned (replacements included).
    pub spawned: u64,
    /// Spawns refused because the pool was full.
    pub dropped: u64,
    /// Live particles killed to make room for new ones.
    pub replaced: u64,
    /// Most particles alive at once.
    pub high_water: u32,
}

/// Per-emitter forces for one step, pre-multiplied by the step's `dt`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepForces {
    /// Gravity times `dt`: the velocity change it causes in one step.
    pub gravity_dt: Vec3,
    /// Factor the velocity keeps after one step of drag, `exp(-drag * dt)`.
    pub damping: f32,
}

impl Default for StepForces {
    fn default() -> Self {
        Self {
            gravity_dt: Vec3::ZERO,
            damping: 1.0,
        }
    }
}

impl StepForces {
    /// Forces of an emitter with `gravity` and `drag` over a step of `dt` seconds.
    #[must_use]
    pub fn new(gravity: Vec3, drag: f32, dt: f32) -> Self {
        Self {
            gravity_dt: gravity * dt,
            damping: crate::math::exp(-drag * dt),
        }
    }

    /// One step of semi-implicit Euler on `velocity`, the maths every particle path shares.
    #[inline]
    #[must_use]
    pub fn apply(self, velocity: Vec3) -> Vec3 {
        (velocity + self.gravity_dt) * self.damping
    }
}

/// Particles per tile of [`ParticlePool::update`]: the tile's slice of every column (about 8 KB)
/// stays in L1 while the passes run over it one after the other. 128 measured a little faster
/// than 256 or 64.
pub const UPDATE_TILE: usize = 128;

/// Bit `j` set when particle `j` of a block of at most 64 has reached its lifetime.
///
/// The comparisons fill a byte array (one vector compare per lane group); each 8 bytes of 0/1
/// then fold into 8 bits with one multiplication, since the products of the set bytes with
/// `0x0102_0408_1020_4080` land on distinct bits and only byte `j`'s lands on bit `56 + j`.
#[inline]
fn expiry_mask(age: &[f32], lifetime: &[f32]) -> u64 {
    let mut flags = [0u8; 64];
    for ((flag, age), life) in flags.iter_mut().zip(age).zip(lifetime) {
        *flag = u8::from(age >= life);
    }
    let (octets, _) = flags.as_chunks::<8>();
    octets.iter().enumerate().fold(0, |mask, (k, octet)| {
        let bits = u64::from_le_bytes(*octet).wrapping_mul(0x0102_0408_1020_4080) >> 56;
        mask | (bits << (8 * k))
    })
}

/// Fixed-capacity struct-of-arrays particle storage; see the module documentation.
#[derive(Clone, Debug)]
pub struct ParticlePool {
    position: Vec<Vec3>,
    velocity: Vec<Vec3>,
    age: Vec<f32>,
    lifetime: Vec<f32>,
    /// RGBA as halves ([`super::half`]): half the bytes an update stores.
    color: Vec<[u16; 4]>,
    size: Vec<f32>,
    owner: Vec<u32>,
    blend: Vec<BlendMode>,
    /// Reserved to capacity so that evicting the oldest particles allocates nothing.
    eviction: Vec<u32>,
    /// Scratch as long as the other columns, where each span of an update lists its expired
    /// particles.
    expired: Vec<u32>,
    /// [`OverLifeTable::stamp`] of the table the last update read colours and sizes from.
    looks_from: Option<u64>,
    /// Seconds the last update stepped: how far back the previous positions lie.
    last_dt: f32,
    alive: usize,
    spawned: u64,
    dropped: u64,
    replaced: u64,
    high_water: usize,
}

impl ParticlePool {
    /// A pool with room for `capacity` particles (at most [`MAX_POOL_CAPACITY`]), every column
    /// allocated now.
    #[must_use]
    pub fn with_capacity(capacity: u32) -> Self {
        let mut pool = Self {
            position: Vec::new(),
            velocity: Vec::new(),
            age: Vec::new(),
            lifetime: Vec::new(),
            color: Vec::new(),
            size: Vec::new(),
            owner: Vec::new(),
            blend: Vec::new(),
            eviction: Vec::new(),
            expired: Vec::new(),
            looks_from: None,
            last_dt: 0.0,
            alive: 0,
            spawned: 0,
            dropped: 0,
            replaced: 0,
            high_water: 0,
        };
        pool.grow_to(capacity);
        pool
    }

    /// Slots allocated.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.age.len()
    }

    /// Particles alive.
    #[must_use]
    pub fn len(&self) -> usize {
        self.alive
    }

    /// Whether no particle is alive.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.alive == 0
    }

    /// Whether every slot is taken.
    #[must_use]
    pub fn is_full(&self) -> bool {
        self.alive == self.capacity()
    }

    /// Occupancy and history counters.
    #[must_use]
    pub fn stats(&self) -> PoolStats {
        PoolStats {
            alive: self.alive as u32,
            capacity: self.capacity() as u32,
            spawned: self.spawned,
            dropped: self.dropped,
            replaced: self.replaced,
            high_water: self.high_water as u32,
        }
    }

    /// Raises the capacity to `capacity` (clamped to [`MAX_POOL_CAPACITY`]), reallocating every
    /// column; a smaller value does nothing. Returns whether the pool grew.
    ///
    /// This is the only way a pool allocates after it is built; the [`Overflow::Grow`] policy
    /// calls it.
    pub fn grow_to(&mut self, capacity: u32) -> bool {
        let capacity = capacity.min(MAX_POOL_CAPACITY) as usize;
        if capacity <= self.capacity() {
            return false;
        }
        self.position.resize(capacity, Vec3::ZERO);
        self.velocity.resize(capacity, Vec3::ZERO);
        self.age.resize(capacity, 0.0);
        self.lifetime.resize(capacity, 0.0);
        self.color.resize(capacity, [0; 4]);
        self.size.resize(capacity, 0.0);
        self.owner.resize(capacity, 0);
        self.blend.resize(capacity, BlendMode::Alpha);
        self.eviction.reserve_exact(capacity - self.eviction.len());
        self.expired.resize(capacity, 0);
        true
    }

    /// Makes room for up to `wanted` new particles according to `overflow` and returns how many
    /// will fit. Shortfalls are counted as dropped; evictions as replaced, each reported to
    /// `on_evict` with the evicted particle's owner.
    ///
    /// [`Overflow::ReplaceOldest`] costs one pass over the live particles when it evicts, however
    /// many it evicts, which is why callers spawning a batch ask for the whole batch at once.
    pub fn make_room(&mut self, wanted: u32, overflow: Overflow, on_evict: impl FnMut(u32)) -> u32 {
        let wanted = wanted as usize;
        let free = self.capacity() - self.alive;
        if wanted <= free {
            return wanted as u32;
        }
        let room = match overflow {
            Overflow::Drop => free,
            Overflow::Grow { max } => {
                let doubled = (self.capacity() * 2).max(self.alive + wanted);
                let target = doubled.min(max as usize).min(u32::MAX as usize) as u32;
                self.grow_to(target);
                wanted.min(self.capacity() - self.alive)
            }
            Overflow::ReplaceOldest => {
                let evicted = (wanted - free).min(self.alive);
                self.evict_oldest(evicted, on_evict);
                self.replaced += evicted as u64;
                free + evicted
            }
        };
        self.dropped += (wanted - room) as u64;
        room as u32
    }

    /// Spawns one particle, applying `overflow` if the pool is full. Returns its index, or
    /// `None` if it was dropped.
    pub fn spawn(
        &mut self,
        init: &ParticleInit,
        overflow: Overflow,
        on_evict: impl FnMut(u32),
    ) -> Option<usize> {
        if self.make_room(1, overflow, on_evict) == 0 {
            return None;
        }
        Some(self.insert(init))
    }

    /// Spawns up to `count` particles drawn from `emitter` at the origin of `world`, filed under
    /// `owner`, into the free slots (none are made: call [`ParticlePool::make_room`] first).
    /// Returns how many were spawned.
    ///
    /// The particles are the ones [`Emitter::sample_particles`] would hand to
    /// [`ParticlePool::spawn`], bit for bit, but each column is written for the whole batch at
    /// once: the constant ones are filled, velocities and lifetimes drawn straight into theirs.
    pub fn spawn_from(
        &mut self,
        emitter: &mut Emitter,
        count: u32,
        world: &Affine3A,
        owner: u32,
    ) -> u32 {
        let start = self.alive;
        let run = self.reserve_from(emitter, count, world, owner);
        self.fill_spawned(start, &[run]);
        run.len() as u32
    }

    /// [`ParticlePool::spawn_from`] but for the velocities and lifetimes: returns their draws,
    /// which [`ParticlePool::fill_spawned`] must write before anything else reads or moves the
    /// new particles (so several emitters' draws can be shared out between threads at once).
    pub(super) fn reserve_from(
        &mut self,
        emitter: &mut Emitter,
        count: u32,
        world: &Affine3A,
        owner: u32,
    ) -> Sampler {
        let start = self.alive;
        let end = start + (count as usize).min(self.capacity() - start);
        let position = Vec3::from(world.translation);
        self.position[start..end].fill(position);
        self.age[start..end].fill(0.0);
        self.color[start..end].fill(to_half4(emitter.color_at(0.0).to_array()));
        self.size[start..end].fill(emitter.size_at(0.0));
        self.owner[start..end].fill(owner);
        self.blend[start..end].fill(emitter.blend);
        self.alive = end;
        self.spawned += (end - start) as u64;
        self.high_water = self.high_water.max(end);
        emitter.take(world, (end - start) as u32)
    }

    /// Writes the velocities and lifetimes of `runs`, reserved one after the other from slot
    /// `start` on.
    pub(super) fn fill_spawned(&mut self, start: usize, runs: &[Sampler]) {
        let end = self.alive.max(start);
        Sampler::fill_runs(
            runs,
            &mut self.velocity[start..end],
            &mut self.lifetime[start..end],
        );
    }

    /// Writes every column of the first free slot; the caller made sure there is one.
    fn insert(&mut self, init: &ParticleInit) -> usize {
        let i = self.alive;
        self.position[i] = init.position;
        self.velocity[i] = init.velocity;
        self.age[i] = 0.0;
        self.lifetime[i] = init.lifetime;
        self.color[i] = to_half4(init.color.to_array());
        self.size[i] = init.size;
        self.owner[i] = init.owner;
        self.blend[i] = init.blend;
        self.alive += 1;
        self.spawned += 1;
        self.high_water = self.high_water.max(self.alive);
        i
    }

    /// Kills the particle at `index` by moving the last live particle into its slot. Returns the
    /// owner of the killed particle, or `None` if `index` is not a live particle.
    pub fn kill(&mut self, index: usize) -> Option<u32> {
        if index >= self.alive {
            return None;
        }
        let owner = self.owner[index];
        self.swap_remove(index);
        Some(owner)
    }

    /// Kills every particle whose owner satisfies `doomed`, reporting each to `on_kill`.
    /// Returns how many died.
    pub fn kill_where(
        &mut self,
        mut doomed: impl FnMut(u32) -> bool,
        mut on_kill: impl FnMut(u32),
    ) -> usize {
        let before = self.alive;
        let mut i = 0;
        while i < self.alive {
            let owner = self.owner[i];
            if doomed(owner) {
                on_kill(owner);
                // The particle moved into `i` has not been looked at yet: stay on `i`.
                self.swap_remove(i);
            } else {
                i += 1;
            }
        }
        before - self.alive
    }

    /// Kills every particle; counters other than `alive` are kept.
    pub fn clear(&mut self) {
        self.alive = 0;
    }

    /// Kills the `count` oldest particles (ties go to the lower owner), reporting each owner.
    fn evict_oldest(&mut self, count: usize, mut on_evict: impl FnMut(u32)) {
        let n = self.alive;
        let count = count.min(n);
        if count == 0 {
            return;
        }
        let age = &self.age[..n];
        let owner = &self.owner[..n];
        let older_first = |a: &u32, b: &u32| -> Ordering {
            let (a, b) = (*a as usize, *b as usize);
            age[b].total_cmp(&age[a]).then(owner[a].cmp(&owner[b]))
        };
        let mut victims = std::mem::take(&mut self.eviction);
        victims.clear();
        if count == 1 {
            let oldest = (0..n as u32).min_by(older_first).unwrap_or(0);
            victims.push(oldest);
        } else {
            victims.extend(0..n as u32);
            victims.select_nth_unstable_by(count - 1, older_first);
            victims.truncate(count);
            // Highest index first: moving the last particle into a hole never moves a victim
            // that is still to be killed.
            victims.sort_unstable_by(|a, b| b.cmp(a));
        }
        for &i in &victims {
            on_evict(self.owner[i as usize]);
            self.swap_remove(i as usize);
        }
        self.eviction = victims;
    }

    /// Appends one billboard per live particle, at `alpha` of the way from its previous to its
    /// current position (`alpha` is clamped to `0..=1`; a particle that has not been stepped yet
    /// is drawn where it was spawned), to `additive` or `alpha_blended`
    /// according to its blend mode. Reserve the vectors to [`ParticlePool::capacity`] once and
    /// clear them each frame, and this allocates nothing.
    pub fn instances(
        &self,
        alpha: f32,
        additive: &mut Vec<ParticleInstance>,
        alpha_blended: &mut Vec<ParticleInstance>,
    ) {
        let alpha = if alpha.is_nan() {
            1.0
        } else {
            alpha.clamp(0.0, 1.0)
        };
        let n = self.alive;
        // How far back along its velocity a particle is drawn.
        let back = self.last_dt * (1.0 - alpha);
        let motion = self.position[..n].iter().zip(&self.velocity[..n]);
        let places = motion.zip(&self.age[..n]);
        let looks = self.size[..n].iter().zip(&self.color[..n]);
        for ((((&position, &velocity), &age), (&size, color)), blend) in
            places.zip(looks).zip(&self.blend[..n])
        {
            let back = if age > 0.0 { back } else { 0.0 };
            let instance = ParticleInstance {
                position: (position - velocity * back).to_array(),
                size,
                color: from_half4(*color),
            };
            match blend {
                BlendMode::Additive => additive.push(instance),
                BlendMode::Alpha => alpha_blended.push(instance),
            }
        }
    }

    /// Positions after the last step, live particles only.
    #[must_use]
    pub fn positions(&self) -> &[Vec3] {
        &self.position[..self.alive]
    }

    /// Positions before the last step, derived: `position - velocity * dt` for the last step's
    /// `dt` (exact up to rounding), or the position itself for a particle not stepped yet.
    #[must_use]
    pub fn previous_positions(&self) -> impl ExactSizeIterator<Item = Vec3> + '_ {
        let n = self.alive;
        let motion = self.position[..n].iter().zip(&self.velocity[..n]);
        motion.zip(&self.age[..n]).map(
            |((&p, &v), &age)| {
                if age > 0.0 { p - v * self.last_dt } else { p }
            },
        )
    }

    /// Velocities in units per second.
    #[must_use]
    pub fn velocities(&self) -> &[Vec3] {
        &self.velocity[..self.alive]
    }

    /// Seconds each particle has lived.
    #[must_use]
    pub fn ages(&self) -> &[f32] {
        &self.age[..self.alive]
    }

    /// Seconds each particle lives in all.
    #[must_use]
    pub fn lifetimes(&self) -> &[f32] {
        &self.lifetime[..self.alive]
    }

    /// Linear RGBA colours, as stored: to half precision (11 significant bits), saturating at
    /// ±65504.
    #[must_use]
    pub fn colors(&self) -> impl ExactSizeIterator<Item = Vec4> + '_ {
        self.color[..self.alive]
            .iter()
            .map(|&c| Vec4::from_array(from_half4(c)))
    }

    /// Billboard sizes.
    #[must_use]
    pub fn sizes(&self) -> &[f32] {
        &self.size[..self.alive]
    }

    /// Owning emitter slots.
    #[must_use]
    pub fn owners(&self) -> &[u32] {
        &self.owner[..self.alive]
    }

    /// Blend modes.
    #[must_use]
    pub fn blends(&self) -> &[BlendMode] {
        &self.blend[..self.alive]
    }
}

#[cfg(test)]
mod tests;
