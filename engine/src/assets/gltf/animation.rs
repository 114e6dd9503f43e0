//! glTF animations and skins: clips as struct-of-arrays keys
//! ([`crate::assets::animation::Clip`]) and skins as joint lists with their
//! inverse bind matrices. Every accessor is checked before it is read; a bad
//! channel or joint is an error naming it (`animations[2].channels[5]`,
//! `skins[0].joints[3]`).

use gltf::accessor::{DataType, Dimensions};
use gltf::animation::util::ReadOutputs;
use gltf::animation::{Interpolation as GltfInterpolation, Property as GltfProperty};

use super::source::Layout;
use super::{GltfError, Importer};
use crate::assets::ModelSkin;
use crate::assets::animation::{Channel, Clip, Interpolation, Property};
use crate::transform::Affine3x4;

const TIMES: Layout = Layout {
    dimensions: Dimensions::Scalar,
    types: &[DataType::F32],
};
const VEC3: Layout = Layout {
    dimensions: Dimensions::Vec3,
    types: &[DataType::F32],
};
/// Rotations may be normalized integers.
const ROTATIONS: Layout = Layout {
    dimensions: Dimensions::Vec4,
    types: &[
        DataType::F32,
        DataType::I8,
        DataType::U8,
        DataType::I16,
        DataType::U16,
    ],
};
const WEIGHTS: Layout = Layout {
    dimensions: Dimensions::Scalar,
    types: ROTATIONS.types,
};
const MATRICES: Layout = Layout {
    dimensions: Dimensions::Mat4,
    types: &[DataType::F32],
};

impl Importer<'_> {
    fn bad_animation(&self, element: String, expected: &str, found: String) -> GltfError {
        GltfError::BadAnimation {
            path: self.path.to_path_buf(),
            element,
            expected: expected.to_owned(),
            found,
        }
    }

    /// Every animation of the file; `node_map` takes a glTF node to its index
    /// in the imported hierarchy (channels of nodes outside it are skipped with
    /// a warning).
    pub(super) fn animations(&mut self, node_map: &[Option<u32>]) -> Result<Vec<Clip>, GltfError> {
        let document = self.document;
        let mut clips = Vec::with_capacity(document.animations().len());
        for animation in document.animations() {
            let a = animation.index();
            let mut clip = Clip {
                name: animation
                    .name()
                    .map_or_else(|| format!("animation {a}"), str::to_owned),
                duration: 0.0,
                times: Vec::new(),
                values: Vec::new(),
                channels: Vec::new(),
            };
            for channel in animation.channels() {
                let element = format!("animations[{a}].channels[{}]", channel.index());
                let target = channel.target().node().index();
                let Some(node) = node_map.get(target).copied().flatten() else {
                    self.warn(
                        element,
                        format!("targets nodes[{target}], which is not in the scene; skipped"),
                    );
                    continue;
                };
                self.channel(&channel, node, &element, &mut clip)?;
            }
            clips.push(clip);
        }
        Ok(clips)
    }

    fn channel(
        &mut self,
        channel: &gltf::animation::Channel<'_>,
        node: u32,
        element: &str,
        clip: &mut Clip,
    ) -> Result<(), GltfError> {
        let sampler = channel.sampler();
        let (property, layout) = match channel.target().property() {
            GltfProperty::Translation => (Property::Translation, &VEC3),
            GltfProperty::Rotation => (Property::Rotation, &ROTATIONS),
            GltfProperty::Scale => (Property::Scale, &VEC3),
            GltfProperty::MorphTargetWeights => (Property::Weights, &WEIGHTS),
        };
        let interpolation = match sampler.interpolation() {
            GltfInterpolation::Step => Interpolation::Step,
            GltfInterpolation::Linear => Interpolation::Linear,
            GltfInterpolation::CubicSpline => Interpolation::CubicSpline,
        };
        let usage = |what: &str| format!("{what} of {element}");
        self.sources
            .check_accessor(&sampler.input(), &usage("key times"), &TIMES)?;
        self.sources
            .check_accessor(&sampler.output(), &usage("key values"), layout)?;
        let sources = &self.sources;
        let reader = channel.reader(|buffer| sources.buffer(buffer.index()));
        let times: Vec<f32> = reader
            .read_inputs()
            .ok_or_else(|| {
                self.bad_animation(element.into(), "key times in a buffer", "none".into())
            })?
            .collect();
        if let Some(i) = times.iter().position(|t| !t.is_finite() || *t < 0.0) {
            return Err(self.bad_animation(
                format!("{element} (key {i})"),
                "finite key times >= 0",
                format!("{}", times[i]),
            ));
        }
        if let Some(i) = times.windows(2).position(|w| w[1] < w[0]) {
            return Err(self.bad_animation(
                format!("{element} (key {})", i + 1),
                "increasing key times",
                format!("{} after {}", times[i + 1], times[i]),
            ));
        }
        let values: Vec<f32> = match reader.read_outputs() {
            Some(ReadOutputs::Translations(v)) | Some(ReadOutputs::Scales(v)) => {
                v.flatten().collect()
            }
            Some(ReadOutputs::Rotations(v)) => v.into_f32().flatten().collect(),
            Some(ReadOutputs::MorphTargetWeights(v)) => v.into_f32().collect(),
            None => Vec::new(),
        };
        let per_key = if interpolation == Interpolation::CubicSpline {
            3
        } else {
            1
        };
        let width = match property {
            Property::Translation | Property::Scale => 3,
            Property::Rotation => 4,
            Property::Weights => values.len() / (times.len() * per_key).max(1),
        };
        if width == 0 || values.len() != times.len() * per_key * width {
            return Err(self.bad_animation(
                element.into(),
                "as many key values as key times (three per key for CUBICSPLINE)",
                format!("{} values for {} keys", values.len(), times.len()),
            ));
        }
        if let Some(i) = values.iter().position(|v| !v.is_finite()) {
            return Err(self.bad_animation(
                format!("{element} (value {i})"),
                "finite key values",
                format!("{}", values[i]),
            ));
        }
        let mut values = values;
        if property == Property::Rotation {
            // Sampling trusts key rotations to be unit quaternions (as glTF
            // asks); a file's rounding is taken off here, once. A zero one
            // stays the identity.
            let value = usize::from(per_key == 3);
            for key in values.chunks_exact_mut(4 * per_key) {
                let q = &mut key[4 * value..4 * value + 4];
                let n = q.iter().map(|x| x * x).sum::<f32>().sqrt();
                if n > 0.0 {
                    q.iter_mut().for_each(|x| *x /= n);
                } else {
                    q.copy_from_slice(&[0.0, 0.0, 0.0, 1.0]);
                }
            }
        }
        let overflow =
            |_| self.bad_animation(element.into(), "fewer than 2^32 keys", "more".into());
        let value_start = u32::try_from(clip.values.len()).map_err(overflow)?;
        clip.duration = clip.duration.max(times.last().copied().unwrap_or(0.0));
        // Channels usually share their key times (one input accessor): the
        // same times as the channel before share its run, so sampling can
        // place the time once for all of them.
        let shared = clip.channels.last().map(|c| c.keys.clone()).filter(|keys| {
            clip.times.get(keys.start as usize..keys.end as usize) == Some(&times[..])
        });
        let keys = match shared {
            Some(keys) => keys,
            None => {
                let start = u32::try_from(clip.times.len()).map_err(overflow)?;
                clip.times.extend_from_slice(&times);
                start..u32::try_from(clip.times.len()).map_err(overflow)?
            }
        };
        clip.values.extend_from_slice(&values);
        clip.channels.push(Channel {
            node,
            property,
            interpolation,
            keys,
            values: value_start..u32::try_from(clip.values.len()).map_err(overflow)?,
            width: width as u32,
        });
        Ok(())
    }

    /// Every skin of the file, its joints as indices into the imported hierarchy.
    pub(super) fn skins(&mut self, node_map: &[Option<u32>]) -> Result<Vec<ModelSkin>, GltfError> {
        let document = self.document;
        let mut skins = Vec::with_capacity(document.skins().len());
        for skin in document.skins() {
            let s = skin.index();
            let mut joints = Vec::with_capacity(skin.joints().len());
            for (j, joint) in skin.joints().enumerate() {
                let index = node_map
                    .get(joint.index())
                    .copied()
                    .flatten()
                    .ok_or_else(|| {
                        self.bad_animation(
                            format!("skins[{s}].joints[{j}]"),
                            "a node of the scene",
                            format!("nodes[{}], which is not in it", joint.index()),
                        )
                    })?;
                joints.push(index);
            }
            let inverse_bind = match skin.inverse_bind_matrices() {
                Some(accessor) => {
                    let usage = format!("inverseBindMatrices of skins[{s}]");
                    self.sources.check_accessor(&accessor, &usage, &MATRICES)?;
                    let sources = &self.sources;
                    let reader = skin.reader(|buffer| sources.buffer(buffer.index()));
                    let matrices: Vec<glam::Mat4> = reader
                        .read_inverse_bind_matrices()
                        .map(|m| m.map(|m| glam::Mat4::from_cols_array_2d(&m)).collect())
                        .unwrap_or_default();
                    if matrices.len() != joints.len() || matrices.iter().any(|m| !m.is_finite()) {
                        return Err(self.bad_animation(
                            format!("skins[{s}].inverseBindMatrices"),
                            "one finite matrix per joint",
                            format!("{} matrices for {} joints", matrices.len(), joints.len()),
                        ));
                    }
                    matrices
                }
                // The glTF default: identity matrices.
                None => vec![glam::Mat4::IDENTITY; joints.len()],
            };
            let bind_rows = (inverse_bind.iter())
                .map(|m| Affine3x4::from_affine(&glam::Affine3A::from_mat4(*m)))
                .collect();
            skins.push(ModelSkin {
                name: skin.name().unwrap_or_default().to_owned(),
                joints,
                inverse_bind,
                bind_rows,
                skeleton: skin
                    .skeleton()
                    .and_then(|n| node_map.get(n.index()).copied().flatten()),
            });
        }
        Ok(skins)
    }
}

/// The gltf crate's animation and skin accessors unwrap their indices: every
/// index they follow is checked here first, before the schema check (which
/// does not look into channel targets).
pub(super) fn check_indices(
    root: &gltf::json::Root,
    path: &std::path::Path,
) -> Result<(), GltfError> {
    use gltf::json::validation::Checked;
    let bad = |element: String, expected: String, found: String| GltfError::BadAnimation {
        path: path.to_path_buf(),
        element,
        expected,
        found,
    };
    let (nodes, accessors) = (root.nodes.len(), root.accessors.len());
    let index = |element: String, what: &str, value: usize, len: usize| {
        if value < len {
            Ok(())
        } else {
            Err(bad(
                element,
                format!("{what} index below {len}"),
                value.to_string(),
            ))
        }
    };
    for (a, animation) in root.animations.iter().enumerate() {
        for (s, sampler) in animation.samplers.iter().enumerate() {
            let element = format!("animations[{a}].samplers[{s}]");
            index(
                format!("{element}.input"),
                "an accessor",
                sampler.input.value(),
                accessors,
            )?;
            index(
                format!("{element}.output"),
                "an accessor",
                sampler.output.value(),
                accessors,
            )?;
            if let Checked::Invalid = sampler.interpolation {
                return Err(bad(
                    element,
                    "LINEAR, STEP or CUBICSPLINE".into(),
                    "another".into(),
                ));
            }
        }
        for (c, channel) in animation.channels.iter().enumerate() {
            let element = format!("animations[{a}].channels[{c}]");
            let samplers = animation.samplers.len();
            index(
                format!("{element}.sampler"),
                "a sampler",
                channel.sampler.value(),
                samplers,
            )?;
            index(
                format!("{element}.target.node"),
                "a node",
                channel.target.node.value(),
                nodes,
            )?;
            if let Checked::Invalid = channel.target.path {
                return Err(bad(
                    format!("{element}.target.path"),
                    "translation, rotation, scale or weights".into(),
                    "another".into(),
                ));
            }
        }
    }
    for (n, node) in root.nodes.iter().enumerate() {
        if let Some(skin) = node.skin {
            index(
                format!("nodes[{n}].skin"),
                "a skin",
                skin.value(),
                root.skins.len(),
            )?;
        }
    }
    for (s, skin) in root.skins.iter().enumerate() {
        for (j, joint) in skin.joints.iter().enumerate() {
            index(
                format!("skins[{s}].joints[{j}]"),
                "a node",
                joint.value(),
                nodes,
            )?;
        }
        if let Some(skeleton) = skin.skeleton {
            index(
                format!("skins[{s}].skeleton"),
                "a node",
                skeleton.value(),
                nodes,
            )?;
        }
        if let Some(matrices) = skin.inverse_bind_matrices {
            let element = format!("skins[{s}].inverseBindMatrices");
            index(element, "an accessor", matrices.value(), accessors)?;
        }
    }
    Ok(())
}
