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

mod behaviours;
mod commands;
mod events;

pub use commands::{AppliedCommands, BodyCommands, Command, Commands, SpawnInit};
pub use events::Events;
pub(crate) use events::{is_events, swap_key, unswapped};

use crate::physics::{Bodies, Push, Space};
use crate::scene::{NodeId, Scene};

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
    ("spin", behaviours::spin),
    ("oscillate", behaviours::oscillate),
    ("orbit", behaviours::orbit),
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
    /// `bodies` ([`Bodies::EMPTY`] for none); the pushes they queue wait
    /// for the world, which applies them before its physics steps.
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

#[cfg(test)]
mod tests;
