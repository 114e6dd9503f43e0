//! The pool's step: every live particle aged, killed or moved and given its
//! colour and size, tile by tile, a large pool cut into spans stepped on
//! several cores, each span packing its survivors, the gaps between spans
//! closed after.

use super::*;

impl ParticlePool {
    /// Moves the last live particle into slot `i` (a copy: the vacated slot is dead and will be
    /// fully rewritten by the next spawn).
    pub(super) fn swap_remove(&mut self, i: usize) {
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
    pub(super) fn update_in_spans(
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
