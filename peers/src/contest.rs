//! A child process's part (`keel-peers --child THREADS PROCESS`): every row
//! [`crate::ROUNDS`] times, each side's time printed as a `sample` line and
//! each agreement check as an `agree` line, for [`crate::report`] to gather.

use std::time::{Duration, Instant};

use crate::{PROCESSES, ROUNDS, animation, bevy_side, rows};

/// The sides, in the order of every row's closures and of the table's
/// columns: Keel, Bevy as it ships (static-scene optimisation on), Bevy with
/// that optimisation off.
pub const SIDES: [&str; 3] = ["keel", "bevy", "bevy_dynamic"];

/// Runs rows in one process, the first side of a round rotating.
pub struct Contest {
    process: usize,
    rounds: usize,
}

impl Contest {
    /// Runs `sides` (one round each, in [`SIDES`] order) for every round:
    /// round `r` of process `p` starts with side `(r + p) % 3`, then the
    /// next ones in turn.
    pub fn row(&self, name: &str, sides: [&mut dyn FnMut() -> Duration; 3]) {
        for round in 0..self.rounds {
            let first = (round * PROCESSES + self.process) % SIDES.len();
            for k in 0..SIDES.len() {
                let side = (first + k) % SIDES.len();
                let time = (sides[side])();
                println!("sample\t{name}\t{}\t{}", SIDES[side], time.as_nanos());
            }
        }
        eprintln!("  {name}: {} rounds", self.rounds);
    }

    /// Reports that `side` computed the same world transforms as Keel for
    /// `nodes` nodes after row `name`, the largest [`crate::disagreement`]
    /// being `worst`; fails (the whole run) past `tolerance` or on a missing
    /// node (NaN).
    pub fn agree(&self, name: &str, side: &str, nodes: usize, worst: f32, tolerance: f32) {
        assert!(
            worst <= tolerance,
            "{name}: {side} and keel disagree: {worst:e} over {nodes} nodes (tolerance {tolerance:e})"
        );
        println!("agree\t{name}\t{side}\t{nodes}\t{worst:e}");
    }
}

/// The time `f` takes.
pub fn timed(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

/// A child process: every row on `threads` threads (the parent set
/// `RAYON_NUM_THREADS` for Keel's pool; Bevy's is built here), as process
/// `process` of [`PROCESSES`]. `KEEL_PEERS_ROUNDS` lowers the rounds for a
/// quick trial.
pub fn child(threads: usize, process: usize) {
    keel_engine::join_pool();
    bevy_side::init_task_pool(threads);
    let rounds = std::env::var("KEEL_PEERS_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(ROUNDS);
    let contest = Contest { process, rounds };
    eprintln!("process {process}, {threads} threads:");
    for n in [100_000, 1_000_000] {
        rows::propagation(&contest, n);
    }
    for per_frame in [10, 100] {
        rows::churn(&contest, per_frame);
    }
    rows::build(&contest, 1_000_000);
    animation::crowd_row(&contest);
}
