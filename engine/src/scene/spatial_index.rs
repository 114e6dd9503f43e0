//! The scene's spatial index: a loose octree of mesh bounds, fed by the dirty
//! flag (spatial partition pattern).
//!
//! After each propagation only the nodes whose world transform was recomputed
//! are re-filed; untouched nodes cost nothing. The index answers the questions
//! the engine asks of space: what the camera sees (culling), what a ray hits
//! first (click-to-select), and what is within reach of a node.

use std::collections::HashSet;

use glam::{Affine3A, Vec3};

use super::{MeshRenderer, NodeId, Scene};
use crate::assets::{Assets, MeshRef, Primitive, Registry};
use crate::spatial::{Aabb, Frustum, LooseOctree, QueryPart, Ray, Sphere};

/// Half the side of the octree's initial cube; objects outside it are still found.
const WORLD_HALF: f32 = 512.0;

/// World bounds of `mesh` (an imported one's from `registry`) under `model`.
pub fn mesh_bounds(mesh: MeshRef, model: &Affine3A, registry: &Registry) -> Aabb {
    mesh.local_bounds(registry).transformed(model)
}

/// Loose octree over every node that draws a mesh.
pub struct SpatialIndex {
    tree: LooseOctree<NodeId>,
    refiled: usize,
    hits: Vec<(NodeId, f32)>,
    despawned: Vec<NodeId>,
    /// Mesh nodes whose bounds the tree refuses (not finite: a world
    /// transform that overflowed). Unfindable, not fatal, and counted, so
    /// that a sync does not take them for meshes added since the last one.
    unfiled: HashSet<NodeId>,
    /// The mesh nodes re-filed since the frame began, for whoever keeps its
    /// own copy of the meshes' transforms (see [`MovedCursor`]).
    moved: MovedLog,
}

/// How far a reader of [`SpatialIndex::moved_since`] has read: which index,
/// which of its rebuilds, and how many re-filed nodes it has seen in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MovedCursor {
    index: u64,
    rebuilds: u64,
    read: u64,
}

/// The re-filed mesh nodes of the current frame: `start` nodes were logged
/// and cleared before these.
#[derive(Debug, Default)]
struct MovedLog {
    id: u64,
    rebuilds: u64,
    start: u64,
    nodes: Vec<NodeId>,
}

impl Default for SpatialIndex {
    fn default() -> Self {
        Self::new()
    }
}

impl SpatialIndex {
    /// An empty index.
    pub fn new() -> Self {
        let world = Aabb::from_center_half_extents(Vec3::ZERO, Vec3::splat(WORLD_HALF));
        Self {
            tree: LooseOctree::new(world).expect("the initial world box is finite"),
            refiled: 0,
            hits: Vec::new(),
            despawned: Vec::new(),
            unfiled: HashSet::new(),
            moved: MovedLog {
                id: crate::identity::fresh(),
                ..MovedLog::default()
            },
        }
    }

    /// Where a reader that has seen every mesh move so far stands.
    pub(crate) fn moved_cursor(&self) -> MovedCursor {
        MovedCursor {
            index: self.moved.id,
            rebuilds: self.moved.rebuilds,
            read: self.moved.start + self.moved.nodes.len() as u64,
        }
    }

    /// The mesh nodes re-filed (moved, or given a mesh) since `cursor`
    /// (a node may be listed twice), or `None` when they are not all known
    /// any more: another index, a rebuild since (every mesh is new), or a
    /// frame began in between (the log keeps one frame's). Despawned nodes
    /// are not listed.
    pub(crate) fn moved_since(&self, cursor: MovedCursor) -> Option<&[NodeId]> {
        let log = &self.moved;
        if cursor.index != log.id || cursor.rebuilds != log.rebuilds || cursor.read < log.start {
            return None;
        }
        let at = usize::try_from(cursor.read - log.start).ok()?;
        log.nodes.get(at..)
    }

    /// Starts a new frame's log (the world calls it before its steps):
    /// readers that did not read the last one start afresh.
    pub(crate) fn clear_moved(&mut self) {
        self.moved.start += self.moved.nodes.len() as u64;
        self.moved.nodes.clear();
    }

    /// Number of nodes filed.
    pub fn len(&self) -> usize {
        self.tree.len()
    }

    /// Whether nothing is filed.
    pub fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }

    /// Nodes re-filed by the last [`SpatialIndex::sync`].
    pub fn refiled(&self) -> usize {
        self.refiled
    }

    /// The octree itself (debug drawing of its cells, direct queries).
    pub fn tree(&self) -> &LooseOctree<NodeId> {
        &self.tree
    }

    fn file(&mut self, scene: &Scene, node: NodeId, registry: &Registry) -> bool {
        let (Some(world), Some(mesh)) = (scene.world(node), scene.get::<MeshRenderer>(node)) else {
            return false;
        };
        let bounds = mesh_bounds(mesh.mesh, &world, registry);
        let filed = if self.tree.contains_key(node) {
            self.tree.update(node, bounds)
        } else {
            self.tree.insert(node, bounds)
        };
        if filed.is_err() {
            // A refused update leaves the old bounds behind: no stale answers.
            self.tree.remove(node);
            self.unfiled.insert(node);
            return false;
        }
        if !self.unfiled.is_empty() {
            self.unfiled.remove(&node);
        }
        true
    }

    /// Files every mesh node anew.
    pub fn rebuild(&mut self, scene: &mut Scene) {
        self.tree.clear();
        self.unfiled.clear();
        // Despawned nodes are gone from the rebuilt tree already.
        scene.take_despawned(&mut self.despawned);
        self.despawned.clear();
        self.refiled = 0;
        self.moved.rebuilds += 1;
        self.clear_moved();
        // A frame logs each mesh once a step: sized once, not grown frame by frame.
        let meshes = scene.components.mesh.len();
        self.moved.nodes.reserve(meshes);
        let registry = scene.assets().registry();
        for (node, _) in scene.components.mesh.iter() {
            self.refiled += usize::from(self.file(scene, node, &registry));
        }
        drop(registry);
        scene.clear_changed();
    }

    /// Brings the index up to date after a propagation: forgets despawned
    /// nodes and re-files the nodes whose world transform changed, which it
    /// consumes (like the despawned ones): a later sync re-files only what
    /// moved after this one.
    pub fn sync(&mut self, scene: &mut Scene) {
        puffin::profile_scope!("spatial index sync");
        scene.take_despawned(&mut self.despawned);
        for node in self.despawned.drain(..) {
            if !self.tree.remove(node) {
                self.unfiled.remove(&node);
            }
        }
        if self.tree.len() + self.unfiled.len() != scene.components.mesh.len() {
            // Meshes were added to or removed from nodes that did not move.
            return self.rebuild(scene);
        }
        self.refiled = 0;
        let registry = scene.assets().registry();
        for node in scene.changed_nodes() {
            if scene.get::<MeshRenderer>(node).is_some() {
                self.refiled += usize::from(self.file(scene, node, &registry));
                self.moved.nodes.push(node);
            }
        }
        drop(registry);
        scene.clear_changed();
    }

    /// Checks that the index holds exactly the scene's mesh nodes, each filed
    /// with the bounds of its current world transform (after a sync).
    ///
    /// # Errors
    /// The first node missing, filed with stale bounds, or filed without a mesh.
    pub fn check(&self, scene: &Scene) -> Result<(), String> {
        let mut filed = 0;
        let registry = scene.assets().registry();
        for (node, mesh) in scene.components.mesh.iter() {
            let world = scene
                .world(node)
                .ok_or_else(|| format!("the mesh of {node} outlived its node"))?;
            let bounds = mesh_bounds(mesh.mesh, &world, &registry);
            match self.tree.get(node) {
                Some(found) if found == bounds => filed += 1,
                Some(found) => {
                    return Err(format!(
                        "{node} is filed at {found:?}, its mesh is at {bounds:?}"
                    ));
                }
                // The tree refuses non-finite bounds (a world that overflowed).
                None if !(bounds.min.is_finite() && bounds.max.is_finite())
                    && self.unfiled.contains(&node) => {}
                None => return Err(format!("{node} has a mesh at {bounds:?} but is not filed")),
            }
        }
        if self.tree.len() != filed {
            return Err(format!(
                "{} nodes filed, {filed} of them mesh nodes of the scene",
                self.tree.len()
            ));
        }
        Ok(())
    }

    /// Mesh nodes whose bounds touch the frustum, into `out` (cleared first).
    pub fn visible(&mut self, frustum: &Frustum, out: &mut Vec<NodeId>) {
        out.clear();
        self.tree.query_frustum(frustum, out);
    }

    /// One `part` of [`Self::visible`]'s answer, reading the octree only
    /// (with the caller's `stack`): parts can be asked on separate threads,
    /// and together they hold each mesh once.
    pub fn visible_part(
        &self,
        frustum: &Frustum,
        part: QueryPart,
        stack: &mut Vec<u32>,
        out: &mut Vec<NodeId>,
    ) {
        self.tree.query_frustum_part(frustum, part, stack, out);
    }

    /// The nearest mesh the ray hits, tested against the mesh's own shape in
    /// its local space (box, sphere, ...), not just the world box; with the distance.
    pub fn raycast(&mut self, scene: &Scene, ray: &Ray) -> Option<(NodeId, f32)> {
        let mut hits = std::mem::take(&mut self.hits);
        self.tree.raycast(ray, f32::INFINITY, &mut hits);
        let mut best: Option<(NodeId, f32)> = None;
        for &(node, entry) in &hits {
            if best.is_some_and(|(_, b)| entry > b) {
                break;
            }
            let (Some(world), Some(mesh)) = (scene.world(node), scene.get::<MeshRenderer>(node))
            else {
                continue;
            };
            if let Some(t) = hit_mesh(&world, mesh.mesh, ray, scene.assets())
                && best.is_none_or(|(_, b)| t < b)
            {
                best = Some((node, t));
            }
        }
        self.hits = hits;
        best
    }

    /// Mesh nodes whose bounds come within `radius` of `node`'s world position
    /// (the node itself excluded), into `out`.
    pub fn within_radius(
        &mut self,
        scene: &Scene,
        node: NodeId,
        radius: f32,
        out: &mut Vec<NodeId>,
    ) {
        out.clear();
        let Some(world) = scene.world(node) else {
            return;
        };
        let center = Vec3::from(world.translation);
        self.tree.query_sphere(&Sphere { center, radius }, out);
        out.retain(|&n| n != node);
    }
}

/// Distance along `ray` (world units) to where it enters `mesh` under `model`.
fn hit_mesh(model: &Affine3A, mesh: MeshRef, ray: &Ray, assets: &Assets) -> Option<f32> {
    let inverse = model.inverse();
    let origin = inverse.transform_point3(ray.origin);
    let dir = inverse.transform_vector3(ray.dir);
    let local = Ray::new(origin, dir).ok()?;
    // Ray::new normalises the direction: scale the local distance back to world units.
    let to_world = |t: f32| model.transform_vector3(local.dir * t).length();
    let mesh = match mesh {
        MeshRef::Primitive(primitive) => primitive,
        MeshRef::Asset(handle) => {
            let registry = assets.registry();
            let asset = registry.mesh(handle)?;
            local.intersect_aabb(&asset.bounds)?;
            return hit_triangles(&asset.data, &local).map(to_world);
        }
    };
    let t = match mesh {
        Primitive::Sphere => local.intersect_sphere(&Sphere {
            center: Vec3::ZERO,
            radius: 0.5,
        })?,
        Primitive::Plane => {
            // A flat square at y = 0.
            if local.dir.y.abs() < 1e-9 {
                return None;
            }
            let t = -local.origin.y / local.dir.y;
            let p = local.at(t);
            if t < 0.0 || p.x.abs() > 0.5 || p.z.abs() > 0.5 {
                return None;
            }
            t
        }
        Primitive::Cube | Primitive::Cylinder | Primitive::Cone => local.intersect_aabb(
            &Aabb::from_center_half_extents(Vec3::ZERO, Vec3::splat(0.5)),
        )?,
    };
    Some(to_world(t))
}

/// Nearest hit of `ray` on any triangle of `mesh`, from either side (Möller-Trumbore).
fn hit_triangles(mesh: &crate::assets::MeshData, ray: &Ray) -> Option<f32> {
    let position = |i: u32| {
        mesh.vertices
            .get(i as usize)
            .map(|v| Vec3::from(v.position))
    };
    let mut best: Option<f32> = None;
    for tri in mesh.indices.chunks_exact(3) {
        let (Some(a), Some(b), Some(c)) = (position(tri[0]), position(tri[1]), position(tri[2]))
        else {
            continue;
        };
        let (e1, e2) = (b - a, c - a);
        let p = ray.dir.cross(e2);
        let det = e1.dot(p);
        if det.abs() < 1e-12 {
            continue;
        }
        let inv = 1.0 / det;
        let s = ray.origin - a;
        let u = s.dot(p) * inv;
        let q = s.cross(e1);
        let v = ray.dir.dot(q) * inv;
        let t = e2.dot(q) * inv;
        if u >= 0.0 && v >= 0.0 && u + v <= 1.0 && t >= 0.0 && best.is_none_or(|b| t < b) {
            best = Some(t);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Material;
    use crate::scene::{Keep, Transform};

    fn add(scene: &mut Scene, mesh: impl Into<MeshRef>, at: Vec3, scale: f32) -> NodeId {
        let node = scene
            .spawn(
                None,
                "m",
                Transform::from_translation(at).with_scale(Vec3::splat(scale)),
            )
            .unwrap();
        scene
            .insert(
                node,
                MeshRenderer {
                    cast_shadows: true,
                    mesh: mesh.into(),
                    material: Material::default(),
                },
            )
            .unwrap();
        node
    }

    #[test]
    fn aabb_of_a_rotated_cube_encloses_its_corners() {
        let model = Transform::from_translation(Vec3::X)
            .with_rotation(glam::Quat::from_rotation_y(0.7))
            .with_scale(Vec3::new(2.0, 1.0, 3.0))
            .to_affine();
        let Aabb { min, max } = mesh_bounds(Primitive::Cube.into(), &model, &Registry::default());
        for corner in 0..8 {
            let c = Vec3::new(
                if corner & 1 == 0 { -0.5 } else { 0.5 },
                if corner & 2 == 0 { -0.5 } else { 0.5 },
                if corner & 4 == 0 { -0.5 } else { 0.5 },
            );
            let p = model.transform_point3(c);
            assert!(
                p.cmpge(min - 1e-5).all() && p.cmple(max + 1e-5).all(),
                "{p} outside"
            );
        }
    }

    #[test]
    fn raycast_tests_the_triangles_of_imported_meshes() {
        use crate::assets::{MeshData, MeshVertex};
        // One triangle filling the lower-left half of the unit square at z = 0.
        let vertex = |x: f32, y: f32| MeshVertex::new([x, y, 0.0], [0.0, 0.0, 1.0], [x, y]);
        let mut scene = Scene::new();
        let wedge = scene.assets().add_mesh(
            "wedge",
            MeshData {
                vertices: vec![vertex(0.0, 0.0), vertex(1.0, 0.0), vertex(0.0, 1.0)],
                indices: vec![0, 1, 2],
                ..MeshData::default()
            },
        );
        let node = add(
            &mut scene,
            MeshRef::Asset(wedge),
            Vec3::new(0.0, 0.0, -5.0),
            2.0,
        );
        scene.propagate();
        let mut index = SpatialIndex::new();
        index.sync(&mut scene);
        let bounds = index.tree().get(node).expect("filed");
        assert!(bounds.max.abs_diff_eq(Vec3::new(2.0, 2.0, -5.0), 1e-5));
        let through = Ray::new(Vec3::new(0.5, 0.5, 0.0), Vec3::NEG_Z).unwrap();
        let (hit, t) = index.raycast(&scene, &through).expect("hits the triangle");
        assert_eq!(hit, node);
        assert!((t - 5.0).abs() < 1e-4, "{t}");
        // Inside the box, past the hypotenuse: no triangle there.
        let beside = Ray::new(Vec3::new(1.6, 1.6, 0.0), Vec3::NEG_Z).unwrap();
        assert_eq!(index.raycast(&scene, &beside), None);
    }

    #[test]
    fn only_moved_nodes_are_refiled() {
        let mut scene = Scene::new();
        let nodes: Vec<NodeId> = (0..100)
            .map(|i| add(&mut scene, Primitive::Cube, Vec3::X * i as f32, 1.0))
            .collect();
        scene.propagate();
        let mut index = SpatialIndex::new();
        index.sync(&mut scene);
        assert_eq!(index.len(), 100);
        for &node in &nodes[..3] {
            let mut t = scene.local(node).unwrap();
            t.translation.y = 5.0;
            scene.set_local(node, t).unwrap();
        }
        scene.propagate();
        index.sync(&mut scene);
        assert_eq!(index.refiled(), 3);
        scene.propagate();
        index.sync(&mut scene);
        assert_eq!(index.refiled(), 0, "nothing moved");
        scene.despawn(nodes[50]).unwrap();
        scene.propagate();
        index.sync(&mut scene);
        assert_eq!(index.len(), 99);
    }

    #[test]
    fn nodes_moved_before_a_mid_step_propagation_are_refiled() {
        let mut scene = Scene::new();
        let ship = scene.spawn(None, "ship", Transform::IDENTITY).unwrap();
        let hull = add(&mut scene, Primitive::Cube, Vec3::ZERO, 1.0);
        scene.reparent(hull, Some(ship), Keep::Local).unwrap();
        let boat = add(&mut scene, Primitive::Cube, Vec3::X * 10.0, 1.0);
        scene.propagate();
        let mut index = SpatialIndex::new();
        index.sync(&mut scene);
        // One step: the ship moves, then a reparent that keeps world
        // positions propagates to read them, then the step's propagation.
        scene
            .set_local(ship, Transform::from_translation(Vec3::Y * 3.0))
            .unwrap();
        scene.reparent(boat, Some(ship), Keep::World).unwrap();
        scene.propagate();
        index.sync(&mut scene);
        index.check(&scene).expect("the hull is filed where it is");
        assert_eq!(index.tree().get(hull).map(|b| b.min.y), Some(2.5));
    }

    #[test]
    fn a_mesh_with_non_finite_bounds_does_not_make_every_sync_a_rebuild() {
        let mut scene = Scene::new();
        let nodes: Vec<NodeId> = (0..100)
            .map(|i| add(&mut scene, Primitive::Cube, Vec3::X * i as f32, 1.0))
            .collect();
        // Finite locals whose product is not: the child's world overflows.
        let huge = Transform::from_translation(Vec3::splat(1e30)).with_scale(Vec3::splat(1e30));
        let parent = scene.spawn(None, "huge", huge).unwrap();
        let lost = add(&mut scene, Primitive::Cube, Vec3::ZERO, 1.0);
        scene.reparent(lost, Some(parent), Keep::Local).unwrap();
        scene.set_local(lost, huge).unwrap();
        scene.propagate();
        let mut index = SpatialIndex::new();
        index.sync(&mut scene);
        assert_eq!(index.len(), 100, "the overflowing mesh is not filed");
        index.check(&scene).unwrap();
        for &node in &nodes[..3] {
            scene
                .set_local(node, Transform::from_translation(Vec3::Y * 5.0))
                .unwrap();
        }
        scene.propagate();
        index.sync(&mut scene);
        assert_eq!(index.refiled(), 3, "only the moved nodes, no rebuild");
        // Back to finite: filed again, and nothing stale is left behind.
        scene.set_local(parent, Transform::IDENTITY).unwrap();
        scene.set_local(lost, Transform::IDENTITY).unwrap();
        scene.propagate();
        index.sync(&mut scene);
        assert_eq!(index.len(), 101);
        index.check(&scene).unwrap();
        scene.despawn(parent).unwrap();
        scene.propagate();
        index.sync(&mut scene);
        assert_eq!(index.len(), 100);
        index.check(&scene).unwrap();
    }

    #[test]
    fn raycast_hits_the_mesh_not_just_its_box() {
        let mut scene = Scene::new();
        let sphere = add(
            &mut scene,
            Primitive::Sphere,
            Vec3::new(0.0, 0.0, -10.0),
            2.0,
        );
        let far_cube = add(&mut scene, Primitive::Cube, Vec3::new(0.0, 0.0, -20.0), 2.0);
        scene.propagate();
        let mut index = SpatialIndex::new();
        index.sync(&mut scene);
        let straight = Ray::new(Vec3::ZERO, Vec3::NEG_Z).unwrap();
        let (hit, t) = index.raycast(&scene, &straight).unwrap();
        assert_eq!(hit, sphere);
        assert!(
            (t - 9.0).abs() < 1e-4,
            "sphere of radius 1 at 10: entered at {t}"
        );
        // Through the sphere's bounding box corner, missing the sphere itself.
        let corner = Ray::new(Vec3::new(0.95, 0.95, 0.0), Vec3::NEG_Z).unwrap();
        let (hit, t) = index.raycast(&scene, &corner).unwrap();
        assert_eq!(hit, far_cube, "the box corner of the sphere is empty space");
        assert!((t - 19.0).abs() < 1e-4);
        let miss = Ray::new(Vec3::ZERO, Vec3::Z).unwrap();
        assert_eq!(index.raycast(&scene, &miss), None);
    }

    #[test]
    fn within_radius_finds_neighbours_only() {
        let mut scene = Scene::new();
        let me = add(&mut scene, Primitive::Cube, Vec3::ZERO, 1.0);
        let near = add(&mut scene, Primitive::Cube, Vec3::new(2.0, 0.0, 0.0), 1.0);
        let _far = add(&mut scene, Primitive::Cube, Vec3::new(9.0, 0.0, 0.0), 1.0);
        scene.propagate();
        let mut index = SpatialIndex::new();
        index.sync(&mut scene);
        let mut out = Vec::new();
        index.within_radius(&scene, me, 2.0, &mut out);
        assert_eq!(out, vec![near]);
    }
}
