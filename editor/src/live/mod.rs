//! Live mode: a game's editor that rebuilds itself as the game's code
//! changes and hands its editing state to the new build.
//!
//! - [`build`]: the game crate rebuilt in the background, cargo's messages
//!   read as they come.
//! - [`process`]: the handover between the running editor and the new
//!   build's process.
//! - [`handover`]: the editing state one build gives the next, and taking
//!   it back.
//! - [`saved`]: the serialised forms the handover file holds.
//! - [`previous_run`]: the previous build's run, shown while the timeline
//!   compares it with the new one; [`divergence`]: where they part.

pub(crate) mod build;
pub(crate) mod divergence;
pub(crate) mod handover;
pub(crate) mod previous_run;
pub(crate) mod process;
pub mod saved;
