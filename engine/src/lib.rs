//! Keel's engine: the library everything made with Keel runs on. The
//! applications are crates of their own: the player (`keel-player`: the
//! viewer's window loop, command line and soak) and the editor.
//!
//! The root holds what every user of the engine touches, one path each: the
//! [`World`] and its [`Scene`], nodes and components, systems, time, the
//! [`Assets`] store and what draws a frame. The public modules are
//! namespaces for specialised work; nothing in them repeats a root name.
//!
//! - [`scene`]: scene files, prefabs, skins and animation playback, the
//!   spatial index and the hierarchy's iterators.
//! - [`assets`]: handles, mesh and model data, materials' maps, skies,
//!   animation clips; [`assets::gltf`] (import and export),
//!   [`assets::shaders`] (the shader library and its `#import`s).
//! - [`render`]: the renderer's frame inputs, GPU records, controllers and
//!   settings for whoever draws their own view.
//! - [`spatial`]: bounding shapes, the loose octree, quadtree and row grid.
//! - [`particles`]: emitters' parts and the particle pool.
//! - [`record`]: time travel: keyframes of every fixed step, seek, replay files.
//! - [`files`]: reading user files with limits, writing them atomically.
//! - [`reload`]: watching asset and scene files and reloading what changed.
//! - [`input`]: keys, mouse and gamepad buttons, named actions and their
//!   `input.ron`, the collector a window feeds ([`Input`] is the resource a
//!   step reads them through).
//! - [`runner`]: the one app loop every windowed program is a host of:
//!   window, device and surface, pacing, the real-time clock, device loss.
//! - [`profile`]: frame profiling: the [`profile::Profiler`] a window owns,
//!   the frames it recorded, the GPU's pass times.
//!
//! `ARCHITECTURE.md` at the repository root maps the modules and the data
//! flow of a frame.
//!
//! A world in a few lines: a node with a built-in behaviour, a system of
//! your own, fixed steps run.
//!
//! ```
//! use glam::Vec3;
//! use keel_engine::{Assets, Scene, Spin, Transform, World};
//!
//! let assets = Assets::new();
//! let mut scene = Scene::with_assets(&assets);
//! let top = scene.spawn(None, "top", Transform::IDENTITY)?;
//! scene.insert(top, Spin { axis: Vec3::Y, rate: 1.0 })?;
//! let mut world = World::new(scene);
//! // Every step, each root rises by a tenth of the step's length.
//! world.systems_mut().add("rise", |scene, _commands, step| {
//!     for node in scene.roots().collect::<Vec<_>>() {
//!         let mut local = scene.local(node).unwrap();
//!         local.translation.y += 0.1 * step.dt;
//!         scene.set_local(node, local).unwrap();
//!     }
//! })?;
//! for _ in 0..60 {
//!     world.step();
//! }
//! let local = world.scene().local(top).unwrap();
//! assert!((local.translation.y - 0.1).abs() < 1e-3);
//! assert!(local.rotation.angle_between(glam::Quat::IDENTITY) > 0.9);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod assets;
pub mod files;
pub mod particles;
pub mod physics;
pub mod record;
pub mod reload;
pub mod render;
pub mod runner;
pub mod scene;
pub mod spatial;

mod bulk;
pub(crate) mod extract;
pub(crate) mod game;
mod identity;
pub mod input;
mod light;
pub mod math;
mod prefetch;
pub mod profile;
mod rng;
mod systems;
pub(crate) mod time;
mod transform;
mod validation;
pub(crate) mod workers;
pub(crate) mod world;

// The world and how it runs.
pub use game::{Game, GameError, Hud, Plugin};
pub use input::resource::Input;
pub use systems::{
    AppliedCommands, BUILT_IN_SYSTEMS, BodyCommands, Command, Commands, Events, RunCondition,
    SpawnInit, StepContext, SystemError, SystemFn, SystemOrder, SystemPanic, Systems,
};
pub use time::{Clock, DEFAULT_STEP, FrameTick, ManualTime, RealTime, TimeSource, Timer};
pub use world::{FrameStats, World, WorldSnapshot};

// Nodes and what they carry.
pub use assets::material::Material;
pub use assets::primitives::Primitive;
pub use assets::registry::MeshRef;
pub use light::{Light, LightKind};
pub use particles::emitter::Emitter;
pub use physics::Collision;
pub use scene::animator::{Animator, PlayMode};
pub use scene::behaviours::{Orbit, Oscillate, Spin};
pub use scene::body::{Axes, Body, BodyKind};
pub use scene::character::Character;
pub use scene::collider::{Collider, ColliderShape, CollisionLayers};
pub use scene::components::MeshRenderer;
pub use scene::environment::Environment;
pub use scene::error::{NodeError, SceneError};
pub use scene::handle::NodeId;
pub use scene::hierarchy::{Keep, Scene};
pub use scene::joint::{Joint, JointKind};
pub use scene::node_ref::NodeRef;
pub use scene::registered::Component;
pub use scene::resources::Resource;
pub use scene::{Projection, SceneCamera};
pub use scene::{With, Without};
pub use transform::{Affine3x4, Transform};
pub use validation::InvalidValue;

// What a world's files become.
pub use assets::store::Assets;

// Drawing a frame.
pub use extract::camera_rig::CameraRig;
pub use extract::thumbnail::model_thumbnail;
pub use extract::{Extractor, Overlays};
pub use render::camera::Camera;
pub use render::context::GpuContext;
pub use render::renderer::Renderer;

// What a game writes its components with, through Keel: one version of
// each crate, so a game names only `keel_engine` in its Cargo.toml.
pub use bevy_reflect;
pub use glam;
pub use keel_derive::{component, field};
pub use serde;

/// What `#[component]`'s expansion brings into scope (bevy_reflect's derive
/// names its crate `bevy_reflect`).
#[doc(hidden)]
pub mod __component {
    pub use bevy_reflect;
}

// Tools the engine's own loops use.
pub use rng::SplitMix64;
pub use workers::join_pool;
