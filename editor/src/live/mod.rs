//! Live mode: a game's editor that rebuilds itself as the game's code
//! changes and hands its editing state to the new build.
//!
//! - [`build`]: the game crate rebuilt in the background, cargo's messages
//!   read as they come.
//! - [`process`]: the handover between the running editor and the new
//!   build's process.
//! - [`handover`]: the editing state one build gives the next, and taking
//!   it back.
//!
//! What the handover file holds is [`crate::saved`]; the previous build's
//! run and where the new one departs from it are the app's
//! (`app::previous_run`, `app::divergence`), shown by the timeline.

pub(crate) mod build;
pub(crate) mod handover;
pub(crate) mod process;
