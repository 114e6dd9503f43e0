//! The document's side of time travel: recording while playing, seeking, and
//! edits made at a past step, which discard the recorded future until undone.

use keel_engine::record::{Branch, RecordSettings, Seek, SeekError};

use super::Document;

impl Document {
    /// Starts recording every fixed step (Play).
    pub fn start_recording(&mut self, settings: RecordSettings) {
        self.world.start_recording(settings);
        self.futures.clear();
    }

    /// Stops recording and forgets the recording (Reset).
    pub fn stop_recording(&mut self) {
        self.world.stop_recording();
        self.futures.clear();
    }

    /// The step the world is at.
    pub fn step(&self) -> u64 {
        self.world.systems().steps()
    }

    /// Puts the world back to a recorded step; the selection keeps the nodes
    /// that exist then.
    ///
    /// # Errors
    /// [`SeekError`] (not recorded, dropped for the budget, not reached yet).
    pub fn seek(&mut self, step: u64) -> Result<Seek, SeekError> {
        let sought = self.world.seek(step)?;
        // Names and nodes are those of the step now.
        self.names_version += 1;
        self.prune();
        Ok(sought)
    }

    /// After an edit was recorded in the history: the recording keeps the
    /// edited world, and a future it discards is kept for the edit's undo.
    pub(super) fn recording_after_edit(&mut self) {
        let key = self.undo.len();
        let Some(branch) = self.world.note_edit() else {
            return;
        };
        // Entries past this one can no longer be redone; this one keeps its
        // future through the rest of a merged drag (which discards nothing new).
        self.futures.retain(|(k, _)| *k <= key);
        if !branch.is_empty() {
            self.futures.retain(|(k, _)| *k != key);
            self.futures.push((key, branch));
        }
    }

    /// After the history entry at depth `key` was undone: its edit's discarded
    /// future comes back, or the undo itself is recorded as an edit.
    pub(super) fn recording_after_undo(&mut self, key: usize) {
        match self.futures.iter().position(|(k, _)| *k == key) {
            Some(i) => {
                let (_, branch): (usize, Branch) = self.futures.remove(i);
                self.world.restore_branch(branch);
            }
            None => drop(self.world.note_edit()),
        }
    }

    /// Settings a new recording uses.
    pub fn record_settings(budget_mb: usize) -> RecordSettings {
        RecordSettings {
            budget_bytes: budget_mb << 20,
            ..RecordSettings::default()
        }
    }
}
