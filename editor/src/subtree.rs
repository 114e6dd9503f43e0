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

use std::path::Path;

use keel_engine::scene::{NodeFieldError, NodeRecord, PrefabInstance, PrefabPart, load_prefab};
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
    let nodes: Vec<NodeId> = scene
        .subtree(root)
        .filter(|&n| n == root || !scene.is_model_part(n))
        .collect();
    if nodes.is_empty() {
        return None;
    }
    let position: std::collections::HashMap<NodeId, usize> =
        nodes.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let mut records = Vec::with_capacity(nodes.len());
    for (i, &node) in nodes.iter().enumerate() {
        let mut record = record_of(scene, node)?;
        record.parent = if i == 0 {
            None
        } else {
            // The nearest ancestor that is in the list (parts are not).
            std::iter::successors(scene.parent(node), |&p| scene.parent(p))
                .find_map(|p| position.get(&p).copied())
        };
        records.push(record);
    }
    // References inside the subtree follow it to its copy; others stay.
    keel_engine::scene::index_refs(&mut records, &nodes);
    Some(records)
}

/// Spawns `records` (as made by [`extract`]) with the root at `at`.
///
/// Returns the new handles in record order. On error nothing stays behind.
///
/// # Errors
/// [`NodeError::StaleNode`](keel_engine::NodeError::StaleNode) if the parent is gone;
/// [`NodeError::InvalidTransform`](keel_engine::NodeError::InvalidTransform)
/// for a record with NaN values; [`SceneError::InvalidField`] for a record whose
/// parent index does not point at an earlier record.
pub fn spawn(
    scene: &mut Scene,
    records: &[NodeRecord],
    at: Placement,
) -> Result<Vec<NodeId>, SceneError> {
    let mut ids: Vec<NodeId> = Vec::with_capacity(records.len());
    let result = spawn_records(scene, records, at, &mut ids);
    if let Err(e) = result {
        if let Some(&root) = ids.first() {
            // The root was spawned by this call a moment ago, so it is alive.
            let _ = scene.despawn(root);
        }
        return Err(e);
    }
    // References by index in the list: to the nodes just spawned.
    scene.resolve_refs(&ids);
    Ok(ids)
}

fn spawn_records(
    scene: &mut Scene,
    records: &[NodeRecord],
    at: Placement,
    ids: &mut Vec<NodeId>,
) -> Result<(), SceneError> {
    for (i, record) in records.iter().enumerate() {
        let (parent, index) = match (i, record.parent) {
            (0, _) => (at.parent, at.index),
            (_, Some(p)) if p < i => (Some(ids[p]), usize::MAX),
            (_, p) => {
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
