//! IEEE 754 half-precision floats for particle colours: the pool stores each colour as four
//! halves (8 bytes instead of 16), halving the bytes the update pass writes for it, and the draw
//! path widens them back to the `f32` the GPU instance wants.
//!
//! Part of the data locality work of the particle pool: the update is bound by memory traffic,
//! and colours (which may exceed 1 for additive glow) keep 11 significant bits and a range up to
//! 65504 as halves, more than a display shows. Written with integer and float arithmetic only,
//! so the same colour gives the same bits on every platform.

/// Largest finite half, `65504.0`.
const MAX_FINITE: u16 = 0x7BFF;

/// The half nearest to `x` (ties to even), saturating at ±65504; NaN stays NaN.
#[must_use]
pub fn to_half(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let abs = bits & 0x7FFF_FFFF;
    if abs > 0x7F80_0000 {
        return sign | 0x7E00;
    }
    // Exponent re-biased from f32 (127) to f16 (15).
    let exponent = (abs >> 23) as i32 - 112;
    if exponent >= 31 {
        return sign | MAX_FINITE;
    }
    let (mantissa, shift) = if exponent > 0 {
        (((exponent as u32) << 23) | (abs & 0x7F_FFFF), 13)
    } else if exponent >= -10 {
        // Subnormal half: the implicit bit joins the mantissa, shifted further right.
        ((abs & 0x7F_FFFF) | 0x80_0000, (14 - exponent) as u32)
    } else {
        return sign;
    };
    let kept = mantissa >> shift;
    let rest = mantissa & ((1 << shift) - 1);
    let halfway = 1 << (shift - 1);
    let rounded = kept + u32::from(rest > halfway || (rest == halfway && kept & 1 == 1));
    // A carry out of the mantissa bumps the exponent, which is what rounding up must do.
    sign | (rounded.min(u32::from(MAX_FINITE)) as u16)
}

/// The exact `f32` value of half `h`.
#[inline]
#[must_use]
pub fn from_half(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let abs = u32::from(h & 0x7FFF);
    // Moving the exponent and mantissa into f32 position and multiplying by 2^112 re-biases the
    // exponent, and turns half subnormals into the right normal f32 with no special case.
    let scaled = f32::from_bits(abs << 13) * f32::from_bits(0x7780_0000);
    let magnitude = if abs >= 0x7C00 {
        0x7F80_0000 | ((abs & 0x3FF) << 13)
    } else {
        scaled.to_bits()
    };
    f32::from_bits(sign | magnitude)
}

/// Four halves, e.g. an RGBA colour.
#[inline]
#[must_use]
pub fn to_half4(v: [f32; 4]) -> [u16; 4] {
    v.map(to_half)
}

/// The four `f32`s of four halves.
#[inline]
#[must_use]
pub fn from_half4(h: [u16; 4]) -> [f32; 4] {
    h.map(from_half)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The half nearest to `x` found by brute force over every finite half, ties to the even
    /// bit pattern, saturating like [`to_half`].
    fn nearest(x: f32) -> u16 {
        let x = f64::from(x.clamp(-65504.0, 65504.0));
        let mut best = 0u16;
        let mut best_error = f64::INFINITY;
        for h in 0..=u16::MAX {
            let value = f64::from(from_half(h));
            if !value.is_finite() || (value == 0.0 && (h & 0x8000 != 0) != x.is_sign_negative()) {
                continue;
            }
            let error = (value - x).abs();
            if error < best_error || (error == best_error && h & 1 == 0) {
                best = h;
                best_error = error;
            }
        }
        best
    }

    #[test]
    fn every_half_survives_a_round_trip() {
        for h in 0..=u16::MAX {
            let x = from_half(h);
            if x.is_nan() {
                assert!(to_half(x) & 0x7C00 == 0x7C00 && to_half(x) & 0x3FF != 0);
            } else if x.is_infinite() {
                assert_eq!(to_half(x), (h & 0x8000) | MAX_FINITE, "infinity saturates");
            } else {
                assert_eq!(to_half(x), h, "{h:#06x} = {x}");
            }
        }
    }

    #[test]
    fn known_values() {
        assert_eq!(to_half(1.0), 0x3C00);
        assert_eq!(to_half(-2.0), 0xC000);
        assert_eq!(to_half(0.5), 0x3800);
        assert_eq!(to_half(65504.0), 0x7BFF);
        assert_eq!(to_half(1.0e9), 0x7BFF);
        assert_eq!(from_half(0x0001), 2.0f32.powi(-24));
        assert_eq!(from_half(0x7C00), f32::INFINITY);
        assert!(from_half(0x7E00).is_nan());
    }

    proptest! {
        #[test]
        fn rounds_to_the_nearest_half(x in prop_oneof![
            -70000.0f32..70000.0,
            -2.0f32..2.0,
            -1.0e-4f32..1.0e-4,
        ]) {
            prop_assert_eq!(to_half(x), nearest(x), "{}", x);
        }

        #[test]
        fn ties_go_to_even(h in 0u16..0x7BFE) {
            // Exactly halfway between h and h + 1 (representable in f32).
            let (a, b) = (f64::from(from_half(h)), f64::from(from_half(h + 1)));
            let mid = ((a + b) / 2.0) as f32;
            let expected = if h & 1 == 0 { h } else { h + 1 };
            prop_assert_eq!(to_half(mid), expected);
        }
    }
}
