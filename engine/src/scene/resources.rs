//! Typed resources: simulated state that belongs to no node (a score, a
//! wave counter, a random generator), one value per type.
//!
//! They live in the scene beside its nodes, so everything that captures a
//! scene captures them: keyframes (seek, scrub, branches), the play snapshot
//! the editor restores, and the state hash a replay compares.

use std::any::{Any, TypeId};
use std::fmt;

/// A type that can be a resource: cloned into keyframes and hashed through
/// its `Debug` form (print every float exactly, as derived `Debug` does).
///
/// The hash reads that form canonically: the entries of every map and set
/// are sorted, so a `HashMap` or `HashSet` hashes the same in every run
/// whatever order its random state gives it. What a system *does* in that
/// order is another matter: a system that iterates a `HashMap` to spawn,
/// move or count does different things in two runs, and replay finds it;
/// keep state that is iterated in a `BTreeMap`, a `Vec` or an ordered map.
/// A hand-written `Debug` must print only the value (no addresses, no
/// clock readings) and an unordered collection through `debug_map` or
/// `debug_set`.
///
/// A step with user systems that writes a resource first copies every
/// resource aside (its undo, should a system panic) with `clone_from`,
/// into the copy the last step made: a resource holding a `Vec` or a map
/// allocates nothing there once warm if its `clone_from` reuses them (as
/// `Vec`'s does; a derived `Clone` clones anew: write `clone_from` by hand
/// where that matters, as [`crate::Events`] does).
pub trait Resource: Clone + fmt::Debug + Send + Sync + 'static {}

impl<T: Clone + fmt::Debug + Send + Sync + 'static> Resource for T {}

trait AnyResource: Send + Sync {
    fn clone_boxed(&self) -> Box<dyn AnyResource>;
    /// Makes `target` a copy of this (in place when it is of this type).
    fn clone_into_boxed(&self, target: &mut Box<dyn AnyResource>);
    fn debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<R: Resource> AnyResource for R {
    fn clone_boxed(&self) -> Box<dyn AnyResource> {
        Box::new(self.clone())
    }
    fn clone_into_boxed(&self, target: &mut Box<dyn AnyResource>) {
        match target.as_any_mut().downcast_mut::<R>() {
            Some(same) => same.clone_from(self),
            None => *target = self.clone_boxed(),
        }
    }
    fn debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

struct Entry {
    type_id: TypeId,
    type_name: &'static str,
    value: Box<dyn AnyResource>,
}

/// One value per resource type, kept in type-name order (hashes walk them
/// in that order whatever order they were inserted in).
#[derive(Default)]
pub struct Resources {
    entries: Vec<Entry>,
}

impl Resources {
    fn position(&self, type_id: TypeId) -> Option<usize> {
        self.entries.iter().position(|e| e.type_id == type_id)
    }

    /// Puts `value` in, returning the one it replaces.
    pub fn insert<R: Resource>(&mut self, value: R) -> Option<R> {
        if let Some(at) = self.position(TypeId::of::<R>()) {
            let slot = self.entries[at].value.as_any_mut().downcast_mut::<R>()?;
            return Some(std::mem::replace(slot, value));
        }
        let type_name = std::any::type_name::<R>();
        let at = self.entries.partition_point(|e| e.type_name < type_name);
        self.entries.insert(
            at,
            Entry {
                type_id: TypeId::of::<R>(),
                type_name,
                value: Box::new(value),
            },
        );
        None
    }

    /// The resource of type `R`.
    pub fn get<R: Resource>(&self) -> Option<&R> {
        let at = self.position(TypeId::of::<R>())?;
        self.entries[at].value.as_any().downcast_ref()
    }

    /// The resource of type `R`, mutably.
    pub fn get_mut<R: Resource>(&mut self) -> Option<&mut R> {
        let at = self.position(TypeId::of::<R>())?;
        self.entries[at].value.as_any_mut().downcast_mut()
    }

    /// Takes the resource of type `R` out.
    pub fn remove<R: Resource>(&mut self) -> Option<R> {
        let at = self.position(TypeId::of::<R>())?;
        let entry = self.entries.remove(at);
        entry.value.as_any().downcast_ref::<R>().cloned()
    }

    /// Makes `out` a copy of these, reusing what it holds of the same
    /// types in the same order (a step's undo: warm, it allocates nothing).
    pub(crate) fn copy_into(&self, out: &mut Resources) {
        let same = out.entries.len() == self.entries.len()
            && out
                .entries
                .iter()
                .zip(&self.entries)
                .all(|(o, e)| o.type_id == e.type_id);
        if !same {
            *out = self.clone();
            return;
        }
        for (o, e) in out.entries.iter_mut().zip(&self.entries) {
            e.value.clone_into_boxed(&mut o.value);
        }
    }

    /// Number of resources.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Each resource's `TypeId` and type name, in type-name order.
    pub(crate) fn types(&self) -> impl Iterator<Item = (TypeId, &'static str)> + '_ {
        self.entries.iter().map(|e| (e.type_id, e.type_name))
    }

    /// Type names and values, as text whose floats read back exactly (what
    /// state hashes are taken of).
    pub(crate) fn write_state(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        for entry in &self.entries {
            write!(out, "{}={:?};", entry.type_name, self.debug_of(entry))?;
        }
        Ok(())
    }

    fn debug_of<'a>(&self, entry: &'a Entry) -> impl fmt::Debug + 'a {
        struct Shown<'a>(&'a dyn AnyResource);
        impl fmt::Debug for Shown<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.debug(f)
            }
        }
        Shown(entry.value.as_ref())
    }
}

impl Clone for Resources {
    fn clone(&self) -> Self {
        Self {
            entries: self
                .entries
                .iter()
                .map(|e| Entry {
                    type_id: e.type_id,
                    type_name: e.type_name,
                    value: e.value.clone_boxed(),
                })
                .collect(),
        }
    }
}

impl fmt::Debug for Resources {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut map = f.debug_map();
        for entry in &self.entries {
            map.entry(&entry.type_name, &self.debug_of(entry));
        }
        map.finish()
    }
}

impl super::Scene {
    /// Puts a resource in (or replaces it), returning the old value. An
    /// [`crate::Events`] resource belongs here only once
    /// [`crate::World::add_event`] registered its swap: a step that finds
    /// one without stops the world, naming it.
    pub fn insert_resource<R: Resource>(&mut self, value: R) -> Option<R> {
        self.save_resources();
        self.resources.insert(value)
    }

    /// The resource of type `R`.
    pub fn resource<R: Resource>(&self) -> Option<&R> {
        self.resources.get()
    }

    /// The resource of type `R`, mutably.
    pub fn resource_mut<R: Resource>(&mut self) -> Option<&mut R> {
        self.save_resources();
        self.resources.get_mut()
    }

    /// Every resource.
    pub fn resources(&self) -> &Resources {
        &self.resources
    }

    /// Replaces every resource (a snapshot's put back), returning the old ones.
    pub fn replace_resources(&mut self, resources: Resources) -> Resources {
        self.save_resources();
        std::mem::replace(&mut self.resources, resources)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, PartialEq)]
    struct Score(u32);

    #[derive(Clone, Debug, PartialEq)]
    struct Wave(f32);

    #[test]
    fn one_value_per_type_and_a_stable_order() {
        let mut a = Resources::default();
        assert_eq!(a.insert(Score(1)), None);
        a.insert(Wave(0.5));
        assert_eq!(a.insert(Score(2)), Some(Score(1)));
        a.get_mut::<Score>().unwrap().0 += 1;
        assert_eq!(a.get::<Score>(), Some(&Score(3)));
        let mut b = Resources::default();
        b.insert(Wave(0.5));
        b.insert(Score(3));
        let (mut sa, mut sb) = (String::new(), String::new());
        a.write_state(&mut sa).unwrap();
        b.write_state(&mut sb).unwrap();
        assert_eq!(sa, sb, "insertion order does not change the state");
        let copy = a.clone();
        a.get_mut::<Wave>().unwrap().0 = 2.0;
        assert_eq!(copy.get::<Wave>(), Some(&Wave(0.5)), "a copy is apart");
        assert_eq!(a.remove::<Score>(), Some(Score(3)));
        assert_eq!(a.get::<Score>(), None);
    }
}
