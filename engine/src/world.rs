//! The live world: a scene, the systems that animate it and the clock that
//! paces them (game loop pattern, the part that owns no window).
//!
//! The app (and the editor, and headless tools) call [`World::frame`] once per
//! displayed frame with the real time; it runs the fixed steps the clock asks
//! for and returns the interpolation alpha to draw with.

use crate::scene::Scene;
use crate::systems::Systems;
use crate::time::{Clock, FrameTick, TimeSource};

/// Counters of the last frame, for the stats panel and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameStats {
    /// The clock's verdict for this frame (steps, alpha, dropped time).
    pub tick: FrameTick,
    /// World transforms recomputed over the frame's steps (dirty flag at work).
    pub recomputed: usize,
}

/// A scene with its systems and clock.
pub struct World {
    /// The scene being simulated.
    pub scene: Scene,
    /// The systems run each fixed step.
    pub systems: Systems,
    /// The fixed-step clock.
    pub clock: Clock,
    stats: FrameStats,
}

impl World {
    /// A world around `scene` with the built-in systems and a 60 Hz clock.
    pub fn new(mut scene: Scene) -> Self {
        scene.propagate();
        scene.snapshot_previous();
        Self {
            scene,
            systems: Systems::new(),
            clock: Clock::default(),
            stats: FrameStats::default(),
        }
    }

    /// Reads the time source and runs the fixed steps due; returns the frame's stats.
    pub fn frame(&mut self, time: &mut impl TimeSource) -> FrameStats {
        let tick = self.clock.tick(time);
        self.run_steps(tick)
    }

    /// Advances by a known real duration (offline rendering, tests).
    pub fn advance(&mut self, real: std::time::Duration) -> FrameStats {
        let tick = self.clock.advance(real);
        self.run_steps(tick)
    }

    /// Runs exactly one fixed step now, whatever the clock says.
    pub fn step(&mut self) {
        let dt = self.clock.step_seconds();
        self.systems.run_step(&mut self.scene, dt);
    }

    fn run_steps(&mut self, tick: FrameTick) -> FrameStats {
        let dt = self.clock.step_seconds();
        let mut recomputed = 0;
        for _ in 0..tick.steps {
            self.systems.run_step(&mut self.scene, dt);
            recomputed += self.scene.last_recomputed();
        }
        // Edits made between frames (editor, tools) are applied before drawing.
        recomputed += self.scene.propagate().recomputed;
        self.stats = FrameStats { tick, recomputed };
        self.stats
    }

    /// Stats of the last frame.
    pub fn stats(&self) -> FrameStats {
        self.stats
    }
}
