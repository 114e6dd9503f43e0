//! Spatial partition benchmarks: the loose octree and the row grid against
//! brute force and against rstar's R*-tree, all on the same seeded data
//! (uniform box centres in a 1000-unit cube, box sizes skewed so that most
//! are small and a few are large).
//!
//! Run: `cargo bench -p keel-engine --bench spatial -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{
    BenchmarkGroup, Criterion, SamplingMode, criterion_group, criterion_main, measurement::WallTime,
};
use glam::{Vec2, Vec3};
use keel_engine::spatial::{Aabb, LooseOctree, Ray, Rect, RowGrid};
use rstar::{AABB, RTree, RTreeObject};

/// Side of the world cube.
const WORLD: f32 = 1000.0;
const BIG: usize = 100_000;
const PAIRS: usize = 10_000;
const QUERIES: usize = 1000;
const RECTS: usize = 1_000_000;

/// splitmix64: small, fast and good enough to scatter benchmark data.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    fn vec3(&mut self, lo: f32, hi: f32) -> Vec3 {
        Vec3::new(self.range(lo, hi), self.range(lo, hi), self.range(lo, hi))
    }

    fn direction(&mut self) -> Vec3 {
        loop {
            let v = self.vec3(-1.0, 1.0);
            let length = v.length();
            if length > 0.1 && length <= 1.0 {
                return v / length;
            }
        }
    }
}

/// `n` boxes: uniform centres; side `1 + 63 u^8` (mean 8, about 8% above
/// 32) stretched by up to 50% per axis.
fn boxes(n: usize, seed: u64) -> Vec<Aabb> {
    let mut rng = SplitMix64(seed);
    (0..n)
        .map(|_| {
            let center = rng.vec3(0.0, WORLD);
            let side = 1.0 + 63.0 * keel_engine::math::powf(rng.unit(), 8.0);
            let stretch = rng.vec3(0.5, 1.5);
            Aabb::from_center_half_extents(center, stretch * side * 0.5)
        })
        .collect()
}

/// Query boxes of 1% of the world volume, inside the world.
fn query_boxes(seed: u64) -> Vec<Aabb> {
    let mut rng = SplitMix64(seed);
    let side = WORLD * keel_engine::math::cbrt(0.01f32);
    (0..QUERIES)
        .map(|_| {
            let center = rng.vec3(0.5 * side, WORLD - 0.5 * side);
            Aabb::from_center_half_extents(center, Vec3::splat(0.5 * side))
        })
        .collect()
}

fn rays(seed: u64) -> Vec<Ray> {
    let mut rng = SplitMix64(seed);
    (0..QUERIES)
        .map(|_| {
            let origin = rng.vec3(0.0, WORLD);
            let dir = rng.direction();
            Ray::new(origin, dir).expect("unit direction")
        })
        .collect()
}

/// Small per-frame displacements for every tenth object.
fn moves(n: usize, seed: u64) -> Vec<(usize, Vec3)> {
    let mut rng = SplitMix64(seed);
    (0..n)
        .step_by(10)
        .map(|i| (i, rng.direction() * rng.range(0.1, 1.0)))
        .collect()
}

fn world() -> Aabb {
    Aabb::new(Vec3::ZERO, Vec3::splat(WORLD))
}

fn build_octree(data: &[Aabb]) -> LooseOctree<u32> {
    let mut tree = LooseOctree::new(world()).expect("valid world");
    for (i, b) in data.iter().enumerate() {
        tree.insert(i as u32, *b).expect("finite bounds");
    }
    tree
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct RBox {
    min: [f32; 3],
    max: [f32; 3],
    key: u32,
}

impl RBox {
    fn new(b: &Aabb, key: u32) -> Self {
        Self {
            min: b.min.to_array(),
            max: b.max.to_array(),
            key,
        }
    }
}

impl RTreeObject for RBox {
    type Envelope = AABB<[f32; 3]>;

    fn envelope(&self) -> Self::Envelope {
        AABB::from_corners(self.min, self.max)
    }
}

fn rboxes(data: &[Aabb]) -> Vec<RBox> {
    data.iter()
        .enumerate()
        .map(|(i, b)| RBox::new(b, i as u32))
        .collect()
}

fn brute_query(data: &[Aabb], area: &Aabb, out: &mut Vec<u32>) {
    out.clear();
    out.extend(
        data.iter()
            .enumerate()
            .filter(|(_, b)| b.intersects(area))
            .map(|(i, _)| i as u32),
    );
}

fn brute_ray(data: &[Aabb], ray: &Ray) -> Option<(u32, f32)> {
    let mut best: Option<(u32, f32)> = None;
    for (i, b) in data.iter().enumerate() {
        if let Some(t) = ray.intersect_aabb(b)
            && best.is_none_or(|(_, d)| t < d)
        {
            best = Some((i as u32, t));
        }
    }
    best
}

fn brute_pairs(data: &[Aabb], out: &mut Vec<(u32, u32)>) {
    out.clear();
    for (i, a) in data.iter().enumerate() {
        for (j, b) in data.iter().enumerate().skip(i + 1) {
            if a.intersects(b) {
                out.push((i as u32, j as u32));
            }
        }
    }
}

/// The grid works on the ground plane: it finds the pairs whose x/z
/// footprints overlap, and the y test completes the 3D answer.
fn grid_pairs(
    grid: &mut RowGrid<u32>,
    data: &[Aabb],
    flat: &mut Vec<(u32, u32)>,
    out: &mut Vec<(u32, u32)>,
) {
    grid.pairs(flat);
    out.clear();
    out.extend(flat.iter().copied().filter(|&(a, b)| {
        let (a, b) = (&data[a as usize], &data[b as usize]);
        a.min.y <= b.max.y && b.min.y <= a.max.y
    }));
}

fn sorted_pairs(pairs: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut v: Vec<_> = pairs.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
    v.sort_unstable();
    v
}

fn bench_build(group: &mut BenchmarkGroup<'_, WallTime>, data: &[Aabb]) {
    group.bench_function("build/octree/100000", |b| {
        b.iter_custom(|iters| timed_with_drop(iters, || build_octree(black_box(data))));
    });
    let objects = rboxes(data);
    group.bench_function("build/rstar/100000", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let input = objects.clone();
                let start = Instant::now();
                let tree = RTree::bulk_load(black_box(input));
                total += start.elapsed();
                drop(black_box(tree));
            }
            total
        });
    });
}

/// Times `build` alone: the structure is dropped outside the measurement.
fn timed_with_drop<T>(iters: u64, mut build: impl FnMut() -> T) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let start = Instant::now();
        let built = build();
        total += start.elapsed();
        drop(black_box(built));
    }
    total
}

fn bench_queries(group: &mut BenchmarkGroup<'_, WallTime>, data: &[Aabb]) {
    let queries = query_boxes(2);
    let mut octree = build_octree(data);
    let rtree = RTree::bulk_load(rboxes(data));
    let mut out = Vec::new();
    let mut expected = Vec::new();
    for q in queries.iter().take(20) {
        octree.query_aabb(q, &mut out);
        brute_query(data, q, &mut expected);
        out.sort_unstable();
        assert_eq!(out, expected, "octree query disagrees with brute force");
    }
    group.bench_function("query_aabb/octree/100000", |b| {
        b.iter(|| {
            let mut found = 0;
            for q in &queries {
                octree.query_aabb(q, &mut out);
                found += out.len();
            }
            black_box(found)
        });
    });
    group.bench_function("query_aabb/rstar/100000", |b| {
        b.iter(|| {
            let mut found = 0;
            for q in &queries {
                let envelope = AABB::from_corners(q.min.to_array(), q.max.to_array());
                out.clear();
                out.extend(
                    rtree
                        .locate_in_envelope_intersecting(&envelope)
                        .map(|o| o.key),
                );
                found += out.len();
            }
            black_box(found)
        });
    });
    group.bench_function("query_aabb/brute/100000", |b| {
        b.iter(|| {
            let mut found = 0;
            for q in &queries {
                brute_query(data, q, &mut out);
                found += out.len();
            }
            black_box(found)
        });
    });

    let rays = rays(3);
    for ray in rays.iter().take(50) {
        let got = octree.raycast_nearest(ray, f32::INFINITY).map(|h| h.1);
        let want = brute_ray(data, ray).map(|h| h.1);
        assert_eq!(got, want, "octree ray disagrees with brute force");
    }
    group.bench_function("ray/octree/100000", |b| {
        b.iter(|| {
            let mut hits = 0;
            for ray in &rays {
                hits += usize::from(octree.raycast_nearest(ray, f32::INFINITY).is_some());
            }
            black_box(hits)
        });
    });
    group.bench_function("ray/brute/100000", |b| {
        b.iter(|| {
            let mut hits = 0;
            for ray in &rays {
                hits += usize::from(brute_ray(data, ray).is_some());
            }
            black_box(hits)
        });
    });
}

fn bench_updates(group: &mut BenchmarkGroup<'_, WallTime>, data: &[Aabb]) {
    let moves = moves(data.len(), 4);
    let shift = |b: &Aabb, d: Vec3| Aabb::new(b.min + d, b.max + d);

    let mut octree = build_octree(data);
    let mut current = data.to_vec();
    let mut forward = true;
    group.bench_function("update_10pct/octree/100000", |b| {
        b.iter(|| {
            let sign = if forward { 1.0 } else { -1.0 };
            for &(i, d) in &moves {
                let moved = shift(&current[i], d * sign);
                current[i] = moved;
                octree.update(i as u32, moved).expect("known key");
            }
            forward = !forward;
        });
    });

    let mut rtree = RTree::bulk_load(rboxes(data));
    let mut current: Vec<RBox> = rboxes(data);
    let mut forward = true;
    group.bench_function("update_10pct/rstar/100000", |b| {
        b.iter(|| {
            let sign = if forward { 1.0 } else { -1.0 };
            for &(i, d) in &moves {
                let old = current[i];
                let moved = RBox::new(
                    &shift(
                        &Aabb::new(Vec3::from(old.min), Vec3::from(old.max)),
                        d * sign,
                    ),
                    old.key,
                );
                rtree.remove(&old).expect("object present");
                rtree.insert(moved);
                current[i] = moved;
            }
            forward = !forward;
        });
    });
}

fn bench_pairs(group: &mut BenchmarkGroup<'_, WallTime>) {
    let data = boxes(PAIRS, 5);
    let mut octree = build_octree(&data);
    let mut grid =
        RowGrid::new(Rect::new(Vec2::ZERO, Vec2::splat(WORLD)), 32.0).expect("valid grid");
    for (i, b) in data.iter().enumerate() {
        grid.insert(i as u32, b.ground_rect())
            .expect("finite bounds");
    }
    let mut out = Vec::new();
    let mut flat = Vec::new();
    brute_pairs(&data, &mut out);
    let expected = sorted_pairs(&out);
    octree.pairs(&mut out);
    assert_eq!(
        sorted_pairs(&out),
        expected,
        "octree pairs disagree with brute force"
    );
    grid_pairs(&mut grid, &data, &mut flat, &mut out);
    assert_eq!(
        sorted_pairs(&out),
        expected,
        "grid pairs disagree with brute force"
    );
    println!(
        "pairs/10000: {} overlapping pairs, {} footprint pairs",
        expected.len(),
        flat.len()
    );

    group.bench_function("pairs/octree/10000", |b| {
        b.iter(|| {
            octree.pairs(&mut out);
            black_box(out.len())
        });
    });
    group.bench_function("pairs/grid/10000", |b| {
        b.iter(|| {
            grid_pairs(&mut grid, &data, &mut flat, &mut out);
            black_box(out.len())
        });
    });
    group.bench_function("pairs/brute/10000", |b| {
        b.iter(|| {
            brute_pairs(&data, &mut out);
            black_box(out.len())
        });
    });
}

/// One million rectangles of 4 to 14 cells a side (about 10 x 10 cells
/// covered on average) loaded into an empty 1000 x 1000-cell grid with
/// `insert_batch`.
fn bench_grid_insert(group: &mut BenchmarkGroup<'_, WallTime>) {
    let mut rng = SplitMix64(6);
    let rects: Vec<Rect> = (0..RECTS)
        .map(|_| {
            let min = Vec2::new(rng.range(0.0, WORLD), rng.range(0.0, WORLD));
            let size = Vec2::new(rng.range(4.0, 14.0), rng.range(4.0, 14.0));
            Rect::new(min, min + size)
        })
        .collect();
    let world = Rect::new(Vec2::ZERO, Vec2::splat(WORLD));
    let build = || {
        let mut grid = RowGrid::new(world, 1.0).expect("valid grid");
        grid.insert_batch(rects.iter().enumerate().map(|(i, r)| (i as u32, *r)))
            .expect("finite bounds");
        grid
    };
    // For reference next to the batch figure: one `insert` call per
    // rectangle, the path incremental updates take.
    let start = Instant::now();
    let mut one_by_one = RowGrid::new(world, 1.0).expect("valid grid");
    for (i, r) in rects.iter().enumerate() {
        one_by_one.insert(i as u32, *r).expect("finite bounds");
    }
    println!(
        "grid_insert_rects: {:.1} cells per rectangle on average; one-by-one insert took {:.2?}",
        one_by_one.entries() as f64 / RECTS as f64,
        start.elapsed()
    );
    let batch = build();
    assert_eq!(batch.entries(), one_by_one.entries());
    drop((one_by_one, batch));
    group.bench_function("grid_insert_rects/1000000", |b| {
        b.iter_custom(|iters| timed_with_drop(iters, build));
    });
}

fn spatial(c: &mut Criterion) {
    let data = boxes(BIG, 1);
    let mut group = c.benchmark_group("spatial");
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    bench_build(&mut group, &data);
    bench_queries(&mut group, &data);
    bench_updates(&mut group, &data);
    bench_pairs(&mut group);
    bench_grid_insert(&mut group);
    group.finish();
}

criterion_group!(benches, spatial);
criterion_main!(benches);
