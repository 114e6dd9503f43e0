//! The smallest cases the model found, kept as plain tests.

use super::pose;
use crate::scene::{Keep, NodeId, Scene, Transform};

/// A spawn that fills the lowest hole leaves `first_hole` pointing at it; the
/// next sweep starts there and must not take the node for a hole.
#[test]
fn a_sweep_starting_at_a_refilled_hole_keeps_the_node_there() {
    let mut scene = Scene::new();
    let roots: Vec<NodeId> = (0..300)
        .map(|_| scene.spawn(None, "r", Transform::IDENTITY).unwrap())
        .collect();
    scene.despawn(roots[0]).unwrap();
    let refill = scene.spawn(None, "refill", Transform::IDENTITY).unwrap();
    assert_eq!(
        scene.dense(refill),
        Some(0),
        "the spawn fills the first hole"
    );
    for &r in &roots[1..] {
        scene.despawn(r).unwrap();
    }
    scene.propagate();
    // 299 holes in 300 positions: this snapshot's upkeep starts a sweep.
    scene.snapshot_previous();
    scene.assert_invariants();
    assert_eq!(scene.nodes().collect::<Vec<_>>(), [refill]);
    assert_eq!(scene.name(refill), Some("refill"));
}

/// A propagated move, then a reparent under a later parent (the subtree moves
/// to the end of the columns), then a snapshot: previous = world there too.
#[test]
fn a_snapshot_reaches_a_subtree_moved_to_the_end() {
    let mut scene = Scene::new();
    let node = scene.spawn(None, "node", Transform::IDENTITY).unwrap();
    let child = scene
        .spawn(Some(node), "child", Transform::IDENTITY)
        .unwrap();
    let parent = scene.spawn(None, "parent", Transform::IDENTITY).unwrap();
    scene.propagate();
    scene.snapshot_previous();
    scene.set_local(node, pose(10, 0, 0)).unwrap();
    scene.propagate();
    let before = scene.dense(node);
    scene.reparent(node, Some(parent), Keep::Local).unwrap();
    assert_ne!(scene.dense(node), before, "moved to the end");
    scene.snapshot_previous();
    for n in [node, child] {
        assert_eq!(scene.previous_world(n), scene.world(n), "{n}");
        assert_eq!(
            scene.interpolated_world(n, 0.5),
            scene.world(n),
            "{n} at rest"
        );
    }
}

/// A hole made behind a running sweep (below its write position) is not in
/// the sweep's way; `compact()` must still leave no hole.
#[test]
fn compact_leaves_no_hole_behind_a_running_sweep() {
    let mut scene = Scene::new();
    let roots: Vec<NodeId> = (0..5000)
        .map(|_| scene.spawn(None, "r", Transform::IDENTITY).unwrap())
        .collect();
    scene.propagate();
    scene.snapshot_previous();
    // Enough holes to start a sweep, too many positions for one step.
    let holes = 5000 / crate::scene::hierarchy::layout::SWEEP_FRACTION + 1;
    for &r in &roots[..holes] {
        scene.despawn(r).unwrap();
    }
    scene.snapshot_previous();
    assert!(
        scene.upkeep.sweeping,
        "{holes} holes in 5000: one step does not finish"
    );
    let behind = roots[holes];
    assert!((scene.dense(behind).unwrap() as u32) < scene.upkeep.write);
    scene.despawn(behind).unwrap();
    scene.compact();
    scene.assert_invariants();
    assert_eq!(scene.holes(), 0);
    assert_eq!(scene.hot.len(), 5000 - holes - 1);
}
