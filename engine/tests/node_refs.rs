//! Components that name other nodes: written to files as the target's
//! index (or, outside the nodes written, its path), pointed at the right
//! node when read, copied or instanced from a prefab, and no target once the
//! target is despawned.

use std::path::Path;

use keel_engine::scene::SceneFile;

use keel_engine::{Assets, NodeRef, Scene, Transform, component};

/// A boat that follows another node, with a crew of others.
#[component(name = "follow")]
#[derive(Default, PartialEq)]
struct Follow {
    leader: NodeRef,
    crew: Vec<NodeRef>,
    spare: Option<NodeRef>,
}

fn assets() -> Assets {
    let assets = Assets::new();
    Scene::with_assets(&assets).register::<Follow>().unwrap();
    assets
}

const FLEET: &str = r#"(
    version: 3,
    nodes: [
        (name: "flag"),
        (name: "boat", follow: (leader: Node(0), crew: [Node(2), Node(3)], spare: Some(Node(0)))),
        (name: "mate", parent: 1),
        (name: "cook", parent: 1, follow: (leader: Node(1))),
    ],
)"#;

fn follow(scene: &Scene, name: &str) -> Follow {
    scene
        .get::<Follow>(scene.find(name).unwrap())
        .unwrap()
        .clone()
}

#[test]
fn references_read_from_a_file_name_the_nodes_and_save_back_the_same() {
    let assets = assets();
    let scene = Scene::from_text(FLEET, Path::new("fleet.ron"), &assets).unwrap();
    let boat = follow(&scene, "boat");
    assert_eq!(boat.leader.get(&scene), scene.find("flag"));
    let crew: Vec<_> = boat.crew.iter().map(|r| r.get(&scene)).collect();
    assert_eq!(crew, [scene.find("mate"), scene.find("cook")]);
    assert_eq!(boat.spare.and_then(|r| r.get(&scene)), scene.find("flag"));
    assert_eq!(
        follow(&scene, "cook").leader.get(&scene),
        scene.find("boat")
    );
    // Saved: the same indices; read again: the same targets.
    let text = scene.to_file().to_text(Path::new("fleet.ron")).unwrap();
    assert!(text.contains("leader: Node(0)"), "{text}");
    let again = Scene::from_text(&text, Path::new("fleet.ron"), &assets).unwrap();
    assert_eq!(
        again.to_file().to_text(Path::new("fleet.ron")).unwrap(),
        text,
        "read and written again, nothing changes"
    );
}

#[test]
fn a_copied_subtree_names_its_own_copies_inside_and_the_same_nodes_outside() {
    let assets = assets();
    let mut scene = Scene::from_text(FLEET, Path::new("fleet.ron"), &assets).unwrap();
    let boat = scene.find("boat").unwrap();
    // The boat's subtree as records: the crew inside, the flag outside.
    let records = scene.to_records(&[boat], None);
    let file = SceneFile::new(Default::default(), records);
    let text = file.to_text(Path::new("copy.ron")).unwrap();
    assert!(text.contains("Path(\"flag\")"), "outside: by path: {text}");
    let copy = Scene::from_text(&text, Path::new("copy.ron"), &assets).unwrap();
    assert_eq!(copy.len(), 3);
    // Spawned into the same scene (as a prefab): inside names the copies.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("copy.ron");
    std::fs::write(&path, &text).unwrap();
    let instance = scene
        .spawn_prefab(None, "again", Transform::IDENTITY, &path)
        .unwrap();
    let copied_boat = scene.find_path("again/boat").unwrap();
    let copied_mate = scene.find_path("again/boat/mate").unwrap();
    assert!(scene.parent(copied_boat) == Some(instance));
    let follow_copy = scene.get::<Follow>(copied_boat).unwrap().clone();
    assert_eq!(
        follow_copy.leader.get(&scene),
        scene.find("flag"),
        "outside: kept"
    );
    assert_eq!(
        follow_copy.crew[0].get(&scene),
        Some(copied_mate),
        "inside: the copy"
    );
    assert_ne!(Some(copied_mate), scene.find_path("boat/mate"));
}

#[test]
fn a_despawned_target_is_no_target_and_saves_as_none() {
    let assets = assets();
    let mut scene = Scene::from_text(FLEET, Path::new("fleet.ron"), &assets).unwrap();
    let flag = scene.find("flag").unwrap();
    scene.despawn(flag).unwrap();
    let boat = follow(&scene, "boat");
    assert_eq!(boat.leader.get(&scene), None);
    let text = scene.to_file().to_text(Path::new("fleet.ron")).unwrap();
    assert!(text.contains("leader: None"), "{text}");
    // And a reused slot is not the old target.
    let other = scene.spawn(None, "other", Transform::IDENTITY).unwrap();
    assert_eq!(other.index(), flag.index(), "the slot is reused");
    assert_eq!(
        boat.leader.get(&scene),
        None,
        "the generation tells them apart"
    );
}

#[test]
fn a_prefab_instance_names_its_own_parts() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("boat.ron"),
        r#"(version: 3, nodes: [
            (name: "hull", follow: (leader: Node(1))),
            (name: "mast", parent: 0),
        ])"#,
    )
    .unwrap();
    let scene_path = dir.path().join("harbour.ron");
    std::fs::write(
        &scene_path,
        r#"(version: 3, nodes: [
            (name: "one", prefab: "boat.ron"),
            (name: "two", prefab: "boat.ron"),
        ])"#,
    )
    .unwrap();
    let scene = Scene::load(&scene_path, &assets()).unwrap();
    for instance in ["one", "two"] {
        let hull = scene.find_path(&format!("{instance}/hull")).unwrap();
        let mast = scene.find_path(&format!("{instance}/hull/mast")).unwrap();
        let leader = scene.get::<Follow>(hull).unwrap().leader.get(&scene);
        assert_eq!(leader, Some(mast), "{instance}'s hull follows its own mast");
    }
}

/// A prefab whose hull follows its own mast, and a scene with two fences
/// before two instances of it (deleting the fences moves every later slot).
fn boat_yard() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("boat.ron"),
        r#"(version: 3, nodes: [
            (name: "hull", follow: (leader: Node(1), crew: [Node(0)])),
            (name: "mast", parent: 0),
            (name: "flag"),
        ])"#,
    )
    .unwrap();
    let scene_path = dir.path().join("yard.ron");
    std::fs::write(
        &scene_path,
        r#"(version: 3, nodes: [
            (name: "fence 1"),
            (name: "fence 2"),
            (name: "one", prefab: "boat.ron"),
            (name: "two", prefab: "boat.ron"),
        ])"#,
    )
    .unwrap();
    (dir, scene_path)
}

fn leader_of(scene: &Scene, hull: &str) -> Option<String> {
    let node = scene.find_path(hull).unwrap();
    let target = scene.get::<Follow>(node).unwrap().leader.get(scene)?;
    scene.path(target)
}

#[test]
fn an_untouched_part_reference_is_no_override_and_survives_deletes_saves_and_loads() {
    let (_dir, path) = boat_yard();
    let assets = assets();
    let mut scene = Scene::load(&path, &assets).unwrap();
    for fence in ["fence 1", "fence 2"] {
        let node = scene.find(fence).unwrap();
        scene.despawn(node).unwrap();
    }
    let hull = scene.find_path("one/hull").unwrap();
    let part = scene.part_record(hull).expect("a part");
    let text = SceneFile::new(Default::default(), vec![part])
        .to_text(Path::new("part.ron"))
        .unwrap();
    assert!(
        text.contains("leader: Node(1)"),
        "in the prefab's form: {text}"
    );
    scene.save(&path).unwrap();
    let saved = std::fs::read_to_string(&path).unwrap();
    assert!(!saved.contains("overrides"), "nothing was changed: {saved}");
    assert!(
        !saved.contains("Handle"),
        "no run's handle in a file: {saved}"
    );
    let again = Scene::load(&path, &assets).unwrap();
    for instance in ["one", "two"] {
        assert_eq!(
            leader_of(&again, &format!("{instance}/hull")),
            Some(format!("{instance}/hull/mast")),
            "{instance}'s hull follows its own mast after the save"
        );
    }
}

#[test]
fn a_changed_part_reference_is_an_override_by_place_or_path() {
    let (_dir, path) = boat_yard();
    let assets = assets();
    let mut scene = Scene::load(&path, &assets).unwrap();
    let one_hull = scene.find_path("one/hull").unwrap();
    let two_hull = scene.find_path("two/hull").unwrap();
    // One follows the other boat's mast (outside its instance), two its own flag.
    let two_mast = scene.find_path("two/hull/mast").unwrap();
    let two_flag = scene.find_path("two/flag").unwrap();
    scene.get_mut::<Follow>(one_hull).unwrap().leader = NodeRef::to(two_mast);
    scene.get_mut::<Follow>(two_hull).unwrap().leader = NodeRef::to(two_flag);
    scene.save(&path).unwrap();
    let saved = std::fs::read_to_string(&path).unwrap();
    assert!(
        saved.contains("\"two/hull/mast\""),
        "outside the instance: its path: {saved}"
    );
    assert!(!saved.contains("Handle"), "{saved}");
    let again = Scene::load(&path, &assets).unwrap();
    assert_eq!(
        leader_of(&again, "one/hull").as_deref(),
        Some("two/hull/mast")
    );
    assert_eq!(leader_of(&again, "two/hull").as_deref(), Some("two/flag"));
    // Read and written again, nothing changes.
    again.save(&path).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), saved);
}

fn field_error(text: &str) -> keel_engine::scene::NodeFieldError {
    match Scene::from_text(text, Path::new("fleet.ron"), &assets()) {
        Err(keel_engine::SceneError::InvalidField(e)) => *e,
        Err(other) => panic!("not a field error: {other}"),
        Ok(_) => panic!("read:\n{text}"),
    }
}

#[test]
fn a_reference_past_the_list_or_to_a_handle_is_an_error_at_its_line() {
    let past = FLEET.replace("crew: [Node(2), Node(3)]", "crew: [Node(2), Node(99)]");
    let e = field_error(&past);
    assert_eq!(
        (e.node.as_str(), &*e.field, e.line),
        ("boat", "follow.crew", 5),
        "{e}"
    );
    assert_eq!(e.found, "Node(99)");
    assert!(e.expected.contains("Node(3)"), "says the range: {e}");
    let handle = FLEET.replace("(leader: Node(1))", "(leader: Handle(2, 1))");
    let e = field_error(&handle);
    assert_eq!(
        (e.node.as_str(), &*e.field, e.line),
        ("cook", "follow.leader", 7),
        "{e}"
    );
    assert!(e.found.contains("Handle(2, 1)"), "{e}");
}

#[test]
fn a_bare_number_for_a_reference_names_the_forms_a_reference_takes() {
    let bare = FLEET.replace("(leader: Node(1))", "(leader: 9)");
    let said = match Scene::from_text(&bare, Path::new("fleet.ron"), &assets()) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("read:\n{bare}"),
    };
    assert!(said.starts_with("fleet.ron:7:"), "at its line: {said}");
    assert!(said.contains("Node(3)") && said.contains("Path("), "{said}");
    assert!(
        !said.contains("r#9"),
        "no word of the format's raw identifiers: {said}"
    );
}

#[test]
fn an_override_holding_a_handle_or_a_place_past_the_prefab_is_an_error() {
    let (dir, path) = boat_yard();
    for (patch, found) in [
        (r#"{"Handle": [2, 1], "Node": ()}"#, "Handle(2, 1)"),
        (r#"{"Node": 3}"#, "Node(3)"),
    ] {
        let text = std::fs::read_to_string(&path).unwrap().replace(
            r#"(name: "one", prefab: "boat.ron")"#,
            &format!(
                r#"(name: "one", prefab: "boat.ron", overrides: {{"hull": {{"follow": {{"leader": {patch}}}}}}})"#
            ),
        );
        let bad_path = dir.path().join("bad.ron");
        std::fs::write(&bad_path, &text).unwrap();
        match Scene::load(&bad_path, &assets()) {
            Err(keel_engine::SceneError::InvalidField(e)) => {
                assert_eq!(e.field, "overrides.hull.follow.leader", "{e}");
                assert_eq!(e.found, found, "{e}");
            }
            Err(other) => panic!("{text}: not a field error: {other}"),
            Ok(_) => panic!("read: {text}"),
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// Every reference a file holds, in any field of any node, is a place
    /// in the list or a path: a place in range reads as that node, one past
    /// the list is an error at the line of the first such node.
    #[test]
    fn every_reference_in_a_file_is_a_place_in_range(
        targets in proptest::collection::vec((0u32..10, 0u32..10, proptest::option::of(0u32..10)), 1..6),
    ) {
        let count = targets.len() as u32;
        let mut text = String::from("(\n    version: 3,\n    nodes: [\n");
        for (i, (leader, crew, spare)) in targets.iter().enumerate() {
            let spare = spare.map_or("None".to_owned(), |s| format!("Some(Node({s}))"));
            text += &format!(
                "        (name: \"boat {i}\", follow: (leader: Node({leader}), crew: [Node({crew})], spare: {spare})),\n"
            );
        }
        text += "    ],\n)";
        let bad = |t: &(u32, u32, Option<u32>)| t.0 >= count || t.1 >= count || t.2.is_some_and(|s| s >= count);
        let first_bad = targets.iter().position(bad);
        match (first_bad, Scene::from_text(&text, Path::new("fleet.ron"), &assets())) {
            (None, Ok(scene)) => {
                for (i, &(leader, crew, _)) in targets.iter().enumerate() {
                    let follow = follow(&scene, &format!("boat {i}"));
                    let name = |r: &NodeRef| r.get(&scene).map(|n| scene.name(n).unwrap().to_owned());
                    proptest::prop_assert_eq!(name(&follow.leader), Some(format!("boat {leader}")));
                    proptest::prop_assert_eq!(name(&follow.crew[0]), Some(format!("boat {crew}")));
                }
            }
            (Some(node), Err(keel_engine::SceneError::InvalidField(e))) => {
                proptest::prop_assert_eq!(e.line as usize, node + 4, "{}", e);
            }
            (expected, got) => proptest::prop_assert!(false, "expected a fault at node {:?}, got {:?}", expected, got.map(|_| ())),
        }
    }
}
