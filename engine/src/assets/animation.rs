//! Animation clips as imported: keyframes stored for sampling speed.
//!
//! Data locality: a clip keeps every channel's key times in one array and every
//! channel's values in another (struct of arrays, one allocation each), and a
//! channel is two ranges into them. A sampler keeps a cursor per channel (the
//! key it found last), so playing forward costs a step or two along the keys,
//! not a binary search per channel per step.

use glam::{Quat, Vec3};

/// How a channel moves between its keys (glTF `sampler.interpolation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// Holds each key's value until the next key.
    Step,
    /// Straight lines (spherical for rotations, shortest path).
    Linear,
    /// Cubic Hermite splines with the file's in and out tangents.
    CubicSpline,
}

/// What a channel animates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    /// Translation (3 values a key).
    Translation,
    /// Rotation, a quaternion x, y, z, w (4 values a key).
    Rotation,
    /// Scale (3 values a key).
    Scale,
    /// Morph target weights (as many values a key as the mesh has targets).
    Weights,
}

/// One animated property of one node.
#[derive(Clone, Debug, PartialEq)]
pub struct Channel {
    /// The node, as an index into [`super::ModelData::nodes`].
    pub node: u32,
    /// What it animates.
    pub property: Property,
    /// How it interpolates.
    pub interpolation: Interpolation,
    /// Its key times: a range of [`Clip::times`].
    pub keys: std::ops::Range<u32>,
    /// Its values: a range of [`Clip::values`] (per key: `width` values, or
    /// in-tangent, value and out-tangent for cubic splines).
    pub values: std::ops::Range<u32>,
    /// Values per key (3, 4, or the number of morph targets).
    pub width: u32,
}

/// A named animation: channels sharing one timeline.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    /// The name in the file (or `animation N`).
    pub name: String,
    /// Seconds from 0 to the last key of any channel.
    pub duration: f32,
    /// Every channel's key times, channel after channel, each run increasing.
    pub times: Vec<f32>,
    /// Every channel's key values.
    pub values: Vec<f32>,
    /// The channels.
    pub channels: Vec<Channel>,
}

/// A sampled channel value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sample {
    /// A translation or a scale.
    Vec3(Vec3),
    /// A rotation (unit quaternion).
    Quat(Quat),
}

impl Clip {
    /// The key run and values of `channel`.
    fn parts(&self, channel: &Channel) -> (&[f32], &[f32]) {
        let keys = &self.times[channel.keys.start as usize..channel.keys.end as usize];
        let values = &self.values[channel.values.start as usize..channel.values.end as usize];
        (keys, values)
    }

    /// Channel `c` at time `t` (clamped to its keys). `cursor` is the key found
    /// last: moving forward from it costs what the keys passed; anything else
    /// falls back to a binary search. Weights channels sample as `None` here
    /// (see [`Clip::sample_weights`]).
    pub fn sample(&self, c: usize, t: f32, cursor: &mut u32) -> Option<Sample> {
        let channel = &self.channels[c];
        let (keys, values) = self.parts(channel);
        let (k, u, dt) = locate(keys, t, cursor);
        let width = channel.width as usize;
        let read = |i: usize| -> [f32; 4] {
            let mut out = [0.0; 4];
            out[..width.min(4)].copy_from_slice(&values[i..i + width.min(4)]);
            out
        };
        let stride = if channel.interpolation == Interpolation::CubicSpline {
            3 * width
        } else {
            width
        };
        let value_at = |key: usize| -> usize {
            key * stride
                + if channel.interpolation == Interpolation::CubicSpline {
                    width
                } else {
                    0
                }
        };
        let next = (k + 1).min(keys.len() - 1);
        let blend = |a: [f32; 4], b: [f32; 4]| -> [f32; 4] {
            match channel.interpolation {
                Interpolation::Step => a,
                Interpolation::Linear => std::array::from_fn(|i| a[i] + (b[i] - a[i]) * u),
                Interpolation::CubicSpline => {
                    // glTF 2.0, Appendix C: p(u) = (2u³ - 3u² + 1) v0 + (u³ - 2u² + u) dt b0
                    //                               + (-2u³ + 3u²) v1 + (u³ - u²) dt a1.
                    let out0 = read(k * stride + 2 * width);
                    let in1 = read(next * stride);
                    let (u2, u3) = (u * u, u * u * u);
                    std::array::from_fn(|i| {
                        (2.0 * u3 - 3.0 * u2 + 1.0) * a[i]
                            + (u3 - 2.0 * u2 + u) * dt * out0[i]
                            + (-2.0 * u3 + 3.0 * u2) * b[i]
                            + (u3 - u2) * dt * in1[i]
                    })
                }
            }
        };
        let (a, b) = (read(value_at(k)), read(value_at(next)));
        match channel.property {
            Property::Translation | Property::Scale => {
                let v = blend(a, b);
                Some(Sample::Vec3(Vec3::new(v[0], v[1], v[2])))
            }
            Property::Rotation => {
                let (qa, qb) = (Quat::from_array(a), Quat::from_array(b));
                let q = match channel.interpolation {
                    Interpolation::Step => qa,
                    // Shortest path: slerp flips b when the two are more than 180° apart.
                    Interpolation::Linear => qa.slerp(qb, u),
                    Interpolation::CubicSpline => Quat::from_array(blend(a, b)),
                };
                Some(Sample::Quat(q.normalize()))
            }
            Property::Weights => None,
        }
    }

    /// A weights channel at time `t` into `out` (one weight per morph target).
    pub fn sample_weights(&self, c: usize, t: f32, cursor: &mut u32, out: &mut [f32]) {
        let channel = &self.channels[c];
        let (keys, values) = self.parts(channel);
        let (k, u, dt) = locate(keys, t, cursor);
        let width = channel.width as usize;
        let next = (k + 1).min(keys.len() - 1);
        let n = width.min(out.len());
        for (i, w) in out[..n].iter_mut().enumerate() {
            *w = match channel.interpolation {
                Interpolation::Step => values[k * width + i],
                Interpolation::Linear => {
                    let (a, b) = (values[k * width + i], values[next * width + i]);
                    a + (b - a) * u
                }
                Interpolation::CubicSpline => {
                    let s = 3 * width;
                    let (a, b) = (values[k * s + width + i], values[next * s + width + i]);
                    let (out0, in1) = (values[k * s + 2 * width + i], values[next * s + i]);
                    let (u2, u3) = (u * u, u * u * u);
                    (2.0 * u3 - 3.0 * u2 + 1.0) * a
                        + (u3 - 2.0 * u2 + u) * dt * out0
                        + (-2.0 * u3 + 3.0 * u2) * b
                        + (u3 - u2) * dt * in1
                }
            };
        }
    }

    /// The index of the channel targeting `node`'s `property`, if any.
    pub fn channel_of(&self, node: u32, property: Property) -> Option<usize> {
        self.channels
            .iter()
            .position(|c| c.node == node && c.property == property)
    }
}

/// The key `k` at or before `t` (first key before the first, last key after
/// the last), how far `t` lies towards key `k + 1` (0..1) and the gap between
/// them in seconds. Moves `cursor` forward when it can, else searches.
fn locate(keys: &[f32], t: f32, cursor: &mut u32) -> (usize, f32, f32) {
    let last = keys.len() - 1;
    let mut k = (*cursor as usize).min(last);
    if keys[k] > t {
        // Backwards (a loop wrapped, a seek): search.
        k = keys.partition_point(|&key| key <= t).saturating_sub(1);
    } else {
        // Forward: a few keys at most per step.
        let mut walked = 0;
        while k < last && keys[k + 1] <= t {
            k += 1;
            walked += 1;
            if walked == 8 {
                k = k + keys[k..].partition_point(|&key| key <= t).saturating_sub(1);
                break;
            }
        }
    }
    *cursor = k as u32;
    if k == last || t <= keys[k] {
        return (k, 0.0, 0.0);
    }
    let dt = keys[k + 1] - keys[k];
    let u = if dt > 0.0 {
        ((t - keys[k]) / dt).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (k, u, dt)
}

#[cfg(test)]
mod tests;
