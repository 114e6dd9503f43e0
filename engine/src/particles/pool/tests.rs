//! Tests of the particle pool.

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
        let dies =
            i.is_multiple_of(3) || i >= n - 10 || (UPDATE_TILE - 3..UPDATE_TILE + 3).contains(&i);
        let lifetime = if dies { 0.5 } else { 2.0 };
        pool.spawn(&init(i as u32, lifetime), Overflow::Drop, |_| {});
    }
    let expected_dead = (0..n as u32)
        .filter(|&i| {
            let i = i as usize;
            i.is_multiple_of(3) || i >= n - 10 || (UPDATE_TILE - 3..UPDATE_TILE + 3).contains(&i)
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
    let v = crate::math::exp(-1.0f32);
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
