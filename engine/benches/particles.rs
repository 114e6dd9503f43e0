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
//! step inside a one-thread pool.
//!
//! The naive twin is what a competent programmer writes first: `Vec<Particle>`, one struct per
//! particle holding every field, in creation order, updated with rayon's `par_iter_mut` on the
//! same cores as the pool, the dead removed with `retain` and the new pushed at the end. It runs
//! the same maths through the same public helpers ([`StepForces::apply`],
//! [`OverLifeTable::sample`], [`Emitter::sample_particles`]), and before it is timed it is
//! checked to hold the same particles as the pool (count, and the sum of positions and sizes).
//! `*/naive_1thread/*` runs it in a one-thread pool, against `pool_1thread`: the data layout
//! alone.

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

/// One particle, every field in one struct.
#[derive(Clone, Copy)]
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
}

impl Particle {
    fn new(init: &ParticleInit) -> Self {
        Self {
            position: init.position,
            previous: init.position,
            velocity: init.velocity,
            age: 0.0,
            lifetime: init.lifetime,
            color: init.color,
            size: init.size,
            owner: init.owner,
            blend: init.blend,
        }
    }
}

/// The naive twin's particles and the per-emitter tables, built once.
struct NaiveWorld {
    particles: Vec<Particle>,
    forces: Vec<StepForces>,
    over_life: OverLifeTable,
}

impl NaiveWorld {
    fn new(emitters: &[Emitter]) -> Self {
        let mut over_life = OverLifeTable::default();
        for (slot, e) in emitters.iter().enumerate() {
            over_life.bake(slot as u32, e);
        }
        Self {
            particles: Vec::new(),
            forces: emitters
                .iter()
                .map(|e| StepForces::new(e.gravity, e.drag, DT))
                .collect(),
            over_life,
        }
    }

    /// The pool's step, particle by particle on every core: age and kill,
    /// integrate, shade; then the dead removed and the emitters' new
    /// particles pushed.
    fn step(&mut self, emitters: &mut [Emitter], worlds: &[Affine3A; 4]) {
        use rayon::prelude::*;
        let (forces, over_life) = (&self.forces, &self.over_life);
        self.particles.par_iter_mut().for_each(|p| {
            p.previous = p.position;
            p.age += DT;
            if p.age >= p.lifetime {
                return;
            }
            let f = forces.get(p.owner as usize).copied().unwrap_or_default();
            p.velocity = f.apply(p.velocity);
            p.position = p.previous + p.velocity * DT;
            if let Some((color, size)) = over_life.sample(p.owner, p.age / p.lifetime) {
                p.color = color;
                p.size = size;
            }
        });
        self.particles.retain(|p| p.age < p.lifetime);
        for (k, (e, w)) in emitters.iter_mut().zip(worlds).enumerate() {
            let due = e.advance(DT);
            e.sample_particles(due, w, k as u32, |init| {
                self.particles.push(Particle::new(init));
            });
        }
    }

    /// Count, and the sums of positions and sizes (f64, so the order barely matters).
    fn summary(&self) -> (usize, f64, f64) {
        let sum =
            |f: &dyn Fn(&Particle) -> f32| self.particles.iter().map(|p| f64::from(f(p))).sum();
        (
            self.particles.len(),
            sum(&|p| p.position.x + p.position.y + p.position.z),
            sum(&|p| p.size + f32::from(u8::from(p.blend == BlendMode::Alpha))),
        )
    }
}

/// The pool's particles summed as [`NaiveWorld::summary`] does.
fn pool_summary(system: &ParticleSystem) -> (usize, f64, f64) {
    let pool = system.pool();
    let positions: f64 = pool
        .positions()
        .iter()
        .map(|p| f64::from(p.x + p.y + p.z))
        .sum();
    let sizes: f64 = pool
        .sizes()
        .iter()
        .zip(pool.blends())
        .map(|(s, b)| f64::from(s + f32::from(u8::from(*b == BlendMode::Alpha))))
        .sum();
    (pool.len(), positions, sizes)
}

/// Fails unless the twin holds what the pool does (the same particles, maybe in another order).
fn assert_same(system: &ParticleSystem, naive: &NaiveWorld, what: &str) {
    let (a, b) = (pool_summary(system), naive.summary());
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-6 * x.abs().max(y.abs()).max(1.0);
    assert!(
        a.0 == b.0 && close(a.1, b.1) && close(a.2, b.2),
        "{what}: the pool holds {a:?}, the naive twin {b:?}"
    );
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
    let mut emitters_naive = emitters(forever, 0.0, UPDATE_COUNT / 4);
    let mut naive = NaiveWorld::new(&emitters_naive);
    naive.step(&mut emitters_naive, &worlds);
    // One more step each, then the same particles.
    step_all(&mut system, &mut emitters_pool, &worlds);
    naive.step(&mut emitters_naive, &worlds);
    assert_same(&system, &naive, "update");
    group.bench_function(BenchmarkId::new("update/pool", UPDATE_COUNT), |b| {
        b.iter(|| system.step(black_box(DT), std::iter::empty()));
    });
    group.bench_function(BenchmarkId::new("update/pool_1thread", UPDATE_COUNT), |b| {
        b.iter_custom(|iters| on_one_thread(iters, || system.step(DT, std::iter::empty())));
    });
    assert_eq!(system.stats().alive, UPDATE_COUNT, "no particle may die");
    drop(system);
    let mut none: [Emitter; 0] = [];
    group.bench_function(BenchmarkId::new("update/naive", UPDATE_COUNT), |b| {
        b.iter(|| naive.step(&mut none, &worlds));
    });
    group.bench_function(
        BenchmarkId::new("update/naive_1thread", UPDATE_COUNT),
        |b| {
            b.iter_custom(|iters| on_one_thread(iters, || naive.step(&mut none, &worlds)));
        },
    );
    assert_eq!(naive.particles.len(), UPDATE_COUNT as usize);
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

    let mut emitters_naive = emitters(life, rate, 0);
    let mut naive = NaiveWorld::new(&emitters_naive);
    for _ in 0..3 * CHURN_LIFE_STEPS as usize {
        naive.step(&mut emitters_naive, &worlds);
    }
    let mut emitters_check = emitters(life, rate, 0);
    let mut check = ParticleSystem::new(CHURN_COUNT);
    for _ in 0..3 * CHURN_LIFE_STEPS as usize {
        step_all(&mut check, &mut emitters_check, &worlds);
    }
    assert_same(&check, &naive, "churn");
    drop(check);
    group.bench_function(BenchmarkId::new("churn/naive", CHURN_COUNT), |b| {
        b.iter(|| naive.step(&mut emitters_naive, &worlds));
    });
    group.bench_function(BenchmarkId::new("churn/naive_1thread", CHURN_COUNT), |b| {
        b.iter_custom(|iters| on_one_thread(iters, || naive.step(&mut emitters_naive, &worlds)));
    });
    assert!(naive.particles.len() >= CHURN_COUNT as usize * 99 / 100);
    group.finish();
}

criterion_group!(particles, update, churn);
criterion_main!(particles);
