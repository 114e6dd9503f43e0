//! The canonical form of `Debug` text that state hashes are taken of: the
//! entries of every map and set sorted, so a `HashMap` or `HashSet` (whose
//! order differs between two runs, even between two maps of one process)
//! hashes the same whatever its order.
//!
//! `Debug` prints a map or a set as `{entry, entry}` and a struct as
//! `Name { field: value }`: a `{` that follows an identifier opens a struct
//! (its fields keep their order), any other `{` a map or set, whose
//! top-level `, `-separated entries are sorted as text (each made canonical
//! first). Strings and characters are skipped as `Debug` escapes them.
//! What no text form can make canonical is what `Debug` does not print
//! deterministically: addresses, times, a hand-written `Debug` that prints
//! an unordered collection's items itself (see [`crate::scene::Resource`]).
//!
//! Text outside maps streams straight to the hasher; only a map's text is
//! buffered (in a buffer kept between writes), so a step's hash allocates
//! nothing once warm.

use std::fmt;

use xxhash_rust::xxh3::Xxh3;

/// Where the scanner stands in the text outside the map being buffered.
#[derive(Clone, Copy, Default)]
struct Lexer {
    /// Inside `"..."`.
    string: bool,
    /// Inside `'...'`.
    character: bool,
    /// The byte before was a `\` inside a string or character.
    escape: bool,
    /// The last byte outside strings that was not a space was part of an
    /// identifier (so a `{` after it opens a struct).
    after_ident: bool,
}

/// What a byte is to the scanner.
#[derive(PartialEq)]
enum Token {
    /// A `{` that opens a map or a set.
    OpenMap,
    /// `(`, `[` or a struct's `{`.
    Open,
    /// `)`, `]`, `}`.
    Close,
    /// Anything else (strings included).
    Other,
}

impl Lexer {
    /// Inside a string or a character (a separator there is text).
    fn in_text(&self) -> bool {
        self.string || self.character
    }

    fn next(&mut self, b: u8) -> Token {
        if self.string || self.character {
            if self.escape {
                self.escape = false;
            } else if b == b'\\' {
                self.escape = true;
            } else if (self.string && b == b'"') || (self.character && b == b'\'') {
                self.string = false;
                self.character = false;
            }
            return Token::Other;
        }
        let after_ident = self.after_ident;
        if b != b' ' {
            self.after_ident = b.is_ascii_alphanumeric() || b == b'_';
        }
        match b {
            b'"' => self.string = true,
            b'\'' => self.character = true,
            b'{' if !after_ident => return Token::OpenMap,
            b'{' | b'(' | b'[' => return Token::Open,
            b'}' | b')' | b']' => return Token::Close,
            _ => {}
        }
        Token::Other
    }
}

/// A [`fmt::Write`] that feeds the canonical form of what is written to an
/// XXH3 hasher.
pub(crate) struct CanonicalHasher {
    hasher: Xxh3,
    lexer: Lexer,
    /// The open map's text so far, from its `{` (empty: none is open).
    map: Vec<u8>,
    /// Brackets open within it.
    depth: usize,
    /// Its canonical form, and the entries' (kept between writes).
    scratch: Scratch,
}

impl CanonicalHasher {
    pub(crate) fn new() -> Self {
        Self {
            hasher: Xxh3::new(),
            lexer: Lexer::default(),
            map: Vec::new(),
            depth: 0,
            scratch: Scratch::default(),
        }
    }

    /// Raw bytes, hashed as they are (columns of plain numbers).
    pub(crate) fn update(&mut self, bytes: &[u8]) {
        self.hasher.update(bytes);
    }

    pub(crate) fn digest(&self) -> u64 {
        self.hasher.digest()
    }
}

impl fmt::Write for CanonicalHasher {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let bytes = s.as_bytes();
        let mut run = 0;
        for (i, &b) in bytes.iter().enumerate() {
            if self.depth > 0 {
                self.map.push(b);
                match self.lexer.next(b) {
                    Token::OpenMap | Token::Open => self.depth += 1,
                    Token::Close => self.depth -= 1,
                    Token::Other => {}
                }
                if self.depth == 0 {
                    self.scratch.out.clear();
                    canonical_map(&self.map, &mut self.scratch);
                    self.hasher.update(&self.scratch.out);
                    self.map.clear();
                    self.lexer.after_ident = false;
                    run = i + 1;
                }
            } else if self.lexer.next(b) == Token::OpenMap {
                self.hasher.update(&bytes[run..i]);
                self.map.push(b);
                self.depth = 1;
            }
        }
        if self.depth == 0 {
            self.hasher.update(&bytes[run..]);
        }
        Ok(())
    }
}

/// Buffers reused by every map made canonical.
#[derive(Default)]
struct Scratch {
    out: Vec<u8>,
    entries: Vec<Vec<u8>>,
}

/// Appends the canonical form of `text` (Debug text, brackets balanced) to `out`.
fn canonical_text(text: &[u8], out: &mut Vec<u8>) {
    let mut lexer = Lexer::default();
    let mut i = 0;
    while i < text.len() {
        if lexer.next(text[i]) == Token::OpenMap {
            let end = closing(text, i);
            let mut scratch = Scratch::default();
            canonical_map(&text[i..end], &mut scratch);
            out.extend_from_slice(&scratch.out);
            lexer.after_ident = false;
            i = end;
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
}

/// The end (exclusive) of the bracket opened at `open`.
fn closing(text: &[u8], open: usize) -> usize {
    let mut lexer = Lexer::default();
    let mut depth = 0usize;
    for (i, &b) in text.iter().enumerate().skip(open) {
        match lexer.next(b) {
            Token::OpenMap | Token::Open => depth += 1,
            Token::Close => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            Token::Other => {}
        }
    }
    text.len()
}

/// Appends `map` (`{...}`, a map's or set's Debug text) with its entries
/// made canonical and sorted to `scratch.out`.
fn canonical_map(map: &[u8], scratch: &mut Scratch) {
    let inner = &map[1..map.len().saturating_sub(1).max(1)];
    let mut count = 0;
    let mut lexer = Lexer::default();
    let (mut depth, mut start) = (0usize, 0);
    let mut push = |entry: &[u8], count: &mut usize| {
        if scratch.entries.len() == *count {
            scratch.entries.push(Vec::new());
        }
        let slot = &mut scratch.entries[*count];
        slot.clear();
        canonical_text(entry, slot);
        *count += 1;
    };
    for (i, &b) in inner.iter().enumerate() {
        match lexer.next(b) {
            Token::OpenMap | Token::Open => depth += 1,
            Token::Close => depth = depth.saturating_sub(1),
            Token::Other
                if depth == 0
                    && b == b','
                    && !lexer.in_text()
                    && inner.get(i + 1) == Some(&b' ') =>
            {
                push(&inner[start..i], &mut count);
                start = i + 2;
            }
            Token::Other => {}
        }
    }
    if start < inner.len() {
        push(&inner[start..], &mut count);
    }
    let entries = &mut scratch.entries[..count];
    entries.sort_unstable();
    scratch.out.push(b'{');
    for (k, entry) in entries.iter().enumerate() {
        if k > 0 {
            scratch.out.extend_from_slice(b", ");
        }
        scratch.out.extend_from_slice(entry);
    }
    scratch.out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, HashMap, HashSet};
    use std::fmt::Write;

    fn canonical(text: &str) -> String {
        let mut out = Vec::new();
        canonical_text(text.as_bytes(), &mut out);
        String::from_utf8(out).expect("entries are moved whole")
    }

    fn hash_in_pieces(text: &str, piece: usize) -> u64 {
        let mut h = CanonicalHasher::new();
        let mut rest = text;
        while !rest.is_empty() {
            let mut cut = piece.min(rest.len());
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            h.write_str(&rest[..cut]).unwrap();
            rest = &rest[cut..];
        }
        h.digest()
    }

    #[test]
    fn maps_and_sets_sort_and_structs_keep_their_order() {
        assert_eq!(canonical("{3: 1, 1: 2, 2: 3}"), "{1: 2, 2: 3, 3: 1}");
        assert_eq!(canonical(r#"{"b", "a"}"#), r#"{"a", "b"}"#);
        assert_eq!(
            canonical("Farm { b: 1, a: {2: [1, 2], 1: Some(Plot { z: 0, y: 1 })} }"),
            "Farm { b: 1, a: {1: Some(Plot { z: 0, y: 1 }), 2: [1, 2]} }",
            "a struct's fields keep their order, a map inside sorts"
        );
        assert_eq!(
            canonical("{{2, 1}, {1}}"),
            "{{1, 2}, {1}}",
            "nested sets sort too"
        );
        assert_eq!(
            canonical(r#"{"}, {": '{', "a": '\''}"#),
            r#"{"a": '\'', "}, {": '{'}"#,
            "brackets and separators inside strings and characters are text"
        );
        assert_eq!(canonical("{}"), "{}");
        assert_eq!(canonical("Empty"), "Empty");
    }

    #[test]
    fn two_hash_maps_of_the_same_entries_hash_the_same_however_written() {
        // Two maps with different random states: their orders differ.
        let a: HashMap<String, Vec<u32>> = (0..64).map(|i| (format!("k{i}"), vec![i, 2])).collect();
        let mut b: HashMap<String, Vec<u32>> = HashMap::new();
        for i in (0..64).rev() {
            b.insert(format!("k{i}"), vec![i, 2]);
        }
        let set_a: HashSet<u32> = (0..64).collect();
        let set_b: HashSet<u32> = (0..64).rev().collect();
        let ta = format!("Farm {{ plots: {a:?}, seen: {set_a:?} }}");
        let tb = format!("Farm {{ plots: {b:?}, seen: {set_b:?} }}");
        assert_ne!(
            ta, tb,
            "the two orders differ (else this test shows nothing)"
        );
        let sorted: BTreeMap<_, _> = a.iter().collect();
        assert!(canonical(&ta).contains(&format!("{sorted:?}")));
        assert_eq!(canonical(&ta), canonical(&tb));
        for piece in [1, 3, 7, 1000] {
            assert_eq!(hash_in_pieces(&ta, piece), hash_in_pieces(&tb, piece));
            assert_eq!(hash_in_pieces(&ta, piece), hash_in_pieces(&ta, 5));
        }
        let mut plain = Xxh3::new();
        plain.update(canonical(&ta).as_bytes());
        assert_eq!(
            plain.digest(),
            hash_in_pieces(&tb, 4),
            "streamed = canonical text hashed"
        );
    }

    #[test]
    fn a_different_value_hashes_differently() {
        let a: HashMap<u32, u32> = (0..8).map(|i| (i, i)).collect();
        let mut b = a.clone();
        b.insert(3, 4);
        assert_ne!(
            hash_in_pieces(&format!("{a:?}"), 2),
            hash_in_pieces(&format!("{b:?}"), 2)
        );
    }
}
