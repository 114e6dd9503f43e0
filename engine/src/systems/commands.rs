//! The command buffer: structural changes (spawns, despawns) a system queues
//! during a step, applied once every system has run, so no node is skipped
//! or updated twice in the step where the hierarchy changes under it.

use crate::scene::{NodeId, Scene, Transform};

/// Initialises a node spawned through [`Commands`] (add components, say).
pub type SpawnInit = Box<dyn FnOnce(&mut Scene, NodeId) + Send>;

/// A structural change queued during a step.
pub enum Command {
    /// Create a node when the step is over.
    Spawn {
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
}

/// Structural changes queued during a step, applied after it.
#[derive(Default)]
pub struct Commands {
    queue: Vec<Command>,
}

/// What applying a command buffer did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// Nodes created.
    pub spawned: usize,
    /// Nodes removed (subtrees counted whole).
    pub despawned: usize,
    /// Commands whose node (or parent) had died before they ran.
    pub skipped: usize,
}

impl Commands {
    /// Queues a new node.
    pub fn spawn(&mut self, parent: Option<NodeId>, name: impl Into<String>, transform: Transform) {
        self.queue.push(Command::Spawn {
            parent,
            name: name.into(),
            transform,
            init: None,
        });
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

    /// Number of queued commands.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Applies the queue in order and empties it. Commands on nodes that died in
    /// the meantime are skipped and counted, not errors.
    pub fn apply(&mut self, scene: &mut Scene) -> Applied {
        let mut applied = Applied::default();
        for command in self.queue.drain(..) {
            match command {
                Command::Spawn {
                    parent,
                    name,
                    transform,
                    init,
                } => match scene.spawn(parent, name, transform) {
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
            }
        }
        applied
    }
}
