use glam::{Quat, Vec3};
use keel_engine::{MeshRenderer, Spin};

use super::*;
use crate::component::{ComponentKind, ComponentValue};

fn scene() -> (Scene, Vec<NodeId>) {
    let mut s = Scene::new();
    let ship = s.spawn(None, "ship", Transform::IDENTITY).unwrap();
    let mast = s
        .spawn(Some(ship), "mast", Transform::from_translation(Vec3::Y))
        .unwrap();
    let flag = s
        .spawn(
            Some(mast),
            "flag",
            Transform::from_translation(Vec3::Y * 3.0),
        )
        .unwrap();
    let hull = s.spawn(Some(ship), "hull", Transform::IDENTITY).unwrap();
    let sea = s.spawn(None, "sea", Transform::IDENTITY).unwrap();
    s.insert(
        flag,
        Spin {
            axis: Vec3::X,
            rate: 3.0,
        },
    )
    .unwrap();
    s.insert(
        hull,
        ComponentKind::Mesh
            .default_value(&Default::default())
            .unwrap()
            .into_mesh(),
    )
    .unwrap();
    s.propagate();
    (s, vec![ship, mast, flag, hull, sea])
}

trait IntoMesh {
    fn into_mesh(self) -> MeshRenderer;
}

impl IntoMesh for ComponentValue {
    fn into_mesh(self) -> MeshRenderer {
        match self {
            ComponentValue::Mesh(m) => m,
            other => panic!("not a mesh: {other:?}"),
        }
    }
}

fn push(stack: &mut UndoStack, scene: &mut Scene, mut edit: Edit, merge: Option<u64>) -> Remap {
    let mut remap = Remap::new();
    edit.apply(scene, true, &mut remap).unwrap();
    stack.push_applied(edit, "edit", merge);
    remap
}

fn moved(node: NodeId, before: Transform, x: f32) -> Edit {
    Edit::Transform {
        node,
        before,
        after: Transform::from_translation(Vec3::X * x),
    }
}

#[test]
fn transform_undo_and_redo_restore_exact_states() {
    let (mut s, ids) = scene();
    let mut stack = UndoStack::new();
    let start = s.to_file();
    let before = s.local(ids[1]).unwrap();
    push(&mut stack, &mut s, moved(ids[1], before, 5.0), None);
    let after = s.to_file();
    assert_ne!(start, after);
    stack.undo(&mut s).unwrap().expect("one entry");
    assert_eq!(s.to_file(), start);
    stack.redo(&mut s).unwrap().expect("one undone entry");
    assert_eq!(s.to_file(), after);
    assert!(
        stack.redo(&mut s).unwrap().is_none(),
        "nothing more to redo"
    );
}

#[test]
fn a_drag_is_one_entry_and_a_new_drag_another() {
    let (mut s, ids) = scene();
    let mut stack = UndoStack::new();
    let start = s.to_file();
    let node = ids[1];
    for i in 1..=10 {
        let before = s.local(node).unwrap();
        push(&mut stack, &mut s, moved(node, before, i as f32), Some(7));
    }
    assert_eq!(stack.len(), 1, "frames of one drag fold together");
    let after_first = s.to_file();
    let before = s.local(node).unwrap();
    push(&mut stack, &mut s, moved(node, before, 20.0), Some(8));
    assert_eq!(stack.len(), 2, "a new session key starts a new entry");
    stack.undo(&mut s).unwrap();
    assert_eq!(s.to_file(), after_first);
    stack.undo(&mut s).unwrap();
    assert_eq!(s.to_file(), start, "the whole first drag is undone at once");
}

#[test]
fn merging_never_crosses_nodes_or_kinds_of_edit() {
    let (mut s, ids) = scene();
    let mut stack = UndoStack::new();
    let b0 = s.local(ids[0]).unwrap();
    push(&mut stack, &mut s, moved(ids[0], b0, 1.0), Some(1));
    let b1 = s.local(ids[1]).unwrap();
    push(&mut stack, &mut s, moved(ids[1], b1, 1.0), Some(1));
    let rename = Edit::Rename {
        node: ids[1],
        before: "mast".into(),
        after: "spar".into(),
    };
    push(&mut stack, &mut s, rename, Some(1));
    assert_eq!(stack.len(), 3);
}

#[test]
fn revisions_track_the_saved_state_through_undo() {
    let (mut s, ids) = scene();
    let mut stack = UndoStack::new();
    assert_eq!(stack.revision(), 0);
    let before = s.local(ids[0]).unwrap();
    push(&mut stack, &mut s, moved(ids[0], before, 1.0), Some(1));
    let saved = stack.revision();
    let before = s.local(ids[0]).unwrap();
    push(&mut stack, &mut s, moved(ids[0], before, 2.0), Some(1));
    assert_ne!(
        stack.revision(),
        saved,
        "a merged change is a new revision (the drag went on after a save)"
    );
    stack.undo(&mut s).unwrap();
    assert_eq!(stack.revision(), 0);
    stack.redo(&mut s).unwrap();
    assert_ne!(stack.revision(), 0);
}

#[test]
fn undoing_a_delete_restores_the_subtree_and_later_entries_follow_the_new_handles() {
    let (mut s, ids) = scene();
    let mut stack = UndoStack::new();
    let start = s.to_file();
    let mast = ids[1];
    let flag = ids[2];
    // An entry that refers to a node inside the subtree about to be deleted.
    let before = s.local(flag).unwrap();
    push(&mut stack, &mut s, moved(flag, before, 9.0), None);
    let moved_file = s.to_file();
    let at = Placement::of(&s, mast).unwrap();
    let records = subtree::extract(&s, mast).unwrap();
    let sub: Vec<NodeId> = s.subtree(mast).collect();
    push(
        &mut stack,
        &mut s,
        Edit::Despawn {
            at,
            records,
            ids: sub,
        },
        None,
    );
    assert!(!s.contains(mast) && !s.contains(flag));
    let applied = stack.undo(&mut s).unwrap().unwrap();
    assert_eq!(s.to_file(), moved_file, "names, order, components are back");
    let new_flag = applied.remap[&flag];
    assert!(s.contains(new_flag));
    assert_eq!(
        s.get::<Spin>(new_flag).map(|sp| sp.rate),
        Some(3.0),
        "components come back"
    );
    stack.undo(&mut s).unwrap();
    assert_eq!(
        s.to_file(),
        start,
        "the older transform entry was remapped to the recreated flag"
    );
    stack.redo(&mut s).unwrap();
    stack.redo(&mut s).unwrap();
    assert!(s.find("mast").is_none());
    stack.undo(&mut s).unwrap();
    stack.undo(&mut s).unwrap();
    assert_eq!(s.to_file(), start, "a second round trip works as well");
}

#[test]
fn a_spawned_subtree_redone_gets_new_handles_that_later_entries_use() {
    let (mut s, ids) = scene();
    let mut stack = UndoStack::new();
    let start = s.to_file();
    let mut records = subtree::extract(&s, ids[1]).unwrap();
    records[0].name = "copy".into();
    let mut edit = Edit::Spawn {
        at: Placement {
            parent: Some(ids[0]),
            index: 1,
        },
        records,
        ids: vec![],
    };
    edit.apply(&mut s, true, &mut Remap::new()).unwrap();
    let Edit::Spawn { ids: made, .. } = &edit else {
        unreachable!("built as a spawn")
    };
    let copy = made[0];
    assert_eq!(
        s.children(ids[0]).collect::<Vec<_>>(),
        vec![ids[1], copy, ids[3]],
        "placed right after the original"
    );
    stack.push_applied(edit, "duplicate", None);
    let before = s.local(copy).unwrap();
    push(&mut stack, &mut s, moved(copy, before, 4.0), None);
    let end = s.to_file();
    stack.undo(&mut s).unwrap();
    stack.undo(&mut s).unwrap();
    assert_eq!(s.to_file(), start);
    assert!(!s.contains(copy));
    stack.redo(&mut s).unwrap();
    stack.redo(&mut s).unwrap();
    assert_eq!(
        s.to_file(),
        end,
        "the transform entry found the recreated copy"
    );
}

#[test]
fn reparent_undo_restores_parent_position_and_local() {
    let (mut s, ids) = scene();
    let mut stack = UndoStack::new();
    let start = s.to_file();
    let (mast, sea) = (ids[1], ids[4]);
    let from = Placement::of(&s, mast).unwrap();
    let before = s.local(mast).unwrap();
    s.reparent(mast, Some(sea), Keep::World).unwrap();
    let edit = Edit::Reparent {
        node: mast,
        from,
        to: Placement::of(&s, mast).unwrap(),
        before,
        after: s.local(mast).unwrap(),
    };
    stack.push_applied(edit, "reparent", None);
    let end = s.to_file();
    stack.undo(&mut s).unwrap();
    assert_eq!(
        s.to_file(),
        start,
        "mast is again ship's first child with its old local"
    );
    stack.redo(&mut s).unwrap();
    assert_eq!(s.to_file(), end);
}

#[test]
fn component_add_edit_remove_round_trip() {
    let (mut s, ids) = scene();
    let mut stack = UndoStack::new();
    let start = s.to_file();
    let node = ids[4];
    let light = ComponentKind::Light
        .default_value(&Default::default())
        .unwrap();
    push(
        &mut stack,
        &mut s,
        Edit::Component {
            node,
            kind: ComponentKind::Light,
            before: None,
            after: Some(light.clone()),
        },
        None,
    );
    let spin = ComponentValue::registered(Spin {
        axis: Vec3::Y,
        rate: 1.0,
    });
    push(
        &mut stack,
        &mut s,
        Edit::Component {
            node,
            kind: ComponentKind::Registered("spin"),
            before: None,
            after: Some(spin.clone()),
        },
        Some(3),
    );
    let faster = ComponentValue::registered(Spin {
        axis: Vec3::Y,
        rate: 5.0,
    });
    push(
        &mut stack,
        &mut s,
        Edit::Component {
            node,
            kind: ComponentKind::Registered("spin"),
            before: Some(spin),
            after: Some(faster),
        },
        Some(3),
    );
    assert_eq!(
        stack.len(),
        3,
        "an add is not merged with the edits that follow it"
    );
    push(
        &mut stack,
        &mut s,
        Edit::Component {
            node,
            kind: ComponentKind::Light,
            before: Some(light),
            after: None,
        },
        None,
    );
    assert!(ComponentKind::Light.get(&s, node).is_none());
    let end = s.to_file();
    while stack.can_undo() {
        stack.undo(&mut s).unwrap();
    }
    assert_eq!(s.to_file(), start);
    while stack.can_redo() {
        stack.redo(&mut s).unwrap();
    }
    assert_eq!(s.to_file(), end);
}

#[test]
fn a_group_of_sibling_deletes_comes_back_in_order() {
    let (mut s, ids) = scene();
    let start = s.to_file();
    let mut stack = UndoStack::new();
    let mut edits = Vec::new();
    for node in [ids[1], ids[3], ids[4]] {
        let at = Placement::of(&s, node).unwrap();
        let records = subtree::extract(&s, node).unwrap();
        let sub = s.subtree(node).collect();
        let mut e = Edit::Despawn {
            at,
            records,
            ids: sub,
        };
        e.apply(&mut s, true, &mut Remap::new()).unwrap();
        edits.push(e);
    }
    stack.push_applied(Edit::Group(edits), "delete 3", None);
    assert_eq!(s.len(), 1);
    stack.undo(&mut s).unwrap();
    assert_eq!(s.to_file(), start);
    stack.redo(&mut s).unwrap();
    assert_eq!(s.len(), 1);
}

#[test]
fn an_entry_that_no_longer_applies_is_dropped_with_an_error() {
    let (mut s, ids) = scene();
    let mut stack = UndoStack::new();
    let before = s.local(ids[2]).unwrap();
    push(
        &mut stack,
        &mut s,
        Edit::Transform {
            node: ids[2],
            before,
            after: before.with_rotation(Quat::from_rotation_y(1.0)),
        },
        None,
    );
    // Something outside the history (a user system, say) removes the node.
    s.despawn(ids[2]).unwrap();
    let err = stack.undo(&mut s).unwrap_err();
    assert!(matches!(err, EditError::Scene { .. }), "{err}");
    assert!(!stack.can_undo() && !stack.can_redo());
}

#[test]
fn the_oldest_entries_go_past_the_limit() {
    let (mut s, ids) = scene();
    let mut stack = UndoStack::with_limit(3);
    for i in 0..5 {
        let before = s.local(ids[0]).unwrap();
        push(
            &mut stack,
            &mut s,
            moved(ids[0], before, i as f32 + 1.0),
            None,
        );
    }
    assert_eq!(stack.len(), 3);
    while stack.can_undo() {
        stack.undo(&mut s).unwrap();
    }
    assert_eq!(
        s.local(ids[0]).unwrap().translation,
        Vec3::X * 2.0,
        "the state before the oldest kept entry"
    );
}
