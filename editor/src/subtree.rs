//! Detached copies of subtrees, and putting them back: the state that delete
//! and duplicate commands (command pattern) keep so they can be reversed.
//!
//! Delete and duplicate (and their undo) need a subtree as plain data: the
//! same [`NodeRecord`]s a scene file holds, in pre-order, with parent indices
//! relative to the subtree (the root's parent is `None`). Re-spawning such a
//! list creates new nodes with new handles; callers that keep handles (the
//! undo stack, the selection) remap old to new with the ids returned here.
//!
//! A subtree is put back at its old sibling position with the engine's
//! `spawn_at` (and moved there with `reparent_at`): the later siblings stay
//! where they are.

use std::collections::HashMap;
use std::path::Path;

use keel_engine::scene::{
    NodeFieldError, NodeRecord, PrefabInstance, PrefabPart, load_prefab, visit_refs,
};
use keel_engine::{NodeId, Scene, SceneError};

use crate::component::ComponentValue;

/// Where a node sits: its parent (or the root level) and its position among its siblings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The parent, `None` for a root.
    pub parent: Option<NodeId>,
    /// Position among the parent's children (or among the roots).
    pub index: usize,
}

impl Placement {
    /// Where `node` is now; `None` for a stale handle.
    pub fn of(scene: &Scene, node: NodeId) -> Option<Placement> {
        if !scene.contains(node) {
            return None;
        }
        Some(Placement {
            parent: scene.parent(node),
            index: scene.sibling_index(node)?,
        })
    }
}

/// How many children `parent` has, or how many roots for `None`.
pub fn sibling_count(scene: &Scene, parent: Option<NodeId>) -> usize {
    match parent {
        Some(p) => scene.child_count(p),
        None => scene.roots().len(),
    }
}

/// The record of one node: name, local transform, components, model and
/// prefab references (absolute paths), its key when it is a prefab's part;
/// no parent.
pub fn record_of(scene: &Scene, node: NodeId) -> Option<NodeRecord> {
    if !scene.contains(node) {
        return None;
    }
    let mut record = scene.record_of(node, None);
    record.prefab = scene
        .get::<PrefabInstance>(node)
        .map(|p| p.source.to_string_lossy().into_owned());
    record.part = scene.get::<PrefabPart>(node).map(|p| p.key.to_string());
    Some(record)
}

/// The subtree of `root` as records in pre-order, parents relative to the list.
/// Nodes spawned from a model are left out: the instance's model reference
/// brings them back when the records are spawned.
///
/// Returns `None` for a stale handle.
pub fn extract(scene: &Scene, root: NodeId) -> Option<Vec<NodeRecord>> {
    extract_all(scene, &[root])
}

/// The subtrees of `roots` (none inside another) as one record list, each
/// root followed by its subtree in pre-order, parents relative to the list
/// (a root's is `None`), as a scene file holds several roots. References
/// between any of the subtrees name their target by its place in the list,
/// so spawned again they name the copies; others keep their target.
///
/// Returns `None` for a stale handle.
pub fn extract_all(scene: &Scene, roots: &[NodeId]) -> Option<Vec<NodeRecord>> {
    let mut nodes: Vec<NodeId> = Vec::new();
    for &root in roots {
        if !scene.contains(root) {
            return None;
        }
        nodes.extend(
            scene
                .subtree(root)
                .filter(|&n| n == root || !scene.is_model_part(n)),
        );
    }
    if nodes.is_empty() {
        return None;
    }
    let position: HashMap<NodeId, usize> = nodes.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let root_set: std::collections::HashSet<NodeId> = roots.iter().copied().collect();
    let mut records = Vec::with_capacity(nodes.len());
    for &node in &nodes {
        let mut record = record_of(scene, node)?;
        record.parent = if root_set.contains(&node) {
            None
        } else {
            // The nearest ancestor that is in the list (parts are not).
            std::iter::successors(scene.parent(node), |&p| scene.parent(p))
                .find_map(|p| position.get(&p).copied())
        };
        records.push(record);
    }
    // References inside the copied subtrees follow them to their copies; others stay.
    keel_engine::scene::index_refs(&mut records, &nodes);
    Some(records)
}

/// Spawns `records` (as made by [`extract`]) with the root at `at`.
///
/// Returns the new handles in record order. On error nothing stays behind.
///
/// # Errors
/// As [`spawn_roots`].
pub fn spawn(
    scene: &mut Scene,
    records: &[NodeRecord],
    at: Placement,
) -> Result<Vec<NodeId>, SceneError> {
    spawn_roots(scene, records, &[at])
}

/// Spawns `records` (as made by [`extract_all`], or a scene file's nodes)
/// with the `k`-th root at `places[k]`, placed when it is spawned (after
/// the roots before it), and points their references by place in the list
/// at the new nodes: one spawn for a copy of several roots, so references
/// between them name the copies.
///
/// Returns the new handles in record order. On error nothing stays behind.
///
/// # Errors
/// [`NodeError::StaleNode`](keel_engine::NodeError::StaleNode) if a parent is gone;
/// [`NodeError::InvalidTransform`](keel_engine::NodeError::InvalidTransform)
/// for a record with NaN values; [`SceneError::InvalidField`] for a record whose
/// parent index does not point at an earlier record, or a root past `places`.
pub fn spawn_roots(
    scene: &mut Scene,
    records: &[NodeRecord],
    places: &[Placement],
) -> Result<Vec<NodeId>, SceneError> {
    let mut ids: Vec<NodeId> = Vec::with_capacity(records.len());
    let result = spawn_records(scene, records, places, &mut ids);
    if let Err(e) = result {
        for (record, &id) in records.iter().zip(&ids).rev() {
            if record.parent.is_none() || id == ids[0] {
                // Spawned by this call a moment ago, and no other root holds it.
                let _ = scene.despawn(id);
            }
        }
        return Err(e);
    }
    // References by index in the list: to the nodes just spawned.
    scene.resolve_refs(&ids);
    Ok(ids)
}

/// `records` (spawned as `ids` by [`spawn_roots`]) cut into one list per
/// root, as undo keeps them: parents and references by place relative to
/// the root's own list, and a reference to another root's node by the
/// handle of the node spawned for it (undo's remap keeps it current).
/// Returns each list with its handles.
pub fn split(records: &[NodeRecord], ids: &[NodeId]) -> Vec<(Vec<NodeRecord>, Vec<NodeId>)> {
    let mut lists: Vec<(Vec<NodeRecord>, Vec<NodeId>)> = Vec::new();
    // For each record: its list, and its position there.
    let mut place: Vec<(usize, usize)> = Vec::with_capacity(records.len());
    for (i, (record, &id)) in records.iter().zip(ids).enumerate() {
        let mut record = record.clone();
        let (list, parent) = match record.parent.filter(|&p| p < i).and_then(|p| place.get(p)) {
            Some(&(list, position)) => (list, Some(position)),
            None => {
                lists.push((Vec::new(), Vec::new()));
                (lists.len() - 1, None)
            }
        };
        record.parent = parent;
        place.push((list, lists[list].0.len()));
        lists[list].0.push(record);
        lists[list].1.push(id);
    }
    for (list, (records, _)) in lists.iter_mut().enumerate() {
        for record in records.iter_mut() {
            for value in &mut record.components {
                visit_refs(value.reflect_mut().as_partial_reflect_mut(), &mut |r| {
                    let Some(i) = r.written_index().map(|i| i as usize) else {
                        return;
                    };
                    match place.get(i) {
                        Some(&(l, at)) if l == list => r.set_index(Some(at as u32)),
                        Some(_) => r.set(ids.get(i).copied()),
                        // Past the list: the spawn warned and named no node.
                        None => r.set_index(None),
                    }
                });
            }
        }
    }
    lists
}

/// Points every reference `records` hold by handle to a node `map` names at
/// the node it maps to (nodes an undo or redo spawned again).
pub fn remap_records(records: &mut [NodeRecord], map: &HashMap<NodeId, NodeId>) {
    for record in records {
        for value in &mut record.components {
            visit_refs(value.reflect_mut().as_partial_reflect_mut(), &mut |r| {
                if let Some(&to) = r.id().and_then(|id| map.get(&id)) {
                    r.set(Some(to));
                }
            });
        }
    }
}

fn spawn_records(
    scene: &mut Scene,
    records: &[NodeRecord],
    places: &[Placement],
    ids: &mut Vec<NodeId>,
) -> Result<(), SceneError> {
    let mut roots = 0;
    for (i, record) in records.iter().enumerate() {
        let root = match (i, record.parent) {
            (0, _) | (_, None) => places.get(roots).copied(),
            _ => None,
        };
        let (parent, index) = match (root, record.parent) {
            (Some(at), _) => {
                roots += 1;
                (at.parent, at.index)
            }
            (None, Some(p)) if p < i => (Some(ids[p]), usize::MAX),
            (None, p) => {
                return Err(SceneError::InvalidField(Box::new(NodeFieldError {
                    path: "<subtree>".into(),
                    line: 0,
                    column: 0,
                    index: i as u32,
                    node: record.name.clone(),
                    field: "parent".into(),
                    expected: "the index of an earlier node".into(),
                    found: format!("{p:?}"),
                })));
            }
        };
        let id = scene.spawn_at(parent, index, record.name.clone(), record.transform)?;
        ids.push(id);
        for value in ComponentValue::from_record(record) {
            value.insert(scene, id)?;
        }
        // Components this build has no type for go back as they were written.
        if !record.unknown.0.is_empty() {
            scene.insert(id, record.unknown.clone())?;
        }
        if let Some(model) = &record.model {
            let model = scene.assets().load_model(Path::new(model))?;
            scene.instantiate_model(id, &model)?;
        }
        // The parts are records of their own: link, do not expand again.
        if let Some(source) = &record.prefab {
            let prefab = load_prefab(Path::new(source), scene.assets())?;
            let instance =
                PrefabInstance::new(source.into(), prefab, &record.overrides, &record.removed);
            scene.insert(id, instance)?;
        }
        if let Some(key) = &record.part {
            let key = key.as_str().into();
            scene.insert(id, PrefabPart { key })?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::ComponentKind;
    use glam::Vec3;
    use keel_engine::{Spin, Transform};

    fn tree() -> (Scene, Vec<NodeId>) {
        let mut s = Scene::new();
        let a = s.spawn(None, "a", Transform::IDENTITY).unwrap();
        let b = s
            .spawn(Some(a), "b", Transform::from_translation(Vec3::X))
            .unwrap();
        let c = s.spawn(Some(b), "c", Transform::IDENTITY).unwrap();
        let d = s.spawn(Some(a), "d", Transform::IDENTITY).unwrap();
        let e = s.spawn(None, "e", Transform::IDENTITY).unwrap();
        s.insert(
            c,
            Spin {
                axis: Vec3::Z,
                rate: 2.0,
            },
        )
        .unwrap();
        (s, vec![a, b, c, d, e])
    }

    #[test]
    fn extract_then_respawn_in_place_restores_the_file() {
        let (mut s, ids) = tree();
        let before = s.to_file();
        let b = ids[1];
        let at = Placement::of(&s, b).unwrap();
        assert_eq!(
            at,
            Placement {
                parent: Some(ids[0]),
                index: 0
            }
        );
        let records = extract(&s, b).unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(records[1].parent, Some(0));
        assert!(
            records[1].component::<Spin>().is_some(),
            "components are copied"
        );
        s.despawn(b).unwrap();
        assert_ne!(s.to_file(), before);
        let new = spawn(&mut s, &records, at).unwrap();
        assert_eq!(new.len(), 2);
        assert_eq!(s.to_file(), before, "same names, order, components");
        assert!(ComponentKind::Registered("spin").get(&s, new[1]).is_some());
    }

    #[test]
    fn a_bad_record_list_leaves_nothing_behind() {
        let (mut s, _) = tree();
        let before = s.to_file();
        let mut records = vec![NodeRecord::new("x"), NodeRecord::new("y")];
        records[1].parent = Some(5);
        let err = spawn(
            &mut s,
            &records,
            Placement {
                parent: None,
                index: 0,
            },
        );
        assert!(matches!(err, Err(SceneError::InvalidField(_))));
        assert_eq!(s.to_file(), before);
    }
}
