//! Spatial queries for game code: the colliders within a sphere or a box,
//! the first one along a ray, the `k` nearest to a point, each filtered by
//! collision layer, by component and by sensor, answered from the colliders
//! the world filed after the last propagation (`colliders.rs`).
//!
//! The tree prunes with world boxes and the exact shapes decide (parry's
//! tests). A warm query allocates nothing: the walk reads the tree through
//! a shared borrow, its stack is the call stack, and answers go into the
//! caller's `Vec`. Answers are in a fixed order (by node, or by distance
//! then node), never the tree's: a tree rebuilt by a seek is shaped
//! differently from one grown step by step, and a game iterating an answer
//! must do the same in both.

use glam::{Quat, Vec3};

use crate::scene::registered::Component;
use crate::scene::{NodeId, Scene};
use crate::spatial::{Aabb, Ray};

use super::colliders::{Colliders, Filed};
use super::shape::WorldShape;

/// What a query keeps of the colliders it reaches. The default keeps
/// every one.
///
/// ```
/// use keel_engine::physics::QueryFilter;
/// use keel_engine::Spin;
///
/// let spinning_on_layer_2 = QueryFilter::new().layers(0b100).with::<Spin>().solid_only();
/// # let _ = spinning_on_layer_2;
/// ```
#[derive(Clone, Copy, Debug)]
pub struct QueryFilter {
    layers: u32,
    sensors: bool,
    exclude: Option<NodeId>,
    with: Option<fn(&Scene, NodeId) -> bool>,
    without: Option<fn(&Scene, NodeId) -> bool>,
}

impl Default for QueryFilter {
    fn default() -> Self {
        Self::new()
    }
}

fn has<C: Component>(scene: &Scene, node: NodeId) -> bool {
    scene.get::<C>(node).is_some()
}

impl QueryFilter {
    /// Every collider, sensors included.
    pub const fn new() -> Self {
        Self {
            layers: u32::MAX,
            sensors: true,
            exclude: None,
            with: None,
            without: None,
        }
    }

    /// Only colliders on one of `layers` (their membership holds one).
    pub const fn layers(self, layers: u32) -> Self {
        Self { layers, ..self }
    }

    /// Leaves sensors out.
    pub const fn solid_only(self) -> Self {
        Self {
            sensors: false,
            ..self
        }
    }

    /// Leaves `node` out (the asker's own collider).
    pub const fn excluding(self, node: NodeId) -> Self {
        Self {
            exclude: Some(node),
            ..self
        }
    }

    /// Only nodes that have a `C` (one such filter per query).
    pub fn with<C: Component>(self) -> Self {
        Self {
            with: Some(has::<C>),
            ..self
        }
    }

    /// Only nodes that have no `C` (one such filter per query).
    pub fn without<C: Component>(self) -> Self {
        Self {
            without: Some(has::<C>),
            ..self
        }
    }

    fn keeps(&self, scene: &Scene, node: NodeId, filed: &Filed) -> bool {
        filed.layers.membership & self.layers != 0
            && (self.sensors || !filed.sensor)
            && self.exclude != Some(node)
            && self.with.is_none_or(|has| has(scene, node))
            && self.without.is_none_or(|has| !has(scene, node))
    }
}

/// Where a ray first meets a collider.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// The collider's node.
    pub node: NodeId,
    /// Distance along the ray (0 when it starts inside).
    pub distance: f32,
    /// The point it meets.
    pub point: Vec3,
    /// The surface's outward normal there.
    pub normal: Vec3,
}

/// The colliders as the step found them, for queries (a system's is
/// `StepContext::space`; outside a step, `World::space`). Copy it freely:
/// it is a borrow.
#[derive(Clone, Copy)]
pub struct Space<'a> {
    colliders: Option<&'a Colliders>,
}

impl std::fmt::Debug for Space<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Space")
            .field("colliders", &self.colliders.map_or(0, Colliders::len))
            .finish()
    }
}

impl Colliders {
    /// The queries systems ask of them.
    pub fn space(&self) -> Space<'_> {
        Space {
            colliders: Some(self),
        }
    }
}

impl Space<'_> {
    /// A space with nothing in it (systems stepped without a world).
    pub const EMPTY: Space<'static> = Space { colliders: None };

    /// Colliders it holds.
    pub fn len(&self) -> usize {
        self.colliders.map_or(0, Colliders::len)
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The nodes whose colliders touch the ball at `center` of `radius`,
    /// kept by `filter`, into `out` (cleared first), in node order.
    pub fn overlap_sphere(
        &self,
        scene: &Scene,
        center: Vec3,
        radius: f32,
        filter: &QueryFilter,
        out: &mut Vec<NodeId>,
    ) {
        out.clear();
        if !(center.is_finite() && radius.is_finite() && radius >= 0.0) {
            return;
        }
        // The ball prunes the tree itself, not its box (which is twice its volume).
        let reaches = |bounds: &Aabb| bounds.distance_squared_to_point(center) <= radius * radius;
        self.overlap(
            scene,
            &WorldShape::ball(center, radius),
            reaches,
            filter,
            out,
        );
    }

    /// The nodes whose colliders touch the box at `center` of
    /// `half_extents`, turned by `rotation`, kept by `filter`, into `out`
    /// (cleared first), in node order.
    pub fn overlap_box(
        &self,
        scene: &Scene,
        center: Vec3,
        half_extents: Vec3,
        rotation: Quat,
        filter: &QueryFilter,
        out: &mut Vec<NodeId>,
    ) {
        out.clear();
        let sane = center.is_finite() && half_extents.is_finite() && rotation.is_finite();
        if !sane || half_extents.min_element() < 0.0 || rotation.length_squared() < 1e-12 {
            return;
        }
        let shape = WorldShape::cuboid(center, half_extents, rotation);
        let area = shape.bounds();
        self.overlap(scene, &shape, |bounds| area.intersects(bounds), filter, out);
    }

    /// The colliders touching `shape`, the tree pruned by `reaches` (true
    /// for every box the shape touches).
    fn overlap(
        &self,
        scene: &Scene,
        shape: &WorldShape,
        reaches: impl Fn(&Aabb) -> bool,
        filter: &QueryFilter,
        out: &mut Vec<NodeId>,
    ) {
        let Some(colliders) = self.colliders else {
            return;
        };
        colliders.tree.visit_overlapping(reaches, |node, _| {
            if let Some(filed) = colliders.filed.get(node)
                && filter.keeps(scene, node, filed)
                && filed.shape.touches(shape)
            {
                out.push(node);
            }
        });
        out.sort_unstable();
    }

    /// The first collider `ray` meets within `max_distance`, kept by
    /// `filter` (of two at one distance, the lower node).
    pub fn cast_ray(
        &self,
        scene: &Scene,
        ray: &Ray,
        max_distance: f32,
        filter: &QueryFilter,
    ) -> Option<RayHit> {
        let colliders = self.colliders?;
        if !(ray.is_finite() && max_distance >= 0.0) {
            return None;
        }
        let mut best: Option<(f32, NodeId, Vec3)> = None;
        colliders.tree.visit_ray(ray, max_distance, |node, _, _| {
            let limit = best.map_or(max_distance, |b| b.0);
            let Some(filed) = colliders.filed.get(node) else {
                return limit;
            };
            if !filter.keeps(scene, node, filed) {
                return limit;
            }
            if let Some((t, normal)) = filed.shape.cast(ray, limit)
                && best.is_none_or(|(bt, bn, _)| (t, node) < (bt, bn))
            {
                best = Some((t, node, normal));
            }
            best.map_or(max_distance, |b| b.0)
        });
        best.map(|(distance, node, normal)| RayHit {
            node,
            distance,
            point: ray.at(distance),
            normal,
        })
    }

    /// The `k` colliders nearest to `point` (distance to their shapes, 0
    /// inside), kept by `filter`, with their distances, into `out` (cleared
    /// first), nearest first (ties by node).
    pub fn nearest(
        &self,
        scene: &Scene,
        point: Vec3,
        k: usize,
        filter: &QueryFilter,
        out: &mut Vec<(NodeId, f32)>,
    ) {
        out.clear();
        let Some(colliders) = self.colliders else {
            return;
        };
        if k == 0 || !point.is_finite() {
            return;
        }
        let limit = |out: &Vec<(NodeId, f32)>| {
            if out.len() < k {
                f32::INFINITY
            } else {
                out.last().map_or(f32::INFINITY, |last| last.1)
            }
        };
        colliders.tree.visit_nearest(
            |bounds| Some(bounds.distance_squared_to_point(point).sqrt()),
            |node, _, _| {
                let Some(filed) = colliders.filed.get(node) else {
                    return limit(out);
                };
                if !filter.keeps(scene, node, filed) {
                    return limit(out);
                }
                let d = filed.shape.distance_to(point);
                let ranks = |&(n, e): &(NodeId, f32)| e.total_cmp(&d).then(n.cmp(&node));
                let at = out.partition_point(|entry| ranks(entry).is_lt());
                if at < k {
                    if out.len() == k {
                        out.pop();
                    }
                    out.insert(at, (node, d));
                }
                limit(out)
            },
            f32::INFINITY,
        );
    }
}
