//! Cache hints: asking the CPU to start loading a column's entry a few
//! iterations before a loop reads it, where the loop jumps between places
//! the hardware cannot guess (the sparse propagation's subtree roots).
//!
//! Pattern: data locality (when the access cannot be made sequential, its
//! latency can still be overlapped).

/// Starts loading the cache line of `column[i]` into every cache level;
/// nothing when `i` is out of range, or on targets without a stable
/// prefetch instruction (only x86-64 has one in Rust today). A hint: what
/// the program computes is the same with or without it.
#[inline(always)]
#[cfg_attr(
    target_arch = "x86_64",
    expect(
        unsafe_code,
        reason = "an SSE intrinsic, which x86-64's baseline always has"
    )
)]
pub(crate) fn prefetch<T>(column: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(entry) = column.get(i) {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE (which has the instruction) is in x86-64's baseline;
        // a prefetch reads nothing the program sees and cannot fault, and
        // the address is of a live element anyway.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(entry).cast()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (column, i);
}
