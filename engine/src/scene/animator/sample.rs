//! Sampling an animator's clips: into the pose being built (any clip,
//! blended by a fade's weight) and then written to the bones that moved, or,
//! for the common clip of a rig played without a fade, straight into the
//! bones' locals.

use glam::{Quat, Vec3};

use super::{Binding, Columns, DEAD, Targets};
use crate::assets::animation::{Clip, Property, Sample, slerp, slerp_pair};

/// Poses the bones of `clip` at `t` into `binding.pose`, blended over what it
/// holds by `weight` (1 replaces).
pub(super) fn pose(
    clip: &Clip,
    t: f32,
    cursors: &mut Vec<u32>,
    weight: f32,
    mut targets: Targets<'_>,
) {
    cursors.resize(clip.channels.len(), 0);
    if weight >= 1.0 && pose_shared(clip, t, cursors, &mut targets) {
        return;
    }
    for (c, channel) in clip.channels.iter().enumerate() {
        if channel.property == Property::Weights {
            if let Some(&(_, start, len)) = targets.morphs.iter().find(|m| m.0 == channel.node) {
                let run = &mut targets.weights[start as usize..(start + len) as usize];
                clip.sample_weights(c, t, &mut cursors[c], weight, run);
            }
            continue;
        }
        let Some(local) = targets.pose_of(channel.node) else {
            continue;
        };
        let sample = clip.sample(c, t, &mut cursors[c]);
        match (channel.property, sample, weight >= 1.0) {
            (Property::Translation, Some(Sample::Vec3(v)), true) => local.translation = v,
            (Property::Translation, Some(Sample::Vec3(v)), false) => {
                local.translation = local.translation.lerp(v, weight);
            }
            (Property::Scale, Some(Sample::Vec3(v)), true) => local.scale = v,
            (Property::Scale, Some(Sample::Vec3(v)), false) => {
                local.scale = local.scale.lerp(v, weight)
            }
            (Property::Rotation, Some(Sample::Quat(q)), true) => local.rotation = q,
            (Property::Rotation, Some(Sample::Quat(q)), false) => {
                local.rotation = local.rotation.slerp(q, weight);
            }
            _ => {}
        }
    }
}

/// One channel's sample of a clip whose channels share their keys.
#[derive(Clone, Copy)]
enum Sampled {
    Translation(Vec3),
    Rotation(Quat),
    Scale(Vec3),
}

impl Sampled {
    fn apply(self, local: &mut crate::scene::Transform) {
        match self {
            Self::Translation(v) => local.translation = v,
            Self::Rotation(q) => local.rotation = q,
            Self::Scale(v) => local.scale = v,
        }
    }

    /// [`Sampled::apply`] when it changes `local` to a finite value (the
    /// rest of a local is finite already): true when written. Compares and
    /// checks the one property, not the whole transform.
    #[inline]
    fn write(self, local: &mut crate::scene::Transform) -> bool {
        match self {
            Self::Translation(v) => put_if_new(&mut local.translation, v, v.is_finite()),
            Self::Rotation(q) => put_if_new(&mut local.rotation, q, q.is_finite()),
            Self::Scale(v) => put_if_new(&mut local.scale, v, v.is_finite()),
        }
    }
}

/// `*slot = value` when it differs and is finite; whether it was written.
#[inline]
fn put_if_new<T: PartialEq>(slot: &mut T, value: T, finite: bool) -> bool {
    if *slot == value || !finite {
        return false;
    }
    *slot = value;
    true
}

/// Samples the common clip (a rig's): every channel a linear translation,
/// rotation or scale on one run of key times, so the time is placed among
/// the keys once (first channel's cursor) and each channel is two reads and
/// a blend, handed to `put` with its channel's index and model node. The
/// same values as the general path (it is the same arithmetic). Only for a
/// clip that [`shares_keys`] (callers ask, or remember the answer); false,
/// sampling nothing, for a clip without channels or keys.
#[inline]
fn sample_shared(
    clip: &Clip,
    t: f32,
    cursors: &mut [u32],
    mut put: impl FnMut(usize, u32, Sampled),
) -> bool {
    let Some(first) = clip.channels.first() else {
        return false;
    };
    let keys = first.keys.start as usize..first.keys.end as usize;
    let (Some(times), Some(cursor)) = (clip.times.get(keys), cursors.first_mut()) else {
        return false;
    };
    if times.is_empty() {
        return false;
    }
    let (k, u, _) = crate::assets::animation::locate(times, t, cursor);
    let next = (k + 1).min(times.len() - 1);
    // Rotations are blended two at a time (one vector, two slerps).
    let mut pending: Option<(usize, Quat, Quat)> = None;
    for (c, channel) in clip.channels.iter().enumerate() {
        let values = &clip.values[channel.values.start as usize..channel.values.end as usize];
        let width = channel.width as usize;
        let (a, b) = (&values[k * width..], &values[next * width..]);
        let sample = match channel.property {
            Property::Rotation => {
                let (a, b) = (Quat::from_slice(a), Quat::from_slice(b));
                if u == 0.0 {
                    Sampled::Rotation(a)
                } else if let Some((first, a0, b0)) = pending.take() {
                    let [q0, q1] = slerp_pair([a0, a], [b0, b], u);
                    put(first, clip.channels[first].node, Sampled::Rotation(q0));
                    Sampled::Rotation(q1)
                } else {
                    pending = Some((c, a, b));
                    continue;
                }
            }
            Property::Translation => {
                Sampled::Translation(Vec3::from_slice(a).lerp(Vec3::from_slice(b), u))
            }
            Property::Scale => Sampled::Scale(Vec3::from_slice(a).lerp(Vec3::from_slice(b), u)),
            Property::Weights => continue,
        };
        put(c, channel.node, sample);
    }
    if let Some((c, a, b)) = pending {
        put(c, clip.channels[c].node, Sampled::Rotation(slerp(a, b, u)));
    }
    true
}

/// Whether `clip` is the common clip [`sample_shared`] samples: every
/// channel a linear translation, rotation or scale on the same key times.
/// A property of the clip, found once when an animator takes it up.
pub(super) fn shares_keys(clip: &Clip) -> bool {
    let Some(first) = clip.channels.first() else {
        return false;
    };
    clip.channels.iter().all(|c| {
        c.keys == first.keys
            && c.interpolation == crate::assets::animation::Interpolation::Linear
            && c.property != Property::Weights
    })
}

/// [`pose`] for the common clip ([`sample_shared`]), into the pose.
fn pose_shared(clip: &Clip, t: f32, cursors: &mut [u32], targets: &mut Targets<'_>) -> bool {
    shares_keys(clip)
        && sample_shared(clip, t, cursors, |_, node, sample| {
            if let Some(local) = targets.pose_of(node) {
                sample.apply(local);
            }
        })
}

/// [`super::pose_with`] without a fade, for the common clip ([`sample_shared`]):
/// each sample goes straight into its bone's local, no pose built and
/// compared, each found by its channel (one lookup); a bone whose local
/// changes (to a finite value) becomes dirty, as [`write()`] makes it. False,
/// doing nothing, for any other clip.
pub(super) fn write_shared(
    columns: &mut Columns<'_>,
    state: &mut Binding,
    clip: &Clip,
    t: f32,
) -> bool {
    let Binding {
        slot,
        channel_dense,
        targets,
        dirtied,
        dirtied_count,
        cursors,
        shared_keys,
        ..
    } = state;
    cursors.resize(clip.channels.len(), 0);
    if !*shared_keys {
        return false;
    }
    sample_shared(clip, t, cursors, |c, node, sample| {
        let Some(&d) = channel_dense.get(c) else {
            return;
        };
        if d == DEAD {
            return;
        }
        let i = d as usize - columns.base;
        if sample.write(&mut columns.local[i]) && mark_dirty(columns, i) {
            *dirtied_count += 1;
            // (A crowd's bones are counted, not listed: no lookups then.)
            if columns.list
                && let Some(&at) = slot.get(node as usize)
                && let Some(&target) = targets.get(at as usize)
            {
                dirtied.push(target);
            }
        }
    })
}

/// Writes the pose at the places [`super::place`] found: only bones whose local
/// changes (to a finite value) are written and become dirty.
pub(super) fn write(columns: &mut Columns<'_>, state: &mut Binding) {
    for ((&target, pose), &d) in state.targets.iter().zip(&state.pose).zip(&state.dense) {
        if d != DEAD && set_bone(columns, d, *pose) {
            state.dirtied_count += 1;
            if columns.list {
                state.dirtied.push(target);
            }
        }
    }
}

/// Writes `local` to the bone at dense position `d` when it changes it (to
/// a finite value); a bone written becomes dirty. True when it was not
/// dirty before (the caller counts it, and lists it when the columns say so).
#[inline]
fn set_bone(columns: &mut Columns<'_>, d: u32, local: crate::scene::Transform) -> bool {
    let i = d as usize - columns.base;
    if columns.local[i] == local || !local.is_finite() {
        return false;
    }
    columns.local[i] = local;
    mark_dirty(columns, i)
}

/// Marks the bone at `i` (in `columns`) dirty; true when it was not yet.
#[inline]
fn mark_dirty(columns: &mut Columns<'_>, i: usize) -> bool {
    let fresh = columns.flags[i] & crate::scene::hierarchy::flag::DIRTY == 0;
    columns.flags[i] |= crate::scene::hierarchy::flag::DIRTY;
    fresh
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assets::animation::{Channel, Interpolation};
    use crate::scene::{NodeId, Transform};

    /// A clip of three nodes on one run of key times: translation, rotation
    /// (turning by more than the nlerp shortcut allows) and scale.
    fn clip() -> Clip {
        let times = vec![0.0, 0.5, 1.25, 2.0];
        let mut values = Vec::new();
        for k in 0..4 {
            values.extend([k as f32, 2.0 * k as f32, -(k as f32)]);
        }
        let rotations_at = values.len() as u32;
        for k in 0..4 {
            values.extend(Quat::from_rotation_y(k as f32 * 0.9).to_array());
        }
        let scales_at = values.len() as u32;
        for k in 0..4 {
            values.extend([1.0 + k as f32, 1.0, 0.5]);
        }
        let channel = |node, property, values: std::ops::Range<u32>, width| Channel {
            node,
            property,
            interpolation: Interpolation::Linear,
            keys: 0..4,
            values,
            width,
        };
        Clip {
            name: "shared".into(),
            duration: 2.0,
            times,
            channels: vec![
                channel(0, Property::Translation, 0..rotations_at, 3),
                channel(1, Property::Rotation, rotations_at..scales_at, 4),
                channel(2, Property::Scale, scales_at..values.len() as u32, 3),
            ],
            values,
        }
    }

    /// The shared-keys path gives exactly what sampling each channel gives,
    /// at keys, between them, and past either end, moving and jumping back.
    #[test]
    fn the_shared_keys_path_equals_sampling_each_channel() {
        let clip = clip();
        let mut cursors = vec![0; 3];
        let mut sample_cursors = [0; 3];
        for t in [0.0, 0.2, 0.5, 0.9, 1.25, 1.9, 2.0, 2.5, 0.1, -1.0] {
            let mut pose = vec![Transform::IDENTITY; 3];
            let mut targets = Targets {
                slot: &[0, 1, 2],
                pose: &mut pose,
                morphs: &[],
                weights: &mut [],
            };
            assert!(pose_shared(&clip, t, &mut cursors, &mut targets));
            for (c, channel) in clip.channels.iter().enumerate() {
                let got = pose[channel.node as usize];
                match clip.sample(c, t, &mut sample_cursors[c]) {
                    Some(Sample::Vec3(v)) if channel.property == Property::Translation => {
                        assert_eq!(got.translation, v, "t {t}");
                    }
                    Some(Sample::Vec3(v)) => assert_eq!(got.scale, v, "t {t}"),
                    Some(Sample::Quat(q)) => assert_eq!(got.rotation, q, "t {t}"),
                    None => panic!("every channel samples"),
                }
            }
        }
        // Another kind of channel: the general path.
        let mut stepped = clip.clone();
        stepped.channels[1].interpolation = Interpolation::Step;
        let mut pose = vec![Transform::IDENTITY; 3];
        let mut targets = Targets {
            slot: &[0, 1, 2],
            pose: &mut pose,
            morphs: &[],
            weights: &mut [],
        };
        assert!(!pose_shared(&stepped, 0.3, &mut cursors, &mut targets));
    }

    /// Writing the samples straight into the locals gives the locals and
    /// dirty bones that building a pose and writing it gives, over bones
    /// at rest, moving, already dirty, and one that is gone; listed or only
    /// counted.
    #[test]
    fn writing_shared_samples_in_place_equals_posing_then_writing() {
        let clip = clip();
        let nodes: Vec<NodeId> = (1..=3)
            .map(|i| NodeId::new(i, std::num::NonZeroU32::new(1).unwrap()))
            .collect();
        let binding = || Binding {
            slot: vec![0, 1, 2],
            // Bone 2 is gone; bones 0 and 1 live at 5 and 3.
            dense: vec![5, 3, DEAD],
            channel_dense: vec![5, 3, DEAD],
            shared_keys: true,
            targets: nodes.clone(),
            pose: vec![Transform::IDENTITY; 3],
            ..Binding::default()
        };
        let start = |t: f32| {
            let mut local = vec![Transform::from_translation(Vec3::splat(9.0)); 8];
            // Bone 0 already where the clip puts it at t = 0.
            local[5] = Transform::from_translation(Vec3::ZERO);
            let mut flags = vec![0u8; 8];
            flags[3] = crate::scene::hierarchy::flag::DIRTY * u8::from(t > 1.0);
            (local, flags)
        };
        for (t, list) in [0.0, 0.3, 1.25, 1.7, 2.4]
            .into_iter()
            .flat_map(|t| [(t, true), (t, false)])
        {
            let (mut local, mut flags) = start(t);
            let mut direct = binding();
            let mut columns = Columns {
                base: 0,
                local: &mut local,
                flags: &mut flags,
                list,
            };
            assert!(write_shared(&mut columns, &mut direct, &clip, t));
            let (mut local2, mut flags2) = start(t);
            let mut posed = binding();
            for (pose, &d) in posed.pose.iter_mut().zip(&posed.dense) {
                if d != DEAD {
                    *pose = local2[d as usize];
                }
            }
            let (cursors, mut targets) = posed.targets(false);
            cursors.resize(3, 0);
            assert!(pose_shared(&clip, t, cursors, &mut targets));
            let mut columns2 = Columns {
                base: 0,
                local: &mut local2,
                flags: &mut flags2,
                list,
            };
            write(&mut columns2, &mut posed);
            assert_eq!(local, local2, "t {t}");
            assert_eq!(flags, flags2, "t {t}");
            assert_eq!(direct.dirtied, posed.dirtied, "t {t}");
            assert_eq!(direct.dirtied_count, posed.dirtied_count, "t {t}");
            let moved = flags.iter().filter(|&&f| f != 0).count() - usize::from(t > 1.0);
            assert_eq!(direct.dirtied_count, moved, "t {t}: the bones made dirty");
            assert_eq!(direct.dirtied.len(), if list { moved } else { 0 }, "t {t}");
        }
    }
}
