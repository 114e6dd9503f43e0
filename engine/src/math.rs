//! The simulation's transcendental functions, one implementation on every
//! target (the `libm` crate, a port of musl's): `f32::sin` and the rest call
//! the platform's C library on native targets and another implementation in
//! the browser, whose last bits differ for some inputs, and a recording must
//! replay bit for bit on both (ARCHITECTURE.md, "The browser"). glam's own
//! functions (`Quat::from_rotation_y`, `slerp`, ...) go through the same
//! crate (its `libm` feature).
//!
//! The workspace's `clippy.toml` refuses the standard methods these stand
//! for; a game of its own that wants its recordings to cross platforms can
//! copy that list. The functions exact in IEEE arithmetic (`sqrt`, `abs`,
//! `floor`, `mul_add`, `%`, ...) are the same everywhere and stay as they are.

/// The sine of `x` (radians).
#[inline]
pub fn sin(x: f32) -> f32 {
    libm::sinf(x)
}

/// The cosine of `x` (radians).
#[inline]
pub fn cos(x: f32) -> f32 {
    libm::cosf(x)
}

/// Sine and cosine of `x` (radians) at once.
#[inline]
pub fn sin_cos(x: f32) -> (f32, f32) {
    libm::sincosf(x)
}

/// The tangent of `x` (radians).
#[inline]
pub fn tan(x: f32) -> f32 {
    libm::tanf(x)
}

/// The arcsine of `x`, in radians (NaN outside -1..=1).
#[inline]
pub fn asin(x: f32) -> f32 {
    libm::asinf(x)
}

/// The arccosine of `x`, in radians (NaN outside -1..=1).
#[inline]
pub fn acos(x: f32) -> f32 {
    libm::acosf(x)
}

/// The arctangent of `x`, in radians.
#[inline]
pub fn atan(x: f32) -> f32 {
    libm::atanf(x)
}

/// The angle of the point (`x`, `y`) from the x axis, in radians (`y.atan2(x)`).
#[inline]
pub fn atan2(y: f32, x: f32) -> f32 {
    libm::atan2f(y, x)
}

/// e to the power `x`.
#[inline]
pub fn exp(x: f32) -> f32 {
    libm::expf(x)
}

/// 2 to the power `x`.
#[inline]
pub fn exp2(x: f32) -> f32 {
    libm::exp2f(x)
}

/// The natural logarithm of `x`.
#[inline]
pub fn ln(x: f32) -> f32 {
    libm::logf(x)
}

/// `x` to the power `y`.
#[inline]
pub fn powf(x: f32, y: f32) -> f32 {
    libm::powf(x, y)
}

/// The cube root of `x`.
#[inline]
pub fn cbrt(x: f32) -> f32 {
    libm::cbrtf(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_functions_agree_with_the_platform_within_an_ulp_or_two() {
        // Not bit for bit (that is the point), but the same functions.
        #[expect(clippy::disallowed_methods, reason = "the platform's, to compare with")]
        let platform = |x: f32| [x.sin(), x.cos(), x.tan(), x.atan(), x.exp(), x.cbrt()];
        for i in -200..200 {
            let x = i as f32 * 0.0137;
            let ours = [sin(x), cos(x), tan(x), atan(x), exp(x), cbrt(x)];
            for (a, b) in ours.into_iter().zip(platform(x)) {
                assert!(
                    (a - b).abs() <= b.abs() * 4.0 * f32::EPSILON,
                    "{x}: {a} against {b}"
                );
            }
            assert_eq!(sin_cos(x), (sin(x), cos(x)), "{x}");
        }
        assert_eq!(atan2(1.0, -1.0), 3.0 * std::f32::consts::FRAC_PI_4);
        assert_eq!(asin(2.0).is_nan(), acos(2.0).is_nan());
        assert!(
            (powf(2.0, 10.0) - 1024.0).abs() < 1e-3
                && (ln(exp2(3.0)) - 3.0 * std::f32::consts::LN_2).abs() < 1e-6
        );
    }
}
