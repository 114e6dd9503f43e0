//! Test support: every structural invariant of the loose tree, checked
//! after the operations under test.

use std::fmt::Debug;
use std::hash::Hash;

use super::{LooseTree, NONE, OUTSIDE, ROOT, Space};

impl<K: Copy + Eq + Hash + Debug, S: Space> LooseTree<K, S> {
    /// Checks every structural invariant; test support.
    pub(in crate::spatial) fn check_invariants(&self) {
        let mut seen = 0usize;
        for (n, node) in self.nodes.iter().enumerate() {
            let n = n as u32;
            let reachable = n == OUTSIDE || self.is_reachable(n);
            if !reachable {
                continue;
            }
            for (slot, item) in node.items.iter().enumerate() {
                seen += 1;
                let loc = self.locs[item.id as usize];
                assert_eq!(
                    (loc.node, loc.slot as usize),
                    (n, slot),
                    "stale location of {item:?}"
                );
                assert_eq!(
                    self.ids.get(&item.key),
                    Some(&item.id),
                    "key map disagrees for {item:?}"
                );
                if n != OUTSIDE {
                    assert!(
                        S::contains(&node.loose, &item.bounds),
                        "{item:?} outside node {n}"
                    );
                }
            }
            if n != OUTSIDE {
                let mut count = node.items.len() as u32;
                if node.first_child != NONE {
                    for c in node.first_child..node.first_child + S::CHILDREN as u32 {
                        let child = &self.nodes[c as usize];
                        assert_eq!(child.parent, n, "child {c} has the wrong parent");
                        assert!(
                            S::contains(&node.loose, &child.loose),
                            "child {c} pokes out of {n}"
                        );
                        count += child.count;
                    }
                    assert!(node.count > self.merge, "split node {n} should have merged");
                }
                assert_eq!(node.count, count, "count of node {n}");
            }
        }
        assert_eq!(seen, self.ids.len(), "objects reachable vs keys");
    }

    fn is_reachable(&self, mut n: u32) -> bool {
        loop {
            if n == ROOT {
                return true;
            }
            let parent = self.nodes[n as usize].parent;
            if parent == NONE {
                return false;
            }
            let first = self.nodes[parent as usize].first_child;
            if first == NONE || !(first..first + S::CHILDREN as u32).contains(&n) {
                return false;
            }
            n = parent;
        }
    }
}
