//! Model tests for the spatial partitions: random inserts, moves and removals
//! are applied to each structure and to a `BTreeMap`, then every query is
//! compared with brute force over the map. Plus the pathological inputs
//! production content produces: one object over the whole world among many
//! small ones, thousands of objects at one point, objects far outside the
//! world.

use std::collections::BTreeMap;

use glam::{Vec2, Vec3};
use keel_engine::spatial::{
    Aabb, Circle, Frustum, LooseOctree, Quadtree, Ray, Rect, RowGrid, SpatialError, Sphere,
};
use proptest::prelude::*;

type Key = u16;

fn normalised<K: Ord + Copy>(pairs: &[(K, K)]) -> Vec<(K, K)> {
    let mut v: Vec<_> = pairs.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
    v.sort_unstable();
    v
}

fn sorted<K: Ord + Copy>(keys: &[K]) -> Vec<K> {
    let mut v = keys.to_vec();
    v.sort_unstable();
    v
}

/// Pairs by sweep and prune along x: simple enough to trust, fast enough for
/// the 10,000-object cases where the quadratic loop would crawl in debug.
fn sweep_pairs<K: Ord + Copy, B: Copy>(
    objects: &[(K, B)],
    lo_x: impl Fn(&B) -> f32,
    hi_x: impl Fn(&B) -> f32,
    overlap: impl Fn(&B, &B) -> bool,
) -> Vec<(K, K)> {
    let mut by_x = objects.to_vec();
    by_x.sort_by(|a, b| lo_x(&a.1).total_cmp(&lo_x(&b.1)));
    let mut out = Vec::new();
    for (i, (ka, a)) in by_x.iter().enumerate() {
        for (kb, b) in &by_x[i + 1..] {
            if lo_x(b) > hi_x(a) {
                break;
            }
            if overlap(a, b) {
                out.push((*ka, *kb));
            }
        }
    }
    normalised(&out)
}

// ---------------------------------------------------------------- strategies

fn vec3_in(lo: f32, hi: f32) -> impl Strategy<Value = Vec3> {
    prop::array::uniform3(lo..hi).prop_map(Vec3::from)
}

fn vec2_in(lo: f32, hi: f32) -> impl Strategy<Value = Vec2> {
    prop::array::uniform2(lo..hi).prop_map(Vec2::from)
}

/// Box centres: mostly inside the [-50, 50] world, some on three cluster
/// points (to drive splits to the depth limit), some far outside.
fn center3() -> impl Strategy<Value = Vec3> {
    prop_oneof![
        6 => vec3_in(-60.0, 60.0),
        2 => prop::sample::select(vec![Vec3::ZERO, Vec3::splat(12.5), Vec3::new(-30.0, 7.0, 44.0)]),
        1 => vec3_in(-3000.0, 3000.0),
        1 => prop::sample::select(vec![Vec3::splat(1e9), Vec3::new(-1e30, 0.0, 5.0)]),
    ]
}

/// Half extents: mostly small, a few huge, some zero (points).
fn half3() -> impl Strategy<Value = Vec3> {
    prop_oneof![
        6 => vec3_in(0.0, 1.0).prop_map(|v| v * v * 8.0),
        1 => vec3_in(20.0, 200.0),
        1 => Just(Vec3::ZERO),
    ]
}

fn aabb() -> impl Strategy<Value = Aabb> {
    (center3(), half3()).prop_map(|(c, h)| Aabb::from_center_half_extents(c, h))
}

fn bad_aabb() -> impl Strategy<Value = Aabb> {
    prop::sample::select(vec![
        Aabb::new(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::ONE),
        Aabb::new(Vec3::ZERO, Vec3::new(1.0, f32::INFINITY, 1.0)),
        Aabb::new(Vec3::splat(f32::NEG_INFINITY), Vec3::ZERO),
        Aabb::new(Vec3::ONE, Vec3::ZERO),
    ])
}

fn center2() -> impl Strategy<Value = Vec2> {
    prop_oneof![
        6 => vec2_in(-60.0, 60.0),
        2 => prop::sample::select(vec![Vec2::ZERO, Vec2::splat(12.5), Vec2::new(-30.0, 44.0)]),
        1 => vec2_in(-3000.0, 3000.0),
        1 => prop::sample::select(vec![Vec2::splat(1e9), Vec2::new(-1e30, 5.0)]),
    ]
}

fn half2() -> impl Strategy<Value = Vec2> {
    prop_oneof![
        6 => vec2_in(0.0, 1.0).prop_map(|v| v * v * 8.0),
        1 => vec2_in(20.0, 200.0),
        1 => Just(Vec2::ZERO),
    ]
}

fn rect() -> impl Strategy<Value = Rect> {
    (center2(), half2()).prop_map(|(c, h)| Rect::from_center_half_extents(c, h))
}

fn bad_rect() -> impl Strategy<Value = Rect> {
    prop::sample::select(vec![
        Rect::new(Vec2::new(f32::NAN, 0.0), Vec2::ONE),
        Rect::new(Vec2::ZERO, Vec2::new(1.0, f32::INFINITY)),
        Rect::new(Vec2::ONE, Vec2::ZERO),
    ])
}

#[derive(Debug, Clone)]
enum Op<B, D> {
    Insert(Key, B),
    Update(Key, B),
    /// Move by a small offset (exercises the in-place path).
    Nudge(Key, D),
    Remove(Key),
    InsertBad(Key, B),
    UpdateBad(Key, B),
}

fn key() -> impl Strategy<Value = Key> {
    0..80u16
}

fn ops3() -> impl Strategy<Value = Vec<Op<Aabb, Vec3>>> {
    let op = prop_oneof![
        8 => (key(), aabb()).prop_map(|(k, b)| Op::Insert(k, b)),
        3 => (key(), aabb()).prop_map(|(k, b)| Op::Update(k, b)),
        4 => (key(), vec3_in(-0.5, 0.5)).prop_map(|(k, d)| Op::Nudge(k, d)),
        3 => key().prop_map(Op::Remove),
        1 => (key(), bad_aabb()).prop_map(|(k, b)| Op::InsertBad(k, b)),
        1 => (key(), bad_aabb()).prop_map(|(k, b)| Op::UpdateBad(k, b)),
    ];
    prop::collection::vec(op, 1..250)
}

fn ops2() -> impl Strategy<Value = Vec<Op<Rect, Vec2>>> {
    let op = prop_oneof![
        8 => (key(), rect()).prop_map(|(k, b)| Op::Insert(k, b)),
        3 => (key(), rect()).prop_map(|(k, b)| Op::Update(k, b)),
        4 => (key(), vec2_in(-0.5, 0.5)).prop_map(|(k, d)| Op::Nudge(k, d)),
        3 => key().prop_map(Op::Remove),
        1 => (key(), bad_rect()).prop_map(|(k, b)| Op::InsertBad(k, b)),
        1 => (key(), bad_rect()).prop_map(|(k, b)| Op::UpdateBad(k, b)),
    ];
    prop::collection::vec(op, 1..250)
}

/// The mutating half of every structure's API, so one driver checks all.
trait Structure<B> {
    fn insert(&mut self, key: Key, bounds: B) -> Result<(), SpatialError>;
    fn update(&mut self, key: Key, bounds: B) -> Result<(), SpatialError>;
    fn remove(&mut self, key: Key) -> bool;
    fn get(&self, key: Key) -> Option<B>;
    fn len(&self) -> usize;
}

macro_rules! structure {
    ($t:ty, $b:ty) => {
        impl Structure<$b> for $t {
            fn insert(&mut self, key: Key, bounds: $b) -> Result<(), SpatialError> {
                <$t>::insert(self, key, bounds)
            }
            fn update(&mut self, key: Key, bounds: $b) -> Result<(), SpatialError> {
                <$t>::update(self, key, bounds)
            }
            fn remove(&mut self, key: Key) -> bool {
                <$t>::remove(self, key)
            }
            fn get(&self, key: Key) -> Option<$b> {
                <$t>::get(self, key)
            }
            fn len(&self) -> usize {
                <$t>::len(self)
            }
        }
    };
}

structure!(LooseOctree<Key>, Aabb);
structure!(Quadtree<Key>, Rect);
structure!(RowGrid<Key>, Rect);

/// Applies `ops` to the structure and the model, checking every result.
fn run_ops<B, D, S>(
    structure: &mut S,
    ops: &[Op<B, D>],
    shift: impl Fn(&B, D) -> B,
) -> Result<BTreeMap<Key, B>, TestCaseError>
where
    B: Copy + PartialEq + std::fmt::Debug,
    D: Copy,
    S: Structure<B>,
{
    let mut model = BTreeMap::new();
    for op in ops {
        match *op {
            Op::Insert(k, b) => {
                let result = structure.insert(k, b);
                match model.entry(k) {
                    std::collections::btree_map::Entry::Occupied(_) => {
                        let duplicate = matches!(result, Err(SpatialError::DuplicateKey { .. }));
                        prop_assert!(duplicate, "insert of present key {k}: {result:?}");
                    }
                    std::collections::btree_map::Entry::Vacant(slot) => {
                        prop_assert!(result.is_ok(), "insert {k} {b:?}: {result:?}");
                        slot.insert(b);
                    }
                }
            }
            Op::Update(k, b) => {
                let result = structure.update(k, b);
                match model.get_mut(&k) {
                    Some(stored) => {
                        prop_assert!(result.is_ok(), "update {k} {b:?}: {result:?}");
                        *stored = b;
                    }
                    None => {
                        let unknown = matches!(result, Err(SpatialError::UnknownKey { .. }));
                        prop_assert!(unknown, "update of absent key {k}: {result:?}");
                    }
                }
            }
            Op::Nudge(k, d) => {
                if let Some(old) = model.get(&k).copied() {
                    let moved = shift(&old, d);
                    prop_assert!(structure.update(k, moved).is_ok());
                    model.insert(k, moved);
                }
            }
            Op::Remove(k) => {
                prop_assert_eq!(structure.remove(k), model.remove(&k).is_some());
            }
            Op::InsertBad(k, b) => {
                prop_assert!(structure.insert(k, b).is_err(), "accepted bad bounds {b:?}");
            }
            Op::UpdateBad(k, b) => {
                prop_assert!(structure.update(k, b).is_err(), "accepted bad bounds {b:?}");
            }
        }
        prop_assert_eq!(structure.len(), model.len());
    }
    for (k, b) in &model {
        prop_assert_eq!(structure.get(*k), Some(*b), "stored bounds of {}", k);
    }
    Ok(model)
}

// ------------------------------------------------------------------ queries

fn frustum_from(eye: Vec3, target: Vec3, fov: f32, near: f32, depth: f32) -> Frustum {
    let forward = target - eye;
    let forward = if forward.length() < 1.0 {
        Vec3::NEG_Z
    } else {
        forward
    };
    let up = if forward.normalize().y.abs() > 0.99 {
        Vec3::Z
    } else {
        Vec3::Y
    };
    let view = glam::camera::rh::view::look_to_mat4(eye, forward, up);
    Frustum::from_view_projection(
        &(glam::camera::rh::proj::directx::perspective(fov, 1.4, near, near + depth) * view),
    )
}

#[derive(Debug, Clone)]
struct Queries3 {
    boxes: Vec<Aabb>,
    spheres: Vec<Sphere>,
    rays: Vec<(Vec3, Vec3, f32)>,
    points: Vec<(Vec3, usize)>,
    frusta: Vec<(Vec3, Vec3, f32, f32, f32)>,
}

fn queries3() -> impl Strategy<Value = Queries3> {
    let ray_dir = prop_oneof![
        3 => vec3_in(-1.0, 1.0),
        1 => prop::sample::select(vec![Vec3::X, Vec3::NEG_Y, Vec3::Z, Vec3::new(1.0, 1.0, 0.0)]),
    ];
    let max_distance = prop_oneof![Just(f32::INFINITY), 0.0f32..150.0];
    (
        prop::collection::vec(aabb(), 4),
        prop::collection::vec(
            (center3(), 0.0f32..80.0).prop_map(|(c, r)| Sphere::new(c, r)),
            3,
        ),
        prop::collection::vec((vec3_in(-80.0, 80.0), ray_dir, max_distance), 4),
        prop::collection::vec((center3(), 0usize..12), 3),
        prop::collection::vec(
            (
                vec3_in(-80.0, 80.0),
                vec3_in(-60.0, 60.0),
                0.3f32..2.5,
                0.1f32..5.0,
                1.0f32..300.0,
            ),
            2,
        ),
    )
        .prop_map(|(boxes, spheres, rays, points, frusta)| Queries3 {
            boxes,
            spheres,
            rays,
            points,
            frusta,
        })
}

fn check_octree_queries(
    tree: &mut LooseOctree<Key>,
    model: &BTreeMap<Key, Aabb>,
    q: &Queries3,
) -> Result<(), TestCaseError> {
    let mut out = Vec::new();
    for area in &q.boxes {
        tree.query_aabb(area, &mut out);
        let expected: Vec<_> = model
            .iter()
            .filter(|(_, b)| b.intersects(area))
            .map(|(k, _)| *k)
            .collect();
        prop_assert_eq!(sorted(&out), expected, "aabb query {:?}", area);
    }
    for sphere in &q.spheres {
        tree.query_sphere(sphere, &mut out);
        let expected: Vec<_> = model
            .iter()
            .filter(|(_, b)| sphere.intersects_aabb(b))
            .map(|(k, _)| *k)
            .collect();
        prop_assert_eq!(sorted(&out), expected, "sphere query {:?}", sphere);
    }
    for &(eye, target, fov, near, depth) in &q.frusta {
        let frustum = frustum_from(eye, target, fov, near, depth);
        tree.query_frustum(&frustum, &mut out);
        let expected: Vec<_> = model
            .iter()
            .filter(|(_, b)| frustum.intersects_aabb(b))
            .map(|(k, _)| *k)
            .collect();
        prop_assert_eq!(
            sorted(&out),
            expected,
            "frustum query from {} to {}",
            eye,
            target
        );
    }
    let mut hits = Vec::new();
    for &(origin, dir, max_distance) in &q.rays {
        let Ok(ray) = Ray::new(origin, dir) else {
            continue;
        };
        tree.raycast(&ray, max_distance, &mut hits);
        prop_assert!(
            hits.windows(2).all(|w| w[0].1 <= w[1].1),
            "hits not nearest-first: {hits:?}"
        );
        let mut expected: Vec<(Key, f32)> = model
            .iter()
            .filter_map(|(k, b)| {
                ray.intersect_aabb(b)
                    .filter(|t| *t <= max_distance)
                    .map(|t| (*k, t))
            })
            .collect();
        let by_distance_then_key =
            |a: &(Key, f32), b: &(Key, f32)| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0));
        expected.sort_by(by_distance_then_key);
        hits.sort_by(by_distance_then_key);
        prop_assert_eq!(&hits, &expected, "raycast {:?}", ray);
        let nearest = tree.raycast_nearest(&ray, max_distance);
        prop_assert_eq!(
            nearest.map(|h| h.1),
            expected.first().map(|h| h.1),
            "nearest hit of {:?}",
            ray
        );
        if let Some((k, t)) = nearest {
            prop_assert_eq!(ray.intersect_aabb(&model[&k]), Some(t));
        }
    }
    let mut near = Vec::new();
    for &(point, k) in &q.points {
        tree.nearest(point, k, &mut near);
        let mut expected: Vec<f32> = model
            .values()
            .map(|b| b.distance_squared_to_point(point).sqrt())
            .collect();
        expected.sort_by(f32::total_cmp);
        expected.truncate(k);
        let got: Vec<f32> = near.iter().map(|h| h.1).collect();
        prop_assert_eq!(got, expected, "nearest {} to {}", k, point);
        for (key, d) in &near {
            prop_assert_eq!(*d, model[key].distance_squared_to_point(point).sqrt());
        }
        prop_assert_eq!(
            sorted(&near.iter().map(|h| h.0).collect::<Vec<_>>())
                .windows(2)
                .filter(|w| w[0] == w[1])
                .count(),
            0
        );
    }
    let mut pairs = Vec::new();
    tree.pairs(&mut pairs);
    let objects: Vec<_> = model.iter().map(|(k, b)| (*k, *b)).collect();
    let mut expected = Vec::new();
    for (i, (ka, a)) in objects.iter().enumerate() {
        for (kb, b) in &objects[i + 1..] {
            if a.intersects(b) {
                expected.push((*ka, *kb));
            }
        }
    }
    prop_assert_eq!(normalised(&pairs), normalised(&expected), "pairs");
    Ok(())
}

#[derive(Debug, Clone)]
struct Queries2 {
    rects: Vec<Rect>,
    circles: Vec<Circle>,
    points: Vec<(Vec2, usize)>,
}

fn queries2() -> impl Strategy<Value = Queries2> {
    (
        prop::collection::vec(rect(), 4),
        prop::collection::vec(
            (center2(), 0.0f32..80.0).prop_map(|(c, r)| Circle::new(c, r)),
            3,
        ),
        prop::collection::vec((center2(), 0usize..12), 3),
    )
        .prop_map(|(rects, circles, points)| Queries2 {
            rects,
            circles,
            points,
        })
}

fn brute_pairs_2d(model: &BTreeMap<Key, Rect>) -> Vec<(Key, Key)> {
    let objects: Vec<_> = model.iter().map(|(k, b)| (*k, *b)).collect();
    let mut expected = Vec::new();
    for (i, (ka, a)) in objects.iter().enumerate() {
        for (kb, b) in &objects[i + 1..] {
            if a.intersects(b) {
                expected.push((*ka, *kb));
            }
        }
    }
    normalised(&expected)
}

fn brute_rect_query(model: &BTreeMap<Key, Rect>, area: &Rect) -> Vec<Key> {
    model
        .iter()
        .filter(|(_, b)| b.intersects(area))
        .map(|(k, _)| *k)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn octree_matches_brute_force(
        ops in ops3(),
        queries in queries3(),
        max_depth in 2u32..8,
        leaf_capacity in prop_oneof![1usize..8, Just(64)],
    ) {
        let world = Aabb::new(Vec3::splat(-50.0), Vec3::splat(50.0));
        let mut tree = LooseOctree::with_config(world, max_depth, leaf_capacity).unwrap();
        let model = run_ops(&mut tree, &ops, |b, d| Aabb::new(b.min + d, b.max + d))?;
        check_octree_queries(&mut tree, &model, &queries)?;
        let mut cells = Vec::new();
        tree.cells(&mut cells);
        for (k, b) in &model {
            let filed = cells.iter().any(|(cell, _)| cell.contains(b));
            prop_assert!(filed || tree.outside_len() > 0, "object {} in no cell", k);
        }
        tree.clear();
        prop_assert!(tree.is_empty());
        check_octree_queries(&mut tree, &BTreeMap::new(), &queries)?;
    }

    #[test]
    fn quadtree_matches_brute_force(
        ops in ops2(),
        queries in queries2(),
        max_depth in 2u32..8,
        leaf_capacity in prop_oneof![1usize..8, Just(64)],
    ) {
        let world = Rect::new(Vec2::splat(-50.0), Vec2::splat(50.0));
        let mut tree = Quadtree::with_config(world, max_depth, leaf_capacity).unwrap();
        let model = run_ops(&mut tree, &ops, |b, d| Rect::new(b.min + d, b.max + d))?;
        let mut out = Vec::new();
        for area in &queries.rects {
            tree.query_rect(area, &mut out);
            prop_assert_eq!(sorted(&out), brute_rect_query(&model, area), "rect query {:?}", area);
        }
        for circle in &queries.circles {
            tree.query_circle(circle, &mut out);
            let expected: Vec<_> = model.iter().filter(|(_, b)| circle.intersects_rect(b)).map(|(k, _)| *k).collect();
            prop_assert_eq!(sorted(&out), expected, "circle query {:?}", circle);
        }
        let mut near = Vec::new();
        for &(point, k) in &queries.points {
            tree.nearest(point, k, &mut near);
            let mut expected: Vec<f32> = model.values().map(|b| b.distance_squared_to_point(point).sqrt()).collect();
            expected.sort_by(f32::total_cmp);
            expected.truncate(k);
            prop_assert_eq!(near.iter().map(|h| h.1).collect::<Vec<_>>(), expected);
            for (key, d) in &near {
                prop_assert_eq!(*d, model[key].distance_squared_to_point(point).sqrt());
            }
        }
        let mut pairs = Vec::new();
        tree.pairs(&mut pairs);
        prop_assert_eq!(normalised(&pairs), brute_pairs_2d(&model));
    }

    #[test]
    fn row_grid_matches_brute_force(ops in ops2(), queries in queries2(), cell in 1.5f32..30.0) {
        let world = Rect::new(Vec2::splat(-50.0), Vec2::splat(50.0));
        let mut grid = RowGrid::new(world, cell).unwrap();
        let model = run_ops(&mut grid, &ops, |b, d| Rect::new(b.min + d, b.max + d))?;
        let mut out = Vec::new();
        for area in &queries.rects {
            grid.query_rect(area, &mut out);
            let got = sorted(&out);
            prop_assert!(got.windows(2).all(|w| w[0] != w[1]), "duplicates in {got:?}");
            prop_assert_eq!(got, brute_rect_query(&model, area), "rect query {:?}", area);
        }
        let mut pairs = Vec::new();
        grid.pairs(&mut pairs);
        prop_assert_eq!(normalised(&pairs), brute_pairs_2d(&model));
        // The same contents loaded in one batch answer the same.
        let mut bulk = RowGrid::new(world, cell).unwrap();
        bulk.insert_batch(model.iter().map(|(k, r)| (*k, *r))).unwrap();
        prop_assert_eq!(bulk.len(), model.len());
        for area in &queries.rects {
            bulk.query_rect(area, &mut out);
            prop_assert_eq!(sorted(&out), brute_rect_query(&model, area), "batch-built rect query {:?}", area);
        }
        bulk.pairs(&mut pairs);
        prop_assert_eq!(normalised(&pairs), brute_pairs_2d(&model));
        grid.clear();
        grid.query_rect(&world, &mut out);
        prop_assert!(out.is_empty() && grid.is_empty());
    }
}

// ------------------------------------------------------------- pathological

/// Deterministic small boxes spread over the world (xorshift).
fn scatter(n: usize, seed: u64, extent: f32) -> Vec<Vec3> {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..n)
        .map(|_| (Vec3::new(next(), next(), next()) * 2.0 - 1.0) * extent)
        .collect()
}

const WORLD_HALF: f32 = 500.0;

fn world3() -> Aabb {
    Aabb::new(Vec3::splat(-WORLD_HALF), Vec3::splat(WORLD_HALF))
}

fn world2() -> Rect {
    Rect::new(Vec2::splat(-WORLD_HALF), Vec2::splat(WORLD_HALF))
}

fn flat(v: Vec3) -> Vec2 {
    Vec2::new(v.x, v.z)
}

#[test]
fn one_object_over_the_whole_world_among_10000_small_ones() {
    let points = scatter(10_000, 21, WORLD_HALF * 0.98);
    let huge = 10_000u32;
    let mut octree = LooseOctree::new(world3()).unwrap();
    let mut quadtree = Quadtree::new(world2()).unwrap();
    let mut grid = RowGrid::new(world2(), 10.0).unwrap();
    octree.insert(huge, world3()).unwrap();
    quadtree.insert(huge, world2()).unwrap();
    grid.insert(huge, world2()).unwrap();
    let mut boxes = vec![(huge, world3())];
    for (i, p) in points.iter().enumerate() {
        let b = Aabb::from_center_half_extents(*p, Vec3::splat(1.0));
        octree.insert(i as u32, b).unwrap();
        quadtree.insert(i as u32, b.ground_rect()).unwrap();
        grid.insert(i as u32, b.ground_rect()).unwrap();
        boxes.push((i as u32, b));
    }
    assert_eq!(
        octree.outside_len(),
        0,
        "the world-sized box fits the loose root"
    );
    assert!(
        octree.depth() >= 3,
        "small objects must still be filed deep, depth {}",
        octree.depth()
    );

    let area = Aabb::new(Vec3::new(-40.0, -500.0, 10.0), Vec3::new(25.0, 500.0, 60.0));
    let expected: Vec<u32> = sorted(
        &boxes
            .iter()
            .filter(|(_, b)| b.intersects(&area))
            .map(|(k, _)| *k)
            .collect::<Vec<_>>(),
    );
    let mut out = Vec::new();
    octree.query_aabb(&area, &mut out);
    assert_eq!(sorted(&out), expected);
    quadtree.query_rect(&area.ground_rect(), &mut out);
    assert_eq!(sorted(&out), expected);
    grid.query_rect(&area.ground_rect(), &mut out);
    assert_eq!(sorted(&out), expected);

    let expected3 = sweep_pairs(&boxes, |b| b.min.x, |b| b.max.x, |a, b| a.intersects(b));
    let rects: Vec<_> = boxes.iter().map(|(k, b)| (*k, b.ground_rect())).collect();
    let expected2 = sweep_pairs(&rects, |r| r.min.x, |r| r.max.x, |a, b| a.intersects(b));
    assert!(
        expected3.len() >= 10_000,
        "the huge box overlaps everything"
    );
    let mut pairs = Vec::new();
    octree.pairs(&mut pairs);
    assert_eq!(normalised(&pairs), expected3);
    quadtree.pairs(&mut pairs);
    assert_eq!(normalised(&pairs), expected2);
    grid.pairs(&mut pairs);
    assert_eq!(normalised(&pairs), expected2);

    // Moving the huge object away and back keeps everything consistent.
    let shifted = Aabb::new(world3().min + 3.0, world3().max + 3.0);
    octree.update(huge, shifted).unwrap();
    grid.update(huge, shifted.ground_rect()).unwrap();
    assert!(octree.remove(huge) && grid.remove(huge) && quadtree.remove(huge));
    octree.query_aabb(&area, &mut out);
    assert_eq!(sorted(&out), expected[..expected.len() - 1]);
}

#[test]
fn ten_thousand_objects_at_one_point() {
    let spot = Vec3::new(3.25, -7.5, 11.0);
    let b = Aabb::from_center_half_extents(spot, Vec3::splat(0.01));
    let max_depth = 10;
    let mut octree = LooseOctree::with_max_depth(world3(), max_depth).unwrap();
    let mut quadtree = Quadtree::with_max_depth(world2(), max_depth).unwrap();
    let mut grid = RowGrid::new(world2(), 5.0).unwrap();
    for i in 0..10_000u32 {
        octree.insert(i, b).unwrap();
        quadtree.insert(i, b.ground_rect()).unwrap();
        grid.insert(i, b.ground_rect()).unwrap();
    }
    assert!(
        octree.depth() <= max_depth as usize,
        "depth {} past the limit",
        octree.depth()
    );
    assert!(
        quadtree.depth() <= max_depth as usize,
        "depth {} past the limit",
        quadtree.depth()
    );

    let probe = Aabb::from_center_half_extents(spot, Vec3::splat(0.001));
    let elsewhere = Aabb::from_center_half_extents(spot + 1.0, Vec3::splat(0.5));
    let mut out = Vec::new();
    octree.query_aabb(&probe, &mut out);
    assert_eq!(out.len(), 10_000);
    octree.query_aabb(&elsewhere, &mut out);
    assert!(out.is_empty());
    quadtree.query_rect(&probe.ground_rect(), &mut out);
    assert_eq!(out.len(), 10_000);
    grid.query_rect(&probe.ground_rect(), &mut out);
    assert_eq!(out.len(), 10_000);
    grid.query_rect(&elsewhere.ground_rect(), &mut out);
    assert!(out.is_empty());

    let mut near = Vec::new();
    octree.nearest(spot, 7, &mut near);
    assert_eq!(near.len(), 7);
    assert!(near.iter().all(|h| h.1 == 0.0));
    let ray = Ray::new(spot - Vec3::X * 5.0, Vec3::X).unwrap();
    let mut hits = Vec::new();
    octree.raycast(&ray, f32::INFINITY, &mut hits);
    assert_eq!(hits.len(), 10_000);
    assert!(octree.raycast_nearest(&ray, f32::INFINITY).is_some());

    for i in (0..10_000u32).step_by(2) {
        assert!(octree.remove(i) && quadtree.remove(i) && grid.remove(i));
    }
    octree.query_aabb(&probe, &mut out);
    assert_eq!(out.len(), 5_000);
    quadtree.query_rect(&probe.ground_rect(), &mut out);
    assert_eq!(out.len(), 5_000);
    grid.query_rect(&probe.ground_rect(), &mut out);
    assert_eq!(out.len(), 5_000);

    // Pairs among co-located objects are all of them: n (n - 1) / 2.
    let n = 400u32;
    let mut small = LooseOctree::with_max_depth(world3(), max_depth).unwrap();
    let mut small_grid = RowGrid::new(world2(), 5.0).unwrap();
    for i in 0..n {
        small.insert(i, b).unwrap();
        small_grid.insert(i, b.ground_rect()).unwrap();
    }
    let mut pairs = Vec::new();
    small.pairs(&mut pairs);
    assert_eq!(normalised(&pairs).len(), (n * (n - 1) / 2) as usize);
    small_grid.pairs(&mut pairs);
    assert_eq!(normalised(&pairs).len(), (n * (n - 1) / 2) as usize);
}

#[test]
fn objects_far_outside_the_initial_bounds_are_found() {
    let far = [
        Vec3::new(2_000.0, 0.0, 0.0),
        Vec3::new(-40_000.0, 1_000.0, 3.0),
        Vec3::new(0.0, 0.0, 600_000.0),
        Vec3::splat(1e12),
        Vec3::new(-1e30, 1e30, 0.0),
    ];
    let mut octree = LooseOctree::new(world3()).unwrap();
    let mut quadtree = Quadtree::new(world2()).unwrap();
    let mut grid = RowGrid::new(world2(), 10.0).unwrap();
    let mut boxes = Vec::new();
    for (i, p) in scatter(500, 5, WORLD_HALF).iter().enumerate() {
        boxes.push((
            i as u32,
            Aabb::from_center_half_extents(*p, Vec3::splat(2.0)),
        ));
    }
    for (i, p) in far.iter().enumerate() {
        boxes.push((
            1000 + i as u32,
            Aabb::from_center_half_extents(*p, Vec3::splat(1.0)),
        ));
    }
    for (k, b) in &boxes {
        octree.insert(*k, *b).unwrap();
        quadtree.insert(*k, b.ground_rect()).unwrap();
        grid.insert(*k, b.ground_rect()).unwrap();
    }
    assert!(octree.outside_len() >= 1, "1e30 is beyond any growth");
    let mut out = Vec::new();
    for (i, p) in far.iter().enumerate() {
        let probe = Aabb::from_center_half_extents(*p, Vec3::splat(0.5));
        let key = 1000 + i as u32;
        octree.query_aabb(&probe, &mut out);
        assert_eq!(out, [key], "octree lost the object at {p}");
        quadtree.query_rect(&probe.ground_rect(), &mut out);
        assert_eq!(out, [key], "quadtree lost the object at {p}");
        grid.query_rect(&probe.ground_rect(), &mut out);
        assert_eq!(out, [key], "grid lost the object at {p}");
        let mut near = Vec::new();
        octree.nearest(*p, 1, &mut near);
        assert_eq!(near, [(key, 0.0)]);
        quadtree.nearest(flat(*p), 1, &mut near);
        assert_eq!(near, [(key, 0.0)]);
    }
    let ray = Ray::new(Vec3::new(1_000.0, 0.0, 0.0), Vec3::X).unwrap();
    assert_eq!(
        octree.raycast_nearest(&ray, f32::INFINITY).map(|h| h.0),
        Some(1000)
    );

    // Everything still agrees with brute force after moving far objects in
    // and near objects out.
    for (k, b) in boxes.iter_mut().step_by(7) {
        let moved = if b.center().length() > 1e4 {
            Aabb::from_center_half_extents(Vec3::ZERO, Vec3::ONE)
        } else {
            Aabb::new(b.min * 90.0, b.max * 90.0)
        };
        *b = moved;
        octree.update(*k, moved).unwrap();
        quadtree.update(*k, moved.ground_rect()).unwrap();
        grid.update(*k, moved.ground_rect()).unwrap();
    }
    let everywhere = Aabb::new(Vec3::splat(-1e31), Vec3::splat(1e31));
    octree.query_aabb(&everywhere, &mut out);
    assert_eq!(out.len(), boxes.len());
    for area in [
        Aabb::new(Vec3::splat(-100.0), Vec3::splat(300.0)),
        Aabb::new(Vec3::splat(-5e4), Vec3::splat(-1e3)),
    ] {
        let expected = sorted(
            &boxes
                .iter()
                .filter(|(_, b)| b.intersects(&area))
                .map(|(k, _)| *k)
                .collect::<Vec<_>>(),
        );
        octree.query_aabb(&area, &mut out);
        assert_eq!(sorted(&out), expected);
        let flat_expected = sorted(
            &boxes
                .iter()
                .filter(|(_, b)| b.ground_rect().intersects(&area.ground_rect()))
                .map(|(k, _)| *k)
                .collect::<Vec<_>>(),
        );
        quadtree.query_rect(&area.ground_rect(), &mut out);
        assert_eq!(sorted(&out), flat_expected);
        grid.query_rect(&area.ground_rect(), &mut out);
        assert_eq!(sorted(&out), flat_expected);
    }
    let mut pairs = Vec::new();
    octree.pairs(&mut pairs);
    assert_eq!(
        normalised(&pairs),
        sweep_pairs(&boxes, |b| b.min.x, |b| b.max.x, |a, b| a.intersects(b))
    );
}
