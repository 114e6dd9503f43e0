//! Running the game inside the editor: the world's frames, Play, Pause,
//! Step and Reset (the world of the moment Play was pressed comes back), and
//! a user system's panic stopping Play.

use std::time::Duration;

use keel_engine::TimeSource;

use crate::app::game_input::GameInput;
use crate::app::{EditorApp, PlayState};
use crate::document::{Document, PlaySnapshot};

/// Play, pause and the timeline's recording.
pub(crate) struct Playback {
    /// Editing, playing or paused.
    pub(crate) state: PlayState,
    /// The scene as it was when Play was pressed (Stop puts it back).
    pub(crate) snapshot: Option<PlaySnapshot>,
    /// Memory budget of the next recording (MB).
    pub(crate) record_budget_mb: usize,
    /// The keyboard and mouse while the game has them.
    pub(crate) input: GameInput,
    /// What the new code made of the steps played before live mode took in the new build.
    pub(crate) divergence: Option<crate::live::divergence::Divergence>,
    /// The old code's run then, to show instead of the new one.
    pub(crate) previous_run: crate::live::previous_run::PreviousRun,
}

impl Default for Playback {
    fn default() -> Self {
        Self {
            state: PlayState::Editing,
            snapshot: None,
            record_budget_mb: crate::panels::timeline::DEFAULT_BUDGET_MB,
            input: GameInput::default(),
            divergence: None,
            previous_run: crate::live::previous_run::PreviousRun::default(),
        }
    }
}

impl EditorApp {
    /// Gives the document's world the game's resources and systems.
    pub(crate) fn build_world(&mut self) {
        let built = build_game_world(&self.game, &mut self.doc);
        if let Err(e) = built {
            self.status.error(format!(
                "The game's plugins could not set up the world: {e}"
            ));
            log::error!("{e}");
        }
    }

    /// After a frame: a user system that panicked stops Play and puts the
    /// world back as it was when Play was pressed (edits made before Play
    /// are kept; nothing made during Play is an edit).
    pub(crate) fn stop_on_system_panic(&mut self) {
        let Some(panic) = self.doc.world.take_system_panic() else {
            return;
        };
        log::error!("{panic}");
        self.reset();
        self.status.error(format!("Play stopped: {panic}"));
    }

    /// Runs the fixed steps due by `time` and records the frame's stats.
    /// Call once per displayed frame, before [`EditorApp::ui`].
    pub fn frame(&mut self, time: &mut impl TimeSource) {
        self.begin_profiled_frame();
        keel_engine::profile::puffin::profile_scope!("world frame");
        let frame = self
            .doc
            .world
            .frame_with_input(time, self.play.input.collector());
        self.record_stats(frame);
        self.stop_on_system_panic();
    }

    /// Like [`EditorApp::frame`] with a known elapsed time (tests, offline runs).
    pub fn advance(&mut self, elapsed: Duration) {
        self.begin_profiled_frame();
        keel_engine::profile::puffin::profile_scope!("world frame");
        let frame = self
            .doc
            .world
            .advance_with_input(elapsed, self.play.input.collector());
        self.record_stats(frame);
        self.stop_on_system_panic();
    }

    /// The keys, buttons and axes the game's steps read while it plays:
    /// press and release them here to drive the game without a window
    /// (scripted runs, tests).
    pub fn game_input_mut(&mut self) -> &mut keel_engine::input::InputCollector {
        self.play.input.collector()
    }

    pub(crate) fn record_stats(&mut self, frame: keel_engine::FrameStats) {
        // The world's step (the one shown, which a seek moves), not the clock's count.
        self.views.stats.record(
            frame,
            self.doc.scene().len(),
            self.doc.step(),
            self.doc.world.clock().dropped_total(),
        );
    }

    /// Play, as the toolbar's button: from Editing the world of now is kept
    /// for Reset and recording starts; from Paused the clock goes on.
    pub fn play(&mut self) {
        if self.play.state == PlayState::Editing {
            self.play.snapshot = Some(self.doc.play_snapshot());
            self.start_recording();
        }
        self.doc.world.clock_mut().set_paused(false);
        self.play.state = PlayState::Playing;
        // As Unity does: Play brings the Game view to the front (opening it
        // if it was closed), and the game has the input.
        self.workspace.layout.open(crate::chrome::dock::Panel::Game);
        self.play.input.focus();
    }

    pub(crate) fn pause(&mut self) {
        self.play.input.release();
        if self.play.state == PlayState::Playing {
            self.doc.world.clock_mut().set_paused(true);
            self.play.state = PlayState::Paused;
        }
    }

    pub(crate) fn step(&mut self) {
        self.hold();
        self.doc.world.clock_mut().step_once();
    }

    /// Paused, the world of the moment Play was pressed kept for Reset and
    /// the recording on (from Editing, that moment is now): Step before
    /// its step, and a handover's catch-up before its steps.
    pub(crate) fn hold(&mut self) {
        self.play.input.release();
        if self.play.state == PlayState::Editing {
            self.play.snapshot = Some(self.doc.play_snapshot());
            self.start_recording();
        }
        self.doc.world.clock_mut().set_paused(true);
        self.play.state = PlayState::Paused;
    }

    pub(crate) fn reset(&mut self) {
        self.play.input.release();
        let Some(snapshot) = self.play.snapshot.take() else {
            return;
        };
        self.doc.world.clock_mut().set_paused(true);
        self.play.state = PlayState::Editing;
        self.doc.stop_recording();
        self.doc.restore_play_snapshot(snapshot);
        self.play.divergence = None;
        self.play.previous_run = crate::live::previous_run::PreviousRun::default();
        self.status
            .info("Reset to the scene as it was when Play was pressed");
    }

    pub(crate) fn start_recording(&mut self) {
        self.doc
            .start_recording(Document::record_settings(self.play.record_budget_mb));
    }
}

/// Gives `doc`'s world `game`'s resources, systems and input actions (the
/// actions file beside the document's scene, if it has a path).
pub(crate) fn build_game_world(
    game: &keel_engine::Game,
    doc: &mut Document,
) -> Result<(), keel_engine::GameError> {
    match &doc.path {
        Some(path) => game.build_for(&mut doc.world, path),
        None => game.build(&mut doc.world),
    }
}
