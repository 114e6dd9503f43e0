//! Spatial queries for game code over 100,000 colliders: Keel's (`Space`,
//! the colliders' loose octree and parry's exact tests) against a brute
//! force twin (every collider's box, then its exact shape, with the list
//! built once) and against rapier's own query pipeline (its BVH broad
//! phase) on the same colliders. Each side's answers are checked equal
//! before anything is timed.
//!
//! Run: `cargo bench -p keel-engine --bench queries -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use glam::{Quat, Vec3};
use keel_engine::physics::QueryFilter;
use keel_engine::spatial::Ray;
use keel_engine::{Collider, ColliderShape, NodeId, Scene, SplitMix64, Transform, World};
use parry3d::bounding_volume::{Aabb as ParryAabb, BoundingVolume};
use parry3d::math::Pose;
use parry3d::query::{Ray as ParryRay, RayCast};
use parry3d::shape::{Ball, Cuboid, Shape};
use rapier3d::prelude as rp;

const COLLIDERS: usize = 100_000;
/// Side of the cube they are scattered in, metres.
const WORLD: f32 = 400.0;
const QUERIES: usize = 100;
const RADIUS: f32 = 10.0;
const REACH: f32 = 100.0;

fn unit_vec(rng: &mut SplitMix64) -> Vec3 {
    loop {
        let v = Vec3::new(rng.unit(), rng.unit(), rng.unit()) * 2.0 - Vec3::ONE;
        if (0.1..=1.0).contains(&v.length()) {
            return v.normalize();
        }
    }
}

fn point(rng: &mut SplitMix64) -> Vec3 {
    (Vec3::new(rng.unit(), rng.unit(), rng.unit()) - 0.5) * WORLD
}

/// The same colliders three ways: Keel's world, a flat list, rapier's set.
struct Setup {
    world: World,
    /// Each collider with its pose, shape and world box, made once.
    flat: Vec<(NodeId, Pose, Box<dyn Shape>, ParryAabb)>,
    rapier: Rapier,
    centers: Vec<Vec3>,
    rays: Vec<Ray>,
}

struct Rapier {
    bodies: rp::RigidBodySet,
    colliders: rp::ColliderSet,
    broad: rp::BroadPhaseBvh,
    narrow: rp::NarrowPhase,
    /// Collider handle index -> node.
    nodes: Vec<NodeId>,
}

impl Rapier {
    /// Its query pipeline over every collider, as rapier's docs build one.
    fn pipeline(&self) -> rp::QueryPipeline<'_> {
        self.broad.as_query_pipeline(
            self.narrow.query_dispatcher(),
            &self.bodies,
            &self.colliders,
            rp::QueryFilter::default(),
        )
    }
}

fn setup() -> Setup {
    let mut rng = SplitMix64::new(42);
    let mut scene = Scene::new();
    let mut flat = Vec::with_capacity(COLLIDERS);
    let mut colliders = rp::ColliderSet::new();
    let mut nodes = Vec::with_capacity(COLLIDERS);
    for i in 0..COLLIDERS {
        let at = point(&mut rng);
        let turn = Quat::from_axis_angle(unit_vec(&mut rng), rng.unit() * 3.0);
        let size = 0.5 + 2.5 * rng.unit();
        let node = scene
            .spawn(
                None,
                "thing",
                Transform::from_translation(at).with_rotation(turn),
            )
            .unwrap();
        let pose = Pose::from_parts(at, turn);
        let (collider, shape, built): (Collider, Box<dyn Shape>, rp::ColliderBuilder) =
            if i % 2 == 0 {
                (
                    Collider::ball(size),
                    Box::new(Ball::new(size)),
                    rp::ColliderBuilder::ball(size),
                )
            } else {
                let half = Vec3::new(size, 0.5 * size, 0.8);
                (
                    Collider::new(ColliderShape::Cuboid { half_extents: half }),
                    Box::new(Cuboid::new(half)),
                    rp::ColliderBuilder::cuboid(half.x, half.y, half.z),
                )
            };
        scene.insert(node, collider).unwrap();
        let aabb = shape.compute_aabb(&pose);
        flat.push((node, pose, shape, aabb));
        colliders.insert(built.position(pose));
        nodes.push(node);
    }
    let world = World::new(scene);
    // One step of an empty world files rapier's colliders in its broad phase.
    let mut rapier = Rapier {
        bodies: rp::RigidBodySet::new(),
        colliders,
        broad: rp::BroadPhaseBvh::new(),
        narrow: rp::NarrowPhase::new(),
        nodes,
    };
    let mut islands = rp::IslandManager::new();
    rp::PhysicsPipeline::new().step(
        Vec3::ZERO,
        &rp::IntegrationParameters::default(),
        &mut islands,
        &mut rapier.broad,
        &mut rapier.narrow,
        &mut rapier.bodies,
        &mut rapier.colliders,
        &mut rp::ImpulseJointSet::new(),
        &mut rp::MultibodyJointSet::new(),
        &mut rp::SoftBodySet::new(),
        &mut rp::CCDSolver::new(),
        &(),
        &(),
    );
    let centers = (0..QUERIES).map(|_| point(&mut rng)).collect();
    let rays = (0..QUERIES)
        .map(|_| Ray::new(point(&mut rng), unit_vec(&mut rng)).unwrap())
        .collect();
    Setup {
        world,
        flat,
        rapier,
        centers,
        rays,
    }
}

fn keel_spheres(s: &Setup, out: &mut Vec<NodeId>, all: &mut Vec<NodeId>) {
    all.clear();
    let (scene, space) = (s.world.scene(), s.world.space());
    for &c in &s.centers {
        space.overlap_sphere(scene, c, RADIUS, &QueryFilter::new(), out);
        all.extend_from_slice(out);
    }
}

fn brute_spheres(s: &Setup, all: &mut Vec<NodeId>) {
    all.clear();
    for &c in &s.centers {
        let ball = Ball::new(RADIUS);
        let at = Pose::from_translation(c);
        let area = ball.compute_aabb(&at);
        let start = all.len();
        for (node, pose, shape, aabb) in &s.flat {
            if aabb.intersects(&area)
                && parry3d::query::intersection_test(&at, &ball, pose, shape.as_ref())
                    .is_ok_and(|hit| hit.intersecting)
            {
                all.push(*node);
            }
        }
        all[start..].sort_unstable();
    }
}

fn rapier_spheres(s: &Setup, all: &mut Vec<NodeId>) {
    all.clear();
    let r = &s.rapier;
    let pipeline = r.pipeline();
    let ball = Ball::new(RADIUS);
    for &c in &s.centers {
        let start = all.len();
        for (handle, _) in pipeline.intersect_shape(Pose::from_translation(c), &ball) {
            all.push(r.nodes[handle.into_raw_parts().0 as usize]);
        }
        all[start..].sort_unstable();
    }
}

fn keel_rays(s: &Setup, hits: &mut Vec<Option<(NodeId, f32)>>) {
    hits.clear();
    let (scene, space) = (s.world.scene(), s.world.space());
    for ray in &s.rays {
        let hit = space.cast_ray(scene, ray, REACH, &QueryFilter::new());
        hits.push(hit.map(|h| (h.node, h.distance)));
    }
}

fn brute_rays(s: &Setup, hits: &mut Vec<Option<(NodeId, f32)>>) {
    hits.clear();
    for ray in &s.rays {
        let parry_ray = ParryRay::new(ray.origin, ray.dir);
        let mut best: Option<(NodeId, f32)> = None;
        for (node, pose, shape, aabb) in &s.flat {
            let limit = best.map_or(REACH, |b| b.1);
            if aabb.intersects_local_ray(&parry_ray, limit)
                && let Some(t) = shape.cast_ray(pose, &parry_ray, limit, true)
                && best.is_none_or(|b| (t, *node) < (b.1, b.0))
            {
                best = Some((*node, t));
            }
        }
        hits.push(best);
    }
}

fn rapier_rays(s: &Setup, hits: &mut Vec<Option<(NodeId, f32)>>) {
    hits.clear();
    let r = &s.rapier;
    let pipeline = r.pipeline();
    for ray in &s.rays {
        let hit = pipeline.cast_ray(&ParryRay::new(ray.origin, ray.dir), REACH, true);
        hits.push(hit.map(|(handle, t)| (r.nodes[handle.into_raw_parts().0 as usize], t)));
    }
}

fn bench(c: &mut Criterion) {
    let s = setup();
    let (mut out, mut keel, mut twin) = (Vec::new(), Vec::new(), Vec::new());
    keel_spheres(&s, &mut out, &mut keel);
    brute_spheres(&s, &mut twin);
    assert_eq!(keel, twin, "Keel's spheres and brute force's");
    rapier_spheres(&s, &mut twin);
    assert_eq!(keel, twin, "Keel's spheres and rapier's");
    assert!(
        keel.len() > QUERIES,
        "the spheres find things: {}",
        keel.len()
    );
    let (mut keel_hits, mut twin_hits) = (Vec::new(), Vec::new());
    keel_rays(&s, &mut keel_hits);
    // Keel poses each collider from its node's world matrix, the twins from
    // the transform it was made with: distances agree to float rounding.
    let agree = |keel: &[Option<(NodeId, f32)>], twin: &[Option<(NodeId, f32)>], what: &str| {
        for (k, t) in keel.iter().zip(twin) {
            let same = match (k, t) {
                (Some(k), Some(t)) => k.0 == t.0 && (k.1 - t.1).abs() <= 1e-4 * k.1.max(1.0),
                (None, None) => true,
                _ => false,
            };
            assert!(same, "Keel's ray hit {k:?}, {what}'s {t:?}");
        }
    };
    brute_rays(&s, &mut twin_hits);
    agree(&keel_hits, &twin_hits, "brute force");
    rapier_rays(&s, &mut twin_hits);
    agree(&keel_hits, &twin_hits, "rapier");
    assert!(keel_hits.iter().flatten().count() > QUERIES / 4);

    let mut group = c.benchmark_group("queries_100k");
    group.bench_function("sphere/keel", |b| {
        b.iter(|| keel_spheres(black_box(&s), &mut out, &mut keel));
    });
    group.bench_function("sphere/rapier", |b| {
        b.iter(|| rapier_spheres(black_box(&s), &mut twin));
    });
    group.bench_function("sphere/brute_force", |b| {
        b.iter(|| brute_spheres(black_box(&s), &mut twin));
    });
    group.bench_function("ray/keel", |b| {
        b.iter(|| keel_rays(black_box(&s), &mut keel_hits));
    });
    group.bench_function("ray/rapier", |b| {
        b.iter(|| rapier_rays(black_box(&s), &mut twin_hits));
    });
    group.bench_function("ray/brute_force", |b| {
        b.iter(|| brute_rays(black_box(&s), &mut twin_hits));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
