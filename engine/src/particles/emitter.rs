//! Emitters: the serialisable description of where, how often and how particles are born,
//! plus the small runtime state (clock, rate accumulator, random generator) that makes an
//! emitter's output a pure function of its parameters, its seed and the steps it was given.
//!
//! An emitter is the spawner half of the object pool pattern: it never owns particles, it asks
//! the pool for slots and the pool decides what happens when it is full ([`Overflow`]).
//! Colour and size over life are baked into [`OverLifeTable`], a per-emitter lookup table the
//! pool's update pass indexes without branching on the number of gradient stops.

use glam::{Affine3A, Mat3A, Vec3, Vec4};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::half::to_half4;
use super::instance::BlendMode;
use super::sampler::{Cone, DRAWS_PER_PARTICLE, Draw, SAMPLE_BATCH, Sampler};
use crate::rng::SplitMix64;

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
    /// precision, see [`ParticlePool::colors`](crate::particles::ParticlePool::colors)).
    pub color: Vec4,
    /// Billboard size until the first update replaces it from the size curve.
    pub size: f32,
    /// Emitter slot the particle belongs to (an index into the step's force and curve tables).
    pub owner: u32,
    /// Blend mode it is drawn with.
    pub blend: BlendMode,
}

/// Largest pool a system may have, and the largest capacity a [`Overflow::Grow`] policy may
/// ask for: as many particles as one GPU buffer holds on every device (256 MiB, wgpu's default
/// `max_buffer_size`, of [`ParticleInstance`](super::ParticleInstance)s: 8,388,608), so every
/// particle a valid scene makes can be drawn.
pub const MAX_POOL_CAPACITY: u32 = ((256 << 20) / size_of::<super::ParticleInstance>()) as u32;

/// Samples per emitter in an [`OverLifeTable`]: a particle's colour and size change in steps of
/// 1/255 of its life, finer than a frame for any lifetime under about four seconds at 60 Hz and
/// invisible as a colour step beyond that.
pub const OVER_LIFE_SAMPLES: usize = 256;

/// What an emitter does when the pool has no free slot for a particle it wants to spawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Overflow {
    /// Refuse the new particle (the cheapest choice and rarely noticed with many particles).
    #[default]
    Drop,
    /// Kill the oldest particles in the pool (whoever owns them) to make room.
    ReplaceOldest,
    /// Grow the pool, doubling its capacity up to `max` particles, then drop.
    Grow {
        /// Capacity the pool may grow to for this emitter; at most [`MAX_POOL_CAPACITY`].
        max: u32,
    },
}

/// A one-off (or periodic) burst of particles at a point of the emitter's clock.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Burst {
    /// Seconds after the emitter started (or after the start of each period).
    pub time: f32,
    /// Particles spawned at once.
    pub count: u32,
}

/// A closed interval `min..=max` that values are drawn from uniformly.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FloatRange {
    /// Smallest value drawn.
    pub min: f32,
    /// Largest value drawn.
    pub max: f32,
}

impl FloatRange {
    /// A range from `min` to `max`.
    #[must_use]
    pub const fn new(min: f32, max: f32) -> Self {
        Self { min, max }
    }

    /// Maps `u` in `0..1` onto the range.
    #[must_use]
    pub fn lerp(self, u: f32) -> f32 {
        self.min + (self.max - self.min) * u
    }
}

/// A colour gradient stop: at normalised age `t` the particle has `color`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ColorStop {
    /// Normalised age, 0 at birth and 1 at death.
    pub t: f32,
    /// Linear RGBA; values above 1 are allowed (additive glow).
    pub color: [f32; 4],
}

/// A size curve stop: at normalised age `t` the particle's billboard is `size` units wide.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SizeStop {
    /// Normalised age, 0 at birth and 1 at death.
    pub t: f32,
    /// Edge length of the billboard in world units.
    pub size: f32,
}

/// Why an [`Emitter`] cannot be simulated: the field and the value at fault.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum ParticleError {
    /// A number is NaN or infinite.
    #[error("emitter field `{field}` must be a finite number, got {value}")]
    NotFinite {
        /// Dotted path of the field, e.g. `lifetime.min` or `color_over_life.color`.
        field: &'static str,
        /// The value found.
        value: f32,
    },
    /// A number that must not be negative is.
    #[error("emitter field `{field}` must not be negative, got {value}")]
    Negative {
        /// Dotted path of the field.
        field: &'static str,
        /// The value found.
        value: f32,
    },
    /// A number that must be strictly positive is zero or negative.
    #[error("emitter field `{field}` must be greater than zero, got {value}")]
    NotPositive {
        /// Dotted path of the field.
        field: &'static str,
        /// The value found.
        value: f32,
    },
    /// A range has its ends swapped.
    #[error("emitter range `{field}` has min {min} greater than max {max}")]
    InvertedRange {
        /// Name of the range field.
        field: &'static str,
        /// Its `min`.
        min: f32,
        /// Its `max`.
        max: f32,
    },
    /// A number lies outside the interval it must lie in.
    #[error("emitter field `{field}` must lie in {min}..={max}, got {value}")]
    OutOfRange {
        /// Dotted path of the field.
        field: &'static str,
        /// The value found.
        value: f32,
        /// Smallest value allowed.
        min: f32,
        /// Largest value allowed.
        max: f32,
    },
    /// A gradient or curve has too few or too many stops.
    #[error("emitter field `{field}` has {count} stops, it needs 2 to 4")]
    StopCount {
        /// `color_over_life` or `size_over_life`.
        field: &'static str,
        /// Number of stops found.
        count: usize,
    },
    /// A stop comes before the one preceding it.
    #[error(
        "emitter field `{field}`: stop {index} at t = {t} comes before the previous stop at t = {previous}"
    )]
    StopsUnsorted {
        /// `color_over_life` or `size_over_life`.
        field: &'static str,
        /// Index of the offending stop.
        index: usize,
        /// Its `t`.
        t: f32,
        /// The `t` of the stop before it.
        previous: f32,
    },
    /// A [`Overflow::Grow`] limit beyond [`MAX_POOL_CAPACITY`].
    #[error("emitter field `overflow.max` must be at most {limit}, got {max}")]
    GrowLimit {
        /// The `max` asked for.
        max: u32,
        /// [`MAX_POOL_CAPACITY`].
        limit: u32,
    },
}

impl ParticleError {
    /// Dotted path of the offending field, e.g. `lifetime.min`.
    pub fn field(&self) -> &'static str {
        match self {
            Self::NotFinite { field, .. }
            | Self::Negative { field, .. }
            | Self::NotPositive { field, .. }
            | Self::InvertedRange { field, .. }
            | Self::OutOfRange { field, .. }
            | Self::StopCount { field, .. }
            | Self::StopsUnsorted { field, .. } => field,
            Self::GrowLimit { .. } => "overflow.max",
        }
    }
}

/// Runtime state of an emitter: not saved, rebuilt from the seed on the first step after a load
/// or a [`Emitter::restart`].
///
/// Two states always compare equal, so that comparing emitters compares what the user authored
/// (an emitter that has been running equals its saved copy).
#[derive(Clone, Debug, Default)]
pub struct EmitterState {
    rng: SplitMix64,
    /// Seconds since the emitter started; f64 so that periodic bursts stay on time for days.
    time: f64,
    /// Fractional particles owed by `rate` that did not make a whole one yet.
    owed: f32,
    started: bool,
    /// Set once an invalid emitter has been logged, so the log is not flooded every step.
    pub(super) reported_invalid: bool,
}

impl PartialEq for EmitterState {
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

impl EmitterState {
    /// Seconds of simulation this emitter has been given since it started.
    #[must_use]
    pub fn time(&self) -> f64 {
        self.time
    }
}

/// A particle emitter: stored as a component on a scene node and stepped with that node's world
/// transform. Particles leave the node's origin inside a cone around its local +Y axis.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Emitter {
    /// Particles per second emitted continuously (fractions carry over between steps).
    pub rate: f32,
    /// Bursts on the emitter's clock.
    pub bursts: Vec<Burst>,
    /// When set, the bursts repeat every `burst_period` seconds.
    pub burst_period: Option<f32>,
    /// Lifetime of each particle in seconds, drawn uniformly.
    pub lifetime: FloatRange,
    /// Initial speed in world units per second, drawn uniformly.
    pub speed: FloatRange,
    /// Half-angle in degrees of the emission cone around the local +Y axis (0 = a straight jet,
    /// 180 = every direction).
    pub cone_angle: f32,
    /// Acceleration applied to every particle of this emitter, world space.
    pub gravity: Vec3,
    /// Linear drag per second: velocity decays as `exp(-drag * t)`.
    pub drag: f32,
    /// 2 to 4 stops of linear RGBA over normalised age, sorted by `t`.
    pub color_over_life: Vec<ColorStop>,
    /// 2 to 4 stops of billboard size over normalised age, sorted by `t`.
    pub size_over_life: Vec<SizeStop>,
    /// How the particles are composited.
    pub blend: BlendMode,
    /// Seed of the emitter's random generator: same seed, same particles.
    pub seed: u64,
    /// What to do when the pool is full.
    pub overflow: Overflow,
    /// Runtime state; never saved.
    #[serde(skip)]
    pub state: EmitterState,
}

impl Default for Emitter {
    fn default() -> Self {
        Self {
            rate: 20.0,
            bursts: Vec::new(),
            burst_period: None,
            lifetime: FloatRange::new(1.0, 2.0),
            speed: FloatRange::new(1.0, 2.0),
            cone_angle: 25.0,
            gravity: Vec3::new(0.0, -9.81, 0.0),
            drag: 0.0,
            color_over_life: vec![
                ColorStop {
                    t: 0.0,
                    color: [1.0, 1.0, 1.0, 1.0],
                },
                ColorStop {
                    t: 1.0,
                    color: [1.0, 1.0, 1.0, 0.0],
                },
            ],
            size_over_life: vec![
                SizeStop { t: 0.0, size: 0.1 },
                SizeStop { t: 1.0, size: 0.3 },
            ],
            blend: BlendMode::Alpha,
            seed: 0x5EED,
            overflow: Overflow::Drop,
            state: EmitterState::default(),
        }
    }
}

fn finite(field: &'static str, value: f32) -> Result<f32, ParticleError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(ParticleError::NotFinite { field, value })
    }
}

fn non_negative(field: &'static str, value: f32) -> Result<(), ParticleError> {
    if finite(field, value)? < 0.0 {
        return Err(ParticleError::Negative { field, value });
    }
    Ok(())
}

fn positive(field: &'static str, value: f32) -> Result<(), ParticleError> {
    if finite(field, value)? <= 0.0 {
        return Err(ParticleError::NotPositive { field, value });
    }
    Ok(())
}

fn check_stops<'a>(
    field: &'static str,
    t_field: &'static str,
    stops: impl ExactSizeIterator<Item = (f32, &'a [f32])>,
    value_field: &'static str,
) -> Result<(), ParticleError> {
    let count = stops.len();
    if !(2..=4).contains(&count) {
        return Err(ParticleError::StopCount { field, count });
    }
    let mut previous = f32::NEG_INFINITY;
    for (index, (t, values)) in stops.enumerate() {
        finite(t_field, t)?;
        if !(0.0..=1.0).contains(&t) {
            return Err(ParticleError::OutOfRange {
                field: t_field,
                value: t,
                min: 0.0,
                max: 1.0,
            });
        }
        if t < previous {
            return Err(ParticleError::StopsUnsorted {
                field,
                index,
                t,
                previous,
            });
        }
        previous = t;
        for &v in values {
            finite(value_field, v)?;
        }
    }
    Ok(())
}

impl Emitter {
    /// Checks every parameter, so that a bad value is reported by name instead of producing NaN
    /// particles.
    ///
    /// # Errors
    ///
    /// The first problem found, naming the field: a NaN or infinite number anywhere, a negative
    /// rate, speed, drag or burst time, a burst period or lifetime that is not positive, a range
    /// with `min > max`, a cone angle outside `0..=180`, a gradient with fewer than 2 or more than
    /// 4 stops, stops outside `0..=1` or out of order, negative sizes, or a grow limit above
    /// [`MAX_POOL_CAPACITY`].
    pub fn validate(&self) -> Result<(), ParticleError> {
        non_negative("rate", self.rate)?;
        for burst in &self.bursts {
            non_negative("bursts.time", burst.time)?;
        }
        if let Some(period) = self.burst_period {
            positive("burst_period", period)?;
        }
        positive("lifetime.min", self.lifetime.min)?;
        positive("lifetime.max", self.lifetime.max)?;
        if self.lifetime.min > self.lifetime.max {
            return Err(ParticleError::InvertedRange {
                field: "lifetime",
                min: self.lifetime.min,
                max: self.lifetime.max,
            });
        }
        non_negative("speed.min", self.speed.min)?;
        non_negative("speed.max", self.speed.max)?;
        if self.speed.min > self.speed.max {
            return Err(ParticleError::InvertedRange {
                field: "speed",
                min: self.speed.min,
                max: self.speed.max,
            });
        }
        if !(0.0..=180.0).contains(&finite("cone_angle", self.cone_angle)?) {
            return Err(ParticleError::OutOfRange {
                field: "cone_angle",
                value: self.cone_angle,
                min: 0.0,
                max: 180.0,
            });
        }
        finite("gravity.x", self.gravity.x)?;
        finite("gravity.y", self.gravity.y)?;
        finite("gravity.z", self.gravity.z)?;
        non_negative("drag", self.drag)?;
        check_stops(
            "color_over_life",
            "color_over_life.t",
            self.color_over_life
                .iter()
                .map(|s| (s.t, s.color.as_slice())),
            "color_over_life.color",
        )?;
        check_stops(
            "size_over_life",
            "size_over_life.t",
            self.size_over_life
                .iter()
                .map(|s| (s.t, std::slice::from_ref(&s.size))),
            "size_over_life.size",
        )?;
        for stop in &self.size_over_life {
            non_negative("size_over_life.size", stop.size)?;
        }
        if let Overflow::Grow { max } = self.overflow
            && max > MAX_POOL_CAPACITY
        {
            return Err(ParticleError::GrowLimit {
                max,
                limit: MAX_POOL_CAPACITY,
            });
        }
        Ok(())
    }

    /// Forgets the runtime state: the clock goes back to 0 and the generator to the seed, so the
    /// emitter replays exactly what it emitted the first time.
    pub fn restart(&mut self) {
        self.state = EmitterState::default();
    }

    fn ensure_started(&mut self) {
        if !self.state.started {
            self.state = EmitterState {
                rng: SplitMix64::new(self.seed),
                time: 0.0,
                owed: 0.0,
                started: true,
                reported_invalid: false,
            };
        }
    }

    /// Advances the emitter's clock by `dt` seconds and returns how many particles are due in
    /// that interval: the whole part of what `rate` owes plus every burst whose time falls in
    /// `[clock, clock + dt)`.
    ///
    /// The emitter must be valid ([`Emitter::validate`]); an invalid one yields nonsense counts
    /// but never panics.
    pub fn advance(&mut self, dt: f32) -> u32 {
        self.ensure_started();
        let start = self.state.time;
        let end = start + f64::from(dt);
        self.state.time = end;

        let owed = self.state.owed + self.rate * dt;
        let whole = owed.floor();
        self.state.owed = owed - whole;
        let mut due = u64::from(whole.clamp(0.0, u32::MAX as f32) as u32);

        for burst in &self.bursts {
            let fired = bursts_before(burst.time, self.burst_period, end)
                - bursts_before(burst.time, self.burst_period, start);
            due = due.saturating_add(fired.saturating_mul(u64::from(burst.count)));
        }
        u32::try_from(due).unwrap_or(u32::MAX)
    }

    /// Draws one new particle from the emitter's distributions, placed at the origin of `world`
    /// and heading into the cone around `world`'s +Y axis, filed under `owner`.
    pub fn sample_particle(&mut self, world: &Affine3A, owner: u32) -> ParticleInit {
        let mut drawn = None;
        self.sample_particles(1, world, owner, |init| drawn = Some(*init));
        // A batch of one always reaches the sink; the fallback only keeps this function total.
        drawn.unwrap_or_else(|| ParticleInit {
            position: Vec3::from(world.translation),
            velocity: Vec3::ZERO,
            lifetime: self.lifetime.min,
            color: self.color_at(0.0),
            size: self.size_at(0.0),
            owner,
            blend: self.blend,
        })
    }

    /// Draws `count` new particles (see [`Emitter::sample_particle`]) and hands each to `sink`.
    ///
    /// Works in batches of [`SAMPLE_BATCH`]: the random numbers are drawn first, then the
    /// directions computed for the whole batch in one branch-free loop the compiler vectorises.
    /// Only `+ - * /` and square roots are used, so the same seed gives the same bits on every
    /// platform (a library `sin` need not).
    pub fn sample_particles(
        &mut self,
        count: u32,
        world: &Affine3A,
        owner: u32,
        mut sink: impl FnMut(&ParticleInit),
    ) {
        let mut init = ParticleInit {
            position: Vec3::from(world.translation),
            velocity: Vec3::ZERO,
            lifetime: 0.0,
            color: self.color_at(0.0),
            size: self.size_at(0.0),
            owner,
            blend: self.blend,
        };
        let draw = Draw {
            cone: self.cone(world),
            speed: self.speed,
            lifetime: self.lifetime,
        };
        let mut velocity = [Vec3::ZERO; SAMPLE_BATCH];
        let mut lifetime = [0.0f32; SAMPLE_BATCH];
        let mut left = count as usize;
        while left > 0 {
            let n = left.min(SAMPLE_BATCH);
            draw.batch(&mut self.state.rng, &mut velocity[..n], &mut lifetime[..n]);
            for (&v, &l) in velocity[..n].iter().zip(&lifetime[..n]) {
                init.velocity = v;
                init.lifetime = l;
                sink(&init);
            }
            left -= n;
        }
    }

    /// Draws the velocities and lifetimes of `velocity.len().min(lifetime.len())` new particles
    /// straight into those slices: the same numbers, in the same order, as
    /// [`Emitter::sample_particles`] would hand out, without building a [`ParticleInit`] per
    /// particle. The pool spawns whole batches through this.
    ///
    /// The generator's state advances by a constant per draw, so a later part of the batch can
    /// start from its own state without drawing what comes before: batches of at least twice
    /// [`PARALLEL_SAMPLES`](super::PARALLEL_SAMPLES) are split across rayon's workers, with the same result.
    pub fn sample_into(&mut self, world: &Affine3A, velocity: &mut [Vec3], lifetime: &mut [f32]) {
        let n = velocity.len().min(lifetime.len());
        self.take(world, n as u32)
            .fill(&mut velocity[..n], &mut lifetime[..n]);
    }

    /// Takes the random draws of the next `count` particles emitted from `world`: the emitter
    /// moves past them at once, and [`Sampler::fill`] turns them into velocities and lifetimes
    /// later, bit for bit those [`Emitter::sample_into`] would have drawn now.
    pub fn take(&mut self, world: &Affine3A, count: u32) -> Sampler {
        let draw = Draw {
            cone: self.cone(world),
            speed: self.speed,
            lifetime: self.lifetime,
        };
        let rng = self.state.rng;
        self.state.rng.skip(DRAWS_PER_PARTICLE * u64::from(count));
        Sampler {
            draw,
            rng,
            count: count as usize,
        }
    }

    /// What every batch drawn for `world` shares.
    fn cone(&mut self, world: &Affine3A) -> Cone {
        self.ensure_started();
        let basis = world.matrix3;
        Cone {
            cap_height: 1.0 - crate::math::cos(self.cone_angle.to_radians()),
            basis,
            // Scale on the node must not change the speed the designer typed in; a pure
            // rotation keeps unit vectors unit, so only other matrices pay for a normalisation
            // per particle.
            rotation_only: (basis.transpose() * basis).abs_diff_eq(Mat3A::IDENTITY, 1e-5),
        }
    }

    /// Colour at normalised age `t`, by linear interpolation between the stops (held constant
    /// before the first and after the last).
    #[must_use]
    pub fn color_at(&self, t: f32) -> Vec4 {
        piecewise_linear(
            self.color_over_life
                .iter()
                .map(|s| (s.t, Vec4::from_array(s.color))),
            t,
        )
        .unwrap_or(Vec4::ONE)
    }

    /// Size at normalised age `t`, by linear interpolation between the stops.
    #[must_use]
    pub fn size_at(&self, t: f32) -> f32 {
        piecewise_linear(self.size_over_life.iter().map(|s| (s.t, s.size)), t).unwrap_or(0.0)
    }
}

/// How many bursts scheduled at `time` (+ k * `period`) happen strictly before `clock`.
fn bursts_before(time: f32, period: Option<f32>, clock: f64) -> u64 {
    let time = f64::from(time);
    if clock <= time {
        return 0;
    }
    match period {
        // Float-to-int `as` saturates, so an absurd clock cannot wrap.
        Some(p) if p > 0.0 => ((clock - time) / f64::from(p)).ceil() as u64,
        _ => 1,
    }
}

fn piecewise_linear<T>(stops: impl Iterator<Item = (f32, T)>, t: f32) -> Option<T>
where
    T: Copy
        + std::ops::Sub<Output = T>
        + std::ops::Mul<f32, Output = T>
        + std::ops::Add<Output = T>,
{
    let mut previous: Option<(f32, T)> = None;
    for (st, value) in stops {
        match previous {
            None if t <= st => return Some(value),
            Some((pt, pv)) if t <= st => {
                let width = st - pt;
                let f = if width > 0.0 { (t - pt) / width } else { 1.0 };
                return Some(pv + (value - pv) * f);
            }
            _ => previous = Some((st, value)),
        }
    }
    previous.map(|(_, v)| v)
}

/// Colour and size over life for a set of emitters, sampled at [`OVER_LIFE_SAMPLES`] evenly
/// spaced normalised ages: the update pass reads one entry per particle instead of searching
/// 2 to 4 stops, whatever the gradient.
#[derive(Clone, Debug, Default)]
pub struct OverLifeTable {
    colors: Vec<Vec4>,
    /// `colors` as halves, the form the pool stores.
    half_colors: Vec<[u16; 4]>,
    sizes: Vec<f32>,
    stamp: u64,
}

impl OverLifeTable {
    /// A table with room for `slots` emitters (more are added by [`OverLifeTable::bake`]).
    #[must_use]
    pub fn with_slots(slots: usize) -> Self {
        Self {
            colors: Vec::with_capacity(slots * OVER_LIFE_SAMPLES),
            half_colors: Vec::with_capacity(slots * OVER_LIFE_SAMPLES),
            sizes: Vec::with_capacity(slots * OVER_LIFE_SAMPLES),
            stamp: 0,
        }
    }

    /// Number of emitter slots the table holds.
    #[must_use]
    pub fn slots(&self) -> usize {
        self.sizes.len() / OVER_LIFE_SAMPLES
    }

    /// Samples `emitter`'s colour and size curves into `slot`, growing the table if needed.
    pub fn bake(&mut self, slot: u32, emitter: &Emitter) {
        let start = slot as usize * OVER_LIFE_SAMPLES;
        let end = start + OVER_LIFE_SAMPLES;
        if self.sizes.len() < end {
            self.colors.resize(end, Vec4::ZERO);
            self.half_colors.resize(end, [0; 4]);
            self.sizes.resize(end, 0.0);
        }
        let last = (OVER_LIFE_SAMPLES - 1) as f32;
        for (k, (color, size)) in self.colors[start..end]
            .iter_mut()
            .zip(&mut self.sizes[start..end])
            .enumerate()
        {
            let t = k as f32 / last;
            *color = emitter.color_at(t);
            *size = emitter.size_at(t);
        }
        for (half, color) in self.half_colors[start..end]
            .iter_mut()
            .zip(&self.colors[start..end])
        {
            *half = to_half4(color.to_array());
        }
        self.stamp = crate::identity::fresh();
    }

    /// Identifies the table's contents: a new value after every [`OverLifeTable::bake`], unique
    /// across tables (a clone shares its original's until either is baked again). Tables never
    /// baked share stamp 0 and are all empty. Lets the pool skip particles whose sample did not
    /// change since it last read this same table.
    #[must_use]
    pub fn stamp(&self) -> u64 {
        self.stamp
    }

    /// Index of the entry for normalised age `t` (nearest sample; ages past 1 read the last).
    #[inline]
    #[must_use]
    pub fn sample_index(slot: u32, t: f32) -> usize {
        slot as usize * OVER_LIFE_SAMPLES + Self::sample_offset(t) as usize
    }

    /// Nearest sample to normalised age `t` within a slot, `0..OVER_LIFE_SAMPLES` (NaN reads the
    /// last sample).
    ///
    /// Adding 2^23 to a float in `0..2^23` leaves its value rounded to the nearest integer in the
    /// low mantissa bits: a float add and an integer subtract that vectorise, where a float to
    /// integer cast needs per-lane fix-ups for NaN and overflow.
    #[inline]
    #[must_use]
    pub fn sample_offset(t: f32) -> u32 {
        const ROUNDER: f32 = 8_388_608.0;
        let last = (OVER_LIFE_SAMPLES - 1) as f32;
        let k = (t * last).min(last).max(0.0);
        (k + ROUNDER).to_bits() - ROUNDER.to_bits()
    }

    /// Colour and size of `slot` at normalised age `t`, or `None` for a slot never baked.
    #[must_use]
    pub fn sample(&self, slot: u32, t: f32) -> Option<(Vec4, f32)> {
        let i = Self::sample_index(slot, t);
        Some((*self.colors.get(i)?, *self.sizes.get(i)?))
    }

    /// Every colour sample, slot after slot.
    #[must_use]
    pub fn colors(&self) -> &[Vec4] {
        &self.colors
    }

    /// Every colour sample as halves (`to_half4`), slot after
    /// slot: what the pool stores.
    #[must_use]
    pub fn half_colors(&self) -> &[[u16; 4]] {
        &self.half_colors
    }

    /// Every size sample, slot after slot.
    #[must_use]
    pub fn sizes(&self) -> &[f32] {
        &self.sizes
    }
}

#[cfg(test)]
mod tests;
