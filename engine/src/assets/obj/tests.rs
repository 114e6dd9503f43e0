use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::*;

const LIMITS: ReadLimits = ReadLimits::DEFAULT;

/// The bundled crate: two materials (a textured one), quads, normals.
fn crate_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/models/crate.obj")
}

/// A folder with `files` written into it.
fn folder(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in files {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    dir
}

fn png(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = Vec::new();
    image::RgbaImage::from_pixel(width, height, image::Rgba([200, 100, 50, 255]))
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .unwrap();
    bytes
}

fn error_of(files: &[(&str, &[u8])]) -> ObjError {
    let dir = folder(files);
    load(&dir.path().join("m.obj"), &LIMITS).expect_err("refused")
}

#[test]
fn the_crate_imports_with_its_materials_texture_and_flipped_uvs() {
    let model = load(&crate_path(), &LIMITS).expect("the crate imports");
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    assert_eq!(model.nodes.len(), 1, "one object, one node");
    assert_eq!(model.nodes[0].name, "crate");
    assert_eq!(model.meshes.len(), 1);
    let primitives = &model.meshes[0].primitives;
    assert_eq!(primitives.len(), 2, "a primitive per material");
    // Five quads of wood, one of iron: two triangles each.
    assert_eq!(primitives[0].mesh.indices.len(), 5 * 6);
    assert_eq!(primitives[1].mesh.indices.len(), 6);
    let names: Vec<&str> = model.materials.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["wood", "iron"]);
    let [wood, iron] = [&model.materials[0], &model.materials[1]];
    assert_eq!(wood.base_color_texture, Some(0));
    assert_eq!(model.textures[0].width, 32);
    assert!(model.textures[0].srgb);
    assert!((wood.roughness - (1.0 - (40.0f32 / 1000.0).sqrt())).abs() < 1e-6);
    assert_eq!(wood.metallic, 0.0);
    assert_eq!((iron.roughness, iron.metallic), (0.45, 1.0));
    assert!((iron.base_color.x - 0.35).abs() < 1e-6);
    // The importer read the library and the image: a change to either reloads it.
    let files: Vec<_> = model.files.iter().map(|f| f.file_name().unwrap()).collect();
    assert_eq!(files, ["crate.mtl", "crate.png"]);
    // `vt 0 0` (OBJ: the image's bottom left) is the engine's (0, 1).
    let front = &primitives[0].mesh.vertices;
    let corner = front
        .iter()
        .find(|v| v.position == [-0.5, -0.5, 0.5] && v.normal == [0.0, 0.0, 1.0])
        .expect("the front face's bottom-left corner");
    assert_eq!(corner.uv, [0.0, 1.0]);
    // Counter-clockwise seen from outside, as the engine draws front faces.
    let mesh = &primitives[1].mesh;
    let [a, b, c] = [0, 1, 2].map(|k| Vec3::from(mesh.vertices[mesh.indices[k] as usize].position));
    assert!((b - a).cross(c - a).dot(Vec3::Y) > 0.0);
}

#[test]
fn without_normals_faces_are_flat_and_negative_indices_count_back() {
    let obj = b"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf -4 -3 -2 -1\n";
    let dir = folder(&[("m.obj", obj)]);
    let model = load(&dir.path().join("m.obj"), &LIMITS).unwrap();
    let mesh = &model.meshes[0].primitives[0].mesh;
    assert_eq!(mesh.indices.len(), 6);
    assert_eq!(mesh.vertices.len(), 6, "a vertex per corner");
    assert!(mesh.vertices.iter().all(|v| v.normal == [0.0, 0.0, 1.0]));
    assert_eq!(model.meshes[0].primitives[0].material, None);
    assert_eq!(model.nodes[0].name, "unnamed_object");
}

#[test]
fn an_object_without_faces_is_skipped_with_a_warning() {
    let obj = b"o dots\nv 0 0 0\nv 1 0 0\np 1\nl 1 2\no tri\nv 0 1 0\nf 1 2 3\n";
    let dir = folder(&[("m.obj", obj)]);
    let model = load(&dir.path().join("m.obj"), &LIMITS).unwrap();
    let names: Vec<&str> = model.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["tri"]);
    assert_eq!(model.warnings.len(), 1, "{:?}", model.warnings);
    assert!(model.warnings[0].element.contains("dots"));
}

#[test]
fn errors_name_the_file_and_the_line() {
    let cases: [(&[u8], usize, &str); 7] = [
        // Texture coordinates and normals named with none written.
        (
            b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/9/1 2/9/1 3/9/1\n",
            4,
            "a face",
        ),
        (
            b"v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\nf 1/1/1 2/1/2 3/1/1\n",
            6,
            "a face",
        ),
        (b"v 0 0 0\nv 1 zero 0\n", 2, "`v x y z`"),
        (b"v 0 0 0\nvn 0 1\n", 2, "`vn x y z`"),
        (
            b"v 0 0 0\nv 1 0 0\nv 0 1 0\n# c\nf 1 2 3\nf 1 2 9\n",
            6,
            "a face",
        ),
        (b"v 0 0 0\nv 1 0 0\nf 1 2 0\n", 3, "a face"),
        (b"v 0 0 0\nv 1 0 0\xff\n", 2, "UTF-8"),
    ];
    for (obj, line, expected) in cases {
        match error_of(&[("m.obj", obj)]) {
            ObjError::Parse {
                path,
                line: at,
                message,
            } => {
                assert!(path.ends_with("m.obj"));
                assert_eq!(at, Some(line), "{}", String::from_utf8_lossy(obj));
                assert!(message.contains(expected), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_missing_library_or_image_names_the_line_that_names_it() {
    let obj: &[u8] = b"# m\nmtllib gone.mtl\nv 0 0 0\n";
    match error_of(&[("m.obj", obj)]) {
        ObjError::MissingFile {
            path, line, file, ..
        } => {
            assert!(path.ends_with("m.obj"));
            assert_eq!(line, Some(2));
            assert!(file.ends_with("gone.mtl"));
        }
        other => panic!("{other:?}"),
    }
    let obj: &[u8] = b"mtllib m.mtl\nv 0 0 0\n";
    let mtl: &[u8] = b"newmtl a\nKd 1 1 1\nmap_Kd gone.png\n";
    let error = error_of(&[("m.obj", obj), ("m.mtl", mtl)]);
    assert!(
        matches!(&error, ObjError::MissingFile { path, line: Some(3), file, .. }
            if path.ends_with("m.mtl") && file.ends_with("gone.png")),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("m.mtl: line 3: cannot read"),
        "{error}"
    );
    let error = error_of(&[
        ("m.obj", obj),
        ("m.mtl", mtl),
        ("gone.png", b"not an image"),
    ]);
    assert!(
        matches!(&error, ObjError::Texture { line: Some(3), .. }),
        "{error:?}"
    );
}

#[test]
fn a_broken_library_names_its_line_even_where_the_reader_would_panic() {
    let obj: &[u8] = b"mtllib m.mtl\nv 0 0 0\n";
    // `Kd` with two numbers panics inside tobj 4.0; it is refused first.
    for (mtl, line) in [
        (&b"newmtl a\nKd 1 1\n"[..], 2),
        (b"newmtl a\nNs 1\nKd 1 x 1\n", 3),
        (b"newmtl a\nd\n", 2),
    ] {
        match error_of(&[("m.obj", obj), ("m.mtl", mtl)]) {
            ObjError::Parse { path, line: at, .. } => {
                assert!(path.ends_with("m.mtl"));
                assert_eq!(at, Some(line), "{}", String::from_utf8_lossy(mtl));
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn textures_are_decoded_once_and_options_before_the_name_are_passed_over() {
    let obj: &[u8] = b"mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nusemtl a\nf 1/1 2/1 3/1\nusemtl b\nf 1/1 2/1 3/1\n";
    let mtl: &[u8] =
        b"newmtl a\nmap_Kd t.png\nnewmtl b\nmap_Kd t.png\nmap_Bump -bm 0.5 t.png\nd 0.5\n";
    let image = png(4, 2);
    let dir = folder(&[("m.obj", obj), ("m.mtl", mtl), ("t.png", &image)]);
    let model = load(&dir.path().join("m.obj"), &LIMITS).unwrap();
    assert_eq!(model.textures.len(), 2, "one colour, one data copy");
    assert_eq!(model.materials[0].base_color_texture, Some(0));
    assert_eq!(model.materials[1].base_color_texture, Some(0));
    assert_eq!(model.materials[1].normal_texture, Some((1, 1.0)));
    assert!(!model.textures[1].srgb);
    assert_eq!(model.materials[1].alpha_mode, AlphaMode::Blend);
    let normal_mapped = &model.meshes[0].primitives[1].mesh;
    assert!(normal_mapped.vertices.iter().all(|v| v.tangent != [0.0; 4]));
}

#[test]
fn files_are_read_within_the_limits() {
    let dir = folder(&[("m.obj", b"v 0 0 0\n")]);
    let tiny = ReadLimits {
        model: 4,
        ..ReadLimits::DEFAULT
    };
    let error = load(&dir.path().join("m.obj"), &tiny).unwrap_err();
    assert!(matches!(error, ObjError::Io { .. }), "{error:?}");
}

/// One corner of a face: its position, texture coordinate and normal
/// indices as written (`None`: left out).
type Corner = (i64, Option<i64>, Option<i64>);

/// Whether `index` names one of `count` items written before it (1-based,
/// or negative counting back).
fn names_one_of(index: i64, count: i64) -> bool {
    (1..=count).contains(&index) || (-count..=-1).contains(&index)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Every index a face names is checked: a file whose faces all name
    /// written data imports, and any other is refused at its first such
    /// face's line.
    #[test]
    fn every_face_index_is_checked(
        counts in (1i64..5, 0i64..4, 0i64..4),
        faces in proptest::collection::vec(
            proptest::collection::vec(
                (-6i64..7, proptest::option::of(-6i64..7), proptest::option::of(-6i64..7)),
                3..5,
            ),
            1..4,
        ),
    ) {
        let (positions, texcoords, normals) = counts;
        let mut text = String::new();
        for i in 0..positions {
            text += &format!("v {i} {} 0\n", i * i);
        }
        for _ in 0..texcoords {
            text += "vt 0.5 0.5\n";
        }
        for _ in 0..normals {
            text += "vn 0 0 1\n";
        }
        let header = positions + texcoords + normals;
        let ok = |&(v, t, n): &Corner| {
            names_one_of(v, positions)
                && t.is_none_or(|t| names_one_of(t, texcoords))
                && n.is_none_or(|n| names_one_of(n, normals))
        };
        let mut first_bad = None;
        for (k, face) in faces.iter().enumerate() {
            text += "f";
            for &(v, t, n) in face {
                text += &match (t, n) {
                    (None, None) => format!(" {v}"),
                    (Some(t), None) => format!(" {v}/{t}"),
                    (t, Some(n)) => format!(" {v}/{}/{n}", t.map_or(String::new(), |t| t.to_string())),
                };
            }
            text += "\n";
            if first_bad.is_none() && !face.iter().all(ok) {
                first_bad = Some(usize::try_from(header).unwrap() + k + 1);
            }
        }
        let dir = folder(&[("m.obj", text.as_bytes())]);
        let result = load(&dir.path().join("m.obj"), &LIMITS);
        match (first_bad, result) {
            (None, Ok(_)) => {}
            (Some(line), Err(ObjError::Parse { line: at, .. })) => prop_assert_eq!(at, Some(line), "{}", text),
            (expected, result) => prop_assert!(false, "expected a fault at {:?}, got {:?}\n{}", expected, result.map(|_| ()), text),
        }
    }

    /// Any bytes, and the crate's text with lines cut, swapped or garbled,
    /// import or are refused: never a panic.
    #[test]
    fn hostile_files_never_panic(
        noise in proptest::collection::vec(any::<u8>(), 0..400),
        cut in 0usize..40,
        garble in 0usize..40,
        word in "[-0-9a-z/ .]{0,12}",
    ) {
        let crate_text = std::fs::read_to_string(crate_path()).unwrap();
        let mtl = std::fs::read(crate_path().with_extension("mtl")).unwrap();
        let mut lines: Vec<String> = crate_text.lines().map(str::to_owned).collect();
        let n = lines.len();
        lines.remove(cut % n);
        let at = garble % lines.len();
        let key = lines[at].split_whitespace().next().unwrap_or("f").to_owned();
        lines[at] = format!("{key} {word}");
        let garbled = lines.join("\n");
        let mut mtl_lines: Vec<String> = String::from_utf8_lossy(&mtl).lines().map(str::to_owned).collect();
        let m = mtl_lines.len();
        let at = garble % m;
        let key = mtl_lines[at].split_whitespace().next().unwrap_or("Kd").to_owned();
        mtl_lines[at] = format!("{key} {word}");
        let image = std::fs::read(crate_path().with_extension("png")).unwrap();
        for obj in [&noise[..], garbled.as_bytes()] {
            let mtl = mtl_lines.join("\n");
            let dir = folder(&[("m.obj", obj), ("crate.mtl", mtl.as_bytes()), ("crate.png", &image)]);
            let _ = load(&dir.path().join("m.obj"), &LIMITS);
        }
    }
}
