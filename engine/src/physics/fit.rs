//! A collider fitted to what a node draws: the editor's "Add collider" in
//! one click, and a game's colliders made in code.

use glam::Vec3;

use crate::scene::collider::Collider;
use crate::scene::{MeshRenderer, NodeId, Scene, mesh_bounds};
use crate::spatial::Aabb;

/// A box collider around the meshes of `node` and its subtree (a model's
/// parts), in the node's space: `None` when none draws a mesh.
///
/// A collider is centred on its node (it has no offset), so the box reaches
/// as far on each side as the meshes reach on the farther one: exact for a
/// mesh centred on its node (a primitive, the crate), larger than the mesh
/// for one that is not (a tree whose origin is its foot). A child node with
/// its own collider fits such a mesh closely.
pub fn fitted_collider(scene: &Scene, node: NodeId) -> Option<Collider> {
    let inverse = scene.world(node)?.inverse();
    let registry = scene.assets().registry();
    let mut bounds: Option<Aabb> = None;
    for part in scene.subtree(node) {
        let (Some(mesh), Some(world)) = (scene.get::<MeshRenderer>(part), scene.world(part)) else {
            continue;
        };
        let b = mesh_bounds(mesh.mesh, &(inverse * world), &registry);
        if b.is_finite() {
            bounds = Some(bounds.map_or(b, |all| all.union(&b)));
        }
    }
    let bounds = bounds?;
    let reach = bounds.max.max(-bounds.min).max(Vec3::ZERO);
    reach.is_finite().then(|| Collider::cuboid(reach))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assets::material::Material;
    use crate::assets::primitives::Primitive;
    use crate::scene::Transform;

    fn cube(scene: &mut Scene, parent: Option<NodeId>, at: Transform) -> NodeId {
        let node = scene.spawn(parent, "cube", at).unwrap();
        let mesh = MeshRenderer::new(Primitive::Cube.into(), Material::default());
        scene.insert(node, mesh).unwrap();
        node
    }

    #[test]
    fn the_box_holds_the_node_and_its_parts_in_the_nodes_space() {
        let mut scene = Scene::new();
        let root = scene
            .spawn(
                None,
                "model",
                Transform::from_translation(Vec3::new(5.0, 0.0, 0.0)).with_scale(Vec3::splat(2.0)),
            )
            .unwrap();
        assert_eq!(fitted_collider(&scene, root), None, "nothing drawn");
        cube(&mut scene, Some(root), Transform::IDENTITY);
        scene.propagate();
        let fitted = fitted_collider(&scene, root).unwrap();
        assert_eq!(
            fitted,
            Collider::cuboid(Vec3::splat(0.5)),
            "a unit cube, in the node's space"
        );
        // A part off to one side: the box reaches as far on the other.
        cube(
            &mut scene,
            Some(root),
            Transform::from_translation(Vec3::new(0.0, 1.0, 0.0))
                .with_scale(Vec3::new(1.0, 1.0, 3.0)),
        );
        scene.propagate();
        let fitted = fitted_collider(&scene, root).unwrap();
        assert_eq!(fitted, Collider::cuboid(Vec3::new(0.5, 1.5, 1.5)));
    }
}
