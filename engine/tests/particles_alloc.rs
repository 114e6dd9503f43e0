//! The particle system allocates nothing in steady state: a counting global allocator watches
//! 1,000 fixed steps of a busy, overflowing pool (plus the per-frame instance packing) and must see
//! no allocation after the warm-up.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use glam::{Affine3A, Quat, Vec3};
use keel_engine::particles::{
    BlendMode, Burst, Emitter, FloatRange, Overflow, ParticleInstance, ParticleSystem,
};

/// Counts allocations and reallocations made by threads that opted in, so the test harness's own
/// threads cannot disturb the count.
struct CountingAllocator;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

fn note_allocation() {
    if COUNTING.with(Cell::get) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
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

fn emitters() -> Vec<Emitter> {
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

#[test]
fn steady_state_steps_allocate_nothing() {
    let mut system = ParticleSystem::new(CAPACITY);
    let mut emitters = emitters();
    let worlds: Vec<Affine3A> = (0..emitters.len())
        .map(|k| {
            Affine3A::from_rotation_translation(
                Quat::from_rotation_x(0.5 * k as f32),
                Vec3::new(k as f32 * 4.0, 0.0, 0.0),
            )
        })
        .collect();
    let max_capacity = (CAPACITY + 2_000) as usize;
    let mut additive: Vec<ParticleInstance> = Vec::with_capacity(max_capacity);
    let mut alpha_blended: Vec<ParticleInstance> = Vec::with_capacity(max_capacity);
    let mut warmed_up = system.stats();
    let mut counted = 0;
    let mut drawn = 0usize;

    COUNTING.with(|c| c.set(true));
    for step in 0..STEPS {
        if step == WARM_UP {
            warmed_up = system.stats();
            counted = ALLOCATIONS.load(Ordering::Relaxed);
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
    let allocations = ALLOCATIONS.load(Ordering::Relaxed) - counted;
    COUNTING.with(|c| c.set(false));

    let end = system.stats();
    assert_eq!(
        allocations,
        0,
        "{allocations} allocations in {} steady-state steps",
        STEPS - WARM_UP
    );
    // The run must have exercised what it claims to.
    let spawned = end.spawned - warmed_up.spawned;
    assert!(
        spawned > u64::from(end.capacity) * 5,
        "only {spawned} spawned"
    );
    let died = warmed_up.alive as u64 + spawned - end.alive as u64;
    assert!(died > u64::from(end.capacity) * 4, "only {died} died");
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
        warmed_up.capacity,
        CAPACITY + 2_000,
        "Grow reached its limit during the warm-up"
    );
    assert!(drawn > STEPS * CAPACITY as usize / 2);
}
