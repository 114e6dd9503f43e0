//! Timers kept in the world: a value a game puts in a component or a
//! resource and ticks from a system, so seek, replay and Reset rewind it
//! with everything else (a timer in a closure would not rewind).
//!
//! A duration must be a finite number of seconds, 0 or more: a negative or
//! NaN one would never fire. The constructors refuse one ([`Timer::new`]
//! with an error, [`Timer::once`] and [`Timer::repeating`] with a panic, as
//! `Duration::from_secs_f32` does), and a timer written into a component is
//! checked wherever components are ([`Timer::validate`]: a scene file is
//! refused at the field's line, an inspector edit is not applied).

use bevy_reflect::Reflect;
use serde::{Deserialize, Serialize};

use crate::validation::InvalidValue;

/// Counts fixed-step time up to a duration, once or over and over.
///
/// ```
/// use keel_engine::Timer;
///
/// let mut every_half = Timer::repeating(0.5);
/// let fired: u32 = (0..60).map(|_| every_half.tick(1.0 / 60.0)).sum();
/// assert_eq!(fired, 2);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, Reflect)]
#[serde(deny_unknown_fields, default)]
pub struct Timer {
    /// Seconds from start to finish.
    pub duration: f32,
    /// Seconds counted since it started (or last repeated).
    pub elapsed: f32,
    /// Whether it starts over when it finishes.
    pub repeat: bool,
    /// Whether a one-shot timer has finished.
    pub finished: bool,
}

impl Timer {
    /// A timer of `duration` seconds that finishes once or, with `repeat`,
    /// every `duration` seconds (what a value typed or read from a file
    /// should go through).
    ///
    /// # Errors
    /// [`InvalidValue`] at `duration` when it is negative, NaN or infinite.
    pub fn new(duration: f32, repeat: bool) -> Result<Self, InvalidValue> {
        InvalidValue::non_negative("duration", duration)?;
        Ok(Timer {
            duration,
            repeat,
            ..Timer::default()
        })
    }

    /// A timer that finishes once, `duration` seconds from now.
    ///
    /// # Panics
    /// When `duration` is negative, NaN or infinite (see [`Timer::new`] for
    /// a duration that comes from a user).
    pub fn once(duration: f32) -> Self {
        Self::new(duration, false).unwrap_or_else(|invalid| panic!("Timer::once: {invalid}"))
    }

    /// A timer that finishes every `duration` seconds.
    ///
    /// # Panics
    /// When `duration` is negative, NaN or infinite (see [`Timer::new`] for
    /// a duration that comes from a user).
    pub fn repeating(duration: f32) -> Self {
        Self::new(duration, true).unwrap_or_else(|invalid| panic!("Timer::repeating: {invalid}"))
    }

    /// Sets the duration, keeping the time counted so far.
    ///
    /// # Errors
    /// [`InvalidValue`] at `duration` when it is negative, NaN or infinite; the
    /// timer is left as it was.
    pub fn set_duration(&mut self, duration: f32) -> Result<(), InvalidValue> {
        InvalidValue::non_negative("duration", duration)?;
        self.duration = duration;
        Ok(())
    }

    /// Checks the fields a file or an edit wrote straight in: `duration` and
    /// `elapsed` finite numbers, 0 or more. Registered components are checked
    /// for every `Timer` they hold, at any depth, without asking.
    ///
    /// # Errors
    /// [`InvalidValue`] at the field that breaks the rule.
    pub fn validate(&self) -> Result<(), InvalidValue> {
        InvalidValue::non_negative("duration", self.duration)?;
        InvalidValue::non_negative("elapsed", self.elapsed)
    }

    /// Counts `dt` seconds; returns how many times it finished during them
    /// (0 or 1 for a one-shot timer, which then stays finished). A timer
    /// that fails [`Timer::validate`] never fires.
    pub fn tick(&mut self, dt: f32) -> u32 {
        if self.finished || !(self.duration.is_finite() && self.duration >= 0.0) {
            return 0;
        }
        self.elapsed += dt;
        if self.elapsed < self.duration {
            return 0;
        }
        if !self.repeat {
            self.finished = true;
            self.elapsed = self.duration;
            return 1;
        }
        if self.duration == 0.0 {
            self.elapsed = 0.0;
            return 1;
        }
        let times = (self.elapsed / self.duration).floor();
        self.elapsed -= times * self.duration;
        times as u32
    }

    /// How far along it is, from 0 to 1.
    pub fn fraction(&self) -> f32 {
        if self.duration > 0.0 {
            (self.elapsed / self.duration).clamp(0.0, 1.0)
        } else {
            1.0
        }
    }

    /// Starts it over.
    pub fn reset(&mut self) {
        self.elapsed = 0.0;
        self.finished = false;
    }
}

#[cfg(test)]
mod tests {
    use super::Timer;

    #[test]
    fn a_one_shot_timer_fires_once_and_a_repeating_one_keeps_its_remainder() {
        let mut once = Timer::once(0.1);
        let fired: Vec<u32> = (0..10).map(|_| once.tick(0.03)).collect();
        assert_eq!(fired.iter().sum::<u32>(), 1);
        assert!(once.finished);
        assert_eq!(once.fraction(), 1.0);
        let mut every = Timer::repeating(0.25);
        assert_eq!(every.tick(0.6), 2, "two whole periods in one long tick");
        assert!((every.elapsed - 0.1).abs() < 1e-6, "{}", every.elapsed);
        every.reset();
        assert_eq!(every.elapsed, 0.0);
    }

    #[test]
    fn a_negative_or_nan_duration_is_refused_by_name() {
        for duration in [-1.0, f32::NAN, f32::INFINITY] {
            let invalid = Timer::new(duration, true).unwrap_err();
            assert_eq!(invalid.field, "duration", "{invalid}");
            assert!(invalid.expected.contains(">= 0"), "{invalid}");
            let mut timer = Timer::once(1.0);
            assert!(timer.set_duration(duration).is_err(), "{duration}");
            assert_eq!(timer.duration, 1.0, "a refused duration leaves the timer");
            timer.duration = duration;
            assert_eq!(timer.validate().unwrap_err().field, "duration");
        }
        assert!(Timer::new(0.0, false).is_ok(), "0 fires at once");
        let caught = std::panic::catch_unwind(|| Timer::once(-0.5));
        assert!(caught.is_err(), "a literal negative duration panics");
    }
}
