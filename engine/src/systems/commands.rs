//! The command buffer: structural changes (spawns, despawns, reparents,
//! components added and removed) a system queues during a step, applied once
//! every system has run, in the order queued, so no node is skipped or
//! updated twice in the step where the hierarchy changes under it.

use glam::Vec3;

use crate::physics::Push;
use crate::scene::{AnyComponent, NodeId, Scene, Transform};
use crate::{Component, Keep};

/// Initialises a node spawned through [`Commands`] (add components, say).
pub type SpawnInit = Box<dyn FnOnce(&mut Scene, NodeId) + Send>;

/// A structural change queued during a step.
pub enum Command {
    /// Create a node when the step is over.
    Spawn {
        /// The handle [`Commands::spawn_reserved`] handed out, if it did.
        id: Option<NodeId>,
        /// Parent, or `None` for a root. A parent despawned in the meantime drops the spawn.
        parent: Option<NodeId>,
        /// Name of the new node.
        name: String,
        /// Its local transform.
        transform: Transform,
        /// Runs on the new node right after it is created.
        init: Option<SpawnInit>,
    },
    /// Remove a node and its subtree when the step is over.
    Despawn(NodeId),
    /// Give a node a component (replacing the one it has).
    Insert(NodeId, AnyComponent),
    /// Take a component of one type away from a node (the function knows the type).
    Remove(NodeId, fn(&mut Scene, NodeId) -> bool),
    /// Move a node (and its subtree) under another, or to the root.
    Reparent {
        /// The node.
        node: NodeId,
        /// Its new parent, `None` for the root level.
        parent: Option<NodeId>,
        /// What stays put: the world transform or the local one.
        keep: Keep,
    },
}

fn remove_component<C: Component>(scene: &mut Scene, node: NodeId) -> bool {
    scene.remove::<C>(node).is_some()
}

/// Structural changes queued during a step, applied after it.
#[derive(Default)]
pub struct Commands {
    queue: Vec<Command>,
    /// Bodies' pushes, for the physics (`physics/push.rs`).
    pushes: Vec<(NodeId, Push)>,
}

/// What applying a command buffer did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AppliedCommands {
    /// Nodes created.
    pub spawned: usize,
    /// Nodes removed (subtrees counted whole).
    pub despawned: usize,
    /// Components inserted and removed, nodes reparented.
    pub changed: usize,
    /// Commands whose node (or parent) had died before they ran (or whose
    /// reparent would have made a cycle).
    pub skipped: usize,
}

impl Commands {
    /// Queues a new node.
    pub fn spawn(&mut self, parent: Option<NodeId>, name: impl Into<String>, transform: Transform) {
        self.queue.push(Command::Spawn {
            id: None,
            parent,
            name: name.into(),
            transform,
            init: None,
        });
    }

    /// Queues a new node and returns its handle now: other commands and
    /// components may name it at once; the node exists once the step's
    /// commands are applied (until then `scene.contains` says no). A spawn
    /// that cannot happen (its parent gone) releases the handle.
    pub fn spawn_reserved(
        &mut self,
        scene: &mut Scene,
        parent: Option<NodeId>,
        name: impl Into<String>,
        transform: Transform,
    ) -> NodeId {
        self.reserve_spawn(scene, parent, name.into(), transform, None)
    }

    /// As [`Commands::spawn_reserved`], with what to do to the node once it
    /// exists: give it the engine's own components (a `MeshRenderer`, a
    /// `Light`), which [`Commands::insert`] does not carry.
    ///
    /// ```
    /// use keel_engine::{Material, MeshRef, MeshRenderer, Primitive, Scene, Transform, World};
    ///
    /// let mut world = World::new(Scene::new());
    /// world.systems_mut().add("launch", |scene, commands, step| {
    ///     if step.index == 0 {
    ///         let mesh = MeshRenderer::new(MeshRef::Primitive(Primitive::Cube), Material::default());
    ///         commands.spawn_reserved_with(scene, None, "crate", Transform::IDENTITY, move |scene, id| {
    ///             let _ = scene.insert(id, mesh);
    ///         });
    ///     }
    /// })?;
    /// world.step();
    /// let node = world.scene().find("crate").unwrap();
    /// assert!(world.scene().get::<MeshRenderer>(node).is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn spawn_reserved_with(
        &mut self,
        scene: &mut Scene,
        parent: Option<NodeId>,
        name: impl Into<String>,
        transform: Transform,
        init: impl FnOnce(&mut Scene, NodeId) + Send + 'static,
    ) -> NodeId {
        let init: SpawnInit = Box::new(init);
        self.reserve_spawn(scene, parent, name.into(), transform, Some(init))
    }

    /// Reserves the node's handle and queues its spawn.
    fn reserve_spawn(
        &mut self,
        scene: &mut Scene,
        parent: Option<NodeId>,
        name: String,
        transform: Transform,
        init: Option<SpawnInit>,
    ) -> NodeId {
        let id = scene.reserve();
        self.queue.push(Command::Spawn {
            id: Some(id),
            parent,
            name,
            transform,
            init,
        });
        id
    }

    /// Queues giving `node` the component `value` (replacing its own).
    pub fn insert<C: Component>(&mut self, node: NodeId, value: C) {
        self.queue
            .push(Command::Insert(node, AnyComponent::new(value)));
    }

    /// Queues taking `node`'s `C` away.
    pub fn remove<C: Component>(&mut self, node: NodeId) {
        self.queue
            .push(Command::Remove(node, remove_component::<C>));
    }

    /// Queues moving `node` (and its subtree) under `parent` (the root level
    /// for `None`) as its last child, keeping its world or its local transform.
    pub fn reparent(&mut self, node: NodeId, parent: Option<NodeId>, keep: Keep) {
        self.queue.push(Command::Reparent { node, parent, keep });
    }

    /// Queues a new node and what to do to it once it exists.
    pub fn spawn_with(
        &mut self,
        parent: Option<NodeId>,
        name: impl Into<String>,
        transform: Transform,
        init: impl FnOnce(&mut Scene, NodeId) + Send + 'static,
    ) {
        self.queue.push(Command::Spawn {
            id: None,
            parent,
            name: name.into(),
            transform,
            init: Some(Box::new(init)),
        });
    }

    /// Queues the removal of a node and its subtree.
    pub fn despawn(&mut self, node: NodeId) {
        self.queue.push(Command::Despawn(node));
    }

    /// Pushes for `node`'s body (forces, impulses, velocities), applied
    /// in the order queued just before the physics steps (`physics/push.rs`).
    ///
    /// ```
    /// # use keel_engine::{Commands, NodeId};
    /// # fn kick(commands: &mut Commands, ball: NodeId) {
    /// commands.body(ball).impulse(glam::Vec3::Y * 4.0).torque(glam::Vec3::X);
    /// # }
    /// ```
    pub fn body(&mut self, node: NodeId) -> BodyCommands<'_> {
        BodyCommands {
            node,
            pushes: &mut self.pushes,
        }
    }

    /// The step's pushes, in the order queued (the world hands them to the
    /// physics).
    pub(crate) fn take_pushes(&mut self) -> std::vec::Drain<'_, (NodeId, Push)> {
        self.pushes.drain(..)
    }

    /// Number of queued commands (pushes not counted).
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Applies the queue in order and empties it. Commands on nodes that died in
    /// the meantime are skipped and counted, not errors.
    pub fn apply(&mut self, scene: &mut Scene) -> AppliedCommands {
        let mut applied = AppliedCommands::default();
        for command in self.queue.drain(..) {
            match command {
                Command::Spawn {
                    id,
                    parent,
                    name,
                    transform,
                    init,
                } => match match id {
                    Some(id) => scene.spawn_reserved(id, parent, name, transform),
                    None => scene.spawn(parent, name, transform),
                } {
                    Ok(id) => {
                        applied.spawned += 1;
                        if let Some(init) = init {
                            init(scene, id);
                        }
                    }
                    Err(_) => applied.skipped += 1,
                },
                Command::Despawn(node) => match scene.despawn(node) {
                    Ok(count) => applied.despawned += count,
                    Err(_) => applied.skipped += 1,
                },
                Command::Insert(node, value) => {
                    if scene.contains(node) {
                        scene.components_mut().registered.insert_any(node, value);
                        applied.changed += 1;
                    } else {
                        applied.skipped += 1;
                    }
                }
                Command::Remove(node, remove) => {
                    if scene.contains(node) {
                        remove(scene, node);
                        applied.changed += 1;
                    } else {
                        applied.skipped += 1;
                    }
                }
                Command::Reparent { node, parent, keep } => {
                    match scene.reparent(node, parent, keep) {
                        Ok(()) => applied.changed += 1,
                        Err(_) => applied.skipped += 1,
                    }
                }
            }
        }
        applied
    }
}

/// Pushes for one body ([`Commands::body`]), each queued as called.
pub struct BodyCommands<'a> {
    node: NodeId,
    pushes: &'a mut Vec<(NodeId, Push)>,
}

impl BodyCommands<'_> {
    /// Queues `push`.
    pub fn push(&mut self, push: Push) -> &mut Self {
        self.pushes.push((self.node, push));
        self
    }

    /// A force through the centre of mass for this step, newtons.
    pub fn force(&mut self, force: Vec3) -> &mut Self {
        self.push(Push::Force(force))
    }

    /// A force at a world point for this step.
    pub fn force_at(&mut self, force: Vec3, point: Vec3) -> &mut Self {
        self.push(Push::ForceAt { force, point })
    }

    /// A torque for this step, newton metres.
    pub fn torque(&mut self, torque: Vec3) -> &mut Self {
        self.push(Push::Torque(torque))
    }

    /// A blow through the centre of mass, newton seconds.
    pub fn impulse(&mut self, impulse: Vec3) -> &mut Self {
        self.push(Push::Impulse(impulse))
    }

    /// A blow at a world point.
    pub fn impulse_at(&mut self, impulse: Vec3, point: Vec3) -> &mut Self {
        self.push(Push::ImpulseAt { impulse, point })
    }

    /// A twisting blow.
    pub fn torque_impulse(&mut self, impulse: Vec3) -> &mut Self {
        self.push(Push::TorqueImpulse(impulse))
    }

    /// Sets its velocity, metres a second.
    pub fn velocity(&mut self, velocity: Vec3) -> &mut Self {
        self.push(Push::Velocity(velocity))
    }

    /// Sets its spin, radians a second.
    pub fn angular_velocity(&mut self, spin: Vec3) -> &mut Self {
        self.push(Push::AngularVelocity(spin))
    }

    /// Wakes it if it sleeps.
    pub fn wake(&mut self) -> &mut Self {
        self.push(Push::Wake)
    }
}
