//! Four `f32` lanes for the engine's hot matrix kernels (composing and
//! blending world transforms, sampling rotations), the same bits on every
//! target.
//!
//! glam runs with its scalar math (`scalar-math`: its SIMD paths sum in
//! different orders on each instruction set, and a recording must replay
//! bit for bit everywhere), which costs its vector types their SIMD. These
//! kernels only ever use lane-wise operations (add, subtract, multiply, max,
//! absolute value, shuffles), whose IEEE results do not
//! depend on how many lanes a machine computes at once, so they may run on
//! SSE2 where it is (every x86-64) and lane by lane elsewhere, and agree to
//! the bit: `tests::the_sse2_lanes_equal_the_scalar_ones` holds the two
//! builds to it.

#[cfg(target_arch = "x86_64")]
pub(crate) use sse2::F4;

#[cfg(not(target_arch = "x86_64"))]
pub(crate) use scalar::F4;

#[cfg_attr(
    all(target_arch = "x86_64", not(test)),
    expect(dead_code, reason = "the lanes other targets compute, tested here")
)]
mod scalar {
    use glam::Vec4;

    /// Four lanes, computed one at a time.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub(crate) struct F4(pub(super) [f32; 4]);

    impl F4 {
        #[inline(always)]
        pub(crate) fn from_vec4(v: Vec4) -> Self {
            Self(v.to_array())
        }
        #[inline(always)]
        pub(crate) fn to_vec4(self) -> Vec4 {
            Vec4::from_array(self.0)
        }
        #[inline(always)]
        pub(crate) fn new(x: f32, y: f32, z: f32, w: f32) -> Self {
            Self([x, y, z, w])
        }
        #[inline(always)]
        pub(crate) fn splat(v: f32) -> Self {
            Self([v; 4])
        }
        #[inline(always)]
        fn zip(self, o: Self, f: impl Fn(f32, f32) -> f32) -> Self {
            let (a, b) = (self.0, o.0);
            Self([f(a[0], b[0]), f(a[1], b[1]), f(a[2], b[2]), f(a[3], b[3])])
        }
        #[inline(always)]
        pub(crate) fn add(self, o: Self) -> Self {
            self.zip(o, |a, b| a + b)
        }
        #[inline(always)]
        pub(crate) fn sub(self, o: Self) -> Self {
            self.zip(o, |a, b| a - b)
        }
        #[inline(always)]
        pub(crate) fn mul(self, o: Self) -> Self {
            self.zip(o, |a, b| a * b)
        }
        /// The larger of each pair (`o`'s where either is NaN, as SSE2's `maxps`).
        #[inline(always)]
        pub(crate) fn max(self, o: Self) -> Self {
            self.zip(o, |a, b| if a > b { a } else { b })
        }
        #[inline(always)]
        pub(crate) fn abs(self) -> Self {
            Self(self.0.map(f32::abs))
        }
        /// Lane `i` of the result is lane `LANES[i]` of `self`.
        #[inline(always)]
        pub(crate) fn swizzle<const A: usize, const B: usize, const C: usize, const D: usize>(
            self,
        ) -> Self {
            let l = self.0;
            Self([l[A], l[B], l[C], l[D]])
        }
        #[inline(always)]
        pub(crate) fn lane<const I: usize>(self) -> f32 {
            self.0[I]
        }
    }
}

/// SSE2's lanes. Its instructions are part of every x86-64 CPU (the
/// architecture's baseline, on in every x86-64 build), which is what makes
/// each call below sound; Rust still asks for `unsafe` around intrinsics
/// with a `#[target_feature]`.
#[cfg(target_arch = "x86_64")]
#[expect(
    unsafe_code,
    reason = "SSE2 intrinsics, which x86-64's baseline always has"
)]
mod sse2 {
    use std::arch::x86_64::{
        __m128, _mm_add_ps, _mm_andnot_ps, _mm_cvtss_f32, _mm_max_ps, _mm_mul_ps, _mm_set1_ps,
        _mm_setr_ps, _mm_shuffle_ps, _mm_sub_ps,
    };

    use glam::Vec4;

    /// Four lanes in an SSE2 register.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct F4(__m128);

    impl F4 {
        #[inline(always)]
        pub(crate) fn from_vec4(v: Vec4) -> Self {
            Self(bytemuck::cast(v))
        }
        #[inline(always)]
        pub(crate) fn to_vec4(self) -> Vec4 {
            bytemuck::cast(self.0)
        }
        #[inline(always)]
        pub(crate) fn new(x: f32, y: f32, z: f32, w: f32) -> Self {
            // SAFETY: SSE is in x86-64's baseline.
            Self(unsafe { _mm_setr_ps(x, y, z, w) })
        }
        #[inline(always)]
        pub(crate) fn splat(v: f32) -> Self {
            // SAFETY: SSE is in x86-64's baseline.
            Self(unsafe { _mm_set1_ps(v) })
        }
        #[inline(always)]
        pub(crate) fn add(self, o: Self) -> Self {
            // SAFETY: SSE is in x86-64's baseline.
            Self(unsafe { _mm_add_ps(self.0, o.0) })
        }
        #[inline(always)]
        pub(crate) fn sub(self, o: Self) -> Self {
            // SAFETY: SSE is in x86-64's baseline.
            Self(unsafe { _mm_sub_ps(self.0, o.0) })
        }
        #[inline(always)]
        pub(crate) fn mul(self, o: Self) -> Self {
            // SAFETY: SSE is in x86-64's baseline.
            Self(unsafe { _mm_mul_ps(self.0, o.0) })
        }
        /// The larger of each pair (`o`'s where either is NaN or they are equal).
        #[inline(always)]
        pub(crate) fn max(self, o: Self) -> Self {
            // SAFETY: SSE is in x86-64's baseline.
            Self(unsafe { _mm_max_ps(self.0, o.0) })
        }
        #[inline(always)]
        pub(crate) fn abs(self) -> Self {
            // SAFETY: SSE is in x86-64's baseline.
            Self(unsafe { _mm_andnot_ps(_mm_set1_ps(-0.0), self.0) })
        }
        /// Lane `i` of the result is lane `[A, B, C, D][i]` of `self`.
        #[inline(always)]
        pub(crate) fn swizzle<const A: usize, const B: usize, const C: usize, const D: usize>(
            self,
        ) -> Self {
            let v = self.0;
            // SAFETY: SSE is in x86-64's baseline. The immediate: two bits a
            // lane, the first lane lowest.
            let out = unsafe {
                match (A, B, C, D) {
                    (0, 0, 0, 0) => _mm_shuffle_ps::<0b00_00_00_00>(v, v),
                    (1, 1, 1, 1) => _mm_shuffle_ps::<0b01_01_01_01>(v, v),
                    (2, 2, 2, 2) => _mm_shuffle_ps::<0b10_10_10_10>(v, v),
                    (3, 3, 3, 3) => _mm_shuffle_ps::<0b11_11_11_11>(v, v),
                    (1, 0, 0, 3) => _mm_shuffle_ps::<0b11_00_00_01>(v, v),
                    (2, 2, 1, 3) => _mm_shuffle_ps::<0b11_01_10_10>(v, v),
                    (0, 0, 1, 3) => _mm_shuffle_ps::<0b11_01_00_00>(v, v),
                    (1, 2, 2, 3) => _mm_shuffle_ps::<0b11_10_10_01>(v, v),
                    (2, 1, 0, 3) => _mm_shuffle_ps::<0b11_00_01_10>(v, v),
                    (1, 0, 3, 2) => _mm_shuffle_ps::<0b10_11_00_01>(v, v),
                    _ => {
                        let l: [f32; 4] = bytemuck::cast(v);
                        _mm_setr_ps(l[A], l[B], l[C], l[D])
                    }
                }
            };
            Self(out)
        }
        #[inline(always)]
        pub(crate) fn lane<const I: usize>(self) -> f32 {
            // SAFETY: SSE is in x86-64's baseline.
            unsafe { _mm_cvtss_f32(self.swizzle::<I, I, I, I>().0) }
        }
    }
}

impl std::ops::Add for F4 {
    type Output = F4;
    #[inline(always)]
    fn add(self, o: F4) -> F4 {
        F4::add(self, o)
    }
}

impl std::ops::Sub for F4 {
    type Output = F4;
    #[inline(always)]
    fn sub(self, o: F4) -> F4 {
        F4::sub(self, o)
    }
}

impl std::ops::Mul for F4 {
    type Output = F4;
    #[inline(always)]
    fn mul(self, o: F4) -> F4 {
        F4::mul(self, o)
    }
}

impl std::ops::Mul<f32> for F4 {
    type Output = F4;
    #[inline(always)]
    fn mul(self, o: f32) -> F4 {
        F4::mul(self, F4::splat(o))
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec4;

    use super::F4;
    use super::scalar::F4 as Lanes;

    fn both(v: [f32; 4]) -> (F4, Lanes) {
        (
            F4::from_vec4(Vec4::from_array(v)),
            Lanes::from_vec4(Vec4::from_array(v)),
        )
    }

    #[test]
    fn the_sse2_lanes_equal_the_scalar_ones() {
        let mut rng = crate::rng::SplitMix64::new(7);
        let mut draw = || {
            let bits = rng.next_u64();
            // Every magnitude from 1e-20 to 1e20, both signs, some zeros.
            let m = (bits >> 40) as f32 / (1u64 << 24) as f32;
            let e = ((bits >> 8) % 40) as i32 - 20;
            let s = if bits & 1 == 0 { 1.0 } else { -1.0 };
            if bits.is_multiple_of(17) {
                0.0
            } else {
                s * m * crate::math::powf(10.0, e as f32)
            }
        };
        for _ in 0..10_000 {
            let (a, b, c, d) = (
                [draw(), draw(), draw(), draw()],
                [draw(), draw(), draw(), draw()],
                draw(),
                draw(),
            );
            let ((fa, la), (fb, lb)) = (both(a), both(b));
            let same = |f: F4, l: Lanes| {
                let (f, l) = (f.to_vec4().to_array(), l.to_vec4().to_array());
                assert_eq!(f.map(f32::to_bits), l.map(f32::to_bits), "{a:?} {b:?}");
            };
            same(fa.add(fb), la.add(lb));
            same(fa.sub(fb), la.sub(lb));
            same(fa.mul(fb), la.mul(lb));
            same(fa.max(fb), la.max(lb));
            same(fa.abs(), la.abs());
            same(F4::splat(c), Lanes::splat(c));
            same(F4::new(a[0], c, d, b[3]), Lanes::new(a[0], c, d, b[3]));
            same(fa.swizzle::<1, 0, 0, 3>(), la.swizzle::<1, 0, 0, 3>());
            same(fa.swizzle::<2, 2, 1, 3>(), la.swizzle::<2, 2, 1, 3>());
            same(fa.swizzle::<0, 0, 1, 3>(), la.swizzle::<0, 0, 1, 3>());
            same(fa.swizzle::<1, 2, 2, 3>(), la.swizzle::<1, 2, 2, 3>());
            same(fa.swizzle::<2, 1, 0, 3>(), la.swizzle::<2, 1, 0, 3>());
            same(fa.swizzle::<1, 0, 3, 2>(), la.swizzle::<1, 0, 3, 2>());
            same(fa.swizzle::<3, 3, 3, 3>(), la.swizzle::<3, 3, 3, 3>());
            same(fa.swizzle::<3, 1, 2, 0>(), la.swizzle::<3, 1, 2, 0>());
            assert_eq!(fa.lane::<2>().to_bits(), la.lane::<2>().to_bits());
        }
    }
}
