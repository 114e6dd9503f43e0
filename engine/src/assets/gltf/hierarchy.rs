//! The node tree of a glTF scene, flattened parents first, with each node's
//! transform as translation, rotation and scale.

use glam::{Mat4, Quat, Vec3, Vec4};

use super::{GltfError, Importer};
use crate::assets::ModelNode;
use crate::light::{Light, LightKind};
use crate::transform::Transform;
use gltf::json::validation::Checked;

/// How far a matrix may stray from the TRS rebuilt from its decomposition,
/// relative to its largest element, before it counts as sheared or projective.
const TRS_TOLERANCE: f32 = 1e-4;

impl Importer<'_> {
    /// The default scene's nodes (else the first scene's, else every node that
    /// is nobody's child) in pre-order. Walks with an explicit stack and a
    /// visited mark, so a malformed graph is an error, not a hang or a stack overflow.
    /// Also returns, for each glTF node, its index in the list (`None` for a
    /// node outside the scene).
    pub(super) fn nodes(&mut self) -> Result<(Vec<ModelNode>, Vec<Option<u32>>), GltfError> {
        let document = self.document;
        let roots: Vec<gltf::Node<'_>> = match document
            .default_scene()
            .or_else(|| document.scenes().next())
        {
            Some(scene) => scene.nodes().collect(),
            None => {
                let mut is_child = vec![false; document.nodes().len()];
                for child in document.nodes().flat_map(|node| node.children()) {
                    is_child[child.index()] = true;
                }
                document
                    .nodes()
                    .filter(|node| !is_child[node.index()])
                    .collect()
            }
        };
        let mut visited = vec![false; document.nodes().len()];
        let mut stack: Vec<_> = roots.into_iter().rev().map(|node| (node, None)).collect();
        let mut nodes = Vec::new();
        let mut map = vec![None; document.nodes().len()];
        while let Some((node, parent)) = stack.pop() {
            if std::mem::replace(&mut visited[node.index()], true) {
                return Err(GltfError::Cycle {
                    path: self.path.to_path_buf(),
                    element: format!("nodes[{}]", node.index()),
                });
            }
            let own_index = nodes.len();
            map[node.index()] = u32::try_from(own_index).ok();
            nodes.push(ModelNode {
                name: node
                    .name()
                    .map_or_else(|| format!("node {}", node.index()), str::to_owned),
                parent,
                transform: self.transform(&node),
                mesh: node.mesh().map(|mesh| mesh.index()),
                skin: node.skin().map(|skin| skin.index()),
                weights: node_weights(&node),
                light: self.light(&node),
            });
            let children: Vec<_> = node.children().collect();
            stack.extend(
                children
                    .into_iter()
                    .rev()
                    .map(|child| (child, Some(own_index))),
            );
        }
        Ok((nodes, map))
    }

    /// The node's `KHR_lights_punctual` light, read from the JSON so a
    /// malformed one is a warning naming it, never a panic. glTF gives
    /// candela (point, spot) and lux (directional); Keel's intensity is what a
    /// white matte surface facing the light reflects, so both are divided by
    /// pi (as three.js and Bevy's defaults render them).
    fn light(&mut self, node: &gltf::Node<'_>) -> Option<Light> {
        use gltf::json::extensions::scene::khr_lights_punctual::Type;
        let json = self.document.as_json();
        let index = json
            .nodes
            .get(node.index())?
            .extensions
            .as_ref()?
            .khr_lights_punctual
            .as_ref()?
            .light
            .value();
        let element = format!("KHR_lights_punctual.lights[{index}]");
        let Some(light) = json
            .extensions
            .as_ref()
            .and_then(|e| e.khr_lights_punctual.as_ref())
            .and_then(|l| l.lights.get(index))
        else {
            self.warn(
                format!("nodes[{}]", node.index()),
                format!("refers to light {index}, which the file does not have; no light"),
            );
            return None;
        };
        let range = light.range.filter(|r| r.is_finite() && *r > 0.0);
        // glTF's "infinite" range: far enough that the window does not show.
        let reach =
            |intensity: f32| range.unwrap_or_else(|| (intensity.max(0.0) * 100.0).sqrt().max(10.0));
        let intensity = light.intensity / std::f32::consts::PI;
        let kind = match (&light.type_, &light.spot) {
            (Checked::Valid(Type::Directional), _) => LightKind::Directional,
            (Checked::Valid(Type::Point), _) => LightKind::Point {
                range: reach(intensity),
            },
            (Checked::Valid(Type::Spot), Some(spot)) => {
                let outer = spot.outer_cone_angle.to_degrees().clamp(0.1, 90.0);
                LightKind::Spot {
                    range: reach(intensity),
                    inner_degrees: spot.inner_cone_angle.to_degrees().clamp(0.0, outer - 0.05),
                    outer_degrees: outer,
                }
            }
            _ => {
                self.warn(
                    element,
                    "has no valid type (directional, point or spot with its cone); no light"
                        .to_owned(),
                );
                return None;
            }
        };
        let color = Vec3::from_array(light.color);
        if !(color.is_finite()
            && color.min_element() >= 0.0
            && intensity.is_finite()
            && intensity >= 0.0)
        {
            self.warn(
                element,
                "has a negative or non-finite colour or intensity; no light".to_owned(),
            );
            return None;
        }
        Some(Light {
            kind,
            color,
            intensity,
            cast_shadows: false,
        })
    }

    fn transform(&mut self, node: &gltf::Node<'_>) -> Transform {
        let element = format!("nodes[{}]", node.index());
        let (transform, problem) = match node.transform() {
            gltf::scene::Transform::Decomposed {
                translation,
                rotation,
                scale,
            } => from_trs(translation, rotation, scale),
            gltf::scene::Transform::Matrix { matrix } => {
                from_matrix(&Mat4::from_cols_array_2d(&matrix))
            }
        };
        if let Some(problem) = problem {
            self.warn(element, problem);
        }
        transform
    }
}

/// The node's morph weights: its own, else its mesh's defaults, padded with
/// zeros to the mesh's target count (the largest of its primitives').
fn node_weights(node: &gltf::Node<'_>) -> Vec<f32> {
    let Some(mesh) = node.mesh() else {
        return Vec::new();
    };
    let targets = mesh
        .primitives()
        .map(|p| p.morph_targets().len())
        .max()
        .unwrap_or(0);
    let given = node.weights().or_else(|| mesh.weights()).unwrap_or(&[]);
    let mut weights: Vec<f32> = given.iter().copied().take(targets).collect();
    weights.resize(targets, 0.0);
    weights
}

fn from_trs(
    translation: [f32; 3],
    rotation: [f32; 4],
    scale: [f32; 3],
) -> (Transform, Option<&'static str>) {
    let (rotation, problem) = match unit(Quat::from_array(rotation)) {
        Some(rotation) => (rotation, None),
        None => (
            Quat::IDENTITY,
            Some("rotation is not a usable quaternion; identity used"),
        ),
    };
    let transform = Transform {
        translation: translation.into(),
        rotation,
        scale: scale.into(),
    };
    (transform, problem)
}

/// Decomposes `matrix`; says so when it is not a translation-rotation-scale
/// (a shear or a projection), which a [`Transform`] cannot hold exactly.
pub(super) fn from_matrix(matrix: &Mat4) -> (Transform, Option<&'static str>) {
    let (scale, rotation, translation) = matrix.to_scale_rotation_translation();
    let (rotation, problem) = match unit(rotation) {
        Some(rotation) => (rotation, None),
        None => (
            Quat::IDENTITY,
            Some("matrix has no rotation (a zero scale?); identity rotation used"),
        ),
    };
    let rebuilt = Mat4::from_scale_rotation_translation(scale, rotation, translation);
    let magnitude = matrix
        .to_cols_array()
        .iter()
        .fold(1.0_f32, |m, x| m.max(x.abs()));
    let problem = problem.or_else(|| {
        (!rebuilt.abs_diff_eq(*matrix, TRS_TOLERANCE * magnitude)).then_some(
            "matrix is not translation-rotation-scale (shear or projection); decomposed anyway",
        )
    });
    let transform = Transform {
        translation,
        rotation,
        scale: finite_or(scale, Vec3::ONE),
    };
    (transform, problem)
}

/// `q` scaled to unit length; `None` for a zero or non-finite quaternion.
fn unit(q: Quat) -> Option<Quat> {
    Vec4::from(q).try_normalize().map(Quat::from_vec4)
}

fn finite_or(v: Vec3, fallback: Vec3) -> Vec3 {
    if v.is_finite() { v } else { fallback }
}
