//! The set of holes a spawn may fill: a two-level bitmap over positions.
//!
//! A spawn wants the first hole after its parent (parents must come before
//! children, and the nearer the better for locality), so the question is
//! "the first set bit after p": one word of the lower level, else the
//! summary level (one bit per lower word) finds the next non-empty word. No
//! allocation once the positions stop growing.

/// Positions with their bit set are holes free for a spawn.
#[derive(Clone, Debug, Default)]
pub(super) struct HoleSet {
    /// Bit `p % 64` of word `p / 64`: position `p` is a free hole.
    words: Vec<u64>,
    /// Bit `w % 64` of word `w / 64`: `words[w]` is not zero.
    summary: Vec<u64>,
    len: usize,
}

impl HoleSet {
    /// Bytes of its two bitmaps.
    pub fn heap_bytes(&self) -> usize {
        (self.words.len() + self.summary.len()) * 8
    }

    /// Number of holes in the set.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Adds position `p`.
    pub fn insert(&mut self, p: u32) {
        let (w, bit) = (p as usize / 64, 1u64 << (p % 64));
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
            self.summary.resize(w / 64 + 1, 0);
        }
        if self.words[w] & bit == 0 {
            self.words[w] |= bit;
            self.summary[w / 64] |= 1 << (w % 64);
            self.len += 1;
        }
    }

    /// Removes position `p` if present.
    pub fn remove(&mut self, p: u32) {
        let (w, bit) = (p as usize / 64, 1u64 << (p % 64));
        if let Some(word) = self.words.get_mut(w)
            && *word & bit != 0
        {
            *word &= !bit;
            if *word == 0 {
                self.summary[w / 64] &= !(1 << (w % 64));
            }
            self.len -= 1;
        }
    }

    /// The first position greater than `p` (or the first of all when `all`).
    pub fn first_after(&self, p: u32, all: bool) -> Option<u32> {
        let start = if all { 0 } else { p as usize + 1 };
        let w = start / 64;
        let word = *self.words.get(w)?;
        let masked = word & (!0u64 << (start % 64));
        if masked != 0 {
            return Some((w * 64 + masked.trailing_zeros() as usize) as u32);
        }
        // The next non-empty word, through the summary.
        let next = w + 1;
        let mut s = next / 64;
        let mut mask = if next % 64 == 0 {
            !0u64
        } else {
            !0u64 << (next % 64)
        };
        while s < self.summary.len() {
            let bits = self.summary[s] & mask;
            if bits != 0 {
                let w = s * 64 + bits.trailing_zeros() as usize;
                let word = self.words[w];
                return Some((w * 64 + word.trailing_zeros() as usize) as u32);
            }
            s += 1;
            mask = !0;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn first_after_matches_a_sorted_set(
            ops in proptest::collection::vec((any::<bool>(), 0u32..20_000), 1..300),
            queries in proptest::collection::vec(0u32..21_000, 1..50),
        ) {
            let mut set = HoleSet::default();
            let mut model = std::collections::BTreeSet::new();
            for (add, p) in ops {
                if add {
                    set.insert(p);
                    model.insert(p);
                } else {
                    set.remove(p);
                    model.remove(&p);
                }
                prop_assert_eq!(set.len(), model.len());
            }
            prop_assert_eq!(set.first_after(0, true), model.iter().next().copied());
            for q in queries {
                prop_assert_eq!(set.first_after(q, false), model.range(q + 1..).next().copied());
            }
        }
    }
}
