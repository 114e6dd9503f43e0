//! Editing comforts driven like a user would (egui_kittest): copy and paste
//! of subtrees between two editors through the clipboard's scene-file text,
//! renaming a multi-selection by a pattern, and resizing a collider by its
//! handle in the Scene view; each one undo step.

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

/// A box collider's +X handle sits on its face, on screen where the scene
/// view draws it: dragging it outwards widens the box along X alone, as one
/// undo entry, without moving the node or the camera.
#[test]
fn dragging_a_colliders_handle_resizes_its_shape_as_one_undo_step() {
    use keel_engine::glam::Vec3;
    let mut scene = small_scene();
    let hull = scene.find("hull").unwrap();
    let half = Vec3::new(0.5, 0.5, 0.5);
    scene
        .insert(hull, keel_engine::Collider::cuboid(half))
        .unwrap();
    let mut h = editor(scene, None);
    h.get_by_label("hull").click();
    h.run();
    h.run();
    let start = h.state().doc().scene().to_file();
    let local_before = h.state().doc().scene().local(hull).unwrap();
    let orbit_before = h.state().views().viewport.rig.as_ref().unwrap().orbit;
    let world = h.state().doc().scene().world(hull).unwrap();
    let face = world.transform_point3(Vec3::X * half.x);
    let grab = to_screen(&h, face);
    let outward =
        (to_screen(&h, face + world.transform_vector3(Vec3::X) * 0.1) - grab).normalized();
    drag(&mut h, grab, grab + outward * 60.0);

    let doc = h.state().doc();
    let collider = doc.scene().get::<keel_engine::Collider>(hull).unwrap();
    let keel_engine::ColliderShape::Cuboid { half_extents } = collider.shape else {
        panic!("still a box: {:?}", collider.shape);
    };
    assert!(
        half_extents.x > half.x + 0.1,
        "widened along x: {half_extents}"
    );
    assert_eq!(
        (half_extents.y, half_extents.z),
        (half.y, half.z),
        "and along x alone"
    );
    assert_eq!(
        doc.scene().local(hull).unwrap(),
        local_before,
        "the node stayed"
    );
    assert_eq!(doc.undo.len(), 1, "the whole drag is one undo entry");
    assert_eq!(
        h.state().views().viewport.rig.as_ref().unwrap().orbit,
        orbit_before,
        "the drag did not orbit the camera"
    );
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(h.state().doc().scene().to_file(), start, "Ctrl+Z undoes it");
}
