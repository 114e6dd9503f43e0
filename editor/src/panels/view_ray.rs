//! Between the Scene view's screen and its world: the ray through a point
//! of the viewport (picking, dropping, dragging handles), and where a world
//! point lands on it (drawing handles).

use glam::Vec3;
use keel_engine::Camera;
use keel_engine::spatial::Ray;

/// The world-space ray through a point of the viewport.
pub fn pick_ray(camera: &Camera, rect: egui::Rect, pointer: egui::Pos2) -> Option<Ray> {
    let aspect = rect.width() / rect.height().max(1.0);
    let inverse = camera.view_projection(aspect).inverse();
    let ndc_x = (pointer.x - rect.min.x) / rect.width() * 2.0 - 1.0;
    let ndc_y = 1.0 - (pointer.y - rect.min.y) / rect.height() * 2.0;
    let near = inverse.project_point3(Vec3::new(ndc_x, ndc_y, 0.0));
    let far = inverse.project_point3(Vec3::new(ndc_x, ndc_y, 1.0));
    Ray::new(near, far - near).ok()
}

/// Where the world `point` falls in `rect` through `camera`, if in front.
pub(crate) fn on_screen(camera: &Camera, rect: egui::Rect, point: Vec3) -> Option<egui::Pos2> {
    let aspect = rect.width() / rect.height().max(1.0);
    let clip = camera.view_projection(aspect) * point.extend(1.0);
    if clip.w <= 1e-6 {
        return None;
    }
    let ndc = clip.truncate() / clip.w;
    Some(egui::pos2(
        rect.min.x + (ndc.x + 1.0) * 0.5 * rect.width(),
        rect.min.y + (1.0 - ndc.y) * 0.5 * rect.height(),
    ))
}
