//! Events: messages a system sends in one fixed step and every reader reads
//! in the next (double buffer pattern: the step's buffer becomes the read
//! one when the next step starts). They are a resource of the scene, so
//! keyframes, seek, replay and Reset carry them with everything else, and
//! their buffers are reused: a steady step allocates nothing.

/// The events of type `E` a world carries (see [`crate::World::add_event`]).
///
/// ```
/// use keel_engine::{Events, Scene, World};
///
/// #[derive(Clone, Debug, PartialEq)]
/// struct Splash { depth: f32 }
///
/// let mut world = World::new(Scene::new());
/// world.add_event::<Splash>();
/// world.systems_mut().add("dive", |scene, _, step| {
///     if step.index == 0 {
///         scene.resource_mut::<Events<Splash>>().unwrap().send(Splash { depth: 2.0 });
///     }
/// })?;
/// world.step();
/// let events = world.resource::<Events<Splash>>().unwrap();
/// assert_eq!(events.read().count(), 0, "read in the step after the one that sent it");
/// world.step();
/// let events = world.resource::<Events<Splash>>().unwrap();
/// assert_eq!(events.read().collect::<Vec<_>>(), [&Splash { depth: 2.0 }]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Events<E> {
    /// Sent during the last step: what readers read.
    previous: Vec<E>,
    /// Sent during this step.
    current: Vec<E>,
}

impl<E: Clone> Clone for Events<E> {
    fn clone(&self) -> Self {
        Self {
            previous: self.previous.clone(),
            current: self.current.clone(),
        }
    }

    /// Into the buffers already there (a step's undo copies the events
    /// aside each step: warm, that allocates nothing).
    fn clone_from(&mut self, source: &Self) {
        self.previous.clone_from(&source.previous);
        self.current.clone_from(&source.current);
    }
}

impl<E> Default for Events<E> {
    fn default() -> Self {
        Self {
            previous: Vec::new(),
            current: Vec::new(),
        }
    }
}

impl<E> Events<E> {
    /// Sends `event`: readers read it in the next step.
    pub fn send(&mut self, event: E) {
        self.current.push(event);
    }

    /// The events sent during the last step, in the order sent.
    pub fn read(&self) -> std::slice::Iter<'_, E> {
        self.previous.iter()
    }

    /// The events sent so far in this step.
    pub fn sent(&self) -> &[E] {
        &self.current
    }

    /// Starts a step: this step's events become the read ones, the ones read
    /// are dropped (their buffer is kept for the new step's).
    pub fn update(&mut self) {
        std::mem::swap(&mut self.previous, &mut self.current);
        self.current.clear();
    }
}
