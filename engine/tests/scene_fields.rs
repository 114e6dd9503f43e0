//! Every number of the scene format is checked on load: a file with every
//! section and component is written, then each of its numbers in turn is made
//! NaN, infinite, or (from a table) out of range, and the load must fail with
//! an error naming that field on that number's line. Paths that are not
//! regular files are refused before they are read.

use std::path::Path;

use glam::{Quat, Vec3, Vec4};
use keel_engine::Emitter;
use keel_engine::assets::AlphaMode;
use keel_engine::particles::{Burst, ColorStop, FloatRange, Overflow, SizeStop};
use keel_engine::scene::{AnyComponent, CameraSetup, NodeRecord, SCENE_VERSION, SceneFile};
use keel_engine::scene::{PostSettings, ShadowSettings, Tonemapper};
use keel_engine::{
    Axes, Body, BodyKind, Collider, ColliderShape, CollisionLayers, MeshRef, Primitive,
};
use keel_engine::{
    Environment, Light, LightKind, Material, MeshRenderer, Orbit, Oscillate, Scene, SceneError,
    Spin, Transform,
};

/// A file with every section, every component and every optional field set.
fn everything() -> SceneFile {
    let mut root = NodeRecord::new("root");
    root.transform = Transform {
        translation: Vec3::new(1.25, 2.5, -3.75),
        rotation: Quat::from_rotation_y(0.5),
        scale: Vec3::new(1.5, 2.0, 0.5),
    };
    root.set_component(AnyComponent::new(Spin {
        axis: Vec3::new(0.0, 1.0, 0.25),
        rate: 0.75,
    }));
    root.set_component(AnyComponent::new(Oscillate {
        axis: Vec3::new(1.0, 0.0, 0.0),
        amplitude: 0.5,
        frequency: 0.25,
        phase: 1.5,
        rock: false,
        elapsed: 2.5,
        applied: 0.125,
    }));
    root.set_component(AnyComponent::new(Orbit {
        center: Vec3::new(0.5, 0.0, -0.5),
        radius: 4.5,
        rate: 0.3,
        angle: 1.25,
        face_forward: true,
    }));
    root.set_component(AnyComponent::new(Collider {
        shape: ColliderShape::Capsule {
            half_height: 0.75,
            radius: 0.25,
        },
        sensor: true,
        friction: 0.875,
        restitution: 0.125,
        density: 2.5,
        layers: CollisionLayers {
            membership: 0b11,
            filter: 0b101,
        },
    }));
    root.set_component(AnyComponent::new(Body {
        kind: BodyKind::Kinematic,
        linear_damping: 0.375,
        angular_damping: 0.625,
        gravity_scale: -0.5,
        ccd: true,
        lock_translation: Axes {
            x: true,
            ..Axes::NONE
        },
        lock_rotation: Axes::ALL,
        linear_velocity: Vec3::new(1.25, -2.5, 0.75),
        angular_velocity: Vec3::new(0.5, 0.25, -0.125),
    }));
    root.mesh = Some(MeshRenderer {
        cast_shadows: false,
        mesh: MeshRef::from(Primitive::Cube),
        material: Material {
            base_color: Vec4::new(0.25, 0.5, 0.75, 0.5),
            metallic: 0.25,
            roughness: 0.625,
            emissive: Vec3::new(1.5, 0.75, 0.25),
            alpha_mode: AlphaMode::Mask { cutoff: 0.375 },
            double_sided: true,
            texture: None,
            maps: None,
        },
    });
    root.light = Some(Light {
        kind: LightKind::Point { range: 12.5 },
        color: Vec3::new(1.0, 0.75, 0.5),
        intensity: 2.5,
        cast_shadows: false,
    });
    let mut child = NodeRecord::new("child");
    child.parent = Some(0);
    child.emitter = Some(Emitter {
        rate: 15.5,
        bursts: vec![Burst {
            time: 0.5,
            count: 10,
        }],
        burst_period: Some(2.5),
        lifetime: FloatRange::new(0.75, 1.5),
        speed: FloatRange::new(0.5, 3.5),
        cone_angle: 30.5,
        gravity: Vec3::new(0.25, -9.75, 0.125),
        drag: 0.5,
        color_over_life: vec![
            ColorStop {
                t: 0.0,
                color: [1.0, 0.5, 0.25, 1.0],
            },
            ColorStop {
                t: 1.0,
                color: [0.5, 0.25, 0.125, 0.0],
            },
        ],
        size_over_life: vec![
            SizeStop { t: 0.0, size: 0.25 },
            SizeStop { t: 1.0, size: 0.75 },
        ],
        overflow: Overflow::Grow { max: 100_000 },
        ..Emitter::default()
    });
    child.set_component(AnyComponent::new(keel_engine::SceneCamera {
        projection: keel_engine::Projection::Perspective {
            fov_y_degrees: 55.5,
        },
        near: 0.25,
        far: 750.5,
        active: true,
    }));
    let mut sun = NodeRecord::new("sun");
    sun.light = Some(Light {
        kind: LightKind::Directional,
        color: Vec3::new(1.0, 0.95, 0.875),
        intensity: 1.5,
        cast_shadows: false,
    });
    let mut spot = NodeRecord::new("spot");
    spot.light = Some(Light {
        kind: LightKind::Spot {
            range: 9.5,
            inner_degrees: 12.5,
            outer_degrees: 25.5,
        },
        color: Vec3::new(0.5, 0.75, 1.0),
        intensity: 4.5,
        cast_shadows: false,
    });
    SceneFile::new(
        Environment {
            clear_color: Vec3::new(0.25, 0.5, 0.75),
            ambient: Vec3::new(0.125, 0.25, 0.375),
            // Loading a sky reads a file: covered by its own tests.
            sky: None,
            shadows: ShadowSettings {
                enabled: false,
                cascades: 2,
                distance: 45.5,
                resolution: 1024,
                depth_bias: 0.75,
                normal_offset: 2.5,
            },
            post: PostSettings {
                exposure: -0.5,
                tonemapper: Tonemapper::Agx,
                bloom: true,
                bloom_threshold: 1.25,
                bloom_intensity: 0.375,
            },
        },
        vec![root, child, sun, spot],
    )
}

fn origin() -> &'static Path {
    Path::new("everything.ron")
}

fn text() -> String {
    everything().to_text(origin()).expect("serialises")
}

/// Byte ranges of the decimal numbers in `text` outside strings (integers,
/// such as the version, parents and counts, have no `.`).
fn float_literals(text: &str) -> Vec<std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut in_string) = (0, false);
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'"' {
            in_string = !in_string;
        }
        let starts = !in_string
            && (b.is_ascii_digit()
                || (b == b'-' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)))
            && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'));
        if !starts {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < bytes.len()
            && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'.' | b'-' | b'+'))
        {
            i += 1;
        }
        if text[start..i].contains('.') {
            out.push(start..i);
        }
    }
    out
}

/// The last `key:` before `at`: the field a number belongs to.
fn key_before(text: &str, at: usize) -> &str {
    let colon = text[..at].rfind(':').expect("a key before every number");
    let head = &text[..colon];
    let start = head
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    &head[start..]
}

fn line_of(text: &str, at: usize) -> u32 {
    text[..at].matches('\n').count() as u32 + 1
}

/// Loads `text`; the error must name a field whose dotted path has `key` in
/// it, on `line`.
fn expect_refused(text: &str, key: &str, line: u32, what: &str) {
    let error = match Scene::from_text(text, origin(), &keel_engine::Assets::new()) {
        Ok(_) => panic!("{what}: accepted"),
        Err(error) => error,
    };
    let (field, found_line) = match &error {
        SceneError::InvalidField(e) => (e.field.to_string(), e.line),
        SceneError::InvalidSetting(e) => (format!("{}.{}", e.section, e.field), e.line),
        other => panic!("{what}: expected a field error, got {other}"),
    };
    assert!(
        field.split('.').any(|part| part == key),
        "{what}: the error names `{field}`, not `{key}`: {error}"
    );
    assert_eq!(found_line, line, "{what}: wrong line in {error}");
    let message = error.to_string();
    assert!(
        message.starts_with(&format!("everything.ron:{line}:")) && message.contains(key),
        "{what}: the message names neither the file and line nor the field: {message}"
    );
}

#[test]
fn the_file_with_everything_loads() {
    let scene = Scene::from_text(&text(), origin(), &keel_engine::Assets::new())
        .expect("a valid file loads");
    assert_eq!(scene.len(), 4);
}

#[test]
fn every_number_of_the_format_refuses_nan_and_infinities() {
    let text = text();
    let literals = float_literals(&text);
    let mut keys: Vec<&str> = literals
        .iter()
        .map(|r| key_before(&text, r.start))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    // The walk must reach every section and component, or it proves nothing.
    for key in [
        "clear_color",
        "ambient",
        "fov_y_degrees",
        "near",
        "far",
        "translation",
        "rotation",
        "scale",
        "axis",
        "rate",
        "amplitude",
        "frequency",
        "phase",
        "elapsed",
        "applied",
        "center",
        "radius",
        "angle",
        "base_color",
        "metallic",
        "roughness",
        "emissive",
        "range",
        "color",
        "intensity",
        "time",
        "burst_period",
        "min",
        "max",
        "cone_angle",
        "gravity",
        "drag",
        "t",
        "size",
    ] {
        assert!(
            keys.contains(&key),
            "no number written for `{key}`: {keys:?}"
        );
    }
    let mut tried = 0;
    for range in &literals {
        let key = key_before(&text, range.start);
        let line = line_of(&text, range.start);
        for bad in ["NaN", "inf", "-inf"] {
            let mangled = format!("{}{bad}{}", &text[..range.start], &text[range.end..]);
            let what = format!("`{key}` = {bad} (byte {})", range.start);
            expect_refused(&mangled, key, line, &what);
            tried += 1;
        }
    }
    assert!(tried >= 3 * 60, "only {tried} values tried");
}

/// Replaces the number (or the first number of the tuple) after `key:` in
/// `section` (the text from the first occurrence of `section`).
fn replace_after(text: &str, section: &str, key: &str, value: &str) -> (String, u32) {
    let from = text.find(section).expect("section written");
    let at = from + text[from..].find(&format!("{key}:")).expect("key written");
    let literal = float_literals(&text[at..])
        .into_iter()
        .next()
        .map(|r| at + r.start..at + r.end)
        .expect("a number after the key");
    (
        format!("{}{value}{}", &text[..literal.start], &text[literal.end..]),
        line_of(text, literal.start),
    )
}

#[test]
fn numbers_out_of_their_range_are_refused() {
    let text = text();
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "camera",
            "fov_y_degrees",
            &["0.0", "180.0", "-5.0", "1000.0"],
        ),
        ("camera", "near", &["0.0", "-1.0"]),
        ("camera", "far", &["0.1", "1e9"]),
        ("environment", "clear_color", &["-0.5"]),
        ("environment", "ambient", &["-0.1"]),
        ("oscillate", "frequency", &["-1.0"]),
        ("oscillate", "elapsed", &["-2.0"]),
        ("orbit", "radius", &["-4.0"]),
        ("Capsule", "half_height", &["-0.5"]),
        ("Capsule", "radius", &["-0.25"]),
        ("collider", "friction", &["-0.5"]),
        ("collider", "restitution", &["1.5", "-0.5"]),
        ("collider", "density", &["-1.0"]),
        ("body", "linear_damping", &["-0.5"]),
        ("body", "angular_damping", &["-2.0"]),
        ("material", "base_color", &["-0.25"]),
        ("material", "metallic", &["1.5", "-0.1"]),
        ("material", "roughness", &["1.25", "-0.5"]),
        ("material", "emissive", &["-0.75"]),
        ("Point", "range", &["0.0", "-3.0"]),
        ("light", "color", &["-1.0"]),
        ("light", "intensity", &["-2.5"]),
        ("emitter", "rate", &["-1.0"]),
        ("emitter", "burst_period", &["0.0"]),
        ("emitter", "cone_angle", &["181.0", "-1.0"]),
        ("emitter", "drag", &["-0.5"]),
        ("size_over_life", "size", &["-0.25"]),
    ];
    for (section, key, values) in cases {
        for value in *values {
            let (mangled, line) = replace_after(&text, section, key, value);
            expect_refused(&mangled, key, line, &format!("{section} `{key}` = {value}"));
        }
    }
    // Alpha above 1 is out of range although every number is finite.
    let mangled = text.replace("0.25, 0.5, 0.75, 0.5)", "0.25, 0.5, 0.75, 1.5)");
    assert_ne!(mangled, text);
    let line = line_of(&text, text.find("base_color").expect("written"));
    expect_refused(&mangled, "base_color", line, "alpha 1.5");
}

#[test]
fn a_camera_looking_at_its_own_position_is_refused() {
    let mut file = everything();
    let position = Vec3::new(3.5, 4.5, 12.5);
    file.camera = Some(CameraSetup {
        position,
        target: position,
        fov_y_degrees: 55.5,
    });
    let text = file.to_text(origin()).expect("serialises");
    let line = line_of(&text, text.find("target:").expect("written"));
    expect_refused(&text, "target", line, "target == position");
}

#[test]
fn a_model_path_that_is_not_a_regular_file_is_refused_before_reading() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene_path = dir.path().join("scene.ron");
    let mut cases = vec![(dir.path().to_string_lossy().into_owned(), "a folder")];
    if cfg!(unix) {
        cases.push(("/dev/zero".into(), "a character device"));
    }
    for (target, described) in cases {
        let mut node = NodeRecord::new("ship");
        node.model = Some(target.clone());
        let file = SceneFile::new(Environment::default(), vec![node]);
        let text = file.to_text(&scene_path).expect("serialises");
        let error =
            Scene::from_text(&text, &scene_path, &keel_engine::Assets::new()).expect_err("refused");
        let message = error.to_string();
        assert!(
            matches!(&error, SceneError::InvalidField(e) if e.field == "model"),
            "{message}"
        );
        assert!(message.contains(described), "{target}: {message}");
        assert!(message.contains("(`ship`)"), "names the node: {message}");
    }
    // A scene path that is a device is refused the same way.
    if cfg!(unix) {
        let error =
            Scene::load(Path::new("/dev/zero"), &keel_engine::Assets::new()).expect_err("refused");
        assert!(
            error
                .to_string()
                .starts_with("/dev/zero: expected a regular file"),
            "{error}"
        );
    }
}

/// A version 2 file kept its camera as a scene record: it loads as a
/// `Camera` node with the same view, and saves as version 3 with the node.
#[test]
fn an_old_files_camera_record_loads_as_a_camera_node_and_saves_as_one() {
    let old = r#"(
    version: 2,
    camera: (position: (4.0, 5.0, 9.0), target: (0.0, 0.5, 0.0), fov_y_degrees: 40.0),
    nodes: [(name: "floor")],
)"#;
    let assets = keel_engine::Assets::new();
    let scene = Scene::from_text(old, origin(), &assets).expect("reads");
    let (node, camera) = scene.active_camera(0.0).expect("a camera node");
    assert_eq!(scene.name(node), Some("Camera"));
    assert!(camera.position.distance(Vec3::new(4.0, 5.0, 9.0)) < 1e-4);
    let towards = (Vec3::new(0.0, 0.5, 0.0) - Vec3::new(4.0, 5.0, 9.0)).normalize();
    assert!(camera.forward().distance(towards) < 1e-5);
    assert!((camera.fov_y - 40f32.to_radians()).abs() < 1e-6);

    let text = scene.to_file().to_text(origin()).expect("writes");
    assert!(
        text.contains(&format!("version: {SCENE_VERSION}")),
        "{text}"
    );
    assert!(!text.contains("target:"), "no scene record: {text}");
    assert!(
        text.contains("camera: (") && text.contains("Perspective"),
        "{text}"
    );
    let again = Scene::from_text(&text, origin(), &assets).expect("reads back");
    let (_, back) = again.active_camera(0.0).expect("still a camera");
    assert!(back.position.distance(camera.position) < 1e-4);
    assert!(back.forward().distance(camera.forward()) < 1e-5);
    assert_eq!(again.len(), 2, "the floor and the camera, once");

    // Every file used to carry the default record (prefabs among them):
    // that one was never placed by anyone and makes no node.
    let prefab = r#"(
    version: 2,
    camera: (position: (0.0, 5.0, 12.0), target: (0.0, 0.0, 0.0), fov_y_degrees: 50.0),
    nodes: [(name: "hull")],
)"#;
    let scene = Scene::from_text(prefab, origin(), &assets).expect("reads");
    assert_eq!(scene.len(), 1);
    assert!(scene.active_camera(0.0).is_none());
}
