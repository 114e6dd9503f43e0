//! Things that touch: the colliders of a scene filed for queries, and the
//! queries game code asks of them (the *Spatial Partition* pattern, for the
//! game itself: units asking who is near them).
//!
//! - `shape`: a [`Collider`](crate::Collider) placed in the world, as a
//!   parry shape (exact tests) and a world box.
//! - `colliders`: [`Colliders`], a loose octree of them fed by the dirty
//!   flag; the world keeps one beside the mesh index.
//! - `queries`: [`Space`], what a system asks (`StepContext::space`):
//!   overlaps, the first ray hit, the k nearest, through a [`QueryFilter`].
//! - `fit`: [`fitted_collider`], a box around what a node draws.
//! - `bodies`: [`Physics`], the bodies and colliders simulated by rapier
//!   once a fixed step, fed by the dirty flag, cloned into keyframes.
//! - `joints`: the `joint` components made as rapier's joints.
//! - `events`: [`Collision`], touches and sensor visits sent as events.
//! - `push`: [`Push`], forces, impulses and velocities game code queues
//!   (`Commands::body`).
//! - `view`: [`Bodies`], what a system reads of the simulation
//!   (`StepContext::bodies`); `character`: its [`Bodies::move_character`].

mod bodies;
mod character;
mod colliders;
mod events;
mod fit;
mod joints;
mod mesh_shape;
mod push;
mod queries;
mod shape;
mod view;

pub use bodies::{GRAVITY, Physics};
pub use character::CharacterMove;
pub use colliders::Colliders;
pub use events::Collision;
pub use fit::fitted_collider;
pub use mesh_shape::{MOST_TRIANGLES, MeshShapeError};
pub use push::Push;
pub use queries::{QueryFilter, RayHit, Space};
pub(crate) use shape::{Sized3, outline_of};
pub use view::Bodies;

#[cfg(test)]
mod api_tests;
#[cfg(test)]
mod body_tests;
#[cfg(test)]
mod tests;
