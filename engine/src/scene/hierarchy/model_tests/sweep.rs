//! A large deterministic test: the sweep runs across steps while the scene
//! churns, checked against the model after every batch of edits and every step.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use super::harness::Harness;
use super::{Op, Rng, pose};
use crate::scene::hierarchy::layout::{RELAYOUT_FRACTION, SWEEP_BUDGET, SWEEP_FRACTION};

/// A scene of several sweep budgets, churned between snapshots: the sweep
/// advances one real step per `snapshot_previous`, with spawns (into holes on
/// both sides of it), despawns (behind it too), reparents (some moving
/// subtrees to the end) and moves in between, and a full compaction once in
/// the middle of a sweep; everything is checked after every batch of edits
/// and every step.
#[test]
fn the_sweep_runs_across_steps_while_the_scene_churns() {
    fn run() -> Result<(), TestCaseError> {
        let mut h = Harness::default();
        let mut rng = Rng(0x5eed);
        let total = 2 * SWEEP_BUDGET + 1000;
        for seed in 0..(total / 1000 + 1) as u64 {
            h.apply(&Op::SpawnBatch { count: 1000, seed })?;
        }
        h.propagate()?;
        h.snapshot()?;
        h.check()?;
        prop_assert!(!h.scene.upkeep.sweeping);
        for round in 0..2 {
            // Small subtrees all over the columns: enough holes to start a sweep.
            while h.scene.holes() * (SWEEP_FRACTION - 1) < h.scene.hot.len() {
                let node = h.model.alive[rng.below(h.model.len())];
                if h.model.nodes[&node].children.len() < 4 {
                    h.despawn(node)?;
                }
            }
            h.check()?;
            let (mut steps_while_running, mut compacted) = (0, false);
            for step in 0..8 {
                churn(&mut h, &mut rng, step)?;
                h.propagate()?;
                h.check()?;
                let sweep = &h.scene.upkeep;
                if round == 1 && !compacted && sweep.sweeping && sweep.first_hole < sweep.write {
                    // Mid-sweep, with holes behind it and ranges not yet snapshotted.
                    h.compact()?;
                    h.check()?;
                    compacted = true;
                }
                h.snapshot()?;
                h.check()?;
                steps_while_running += usize::from(h.scene.upkeep.sweeping);
            }
            if round == 0 {
                prop_assert!(steps_while_running >= 2, "the sweep spans several steps");
            } else {
                prop_assert!(compacted, "compacted in the middle of a sweep");
            }
        }
        h.check_with(true)
    }

    fn churn(h: &mut Harness, rng: &mut Rng, step: usize) -> Result<(), TestCaseError> {
        // Leaves, behind the sweep and elsewhere.
        let (running, write) = (h.scene.upkeep.sweeping, h.scene.upkeep.write);
        for _ in 0..20 {
            let node = h.model.alive[rng.below(h.model.len())];
            if !h.model.nodes[&node].children.is_empty() {
                continue;
            }
            let d = h.scene.dense(node).unwrap() as u32;
            if rng.below(2) == 0 || (running && d < write) {
                h.despawn(node)?;
            }
        }
        for _ in 0..30 {
            let parent = h.model.pick(rng.next() as usize);
            let index = (rng.below(3) == 0).then(|| rng.below(4));
            h.spawn(
                parent,
                index,
                pose(rng.next() as i8, rng.next() as i8 % 8, 0),
            )?;
        }
        for _ in 0..20 {
            let node = h.model.alive[rng.below(h.model.len())];
            let parent = h.model.pick(rng.next() as usize);
            let index = (rng.below(2) == 0).then(|| rng.below(3));
            h.reparent(node, parent, index, rng.below(4) == 0)?;
        }
        for _ in 0..40 {
            let node = h.model.alive[rng.below(h.model.len())];
            let local = pose(rng.next() as i8, rng.next() as i8 % 8, rng.next() as u8);
            h.set_local(node, local, rng.below(5) == 0)?;
        }
        if step % 3 == 1 {
            // Edits after the propagation, before the snapshot: they wait for the next one.
            h.propagate()?;
            let node = h.model.alive[rng.below(h.model.len())];
            h.set_local(node, pose(7, 3, 0), false)?;
            let node = h.model.alive[rng.below(h.model.len())];
            let parent = h.model.pick(rng.next() as usize);
            h.reparent(node, parent, None, false)?;
        }
        Ok(())
    }

    run().unwrap();
}

/// A forest built in creation order (each node under a random earlier one,
/// so parents lie far behind their children): the first linear propagation
/// counts them, and the relayout pass then runs one bounded step per
/// snapshot, with edits in between, until the forest is in pre-order.
#[test]
fn a_relayout_runs_across_steps_and_puts_parents_beside_children() {
    fn far_parents(h: &Harness) -> usize {
        let hot = &h.scene.hot;
        (0..hot.meta.len())
            .filter(|&d| {
                let p = hot.parent[d];
                hot.meta[d].slot != crate::scene::hierarchy::NONE
                    && p != crate::scene::hierarchy::NONE
                    && d as u32 - p > crate::scene::hierarchy::layout::FAR
            })
            .count()
    }

    fn run() -> Result<(), TestCaseError> {
        let mut h = Harness::default();
        let mut rng = Rng(0xfa5);
        let mut nodes = Vec::new();
        for i in 0..12_000usize {
            let parent = (i >= 12).then(|| nodes[rng.below(i)]);
            nodes.push(h.spawn(parent, None, pose(rng.next() as i8, 1, 0))?);
        }
        h.propagate()?;
        let before = far_parents(&h);
        prop_assert!(before * 2 > h.scene.len(), "{before} far parents");
        prop_assert!(
            h.scene.upkeep.disorder * RELAYOUT_FRACTION >= h.scene.len(),
            "counted by propagation"
        );
        let mut steps = 0;
        loop {
            h.snapshot()?;
            h.check()?;
            let (holes, len) = (h.scene.holes(), h.scene.hot.len());
            let settled = holes < 256 || holes * SWEEP_FRACTION < len;
            if h.scene.upkeep.relayout.is_none() && !h.scene.upkeep.sweeping && settled {
                break;
            }
            steps += 1;
            prop_assert!(steps < 100, "the relayout ends");
            // Edits between the steps: spawns, leaf despawns, moves.
            for _ in 0..10 {
                let parent = h.model.pick(rng.next() as usize);
                h.spawn(parent, None, pose(rng.next() as i8, 2, 0))?;
                let node = h.model.alive[rng.below(h.model.len())];
                if h.model.nodes[&node].children.is_empty() {
                    h.despawn(node)?;
                }
                let node = h.model.alive[rng.below(h.model.len())];
                h.set_local(node, pose(rng.next() as i8, 3, 1), false)?;
            }
            h.propagate()?;
            h.check()?;
        }
        prop_assert!(steps >= 3, "the relayout spans several steps ({steps})");
        let after = far_parents(&h);
        prop_assert!(
            after * 20 < before,
            "far parents: {before} before, {after} after"
        );
        h.check_with(true)
    }

    run().unwrap();
}
