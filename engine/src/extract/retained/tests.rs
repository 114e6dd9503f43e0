//! The retained slots against the scene, over random edits: after every
//! update, a copy that took only the dirty ranges (what a renderer holds)
//! equals what a walk of every mesh would write.

use std::collections::HashSet;
use std::time::Duration;

use glam::{Vec3, Vec4};

use super::*;
use crate::assets::{AlphaMode, Primitive};
use crate::scene::{MeshRenderer, Orbit, Transform};
use crate::{Material, World};

/// What a renderer uploading only the dirty ranges holds.
#[derive(Default)]
struct Mirror {
    seen: Option<(u64, u64)>,
    records: Vec<GpuInstance>,
    batch_of: Vec<u32>,
    caster_of: Vec<u32>,
}

impl Mirror {
    fn take(&mut self, view: &RetainedInstances<'_>) {
        let continues = self.seen == Some((view.id, view.epoch - 1));
        self.records
            .resize(view.records.len(), GpuInstance::default());
        self.batch_of.resize(view.batch_of.len(), FREE_SLOT);
        self.caster_of.resize(view.caster_of.len(), FREE_SLOT);
        match view.dirty.filter(|_| continues) {
            Some(slots) => {
                assert!(slots.windows(2).all(|w| w[0] < w[1]), "sorted, each once");
                for &slot in slots {
                    self.records[slot as usize] = view.records[slot as usize];
                }
            }
            None => self.records.copy_from_slice(view.records),
        }
        if view.batches_changed || !continues {
            self.batch_of.copy_from_slice(view.batch_of);
            self.caster_of.copy_from_slice(view.caster_of);
        }
        self.seen = Some((view.id, view.epoch));
    }
}

fn check(retained: &Retained, mirror: &Mirror, scene: &Scene, alpha: f32, frame: usize) {
    let view = retained.instances();
    let mut held = HashSet::new();
    let mut members = vec![0u32; view.batches.len()];
    let mut caster_members = vec![0u32; view.caster_batches.len()];
    for (slot, node) in retained.nodes.iter().enumerate() {
        let batch = mirror.batch_of[slot];
        let Some(node) = node else {
            assert_eq!(
                batch, FREE_SLOT,
                "frame {frame}: free slot {slot} in a batch"
            );
            assert_eq!(
                mirror.caster_of[slot], FREE_SLOT,
                "frame {frame}: free slot {slot} casts"
            );
            continue;
        };
        assert!(held.insert(*node), "frame {frame}: {node} holds two slots");
        let mesh = scene
            .get::<MeshRenderer>(*node)
            .expect("a held node has a mesh");
        let model = Affine3x4::from_affine(&scene.interpolated_world(*node, alpha).unwrap());
        assert_eq!(
            mirror.records[slot],
            GpuInstance::from_rows(&model, &mesh.material),
            "frame {frame}: slot {slot} of {node}"
        );
        assert_eq!(
            view.batches[batch as usize],
            BatchKey::new(mesh.mesh, &mesh.material)
        );
        members[batch as usize] += 1;
        let caster = mirror.caster_of[slot];
        if mesh.can_cast() {
            let key = BatchKey::caster(mesh.mesh, &mesh.material);
            assert_eq!(
                view.caster_batches[caster as usize], key,
                "frame {frame}: {node}"
            );
            caster_members[caster as usize] += 1;
        } else {
            assert_eq!(caster, FREE_SLOT, "frame {frame}: {node} casts no shadow");
        }
    }
    assert_eq!(members, view.members, "frame {frame}: members");
    assert_eq!(
        caster_members, view.caster_members,
        "frame {frame}: caster members"
    );
    let drawable: HashSet<NodeId> = scene
        .components()
        .mesh
        .iter()
        .filter(|(node, mesh)| {
            !is_deformed(scene, *node) && !BatchKey::new(mesh.mesh, &mesh.material).blend
        })
        .map(|(node, _)| node)
        .collect();
    assert_eq!(held, drawable, "frame {frame}: the nodes held");
    let blended = scene.components().mesh.len() - drawable.len();
    assert_eq!(retained.blended.len(), blended, "frame {frame}: blended");
}

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 33) as usize % n.max(1)
    }
}

#[test]
fn dirty_ranges_keep_a_copy_equal_to_the_scene() {
    let mut scene = Scene::new();
    let mut nodes = Vec::new();
    for g in 0..30 {
        let root = scene.spawn(None, "group", Transform::IDENTITY).unwrap();
        let orbit = Orbit {
            center: Vec3::ZERO,
            radius: 3.0 + g as f32,
            rate: if g % 3 == 0 { 0.8 } else { 0.0 },
            angle: g as f32,
            face_forward: true,
        };
        scene.insert(root, orbit).unwrap();
        nodes.push(root);
        for i in 0..10 {
            let at = Vec3::new(i as f32 * 0.4, 0.0, 0.0);
            let node = scene
                .spawn(Some(root), "part", Transform::from_translation(at))
                .unwrap();
            let mesh = Primitive::ALL[(g + i) % Primitive::ALL.len()].into();
            scene
                .insert(node, MeshRenderer::new(mesh, Material::rgb(0.5, 0.2, 0.1)))
                .unwrap();
            nodes.push(node);
        }
    }
    let mut world = World::new(scene);
    let mut retained = Retained::default();
    let mut mirror = Mirror::default();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut walks_skipped, mut moving_seen) = (0, 0);
    for frame in 0..300 {
        let step = world.clock().step_seconds();
        let fraction = [0.0, 0.3, 0.5, 1.0, 1.7, 2.5][rng.below(6)];
        world.advance(Duration::from_secs_f32(step * fraction));
        match rng.below(12) {
            0 => {
                // A new mesh node, under a random parent or at the root.
                let parent = nodes.get(rng.below(nodes.len() * 2)).copied();
                let parent = parent.filter(|&p| world.scene().contains(p));
                let at = Transform::from_translation(Vec3::splat(rng.below(9) as f32));
                if let Ok(node) = world.scene_mut().spawn(parent, "new", at) {
                    let mesh = MeshRenderer::new(Primitive::Cube.into(), Material::default());
                    world.scene_mut().insert(node, mesh).unwrap();
                    nodes.push(node);
                }
            }
            1 => {
                let node = nodes[rng.below(nodes.len())];
                let _ = world.scene_mut().despawn(node);
            }
            2 => {
                // A material edit: a colour, blending on or off, or a mesh.
                let node = nodes[rng.below(nodes.len())];
                let pick = rng.below(4);
                if let Some(mesh) = world.scene_mut().get_mut::<MeshRenderer>(node) {
                    match pick {
                        0 => mesh.material.base_color = Vec4::new(0.1, 0.9, 0.3, 1.0),
                        3 => mesh.cast_shadows = !mesh.cast_shadows,
                        1 if mesh.material.alpha_mode == AlphaMode::Blend => {
                            mesh.material.alpha_mode = AlphaMode::Opaque;
                        }
                        1 => mesh.material.alpha_mode = AlphaMode::Blend,
                        _ => mesh.mesh = Primitive::Sphere.into(),
                    }
                }
            }
            3 => {
                // An edit between steps.
                let node = nodes[rng.below(nodes.len())];
                if let Some(mut local) = world.scene().local(node) {
                    local.translation.y += 0.5;
                    world.scene_mut().set_local(node, local).unwrap();
                }
            }
            4 => {
                // A frame not extracted: the log is lost, the next update walks.
                continue;
            }
            5 => {
                let paused = world.clock().is_paused();
                world.clock_mut().set_paused(!paused);
            }
            _ => {}
        }
        let alpha = world.clock().alpha();
        let World { scene, index, .. } = &world;
        let walks_before = retained.walks;
        retained.update(scene, index, alpha);
        walks_skipped += usize::from(walks_before == retained.walks);
        moving_seen += retained.moving.len();
        mirror.take(&retained.instances());
        check(&retained, &mirror, scene, alpha, frame);
    }
    assert!(
        walks_skipped > 100,
        "most frames need no walk: {walks_skipped}"
    );
    assert!(moving_seen > 0, "nodes moved");
}
