//! Keel's editor: an egui UI over the live world.

pub mod component;
pub mod document;
pub mod subtree;
pub mod undo;
