//! The previous build's run after live mode took in a new one: its scene as the old build wrote
//! it after some of its steps (`saved::Play::previous_run`), shown in the views in
//! place of the new run's while the timeline's "old run" box is ticked, at
//! the kept step nearest before the timeline's.

use std::path::Path;

use keel_engine::scene::ReadOptions;
use keel_engine::{Scene, World};

use crate::app::EditorApp;

/// The old code's run, and the world last made from it.
#[derive(Default)]
pub(crate) struct PreviousRun {
    /// Scene text after each kept step (the world's step counter then).
    frames: Vec<(u64, String)>,
    /// Shown in the views instead of the document's world.
    pub(crate) showing: bool,
    /// The world of the kept step shown last.
    loaded: Option<(u64, World)>,
}

impl PreviousRun {
    /// The run of `frames`, not shown yet.
    pub(crate) fn new(frames: Vec<(u64, String)>) -> Self {
        Self {
            frames,
            ..Self::default()
        }
    }

    /// Steps kept of the old run (none: no old run to show).
    pub(crate) fn kept(&self) -> usize {
        self.frames.len()
    }

    /// The kept frame nearest at or before `step`.
    fn at(&self, step: u64) -> Option<&(u64, String)> {
        self.frames.iter().rev().find(|(s, _)| *s <= step)
    }
}

impl EditorApp {
    /// Shows the old code's run in the views instead of the new one (after a
    /// new build during Play) or the new one again; `false` when there is
    /// no old run.
    pub fn show_previous_run(&mut self, on: bool) -> bool {
        if self.play.previous_run.kept() == 0 {
            return false;
        }
        self.play.previous_run.showing = on;
        true
    }

    /// The step of the old run the views show (the kept one nearest at or
    /// before the timeline's), while they show it.
    pub fn previous_run_shown(&self) -> Option<u64> {
        let old = &self.play.previous_run;
        old.showing
            .then(|| old.at(self.doc.step()).map(|(s, _)| *s))
            .flatten()
    }

    /// The world the views draw: the document's, or the old code's run.
    pub fn shown_world_mut(&mut self) -> &mut World {
        let wanted = self.load_shown_previous_run();
        pick(
            wanted,
            &mut self.play.previous_run.loaded,
            &mut self.doc.world,
        )
    }

    /// What the Scene view draws: the shown world, and the overlays over it
    /// (the selection's, which stays the document's), recomputed nodes
    /// tracked in the document's world when they are drawn.
    pub(crate) fn scene_view_world(&mut self) -> (&mut World, keel_engine::Overlays<'_>) {
        let wanted = self.load_shown_previous_run();
        let overlays = self.views.options.overlays(self.doc.selection.nodes());
        self.doc.world.set_track_recomputed(overlays.recomputed);
        let world = pick(
            wanted,
            &mut self.play.previous_run.loaded,
            &mut self.doc.world,
        );
        (world, overlays)
    }

    /// The kept step of the old run the views show, its world loaded.
    fn load_shown_previous_run(&mut self) -> Option<u64> {
        let wanted = self.previous_run_shown();
        if let Some(step) = wanted
            && self.play.previous_run.loaded.as_ref().map(|(s, _)| *s) != Some(step)
        {
            self.play.previous_run.loaded = self.load_previous_run(step).map(|w| (step, w));
        }
        wanted
    }

    /// The old run's world after kept step `step`.
    fn load_previous_run(&self, step: u64) -> Option<World> {
        let (_, text) = self.play.previous_run.at(step)?;
        let assets = self.doc.scene().assets();
        let origin = self
            .doc
            .path
            .as_deref()
            .unwrap_or(Path::new(crate::document::UNTITLED));
        let scene = Scene::from_text_with(text, origin, assets, ReadOptions::KEEP_UNREADABLE);
        match scene {
            Ok(scene) => {
                let mut world = World::new(scene);
                world.scene_mut().pose_animators();
                Some(world)
            }
            Err(e) => {
                log::warn!("live: the old run at step {step} cannot be shown: {e}");
                None
            }
        }
    }
}

/// The old run's `loaded` world when step `wanted` is shown and loaded,
/// else the document's.
fn pick<'a>(
    wanted: Option<u64>,
    loaded: &'a mut Option<(u64, World)>,
    doc: &'a mut World,
) -> &'a mut World {
    match (wanted, loaded) {
        (Some(_), Some((_, world))) => world,
        _ => doc,
    }
}
