//! The input of every recorded step, stored where it changed: what a seek
//! feeds back to the steps it re-simulates, and what a recording file holds
//! so a replay reproduces an interactive run.

use serde::{Deserialize, Serialize};

use crate::input::InputFrame;

/// Each step's input frame, kept as the steps where it changed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct InputLog {
    /// (first step, frame it read), steps ascending.
    changes: Vec<(u64, InputFrame)>,
}

impl InputLog {
    /// Notes that `step` reads `frame`, forgetting what was noted for it and
    /// for later steps (a run from a past step replaces its future).
    pub fn note(&mut self, step: u64, frame: &InputFrame) {
        // The usual case, a step after every one noted: nothing to forget,
        // and the frame it would read is the last one noted.
        if let Some(&(last, ref read)) = self.changes.last()
            && last < step
        {
            if read != frame {
                self.changes.push((step, *frame));
            }
            return;
        }
        let kept = self.changes.partition_point(|&(s, _)| s < step);
        self.changes.truncate(kept);
        if self.at(step) != *frame {
            self.changes.push((step, *frame));
        }
    }

    /// The frame `step` read (no input before the first change).
    pub fn at(&self, step: u64) -> InputFrame {
        let i = self.changes.partition_point(|&(s, _)| s <= step);
        i.checked_sub(1)
            .map_or_else(InputFrame::default, |i| self.changes[i].1)
    }

    /// Takes away what was noted for `step` and later (for a branch).
    pub fn split_off(&mut self, step: u64) -> InputLog {
        let kept = self.changes.partition_point(|&(s, _)| s < step);
        InputLog {
            changes: self.changes.split_off(kept),
        }
    }

    /// Puts back what [`InputLog::split_off`] took at `step`, replacing
    /// anything noted since.
    pub fn put_back(&mut self, step: u64, tail: InputLog) {
        let kept = self.changes.partition_point(|&(s, _)| s < step);
        self.changes.truncate(kept);
        self.changes.extend(tail.changes);
    }

    /// Number of changes stored.
    pub fn len(&self) -> usize {
        self.changes.len()
    }

    /// Whether no step read any input.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// Bytes it holds.
    pub fn heap_bytes(&self) -> usize {
        self.changes.capacity() * size_of::<(u64, InputFrame)>()
    }

    /// The frame of `step` replaced by `frame` (to show what a changed input
    /// does to a replay).
    pub fn with_changed(&self, step: u64, frame: InputFrame) -> InputLog {
        let last = self.changes.last().map_or(0, |&(s, _)| s).max(step) + 1;
        let mut out = InputLog::default();
        for s in 0..=last {
            out.note(s, &if s == step { frame } else { self.at(s) });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Key;

    fn holding(key: Key) -> InputFrame {
        let mut frame = InputFrame::default();
        frame.keys.insert(key);
        frame
    }

    #[test]
    fn changes_only_and_a_rewritten_future() {
        let mut log = InputLog::default();
        for step in 0..10 {
            let frame = if (3..6).contains(&step) {
                holding(Key::W)
            } else {
                InputFrame::default()
            };
            log.note(step, &frame);
        }
        assert_eq!(log.len(), 2, "down at 3, up at 6");
        assert_eq!(log.at(4), holding(Key::W));
        assert_eq!(log.at(7), InputFrame::default());
        let tail = log.split_off(5);
        log.note(5, &holding(Key::S));
        assert_eq!(log.at(8), holding(Key::S), "the new future");
        log.put_back(5, tail);
        assert_eq!(log.at(5), holding(Key::W));
        assert_eq!(log.at(8), InputFrame::default(), "the old future is back");
        let changed = log.with_changed(7, holding(Key::D));
        assert_eq!(changed.at(7), holding(Key::D));
        assert_eq!(changed.at(6), InputFrame::default());
        assert_eq!(changed.at(8), InputFrame::default());
    }
}
