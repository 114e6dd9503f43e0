//! The scene's environment and shadow settings edited in the inspector (shown
//! when nothing is selected), and a mesh's alpha mode, sidedness and shadow casting, driven like a user
//! would (egui_kittest); every change undoable.

mod common;

use common::*;
use egui::Modifiers;
use egui_kittest::kittest::Queryable;
use keel_engine::MeshRenderer;

#[test]
fn with_nothing_selected_the_inspector_edits_the_shadows_undoably() {
    let mut h = editor(small_scene(), None);
    h.run();
    let before = h.state().doc().scene().environment().clone();
    h.get_by_label("Depth bias").set_value_accesskit(2.5);
    h.run();
    h.get_by_label("Shadow distance").set_value_accesskit(40.0);
    h.run();
    h.get_by_label("Shadows").click();
    h.run();
    let shadows = h.state().doc().scene().environment().shadows;
    assert_eq!(shadows.depth_bias, 2.5);
    assert_eq!(shadows.distance, 40.0);
    assert!(!shadows.enabled, "the checkbox turned shadows off");
    assert_eq!(h.state().doc().undo.len(), 3);
    assert_eq!(h.state().doc().undo.undo_label(), Some("Edit environment"));
    // The scene file carries them.
    let file = h.state().doc().scene().to_file();
    assert_eq!(file.environment.shadows, shadows);
    for _ in 0..3 {
        h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
        h.run();
    }
    assert_eq!(*h.state().doc().scene().environment(), before);
}

#[test]
fn exposure_tonemapper_and_bloom_are_edited_in_the_same_panel() {
    let mut h = editor(small_scene(), None);
    h.run();
    h.get_by_label("Exposure").set_value_accesskit(1.5);
    h.run();
    h.get_by_label("Bloom").click();
    h.run();
    h.get_by_label("Tonemapper").click();
    h.run();
    h.get_by_label("AgX").click();
    h.run();
    let post = h.state().doc().scene().environment().post;
    assert_eq!(post.exposure, 1.5);
    assert!(post.bloom);
    assert_eq!(post.tonemapper, keel_engine::scene::Tonemapper::Agx);
    assert_eq!(h.state().doc().undo.len(), 3);
}

#[test]
fn an_out_of_range_setting_is_refused_naming_the_field() {
    let mut doc = keel_editor::Document::new(small_scene(), None);
    let mut env = doc.scene().environment().clone();
    env.shadows.cascades = 7;
    let error = doc.set_environment(env, None).unwrap_err().to_string();
    assert!(error.contains("shadows.cascades"), "{error}");
    assert!(!doc.undo.can_undo(), "a refused edit is not recorded");
}

#[test]
fn a_mesh_becomes_a_double_sided_alpha_mask_in_the_inspector() {
    let mut h = editor(small_scene(), None);
    h.get_by_label("sea").click();
    h.run();
    h.get_by_label("Alpha mode").click();
    h.run();
    h.get_by_label("Mask").click();
    h.run();
    h.get_by_label("Alpha cutoff").set_value_accesskit(0.25);
    h.run();
    h.get_by_label("Double-sided").click();
    h.run();
    let sea = node(&h, "sea");
    let material = h
        .state()
        .doc()
        .scene()
        .get::<MeshRenderer>(sea)
        .unwrap()
        .material;
    assert_eq!(
        material.alpha_mode,
        keel_engine::assets::AlphaMode::Mask { cutoff: 0.25 }
    );
    assert!(material.double_sided);
    assert_eq!(h.state().doc().undo.len(), 3, "mode, cutoff, sidedness");
}

#[test]
fn a_mesh_stops_casting_shadows_from_its_checkbox() {
    let mut h = editor(small_scene(), None);
    h.get_by_label("sea").click();
    h.run();
    let sea = node(&h, "sea");
    let casts = |h: &egui_kittest::Harness<'_, keel_editor::EditorApp>| {
        h.state()
            .doc()
            .scene()
            .get::<MeshRenderer>(sea)
            .unwrap()
            .cast_shadows
    };
    assert!(casts(&h));
    h.get_by_label("Cast shadows").click();
    h.run();
    assert!(!casts(&h));
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert!(casts(&h));
}

#[test]
fn a_spot_light_casts_shadows_from_its_checkbox() {
    use keel_engine::{Light, LightKind, Transform};
    let mut scene = small_scene();
    let torch = scene.spawn(None, "torch", Transform::IDENTITY).unwrap();
    let spot = LightKind::Spot {
        range: 10.0,
        inner_degrees: 20.0,
        outer_degrees: 30.0,
    };
    scene
        .insert(
            torch,
            Light {
                kind: spot,
                color: glam::Vec3::ONE,
                intensity: 5.0,
                cast_shadows: false,
            },
        )
        .unwrap();
    let mut h = editor(scene, None);
    h.get_by_label("torch").click();
    h.run();
    let torch = node(&h, "torch");
    let casts = |h: &egui_kittest::Harness<'_, keel_editor::EditorApp>| {
        h.state()
            .doc()
            .scene()
            .get::<Light>(torch)
            .unwrap()
            .cast_shadows
    };
    assert!(!casts(&h));
    h.get_by_label("Cast shadows").click();
    h.run();
    assert!(casts(&h), "the checkbox turns the spot's shadows on");
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert!(!casts(&h), "undone");
}

#[test]
fn a_sky_image_is_chosen_cleared_and_undone_in_the_environment_panel() {
    let mut h = editor(small_scene(), None);
    h.run();
    let harbour = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../assets/skies/harbour.hdr")
        .canonicalize()
        .unwrap();
    let sky = |h: &egui_kittest::Harness<'_, keel_editor::EditorApp>| {
        h.state().doc().scene().environment().sky.clone()
    };
    assert_eq!(sky(&h), None);
    click_scrolled(&mut h, "Sky image");
    h.run();
    h.get_by_label("Sky image")
        .type_text(&harbour.display().to_string());
    h.run();
    h.key_press(egui::Key::Enter);
    h.run();
    assert_eq!(
        sky(&h),
        Some(harbour.clone()),
        "the typed sky is loaded and set"
    );

    h.get_by_label("Clear sky").click();
    h.run();
    assert_eq!(sky(&h), None, "back to the hemisphere");
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(sky(&h), Some(harbour), "undone");

    // A file that is no sky: the scene keeps its sky and the status says why.
    h.get_by_label("Sky image").click();
    h.run();
    h.get_by_label("Sky image")
        .type_text("/nonexistent/none.hdr");
    h.run();
    h.key_press(egui::Key::Enter);
    h.run();
    assert!(sky(&h).is_some(), "a bad path changes nothing");
}
