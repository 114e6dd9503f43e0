//! Live mode's handover: the whole editing state one build of a game's
//! editor gives the next (the document with its unsaved edits and undo
//! history, the selection, the camera, the layout, the time scale, and Play
//! with every recorded step's input), and the "what if" run that replays
//! those inputs through the new code and finds the first step it changed.
//!
//! The world goes over as scene-file text, through the game components'
//! serde path: a field new to a component takes its default, one it lost is
//! kept as the scene file keeps unknown data. Handles go over as tokens
//! (`undo::Tokens`). Both builds run the recorded steps from that same text,
//! so their state hashes compare step for step: the old build hashes its
//! run before it hands over, the new one re-simulates and compares.

use std::path::{Path, PathBuf};
use std::time::Instant;

use keel_engine::scene::ReadOptions;
use keel_engine::{Game, SceneError};

use crate::action::Action;
use crate::app::{EditorApp, EditorOptions};
use crate::divergence::Divergence;
use crate::document::Document;
use crate::saved::{self, HANDOVER_VERSION, Handover};
use crate::status::PlayState;
use crate::undo::{Handles, Tokens, UndoStack};

/// Why a handover could not be made, written or read.
#[derive(Debug, thiserror::Error)]
pub enum HandoverError {
    /// The scene or a history entry could not be written as text.
    #[error("the editing state could not be written: {0}")]
    Scene(#[from] keel_engine::SceneError),
    /// Not now: the editor is in a state that does not go over (a prefab
    /// open over the scenes it came from); try again later.
    #[error("{0}")]
    NotNow(String),
    /// The file could not be written.
    #[error(transparent)]
    Write(#[from] crate::persist::PersistError),
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// This build cannot read the scene handed over (a value its types
    /// refuse, say a range they narrowed).
    #[error("this build cannot read the scene handed over: {0}")]
    Unreadable(keel_engine::SceneError),
    /// The file is no handover this build reads.
    #[error("{}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        message: String,
    },
}

impl Handover {
    /// Writes the handover atomically (a temp file renamed over `path`).
    ///
    /// # Errors
    /// [`HandoverError::Write`], [`HandoverError::Parse`] for a value RON can't write.
    pub fn write(&self, path: &Path) -> Result<(), HandoverError> {
        let text = ron::to_string(self).map_err(|e| HandoverError::Parse {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        Ok(crate::persist::write_ron(path, &text)?)
    }

    /// Reads a handover written by [`Handover::write`].
    ///
    /// # Errors
    /// [`HandoverError::Io`]; [`HandoverError::Parse`] naming the line and
    /// what was expected, or another version.
    pub fn read(path: &Path) -> Result<Self, HandoverError> {
        // A handover is a scene with its steps: read within the scene files' cap.
        let limits = keel_engine::files::ReadLimits::from_env();
        let text =
            keel_engine::files::read_to_string(path, keel_engine::files::FileKind::Scene, &limits)
                .map_err(|source| HandoverError::Io {
                    path: path.to_path_buf(),
                    source,
                })?;
        let parse = |message: String| HandoverError::Parse {
            path: path.to_path_buf(),
            message,
        };
        let handover: Handover = ron::from_str(&text).map_err(|e| parse(e.to_string()))?;
        if handover.version != HANDOVER_VERSION {
            return Err(parse(format!(
                "handover version {}, this build reads {HANDOVER_VERSION}",
                handover.version
            )));
        }
        Ok(handover)
    }
}

impl EditorApp {
    /// The editing state for the next build. Play ends here (Reset: the
    /// world of the moment Play was pressed comes back, and with it the
    /// history and selection of then); the steps played go over as inputs,
    /// with the hash of each as this build computes it from the scene text.
    ///
    /// # Errors
    /// [`HandoverError::NotNow`] in prefab mode (nothing changes then);
    /// [`HandoverError::Scene`] for a value the scene file can't write.
    pub fn handover(&mut self) -> Result<Handover, HandoverError> {
        if !self.prefabs.parked.is_empty() {
            // The scenes under the prefab (their unsaved edits too) would
            // not go over.
            return Err(HandoverError::NotNow(
                "a prefab is open over its scene: back to the scene, and the new build takes over"
                    .to_owned(),
            ));
        }
        let played = match (&self.play.snapshot, self.doc.world.recorder()) {
            (Some(snapshot), Some(recorder)) => Some((snapshot.step(), recorder.inputs().clone())),
            _ => None,
        };
        let (paused, step) = (self.play.state == PlayState::Paused, self.doc.step());
        self.play.reset(&mut self.doc, &mut self.status);
        let scene = world_text(&self.doc.world, self.doc.path.as_deref())?;
        let play = match played {
            Some((first_step, inputs)) => {
                let steps = step.saturating_sub(first_step);
                let mut hashes = Vec::with_capacity(steps as usize);
                let mut doc = fresh_document(&self.doc, &self.game, &scene)?;
                // As Play does: recording on (the same work between steps).
                doc.start_recording(Document::record_settings(self.play.record_budget_mb));
                let mut play = saved::Play {
                    paused,
                    steps,
                    first_step,
                    inputs,
                    hashes: Vec::new(),
                    previous_run: Vec::new(),
                };
                // Every how many steps the old run is kept, within the budget.
                let every = (steps.saturating_mul(scene.len() as u64)
                    / saved::PREVIOUS_RUN_BUDGET as u64)
                    .max(1);
                let path = self.doc.path.clone();
                let mut previous_run = Vec::new();
                rerun(&mut doc, &play, |i, world| {
                    hashes.push(world.state_hash());
                    if (i + 1) % every == 0 || i + 1 == steps {
                        match world_text(world, path.as_deref()) {
                            Ok(text) => previous_run.push((world.systems().steps(), text)),
                            Err(e) => log::warn!("live: the old run at step {}: {e}", i + 1),
                        }
                    }
                });
                play.hashes = hashes;
                play.previous_run = previous_run;
                Some(play)
            }
            None => None,
        };
        let mut tokens = Tokens::of_scene(self.doc.scene());
        let history = self.doc.undo.to_handover(&mut tokens)?;
        let mut selection: Vec<u32> = self
            .doc
            .selection
            .nodes()
            .iter()
            .filter(|&&n| Some(n) != self.doc.selection.primary())
            .map(|&n| tokens.token(n))
            .collect();
        selection.extend(self.doc.selection.primary().map(|n| tokens.token(n)));
        Ok(Handover {
            version: HANDOVER_VERSION,
            scene,
            path: self.doc.path.clone(),
            saved_revision: self.doc.saved_revision(),
            history,
            selection,
            camera: self.views.viewport.rig.as_ref().map(|rig| saved::Camera {
                target: rig.orbit.target,
                distance: rig.orbit.distance,
                yaw: rig.orbit.yaw,
                pitch: rig.orbit.pitch,
                fly_position: rig.fly.position,
                fly_yaw: rig.fly.yaw,
                fly_pitch: rig.fly.pitch,
                fly_speed: rig.fly.speed,
                flying: rig.flying,
            }),
            layout: self.workspace.layout.to_ron(),
            time_scale: self.doc.world.clock().time_scale(),
            play,
        })
    }

    /// The editor a new build makes of `handover`: the document (unsaved
    /// edits, history, selection), the camera, the layout, the time scale;
    /// and, when Play was on, the recorded steps re-simulated through this
    /// build's code from their inputs, compared with the old build's hashes
    /// (see [`Playback::divergence`](crate::Playback::divergence)), Play going on from where it was.
    ///
    /// A component whose value no longer reads as this build's type (a
    /// field the type lost) is kept as written, a warning in the Log naming
    /// it; the node goes without it until the type reads it again.
    ///
    /// # Errors
    /// [`HandoverError::Unreadable`] when this build cannot read the scene
    /// at all (nothing is made then: the old build stays up).
    pub fn resume(options: EditorOptions, handover: Handover) -> Result<Self, HandoverError> {
        let mut app = Self::bare(options);
        let assets = app.doc.scene().assets().clone();
        let doc = Document::from_text(
            &handover.scene,
            handover.path.as_deref(),
            &assets,
            ReadOptions::KEEP_UNREADABLE,
        )
        .map_err(HandoverError::Unreadable)?;
        // The game's resources and systems, as for any document opened.
        app.replace_document(doc);
        let handles = Handles::of_scene(app.doc.scene());
        let mut dropped = Vec::new();
        app.doc.undo =
            UndoStack::from_handover(handover.history, app.doc.scene(), &handles, &mut dropped);
        for entry in dropped {
            log::warn!("Undo history: dropped {entry}");
        }
        app.doc.restore_saved_revision(handover.saved_revision);
        let nodes: Vec<_> = handover
            .selection
            .iter()
            .map(|&t| handles.id(t))
            .filter(|&n| app.doc.scene().contains(n))
            .collect();
        app.doc.selection.set_all(nodes);
        if let Some(c) = handover.camera {
            let rig = app.views.viewport.rig(app.doc.scene());
            rig.orbit.target = c.target;
            rig.orbit.distance = c.distance;
            rig.orbit.yaw = c.yaw;
            rig.orbit.pitch = c.pitch;
            rig.fly.position = c.fly_position;
            rig.fly.yaw = c.fly_yaw;
            rig.fly.pitch = c.fly_pitch;
            rig.fly.speed = c.fly_speed;
            rig.flying = c.flying;
        }
        match crate::chrome::dock::Layout::from_ron(&handover.layout) {
            Ok(layout) => app.workspace.layout = layout,
            Err(e) => log::warn!("The panel layout handed over: {e}"),
        }
        app.doc
            .world
            .clock_mut()
            .set_time_scale(handover.time_scale);
        if let Some(play) = handover.play {
            app.catch_up(&play);
        }
        Ok(app)
    }

    /// Play back where it was after a handover the new build did not take:
    /// the steps played re-run from their inputs with this build's code.
    pub fn take_back_play(&mut self, play: &saved::Play) {
        if self.play.state == PlayState::Editing {
            self.catch_up(play);
            self.play.divergence = None;
            self.play.previous_run = crate::app::previous_run::PreviousRun::default();
        }
    }

    /// Re-simulates the handed-over steps with this build's code (Play on,
    /// recording), comparing each step's hash with the old build's.
    fn catch_up(&mut self, play: &saved::Play) {
        // As Step does, without asking the clock for a step: they run here.
        self.play.hold(&mut self.doc);
        let started = Instant::now();
        let mut divergence = Divergence {
            steps: 0,
            diverged_at: None,
            parts: Vec::new(),
            seconds: 0.0,
            panic: None,
        };
        rerun(&mut self.doc, play, |i, world| {
            divergence.steps = i + 1;
            if divergence.diverged_at.is_none()
                && let Some(old) = play.hashes.get(i as usize)
            {
                let new = world.state_hash();
                if new != *old {
                    divergence.diverged_at = Some(world.systems().steps());
                    divergence.parts = new.differing(old);
                }
            }
        });
        divergence.seconds = started.elapsed().as_secs_f64();
        divergence.panic = self.doc.world.system_panic().map(ToString::to_string);
        let summary = divergence.summary();
        log::info!(
            "{summary} ({} steps re-simulated in {:.2} s)",
            divergence.steps,
            divergence.seconds
        );
        self.play.divergence = Some(divergence);
        self.play.previous_run =
            crate::app::previous_run::PreviousRun::new(play.previous_run.clone());
        if self.doc.world.system_panic().is_some() {
            // Play stops as for any panic: the edited world comes back.
            self.play
                .stop_on_system_panic(&mut self.doc, &mut self.status);
            return;
        }
        if play.paused {
            self.play.pause(&mut self.doc);
        } else {
            self.act(Action::Play);
        }
        self.status.info(summary);
    }
}

/// A document read from `text` at `like`'s path into its assets, its world
/// given `game`'s resources and systems (as any document opened is given them).
fn fresh_document(like: &Document, game: &Game, text: &str) -> Result<Document, SceneError> {
    let assets = like.scene().assets().clone();
    let mut doc = Document::from_text(text, like.path.as_deref(), &assets, ReadOptions::default())?;
    if let Err(e) = crate::app::playback::build_game_world(game, &mut doc) {
        log::error!("The game's plugins could not set up the world: {e}");
    }
    Ok(doc)
}

/// `world`'s scene as the scene file at `path` would hold it.
fn world_text(
    world: &keel_engine::World,
    path: Option<&Path>,
) -> Result<String, keel_engine::SceneError> {
    let origin = path.unwrap_or(Path::new(crate::document::UNTITLED));
    world
        .scene()
        .to_file_in(path.and_then(Path::parent))
        .to_text(origin)
}

/// Runs `play`'s steps on `doc`'s world from its inputs, calling `each`
/// with the step's index after each; stops early at a system's panic.
fn rerun(
    doc: &mut Document,
    play: &saved::Play,
    mut each: impl FnMut(u64, &mut keel_engine::World),
) {
    let world = &mut doc.world;
    for i in 0..play.steps {
        world.set_input(play.inputs.at(play.first_step + i));
        world.step();
        if world.system_panic().is_some() {
            return;
        }
        each(i, world);
    }
}
