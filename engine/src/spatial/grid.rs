//! Per-row uniform grid on the ground plane (Spatial Partition pattern, flat
//! and independent of the objects, with the Data Locality pattern applied to
//! its storage).
//!
//! The world rectangle is cut into square cells of a fixed size. Every row
//! owns a `Vec` of entity nodes threaded with a free list (Object Pool
//! pattern); a cell stores the index of its first node in that row's vector
//! and a node stores the element id and the index of the next node. An
//! element spanning many cells gets one node in each covered cell. Keeping
//! each row's nodes in their own vector keeps a row's entities together in
//! cache while an element is filed row by row, and lets rows be worked on
//! independently.
//!
//! Loading many elements at once goes through [`RowGrid::insert_batch`],
//! which sizes each row's storage once and fills bands of rows on separate
//! threads: rows share nothing, so no locks are needed.
//!
//! Elements outside the world are clamped to the border cells, so they are
//! still found (at the cost of crowding those cells).

use std::fmt::Debug;
use std::hash::Hash;

use super::KeyMap;
use super::shapes::{Rect, SpatialError};

/// Largest number of cells a grid accepts (256 MiB of cell heads).
pub const MAX_GRID_CELLS: u64 = 1 << 26;

/// "No node" / "no element" marker.
const NONE: u32 = u32::MAX;
/// Batches smaller than this are linked on the calling thread: starting
/// threads costs more than it saves.
const PARALLEL_BATCH: usize = 1 << 14;
/// Most threads a batch insertion uses.
const MAX_THREADS: usize = 8;

#[derive(Debug, Clone, Copy)]
struct GridNode {
    element: u32,
    next: u32,
}

#[derive(Debug, Clone, Default)]
struct Row {
    /// First node of each column's list, `NONE` when empty.
    heads: Vec<u32>,
    nodes: Vec<GridNode>,
    /// Head of the free list threaded through `nodes[..].next`.
    free: u32,
}

impl Row {
    /// Files element `id` in columns `x0..=x1` of this row.
    #[inline]
    fn link(&mut self, id: u32, x0: usize, x1: usize) {
        let Row { heads, nodes, free } = self;
        if *free == NONE {
            // Common case while filling: append the row's new nodes in one
            // pass, each pointing at the previous head of its cell.
            let base = nodes.len() as u32;
            nodes.extend(heads[x0..=x1].iter_mut().zip(base..).map(|(head, index)| {
                let node = GridNode {
                    element: id,
                    next: *head,
                };
                *head = index;
                node
            }));
        } else {
            for head in &mut heads[x0..=x1] {
                let node = GridNode {
                    element: id,
                    next: *head,
                };
                *head = if *free == NONE {
                    nodes.push(node);
                    (nodes.len() - 1) as u32
                } else {
                    let index = *free;
                    *free = nodes[index as usize].next;
                    nodes[index as usize] = node;
                    index
                };
            }
        }
    }
}

/// Inclusive range of covered cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CellRange {
    x0: u32,
    y0: u32,
    x1: u32,
    y1: u32,
}

impl CellRange {
    fn width(&self) -> usize {
        (self.x1 - self.x0) as usize + 1
    }
}

#[derive(Debug, Clone, Copy)]
struct Element<K> {
    rect: Rect,
    key: K,
    cells: CellRange,
}

/// Candidate in a cell list during the pair search.
#[derive(Debug, Clone, Copy)]
struct PairCandidate<K> {
    rect: Rect,
    x0: u32,
    y0: u32,
    key: K,
}

/// Uniform grid with per-row node storage over keys `K` with [`Rect`] bounds.
///
/// ```
/// use glam::Vec2;
/// use keel_engine::spatial::{Rect, RowGrid};
///
/// let mut grid = RowGrid::new(Rect::new(Vec2::ZERO, Vec2::splat(100.0)), 10.0)?;
/// grid.insert(1u32, Rect::new(Vec2::splat(5.0), Vec2::splat(25.0)))?;
/// grid.insert(2u32, Rect::new(Vec2::splat(20.0), Vec2::splat(22.0)))?;
/// let mut pairs = Vec::new();
/// grid.pairs(&mut pairs);
/// assert_eq!(pairs.len(), 1);
/// # Ok::<(), keel_engine::spatial::SpatialError>(())
/// ```
#[derive(Debug, Clone)]
pub struct RowGrid<K> {
    world: Rect,
    cell_size: f32,
    inv_cell: f32,
    columns: u32,
    rows: u32,
    lines: Vec<Row>,
    elements: Vec<Element<K>>,
    free_ids: Vec<u32>,
    ids: KeyMap<K>,
    /// Per element: the last query that reported it (deduplication).
    stamps: Vec<u32>,
    stamp: u32,
    candidates: Vec<PairCandidate<K>>,
}

impl<K: Copy + Eq + Hash + Debug> RowGrid<K> {
    /// Empty grid over `world` with square cells of `cell_size`.
    ///
    /// # Errors
    /// [`SpatialError::NonFiniteRect`] / [`SpatialError::InvertedRect`] for a
    /// bad `world`, [`SpatialError::InvalidCellSize`] unless `cell_size` is
    /// positive and finite, [`SpatialError::GridTooLarge`] past
    /// [`MAX_GRID_CELLS`] cells.
    pub fn new(world: Rect, cell_size: f32) -> Result<Self, SpatialError> {
        world.validate()?;
        if !(cell_size.is_finite() && cell_size > 0.0) {
            return Err(SpatialError::InvalidCellSize { cell_size });
        }
        let count = |extent: f32| ((extent / cell_size).ceil() as u64).max(1);
        let size = world.size();
        let (columns, rows) = (count(size.x), count(size.y));
        if columns.saturating_mul(rows) > MAX_GRID_CELLS {
            return Err(SpatialError::GridTooLarge {
                columns,
                rows,
                limit: MAX_GRID_CELLS,
            });
        }
        let lines = (0..rows)
            .map(|_| Row {
                heads: vec![NONE; columns as usize],
                nodes: Vec::new(),
                free: NONE,
            })
            .collect();
        Ok(Self {
            world,
            cell_size,
            inv_cell: cell_size.recip(),
            columns: columns as u32,
            rows: rows as u32,
            lines,
            elements: Vec::new(),
            free_ids: Vec::new(),
            ids: KeyMap::default(),
            stamps: Vec::new(),
            stamp: 0,
            candidates: Vec::new(),
        })
    }

    /// The world rectangle the cells cover.
    #[must_use]
    pub fn world(&self) -> Rect {
        self.world
    }

    /// Side of a cell.
    #[must_use]
    pub fn cell_size(&self) -> f32 {
        self.cell_size
    }

    /// Number of columns (cells along x).
    #[must_use]
    pub fn columns(&self) -> u32 {
        self.columns
    }

    /// Number of rows (cells along y).
    #[must_use]
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// Number of elements stored.
    #[must_use]
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no element is stored.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Whether `key` is stored.
    #[must_use]
    pub fn contains_key(&self, key: K) -> bool {
        self.ids.contains_key(&key)
    }

    /// Rectangle stored for `key`.
    #[must_use]
    pub fn get(&self, key: K) -> Option<Rect> {
        let id = *self.ids.get(&key)?;
        Some(self.elements[id as usize].rect)
    }

    /// Total cell entries (one per element per covered cell), a measure of
    /// the memory the rows hold.
    #[must_use]
    pub fn entries(&self) -> usize {
        self.elements_in_cells()
    }

    fn elements_in_cells(&self) -> usize {
        self.ids
            .values()
            .map(|&id| {
                let c = self.elements[id as usize].cells;
                c.width() * ((c.y1 - c.y0) as usize + 1)
            })
            .sum()
    }

    /// Removes every element, keeping the rows' storage for reuse.
    pub fn clear(&mut self) {
        for row in &mut self.lines {
            row.heads.fill(NONE);
            row.nodes.clear();
            row.free = NONE;
        }
        self.elements.clear();
        self.free_ids.clear();
        self.ids.clear();
        self.stamps.clear();
        self.stamp = 0;
    }

    /// Cell index along one axis, clamped to the grid so that elements
    /// outside the world land in the border cells. Monotone in `v`, so two
    /// overlapping rectangles always share a cell.
    fn cell(v: f32, origin: f32, inv_cell: f32, count: u32) -> u32 {
        ((v - origin) * inv_cell)
            .floor()
            .clamp(0.0, (count - 1) as f32) as u32
    }

    fn range(&self, rect: &Rect) -> CellRange {
        let o = self.world.min;
        CellRange {
            x0: Self::cell(rect.min.x, o.x, self.inv_cell, self.columns),
            y0: Self::cell(rect.min.y, o.y, self.inv_cell, self.rows),
            x1: Self::cell(rect.max.x, o.x, self.inv_cell, self.columns),
            y1: Self::cell(rect.max.y, o.y, self.inv_cell, self.rows),
        }
    }

    /// Refuses a range whose rows could not index more nodes with `u32`.
    fn check_room(&self, cells: CellRange) -> Result<(), SpatialError> {
        let width = cells.width();
        let full = self.lines[cells.y0 as usize..=cells.y1 as usize]
            .iter()
            .any(|row| row.free == NONE && row.nodes.len() + width >= NONE as usize);
        if full {
            return Err(SpatialError::CapacityExceeded {
                limit: u64::from(NONE),
            });
        }
        Ok(())
    }

    /// Stores `key` with `rect`, in every cell the rectangle covers.
    ///
    /// # Errors
    /// [`SpatialError::NonFiniteRect`] / [`SpatialError::InvertedRect`] for
    /// a bad rectangle, [`SpatialError::DuplicateKey`] if `key` is present,
    /// [`SpatialError::CapacityExceeded`] when a row's node indices run out;
    /// the grid is unchanged then.
    pub fn insert(&mut self, key: K, rect: Rect) -> Result<(), SpatialError> {
        rect.validate()?;
        let cells = self.range(&rect);
        self.check_room(cells)?;
        let next_id = self.elements.len();
        let id = match self.ids.entry(key) {
            std::collections::hash_map::Entry::Occupied(_) => {
                return Err(SpatialError::DuplicateKey {
                    key: format!("{key:?}"),
                });
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                let element = Element { rect, key, cells };
                let id = match self.free_ids.pop() {
                    Some(id) => {
                        self.elements[id as usize] = element;
                        id
                    }
                    None if next_id < NONE as usize => {
                        self.elements.push(element);
                        self.stamps.push(0);
                        next_id as u32
                    }
                    None => {
                        return Err(SpatialError::CapacityExceeded {
                            limit: u64::from(NONE),
                        });
                    }
                };
                slot.insert(id);
                id
            }
        };
        self.link(id, cells);
        Ok(())
    }

    /// Moves `key` to `rect`. When the covered cells do not change only the
    /// stored rectangle is rewritten.
    ///
    /// # Errors
    /// [`SpatialError::NonFiniteRect`] / [`SpatialError::InvertedRect`] for
    /// a bad rectangle, [`SpatialError::UnknownKey`] if `key` is absent,
    /// [`SpatialError::CapacityExceeded`] when a row's node indices run out;
    /// the grid is unchanged then.
    pub fn update(&mut self, key: K, rect: Rect) -> Result<(), SpatialError> {
        rect.validate()?;
        let Some(&id) = self.ids.get(&key) else {
            return Err(SpatialError::UnknownKey {
                key: format!("{key:?}"),
            });
        };
        let cells = self.range(&rect);
        let old = self.elements[id as usize].cells;
        if cells != old {
            self.check_room(cells)?;
            self.unlink(id, old);
            self.link(id, cells);
            self.elements[id as usize].cells = cells;
        }
        self.elements[id as usize].rect = rect;
        Ok(())
    }

    /// Removes `key`; false if it was not stored.
    pub fn remove(&mut self, key: K) -> bool {
        let Some(id) = self.ids.remove(&key) else {
            return false;
        };
        self.unlink(id, self.elements[id as usize].cells);
        self.free_ids.push(id);
        true
    }

    fn link(&mut self, id: u32, cells: CellRange) {
        let (x0, x1) = (cells.x0 as usize, cells.x1 as usize);
        for row in &mut self.lines[cells.y0 as usize..=cells.y1 as usize] {
            row.link(id, x0, x1);
        }
    }

    /// Stores many elements at once, as if by [`RowGrid::insert`] in order,
    /// but faster: each row's node storage is sized exactly once (no growth
    /// copies), and on large batches row bands are filled on several threads
    /// at once. Rows own their nodes, so the threads share nothing they
    /// write and need no locks.
    ///
    /// # Errors
    /// As [`RowGrid::insert`] for the first offending element, and
    /// [`SpatialError::DuplicateKey`] for a key repeated within the batch;
    /// nothing of the batch is stored then.
    ///
    /// # Panics
    /// If the operating system cannot start a thread for a large batch.
    pub fn insert_batch<I>(&mut self, items: I) -> Result<(), SpatialError>
    where
        I: IntoIterator<Item = (K, Rect)>,
    {
        let items: Vec<(K, Rect)> = items.into_iter().collect();
        let mut per_row = vec![0usize; self.rows as usize];
        let mut batch = Vec::with_capacity(items.len());
        for (_, rect) in &items {
            rect.validate()?;
            let cells = self.range(rect);
            for count in &mut per_row[cells.y0 as usize..=cells.y1 as usize] {
                *count += cells.width();
            }
            batch.push((NONE, cells));
        }
        let full = self
            .lines
            .iter()
            .zip(&per_row)
            .any(|(row, count)| row.nodes.len() + count >= NONE as usize);
        let reused = self.free_ids.len().min(items.len());
        if full || self.elements.len() + (items.len() - reused) >= NONE as usize {
            return Err(SpatialError::CapacityExceeded {
                limit: u64::from(NONE),
            });
        }
        // Ids are handed out as `insert` would: free ids first (latest freed
        // first), then new slots at the end.
        let next_new = self.elements.len();
        let id_of = |i: usize| {
            if i < reused {
                self.free_ids[self.free_ids.len() - 1 - i]
            } else {
                (next_new + i - reused) as u32
            }
        };
        for (i, entry) in batch.iter_mut().enumerate() {
            entry.0 = id_of(i);
        }
        self.ids.reserve(items.len());
        for (i, (key, _)) in items.iter().enumerate() {
            if let std::collections::hash_map::Entry::Vacant(slot) = self.ids.entry(*key) {
                slot.insert(batch[i].0);
            } else {
                for (added, _) in &items[..i] {
                    self.ids.remove(added);
                }
                return Err(SpatialError::DuplicateKey {
                    key: format!("{key:?}"),
                });
            }
        }
        self.free_ids.truncate(self.free_ids.len() - reused);
        self.elements.reserve(items.len() - reused);
        for ((key, rect), &(id, cells)) in items.iter().zip(&batch) {
            let element = Element {
                rect: *rect,
                key: *key,
                cells,
            };
            if (id as usize) < self.elements.len() {
                self.elements[id as usize] = element;
            } else {
                self.elements.push(element);
                self.stamps.push(0);
            }
        }
        for (row, count) in self.lines.iter_mut().zip(&per_row) {
            row.nodes.reserve(*count);
        }
        self.link_batch(&batch);
        Ok(())
    }

    /// Links every `(id, cells)` of a batch, in order within each cell.
    fn link_batch(&mut self, batch: &[(u32, CellRange)]) {
        let threads = if batch.len() < PARALLEL_BATCH {
            1
        } else {
            std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .min(MAX_THREADS)
        };
        let band = self.lines.len().div_ceil(threads).max(1);
        if threads == 1 || band == self.lines.len() {
            Self::link_band(&mut self.lines, 0, batch);
            return;
        }
        std::thread::scope(|scope| {
            let mut bands = self.lines.chunks_mut(band).enumerate();
            let own = bands.next();
            for (index, lines) in bands {
                scope.spawn(move || Self::link_band(lines, index * band, batch));
            }
            if let Some((_, lines)) = own {
                Self::link_band(lines, 0, batch);
            }
        });
    }

    /// Links the part of each batch element that falls in `lines`, the rows
    /// from `first` on.
    fn link_band(lines: &mut [Row], first: usize, batch: &[(u32, CellRange)]) {
        let Some(last) = (first + lines.len()).checked_sub(1) else {
            return;
        };
        for &(id, cells) in batch {
            let y0 = (cells.y0 as usize).max(first);
            let y1 = (cells.y1 as usize).min(last);
            if y0 > y1 {
                continue;
            }
            for row in &mut lines[y0 - first..=y1 - first] {
                row.link(id, cells.x0 as usize, cells.x1 as usize);
            }
        }
    }

    fn unlink(&mut self, id: u32, cells: CellRange) {
        let (x0, x1) = (cells.x0 as usize, cells.x1 as usize);
        for row in &mut self.lines[cells.y0 as usize..=cells.y1 as usize] {
            for x in x0..=x1 {
                let mut previous = NONE;
                let mut current = row.heads[x];
                while current != NONE {
                    let node = row.nodes[current as usize];
                    if node.element == id {
                        if previous == NONE {
                            row.heads[x] = node.next;
                        } else {
                            row.nodes[previous as usize].next = node.next;
                        }
                        row.nodes[current as usize].next = row.free;
                        row.free = current;
                        break;
                    }
                    previous = current;
                    current = node.next;
                }
            }
        }
    }

    /// Keys of the elements overlapping `area` (touching counts), each once,
    /// in no order. A non-finite or inverted `area` finds nothing.
    pub fn query_rect(&mut self, area: &Rect, out: &mut Vec<K>) {
        out.clear();
        if area.validate().is_err() {
            return;
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.stamps.fill(0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        let cells = self.range(area);
        let (x0, x1) = (cells.x0 as usize, cells.x1 as usize);
        for row in &self.lines[cells.y0 as usize..=cells.y1 as usize] {
            for &head in &row.heads[x0..=x1] {
                let mut current = head;
                while current != NONE {
                    let node = row.nodes[current as usize];
                    let seen = &mut self.stamps[node.element as usize];
                    if *seen != stamp {
                        *seen = stamp;
                        let element = &self.elements[node.element as usize];
                        if element.rect.intersects(area) {
                            out.push(element.key);
                        }
                    }
                    current = node.next;
                }
            }
        }
    }

    /// Every pair of overlapping elements (touching counts), each pair once in
    /// arbitrary order. A pair is reported only in the first cell both cover
    /// (the lowest column and row of the intersection of their cell ranges),
    /// so no set of seen pairs is needed.
    pub fn pairs(&mut self, out: &mut Vec<(K, K)>) {
        out.clear();
        let candidates = &mut self.candidates;
        for (y, row) in self.lines.iter().enumerate() {
            let y = y as u32;
            for (x, &head) in row.heads.iter().enumerate() {
                if head == NONE || row.nodes[head as usize].next == NONE {
                    continue;
                }
                let x = x as u32;
                candidates.clear();
                let mut current = head;
                while current != NONE {
                    let node = row.nodes[current as usize];
                    let element = &self.elements[node.element as usize];
                    candidates.push(PairCandidate {
                        rect: element.rect,
                        x0: element.cells.x0,
                        y0: element.cells.y0,
                        key: element.key,
                    });
                    current = node.next;
                }
                for (i, a) in candidates.iter().enumerate() {
                    for b in &candidates[i + 1..] {
                        if a.x0.max(b.x0) == x && a.y0.max(b.y0) == y && a.rect.intersects(&b.rect)
                        {
                            out.push((a.key, b.key));
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
