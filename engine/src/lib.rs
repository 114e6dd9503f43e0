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
//! - [`assets`]: the [`Assets`] store a world's meshes, textures, models,
//!   skies, shaders and prefab expansions live in; primitives; glTF import.
//! - [`record`]: time travel: keyframes of every fixed step, seek, replay files.
//! - [`rng`]: SplitMix64, the seedable generator of particles and soaks.
//! - [`files`]: reading user files with limits (regular files only, a size cap per kind).
//! - [`viewer`]: the standalone viewer: its window loop, headless render and
//!   soak (long runs under a chaos system, invariants and memory checked).

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
pub mod spatial;
pub mod systems;
pub mod time;
pub mod viewer;
pub mod workers;
pub mod world;

pub use assets::{Assets, Material, Primitive};
pub use extract::FrameBuffers;
pub use render::{Camera, GpuContext, Renderer};
pub use scene::{Light, LightKind, MeshRenderer, NodeId, Scene, SceneError, Transform};
pub use systems::Systems;
pub use time::{Clock, RealTime};
pub use world::World;
