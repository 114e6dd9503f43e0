//! Changing the local transforms of many nodes at once
//! ([`Scene::update_locals`]): the same rule as [`Scene::update_local`]
//! node by node, with each node's entries requested from memory while the
//! nodes before it are written.
//!
//! Nodes chosen at random across a large scene (1% of a million) cost a
//! chain of cache misses each: the handle's slot, then the node's local and
//! flags at the position the slot names. One call at a time, the processor
//! overlaps only the few calls its window holds; here the slots are
//! prefetched [`SLOT_AHEAD`] nodes ahead and the entries [`ENTRY_AHEAD`]
//! ahead, so the misses of a dozen nodes are in flight at once.
//!
//! Pattern: data locality.

use super::{dense_in, flag};
use crate::prefetch::prefetch;
use crate::scene::{NodeError, NodeId, Scene};
use crate::transform::Transform;

/// How many nodes ahead a slot is requested.
const SLOT_AHEAD: usize = 16;
/// How many nodes ahead the local and flags are requested (their slot,
/// requested `SLOT_AHEAD - ENTRY_AHEAD` nodes earlier, has arrived by then).
const ENTRY_AHEAD: usize = 8;

impl Scene {
    /// Changes the local transform of every node in `nodes` in place, as
    /// [`Scene::update_local`] does one: `change` gets the node's place in
    /// `nodes` and its local, and a node whose local changed becomes dirty.
    /// Returns how many changed. For writes scattered over a large scene, a
    /// batch costs a fraction of the calls one by one (their cache misses
    /// overlap).
    ///
    /// ```
    /// use keel_engine::{Scene, Transform};
    ///
    /// let mut scene = Scene::new();
    /// let buoys: Vec<_> = (0..3)
    ///     .map(|_| scene.spawn(None, "buoy", Transform::IDENTITY))
    ///     .collect::<Result<_, _>>()?;
    /// let changed = scene.update_locals(&buoys, |i, local| local.translation.y = i as f32)?;
    /// assert_eq!(changed, 2); // the first was at 0 already
    /// scene.propagate();
    /// assert_eq!(scene.world(buoys[2]).unwrap().translation.y, 2.0);
    /// # Ok::<(), keel_engine::NodeError>(())
    /// ```
    ///
    /// # Errors
    /// The first dead handle or non-finite result met, as
    /// [`Scene::update_local`] reports it; every other node is still written
    /// (that one keeps its transform).
    pub fn update_locals(
        &mut self,
        nodes: &[NodeId],
        mut change: impl FnMut(usize, &mut Transform),
    ) -> Result<usize, NodeError> {
        let mut changed = 0;
        let mut first_error = None;
        for node in nodes.iter().take(SLOT_AHEAD) {
            prefetch(&self.slots, node.index() as usize);
        }
        for (k, &node) in nodes.iter().enumerate() {
            if let Some(later) = nodes.get(k + SLOT_AHEAD) {
                prefetch(&self.slots, later.index() as usize);
            }
            if let Some(&soon) = nodes.get(k + ENTRY_AHEAD)
                && let Some(d) = dense_in(&self.slots, soon)
            {
                prefetch(&self.hot.local, d);
                prefetch(&self.hot.flags, d);
            }
            let result = self.dense_or_err(node).and_then(|d| {
                let mut local = self.hot.local[d];
                change(k, &mut local);
                self.set_local_at(node, d, local, flag::DIRTY)
            });
            match result {
                Ok(true) => changed += 1,
                Ok(false) => {}
                Err(error) => {
                    first_error.get_or_insert(error);
                }
            }
        }
        first_error.map_or(Ok(changed), Err)
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;

    /// A batch leaves the scene as the same changes one call at a time do:
    /// locals, dirty nodes, worlds after propagation, the count of changes;
    /// a dead handle and a NaN are reported and skipped, the rest written.
    #[test]
    fn a_batch_writes_what_single_updates_write() {
        let build = || {
            let mut scene = Scene::new();
            let mut nodes = Vec::new();
            for i in 0..200 {
                let parent = (i % 3 != 0).then(|| nodes[i / 2]);
                let at = Transform::from_translation(Vec3::new(i as f32, 0.0, 0.0));
                nodes.push(scene.spawn(parent, "n", at).unwrap());
            }
            scene.propagate();
            let dead = nodes[199];
            scene.despawn(dead).unwrap();
            (scene, nodes)
        };
        // Scattered, repeated, one already at its value, one NaN, and the
        // dead one twice (at k = 27, and last).
        let chosen: Vec<usize> = (0..120).map(|k| (k * 37) % 200).chain([5, 199]).collect();
        let value = |k: usize, local: &mut Transform| {
            local.translation.y = if k == 7 { f32::NAN } else { (k % 9) as f32 };
        };
        let (mut batched, nodes) = build();
        let picked: Vec<NodeId> = chosen.iter().map(|&i| nodes[i]).collect();
        let result = batched.update_locals(&picked, value);
        let (mut single, _) = build();
        let mut errors = Vec::new();
        for (k, &node) in picked.iter().enumerate() {
            if let Err(e) = single.update_local(node, |local| value(k, local)) {
                errors.push(e);
            }
        }
        assert_eq!(errors.len(), 3, "the NaN and the dead handle (twice)");
        let first = result.expect_err("the batch reports the first").to_string();
        assert_eq!(first, errors[0].to_string());
        for &node in &nodes[..199] {
            assert_eq!(batched.local(node), single.local(node));
            assert_eq!(batched.is_dirty(node), single.is_dirty(node));
        }
        let stats = (batched.propagate(), single.propagate());
        assert_eq!(stats.0.recomputed, stats.1.recomputed);
        for &node in &nodes[..199] {
            assert_eq!(batched.world(node), single.world(node));
        }
        // Without the bad ones: the count of changes.
        let (mut batched, _) = build();
        let good: Vec<NodeId> = picked[..7].to_vec();
        let (mut single, _) = build();
        let count = good
            .iter()
            .enumerate()
            .filter(|&(k, &n)| single.update_local(n, |l| value(k, l)).unwrap())
            .count();
        assert!(count > 0);
        assert_eq!(batched.update_locals(&good, value).unwrap(), count);
    }
}
