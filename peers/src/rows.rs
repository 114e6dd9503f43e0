//! The propagation, churn and build rows: the same forest on Keel and on
//! both Bevys, and after each row every node's world transform compared.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::bevy_side::BevyWorld;
use crate::contest::{Contest, SIDES, timed};
use crate::keel_side::KeelWorld;
use crate::{Rng, Side, TOLERANCE, depth_first, disagreement, random_parents, worst};

/// The forest's seed (the transform bench's).
const SEED: u64 = 0x9E37_79B9_7F4A_7C15;

/// Live leaves a churn keeps (the oldest goes once there are more).
const CHURN_LIVE: usize = 1_000;

/// Compares every forest node and every leaf in `leaves` of each Bevy with
/// Keel, and reports it for row `name`.
fn compare(contest: &Contest, name: &str, sides: [&dyn Side; 3], n: usize, leaves: &[usize]) {
    let [keel, bevys @ ..] = sides;
    for (side, bevy) in SIDES[1..].iter().zip(bevys) {
        let nodes = (0..n).map(|i| disagreement(keel.world(i), bevy.world(i)));
        let leaf = (leaves.iter()).map(|&l| disagreement(keel.leaf_world(l), bevy.leaf_world(l)));
        contest.agree(
            name,
            side,
            n + leaves.len(),
            worst(nodes.chain(leaf)),
            TOLERANCE,
        );
    }
}

/// A round of `propagate_all`: every local set to a value one higher than
/// the side's last round, then one propagation, both timed.
fn all_round(side: &mut dyn Side, n: usize) -> impl FnMut() -> Duration + '_ {
    let mut tick = 0.0_f32;
    move || {
        tick += 1.0;
        timed(|| {
            (0..n).for_each(|i| side.set(i, tick));
            side.propagate();
        })
    }
}

/// A round of `propagate_1pct` (or, `batch`, of `propagate_1pct_batch`):
/// the `chosen` nodes set one call a node (or in one batch, each side's API
/// for writing many entities by id), one propagation.
fn some_round<'a>(
    side: &'a mut dyn Side,
    chosen: &'a [usize],
    batch: bool,
) -> impl FnMut() -> Duration + 'a {
    // Each row's values differ from the row's before: every write changes.
    let mut tick = if batch { 0.25_f32 } else { 0.5 };
    move || {
        tick += 1.0;
        timed(|| {
            if batch {
                side.set_many(chosen, tick);
            } else {
                chosen.iter().for_each(|&i| side.set(i, tick));
            }
            side.propagate();
        })
    }
}

/// `propagate_all/n`, `propagate_1pct/n`, `propagate_1pct_batch/n` and
/// `propagate_none/n`.
pub fn propagation(contest: &Contest, n: usize) {
    let parents = random_parents(n, &mut Rng(SEED));
    let order = depth_first(&parents);
    let mut keel = KeelWorld::build(&parents, &order);
    let mut bevy = BevyWorld::<true>::build(&parents, &order);
    let mut dynamic = BevyWorld::<false>::build(&parents, &order);
    compare(
        contest,
        &format!("start/{n}"),
        [&keel, &bevy, &dynamic],
        n,
        &[],
    );

    let name = format!("propagate_all/{n}");
    contest.row(
        &name,
        [
            &mut all_round(&mut keel, n),
            &mut all_round(&mut bevy, n),
            &mut all_round(&mut dynamic, n),
        ],
    );
    compare(contest, &name, [&keel, &bevy, &dynamic], n, &[]);

    let mut pick = Rng(7);
    let chosen: Vec<usize> = (0..n / 100).map(|_| pick.below(n)).collect();
    for (name, batch) in [("propagate_1pct", false), ("propagate_1pct_batch", true)] {
        let name = format!("{name}/{n}");
        contest.row(
            &name,
            [
                &mut some_round(&mut keel, &chosen, batch),
                &mut some_round(&mut bevy, &chosen, batch),
                &mut some_round(&mut dynamic, &chosen, batch),
            ],
        );
        compare(contest, &name, [&keel, &bevy, &dynamic], n, &[]);
    }

    let name = format!("propagate_none/{n}");
    contest.row(
        &name,
        [
            &mut || timed(|| keel.propagate()),
            &mut || timed(|| bevy.propagate()),
            &mut || timed(|| dynamic.propagate()),
        ],
    );
    compare(contest, &name, [&keel, &bevy, &dynamic], n, &[]);
}

/// A side in a churn: its world, its live leaves (oldest first) and its
/// own copy of the parents' random stream.
struct Churning<'a> {
    side: &'a mut dyn Side,
    live: VecDeque<usize>,
    rng: Rng,
}

impl Churning<'_> {
    /// A frame: `per_frame` leaves in under random nodes of the first `n`,
    /// the oldest out once [`CHURN_LIVE`] are live, then a propagation.
    fn frame(&mut self, per_frame: usize, n: usize) -> Duration {
        timed(|| {
            for _ in 0..per_frame {
                let leaf = self.side.spawn_leaf(self.rng.below(n));
                self.live.push_back(leaf);
                if self.live.len() > CHURN_LIVE {
                    let oldest = self.live.pop_front().expect("more than a thousand");
                    self.side.despawn_leaf(oldest);
                }
            }
            self.side.propagate();
        })
    }
}

/// `churn_{per_frame}/100000`, from the steady state (a thousand live leaves).
pub fn churn(contest: &Contest, per_frame: usize) {
    let n = 100_000;
    let parents = random_parents(n, &mut Rng(SEED));
    let order = depth_first(&parents);
    let mut keel = KeelWorld::build(&parents, &order);
    let mut bevy = BevyWorld::<true>::build(&parents, &order);
    let mut dynamic = BevyWorld::<false>::build(&parents, &order);
    let name = format!("churn_{per_frame}/{n}");
    let live = {
        let mut sides: [Churning; 3] =
            [&mut keel as &mut dyn Side, &mut bevy, &mut dynamic].map(|side| Churning {
                side,
                live: VecDeque::new(),
                rng: Rng(11),
            });
        while sides[0].live.len() < CHURN_LIVE {
            for side in &mut sides {
                side.frame(per_frame, n);
            }
        }
        let [k, b, d] = &mut sides;
        contest.row(
            &name,
            [
                &mut || k.frame(per_frame, n),
                &mut || b.frame(per_frame, n),
                &mut || d.frame(per_frame, n),
            ],
        );
        assert!(
            sides.iter().all(|s| s.live == sides[0].live),
            "{name}: the sides hold the same leaves"
        );
        sides[0].live.iter().copied().collect::<Vec<_>>()
    };
    compare(contest, &name, [&keel, &bevy, &dynamic], n, &live);
}

/// Times `build` and keeps what it built in `last` (the one before dropped
/// untimed).
fn build_round<'a, S: Side + 'a>(
    parents: &'a [Option<usize>],
    order: &'a [usize],
    last: &'a mut Option<S>,
) -> impl FnMut() -> Duration + 'a {
    move || {
        drop(last.take());
        let start = Instant::now();
        let world = S::build(parents, order);
        let time = start.elapsed();
        *last = Some(world);
        time
    }
}

/// `build/n`: spawning the forest and its first propagation.
pub fn build(contest: &Contest, n: usize) {
    let parents = random_parents(n, &mut Rng(SEED));
    let order = depth_first(&parents);
    let name = format!("build/{n}");
    let (mut keel, mut bevy, mut dynamic) = (None, None, None);
    contest.row(
        &name,
        [
            &mut build_round::<KeelWorld>(&parents, &order, &mut keel),
            &mut build_round::<BevyWorld<true>>(&parents, &order, &mut bevy),
            &mut build_round::<BevyWorld<false>>(&parents, &order, &mut dynamic),
        ],
    );
    let (Some(keel), Some(bevy), Some(dynamic)) = (keel, bevy, dynamic) else {
        panic!("{name}: no round ran");
    };
    compare(contest, &name, [&keel, &bevy, &dynamic], n, &[]);
}
