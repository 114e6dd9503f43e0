//! Meshes the vertex shader deforms: a [`Skin`] makes a mesh follow joints
//! (nodes of the same model instance), [`MorphWeights`] blend its morph
//! targets. Both are set up when a model is instanced; animators move the
//! joints and write the weights.
//!
//! Bones are nodes, so a skinned mesh costs nothing the hierarchy does not
//! already do: after propagation, each joint's world transform times its
//! inverse bind matrix is the matrix the vertex shader blends. Every skinned
//! mesh's matrices are packed into one [`JointPalette`] per frame, one run per
//! mesh, split across cores.

use std::sync::Arc;

use glam::{Affine3A, Mat4, Vec3, Vec4};

use super::{Affine3x4, NodeId, Scene};

/// One joint's matrix (world x inverse bind) as the vertex shader reads it:
/// the three rows of the 3x4 affine matrix (rotation-scale, then the
/// translation in `w`), 48 bytes where a 4x4 matrix takes 64.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct JointMatrix {
    /// The rows of the 3x4 matrix.
    pub rows: [[f32; 4]; 3],
}

impl JointMatrix {
    /// The rows of `m`.
    #[inline]
    #[must_use]
    pub fn from_affine(m: &Affine3A) -> Self {
        Self::from_rows(&Affine3x4::from_affine(m))
    }

    /// The rows of `m` as stored.
    #[inline]
    #[must_use]
    pub fn from_rows(m: &Affine3x4) -> Self {
        Self { rows: m.to_array() }
    }

    /// The affine matrix back.
    #[must_use]
    pub fn to_affine(&self) -> Affine3A {
        let rows = self.rows.map(Vec4::from);
        Affine3x4 { rows }.to_affine()
    }
}

/// Deforms the node's mesh by a skeleton: each vertex follows up to four of
/// `joints` (by [`crate::assets::VertexSkin`]), so the mesh is drawn where the
/// joints are, not at the node.
#[derive(Clone, Debug, PartialEq)]
pub struct Skin {
    /// The joint nodes, in the skin's order.
    pub joints: Vec<NodeId>,
    /// One per joint: from the mesh's space to the joint's, in the bind pose
    /// (shared by the model's instances).
    pub inverse_bind: Arc<[Affine3x4]>,
}

/// The morph target weights of the node's mesh.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphWeights {
    /// One per target (a target without a weight stays at 0).
    pub weights: Vec<f32>,
}

/// Every skinned mesh's joint matrices in one buffer, the skinning pass's
/// storage buffer: one run per mesh node with a [`Skin`].
///
/// Kept between packs: a run whose joints were all at rest (not moved since
/// before the last pack's epoch, so their world and previous world were
/// equal then and still are) keeps its matrices, whatever the frame's alpha.
/// A crowd where half the rigs stand still packs the other half.
#[derive(Clone, Debug, Default)]
pub struct JointPalette {
    /// World x inverse bind of every joint, run after run.
    pub matrices: Vec<JointMatrix>,
    /// The mesh's node, and its run's start and length in `matrices`.
    pub runs: Vec<(NodeId, u32, u32)>,
    /// Where each joint's transforms are (`DEAD`: gone), run after run, and
    /// the layout and skin column they were found in: kept while both hold.
    places: Vec<u32>,
    placed_in: Option<(u64, (u64, u64))>,
    /// The scene's epoch at the last pack, while the places hold.
    packed_in: Option<u32>,
    /// Runs the last pack wrote (the others were at rest).
    packed: usize,
}

impl JointPalette {
    /// How many runs the last [`Scene::pack_joints`] wrote; the others kept
    /// the matrices of skeletons at rest.
    #[must_use]
    pub fn packed_runs(&self) -> usize {
        self.packed
    }
}

/// A joint's place that says: the node is gone.
const DEAD: u32 = u32::MAX;

/// Skinned meshes below this many are packed on one thread.
const PARALLEL_PACK: usize = 32;

impl Scene {
    /// Packs the joint matrices of every skinned mesh into `palette`, from
    /// the world transforms interpolated at `alpha` between the last two steps
    /// (1: the current ones); splits the work across cores; allocates only
    /// when the palette grows.
    pub fn pack_joints(&self, alpha: f32, palette: &mut JointPalette) {
        palette.runs.clear();
        let mut total = 0u32;
        for (node, skin) in self.components.skin.iter() {
            let len = skin.joints.len() as u32;
            palette.runs.push((node, total, len));
            total += len;
        }
        // Every matrix is written below: resizing keeps the old ones rather
        // than clearing and filling 48 bytes a joint first.
        palette
            .matrices
            .resize(total as usize, JointMatrix::default());
        // The joints' places, found through their handles only when a node
        // moved or a skin changed since.
        let placed_in = (self.layout_stamp(), self.components.skin.stamp());
        if palette.placed_in != Some(placed_in) {
            palette.packed_in = None;
            palette.places.clear();
            for (_, skin) in self.components.skin.iter() {
                let places =
                    (skin.joints.iter()).map(|&joint| self.dense(joint).map_or(DEAD, |d| d as u32));
                palette.places.extend(places);
            }
            palette.placed_in = Some(placed_in);
        }
        let runs = Runs {
            skins: self.components.skin.parts().1,
            places: &palette.places,
            spans: &palette.runs,
        };
        // Runs at rest since before the last pack's epoch are as it left them.
        let rested = palette.packed_in.unwrap_or(0);
        palette.packed = self.pack_runs(alpha, rested, runs, &mut palette.matrices);
        palette.packed_in = Some(self.epoch());
    }

    /// Packs `runs` at `alpha` into `out`, but those whose joints all last
    /// moved before epoch `rested` (0: none); how many it packed.
    fn pack_runs(&self, alpha: f32, rested: u32, runs: Runs<'_>, out: &mut [JointMatrix]) -> usize {
        if runs.spans.len() > PARALLEL_PACK {
            let (front, back) = runs.split();
            let (left, right) = out.split_at_mut(front.places.len());
            let (a, b) = rayon::join(
                || self.pack_runs(alpha, rested, front, left),
                || self.pack_runs(alpha, rested, back, right),
            );
            return a + b;
        }
        let moved = self.moved_epochs();
        let mut packed = 0;
        let mut at = 0;
        for (skin, &(_, _, len)) in runs.skins.iter().zip(runs.spans) {
            let range = at..at + len as usize;
            at += len as usize;
            let places = &runs.places[range.clone()];
            let at_rest = |&d: &u32| d == DEAD || moved[d as usize] < rested;
            if rested > 0 && places.iter().all(at_rest) {
                continue;
            }
            self.write_joints(places, &skin.inverse_bind, alpha, &mut out[range]);
            packed += 1;
        }
        packed
    }

    /// The joint matrices of the skinned mesh on `node` (current world
    /// transforms), appended to `out`; how many (0 without a [`Skin`]).
    pub fn joint_matrices(&self, node: NodeId, out: &mut Vec<Mat4>) -> usize {
        let Some(skin) = self.get::<Skin>(node) else {
            return 0;
        };
        let mut matrices = vec![JointMatrix::default(); skin.joints.len()];
        let places: Vec<u32> = (skin.joints.iter())
            .map(|&joint| self.dense(joint).map_or(DEAD, |d| d as u32))
            .collect();
        self.write_joints(&places, &skin.inverse_bind, 1.0, &mut matrices);
        out.extend(matrices.iter().map(|m| Mat4::from(m.to_affine())));
        skin.joints.len()
    }

    /// World (at `alpha`) x inverse bind of each joint, the joints at
    /// `places`, into `out` (a joint no longer in the scene counts as at the
    /// origin).
    fn write_joints(
        &self,
        places: &[u32],
        inverse_bind: &[Affine3x4],
        alpha: f32,
        out: &mut [JointMatrix],
    ) {
        // The step's own pose (a palette packed for the step, every frame
        // right on one): the worlds straight from the column, no blend.
        if alpha >= 1.0
            && let Some(worlds) = self.current_worlds()
        {
            for ((m, &d), ibm) in out.iter_mut().zip(places).zip(inverse_bind) {
                let world = worlds.get(d as usize).unwrap_or(&Affine3x4::IDENTITY);
                *m = JointMatrix::from_rows(&world.mul(ibm));
            }
            return;
        }
        for ((m, &d), ibm) in out.iter_mut().zip(places).zip(inverse_bind) {
            let world = if d == DEAD {
                Affine3x4::IDENTITY
            } else {
                self.interpolated_at(d as usize, alpha)
            };
            *m = JointMatrix::from_rows(&world.mul(ibm));
        }
    }
}

/// Runs of the palette with the skins and joint places they are packed from
/// (in the skin column's order).
#[derive(Clone, Copy)]
struct Runs<'a> {
    skins: &'a [Skin],
    /// The places of these runs' joints, run after run.
    places: &'a [u32],
    spans: &'a [(NodeId, u32, u32)],
}

impl<'a> Runs<'a> {
    /// The first half of the runs, and the rest.
    fn split(self) -> (Runs<'a>, Runs<'a>) {
        let mid = self.spans.len() / 2;
        let joints = (self.spans[mid].1 - self.spans[0].1) as usize;
        let (skins0, skins1) = self.skins.split_at(mid);
        let (places0, places1) = self.places.split_at(joints);
        let (spans0, spans1) = self.spans.split_at(mid);
        (
            Runs {
                skins: skins0,
                places: places0,
                spans: spans0,
            },
            Runs {
                skins: skins1,
                places: places1,
                spans: spans1,
            },
        )
    }
}

/// World-space bounds of a skinned mesh: every vertex is a weighted average of
/// its position under the joint matrices, each of which moves the mesh's
/// bounding sphere (radius `radius` about its origin) to a sphere about the
/// matrix's translation; the box around those spheres holds the mesh in any pose.
#[must_use]
pub fn skinned_bounds(joints: &[JointMatrix], radius: f32) -> crate::spatial::Aabb {
    let mut min = Vec3::splat(f32::INFINITY);
    let mut max = Vec3::splat(f32::NEG_INFINITY);
    for joint in joints {
        let m = joint.to_affine().matrix3;
        let scale = m
            .x_axis
            .length()
            .max(m.y_axis.length())
            .max(m.z_axis.length());
        let [x, y, z] = joint.rows;
        let centre = Vec3::new(x[3], y[3], z[3]);
        let reach = Vec3::splat(radius * scale);
        min = min.min(centre - reach);
        max = max.max(centre + reach);
    }
    if joints.is_empty() {
        return crate::spatial::Aabb::new(Vec3::ZERO, Vec3::ZERO);
    }
    crate::spatial::Aabb::new(min, max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Transform;

    /// Across the epoch count running out, a kept palette still matches a
    /// fresh one (every node counts as moved again).
    #[test]
    fn a_kept_palette_survives_the_epoch_count_running_out() {
        let mut scene = Scene::new();
        let root = scene.spawn(None, "root", Transform::IDENTITY).unwrap();
        let joints: Vec<NodeId> = (0..3)
            .map(|i| {
                let at = Transform::from_translation(Vec3::X * i as f32);
                scene.spawn(Some(root), "joint", at).unwrap()
            })
            .collect();
        let skin = Skin {
            inverse_bind: vec![Affine3x4::IDENTITY; joints.len()].into(),
            joints: joints.clone(),
        };
        scene.insert(root, skin).unwrap();
        scene.set_epoch(u32::MAX - 3);
        let mut kept = JointPalette::default();
        for step in 0..8 {
            scene.snapshot_previous();
            if step % 3 == 0 {
                let at = Transform::from_translation(Vec3::Y * step as f32);
                scene.set_local(joints[1], at).unwrap();
            }
            scene.propagate();
            for alpha in [0.5, 1.0] {
                scene.pack_joints(alpha, &mut kept);
                let mut fresh = JointPalette::default();
                scene.pack_joints(alpha, &mut fresh);
                assert_eq!(kept.matrices, fresh.matrices, "step {step}, alpha {alpha}");
            }
        }
        assert!(
            scene.epoch() < 8,
            "the count started again: {}",
            scene.epoch()
        );
    }

    #[test]
    fn skinned_bounds_hold_the_moved_spheres() {
        let joints = [
            Affine3A::from_translation(Vec3::new(1.0, 0.0, 0.0)),
            Affine3A::from_scale_rotation_translation(
                Vec3::splat(2.0),
                glam::Quat::from_rotation_z(0.5),
                Vec3::new(-3.0, 1.0, 0.0),
            ),
        ]
        .map(|m| JointMatrix::from_affine(&m));
        let bounds = skinned_bounds(&joints, 0.5);
        assert!(
            (bounds.min - Vec3::new(-4.0, -0.5, -1.0)).length() < 1e-5,
            "{bounds:?}"
        );
        assert!(
            (bounds.max - Vec3::new(1.5, 2.0, 1.0)).length() < 1e-5,
            "{bounds:?}"
        );
    }
}
