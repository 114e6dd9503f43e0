//! Half-precision particle colours: the pool stores each colour as four IEEE
//! 754 halves (8 bytes instead of 16), halving the bytes the update pass
//! writes for it, and the draw path widens them back to the `f32` the GPU
//! instance wants. The conversions are the `half` crate's.
//!
//! Part of the data locality work of the particle pool: the update is bound by
//! memory traffic, and colours (which may exceed 1 for additive glow) keep 11
//! significant bits and a range up to 65504 as halves, more than a display shows.

use half::f16;

/// Four halves (as bits) nearest to `v`, e.g. an RGBA colour; values beyond
/// the half range saturate at ±65504 instead of becoming infinite.
#[inline]
#[must_use]
pub fn to_half4(v: [f32; 4]) -> [u16; 4] {
    v.map(|x| f16::from_f32(x.clamp(-65504.0, 65504.0)).to_bits())
}

/// The four `f32`s of four halves.
#[inline]
#[must_use]
pub fn from_half4(h: [u16; 4]) -> [f32; 4] {
    h.map(|bits| f16::from_bits(bits).to_f32())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_round_trip_within_half_precision_and_saturate() {
        let colour = [0.25, 1.0 / 3.0, 4.0, 0.0];
        let back = from_half4(to_half4(colour));
        for (a, b) in colour.iter().zip(back) {
            assert!((a - b).abs() <= a.abs() / 1024.0, "{a} -> {b}");
        }
        assert_eq!(
            from_half4(to_half4([1e9, -1e9, 0.5, 1.0])),
            [65504.0, -65504.0, 0.5, 1.0]
        );
    }
}
