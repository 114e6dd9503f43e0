//! Tangents for normal mapping, generated with MikkTSpace (the
//! `bevy_mikktspace` crate, byte-identical to the reference implementation)
//! where a mesh brings none: the algorithm glTF prescribes, so a normal map
//! baked against MikkTSpace tangents is read with the frame it was baked in.
//!
//! Meshes are in glTF's texture convention (v runs down the image) while
//! MikkTSpace, like the tools that bake normal maps, works with v up: the
//! coordinates are handed over flipped, which gives the handedness glTF's
//! TANGENT.w stores (bitangent = cross(normal, tangent) * w points up the image).

use bevy_mikktspace::{Geometry, TangentSpace};

use super::MeshData;

/// The mesh as MikkTSpace reads it: triangles through the index list.
struct Faces<'a> {
    mesh: &'a mut MeshData,
}

impl Faces<'_> {
    fn vertex(&self, face: usize, corner: usize) -> usize {
        self.mesh.indices[face * 3 + corner] as usize
    }
}

impl Geometry for Faces<'_> {
    fn num_faces(&self) -> usize {
        self.mesh.indices.len() / 3
    }

    fn num_vertices_of_face(&self, _face: usize) -> usize {
        3
    }

    fn position(&self, face: usize, corner: usize) -> [f32; 3] {
        self.mesh.vertices[self.vertex(face, corner)].position
    }

    fn normal(&self, face: usize, corner: usize) -> [f32; 3] {
        self.mesh.vertices[self.vertex(face, corner)].normal
    }

    fn tex_coord(&self, face: usize, corner: usize) -> [f32; 2] {
        let [u, v] = self.mesh.vertices[self.vertex(face, corner)].uv;
        [u, 1.0 - v]
    }

    fn set_tangent(&mut self, tangent: Option<TangentSpace>, face: usize, corner: usize) {
        let vertex = self.vertex(face, corner);
        if let Some(tangent) = tangent {
            self.mesh.vertices[vertex].tangent = tangent.tangent_encoded();
        }
    }
}

impl MeshData {
    /// Gives every vertex a MikkTSpace tangent from its position, normal and
    /// first texture coordinates. A vertex MikkTSpace finds no frame for (a
    /// lone degenerate triangle) gets any unit tangent perpendicular to its normal.
    pub fn generate_tangents(&mut self) {
        for vertex in &mut self.vertices {
            vertex.tangent = [0.0; 4];
        }
        if self.indices.len() >= 3
            && self
                .indices
                .iter()
                .all(|&i| (i as usize) < self.vertices.len())
        {
            // Only malformed input makes it fail; the fallback below covers it.
            let _ = bevy_mikktspace::generate_tangents(&mut Faces { mesh: self });
        }
        for vertex in &mut self.vertices {
            let [x, y, z, _] = vertex.tangent;
            if x == 0.0 && y == 0.0 && z == 0.0 {
                let normal = glam::Vec3::from(vertex.normal);
                let tangent = normal
                    .try_normalize()
                    .unwrap_or(glam::Vec3::Y)
                    .any_orthonormal_vector();
                vertex.tangent = tangent.extend(1.0).to_array();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use crate::assets::{MeshData, MeshVertex, Primitive};

    /// A quad facing +Z with u along +X and v down the image (-Y).
    fn quad(flip_u: bool) -> MeshData {
        let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];
        let vertices = corners
            .map(|(x, y): (f32, f32)| {
                let u = if flip_u { 0.5 - x * 0.5 } else { 0.5 + x * 0.5 };
                MeshVertex::new([x, y, 0.0], [0.0, 0.0, 1.0], [u, 0.5 - y * 0.5])
            })
            .to_vec();
        MeshData {
            vertices,
            indices: vec![0, 1, 2, 0, 2, 3],
            ..MeshData::default()
        }
    }

    /// Every vertex of `mesh` has tangent `along_u` and a bitangent up the
    /// image (+Y here: v runs down the image).
    fn assert_frame(mut mesh: MeshData, along_u: Vec3) {
        mesh.generate_tangents();
        for v in &mesh.vertices {
            let t = Vec3::from_slice(&v.tangent);
            assert!(
                t.abs_diff_eq(along_u, 1e-5),
                "tangent {t} is not {along_u} (the way u grows)"
            );
            let bitangent = Vec3::from(v.normal).cross(t) * v.tangent[3];
            assert!(
                bitangent.abs_diff_eq(Vec3::Y, 1e-5),
                "bitangent {bitangent} is not up the image"
            );
        }
    }

    #[test]
    fn tangents_follow_u_and_bitangents_point_up_the_image() {
        assert_frame(quad(false), Vec3::X);
    }

    #[test]
    fn mirrored_texture_coordinates_flip_the_handedness() {
        assert_frame(quad(true), Vec3::NEG_X);
    }

    #[test]
    fn every_primitive_vertex_gets_a_unit_tangent_perpendicular_to_its_normal() {
        for primitive in Primitive::ALL {
            for v in primitive.mesh().vertices {
                let t = Vec3::from_slice(&v.tangent);
                assert!(
                    (t.length() - 1.0).abs() < 1e-3,
                    "{primitive:?}: tangent {t} is not unit"
                );
                assert!(
                    t.dot(Vec3::from(v.normal)).abs() < 1e-3,
                    "{primitive:?}: tangent {t} not perpendicular"
                );
                assert!(
                    v.tangent[3].abs() == 1.0,
                    "{primitive:?}: handedness {}",
                    v.tangent[3]
                );
            }
        }
    }

    #[test]
    fn degenerate_and_empty_meshes_still_get_tangents() {
        let mut mesh = MeshData {
            vertices: vec![MeshVertex::new([0.0; 3], [0.0, 0.0, 1.0], [0.0; 2]); 3],
            indices: vec![0, 1, 2],
            ..MeshData::default()
        };
        mesh.generate_tangents();
        for v in &mesh.vertices {
            let t = Vec3::from_slice(&v.tangent);
            assert!(
                (t.length() - 1.0).abs() < 1e-5 && t.z.abs() < 1e-5,
                "fallback tangent {t}"
            );
        }
        let mut lone = MeshData {
            vertices: vec![MeshVertex::default()],
            ..MeshData::default()
        };
        lone.generate_tangents();
        assert!((Vec3::from_slice(&lone.vertices[0].tangent).length() - 1.0).abs() < 1e-5);
    }
}
