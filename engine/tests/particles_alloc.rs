//! The particle system allocates nothing in steady state: a counting global allocator watches
//! 1,000 fixed steps of a busy, overflowing pool (plus the per-frame instance packing) and must see
//! no allocation after the warm-up; then the same load twenty times over, a pool big enough that
//! its updates are split across rayon's workers, with the workers counted too.

#![expect(
    unsafe_code,
    reason = "the counting global allocator forwards to the system one"
)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use glam::{Affine3A, Quat, Vec3};
use keel_engine::Emitter;
use keel_engine::particles::{
    BlendMode, Burst, FloatRange, Overflow, PARALLEL_SPAN, ParticleInstance, ParticleSystem,
};

/// Counts allocations and reallocations made by threads that opted in, each under the run it
/// works for, so neither the test harness's own threads nor the other test (running at the same
/// time) can disturb a run's count.
struct CountingAllocator;

/// Allocations per run; run 0 is "not counted".
static ALLOCATIONS: [AtomicUsize; 3] = [const { AtomicUsize::new(0) }; 3];

thread_local! {
    static COUNTING: Cell<usize> = const { Cell::new(0) };
}

fn note_allocation() {
    let run = COUNTING.with(Cell::get);
    if run != 0 {
        ALLOCATIONS[run].fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; counting
// touches only an atomic and a const-initialised thread-local, neither of which allocates.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        // SAFETY: forwarded contract of `GlobalAlloc::alloc`.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        // SAFETY: forwarded contract of `GlobalAlloc::alloc_zeroed`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_allocation();
        // SAFETY: forwarded contract of `GlobalAlloc::realloc`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded contract of `GlobalAlloc::dealloc`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

const CAPACITY: u32 = 6_000;
const DT: f32 = 1.0 / 60.0;
const WARM_UP: usize = 60;
const STEPS: usize = 1_000;

/// The emitters for a pool of `CAPACITY * scale` particles.
fn emitters(scale: u32) -> Vec<Emitter> {
    let mut emitters = base_emitters();
    for e in &mut emitters {
        e.rate *= scale as f32;
        for burst in &mut e.bursts {
            burst.count *= scale;
        }
        if let Overflow::Grow { max } = &mut e.overflow {
            *max *= scale;
        }
    }
    emitters
}

fn base_emitters() -> Vec<Emitter> {
    vec![
        // Alone it would keep about 9,000 alive, and it starts with a burst that fills most of
        // the pool: the pool runs full from the first steps and this one drops.
        Emitter {
            rate: 6_000.0,
            bursts: vec![Burst {
                time: 0.0,
                count: 5_000,
            }],
            lifetime: FloatRange::new(1.0, 2.0),
            overflow: Overflow::Drop,
            blend: BlendMode::Additive,
            seed: 1,
            ..Emitter::default()
        },
        // Periodic bursts into a full pool evict the oldest particles.
        Emitter {
            rate: 500.0,
            bursts: vec![
                Burst {
                    time: 0.1,
                    count: 400,
                },
                Burst {
                    time: 0.3,
                    count: 150,
                },
            ],
            burst_period: Some(0.5),
            lifetime: FloatRange::new(0.2, 0.6),
            cone_angle: 180.0,
            overflow: Overflow::ReplaceOldest,
            seed: 2,
            ..Emitter::default()
        },
        // Grows the pool to its limit in the first steps (allocating, inside the warm-up) and
        // behaves like Drop afterwards.
        Emitter {
            rate: 900.0,
            lifetime: FloatRange::new(0.5, 1.0),
            drag: 0.8,
            gravity: Vec3::ZERO,
            overflow: Overflow::Grow {
                max: CAPACITY + 2_000,
            },
            seed: 3,
            ..Emitter::default()
        },
    ]
}

/// Runs `steps` steps of the emitters for a pool `scale` times the base size, counting the
/// allocations of the threads that opted in to `run` after the warm-up, and checks that the run
/// went through what it claims to (spawns, deaths, every overflow policy, a nearly full pool).
fn run(run: usize, scale: u32, steps: usize) {
    let capacity = CAPACITY * scale;
    let mut system = ParticleSystem::new(capacity);
    let mut emitters = emitters(scale);
    let worlds: Vec<Affine3A> = (0..emitters.len())
        .map(|k| {
            Affine3A::from_rotation_translation(
                Quat::from_rotation_x(0.5 * k as f32),
                Vec3::new(k as f32 * 4.0, 0.0, 0.0),
            )
        })
        .collect();
    let max_capacity = (capacity + 2_000 * scale) as usize;
    let mut additive: Vec<ParticleInstance> = Vec::with_capacity(max_capacity);
    let mut alpha_blended: Vec<ParticleInstance> = Vec::with_capacity(max_capacity);
    let mut warmed_up = system.stats();
    let mut counted = 0;
    let mut drawn = 0usize;

    COUNTING.with(|c| c.set(run));
    for step in 0..steps {
        if step == WARM_UP {
            warmed_up = system.stats();
            counted = ALLOCATIONS[run].load(Ordering::Relaxed);
        }
        let stepped = emitters
            .iter_mut()
            .zip(&worlds)
            .enumerate()
            .map(|(k, (e, w))| (k as u32, e, *w));
        system.step(DT, stepped);
        additive.clear();
        alpha_blended.clear();
        system.instances(0.5, &mut additive, &mut alpha_blended);
        drawn += additive.len() + alpha_blended.len();
    }
    let allocations = ALLOCATIONS[run].load(Ordering::Relaxed) - counted;
    COUNTING.with(|c| c.set(0));

    let end = system.stats();
    assert_eq!(
        allocations,
        0,
        "{allocations} allocations in {} steady-state steps",
        steps - WARM_UP
    );
    // The run must have exercised what it claims to.
    let spawned = end.spawned - warmed_up.spawned;
    let lives = (steps - WARM_UP) as u64 / 200;
    assert!(
        spawned > u64::from(end.capacity) * lives,
        "only {spawned} spawned"
    );
    let died = warmed_up.alive as u64 + spawned - end.alive as u64;
    assert!(
        died > u64::from(end.capacity) * lives * 4 / 5,
        "only {died} died"
    );
    assert!(
        end.replaced > warmed_up.replaced,
        "ReplaceOldest never evicted"
    );
    assert!(end.dropped > warmed_up.dropped, "the pool never overflowed");
    assert!(
        end.high_water >= end.capacity * 9 / 10,
        "the pool never ran near full"
    );
    assert_eq!(
        warmed_up.capacity, max_capacity as u32,
        "Grow reached its limit during the warm-up"
    );
    assert!(drawn > steps * capacity as usize / 2);
}

#[test]
fn steady_state_steps_allocate_nothing() {
    run(1, 1, STEPS);
}

#[test]
fn steps_split_across_workers_allocate_nothing() {
    // The only test here that uses rayon: the pool is built around this thread.
    assert!(keel_engine::join_pool(), "rayon's pool was already built");
    assert!(
        (CAPACITY * 20) as usize >= 2 * PARALLEL_SPAN,
        "the pool must be big enough to be split"
    );
    // Every worker counts its allocations too.
    rayon::broadcast(|_| COUNTING.with(|c| c.set(2)));
    run(2, 20, 300);
}
