//! Animation clips as imported: keyframes stored for sampling speed.
//!
//! Data locality: a clip keeps every channel's key times in one array and every
//! channel's values in another (struct of arrays, one allocation each), and a
//! channel is two ranges into them. A sampler keeps a cursor per channel (the
//! key it found last), so playing forward costs a step or two along the keys,
//! not a binary search per channel per step.

use glam::{Quat, Vec3, Vec4};

use crate::transform::F4;

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
    /// Every channel's key times, run after run, each increasing (channels
    /// with the same times share a run).
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
    /// falls back to a binary search. Weights channels sample as `None`: they
    /// go through [`Clip::sample_weights`].
    pub fn sample(&self, c: usize, t: f32, cursor: &mut u32) -> Option<Sample> {
        let channel = &self.channels[c];
        let (keys, values) = self.parts(channel);
        let (k, u, dt) = locate(keys, t, cursor);
        let next = (k + 1).min(keys.len() - 1);
        let cubic = channel.interpolation == Interpolation::CubicSpline;
        // Per key: the value (at `width * 1` into a cubic key's in, value, out).
        let (width, stride) = (
            channel.width as usize,
            channel.width as usize * if cubic { 3 } else { 1 },
        );
        let at = |key: usize, part: usize| key * stride + part * width;
        let value = if cubic { 1 } else { 0 };
        match channel.property {
            Property::Translation | Property::Scale => {
                let v3 = |i: usize| Vec3::from_slice(&values[i..i + 3]);
                let (a, b) = (v3(at(k, value)), v3(at(next, value)));
                Some(Sample::Vec3(match channel.interpolation {
                    Interpolation::Step => a,
                    Interpolation::Linear => a.lerp(b, u),
                    Interpolation::CubicSpline => {
                        hermite(a, v3(at(k, 2)) * dt, b, v3(at(next, 0)) * dt, u)
                    }
                }))
            }
            Property::Rotation => {
                let q = |i: usize| Quat::from_slice(&values[i..i + 4]);
                let (a, b) = (q(at(k, value)), q(at(next, value)));
                // Keys are unit quaternions (normalised on import), and slerp
                // returns one: only the spline's result needs normalising.
                let r = match channel.interpolation {
                    Interpolation::Step => a,
                    // Shortest path: slerp flips b when the two are more than 180° apart.
                    Interpolation::Linear if u == 0.0 => a,
                    Interpolation::Linear => slerp(a, b, u),
                    Interpolation::CubicSpline => {
                        let v = hermite(
                            glam::Vec4::from(a),
                            glam::Vec4::from(q(at(k, 2))) * dt,
                            glam::Vec4::from(b),
                            glam::Vec4::from(q(at(next, 0))) * dt,
                            u,
                        );
                        Quat::from_vec4(v).normalize()
                    }
                };
                Some(Sample::Quat(r))
            }
            Property::Weights => None,
        }
    }
}

impl Clip {
    /// Weights channel `c` at time `t` blended into `out` by `blend` (1
    /// replaces); `out` takes the first `width` weights. `cursor` as in
    /// [`Clip::sample`]. Does nothing for other channels.
    pub fn sample_weights(&self, c: usize, t: f32, cursor: &mut u32, blend: f32, out: &mut [f32]) {
        let channel = &self.channels[c];
        if channel.property != Property::Weights {
            return;
        }
        let (keys, values) = self.parts(channel);
        let (k, u, dt) = locate(keys, t, cursor);
        let next = (k + 1).min(keys.len() - 1);
        let width = channel.width as usize;
        let cubic = channel.interpolation == Interpolation::CubicSpline;
        let stride = width * if cubic { 3 } else { 1 };
        let value = if cubic { width } else { 0 };
        for (i, slot) in out.iter_mut().take(width).enumerate() {
            let at = |key: usize, part: usize| values[key * stride + part + i];
            let (a, b) = (at(k, value), at(next, value));
            let w = match channel.interpolation {
                Interpolation::Step => a,
                Interpolation::Linear => a + (b - a) * u,
                Interpolation::CubicSpline => {
                    hermite(a, at(k, 2 * width) * dt, b, at(next, 0) * dt, u)
                }
            };
            *slot += (w - *slot) * blend.min(1.0);
        }
    }
}

/// Spherical interpolation along the shortest path without trigonometry.
/// Keys of a clip are close together (cos Ω ≥ 0.6: at most 106° apart):
/// there the weights `sin(tΩ) / sin Ω` and `sin((1 - t)Ω) / sin Ω` are
/// polynomials in `t²` and `cos Ω` (D. Eberly, "A Fast and Accurate Estimate
/// for SLERP", revised: eight terms, the last corrected by μ; four for the
/// usual keys, within 20° of each other: `NEAR`), a few dozen
/// multiply-adds with no square root or division, within 4.2e-7 of glam's
/// slerp. Farther apart, where that estimate drifts (to 3e-5),
/// `slerp_wide`. Within 1e-6 of glam's slerp per component and of unit
/// length everywhere (tested): a crowd samples 272,000 of these a step.
#[inline]
pub fn slerp(a: Quat, b: Quat, t: f32) -> Quat {
    let d = a.dot(b);
    let (b, x) = if d < 0.0 { (-b, -d) } else { (b, d) };
    if x < 0.6 {
        return slerp_wide(a, b, x, t);
    }
    let s = 1.0 - t;
    // Both weights at once, in two lanes: (t, 1 - t).
    let (sq, xm1) = (F4::new(t * t, s * s, 0.0, 0.0), F4::splat(x.min(1.0) - 1.0));
    let c = if x >= NEAR {
        eberly_near(sq, xm1)
    } else {
        eberly(sq, xm1)
    }
    .to_vec4();
    let (va, vb) = (F4::from_vec4(Vec4::from(a)), F4::from_vec4(Vec4::from(b)));
    Quat::from_vec4((va * (s * c.y) + vb * (t * c.x)).to_vec4())
}

/// Two [`slerp`]s at the same `t` (the rotations of a rig's clip share their
/// key times) in the lanes of one vector: the same values, bit for bit, for
/// half the work. Always inlined: returned through memory, the pair waits
/// on the store.
#[inline(always)]
pub fn slerp_pair(a: [Quat; 2], b: [Quat; 2], t: f32) -> [Quat; 2] {
    let (d0, d1) = (a[0].dot(b[0]), a[1].dot(b[1]));
    let (b0, x0) = if d0 < 0.0 { (-b[0], -d0) } else { (b[0], d0) };
    let (b1, x1) = if d1 < 0.0 { (-b[1], -d1) } else { (b[1], d1) };
    // Each lane takes the path `slerp` would take alone.
    let near = x0 >= NEAR;
    if x0 < 0.6 || x1 < 0.6 || near != (x1 >= NEAR) {
        return [slerp(a[0], b[0], t), slerp(a[1], b[1], t)];
    }
    let s = 1.0 - t;
    let (tt, ss) = (t * t, s * s);
    let (m0, m1) = (x0.min(1.0) - 1.0, x1.min(1.0) - 1.0);
    let (sq, xm1) = (F4::new(tt, ss, tt, ss), F4::new(m0, m0, m1, m1));
    let c = if near {
        eberly_near(sq, xm1)
    } else {
        eberly(sq, xm1)
    }
    .to_vec4();
    let blend = |a: Quat, b: Quat, ct: f32, cs: f32| {
        let (a, b) = (F4::from_vec4(Vec4::from(a)), F4::from_vec4(Vec4::from(b)));
        Quat::from_vec4((a * (s * cs) + b * (t * ct)).to_vec4())
    };
    [blend(a[0], b0, c.x, c.y), blend(a[1], b1, c.z, c.w)]
}

/// From this cos Ω on (Ω, the angle between the two quaternions, within
/// 20°: keys of a rotation turning less than 40° between them, as a clip's
/// keys do), four terms of Eberly's series are enough: the next ones add
/// less than 1e-8, under an `f32`'s rounding.
const NEAR: f32 = 0.94;

/// [`eberly`] for keys [`NEAR`] each other: the first four terms,
/// `1 + b0 (1 + b1 (1 + b2 (1 + b3)))`.
#[inline]
fn eberly_near(sq: F4, xm1: F4) -> F4 {
    let b = |i: usize| {
        let n = (i + 1) as f32;
        let d = (2 * i + 3) as f32;
        (F4::splat(1.0 / (n * d)) * sq - F4::splat(n / d)) * xm1
    };
    let one = F4::splat(1.0);
    one + b(0) * (one + b(1) * (one + b(2) * (one + b(3))))
}

/// Eberly's estimate of `sin(uΩ) / (u sin Ω)` per lane, for `sq` = u² and
/// `xm1` = cos Ω - 1: `1 + b0 (1 + b1 (... (1 + b7)))` with
/// `b_i = (u_i u² - v_i)(cos Ω - 1)`, the last term corrected by μ.
#[inline]
fn eberly(sq: F4, xm1: F4) -> F4 {
    const MU: f32 = 1.852_981_1;
    const U: [f32; 8] = [
        1.0 / (1.0 * 3.0),
        1.0 / (2.0 * 5.0),
        1.0 / (3.0 * 7.0),
        1.0 / (4.0 * 9.0),
        1.0 / (5.0 * 11.0),
        1.0 / (6.0 * 13.0),
        1.0 / (7.0 * 15.0),
        MU / (8.0 * 17.0),
    ];
    const V: [f32; 8] = [
        1.0 / 3.0,
        2.0 / 5.0,
        3.0 / 7.0,
        4.0 / 9.0,
        5.0 / 11.0,
        6.0 / 13.0,
        7.0 / 15.0,
        MU * 8.0 / 17.0,
    ];
    let b: [F4; 8] = std::array::from_fn(|i| (F4::splat(U[i]) * sq - F4::splat(V[i])) * xm1);
    // Two chains of four instead of one of eight (they run side by side):
    // 1 + b0 (1 + b1 (1 + b2 (1 + b3))) + b0 b1 b2 b3 b4 (1 + b5 (...)).
    let one = F4::splat(1.0);
    let high = b[4] * (one + b[5] * (one + b[6] * (one + b[7])));
    let low = one + b[0] * (one + b[1] * (one + b[2] * (one + b[3])));
    let product = (b[0] * b[1]) * (b[2] * b[3]);
    low + product * high
}

/// [`slerp`] for rotations far apart (`x` = cos Ω, below 0.6, `b` already
/// on `a`'s side): `acos` by Abramowitz and Stegun 4.4.46 (error 2e-8), `sin`
/// by its Taylor series to x^11 on [0, π/2] (error under 1e-8), `sin Ω` as
/// `sqrt(1 - x²)`.
#[cold]
fn slerp_wide(a: Quat, b: Quat, x: f32, t: f32) -> Quat {
    let omega = (1.0 - x).sqrt()
        * (std::f32::consts::FRAC_PI_2
            + x * (-0.214_598_8
                + x * (0.088_978_99
                    + x * (-0.050_174_3
                        + x * (0.030_891_88
                            + x * (-0.017_088_126 + x * (0.006_670_09 - x * 0.001_262_491)))))));
    let inv_sin = 1.0 / (1.0 - x * x).sqrt();
    let w0 = sin_quarter_turn((1.0 - t) * omega) * inv_sin;
    let w1 = sin_quarter_turn(t * omega) * inv_sin;
    let (va, vb) = (glam::Vec4::from(a), glam::Vec4::from(b));
    Quat::from_vec4(va * w0 + vb * w1).normalize()
}

/// `sin x` for x in [0, π/2], by Taylor series to x^11.
fn sin_quarter_turn(x: f32) -> f32 {
    let x2 = x * x;
    x * (1.0
        - x2 / 6.0 * (1.0 - x2 / 20.0 * (1.0 - x2 / 42.0 * (1.0 - x2 / 72.0 * (1.0 - x2 / 110.0)))))
}

/// glTF 2.0, Appendix C: the cubic Hermite spline
/// `p(u) = (2u³ - 3u² + 1) v0 + (u³ - 2u² + u) m0 + (-2u³ + 3u²) v1 + (u³ - u²) m1`,
/// with the tangents `m` already scaled by the key gap.
fn hermite<T>(v0: T, m0: T, v1: T, m1: T, u: f32) -> T
where
    T: std::ops::Mul<f32, Output = T> + std::ops::Add<Output = T>,
{
    let (u2, u3) = (u * u, u * u * u);
    v0 * (2.0 * u3 - 3.0 * u2 + 1.0)
        + m0 * (u3 - 2.0 * u2 + u)
        + v1 * (-2.0 * u3 + 3.0 * u2)
        + m1 * (u3 - u2)
}

/// The key `k` at or before `t` (first key before the first, last key after
/// the last), how far `t` lies towards key `k + 1` (0..1) and the gap between
/// them in seconds. Moves `cursor` forward when it can, else searches.
pub(crate) fn locate(keys: &[f32], t: f32, cursor: &mut u32) -> (usize, f32, f32) {
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
