//! Unit tests of the glTF importer internals.
