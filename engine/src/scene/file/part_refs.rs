//! A prefab part's record in its prefab's own terms, for the diff that
//! finds what an instance overrides.
//!
//! A prefab's records name their targets by place in the prefab's node list
//! (`Node(3)`); a live part holds handles. Compared or written as an
//! override, a part's references are first put in the prefab's form: a
//! reference to a part of the same instance becomes that part's place in
//! the prefab, any other its path, so an untouched reference is no override
//! and a changed one is written as a file may hold it (never a handle, which
//! would name whatever another run put in that slot). An override read back
//! is turned live the other way ([`Scene::resolve_part_refs`]).

use std::collections::HashMap;
use std::sync::Arc;

use super::prefab::{Prefab, PrefabInstance};
use crate::scene::node_ref::{RefsOut, visit_refs};
use crate::scene::{NodeId, NodeRecord, Scene};

impl Scene {
    /// The records of an instance's `parts` (by key), their references in
    /// `prefab`'s form (see the module's docs).
    pub(super) fn part_records(
        &self,
        prefab: &Prefab,
        parts: &HashMap<Arc<str>, NodeId>,
    ) -> HashMap<Arc<str>, NodeRecord> {
        let places = prefab_places(prefab);
        let written: HashMap<NodeId, u32> = parts
            .iter()
            .filter_map(|(key, &id)| Some((id, *places.get(&**key)?)))
            .collect();
        let refs = RefsOut {
            scene: self,
            written: &written,
        };
        parts
            .iter()
            .map(|(key, &id)| {
                // Compared with the prefab's nodes, whose paths are absolute.
                let mut record = self.record_of(id, None);
                let holder = record.name.clone();
                for value in &mut record.components {
                    let component = value.name();
                    visit_refs(value.reflect_mut().as_partial_reflect_mut(), &mut |r| {
                        refs.write(r, &holder, component);
                    });
                }
                (Arc::clone(key), record)
            })
            .collect()
    }

    /// The instance `part` belongs to (its nearest ancestor that is one).
    fn prefab_instance_of(&self, part: NodeId) -> Option<NodeId> {
        self.components.prefab_part.get(part)?;
        std::iter::successors(self.parent(part), |&p| self.parent(p))
            .find(|&p| self.components.prefab.get(p).is_some())
    }

    /// The parts of `instance` by key (those whose nearest instance it is).
    fn parts_of(&self, instance: NodeId) -> HashMap<Arc<str>, NodeId> {
        self.subtree(instance)
            .filter_map(|id| {
                let part = self.components.prefab_part.get(id)?;
                (self.prefab_instance_of(id) == Some(instance)).then(|| (Arc::clone(&part.key), id))
            })
            .collect()
    }

    /// The record of the prefab part `part` as its prefab's own record is
    /// written (references to the instance's parts by their place in the
    /// prefab, others by path): what overrides are the difference from.
    /// `None` when `part` is no part of an instance.
    pub fn part_record(&self, part: NodeId) -> Option<NodeRecord> {
        let instance = self.prefab_instance_of(part)?;
        let prefab: &PrefabInstance = self.components.prefab.get(instance)?;
        let key = Arc::clone(&self.components.prefab_part.get(part)?.key);
        let parts = self.parts_of(instance);
        self.part_records(&prefab.prefab, &parts).remove(&key)
    }

    /// Points the references of `record` (a record of the part `part` in its
    /// prefab's form, a reverted override's) at live nodes: a place in the
    /// prefab at the instance's part with that key, a path at its node. A
    /// target the instance no longer has becomes no target.
    pub fn resolve_part_refs(&self, part: NodeId, record: &mut NodeRecord) {
        let Some(instance) = self.prefab_instance_of(part) else {
            return;
        };
        let Some(prefab) = self.components.prefab.get(instance) else {
            return;
        };
        let parts = self.parts_of(instance);
        let nodes = &prefab.prefab.nodes;
        self.resolve_written_refs(record, &|i| {
            let key = nodes.get(i as usize)?.part.as_deref()?;
            parts.get(key).copied()
        });
    }
}

/// Each key's place in the prefab's node list.
fn prefab_places(prefab: &Prefab) -> HashMap<&str, u32> {
    prefab
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| Some((n.part.as_deref()?, u32::try_from(i).ok()?)))
        .collect()
}
