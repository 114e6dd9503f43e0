//! Extraction of the meshes the vertex shader deforms: every skinned mesh's
//! joint matrices at the frame's alpha (one palette, packed across cores),
//! every morphed mesh's weights, and an instance for each one in view, culled
//! by bounds that follow its skeleton.

use glam::Vec4;

use super::{Extractor, outline_box};
use crate::assets::MeshRef;
use crate::render::DeformedInstance;
use crate::scene::{JointMatrix, MeshRenderer, MorphWeights, NodeId, Scene, skinned_bounds};
use crate::spatial::Frustum;

impl Extractor {
    /// Fills the deformed instances, the joint palette and the morph weights;
    /// with `frustum`, keeps only the meshes whose bounds reach into it.
    pub(super) fn extract_deformed(
        &mut self,
        scene: &Scene,
        alpha: f32,
        frustum: Option<&Frustum>,
        aabbs: bool,
    ) {
        self.deformed.clear();
        self.morph_weights.clear();
        let c = scene.components();
        if c.skin.is_empty() && c.morph.is_empty() {
            self.palette.matrices.clear();
            self.palette.runs.clear();
            return;
        }
        // Taken for the loop (it borrows the buffers) and put back, so its
        // room is kept from frame to frame.
        let cascades = std::mem::take(&mut self.cascade_frustums);
        scene.pack_joints(alpha, &mut self.palette);
        let registry = scene.assets().registry();
        let runs = self
            .palette
            .runs
            .iter()
            .map(|&(node, start, len)| (node, Some((start, len))));
        let morphed_only = c
            .morph
            .iter()
            .filter(|(node, _)| c.skin.get(*node).is_none())
            .map(|(node, _)| (node, None));
        for (node, run) in runs.chain(morphed_only) {
            let Some(mesh) = scene.get::<MeshRenderer>(node) else {
                continue;
            };
            let MeshRef::Asset(handle) = mesh.mesh else {
                continue;
            };
            let (Some(asset), Some(model)) =
                (registry.mesh(handle), scene.interpolated_world(node, alpha))
            else {
                continue;
            };
            let joints = match run {
                Some((start, len)) if !asset.data.skin.is_empty() => start..start + len,
                _ => 0..0,
            };
            let bounds = if joints.is_empty() {
                skinned_bounds(&[JointMatrix::from_affine(&model)], asset.radius)
            } else {
                let matrices = &self.palette.matrices[joints.start as usize..joints.end as usize];
                skinned_bounds(matrices, asset.radius)
            };
            let in_view = frustum.is_none_or(|f| f.intersects_aabb(&bounds));
            // Out of view, it may still shade what is in view.
            let casts = mesh.can_cast();
            let shades_view = casts && cascades.iter().any(|c| c.intersects_aabb(&bounds));
            if !(in_view || shades_view) {
                continue;
            }
            if aabbs {
                outline_box(&mut self.lines, &bounds, Vec4::new(0.2, 1.0, 0.4, 1.0));
            }
            let weights = push_weights(
                &mut self.morph_weights,
                scene,
                node,
                asset.data.targets.len(),
            );
            self.deformed.push(DeformedInstance {
                mesh: handle,
                model,
                material: mesh.material,
                joints,
                weights,
                in_view,
                cast_shadows: casts,
            });
        }
        self.cascade_frustums = cascades;
    }
}

/// Appends the morph weights of `node` (zeros past those it has, up to the
/// mesh's `targets`) and returns their range.
fn push_weights(
    out: &mut Vec<f32>,
    scene: &Scene,
    node: NodeId,
    targets: usize,
) -> std::ops::Range<u32> {
    let start = out.len();
    let given = scene
        .get::<MorphWeights>(node)
        .map_or(&[][..], |m| &m.weights);
    out.extend((0..targets).map(|t| given.get(t).copied().unwrap_or(0.0)));
    start as u32..out.len() as u32
}

/// Whether `node` is drawn by the deformed path (so not as a plain instance).
#[inline]
pub(super) fn is_deformed(scene: &Scene, node: NodeId) -> bool {
    let c = scene.components();
    (!c.skin.is_empty() && c.skin.get(node).is_some())
        || (!c.morph.is_empty() && c.morph.get(node).is_some())
}
