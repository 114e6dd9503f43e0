//! Time travel: a recording of every fixed step, kept as keyframes, that the
//! world can be put back to at any recorded step.
//!
//! The simulation is deterministic (same steps, same bits, whatever the frame
//! rate), so a recording does not store every step: it keeps keyframes of the
//! whole simulated state (scene columns and components, structure, particle
//! pool, emitter states, the physics, step counter) and re-simulates from the
//! nearest one.
//! Edits made between steps (the editor's) force a keyframe before the next
//! step, so re-simulation never has to replay them.
//!
//! - Keyframes are taken adaptively: when the steps since the last one took
//!   long enough that re-simulating them costs about [`RecordSettings::resim_target`],
//!   but not before the steps took 40 times what the last capture cost, so
//!   recording stays a few percent of the step, unless that would make a seek
//!   re-simulate more than [`RecordSettings::resim_cap`] (large worlds).
//! - A keyframe's bulk (hot columns, slots, names, live particle columns) is
//!   stored as the 64-byte ranges that differ from the previous keyframe's,
//!   XOR-ed against them, LZ4-compressed; every [`RecordSettings::chain`]-th keyframe stands alone,
//!   which bounds what a seek unpacks. Untouched component columns are shared.
//! - The keyframes live in a ring with a byte budget: the oldest are dropped
//!   first (the next one is rebased to stand alone).
//!
//! Recording reads the world and never writes what a step reads: a recorded run
//! is bit for bit the run without a recorder (tested).
//!
//! What re-simulation can reproduce is what lives in the world: a user system
//! that keeps state of its own (a counter in its closure) is not rewound by a
//! seek; such state belongs in a component. Tools that edit the world between
//! steps without the editor call [`crate::world::World::note_edit`] (structural
//! edits are noticed by themselves).
//!
//! # How recording works
//!
//! Play in the editor (or `World::start_recording`) records every fixed step.
//! The simulation is deterministic, so a recording keeps **keyframes** of the
//! state a step reads and writes and re-simulates between them:
//!
//! - A keyframe is the world after step k (and any edit before step k+1): the
//!   bulk as bytes (hot columns, links, slots, names, the live range of the
//!   particle columns: about
//!   170 bytes a node), each component column as an `Arc` (shared with the
//!   previous keyframe when no mutable access touched it: `Column::touched`), and
//!   a clone of the small rest (layout upkeep, pending lists, particle slots,
//!   step counter) and of the physics (rapier's bodies, colliders, contacts
//!   with their warm-start impulses, islands). The octree is rebuilt on
//!   restore.
//! - The bulk is stored as the 64-byte ranges that differ from the previous
//!   keyframe's, XOR-ed against it and LZ4-compressed (a world where little moves
//!   costs little); one keyframe in eight stands alone, so a seek
//!   unpacks at most eight. The ring drops the oldest keyframes beyond the budget
//!   (256 MB by default); the next one is rebased to stand alone.
//! - When: after the steps since the last keyframe took 8 ms to simulate and 40
//!   times the last capture's cost (recording costs about 2.5% of the step), or at
//!   most 32 ms of steps (large worlds, where a capture costs more). An edit
//!   between steps (the editor's `note_edit`, or a structural change) takes a
//!   keyframe at once, so re-simulation never replays edits.
//! - `seek(k)`: the newest keyframe at or before k, restored, then k - keyframe
//!   steps re-simulated. Playing from a past step replaces the future; an edit
//!   there discards it into a `Branch` that undo puts back.
//! - Recording changes no bit (tested), and seeking gives the same `StateHash`
//!   (hot columns and layout, component values, particle columns and counters,
//!   bodies) as
//!   a fresh run (tested at 40 random steps of 10,000).
//!
//! Recording files (`keel-viewer --record FILE`) hold no state at all: the scene's
//! content hash, the build's id (a hash of the engine's sources and shaders,
//! `engine/build.rs`), and the world's hash after every step; `--replay` runs the
//! scene again and reports the first step whose hash differs.

mod canonical;
pub(crate) mod file;
mod hash;
mod input_log;
mod keyframe;

use std::collections::VecDeque;
use std::time::Duration;

pub use crate::bulk::BulkError;
use crate::input::InputFrame;
pub use file::{Recording, RecordingError, Verdict, build_id, game_build_id, scene_hash};
pub use hash::StateHash;
pub use input_log::InputLog;
use keyframe::Keyframe;
pub use keyframe::{Captured, Restored};

/// What a [`Recorder`] records: a simulation run in fixed steps whose state
/// it can capture into a keyframe and put back. The engine's
/// [`World`](crate::World) is one; what it captures is what it says here.
pub trait Simulation {
    /// Runs one fixed step.
    fn step(&mut self);
    /// Fixed steps run so far.
    fn steps(&self) -> u64;
    /// A number that changes with every structural edit (spawn, despawn,
    /// reparent): an edit between steps must be kept as a keyframe.
    fn structure_version(&self) -> u64;
    /// The state a keyframe captures.
    fn captured(&mut self) -> Captured<'_>;
    /// Puts a keyframe's state in place (and whatever is derived from it).
    fn restore(&mut self, state: Restored);
    /// Hashes of the simulated state, by part.
    fn state_hash(&mut self) -> StateHash;
    /// The length of a fixed step.
    fn step_length(&self) -> Duration;
    /// Sets the length of a fixed step (a replay runs at the recorded one).
    fn set_step_length(&mut self, step: Duration);
    /// The input the next step reads (what a recording logs).
    fn input(&self) -> InputFrame;
    /// Sets the input the next step reads (a seek or a replay feeding back
    /// what was recorded).
    fn set_input(&mut self, input: InputFrame);
}

/// How a recording keeps keyframes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecordSettings {
    /// Memory the keyframes may use; the oldest are dropped beyond it.
    pub budget_bytes: usize,
    /// About how long re-simulating from a keyframe to any later step may take
    /// when keyframes are cheap.
    pub resim_target: Duration,
    /// Steps since a keyframe never take longer than this to re-simulate, even
    /// when capturing costs more than the 2.5% of step time the adaptive rule
    /// allows (a seek's bound on large worlds).
    pub resim_cap: Duration,
    /// A keyframe every this many steps instead of the adaptive rule (tests, benches).
    pub every: Option<u32>,
    /// One keyframe in this many stands alone; the others are deltas.
    pub chain: u32,
}

impl Default for RecordSettings {
    fn default() -> Self {
        Self {
            budget_bytes: 256 << 20,
            resim_target: Duration::from_millis(8),
            resim_cap: Duration::from_millis(32),
            every: None,
            chain: 8,
        }
    }
}

/// Why a seek was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeekError {
    /// Nothing is recorded.
    #[error("nothing is recorded yet")]
    Empty,
    /// The step's keyframes were dropped to stay within the memory budget.
    #[error(
        "step {step} is no longer recorded: the recording keeps steps {first}..={last} \
         (older keyframes were dropped to stay within the {budget_mb} MB budget)"
    )]
    Dropped {
        /// The step asked for.
        step: u64,
        /// Oldest step still recorded.
        first: u64,
        /// Newest step recorded.
        last: u64,
        /// The budget, in megabytes.
        budget_mb: usize,
    },
    /// The step was never reached.
    #[error("step {step} has not been recorded yet: the recording ends at step {last}")]
    Ahead {
        /// The step asked for.
        step: u64,
        /// Newest step recorded.
        last: u64,
    },
    /// A keyframe did not unpack (a bug, never expected).
    #[error("keyframe of step {step} is damaged: {source}")]
    Damaged {
        /// The keyframe's step.
        step: u64,
        /// What failed.
        source: crate::bulk::BulkError,
    },
}

/// What a seek did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seek {
    /// Step of the keyframe restored.
    pub keyframe: u64,
    /// Steps simulated after it.
    pub resimulated: u64,
}

/// The future a branch discarded, to be put back (undo).
pub struct Branch {
    kept: usize,
    tail: Vec<Keyframe>,
    inputs: InputLog,
    head: u64,
    step: u64,
}

impl Branch {
    /// Whether nothing was discarded (the world was at the newest step).
    pub fn is_empty(&self) -> bool {
        self.tail.is_empty() && self.head <= self.step
    }
}

/// Counters for the timeline and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecordStats {
    /// Keyframes held.
    pub keyframes: usize,
    /// Bytes held.
    pub bytes: usize,
    /// Keyframes dropped for the budget.
    pub dropped: u64,
    /// Keyframes taken (held or not).
    pub taken: u64,
    /// Bytes of the newest keyframe's state unpacked: what restoring it must
    /// at least move.
    pub state_bytes: usize,
}

/// The recording of a world (see the module documentation).
pub struct Recorder {
    settings: RecordSettings,
    keyframes: VecDeque<Keyframe>,
    used: usize,
    /// Newest step reached while recording.
    head: u64,
    /// Bulk of the newest keyframe (the base of the next delta), when known.
    newest_raw: Option<Vec<u8>>,
    raw: Vec<u8>,
    scratch: Vec<u8>,
    /// Last unpacked keyframe (index into `keyframes`, bulk): scrubbing nearby
    /// reuses it. `scratch` is the delta chain's other buffer meanwhile.
    cache: Option<(u64, Vec<u8>)>,
    since_keyframe: Duration,
    steps_since_keyframe: u32,
    capture_cost: Duration,
    /// Delta keyframes since the last one standing alone.
    deltas_in_chain: u32,
    force: bool,
    seen_structure: u64,
    stats: RecordStats,
    /// The input every recorded step read.
    inputs: InputLog,
}

impl Recorder {
    /// An empty recording.
    pub fn new(settings: RecordSettings) -> Self {
        Self {
            settings,
            keyframes: VecDeque::new(),
            used: 0,
            head: 0,
            newest_raw: None,
            raw: Vec::new(),
            scratch: Vec::new(),
            cache: None,
            since_keyframe: Duration::ZERO,
            steps_since_keyframe: 0,
            capture_cost: Duration::ZERO,
            deltas_in_chain: 0,
            force: true,
            seen_structure: u64::MAX,
            stats: RecordStats::default(),
            inputs: InputLog::default(),
        }
    }

    /// The settings it records with.
    pub fn settings(&self) -> RecordSettings {
        self.settings
    }

    /// Steps that can be sought: oldest kept keyframe to the newest step reached.
    pub fn range(&self) -> Option<std::ops::RangeInclusive<u64>> {
        self.keyframes.front().map(|k| k.step..=self.head)
    }

    /// Counters.
    pub fn stats(&self) -> RecordStats {
        RecordStats {
            keyframes: self.keyframes.len(),
            bytes: self.used,
            state_bytes: self.newest_raw.as_ref().map_or(0, Vec::len),
            ..self.stats
        }
    }

    /// Called before each fixed step: branches when the world was sought back,
    /// takes the keyframe an edit forced.
    pub(crate) fn before_step(&mut self, world: &mut impl Simulation) {
        let step = world.steps();
        if step < self.head {
            // Playing from a past step: that step's future is replaced.
            drop(self.branch(step));
        }
        if world.structure_version() != self.seen_structure {
            self.force = true;
        }
        if self.force || self.keyframes.is_empty() {
            self.capture(world);
        }
        self.inputs.note(step, &world.input());
    }

    /// The input every recorded step read.
    pub fn inputs(&self) -> &InputLog {
        &self.inputs
    }

    /// Called after each fixed step with the time it took.
    pub(crate) fn after_step(&mut self, world: &mut impl Simulation, took: Duration) {
        self.head = world.steps();
        self.since_keyframe += took;
        self.steps_since_keyframe += 1;
        let due = match self.settings.every {
            Some(n) => self.steps_since_keyframe >= n.max(1),
            None => {
                self.since_keyframe >= self.settings.resim_target
                    && (self.since_keyframe >= self.capture_cost * 40
                        || self.since_keyframe >= self.settings.resim_cap)
            }
        };
        if due {
            self.capture(world);
        }
        // Structural changes made by the step itself replay; only those made
        // between steps (by hand) must be kept as a keyframe.
        self.seen_structure = world.structure_version();
    }

    fn capture(&mut self, world: &mut impl Simulation) {
        let started = web_time::Instant::now();
        let step = world.steps();
        // A second keyframe of the same step (an edit) replaces nothing: seeking
        // picks the newest one of a step.
        let standalone = self.deltas_in_chain + 1 >= self.settings.chain.max(1);
        let base = if standalone {
            None
        } else {
            self.newest_raw.as_deref()
        };
        self.deltas_in_chain = if base.is_some() {
            self.deltas_in_chain + 1
        } else {
            0
        };
        let keyframe = Keyframe::capture(
            world.captured(),
            self.keyframes.back(),
            base,
            &mut self.raw,
            &mut self.scratch,
        );
        self.used += keyframe.bytes;
        self.keyframes.push_back(keyframe);
        let mut raw = self.newest_raw.take().unwrap_or_default();
        std::mem::swap(&mut raw, &mut self.raw);
        self.newest_raw = Some(raw);
        self.head = self.head.max(step);
        self.force = false;
        self.seen_structure = world.structure_version();
        self.since_keyframe = Duration::ZERO;
        self.steps_since_keyframe = 0;
        self.stats.taken += 1;
        while self.used > self.settings.budget_bytes && self.keyframes.len() > 1 {
            self.drop_oldest();
        }
        self.capture_cost = started.elapsed();
    }

    fn drop_oldest(&mut self) {
        let Some(oldest) = self.keyframes.pop_front() else {
            return;
        };
        self.cache = None;
        if let Some(next) = self.keyframes.front_mut()
            && next.is_delta()
        {
            let mut base = Vec::new();
            let mut raw = Vec::new();
            // The oldest keyframe always stands alone, so it unpacks by itself.
            if oldest.unpack(None, &mut base).is_ok() && next.unpack(Some(&base), &mut raw).is_ok()
            {
                let (old, new) = next.make_standalone(&raw);
                self.used = self.used + new - old;
            }
        }
        self.used -= oldest.bytes_freed_by_drop().min(self.used);
        drop(oldest);
        self.stats.dropped += 1;
    }

    /// Unpacks keyframe `i`'s bulk into the cache, unless it holds it already.
    fn unpack(&mut self, i: usize) -> Result<(), SeekError> {
        let step = self.keyframes[i].step;
        let damaged = |source| SeekError::Damaged { step, source };
        if !matches!(&self.cache, Some((cached, _)) if *cached == i as u64) {
            let first = (0..=i)
                .rev()
                .find(|&j| !self.keyframes[j].is_delta())
                .ok_or(SeekError::Damaged {
                    step,
                    source: crate::bulk::BulkError { column: 0 },
                })?;
            let mut out = self.cache.take().map(|(_, raw)| raw).unwrap_or_default();
            let base = &mut self.scratch;
            self.keyframes[first]
                .unpack(None, &mut out)
                .map_err(damaged)?;
            for j in first + 1..=i {
                std::mem::swap(&mut out, base);
                self.keyframes[j]
                    .unpack(Some(base), &mut out)
                    .map_err(damaged)?;
            }
            self.cache = Some((i as u64, out));
        }
        Ok(())
    }

    /// Puts `world` back to step `step`: restores the newest keyframe at or
    /// before it and re-simulates the steps in between (without recording).
    ///
    /// # Errors
    /// [`SeekError`]: nothing recorded, a step dropped for the budget or not
    /// reached yet.
    pub fn seek(&mut self, world: &mut impl Simulation, step: u64) -> Result<Seek, SeekError> {
        let (first, last) = match (self.keyframes.front(), self.keyframes.back()) {
            (Some(f), Some(_)) => (f.step, self.head),
            _ => return Err(SeekError::Empty),
        };
        if step < first {
            return Err(SeekError::Dropped {
                step,
                first,
                last,
                budget_mb: self.settings.budget_bytes >> 20,
            });
        }
        if step > last {
            return Err(SeekError::Ahead { step, last });
        }
        let i = self.keyframes.partition_point(|k| k.step <= step) - 1;
        self.unpack(i)?;
        let keyframe = &self.keyframes[i];
        let raw = self
            .cache
            .as_ref()
            .map_or(&[][..], |(_, raw)| raw.as_slice());
        let restored = keyframe.restore(raw).map_err(|source| SeekError::Damaged {
            step: keyframe.step,
            source,
        })?;
        world.restore(restored);
        let keyframe = keyframe.step;
        // The caller holds the recorder, so these steps are not recorded;
        // each reads the input it read when it was.
        let live = world.input();
        for s in keyframe..step {
            world.set_input(self.inputs.at(s));
            world.step();
        }
        world.set_input(live);
        Ok(Seek {
            keyframe,
            resimulated: step - keyframe,
        })
    }

    /// Discards everything recorded after `step` (the world is at `step` and
    /// its future changes); returns it for [`Recorder::restore_branch`].
    pub fn branch(&mut self, step: u64) -> Branch {
        let kept = self.keyframes.partition_point(|k| k.step <= step);
        let tail: Vec<Keyframe> = self.keyframes.drain(kept..).collect();
        for k in &tail {
            self.used -= k.bytes_freed_by_drop().min(self.used);
        }
        let head = self.head;
        self.head = step;
        self.newest_raw = None;
        self.cache = None;
        self.force = true;
        Branch {
            kept,
            tail,
            inputs: self.inputs.split_off(step),
            head,
            step,
        }
    }

    /// An edit was made to `world` outside a step, at a step before the newest
    /// recorded: the future is discarded (returned, for undo) and the edited
    /// world becomes a keyframe at once.
    pub fn edit(&mut self, world: &mut impl Simulation) -> Branch {
        let branch = self.branch(world.steps());
        self.capture(world);
        branch
    }

    /// Puts back the future a [`Recorder::branch`] discarded (the world must be
    /// at the branch's step again, as before the edit that branched).
    pub fn restore_branch(&mut self, branch: Branch) {
        self.keyframes.truncate(branch.kept);
        for k in branch.tail {
            self.used += k.bytes_freed_by_drop();
            self.keyframes.push_back(k);
        }
        self.head = branch.head;
        self.inputs.put_back(branch.step, branch.inputs);
        self.newest_raw = None;
        self.cache = None;
    }
}
