//! Keel's engine: everything that runs without the editor.
//!
//! The crate is laid out one module per concept (see `ARCHITECTURE.md` at the
//! repository root for the map and the data flow of a frame):
//!
//! - [`scene`]: generational handles, the struct-of-arrays hierarchy, the
//!   dirty-flag transform pass and the scene file format.
//! - [`time`]: the fixed-step clock (game loop pattern).
//! - [`systems`]: update-method systems and the deferred command buffer.
//! - [`spatial`]: bounding shapes, loose octree, quadtree and row grid.
//! - [`particles`]: the particle pool and emitters.
//! - [`render`]: the wgpu renderer, one struct per pass.
//! - [`assets`]: generated mesh primitives, glTF import and the asset registry.
//! - [`record`]: time travel: keyframes of every fixed step, seek, replay files.
//! - [`soak`]: long runs under a chaos system, with invariants and memory checked.
//! - [`rng`]: SplitMix64, the seedable generator of particles and soaks.
//! - [`files`]: reading user files with limits (regular files only, a size cap per kind).

pub mod app;
pub mod assets;
pub mod extract;
pub mod files;
mod identity;
pub mod particles;
pub mod record;
pub mod reload;
pub mod render;
pub mod rng;
pub mod scene;
pub mod soak;
pub mod spatial;
pub mod systems;
pub mod time;
pub mod workers;
pub mod world;

pub use assets::Assets;
