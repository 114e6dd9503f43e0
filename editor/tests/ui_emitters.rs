//! Particle emitters in the editor driven like a user would (egui_kittest):
//! edited, validated, duplicated, deleted and undone through the inspector.

mod common;

use common::*;
use egui::Modifiers;
use egui_kittest::kittest::Queryable;
use keel_engine::Emitter;
use keel_engine::particles::FloatRange;

#[test]
fn delete_then_undo_brings_back_an_emitter() {
    let mut h = editor(scene_with_emitter(), None);
    let start = h.state().doc().scene().to_file();
    let hull = node(&h, "hull");
    let emitter = h
        .state()
        .doc()
        .scene()
        .get::<Emitter>(hull)
        .cloned()
        .unwrap();
    h.get_by_label("hull").click();
    h.run();
    assert!(h.query_by_label("Emission rate (/s)").is_some());
    h.key_press(egui::Key::Delete);
    h.run();
    assert!(h.state().doc().scene().find("hull").is_none());

    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    let scene = h.state().doc().scene();
    assert_eq!(scene.to_file(), start);
    let hull = scene.find("hull").unwrap();
    assert_eq!(scene.get::<Emitter>(hull), Some(&emitter));
}

#[test]
fn duplicating_a_node_copies_its_emitter() {
    let mut h = editor(scene_with_emitter(), None);
    let hull = node(&h, "hull");
    h.get_by_label("hull").click();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::D);
    h.run();
    let scene = h.state().doc().scene();
    let copy = scene.find("hull (copy)").expect("a copy");
    assert_eq!(scene.get::<Emitter>(copy), scene.get::<Emitter>(hull));
    assert!(scene.get::<Emitter>(copy).is_some());
}

#[test]
fn editing_the_emission_rate_in_the_inspector_is_one_undoable_edit() {
    let mut h = editor(scene_with_emitter(), None);
    let hull = node(&h, "hull");
    let before = h.state().doc().scene().get::<Emitter>(hull).unwrap().rate;
    h.get_by_label("hull").click();
    h.run();
    h.get_by_label("Emission rate (/s)")
        .set_value_accesskit(f64::from(before) + 30.5);
    h.run();
    let doc = &h.state().doc();
    assert_eq!(
        doc.scene().get::<Emitter>(hull).unwrap().rate,
        before + 30.5
    );
    assert_eq!(doc.undo.len(), 1);

    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    let scene = h.state().doc().scene();
    assert_eq!(scene.get::<Emitter>(hull).unwrap().rate, before);
    assert_eq!(scene.to_file(), scene_with_emitter().to_file());
}

#[test]
fn an_invalid_emitter_edit_is_not_applied_and_says_why() {
    let mut h = editor(scene_with_emitter(), None);
    let hull = node(&h, "hull");
    let start = h.state().doc().scene().to_file();
    h.get_by_label("hull").click();
    h.run();
    // Lifetime min above max: the scene keeps the valid emitter.
    h.get_by_label("Lifetime min").set_value_accesskit(5.0);
    h.run();
    assert_eq!(h.state().doc().scene().to_file(), start);
    assert!(!h.state().doc().undo.can_undo());
    assert!(
        h.query_by_label_contains("`lifetime` has min 5").is_some(),
        "the reason is shown"
    );
    // Raising max finishes the edit, which then applies as a whole.
    h.get_by_label("Lifetime max").set_value_accesskit(6.0);
    h.run();
    let lifetime = h
        .state()
        .doc()
        .scene()
        .get::<Emitter>(hull)
        .unwrap()
        .lifetime;
    assert_eq!(lifetime, FloatRange::new(5.0, 6.0));
    assert!(h.query_by_label_contains("`lifetime` has min").is_none());
}

#[test]
fn emitter_stops_and_bursts_are_added_and_removed_in_the_inspector() {
    let mut h = editor(scene_with_emitter(), None);
    let hull = node(&h, "hull");
    h.get_by_label("hull").click();
    h.run();
    // The emitter's rows sit below the mesh's in the inspector: scrolled to, as a user would.
    for button in ["Add color stop", "Add burst"] {
        click_scrolled(&mut h, button);
        h.run();
    }
    let e = h
        .state()
        .doc()
        .scene()
        .get::<Emitter>(hull)
        .unwrap()
        .clone();
    assert_eq!(e.color_over_life.len(), 3);
    assert!(e.color_over_life.windows(2).all(|w| w[0].t <= w[1].t));
    assert_eq!(e.bursts.len(), 2);
    click_scrolled(&mut h, "Remove burst 1");
    h.run();
    let e = h
        .state()
        .doc()
        .scene()
        .get::<Emitter>(hull)
        .unwrap()
        .clone();
    assert_eq!(e.bursts.len(), 1);
    assert_eq!(e.bursts[0].time, 0.75);
    assert_eq!(h.state().doc().undo.len(), 3);
}
