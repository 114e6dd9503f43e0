//! The loose octree: round trips, moves in place, bad bounds refused,
//! splitting and folding, root growth, cells, rays, random edits against its
//! own checks, and frustum queries (whole and in parts) against brute force.

use super::*;
use crate::spatial::loose_tree::{DEFAULT_LEAF_CAPACITY, MAX_GROWTH};
use glam::{Mat4, Quat};

fn world() -> Aabb {
    Aabb::new(Vec3::splat(-100.0), Vec3::splat(100.0))
}

fn cube(center: Vec3, half: f32) -> Aabb {
    Aabb::from_center_half_extents(center, Vec3::splat(half))
}

/// Deterministic scatter of points in the world (xorshift).
fn scatter(n: usize, seed: u64) -> Vec<Vec3> {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..n)
        .map(|_| Vec3::new(next(), next(), next()) * 180.0 - 90.0)
        .collect()
}

#[test]
fn insert_query_update_remove_round_trip() {
    let mut tree = LooseOctree::new(world()).unwrap();
    let points = scatter(500, 7);
    for (i, p) in points.iter().enumerate() {
        tree.insert(i, cube(*p, 0.5)).unwrap();
    }
    tree.check_invariants();
    assert_eq!(tree.len(), 500);
    let mut out = Vec::new();
    tree.query_aabb(&cube(points[3], 0.1), &mut out);
    assert!(out.contains(&3), "object 3 not found at its own position");
    tree.update(3, cube(Vec3::splat(95.0), 0.5)).unwrap();
    tree.check_invariants();
    tree.query_aabb(&cube(points[3], 0.1), &mut out);
    assert!(!out.contains(&3), "object 3 still found where it was");
    tree.query_aabb(&cube(Vec3::splat(95.0), 0.1), &mut out);
    assert!(out.contains(&3));
    assert!(tree.remove(3));
    assert!(!tree.remove(3));
    tree.check_invariants();
    assert_eq!(tree.len(), 499);
    assert_eq!(tree.get(3), None);
    assert_eq!(tree.get(4), Some(cube(points[4], 0.5)));
}

#[test]
fn small_move_is_in_place() {
    let mut tree = LooseOctree::new(world()).unwrap();
    for (i, p) in scatter(200, 3).iter().enumerate() {
        tree.insert(i, cube(*p, 0.5)).unwrap();
    }
    let before = tree.place_of(10);
    let bounds = tree.get(10).unwrap();
    let nudged = Aabb::new(bounds.min + 0.01, bounds.max + 0.01);
    tree.update(10, nudged).unwrap();
    let after = tree.place_of(10);
    assert!(before.is_some());
    assert_eq!(before, after);
    assert_eq!(tree.get(10), Some(nudged));
    tree.check_invariants();
}

#[test]
fn refuses_bad_bounds_without_changing_anything() {
    let mut tree = LooseOctree::new(world()).unwrap();
    tree.insert(1u8, cube(Vec3::ZERO, 1.0)).unwrap();
    let nan = Aabb::new(Vec3::NAN, Vec3::ONE);
    let inf = Aabb::new(Vec3::ZERO, Vec3::INFINITY);
    let inverted = Aabb::new(Vec3::ONE, Vec3::ZERO);
    for bad in [nan, inf, inverted] {
        assert!(tree.insert(2, bad).is_err());
        assert!(tree.update(1, bad).is_err());
    }
    assert!(matches!(
        tree.insert(1, cube(Vec3::ZERO, 1.0)),
        Err(SpatialError::DuplicateKey { .. })
    ));
    assert!(matches!(
        tree.update(9, cube(Vec3::ZERO, 1.0)),
        Err(SpatialError::UnknownKey { .. })
    ));
    assert_eq!(tree.len(), 1);
    assert_eq!(tree.get(1), Some(cube(Vec3::ZERO, 1.0)));
    tree.check_invariants();
    assert!(matches!(
        LooseOctree::<u8>::new(Aabb::new(Vec3::ZERO, Vec3::ZERO)),
        Err(SpatialError::EmptyWorld { .. })
    ));
    assert!(matches!(
        LooseOctree::<u8>::with_max_depth(world(), 40),
        Err(SpatialError::MaxDepthTooLarge { .. })
    ));
}

#[test]
fn splits_and_merges_back() {
    let mut tree = LooseOctree::new(world()).unwrap();
    let n = 64 * DEFAULT_LEAF_CAPACITY;
    let points = scatter(n, 11);
    for (i, p) in points.iter().enumerate() {
        tree.insert(i, cube(*p, 0.2)).unwrap();
    }
    // Spread evenly, each octant of the root gets about n / 8 objects,
    // well past the threshold, so the octants split again.
    assert!(
        tree.depth() >= 2,
        "{n} small objects: depth only {}",
        tree.depth()
    );
    tree.check_invariants();
    for i in 0..n {
        assert!(tree.remove(i));
        if i % 397 == 0 {
            tree.check_invariants();
        }
    }
    assert_eq!(tree.depth(), 0, "empty tree should fold back to its root");
    tree.check_invariants();
}

#[test]
fn root_grows_for_near_objects_and_keeps_far_ones_outside() {
    let mut tree = LooseOctree::new(world()).unwrap();
    for (i, p) in scatter(100, 5).iter().enumerate() {
        tree.insert(i, cube(*p, 0.5)).unwrap();
    }
    tree.insert(1000, cube(Vec3::new(5000.0, 0.0, 0.0), 1.0))
        .unwrap();
    assert_eq!(
        tree.outside_len(),
        0,
        "5000 units away is within the growth range"
    );
    tree.insert(1001, cube(Vec3::new(0.0, -1e9, 0.0), 1.0))
        .unwrap();
    assert_eq!(tree.outside_len(), 1);
    tree.check_invariants();
    let mut out = Vec::new();
    tree.query_aabb(&cube(Vec3::new(5000.0, 0.0, 0.0), 0.5), &mut out);
    assert_eq!(out, [1000]);
    tree.query_aabb(&cube(Vec3::new(0.0, -1e9, 0.0), 0.5), &mut out);
    assert_eq!(out, [1001]);
    // Moving the far object near the world files it in the tree.
    tree.update(1001, cube(Vec3::ZERO, 1.0)).unwrap();
    assert_eq!(tree.outside_len(), 0);
    tree.check_invariants();
}

#[test]
fn cells_cover_every_object_and_respect_depth() {
    let mut tree = LooseOctree::with_max_depth(world(), 5).unwrap();
    let points = scatter(2000, 9);
    for (i, p) in points.iter().enumerate() {
        tree.insert(i, cube(*p, 0.1)).unwrap();
    }
    let mut cells = Vec::new();
    tree.cells(&mut cells);
    assert!(!cells.is_empty());
    assert!(cells.iter().all(|(_, depth)| *depth <= 5));
    for (i, p) in points.iter().enumerate() {
        let bounds = cube(*p, 0.1);
        assert!(
            cells.iter().any(|(cell, _)| cell.contains(&bounds)),
            "object {i} lies in no reported cell"
        );
    }
}

#[test]
fn ray_queries_sort_and_prune() {
    let mut tree = LooseOctree::new(world()).unwrap();
    for i in 0..10 {
        tree.insert(i, cube(Vec3::new(10.0 * i as f32, 0.0, 0.0), 1.0))
            .unwrap();
    }
    tree.insert(99, cube(Vec3::new(50.0, 50.0, 0.0), 1.0))
        .unwrap();
    let ray = Ray::new(Vec3::new(-5.0, 0.0, 0.0), Vec3::X).unwrap();
    let mut hits = Vec::new();
    tree.raycast(&ray, f32::INFINITY, &mut hits);
    let keys: Vec<_> = hits.iter().map(|h| h.0).collect();
    assert_eq!(keys, (0..10).collect::<Vec<_>>());
    assert!(hits.windows(2).all(|w| w[0].1 <= w[1].1));
    assert_eq!(
        tree.raycast_nearest(&ray, f32::INFINITY).map(|h| h.0),
        Some(0)
    );
    tree.raycast(&ray, 30.0, &mut hits);
    assert_eq!(
        hits.len(),
        3,
        "boxes entered within 30 units (at 4, 14, 24): {hits:?}"
    );
    let up = Ray::new(Vec3::new(50.0, -10.0, 0.0), Vec3::Y).unwrap();
    assert_eq!(
        tree.raycast_nearest(&up, f32::INFINITY).map(|h| h.0),
        Some(5)
    );
    assert_eq!(tree.raycast_nearest(&up, 5.0), None);
}

#[derive(Debug, Clone)]
enum Op {
    Insert(u8, Aabb),
    Update(u8, Aabb),
    Nudge(u8, Vec3),
    Remove(u8),
}

fn op() -> impl proptest::strategy::Strategy<Value = Op> {
    use proptest::prelude::*;
    let center = prop_oneof![
        4 => prop::array::uniform3(-120.0f32..120.0).prop_map(Vec3::from),
        2 => Just(Vec3::splat(3.0)),
        1 => prop::array::uniform3(-1e5f32..1e5).prop_map(Vec3::from),
    ];
    let half = prop_oneof![3 => 0.0f32..2.0, 1 => 2.0f32..150.0];
    let bounds = (center, half).prop_map(|(c, h)| cube(c, h));
    prop_oneof![
        4 => (any::<u8>(), bounds.clone()).prop_map(|(k, b)| Op::Insert(k % 96, b)),
        2 => (any::<u8>(), bounds).prop_map(|(k, b)| Op::Update(k % 96, b)),
        2 => (any::<u8>(), prop::array::uniform3(-2.0f32..2.0)).prop_map(|(k, d)| Op::Nudge(k % 96, d.into())),
        2 => any::<u8>().prop_map(|k| Op::Remove(k % 96)),
    ]
}

proptest::proptest! {
    #[test]
    fn structure_stays_consistent_through_random_edits(
        ops in proptest::collection::vec(op(), 1..300),
        max_depth in 1u32..6,
        leaf_capacity in 1usize..10,
    ) {
        let mut tree = LooseOctree::with_config(world(), max_depth, leaf_capacity).unwrap();
        for op in ops {
            match op {
                Op::Insert(k, b) => {
                    let _ = tree.insert(k, b);
                }
                Op::Update(k, b) => {
                    let _ = tree.update(k, b);
                }
                Op::Nudge(k, d) => {
                    if let Some(b) = tree.get(k) {
                        tree.update(k, Aabb::new(b.min + d, b.max + d)).unwrap();
                    }
                }
                Op::Remove(k) => {
                    tree.remove(k);
                }
            }
            tree.check_invariants();
        }
        proptest::prop_assert!(tree.depth() <= max_depth as usize + MAX_GROWTH as usize);
    }
}

#[test]
fn frustum_query_finds_what_the_camera_sees() {
    let mut tree = LooseOctree::new(world()).unwrap();
    let points = scatter(1000, 13);
    for (i, p) in points.iter().enumerate() {
        tree.insert(i, cube(*p, 1.0)).unwrap();
    }
    let view =
        Mat4::from_rotation_translation(Quat::from_rotation_y(0.7), Vec3::new(10.0, 5.0, 60.0))
            .inverse();
    let vp = glam::camera::rh::proj::directx::perspective(1.0, 1.3, 0.5, 80.0) * view;
    let frustum = Frustum::from_view_projection(&vp);
    let mut out = Vec::new();
    tree.query_frustum(&frustum, &mut out);
    out.sort_unstable();
    let expected: Vec<_> = (0..points.len())
        .filter(|&i| frustum.intersects_aabb(&cube(points[i], 1.0)))
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(out, expected);
    // Asked in parts (as threads do), the answers together are the
    // whole answer, each object once: far objects and the root's own
    // included, whatever the number of parts.
    tree.insert(5000, cube(Vec3::splat(5000.0), 1.0)).unwrap();
    tree.insert(5001, cube(Vec3::ZERO, 150.0)).unwrap();
    let far = Frustum::from_view_projection(
        &(glam::camera::rh::proj::directx::perspective(1.0, 1.3, 0.5, 1e4)
            * glam::camera::rh::view::look_at_mat4(
                Vec3::splat(4990.0),
                Vec3::splat(5000.0),
                Vec3::Y,
            )),
    );
    for frustum in [frustum, far] {
        tree.query_frustum(&frustum, &mut out);
        out.sort_unstable();
        for parts in [1, 2, 3, 8, 9] {
            let mut stack = Vec::new();
            let mut all = Vec::new();
            for part in 0..parts {
                let mut some = vec![usize::MAX];
                let part = QueryPart {
                    index: part,
                    count: parts,
                };
                tree.query_frustum_part(&frustum, part, &mut stack, &mut some);
                all.extend(some);
            }
            all.sort_unstable();
            assert_eq!(all, out, "{parts} parts");
        }
    }
    assert!(out.contains(&5000), "the far object is answered");
}
