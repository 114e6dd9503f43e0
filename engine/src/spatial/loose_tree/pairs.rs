//! Every pair of objects whose bounds overlap, found through the loose tree:
//! each node's objects against each other and against every subtree below,
//! sibling subtrees against each other where their fitted boxes meet.

use std::fmt::Debug;
use std::hash::Hash;

use super::{Item, LooseTree, NONE, Node, OUTSIDE, ROOT, Space};

impl<K: Copy + Eq + Hash + Debug, S: Space> LooseTree<K, S> {
    /// Every pair of overlapping objects (touching counts), each pair once in
    /// arbitrary order: the broad phase of collision detection.
    ///
    /// Loose cells overlap their siblings, so objects in sibling subtrees can
    /// overlap too. A first pass fits a tight box around each subtree's
    /// objects; the search then pairs each node's own objects with each
    /// other and with every subtree below, and every two sibling subtrees
    /// whose fitted boxes meet, pruning with the fitted boxes throughout.
    pub fn pairs(&mut self, out: &mut Vec<(K, K)>) {
        out.clear();
        let mut fitted = std::mem::take(&mut self.fitted);
        fitted.clear();
        fitted.resize(self.nodes.len(), S::empty());
        self.fit(ROOT, &mut fitted);
        let mut scratch = std::mem::take(&mut self.ancestors);
        scratch.clear();
        let search = PairSearch {
            nodes: &self.nodes,
            fitted: &fitted,
        };
        let outside = &self.nodes[OUTSIDE as usize].items;
        pairs_within::<K, S>(outside, out);
        search.items_vs_subtree(outside, ROOT, &mut scratch, out);
        search.self_pairs(ROOT, &mut scratch, out);
        self.ancestors = scratch;
        self.fitted = fitted;
    }

    /// Writes the box around each subtree's objects into `fitted`.
    fn fit(&self, n: u32, fitted: &mut [S::Bounds]) -> S::Bounds {
        let node = &self.nodes[n as usize];
        let mut bounds = S::empty();
        if node.count == 0 {
            return bounds;
        }
        for item in &node.items {
            bounds = S::union(&bounds, &item.bounds);
        }
        if node.first_child != NONE {
            for c in node.first_child..node.first_child + S::CHILDREN as u32 {
                bounds = S::union(&bounds, &self.fit(c, fitted));
            }
        }
        fitted[n as usize] = bounds;
        bounds
    }
}

fn pairs_within<K: Copy, S: Space>(items: &[Item<K, S::Bounds>], out: &mut Vec<(K, K)>) {
    for (i, a) in items.iter().enumerate() {
        for b in &items[i + 1..] {
            if S::intersects(&a.bounds, &b.bounds) {
                out.push((a.key, b.key));
            }
        }
    }
}

/// The tree and its fitted subtree boxes during one pair search.
struct PairSearch<'a, K, S: Space> {
    nodes: &'a [Node<K, S>],
    fitted: &'a [S::Bounds],
}

impl<K: Copy, S: Space> PairSearch<'_, K, S> {
    fn children(&self, n: u32) -> impl Iterator<Item = u32> + use<'_, K, S> {
        let first = self.nodes[n as usize].first_child;
        let range = if first == NONE {
            0..0
        } else {
            first..first + S::CHILDREN as u32
        };
        range.filter(|&c| self.nodes[c as usize].count > 0)
    }

    /// All pairs inside the subtree of `n`.
    fn self_pairs(&self, n: u32, scratch: &mut Vec<Item<K, S::Bounds>>, out: &mut Vec<(K, K)>) {
        let node = &self.nodes[n as usize];
        if node.count == 0 {
            return;
        }
        pairs_within::<K, S>(&node.items, out);
        for c in self.children(n) {
            self.items_vs_subtree(&node.items, c, scratch, out);
            self.self_pairs(c, scratch, out);
        }
        for a in self.children(n) {
            for b in self.children(n).filter(|&b| b > a) {
                if S::intersects(&self.fitted[a as usize], &self.fitted[b as usize]) {
                    self.subtree_vs_subtree(a, b, scratch, out);
                }
            }
        }
    }

    /// All pairs with one object below `a` and one below `b` (disjoint
    /// subtrees): each node of `a`'s subtree meets `b`'s subtree.
    fn subtree_vs_subtree(
        &self,
        a: u32,
        b: u32,
        scratch: &mut Vec<Item<K, S::Bounds>>,
        out: &mut Vec<(K, K)>,
    ) {
        self.items_vs_subtree(&self.nodes[a as usize].items, b, scratch, out);
        for c in self.children(a) {
            if S::intersects(&self.fitted[c as usize], &self.fitted[b as usize]) {
                self.subtree_vs_subtree(c, b, scratch, out);
            }
        }
    }

    /// All pairs between `items` (outside the subtree) and the subtree of
    /// `n`; the candidates are filtered by each subtree's fitted box on the
    /// way down, in a segment of `scratch`.
    fn items_vs_subtree(
        &self,
        items: &[Item<K, S::Bounds>],
        n: u32,
        scratch: &mut Vec<Item<K, S::Bounds>>,
        out: &mut Vec<(K, K)>,
    ) {
        let start = scratch.len();
        let bounds = &self.fitted[n as usize];
        scratch.extend(
            items
                .iter()
                .filter(|item| S::intersects(&item.bounds, bounds)),
        );
        self.segment_vs_subtree(start, n, scratch, out);
        scratch.truncate(start);
    }

    /// Pairs between `scratch[start..]` (already filtered by the fitted box
    /// of `n`) and the subtree of `n`.
    fn segment_vs_subtree(
        &self,
        start: usize,
        n: u32,
        scratch: &mut Vec<Item<K, S::Bounds>>,
        out: &mut Vec<(K, K)>,
    ) {
        let end = scratch.len();
        if start == end {
            return;
        }
        let node = &self.nodes[n as usize];
        for a in &scratch[start..end] {
            for b in &node.items {
                if S::intersects(&a.bounds, &b.bounds) {
                    out.push((a.key, b.key));
                }
            }
        }
        for c in self.children(n) {
            let bounds = self.fitted[c as usize];
            for i in start..end {
                let item = scratch[i];
                if S::intersects(&item.bounds, &bounds) {
                    scratch.push(item);
                }
            }
            self.segment_vs_subtree(end, c, scratch, out);
            scratch.truncate(end);
        }
    }
}
