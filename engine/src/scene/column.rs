//! A component column: one kind of component for the nodes that have it.
//!
//! Data locality: the values sit packed in one `Vec`, so a system walks them
//! front to back. A per-slot lookup table gives O(1) access by handle, and
//! removal swaps the last value into the hole so the array never has gaps.

use super::NodeId;

const ABSENT: u32 = u32::MAX;

/// Packed storage of one component type, keyed by node.
pub struct Column<T> {
    values: Vec<T>,
    owners: Vec<NodeId>,
    /// Slot index -> position in `values`, or `ABSENT`.
    lookup: Vec<u32>,
    /// Set by every mutable access; a recording clears it once it has a copy.
    touched: bool,
    /// This column's identity (every column and every copy has its own)
    /// and how many mutable accesses it has had: see [`Column::stamp`].
    id: u64,
    edits: u64,
    /// A step's undo of this column (see [`Column::arm`]).
    undo: ColumnUndo<T>,
}

/// What a fixed step needs to put a column back as it was before the step:
/// while armed, the first mutable access copies the column aside (a column
/// the step only reads costs nothing). The copy's buffers stay for the next
/// step, so a warm step allocates nothing for it.
struct ColumnUndo<T> {
    /// Set while armed and nothing is saved yet: how to copy the column
    /// (kept as a function so the column's other methods need no `Clone`).
    save: Option<SaveFn<T>>,
    /// The buffers of the copy.
    saved: Option<Box<Saved<T>>>,
    /// Whether `saved` holds the column as the armed step found it.
    holds: bool,
}

/// How a column is copied aside (see [`ColumnUndo::save`]).
type SaveFn<T> = fn(&Column<T>, &mut Saved<T>);

impl<T> Default for ColumnUndo<T> {
    fn default() -> Self {
        Self {
            save: None,
            saved: None,
            holds: false,
        }
    }
}

/// A column's content, copied aside.
struct Saved<T> {
    values: Vec<T>,
    owners: Vec<NodeId>,
    lookup: Vec<u32>,
}

/// An identity no column had before.
fn fresh_id() -> u64 {
    crate::identity::fresh()
}

impl<T> Default for Column<T> {
    fn default() -> Self {
        Self {
            values: Vec::new(),
            owners: Vec::new(),
            lookup: Vec::new(),
            touched: false,
            id: fresh_id(),
            edits: 0,
            undo: ColumnUndo::default(),
        }
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Column<T> {
    /// The content only: the stamp names this copy, which two equal
    /// states (a recording's and a fresh run's) do not share.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Column")
            .field("values", &self.values)
            .field("owners", &self.owners)
            .field("lookup", &self.lookup)
            .field("touched", &self.touched)
            .finish()
    }
}

impl<T: Clone> Clone for Column<T> {
    /// The same values under a new identity: the copy and the original
    /// change apart from here on.
    fn clone(&self) -> Self {
        Self {
            values: self.values.clone(),
            owners: self.owners.clone(),
            lookup: self.lookup.clone(),
            touched: self.touched,
            id: fresh_id(),
            edits: 0,
            undo: ColumnUndo::default(),
        }
    }
}

impl<T: Clone> Column<T> {
    /// Starts a step's undo: the first mutable access from here copies the
    /// column aside, for [`Column::roll_back`].
    pub(crate) fn arm(&mut self) {
        self.undo.save = Some(|column, saved| {
            saved.values.clone_from(&column.values);
            saved.owners.clone_from(&column.owners);
            saved.lookup.clone_from(&column.lookup);
        });
        self.undo.holds = false;
    }
}

impl<T> Column<T> {
    /// Ends a step's undo: the step stands, the copy (if any) is dropped.
    pub(crate) fn disarm(&mut self) {
        self.undo.save = None;
        self.undo.holds = false;
    }

    /// Puts the column back as it was when armed (when the step changed
    /// it) and disarms it.
    pub(crate) fn roll_back(&mut self) {
        let holds = self.undo.holds;
        self.disarm();
        if let (true, Some(saved)) = (holds, self.undo.saved.as_deref_mut()) {
            std::mem::swap(&mut self.values, &mut saved.values);
            std::mem::swap(&mut self.owners, &mut saved.owners);
            std::mem::swap(&mut self.lookup, &mut saved.lookup);
            self.touched = true;
            self.edits += 1;
        }
    }

    /// Counts one mutable access, about to happen (copying the column aside
    /// first while a step's undo is armed).
    #[inline]
    fn edit(&mut self) {
        self.touched = true;
        self.edits += 1;
        if let Some(save) = self.undo.save.take() {
            let mut saved = self.undo.saved.take().unwrap_or_else(|| {
                Box::new(Saved {
                    values: Vec::new(),
                    owners: Vec::new(),
                    lookup: Vec::new(),
                })
            });
            save(self, &mut saved);
            self.undo.saved = Some(saved);
            self.undo.holds = true;
        }
    }

    /// Number of nodes that have this component.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no node has this component.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Where `node`'s value sits in the packed arrays.
    #[inline]
    pub(crate) fn position(&self, node: NodeId) -> Option<usize> {
        let at = *self.lookup.get(node.index() as usize)?;
        (at != ABSENT && self.owners[at as usize] == node).then_some(at as usize)
    }

    /// Gives `node` this component, returning the value it replaces.
    ///
    /// The caller (the scene) guarantees `node` is alive.
    pub(crate) fn insert(&mut self, node: NodeId, value: T) -> Option<T> {
        self.edit();
        if let Some(at) = self.position(node) {
            return Some(std::mem::replace(&mut self.values[at], value));
        }
        let slot = node.index() as usize;
        if self.lookup.len() <= slot {
            self.lookup.resize(slot + 1, ABSENT);
        }
        self.lookup[slot] = self.values.len() as u32;
        self.values.push(value);
        self.owners.push(node);
        None
    }

    /// Takes every value away, keeping the buffers.
    pub(crate) fn clear(&mut self) {
        self.edit();
        self.lookup.clear();
        self.values.clear();
        self.owners.clear();
    }

    /// Takes the component away from `node`.
    pub(crate) fn remove(&mut self, node: NodeId) -> Option<T> {
        let at = self.position(node)?;
        self.edit();
        self.lookup[node.index() as usize] = ABSENT;
        let value = self.values.swap_remove(at);
        self.owners.swap_remove(at);
        if let Some(moved) = self.owners.get(at) {
            self.lookup[moved.index() as usize] = at as u32;
        }
        Some(value)
    }

    /// The component of `node`, if it has one (and the handle is current).
    pub fn get(&self, node: NodeId) -> Option<&T> {
        self.position(node).map(|at| &self.values[at])
    }

    /// The component of `node`, mutably.
    pub fn get_mut(&mut self, node: NodeId) -> Option<&mut T> {
        let at = self.position(node)?;
        self.edit();
        Some(&mut self.values[at])
    }

    /// Whether `node` has this component.
    pub fn contains(&self, node: NodeId) -> bool {
        self.position(node).is_some()
    }

    /// Whether the column may have changed since the last [`Column::untouch`]
    /// (any mutable access counts).
    pub(crate) fn touched(&self) -> bool {
        self.touched
    }

    /// Names the column's content: equal stamps, equal owners and values (a
    /// stamp changes with every mutable access, and no two columns share
    /// one). What is derived from a column can be kept while its stamp holds.
    pub fn stamp(&self) -> (u64, u64) {
        (self.id, self.edits)
    }

    /// Forgets past mutable accesses (a recording has a copy of the column).
    pub(crate) fn untouch(&mut self) {
        self.touched = false;
    }

    /// The owner of the value at `at` (a position below [`Column::len`]).
    #[inline]
    pub(crate) fn owner_at(&self, at: usize) -> NodeId {
        self.owners[at]
    }

    /// The value at `at`.
    #[inline]
    pub(crate) fn value_at(&self, at: usize) -> &T {
        &self.values[at]
    }

    /// The value at `at`, mutably; the caller marked the column touched
    /// ([`Column::touch`]) for the walk.
    #[inline]
    pub(crate) fn value_at_mut(&mut self, at: usize) -> &mut T {
        &mut self.values[at]
    }

    /// Counts one mutable access (a walk that may write any of its values).
    pub(crate) fn touch(&mut self) {
        self.edit();
    }

    /// Owners and values, in storage order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (NodeId, &T)> {
        self.owners.iter().copied().zip(self.values.iter())
    }

    /// The packed owners and values, for walks that split them into spans.
    pub fn parts(&self) -> (&[NodeId], &[T]) {
        (&self.owners, &self.values)
    }

    /// Owners and mutable values, in storage order.
    pub fn iter_mut(&mut self) -> impl ExactSizeIterator<Item = (NodeId, &mut T)> {
        self.edit();
        self.owners.iter().copied().zip(self.values.iter_mut())
    }

    /// The packed values and their owners, for systems that walk both in step.
    pub fn parts_mut(&mut self) -> (&[NodeId], &mut [T]) {
        self.edit();
        (&self.owners, &mut self.values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::num::NonZeroU32;

    fn id(index: u32, generation: u32) -> NodeId {
        NodeId::new(index, NonZeroU32::new(generation).unwrap())
    }

    #[test]
    fn remove_keeps_values_packed_and_lookups_right() {
        let mut column = Column::default();
        for i in 0..5 {
            column.insert(id(i, 1), i * 10);
        }
        assert_eq!(column.remove(id(1, 1)), Some(10));
        assert_eq!(column.len(), 4);
        for i in [0, 2, 3, 4] {
            assert_eq!(column.get(id(i, 1)), Some(&(i * 10)), "value of node {i}");
        }
        assert_eq!(column.get(id(1, 1)), None);
    }

    #[test]
    fn stale_handle_sees_nothing() {
        let mut column = Column::default();
        column.insert(id(3, 1), "old");
        assert_eq!(
            column.get(id(3, 2)),
            None,
            "a newer generation must not see the old value"
        );
        assert_eq!(column.remove(id(3, 2)), None);
        assert_eq!(column.insert(id(3, 1), "new"), Some("old"));
    }
}
