//! The hierarchy's storage invariants, checked in full: what the model tests
//! assert after every operation and the soak checks while a world churns.
//!
//! O(n) in positions, and it allocates: a check, not a hot path.

use super::NONE;
use crate::scene::Scene;

/// Returns `Err(message)` from the enclosing function unless `condition` holds.
macro_rules! ensure {
    ($condition:expr, $($message:tt)+) => {
        if !$condition {
            return Err(format!($($message)+));
        }
    };
}

impl Scene {
    /// Checks every storage invariant: the slot table and the dense columns
    /// agree, parents come before their children, every child list is a
    /// consistent chain that together hold every live node once, the live
    /// count and the hole bookkeeping add up, and every world transform is
    /// finite.
    ///
    /// # Errors
    /// The first broken invariant, in words.
    pub fn check_consistency(&self) -> Result<(), String> {
        let hot = &self.hot;
        let n = hot.len();
        let mut live = 0;
        for d in 0..n {
            let slot = hot.meta[d].slot;
            if slot == NONE {
                ensure!(hot.parent[d] == NONE, "hole {d} has a parent");
                continue;
            }
            live += 1;
            ensure!(
                self.slots.get(slot as usize).map(|s| s.dense as usize) == Some(d),
                "slot table of {d}"
            );
            let p = hot.parent[d];
            ensure!(
                p == NONE || (p as usize) < d,
                "parent {p} of {d} must precede it"
            );
            ensure!(
                p == NONE || hot.meta[p as usize].slot != NONE,
                "parent {p} of {d} is a hole"
            );
            ensure!(
                finite(hot.current_world(d)),
                "world transform of {d} is not finite: {:?}",
                hot.current_world(d)
            );
        }
        // Every child list (the root level's too) is a consistent chain of
        // nodes whose parent is its owner, and together they hold every live
        // node exactly once.
        let mut listed = vec![false; n];
        for owner in (0..n as u32).chain([NONE]) {
            if owner != NONE && hot.meta[owner as usize].slot == NONE {
                continue;
            }
            let level = hot.links_at(owner);
            let (mut c, mut count, mut prev) = (level.first_child, 0, NONE);
            while c != NONE {
                ensure!((c as usize) < n, "child {c} of {owner} out of range");
                ensure!(hot.meta[c as usize].links.prev == prev, "prev link of {c}");
                ensure!(hot.parent[c as usize] == owner, "child {c} of {owner}");
                ensure!(hot.meta[c as usize].slot != NONE, "hole {c} listed");
                ensure!(!listed[c as usize], "{c} listed twice");
                listed[c as usize] = true;
                count += 1;
                prev = c;
                c = hot.meta[c as usize].links.next;
            }
            ensure!(level.last_child == prev, "last child of {owner}");
            ensure!(level.children == count, "child count of {owner}");
        }
        let reached = listed.iter().filter(|&&l| l).count();
        ensure!(reached == live, "{reached} of {live} nodes listed");
        ensure!(
            live == self.live,
            "live count {} but {live} live positions",
            self.live
        );
        let walked = self.nodes().count();
        ensure!(
            walked == live,
            "the pre-order walk reaches {walked} of {live} nodes"
        );
        let sweep = &self.upkeep;
        let gap = if sweep.sweeping {
            (sweep.read - sweep.write) as usize
        } else {
            0
        };
        ensure!(
            sweep.reusable.len() == n - live - gap,
            "{} reusable holes, expected {}",
            sweep.reusable.len(),
            n - live - gap
        );
        if sweep.sweeping {
            for d in sweep.write..sweep.read {
                ensure!(
                    hot.meta[d as usize].slot == NONE,
                    "{d} inside the sweep's gap"
                );
            }
        }
        for d in 0..n.min(sweep.first_hole as usize) {
            let covered = sweep.sweeping && (sweep.write..sweep.read).contains(&(d as u32));
            let swept = sweep.sweeping && d as u32 >= sweep.read;
            ensure!(
                hot.meta[d].slot != NONE || covered || swept,
                "hole {d} before first_hole {}",
                sweep.first_hole
            );
        }
        Ok(())
    }

    /// [`Scene::check_consistency`], panicking with the broken invariant.
    #[cfg(test)]
    pub(in crate::scene) fn assert_invariants(&self) {
        if let Err(message) = self.check_consistency() {
            panic!("{message}");
        }
    }
}

fn finite(m: &crate::transform::Affine3x4) -> bool {
    m.is_finite()
}
