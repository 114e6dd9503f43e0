//! The harbour game in its own editor (driven like a user would, with
//! egui_kittest): its scene opens with its components known, the ship's
//! fields are edited in the inspector and saved, and in Play the keys sail
//! the ship and the score shows over the 3D view.

use std::path::Path;

use harbour::{Score, Ship};
use keel_editor::test_kit::egui::{self, vec2};
use keel_editor::test_kit::{Harness, Queryable};
use keel_editor::{EditorApp, EditorOptions, PlayState};
use keel_engine::{Hud, NodeId};

fn harbour_editor(scene: &Path) -> Harness<'static, EditorApp> {
    let app = EditorApp::new(EditorOptions {
        scene: Some(scene.to_path_buf()),
        game: harbour::game(),
        ..EditorOptions::default()
    });
    keel_editor::test_kit::harness(app, vec2(1400.0, 860.0))
}

fn ship(h: &Harness<'_, EditorApp>) -> NodeId {
    h.state().doc().scene().find("ship").expect("the ship")
}

#[test]
fn the_ships_fields_are_edited_in_the_inspector_and_saved() {
    let dir = tempfile::tempdir().unwrap();
    // The game's folder copied, so the save goes beside its prefab and model.
    for file in ["harbour.ron", "prefabs/boat.ron", "models/lighthouse.glb"] {
        let to = dir.path().join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(harbour::scene_path().with_file_name(file), &to).unwrap();
    }
    let path = dir.path().join("harbour.ron");
    let mut h = harbour_editor(&path);
    h.run();
    assert!(
        !h.state().status().is_error(),
        "{}",
        h.state().status().text()
    );
    let ship_node = ship(&h);
    h.state_mut().doc_mut().selection.select_only(ship_node);
    h.run();
    h.get_by_label("Max speed").scroll_to_me();
    h.run();
    h.get_by_label("Max speed").set_value_accesskit(99.0);
    h.run();
    let max = |h: &Harness<'_, EditorApp>| {
        h.state()
            .doc()
            .scene()
            .get::<Ship>(ship_node)
            .map(|s| s.max_speed)
    };
    assert_eq!(max(&h), Some(40.0), "the field's range clamps the edit");
    assert!(h.state().doc().is_dirty());
    h.state_mut().act(keel_editor::Action::Save);
    h.run();
    assert!(!h.state().doc().is_dirty(), "{}", h.state().status().text());
    let saved = std::fs::read_to_string(&path).unwrap();
    assert!(saved.contains("max_speed: 40.0"), "saved by name");
    let world = harbour::game()
        .load(&path, &keel_engine::Assets::new())
        .expect("the game loads what its editor saved");
    let (_, ships) = world.scene().components().parts::<Ship>();
    assert_eq!(ships[0].max_speed, 40.0);
}

#[test]
fn in_play_the_keys_sail_the_ship_and_the_score_shows() {
    let mut h = harbour_editor(&harbour::scene_path());
    h.run();
    let start = h.state().doc().scene().local(ship(&h)).unwrap().translation;
    h.get_by_label("Play").click();
    h.run();
    assert!(h.state().playback().game_has_input());
    h.key_down(egui::Key::W);
    // Five seconds of play, a frame every 20 ms.
    for _ in 0..250 {
        h.run();
        h.state_mut().advance(std::time::Duration::from_millis(20));
    }
    h.key_up(egui::Key::W);
    h.run();
    let at = h.state().doc().scene().local(ship(&h)).unwrap().translation;
    assert!(at.z < start.z - 30.0, "sailed ahead from {start} to {at}");
    let scene = h.state().doc().scene();
    assert_eq!(scene.resource::<Score>().map(|s| s.points), Some(2));
    let hud = scene.resource::<Hud>().unwrap().text.clone();
    assert!(
        h.query_by_label(&hud).is_some(),
        "the score `{hud}` shows over the 3D view"
    );
    // Reset: the world as it was at Play, the score back to none.
    h.get_by_label("Reset").click();
    h.run();
    assert_eq!(h.state().playback().state(), PlayState::Editing);
    let scene = h.state().doc().scene();
    assert_eq!(scene.local(ship(&h)).unwrap().translation, start);
    assert_eq!(scene.resource::<Score>().map(|s| s.points), Some(0));
}

/// Presses at `from`, moves to `to` in steps and lets go there.
fn drag(h: &mut Harness<'_, EditorApp>, from: egui::Pos2, to: egui::Pos2) {
    h.hover_at(from);
    h.run();
    h.drag_at(from);
    h.run();
    for i in 1..=6 {
        h.hover_at(from + (to - from) * (i as f32 / 6.0));
        h.run();
    }
    h.drop_at(to);
    h.run();
}

#[test]
fn the_escorts_leader_is_cleared_and_picked_by_dragging_a_hierarchy_row() {
    use harbour::Escort;
    let mut h = harbour_editor(&harbour::scene_path());
    h.run();
    let escort = h.state().doc().scene().find("escort").unwrap();
    let leader = |h: &Harness<'_, EditorApp>| {
        let scene = h.state().doc().scene();
        scene.get::<Escort>(escort).unwrap().leader.get(scene)
    };
    assert_eq!(leader(&h), Some(ship(&h)), "the scene file names the ship");
    h.state_mut().doc_mut().selection.select_only(escort);
    h.run();
    // The field shows its target by name; the button clears it.
    h.get_by_label("Leader").scroll_to_me();
    h.run();
    let row = h.get_by_label("Leader").rect().center().y;
    let shown: Vec<_> = h
        .query_all_by_label("ship")
        .filter(|n| (n.rect().center().y - row).abs() < 8.0)
        .collect();
    assert_eq!(shown.len(), 1, "the leader is shown by name on its row");
    drop(shown);
    h.query_all_by_label("×")
        .find(|n| (n.rect().center().y - row).abs() < 8.0)
        .expect("the clear button on the field's row")
        .click();
    h.run();
    assert_eq!(leader(&h), None, "cleared");
    // The ship's row dragged from the hierarchy onto the field.
    let target = h
        .query_all_by_label("None")
        .find(|n| (n.rect().center().y - row).abs() < 8.0)
        .expect("the cleared field shows None")
        .rect()
        .center();
    let ship_row = h
        .query_all_by_label("ship")
        .min_by(|a, b| a.rect().left().total_cmp(&b.rect().left()))
        .expect("the ship's row in the hierarchy")
        .rect()
        .center();
    drag(&mut h, ship_row, target);
    assert_eq!(leader(&h), Some(ship(&h)), "picked by the drag");
    // One undo step each.
    h.state_mut().doc_mut().undo().unwrap();
    h.run();
    assert_eq!(leader(&h), None);
}
