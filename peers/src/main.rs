//! Keel against Bevy 0.20 on the same data, in one run, interleaved: each
//! row runs Keel's round then Bevy's, `ROUNDS` times, and prints the medians.
//!
//! Both sides get every core: Keel's propagation uses the rayon pool, Bevy's
//! systems the `ComputeTaskPool` built with the same number of threads.
//! Bevy runs its own transform systems in its own order (`mark_dirty_trees`,
//! `propagate_parent_transforms`, `sync_simple_transforms`, as its
//! `TransformPlugin` schedules them), with its static-scene optimisation on
//! (its default).
//!
//! Rows:
//! - `propagate_all/N`: every local set (untimed), then one propagation.
//! - `propagate_1pct/N`: 1% of the nodes, chosen at random, set, then one
//!   propagation; both timed.
//! - `propagate_none/N`: a propagation with nothing changed.
//! - `churn_K/100000`: K leaves spawned under random nodes and the K spawned
//!   longest ago despawned, then one propagation; all timed.
//! - `build/1000000`: spawning a million nodes with their parents and the
//!   first propagation.
//! - `animation_crowd/4000`: 4,000 Fox rigs (`assets/models/Fox.glb`, 26
//!   nodes, 21 channels) in a grid, each playing Run on loop from its own
//!   phase (rig i from i x 0.013 s); a frame advances time 1/60 s, samples
//!   every rig's clip, writes the bones' locals and propagates (Keel: a
//!   fixed step, `keel_anim`; Bevy: `App::update` with its animation and
//!   transform plugins, `bevy_anim`). No skinning matrices on either side.
//!   Each round times ten frames; the row shows the time per frame.
//!
//! The tree is the transform bench's (`engine/benches/transform.rs`): trees
//! of 1,000 nodes of mixed depth, spawned depth first.

mod animation;
mod bevy_anim;
mod bevy_side;
mod keel_anim;
mod keel_side;

use std::time::{Duration, Instant};

/// Rounds per row (medians are reported).
const ROUNDS: usize = 9;

/// xorshift, as the transform bench's.
pub struct Rng(pub u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// Parent of each node, parents first: trees of 1,000 nodes where a node
/// hangs under a random earlier node of its tree or, one time in four, under
/// one of the last three (the transform bench's forest).
pub fn random_parents(n: usize, rng: &mut Rng) -> Vec<Option<usize>> {
    (0..n)
        .map(|i| {
            let tree = i - i % 1_000;
            if i == tree {
                None
            } else if rng.below(4) == 0 {
                Some(i - 1 - rng.below((i - tree).min(3)))
            } else {
                Some(tree + rng.below(i - tree))
            }
        })
        .collect()
}

/// The spawn order: depth first from the roots (how scene files list nodes).
pub fn depth_first(parents: &[Option<usize>]) -> Vec<usize> {
    let mut children = vec![Vec::new(); parents.len()];
    for (i, p) in parents.iter().enumerate() {
        if let Some(p) = p {
            children[*p].push(i);
        }
    }
    let mut order = Vec::with_capacity(parents.len());
    let mut stack: Vec<usize> = (0..parents.len())
        .filter(|&i| parents[i].is_none())
        .rev()
        .collect();
    while let Some(i) = stack.pop() {
        order.push(i);
        stack.extend(children[i].iter().rev());
    }
    order
}

/// The leaves a churn spawned, by slot (freed slots are reused), so both
/// sides hand out the same small numbers for their own handles.
pub struct Leaves<T> {
    slots: Vec<Option<T>>,
    free: Vec<usize>,
}

impl<T> Default for Leaves<T> {
    fn default() -> Self {
        Self {
            slots: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T> Leaves<T> {
    /// Keeps `leaf`; returns its slot.
    pub fn keep(&mut self, leaf: T) -> usize {
        match self.free.pop() {
            Some(slot) => {
                self.slots[slot] = Some(leaf);
                slot
            }
            None => {
                self.slots.push(Some(leaf));
                self.slots.len() - 1
            }
        }
    }

    /// Takes the leaf in `slot` out (none if already taken).
    pub fn take(&mut self, slot: usize) -> Option<T> {
        let leaf = self.slots[slot].take();
        if leaf.is_some() {
            self.free.push(slot);
        }
        leaf
    }
}

/// What each engine's side answers.
pub trait Side {
    /// A world holding the forest of `parents`, spawned in `order`,
    /// propagated once.
    fn build(parents: &[Option<usize>], order: &[usize]) -> Self;
    /// Sets node `i`'s local translation.
    fn set(&mut self, i: usize, x: f32);
    /// One propagation of world transforms.
    fn propagate(&mut self);
    /// Spawns a leaf under node `parent` (an index into the forest or an
    /// earlier spawned leaf's handle) and returns its handle.
    fn spawn_leaf(&mut self, parent: usize) -> usize;
    /// Despawns a leaf [`Side::spawn_leaf`] made.
    fn despawn_leaf(&mut self, leaf: usize);
    /// A world transform's translation, to check both sides computed the same.
    fn world_x(&self, i: usize) -> f32;
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

struct Row {
    name: String,
    keel: Duration,
    bevy: Duration,
}

/// Runs `round` on Keel then Bevy, `ROUNDS` times; each returns its time.
fn row(name: &str, mut keel: impl FnMut() -> Duration, mut bevy: impl FnMut() -> Duration) -> Row {
    let (mut k, mut b) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        k.push(keel());
        b.push(bevy());
    }
    let row = Row {
        name: name.to_owned(),
        keel: median(k),
        bevy: median(b),
    };
    eprintln!(
        "{:<24} keel {:>10.3?}  bevy {:>10.3?}",
        row.name, row.keel, row.bevy
    );
    row
}

fn timed(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

fn propagation_rows<K: Side, B: Side>(n: usize, rows: &mut Vec<Row>) {
    let parents = random_parents(n, &mut Rng(0x9E37_79B9_7F4A_7C15));
    let order = depth_first(&parents);
    let mut keel = K::build(&parents, &order);
    let mut bevy = B::build(&parents, &order);
    // Each round's value, set by Keel's turn and read by Bevy's.
    let tick = std::cell::Cell::new(0.0_f32);
    rows.push(row(
        &format!("propagate_all/{n}"),
        || {
            tick.set(tick.get() + 1.0);
            (0..n).for_each(|i| keel.set(i, tick.get()));
            timed(|| keel.propagate())
        },
        || {
            (0..n).for_each(|i| bevy.set(i, tick.get()));
            timed(|| bevy.propagate())
        },
    ));
    check_same(&keel, &bevy, n);
    let mut pick = Rng(7);
    let chosen: Vec<usize> = (0..n / 100).map(|_| pick.below(n)).collect();
    rows.push(row(
        &format!("propagate_1pct/{n}"),
        || {
            tick.set(tick.get() + 1.0);
            timed(|| {
                chosen.iter().for_each(|&i| keel.set(i, tick.get()));
                keel.propagate();
            })
        },
        || {
            timed(|| {
                chosen.iter().for_each(|&i| bevy.set(i, tick.get()));
                bevy.propagate();
            })
        },
    ));
    check_same(&keel, &bevy, n);
    rows.push(row(
        &format!("propagate_none/{n}"),
        || timed(|| keel.propagate()),
        || timed(|| bevy.propagate()),
    ));
}

fn check_same(keel: &impl Side, bevy: &impl Side, n: usize) {
    for i in (0..n).step_by(n / 97 + 1) {
        let (k, b) = (keel.world_x(i), bevy.world_x(i));
        assert!(
            (k - b).abs() <= 1e-3 * (1.0 + k.abs()),
            "node {i}: keel {k}, bevy {b}: the two sides disagree"
        );
    }
}

fn churn_rows<K: Side, B: Side>(per_frame: usize, rows: &mut Vec<Row>) {
    let n = 100_000;
    let parents = random_parents(n, &mut Rng(0x9E37_79B9_7F4A_7C15));
    let order = depth_first(&parents);
    let mut keel = K::build(&parents, &order);
    let mut bevy = B::build(&parents, &order);
    let (mut keel_live, mut bevy_live) = (
        std::collections::VecDeque::new(),
        std::collections::VecDeque::new(),
    );
    let (mut keel_rng, mut bevy_rng) = (Rng(11), Rng(11));
    // A frame: `per_frame` leaves in, the oldest out once 1,000 are live.
    fn frame<S: Side>(
        side: &mut S,
        live: &mut std::collections::VecDeque<usize>,
        rng: &mut Rng,
        per_frame: usize,
        n: usize,
    ) -> Duration {
        timed(|| {
            for _ in 0..per_frame {
                let leaf = side.spawn_leaf(rng.below(n));
                live.push_back(leaf);
                if live.len() > 1_000 {
                    side.despawn_leaf(live.pop_front().unwrap());
                }
            }
            side.propagate();
        })
    }
    // Warm to the steady state (1,000 live leaves) before timing.
    while keel_live.len() < 1_000 {
        frame(&mut keel, &mut keel_live, &mut keel_rng, per_frame, n);
        frame(&mut bevy, &mut bevy_live, &mut bevy_rng, per_frame, n);
    }
    rows.push(row(
        &format!("churn_{per_frame}/{n}"),
        || frame(&mut keel, &mut keel_live, &mut keel_rng, per_frame, n),
        || frame(&mut bevy, &mut bevy_live, &mut bevy_rng, per_frame, n),
    ));
}

fn build_row<K: Side, B: Side>(n: usize, rows: &mut Vec<Row>) {
    let parents = random_parents(n, &mut Rng(0x9E37_79B9_7F4A_7C15));
    let order = depth_first(&parents);
    rows.push(row(
        &format!("build/{n}"),
        || {
            let (world, time) = {
                let start = Instant::now();
                let world = K::build(&parents, &order);
                (world, start.elapsed())
            };
            drop(world);
            time
        },
        || {
            let (world, time) = {
                let start = Instant::now();
                let world = B::build(&parents, &order);
                (world, start.elapsed())
            };
            drop(world);
            time
        },
    ));
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_owned())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_owned());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{cpu}, {threads} threads")
}

fn main() {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    bevy_side::init_task_pool(threads);
    let mut rows = Vec::new();
    for n in [100_000, 1_000_000] {
        propagation_rows::<keel_side::KeelWorld, bevy_side::BevyWorld>(n, &mut rows);
    }
    for per_frame in [10, 100] {
        churn_rows::<keel_side::KeelWorld, bevy_side::BevyWorld>(per_frame, &mut rows);
    }
    build_row::<keel_side::KeelWorld, bevy_side::BevyWorld>(1_000_000, &mut rows);
    animation::crowd_row(&mut rows);

    let date = std::process::Command::new("date")
        .arg("-u")
        .arg("+%Y-%m-%d")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    println!(
        "Keel and Bevy 0.20 on {} ({date}), medians of {ROUNDS} interleaved rounds:\n",
        machine()
    );
    println!("| row | Keel | Bevy | Bevy / Keel |");
    println!("| --- | ---: | ---: | ---: |");
    for r in &rows {
        println!(
            "| `{}` | {:.3?} | {:.3?} | {:.2}x |",
            r.name,
            r.keel,
            r.bevy,
            r.bevy.as_secs_f64() / r.keel.as_secs_f64().max(1e-12)
        );
    }
}
