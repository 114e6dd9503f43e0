//! The render camera a scene's cameras make: [`SceneCamera::camera_at`] a
//! node's world transform, and the game's camera
//! ([`Scene::active_camera`], [`Scene::game_camera`]) the viewer and the
//! editor's Game view draw through. Extraction's, as it joins the scene's
//! data to the renderer's.

use glam::{Affine3A, Vec3, Vec3A};

use crate::render::Camera;
use crate::scene::{CameraSetup, NodeId, Projection, Scene, SceneCamera};

impl SceneCamera {
    /// The render camera of this lens placed at `world` (the node's world
    /// transform: it looks down -Z, +Y up; scale is ignored).
    pub fn camera_at(&self, world: &Affine3A) -> Camera {
        let forward = world.matrix3 * Vec3A::NEG_Z;
        let forward = Vec3::from(forward.try_normalize().unwrap_or(Vec3A::NEG_Z));
        let up = Vec3::from(
            (world.matrix3 * Vec3A::Y)
                .try_normalize()
                .unwrap_or(Vec3A::Y),
        );
        let position = Vec3::from(world.translation);
        let (fov_y, orthographic) = match self.projection {
            Projection::Perspective { fov_y_degrees } => (fov_y_degrees.to_radians(), None),
            Projection::Orthographic { height } => (50f32.to_radians(), Some(height)),
        };
        Camera {
            position,
            target: position + forward,
            up,
            fov_y,
            near: self.near,
            far: self.far,
            orthographic,
        }
    }
}

impl Scene {
    /// The camera the game shows: the first active [`SceneCamera`] (in its
    /// column's order: file order after a load), placed at its node's world
    /// transform interpolated at `alpha` (as the meshes are drawn); `None`
    /// when the scene has no active camera.
    pub fn active_camera(&self, alpha: f32) -> Option<(NodeId, Camera)> {
        let (nodes, cameras) = self.components().parts::<SceneCamera>();
        let (&node, lens) = nodes.iter().zip(cameras).find(|(_, lens)| lens.active)?;
        let world = self.interpolated_world(node, alpha)?;
        Some((node, lens.camera_at(&world)))
    }

    /// What the game shows at `alpha`: [`Scene::active_camera`], else the
    /// view a scene without a camera has always had ([`CameraSetup::default`]).
    pub fn game_camera(&self, alpha: f32) -> Camera {
        self.active_camera(alpha).map_or_else(
            || {
                let (world, lens) = SceneCamera::from_setup(&CameraSetup::default());
                lens.camera_at(&world.to_affine())
            },
            |(_, camera)| camera,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::registered::Component;
    use crate::transform::Transform;
    use glam::Quat;

    fn scene_with(cameras: &[(Vec3, SceneCamera)]) -> (Scene, Vec<NodeId>) {
        let mut scene = Scene::new();
        let nodes = cameras
            .iter()
            .map(|(at, lens)| {
                let node = scene
                    .spawn(None, "cam", Transform::from_translation(*at))
                    .unwrap();
                scene.insert(node, *lens).unwrap();
                node
            })
            .collect();
        scene.propagate();
        (scene, nodes)
    }

    #[test]
    fn a_camera_node_looks_down_its_minus_z_from_its_world_position() {
        let mut scene = Scene::new();
        let parent = scene
            .spawn(
                None,
                "rig",
                Transform::from_translation(Vec3::new(0.0, 2.0, 0.0)),
            )
            .unwrap();
        let turned = Transform {
            translation: Vec3::new(0.0, 0.0, 5.0),
            rotation: Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
            ..Transform::IDENTITY
        };
        let node = scene.spawn(Some(parent), "cam", turned).unwrap();
        scene.insert(node, SceneCamera::default()).unwrap();
        scene.propagate();
        let (found, camera) = scene.active_camera(0.0).expect("active");
        assert_eq!(found, node);
        assert!(camera.position.distance(Vec3::new(0.0, 2.0, 5.0)) < 1e-5);
        // -Z turned a quarter about +Y is -X.
        assert!(
            camera.forward().distance(Vec3::NEG_X) < 1e-5,
            "{}",
            camera.forward()
        );
        assert!((camera.fov_y - 50f32.to_radians()).abs() < 1e-6);
    }

    #[test]
    fn the_first_active_camera_is_the_games_and_without_one_the_default_view() {
        let off = SceneCamera {
            active: false,
            ..SceneCamera::default()
        };
        let (scene, nodes) = scene_with(&[
            (Vec3::X, off),
            (Vec3::Y, SceneCamera::default()),
            (Vec3::Z, SceneCamera::default()),
        ]);
        assert_eq!(scene.active_camera(0.0).map(|(n, _)| n), Some(nodes[1]));
        assert_eq!(scene.game_camera(0.0).position, Vec3::Y);

        let (scene, _) = scene_with(&[(Vec3::X, off)]);
        assert!(scene.active_camera(0.0).is_none());
        let fallback = scene.game_camera(0.0);
        let default = CameraSetup::default();
        assert!(fallback.position.distance(default.position) < 1e-5);
        let towards = (default.target - default.position).normalize();
        assert!(fallback.forward().distance(towards) < 1e-5);
    }

    #[test]
    fn an_orthographic_camera_keeps_sizes_at_every_depth() {
        let lens = SceneCamera {
            projection: Projection::Orthographic { height: 10.0 },
            ..SceneCamera::default()
        };
        let (scene, _) = scene_with(&[(Vec3::new(0.0, 0.0, 50.0), lens)]);
        let camera = scene.game_camera(0.0);
        let view_proj = camera.view_projection(2.0);
        for depth in [1.0, 10.0, 100.0] {
            // The top edge (y = 5) and the right edge (x = 10) at any depth.
            let top = view_proj.project_point3(Vec3::new(0.0, 5.0, 50.0 - depth));
            let right = view_proj.project_point3(Vec3::new(10.0, 0.0, 50.0 - depth));
            assert!(
                (top.y - 1.0).abs() < 1e-4 && (right.x - 1.0).abs() < 1e-4,
                "{depth}"
            );
            assert!((0.0..=1.0).contains(&top.z));
        }
        assert_eq!(camera.half_extents_at(3.0, 2.0), (10.0, 5.0));
    }

    #[test]
    fn an_old_camera_record_becomes_a_node_with_the_same_view() {
        let setup = CameraSetup {
            position: Vec3::new(-19.0, 10.5, -22.0),
            target: Vec3::new(0.0, 5.0, -1.0),
            fov_y_degrees: 45.0,
        };
        let (at, lens) = SceneCamera::from_setup(&setup);
        let camera = lens.camera_at(&at.to_affine());
        let towards = (setup.target - setup.position).normalize();
        assert!(camera.position.distance(setup.position) < 1e-4);
        assert!(camera.forward().distance(towards) < 1e-5);
        assert!(camera.up.y > 0.9, "upright: {}", camera.up);
        assert!((camera.fov_y - 45f32.to_radians()).abs() < 1e-6);
        // The same picture as the orbit camera the viewer placed there.
        let orbit = crate::extract::orbit_from_setup(&setup).camera();
        let p = Vec3::new(3.0, 1.0, 2.0);
        let (a, b) = (
            camera.view_projection(1.5).project_point3(p),
            orbit.view_projection(1.5).project_point3(p),
        );
        assert!(a.distance(b) < 1e-4, "{a} vs {b}");
        assert!(lens.validate().is_ok());
    }
}
