//! Keel workspace root: the cross-crate tests live in `tests/`.
