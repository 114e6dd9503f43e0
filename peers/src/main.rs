//! Keel against Bevy 0.20 on the same data, in the same runs.
//!
//! `keel-peers` (what `peers/run.sh` starts) runs itself three times for
//! every core, then three times for one thread (`--child THREADS PROCESS`,
//! [`report`]); each child process runs every row [`ROUNDS`] times
//! ([`contest`]), so a row's numbers are 30 rounds from three processes.
//! Within a round the sides take turns: Keel, Bevy with its static-scene
//! optimisation on (its default, `bevy`), and Bevy with it off
//! (`bevy_dynamic`, which its docs advise for very dynamic scenes); the side
//! that goes first rotates from round to round and process to process.
//!
//! Threads: Keel's propagation uses rayon's pool (`RAYON_NUM_THREADS`),
//! Bevy's systems the `ComputeTaskPool`, built with as many threads.
//! Bevy runs its own transform systems in its own order (`mark_dirty_trees`,
//! `propagate_parent_transforms`, `sync_simple_transforms`, as its
//! `TransformPlugin` schedules them).
//!
//! Rows ([`rows`], [`animation`]):
//! - `propagate_all/N`: every local set, then one propagation; both timed.
//! - `propagate_1pct/N`: 1% of the nodes, chosen at random, set, then one
//!   propagation; both timed. One call a node (Keel's `update_local`,
//!   Bevy's `World::get_mut`).
//! - `propagate_1pct_batch/N`: the same nodes set in one batch through each
//!   side's API for writing many entities by id (Keel's `update_locals`,
//!   Bevy's `QueryState::iter_many_mut`), then one propagation.
//! - `propagate_none/N`: a propagation with nothing changed (absolute
//!   times: Keel's is an early return, no ratio is shown).
//! - `churn_K/100000`: K leaves spawned under random nodes and the K spawned
//!   longest ago despawned, then one propagation; all timed.
//! - `build/1000000`: spawning a million nodes with their parents and the
//!   first propagation.
//! - `animation_crowd/4000`: 4,000 Fox rigs (`assets/models/Fox.glb`) playing
//!   Run at different phases; a frame samples every clip, writes the bones
//!   and propagates.
//!
//! After every row the world transforms of every node (every bone of every
//! rig) are compared between Keel and each Bevy: all twelve numbers of the
//! affine, within [`TOLERANCE`] relative to the node's size.
//!
//! The tree is the transform bench's (`engine/benches/transform.rs`): trees
//! of 1,000 nodes of mixed depth, spawned depth first.

mod animation;
mod bevy_anim;
mod bevy_side;
mod contest;
mod keel_anim;
mod keel_side;
mod report;
mod rows;

use glam::Affine3A;

/// Rounds per row in each child process (three processes: 30 rounds).
pub const ROUNDS: usize = 10;

/// Child processes per thread count.
pub const PROCESSES: usize = 3;

/// How far two world transforms may differ: each of the twelve numbers
/// within this much of `1 + ` the largest magnitude among them (float
/// rounding through the same multiplications in another order).
pub const TOLERANCE: f32 = 1e-4;

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

impl<T: Copy> Leaves<T> {
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

    /// The leaf in `slot`, if live.
    pub fn get(&self, slot: usize) -> Option<T> {
        self.slots.get(slot).copied().flatten()
    }
}

/// What each engine's side answers.
pub trait Side {
    /// A world holding the forest of `parents`, spawned in `order`,
    /// propagated once.
    fn build(parents: &[Option<usize>], order: &[usize]) -> Self
    where
        Self: Sized;
    /// Sets node `i`'s local translation.
    fn set(&mut self, i: usize, x: f32);
    /// [`Side::set`] for each of `chosen`, in one batch through the side's
    /// own API for writing many entities by id.
    fn set_many(&mut self, chosen: &[usize], x: f32);
    /// One propagation of world transforms.
    fn propagate(&mut self);
    /// Spawns a leaf under node `parent` (an index into the forest) and
    /// returns its handle.
    fn spawn_leaf(&mut self, parent: usize) -> usize;
    /// Despawns a leaf [`Side::spawn_leaf`] made.
    fn despawn_leaf(&mut self, leaf: usize);
    /// Node `i`'s world transform.
    fn world(&self, i: usize) -> Affine3A;
    /// A live leaf's world transform.
    fn leaf_world(&self, leaf: usize) -> Affine3A;
}

/// How far `b` is from `a`: the largest difference among the twelve
/// numbers, over `1 + ` the largest magnitude among `a`'s (NaN when either
/// is missing).
pub fn disagreement(a: Affine3A, b: Affine3A) -> f32 {
    let (a, b) = (a.to_cols_array(), b.to_cols_array());
    let size = a.iter().fold(0.0_f32, |m, v| m.max(v.abs()));
    let off = a.iter().zip(&b).fold(0.0_f32, |m, (x, y)| {
        if x.is_nan() || y.is_nan() {
            f32::NAN
        } else {
            m.max((x - y).abs())
        }
    });
    off / (1.0 + size)
}

/// The largest of `differences`, NaN if any is.
pub fn worst(differences: impl Iterator<Item = f32>) -> f32 {
    differences.fold(0.0, |w: f32, d| {
        if w.is_nan() || d.is_nan() {
            f32::NAN
        } else {
            w.max(d)
        }
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("--child") => {
            let number = |i: usize| -> usize {
                (args.get(i).and_then(|a| a.parse().ok()))
                    .unwrap_or_else(|| panic!("--child THREADS PROCESS: argument {i} is a number"))
            };
            contest::child(number(2), number(3));
        }
        None => report::parent(),
        Some(other) => {
            eprintln!("keel-peers: unknown argument {other:?} (none, or --child THREADS PROCESS)");
            std::process::exit(2);
        }
    }
}
