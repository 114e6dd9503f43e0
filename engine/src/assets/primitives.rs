//! Mesh generation for the built-in [`Primitive`]s: positions, normals and
//! counter-clockwise triangle lists, ready to be packed into the renderer's
//! shared vertex and index buffers.
//!
//! Pattern: none of the book's; this is plain data generation. Its output is laid
//! out for data locality (one interleaved vertex array per mesh, so the mesh pass
//! can concatenate every primitive into a single buffer).

use std::f32::consts::{PI, TAU};

use glam::Vec3;

use super::Primitive;

/// Segments around the axis of the round primitives: enough for a smooth silhouette
/// at editor zoom levels without inflating the shared vertex buffer.
const ROUND_SEGMENTS: u32 = 32;
/// Latitude bands of the sphere.
const SPHERE_RINGS: u32 = 16;

/// One interleaved vertex, as the mesh pass reads it (64 bytes: one stream
/// every pipeline binds, so a mesh is one buffer whatever draws it).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MeshVertex {
    /// Object-space position.
    pub position: [f32; 3],
    /// Unit object-space normal.
    pub normal: [f32; 3],
    /// First texture coordinate set (glTF convention: origin at the image's top left).
    pub uv: [f32; 2],
    /// Unit object-space tangent (along +u) and, in `w`, the handedness of
    /// the bitangent (glTF's TANGENT: bitangent = cross(normal, tangent) * w).
    pub tangent: [f32; 4],
    /// Second texture coordinate set (glTF's TEXCOORD_1; the first where the file has none).
    pub uv1: [f32; 2],
    /// Linear RGBA vertex colour as unorm16s (glTF's COLOR_0; white where the file has none).
    pub color: [u16; 4],
}

impl Default for MeshVertex {
    fn default() -> Self {
        Self::new([0.0; 3], [0.0, 1.0, 0.0], [0.0; 2])
    }
}

impl MeshVertex {
    /// A white vertex with its first texture coordinates for the second set
    /// and no tangent yet ([`MeshData::generate_tangents`] makes them).
    #[must_use]
    pub fn new(position: [f32; 3], normal: [f32; 3], uv: [f32; 2]) -> Self {
        Self {
            position,
            normal,
            uv,
            tangent: [0.0; 4],
            uv1: uv,
            color: [u16::MAX; 4],
        }
    }
}

/// How one vertex follows a skeleton: up to four joints (indices into the
/// skin's joint list) and their weights, which sum to 1 (24 bytes, the
/// skinning pipeline's second vertex stream).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct VertexSkin {
    /// Joint indices.
    pub joints: [u16; 4],
    /// Their weights.
    pub weights: [f32; 4],
}

/// One morph target: an offset per vertex, blended into the base shape by the
/// node's weight for it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphTarget {
    /// Position offsets, one per vertex.
    pub positions: Vec<[f32; 3]>,
    /// Normal offsets, one per vertex (zeros when the file has none).
    pub normals: Vec<[f32; 3]>,
}

/// A triangle list: every three indices form one counter-clockwise (front) face.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshData {
    /// The vertices, referenced by `indices`.
    pub vertices: Vec<MeshVertex>,
    /// Triangle list indices into `vertices`.
    pub indices: Vec<u32>,
    /// One per vertex for a skinned mesh; empty otherwise.
    pub skin: Vec<VertexSkin>,
    /// Morph targets (each with one offset per vertex).
    pub targets: Vec<MorphTarget>,
}

impl MeshData {
    /// Radius of the smallest origin-centred sphere that contains every vertex:
    /// the bound the renderer culls with.
    #[must_use]
    pub fn bounding_radius(&self) -> f32 {
        if !self.targets.is_empty() {
            return self.morphed_radius();
        }
        self.vertices
            .iter()
            .map(|v| Vec3::from(v.position).length())
            .fold(0.0, f32::max)
    }

    /// Whether the vertex shader deforms it (skinning or morph targets).
    #[must_use]
    pub fn is_deformed(&self) -> bool {
        !self.skin.is_empty() || !self.targets.is_empty()
    }

    /// The bounding radius of every vertex moved by each target's offset at
    /// full weight, summed: a bound for any weights in 0..=1.
    fn morphed_radius(&self) -> f32 {
        self.vertices
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let reach: f32 = self
                    .targets
                    .iter()
                    .filter_map(|t| t.positions.get(i))
                    .map(|&d| Vec3::from(d).length())
                    .sum();
                Vec3::from(v.position).length() + reach
            })
            .fold(0.0, f32::max)
    }

    fn push(&mut self, position: Vec3, normal: Vec3, uv: [f32; 2]) -> u32 {
        let index = u32::try_from(self.vertices.len())
            .expect("primitive meshes stay far below 2^32 vertices");
        self.vertices.push(MeshVertex::new(
            position.to_array(),
            normal.normalize().to_array(),
            uv,
        ));
        index
    }

    fn triangle(&mut self, a: u32, b: u32, c: u32) {
        self.indices.extend_from_slice(&[a, b, c]);
    }
}

impl Primitive {
    /// Generates this primitive's mesh, matching the extent documented on each variant.
    #[must_use]
    pub fn mesh(self) -> MeshData {
        let mut mesh = match self {
            Primitive::Cube => cube(),
            Primitive::Sphere => sphere(),
            Primitive::Plane => plane(),
            Primitive::Cylinder => cylinder(),
            Primitive::Cone => cone(),
        };
        mesh.generate_tangents();
        mesh
    }
}

/// Point on the unit circle in the XZ plane. Angles grow from +X towards -Z so
/// that consecutive ring points wind counter-clockwise seen from +Y.
fn ring(angle: f32) -> Vec3 {
    Vec3::new(angle.cos(), 0.0, -angle.sin())
}

fn cube() -> MeshData {
    let mut mesh = MeshData::default();
    // Each face: its normal and two in-plane axes u, v with u x v = normal, so the
    // corners taken in (u, v) order -, +- , ++, -+ wind counter-clockwise.
    let faces = [
        (Vec3::X, Vec3::NEG_Z, Vec3::Y),
        (Vec3::NEG_X, Vec3::Z, Vec3::Y),
        (Vec3::Y, Vec3::X, Vec3::NEG_Z),
        (Vec3::NEG_Y, Vec3::X, Vec3::Z),
        (Vec3::Z, Vec3::X, Vec3::Y),
        (Vec3::NEG_Z, Vec3::NEG_X, Vec3::Y),
    ];
    for (normal, u, v) in faces {
        let centre = normal * 0.5;
        let corners = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)];
        let [a, b, c, d] = corners
            .map(|(su, sv)| mesh.push(centre + u * su + v * sv, normal, [su + 0.5, 0.5 - sv]));
        mesh.triangle(a, b, c);
        mesh.triangle(a, c, d);
    }
    mesh
}

fn sphere() -> MeshData {
    let mut mesh = MeshData::default();
    let columns = ROUND_SEGMENTS + 1;
    for ring_index in 0..=SPHERE_RINGS {
        // Polar angle from the north pole (+Y) down to the south pole.
        let theta = PI * ring_index as f32 / SPHERE_RINGS as f32;
        for segment in 0..=ROUND_SEGMENTS {
            let phi = TAU * segment as f32 / ROUND_SEGMENTS as f32;
            let direction = ring(phi) * theta.sin() + Vec3::Y * theta.cos();
            let uv = [
                segment as f32 / ROUND_SEGMENTS as f32,
                ring_index as f32 / SPHERE_RINGS as f32,
            ];
            mesh.push(direction * 0.5, direction, uv);
        }
    }
    for ring_index in 0..SPHERE_RINGS {
        for segment in 0..ROUND_SEGMENTS {
            let top = ring_index * columns + segment;
            let bottom = top + columns;
            // The pole rows collapse to a point: skip the zero-area half there.
            if ring_index != 0 {
                mesh.triangle(top, bottom, top + 1);
            }
            if ring_index != SPHERE_RINGS - 1 {
                mesh.triangle(top + 1, bottom, bottom + 1);
            }
        }
    }
    mesh
}

fn plane() -> MeshData {
    let mut mesh = MeshData::default();
    let corners = [(-0.5, 0.5), (0.5, 0.5), (0.5, -0.5), (-0.5, -0.5)];
    let [a, b, c, d] =
        corners.map(|(x, z)| mesh.push(Vec3::new(x, 0.0, z), Vec3::Y, [x + 0.5, z + 0.5]));
    mesh.triangle(a, b, c);
    mesh.triangle(a, c, d);
    mesh
}

/// A flat disc of radius 0.5 at height `y`, facing `+Y` when `up`, else `-Y`.
fn cap(mesh: &mut MeshData, y: f32, up: bool) {
    let normal = if up { Vec3::Y } else { Vec3::NEG_Y };
    let centre = mesh.push(Vec3::new(0.0, y, 0.0), normal, [0.5, 0.5]);
    let first = centre + 1;
    for segment in 0..ROUND_SEGMENTS {
        let phi = TAU * segment as f32 / ROUND_SEGMENTS as f32;
        let edge = ring(phi) * 0.5;
        mesh.push(
            edge + Vec3::new(0.0, y, 0.0),
            normal,
            [edge.x + 0.5, edge.z + 0.5],
        );
    }
    for segment in 0..ROUND_SEGMENTS {
        let a = first + segment;
        let b = first + (segment + 1) % ROUND_SEGMENTS;
        if up {
            mesh.triangle(centre, a, b);
        } else {
            mesh.triangle(centre, b, a);
        }
    }
}

fn cylinder() -> MeshData {
    let mut mesh = MeshData::default();
    let first = u32::try_from(mesh.vertices.len()).unwrap_or(0);
    for segment in 0..=ROUND_SEGMENTS {
        let phi = TAU * segment as f32 / ROUND_SEGMENTS as f32;
        let out = ring(phi);
        let u = segment as f32 / ROUND_SEGMENTS as f32;
        mesh.push(out * 0.5 - Vec3::Y * 0.5, out, [u, 1.0]);
        mesh.push(out * 0.5 + Vec3::Y * 0.5, out, [u, 0.0]);
    }
    for segment in 0..ROUND_SEGMENTS {
        let bottom = first + segment * 2;
        let top = bottom + 1;
        let next_bottom = bottom + 2;
        let next_top = bottom + 3;
        mesh.triangle(bottom, next_bottom, next_top);
        mesh.triangle(bottom, next_top, top);
    }
    cap(&mut mesh, 0.5, true);
    cap(&mut mesh, -0.5, false);
    mesh
}

fn cone() -> MeshData {
    let mut mesh = MeshData::default();
    // Height 1, radius 0.5: the side normal leans up by atan(radius / height).
    let slope_normal = |phi: f32| ring(phi) + Vec3::Y * 0.5;
    let tip = Vec3::Y * 0.5;
    for segment in 0..ROUND_SEGMENTS {
        let phi0 = TAU * segment as f32 / ROUND_SEGMENTS as f32;
        let phi1 = TAU * (segment + 1) as f32 / ROUND_SEGMENTS as f32;
        let (u0, u1) = (
            segment as f32 / ROUND_SEGMENTS as f32,
            (segment + 1) as f32 / ROUND_SEGMENTS as f32,
        );
        let a = mesh.push(
            ring(phi0) * 0.5 - Vec3::Y * 0.5,
            slope_normal(phi0),
            [u0, 1.0],
        );
        let b = mesh.push(
            ring(phi1) * 0.5 - Vec3::Y * 0.5,
            slope_normal(phi1),
            [u1, 1.0],
        );
        // One tip vertex per face, with the normal of the face's middle, so the tip
        // shades smoothly instead of taking one arbitrary direction.
        let c = mesh.push(
            tip,
            slope_normal((phi0 + phi1) * 0.5),
            [(u0 + u1) * 0.5, 0.0],
        );
        mesh.triangle(a, b, c);
    }
    cap(&mut mesh, -0.5, false);
    mesh
}

#[cfg(test)]
mod tests {
    use super::*;

    fn positions(mesh: &MeshData, tri: &[u32]) -> [Vec3; 3] {
        [0, 1, 2].map(|k| Vec3::from(mesh.vertices[tri[k] as usize].position))
    }

    #[test]
    fn indices_are_in_range_and_form_triangles() {
        for primitive in Primitive::ALL {
            let mesh = primitive.mesh();
            assert_eq!(mesh.indices.len() % 3, 0, "{primitive:?} index count");
            assert!(
                mesh.indices
                    .iter()
                    .all(|&i| (i as usize) < mesh.vertices.len()),
                "{primitive:?} has an index past its {} vertices",
                mesh.vertices.len()
            );
        }
    }

    #[test]
    fn normals_are_unit_length() {
        for primitive in Primitive::ALL {
            for vertex in primitive.mesh().vertices {
                let length = Vec3::from(vertex.normal).length();
                assert!(
                    (length - 1.0).abs() < 1e-4,
                    "{primitive:?} normal length {length}"
                );
            }
        }
    }

    #[test]
    fn triangles_wind_counter_clockwise_seen_from_outside() {
        for primitive in Primitive::ALL {
            let mesh = primitive.mesh();
            for tri in mesh.indices.chunks_exact(3) {
                let [a, b, c] = positions(&mesh, tri);
                let face = (b - a).cross(c - a);
                assert!(
                    face.length() > 1e-7,
                    "{primitive:?} has a degenerate triangle {tri:?}"
                );
                let normal_sum: Vec3 = tri
                    .iter()
                    .map(|&i| Vec3::from(mesh.vertices[i as usize].normal))
                    .sum();
                assert!(
                    face.dot(normal_sum) > 0.0,
                    "{primitive:?} triangle {tri:?} winds against its normals"
                );
                // Every primitive is convex and contains the origin, so outward
                // faces point away from it.
                let centroid = (a + b + c) / 3.0;
                if primitive != Primitive::Plane {
                    assert!(
                        face.dot(centroid) > 0.0,
                        "{primitive:?} triangle {tri:?} faces inwards"
                    );
                }
            }
        }
    }

    #[test]
    fn extents_match_the_documented_unit_size() {
        for primitive in Primitive::ALL {
            let mesh = primitive.mesh();
            let (min, max) = mesh.vertices.iter().fold(
                (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
                |(lo, hi), v| (lo.min(v.position.into()), hi.max(v.position.into())),
            );
            let expected_y = if primitive == Primitive::Plane {
                0.0
            } else {
                0.5
            };
            assert!(
                (max.x - 0.5).abs() < 1e-5 && (min.x + 0.5).abs() < 1e-5,
                "{primitive:?} x extent {min} {max}"
            );
            assert!(
                (max.z - 0.5).abs() < 1e-5 && (min.z + 0.5).abs() < 1e-5,
                "{primitive:?} z extent {min} {max}"
            );
            assert!(
                (max.y - expected_y).abs() < 1e-5 && (min.y + expected_y).abs() < 1e-5,
                "{primitive:?} y extent {min} {max}"
            );
        }
    }

    #[test]
    fn texture_coordinates_stay_in_the_unit_square() {
        for primitive in Primitive::ALL {
            for vertex in primitive.mesh().vertices {
                let [u, v] = vertex.uv;
                assert!(
                    (0.0..=1.0).contains(&u) && (0.0..=1.0).contains(&v),
                    "{primitive:?} uv {u}, {v}"
                );
            }
        }
    }

    #[test]
    fn bounding_radius_matches_the_analytic_bound() {
        let half_diagonal = |dims: f32| (dims * 0.25).sqrt();
        for (primitive, expected) in [
            (Primitive::Cube, half_diagonal(3.0)),
            (Primitive::Sphere, 0.5),
            (Primitive::Plane, half_diagonal(2.0)),
            (Primitive::Cylinder, half_diagonal(2.0)),
            (Primitive::Cone, half_diagonal(2.0)),
        ] {
            let radius = primitive.mesh().bounding_radius();
            assert!((primitive.bounding_radius() - expected).abs() < 1e-6);
            assert!(
                (radius - expected).abs() < 1e-5,
                "{primitive:?}: radius {radius}, expected {expected}"
            );
        }
    }
}
