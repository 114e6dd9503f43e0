//! Editing comforts driven like a user would (egui_kittest): copy and paste
//! of subtrees between two editors through the clipboard's scene-file text,
//! and renaming a multi-selection by a pattern; each one undo step.

mod common;

use common::*;
use egui::Modifiers;
use egui_kittest::kittest::Queryable;

#[test]
fn ctrl_c_copies_a_subtree_as_scene_text_and_ctrl_v_pastes_it_into_another_scene() {
    let mut h = editor(small_scene(), None);
    h.get_by_label("mast").click();
    h.run();
    let text = copy_selection(&mut h);
    assert!(text.contains("name: \"mast\""), "scene-file text:\n{text}");

    // A second editor on another scene (nothing selected): pasted at the root.
    let mut other = editor(small_scene(), None);
    let masts = |h: &egui_kittest::Harness<'_, keel_editor::EditorApp>| {
        let scene = h.state().doc().scene();
        scene
            .nodes()
            .filter(|&n| scene.name(n) == Some("mast"))
            .count()
    };
    assert_eq!(masts(&other), 1);
    other.event(egui::Event::Paste(text));
    other.run();
    assert_eq!(masts(&other), 2, "the copy is in the second scene");
    let pasted = other
        .state()
        .doc()
        .selection
        .primary()
        .expect("the paste is selected");
    assert_eq!(other.state().doc().scene().parent(pasted), None);
}

#[test]
fn a_multi_selection_is_renamed_by_a_pattern_in_one_undo_step() {
    let mut h = editor(small_scene(), None);
    let (ship, mast) = (node(&h, "ship"), node(&h, "mast"));
    h.state_mut().doc_mut().selection.set_all([ship, mast]);
    h.run();
    h.get_by_label("Rename selection").click();
    h.run();
    h.get_by_label("Rename selection").type_text("part_## (*)");
    h.run();
    h.key_press(egui::Key::Enter);
    h.run();
    let name = |h: &egui_kittest::Harness<'_, keel_editor::EditorApp>, n| {
        h.state().doc().scene().name(n).unwrap().to_owned()
    };
    assert_eq!(
        (name(&h, ship), name(&h, mast)),
        ("part_01 (ship)".into(), "part_02 (mast)".into())
    );
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(
        (name(&h, ship), name(&h, mast)),
        ("ship".into(), "mast".into()),
        "one undo step"
    );
}

/// Two nodes in different subtrees, selected together and turned with the
/// rotate gizmo about their median: whatever ring the probe grabs, both turn
/// by the same rotation about the mean of their origins (which stays put),
/// and one undo puts both back.
#[test]
fn a_multi_selection_rotates_about_its_median_pivot_and_undoes_in_one_step() {
    use glam::Quat;
    let mut h = editor(small_scene(), None);
    let (mast, sea) = (node(&h, "mast"), node(&h, "sea"));
    h.state_mut().doc_mut().selection.set_all([sea, mast]);
    h.state_mut().views_mut().gizmo.mode = keel_editor::GizmoMode::Rotate;
    h.state_mut().views_mut().gizmo.space = keel_editor::GizmoSpace::World;
    h.state_mut().views_mut().gizmo.pivot = keel_editor::Pivot::Median;
    h.run();
    h.run();
    let world = |h: &egui_kittest::Harness<'_, keel_editor::EditorApp>, n| {
        h.state()
            .doc()
            .scene()
            .world(n)
            .unwrap()
            .to_scale_rotation_translation()
    };
    let locals_before = [mast, sea].map(|n| h.state().doc().scene().local(n).unwrap());
    let (_, mast_rot, mast_at) = world(&h, mast);
    let (_, sea_rot, sea_at) = world(&h, sea);
    let median = (mast_at + sea_at) / 2.0;

    // A handle of the rings around the median, found by probing circles.
    let centre = to_screen(&h, median);
    let grab = (40..160)
        .step_by(4)
        .flat_map(|r| (0..48).map(move |i| (r as f32, i as f32 / 48.0 * std::f32::consts::TAU)))
        .map(|(r, a)| centre + egui::vec2(keel_engine::math::cos(a), keel_engine::math::sin(a)) * r)
        .find(|&p| h.state().views().viewport.gizmo.handle_at(p))
        .expect("the rotate gizmo has a ring around the median");
    let out = (grab - centre).normalized();
    drag(&mut h, grab, grab + egui::vec2(-out.y, out.x) * 70.0);

    let (_, mast_rot2, mast_at2) = world(&h, mast);
    let (_, sea_rot2, sea_at2) = world(&h, sea);
    let turn = mast_rot2 * mast_rot.inverse();
    assert!(
        turn.angle_between(Quat::IDENTITY) > 0.05,
        "the drag turned the mast: {turn:?}"
    );
    let same_turn = sea_rot2 * sea_rot.inverse();
    assert!(
        turn.dot(same_turn).abs() > 1.0 - 1e-4,
        "both nodes turned alike: {turn:?} vs {same_turn:?}"
    );
    for (before, after) in [(mast_at, mast_at2), (sea_at, sea_at2)] {
        let expected = median + turn * (before - median);
        assert!(
            after.abs_diff_eq(expected, 1e-3),
            "{before} should turn about the median {median} to {expected}, not {after}"
        );
    }
    assert!(
        ((mast_at2 + sea_at2) / 2.0).abs_diff_eq(median, 1e-3),
        "the median stays put"
    );

    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    let locals_after = [mast, sea].map(|n| h.state().doc().scene().local(n).unwrap());
    assert_eq!(locals_after, locals_before, "one undo puts both back");
}
