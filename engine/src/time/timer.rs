//! Timers kept in the world: a value a game puts in a component or a
//! resource and ticks from a system, so seek, replay and Reset rewind it
//! with everything else (a timer in a closure would not rewind).

use bevy_reflect::Reflect;
use serde::{Deserialize, Serialize};

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
    /// A timer that finishes once, `duration` seconds from now.
    pub fn once(duration: f32) -> Self {
        Timer {
            duration,
            ..Timer::default()
        }
    }

    /// A timer that finishes every `duration` seconds.
    pub fn repeating(duration: f32) -> Self {
        Timer {
            duration,
            repeat: true,
            ..Timer::default()
        }
    }

    /// Counts `dt` seconds; returns how many times it finished during them
    /// (0 or 1 for a one-shot timer, which then stays finished).
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
}
