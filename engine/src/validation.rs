//! [`InvalidValue`]: a value that breaks its type's rules, and the rules every
//! component's `validate` is written with (finite, not negative, a unit
//! range, colours). The one place a number's rule is written: scene files,
//! the inspector and a game's components all ask the component.

use std::fmt;

/// A component value that breaks its type's rules: which field and what was
/// expected. Scene files turn it into an error at the field's line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidValue {
    /// The field, dotted from the component (`axis`, `wheels.0.radius`).
    pub field: String,
    /// What it must be.
    pub expected: String,
    /// What it was.
    pub found: String,
}

impl fmt::Display for InvalidValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "field `{}`: expected {}, found {}",
            self.field, self.expected, self.found
        )
    }
}

impl std::error::Error for InvalidValue {}

impl InvalidValue {
    /// A field that is not what it must be.
    pub fn new(
        field: impl Into<String>,
        expected: impl Into<String>,
        found: impl fmt::Display,
    ) -> Self {
        Self {
            field: field.into(),
            expected: expected.into(),
            found: found.to_string(),
        }
    }

    /// A number that must be finite.
    ///
    /// # Errors
    /// When it is NaN or infinite.
    pub fn finite(field: &str, value: f32) -> Result<(), InvalidValue> {
        if value.is_finite() {
            Ok(())
        } else {
            Err(Self::new(field, "a finite number", value))
        }
    }

    /// A number that must be finite and not negative.
    ///
    /// # Errors
    /// When it is negative, NaN or infinite.
    pub fn non_negative(field: &str, value: f32) -> Result<(), InvalidValue> {
        if value.is_finite() && value >= 0.0 {
            Ok(())
        } else {
            Err(Self::new(field, "a finite number >= 0", value))
        }
    }

    /// A number that must lie in `range`.
    ///
    /// # Errors
    /// When it lies outside (or is NaN).
    pub fn range(
        field: &str,
        value: f32,
        range: std::ops::RangeInclusive<f32>,
    ) -> Result<(), InvalidValue> {
        if range.contains(&value) {
            Ok(())
        } else {
            let expected = format!("a number from {} to {}", range.start(), range.end());
            Err(Self::new(field, expected, value))
        }
    }

    /// A vector whose components must all be finite.
    ///
    /// # Errors
    /// When one is NaN or infinite.
    pub fn finite_vec3(field: &str, value: glam::Vec3) -> Result<(), InvalidValue> {
        if value.is_finite() {
            Ok(())
        } else {
            Err(Self::new(field, "three finite numbers", value))
        }
    }

    /// A number that must be finite and above 0.
    ///
    /// # Errors
    /// When it is 0 or less, NaN or infinite.
    pub fn positive(field: &str, value: f32) -> Result<(), InvalidValue> {
        if value.is_finite() && value > 0.0 {
            Ok(())
        } else {
            Err(Self::new(field, "a finite number > 0", value))
        }
    }

    /// A linear RGB colour: three finite numbers, none negative.
    ///
    /// # Errors
    /// When one is negative, NaN or infinite.
    pub fn color(field: &str, value: glam::Vec3) -> Result<(), InvalidValue> {
        if value.is_finite() && value.min_element() >= 0.0 {
            Ok(())
        } else {
            Err(Self::new(
                field,
                "three finite numbers >= 0 (linear RGB)",
                format!("{value:?}"),
            ))
        }
    }

    /// A linear RGB colour and an alpha from 0 to 1.
    ///
    /// # Errors
    /// When one is negative, NaN or infinite, or alpha is over 1.
    pub fn rgba(field: &str, value: glam::Vec4) -> Result<(), InvalidValue> {
        if value.is_finite() && value.min_element() >= 0.0 && value.w <= 1.0 {
            Ok(())
        } else {
            Err(Self::new(
                field,
                "four finite numbers >= 0 (linear RGB, then alpha from 0 to 1)",
                format!("{value:?}"),
            ))
        }
    }
}
