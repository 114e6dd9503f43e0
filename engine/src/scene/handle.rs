//! Generational node handles (object pool pattern: node slots are reused).
//!
//! A handle is a slot index plus the generation the slot had when the node was
//! spawned. Freeing a slot bumps its generation, so a handle kept past a
//! despawn answers "no such node" instead of aliasing whatever reuses the slot.

use std::fmt;
use std::num::NonZeroU32;

/// A handle to a node of a [`Scene`](super::Scene).
///
/// 8 bytes, and `Option<NodeId>` is 8 bytes too (the generation is never zero).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId {
    index: u32,
    generation: NonZeroU32,
}

impl NodeId {
    pub(crate) fn new(index: u32, generation: NonZeroU32) -> Self {
        Self { index, generation }
    }

    /// The `k`-th handle of a node that does not exist and that no scene
    /// hands out (a slot index and a generation no scene reaches): what a
    /// handle read back from a file stands for when its node was deleted,
    /// until an undo brings the node back under a handle of its own.
    pub fn detached(k: u32) -> Self {
        Self {
            index: u32::MAX - k,
            generation: NonZeroU32::MAX,
        }
    }

    /// The slot this node occupies. Stable for the node's whole life; reused after it dies.
    pub fn index(self) -> u32 {
        self.index
    }

    pub(crate) fn generation_nz(self) -> NonZeroU32 {
        self.generation
    }

    /// How many times the slot had been freed before this node took it, plus one.
    pub fn generation(self) -> u32 {
        self.generation.get()
    }
}

impl fmt::Debug for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NodeId({}v{})", self.index, self.generation)
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_of_handle_is_as_small_as_the_handle() {
        assert_eq!(std::mem::size_of::<NodeId>(), 8);
        assert_eq!(std::mem::size_of::<Option<NodeId>>(), 8);
    }
}
