//! glTF import at the file level: a model written with the engine's exporter
//! (then edited as JSON for the cases a model cannot express) must come back
//! the same from `.glb`, from `.gltf` with data URIs and from `.gltf` with
//! files beside it; every malformed input must give an error naming the
//! element, and no input may panic. Plus the repository's own lighthouse.

use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec3, Vec4};
use gltf::json;
use json::validation::{Checked, USize64};
use keel_engine::Primitive;
use keel_engine::Transform;
use keel_engine::assets::gltf::{self as import, GltfError, mip_chain};
use keel_engine::assets::gltf::{Export, Resources};
use keel_engine::assets::{
    MeshData, MeshVertex, ModelData, ModelMaterial, ModelMesh, ModelNode, ModelPrimitive,
    TextureData,
};
use keel_engine::files::ReadLimits;
use proptest::prelude::*;

/// A 2 x 2 black and white checker, as glTF stores it (sRGB).
fn checker() -> TextureData {
    let (black, white) = ([0, 0, 0, 255], [255, 255, 255, 255]);
    let level0 = [black, white, white, black].concat();
    TextureData {
        name: "checker".into(),
        width: 2,
        height: 2,
        mips: mip_chain(2, 2, level0),
        srgb: true,
    }
}

/// A unit quad in the XY plane facing +Z, counter-clockwise.
fn quad() -> MeshData {
    let corners = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
    MeshData {
        vertices: corners
            .iter()
            .map(|&[x, y]| MeshVertex::new([x, y, 0.0], [0.0, 0.0, 1.0], [x, 1.0 - y]))
            .collect(),
        indices: vec![0, 1, 2, 0, 2, 3],
        ..MeshData::default()
    }
}

/// A textured quad under a cube: two meshes, a material with a texture, a
/// parent and a child node with rotation, scale and translation.
fn sample() -> ModelData {
    ModelData {
        path: PathBuf::new(),
        meshes: vec![
            ModelMesh {
                name: "quad".into(),
                primitives: vec![ModelPrimitive {
                    mesh: quad(),
                    material: Some(0),
                }],
            },
            ModelMesh {
                name: "cube".into(),
                primitives: vec![ModelPrimitive {
                    mesh: Primitive::Cube.mesh(),
                    material: None,
                }],
            },
        ],
        materials: vec![ModelMaterial {
            name: "painted".into(),
            base_color: Vec4::new(0.8, 0.5, 0.25, 1.0),
            base_color_texture: Some(0),
            metallic: 0.25,
            roughness: 0.75,
            // Brighter than a factor may be: written through the strength extension.
            emissive: Vec3::new(2.5, 1.25, 0.5),
            ..ModelMaterial::default()
        }],
        textures: vec![checker()],
        nodes: vec![
            ModelNode {
                name: "base".into(),
                parent: None,
                transform: Transform {
                    translation: Vec3::new(1.0, 2.0, 3.0),
                    rotation: Quat::from_rotation_y(0.5),
                    scale: Vec3::splat(2.0),
                },
                mesh: Some(1),
                skin: None,
                weights: Vec::new(),
                light: None,
            },
            ModelNode {
                name: "sign".into(),
                parent: Some(0),
                transform: Transform::from_translation(Vec3::Y),
                mesh: Some(0),
                skin: None,
                weights: Vec::new(),
                light: None,
            },
        ],
        animations: Vec::new(),
        skins: Vec::new(),
        warnings: Vec::new(),
        files: Vec::new(),
    }
}

fn export() -> Export {
    Export::new(&sample()).expect("the sample model exports")
}

fn glb(export: Export) -> Vec<u8> {
    export.to_glb().expect("the sample model serialises")
}

fn load_glb(export: Export) -> Result<ModelData, GltfError> {
    import::from_slice(&glb(export), Path::new("sample.glb"), &ReadLimits::DEFAULT)
}

/// `model` with rotations compared to a tolerance (they are normalised on
/// import) and the file path cleared, for comparing with [`sample`].
fn assert_same(loaded: &ModelData, expected: &ModelData) {
    assert!(
        loaded.warnings.is_empty(),
        "warnings: {:?}",
        loaded.warnings
    );
    assert_eq!(loaded.meshes, expected.meshes);
    assert_eq!(loaded.materials, expected.materials);
    assert_eq!(loaded.textures, expected.textures);
    assert_eq!(loaded.nodes.len(), expected.nodes.len());
    for (got, want) in loaded.nodes.iter().zip(&expected.nodes) {
        assert_eq!(
            (&got.name, got.parent, got.mesh),
            (&want.name, want.parent, want.mesh)
        );
        assert_transform(&got.transform, &want.transform);
    }
}

fn assert_transform(got: &Transform, want: &Transform) {
    assert!(
        got.translation.abs_diff_eq(want.translation, 1e-5)
            && got.rotation.abs_diff_eq(want.rotation, 1e-5)
            && got.scale.abs_diff_eq(want.scale, 1e-5),
        "transform {got:?}, expected {want:?}"
    );
}

fn warned_about(model: &ModelData, element: &str) -> bool {
    model.warnings.iter().any(|w| w.element == element)
}

#[test]
fn glb_round_trip_keeps_hierarchy_geometry_material_and_texture() {
    let model = load_glb(export()).expect("the sample loads");
    assert_same(&model, &sample());
    assert_eq!(model.path, Path::new("sample.glb"));
}

#[test]
fn texture_has_a_linear_space_mip_chain() {
    let model = load_glb(export()).expect("the sample loads");
    let texture = &model.textures[0];
    assert_eq!((texture.width, texture.height), (2, 2));
    assert_eq!(texture.mips.len(), 2, "2 x 2 and 1 x 1");
    assert_eq!(texture.mips[0][4..8], [255, 255, 255, 255], "pixel (1, 0)");
    // Half black, half white is linear 0.5, which sRGB encodes as 188, not 128.
    assert_eq!(texture.mips[1], [188, 188, 188, 255]);
}

#[test]
fn glb_gltf_with_files_and_gltf_with_data_uris_load_the_same() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let glb_path = dir.path().join("model.glb");
    std::fs::write(&glb_path, glb(export())).expect("write glb");

    let embedded_path = dir.path().join("embedded.gltf");
    let embedded = export().to_gltf(Resources::Embedded).expect("serialise");
    assert!(embedded.files.is_empty());
    std::fs::write(&embedded_path, embedded.json).expect("write gltf");

    // A space in the stem exercises the URI's percent-encoding.
    let files_path = dir.path().join("with files.gltf");
    let files = export()
        .to_gltf(Resources::Files { stem: "with files" })
        .expect("serialise");
    assert_eq!(files.files.len(), 2, "one .bin and one .png");
    for (name, bytes) in &files.files {
        std::fs::write(dir.path().join(name), bytes).expect("write resource");
    }
    std::fs::write(&files_path, files.json).expect("write gltf");

    for path in [glb_path, embedded_path, files_path] {
        let model = import::load(&path, &ReadLimits::DEFAULT).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(model.path, path);
        assert_same(&model, &sample());
    }
}

#[test]
fn matrix_nodes_are_decomposed() {
    let expected = Transform {
        translation: Vec3::new(-1.0, 0.5, 4.0),
        rotation: Quat::from_rotation_x(1.0),
        scale: Vec3::new(1.0, 3.0, 0.5),
    };
    let mut export = export();
    let node = &mut export.root.nodes[1];
    node.translation = None;
    node.matrix = Some(
        Mat4::from_scale_rotation_translation(
            expected.scale,
            expected.rotation,
            expected.translation,
        )
        .to_cols_array(),
    );
    let model = load_glb(export).expect("loads");
    assert_transform(&model.nodes[1].transform, &expected);
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
}

#[test]
fn sheared_matrix_loads_with_a_warning() {
    let mut export = export();
    let mut shear = Mat4::IDENTITY.to_cols_array();
    shear[4] = 0.5; // column 1, row 0: x += 0.5 y
    export.root.nodes[1].translation = None;
    export.root.nodes[1].matrix = Some(shear);
    let model = load_glb(export).expect("a shear is not fatal");
    assert!(warned_about(&model, "nodes[1]"), "{:?}", model.warnings);
}

#[test]
fn missing_normals_become_flat_face_normals() {
    let mut export = export();
    let normal = Checked::Valid(json::mesh::Semantic::Normals);
    for mesh in &mut export.root.meshes {
        mesh.primitives[0].attributes.remove(&normal);
    }
    let model = load_glb(export).expect("normals are optional");
    for mesh in &model.meshes {
        let mesh = &mesh.primitives[0].mesh;
        assert_eq!(mesh.vertices.len(), mesh.indices.len(), "un-indexed");
        for triangle in mesh.indices.chunks_exact(3) {
            let v = [0, 1, 2].map(|k| mesh.vertices[triangle[k] as usize]);
            let [a, b, c] = v.map(|v| Vec3::from(v.position));
            let face = (b - a).cross(c - a);
            for vertex in v {
                let n = Vec3::from(vertex.normal);
                assert!((n.length() - 1.0).abs() < 1e-5, "unit normal {n}");
                assert!(
                    n.dot(b - a).abs() < 1e-5 && n.dot(c - a).abs() < 1e-5,
                    "perpendicular"
                );
                assert!(n.dot(face) > 0.0, "on the counter-clockwise side");
            }
        }
    }
    assert_eq!(
        model.meshes[0].primitives[0].mesh.vertices[0].normal,
        [0.0, 0.0, 1.0]
    );
}

#[test]
fn missing_file_is_an_io_error_naming_it() {
    let path = Path::new("/nonexistent/boat.glb");
    let error = import::load(path, &ReadLimits::DEFAULT).expect_err("no such file");
    assert!(matches!(error, GltfError::Io { .. }), "{error:?}");
    assert!(
        error.to_string().starts_with("/nonexistent/boat.glb: "),
        "{error}"
    );
}

#[test]
fn truncated_glb_is_an_error_at_every_cut() {
    let bytes = glb(export());
    let cuts = [
        0,
        3,
        4,
        11,
        12,
        16,
        20,
        40,
        bytes.len() / 2,
        bytes.len() - 4,
        bytes.len() - 1,
    ];
    for cut in cuts {
        let error = import::from_slice(&bytes[..cut], Path::new("cut.glb"), &ReadLimits::DEFAULT)
            .expect_err(&format!("cut at {cut} of {}", bytes.len()));
        assert!(error.to_string().starts_with("cut.glb: "), "{error}");
    }
}

#[test]
fn glb_header_shorter_than_itself_is_a_parse_error() {
    let mut bytes = glb(export());
    bytes[8..12].copy_from_slice(&4_u32.to_le_bytes());
    let error =
        import::from_slice(&bytes, Path::new("h.glb"), &ReadLimits::DEFAULT).expect_err("length 4");
    assert!(matches!(error, GltfError::Parse { .. }), "{error:?}");
}

#[test]
fn index_out_of_range_names_the_primitive_the_index_and_the_vertex_count() {
    let mut model = sample();
    model.meshes[0].primitives[0].mesh.indices[4] = 99;
    let export = Export::new(&model).expect("exports");
    match load_glb(export) {
        Err(GltfError::IndexOutOfRange {
            element,
            index,
            vertex_count,
            ..
        }) => {
            assert_eq!(element, "meshes[0].primitives[0]");
            assert_eq!((index, vertex_count), (99, 4));
        }
        other => panic!("expected IndexOutOfRange, got {other:?}"),
    }
}

#[test]
fn accessor_past_its_buffer_view_is_out_of_bounds() {
    let mut export = export();
    let accessor = export.root.meshes[0].primitives[0]
        .indices
        .expect("indexed")
        .value();
    export.root.accessors[accessor].count = USize64(7);
    let error = load_glb(export).expect_err("7 indices in a view of 6");
    assert!(
        matches!(&error, GltfError::OutOfBounds { element, .. } if element.starts_with(&format!("accessors[{accessor}]"))),
        "{error:?}"
    );
}

#[test]
fn missing_buffer_file_names_the_buffer_and_the_file() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let files = export()
        .to_gltf(Resources::Files { stem: "lost" })
        .expect("serialise");
    let path = dir.path().join("lost.gltf");
    std::fs::write(&path, files.json).expect("write gltf");
    match import::load(&path, &ReadLimits::DEFAULT) {
        Err(GltfError::MissingFile { element, file, .. }) => {
            assert_eq!(element, "buffers[0]");
            assert_eq!(file, dir.path().join("lost.bin"));
        }
        other => panic!("expected MissingFile, got {other:?}"),
    }
}

#[test]
fn undecodable_texture_names_the_image() {
    let mut export = export();
    export.images[0] = b"these bytes are not a PNG".to_vec();
    let error = load_glb(export).expect_err("garbage image");
    assert!(
        matches!(&error, GltfError::Texture { element, .. } if element == "images[0] (checker)"),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .starts_with("sample.glb: images[0] (checker): "),
        "{error}"
    );
}

/// The sample with a morph target on its quad (offsets: the normals, default
/// weight 0.5) and a skin on the node that draws it.
fn deformed_export() -> Export {
    let mut export = export();
    let normals = export.root.meshes[0].primitives[0].attributes
        [&Checked::Valid(json::mesh::Semantic::Normals)];
    export.root.meshes[0].primitives[0].targets = Some(vec![json::mesh::MorphTarget {
        positions: Some(normals),
        normals: None,
        tangents: None,
    }]);
    export.root.meshes[0].weights = Some(vec![0.5]);
    let skin = export.root.push(json::Skin {
        extensions: None,
        extras: Default::default(),
        inverse_bind_matrices: None,
        joints: vec![json::Index::new(1)],
        name: None,
        skeleton: None,
    });
    export.root.nodes[1].skin = Some(skin);
    export
}

#[test]
fn skins_and_morph_targets_load() {
    let model = load_glb(deformed_export()).expect("skins and morph targets load");
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    let quad = &model.meshes[0].primitives[0].mesh;
    let normals: Vec<[f32; 3]> = quad.vertices.iter().map(|v| v.normal).collect();
    assert_eq!(quad.targets.len(), 1);
    assert_eq!(quad.targets[0].positions, normals, "the target's offsets");
    assert_eq!(quad.targets[0].normals, vec![[0.0; 3]; normals.len()]);
    let sign = &model.nodes[1];
    assert_eq!((sign.mesh, sign.skin), (Some(0), Some(0)));
    assert_eq!(sign.weights, [0.5], "the mesh's default weights");
    assert_eq!(model.skins[0].joints, [1]);
}

#[test]
fn required_extensions_warn_unless_they_change_the_geometry() {
    let mut export = export();
    export.root.extensions_required = vec!["KHR_materials_unlit".into()];
    export.root.extensions_used = export.root.extensions_required.clone();
    let model = load_glb(export).expect("an unknown material extension is not fatal");
    assert!(
        warned_about(&model, "extensionsRequired[0]"),
        "{:?}",
        model.warnings
    );

    // Extensions the importer reads are no warning wherever they are listed
    // (Bevy's Cubes.glb requires KHR_lights_punctual); an unknown one beside them still is.
    let mut export = self::export();
    export.root.extensions_required = vec![
        "KHR_lights_punctual".into(),
        "KHR_texture_transform".into(),
        "KHR_materials_emissive_strength".into(),
        "KHR_materials_unlit".into(),
    ];
    export.root.extensions_used = export.root.extensions_required.clone();
    let model = load_glb(export).expect("loads");
    let warned: Vec<&str> = model.warnings.iter().map(|w| w.element.as_str()).collect();
    assert_eq!(warned, ["extensionsRequired[3]"], "{:?}", model.warnings);

    let mut export = self::export();
    export.root.extensions_required = vec!["KHR_draco_mesh_compression".into()];
    let error = load_glb(export).expect_err("compressed geometry cannot be read");
    assert!(
        matches!(error, GltfError::UnsupportedExtension { .. }),
        "{error:?}"
    );
}

#[test]
fn cycles_and_shared_children_are_errors() {
    let mut cyclic = export();
    cyclic.root.nodes[1].children = Some(vec![json::Index::new(0)]);
    // A scene rooted inside the cycle still reaches node 0 twice.
    let error = load_glb(cyclic).expect_err("0 -> 1 -> 0");
    assert!(
        matches!(&error, GltfError::Cycle { element, .. } if element == "nodes[0]"),
        "{error:?}"
    );

    let mut shared = export();
    shared.root.scenes[0].nodes.push(json::Index::new(1));
    let error = load_glb(shared).expect_err("node 1 is a root and a child");
    assert!(
        matches!(&error, GltfError::Cycle { element, .. } if element == "nodes[1]"),
        "{error:?}"
    );
}

#[test]
fn files_without_scenes_use_every_root_node() {
    let mut export = export();
    export.root.scenes.clear();
    export.root.scene = None;
    let model = load_glb(export).expect("scenes are optional");
    assert_same(&model, &sample());
}

/// Appends `bytes` as a new buffer view and accessor of buffer 0.
fn push_accessor(
    export: &mut Export,
    bytes: &[u8],
    count: usize,
    type_: json::accessor::Type,
    component: json::accessor::ComponentType,
    normalized: bool,
) -> json::Index<json::Accessor> {
    let view = export.push_view(bytes, None);
    export.root.push(json::Accessor {
        buffer_view: Some(view),
        byte_offset: None,
        count: USize64::from(count),
        component_type: Checked::Valid(json::accessor::GenericComponentType(component)),
        extensions: None,
        extras: Default::default(),
        type_: Checked::Valid(type_),
        min: None,
        max: None,
        name: None,
        normalized,
        sparse: None,
    })
}

#[test]
fn strips_u8_indices_normalized_uvs_and_sparse_positions_are_read() {
    use json::accessor::{ComponentType, Type};
    let mut export = export();
    // The quad as a strip 1, 2, 0, 3: triangles (1, 2, 0) and, odd, (2, 3, 0).
    let strip = push_accessor(
        &mut export,
        &[1, 2, 0, 3],
        4,
        Type::Scalar,
        ComponentType::U8,
        false,
    );
    let uvs: Vec<u8> = [[0_u16, 65535], [65535, 65535], [65535, 0], [0, 0]]
        .iter()
        .flatten()
        .flat_map(|c| c.to_le_bytes())
        .collect();
    let uvs = push_accessor(&mut export, &uvs, 4, Type::Vec2, ComponentType::U16, true);
    // Sparse: vertex 2 moves to (2, 2, 0).
    let sparse_indices = export.push_view(&2_u32.to_le_bytes(), None);
    let sparse_values = export.push_view(&bytemuck_bytes(&[2.0_f32, 2.0, 0.0]), None);
    let primitive = &mut export.root.meshes[0].primitives[0];
    let positions = primitive.attributes[&Checked::Valid(json::mesh::Semantic::Positions)];
    primitive.indices = Some(strip);
    primitive.mode = Checked::Valid(json::mesh::Mode::TriangleStrip);
    primitive
        .attributes
        .insert(Checked::Valid(json::mesh::Semantic::TexCoords(0)), uvs);
    export.root.accessors[positions.value()].sparse = Some(json::accessor::sparse::Sparse {
        count: USize64(1),
        indices: json::accessor::sparse::Indices {
            buffer_view: sparse_indices,
            byte_offset: USize64(0),
            component_type: Checked::Valid(json::accessor::IndexComponentType(ComponentType::U32)),
            extensions: None,
            extras: Default::default(),
        },
        values: json::accessor::sparse::Values {
            buffer_view: sparse_values,
            byte_offset: USize64(0),
            extensions: None,
            extras: Default::default(),
        },
        extensions: None,
        extras: Default::default(),
    });

    let model = load_glb(export).expect("loads");
    let mesh = &model.meshes[0].primitives[0].mesh;
    assert_eq!(mesh.indices, [1, 2, 0, 2, 3, 0]);
    assert_eq!(
        mesh.vertices[2].position,
        [2.0, 2.0, 0.0],
        "sparse value applied"
    );
    for triangle in mesh.indices.chunks_exact(3) {
        let [a, b, c] = [0, 1, 2].map(|k| Vec3::from(mesh.vertices[triangle[k] as usize].position));
        assert!(
            (b - a).cross(c - a).z > 0.0,
            "{triangle:?} faces +Z like the quad"
        );
    }
    assert_eq!(mesh.vertices[1].position, [1.0, 0.0, 0.0], "others kept");
    let uvs: Vec<[f32; 2]> = mesh.vertices.iter().map(|v| v.uv).collect();
    assert_eq!(uvs, [[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]]);
}

fn bytemuck_bytes(floats: &[f32]) -> Vec<u8> {
    floats.iter().flat_map(|f| f.to_le_bytes()).collect()
}

#[test]
fn points_and_lines_are_skipped_with_a_warning() {
    let mut export = export();
    export.root.meshes[1].primitives[0].mode = Checked::Valid(json::mesh::Mode::Lines);
    let model = load_glb(export).expect("lines are not fatal");
    assert!(model.meshes[1].primitives.is_empty());
    assert!(
        warned_about(&model, "meshes[1].primitives[0]"),
        "{:?}",
        model.warnings
    );
}

/// A valid file, mangled: some digits replaced by other digits (the JSON
/// stays valid, so the damage reaches counts, offsets and indices), a few
/// bytes overwritten, and sometimes cut short.
fn mangled(valid: Vec<u8>) -> impl Strategy<Value = Vec<u8>> {
    let len = valid.len();
    let digits: Vec<usize> = (0..len).filter(|&i| valid[i].is_ascii_digit()).collect();
    let cut = prop_oneof![3 => Just(len), 1 => 0..=len];
    let digit_edits = prop::collection::vec((prop::sample::select(digits), 0..10_u8), 0..4);
    let byte_edits = prop::collection::vec((0..len, any::<u8>()), 0..3);
    (cut, digit_edits, byte_edits).prop_map(move |(cut, digit_edits, byte_edits)| {
        let mut bytes = valid.clone();
        for (at, digit) in digit_edits {
            bytes[at] = b'0' + digit;
        }
        for (at, byte) in byte_edits {
            bytes[at] = byte;
        }
        bytes.truncate(cut);
        bytes
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn mangled_glb_never_panics(bytes in mangled(glb(export()))) {
        let _ = import::from_slice(&bytes, Path::new("mangled.glb"), &ReadLimits::DEFAULT);
    }

    #[test]
    fn mangled_gltf_never_panics(bytes in mangled(export().to_gltf(Resources::Embedded).expect("serialise").json)) {
        let _ = import::from_slice(&bytes, Path::new("mangled.gltf"), &ReadLimits::DEFAULT);
    }

    /// Mangles reach the morph target's accessors, the weights and the skin.
    #[test]
    fn mangled_morph_targets_never_panic(bytes in mangled(deformed_export().to_gltf(Resources::Embedded).expect("serialise").json)) {
        let _ = import::from_slice(&bytes, Path::new("mangled.gltf"), &ReadLimits::DEFAULT);
    }

    /// SimpleSkin (tests/models, embedded buffers): mangles reach its skin,
    /// animation samplers, key times and inverse bind matrices.
    #[test]
    fn mangled_skin_and_animation_never_panic(bytes in mangled(std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/SimpleSkin.gltf")
    ).expect("SimpleSkin is there"))) {
        let _ = import::from_slice(&bytes, Path::new("mangled.gltf"), &ReadLimits::DEFAULT);
    }
}

#[test]
fn the_lighthouse_loads_whole() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/models/lighthouse.glb");
    let model = import::load(&path, &ReadLimits::DEFAULT).unwrap_or_else(|e| panic!("{e}"));
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    assert!(model.nodes.len() >= 4, "{} nodes", model.nodes.len());
    assert!(model.materials.len() >= 2);
    let texture = model
        .materials
        .iter()
        .find_map(|m| m.base_color_texture)
        .map(|t| &model.textures[t])
        .expect("a textured material");
    let levels = 1 + texture.width.max(texture.height).ilog2() as usize;
    assert_eq!(texture.mips.len(), levels, "full chain to 1 x 1");
    assert_eq!(texture.mips.last().map(Vec::len), Some(4));

    let (min, max) = world_bounds(&model);
    assert!(min.y.abs() < 0.05, "base at y = 0, found {}", min.y);
    let height = max.y - min.y;
    assert!((6.0..=8.0).contains(&height), "height {height}");
}

/// Bounds of every vertex in model space, through the node hierarchy.
fn world_bounds(model: &ModelData) -> (Vec3, Vec3) {
    let mut world = Vec::<Mat4>::with_capacity(model.nodes.len());
    let (mut min, mut max) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
    for node in &model.nodes {
        let t = &node.transform;
        let local = Mat4::from_scale_rotation_translation(t.scale, t.rotation, t.translation);
        let matrix = node.parent.map_or(local, |p| world[p] * local);
        world.push(matrix);
        let primitives = node
            .mesh
            .map_or(&[][..], |m| &model.meshes[m].primitives[..]);
        for vertex in primitives.iter().flat_map(|p| &p.mesh.vertices) {
            let p = matrix.transform_point3(vertex.position.into());
            (min, max) = (min.min(p), max.max(p));
        }
    }
    (min, max)
}

/// The sample with COLOR_0 (normalized bytes), TEXCOORD_1 and TANGENT on the
/// quad, a clamping, mirroring, unfiltered sampler on its texture, a base
/// colour read through TEXCOORD_1 and `KHR_texture_transform`, and a normal
/// map whose transform overrides its coordinate set; `edit` changes the JSON last.
fn material_export(tangents: bool, edit: impl FnOnce(&mut serde_json::Value)) -> Export {
    use json::accessor::{ComponentType, Type};
    use serde_json::json;
    let mut export = export();
    let colors = [
        [255_u8, 0, 0, 255],
        [0, 255, 0, 128],
        [0, 0, 255, 255],
        [255; 4],
    ]
    .concat();
    let colors = push_accessor(&mut export, &colors, 4, Type::Vec4, ComponentType::U8, true);
    let uv1 = bytemuck_bytes(&[0.0, 0.0, 2.0, 0.0, 2.0, 2.0, 0.0, 2.0]);
    let uv1 = push_accessor(&mut export, &uv1, 4, Type::Vec2, ComponentType::F32, false);
    let tangent = bytemuck_bytes(&[0.0, 1.0, 0.0, -1.0].repeat(4));
    let tangent = push_accessor(
        &mut export,
        &tangent,
        4,
        Type::Vec4,
        ComponentType::F32,
        false,
    );
    let attributes = &mut export.root.meshes[0].primitives[0].attributes;
    attributes.insert(Checked::Valid(json::mesh::Semantic::Colors(0)), colors);
    attributes.insert(Checked::Valid(json::mesh::Semantic::TexCoords(1)), uv1);
    if tangents {
        attributes.insert(Checked::Valid(json::mesh::Semantic::Tangents), tangent);
    }
    let mut root = serde_json::to_value(&export.root).expect("serialises");
    root["samplers"] =
        json!([{"wrapS": 33071, "wrapT": 33648, "magFilter": 9728, "minFilter": 9729}]);
    root["textures"][0]["sampler"] = json!(0);
    root["extensionsUsed"] = json!(["KHR_texture_transform"]);
    let material = &mut root["materials"][0];
    material["pbrMetallicRoughness"]["baseColorTexture"] = json!({
        "index": 0, "texCoord": 1,
        "extensions": {"KHR_texture_transform": {"offset": [0.5, 0.25], "rotation": 0.5, "scale": [2, 3]}}
    });
    material["normalTexture"] = json!({
        "index": 0, "scale": 0.5,
        "extensions": {"KHR_texture_transform": {"scale": [4, 4], "texCoord": 1}}
    });
    edit(&mut root);
    export.root = serde_json::from_value(root).expect("still a glTF document");
    export
}

#[test]
fn vertex_colours_second_coordinates_tangents_samplers_and_transforms_are_imported() {
    use keel_engine::assets::{Slot, TextureFilter, UvTransform, Wrap};
    let model = load_glb(material_export(true, |_| {})).expect("loads");
    assert!(
        model.warnings.is_empty(),
        "nothing skipped: {:#?}",
        model.warnings
    );
    let mesh = &model.meshes[0].primitives[0].mesh;
    let colors: Vec<[u16; 4]> = mesh.vertices.iter().map(|v| v.color).collect();
    let (full, half) = (u16::MAX, 128 * 257);
    assert_eq!(
        colors,
        [
            [full, 0, 0, full],
            [0, full, 0, half],
            [0, 0, full, full],
            [full; 4]
        ]
    );
    assert_eq!(mesh.vertices[2].uv1, [2.0, 2.0]);
    assert_eq!(mesh.vertices[2].uv, [1.0, 0.0], "the first set kept");
    assert!(
        mesh.vertices
            .iter()
            .all(|v| v.tangent == [0.0, 1.0, 0.0, -1.0]),
        "the file's tangents kept"
    );

    let material = &model.materials[0];
    let base = material.slots[Slot::BaseColor as usize];
    assert_eq!(base.tex_coord, 1);
    assert_eq!(
        base.transform,
        UvTransform {
            offset: glam::Vec2::new(0.5, 0.25),
            rotation: 0.5,
            scale: glam::Vec2::new(2.0, 3.0),
        }
    );
    assert_eq!(
        (base.sampling.wrap_u, base.sampling.wrap_v),
        (Wrap::ClampToEdge, Wrap::MirroredRepeat)
    );
    assert_eq!(
        (base.sampling.mag, base.sampling.min),
        (TextureFilter::Nearest, TextureFilter::Linear)
    );
    assert_eq!(
        base.sampling.mipmap, None,
        "LINEAR without a mipmap mode reads level 0 only"
    );
    let normal = material.slots[Slot::Normal as usize];
    assert_eq!(
        normal.tex_coord, 1,
        "the transform's texCoord overrides the reference's"
    );
    assert_eq!(normal.transform.scale, glam::Vec2::splat(4.0));
    assert_eq!(material.normal_texture.map(|(_, scale)| scale), Some(0.5));
    assert!(material.slots[Slot::Occlusion as usize].is_default());
}

#[test]
fn a_normal_map_without_tangents_gets_mikktspace_ones() {
    let model = load_glb(material_export(false, |_| {})).expect("loads");
    let mesh = &model.meshes[0].primitives[0].mesh;
    for v in &mesh.vertices {
        // The quad's u runs along +X and its v down the image (-Y): MikkTSpace's
        // frame is +X with the bitangent up the image.
        assert_eq!(
            v.tangent,
            [1.0, 0.0, 0.0, 1.0],
            "vertex at {:?}",
            v.position
        );
    }
    // Without a normal map none are made.
    let plain = load_glb(export()).expect("loads");
    let quad = &plain.meshes[0].primitives[0].mesh;
    assert!(quad.vertices.iter().all(|v| v.tangent == [0.0; 4]));
}

#[test]
fn bad_texture_transforms_and_unknown_coordinate_sets_are_warned_about() {
    use keel_engine::assets::Slot;
    let model = load_glb(material_export(true, |root| {
        let normal = &mut root["materials"][0]["normalTexture"];
        normal["extensions"]["KHR_texture_transform"]["scale"] = serde_json::json!("big");
        root["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["texCoord"] =
            serde_json::json!(3);
        root["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["extensions"] =
            serde_json::json!({});
    }))
    .expect("loads");
    assert!(
        warned_about(
            &model,
            "materials[0].normalTexture.extensions.KHR_texture_transform"
        ),
        "{:#?}",
        model.warnings
    );
    assert!(
        warned_about(
            &model,
            "materials[0].pbrMetallicRoughness.baseColorTexture.texCoord"
        ),
        "{:#?}",
        model.warnings
    );
    let material = &model.materials[0];
    assert!(material.slots[Slot::Normal as usize].transform == Default::default());
    assert_eq!(material.slots[Slot::BaseColor as usize].tex_coord, 0);
}

/// The Flight Helmet (Khronos sample, CC0) stores the tangents its normal maps
/// were baked with. MikkTSpace, as the importer runs it for files without
/// them, must give the same frames: the same tangent direction and, above
/// all, the same handedness, or every generated normal map would be lit
/// from the wrong side.
#[test]
fn generated_tangents_agree_with_the_flight_helmets_own() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/models/FlightHelmet/FlightHelmet.gltf");
    let model = import::load(&path, &ReadLimits::DEFAULT).expect("the Flight Helmet imports");
    let (mut vertices, mut same_side, mut aligned) = (0_usize, 0_usize, 0_usize);
    for primitive in model.meshes.iter().flat_map(|m| &m.primitives) {
        let mut generated = primitive.mesh.clone();
        generated.generate_tangents();
        for (file, ours) in primitive.mesh.vertices.iter().zip(&generated.vertices) {
            vertices += 1;
            same_side += usize::from(file.tangent[3] == ours.tangent[3]);
            let dot = Vec3::from_slice(&file.tangent).dot(Vec3::from_slice(&ours.tangent));
            aligned += usize::from(dot > 0.9);
        }
    }
    assert!(vertices > 10_000, "{vertices} vertices");
    let share = |n: usize| n as f64 / vertices as f64;
    assert!(
        share(same_side) > 0.999,
        "same handedness at {same_side} of {vertices}"
    );
    assert!(
        share(aligned) > 0.99,
        "tangents within 25 degrees at {aligned} of {vertices}"
    );
}
