//! Columns as bytes: how the scene and the particle pool save the columns
//! that grow with the world (hot transforms, slots, names, particles), back
//! to back, so that the recorder can XOR a keyframe against the previous one
//! and compress it.
//!
//! Every column is its length (a little-endian `u64`) and its elements' bytes.
//! Types with padding (a `Transform`, an `Affine3A` on some targets) are written
//! field by field, so no uninitialised byte is ever read and every bit of a
//! value comes back.

use bytemuck::{AnyBitPattern, NoUninit};

/// A bulk stream that does not parse: a recording corrupted in memory or
/// written by another build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("keyframe data ends early or holds an impossible length (column {column})")]
pub struct BulkError {
    /// Which column of the stream (0-based) failed.
    pub column: usize,
}

/// Appends columns to a byte buffer.
pub struct BulkWriter<'a> {
    out: &'a mut Vec<u8>,
}

impl<'a> BulkWriter<'a> {
    /// A writer appending to `out`.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        Self { out }
    }

    fn len(&mut self, len: usize) {
        self.out.extend_from_slice(&(len as u64).to_le_bytes());
    }

    /// A column of plain values, copied as they lie in memory.
    pub fn pod<T: NoUninit>(&mut self, values: &[T]) {
        self.len(values.len());
        self.out.extend_from_slice(bytemuck::cast_slice(values));
    }

    /// One value.
    pub fn value<T: NoUninit>(&mut self, value: T) {
        self.out.extend_from_slice(bytemuck::bytes_of(&value));
    }

    /// A column whose elements are written by `write` (`size` bytes each).
    pub fn each<T>(&mut self, values: &[T], size: usize, mut write: impl FnMut(&mut Vec<u8>, &T)) {
        self.len(values.len());
        self.out.reserve(values.len() * size);
        for v in values {
            write(self.out, v);
        }
    }

    /// A column of strings.
    pub fn strings(&mut self, values: &[String]) {
        self.len(values.len());
        for s in values {
            self.len(s.len());
            self.out.extend_from_slice(s.as_bytes());
        }
    }
}

/// Reads the columns a [`BulkWriter`] wrote, in the same order.
pub struct BulkReader<'a> {
    bytes: &'a [u8],
    column: usize,
}

impl<'a> BulkReader<'a> {
    /// A reader over `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, column: 0 }
    }

    fn error(&self) -> BulkError {
        BulkError {
            column: self.column,
        }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], BulkError> {
        if n > self.bytes.len() {
            return Err(self.error());
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    fn len(&mut self, element: usize) -> Result<usize, BulkError> {
        let raw = self.take(8)?;
        let len = u64::from_le_bytes(raw.try_into().map_err(|_| self.error())?);
        let len = usize::try_from(len).map_err(|_| self.error())?;
        // A length the rest of the stream can't hold is corruption, not an allocation to try.
        if len.saturating_mul(element.max(1)) > self.bytes.len() && element > 0 {
            return Err(self.error());
        }
        Ok(len)
    }

    /// A column written by [`BulkWriter::pod`].
    pub fn pod<T: bytemuck::Pod>(&mut self) -> Result<Vec<T>, BulkError> {
        let size = size_of::<T>();
        let len = self.len(size)?;
        let raw = self.take(len * size)?;
        self.column += 1;
        Ok(bytemuck::pod_collect_to_vec(raw))
    }

    /// A value written by [`BulkWriter::value`].
    pub fn value<T: AnyBitPattern>(&mut self) -> Result<T, BulkError> {
        let raw = self.take(size_of::<T>())?;
        self.column += 1;
        Ok(bytemuck::pod_read_unaligned(raw))
    }

    /// A column written by [`BulkWriter::each`] with the same `size`.
    pub fn each<T>(
        &mut self,
        size: usize,
        mut read: impl FnMut(&[u8]) -> T,
    ) -> Result<Vec<T>, BulkError> {
        let len = self.len(size)?;
        let raw = self.take(len * size)?;
        self.column += 1;
        Ok(raw.chunks_exact(size).map(&mut read).collect())
    }

    /// A column written by [`BulkWriter::strings`].
    pub fn strings(&mut self) -> Result<Vec<String>, BulkError> {
        let len = self.len(8)?;
        let mut out = Vec::with_capacity(len);
        for _ in 0..len {
            let n = self.len(1)?;
            let raw = self.take(n)?;
            out.push(String::from_utf8(raw.to_vec()).map_err(|_| self.error())?);
        }
        self.column += 1;
        Ok(out)
    }

    /// Whether every byte was read.
    pub fn is_done(&self) -> bool {
        self.bytes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_round_trip_and_truncation_is_an_error() {
        let mut out = Vec::new();
        let mut w = BulkWriter::new(&mut out);
        w.pod(&[1u32, 2, 3]);
        w.value(7u64);
        w.strings(&["a".to_string(), "héllo".to_string()]);
        w.each(&[1.5f32, -0.0], 4, |o, v| {
            o.extend_from_slice(&v.to_le_bytes())
        });
        let mut r = BulkReader::new(&out);
        assert_eq!(r.pod::<u32>().unwrap(), [1, 2, 3]);
        assert_eq!(r.value::<u64>().unwrap(), 7);
        assert_eq!(r.strings().unwrap(), ["a", "héllo"]);
        let floats = r
            .each(4, |b| f32::from_le_bytes(b.try_into().unwrap()))
            .unwrap();
        assert_eq!(floats[1].to_bits(), (-0.0f32).to_bits());
        assert!(r.is_done());
        for cut in 0..out.len() {
            let mut r = BulkReader::new(&out[..cut]);
            let all = r
                .pod::<u32>()
                .and_then(|_| r.value::<u64>())
                .and_then(|_| r.strings());
            let all = all.and_then(|_| r.each(4, |_| ()));
            assert!(all.is_err(), "a stream cut at {cut} bytes parsed");
        }
    }
}
