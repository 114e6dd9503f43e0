//! The loose tree's best-first searches: the `k` nearest objects to a point,
//! and every object (or the nearest) a ray enters, the ray's geometry given
//! by the caller.

use std::collections::BinaryHeap;
use std::fmt::Debug;
use std::hash::Hash;

use super::{Item, LooseTree, NONE, OUTSIDE, OrdF32, ROOT, Ranked, Space};

impl<K: Copy + Eq + Hash + Debug, S: Space> LooseTree<K, S> {
    /// The `k` objects nearest to `point` by distance to their boxes
    /// (rectangles in 2D; 0 inside), nearest first, with that distance. Ties
    /// are broken arbitrarily.
    ///
    /// Best-first search: nodes are opened in order of their distance and
    /// the search stops once the nearest unopened node is farther than the
    /// k-th best object.
    pub fn nearest(&mut self, point: S::Point, k: usize, out: &mut Vec<(K, f32)>) {
        out.clear();
        if k == 0 || !S::point_is_finite(point) {
            return;
        }
        let best = &mut self.best;
        best.clear();
        let offer = |best: &mut BinaryHeap<Ranked<K>>, item: &Item<K, S::Bounds>| {
            let d = S::distance_squared(&item.bounds, point);
            if best.len() < k {
                best.push(Ranked {
                    distance: OrdF32(d),
                    value: item.key,
                });
            } else if best.peek().is_some_and(|worst| d < worst.distance.0) {
                best.pop();
                best.push(Ranked {
                    distance: OrdF32(d),
                    value: item.key,
                });
            }
        };
        for item in &self.nodes[OUTSIDE as usize].items {
            offer(best, item);
        }
        let heap = &mut self.near_nodes;
        heap.clear();
        heap.push(std::cmp::Reverse(Ranked {
            distance: OrdF32(S::distance_squared(&self.nodes[ROOT as usize].loose, point)),
            value: ROOT,
        }));
        while let Some(std::cmp::Reverse(entry)) = heap.pop() {
            let bound = |best: &BinaryHeap<Ranked<K>>| {
                if best.len() < k {
                    f32::INFINITY
                } else {
                    best.peek().map_or(f32::INFINITY, |w| w.distance.0)
                }
            };
            if entry.distance.0 > bound(best) {
                break;
            }
            let node = &self.nodes[entry.value as usize];
            for item in &node.items {
                offer(best, item);
            }
            if node.first_child != NONE {
                for c in node.first_child..node.first_child + S::CHILDREN as u32 {
                    let child = &self.nodes[c as usize];
                    if child.count == 0 {
                        continue;
                    }
                    let d = S::distance_squared(&child.loose, point);
                    if d <= bound(best) {
                        heap.push(std::cmp::Reverse(Ranked {
                            distance: OrdF32(d),
                            value: c,
                        }));
                    }
                }
            }
        }
        out.extend(best.drain().map(|r| (r.value, r.distance.0)));
        out.sort_unstable_by(|a, b| a.1.total_cmp(&b.1));
        for entry in out.iter_mut() {
            entry.1 = entry.1.sqrt();
        }
    }

    /// Every object whose bounds `hit` enters within `max_distance` (its
    /// entry distance, or `None`), with that distance, nearest first; a
    /// node is opened only when `hit` enters its loose bounds.
    pub(in crate::spatial) fn ray_hits<H>(
        &mut self,
        hit: H,
        max_distance: f32,
        out: &mut Vec<(K, f32)>,
    ) where
        H: Fn(&S::Bounds, f32) -> Option<f32>,
    {
        for item in &self.nodes[OUTSIDE as usize].items {
            if let Some(t) = hit(&item.bounds, max_distance) {
                out.push((item.key, t));
            }
        }
        let stack = &mut self.stack;
        stack.clear();
        stack.push(ROOT);
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n as usize];
            if node.count == 0 || hit(&node.loose, max_distance).is_none() {
                continue;
            }
            for item in &node.items {
                if let Some(t) = hit(&item.bounds, max_distance) {
                    out.push((item.key, t));
                }
            }
            if node.first_child != NONE {
                stack.extend(node.first_child..node.first_child + S::CHILDREN as u32);
            }
        }
        out.sort_unstable_by(|a, b| a.1.total_cmp(&b.1));
    }

    /// The nearest object `hit` enters within `max_distance` (as
    /// [`Self::ray_hits`]), with its distance: nodes opened nearest entry
    /// first, skipped once their entry lies beyond the best hit so far.
    pub(in crate::spatial) fn ray_nearest<H>(
        &mut self,
        hit: H,
        max_distance: f32,
    ) -> Option<(K, f32)>
    where
        H: Fn(&S::Bounds, f32) -> Option<f32>,
    {
        let mut best: Option<(K, f32)> = None;
        let mut limit = max_distance;
        let mut consider = |item: &Item<K, S::Bounds>, limit: &mut f32| {
            if let Some(t) = hit(&item.bounds, *limit)
                && best.is_none_or(|(_, b)| t < b)
            {
                best = Some((item.key, t));
                *limit = t;
            }
        };
        for item in &self.nodes[OUTSIDE as usize].items {
            consider(item, &mut limit);
        }
        let heap = &mut self.near_nodes;
        heap.clear();
        if let Some(t) = hit(&self.nodes[ROOT as usize].loose, limit) {
            heap.push(std::cmp::Reverse(Ranked {
                distance: OrdF32(t),
                value: ROOT,
            }));
        }
        while let Some(std::cmp::Reverse(entry)) = heap.pop() {
            if entry.distance.0 > limit {
                break;
            }
            let node = &self.nodes[entry.value as usize];
            for item in &node.items {
                consider(item, &mut limit);
            }
            if node.first_child != NONE {
                for c in node.first_child..node.first_child + S::CHILDREN as u32 {
                    let child = &self.nodes[c as usize];
                    if child.count == 0 {
                        continue;
                    }
                    if let Some(t) = hit(&child.loose, limit) {
                        heap.push(std::cmp::Reverse(Ranked {
                            distance: OrdF32(t),
                            value: c,
                        }));
                    }
                }
            }
        }
        best
    }
}
