//! The editor's panels, each a tab of the workspace: drawn from the editor's
//! state, the user's requests handed back as actions.
//!
//! - [`hierarchy`]: the scene tree; [`inspector`]: the selected node's
//!   transform and components.
//! - [`assets`]: the project's files with thumbnails.
//! - [`scene_view`]: the editor's free camera, with the [`gizmo`] over it;
//!   [`game_view`]: the world through the scene's camera.
//! - [`timeline`]: the recording, scrubbed; [`stats`]: game-loop and
//!   dirty-flag counters; [`log`]: warnings and errors; [`profiler`]:
//!   where each frame's time goes.
//! - [`widgets`]: the labelled rows for numbers, vectors and colours the
//!   panels share.

pub(crate) mod assets;
pub(crate) mod collider_handles;
pub(crate) mod game_view;
pub(crate) mod gizmo;
pub(crate) mod hierarchy;
pub(crate) mod inspector;
pub(crate) mod log;
pub(crate) mod profiler;
pub(crate) mod scene_view;
pub(crate) mod stats;
pub(crate) mod timeline;
pub(crate) mod view_ray;
pub(crate) mod widgets;
