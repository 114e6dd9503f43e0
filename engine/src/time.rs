//! The fixed-step clock (game loop pattern).
//!
//! Real time goes into a lag accumulator; the simulation advances in whole
//! fixed steps while the lag covers one, and rendering draws at
//! `alpha = lag / step` between the last two steps. Time is kept in integer
//! nanoseconds so accumulation never drifts. A frame runs at most
//! `max_steps_per_frame` steps: time beyond that is dropped and counted, so a
//! slow machine slows the game down instead of falling into a spiral of death.
//! Pause, single step and time scale act on what is fed to the lag, never on
//! the step length, so the simulation stays deterministic under all of them.

use std::time::Duration;

// The browser has no `std::time::Instant`; web-time is std's own elsewhere.
use web_time::Instant;

mod timer;

pub use timer::Timer;

/// Where the clock reads the time: the real clock in the app, a scripted one in tests.
pub trait TimeSource {
    /// Time since some fixed origin; must not go backwards.
    fn now(&mut self) -> Duration;
}

/// The monotonic system clock.
#[derive(Clone, Copy, Debug)]
pub struct RealTime {
    origin: Instant,
}

impl Default for RealTime {
    fn default() -> Self {
        Self {
            origin: Instant::now(),
        }
    }
}

impl TimeSource for RealTime {
    fn now(&mut self) -> Duration {
        self.origin.elapsed()
    }
}

/// A clock that only moves when told to (tests, replays, offline rendering).
#[derive(Clone, Copy, Debug, Default)]
pub struct ManualTime {
    /// The current time.
    pub now: Duration,
}

impl ManualTime {
    /// Moves the time forward.
    pub fn advance(&mut self, by: Duration) {
        self.now += by;
    }
}

impl TimeSource for ManualTime {
    fn now(&mut self) -> Duration {
        self.now
    }
}

/// What one frame of the clock asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameTick {
    /// Fixed updates to run now.
    pub steps: u32,
    /// Where between the last two steps to draw, in [0, 1).
    pub alpha: f32,
    /// Simulated time thrown away this frame because of the catch-up cap.
    pub dropped: Duration,
    /// Real time since the previous frame.
    pub real_elapsed: Duration,
}

/// The default fixed step: 60 updates per second.
pub const DEFAULT_STEP: Duration = Duration::from_nanos(16_666_667);

/// Fixed-step clock with lag accumulator, catch-up cap, pause, single step and time scale.
#[derive(Clone, Debug)]
pub struct Clock {
    step_ns: u64,
    max_steps: u32,
    lag_ns: u64,
    scale: f64,
    paused: bool,
    queued_steps: u32,
    last_now: Option<Duration>,
    total_steps: u64,
    dropped_total_ns: u64,
    last_tick: FrameTick,
}

impl Default for Clock {
    fn default() -> Self {
        Self::new(DEFAULT_STEP)
    }
}

impl Clock {
    /// Default number of catch-up steps a single frame may run.
    pub const DEFAULT_MAX_STEPS: u32 = 8;

    /// A clock with the given fixed step (clamped to at least 1 µs).
    pub fn new(step: Duration) -> Self {
        Self {
            step_ns: (step.as_nanos() as u64).max(1_000),
            max_steps: Self::DEFAULT_MAX_STEPS,
            lag_ns: 0,
            scale: 1.0,
            paused: false,
            queued_steps: 0,
            last_now: None,
            total_steps: 0,
            dropped_total_ns: 0,
            last_tick: FrameTick::default(),
        }
    }

    /// Sets how many fixed steps one frame may run (at least 1).
    pub fn with_max_steps(mut self, max_steps: u32) -> Self {
        self.max_steps = max_steps.max(1);
        self
    }

    /// The fixed step.
    pub fn step(&self) -> Duration {
        Duration::from_nanos(self.step_ns)
    }

    /// The fixed step in seconds, as the systems use it.
    pub fn step_seconds(&self) -> f32 {
        self.step_ns as f32 * 1e-9
    }

    /// Reads `source` and advances by the real time since the previous call
    /// (nothing on the first call).
    pub fn tick(&mut self, source: &mut impl TimeSource) -> FrameTick {
        let now = source.now();
        let elapsed = self
            .last_now
            .map_or(Duration::ZERO, |last| now.saturating_sub(last));
        self.last_now = Some(now);
        self.advance(elapsed)
    }

    /// Advances by `real_elapsed` and says how many fixed steps to run.
    pub fn advance(&mut self, real_elapsed: Duration) -> FrameTick {
        if !self.paused {
            let ns = real_elapsed.as_nanos().min(u64::MAX as u128) as u64;
            let scaled = if self.scale == 1.0 {
                ns
            } else {
                (ns as f64 * self.scale) as u64
            };
            self.lag_ns = self.lag_ns.saturating_add(scaled);
        }
        let mut steps = self.lag_ns / self.step_ns;
        let mut dropped_ns = 0;
        if steps > u64::from(self.max_steps) {
            dropped_ns = (steps - u64::from(self.max_steps)) * self.step_ns;
            steps = u64::from(self.max_steps);
        }
        self.lag_ns -= dropped_ns + steps * self.step_ns;
        self.dropped_total_ns += dropped_ns;
        let steps = steps as u32 + std::mem::take(&mut self.queued_steps);
        self.total_steps += u64::from(steps);
        self.last_tick = FrameTick {
            steps,
            alpha: self.alpha(),
            dropped: Duration::from_nanos(dropped_ns),
            real_elapsed,
        };
        self.last_tick
    }

    /// Where between the last two steps to draw, in [0, 1).
    pub fn alpha(&self) -> f32 {
        (self.lag_ns as f64 / self.step_ns as f64) as f32
    }

    /// The last frame's result.
    pub fn last_tick(&self) -> FrameTick {
        self.last_tick
    }

    /// Stops feeding time to the simulation (frames still render).
    pub fn set_paused(&mut self, paused: bool) {
        self.paused = paused;
    }

    /// Whether the clock is paused.
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Queues exactly one fixed step for the next frame, paused or not.
    pub fn step_once(&mut self) {
        self.queued_steps += 1;
    }

    /// Sets the speed of simulated time relative to real time (0 freezes it; NaN and
    /// negatives are taken as 0; capped at 100).
    pub fn set_time_scale(&mut self, scale: f64) {
        self.scale = if scale.is_finite() {
            scale.clamp(0.0, 100.0)
        } else {
            0.0
        };
    }

    /// The time scale.
    pub fn time_scale(&self) -> f64 {
        self.scale
    }

    /// Fixed steps run since the clock started.
    pub fn total_steps(&self) -> u64 {
        self.total_steps
    }

    /// Simulated time dropped by the catch-up cap since the clock started.
    pub fn dropped_total(&self) -> Duration {
        Duration::from_nanos(self.dropped_total_ns)
    }

    /// Forgets the lag (and the last reading of the time source), e.g. after a reset.
    pub fn reset_lag(&mut self) {
        self.lag_ns = 0;
        self.last_now = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STEP: Duration = Duration::from_millis(10);

    #[test]
    fn whole_steps_run_and_the_rest_becomes_alpha() {
        let mut clock = Clock::new(STEP);
        let tick = clock.advance(Duration::from_millis(25));
        assert_eq!(tick.steps, 2);
        assert!((tick.alpha - 0.5).abs() < 1e-6, "alpha {}", tick.alpha);
        let tick = clock.advance(Duration::from_millis(5));
        assert_eq!(tick.steps, 1, "the leftover 5 ms plus 5 ms make a step");
        assert_eq!(tick.alpha, 0.0);
    }

    #[test]
    fn alpha_stays_below_one() {
        let mut clock = Clock::new(STEP);
        for ms in [1, 3, 9, 10, 11, 19, 20, 37] {
            let tick = clock.advance(Duration::from_micros(ms * 997));
            assert!(
                (0.0..1.0).contains(&tick.alpha),
                "alpha {} after {ms}",
                tick.alpha
            );
        }
    }

    #[test]
    fn a_long_stall_is_capped_and_the_excess_dropped() {
        let mut clock = Clock::new(STEP).with_max_steps(4);
        let tick = clock.advance(Duration::from_millis(1_005));
        assert_eq!(tick.steps, 4);
        assert_eq!(tick.dropped, Duration::from_millis(960));
        assert!((tick.alpha - 0.5).abs() < 1e-6);
        assert_eq!(clock.dropped_total(), Duration::from_millis(960));
        let tick = clock.advance(Duration::from_millis(5));
        assert_eq!(
            tick.steps, 1,
            "after the stall the clock is back to real time"
        );
    }

    #[test]
    fn pause_stops_time_but_single_steps_still_run() {
        let mut clock = Clock::new(STEP);
        clock.set_paused(true);
        assert_eq!(clock.advance(Duration::from_millis(100)).steps, 0);
        clock.step_once();
        assert_eq!(clock.advance(Duration::from_millis(100)).steps, 1);
        assert_eq!(clock.advance(Duration::from_millis(100)).steps, 0);
        clock.set_paused(false);
        assert_eq!(clock.advance(Duration::from_millis(30)).steps, 3);
    }

    #[test]
    fn time_scale_changes_how_many_steps_not_their_length() {
        let mut clock = Clock::new(STEP);
        clock.set_time_scale(0.5);
        assert_eq!(clock.advance(Duration::from_millis(40)).steps, 2);
        clock.set_time_scale(2.0);
        assert_eq!(clock.advance(Duration::from_millis(40)).steps, 8);
        clock.set_time_scale(f64::NAN);
        assert_eq!(clock.time_scale(), 0.0);
        assert_eq!(clock.step(), STEP);
    }

    #[test]
    fn tick_reads_the_injected_source() {
        let mut clock = Clock::new(STEP);
        let mut time = ManualTime::default();
        assert_eq!(
            clock.tick(&mut time).steps,
            0,
            "the first reading only sets the origin"
        );
        time.advance(Duration::from_millis(35));
        assert_eq!(clock.tick(&mut time).steps, 3);
        assert_eq!(clock.total_steps(), 3);
    }
}
