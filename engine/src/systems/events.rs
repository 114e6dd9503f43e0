//! Events: messages a system sends in one fixed step and every reader reads
//! in the next (double buffer pattern: the step's buffer becomes the read
//! one when the next step starts). They are a resource of the scene, so
//! keyframes, seek, replay and Reset carry them with everything else, and
//! their buffers are reused: a steady step allocates nothing.
//!
//! Only [`crate::World::add_event`] gives a world events: it puts the
//! resource in and registers the swap. An `Events<E>` put in as a plain
//! resource would never swap, its events piling up unread, so a world
//! refuses one by name ([`crate::World::insert_resource`] at once, a step
//! that finds one in the scene by stopping). Sending or reading events of a
//! type never added panics naming the type ([`Scene::send_event`],
//! [`Scene::events`]), which a system's panic reports.

use std::any::TypeId;

use crate::scene::{Resource, Scene};

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
///         scene.send_event(Splash { depth: 2.0 });
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

/// Whether `type_name` (a resource's, from `std::any::type_name`) is that of
/// an [`Events`] type.
pub(crate) fn is_events(type_name: &str) -> bool {
    let own = std::any::type_name::<Events<()>>();
    let prefix = &own[..own.len() - "()>".len()];
    type_name.starts_with(prefix)
}

/// Why an `Events<_>` resource cannot work: its step swap is not
/// registered. `resource` is its type name.
pub(crate) fn unswapped(resource: &str) -> String {
    let event = resource
        .find('<')
        .map_or(resource, |at| &resource[at + 1..resource.len() - 1]);
    format!(
        "resource `{resource}` was put in with insert_resource: nothing swaps its buffers, \
         so its events would pile up unread; give the world events with \
         `World::add_event::<{event}>()`"
    )
}

/// The `TypeId` the step swap of `E`'s events is registered under: the
/// resource's own, so a step can tell an `Events<_>` resource that has none.
pub(crate) fn swap_key<E: Resource>() -> TypeId {
    TypeId::of::<Events<E>>()
}

/// The panic of a send or read of events no one added.
fn not_added<E>() -> ! {
    let event = std::any::type_name::<E>();
    panic!(
        "events of type `{event}` were never added to this world: call \
         `World::add_event::<{event}>()` before a system sends or reads them"
    )
}

impl Scene {
    /// Sends `event`: systems read it in the next step.
    ///
    /// # Panics
    /// When the world has no events of type `E` ([`crate::World::add_event`]
    /// was never called for it); the message names the type. In a system,
    /// the panic stops the world and is reported with the system's name.
    pub fn send_event<E: Resource>(&mut self, event: E) {
        match self.resource_mut::<Events<E>>() {
            Some(events) => events.send(event),
            None => not_added::<E>(),
        }
    }

    /// The events of type `E` (what the last step sent: [`Events::read`]).
    ///
    /// # Panics
    /// As [`Scene::send_event`], when the world has no events of type `E`.
    pub fn events<E: Resource>(&self) -> &Events<E> {
        self.resource::<Events<E>>()
            .unwrap_or_else(|| not_added::<E>())
    }
}

#[cfg(test)]
mod tests {
    use super::{Events, is_events, unswapped};

    #[test]
    fn an_events_type_is_known_by_its_name() {
        assert!(is_events(std::any::type_name::<Events<u32>>()));
        assert!(is_events(std::any::type_name::<Events<Vec<String>>>()));
        assert!(!is_events(std::any::type_name::<Vec<Events<u32>>>()));
        assert!(!is_events(std::any::type_name::<u32>()));
        let message = unswapped(std::any::type_name::<Events<u32>>());
        assert!(message.contains("add_event::<u32>()"), "{message}");
    }
}
