//! The batcher against an unbatched reference (proptest), extracted and
//! loose instances sharing groups, packing, bounds, and blended instances
//! drawn one by one, back to front.

use glam::Vec4;
use std::sync::OnceLock;

use proptest::prelude::*;

use super::*;
use crate::Material;
use crate::assets::{Assets, MeshHandle};
use crate::render::InstanceRecord;
use crate::render::camera::Camera;

/// What groups are sorted by: texture first, so binds change least.
fn key(group: &DrawGroup) -> (Option<TextureHandle>, MeshRef) {
    (group.key.texture, group.key.mesh)
}

fn view_proj() -> Mat4 {
    Camera {
        position: Vec3::new(0.0, 5.0, 12.0),
        ..Camera::default()
    }
    .view_projection(1.5)
}

/// Three imported meshes and two textures shared by every case, and their store.
fn assets() -> &'static (Assets, [MeshHandle; 3], [TextureHandle; 2]) {
    static ASSETS: OnceLock<(Assets, [MeshHandle; 3], [TextureHandle; 2])> = OnceLock::new();
    ASSETS.get_or_init(|| {
        let store = Assets::new();
        let meshes = [Primitive::Cone, Primitive::Cube, Primitive::Sphere]
            .map(|p| store.add_mesh(format!("batcher test {p:?}"), p.mesh()));
        let texture = || crate::assets::TextureData {
            name: "batcher test".into(),
            width: 1,
            height: 1,
            mips: vec![vec![255; 4]],
            srgb: true,
        };
        let textures = [store.add_texture(texture()), store.add_texture(texture())];
        (store, meshes, textures)
    })
}

fn instance_strategy() -> impl Strategy<Value = MeshInstance> {
    (
        0..8usize,
        0..3usize,
        prop::array::uniform3(-30.0f32..30.0),
        prop::array::uniform3(0.1f32..3.0),
        0.0f32..6.3,
        prop::array::uniform3(0.0f32..1.0),
    )
        .prop_map(|(mesh, texture, position, scale, angle, color)| {
            let (_, meshes, textures) = assets();
            MeshInstance {
                cast_shadows: true,
                mesh: match mesh {
                    0..5 => MeshRef::Primitive(Primitive::ALL[mesh]),
                    _ => MeshRef::Asset(meshes[mesh - 5]),
                },
                model: Affine3A::from_scale_rotation_translation(
                    scale.into(),
                    glam::Quat::from_rotation_y(angle),
                    position.into(),
                ),
                material: Material {
                    base_color: Vec3::from(color).extend(1.0),
                    roughness: color[0],
                    texture: textures.get(texture).copied(),
                    ..Material::default()
                },
            }
        })
}

proptest! {
    #[test]
    fn batches_match_the_unbatched_reference(
        instances in prop::collection::vec(instance_strategy(), 0..200),
    ) {
        let mut batcher = InstanceBatcher::new();
        // Twice: the second frame reuses every buffer of the first.
        for _ in 0..2 {
            batcher.prepare(view_proj(), &instances, false, &assets().0.registry());
        }
        let mut reference = Vec::new();
        prepare_unbatched(view_proj(), &instances, &assets().0.registry(), &mut reference);

        prop_assert_eq!(batcher.instances().len() + batcher.culled(), instances.len());
        prop_assert_eq!(batcher.instances().len(), reference.len());
        let mut covered = 0;
        for pair in batcher.groups().windows(2) {
            prop_assert!(key(&pair[0]) < key(&pair[1]), "groups sorted and distinct");
        }
        for group in batcher.groups() {
            prop_assert_eq!(group.instances.start as usize, covered, "groups must be contiguous");
            covered = group.instances.end as usize;
            let expected: Vec<&[u8]> = reference
                .iter()
                .filter(|draw| draw.mesh == group.key.mesh && draw.texture == group.key.texture)
                .map(|draw| bytemuck::bytes_of(&draw.record))
                .collect();
            let range = group.instances.start as usize..group.instances.end as usize;
            let actual: Vec<&[u8]> = batcher.indices()[range]
                .iter()
                .map(|&i| bytemuck::bytes_of(&batcher.instances()[i as usize]))
                .collect();
            prop_assert_eq!(actual, expected, "{:?} group differs", key(group));
        }
        prop_assert_eq!(covered, reference.len());
        let mut seen = batcher.indices().to_vec();
        seen.sort_unstable();
        prop_assert!(seen.iter().copied().eq(0..reference.len() as u32), "each instance once");
    }

    #[test]
    fn extracted_records_and_loose_instances_share_the_groups(
        extracted in prop::collection::vec(instance_strategy(), 0..80),
        loose in prop::collection::vec(instance_strategy(), 0..80),
    ) {
        let records: Vec<GpuInstance> = extracted.iter().map(MeshInstance::record).collect();
        let keys: Vec<BatchKey> = extracted
            .iter()
            .map(|i| BatchKey::new(i.mesh, &i.material))
            .collect();
        let frame = FrameData {
            instances: &loose,
            instances_in_view: true,
            packed: PackedInstances {
                records: &records,
                keys: &keys,
                version: 0,
            },
            ..FrameData::default()
        };
        let mut batcher = InstanceBatcher::new();
        batcher.prepare_frame(view_proj(), &frame, &assets().0.registry());
        prop_assert_eq!(batcher.drawn(), extracted.len() + loose.len());
        // What the GPU buffer holds: the extracted records, then the batcher's.
        let gpu: Vec<GpuInstance> = records.iter().chain(batcher.instances()).copied().collect();
        let all: Vec<&MeshInstance> = extracted.iter().chain(&loose).collect();
        for group in batcher.groups() {
            let range = group.instances.start as usize..group.instances.end as usize;
            let got: Vec<GpuInstance> =
                batcher.indices()[range].iter().map(|&i| gpu[i as usize]).collect();
            let want: Vec<GpuInstance> = all
                .iter()
                .filter(|i| i.mesh == group.key.mesh && i.material.texture == group.key.texture)
                .map(|i| i.record())
                .collect();
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn already_culled_instances_are_all_packed(
        instances in prop::collection::vec(instance_strategy(), 0..100),
    ) {
        let mut batcher = InstanceBatcher::new();
        batcher.prepare(view_proj(), &instances, true, &assets().0.registry());
        prop_assert_eq!(batcher.instances().len(), instances.len());
        prop_assert_eq!(batcher.culled(), 0);
    }
}

#[test]
fn a_smaller_frame_after_a_larger_one_exposes_only_its_own_instances() {
    let one = MeshInstance::default();
    let mut batcher = InstanceBatcher::new();
    batcher.prepare(Mat4::IDENTITY, &[one; 10], true, &assets().0.registry());
    batcher.prepare(Mat4::IDENTITY, &[one; 3], true, &assets().0.registry());
    assert_eq!(batcher.instances().len(), 3);
    assert_eq!(batcher.bytes().len(), 3 * size_of::<GpuInstance>());
    assert_eq!(batcher.indices(), [0, 1, 2]);
    assert_eq!(batcher.groups().len(), 1);
    assert_eq!(batcher.groups()[0].instances, 0..3);
}

#[test]
fn packed_rows_give_the_model_back() {
    let model = Affine3A::from_scale_rotation_translation(
        Vec3::new(1.5, 0.5, 2.0),
        glam::Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.9, 1.2),
        Vec3::new(-4.0, 2.0, 7.0),
    );
    let packed = GpuInstance::pack(&model, &Material::default());
    assert!(packed.model().abs_diff_eq(model, 1e-6));
}

#[test]
fn instances_pack_the_material() {
    let instance = MeshInstance {
        material: Material {
            base_color: Vec4::new(0.1, 0.2, 0.3, 0.5),
            metallic: 0.25,
            roughness: 0.7,
            emissive: Vec3::new(4.0, 2.0, 0.5),
            ..Material::default()
        },
        model: Affine3A::from_translation(Vec3::new(1.0, 2.0, 3.0)),
        ..MeshInstance::default()
    };
    let packed = instance.record();
    assert_eq!(packed.color, [0.1, 0.2, 0.3, 0.5]);
    assert_eq!(packed.emissive, [4.0, 2.0, 0.5]);
    let byte = |i: u32| f32::from((packed.metal_rough >> (8 * i)) as u8) / 255.0;
    let (metallic, roughness) = (byte(0), byte(1));
    assert!((metallic - 0.25).abs() < 2e-3 && (roughness - 0.7).abs() < 2e-3);
    assert_eq!(byte(2), 0.0, "opaque: no cutoff");
    let masked = GpuInstance::pack(
        &Affine3A::IDENTITY,
        &Material {
            alpha_mode: AlphaMode::Mask { cutoff: 0.4 },
            ..instance.material
        },
    );
    let cutoff = f32::from((masked.metal_rough >> 16) as u8) / 255.0;
    assert!((cutoff - 0.4).abs() < 2e-3);
    let translation = packed.rows.map(|row| row[3]);
    assert_eq!(translation, [1.0, 2.0, 3.0]);
    let turned = MeshInstance {
        cast_shadows: true,
        model: Affine3A::from_scale_rotation_translation(
            Vec3::new(2.0, 0.5, 1.0),
            glam::Quat::from_rotation_z(0.8),
            Vec3::X,
        ),
        ..instance
    };
    let rows = turned.record().rows.map(glam::Vec4::from);
    let p = Vec3::new(0.3, -1.0, 2.0);
    let by_rows = Vec3::new(
        rows[0].dot(p.extend(1.0)),
        rows[1].dot(p.extend(1.0)),
        rows[2].dot(p.extend(1.0)),
    );
    assert!(by_rows.abs_diff_eq(turned.model.transform_point3(p), 1e-5));
    assert_eq!(size_of::<GpuInstance>(), 80);
}

#[test]
fn scaled_instances_use_a_scaled_bound() {
    let frustum = Frustum::from_view_projection(view_proj());
    let radius = Primitive::Sphere.mesh().bounding_radius();
    // Just left of the view: only a large scale makes it reach in.
    let left = Vec3::new(-40.0, 0.0, 0.0);
    assert!(!is_visible(
        &frustum,
        radius,
        &Affine3A::from_translation(left)
    ));
    let big = Affine3A::from_scale_rotation_translation(
        Vec3::new(1.0, 1.0, 200.0),
        glam::Quat::IDENTITY,
        left,
    );
    assert!(is_visible(&frustum, radius, &big));
}

#[test]
fn blended_instances_come_last_one_each_farthest_first() {
    let at = |z: f32, alpha_mode| MeshInstance {
        model: Affine3A::from_translation(Vec3::new(0.0, 0.0, z)),
        material: Material {
            alpha_mode,
            ..Material::default()
        },
        ..MeshInstance::default()
    };
    // The camera looks at the origin from z = 12: smaller z is farther.
    let instances = [
        at(-1.0, AlphaMode::Blend),
        at(0.0, AlphaMode::Opaque),
        at(-5.0, AlphaMode::Blend),
        at(2.0, AlphaMode::Blend),
        at(1.0, AlphaMode::Opaque),
    ];
    let mut batcher = InstanceBatcher::new();
    batcher.prepare(view_proj(), &instances, true, &assets().0.registry());
    let groups = batcher.groups();
    assert_eq!(groups.len(), 4, "{groups:?}");
    assert!(!groups[0].key.blend && groups[0].instances.len() == 2);
    let order: Vec<f32> = groups[1..]
        .iter()
        .map(|g| {
            assert!(g.key.blend && g.instances.len() == 1);
            let index = batcher.indices()[g.instances.start as usize] as usize;
            batcher.instances()[index].rows[2][3]
        })
        .collect();
    assert_eq!(order, [-5.0, -1.0, 2.0]);
}

#[test]
fn many_extracted_keys_group_on_two_cores_as_on_one() {
    let (_, meshes, textures) = assets();
    let n = 3 * PARALLEL_KEYS + 11;
    // The second half brings batches the first never saw (meshes 4 and up,
    // double-sided ones), and shares the others.
    let keys: Vec<BatchKey> = (0..n)
        .map(|i| {
            let late = i >= n / 2 && i % 3 == 0;
            let material = Material {
                texture: (i % 4 == 0).then_some(textures[i % 2]),
                double_sided: late && i % 2 == 0,
                ..Material::default()
            };
            let mesh = match (i * 7) % 5 {
                k if k < 3 && !late => MeshRef::Asset(meshes[k]),
                k => Primitive::ALL[k].into(),
            };
            BatchKey::new(mesh, &material)
        })
        .collect();
    let records = vec![GpuInstance::default(); n];
    let frame = FrameData {
        packed: PackedInstances {
            records: &records,
            keys: &keys,
            version: 0,
        },
        ..FrameData::default()
    };
    let mut batcher = InstanceBatcher::new();
    batcher.prepare_frame(view_proj(), &frame, &assets().0.registry());
    assert!(
        batcher.side.list.len() > 1,
        "the second half was grouped apart"
    );
    assert_eq!(batcher.drawn(), n);
    let mut covered = 0;
    for pair in batcher.groups().windows(2) {
        let order = |g: &DrawGroup| {
            (
                g.key.blend,
                g.key.texture,
                g.key.maps,
                g.key.double_sided,
                g.key.masked,
                g.key.mesh,
            )
        };
        assert!(
            order(&pair[0]) < order(&pair[1]),
            "groups sorted, each once"
        );
    }
    for group in batcher.groups() {
        let want: Vec<u32> = (0..n as u32)
            .filter(|&i| {
                let k = keys[i as usize];
                (k.mesh, k.texture, k.double_sided)
                    == (group.key.mesh, group.key.texture, group.key.double_sided)
            })
            .collect();
        let range = group.instances.start as usize..group.instances.end as usize;
        assert_eq!(batcher.indices()[range], want[..], "{group:?}");
        covered += want.len();
    }
    assert_eq!(covered, n);
}
