//! Models in the editor, driven like a user would (egui_kittest): File >
//! Import model…, files dropped on the window (glTF and OBJ alike), and a
//! broken model refused with its place named.

use std::path::{Path, PathBuf};

use egui::Modifiers;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::Vec3;
use keel_editor::{Document, EditorApp};
use keel_engine::{NodeId, Transform};

mod common;

use common::*;

fn lighthouse_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/models/lighthouse.glb")
}

fn model_parts(h: &Harness<'_, EditorApp>, root: NodeId) -> usize {
    let scene = h.state().doc().scene();
    scene
        .subtree(root)
        .filter(|&n| scene.is_model_part(n))
        .count()
}

#[test]
fn file_import_gltf_adds_a_model_instance_as_one_undo_step() {
    let mut h = editor(small_scene(), None);
    let before = h.state().doc().scene().len();
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Import model…").click();
    h.run();
    h.get_by_label("Path").focus();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::A);
    h.get_by_label("Path")
        .type_text(&lighthouse_path().display().to_string());
    h.run();
    h.get_by_label("Import").click();
    h.run();

    assert!(!h.state().has_dialog(), "{}", h.state().status().text());
    let root = node(&h, "lighthouse");
    let parts = model_parts(&h, root);
    assert!(parts >= 4, "{parts} parts");
    assert_eq!(h.state().doc().scene().len(), before + 1 + parts);
    assert_eq!(h.state().doc().selection.primary(), Some(root));

    // Parts are read-only: the inspector says why, and edits are refused.
    let part = h.state().doc().scene().subtree(root).nth(1).unwrap();
    let refused =
        h.state_mut()
            .doc_mut()
            .set_transform(part, Transform::from_translation(Vec3::X), None);
    assert!(refused.is_err());
    assert!(h.state_mut().doc_mut().delete(&[part]).is_err());

    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(
        h.state().doc().scene().len(),
        before,
        "undo removes the whole instance"
    );
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, egui::Key::Z);
    h.run();
    let root = node(&h, "lighthouse");
    assert_eq!(model_parts(&h, root), parts, "redo rebuilds the parts");
}

/// A file dropped on the window, as winit reports it.
#[derive(Debug)]
struct Dropped(PathBuf);

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &Path {
        &self.0
    }

    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

#[test]
fn dropping_a_model_file_on_the_window_imports_it_and_saving_keeps_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = editor(small_scene(), None);
    h.input_mut()
        .dropped_files
        .push(std::sync::Arc::new(Dropped(lighthouse_path())));
    h.run();
    let root = node(&h, "lighthouse");
    assert!(model_parts(&h, root) >= 4);

    // Deleting and undoing brings the parts back from the file.
    h.state_mut().doc_mut().delete(&[root]).unwrap();
    assert!(h.state().doc().scene().find("lighthouse").is_none());
    h.state_mut().doc_mut().undo().unwrap();
    let root = node(&h, "lighthouse");
    assert!(model_parts(&h, root) >= 4);

    let path = dir.path().join("with_model.ron");
    h.state_mut().doc_mut().save_to(&path).unwrap();
    let reopened = Document::open(&path, &keel_engine::Assets::new()).unwrap();
    assert_eq!(reopened.scene().len(), h.state().doc().scene().len());
    assert_eq!(
        reopened.scene().to_file(),
        h.state().doc().scene().to_file()
    );

    // Anything else dropped is refused with a message, and nothing changes.
    let len = h.state().doc().scene().len();
    h.input_mut()
        .dropped_files
        .push(std::sync::Arc::new(Dropped(dir.path().join("notes.txt"))));
    h.run();
    assert_eq!(h.state().doc().scene().len(), len);
    assert!(h.state().status().text().contains("notes.txt"));
}

/// An OBJ model goes the way a glTF one does: dropped, drawn as parts,
/// saved by reference, listed by the import dialog and the asset index.
#[test]
fn an_obj_model_drops_in_like_a_gltf_one() {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets");
    let crate_obj = assets.join("models/crate.obj");
    let mut h = editor(small_scene(), None);
    h.input_mut()
        .dropped_files
        .push(std::sync::Arc::new(Dropped(crate_obj.clone())));
    h.run();
    let root = node(&h, "crate");
    // One object with two materials: its node, and a second part for the
    // second primitive.
    assert_eq!(model_parts(&h, root), 2, "{}", h.state().status().text());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("with_crate.ron");
    h.state_mut().doc_mut().save_to(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("crate.obj"), "{text}");
    let reopened = Document::open(&path, &keel_engine::Assets::new()).unwrap();
    assert_eq!(
        reopened.scene().to_file(),
        h.state().doc().scene().to_file()
    );

    // The import dialog lists it beside the glTF files.
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Import model…").click();
    h.run();
    h.get_by_label("Path").focus();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::A);
    h.get_by_label("Path")
        .type_text(&format!("{}/", assets.join("models").display()));
    h.run();
    h.get_by_label("crate.obj");
    h.get_by_label("lighthouse.glb");
    assert!(
        h.query_by_label("crate.mtl").is_none(),
        "only models are listed"
    );

    // The asset index calls it a model (it can be placed and gets a thumbnail).
    let formats = keel_engine::assets::Importers::default();
    let kind = keel_editor::AssetKind::of(&crate_obj, &formats);
    assert_eq!(kind, keel_editor::AssetKind::Model);
    assert!(kind.placeable());
}

#[test]
fn importing_a_broken_model_shows_the_file_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("broken.glb");
    std::fs::write(&glb, b"glTF\x02\x00\x00\x00").unwrap();
    let obj = dir.path().join("broken.obj");
    std::fs::write(&obj, b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n").unwrap();
    for (bad, expected) in [(glb, "broken.glb"), (obj, "broken.obj: line 4")] {
        let mut h = editor(small_scene(), None);
        let before = h.state().doc().scene().to_file();
        h.state_mut()
            .act(keel_editor::Action::ImportPath(bad.clone()));
        h.run();
        assert!(h.state().has_dialog(), "an error dialog");
        assert!(
            h.state().status().text().contains(expected),
            "{}",
            h.state().status().text()
        );
        assert_eq!(h.state().doc().scene().to_file(), before);
        assert!(!h.state().doc().is_dirty());
    }
}
