//! Writes `assets/scenes/demo.ron`: the book's scene-graph example, alive.
//!
//! A ship rocking on the sea, its mast swaying, a crow's nest on the mast, a
//! pirate in the nest looking about, a parrot bobbing on the pirate's shoulder
//! (every level of the hierarchy has its own behaviour), and a fleet of small
//! boats sailing circles around it.
//!
//! Run: `cargo run -p keel-engine --example make_demo_scene [OUT.ron]`.

#![expect(
    clippy::disallowed_methods,
    reason = "generates committed assets (made with these functions); nothing here is simulated"
)]

use std::f32::consts::PI;
use std::path::PathBuf;

use glam::{Quat, Vec3, Vec4};
use keel_engine::Emitter;
use keel_engine::Primitive;
use keel_engine::assets::gltf::srgb_to_linear;
use keel_engine::assets::roughness_from_gloss;
use keel_engine::particles::{BlendMode, Burst, ColorStop, FloatRange, Overflow, SizeStop};
use keel_engine::scene::CameraSetup;
use keel_engine::scene::{PostSettings, Tonemapper};
use keel_engine::{
    Animator, Environment, Light, LightKind, Material, MeshRenderer, NodeId, Orbit, Oscillate,
    Scene, Spin, Transform,
};

/// sRGB hex colour to linear RGB.
fn hex(rgb: u32) -> Vec3 {
    let channel = |shift: u32| srgb_to_linear(((rgb >> shift) & 0xff) as f32 / 255.0);
    Vec3::new(channel(16), channel(8), channel(0))
}

/// A dielectric of an sRGB colour; `gloss` as the demo was first tuned
/// (0 matte .. 1 glossy), turned into the roughness of the same highlight.
fn material(rgb: u32, gloss: f32) -> Material {
    Material {
        base_color: hex(rgb).extend(1.0),
        roughness: roughness_from_gloss(gloss),
        ..Material::default()
    }
}

struct Builder {
    scene: Scene,
}

impl Builder {
    fn node(&mut self, parent: Option<NodeId>, name: &str, t: Transform) -> NodeId {
        self.scene
            .spawn(parent, name, t)
            .expect("parents are live while building")
    }

    /// The child of `parent` named `name`.
    fn child(&self, parent: NodeId, name: &str) -> NodeId {
        self.scene
            .children(parent)
            .find(|&c| self.scene.name(c) == Some(name))
            .unwrap_or_else(|| panic!("no {name}"))
    }

    /// Gives the mesh of `node` another look.
    fn recolor(&mut self, node: NodeId, look: Material) {
        if let Some(mesh) = self.scene.get_mut::<MeshRenderer>(node) {
            mesh.material = look;
        }
    }

    /// A node drawing a primitive, scaled, under `parent`.
    fn part(
        &mut self,
        parent: NodeId,
        name: &str,
        mesh: Primitive,
        at: Vec3,
        scale: Vec3,
        look: Material,
    ) -> NodeId {
        self.part_with(
            parent,
            name,
            mesh,
            Transform::from_translation(at).with_scale(scale),
            look,
        )
    }

    /// A node drawing a primitive with a full transform.
    fn part_with(
        &mut self,
        parent: NodeId,
        name: &str,
        mesh: Primitive,
        t: Transform,
        look: Material,
    ) -> NodeId {
        let id = self.node(Some(parent), name, t);
        self.scene
            .insert(
                id,
                MeshRenderer {
                    cast_shadows: true,
                    mesh: mesh.into(),
                    material: look,
                },
            )
            .expect("just spawned");
        id
    }
}

/// Writes `assets/prefabs/boat.ron` (beside the scene's folder): a body that
/// rocks, a hull and a sail. Returns its path.
fn write_boat_prefab(scene_out: &std::path::Path) -> PathBuf {
    let dir = scene_out
        .parent()
        .and_then(|p| p.parent())
        .map_or_else(|| PathBuf::from("prefabs"), |p| p.join("prefabs"));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut b = Builder {
        scene: Scene::new(),
    };
    let body = b.node(None, "body", Transform::IDENTITY);
    b.scene
        .insert(body, Oscillate::new(Vec3::Z, 0.1, 0.45, 0.0).rocking())
        .unwrap();
    b.part(
        body,
        "hull",
        Primitive::Cube,
        Vec3::new(0.0, 0.2, 0.0),
        Vec3::new(0.9, 0.5, 2.4),
        material(0x8c5a32, 0.15),
    );
    b.part(
        body,
        "sail",
        Primitive::Cube,
        Vec3::new(0.0, 1.3, 0.1),
        Vec3::new(0.06, 1.7, 1.2),
        material(0xf4efe2, 0.05),
    );
    let path = dir.join("boat.ron");
    b.scene.save(&path).unwrap_or_else(|e| panic!("{e}"));
    std::fs::canonicalize(&path).unwrap_or(path)
}

fn main() {
    let out = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes/demo.ron")
        });
    let mut b = Builder {
        scene: Scene::new(),
    };
    *b.scene.environment_mut() = Environment {
        clear_color: hex(0x9cc7e6),
        ambient: hex(0x3a4a5e),
        // Filmic tonemapping and bloom, so the emitters glow.
        post: PostSettings {
            exposure: 0.4,
            tonemapper: Tonemapper::AcesFitted,
            bloom: true,
            bloom_threshold: 1.0,
            bloom_intensity: 0.25,
        },
        ..Environment::default()
    };
    let (at, lens) = keel_engine::SceneCamera::from_setup(&CameraSetup {
        position: Vec3::new(-19.0, 10.5, -22.0),
        target: Vec3::new(0.0, 5.0, -1.0),
        fov_y_degrees: 45.0,
    });
    let camera = b.scene.spawn(None, "Camera", at).expect("a root");
    b.scene.insert(camera, lens).expect("alive");

    let sun = b.node(
        None,
        "sun",
        Transform::IDENTITY.with_rotation(Quat::from_euler(
            glam::EulerRot::YXZ,
            0.6 + PI,
            -0.75,
            0.0,
        )),
    );
    b.scene
        .insert(
            sun,
            Light {
                kind: LightKind::Directional,
                color: hex(0xfff1d6),
                intensity: 2.6,
                cast_shadows: false,
            },
        )
        .unwrap();

    let sea = b.node(
        None,
        "sea",
        Transform::IDENTITY.with_scale(Vec3::new(400.0, 1.0, 400.0)),
    );
    b.scene
        .insert(
            sea,
            MeshRenderer {
                // The sea only receives: it has nothing under it to shade.
                cast_shadows: false,
                mesh: Primitive::Plane.into(),
                material: material(0x1f5f7a, 0.8),
            },
        )
        .unwrap();

    // The ship: its node rocks; parts hang under it unscaled so children inherit only motion.
    let ship = b.node(
        None,
        "ship",
        Transform::from_translation(Vec3::new(0.0, 0.6, 0.0)),
    );
    b.scene
        .insert(ship, Oscillate::new(Vec3::Z, 0.07, 0.22, 0.0).rocking())
        .unwrap();
    let wood = material(0x7a4a26, 0.15);
    let dark_wood = material(0x4e2d17, 0.1);
    let canvas = material(0xf2ead3, 0.05);
    b.part(
        ship,
        "hull",
        Primitive::Cube,
        Vec3::new(0.0, 0.4, 0.0),
        Vec3::new(3.4, 1.8, 10.0),
        wood,
    );
    b.part(
        ship,
        "deck",
        Primitive::Cube,
        Vec3::new(0.0, 1.35, 0.0),
        Vec3::new(3.1, 0.15, 9.6),
        material(0xb08552, 0.2),
    );
    let bow = Transform {
        translation: Vec3::new(0.0, 0.4, -6.2),
        rotation: Quat::from_rotation_x(-PI / 2.0),
        scale: Vec3::new(3.4, 2.6, 1.8),
    };
    b.part_with(ship, "bow", Primitive::Cone, bow, wood);
    b.part(
        ship,
        "cabin",
        Primitive::Cube,
        Vec3::new(0.0, 2.1, 3.4),
        Vec3::new(2.6, 1.4, 2.4),
        dark_wood,
    );
    let lantern = b.part(
        ship,
        "lantern",
        Primitive::Sphere,
        Vec3::new(0.0, 3.0, 4.7),
        Vec3::splat(0.35),
        Material {
            base_color: Vec4::new(1.0, 0.65, 0.25, 1.0),
            // HDR: far above white, so it blooms.
            emissive: Vec3::new(6.0, 3.5, 1.0),
            roughness: roughness_from_gloss(0.9),
            ..Material::default()
        },
    );
    b.scene
        .insert(
            lantern,
            Light {
                kind: LightKind::Point { range: 14.0 },
                color: hex(0xffb35c),
                intensity: 3.0,
                cast_shadows: false,
            },
        )
        .unwrap();
    let cannon = b.node(
        Some(ship),
        "cannon",
        Transform::from_translation(Vec3::new(1.9, 1.6, -1.0))
            .with_rotation(Quat::from_rotation_z(-PI / 2.0 + 0.15)),
    );
    b.part(
        cannon,
        "barrel",
        Primitive::Cylinder,
        Vec3::new(0.0, 0.6, 0.0),
        Vec3::new(0.45, 1.6, 0.45),
        material(0x2b2b2e, 0.7),
    );
    // Smoke drifts from the muzzle, with a puff each time the cannon fires (every 4 s).
    let smoke = b.node(
        Some(cannon),
        "smoke",
        Transform::from_translation(Vec3::new(0.0, 1.45, 0.0)),
    );
    let grey = |v: f32, a: f32| [v, v, v, a];
    b.scene
        .insert(
            smoke,
            Emitter {
                rate: 6.0,
                bursts: vec![Burst {
                    time: 0.5,
                    count: 60,
                }],
                burst_period: Some(4.0),
                lifetime: FloatRange::new(2.0, 3.5),
                speed: FloatRange::new(0.6, 2.4),
                cone_angle: 20.0,
                gravity: Vec3::new(0.3, 0.7, 0.0),
                drag: 0.9,
                color_over_life: vec![
                    ColorStop {
                        t: 0.0,
                        color: grey(0.35, 0.0),
                    },
                    ColorStop {
                        t: 0.08,
                        color: grey(0.3, 0.6),
                    },
                    ColorStop {
                        t: 1.0,
                        color: grey(0.55, 0.0),
                    },
                ],
                size_over_life: vec![
                    SizeStop { t: 0.0, size: 0.5 },
                    SizeStop { t: 1.0, size: 2.6 },
                ],
                blend: BlendMode::Alpha,
                seed: 0xC4_4070,
                overflow: Overflow::ReplaceOldest,
                ..Emitter::default()
            },
        )
        .unwrap();
    // White water thrown up at the bow as the ship pushes through the sea.
    let spray = b.node(
        Some(ship),
        "bow_spray",
        Transform::from_translation(Vec3::new(0.0, -0.1, -7.2))
            .with_rotation(Quat::from_rotation_x(-0.7)),
    );
    b.scene
        .insert(
            spray,
            Emitter {
                rate: 120.0,
                lifetime: FloatRange::new(0.5, 1.0),
                speed: FloatRange::new(2.5, 4.5),
                cone_angle: 40.0,
                gravity: Vec3::new(0.0, -9.81, 0.0),
                drag: 0.3,
                color_over_life: vec![
                    ColorStop {
                        t: 0.0,
                        color: [0.7, 0.8, 0.9, 0.45],
                    },
                    ColorStop {
                        t: 1.0,
                        color: [0.5, 0.6, 0.7, 0.0],
                    },
                ],
                size_over_life: vec![
                    SizeStop { t: 0.0, size: 0.15 },
                    SizeStop { t: 1.0, size: 0.45 },
                ],
                blend: BlendMode::Additive,
                seed: 0x5B_4A7,
                overflow: Overflow::Drop,
                ..Emitter::default()
            },
        )
        .unwrap();

    // The mast sways a little on its own, over the ship's rocking.
    let mast = b.node(
        Some(ship),
        "mast",
        Transform::from_translation(Vec3::new(0.0, 1.4, -0.8)),
    );
    b.scene
        .insert(mast, Oscillate::new(Vec3::X, 0.035, 0.5, 1.0).rocking())
        .unwrap();
    b.part(
        mast,
        "pole",
        Primitive::Cylinder,
        Vec3::new(0.0, 5.0, 0.0),
        Vec3::new(0.35, 10.0, 0.35),
        dark_wood,
    );
    let yard = Transform {
        translation: Vec3::new(0.0, 7.2, 0.05),
        rotation: Quat::from_rotation_z(PI / 2.0),
        scale: Vec3::new(0.2, 5.0, 0.2),
    };
    b.part_with(mast, "yard", Primitive::Cylinder, yard, dark_wood);
    b.part(
        mast,
        "sail",
        Primitive::Cube,
        Vec3::new(0.0, 4.8, 0.2),
        Vec3::new(4.6, 4.6, 0.08),
        canvas,
    );
    let flag = b.node(
        Some(mast),
        "flag",
        Transform::from_translation(Vec3::new(0.0, 12.4, 0.0)),
    );
    b.scene
        .insert(flag, Oscillate::new(Vec3::Y, 0.35, 0.9, 0.0).rocking())
        .unwrap();
    b.part(
        flag,
        "cloth",
        Primitive::Cube,
        Vec3::new(0.0, 0.0, 0.6),
        Vec3::new(0.05, 0.6, 1.2),
        material(0x111111, 0.05),
    );

    // The crow's nest turns slowly on the mast; the pirate looks about; the parrot bobs.
    let nest = b.node(
        Some(mast),
        "crows_nest",
        Transform::from_translation(Vec3::new(0.0, 9.6, 0.0)),
    );
    b.scene
        .insert(nest, Oscillate::new(Vec3::Y, 0.25, 0.12, 0.0).rocking())
        .unwrap();
    b.part(
        nest,
        "basket",
        Primitive::Cylinder,
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(1.6, 0.7, 1.6),
        wood,
    );
    let pirate = b.node(
        Some(nest),
        "pirate",
        Transform::from_translation(Vec3::new(0.0, 0.35, 0.0)),
    );
    b.scene
        .insert(
            pirate,
            Spin {
                axis: Vec3::Y,
                rate: 0.45,
            },
        )
        .unwrap();
    b.part(
        pirate,
        "body",
        Primitive::Cylinder,
        Vec3::new(0.0, 0.45, 0.0),
        Vec3::new(0.55, 0.9, 0.55),
        material(0x9c2a2a, 0.2),
    );
    b.part(
        pirate,
        "head",
        Primitive::Sphere,
        Vec3::new(0.0, 1.1, 0.0),
        Vec3::splat(0.45),
        material(0xe0ac7e, 0.3),
    );
    b.part(
        pirate,
        "hat",
        Primitive::Cone,
        Vec3::new(0.0, 1.45, 0.0),
        Vec3::new(0.6, 0.35, 0.6),
        material(0x1c1c1c, 0.1),
    );
    let parrot = b.node(
        Some(pirate),
        "parrot",
        Transform::from_translation(Vec3::new(0.38, 0.95, 0.0)),
    );
    b.scene
        .insert(parrot, Oscillate::new(Vec3::Y, 0.08, 2.2, 0.0))
        .unwrap();
    b.part(
        parrot,
        "plumage",
        Primitive::Sphere,
        Vec3::ZERO,
        Vec3::new(0.22, 0.3, 0.22),
        material(0x2fbf4a, 0.6),
    );
    b.part(
        parrot,
        "beak",
        Primitive::Cone,
        Vec3::new(0.0, 0.05, -0.14),
        Vec3::splat(0.08),
        material(0xf2b705, 0.5),
    );

    // The fleet: rings of small boats, each sailing its own circle and bobbing,
    // each an instance of one boat prefab with its own colours and motion.
    let boat_prefab = write_boat_prefab(&out);
    let hull_colors = [0x8c5a32, 0x6b3e22, 0x9e6b3f, 0x5a4634];
    let sail_colors = [0xf4efe2, 0xd94f3d, 0xe8c547, 0x3d7dd9, 0xf4efe2];
    let mut seed = 0x2545_f491_u32;
    let mut random = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        (seed % 10_000) as f32 / 10_000.0
    };
    for i in 0..320 {
        let ring = i % 8;
        let radius = 24.0 + ring as f32 * 8.0 + random() * 4.0;
        let clockwise = ring % 2 == 1;
        let speed = (1.5 + random() * 1.5) / radius;
        let angle = random() * 2.0 * PI;
        // Saved where its orbit starts, so the fleet is in place before Play.
        let yaw = if clockwise { angle + PI } else { angle };
        let start = Transform::from_translation(Vec3::new(angle.cos(), 0.0, -angle.sin()) * radius)
            .with_rotation(Quat::from_rotation_y(yaw));
        let boat = b
            .scene
            .spawn_prefab(None, format!("boat_{i:03}"), start, &boat_prefab)
            .unwrap_or_else(|e| panic!("{e}"));
        b.scene
            .insert(
                boat,
                Orbit {
                    center: Vec3::ZERO,
                    radius,
                    rate: if clockwise { -speed } else { speed },
                    angle,
                    face_forward: true,
                },
            )
            .unwrap();
        // What makes each boat its own: overrides of the prefab's values.
        let body = b.child(boat, "body");
        b.scene
            .insert(
                body,
                Oscillate::new(
                    Vec3::Z,
                    0.08 + random() * 0.06,
                    0.3 + random() * 0.3,
                    random() * 6.0,
                )
                .rocking(),
            )
            .unwrap();
        b.recolor(b.child(body, "hull"), material(hull_colors[i % 4], 0.15));
        b.recolor(
            b.child(body, "sail"),
            material(sail_colors[(i * 7 / 3) % 5], 0.05),
        );
    }

    // A lighthouse on its rock inside the fleet's rings: the repository's own
    // glTF model (written by the make_demo_model example), referenced by path.
    let model = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets/models/lighthouse.glb");
    let (lighthouse, _) = b
        .scene
        .spawn_model(
            None,
            "lighthouse",
            Transform::from_translation(Vec3::new(15.0, -0.3, 9.0))
                .with_rotation(Quat::from_rotation_y(0.8))
                .with_scale(Vec3::splat(1.5)),
            &model,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let beacon = b.node(
        Some(lighthouse),
        "beacon",
        Transform::from_translation(Vec3::new(0.0, 5.9, 0.0)),
    );
    b.scene
        .insert(
            beacon,
            Light {
                kind: LightKind::Point { range: 9.0 },
                color: hex(0xffd27a),
                intensity: 4.0,
                cast_shadows: false,
            },
        )
        .unwrap();

    // A fox walking round the lighthouse on its rock: a skinned, animated
    // glTF made outside this project (Khronos sample; credits in the README).
    let rock_top = Vec3::new(15.0, 0.6, 9.0);
    // Saved where its orbit starts (angle 0, facing along it).
    let trail = b.node(
        None,
        "fox trail",
        Transform::from_translation(rock_top + Vec3::X * 2.4),
    );
    b.scene
        .insert(
            trail,
            Orbit {
                center: rock_top,
                radius: 2.4,
                rate: 0.25,
                angle: 0.0,
                face_forward: true,
            },
        )
        .unwrap();
    let fox_model = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets/models/Fox.glb");
    let (fox, _) = b
        .scene
        .spawn_model(
            Some(trail),
            "fox",
            // The fox faces +Z; an orbit moves along -Z.
            Transform::IDENTITY
                .with_rotation(Quat::from_rotation_y(PI))
                .with_scale(Vec3::splat(0.02)),
            &fox_model,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    b.scene.insert(fox, Animator::new("Walk")).unwrap();

    b.scene.propagate();
    b.scene.save(&out).unwrap_or_else(|e| panic!("{e}"));
    println!("wrote {} ({} nodes)", out.display(), b.scene.len());
}
