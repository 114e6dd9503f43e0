//! The queries against brute force over the scene's colliders, filing by
//! change, and answers that do not depend on the tree's history.

use glam::{Quat, Vec3};

use super::shape::WorldShape;
use super::{QueryFilter, RayHit};
use crate::rng::SplitMix64;
use crate::scene::collider::{Collider, ColliderShape, CollisionLayers};
use crate::scene::{NodeId, Scene, Spin, Transform};
use crate::spatial::Ray;
use crate::world::World;

fn spread(rng: &mut SplitMix64, half: f32) -> Vec3 {
    Vec3::new(rng.unit(), rng.unit(), rng.unit()) * (2.0 * half) - Vec3::splat(half)
}

/// `count` colliders of every kind, turned, scaled, some under a parent,
/// some sensors, some on layer 2 only, some spinning.
fn field(count: usize, seed: u64) -> Scene {
    let mut rng = SplitMix64::new(seed);
    let mut scene = Scene::new();
    let parent = scene
        .spawn(
            None,
            "raft",
            Transform::from_translation(Vec3::new(5.0, 0.0, -3.0))
                .with_rotation(Quat::from_rotation_z(0.4))
                .with_scale(Vec3::splat(1.5)),
        )
        .unwrap();
    for i in 0..count {
        let at = Transform::from_translation(spread(&mut rng, 60.0))
            .with_rotation(Quat::from_axis_angle(
                spread(&mut rng, 1.0).try_normalize().unwrap_or(Vec3::Y),
                rng.unit() * 6.0,
            ))
            .with_scale(Vec3::new(0.5, 1.0, 2.0) * (0.5 + rng.unit()));
        let node = scene
            .spawn((i % 10 == 0).then_some(parent), "thing", at)
            .unwrap();
        let size = 0.2 + 2.0 * rng.unit();
        let shape = match i % 4 {
            0 => ColliderShape::Ball { radius: size },
            1 => ColliderShape::Cuboid {
                half_extents: Vec3::new(size, 0.5 * size, 1.0),
            },
            2 => ColliderShape::Capsule {
                half_height: size,
                radius: 0.3,
            },
            _ => ColliderShape::Cylinder {
                half_height: 0.5,
                radius: size,
            },
        };
        let mut collider = Collider::new(shape);
        collider.sensor = i % 7 == 0;
        if i % 5 == 0 {
            collider.layers = CollisionLayers {
                membership: 0b10,
                filter: u32::MAX,
            };
        }
        scene.insert(node, collider).unwrap();
        if i % 3 == 0 {
            scene.insert(node, Spin::default()).unwrap();
        }
    }
    scene
}

/// Every collider of the scene with its world shape: what brute force walks.
fn shapes(scene: &Scene) -> Vec<(NodeId, Collider, WorldShape)> {
    let column = scene.components().column::<Collider>().unwrap();
    column
        .iter()
        .filter_map(|(node, c)| {
            Some((
                node,
                *c,
                WorldShape::of(c, &scene.world(node)?, scene, node, None)?.0,
            ))
        })
        .collect()
}

fn kept(scene: &Scene, filter: &Filter, node: NodeId, collider: &Collider) -> bool {
    collider.layers.membership & filter.layers != 0
        && (filter.sensors || !collider.sensor)
        && (!filter.spinning || scene.get::<Spin>(node).is_some())
}

/// The filters the tests ask with, in a form brute force reads.
struct Filter {
    layers: u32,
    sensors: bool,
    spinning: bool,
}

impl Filter {
    fn query(&self) -> QueryFilter {
        let mut q = QueryFilter::new().layers(self.layers);
        if !self.sensors {
            q = q.solid_only();
        }
        if self.spinning {
            q = q.with::<Spin>();
        }
        q
    }
}

const FILTERS: [Filter; 3] = [
    Filter {
        layers: u32::MAX,
        sensors: true,
        spinning: false,
    },
    Filter {
        layers: 0b10,
        sensors: false,
        spinning: false,
    },
    Filter {
        layers: u32::MAX,
        sensors: true,
        spinning: true,
    },
];

#[test]
fn every_query_answers_what_brute_force_does() {
    let mut world = World::new(field(3_000, 7));
    // Some steps first: the spinning colliders are re-filed where they turn.
    for _ in 0..5 {
        world.step();
    }
    world.colliders().check(world.scene()).unwrap();
    let scene = world.scene();
    let all = shapes(scene);
    assert_eq!(world.space().len(), all.len());
    let space = world.space();
    let mut rng = SplitMix64::new(99);
    let (mut out, mut near) = (Vec::new(), Vec::new());
    let mut found = [0usize; 4];
    for round in 0..200 {
        let filter = &FILTERS[round % FILTERS.len()];
        let q = filter.query();
        let center = spread(&mut rng, 70.0);
        let keep = |&(node, c, _): &(NodeId, Collider, WorldShape)| kept(scene, filter, node, &c);

        let radius = 10.0 * rng.unit();
        space.overlap_sphere(scene, center, radius, &q, &mut out);
        let ball = WorldShape::ball(center, radius);
        let mut expected: Vec<NodeId> = all
            .iter()
            .filter(|e| keep(e) && e.2.touches(&ball))
            .map(|e| e.0)
            .collect();
        expected.sort_unstable();
        assert_eq!(out, expected, "sphere at {center} of {radius}");
        found[0] += out.len();

        let (half, turn) = (
            spread(&mut rng, 8.0).abs(),
            Quat::from_rotation_y(rng.unit()),
        );
        space.overlap_box(scene, center, half, turn, &q, &mut out);
        let cuboid = WorldShape::cuboid(center, half, turn);
        let mut expected: Vec<NodeId> = all
            .iter()
            .filter(|e| keep(e) && e.2.touches(&cuboid))
            .map(|e| e.0)
            .collect();
        expected.sort_unstable();
        assert_eq!(out, expected, "box at {center} of {half}");
        found[1] += out.len();

        let ray =
            Ray::new(center, spread(&mut rng, 1.0)).unwrap_or(Ray::new(center, Vec3::X).unwrap());
        let reach = 200.0 * rng.unit();
        let hit = space.cast_ray(scene, &ray, reach, &q);
        let expected = all
            .iter()
            .filter(|e| keep(e))
            .filter_map(|e| e.2.cast(&ray, reach).map(|(t, n)| (t, e.0, n)))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let expected = expected.map(|(distance, node, normal)| RayHit {
            node,
            distance,
            point: ray.at(distance),
            normal,
        });
        assert_eq!(hit, expected, "ray {ray:?} within {reach}");
        found[2] += usize::from(hit.is_some());

        let k = 1 + round % 9;
        space.nearest(scene, center, k, &q, &mut near);
        let mut expected: Vec<(NodeId, f32)> = all
            .iter()
            .filter(|e| keep(e))
            .map(|e| (e.0, e.2.distance_to(center)))
            .collect();
        expected.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        expected.truncate(k);
        assert_eq!(near, expected, "{k} nearest to {center}");
        found[3] += near.len();
    }
    // The answers were not all empty.
    assert!(found.iter().all(|&n| n > 50), "{found:?}");
}

#[test]
fn only_what_moved_is_filed_again() {
    let mut scene = Scene::new();
    let still: Vec<NodeId> = (0..100)
        .map(|i| {
            let at = Transform::from_translation(Vec3::X * (3.0 * i as f32));
            let node = scene.spawn(None, "post", at).unwrap();
            scene.insert(node, Collider::ball(1.0)).unwrap();
            node
        })
        .collect();
    let spinner = scene.spawn(None, "spinner", Transform::IDENTITY).unwrap();
    scene
        .insert(spinner, Collider::cuboid(Vec3::new(4.0, 0.1, 0.1)))
        .unwrap();
    scene.insert(spinner, Spin::default()).unwrap();
    let mut world = World::new(scene);
    assert_eq!(world.colliders().len(), 101);
    world.step();
    assert_eq!(world.colliders().refiled(), 1, "the spinner alone");
    world.colliders().check(world.scene()).unwrap();
    // A collider resized: its column changed, so every collider is filed again.
    if let Some(c) = world.scene_mut().get_mut::<Collider>(still[3]) {
        c.shape = ColliderShape::Ball { radius: 25.0 };
    }
    world.step();
    assert_eq!(world.colliders().refiled(), 101);
    world.colliders().check(world.scene()).unwrap();
    let (scene, space) = (world.scene(), world.space());
    let mut out = Vec::new();
    space.overlap_sphere(scene, Vec3::X * 30.0, 0.5, &QueryFilter::new(), &mut out);
    assert!(
        out.contains(&still[3]),
        "the resized ball reaches 30: {out:?}"
    );
    // A despawned collider node is gone from the answers.
    world.scene_mut().despawn(still[3]).unwrap();
    world.step();
    world.colliders().check(world.scene()).unwrap();
    assert_eq!(world.colliders().len(), 100);
    let (scene, space) = (world.scene(), world.space());
    space.overlap_sphere(scene, Vec3::X * 30.0, 0.5, &QueryFilter::new(), &mut out);
    assert_eq!(out, [still[10]]);
}

#[test]
fn filters_keep_what_they_name() {
    let mut scene = Scene::new();
    let spawn = |scene: &mut Scene, x: f32, collider: Collider| {
        let node = scene
            .spawn(None, "c", Transform::from_translation(Vec3::X * x))
            .unwrap();
        scene.insert(node, collider).unwrap();
        node
    };
    let first_layer = CollisionLayers {
        membership: 0b1,
        filter: u32::MAX,
    };
    let solid = spawn(
        &mut scene,
        0.0,
        Collider::ball(1.0).with_layers(first_layer),
    );
    let trigger = spawn(&mut scene, 1.0, Collider::ball(1.0).sensor());
    let layered = spawn(
        &mut scene,
        2.0,
        Collider::ball(1.0).with_layers(CollisionLayers {
            membership: 0b100,
            filter: 0,
        }),
    );
    scene.insert(layered, Spin::default()).unwrap();
    let world = World::new(scene);
    let (scene, space) = (world.scene(), world.space());
    let ask = |filter: QueryFilter| {
        let mut out = Vec::new();
        space.overlap_sphere(scene, Vec3::X, 3.0, &filter, &mut out);
        out
    };
    assert_eq!(ask(QueryFilter::new()), [solid, trigger, layered]);
    assert_eq!(ask(QueryFilter::new().solid_only()), [solid, layered]);
    assert_eq!(ask(QueryFilter::new().layers(0b100)), [trigger, layered]);
    assert_eq!(ask(QueryFilter::new().layers(0b1)), [solid, trigger]);
    assert_eq!(ask(QueryFilter::new().with::<Spin>()), [layered]);
    assert_eq!(ask(QueryFilter::new().without::<Spin>()), [solid, trigger]);
    assert_eq!(ask(QueryFilter::new().excluding(trigger)), [solid, layered]);
    // From the left, the ray meets the solid ball's surface first.
    let ray = Ray::new(Vec3::new(-10.0, 0.0, 0.0), Vec3::X).unwrap();
    let hit = space
        .cast_ray(scene, &ray, 100.0, &QueryFilter::new())
        .unwrap();
    assert_eq!(hit.node, solid);
    assert!((hit.distance - 9.0).abs() < 1e-5, "{hit:?}");
    assert!(hit.point.abs_diff_eq(Vec3::NEG_X, 1e-5), "{hit:?}");
    assert!(hit.normal.abs_diff_eq(Vec3::NEG_X, 1e-5), "{hit:?}");
    let past = space.cast_ray(
        scene,
        &ray,
        100.0,
        &QueryFilter::new().layers(0b100).solid_only(),
    );
    assert_eq!(past.map(|h| h.node), Some(layered));
    assert!(past.is_some_and(|h| (h.distance - 11.0).abs() < 1e-5));
}

#[test]
fn bad_questions_get_empty_answers() {
    let mut scene = Scene::new();
    let node = scene.spawn(None, "c", Transform::IDENTITY).unwrap();
    scene.insert(node, Collider::ball(1.0)).unwrap();
    let world = World::new(scene);
    let (scene, space) = (world.scene(), world.space());
    let all = QueryFilter::new();
    let mut out = vec![node];
    space.overlap_sphere(scene, Vec3::NAN, 1.0, &all, &mut out);
    assert!(out.is_empty());
    space.overlap_sphere(scene, Vec3::ZERO, -1.0, &all, &mut out);
    assert!(out.is_empty());
    space.overlap_box(
        scene,
        Vec3::ZERO,
        Vec3::splat(f32::INFINITY),
        Quat::IDENTITY,
        &all,
        &mut out,
    );
    assert!(out.is_empty());
    space.overlap_box(
        scene,
        Vec3::ZERO,
        Vec3::ONE,
        Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
        &all,
        &mut out,
    );
    assert!(out.is_empty(), "a zero rotation is no rotation");
    let ray = Ray::new(Vec3::X * -5.0, Vec3::X).unwrap();
    assert!(space.cast_ray(scene, &ray, f32::NAN, &all).is_none());
    assert!(space.cast_ray(scene, &ray, -1.0, &all).is_none());
    let mut near = vec![(node, 0.0)];
    space.nearest(scene, Vec3::ZERO, 0, &all, &mut near);
    assert!(near.is_empty());
    space.nearest(scene, Vec3::INFINITY, 3, &all, &mut near);
    assert!(near.is_empty());
    space.nearest(scene, Vec3::X * 3.0, 3, &all, &mut near);
    assert_eq!(near, [(node, 2.0)], "fewer than k: all there are");
}

/// What a system found near each of the spinners, every step, summed: a
/// resource, so hashes and snapshots carry it.
#[derive(Clone, Debug, Default, PartialEq)]
struct Heard(Vec<(u64, NodeId)>);

#[test]
fn a_restored_world_answers_as_the_world_that_ran() {
    let build = || {
        let mut world = World::new(field(800, 3));
        world.insert_resource(Heard::default());
        world
            .systems_mut()
            .add("listen", |scene, _, step| {
                let mut out = Vec::new();
                let mut near = Vec::new();
                let at = Vec3::new(crate::math::sin(step.index as f32 * 0.1) * 40.0, 0.0, 0.0);
                step.space
                    .overlap_sphere(scene, at, 6.0, &QueryFilter::new(), &mut out);
                step.space
                    .nearest(scene, at, 3, &QueryFilter::new().with::<Spin>(), &mut near);
                let ray = Ray::new(at, Vec3::Z).unwrap();
                let hit = step.space.cast_ray(scene, &ray, 100.0, &QueryFilter::new());
                let heard = &mut scene.resource_mut::<Heard>().unwrap().0;
                heard.extend(out.iter().map(|&n| (step.index, n)));
                heard.extend(near.iter().map(|&(n, _)| (step.index, n)));
                heard.extend(hit.map(|h| (step.index, h.node)));
            })
            .unwrap();
        world
    };
    let mut ran = build();
    for _ in 0..60 {
        ran.step();
    }
    let mut restored = build();
    for _ in 0..30 {
        restored.step();
    }
    let snapshot = restored.snapshot();
    for _ in 0..20 {
        restored.step();
    }
    // Back to step 30: the tree is rebuilt from the scene, shaped anew.
    restored.restore_snapshot(snapshot);
    for _ in 30..60 {
        restored.step();
    }
    let (a, b) = (
        ran.resource::<Heard>().unwrap(),
        restored.resource::<Heard>().unwrap(),
    );
    assert!(a.0.len() > 100, "the system found things: {}", a.0.len());
    assert_eq!(a, b);
    assert_eq!(ran.state_hash(), restored.state_hash());
}
