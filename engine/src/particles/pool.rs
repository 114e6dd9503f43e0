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

use super::emitter::{Emitter, MAX_POOL_CAPACITY, OVER_LIFE_SAMPLES, OverLifeTable, Overflow};
use super::half::{from_half4, to_half4};
use super::instance::{BlendMode, ParticleInstance};
use super::sampler::Sampler;

mod state;

/// Everything a new particle starts with; the pool adds age 0 (a particle of age 0 has not moved
/// yet, so it is drawn at `position`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParticleInit {
    /// World-space position.
    pub position: Vec3,
    /// World-space velocity in units per second.
    pub velocity: Vec3,
    /// Seconds until the particle dies.
    pub lifetime: f32,
    /// Linear RGBA until the first update replaces it from the colour curve (stored to half
    /// precision, see [`ParticlePool::colors`]).
    pub color: Vec4,
    /// Billboard size until the first update replaces it from the size curve.
    pub size: f32,
    /// Emitter slot the particle belongs to (an index into the step's force and curve tables).
    pub owner: u32,
    /// Blend mode it is drawn with.
    pub blend: BlendMode,
}

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
            damping: (-drag * dt).exp(),
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

    /// Moves the last live particle into slot `i` (a copy: the vacated slot is dead and will be
    /// fully rewritten by the next spawn).
    fn swap_remove(&mut self, i: usize) {
        let mut live = self.live_span();
        live.retire(i);
        self.alive = live.live;
    }

    /// Every live particle, as one span of an update.
    fn live_span(&mut self) -> Span<'_> {
        let n = self.alive;
        Span {
            base: 0,
            live: n,
            position: &mut self.position[..n],
            velocity: &mut self.velocity[..n],
            age: &mut self.age[..n],
            lifetime: &mut self.lifetime[..n],
            color: &mut self.color[..n],
            size: &mut self.size[..n],
            owner: &mut self.owner[..n],
            blend: &mut self.blend[..n],
            expired: &mut self.expired[..n],
        }
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

    /// One simulation step for every live particle: swap the position buffers, age and kill
    /// (reporting each death's owner to `on_kill`), integrate velocity and position with each
    /// owner's `forces` (semi-implicit Euler, [`StepForces::apply`]), then read colour and size
    /// from `over_life` at the particle's normalised age.
    ///
    /// A pool of at least twice [`PARALLEL_SPAN`] particles is cut into spans that rayon's workers
    /// update at the same time: a particle's step reads only its own slots and the shared tables.
    /// Each span packs its survivors at its front; afterwards the last live particles move, a
    /// block at a time, into the holes of the earlier spans. How a pool is cut depends on its
    /// size alone, so the result is the same bits whatever the number of threads.
    ///
    /// Within a span the passes run tile by tile ([`UPDATE_TILE`] particles), each pass a plain
    /// loop over the tile's columns, so the columns are read from memory once and reused from L1
    /// by the next pass. `forces` is indexed by owner; when all its entries are equal a flat
    /// vectorised pass applies that one entry to every particle without looking at owners,
    /// otherwise owners past its end feel no force. Owners without curves in `over_life` keep
    /// their colour and size. When the last update read the same table (same
    /// [`OverLifeTable::stamp`]), particles whose age still maps to the sample they read then are
    /// not written again (a dirty check: their colour and size are already those values).
    pub fn update(
        &mut self,
        dt: f32,
        forces: &[StepForces],
        over_life: &OverLifeTable,
        on_kill: impl FnMut(u32),
    ) {
        self.update_in_spans(dt, forces, over_life, on_kill, PARALLEL_SPAN);
    }

    /// [`ParticlePool::update`] with spans of `span_len` particles (tests use short ones).
    fn update_in_spans(
        &mut self,
        dt: f32,
        forces: &[StepForces],
        over_life: &OverLifeTable,
        mut on_kill: impl FnMut(u32),
        span_len: usize,
    ) {
        let step = Step {
            dt,
            forces,
            shared: forces
                .split_first()
                .and_then(|(first, rest)| rest.iter().all(|f| f == first).then_some(*first)),
            over_life,
            // Colours and sizes already match `over_life` at the particles' last ages if the
            // last update read this very table.
            unchanged: self.looks_from == Some(over_life.stamp()),
        };
        let n = self.alive;
        let mut ends = [SpanEnd::default(); MAX_SPANS];
        let ends = &mut ends[..(n / span_len.max(1)).clamp(1, MAX_SPANS)];
        update_spans(self.live_span(), &step, ends);
        self.looks_from = Some(over_life.stamp());
        self.last_dt = dt;
        for end in &*ends {
            for &owner in &self.owner[end.base + end.live..end.base + end.len] {
                on_kill(owner);
            }
        }
        self.close_gaps(ends);
    }

    /// Packs the survivors of an update cut into `spans` at the pool's front: the last live
    /// particles move into the slots freed in earlier spans, as few blocks as there are gaps.
    fn close_gaps(&mut self, spans: &[SpanEnd]) {
        let mut holes = spans
            .iter()
            .map(|s| s.base + s.live..s.base + s.len)
            .filter(|r| !r.is_empty());
        let mut sources = spans
            .iter()
            .rev()
            .map(|s| s.base..s.base + s.live)
            .filter(|r| !r.is_empty());
        let (mut hole, mut source) = (holes.next(), sources.next());
        while let (Some(h), Some(s)) = (&mut hole, &mut source) {
            if h.start >= s.end {
                // Every hole left is past every live particle.
                break;
            }
            let count = h.len().min(s.len());
            s.end -= count;
            self.live_span().move_block(s.end, h.start, count);
            h.start += count;
            if h.start == h.end {
                hole = holes.next();
            }
            if s.start == s.end {
                source = sources.next();
            }
        }
        self.alive = spans.iter().map(|s| s.live).sum();
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

/// Particles per span of [`ParticlePool::update`]: a pool of fewer than twice this many is
/// updated in one piece on the calling thread. Splitting has costs: waking a worker (about 50 us
/// on the 2-core VM the benches run on), and one move per particle that dies outside the last
/// span. With 100,000 churning particles 48K-particle spans measured faster than 16K or 32K.
pub const PARALLEL_SPAN: usize = 48 * 1024;

/// Most spans one update is cut into.
const MAX_SPANS: usize = 64;

/// What every particle of one update reads besides its own slots.
struct Step<'a> {
    dt: f32,
    forces: &'a [StepForces],
    /// The one entry of `forces` when all are equal.
    shared: Option<StepForces>,
    over_life: &'a OverLifeTable,
    /// Whether the colours and sizes were last read from `over_life` itself.
    unchanged: bool,
}

/// Where a span lay and how many of its particles survived the step.
#[derive(Clone, Copy, Debug, Default)]
struct SpanEnd {
    base: usize,
    len: usize,
    live: usize,
}

/// The same range of every column: disjoint spans can be updated on different threads. During
/// an update the span is a little pool of its own: an expired particle is replaced by the span's
/// last live one, so the survivors end up packed at the span's front.
struct Span<'a> {
    /// Pool index of the span's first particle.
    base: usize,
    /// Particles of the span alive; past them, the owners of the particles that died.
    live: usize,
    position: &'a mut [Vec3],
    velocity: &'a mut [Vec3],
    age: &'a mut [f32],
    lifetime: &'a mut [f32],
    color: &'a mut [[u16; 4]],
    size: &'a mut [f32],
    owner: &'a mut [u32],
    blend: &'a mut [BlendMode],
    /// Scratch for the span indices of the particles that expire.
    expired: &'a mut [u32],
}

/// Updates `span` cut into `ends.len()` spans (split in halves with [`rayon::join`]) and
/// describes each one in `ends`, in index order.
fn update_spans(mut span: Span<'_>, step: &Step<'_>, ends: &mut [SpanEnd]) {
    if let [only] = ends {
        span.update(step);
        *only = SpanEnd {
            base: span.base,
            len: span.len(),
            live: span.live,
        };
        return;
    }
    let left = ends.len() / 2;
    let mid = (span.len() * left / ends.len())
        .next_multiple_of(UPDATE_TILE)
        .min(span.len());
    let (first, second) = span.split_at(mid);
    let (ends_first, ends_second) = ends.split_at_mut(left);
    rayon::join(
        || update_spans(first, step, ends_first),
        || update_spans(second, step, ends_second),
    );
}

impl Span<'_> {
    fn len(&self) -> usize {
        self.age.len()
    }

    /// The particles before `mid` and the rest (every particle counted live).
    fn split_at(self, mid: usize) -> (Self, Self) {
        let len = self.len();
        let (position, position_rest) = self.position.split_at_mut(mid);
        let (velocity, velocity_rest) = self.velocity.split_at_mut(mid);
        let (age, age_rest) = self.age.split_at_mut(mid);
        let (lifetime, lifetime_rest) = self.lifetime.split_at_mut(mid);
        let (color, color_rest) = self.color.split_at_mut(mid);
        let (size, size_rest) = self.size.split_at_mut(mid);
        let (owner, owner_rest) = self.owner.split_at_mut(mid);
        let (blend, blend_rest) = self.blend.split_at_mut(mid);
        let (expired, expired_rest) = self.expired.split_at_mut(mid);
        let first = Span {
            base: self.base,
            live: mid,
            position,
            velocity,
            age,
            lifetime,
            color,
            size,
            owner,
            blend,
            expired,
        };
        let rest = Span {
            base: self.base + mid,
            live: len - mid,
            position: position_rest,
            velocity: velocity_rest,
            age: age_rest,
            lifetime: lifetime_rest,
            color: color_rest,
            size: size_rest,
            owner: owner_rest,
            blend: blend_rest,
            expired: expired_rest,
        };
        (first, rest)
    }

    /// Steps every particle of the span, tile by tile (age, integrate, colour and size), listing
    /// the expired ones, then kills those, highest index first.
    ///
    /// Killing after the whole span has been stepped means a hole is filled with the span's last
    /// live particle, stepped a moment ago and still in cache, moved whole; killing highest first
    /// means that particle is never one still to be killed. Expired particles are stepped with
    /// the rest, which keeps the passes free of branches.
    fn update(&mut self, step: &Step<'_>) {
        let mut before = [0.0; UPDATE_TILE];
        let mut expired = 0;
        for start in (0..self.len()).step_by(UPDATE_TILE) {
            let end = (start + UPDATE_TILE).min(self.len());
            for (age, before) in self.age[start..end].iter_mut().zip(before.iter_mut()) {
                *before = *age;
                *age += step.dt;
            }
            match step.shared {
                Some(f) => self.integrate_uniform(start, end, f, step.dt),
                None => self.integrate(start, end, step.forces, step.dt),
            }
            let before = step.unchanged.then_some(&before);
            self.apply_over_life(start, end, step.over_life, before);
            expired = self.list_expired(start, end, expired);
        }
        for k in (0..expired).rev() {
            self.retire(self.expired[k] as usize);
        }
    }

    /// Appends the span indices of the tile's expired particles to `expired`, which holds
    /// `count` already; returns the new count.
    ///
    /// Expiry is tested 64 particles at a time into a bit mask, so the loop branches per death
    /// rather than per particle.
    fn list_expired(&mut self, start: usize, end: usize, mut count: usize) -> usize {
        for block in (start..end).step_by(64) {
            let stop = (block + 64).min(end);
            let mut expired = expiry_mask(&self.age[block..stop], &self.lifetime[block..stop]);
            while expired != 0 {
                // Span indices fit: a span is part of a pool of at most MAX_POOL_CAPACITY.
                self.expired[count] = (block + expired.trailing_zeros() as usize) as u32;
                count += 1;
                expired &= expired - 1;
            }
        }
        count
    }

    /// Kills particle `i` by moving the span's last live particle, every column, into its slot,
    /// and leaves the killed particle's owner in the slot vacated, for [`ParticlePool::update`]
    /// to report.
    // Always inlined: the update's kill loop calls it per death, and as a call shared with
    // `swap_remove` churn measured 6% slower.
    #[inline(always)]
    fn retire(&mut self, i: usize) {
        let last = self.live - 1;
        let owner = self.owner[i];
        if i != last {
            self.position[i] = self.position[last];
            self.velocity[i] = self.velocity[last];
            self.age[i] = self.age[last];
            self.lifetime[i] = self.lifetime[last];
            self.color[i] = self.color[last];
            self.size[i] = self.size[last];
            self.owner[i] = self.owner[last];
            self.blend[i] = self.blend[last];
        }
        self.owner[last] = owner;
        self.live = last;
    }

    /// Copies `count` particles from slot `from` on to slot `to` on, every column.
    fn move_block(&mut self, from: usize, to: usize, count: usize) {
        let range = from..from + count;
        self.position.copy_within(range.clone(), to);
        self.velocity.copy_within(range.clone(), to);
        self.age.copy_within(range.clone(), to);
        self.lifetime.copy_within(range.clone(), to);
        self.color.copy_within(range.clone(), to);
        self.size.copy_within(range.clone(), to);
        self.owner.copy_within(range.clone(), to);
        self.blend.copy_within(range, to);
    }

    /// Velocity then position of each particle of the tile, with its owner's forces, in one
    /// pass, both updated in place.
    fn integrate(&mut self, start: usize, end: usize, forces: &[StepForces], dt: f32) {
        let moving = self.velocity[start..end]
            .iter_mut()
            .zip(&self.owner[start..end]);
        for ((velocity, &owner), position) in moving.zip(&mut self.position[start..end]) {
            let f = forces.get(owner as usize).copied().unwrap_or_default();
            *velocity = f.apply(*velocity);
            *position += *velocity * dt;
        }
    }

    /// [`Span::integrate`] when every owner feels the same forces (one emitter, or the world's
    /// gravity everywhere): the columns are treated as flat floats, four particles (twelve
    /// floats) at a time, so the compiler can use full vector registers. Same operations in the
    /// same order, so the same bits.
    fn integrate_uniform(&mut self, start: usize, end: usize, f: StepForces, dt: f32) {
        let g = f.gravity_dt.to_array();
        let gravity: [f32; 12] = std::array::from_fn(|k| g[k % 3]);
        let velocity: &mut [f32] = bytemuck::cast_slice_mut(&mut self.velocity[start..end]);
        let position: &mut [f32] = bytemuck::cast_slice_mut(&mut self.position[start..end]);
        let step = |v: &mut f32, p: &mut f32, g: f32| {
            *v = (*v + g) * f.damping;
            *p += *v * dt;
        };
        let mut v_quads = velocity.chunks_exact_mut(12);
        let mut p_quads = position.chunks_exact_mut(12);
        for (v, p) in (&mut v_quads).zip(&mut p_quads) {
            for ((v, p), &g) in v.iter_mut().zip(p).zip(&gravity) {
                step(v, p, g);
            }
        }
        let rest = v_quads.into_remainder().iter_mut();
        for ((v, p), &g) in rest.zip(p_quads.into_remainder()).zip(&gravity) {
            step(v, p, g);
        }
    }

    /// Reads colour and size from `over_life` for the tile `start..end`.
    ///
    /// With `before` (the ages before this step, given when the colours were last read from the
    /// same table), a particle whose age still maps to the sample it read last time is skipped:
    /// its colour and size are already right, and not storing them keeps their cache lines clean
    /// (long-lived particles change sample only every 1/255 of their life).
    fn apply_over_life(
        &mut self,
        start: usize,
        end: usize,
        over_life: &OverLifeTable,
        before: Option<&[f32; UPDATE_TILE]>,
    ) {
        let mut entries = [0u32; UPDATE_TILE];
        let entries = &mut entries[..end - start];
        // Without `before` every "previous age" reads 0, which never skips.
        let before = before.unwrap_or(&[0.0; UPDATE_TILE]);
        let ages = self.age[start..end].iter().zip(&self.lifetime[start..end]);
        for (((entry, (&age, &lifetime)), &owner), &was) in entries
            .iter_mut()
            .zip(ages)
            .zip(&self.owner[start..end])
            .zip(before)
        {
            // One division for both ages; the same reciprocal gave last step's sample, so the
            // comparison is exact.
            let per_second = 1.0 / lifetime;
            let sample = OverLifeTable::sample_offset(age * per_second);
            // Age 0 before the step means just spawned (with the spawn colour) or moved in.
            let same = (was > 0.0) & (OverLifeTable::sample_offset(was * per_second) == sample);
            // Wrapping keeps this loop free of overflow checks; an absurd owner lands outside
            // the table and keeps its colour. All ones, past any table, skips a particle whose
            // sample did not change; a mask rather than a branch keeps the loop vectorised.
            *entry = owner
                .wrapping_mul(OVER_LIFE_SAMPLES as u32)
                .wrapping_add(sample)
                | 0u32.wrapping_sub(u32::from(same));
        }
        let (colors, sizes) = (over_life.half_colors(), over_life.sizes());
        let targets = self.color[start..end]
            .iter_mut()
            .zip(&mut self.size[start..end]);
        for ((color, size), &k) in targets.zip(entries.iter()) {
            if let (Some(&c), Some(&s)) = (colors.get(k as usize), sizes.get(k as usize)) {
                *color = c;
                *size = s;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::particles::{ColorStop, SizeStop};
    use proptest::prelude::*;

    fn init(owner: u32, lifetime: f32) -> ParticleInit {
        ParticleInit {
            position: Vec3::new(owner as f32, 0.0, 0.0),
            velocity: Vec3::new(0.0, 1.0, 0.0),
            lifetime,
            color: Vec4::new(1.0, 0.5, 0.25, 1.0),
            size: 0.5,
            owner,
            blend: if owner.is_multiple_of(2) {
                BlendMode::Additive
            } else {
                BlendMode::Alpha
            },
        }
    }

    fn step(pool: &mut ParticlePool, dt: f32) -> Vec<u32> {
        let mut killed = Vec::new();
        pool.update(dt, &[], &OverLifeTable::default(), |o| killed.push(o));
        killed
    }

    #[test]
    fn spawn_packs_at_the_front_and_kill_moves_the_last_into_the_hole() {
        let mut pool = ParticlePool::with_capacity(8);
        for owner in 0..5 {
            assert_eq!(
                pool.spawn(&init(owner, 1.0), Overflow::Drop, |_| {}),
                Some(owner as usize)
            );
        }
        assert_eq!(pool.owners(), &[0, 1, 2, 3, 4]);
        assert_eq!(pool.kill(1), Some(1));
        assert_eq!(
            pool.owners(),
            &[0, 4, 2, 3],
            "the last particle fills the hole"
        );
        assert_eq!(pool.positions()[1], Vec3::new(4.0, 0.0, 0.0));
        assert_eq!(pool.kill(3), Some(3), "killing the last just shrinks");
        assert_eq!(pool.owners(), &[0, 4, 2]);
        assert_eq!(pool.kill(3), None, "slot 3 is no longer live");
        assert_eq!(pool.len(), 3);
        assert_eq!(pool.capacity(), 8);
    }

    #[test]
    fn reused_slots_are_fully_reinitialised() {
        let mut pool = ParticlePool::with_capacity(2);
        let mut over_life = OverLifeTable::default();
        let emitter = super::super::emitter::Emitter::default();
        over_life.bake(7, &emitter);
        let forces = vec![StepForces::new(Vec3::new(0.0, -10.0, 0.0), 1.0, 0.1); 8];
        pool.spawn(&init(7, 100.0), Overflow::Drop, |_| {});
        for _ in 0..10 {
            pool.update(0.1, &forces, &over_life, |_| {});
        }
        assert_ne!(
            pool.colors().next().expect("one particle"),
            init(7, 1.0).color,
            "the update changed the colour"
        );
        pool.kill(0);
        let fresh = ParticleInit {
            position: Vec3::new(5.0, 6.0, 7.0),
            ..init(8, 3.0)
        };
        pool.spawn(&fresh, Overflow::Drop, |_| {});
        assert_eq!(pool.positions(), &[fresh.position]);
        assert_eq!(
            pool.previous_positions().collect::<Vec<_>>(),
            [fresh.position]
        );
        assert_eq!(pool.velocities(), &[fresh.velocity]);
        assert_eq!(pool.ages(), &[0.0]);
        assert_eq!(pool.lifetimes(), &[3.0]);
        assert_eq!(pool.colors().collect::<Vec<_>>(), [fresh.color]);
        assert_eq!(pool.sizes(), &[fresh.size]);
        assert_eq!(pool.owners(), &[8]);
        assert_eq!(pool.blends(), &[BlendMode::Additive]);
    }

    #[test]
    fn drop_policy_refuses_and_counts() {
        let mut pool = ParticlePool::with_capacity(3);
        for owner in 0..5 {
            pool.spawn(&init(owner, 1.0), Overflow::Drop, |_| {});
        }
        assert_eq!(pool.owners(), &[0, 1, 2]);
        assert_eq!(pool.make_room(4, Overflow::Drop, |_| {}), 0);
        let stats = pool.stats();
        assert_eq!(
            stats,
            PoolStats {
                alive: 3,
                capacity: 3,
                spawned: 3,
                dropped: 6,
                replaced: 0,
                high_water: 3,
            }
        );
    }

    #[test]
    fn replace_oldest_evicts_the_oldest_first() {
        let mut pool = ParticlePool::with_capacity(4);
        // Owners 0..4 spawned one step apart: owner 0 is the oldest.
        for owner in 0..4 {
            pool.spawn(&init(owner, 100.0), Overflow::Drop, |_| {});
            step(&mut pool, 0.25);
        }
        let mut evicted = Vec::new();
        let index = pool.spawn(&init(10, 1.0), Overflow::ReplaceOldest, |o| evicted.push(o));
        assert_eq!(evicted, vec![0]);
        assert_eq!(pool.owners()[index.expect("replaced, not dropped")], 10);
        // A batch evicts as many as it is short of, oldest first, in one go.
        evicted.clear();
        assert_eq!(
            pool.make_room(2, Overflow::ReplaceOldest, |o| evicted.push(o)),
            2
        );
        evicted.sort_unstable();
        assert_eq!(evicted, vec![1, 2]);
        let mut owners = pool.owners().to_vec();
        owners.sort_unstable();
        assert_eq!(owners, vec![3, 10]);
        let stats = pool.stats();
        assert_eq!((stats.replaced, stats.dropped, stats.spawned), (3, 0, 5));
        // More than the whole pool: everything goes and the rest is dropped.
        assert_eq!(pool.make_room(9, Overflow::ReplaceOldest, |_| {}), 4);
        assert!(pool.is_empty());
        assert_eq!(pool.stats().dropped, 5);
    }

    #[test]
    fn grow_policy_doubles_up_to_its_limit_then_drops() {
        let mut pool = ParticlePool::with_capacity(2);
        let grow = Overflow::Grow { max: 5 };
        for owner in 0..7 {
            pool.spawn(&init(owner, 1.0), grow, |_| {});
        }
        let stats = pool.stats();
        assert_eq!((stats.capacity, stats.alive, stats.dropped), (5, 5, 2));
        assert_eq!(
            pool.owners(),
            &[0, 1, 2, 3, 4],
            "growing keeps the live particles"
        );
        assert!(!pool.grow_to(3), "grow_to never shrinks");
        assert!(pool.grow_to(6));
        assert_eq!(pool.capacity(), 6);
    }

    #[test]
    fn expired_particles_die_even_when_swapped_into_a_hole() {
        // Lifetimes chosen so runs of dead particles sit at tile boundaries and at the end,
        // where a swapped-in particle is itself dead.
        let n = UPDATE_TILE * 2 + 37;
        let mut pool = ParticlePool::with_capacity(n as u32);
        for i in 0..n {
            let dies = i.is_multiple_of(3)
                || i >= n - 10
                || (UPDATE_TILE - 3..UPDATE_TILE + 3).contains(&i);
            let lifetime = if dies { 0.5 } else { 2.0 };
            pool.spawn(&init(i as u32, lifetime), Overflow::Drop, |_| {});
        }
        let expected_dead = (0..n as u32)
            .filter(|&i| {
                let i = i as usize;
                i.is_multiple_of(3)
                    || i >= n - 10
                    || (UPDATE_TILE - 3..UPDATE_TILE + 3).contains(&i)
            })
            .count();
        let mut killed = step(&mut pool, 1.0);
        assert_eq!(killed.len(), expected_dead);
        killed.sort_unstable();
        killed.dedup();
        assert_eq!(killed.len(), expected_dead, "each death reported once");
        assert_eq!(pool.len(), n - expected_dead);
        assert!(
            pool.lifetimes().iter().all(|&l| l == 2.0),
            "no dead particle skipped"
        );
        assert!(
            pool.ages().iter().all(|&a| a == 1.0),
            "every survivor aged exactly once"
        );
    }

    #[test]
    fn update_integrates_and_double_buffers_positions() {
        let mut pool = ParticlePool::with_capacity(4);
        pool.spawn(&init(0, 10.0), Overflow::Drop, |_| {});
        pool.spawn(&init(1, 10.0), Overflow::Drop, |_| {});
        let forces = [
            StepForces::new(Vec3::new(0.0, -10.0, 0.0), 0.0, 0.5),
            StepForces::new(Vec3::ZERO, 2.0, 0.5),
        ];
        pool.update(0.5, &forces, &OverLifeTable::default(), |_| {});
        assert_eq!(
            pool.previous_positions().collect::<Vec<_>>(),
            [Vec3::ZERO, Vec3::X]
        );
        // Owner 0: v = 1 - 10 * 0.5 = -4, p = 0 + -4 * 0.5.
        assert_eq!(pool.velocities()[0], Vec3::new(0.0, -4.0, 0.0));
        assert_eq!(pool.positions()[0], Vec3::new(0.0, -2.0, 0.0));
        // Owner 1: v = 1 * exp(-1).
        let v = (-1.0f32).exp();
        assert!((pool.velocities()[1].y - v).abs() < 1e-6);
        assert!((pool.positions()[1] - Vec3::new(1.0, v * 0.5, 0.0)).length() < 1e-6);

        pool.update(0.5, &forces, &OverLifeTable::default(), |_| {});
        assert_eq!(
            pool.previous_positions().next(),
            Some(Vec3::new(0.0, -2.0, 0.0))
        );
        // Uniform forces take the flat path and must agree with the per-owner one.
        let mut a = ParticlePool::with_capacity(9);
        let mut b = ParticlePool::with_capacity(9);
        for owner in 0..9 {
            a.spawn(&init(owner % 2, 10.0), Overflow::Drop, |_| {});
            b.spawn(&init(owner % 2, 10.0), Overflow::Drop, |_| {});
        }
        let uniform = [forces[0]; 2];
        let single = [forces[0], StepForces::default()];
        a.update(0.5, &uniform, &OverLifeTable::default(), |_| {});
        b.update(0.5, &single, &OverLifeTable::default(), |_| {});
        for i in (0..9).step_by(2) {
            assert_eq!(a.velocities()[i], b.velocities()[i], "velocity {i}");
            assert_eq!(a.positions()[i], b.positions()[i], "position {i}");
        }
        assert_ne!(a.velocities()[1], b.velocities()[1]);
        assert_ne!(a.positions()[1], b.positions()[1]);
    }

    #[test]
    fn instances_interpolate_and_split_by_blend_mode() {
        let mut pool = ParticlePool::with_capacity(4);
        for owner in 0..3 {
            pool.spawn(&init(owner, 10.0), Overflow::Drop, |_| {});
        }
        pool.update(1.0, &[], &OverLifeTable::default(), |_| {});
        let (mut additive, mut alpha) = (Vec::new(), Vec::new());
        pool.instances(0.25, &mut additive, &mut alpha);
        assert_eq!((additive.len(), alpha.len()), (2, 1));
        assert_eq!(alpha[0].position, [1.0, 0.25, 0.0]);
        assert_eq!(alpha[0].size, 0.5);
        assert_eq!(alpha[0].color, [1.0, 0.5, 0.25, 1.0]);
        additive.clear();
        alpha.clear();
        pool.instances(7.0, &mut additive, &mut alpha);
        assert_eq!(alpha[0].position, [1.0, 1.0, 0.0], "alpha is clamped to 1");
        // Spawned after the step: drawn where it was born, whatever alpha, not behind it.
        pool.spawn(&init(3, 10.0), Overflow::Drop, |_| {});
        alpha.clear();
        pool.instances(0.25, &mut additive, &mut alpha);
        assert_eq!(alpha[1].position, [3.0, 0.0, 0.0]);
        assert_eq!(alpha[0].position, [1.0, 0.25, 0.0]);
    }

    fn curves(k: u32) -> Emitter {
        let kf = k as f32;
        Emitter {
            color_over_life: vec![
                ColorStop {
                    t: 0.0,
                    color: [1.0, 0.1 * kf, 0.0, 1.0],
                },
                ColorStop {
                    t: 0.4,
                    color: [0.2, 0.5, 0.3 * kf, 0.7],
                },
                ColorStop {
                    t: 1.0,
                    color: [0.0, 0.0, 1.0, 0.0],
                },
            ],
            size_over_life: vec![
                SizeStop { t: 0.0, size: 0.1 },
                SizeStop {
                    t: 1.0,
                    size: 1.0 + kf,
                },
            ],
            ..Emitter::default()
        }
    }

    #[test]
    fn a_rebaked_table_reaches_particles_whose_sample_did_not_change() {
        let mut table = OverLifeTable::default();
        table.bake(0, &curves(0));
        let mut pool = ParticlePool::with_capacity(4);
        pool.spawn(&init(0, 100_000.0), Overflow::Drop, |_| {});
        pool.update(1.0, &[], &table, |_| {});
        let stored = |c: Vec4| Vec4::from_array(from_half4(to_half4(c.to_array())));
        let first = stored(table.sample(0, 0.0).expect("baked").0);
        assert_eq!(pool.colors().collect::<Vec<_>>(), [first]);
        // Same sample, new colours: the particle must pick them up.
        table.bake(0, &curves(3));
        pool.update(1.0, &[], &table, |_| {});
        let second = stored(table.sample(0, 0.0).expect("baked").0);
        assert_ne!(first, second);
        assert_eq!(pool.colors().collect::<Vec<_>>(), [second]);
        // And a spawn colour is replaced even when the first step stays on sample 0.
        pool.spawn(&init(0, 100_000.0), Overflow::Drop, |_| {});
        pool.update(1.0, &[], &table, |_| {});
        assert_eq!(pool.colors().collect::<Vec<_>>(), [second, second]);
    }

    #[derive(Clone, Debug)]
    enum Op {
        Spawn { lifetime: u8, overflow: Overflow },
        Batch { count: u8, overflow: Overflow },
        Kill { pick: u16 },
        KillOwner { pick: u16 },
        Step { ticks: u8 },
    }

    fn overflow() -> impl Strategy<Value = Overflow> {
        prop_oneof![
            Just(Overflow::Drop),
            Just(Overflow::ReplaceOldest),
            (0u32..800).prop_map(|max| Overflow::Grow { max }),
        ]
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (1u8..40, overflow()).prop_map(|(lifetime, overflow)| Op::Spawn { lifetime, overflow }),
            2 => (0u8..12, overflow()).prop_map(|(count, overflow)| Op::Batch { count, overflow }),
            1 => (any::<u8>(), overflow()).prop_map(|(count, overflow)| Op::Batch { count, overflow }),
            1 => any::<u16>().prop_map(|pick| Op::Kill { pick }),
            1 => any::<u16>().prop_map(|pick| Op::KillOwner { pick }),
            2 => (1u8..8).prop_map(|ticks| Op::Step { ticks }),
        ]
    }

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Reference {
        id: u32,
        age: f32,
        lifetime: f32,
    }

    /// The pool's behaviour written the slow obvious way: a `Vec` in no particular order.
    struct Model {
        live: Vec<Reference>,
        capacity: usize,
        stats: PoolStats,
    }

    impl Model {
        fn make_room(&mut self, wanted: usize, overflow: Overflow) -> usize {
            let free = self.capacity - self.live.len();
            let room = if wanted <= free {
                wanted
            } else {
                match overflow {
                    Overflow::Drop => free,
                    Overflow::Grow { max } => {
                        let target = (self.capacity * 2)
                            .max(self.live.len() + wanted)
                            .min(max as usize);
                        self.capacity = self.capacity.max(target);
                        wanted.min(self.capacity - self.live.len())
                    }
                    Overflow::ReplaceOldest => {
                        let evict = (wanted - free).min(self.live.len());
                        self.live
                            .sort_by(|a, b| b.age.total_cmp(&a.age).then(a.id.cmp(&b.id)));
                        self.live.drain(..evict);
                        self.stats.replaced += evict as u64;
                        free + evict
                    }
                }
            };
            self.stats.dropped += (wanted - room) as u64;
            room
        }

        fn push(&mut self, id: u32, lifetime: f32) {
            self.live.push(Reference {
                id,
                age: 0.0,
                lifetime,
            });
            self.stats.spawned += 1;
            self.stats.high_water = self.stats.high_water.max(self.live.len() as u32);
        }
    }

    fn contents(pool: &ParticlePool) -> Vec<Reference> {
        let mut v: Vec<Reference> = pool
            .owners()
            .iter()
            .zip(pool.ages())
            .zip(pool.lifetimes())
            .map(|((&id, &age), &lifetime)| Reference { id, age, lifetime })
            .collect();
        v.sort_by_key(|r| r.id);
        v
    }

    /// Every column of every live particle as bits, in pool order.
    fn bits(pool: &ParticlePool) -> Vec<Vec<u32>> {
        let n = pool.len();
        (0..n)
            .map(|i| {
                let mut row: Vec<u32> = [pool.positions()[i], pool.velocities()[i]]
                    .iter()
                    .flat_map(|v| v.to_array())
                    .chain([pool.ages()[i], pool.lifetimes()[i], pool.sizes()[i]])
                    .map(f32::to_bits)
                    .collect();
                row.extend(pool.color[i].map(u32::from));
                row.extend([
                    pool.owners()[i],
                    u32::from(pool.blends()[i] == BlendMode::Alpha),
                ]);
                row
            })
            .collect()
    }

    /// A pool of `lifetimes.len()` particles with those lifetimes (in steps of 1/64 s), owners
    /// 0 to 3, every one moving differently and some already old.
    fn filled(lifetimes: &[u8]) -> ParticlePool {
        let mut pool = ParticlePool::with_capacity(lifetimes.len() as u32);
        for (k, &steps) in lifetimes.iter().enumerate() {
            let mut particle = init(k as u32 % 4, f32::from(steps.max(1)) / 64.0);
            particle.velocity = Vec3::new(k as f32 * 0.01, 1.0, -(k as f32) * 0.02);
            pool.spawn(&particle, Overflow::Drop, |_| {});
        }
        pool
    }

    proptest! {
        #[test]
        fn spans_give_the_particles_of_one_piece_whatever_the_threads(
            lifetimes in prop::collection::vec(any::<u8>(), 0..1_200),
            span_len in prop_oneof![Just(1usize), Just(64), Just(100), Just(128), Just(333)],
        ) {
            let mut table = OverLifeTable::default();
            for k in 0..3 {
                table.bake(k, &curves(k));
            }
            let forces: Vec<StepForces> = (0..4)
                .map(|k| StepForces::new(Vec3::new(0.0, -9.81 + k as f32, 0.5), 0.2 * k as f32, 1.0 / 64.0))
                .collect();
            let mut whole = filled(&lifetimes);
            let mut split = whole.clone();
            let mut serial = whole.clone();
            let one_thread = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
            let three_threads = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
            for _ in 0..6 {
                let (mut died_whole, mut died_split, mut died_serial) = (vec![], vec![], vec![]);
                whole.update_in_spans(1.0 / 64.0, &forces, &table, |o| died_whole.push(o), usize::MAX);
                three_threads.install(|| {
                    split.update_in_spans(1.0 / 64.0, &forces, &table, |o| died_split.push(o), span_len);
                });
                one_thread.install(|| {
                    serial.update_in_spans(1.0 / 64.0, &forces, &table, |o| died_serial.push(o), span_len);
                });
                // The same bits in the same order on one thread or three.
                prop_assert_eq!(bits(&split), bits(&serial));
                prop_assert_eq!(&died_split, &died_serial);
                // The same particles as stepping the pool in one piece, in another order.
                let (mut a, mut b) = (bits(&whole), bits(&split));
                a.sort_unstable();
                b.sort_unstable();
                prop_assert_eq!(a, b);
                died_whole.sort_unstable();
                died_split.sort_unstable();
                prop_assert_eq!(died_whole, died_split);
            }
        }

        #[test]
        fn expiry_mask_matches_a_bit_by_bit_loop(pairs in prop::collection::vec((0u8..8, 0u8..8), 0..=64)) {
            let age: Vec<f32> = pairs.iter().map(|p| f32::from(p.0)).collect();
            let lifetime: Vec<f32> = pairs.iter().map(|p| f32::from(p.1)).collect();
            let naive = (0..pairs.len())
                .filter(|&j| age[j] >= lifetime[j])
                .fold(0u64, |mask, j| mask | (1 << j));
            prop_assert_eq!(expiry_mask(&age, &lifetime), naive);
        }

        #[test]
        fn spawn_from_matches_sampling_one_by_one(
            seed in any::<u64>(),
            count in 0u32..200,
            room in 0u32..220,
            cone in 0.0f32..=180.0,
            angle in -3.0f32..3.0,
            scale in prop_oneof![Just(1.0f32), 0.5f32..2.0],
        ) {
            let world = Affine3A::from_scale_rotation_translation(
                Vec3::splat(scale),
                glam::Quat::from_rotation_z(angle),
                Vec3::new(1.0, -2.0, 3.0),
            );
            let emitter = Emitter {
                seed,
                cone_angle: cone,
                blend: BlendMode::Additive,
                ..Emitter::default()
            };
            let (mut fast_emitter, mut slow_emitter) = (emitter.clone(), emitter);
            let mut fast = ParticlePool::with_capacity(room);
            let mut slow = ParticlePool::with_capacity(room);
            // A particle already there must stay untouched.
            for pool in [&mut fast, &mut slow] {
                pool.spawn(&init(9, 5.0), Overflow::Drop, |_| {});
            }
            let wanted = fast.make_room(count, Overflow::Drop, |_| {});
            prop_assert_eq!(wanted, slow.make_room(count, Overflow::Drop, |_| {}));
            let spawned = fast.spawn_from(&mut fast_emitter, count, &world, 3);
            prop_assert_eq!(spawned, wanted);
            slow_emitter.sample_particles(wanted, &world, 3, |init| {
                slow.spawn(init, Overflow::Drop, |_| {});
            });
            prop_assert_eq!(fast.positions(), slow.positions());
            prop_assert!(fast.previous_positions().eq(slow.previous_positions()));
            prop_assert_eq!(fast.velocities(), slow.velocities());
            prop_assert_eq!(fast.ages(), slow.ages());
            prop_assert_eq!(fast.lifetimes(), slow.lifetimes());
            prop_assert!(fast.colors().eq(slow.colors()));
            prop_assert_eq!(fast.sizes(), slow.sizes());
            prop_assert_eq!(fast.owners(), slow.owners());
            prop_assert_eq!(fast.blends(), slow.blends());
            prop_assert_eq!(fast.stats(), slow.stats());
            // Both emitters drew the same numbers, so they go on alike.
            let next = |e: &mut Emitter| e.sample_particle(&world, 0);
            prop_assert_eq!(next(&mut fast_emitter), next(&mut slow_emitter));
        }

        #[test]
        fn skipping_unchanged_samples_matches_rereading_every_one(
            ops in prop::collection::vec(op(), 1..100),
            life_scale in prop_oneof![Just(1.0f32), Just(1_000.0f32)],
        ) {
            let mut table = OverLifeTable::default();
            for k in 0..3 {
                table.bake(k, &curves(k));
            }
            let mut kept = ParticlePool::with_capacity(300);
            let mut fresh = ParticlePool::with_capacity(300);
            let mut next_id = 0u32;
            for op in ops {
                match op {
                    Op::Spawn { lifetime, overflow } | Op::Batch { count: lifetime, overflow } => {
                        let mut particle = init(next_id % 4, f32::from(lifetime.max(1)) / 16.0 * life_scale);
                        particle.color = Vec4::splat(next_id as f32);
                        for pool in [&mut kept, &mut fresh] {
                            pool.spawn(&particle, overflow, |_| {});
                        }
                        next_id += 1;
                    }
                    Op::Kill { pick } => {
                        let index = usize::from(pick) % (kept.len() + 1);
                        prop_assert_eq!(kept.kill(index), fresh.kill(index));
                    }
                    Op::KillOwner { pick } => {
                        let owner = u32::from(pick) % 4;
                        kept.kill_where(|o| o == owner, |_| {});
                        fresh.kill_where(|o| o == owner, |_| {});
                    }
                    Op::Step { ticks } => {
                        let dt = f32::from(ticks) / 64.0;
                        kept.update(dt, &[], &table, |_| {});
                        // A clone baked again has a new stamp: every particle is re-read.
                        let mut rebaked = table.clone();
                        rebaked.bake(0, &curves(0));
                        fresh.update(dt, &[], &rebaked, |_| {});
                    }
                }
                prop_assert_eq!(kept.owners(), fresh.owners());
                prop_assert!(kept.colors().eq(fresh.colors()));
                prop_assert_eq!(kept.sizes(), fresh.sizes());
            }
        }

        #[test]
        fn pool_matches_a_naive_vec(capacity in prop_oneof![0u32..24, 200u32..700], ops in prop::collection::vec(op(), 1..120)) {
            let mut pool = ParticlePool::with_capacity(capacity);
            let mut model = Model { live: Vec::new(), capacity: capacity as usize, stats: PoolStats::default() };
            let mut next_id = 0u32;
            for op in ops {
                match op {
                    Op::Spawn { lifetime, overflow } => {
                        let lifetime = f32::from(lifetime) / 16.0;
                        let spawned = pool.spawn(&init(next_id, lifetime), overflow, |_| {});
                        let room = model.make_room(1, overflow);
                        prop_assert_eq!(spawned.is_some(), room == 1);
                        if room == 1 {
                            model.push(next_id, lifetime);
                        }
                        next_id += 1;
                    }
                    Op::Batch { count, overflow } => {
                        let room = pool.make_room(u32::from(count), overflow, |_| {});
                        prop_assert_eq!(room as usize, model.make_room(count.into(), overflow));
                        for _ in 0..room {
                            let spawned = pool.spawn(&init(next_id, 1.0), Overflow::Drop, |_| {});
                            prop_assert!(spawned.is_some());
                            model.push(next_id, 1.0);
                            next_id += 1;
                        }
                    }
                    Op::Kill { pick } => {
                        let index = usize::from(pick) % (pool.len() + 1);
                        match pool.kill(index) {
                            Some(id) => {
                                let at = model.live.iter().position(|r| r.id == id);
                                prop_assert!(at.is_some(), "killed a particle the model lacks");
                                model.live.swap_remove(at.unwrap_or_default());
                            }
                            None => prop_assert_eq!(index, pool.len()),
                        }
                    }
                    Op::KillOwner { pick } => {
                        let id = u32::from(pick) % next_id.max(1);
                        let killed = pool.kill_where(|owner| owner == id, |_| {});
                        let before = model.live.len();
                        model.live.retain(|r| r.id != id);
                        prop_assert_eq!(killed, before - model.live.len());
                    }
                    Op::Step { ticks } => {
                        let dt = f32::from(ticks) / 16.0;
                        let mut died = step(&mut pool, dt);
                        for r in &mut model.live {
                            r.age += dt;
                        }
                        let mut expected: Vec<u32> = model.live.iter().filter(|r| r.age >= r.lifetime).map(|r| r.id).collect();
                        model.live.retain(|r| r.age < r.lifetime);
                        died.sort_unstable();
                        expected.sort_unstable();
                        prop_assert_eq!(died, expected);
                    }
                }
                model.live.sort_by_key(|r| r.id);
                prop_assert_eq!(contents(&pool), model.live.clone());
                let stats = pool.stats();
                prop_assert_eq!(stats, PoolStats {
                    alive: model.live.len() as u32,
                    capacity: model.capacity as u32,
                    ..model.stats
                });
                prop_assert_eq!(pool.positions().len(), pool.len());
                prop_assert!(pool.len() <= pool.capacity());
            }
        }
    }
}
