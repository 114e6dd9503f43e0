//! Systems run once per fixed step (update method pattern), and the command
//! buffer that defers structural changes until the step is over.
//!
//! Each built-in behaviour is a component column; its system walks that
//! column front to back and gives every owner one slice of behaviour. Systems
//! run built-ins first (spin, oscillate, orbit), then user systems in the
//! order their `before`/`after` constraints give (the order added where
//! none says), each only where its `run_if` holds. A system that wants to spawn or despawn during the
//! step queues the change in [`Commands`]; the queue is applied after every
//! system has run, so no node is skipped or updated twice in the step where
//! the hierarchy changes under it.
//!
//! Startup systems run at the start of step 0, so a Reset, a seek or a
//! replay to 0 runs them again, as a fresh run does. A run condition is a
//! `Fn` of the scene, so the world, not a closure, holds what it decides on.
//! Events are a resource (`Events<E>`: the last step's buffer is read, this
//! step's written, swapped at each step's start), so keyframes and hashes
//! carry them, as they carry a `Timer` kept in a component or a resource.
//! A user system that panics is caught: its step is rolled back whole (the
//! scene's step undo, which `World` arms: `scene/hierarchy/undo.rs`), its
//! world stops stepping and names it (`World::system_panic`); the editor stops Play and restores the world of
//! the moment Play was pressed, the player exits with code 2. Reading an
//! input action no plugin declares is such a panic, naming the action, and
//! so is sending or reading events of a type the world was never given
//! (`Scene::send_event`, `Scene::events`), naming the type.
//!
//! # One fixed step, and the frame after it
//!
//! 1. `snapshot_previous`: current world transforms become the previous ones
//!    (only the ranges recomputed since the last snapshot are copied, or, when
//!    they are many, the columns swapped and those ranges marked stale until
//!    the step's propagation); then one bounded step of the layout's upkeep
//!    (relayout, sweep).
//! 2. Built-in systems (animators, spin, oscillate, orbit), then user systems; structural
//!    changes go to `Commands`.
//! 3. `Commands::apply`: spawns and despawns happen now.
//! 4. `propagate`: world transforms of dirty subtrees.
//!
//! `World` then has the colliders (what the next step's queries read,
//! `StepContext::space`), the physics and the spatial index take in the
//! nodes the propagation changed; steps the physics, a fixed place after
//! every system (`physics/bodies.rs`), and when it moved bodies propagates
//! again and has the three take those in; then steps the particle system
//! from the emitters' fresh world transforms.
//! A recorder, when one runs, looks before the step (a keyframe an edit forced,
//! a branch when the world was sought back) and after it (an adaptive keyframe).
//!
//! Rendering (variable rate): `Extractor::extract_world` asks the octree for
//! the meshes in the frustum, packs them at `interpolated_world(node, alpha)` with
//! `alpha = lag / step` from the clock, packs the live particle range
//! (interpolated), and hands a borrowed `FrameData` to the `Renderer`, which
//! records its passes in the order [`crate::render::PASSES`] gives (the
//! shadow views' casters were found per cascade by the octree during
//! extraction; meshes batch per texture, maps, sidedness and mesh, alpha-blended
//! ones last, back to front) and presents the surface texture. Skinned and morphed meshes skip the octree (their node is not
//! where their vertices are): extraction packs every skinned mesh's joint matrices
//! at the same alpha into one palette, culls each mesh by the box its joints'
//! spheres span, and the mesh pass draws each with `vs_deformed` (one call each). The editor renders the same frame into a texture shown in its
//! viewport.

use glam::{Quat, Vec3};

mod commands;
mod events;

pub use commands::{AppliedCommands, BodyCommands, Command, Commands, SpawnInit};
pub use events::Events;
pub(crate) use events::{is_events, swap_key, unswapped};

use crate::physics::{Bodies, Push, Space};
use crate::scene::{
    Component, NodeError, NodeId, Orbit, Oscillate, Scene, Spin, Transform, Transforms,
};

/// What a system knows of the step being run.
#[derive(Clone, Copy, Debug)]
pub struct StepContext<'a> {
    /// Length of the fixed step, seconds.
    pub dt: f32,
    /// Number of fixed steps run before this one.
    pub index: u64,
    /// The colliders as the step found them, for spatial queries (filed
    /// after the last step's propagation: what this step's systems move is
    /// found where it moved from the next step on).
    pub space: Space<'a>,
    /// The simulation as the last step left it: bodies' velocities, a
    /// character's sweep (`physics/view.rs`); pushes go through
    /// [`Commands::body`].
    pub bodies: Bodies<'a>,
}

/// A user system: one slice of behaviour per fixed step.
pub type SystemFn = Box<dyn FnMut(&mut Scene, &mut Commands, &StepContext) + Send>;

/// Whether a system runs this step, asked of the world (a `Fn`: what it
/// decides on lives in the world, so seek and replay decide the same).
pub type RunCondition = Box<dyn Fn(&Scene, &StepContext) -> bool + Send>;

/// Work done at the start of every step, before the systems (an event
/// type's buffer swap).
type StepStart = fn(&mut Scene);

/// A built-in behaviour's step: the scene and the step's length.
type Behaviour = fn(&mut Scene, f32);

/// The built-in behaviours: each a system registered the way a game's is,
/// under the name ordering constraints use, in this order.
const BUILT_INS: [(&str, Behaviour); 4] = [
    ("animate", crate::scene::animator::animate),
    ("spin", spin),
    ("oscillate", oscillate),
    ("orbit", orbit),
];

/// The built-in systems, by the names ordering constraints use.
pub const BUILT_IN_SYSTEMS: [&str; BUILT_INS.len()] = {
    let mut names = [""; BUILT_INS.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = BUILT_INS[i].0;
        i += 1;
    }
    names
};

struct Entry {
    name: String,
    run: SystemFn,
    /// One of the engine's behaviours rather than a game's system.
    built_in: bool,
    /// Runs once, at the start of step 0, before every other system.
    startup: bool,
    /// Runs only in the steps this accepts.
    condition: Option<RunCondition>,
    /// Indices of the entries this one must run after.
    after: Vec<usize>,
    /// Whether it was ordered explicitly; a user system that was not runs
    /// after the built-ins.
    ordered: bool,
}

/// Why a system could not be added or ordered.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SystemError {
    /// Two systems under one name.
    #[error("system `{name}` added twice")]
    DuplicateName {
        /// The name.
        name: String,
    },
    /// An order naming a system that does not exist (yet).
    #[error("system `{system}` is ordered against `{other}`, which is neither built in ({}) nor added before it", BUILT_IN_SYSTEMS.join(", "))]
    UnknownSystem {
        /// The system being ordered.
        system: String,
        /// The name it gave.
        other: String,
    },
    /// Orders that contradict each other.
    #[error("ordering `{system}` {relation} `{other}` makes a cycle")]
    Cycle {
        /// The system being ordered.
        system: String,
        /// `before` or `after`.
        relation: &'static str,
        /// The other system.
        other: String,
    },
    /// A system replaced that no one added.
    #[error("no user system is named `{name}`, so it cannot be replaced")]
    NoSuchSystem {
        /// The name.
        name: String,
    },
}

/// A user system that panicked during a step: the world stops stepping until
/// the panic is taken ([`Systems::take_panic`]). A step that finds an
/// `Events<_>` resource with no swap registered (put in with
/// `insert_resource` instead of `World::add_event`) stops the same way
/// before anything runs, under the system name [`Systems::STEP_START`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("system `{system}` panicked at step {step}: {message}")]
pub struct SystemPanic {
    /// The system's name.
    pub system: String,
    /// The fixed step it was running.
    pub step: u64,
    /// The panic's message.
    pub message: String,
}

/// The ordered systems and the command buffer they share.
pub struct Systems {
    entries: Vec<Entry>,
    /// Entry indices in run order.
    order: Vec<usize>,
    commands: Commands,
    steps: u64,
    last_applied: AppliedCommands,
    panicked: Option<SystemPanic>,
    /// Run at the start of every step, before the systems: each event
    /// type's buffer swap, by the event's type.
    step_start: Vec<(std::any::TypeId, StepStart)>,
}

impl Systems {
    /// The name a [`SystemPanic`] gives when the step's start, not a system,
    /// stopped the world.
    pub const STEP_START: &'static str = "(step start)";
}

impl Default for Systems {
    fn default() -> Self {
        let entries: Vec<Entry> = BUILT_INS
            .into_iter()
            .map(|(name, behaviour)| Entry {
                name: name.to_owned(),
                run: Box::new(
                    move |scene: &mut Scene, _: &mut Commands, ctx: &StepContext| {
                        behaviour(scene, ctx.dt);
                    },
                ),
                built_in: true,
                startup: false,
                condition: None,
                after: Vec::new(),
                ordered: true,
            })
            .collect();
        Self {
            order: (0..entries.len()).collect(),
            entries,
            commands: Commands::default(),
            steps: 0,
            last_applied: AppliedCommands::default(),
            panicked: None,
            step_start: Vec::new(),
        }
    }
}

/// Orders a system just added (see [`Systems::add`]).
pub struct SystemOrder<'a> {
    systems: &'a mut Systems,
    index: usize,
}

impl SystemOrder<'_> {
    /// Runs it before `other` (a built-in or a system added earlier).
    ///
    /// # Errors
    /// [`SystemError::UnknownSystem`], [`SystemError::Cycle`].
    pub fn before(self, other: &str) -> Result<Self, SystemError> {
        self.relate(other, "before")
    }

    /// Runs it after `other` (a built-in or a system added earlier).
    ///
    /// # Errors
    /// [`SystemError::UnknownSystem`], [`SystemError::Cycle`].
    pub fn after(self, other: &str) -> Result<Self, SystemError> {
        self.relate(other, "after")
    }

    /// Runs it only in the steps where `condition` holds (read from the
    /// scene, so a replay decides the same).
    pub fn run_if(self, condition: impl Fn(&Scene, &StepContext) -> bool + Send + 'static) -> Self {
        self.systems.entries[self.index].condition = Some(Box::new(condition));
        self
    }

    fn relate(self, other: &str, relation: &'static str) -> Result<Self, SystemError> {
        let systems = self.systems;
        let index = self.index;
        let name = systems.entries[index].name.clone();
        let Some(o) = systems.entries.iter().position(|e| e.name == other) else {
            return Err(SystemError::UnknownSystem {
                system: name,
                other: other.to_owned(),
            });
        };
        let (first, then) = if relation == "before" {
            (index, o)
        } else {
            (o, index)
        };
        systems.entries[then].after.push(first);
        let was_ordered = std::mem::replace(&mut systems.entries[index].ordered, true);
        if let Some(order) = systems.resolve() {
            systems.order = order;
            Ok(Self { systems, index })
        } else {
            systems.entries[then].after.pop();
            systems.entries[index].ordered = was_ordered;
            Err(SystemError::Cycle {
                system: name,
                relation,
                other: other.to_owned(),
            })
        }
    }
}

impl Systems {
    /// The built-in systems only.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a user system named `name`; it runs after the built-in ones, in
    /// the order added, unless ordered with the returned [`SystemOrder`]:
    /// `systems.add("steer", steer)?.before("orbit")?`.
    ///
    /// # Errors
    /// [`SystemError::DuplicateName`] when a system (built-in or not) has the name.
    pub fn add(
        &mut self,
        name: impl Into<String>,
        system: impl FnMut(&mut Scene, &mut Commands, &StepContext) + Send + 'static,
    ) -> Result<SystemOrder<'_>, SystemError> {
        let name = name.into();
        if self.entries.iter().any(|e| e.name == name) {
            return Err(SystemError::DuplicateName { name });
        }
        let index = self.entries.len();
        self.entries.push(Entry {
            name,
            run: Box::new(system),
            built_in: false,
            startup: false,
            condition: None,
            after: Vec::new(),
            ordered: false,
        });
        self.order.push(index);
        Ok(SystemOrder {
            systems: self,
            index,
        })
    }

    /// Gives the user system `name` a new body, keeping its place in the
    /// order and its run condition (a game's tests and tools try another
    /// version of one system on the same world).
    ///
    /// # Errors
    /// [`SystemError::NoSuchSystem`] when no user system has the name.
    pub fn replace(
        &mut self,
        name: &str,
        system: impl FnMut(&mut Scene, &mut Commands, &StepContext) + Send + 'static,
    ) -> Result<(), SystemError> {
        let entry = self
            .entries
            .iter_mut()
            .find(|e| e.name == name && !e.built_in)
            .ok_or_else(|| SystemError::NoSuchSystem {
                name: name.to_owned(),
            })?;
        entry.run = Box::new(system);
        Ok(())
    }

    /// Adds a startup system: it runs once, at the start of step 0 (before
    /// every other system, startup systems in the order added). A world put
    /// back to step 0 (Reset, a seek, a replay) runs it again, so a run
    /// starts the same each time.
    ///
    /// # Errors
    /// [`SystemError::DuplicateName`] when a system has the name.
    pub fn add_startup(
        &mut self,
        name: impl Into<String>,
        system: impl FnMut(&mut Scene, &mut Commands, &StepContext) + Send + 'static,
    ) -> Result<(), SystemError> {
        let order = self.add(name, system)?;
        let index = order.index;
        self.entries[index].startup = true;
        Ok(())
    }

    /// Makes `update` run at the start of every step, once per `key` (an
    /// event type's buffer swap, under [`swap_key`]: see
    /// [`crate::World::add_event`]).
    pub(crate) fn at_step_start(&mut self, key: std::any::TypeId, update: StepStart) {
        if !self.starts_step(key) {
            self.step_start.push((key, update));
        }
    }

    /// Whether something runs at the start of every step under `key`.
    pub(crate) fn starts_step(&self, key: std::any::TypeId) -> bool {
        self.step_start.iter().any(|(k, _)| *k == key)
    }

    /// The type name of an `Events<_>` resource of `scene` that no step
    /// start swaps, if there is one.
    fn unswapped_events(&self, scene: &Scene) -> Option<&'static str> {
        scene
            .resources()
            .types()
            .find(|&(key, name)| is_events(name) && !self.starts_step(key))
            .map(|(_, name)| name)
    }

    /// The run order: each entry after every entry it names, the built-ins
    /// in their own order, user systems nobody ordered after the last
    /// built-in; ties broken by the order added. `None` on a cycle.
    fn resolve(&self) -> Option<Vec<usize>> {
        let n = self.entries.len();
        let last_built_in = BUILT_IN_SYSTEMS.len() - 1;
        let after: Vec<Vec<usize>> = (0..n)
            .map(|i| {
                let entry = &self.entries[i];
                let implicit = match (i, entry.ordered) {
                    (0, _) => None,
                    (i, _) if i <= last_built_in => Some(i - 1),
                    (_, false) => Some(last_built_in),
                    (_, true) => None,
                };
                entry.after.iter().copied().chain(implicit).collect()
            })
            .collect();
        let mut waiting: Vec<usize> = after.iter().map(Vec::len).collect();
        let mut order = Vec::with_capacity(n);
        let mut done = vec![false; n];
        while order.len() < n {
            let next = (0..n).find(|&i| !done[i] && waiting[i] == 0)?;
            done[next] = true;
            order.push(next);
            for (i, list) in after.iter().enumerate() {
                waiting[i] -= list.iter().filter(|&&a| a == next).count();
            }
        }
        Some(order)
    }

    /// Names of every system, built-in and user, in run order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.order.iter().map(|&i| self.entries[i].name.as_str())
    }

    /// Names of the user systems, in run order.
    pub fn user_names(&self) -> impl Iterator<Item = &str> {
        self.order
            .iter()
            .map(|&i| &self.entries[i])
            .filter(|e| !e.built_in)
            .map(|e| e.name.as_str())
    }

    /// Whether any user system (startup ones included) runs: only those
    /// can panic, so only their steps need an undo.
    pub fn has_user_systems(&self) -> bool {
        self.entries.iter().any(|e| !e.built_in)
    }

    /// Runs one fixed step over `scene`: snapshot previous transforms, run the
    /// systems, apply queued structural changes, propagate world transforms.
    /// A user system that panics ends the step where it is (no commands
    /// applied, nothing propagated) and stops later steps until
    /// [`Systems::take_panic`]; so does an `Events<_>` resource of `scene`
    /// that nothing swaps, before anything runs (see [`SystemPanic`]). When
    /// the scene's step undo was armed (`World` arms it), the caller rolls
    /// the step back. Returns whether the step ran to its end. The systems'
    /// queries are asked of `space` (a world's colliders; [`Space::EMPTY`]
    /// for a scene stepped on its own) and the simulation read through
    /// `bodies` ([`Bodies::EMPTY`] for none); the pushes they queue wait in
    /// [`Systems::take_pushes`].
    pub fn run_step(
        &mut self,
        scene: &mut Scene,
        space: Space<'_>,
        bodies: Bodies<'_>,
        dt: f32,
    ) -> bool {
        let ctx = StepContext {
            dt,
            index: self.steps,
            space,
            bodies,
        };
        if self.panicked.is_some() {
            return false;
        }
        if let Some(resource) = self.unswapped_events(scene) {
            self.panicked = Some(SystemPanic {
                system: Self::STEP_START.to_owned(),
                step: self.steps,
                message: unswapped(resource),
            });
            return false;
        }
        scene.snapshot_previous();
        for (_, update) in &self.step_start {
            update(scene);
        }
        // Startup systems (step 0 only, in the order added), then the rest in order.
        if ctx.index == 0 {
            for i in 0..self.entries.len() {
                if self.entries[i].startup && !self.run_entry(i, scene, &ctx) {
                    return false;
                }
            }
        }
        for k in 0..self.order.len() {
            let i = self.order[k];
            if !self.entries[i].startup && !self.run_entry(i, scene, &ctx) {
                return false;
            }
        }
        // No user code runs past here: the step stands.
        scene.commit_step();
        self.last_applied = {
            puffin::profile_scope!("commands");
            self.commands.apply(scene)
        };
        scene.propagate();
        self.steps += 1;
        true
    }

    /// Runs entry `i` (unless its condition says no); false when a user
    /// system panicked, which stops the step.
    fn run_entry(&mut self, i: usize, scene: &mut Scene, ctx: &StepContext) -> bool {
        let entry = &mut self.entries[i];
        if entry.condition.as_ref().is_some_and(|c| !c(scene, ctx)) {
            return true;
        }
        puffin::profile_scope!("system", entry.name.as_str());
        let commands = &mut self.commands;
        let system = &mut entry.run;
        let run = std::panic::AssertUnwindSafe(|| system(scene, commands, ctx));
        if let Err(payload) = std::panic::catch_unwind(run) {
            self.commands = Commands::default();
            self.panicked = Some(SystemPanic {
                system: entry.name.clone(),
                step: self.steps,
                message: panic_message(payload.as_ref()),
            });
            return false;
        }
        true
    }

    /// The panic that stopped the systems, if one did.
    pub fn panic(&self) -> Option<&SystemPanic> {
        self.panicked.as_ref()
    }

    /// Takes the panic that stopped the systems: steps run again.
    pub fn take_panic(&mut self) -> Option<SystemPanic> {
        self.panicked.take()
    }

    /// The pushes the last step's systems queued, in order (the world
    /// applies them before the physics steps).
    pub(crate) fn take_pushes(&mut self) -> std::vec::Drain<'_, (NodeId, Push)> {
        self.commands.take_pushes()
    }

    /// Fixed steps run so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// What the last step's command buffer did.
    pub fn last_applied(&self) -> AppliedCommands {
        self.last_applied
    }

    /// Puts the step counter back (a recording restored the world of step `steps`).
    pub(crate) fn set_steps(&mut self, steps: u64, last_applied: AppliedCommands) {
        self.steps = steps;
        self.last_applied = last_applied;
    }
}

/// The text a panic was raised with.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "(a panic without a message)".to_owned()
    }
}

/// Writes a local transform produced by a system; owners are alive (components die with their nodes).
fn write_local(transforms: &mut Transforms<'_>, node: NodeId, local: Transform) {
    match transforms.set_local(node, local) {
        Ok(_) => {}
        // A behaviour that produces NaN (a zero axis, say) leaves the node where it was.
        Err(NodeError::InvalidTransform { .. } | NodeError::StaleNode { .. }) => {}
        Err(other) => log::warn!("behaviour could not move {node}: {other}"),
    }
}

/// Runs a built-in behaviour over every node with a `C`: one required term,
/// so the query has neither of its errors.
fn behave<C: Component>(
    scene: &mut Scene,
    mut update: impl FnMut(NodeId, &mut C, &mut Transforms<'_>),
) {
    let walked = scene.query_each::<(&mut C,)>(|node, (value,), transforms| {
        update(node, value, transforms);
    });
    debug_assert!(walked.is_ok(), "one required term: {walked:?}");
}

fn spin(scene: &mut Scene, dt: f32) {
    behave(scene, |node, spin: &mut Spin, transforms| {
        let Some(mut local) = transforms.local(node) else {
            return;
        };
        let turn = Quat::from_axis_angle(spin.axis.normalize_or(Vec3::Y), spin.rate * dt);
        local.rotation = (turn * local.rotation).normalize();
        write_local(transforms, node, local);
    });
}

fn oscillate(scene: &mut Scene, dt: f32) {
    behave(scene, |node, osc: &mut Oscillate, transforms| {
        osc.elapsed += dt;
        let omega = std::f32::consts::TAU * osc.frequency;
        // Displacement relative to time zero, so the rest pose is the saved pose.
        let target = osc.amplitude
            * (crate::math::sin(omega * osc.elapsed + osc.phase) - crate::math::sin(osc.phase));
        let delta = target - osc.applied;
        osc.applied = target;
        let (axis, rock) = (osc.axis.normalize_or(Vec3::Y), osc.rock);
        let Some(mut local) = transforms.local(node) else {
            return;
        };
        if rock {
            local.rotation = (local.rotation * Quat::from_axis_angle(axis, delta)).normalize();
        } else {
            local.translation += axis * delta;
        }
        write_local(transforms, node, local);
    });
}

fn orbit(scene: &mut Scene, dt: f32) {
    behave(scene, |node, orbit: &mut Orbit, transforms| {
        orbit.angle = (orbit.angle + orbit.rate * dt) % std::f32::consts::TAU;
        let orbit = *orbit;
        let Some(mut local) = transforms.local(node) else {
            return;
        };
        let (sin, cos) = crate::math::sin_cos(orbit.angle);
        local.translation = orbit.center + Vec3::new(cos, 0.0, -sin) * orbit.radius;
        if orbit.face_forward {
            // Forward is -Z; rotating it by `angle` about Y points along the circle's tangent.
            let yaw = if orbit.rate >= 0.0 {
                orbit.angle
            } else {
                orbit.angle + std::f32::consts::PI
            };
            local.rotation = Quat::from_rotation_y(yaw);
        }
        write_local(transforms, node, local);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Clock;
    use std::time::Duration;

    fn animated_scene() -> Scene {
        let mut scene = Scene::new();
        let ship = scene.spawn(None, "ship", Transform::IDENTITY).unwrap();
        scene
            .insert(ship, Oscillate::new(Vec3::Z, 0.1, 0.3, 0.5).rocking())
            .unwrap();
        let mast = scene
            .spawn(
                Some(ship),
                "mast",
                Transform::from_translation(Vec3::Y * 2.0),
            )
            .unwrap();
        scene
            .insert(
                mast,
                Spin {
                    axis: Vec3::Y,
                    rate: 0.7,
                },
            )
            .unwrap();
        for i in 0..20 {
            let boat = scene
                .spawn(None, format!("boat{i}"), Transform::IDENTITY)
                .unwrap();
            let orbit = Orbit {
                center: Vec3::ZERO,
                radius: 5.0 + i as f32,
                rate: 0.2 + 0.01 * i as f32,
                angle: i as f32,
                face_forward: true,
            };
            scene.insert(boat, orbit).unwrap();
            let flag = scene
                .spawn(Some(boat), "flag", Transform::from_translation(Vec3::Y))
                .unwrap();
            scene
                .insert(flag, Oscillate::new(Vec3::X, 0.2, 1.3, i as f32))
                .unwrap();
        }
        scene.propagate();
        scene
    }

    /// Bits of every world transform, in node order.
    fn state_bits(scene: &Scene) -> Vec<u32> {
        scene
            .nodes()
            .flat_map(|n| scene.world(n).unwrap().to_cols_array())
            .map(f32::to_bits)
            .collect()
    }

    /// Runs frames of the given lengths until exactly `steps` fixed steps have run.
    fn run_until(steps: u64, mut frame_time: impl FnMut() -> Duration) -> Vec<u32> {
        let mut scene = animated_scene();
        let mut systems = Systems::new();
        let mut clock = Clock::default().with_max_steps(1_000);
        let dt = clock.step_seconds();
        while systems.steps() < steps {
            let tick = clock.advance(frame_time());
            for _ in 0..tick.steps {
                if systems.steps() == steps {
                    break;
                }
                systems.run_step(&mut scene, Space::EMPTY, Bodies::EMPTY, dt);
            }
        }
        state_bits(&scene)
    }

    #[test]
    fn fixed_step_is_deterministic_whatever_the_frame_rate() {
        let steady = run_until(600, || Duration::from_secs_f64(1.0 / 240.0));
        let mut seed = 0x9e37_79b9_u32;
        let jittery = run_until(600, || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            // 15 Hz to 50 Hz.
            let hz = 15.0 + f64::from(seed % 3_500) / 100.0;
            Duration::from_secs_f64(1.0 / hz)
        });
        assert_eq!(steady.len(), jittery.len());
        let differing = steady.iter().zip(&jittery).filter(|(a, b)| a != b).count();
        assert_eq!(
            differing, 0,
            "{differing} floats differ between 240 Hz and 15-50 Hz runs"
        );
        let start = state_bits(&animated_scene());
        assert_ne!(steady, start, "the scene must actually have moved");
    }

    #[test]
    fn spawns_and_despawns_during_a_step_are_deferred() {
        let mut scene = Scene::new();
        let mut spinners = Vec::new();
        for i in 0..6 {
            let node = scene
                .spawn(None, format!("n{i}"), Transform::IDENTITY)
                .unwrap();
            scene
                .insert(
                    node,
                    Spin {
                        axis: Vec3::Y,
                        rate: 1.0,
                    },
                )
                .unwrap();
            spinners.push(node);
        }
        let doomed = spinners[2];
        let mut systems = Systems::new();
        let added = systems.add("churn", move |scene, commands, _| {
            for node in scene.nodes().collect::<Vec<_>>() {
                commands.spawn_with(None, "child", Transform::IDENTITY, |scene, id| {
                    scene
                        .insert(
                            id,
                            Spin {
                                axis: Vec3::Y,
                                rate: 1.0,
                            },
                        )
                        .unwrap();
                });
                if node == doomed {
                    commands.despawn(node);
                }
            }
            assert_eq!(scene.len(), 6, "nothing changes shape while systems run");
        });
        assert!(added.is_ok(), "a new name");
        systems.run_step(&mut scene, Space::EMPTY, Bodies::EMPTY, 0.5);
        assert_eq!(systems.panic(), None, "the system's own checks hold");
        let applied = systems.last_applied();
        assert_eq!(
            (applied.spawned, applied.despawned, applied.skipped),
            (6, 1, 0)
        );
        assert!(!scene.contains(doomed));
        let expected = Quat::from_rotation_y(0.5);
        for &node in spinners.iter().filter(|&&n| n != doomed) {
            let rotation = scene.local(node).unwrap().rotation;
            assert!(
                rotation.angle_between(expected) < 1e-5,
                "{node} spun exactly once"
            );
        }
        let fresh: Vec<NodeId> = scene
            .nodes()
            .filter(|&n| scene.name(n) == Some("child"))
            .collect();
        assert_eq!(fresh.len(), 6);
        for node in fresh {
            assert_eq!(
                scene.local(node).unwrap().rotation,
                Quat::IDENTITY,
                "{node} spawned, not yet updated"
            );
        }
    }

    #[test]
    fn orbit_keeps_its_radius_and_faces_its_travel() {
        let mut scene = Scene::new();
        let boat = scene.spawn(None, "boat", Transform::IDENTITY).unwrap();
        let orbit = Orbit {
            center: Vec3::new(1.0, 0.0, 2.0),
            radius: 3.0,
            rate: 1.0,
            angle: 0.0,
            face_forward: true,
        };
        scene.insert(boat, orbit).unwrap();
        let mut systems = Systems::new();
        let mut last = None;
        for _ in 0..10 {
            systems.run_step(&mut scene, Space::EMPTY, Bodies::EMPTY, 0.1);
            let t = scene.local(boat).unwrap();
            assert!((t.translation.distance(orbit.center) - 3.0).abs() < 1e-4);
            if let Some(prev) = last {
                let travel: Vec3 = t.translation - prev;
                let forward = t.rotation * Vec3::NEG_Z;
                assert!(
                    travel.normalize().dot(forward) > 0.99,
                    "facing {forward}, moving {travel}"
                );
            }
            last = Some(t.translation);
        }
    }

    #[test]
    fn oscillation_starts_at_rest_and_returns_there() {
        let mut scene = Scene::new();
        let node = scene
            .spawn(None, "buoy", Transform::from_translation(Vec3::Y))
            .unwrap();
        scene
            .insert(node, Oscillate::new(Vec3::Y, 0.5, 1.0, 0.7))
            .unwrap();
        let mut systems = Systems::new();
        systems.run_step(&mut scene, Space::EMPTY, Bodies::EMPTY, 0.01);
        let first = scene.local(node).unwrap().translation.y;
        // A start from the phase itself would jump by 0.5 * sin(0.7) = 0.32 at once.
        assert!(
            (first - 1.0).abs() < 0.03,
            "first step moved to y = {first}"
        );
        for _ in 0..99 {
            systems.run_step(&mut scene, Space::EMPTY, Bodies::EMPTY, 0.01);
        }
        let y = scene.local(node).unwrap().translation.y;
        assert!((y - 1.0).abs() < 1e-3, "after one period y = {y}");
    }

    #[test]
    fn a_replaced_system_keeps_its_place_and_runs_its_new_body() {
        let mut scene = Scene::new();
        let node = scene.spawn(None, "n", Transform::IDENTITY).unwrap();
        let mut systems = Systems::new();
        let push = |by: f32| {
            move |scene: &mut Scene, _: &mut Commands, _: &StepContext| {
                let node = scene.nodes().next().unwrap();
                let mut local = scene.local(node).unwrap();
                local.translation.x = local.translation.x * 10.0 + by;
                scene.set_local(node, local).unwrap();
            }
        };
        systems.add("first", push(1.0)).unwrap();
        systems.add("second", push(2.0)).unwrap();
        systems.replace("first", push(3.0)).unwrap();
        systems.run_step(&mut scene, Space::EMPTY, Bodies::EMPTY, 0.01);
        // "first" still runs before "second": (0 * 10 + 3) * 10 + 2.
        assert_eq!(scene.local(node).unwrap().translation.x, 32.0);
        assert_eq!(
            systems.replace("missing", push(0.0)),
            Err(SystemError::NoSuchSystem {
                name: "missing".to_owned()
            })
        );
        let built_in = BUILT_IN_SYSTEMS[0];
        assert!(systems.replace(built_in, push(0.0)).is_err());
    }
}
