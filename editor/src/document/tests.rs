use glam::Vec3;
use keel_engine::{Spin, Transform};
use proptest::prelude::*;

use super::*;

fn doc() -> (Document, Vec<NodeId>) {
    let mut s = Scene::new();
    let ship = s.spawn(None, "ship", Transform::IDENTITY).unwrap();
    let mast = s
        .spawn(Some(ship), "mast", Transform::from_translation(Vec3::Y))
        .unwrap();
    let flag = s.spawn(Some(mast), "flag", Transform::IDENTITY).unwrap();
    let sea = s
        .spawn(None, "sea", Transform::from_translation(Vec3::Z * 2.0))
        .unwrap();
    s.insert(
        flag,
        Spin {
            axis: Vec3::X,
            rate: 3.0,
        },
    )
    .unwrap();
    (Document::new(s, None), vec![ship, mast, flag, sea])
}

#[test]
fn the_title_marks_unsaved_changes_and_undo_back_to_the_save_clears_it() {
    let (mut d, ids) = doc();
    assert_eq!(d.title(), "Keel — untitled.ron");
    d.set_transform(ids[0], Transform::from_translation(Vec3::X), None)
        .unwrap();
    assert!(d.is_dirty());
    assert_eq!(d.title(), "Keel — untitled.ron *");
    d.undo().unwrap();
    assert!(!d.is_dirty(), "back at the saved state");
    d.redo().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("boat.ron");
    d.save_to(&path).unwrap();
    assert_eq!(d.title(), "Keel — boat.ron");
    d.undo().unwrap();
    assert!(d.is_dirty(), "undoing past the save is a change too");
    d.mark_saved();
    d.mark_unsaved();
    assert!(d.is_dirty());
}

#[test]
fn a_cyclic_reparent_is_refused_and_not_recorded() {
    let (mut d, ids) = doc();
    let before = d.scene().to_file();
    let err = d.reparent(&[ids[0]], Some(ids[2])).unwrap_err();
    assert!(matches!(err, EditError::Cycle { .. }), "{err}");
    assert!(err.to_string().contains("ship") && err.to_string().contains("flag"));
    let err = d.reparent(&[ids[1]], Some(ids[1])).unwrap_err();
    assert!(matches!(err, EditError::Cycle { .. }));
    assert_eq!(d.scene().to_file(), before);
    assert!(!d.undo.can_undo());
    assert!(!d.is_dirty());
}

#[test]
fn reparent_keeps_the_world_position() {
    let (mut d, ids) = doc();
    let world = d.scene().world(ids[1]).unwrap();
    d.reparent(&[ids[1]], Some(ids[3])).unwrap();
    assert_eq!(d.scene().parent(ids[1]), Some(ids[3]));
    let moved = d.scene().world(ids[1]).unwrap();
    assert!(
        moved.abs_diff_eq(world, 1e-5),
        "world kept: {moved:?} vs {world:?}"
    );
    assert_eq!(d.undo.undo_label(), Some("Move mast under sea"));
}

#[test]
fn deleting_the_selection_and_undoing_brings_the_subtree_back_selected() {
    let (mut d, ids) = doc();
    let start = d.scene().to_file();
    d.selection.select_only(ids[1]);
    assert_eq!(d.delete_selection().unwrap(), 2, "mast and flag");
    assert!(d.selection.is_empty(), "dead nodes leave the selection");
    d.undo().unwrap();
    assert_eq!(d.scene().to_file(), start);
    assert_eq!(d.selection.len(), 1, "the selection follows the new handle");
    let mast = d.selection.primary().unwrap();
    assert_eq!(d.scene().name(mast), Some("mast"));
}

#[test]
fn duplicate_copies_components_and_selects_the_copies() {
    let (mut d, ids) = doc();
    let copies = d.duplicate(&[ids[1], ids[2]]).unwrap();
    assert_eq!(copies.len(), 1, "flag is inside mast: only mast is copied");
    let copy = copies[0];
    assert_eq!(d.scene().name(copy), Some("mast (copy)"));
    let flag_copy = d.scene().children(copy).next().unwrap();
    assert!(d.scene().get::<Spin>(flag_copy).is_some());
    assert_eq!(d.selection.nodes(), &[copy]);
    assert_eq!(
        d.scene().children(ids[0]).collect::<Vec<_>>(),
        vec![ids[1], copy]
    );
}

#[test]
fn invalid_component_values_are_refused() {
    let (mut d, ids) = doc();
    let bad = ComponentValue::registered(Spin {
        axis: Vec3::NAN,
        rate: 1.0,
    });
    let err = d.set_component(ids[0], bad, None).unwrap_err();
    assert!(matches!(err, EditError::InvalidComponent { .. }));
    assert!(!d.undo.can_undo());
}

#[test]
fn save_and_reopen_give_the_same_scene() {
    let (mut d, ids) = doc();
    d.add_primitive(Some(ids[3]), Primitive::Cone).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scene.ron");
    d.save_to(&path).unwrap();
    let reopened = Document::open(&path, &keel_engine::Assets::new()).unwrap();
    assert_eq!(reopened.scene().to_file(), d.scene().to_file());
    assert!(!reopened.is_dirty());
}

#[test]
fn reset_after_play_restores_the_world_history_and_selection() {
    let (mut d, ids) = doc();
    d.set_transform(ids[3], Transform::from_translation(Vec3::ONE), None)
        .unwrap();
    d.selection.select_only(ids[2]);
    let at_play = d.scene().to_file();
    let revision = d.undo.revision();
    let snapshot = d.play_snapshot();
    for _ in 0..30 {
        d.world.step();
    }
    d.delete(&[ids[0]]).unwrap();
    assert_ne!(d.scene().to_file(), at_play);
    d.restore_play_snapshot(snapshot);
    assert_eq!(d.scene().to_file(), at_play);
    assert_eq!(d.undo.revision(), revision);
    let flag = d.selection.primary().unwrap();
    assert_eq!(d.scene().name(flag), Some("flag"));
    d.undo().unwrap();
    assert_eq!(
        d.scene().local(d.scene().find("sea").unwrap()).unwrap(),
        Transform::from_translation(Vec3::Z * 2.0),
        "the history before Play still applies to the restored nodes"
    );
}

#[test]
fn reset_after_play_restores_the_step_and_the_state_hash() {
    let (mut d, _) = doc();
    for _ in 0..5 {
        d.world.step();
    }
    let at_play = d.world.state_hash();
    let step = d.world.systems().steps();
    let snapshot = d.play_snapshot();
    for _ in 0..30 {
        d.world.step();
    }
    assert_ne!(d.world.state_hash(), at_play);
    d.restore_play_snapshot(snapshot);
    assert_eq!(d.world.systems().steps(), step, "Reset puts the step back");
    assert_eq!(
        d.world.state_hash(),
        at_play,
        "Reset gives the world of the moment Play was pressed"
    );
}

/// One random editor operation; indices pick nodes modulo the node count.
#[derive(Clone, Debug)]
enum Op {
    Move(usize, f32),
    Rename(usize),
    Reparent(usize, Option<usize>),
    Add(Option<usize>),
    Primitive(Option<usize>),
    Duplicate(usize, usize),
    Delete(usize, usize),
    AddSpin(usize),
    RemoveSpin(usize),
}

fn op() -> impl Strategy<Value = Op> {
    let i = 0..64usize;
    prop_oneof![
        (i.clone(), -5.0f32..5.0).prop_map(|(n, x)| Op::Move(n, x)),
        i.clone().prop_map(Op::Rename),
        (i.clone(), proptest::option::of(i.clone())).prop_map(|(n, p)| Op::Reparent(n, p)),
        proptest::option::of(i.clone()).prop_map(Op::Add),
        proptest::option::of(i.clone()).prop_map(Op::Primitive),
        (i.clone(), i.clone()).prop_map(|(a, b)| Op::Duplicate(a, b)),
        (i.clone(), i.clone()).prop_map(|(a, b)| Op::Delete(a, b)),
        i.clone().prop_map(Op::AddSpin),
        i.prop_map(Op::RemoveSpin),
    ]
}

/// Runs `op`; returns whether it recorded an undo entry.
fn run(d: &mut Document, op: &Op) -> bool {
    let nodes: Vec<NodeId> = d.scene().nodes().collect();
    let pick = |i: usize| (!nodes.is_empty()).then(|| nodes[i % nodes.len()]);
    let before = d.undo.len();
    let _ = match *op {
        Op::Move(n, x) => pick(n).map(|n| {
            d.set_transform(n, Transform::from_translation(Vec3::new(x, 1.0, 0.0)), None)
                .map(drop)
        }),
        Op::Rename(n) => pick(n).map(|n| d.rename(n, format!("r{}", d.undo.len())).map(drop)),
        Op::Reparent(n, p) => pick(n).map(|n| d.reparent(&[n], p.and_then(pick)).map(drop)),
        Op::Add(p) => Some(d.add_node(p.and_then(pick), "new", &[]).map(drop)),
        Op::Primitive(p) => Some(
            d.add_primitive(p.and_then(pick), Primitive::Sphere)
                .map(drop),
        ),
        Op::Duplicate(a, b) => pick(a)
            .zip(pick(b))
            .map(|(a, b)| d.duplicate(&[a, b]).map(drop)),
        Op::Delete(a, b) => pick(a)
            .zip(pick(b))
            .map(|(a, b)| d.delete(&[a, b]).map(drop)),
        Op::AddSpin(n) => pick(n).map(|n| {
            d.set_component(
                n,
                ComponentKind::Registered("spin")
                    .default_value(&Default::default())
                    .unwrap(),
                None,
            )
            .map(drop)
        }),
        Op::RemoveSpin(n) => pick(n).map(|n| {
            d.remove_component(n, ComponentKind::Registered("spin"))
                .map(drop)
        }),
    };
    d.undo.len() > before
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Model test: the reference is the list of scene files seen after each
    /// recorded edit; undo must walk it backwards exactly and redo forwards.
    #[test]
    fn undo_and_redo_walk_the_recorded_states_exactly(ops in proptest::collection::vec(op(), 1..40)) {
        let (mut d, _) = doc();
        let mut states = vec![d.scene().to_file()];
        for op in &ops {
            if run(&mut d, op) {
                states.push(d.scene().to_file());
            } else {
                prop_assert_eq!(&d.scene().to_file(), states.last().unwrap(), "a refused {:?} changed the scene", op);
            }
        }
        for (i, expected) in states.iter().enumerate().rev().skip(1) {
            d.undo().unwrap();
            prop_assert_eq!(&d.scene().to_file(), expected, "after undoing to state {}", i);
        }
        prop_assert!(!d.is_dirty());
        for (i, expected) in states.iter().enumerate().skip(1) {
            d.redo().unwrap();
            prop_assert_eq!(&d.scene().to_file(), expected, "after redoing to state {}", i);
        }
    }
}

/// A 100,000-node scene: 100 roots, each node under a random earlier one;
/// returns the document and the handles in creation order.
fn big_doc() -> (Document, Vec<NodeId>) {
    let mut s = Scene::new();
    let mut ids: Vec<NodeId> = Vec::with_capacity(100_000);
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0..100_000usize {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let parent = (i >= 100).then(|| ids[(seed % i as u64) as usize]);
        let at = Transform::from_translation(Vec3::new(i as f32 % 7.0, 0.5, 0.0));
        ids.push(s.spawn(parent, format!("n{i}"), at).unwrap());
    }
    (Document::new(s, None), ids)
}

/// Duplicate, delete and their undo on a big scene, each checked by its
/// result; the engine time of each is printed (run in release for numbers).
#[test]
fn duplicate_delete_and_undo_on_a_100k_node_scene() {
    let (mut d, ids) = big_doc();
    d.world.scene_mut().propagate();
    // A subtree of about a thousand nodes.
    let node = *ids
        .iter()
        .min_by_key(|&&n| d.scene().subtree_len(n).abs_diff(1_000))
        .unwrap();
    let size = d.scene().subtree_len(node);
    assert!((500..2_000).contains(&size), "subtree of {size}");
    let before = d.scene().to_file();
    let place = Placement::of(d.scene(), node).unwrap();
    let name = d.scene().name(node).unwrap().to_owned();
    let timed = |label: &str, d: &mut Document, f: &dyn Fn(&mut Document)| {
        let start = std::time::Instant::now();
        f(d);
        eprintln!("{label} ({size} of 100,000 nodes): {:?}", start.elapsed());
    };

    timed("duplicate", &mut d, &|d| {
        d.duplicate(&[node]).unwrap();
    });
    let copy = d.selection.primary().unwrap();
    assert_eq!(d.scene().len(), 100_000 + size);
    assert_eq!(d.scene().subtree_len(copy), size);
    assert_eq!(d.scene().parent(copy), place.parent);
    assert_eq!(d.scene().sibling_index(copy), Some(place.index + 1));
    let names = |d: &Document, root: NodeId| -> Vec<String> {
        let s = d.scene();
        s.subtree(root)
            .skip(1)
            .map(|n| s.name(n).unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        names(&d, copy),
        names(&d, node),
        "the copy's nodes, in order"
    );

    timed("delete", &mut d, &|d| {
        assert_eq!(d.delete(&[node]).unwrap(), size);
    });
    assert!(!d.scene().contains(node));
    assert_eq!(d.scene().len(), 100_000);

    timed("undo delete", &mut d, &|d| {
        d.undo().unwrap();
    });
    let scene = d.scene();
    let restored = match place.parent {
        Some(p) => scene.children(p).nth(place.index),
        None => scene.roots().nth(place.index),
    }
    .unwrap();
    assert_eq!(
        scene.name(restored),
        Some(name.as_str()),
        "back in its place"
    );
    assert_eq!(d.scene().subtree_len(restored), size);

    timed("undo duplicate", &mut d, &|d| {
        d.undo().unwrap();
    });
    assert!(!d.scene().contains(copy));
    assert_eq!(d.scene().to_file(), before, "the scene as it was");
}

#[test]
fn copied_subtrees_are_scene_text_that_pastes_into_another_scene_as_one_undo_step() {
    let (source, ids) = doc();
    let (mast, sea) = (ids[1], ids[3]);
    // The mast (with its flag) and the sea: the flag comes along, the ship not.
    let text = source.copy_text(&[mast, sea, ids[2]]).unwrap();
    assert!(
        text.contains("name: \"mast\"") && text.contains("rate: 3.0"),
        "readable RON:\n{text}"
    );
    assert!(!text.contains("name: \"ship\""), "{text}");

    let (mut target, target_ids) = doc();
    let before = target.scene().to_file();
    target.selection.set_all([target_ids[3]]);
    let pasted = target.paste_text(&text).unwrap();
    assert_eq!(pasted.len(), 2, "two roots pasted");
    let scene = target.scene();
    let names: Vec<&str> = scene.roots().map(|n| scene.name(n).unwrap()).collect();
    assert_eq!(
        names,
        ["ship", "sea", "mast", "sea"],
        "after the selected sea, in copy order"
    );
    let flag = scene
        .children(pasted[0])
        .next()
        .expect("the flag came along");
    assert_eq!(scene.get::<Spin>(flag).map(|s| s.rate), Some(3.0));
    assert_eq!(
        scene.local(pasted[0]).unwrap().translation,
        source.scene().local(mast).unwrap().translation,
        "local transforms kept"
    );
    assert_eq!(target.selection.nodes(), &pasted[..]);
    assert_eq!(target.undo.len(), 1, "one undo entry");
    target.undo().unwrap();
    assert_eq!(target.scene().to_file(), before, "undone");

    // Text that is no scene, or a bad value in it, changes nothing.
    for bad in ["not a scene", &text.replace("rate: 3.0", "rate: inf")] {
        let error = target.paste_text(bad).unwrap_err().to_string();
        assert!(
            error.contains("paste") && error.contains("<clipboard>"),
            "{error}"
        );
        assert_eq!(target.scene().to_file(), before);
    }
}

#[test]
fn copy_and_paste_keeps_components_this_build_does_not_know() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("orchard.ron");
    let text = "(version: 3, nodes: [(name: \"tree\", fruit: (kind: Pear, crop: [1.5, 2.0]))])";
    std::fs::write(&path, text).unwrap();
    let assets = Assets::new();
    let mut d = Document::open(&path, &assets).unwrap();
    let tree = d.scene().find("tree").unwrap();
    let copied = d.copy_text(&[tree]).unwrap();
    assert!(copied.contains("fruit"), "the copy holds it: {copied}");
    let pasted = d.paste_text(&copied).unwrap();
    let unknown = d
        .scene()
        .get::<keel_engine::scene::UnknownComponents>(pasted[0])
        .expect("the pasted node keeps the component this build does not know");
    let original = d
        .scene()
        .get::<keel_engine::scene::UnknownComponents>(tree)
        .unwrap();
    assert_eq!(unknown, original, "byte for byte as written");
}

#[test]
fn duplicate_and_paste_remap_references_inside_and_keep_those_outside() {
    use keel_engine::NodeRef;
    #[keel_engine::component(name = "tow")]
    #[derive(Default, PartialEq)]
    struct Tow {
        by: NodeRef,
        boats: Vec<NodeRef>,
    }
    let (mut d, ids) = doc();
    let (ship, mast, flag, sea) = (ids[0], ids[1], ids[2], ids[3]);
    d.world.register::<Tow>().unwrap();
    let tow = Tow {
        by: NodeRef::to(flag),
        boats: vec![NodeRef::to(mast), NodeRef::to(sea)],
    };
    d.world.scene_mut().insert(mast, tow).unwrap();
    // Duplicate the ship: the copy's mast names the copy's flag and mast, and the same sea.
    let copies = d.duplicate(&[ship]).unwrap();
    let scene = d.scene();
    let copy_mast = scene.children(copies[0]).next().unwrap();
    let copy_flag = scene.children(copy_mast).next().unwrap();
    let towed = scene.get::<Tow>(copy_mast).unwrap();
    assert_eq!(
        towed.by.get(scene),
        Some(copy_flag),
        "inside: the copy's flag"
    );
    assert_eq!(towed.boats[0].get(scene), Some(copy_mast));
    assert_eq!(towed.boats[1].get(scene), Some(sea), "outside: kept");
    // Copied as text and pasted: the same.
    let text = d.copy_text(&[ship]).unwrap();
    let pasted = d.paste_text(&text).unwrap();
    let scene = d.scene();
    let paste_mast = scene.children(pasted[0]).next().unwrap();
    let paste_flag = scene.children(paste_mast).next().unwrap();
    let towed = scene.get::<Tow>(paste_mast).unwrap();
    assert_eq!(towed.by.get(scene), Some(paste_flag));
    assert_eq!(
        towed.boats[1].get(scene),
        Some(sea),
        "outside: found by its path"
    );
    // The original is untouched.
    assert_eq!(
        d.scene().get::<Tow>(mast).unwrap().by.get(d.scene()),
        Some(flag)
    );
    // Deleted and brought back by undo: the node that named it names it again.
    d.delete(&[flag]).unwrap();
    assert_eq!(d.scene().get::<Tow>(mast).unwrap().by.get(d.scene()), None);
    d.undo().unwrap();
    let back = d.scene().children(mast).next().unwrap();
    assert_eq!(d.scene().name(back), Some("flag"));
    assert_eq!(
        d.scene().get::<Tow>(mast).unwrap().by.get(d.scene()),
        Some(back),
        "the undone deletion's node is named again"
    );
}

use keel_engine::NodeRef;

/// A scarecrow guarding a tree (which looks back at it) and a field neither
/// is copied with: the roots, the field, and the scarecrow's child.
fn orchard() -> (Document, [NodeId; 4]) {
    let mut s = Scene::new();
    let field = s.spawn(None, "field", Transform::IDENTITY).unwrap();
    let scarecrow = s.spawn(None, "scarecrow", Transform::IDENTITY).unwrap();
    let hat = s
        .spawn(Some(scarecrow), "hat", Transform::IDENTITY)
        .unwrap();
    let tree = s
        .spawn(None, "tree", Transform::from_translation(Vec3::X))
        .unwrap();
    (Document::new(s, None), [field, scarecrow, hat, tree])
}

/// A component that names two nodes.
#[keel_engine::component(name = "guard")]
#[derive(Default, PartialEq)]
struct Guard {
    of: NodeRef,
    on: NodeRef,
}

/// Gives the scarecrow's hat and the tree each a guard: the hat names the
/// tree, the tree the scarecrow; both stand on the field.
fn guard_orchard(d: &mut Document, [field, scarecrow, hat, tree]: [NodeId; 4]) {
    d.world.register::<Guard>().unwrap();
    let scene = d.world.scene_mut();
    let guard = |of| Guard {
        of: NodeRef::to(of),
        on: NodeRef::to(field),
    };
    scene.insert(hat, guard(tree)).unwrap();
    scene.insert(tree, guard(scarecrow)).unwrap();
}

/// Checks that the copies `roots` (a scarecrow's and a tree's) name each
/// other and the original field.
fn assert_copies_guard_each_other(d: &Document, roots: &[NodeId], field: NodeId, what: &str) {
    let scene = d.scene();
    assert_eq!(roots.len(), 2, "{what}: two copies");
    let (scarecrow, tree) = (roots[0], roots[1]);
    let hat = scene.children(scarecrow).next().unwrap();
    for (holder, of, names) in [
        (hat, tree, "hat names the copied tree"),
        (tree, scarecrow, "tree names the copied scarecrow"),
    ] {
        let guard = scene.get::<Guard>(holder).expect("the copy has a guard");
        assert_eq!(guard.of.get(scene), Some(of), "{what}: {names}");
        assert_eq!(
            guard.on.get(scene),
            Some(field),
            "{what}: the field is the original"
        );
    }
}

/// The copies' roots, in scene order (what undo and redo leave selected).
fn selected_roots(d: &Document) -> Vec<NodeId> {
    let mut roots = d.selection.nodes().to_vec();
    in_scene_order(d.scene(), &mut roots);
    roots
}

#[test]
fn duplicated_roots_that_reference_each_other_name_the_copies_through_undo_and_redo() {
    let (mut d, ids) = orchard();
    let [field, scarecrow, hat, tree] = ids;
    guard_orchard(&mut d, ids);
    // Picked tree first: the order of the click does not matter.
    let copies = d.duplicate(&[tree, scarecrow]).unwrap();
    assert_copies_guard_each_other(&d, &copies, field, "duplicated");
    let by_hat = d.scene().get::<Guard>(hat).unwrap();
    assert_eq!(
        by_hat.of.get(d.scene()),
        Some(tree),
        "the original is untouched"
    );
    assert_eq!(d.undo.len(), 1, "one undo step");
    for round in 0..2 {
        d.undo().unwrap();
        assert_eq!(d.scene().len(), 4, "undone");
        d.redo().unwrap();
        let roots = selected_roots(&d);
        assert_copies_guard_each_other(&d, &roots, field, &format!("redo {round}"));
    }
}

#[test]
fn pasted_roots_that_reference_each_other_name_the_copies_through_undo_and_redo() {
    let (mut d, ids) = orchard();
    let [field, scarecrow, _, tree] = ids;
    guard_orchard(&mut d, ids);
    let text = d.copy_text(&[scarecrow, tree]).unwrap();
    d.selection.set_all([]);
    let pasted = d.paste_text(&text).unwrap();
    assert_copies_guard_each_other(&d, &pasted, field, "pasted");
    assert_eq!(d.undo.len(), 1, "one undo step");
    for round in 0..2 {
        d.undo().unwrap();
        assert_eq!(d.scene().len(), 4, "undone");
        d.redo().unwrap();
        let roots = selected_roots(&d);
        assert_copies_guard_each_other(&d, &roots, field, &format!("redo {round}"));
    }
    // Pasted into a scene without the field: the path names no node, and nothing fails.
    let mut other = Document::new(Scene::new(), None);
    other.world.register::<Guard>().unwrap();
    let pasted = other.paste_text(&text).unwrap();
    let scene = other.scene();
    let by_tree = scene.get::<Guard>(pasted[1]).unwrap();
    assert_eq!(by_tree.of.get(scene), Some(pasted[0]));
    assert_eq!(by_tree.on.get(scene), None, "no field there");
    assert!(
        other
            .paste_text("(version: 2, nodes: [(name: 3)])")
            .is_err()
    );
}
