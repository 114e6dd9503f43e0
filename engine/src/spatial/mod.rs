//! Spatial partitions: bounding shapes and three structures that answer "what
//! is near here?" without visiting every object (the *Spatial Partition*
//! pattern of Game Programming Patterns).
//!
//! - [`LooseOctree`]: hierarchical, 3D, adapts to uneven density; objects of
//!   any size, cheap small moves, ray, frustum, nearest and pair queries.
//! - [`Quadtree`]: the same loose tree on the ground plane (2D [`Rect`]s).
//!   Both are aliases of one generic [`LooseTree`], which holds the methods
//!   they share.
//! - [`RowGrid`]: a flat uniform grid whose rows each own their node storage,
//!   fastest to fill and to re-file when objects span many cells.
//!
//! The structures are pure data: they know nothing of the scene. Each one
//! maps a caller key (`K: Copy + Eq + Hash + Debug`, the scene's node handle in
//! practice) to the bounds it was given, so updates and removals go by key.
//! Queries fill a `Vec` the caller passes in (cleared first) and reuse scratch
//! storage kept inside the structure, so a warm query allocates nothing.
//! Non-finite or inverted bounds are refused with a [`SpatialError`] and leave
//! the structure untouched.

mod grid;
mod loose_tree;
mod octree;
mod quadtree;
mod shapes;

pub use grid::{MAX_GRID_CELLS, RowGrid};
pub use loose_tree::{LooseTree, QueryPart, Space};
pub use octree::{LooseOctree, Space3};
pub use quadtree::{Quadtree, Space2};
pub use shapes::{Aabb, Circle, Frustum, Ray, Rect, SpatialError, Sphere};

use std::hash::{BuildHasherDefault, Hasher};

/// Key-to-slot maps are hit on every insert, update and removal, and keys are
/// small trusted handles, so a multiply-rotate hash (the scheme of
/// `rustc-hash`) is used instead of the DoS-resistant default.
type KeyMap<K> = std::collections::HashMap<K, u32, BuildHasherDefault<KeyHasher>>;

/// Fast non-cryptographic hasher for the key maps.
#[derive(Default, Clone, Copy)]
struct KeyHasher {
    hash: u64,
}

const KEY_HASH_SEED: u64 = 0xf135_7aea_2e62_a9c5;

impl KeyHasher {
    fn add(&mut self, word: u64) {
        self.hash = self.hash.wrapping_add(word).wrapping_mul(KEY_HASH_SEED);
    }
}

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 56));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u16(&mut self, i: u16) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        // The multiply pushes entropy to the high bits; the rotate brings it
        // back down to the low bits the table uses to pick a bucket.
        self.hash.rotate_left(26)
    }
}

/// Total order on `f32` distances for the search heaps (distances are never
/// NaN for validated bounds; `total_cmp` keeps the heap sound regardless).
#[derive(Clone, Copy, Debug)]
struct OrdF32(f32);

impl PartialEq for OrdF32 {
    fn eq(&self, other: &Self) -> bool {
        self.0.total_cmp(&other.0).is_eq()
    }
}

impl Eq for OrdF32 {}

impl PartialOrd for OrdF32 {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OrdF32 {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::Hash;

    fn hash_of<T: Hash>(value: T) -> u64 {
        let mut hasher = KeyHasher::default();
        value.hash(&mut hasher);
        hasher.finish()
    }

    #[test]
    fn key_hasher_spreads_sequential_keys_over_low_bits() {
        let mut buckets = [0u32; 64];
        for key in 0u64..6400 {
            buckets[(hash_of(key) & 63) as usize] += 1;
        }
        let fullest = buckets.iter().max().copied().unwrap_or(0);
        assert!(
            fullest < 200,
            "sequential keys crowd one bucket: {fullest} of 6400 in the fullest of 64"
        );
    }

    #[test]
    fn key_hasher_distinguishes_byte_strings_of_different_length() {
        assert_ne!(hash_of([1u8, 0].as_slice()), hash_of([1u8].as_slice()));
        assert_ne!(hash_of((1u32, 2u32)), hash_of((2u32, 1u32)));
    }

    #[test]
    fn ord_f32_sorts_like_numbers() {
        let mut values = [OrdF32(3.0), OrdF32(-1.0), OrdF32(0.5)];
        values.sort();
        assert_eq!(values.map(|v| v.0), [-1.0, 0.5, 3.0]);
    }
}
