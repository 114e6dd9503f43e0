//! Shapes made of a node's own mesh: the convex hull of its vertices, or
//! its triangles as they are (what Unity's `MeshCollider`, convex or not,
//! is). The mesh is the node's `MeshRenderer`'s (a primitive's or an
//! imported model's), scaled by the node's world scale; the shape is made
//! when the collider is filed or made and again only when that scale
//! changes, never for a move.
//!
//! What cannot be made is refused with a reason, never a panic: no mesh on
//! the node, a model's data released, a vertex that is not finite, an index
//! past the vertices, a mesh past [`MOST_TRIANGLES`] (a hostile or a huge
//! model), or a hull of points that span no volume. The collider is then
//! not in the queries or the simulation; the simulation warns, naming the
//! node.

use glam::Vec3;
use parry3d::shape::SharedShape;

use crate::assets::registry::MeshRef;
use crate::scene::{MeshRenderer, NodeId, Scene};

/// The most triangles a mesh shape is made of (a hull reads at most three
/// times as many vertices).
pub const MOST_TRIANGLES: usize = 1 << 20;

/// Why a node's mesh gives no shape.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MeshShapeError {
    /// The node draws no mesh.
    #[error("the node has no mesh to make the shape of")]
    NoMesh,
    /// Its model was released (or the handle is unknown).
    #[error("the node's mesh data is gone (its model was released)")]
    Released,
    /// More triangles than [`MOST_TRIANGLES`].
    #[error("the mesh has {0} triangles, more than the {MOST_TRIANGLES} a shape is made of")]
    TooLarge(usize),
    /// A vertex (scaled) that is not finite, or an index past the vertices.
    #[error("the mesh is malformed: {0}")]
    Malformed(String),
    /// The points span no volume (a plane, a line), or no triangle.
    #[error("the mesh spans no {0}")]
    Degenerate(&'static str),
}

/// The shape of `node`'s mesh at world `scale`: its convex hull when
/// `convex`, else its triangles.
///
/// # Errors
/// See [`MeshShapeError`].
pub(crate) fn mesh_shape(
    scene: &Scene,
    node: NodeId,
    convex: bool,
    scale: Vec3,
) -> Result<SharedShape, MeshShapeError> {
    let mesh = scene
        .get::<MeshRenderer>(node)
        .ok_or(MeshShapeError::NoMesh)?
        .mesh;
    let data = match mesh {
        MeshRef::Primitive(p) => std::sync::Arc::new(p.mesh()),
        MeshRef::Asset(handle) => {
            let registry = scene.assets().registry();
            let asset = registry.mesh(handle).ok_or(MeshShapeError::Released)?;
            asset.data.clone()
        }
    };
    let triangles = data.indices.len() / 3;
    if triangles > MOST_TRIANGLES || data.vertices.len() > 3 * MOST_TRIANGLES {
        return Err(MeshShapeError::TooLarge(
            triangles.max(data.vertices.len() / 3),
        ));
    }
    let points: Vec<Vec3> = data
        .vertices
        .iter()
        .map(|v| Vec3::from(v.position) * scale)
        .collect();
    if let Some(bad) = points.iter().position(|p| !p.is_finite()) {
        return Err(MeshShapeError::Malformed(format!(
            "vertex {bad} is not finite"
        )));
    }
    if convex {
        return SharedShape::convex_hull(&points).ok_or(MeshShapeError::Degenerate("volume"));
    }
    let count = points.len() as u32;
    let mut indices = Vec::with_capacity(triangles);
    for (t, tri) in data.indices.chunks_exact(3).enumerate() {
        if let Some(&i) = tri.iter().find(|&&i| i >= count) {
            return Err(MeshShapeError::Malformed(format!(
                "triangle {t} names vertex {i} of {count}"
            )));
        }
        indices.push([tri[0], tri[1], tri[2]]);
    }
    if indices.is_empty() {
        return Err(MeshShapeError::Degenerate("triangle"));
    }
    SharedShape::trimesh(points, indices).map_err(|e| MeshShapeError::Malformed(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assets::material::Material;
    use crate::assets::primitives::{MeshData, MeshVertex, Primitive};
    use crate::physics::QueryFilter;
    use crate::scene::Transform;
    use crate::scene::body::Body;
    use crate::scene::collider::{Collider, ColliderShape};
    use crate::spatial::Ray;
    use crate::world::World;

    fn meshed(scene: &mut Scene, mesh: MeshRef, at: Transform, shape: ColliderShape) -> NodeId {
        let node = scene.spawn(None, "meshed", at).unwrap();
        scene
            .insert(node, MeshRenderer::new(mesh, Material::default()))
            .unwrap();
        scene.insert(node, Collider::new(shape)).unwrap();
        node
    }

    #[test]
    fn a_ball_rests_on_a_triangle_floor_and_a_hull_is_the_cube_it_wraps() {
        let mut scene = Scene::new();
        // The plane primitive, 40 m square: two triangles at y = 0.
        let floor = Transform::IDENTITY.with_scale(Vec3::new(40.0, 1.0, 40.0));
        meshed(
            &mut scene,
            Primitive::Plane.into(),
            floor,
            ColliderShape::TriMesh,
        );
        // A cube's hull at scale 2, 10 m off: a box of half 1.
        let at =
            Transform::from_translation(Vec3::new(10.0, 1.0, 0.0)).with_scale(Vec3::splat(2.0));
        let crate_node = meshed(
            &mut scene,
            Primitive::Cube.into(),
            at,
            ColliderShape::ConvexHull,
        );
        scene.insert(crate_node, Body::dynamic()).unwrap();
        let ball = scene
            .spawn(
                None,
                "ball",
                Transform::from_translation(Vec3::new(0.0, 3.0, 0.0)),
            )
            .unwrap();
        scene.insert(ball, Collider::ball(0.5)).unwrap();
        scene.insert(ball, Body::dynamic()).unwrap();
        let mut world = World::new(scene);
        assert_eq!(world.physics().colliders(), 3);
        let mass = world.physics().mass(crate_node).unwrap();
        assert!((mass - 8.0).abs() < 1e-3, "a 2 m cube of density 1: {mass}");
        for _ in 0..240 {
            world.step();
        }
        let y = |node| world.scene().world(node).unwrap().translation.y;
        assert!(
            (y(ball) - 0.5).abs() < 0.03,
            "rests on the triangles: {}",
            y(ball)
        );
        assert!(
            (y(crate_node) - 1.0).abs() < 0.03,
            "and the hull on them: {}",
            y(crate_node)
        );
        // The queries see the hull's faces and the floor's triangles.
        let ray = Ray::new(Vec3::new(0.0, 1.0, 0.0), Vec3::X).unwrap();
        let hit = world
            .colliders()
            .space()
            .cast_ray(
                world.scene(),
                &ray,
                100.0,
                &QueryFilter::new().excluding(ball),
            )
            .expect("the hull is in the way");
        assert_eq!(hit.node, crate_node);
        assert!(
            (hit.distance - 9.0).abs() < 0.05,
            "its face at x = 9: {}",
            hit.distance
        );
        let down = Ray::new(Vec3::new(5.0, 2.0, 5.0), Vec3::NEG_Y).unwrap();
        let floor_hit = world
            .colliders()
            .space()
            .cast_ray(world.scene(), &down, 100.0, &QueryFilter::new())
            .expect("the floor's triangles");
        assert!(
            (floor_hit.distance - 2.0).abs() < 1e-3,
            "{}",
            floor_hit.distance
        );
    }

    #[test]
    fn a_mesh_that_cannot_be_a_shape_is_refused_with_why() {
        let mut scene = Scene::new();
        let bare = scene.spawn(None, "bare", Transform::IDENTITY).unwrap();
        assert_eq!(
            mesh_shape(&scene, bare, true, Vec3::ONE).unwrap_err(),
            MeshShapeError::NoMesh
        );
        let vertex = |p: [f32; 3]| MeshVertex::new(p, [0.0, 1.0, 0.0], [0.0, 0.0]);
        let line = MeshData {
            vertices: vec![
                vertex([0.0; 3]),
                vertex([1.0, 0.0, 0.0]),
                vertex([2.0, 0.0, 0.0]),
            ],
            indices: vec![0, 1, 2],
            ..MeshData::default()
        };
        let handle = scene.assets().add_mesh("line", line);
        let flat = meshed(
            &mut scene,
            MeshRef::Asset(handle),
            Transform::IDENTITY,
            ColliderShape::ConvexHull,
        );
        assert_eq!(
            mesh_shape(&scene, flat, true, Vec3::ONE).unwrap_err(),
            MeshShapeError::Degenerate("volume"),
            "points on a line have no hull"
        );
        let broken = MeshData {
            vertices: vec![
                vertex([0.0; 3]),
                vertex([1.0, 0.0, 0.0]),
                vertex([0.0, 0.0, 1.0]),
            ],
            indices: vec![0, 1, 7],
            ..MeshData::default()
        };
        let handle = scene.assets().add_mesh("broken", broken);
        let node = meshed(
            &mut scene,
            MeshRef::Asset(handle),
            Transform::IDENTITY,
            ColliderShape::TriMesh,
        );
        let err = mesh_shape(&scene, node, false, Vec3::ONE).unwrap_err();
        assert!(
            err.to_string().contains("triangle 0 names vertex 7 of 3"),
            "{err}"
        );
        let nan = MeshData {
            vertices: vec![
                vertex([f32::NAN, 0.0, 0.0]),
                vertex([1.0, 0.0, 0.0]),
                vertex([0.0, 1.0, 0.0]),
            ],
            indices: vec![0, 1, 2],
            ..MeshData::default()
        };
        let handle = scene.assets().add_mesh("nan", nan);
        let poisoned = meshed(
            &mut scene,
            MeshRef::Asset(handle),
            Transform::IDENTITY,
            ColliderShape::ConvexHull,
        );
        assert!(matches!(
            mesh_shape(&scene, poisoned, true, Vec3::ONE),
            Err(MeshShapeError::Malformed(_))
        ));
        let huge = MeshData {
            vertices: vec![vertex([0.0; 3])],
            indices: vec![0; 3 * (MOST_TRIANGLES + 1)],
            ..MeshData::default()
        };
        let handle = scene.assets().add_mesh("huge", huge);
        let vast = meshed(
            &mut scene,
            MeshRef::Asset(handle),
            Transform::IDENTITY,
            ColliderShape::TriMesh,
        );
        assert_eq!(
            mesh_shape(&scene, vast, false, Vec3::ONE).unwrap_err(),
            MeshShapeError::TooLarge(MOST_TRIANGLES + 1)
        );
        // None of them reaches the queries or the simulation, and nothing panics.
        scene.insert(flat, Body::fixed()).unwrap();
        let mut world = World::new(scene);
        world.step();
        assert_eq!(world.physics().colliders(), 0);
        assert_eq!(world.colliders().len(), 0);
    }
}
