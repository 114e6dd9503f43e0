//! Extraction: what the renderer needs from the scene, at one interpolation alpha.
//!
//! The renderer knows nothing of the scene; each frame this module walks the
//! mesh and light columns (packed, front to back) and fills reusable buffers
//! with instances drawn at `interpolated_world(node, alpha)`, so after the
//! first frames extraction allocates nothing.

pub(crate) mod camera_rig;
mod deformed;
mod game_camera;
mod pack;
mod physics_overlay;
mod retained;
mod shadows;
pub(crate) mod thumbnail;
mod view_queries;

use glam::{Affine3A, Vec3, Vec4};

use crate::assets::{Assets, MeshRef};
use crate::render::{
    Camera, DeformedInstance, DirectionalLight, FrameData, InstanceRecord, LineVertex,
    MeshInstance, OrbitController, PointLight, Spot, push_aabb, push_frustum,
};
use crate::scene::spatial_index::mesh_bounds;
use crate::scene::{
    CameraSetup, JointPalette, LightKind, MeshRenderer, NodeId, Scene, SpatialIndex,
};
use crate::spatial::{Aabb, Frustum};
use crate::world::World;

/// Debug drawing asked of an extraction.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Overlays<'a> {
    /// A ground grid.
    pub grid: bool,
    /// The world bounding box of every mesh.
    pub aabbs: bool,
    /// Nodes to outline (the editor's selection).
    pub highlight: &'a [NodeId],
    /// The octree's non-empty cells.
    pub octree_cells: bool,
    /// Every collider's outline (by what its body does) and the last
    /// step's contacts.
    pub colliders: bool,
    /// Outline the meshes whose world transform the dirty flag recomputed this frame.
    pub recomputed: bool,
    /// Every scene camera's view volume (to `CAMERA_GIZMO_DEPTH`, at 16:9):
    /// the active one yellow, others grey.
    pub cameras: bool,
}

/// How deep a camera's view volume is drawn by [`Overlays::cameras`].
pub const CAMERA_GIZMO_DEPTH: f32 = 3.0;

/// Buffers reused from frame to frame.
#[derive(Debug, Default)]
pub struct Extractor {
    /// Mesh instances of the last [`Extractor::extract`].
    pub instances: Vec<MeshInstance>,
    /// Mesh instances of the last [`Extractor::extract_world`] packed for
    /// the GPU, and each shadow view's casters.
    packed: pack::Packed,
    /// Point lights of the last extraction.
    pub point_lights: Vec<PointLight>,
    /// Debug lines of the last extraction.
    pub lines: Vec<LineVertex>,
    /// Additive particles.
    pub additive: Vec<crate::particles::ParticleInstance>,
    /// Alpha-blended particles.
    pub alpha_particles: Vec<crate::particles::ParticleInstance>,
    /// The octree's questions of the last culled extraction (the first
    /// `asked`), with their answers.
    queries: Vec<view_queries::Query>,
    asked: usize,
    /// Mesh nodes the octree left out of the last extraction.
    pub culled_by_octree: usize,
    /// One bit per node slot: in the frustum this frame.
    visible_marks: Vec<u64>,
    /// The octree's cells, for the cells overlay.
    cells: Vec<(Aabb, usize)>,
    /// Skinned and morphed meshes of the last extraction.
    pub deformed: Vec<DeformedInstance>,
    /// Their joint matrices.
    pub palette: JointPalette,
    /// Their morph weights.
    pub morph_weights: Vec<f32>,
    /// The spans of the mesh column packed on separate cores.
    spans: Vec<pack::Span>,
    /// Whether each mesh of the column can cast a shadow (a byte each), and
    /// the column's stamp they were read at.
    cast_flags: (Option<(u64, u64)>, Vec<u8>),
    /// One byte per node slot: bit `i` set when in shadow view `i` this frame.
    caster_marks: Vec<u8>,
    /// This frame's shadow views' volumes (empty without shadows).
    cascade_frustums: Vec<Frustum>,
    /// The scene's sun at the last extraction's alpha.
    sun: Option<DirectionalLight>,
    /// The store of the last extracted scene (what its frames' handles mean).
    assets: Option<Assets>,
    /// The mesh nodes' slots kept on the GPU from frame to frame.
    retained: retained::Retained,
    /// Culls and packs the camera's meshes on the CPU every frame instead of
    /// handing the GPU the retained slots (the reference the GPU path is
    /// tested against).
    cpu_culling: bool,
}

/// Outlines the bounds of `mesh` under `model`.
fn outline(
    lines: &mut Vec<LineVertex>,
    mesh: MeshRef,
    model: &Affine3A,
    color: Vec4,
    assets: &Assets,
) {
    outline_box(lines, &mesh_bounds(mesh, model, &assets.registry()), color);
}

fn outline_box(lines: &mut Vec<LineVertex>, bounds: &Aabb, color: Vec4) {
    push_aabb(lines, bounds.min, bounds.max, color);
}

impl Extractor {
    /// Fills the buffers from every mesh of `scene` and returns the frame to render
    /// (the renderer still culls each instance against the frustum).
    pub fn extract<'a>(
        &'a mut self,
        scene: &Scene,
        alpha: f32,
        camera: Camera,
        overlays: &Overlays,
    ) -> FrameData<'a> {
        puffin::profile_scope!("extract");
        self.clear();
        self.instances.clear();
        self.culled_by_octree = 0;
        for (node, mesh) in scene.components().mesh.iter() {
            if !deformed::is_deformed(scene, node) {
                self.push_mesh(scene, node, mesh, alpha, overlays);
            }
        }
        self.gather_lights(scene, alpha);
        self.finish(scene, alpha, camera, overlays, None, false)
    }

    /// Culls and packs the camera's meshes on the CPU in every
    /// [`Extractor::extract_world`] (`true`), or keeps them in slots the
    /// GPU culls (`false`, the default: see [`RetainedInstances`]).
    ///
    /// [`RetainedInstances`]: crate::render::RetainedInstances
    pub fn set_cpu_culling(&mut self, on: bool) {
        self.cpu_culling = on;
    }

    /// The CPU-culled path: packs the meshes the octree finds in the
    /// camera's `frustum` and in each shadow view (the lights gathered).
    fn cull_and_pack(
        &mut self,
        scene: &Scene,
        index: &SpatialIndex,
        alpha: f32,
        (camera, aspect, frustum): (&Camera, f32, &Frustum),
        overlays: &Overlays,
    ) {
        let views = {
            puffin::profile_scope!("octree culling");
            self.cull(scene, index, Some(frustum), camera, aspect)
        };
        // Packed straight into the GPU layout (the renderer uploads these
        // records as they are), over last frame's records.
        self.pack_meshes(scene, alpha, views);
        if overlays.aabbs {
            let color = Vec4::new(0.2, 1.0, 0.4, 1.0);
            let packed = self.packed.camera.packed();
            for (record, key) in packed.records.iter().zip(packed.keys) {
                outline(
                    &mut self.lines,
                    key.mesh,
                    &record.model(),
                    color,
                    scene.assets(),
                );
            }
        }
        let visible = self.visible().count();
        self.culled_by_octree = scene.components().mesh.len().saturating_sub(visible);
    }

    /// The GPU-culled path: the retained slots brought up to date (the GPU
    /// culls them for the camera and every shadow view), the blended meshes
    /// as loose instances (the batcher culls and sorts them; they cast no
    /// shadow).
    fn keep_retained(
        &mut self,
        scene: &Scene,
        index: &SpatialIndex,
        alpha: f32,
        (camera, aspect, frustum): (&Camera, f32, &Frustum),
        overlays: &Overlays,
    ) {
        self.asked = 0;
        self.note_shadow_views(scene, camera, aspect);
        self.retained.update(scene, index, alpha);
        for &node in &self.retained.blended {
            let (Some(mesh), Some(model)) = (
                scene.get::<MeshRenderer>(node),
                scene.interpolated_world(node, alpha),
            ) else {
                continue;
            };
            self.instances.push(MeshInstance {
                mesh: mesh.mesh,
                model,
                material: mesh.material,
                // Blended meshes cast none (`MeshRenderer::can_cast`).
                cast_shadows: false,
            });
        }
        if overlays.aabbs {
            let color = Vec4::new(0.2, 1.0, 0.4, 1.0);
            let registry = scene.assets().registry();
            for node in self
                .retained
                .nodes()
                .chain(self.retained.blended.iter().copied())
            {
                if let (Some(mesh), Some(model)) = (
                    scene.get::<MeshRenderer>(node),
                    scene.interpolated_world(node, alpha),
                ) {
                    let bounds = mesh_bounds(mesh.mesh, &model, &registry);
                    if frustum.intersects_aabb(&bounds) {
                        outline_box(&mut self.lines, &bounds, color);
                    }
                }
            }
        }
        self.culled_by_octree = 0;
    }

    /// Extracts a world's scene at its clock's alpha, culled by its octree,
    /// with the overlays that need the world (octree cells, recomputed nodes).
    pub fn extract_world<'a>(
        &'a mut self,
        world: &mut World,
        camera: Camera,
        aspect: f32,
        overlays: &Overlays,
    ) -> FrameData<'a> {
        puffin::profile_scope!("extract world");
        let alpha = world.clock.alpha();
        self.clear();
        if overlays.octree_cells {
            world.index.tree().cells(&mut self.cells);
            for &(cell, depth) in &self.cells {
                let shade = 1.0 - (depth as f32 * 0.12).min(0.8);
                push_aabb(
                    &mut self.lines,
                    cell.min,
                    cell.max,
                    Vec4::new(0.3, 0.5 * shade, 1.0 * shade, 1.0),
                );
            }
        }
        if overlays.colliders {
            physics_overlay::push_physics(&mut self.lines, &world.scene, world.physics(), alpha);
        }
        if overlays.cameras {
            let active = world.scene.active_camera(alpha).map(|(node, _)| node);
            let (nodes, lenses) = world
                .scene
                .components()
                .parts::<crate::scene::SceneCamera>();
            for (&node, lens) in nodes.iter().zip(lenses) {
                let Some(at) = world.scene.interpolated_world(node, alpha) else {
                    continue;
                };
                let color = if active == Some(node) {
                    Vec4::new(1.0, 0.85, 0.2, 1.0)
                } else {
                    Vec4::new(0.6, 0.6, 0.6, 1.0)
                };
                let camera = lens.camera_at(&at);
                push_frustum(
                    &mut self.lines,
                    &camera,
                    16.0 / 9.0,
                    CAMERA_GIZMO_DEPTH,
                    color,
                );
            }
        }
        if overlays.recomputed {
            for &node in world.recomputed_nodes() {
                if let Some(mesh) = world.scene.get::<MeshRenderer>(node)
                    && let Some(model) = world.scene.interpolated_world(node, alpha)
                {
                    let color = Vec4::new(1.0, 0.15, 0.6, 1.0);
                    outline(
                        &mut self.lines,
                        mesh.mesh,
                        &model,
                        color,
                        world.scene.assets(),
                    );
                }
            }
        }
        self.additive.clear();
        self.alpha_particles.clear();
        // Room for the most that can come (the whole pool in one blend mode):
        // sized once, not grown frame by frame as the pool fills.
        let capacity = world.particles.stats().capacity as usize;
        self.additive.reserve(capacity);
        self.alpha_particles.reserve(capacity);
        world
            .particles
            .instances(alpha, &mut self.additive, &mut self.alpha_particles);
        let World { scene, index, .. } = world;
        puffin::profile_scope!("extract meshes");
        let frustum = Frustum::from_view_projection(&camera.view_projection(aspect));
        // Meshes come packed or retained, not as loose instances (but the
        // blended ones on the GPU path).
        self.instances.clear();
        self.gather_lights(scene, alpha);
        let view = (&camera, aspect, &frustum);
        if self.cpu_culling {
            self.cull_and_pack(scene, index, alpha, view, overlays);
        } else {
            self.keep_retained(scene, index, alpha, view, overlays);
        }
        let retained = !self.cpu_culling;
        self.finish(scene, alpha, camera, overlays, Some(&frustum), retained)
    }

    /// Clears the buffers, instances excepted: each path refills those its own way.
    fn clear(&mut self) {
        self.cascade_frustums.clear();
        self.packed.clear();
        self.point_lights.clear();
        self.lines.clear();
    }

    fn push_mesh(
        &mut self,
        scene: &Scene,
        node: NodeId,
        mesh: &MeshRenderer,
        alpha: f32,
        overlays: &Overlays,
    ) {
        let Some(model) = scene.interpolated_world(node, alpha) else {
            return;
        };
        self.instances.push(MeshInstance {
            mesh: mesh.mesh,
            model,
            material: mesh.material,
            cast_shadows: mesh.cast_shadows,
        });
        if overlays.aabbs {
            let color = Vec4::new(0.2, 1.0, 0.4, 1.0);
            outline(&mut self.lines, mesh.mesh, &model, color, scene.assets());
        }
    }

    /// The scene's lights at `alpha`: its first directional light as the
    /// sun, the point and spot lights in column order.
    fn gather_lights(&mut self, scene: &Scene, alpha: f32) {
        self.sun = None;
        self.point_lights.clear();
        for (node, light) in scene.components().light.iter() {
            let Some(world) = scene.interpolated_world(node, alpha) else {
                continue;
            };
            match light.kind {
                LightKind::Directional if self.sun.is_none() => {
                    self.sun = Some(DirectionalLight {
                        direction: world
                            .transform_vector3(Vec3::NEG_Z)
                            .normalize_or(Vec3::NEG_Y),
                        color: light.color,
                        intensity: light.intensity,
                    });
                }
                LightKind::Directional => {}
                LightKind::Point { range } => self.point_lights.push(PointLight {
                    position: world.translation.into(),
                    color: light.color,
                    intensity: light.intensity,
                    range,
                    spot: None,
                    cast_shadows: light.cast_shadows,
                }),
                LightKind::Spot {
                    range,
                    inner_degrees,
                    outer_degrees,
                } => self.point_lights.push(PointLight {
                    position: world.translation.into(),
                    color: light.color,
                    intensity: light.intensity,
                    range,
                    spot: Some(Spot {
                        direction: world
                            .transform_vector3(Vec3::NEG_Z)
                            .normalize_or(Vec3::NEG_Y),
                        cos_inner: crate::math::cos(inner_degrees.to_radians()),
                        cos_outer: crate::math::cos(outer_degrees.to_radians()),
                    }),
                    cast_shadows: light.cast_shadows,
                }),
            }
        }
    }

    fn finish<'a>(
        &'a mut self,
        scene: &Scene,
        alpha: f32,
        camera: Camera,
        overlays: &Overlays,
        frustum: Option<&Frustum>,
        retained: bool,
    ) -> FrameData<'a> {
        self.extract_deformed(scene, alpha, frustum, overlays.aabbs);
        for &node in overlays.highlight {
            for part in scene.subtree(node) {
                if let Some(mesh) = scene.get::<MeshRenderer>(part)
                    && let Some(model) = scene.interpolated_world(part, alpha)
                {
                    let color = Vec4::new(1.0, 0.6, 0.1, 1.0);
                    outline(&mut self.lines, mesh.mesh, &model, color, scene.assets());
                }
            }
        }
        let env = scene.environment();
        if !self.assets.as_ref().is_some_and(|a| a.same(scene.assets())) {
            self.assets = Some(scene.assets().clone());
        }
        FrameData {
            camera,
            clear_color: env.clear_color.extend(1.0),
            ambient: env.ambient,
            // A scene without a sun is lit by ambient and point lights only.
            sun: self.sun.unwrap_or(DirectionalLight {
                intensity: 0.0,
                ..DirectionalLight::default()
            }),
            point_lights: &self.point_lights,
            instances: &self.instances,
            // Culled meshes come packed; loose instances are culled by the renderer.
            instances_in_view: false,
            packed: self.packed.camera.packed(),
            retained: retained.then(|| self.retained.instances()),
            shadows: env.shadows,
            post: env.post,
            // Loaded with the scene; never read from disk here.
            sky: env
                .sky
                .as_deref()
                .and_then(|s| scene.assets().loaded_sky(s)),
            casters: self.caster_frames(),
            deformed: &self.deformed,
            joints: &self.palette.matrices,
            morph_weights: &self.morph_weights,
            additive: &self.additive,
            alpha: &self.alpha_particles,
            lines: &self.lines,
            grid: overlays.grid,
            assets: self.assets.as_ref(),
        }
    }
}

/// An orbit camera placed where the scene's camera setup says.
pub fn orbit_from_setup(setup: &CameraSetup) -> OrbitController {
    let offset = setup.target - setup.position;
    let distance = offset.length().max(0.1);
    let forward = offset / distance;
    OrbitController {
        target: setup.target,
        distance,
        yaw: crate::math::atan2(-forward.x, -forward.z),
        pitch: crate::math::asin((-forward.y).clamp(-1.0, 1.0)),
        fov_y: setup.fov_y_degrees.clamp(5.0, 150.0).to_radians(),
        ..OrbitController::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Material;
    use crate::assets::Primitive;
    use crate::render::{BatchKey, GpuInstance};
    use crate::scene::{MeshRenderer, Transform};

    #[test]
    fn orbit_from_setup_reproduces_the_setup() {
        let setup = CameraSetup {
            position: Vec3::new(26.0, 14.0, 30.0),
            target: Vec3::new(0.0, 4.0, 0.0),
            fov_y_degrees: 45.0,
        };
        let camera = orbit_from_setup(&setup).camera();
        assert!(
            camera.position.distance(setup.position) < 1e-3,
            "{:?}",
            camera.position
        );
        assert_eq!(camera.target, setup.target);
    }

    #[test]
    fn a_moving_node_is_drawn_halfway_at_alpha_one_half() {
        let mut scene = Scene::new();
        let node = scene.spawn(None, "box", Transform::IDENTITY).unwrap();
        scene
            .insert(
                node,
                MeshRenderer {
                    cast_shadows: true,
                    mesh: Primitive::Cube.into(),
                    material: Material::default(),
                },
            )
            .unwrap();
        let mut systems = crate::systems::Systems::new();
        systems
            .add("slide", move |scene, _, ctx| {
                let mut t = scene.local(node).unwrap();
                t.translation.x += 2.0 * ctx.dt;
                scene.set_local(node, t).unwrap();
            })
            .expect("a system of a new name");
        systems.run_step(
            &mut scene,
            crate::physics::Space::EMPTY,
            crate::physics::Bodies::EMPTY,
            0.5,
        );
        systems.run_step(
            &mut scene,
            crate::physics::Space::EMPTY,
            crate::physics::Bodies::EMPTY,
            0.5,
        );
        let mut buffers = Extractor::default();
        let frame = buffers.extract(&scene, 0.5, Camera::default(), &Overlays::default());
        let x = frame.instances[0].model.translation.x;
        assert!(
            (x - 1.5).abs() < 1e-5,
            "previous step at 1, current at 2, drawn at {x}"
        );
    }

    /// The culled extraction against a naive one: every mesh in column order,
    /// kept when the octree answered it, drawn at `interpolated_world`.
    /// The packed records and keys a culled extraction must produce, the slow way.
    fn expected(world: &World, visible: &[NodeId]) -> Vec<(GpuInstance, BatchKey)> {
        let alpha = world.clock.alpha();
        let visible: std::collections::HashSet<NodeId> = visible.iter().copied().collect();
        world
            .scene
            .components()
            .mesh
            .iter()
            .filter(|(node, _)| visible.contains(node))
            .filter_map(|(node, mesh)| {
                let model = world.scene.interpolated_world(node, alpha)?;
                let key = BatchKey::new(mesh.mesh, &mesh.material);
                Some((GpuInstance::pack(&model, &mesh.material), key))
            })
            .collect()
    }

    #[test]
    fn reused_instance_buffers_hold_exactly_each_frames_meshes() {
        let mut scene = Scene::new();
        let mut parts = Vec::new();
        for g in 0..12 {
            let root = scene.spawn(None, "group", Transform::IDENTITY).unwrap();
            let orbit = crate::scene::Orbit {
                center: Vec3::ZERO,
                radius: 4.0 + g as f32,
                rate: if g % 3 == 0 { 0.0 } else { 0.7 },
                angle: g as f32,
                face_forward: true,
            };
            scene.insert(root, orbit).unwrap();
            for i in 0..10 {
                let at = Vec3::new(i as f32 * 0.5, (g % 4) as f32, 0.0);
                let node = scene
                    .spawn(Some(root), "part", Transform::from_translation(at))
                    .unwrap();
                let material = Material::rgb(g as f32 / 12.0, i as f32 / 10.0, 0.5);
                let mesh = Primitive::ALL[(g + i) % Primitive::ALL.len()].into();
                scene
                    .insert(node, MeshRenderer::new(mesh, material))
                    .unwrap();
                parts.push(node);
            }
        }
        let mut world = World::new(scene);
        let wide = Camera {
            position: Vec3::new(0.0, 10.0, 40.0),
            ..Camera::default()
        };
        let narrow = Camera {
            position: Vec3::new(6.0, 2.0, 8.0),
            target: Vec3::new(8.0, 0.0, 0.0),
            ..Camera::default()
        };
        let mut buffers = Extractor::default();
        buffers.set_cpu_culling(true);
        let mut counts = Vec::new();
        // Larger, smaller and larger frames again, a despawn in between: each
        // extraction overwrites what the last one left.
        for (frame, camera) in [wide, narrow, wide, narrow, wide].into_iter().enumerate() {
            world.step();
            if frame == 2 {
                world.scene.despawn(parts[5]).unwrap();
                world.step();
            }
            let data = buffers.extract_world(&mut world, camera, 1.5, &Overlays::default());
            assert!(data.instances.is_empty(), "culled meshes come packed");
            let packed = data.packed;
            let got: Vec<(GpuInstance, BatchKey)> = packed
                .records
                .iter()
                .copied()
                .zip(packed.keys.iter().copied())
                .collect();
            let visible: Vec<NodeId> = buffers.visible().collect();
            assert_eq!(got, expected(&world, &visible), "frame {frame}");
            counts.push(got.len());
        }
        assert!(
            counts[1] < counts[0] && counts[2] > counts[1],
            "the views must differ: {counts:?}"
        );
    }

    #[test]
    fn the_octree_culls_what_the_camera_cannot_see() {
        let mut scene = Scene::new();
        for i in 0..50 {
            // Half in front of a camera at the origin looking down -Z, half behind it.
            let z = if i % 2 == 0 { -10.0 } else { 10.0 };
            let node = scene
                .spawn(
                    None,
                    "box",
                    Transform::from_translation(Vec3::new(i as f32 * 0.1, 0.0, z)),
                )
                .unwrap();
            scene
                .insert(
                    node,
                    MeshRenderer {
                        cast_shadows: true,
                        mesh: Primitive::Cube.into(),
                        material: Material::default(),
                    },
                )
                .unwrap();
        }
        let mut world = World::new(scene);
        let camera = Camera {
            position: Vec3::ZERO,
            target: Vec3::NEG_Z,
            ..Camera::default()
        };
        let mut buffers = Extractor::default();
        buffers.set_cpu_culling(true);
        let frame = buffers.extract_world(&mut world, camera, 1.0, &Overlays::default());
        assert_eq!(frame.packed.len(), 25);
        assert!(
            frame
                .packed
                .records
                .iter()
                .all(|r| r.model().translation.z < 0.0)
        );
        assert_eq!(buffers.culled_by_octree, 25);
    }
}
