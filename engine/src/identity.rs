//! Identities: numbers no other value of the process was given, which caches
//! compare to notice that what they were built from was replaced (a
//! component column, a baked table, a key array, a hierarchy layout).
//!
//! A process-wide static, on purpose (the engine's other one is the count of
//! recording profilers in `profile.rs`: puffin's scopes are process-wide):
//! an identity
//! must differ from every other one however many worlds the process runs,
//! and it is never read back, only compared, so no world can see another's
//! state through it.

use std::sync::atomic::{AtomicU64, Ordering};

/// A number never returned before in this process (never 0: 0 stands for
/// "none" where a cache has not seen anything yet).
pub(crate) fn fresh() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
