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
    h.event(egui::Event::Copy);
    // One frame: the clipboard command is in that frame's output only.
    h.step();
    let text = h
        .output()
        .platform_output
        .commands
        .iter()
        .find_map(|c| match c {
            egui::OutputCommand::CopyText(text) => Some(text.clone()),
            _ => None,
        })
        .expect("the copy reached the clipboard");
    assert!(text.contains("name: \"mast\""), "scene-file text:\n{text}");

    // A second editor on another scene (nothing selected): pasted at the root.
    let mut other = editor(small_scene(), None);
    let masts = |h: &egui_kittest::Harness<'_, keel_editor::EditorApp>| {
        let scene = h.state().doc.scene();
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
        .doc
        .selection
        .primary()
        .expect("the paste is selected");
    assert_eq!(other.state().doc.scene().parent(pasted), None);
}

#[test]
fn a_multi_selection_is_renamed_by_a_pattern_in_one_undo_step() {
    let mut h = editor(small_scene(), None);
    let (ship, mast) = (node(&h, "ship"), node(&h, "mast"));
    h.state_mut().doc.selection.set_all([ship, mast]);
    h.run();
    h.get_by_label("Rename selection").click();
    h.run();
    h.get_by_label("Rename selection").type_text("part_## (*)");
    h.run();
    h.key_press(egui::Key::Enter);
    h.run();
    let name = |h: &egui_kittest::Harness<'_, keel_editor::EditorApp>, n| {
        h.state().doc.scene().name(n).unwrap().to_owned()
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
