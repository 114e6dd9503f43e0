//! The serialised forms of live mode's handover: what one build of a game's
//! editor writes for the next to read (the document as scene text, the undo
//! history by tokens, the camera, Play with its inputs). Only data here: the
//! editor's parts turn themselves into these and back
//! (`live::handover`, `undo::handover`).

use std::path::PathBuf;

use keel_engine::glam::Vec3;
use keel_engine::record::{InputLog, StateHash};
use keel_engine::scene::Patch;
use keel_engine::{Environment, Transform};
use serde::{Deserialize, Serialize};

/// Version of the handover this build writes and reads.
pub const HANDOVER_VERSION: u32 = 1;

/// The editing state one build hands the next.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Handover {
    /// [`HANDOVER_VERSION`].
    pub version: u32,
    /// The document as edited, as scene-file text (while playing: the world
    /// of the moment Play was pressed).
    pub scene: String,
    /// Where the document is saved.
    pub path: Option<PathBuf>,
    /// The history's revision last saved (the document is unsaved while
    /// the history's top differs).
    pub saved_revision: u64,
    /// The undo and redo stacks.
    pub history: History,
    /// The selection by token, the primary last.
    pub selection: Vec<u32>,
    /// The Scene view's camera.
    pub camera: Option<Camera>,
    /// The panels' layout ([`crate::Layout::to_ron`]).
    pub layout: String,
    /// How fast the simulation runs.
    pub time_scale: f64,
    /// Play, when it was on.
    pub play: Option<Play>,
}

/// The Scene view's orbit and fly cameras.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Camera {
    pub(crate) target: Vec3,
    pub(crate) distance: f32,
    pub(crate) yaw: f32,
    pub(crate) pitch: f32,
    pub(crate) fly_position: Vec3,
    pub(crate) fly_yaw: f32,
    pub(crate) fly_pitch: f32,
    pub(crate) fly_speed: f32,
    pub(crate) flying: bool,
}

/// Play as it was: the steps run since Play was pressed, their inputs, and
/// the old build's hash after each of them (from the scene text).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Play {
    /// Paused rather than running.
    pub paused: bool,
    /// Steps run since Play was pressed.
    pub steps: u64,
    /// The world's step counter when Play was pressed.
    pub first_step: u64,
    /// The input each step read, by the world's step counter.
    pub inputs: InputLog,
    /// The old build's state hash after each step, from the scene text.
    pub hashes: Vec<StateHash>,
    /// The old build's run as scene text after some of its steps (the
    /// world's step counter then), within [`PREVIOUS_RUN_BUDGET`]: what the
    /// timeline shows of the old code's run. The last step is always kept.
    #[serde(default, alias = "old_run")]
    pub previous_run: Vec<(u64, String)>,
}

/// Bytes of scene text a handover keeps of the old code's run.
pub const PREVIOUS_RUN_BUDGET: usize = 32 << 20;

/// A placement by token.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Place {
    pub(crate) parent: Option<u32>,
    pub(crate) index: usize,
}

/// A subtree's records as scene-file text, with what the text leaves out.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Records {
    pub(crate) text: String,
    /// Each record's prefab part key (kept in memory only by scene files).
    pub(crate) parts: Vec<Option<String>>,
}

/// One edit by tokens and text.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Edit {
    /// The undo stack's `Transform` edit.
    Transform(u32, Transform, Transform),
    /// The undo stack's `Rename` edit.
    Rename(u32, String, String),
    /// The undo stack's `Reparent` edit.
    Reparent(u32, Place, Place, Transform, Transform),
    /// The undo stack's `Spawn` edit.
    Spawn(Subtree),
    /// The undo stack's `Despawn` edit.
    Despawn(Subtree),
    /// The undo stack's `Component` edit: the node, the kind's field name, the values as
    /// one-node records.
    Component(u32, String, Option<Records>, Option<Records>),
    /// The undo stack's `Orphans` edit.
    Orphans(u32, Orphans, Orphans),
    /// The undo stack's `Environment` edit.
    Environment(Box<Environment>, Box<Environment>),
    /// The undo stack's `Group` edit.
    Group(Vec<Edit>),
}

/// A subtree edit's place, records and handles (the undo stack's
/// `Spawn` and `Despawn` edits).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Subtree {
    pub(crate) at: Place,
    pub(crate) records: Records,
    pub(crate) ids: Vec<u32>,
}

/// A node's orphaned prefab overrides ([`keel_engine::scene::Orphans`]) as data.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Orphans {
    pub(crate) overrides: std::collections::BTreeMap<String, Patch>,
    pub(crate) removed: Vec<String>,
}

/// One history entry.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Entry {
    pub(crate) label: String,
    pub(crate) revision: u64,
    pub(crate) edit: Edit,
}

/// The whole history.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct History {
    pub(crate) done: Vec<Entry>,
    pub(crate) undone: Vec<Entry>,
    pub(crate) next_revision: u64,
    pub(crate) limit: usize,
}
