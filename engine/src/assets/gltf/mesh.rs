//! glTF meshes to [`ModelMesh`]es: attributes read through the gltf crate's
//! reader once their accessors have been checked, strips and fans turned into
//! triangle lists, and flat normals where the file has none.

use glam::Vec3;
use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::{Mode, Semantic};

use super::source::Layout;
use super::{GltfError, Importer};
use crate::assets::{MeshData, MeshVertex, ModelMesh, ModelPrimitive, MorphTarget, VertexSkin};

const VEC3_F32: Layout = Layout {
    dimensions: Dimensions::Vec3,
    types: &[DataType::F32],
};
/// glTF allows normalized 8- and 16-bit texture coordinates besides floats.
const TEXCOORD: Layout = Layout {
    dimensions: Dimensions::Vec2,
    types: &[DataType::F32, DataType::U8, DataType::U16],
};
/// Joint indices: unsigned bytes or shorts.
const JOINTS: Layout = Layout {
    dimensions: Dimensions::Vec4,
    types: &[DataType::U8, DataType::U16],
};
/// Weights: floats, or normalized unsigned bytes or shorts.
const WEIGHTS: Layout = Layout {
    dimensions: Dimensions::Vec4,
    types: &[DataType::F32, DataType::U8, DataType::U16],
};
const TANGENT: Layout = Layout {
    dimensions: Dimensions::Vec4,
    types: &[DataType::F32],
};
/// Vertex colours: RGB or RGBA, floats or normalized unsigned bytes or shorts.
const COLOR_TYPES: &[DataType] = &[DataType::F32, DataType::U8, DataType::U16];
const INDICES: Layout = Layout {
    dimensions: Dimensions::Scalar,
    types: &[DataType::U8, DataType::U16, DataType::U32],
};

impl Importer<'_> {
    /// Every primitive of `mesh` that draws triangles.
    pub(super) fn mesh(&mut self, mesh: &gltf::Mesh<'_>) -> Result<ModelMesh, GltfError> {
        let mut primitives = Vec::with_capacity(mesh.primitives().len());
        for primitive in mesh.primitives() {
            let element = format!("meshes[{}].primitives[{}]", mesh.index(), primitive.index());
            if let Some(primitive) = self.primitive(&primitive, &element)? {
                primitives.push(primitive);
            }
        }
        Ok(ModelMesh {
            name: mesh.name().unwrap_or_default().to_owned(),
            primitives,
        })
    }

    fn primitive(
        &mut self,
        primitive: &gltf::Primitive<'_>,
        element: &str,
    ) -> Result<Option<ModelPrimitive>, GltfError> {
        let mode = primitive.mode();
        if !matches!(
            mode,
            Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
        ) {
            self.warn(
                element.to_owned(),
                format!("mode {mode:?} skipped; only triangles are imported"),
            );
            return Ok(None);
        }
        let sources = &self.sources;
        let reader = primitive.reader(|buffer| sources.buffer(buffer.index()));

        let positions_accessor = self
            .attribute(primitive, &Semantic::Positions, &VEC3_F32, None, element)?
            .ok_or_else(|| GltfError::MissingPositions {
                path: self.path.to_path_buf(),
                element: element.to_owned(),
            })?;
        let vertex_count = positions_accessor.count();
        let positions = collect_or_zeros(reader.read_positions(), vertex_count);
        let normals = self
            .attribute(
                primitive,
                &Semantic::Normals,
                &VEC3_F32,
                Some(vertex_count),
                element,
            )?
            .map(|_| collect_or_zeros(reader.read_normals(), vertex_count));
        let mut texcoords = [0, 1].map(|_| None);
        for (set, texcoord) in texcoords.iter_mut().enumerate() {
            let semantic = Semantic::TexCoords(set as u32);
            let count = Some(vertex_count);
            if self
                .attribute(primitive, &semantic, &TEXCOORD, count, element)?
                .is_some()
            {
                *texcoord = Some(collect_or_zeros(
                    reader.read_tex_coords(set as u32).map(|uvs| uvs.into_f32()),
                    vertex_count,
                ));
            }
        }
        let [uvs, uvs1] = texcoords;
        let uvs = uvs.unwrap_or_else(|| vec![[0.0; 2]; vertex_count]);
        let tangents = self
            .attribute(
                primitive,
                &Semantic::Tangents,
                &TANGENT,
                Some(vertex_count),
                element,
            )?
            .map(|_| collect_or_zeros(reader.read_tangents(), vertex_count));
        let colors = self.colors(primitive, vertex_count, element)?;
        let attributes = Attributes {
            positions: &positions,
            uvs: &uvs,
            uvs1: uvs1.as_deref(),
            colors: colors.as_deref(),
        };
        let indices = match primitive.indices() {
            Some(accessor) => {
                self.sources.check_accessor(
                    &accessor,
                    &format!("indices of {element}"),
                    &INDICES,
                )?;
                collect_or_zeros(
                    reader.read_indices().map(|indices| indices.into_u32()),
                    accessor.count(),
                )
            }
            None => self.sequence(vertex_count, element)?,
        };
        if let Some(&index) = indices.iter().find(|&&i| i as usize >= vertex_count) {
            return Err(GltfError::IndexOutOfRange {
                path: self.path.to_path_buf(),
                element: element.to_owned(),
                index,
                vertex_count,
            });
        }
        if mode == Mode::Triangles && indices.len() % 3 != 0 {
            self.warn(
                element.to_owned(),
                format!(
                    "{} indices do not make whole triangles; the last {} ignored",
                    indices.len(),
                    indices.len() % 3
                ),
            );
        }
        let indices = triangle_list(mode, &indices);
        let skin = self.skin(primitive, vertex_count, element)?;
        let targets = self.targets(primitive, vertex_count, element)?;
        let mut mesh = match &normals {
            Some(normals) => MeshData {
                skin,
                targets,
                ..indexed(&attributes, normals, tangents.as_deref(), indices)
            },
            None => {
                // Un-indexed: every corner takes its vertex's skin and offsets.
                let at = |i: &u32| *i as usize;
                let pick = |v: &[[f32; 3]]| indices.iter().map(|i| v[at(i)]).collect();
                MeshData {
                    skin: if skin.is_empty() {
                        skin
                    } else {
                        indices.iter().map(|i| skin[at(i)]).collect()
                    },
                    targets: targets
                        .iter()
                        .map(|t| MorphTarget {
                            positions: pick(&t.positions),
                            // Flat normals are not morphed.
                            normals: vec![[0.0; 3]; indices.len()],
                        })
                        .collect(),
                    ..flat_shaded(&attributes, &indices)
                }
            }
        };
        // glTF: without TANGENT (or without NORMAL, which voids it) a normal
        // map is read in MikkTSpace's frame.
        let normal_mapped = primitive.material().normal_texture().is_some();
        if normal_mapped && (tangents.is_none() || normals.is_none()) {
            mesh.generate_tangents();
        }
        Ok(Some(ModelPrimitive {
            mesh,
            material: primitive.material().index(),
        }))
    }

    /// JOINTS_0 and WEIGHTS_0 (both or neither), weights normalised to sum
    /// to 1 (a vertex with no weight follows its first joint).
    fn skin(
        &self,
        primitive: &gltf::Primitive<'_>,
        vertex_count: usize,
        element: &str,
    ) -> Result<Vec<VertexSkin>, GltfError> {
        let count = Some(vertex_count);
        let joints = self.attribute(primitive, &Semantic::Joints(0), &JOINTS, count, element)?;
        let weights = self.attribute(primitive, &Semantic::Weights(0), &WEIGHTS, count, element)?;
        match (joints, weights) {
            (None, None) => return Ok(Vec::new()),
            (Some(_), Some(_)) => {}
            (joints, _) => {
                let (has, lacks) = if joints.is_some() {
                    ("JOINTS_0", "WEIGHTS_0")
                } else {
                    ("WEIGHTS_0", "JOINTS_0")
                };
                return Err(GltfError::BadAccessor {
                    path: self.path.to_path_buf(),
                    element: format!("{element}.attributes.{lacks}"),
                    expected: format!("{lacks} beside {has}"),
                    found: "none".into(),
                });
            }
        }
        let sources = &self.sources;
        let reader = primitive.reader(|buffer| sources.buffer(buffer.index()));
        let joints: Vec<[u16; 4]> =
            collect_or_zeros(reader.read_joints(0).map(|j| j.into_u16()), vertex_count);
        let weights: Vec<[f32; 4]> =
            collect_or_zeros(reader.read_weights(0).map(|w| w.into_f32()), vertex_count);
        Ok(joints
            .into_iter()
            .zip(weights)
            .map(|(joints, weights)| {
                let weights = weights.map(|w| if w.is_finite() { w.max(0.0) } else { 0.0 });
                let sum: f32 = weights.iter().sum();
                let weights = if sum > 0.0 {
                    weights.map(|w| w / sum)
                } else {
                    [1.0, 0.0, 0.0, 0.0]
                };
                VertexSkin { joints, weights }
            })
            .collect())
    }

    /// The primitive's morph targets: POSITION and NORMAL offsets (a target
    /// without either offsets nothing there).
    fn targets(
        &self,
        primitive: &gltf::Primitive<'_>,
        vertex_count: usize,
        element: &str,
    ) -> Result<Vec<MorphTarget>, GltfError> {
        // Every accessor is checked before the reader is asked for any: it
        // builds each target's iterators at once, and trusts their layouts.
        for (t, target) in primitive.morph_targets().enumerate() {
            for (name, accessor) in [
                ("POSITION", target.positions()),
                ("NORMAL", target.normals()),
                // Not blended (tangents follow the base mesh), but read.
                ("TANGENT", target.tangents()),
            ] {
                let Some(accessor) = accessor else { continue };
                let usage = format!("{name} of {element}.targets[{t}]");
                self.sources.check_accessor(&accessor, &usage, &VEC3_F32)?;
                if accessor.count() != vertex_count {
                    return Err(GltfError::BadAccessor {
                        path: self.path.to_path_buf(),
                        element: format!("accessors[{}] ({usage})", accessor.index()),
                        expected: format!("{vertex_count} elements, one per POSITION"),
                        found: format!("{}", accessor.count()),
                    });
                }
            }
        }
        let sources = &self.sources;
        let reader = primitive.reader(|buffer| sources.buffer(buffer.index()));
        let mut targets = Vec::new();
        for (positions, normals, _) in reader.read_morph_targets() {
            targets.push(MorphTarget {
                positions: collect_or_zeros(positions, vertex_count),
                normals: collect_or_zeros(normals, vertex_count),
            });
        }
        Ok(targets)
    }

    /// COLOR_0 as linear RGBA unorm16s (alpha 1 where the file gives RGB).
    fn colors(
        &self,
        primitive: &gltf::Primitive<'_>,
        vertex_count: usize,
        element: &str,
    ) -> Result<Option<Vec<[u16; 4]>>, GltfError> {
        let Some(accessor) = primitive.get(&Semantic::Colors(0)) else {
            return Ok(None);
        };
        let dimensions = match accessor.dimensions() {
            Dimensions::Vec3 => Dimensions::Vec3,
            _ => Dimensions::Vec4,
        };
        let layout = Layout {
            dimensions,
            types: COLOR_TYPES,
        };
        self.attribute(
            primitive,
            &Semantic::Colors(0),
            &layout,
            Some(vertex_count),
            element,
        )?;
        let sources = &self.sources;
        let reader = primitive.reader(|buffer| sources.buffer(buffer.index()));
        // Through floats: the gltf crate widens bytes to shorts by shifting,
        // which would make white 65280.
        let unorm16 = |c: f32| (c.clamp(0.0, 1.0) * f32::from(u16::MAX)).round() as u16;
        Ok(Some(collect_or_zeros(
            reader
                .read_colors(0)
                .map(|c| c.into_rgba_f32().map(|rgba| rgba.map(unorm16))),
            vertex_count,
        )))
    }

    /// The checked accessor of `semantic`, if the primitive has one; with
    /// `vertex_count`, it must have that many elements.
    fn attribute<'a>(
        &self,
        primitive: &gltf::Primitive<'a>,
        semantic: &Semantic,
        layout: &Layout,
        vertex_count: Option<usize>,
        element: &str,
    ) -> Result<Option<gltf::Accessor<'a>>, GltfError> {
        let Some(accessor) = primitive.get(semantic) else {
            return Ok(None);
        };
        let usage = format!("{} of {element}", semantic.to_string());
        self.sources.check_accessor(&accessor, &usage, layout)?;
        match vertex_count {
            Some(expected) if accessor.count() != expected => Err(GltfError::BadAccessor {
                path: self.path.to_path_buf(),
                element: format!("accessors[{}] ({usage})", accessor.index()),
                expected: format!("{expected} elements, one per POSITION"),
                found: format!("{}", accessor.count()),
            }),
            _ => Ok(Some(accessor)),
        }
    }

    /// `0..vertex_count`, the implicit indices of a primitive without any.
    fn sequence(&self, vertex_count: usize, element: &str) -> Result<Vec<u32>, GltfError> {
        let end = u32::try_from(vertex_count).map_err(|_| GltfError::BadAccessor {
            path: self.path.to_path_buf(),
            element: format!("POSITION of {element}"),
            expected: format!("at most {} vertices", u32::MAX),
            found: format!("{vertex_count}"),
        })?;
        Ok((0..end).collect())
    }
}

/// The reader's items, or `count` zeros for an accessor without a buffer view
/// (the only case the reader gives nothing for once the accessor is checked).
fn collect_or_zeros<T: Default + Clone>(
    items: Option<impl Iterator<Item = T>>,
    count: usize,
) -> Vec<T> {
    items.map_or_else(|| vec![T::default(); count], Iterator::collect)
}

/// `indices` drawn with `mode` as a triangle list with the same winding
/// (glTF 2.0 section 3.7.2.1). Leftover indices that make no whole triangle are dropped.
pub(super) fn triangle_list(mode: Mode, indices: &[u32]) -> Vec<u32> {
    let triangles = indices.len().saturating_sub(2);
    match mode {
        Mode::TriangleStrip => (0..triangles)
            .flat_map(|i| {
                let odd = i % 2;
                [indices[i], indices[i + 1 + odd], indices[i + 2 - odd]]
            })
            .collect(),
        Mode::TriangleFan => (0..triangles)
            .flat_map(|i| [indices[i + 1], indices[i + 2], indices[0]])
            .collect(),
        _ => indices[..indices.len() - indices.len() % 3].to_vec(),
    }
}

/// A primitive's per-vertex attributes besides normals and tangents.
pub(super) struct Attributes<'a> {
    pub positions: &'a [[f32; 3]],
    pub uvs: &'a [[f32; 2]],
    /// TEXCOORD_1 (the first set stands in where it is missing).
    pub uvs1: Option<&'a [[f32; 2]]>,
    /// COLOR_0 (white where it is missing).
    pub colors: Option<&'a [[u16; 4]]>,
}

impl Attributes<'_> {
    /// Vertex `i` with `normal`.
    fn vertex(&self, i: usize, normal: [f32; 3]) -> MeshVertex {
        let mut vertex = MeshVertex::new(self.positions[i], normal, self.uvs[i]);
        if let Some(uvs1) = self.uvs1 {
            vertex.uv1 = uvs1[i];
        }
        if let Some(colors) = self.colors {
            vertex.color = colors[i];
        }
        vertex
    }
}

fn indexed(
    attributes: &Attributes<'_>,
    normals: &[[f32; 3]],
    tangents: Option<&[[f32; 4]]>,
    indices: Vec<u32>,
) -> MeshData {
    let vertices = (0..attributes.positions.len())
        .map(|i| {
            let mut vertex = attributes.vertex(i, normals[i]);
            if let Some(tangents) = tangents {
                vertex.tangent = tangents[i];
            }
            vertex
        })
        .collect();
    MeshData {
        vertices,
        indices,
        ..MeshData::default()
    }
}

/// Un-indexes the triangles and gives each corner its triangle's normal: the
/// faceted look glTF prescribes for meshes without normals. Indices must be in range.
pub(super) fn flat_shaded(attributes: &Attributes<'_>, indices: &[u32]) -> MeshData {
    let positions = attributes.positions;
    let mut vertices = Vec::with_capacity(indices.len());
    for triangle in indices.chunks_exact(3) {
        let corners = [0, 1, 2].map(|k| triangle[k] as usize);
        let [a, b, c] = corners.map(|i| Vec3::from(positions[i]));
        // A degenerate triangle has no direction of its own; any unit normal
        // keeps the vertex valid and it covers no pixels anyway.
        let normal = (b - a).cross(c - a).try_normalize().unwrap_or(Vec3::Y);
        vertices.extend(corners.map(|i| attributes.vertex(i, normal.to_array())));
    }
    // The vertex count equals the checked index count, which fits in u32.
    let indices = (0..vertices.len()).map(|i| i as u32).collect();
    MeshData {
        vertices,
        indices,
        ..MeshData::default()
    }
}
