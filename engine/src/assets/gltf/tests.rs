//! Unit tests of the importer's pieces: mip filtering, URI handling, strip
//! and fan assembly, flat normals and matrix decomposition. File-level tests
//! are in `engine/tests/gltf_import.rs`.

use std::path::Path;

use glam::{Mat4, Quat, Vec3};
use gltf::mesh::Mode;
use proptest::prelude::*;

use super::hierarchy::from_matrix;
use super::mesh::{Attributes, flat_shaded, triangle_list};
use super::source::{percent_decode, read_uri};
use super::{GltfError, from_slice, mip_chain};

fn grey(value: u8) -> [u8; 4] {
    [value, value, value, 255]
}

#[test]
fn checker_averages_to_linear_half() {
    let level0 = [grey(0), grey(255), grey(255), grey(0)].concat();
    let mips = mip_chain(2, 2, level0);
    assert_eq!(mips.len(), 2);
    // Linear 0.5 encodes to sRGB 0.735 (188); averaging the bytes would give 128.
    assert_eq!(mips[1], grey(188));
}

#[test]
fn mip_sizes_halve_down_to_one_texel() {
    let (w, h) = (13_usize, 5_usize);
    let mips = mip_chain(w as u32, h as u32, vec![90; 4 * w * h]);
    let sizes: Vec<usize> = mips.iter().map(|level| level.len() / 4).collect();
    assert_eq!(sizes, [13 * 5, 6 * 2, 3, 1]);
    for level in &mips {
        assert!(level.iter().all(|&c| c == 90), "a flat colour stays put");
    }
}

#[test]
fn odd_last_column_folds_into_the_average() {
    // 3 x 1: black, black, white. The one texel of level 1 covers all three
    // (not just the first two, which would give black).
    let level0 = [grey(0), grey(0), grey(255)].concat();
    let mips = mip_chain(3, 1, level0);
    assert_eq!(mips.len(), 2);
    let expected =
        (255.0 * (1.055 * crate::math::powf(1.0_f32 / 3.0, 1.0 / 2.4) - 0.055)).round() as u8;
    assert_eq!(mips[1], grey(expected));
}

#[test]
fn alpha_is_averaged_without_the_srgb_curve() {
    let level0 = [[0, 0, 0, 0], [0, 0, 0, 255]].concat();
    let mips = mip_chain(2, 1, level0);
    assert_eq!(mips[1][3], 128);
}

#[test]
fn inconsistent_level_zero_is_returned_alone() {
    assert_eq!(mip_chain(4, 4, vec![0; 12]).len(), 1);
    assert_eq!(mip_chain(0, 4, Vec::new()).len(), 1);
}

/// Naive reference for one mip step: every destination texel averages the
/// source texels whose centres fall in its share of the image.
fn reference_level(src: &[u8], w: usize, h: usize) -> Vec<u8> {
    let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
    let owner = |i: usize, n: usize| (i / 2).min(n - 1);
    let decode = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            libm::pow((c + 0.055) / 1.055, 2.4)
        }
    };
    let encode = |c: f64| {
        let s = if c <= 0.003_130_8 {
            c * 12.92
        } else {
            1.055 * libm::pow(c, 1.0 / 2.4) - 0.055
        };
        (s.clamp(0.0, 1.0) * 255.0).round() as u8
    };
    let mut out = Vec::new();
    for y in 0..nh {
        for x in 0..nw {
            let texels: Vec<&[u8]> = (0..h)
                .flat_map(|sy| (0..w).map(move |sx| (sx, sy)))
                .filter(|&(sx, sy)| owner(sx, nw) == x && owner(sy, nh) == y)
                .map(|(sx, sy)| &src[4 * (sy * w + sx)..][..4])
                .collect();
            let n = texels.len() as f64;
            for c in 0..3 {
                out.push(encode(texels.iter().map(|t| decode(t[c])).sum::<f64>() / n));
            }
            let alpha = texels.iter().map(|t| f64::from(t[3])).sum::<f64>() / n;
            out.push(alpha.round() as u8);
        }
    }
    out
}

proptest! {
    #[test]
    fn first_mip_step_matches_the_reference(
        (w, h, pixels) in (1_usize..9, 1_usize..9)
            .prop_flat_map(|(w, h)| (Just(w), Just(h), prop::collection::vec(any::<u8>(), 4 * w * h)))
    ) {
        let mips = mip_chain(w as u32, h as u32, pixels.clone());
        if w > 1 || h > 1 {
            let expected = reference_level(&pixels, w, h);
            for (got, want) in mips[1].iter().zip(&expected) {
                prop_assert!(got.abs_diff(*want) <= 1, "{:?} vs {:?}", mips[1], expected);
            }
        }
    }
}

#[test]
fn percent_escapes_decode() {
    assert_eq!(
        percent_decode("my%20model.bin").as_deref(),
        Some("my model.bin")
    );
    assert_eq!(
        percent_decode("plain/path.png").as_deref(),
        Some("plain/path.png")
    );
    assert_eq!(percent_decode("bad%2"), None);
    assert_eq!(percent_decode("bad%+1"), None);
    assert_eq!(percent_decode("%FF"), None, "not UTF-8");
}

#[test]
fn data_uris_decode_and_bad_ones_are_named() {
    let path = Path::new("m.gltf");
    let bytes = read_uri(
        "data:application/octet-stream;base64,AAEC",
        "buffers[0]",
        path,
        &crate::files::ReadLimits::DEFAULT,
    );
    assert_eq!(bytes.ok(), Some(vec![0, 1, 2]));
    for uri in [
        "data:application/octet-stream;base64,!!!",
        "data:text/plain,hello",
        "data:nocomma",
        "https://example.com/m.bin",
    ] {
        match read_uri(uri, "buffers[1]", path, &crate::files::ReadLimits::DEFAULT) {
            Err(GltfError::BadUri { element, .. }) => assert_eq!(element, "buffers[1]"),
            other => panic!("{uri}: expected BadUri, got {other:?}"),
        }
    }
}

#[test]
fn strips_and_fans_become_lists_with_the_same_winding() {
    assert_eq!(
        triangle_list(Mode::TriangleStrip, &[0, 1, 2, 3, 4]),
        [0, 1, 2, 1, 3, 2, 2, 3, 4]
    );
    assert_eq!(
        triangle_list(Mode::TriangleFan, &[0, 1, 2, 3]),
        [1, 2, 0, 2, 3, 0]
    );
    assert_eq!(triangle_list(Mode::Triangles, &[0, 1, 2, 3]), [0, 1, 2]);
    assert!(triangle_list(Mode::TriangleStrip, &[0, 1]).is_empty());
}

#[test]
fn flat_normals_face_the_counter_clockwise_side() {
    let positions = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 0.0, -1.0],
        [5.0, 5.0, 5.0],
    ];
    let uvs = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.5, 0.5]];
    // Counter-clockwise seen from +Y, then a degenerate one.
    let attributes = Attributes {
        positions: &positions,
        uvs: &uvs,
        uvs1: None,
        colors: None,
    };
    let mesh = flat_shaded(&attributes, &[0, 1, 2, 3, 3, 3]);
    assert_eq!(mesh.indices, [0, 1, 2, 3, 4, 5]);
    for vertex in &mesh.vertices[..3] {
        assert_eq!(vertex.normal, [0.0, 1.0, 0.0]);
    }
    assert_eq!(
        mesh.vertices[1].uv,
        [1.0, 0.0],
        "attributes follow their corner"
    );
    let degenerate = Vec3::from(mesh.vertices[4].normal);
    assert!(
        (degenerate.length() - 1.0).abs() < 1e-6,
        "still a unit normal"
    );
}

#[test]
fn trs_matrices_decompose_without_a_warning_and_shears_warn() {
    let (scale, rotation, translation) = (
        Vec3::new(2.0, 0.5, 1.0),
        Quat::from_rotation_z(0.3),
        Vec3::new(1.0, -2.0, 3.0),
    );
    let (transform, problem) = from_matrix(&Mat4::from_scale_rotation_translation(
        scale,
        rotation,
        translation,
    ));
    assert_eq!(problem, None);
    assert!(transform.scale.abs_diff_eq(scale, 1e-5));
    assert!(transform.rotation.abs_diff_eq(rotation, 1e-5));
    assert!(transform.translation.abs_diff_eq(translation, 1e-5));

    let mut shear = Mat4::IDENTITY;
    shear.y_axis.x = 0.7;
    assert!(from_matrix(&shear).1.is_some());
    let mut projective = Mat4::IDENTITY;
    projective.x_axis.w = 0.1;
    assert!(from_matrix(&projective).1.is_some());
    let (collapsed, problem) = from_matrix(&Mat4::ZERO);
    assert!(problem.is_some());
    assert!(collapsed.rotation.is_finite());
}

#[test]
fn tiny_inputs_are_parse_errors() {
    for bytes in [&b""[..], b"{", b"glTF", b"glTF\x02\0\0\0\x04\0\0\0", b"[]"] {
        let error = from_slice(
            bytes,
            Path::new("t.glb"),
            &crate::files::ReadLimits::DEFAULT,
        )
        .expect_err("not a model");
        assert!(
            matches!(error, GltfError::Parse { .. }),
            "{bytes:?}: {error:?}"
        );
    }
}

#[test]
fn minimal_document_without_buffers_loads_empty() {
    let model = from_slice(
        br#"{"asset":{"version":"2.0"}}"#,
        Path::new("e.gltf"),
        &crate::files::ReadLimits::DEFAULT,
    )
    .expect("a document may be empty");
    assert!(model.nodes.is_empty() && model.meshes.is_empty());
}

#[test]
fn punctual_lights_import_as_keel_lights_and_bad_ones_are_named() {
    use crate::light::LightKind;
    let json = br#"{
        "asset": {"version": "2.0"},
        "extensionsUsed": ["KHR_lights_punctual"],
        "extensionsRequired": ["KHR_lights_punctual"],
        "extensions": {"KHR_lights_punctual": {"lights": [
            {"type": "directional", "color": [1.0, 0.9, 0.8], "intensity": 3.14159265},
            {"type": "point", "intensity": 31.4159265, "range": 12.0},
            {"type": "spot", "intensity": 6.28318531, "range": 8.0,
             "spot": {"innerConeAngle": 0.2, "outerConeAngle": 0.5}}
        ]}},
        "scenes": [{"nodes": [0, 1, 2, 3]}],
        "nodes": [
            {"name": "sun", "extensions": {"KHR_lights_punctual": {"light": 0}}},
            {"name": "bulb", "extensions": {"KHR_lights_punctual": {"light": 1}}},
            {"name": "torch", "extensions": {"KHR_lights_punctual": {"light": 2}}},
            {"name": "plain"}
        ]
    }"#;
    let model = from_slice(
        json,
        Path::new("lights.gltf"),
        &crate::files::ReadLimits::DEFAULT,
    )
    .expect("loads");
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    let light = |i: usize| model.nodes[i].light;
    let sun = light(0).expect("a sun");
    assert_eq!(sun.kind, LightKind::Directional);
    assert!(
        (sun.intensity - 1.0).abs() < 1e-5,
        "lux / pi: {}",
        sun.intensity
    );
    assert_eq!(sun.color, Vec3::new(1.0, 0.9, 0.8));
    let bulb = light(1).expect("a point light");
    assert_eq!(bulb.kind, LightKind::Point { range: 12.0 });
    assert!((bulb.intensity - 10.0).abs() < 1e-4);
    let LightKind::Spot {
        range,
        inner_degrees,
        outer_degrees,
    } = light(2).expect("a spot").kind
    else {
        panic!("not a spot: {:?}", light(2));
    };
    assert_eq!(range, 8.0);
    assert!((inner_degrees - 0.2f32.to_degrees()).abs() < 1e-3);
    assert!((outer_degrees - 0.5f32.to_degrees()).abs() < 1e-3);
    assert_eq!(light(3), None);
    // A spot without its cone, or a node naming a light the file lacks: the
    // file is refused, naming the element.
    let text = std::str::from_utf8(json).unwrap();
    for (broken, element) in [
        (
            text.replace(
                r#""spot": {"innerConeAngle": 0.2, "outerConeAngle": 0.5}"#,
                r#""name": "torch""#,
            ),
            "lights[2].spot",
        ),
        (text.replace(r#"{"light": 2}"#, r#"{"light": 9}"#), "light"),
    ] {
        let error = from_slice(
            broken.as_bytes(),
            Path::new("lights.gltf"),
            &crate::files::ReadLimits::DEFAULT,
        )
        .expect_err("refused")
        .to_string();
        assert!(error.contains(element), "{error}");
    }
}
