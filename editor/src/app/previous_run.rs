//! The previous build's run after live mode took in a new one: its scene as the old build wrote
//! it after some of its steps (`saved::Play::previous_run`), shown in the views in
//! place of the new run's while the timeline's "old run" box is ticked, at
//! the kept step nearest before the timeline's.

use std::path::Path;

use keel_engine::scene::ReadOptions;
use keel_engine::{Scene, World};

/// The old code's run, and the world last made from it.
#[derive(Default)]
pub struct PreviousRun {
    /// Scene text after each kept step (the world's step counter then).
    frames: Vec<(u64, String)>,
    /// Shown in the views instead of the document's world.
    showing: bool,
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
    pub fn kept(&self) -> usize {
        self.frames.len()
    }

    /// The kept frame nearest at or before `step`.
    fn at(&self, step: u64) -> Option<&(u64, String)> {
        self.frames.iter().rev().find(|(s, _)| *s <= step)
    }
}

impl PreviousRun {
    /// Shows the old code's run in the views instead of the new one (after a
    /// new build during Play) or the new one again; `false` when there is
    /// no old run.
    pub fn show(&mut self, on: bool) -> bool {
        if self.kept() == 0 {
            return false;
        }
        self.showing = on;
        true
    }

    /// Whether the views are to show the old run (the timeline's box).
    pub fn showing(&self) -> bool {
        self.showing
    }

    /// The kept step of the old run the views show while the timeline is
    /// at `step` (the one nearest at or before it), while they show it.
    pub fn shown(&self, step: u64) -> Option<u64> {
        self.showing
            .then(|| self.at(step).map(|(s, _)| *s))
            .flatten()
    }

    /// The world the views draw: `world` (the document's, its file at
    /// `path`), or the old code's run at its step.
    pub(crate) fn world<'a>(
        &'a mut self,
        world: &'a mut World,
        path: Option<&Path>,
    ) -> &'a mut World {
        let wanted = self.shown(world.systems().steps());
        if let Some(step) = wanted
            && self.loaded.as_ref().map(|(s, _)| *s) != Some(step)
        {
            self.loaded = self.load(step, world, path).map(|w| (step, w));
        }
        match (wanted, &mut self.loaded) {
            (Some(_), Some((_, old))) => old,
            _ => world,
        }
    }

    /// The old run's world after kept step `step`, read into `world`'s assets.
    fn load(&self, step: u64, world: &World, path: Option<&Path>) -> Option<World> {
        let (_, text) = self.at(step)?;
        let assets = world.scene().assets();
        let origin = path.unwrap_or(Path::new(crate::document::UNTITLED));
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
