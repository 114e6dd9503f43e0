//! Small pictures of models for the editor's asset browser: the model alone
//! under a sun, framed by its bounds from above and to the side, extracted
//! and drawn off-screen by the caller's renderer.

use std::path::Path;

use glam::{Quat, Vec3};

use super::{Extractor, Overlays};
use crate::render::{Camera, GpuContext, Renderer};
use crate::scene::{Light, LightKind, MeshRenderer, Scene, Transform};
use crate::spatial::Aabb;

/// The model file at `path` drawn at `size` x `size` with `renderer`;
/// `None` (logged) when it does not load or draw.
pub fn model_thumbnail(
    ctx: &GpuContext,
    renderer: &mut Renderer,
    path: &Path,
    size: u32,
) -> Option<image::RgbaImage> {
    let mut scene = Scene::new();
    if let Err(e) = scene.spawn_model(None, "model", Transform::IDENTITY, path) {
        log::warn!("thumbnail of {}: {e}", path.display());
        return None;
    }
    let sun = scene
        .spawn(
            None,
            "sun",
            Transform::IDENTITY.with_rotation(Quat::from_euler(
                glam::EulerRot::YXZ,
                0.6,
                -0.9,
                0.0,
            )),
        )
        .ok()?;
    let light = Light {
        kind: LightKind::Directional,
        color: Vec3::ONE,
        intensity: 3.0,
        cast_shadows: false,
    };
    scene.insert(sun, light).ok()?;
    scene.propagate();
    let registry = scene.assets().registry();
    let bounds = scene
        .nodes()
        .filter_map(|n| {
            let mesh = scene.get::<MeshRenderer>(n)?;
            Some(
                mesh.mesh
                    .local_bounds(&registry)
                    .transformed(&scene.world(n)?),
            )
        })
        .reduce(|a, b| a.union(&b))
        .unwrap_or(Aabb::new(Vec3::splat(-0.5), Vec3::splat(0.5)));
    let radius = bounds.half_extents().length().max(1e-3);
    let fov_y = 40f32.to_radians();
    let distance = radius / crate::math::sin(fov_y / 2.0) * 1.05;
    let camera = Camera {
        position: bounds.center() + Vec3::new(0.8, 0.6, 1.0).normalize() * distance,
        target: bounds.center(),
        fov_y,
        near: (distance - radius).max(distance * 1e-3),
        far: distance + radius * 2.0,
        ..Camera::default()
    };
    let mut buffers = Extractor::default();
    let frame = buffers.extract(&scene, 1.0, camera, &Overlays::default());
    match renderer.render_to_image(ctx, &frame, size, size) {
        Ok(image) => Some(image),
        Err(e) => {
            log::warn!("thumbnail of {}: {e}", path.display());
            None
        }
    }
}
