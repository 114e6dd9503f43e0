//! World transforms as the scene stores them: 3x4 affine matrices by rows
//! ([`Affine3x4`]), 48 bytes where a `glam::Affine3A` takes 64 (each of its
//! four columns pads a fourth lane). Every pass over the world columns
//! streams them: propagation writes one a node, joint packing reads one a
//! joint, extraction and interpolation read two a mesh; a quarter fewer bytes
//! is a quarter less of what bounds those passes. The rows are also what the
//! vertex shader reads, so packing a transform for the GPU is a copy.
//!
//! Here too is the interpolation kernel that draws a node between its last
//! two fixed steps.
//!
//! Pattern: data locality.

use glam::{Affine3A, Mat4, Vec3A, Vec4};

use super::Transform;
use super::lanes::F4;

/// A 3x4 affine matrix by rows: row `i` holds the `i`-th row of the
/// rotation-scale matrix in `x`, `y`, `z` and the translation's `i`-th
/// component in `w`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Affine3x4 {
    /// The three rows.
    pub rows: [Vec4; 3],
}

impl Default for Affine3x4 {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Affine3x4 {
    /// The identity.
    pub const IDENTITY: Self = Self {
        rows: [Vec4::X, Vec4::Y, Vec4::Z],
    };

    /// Every element 0 (collapses what it transforms to the origin).
    pub const ZERO: Self = Self {
        rows: [Vec4::ZERO; 3],
    };

    /// The rows of `m`.
    #[inline]
    #[must_use]
    pub fn from_affine(m: &Affine3A) -> Self {
        // Transposing the SIMD 3x3 and appending the translation keeps every
        // value in registers.
        let t = m.matrix3.transpose();
        let w = m.translation;
        Self {
            rows: [
                t.x_axis.extend(w.x),
                t.y_axis.extend(w.y),
                t.z_axis.extend(w.z),
            ],
        }
    }

    /// The affine matrix back.
    #[inline]
    #[must_use]
    pub fn to_affine(&self) -> Affine3A {
        let [x, y, z] = self.rows;
        let cols = Mat4::from_cols(x, y, z, Vec4::W).transpose();
        Affine3A::from_cols(
            Vec3A::from_vec4(cols.x_axis),
            Vec3A::from_vec4(cols.y_axis),
            Vec3A::from_vec4(cols.z_axis),
            Vec3A::from_vec4(cols.w_axis),
        )
    }

    /// The matrix of a local transform: scale, then rotation, then translation.
    #[inline]
    #[must_use]
    pub fn from_transform(local: &Transform) -> Self {
        // The rotation's elements three at a time (the lanes of a vector,
        // `w` unused): the diagonal, and the off-diagonal sums and differences.
        let q = F4::from_vec4(Vec4::from(local.rotation));
        let q2 = q + q;
        let squares = q * q2;
        let diagonal =
            F4::splat(1.0) - (squares.swizzle::<1, 0, 0, 3>() + squares.swizzle::<2, 2, 1, 3>());
        let products = q.swizzle::<0, 0, 1, 3>() * q2.swizzle::<1, 2, 2, 3>();
        let turns = q.swizzle::<3, 3, 3, 3>() * q2.swizzle::<2, 1, 0, 3>();
        // (r10, r02, r21) and (r01, r20, r12).
        let (d, p, m) = (
            diagonal.to_vec4(),
            (products + turns).to_vec4(),
            (products - turns).to_vec4(),
        );
        let t = local.translation;
        // Column j of the rotation scaled by the scale's j-th component.
        let s = local.scale;
        let scale = F4::new(s.x, s.y, s.z, 1.0);
        let row = |x, y, z, w| (F4::new(x, y, z, w) * scale).to_vec4();
        Self {
            rows: [
                row(d.x, m.x, p.y, t.x),
                row(p.x, d.y, m.z, t.y),
                row(m.y, p.z, d.z, t.z),
            ],
        }
    }

    /// `self * rhs`: `rhs` applied first.
    #[inline]
    #[must_use]
    pub fn mul(&self, rhs: &Self) -> Self {
        let [a, b, c] = rhs.rows.map(F4::from_vec4);
        // Row i of the product: the row's first three elements weigh the
        // rows of `rhs`, and its translation adds in `w`. Summed as a tree:
        // propagation's chains of bones wait on this (each world is the next
        // one's parent), and a tree is two additions deep, a chain three.
        let row = |r: Vec4| {
            let r = F4::from_vec4(r);
            let w = F4::new(0.0, 0.0, 0.0, r.lane::<3>());
            ((r.swizzle::<0, 0, 0, 0>() * a + r.swizzle::<1, 1, 1, 1>() * b)
                + (r.swizzle::<2, 2, 2, 2>() * c + w))
                .to_vec4()
        };
        Self {
            rows: self.rows.map(row),
        }
    }

    /// The rows as arrays (the GPU's layout).
    #[inline]
    #[must_use]
    pub fn to_array(&self) -> [[f32; 4]; 3] {
        self.rows.map(|r| r.to_array())
    }

    /// The translation.
    #[inline]
    #[must_use]
    pub fn translation(&self) -> glam::Vec3 {
        let [x, y, z] = self.rows;
        glam::Vec3::new(x.w, y.w, z.w)
    }

    /// Whether every element is finite.
    #[must_use]
    pub fn is_finite(&self) -> bool {
        self.rows.iter().all(|r| r.is_finite())
    }
}

/// Largest change of a world matrix element between two fixed steps, relative
/// to the matrix's size, that interpolation blends directly: a rotation of
/// 0.02 rad shrinks the blended axes by at most 0.02^2 / 8 = 5e-5.
const SMALL_CHANGE: f32 = 0.02;

/// The interpolation kernel, inlined into the loops over every mesh and
/// joint: `out` = the transform `alpha` of the way from `prev` to `current`.
/// The common small change is a few vector operations, the rare
/// decomposition is kept out of line.
#[inline]
pub(crate) fn interpolate(prev: &Affine3x4, current: &Affine3x4, alpha: f32, out: &mut Affine3x4) {
    if alpha >= 1.0 {
        // The current step itself (a frame right on a step, a joint palette for the step).
        *out = *current;
        return;
    }
    let [p0, p1, p2] = prev.rows.map(F4::from_vec4);
    let [c0, c1, c2] = current.rows.map(F4::from_vec4);
    // The largest change and the largest element of the rotation-scale (the
    // x, y, z lanes of the rows), both found in one vector.
    let m = (c0 - p0).abs().max((c1 - p1).abs()).max((c2 - p2).abs());
    let s = c0.abs().max(c1.abs()).max(c2.abs());
    let (m, s) = (m.to_vec4(), s.to_vec4());
    let pairs = F4::new(m.x, m.y, s.x, s.y).max(F4::new(m.z, m.z, s.z, s.z));
    let maxima = pairs.max(pairs.swizzle::<1, 0, 3, 2>()).to_vec4();
    let (change, size) = (maxima.x, maxima.z);
    if change <= SMALL_CHANGE * size {
        // No change is exact: a node at rest is drawn where it is, not a rounding off.
        let (pw, cw) = (prev.rows.map(|r| r.w), current.rows.map(|r| r.w));
        if change == 0.0 && pw == cw {
            *out = *current;
            return;
        }
        // A small change between two fixed steps (the usual case): blending the
        // matrices is within 1e-4 of lerp + slerp and needs no decomposition.
        let (s, t) = (F4::splat(1.0 - alpha), F4::splat(alpha));
        let blend = |p: F4, c: F4| (p * s + c * t).to_vec4();
        out.rows = [blend(p0, c0), blend(p1, c1), blend(p2, c2)];
        return;
    }
    interpolate_large(prev, current, alpha, out);
}

/// Interpolation across a large change (or of non-finite matrices): scale and
/// translation linearly, rotation spherically.
#[cold]
#[inline(never)]
fn interpolate_large(prev: &Affine3x4, current: &Affine3x4, alpha: f32, out: &mut Affine3x4) {
    if prev == current {
        *out = *current;
        return;
    }
    let (s0, r0, t0) = prev.to_affine().to_scale_rotation_translation();
    let (s1, r1, t1) = current.to_affine().to_scale_rotation_translation();
    *out = Affine3x4::from_affine(&Affine3A::from_scale_rotation_translation(
        s0.lerp(s1, alpha),
        r0.slerp(r1, alpha),
        t0.lerp(t1, alpha),
    ));
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;

    fn transforms() -> Vec<Transform> {
        let mut out = vec![Transform::IDENTITY];
        for i in 0..40 {
            let f = i as f32;
            out.push(Transform {
                translation: Vec3::new(
                    crate::math::sin(f) * 9.0,
                    f * 0.7 - 3.0,
                    crate::math::cos(f * 1.3),
                ),
                rotation: Quat::from_euler(glam::EulerRot::YXZ, f * 0.9, f * 0.4 - 1.0, f * 0.21)
                    .normalize(),
                scale: Vec3::new(
                    1.0 + crate::math::sin(f * 0.3) * 0.5,
                    0.5 + f * 0.05,
                    2.0 - f * 0.02,
                ),
            });
        }
        out
    }

    /// Rows and `Affine3A` agree: both ways, from a local transform, and in
    /// products (a parent's world times a child's local).
    #[test]
    fn rows_match_affine_matrices() {
        let all = transforms();
        for (i, a) in all.iter().enumerate() {
            let m = a.to_affine();
            let rows = Affine3x4::from_affine(&m);
            assert_eq!(rows.to_affine(), m);
            assert!(
                Affine3x4::from_transform(a)
                    .to_affine()
                    .abs_diff_eq(m, 1e-6),
                "{a:?}"
            );
            assert_eq!(rows.translation(), a.translation);
            let b = &all[(i * 7 + 3) % all.len()];
            let product = rows.mul(&Affine3x4::from_transform(b)).to_affine();
            let want = m * b.to_affine();
            assert!(product.abs_diff_eq(want, 1e-4), "{product:?} vs {want:?}");
        }
    }

    /// At rest the current transform itself; a small change blended (both
    /// ends exact); a large one decomposed (a half turn keeps its scale).
    #[test]
    fn interpolation_blends_small_changes_and_decomposes_large_ones() {
        let a = Affine3x4::from_transform(&Transform::from_translation(Vec3::X));
        let mut out = Affine3x4::ZERO;
        interpolate(&a, &a, 0.3, &mut out);
        assert_eq!(out, a);
        let b = Affine3x4::from_transform(&Transform::from_translation(Vec3::new(3.0, 0.0, 0.0)));
        interpolate(&a, &b, 0.5, &mut out);
        assert_eq!(out.translation(), Vec3::new(2.0, 0.0, 0.0));
        interpolate(&a, &b, 1.0, &mut out);
        assert_eq!(out, b);
        let turned = Affine3x4::from_transform(&Transform {
            rotation: Quat::from_rotation_z(std::f32::consts::PI * 0.9),
            ..Transform::IDENTITY
        });
        interpolate(&Affine3x4::IDENTITY, &turned, 0.5, &mut out);
        let half = out.to_affine();
        let want = Affine3A::from_rotation_z(std::f32::consts::PI * 0.45);
        assert!(half.abs_diff_eq(want, 1e-5), "{half:?}");
    }
}
