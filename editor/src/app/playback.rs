//! Running the game inside the editor: the world's frames, Play, Pause,
//! Step and Reset (the world of the moment Play was pressed comes back), and
//! a user system's panic stopping Play.

use crate::app::previous_run::PreviousRun;
use crate::document::{Document, PlaySnapshot};
use crate::game_input::GameInput;
use crate::status::{PlayState, Status};

/// Play, pause and the timeline's recording ([`EditorApp::playback`]).
///
/// [`EditorApp::playback`]: crate::EditorApp::playback
pub struct Playback {
    /// Editing, playing or paused.
    pub(crate) state: PlayState,
    /// The scene as it was when Play was pressed (Stop puts it back).
    pub(crate) snapshot: Option<PlaySnapshot>,
    /// Memory budget of the next recording (MB).
    pub(crate) record_budget_mb: usize,
    /// The keyboard and mouse while the game has them.
    pub(crate) input: GameInput,
    /// What the new code made of the steps played before live mode took in the new build.
    pub(crate) divergence: Option<crate::divergence::Divergence>,
    /// The old code's run then, to show instead of the new one.
    pub(crate) previous_run: PreviousRun,
}

impl Default for Playback {
    fn default() -> Self {
        Self {
            state: PlayState::Editing,
            snapshot: None,
            record_budget_mb: crate::panels::timeline::DEFAULT_BUDGET_MB,
            input: GameInput::default(),
            divergence: None,
            previous_run: PreviousRun::default(),
        }
    }
}

impl Playback {
    /// The previous build's run that live mode kept, to show in the views.
    pub fn previous_run(&self) -> &PreviousRun {
        &self.previous_run
    }

    /// The previous build's run, to show it in the views or not.
    pub fn previous_run_mut(&mut self) -> &mut PreviousRun {
        &mut self.previous_run
    }

    /// Play, paused or editing.
    pub fn state(&self) -> PlayState {
        self.state
    }

    /// Whether the game reads the keyboard and mouse (Play, until Escape).
    pub fn game_has_input(&self) -> bool {
        self.input.focused()
    }

    /// The keys, buttons and axes the game's steps read while it plays:
    /// press and release them here to drive the game without a window
    /// (scripted runs, tests).
    pub fn game_input_mut(&mut self) -> &mut keel_engine::input::InputCollector {
        self.input.collector()
    }

    /// Feeds the gamepads' events to the game while it has the input
    /// (dropped otherwise, so a pad's state never leaks into the editor).
    #[cfg(feature = "gamepads")]
    pub fn poll_gamepads(&mut self, pads: &mut keel_engine::input::Gamepads) {
        let mut ignored = keel_engine::input::InputCollector::default();
        let collector = if self.input.focused() {
            self.input.collector()
        } else {
            &mut ignored
        };
        pads.poll(collector);
    }

    /// What the new code made of the steps played before the reload, when
    /// this editor was resumed from a handover during Play.
    pub fn divergence(&self) -> Option<&crate::divergence::Divergence> {
        self.divergence.as_ref()
    }

    /// After a frame: a user system that panicked stops Play and puts the
    /// world back as it was when Play was pressed (edits made before Play
    /// are kept; nothing made during Play is an edit).
    pub(crate) fn stop_on_system_panic(&mut self, doc: &mut Document, status: &mut Status) {
        let Some(panic) = doc.world.take_system_panic() else {
            return;
        };
        log::error!("{panic}");
        self.reset(doc, status);
        status.error(format!("Play stopped: {panic}"));
    }

    /// Play, as the toolbar's button: from Editing the world of now is kept
    /// for Reset and recording starts; from Paused the clock goes on. The
    /// game has the input.
    pub(crate) fn play(&mut self, doc: &mut Document) {
        if self.state == PlayState::Editing {
            self.snapshot = Some(doc.play_snapshot());
            self.start_recording(doc);
        }
        doc.world.clock_mut().set_paused(false);
        self.state = PlayState::Playing;
        self.input.focus();
    }

    /// Pause: the clock stops and the editor has the input again.
    pub(crate) fn pause(&mut self, doc: &mut Document) {
        self.input.release();
        if self.state == PlayState::Playing {
            doc.world.clock_mut().set_paused(true);
            self.state = PlayState::Paused;
        }
    }

    /// One fixed update, paused.
    pub(crate) fn step(&mut self, doc: &mut Document) {
        self.hold(doc);
        doc.world.clock_mut().step_once();
    }

    /// Paused, the world of the moment Play was pressed kept for Reset and
    /// the recording on (from Editing, that moment is now): Step before
    /// its step, and a handover's catch-up before its steps.
    pub(crate) fn hold(&mut self, doc: &mut Document) {
        self.input.release();
        if self.state == PlayState::Editing {
            self.snapshot = Some(doc.play_snapshot());
            self.start_recording(doc);
        }
        doc.world.clock_mut().set_paused(true);
        self.state = PlayState::Paused;
    }

    /// Back to the world of the moment Play was pressed (nothing when Play
    /// was not pressed).
    pub(crate) fn reset(&mut self, doc: &mut Document, status: &mut Status) {
        self.input.release();
        let Some(snapshot) = self.snapshot.take() else {
            return;
        };
        doc.world.clock_mut().set_paused(true);
        self.state = PlayState::Editing;
        doc.stop_recording();
        doc.restore_play_snapshot(snapshot);
        self.divergence = None;
        self.previous_run = PreviousRun::default();
        status.info("Reset to the scene as it was when Play was pressed");
    }

    fn start_recording(&self, doc: &mut Document) {
        doc.start_recording(Document::record_settings(self.record_budget_mb));
    }

    /// Puts the world at a recorded step and pauses there.
    pub(crate) fn seek(&mut self, doc: &mut Document, step: u64, status: &mut Status) {
        if self.state == PlayState::Playing {
            self.pause(doc);
        }
        if let Err(e) = doc.seek(step) {
            status.error(format!("Cannot go to step {step}: {e}"));
        }
    }

    /// One step forward: along the recording when the world was sought back,
    /// else a new fixed step.
    pub(crate) fn step_forward(&mut self, doc: &mut Document, status: &mut Status) {
        let next = doc.step() + 1;
        match doc.world.recorder().and_then(|r| r.range()) {
            Some(range) if range.contains(&next) => self.seek(doc, next, status),
            _ => self.step(doc),
        }
    }
}

/// Gives the document's world the game's resources and systems, saying in
/// `status` when the game's plugins could not.
pub(crate) fn build_world(game: &keel_engine::Game, doc: &mut Document, status: &mut Status) {
    if let Err(e) = build_game_world(game, doc) {
        status.error(format!(
            "The game's plugins could not set up the world: {e}"
        ));
        log::error!("{e}");
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
