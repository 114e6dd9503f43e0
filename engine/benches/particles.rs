//! Particle simulation: the struct-of-arrays pool against the object-per-particle design it
//! replaces, in the same groups so the ratios come from one run.
//!
//! - `update/*/1000000`: one fixed step of a million live particles from four emitters (each
//!   with its own gravity, drag and curves). Particles live for a million seconds and no emitter
//!   is stepped, so the measured step ages, integrates and shades every particle and spawns or
//!   kills none; the population stays at exactly one million for every iteration. With such
//!   lifetimes no particle reaches a new over-life sample between steps, so the pool's dirty
//!   check stores no colour or size (its best case; `churn` is its worst, every particle moving
//!   to a new sample each step).
//! - `churn/*/100000`: one fixed step of a full 100,000-particle population in which every
//!   particle lives exactly ten steps, so each step 10% die and emitters spawn as many again.
//!
//! The pool runs as the app runs it: this thread joins rayon's pool ([`keel_engine::join_pool`]) and
//! a big enough update or spawn is split across the cores. `*/pool_1thread/*` measures the same
//! step inside a one-thread pool, so the ratio to the boxed twin (which is single-threaded) can
//! be read for the data layout alone too.
//!
//! The boxed twin is the textbook object design: `Vec<Box<Particle>>`, one heap object per
//! particle holding every field plus an `in_use` flag, created one by one between other
//! allocations and visited in an order unrelated to memory, as in a heap that has been running
//! for a while. It runs the same maths through the same public helpers ([`StepForces::apply`],
//! [`OverLifeTable::sample`], [`Emitter::sample_particles`]).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use glam::{Affine3A, Quat, Vec3, Vec4};
use keel_engine::Emitter;
use keel_engine::join_pool;
use keel_engine::particles::{
    BlendMode, Burst, ColorStop, FloatRange, OverLifeTable, Overflow, ParticleInit, ParticleSystem,
    SizeStop, StepForces,
};

const DT: f32 = 1.0 / 60.0;
const UPDATE_COUNT: u32 = 1_000_000;
const CHURN_COUNT: u32 = 100_000;
/// Steps a churn particle lives: one in ten dies every step.
const CHURN_LIFE_STEPS: f32 = 10.0;

/// Four emitters that differ in every per-emitter parameter the update reads.
fn emitters(lifetime: FloatRange, rate: f32, burst: u32) -> Vec<Emitter> {
    (0..4u8)
        .map(|k| {
            let kf = f32::from(k);
            Emitter {
                rate,
                bursts: vec![Burst {
                    time: 0.0,
                    count: burst,
                }],
                lifetime,
                speed: FloatRange::new(1.0, 3.0 + kf),
                cone_angle: 20.0 + 30.0 * kf,
                gravity: Vec3::new(0.1 * kf, -9.81 + kf, 0.0),
                drag: 0.1 * kf,
                color_over_life: vec![
                    ColorStop {
                        t: 0.0,
                        color: [1.0, 0.5 + 0.1 * kf, 0.1, 1.0],
                    },
                    ColorStop {
                        t: 0.3 + 0.1 * kf,
                        color: [1.0, 0.2, 0.1 * kf, 0.8],
                    },
                    ColorStop {
                        t: 1.0,
                        color: [0.2, 0.2, 0.2, 0.0],
                    },
                ],
                size_over_life: vec![
                    SizeStop { t: 0.0, size: 0.1 },
                    SizeStop {
                        t: 1.0,
                        size: 0.5 + kf,
                    },
                ],
                blend: if k % 2 == 0 {
                    BlendMode::Additive
                } else {
                    BlendMode::Alpha
                },
                seed: 0xC0FFEE + u64::from(k),
                overflow: Overflow::Drop,
                ..Emitter::default()
            }
        })
        .collect()
}

fn worlds() -> [Affine3A; 4] {
    [0.0f32, 1.0, 2.0, 3.0].map(|k| {
        Affine3A::from_rotation_translation(
            Quat::from_rotation_x(0.3 * k),
            Vec3::new(10.0 * k, 0.0, -5.0 * k),
        )
    })
}

fn step_all(system: &mut ParticleSystem, emitters: &mut [Emitter], worlds: &[Affine3A; 4]) {
    let stepped = emitters
        .iter_mut()
        .zip(worlds)
        .enumerate()
        .map(|(k, (e, w))| (k as u32, e, *w));
    system.step(DT, stepped);
}

/// Runs `step` `iters` times inside a pool of one thread (no split reaches another core) and
/// returns the time taken.
fn on_one_thread(iters: u64, mut step: impl FnMut() + Send) -> Duration {
    let single = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    single.install(|| {
        let start = Instant::now();
        for _ in 0..iters {
            step();
        }
        start.elapsed()
    })
}

/// The object a naive engine allocates per particle.
struct Particle {
    position: Vec3,
    previous: Vec3,
    velocity: Vec3,
    age: f32,
    lifetime: f32,
    color: Vec4,
    size: f32,
    owner: u32,
    blend: BlendMode,
    in_use: bool,
}

impl Particle {
    fn boxed(init: &ParticleInit) -> Box<Self> {
        Box::new(Self {
            position: init.position,
            previous: init.position,
            velocity: init.velocity,
            age: 0.0,
            lifetime: init.lifetime,
            color: init.color,
            size: init.size,
            owner: init.owner,
            blend: init.blend,
            in_use: true,
        })
    }
}

/// Deterministic xorshift for the heap scrambling (not part of what is measured).
struct Scramble(u64);

impl Scramble {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Boxed particles plus the unrelated allocations they were born among.
struct BoxedWorld {
    #[expect(
        clippy::vec_box,
        reason = "one heap object per particle is the layout being measured"
    )]
    particles: Vec<Box<Particle>>,
    _garbage: Vec<Box<[u8]>>,
    forces: Vec<StepForces>,
    over_life: OverLifeTable,
}

impl BoxedWorld {
    fn new(emitters: &[Emitter]) -> Self {
        let mut over_life = OverLifeTable::default();
        for (slot, e) in emitters.iter().enumerate() {
            over_life.bake(slot as u32, e);
        }
        Self {
            particles: Vec::new(),
            _garbage: Vec::new(),
            forces: emitters
                .iter()
                .map(|e| StepForces::new(e.gravity, e.drag, DT))
                .collect(),
            over_life,
        }
    }

    /// Spawns `count` particles per emitter between garbage allocations of 16 to 512 bytes, half
    /// of which are freed again at once, then shuffles the visiting order.
    fn scatter(&mut self, emitters: &mut [Emitter], worlds: &[Affine3A; 4], count: u32) {
        let mut rng = Scramble(0x9E37_79B9_7F4A_7C15);
        let mut garbage = Vec::new();
        for i in 0..count * emitters.len() as u32 {
            let k = (i as usize) % emitters.len();
            let init = emitters[k].sample_particle(&worlds[k], k as u32);
            self.particles.push(Particle::boxed(&init));
            for _ in 0..1 + rng.next() % 3 {
                let bytes = 16 + (rng.next() % 497) as usize;
                let block = vec![0u8; bytes].into_boxed_slice();
                if rng.next().is_multiple_of(2) {
                    garbage.push(block);
                }
            }
        }
        self.shuffle(&mut rng);
        self._garbage = garbage;
    }

    /// Visits the objects in an order unrelated to their addresses.
    fn shuffle(&mut self, rng: &mut Scramble) {
        for i in (1..self.particles.len()).rev() {
            let j = (rng.next() % (i as u64 + 1)) as usize;
            self.particles.swap(i, j);
        }
    }

    /// The same step as the pool's, object by object; the dead are removed (and freed) after
    /// the loop and new objects allocated for the spawns.
    fn step(&mut self, emitters: &mut [Emitter], worlds: &[Affine3A; 4], spawn: bool) {
        for p in &mut self.particles {
            if !p.in_use {
                continue;
            }
            p.previous = p.position;
            p.age += DT;
            if p.age >= p.lifetime {
                p.in_use = false;
                continue;
            }
            let f = self
                .forces
                .get(p.owner as usize)
                .copied()
                .unwrap_or_default();
            p.velocity = f.apply(p.velocity);
            p.position = p.previous + p.velocity * DT;
            if let Some((color, size)) = self.over_life.sample(p.owner, p.age / p.lifetime) {
                p.color = color;
                p.size = size;
            }
        }
        self.particles.retain(|p| p.in_use);
        if spawn {
            for (k, (e, w)) in emitters.iter_mut().zip(worlds).enumerate() {
                let due = e.advance(DT);
                e.sample_particles(due, w, k as u32, |init| {
                    self.particles.push(Particle::boxed(init));
                });
            }
        }
    }

    fn checksum(&self) -> f32 {
        self.particles
            .iter()
            .map(|p| p.position.x + p.size + f32::from(u8::from(p.blend == BlendMode::Alpha)))
            .sum()
    }
}

fn update(c: &mut Criterion) {
    // Criterion measures on this thread, as the app runs fixed updates on its main thread.
    join_pool();
    let mut group = c.benchmark_group("particles");
    group.sample_size(20);
    let forever = FloatRange::new(1.0e6, 1.0e6);
    let worlds = worlds();

    let mut emitters_pool = emitters(forever, 0.0, UPDATE_COUNT / 4);
    let mut system = ParticleSystem::new(UPDATE_COUNT);
    step_all(&mut system, &mut emitters_pool, &worlds);
    assert_eq!(system.stats().alive, UPDATE_COUNT);
    group.bench_function(BenchmarkId::new("update/pool", UPDATE_COUNT), |b| {
        b.iter(|| system.step(black_box(DT), std::iter::empty()));
    });
    group.bench_function(BenchmarkId::new("update/pool_1thread", UPDATE_COUNT), |b| {
        b.iter_custom(|iters| on_one_thread(iters, || system.step(DT, std::iter::empty())));
    });
    assert_eq!(system.stats().alive, UPDATE_COUNT, "no particle may die");
    drop(system);

    let mut emitters_boxed = emitters(forever, 0.0, 0);
    let mut boxed = BoxedWorld::new(&emitters_boxed);
    boxed.scatter(&mut emitters_boxed, &worlds, UPDATE_COUNT / 4);
    group.bench_function(BenchmarkId::new("update/boxed", UPDATE_COUNT), |b| {
        b.iter(|| boxed.step(&mut emitters_boxed, &worlds, false));
    });
    assert_eq!(boxed.particles.len(), UPDATE_COUNT as usize);
    black_box(boxed.checksum());
    group.finish();
}

fn churn(c: &mut Criterion) {
    let mut group = c.benchmark_group("particles");
    let life = FloatRange::new((CHURN_LIFE_STEPS - 0.5) * DT, (CHURN_LIFE_STEPS - 0.5) * DT);
    let per_step = CHURN_COUNT as f32 / CHURN_LIFE_STEPS / 4.0;
    let rate = per_step / DT;
    let worlds = worlds();

    let mut emitters_pool = emitters(life, rate, 0);
    let mut system = ParticleSystem::new(CHURN_COUNT);
    for _ in 0..3 * CHURN_LIFE_STEPS as usize {
        step_all(&mut system, &mut emitters_pool, &worlds);
    }
    let before = system.stats();
    group.bench_function(BenchmarkId::new("churn/pool", CHURN_COUNT), |b| {
        b.iter(|| step_all(&mut system, &mut emitters_pool, &worlds));
    });
    group.bench_function(BenchmarkId::new("churn/pool_1thread", CHURN_COUNT), |b| {
        b.iter_custom(|iters| {
            on_one_thread(iters, || step_all(&mut system, &mut emitters_pool, &worlds))
        });
    });
    let after = system.stats();
    assert!(after.spawned > before.spawned && after.alive >= CHURN_COUNT * 99 / 100);

    let mut emitters_boxed = emitters(life, rate, 0);
    let mut boxed = BoxedWorld::new(&emitters_boxed);
    let mut rng = Scramble(7);
    let mut garbage = Vec::new();
    for _ in 0..3 * CHURN_LIFE_STEPS as usize {
        boxed.step(&mut emitters_boxed, &worlds, true);
        // The rest of the game allocates too while the first generations are born.
        for _ in 0..CHURN_COUNT / 10 {
            let block = vec![0u8; 16 + (rng.next() % 497) as usize].into_boxed_slice();
            if rng.next().is_multiple_of(2) {
                garbage.push(block);
            }
        }
    }
    boxed.shuffle(&mut rng);
    group.bench_function(BenchmarkId::new("churn/boxed", CHURN_COUNT), |b| {
        b.iter(|| boxed.step(&mut emitters_boxed, &worlds, true));
    });
    assert!(boxed.particles.len() >= CHURN_COUNT as usize * 99 / 100);
    black_box((boxed.checksum(), garbage.len()));
    group.finish();
}

criterion_group!(particles, update, churn);
criterion_main!(particles);
