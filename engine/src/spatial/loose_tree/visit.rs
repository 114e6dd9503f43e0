//! Walks of the loose tree that only read it and keep no scratch of their
//! own (the call stack is their stack, bounded by the tree's depth): what a
//! game's system asks through a shared borrow, allocating nothing. The
//! caller's closure sees each object the walk reaches and decides what it
//! keeps, so exact shape tests and filters run there.

use std::fmt::Debug;
use std::hash::Hash;

use super::{LooseTree, NONE, OUTSIDE, ROOT, Space};

impl<K: Copy + Eq + Hash + Debug, S: Space> LooseTree<K, S> {
    /// Calls `visit` with the key and bounds of every object whose bounds
    /// `test` accepts, opening only the nodes whose loose bounds it accepts,
    /// in no order.
    pub fn visit_overlapping<T, V>(&self, test: T, mut visit: V)
    where
        T: Fn(&S::Bounds) -> bool,
        V: FnMut(K, &S::Bounds),
    {
        for item in &self.nodes[OUTSIDE as usize].items {
            if test(&item.bounds) {
                visit(item.key, &item.bounds);
            }
        }
        self.overlapping_below(ROOT, &test, &mut visit);
    }

    fn overlapping_below<T, V>(&self, n: u32, test: &T, visit: &mut V)
    where
        T: Fn(&S::Bounds) -> bool,
        V: FnMut(K, &S::Bounds),
    {
        let node = &self.nodes[n as usize];
        if node.count == 0 || !test(&node.loose) {
            return;
        }
        for item in &node.items {
            if test(&item.bounds) {
                visit(item.key, &item.bounds);
            }
        }
        if node.first_child != NONE {
            for c in node.first_child..node.first_child + S::CHILDREN as u32 {
                self.overlapping_below(c, test, visit);
            }
        }
    }

    /// Nearest first: `entry` says how far away bounds begin (`None`: never
    /// reached); `visit` is called with each object whose bounds begin
    /// within the limit, with that distance, and returns the new limit (the
    /// best found so far, say). Nodes are opened nearest first and skipped
    /// once they begin beyond the limit; `limit` is the first one, and the
    /// last is returned.
    pub fn visit_nearest<E, V>(&self, entry: E, mut visit: V, mut limit: f32) -> f32
    where
        E: Fn(&S::Bounds) -> Option<f32>,
        V: FnMut(K, &S::Bounds, f32) -> f32,
    {
        for item in &self.nodes[OUTSIDE as usize].items {
            if let Some(d) = entry(&item.bounds).filter(|&d| d <= limit) {
                limit = visit(item.key, &item.bounds, d);
            }
        }
        let root = &self.nodes[ROOT as usize];
        if let Some(d) = entry(&root.loose).filter(|&d| d <= limit && root.count > 0) {
            limit = self.nearest_below(ROOT, d, &entry, &mut visit, limit);
        }
        limit
    }

    fn nearest_below<E, V>(&self, n: u32, begins: f32, entry: &E, visit: &mut V, limit: f32) -> f32
    where
        E: Fn(&S::Bounds) -> Option<f32>,
        V: FnMut(K, &S::Bounds, f32) -> f32,
    {
        let mut limit = limit;
        if begins > limit {
            return limit;
        }
        let node = &self.nodes[n as usize];
        for item in &node.items {
            if let Some(d) = entry(&item.bounds).filter(|&d| d <= limit) {
                limit = visit(item.key, &item.bounds, d);
            }
        }
        if node.first_child == NONE {
            return limit;
        }
        // At most eight children, ranked on the stack.
        let mut ranked = [(f32::INFINITY, NONE); 8];
        let mut count = 0;
        for c in node.first_child..node.first_child + S::CHILDREN as u32 {
            let child = &self.nodes[c as usize];
            if child.count == 0 {
                continue;
            }
            if let Some(d) = entry(&child.loose).filter(|&d| d <= limit) {
                ranked[count] = (d, c);
                count += 1;
            }
        }
        let ranked = &mut ranked[..count];
        ranked.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        for &(d, c) in ranked.iter() {
            limit = self.nearest_below(c, d, entry, visit, limit);
        }
        limit
    }
}
