//! The editor's play controls, timeline and animator panel driven like a user
//! would (egui_kittest): play, pause, step, reset, scrubbing the recording and
//! an animator's clip time, and edits at a past step.

mod common;

use std::path::Path;

use common::*;
use egui::accesskit::Role;
use egui::{Modifiers, vec2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::Vec3;
use keel_editor::{Document, EditorApp};
use keel_engine::{NodeId, Scene, Transform};

#[test]
fn play_step_and_reset_go_back_to_the_scene_at_play() {
    let mut h = editor(small_scene(), None);
    let start = h.state().doc().scene().to_file();
    h.get_by_label("Play").click();
    h.run();
    for _ in 0..10 {
        h.state_mut().advance(std::time::Duration::from_millis(20));
    }
    h.run();
    assert_ne!(h.state().doc().scene().to_file(), start, "the flag spins");
    h.get_by_label("Pause").click();
    h.run();
    let paused = h.state().doc().scene().to_file();
    h.state_mut().advance(std::time::Duration::from_millis(100));
    assert_eq!(
        h.state().doc().scene().to_file(),
        paused,
        "paused means no steps"
    );
    h.get_by_label("Step").click();
    h.run();
    h.state_mut().advance(std::time::Duration::ZERO);
    assert_eq!(
        h.state().views().stats.frame.tick.steps,
        1,
        "Step runs exactly one fixed update"
    );
    h.get_by_label("Reset").click();
    h.run();
    assert_eq!(h.state().doc().scene().to_file(), start);
}

/// Runs exactly one fixed step through the editor's frame loop.
fn one_step(h: &mut Harness<'_, EditorApp>) {
    let step = h.state().doc().world.clock().step();
    h.state_mut().advance(step);
    h.run();
}

#[test]
fn scrubbing_the_timeline_back_shows_the_old_transform_in_the_inspector() {
    let mut h = editor(small_scene(), None);
    let flag = node(&h, "flag");
    h.state_mut().doc_mut().selection.select_only(flag);
    h.run();
    h.get_by_label("Play").click();
    h.run();
    let mut seen = Vec::new();
    while h.state().doc().step() < 120 {
        one_step(&mut h);
        let doc = h.state().doc();
        let shown = h.get_by_label("Rotation Y").value();
        seen.push((doc.step(), doc.scene().local(flag).unwrap(), shown));
    }
    h.get_by_label("Pause").click();
    h.run();
    h.get_by_role_and_label(Role::Button, "Timeline").click();
    h.run();
    let timeline = h.get_by_role_and_label(Role::Slider, "Timeline").rect();
    assert!(
        timeline.width() > 50.0,
        "the timeline is shown while recording"
    );

    // Drag the slider to a quarter of its length: about step 30.
    let from = timeline.right_center() - vec2(2.0, 0.0);
    let to = timeline.left_center() + vec2(timeline.width() * 0.25, 0.0);
    drag(&mut h, from, to);
    let at = h.state().doc().step();
    assert!((10..=60).contains(&at), "scrubbed to step {at}");
    let (_, old_local, old_shown) = seen.iter().find(|(s, ..)| *s == at).unwrap().clone();
    assert_eq!(h.state().doc().scene().local(flag), Some(old_local));
    assert_eq!(
        h.get_by_label("Rotation Y").value(),
        old_shown,
        "the inspector follows"
    );
    assert_ne!(old_local, seen.last().unwrap().1, "the flag spun since");

    // One step back with `,`, one forward with the button: along the recording.
    h.key_press(egui::Key::Comma);
    h.run();
    assert_eq!(h.state().doc().step(), at - 1);
    let before = seen.iter().find(|(s, ..)| *s == at - 1).unwrap().1;
    assert_eq!(h.state().doc().scene().local(flag), Some(before));
    h.get_by_label("Step forward >").click();
    h.run();
    assert_eq!(h.state().doc().step(), at);
    assert_eq!(h.state().doc().scene().local(flag), Some(old_local));
    assert_eq!(
        h.state().doc().world.recorder().unwrap().range(),
        Some(0..=120),
        "scrubbing keeps the recorded future"
    );
}

/// Play (recording) until fixed step `step`, then Pause.
fn play_then_pause_at(h: &mut Harness<'_, EditorApp>, step: u64) {
    h.get_by_label("Play").click();
    h.run();
    while h.state().doc().step() < step {
        one_step(h);
    }
    h.get_by_label("Pause").click();
    h.run();
}

#[test]
fn an_edit_at_a_past_step_branches_and_its_undo_brings_the_future_back() {
    let mut h = editor(small_scene(), None);
    let ship = node(&h, "ship");
    play_then_pause_at(&mut h, 90);
    let at_90 = h.state_mut().doc_mut().world.state_hash();
    h.state_mut().doc_mut().seek(40).unwrap();
    let moved = Transform::from_translation(Vec3::new(7.0, 0.0, 0.0));
    h.state_mut()
        .doc_mut()
        .set_transform(ship, moved, None)
        .unwrap();
    h.run();
    let range = h.state().doc().world.recorder().unwrap().range();
    assert_eq!(range, Some(0..=40), "the edit discarded the future");
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    let doc = h.state_mut().doc_mut();
    assert_eq!(
        doc.world.recorder().unwrap().range(),
        Some(0..=90),
        "undo restores it"
    );
    doc.seek(90).unwrap();
    assert_eq!(doc.world.state_hash(), at_90);
}

/// The demo's Fox (assets/models) as the only node, with an animator set up by `setup`.
fn animated_fox(setup: impl FnOnce(&mut keel_engine::Animator)) -> (Scene, NodeId) {
    let fox = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/models/Fox.glb");
    let mut scene = Scene::new();
    let (root, _) = scene
        .spawn_model(None, "fox", Transform::IDENTITY, &fox)
        .unwrap();
    let mut animator = keel_engine::Animator::new("Walk");
    setup(&mut animator);
    scene.insert(root, animator).unwrap();
    (scene, root)
}

#[test]
fn deleting_an_animated_model_and_undoing_keeps_its_animator() {
    let (scene, root) = animated_fox(|a| a.speed = 2.0);
    let mut doc = Document::new(scene, None);
    doc.delete(&[root]).unwrap();
    assert!(doc.scene().find("fox").is_none());
    doc.undo().unwrap();
    let root = doc.scene().find("fox").expect("back");
    let animator = doc.scene().get::<keel_engine::Animator>(root);
    assert_eq!(
        animator.map(|a| (a.clip.as_str(), a.speed)),
        Some(("Walk", 2.0))
    );
}

#[test]
fn scrubbing_an_animator_while_paused_poses_the_bones_and_undo_puts_them_back() {
    let (scene, root) = animated_fox(|a| a.playing = false);
    let mut h = editor(scene, None);
    h.state_mut().doc_mut().selection.select_only(root);
    h.run();
    let pose = |h: &Harness<'_, EditorApp>| -> Vec<Transform> {
        let scene = h.state().doc().scene();
        scene
            .subtree(root)
            .map(|n| scene.local(n).unwrap())
            .collect()
    };
    let before = pose(&h);
    let time = center_of(&h, "Clip time");
    drag(&mut h, time, time + vec2(60.0, 0.0));
    let scrubbed = h
        .state()
        .doc()
        .scene()
        .get::<keel_engine::Animator>(root)
        .unwrap()
        .time;
    assert!(scrubbed > 0.05, "the scrub moved the clip time: {scrubbed}");
    assert_ne!(pose(&h), before, "the bones follow the scrub while paused");
    assert_eq!(h.state().doc().undo.len(), 1, "one undo entry for the drag");
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run();
    let animator = h.state().doc().scene().get::<keel_engine::Animator>(root);
    assert_eq!(animator.map(|a| a.time), Some(0.0));
    assert_eq!(pose(&h), before, "undo poses the bones back");
}

#[test]
fn a_drag_at_a_past_step_is_one_branch_that_one_undo_brings_back() {
    let mut h = editor(small_scene(), None);
    let ship = node(&h, "ship");
    play_then_pause_at(&mut h, 60);
    let doc = h.state_mut().doc_mut();
    doc.seek(20).unwrap();
    // A drag: several edits merged into one undo entry; only the first discards the future.
    for x in [1.0, 2.0, 3.0] {
        let t = Transform::from_translation(Vec3::new(x, 0.0, 0.0));
        doc.set_transform(ship, t, Some(7)).unwrap();
    }
    assert_eq!(doc.undo.len(), 1);
    assert_eq!(doc.world.recorder().unwrap().range(), Some(0..=20));
    doc.undo().unwrap();
    assert_eq!(
        doc.world.recorder().unwrap().range(),
        Some(0..=60),
        "the merged drag's undo brings the future back"
    );
}

/// A game whose one system breaks after a few steps.
struct Fragile;

impl keel_engine::Plugin for Fragile {
    fn build(&self, world: &mut keel_engine::World) -> Result<(), keel_engine::GameError> {
        world.systems_mut().add("fragile", |_, _, ctx| {
            assert!(ctx.index < 5, "the hull gave way");
        })?;
        Ok(())
    }
}

#[test]
fn a_game_system_that_panics_stops_play_and_keeps_the_edits_made_before() {
    let game = keel_engine::Game::new().with(Fragile);
    let app = EditorApp::with_game(Document::new(small_scene(), None), None, game);
    let mut h = harness(app);
    let sea = node(&h, "sea");
    let moved = Transform::from_translation(Vec3::new(0.0, -2.0, 0.0));
    h.state_mut()
        .doc_mut()
        .set_transform(sea, moved, None)
        .unwrap();
    let edited = h.state().doc().scene().to_file();
    h.get_by_label("Play").click();
    h.run();
    for _ in 0..20 {
        h.state_mut().advance(std::time::Duration::from_millis(20));
        h.run();
    }
    let app = h.state();
    assert_eq!(
        app.playback().state(),
        keel_editor::PlayState::Editing,
        "Play stopped"
    );
    assert!(app.status().is_error());
    let text = app.status().text();
    assert!(
        text.contains("`fragile`") && text.contains("the hull gave way"),
        "names the system and its message: {text}"
    );
    assert_eq!(
        app.doc().scene().to_file(),
        edited,
        "the world is back as it was at Play, with the edit made before"
    );
    assert!(
        app.doc().world.system_panic().is_none(),
        "ready to play again"
    );
}

/// A game steered with A and D: its system moves the flag.
struct Helm;

impl keel_engine::Plugin for Helm {
    fn actions(&self) -> keel_engine::input::Actions {
        use keel_engine::input::{Actions, Binding, Key};
        Actions::default().bind(
            "steer",
            Binding::Axis {
                keys: Some((Key::A, Key::D)),
                gamepad: None,
            },
        )
    }

    fn build(&self, world: &mut keel_engine::World) -> Result<(), keel_engine::GameError> {
        world.systems_mut().add("helm", |scene, _, ctx| {
            let steer = scene
                .resource::<keel_engine::Input>()
                .map_or(0.0, |input| input.axis("steer"));
            let flag = scene.find("flag").expect("the flag");
            let mut local = scene.local(flag).unwrap();
            local.translation.x += steer * ctx.dt;
            scene.set_local(flag, local).unwrap();
        })?;
        Ok(())
    }
}

#[test]
fn in_play_the_game_has_the_keys_until_escape_and_a_click_gives_them_back() {
    let game = keel_engine::Game::new().with(Helm);
    let app = EditorApp::with_game(Document::new(small_scene(), None), None, game);
    let mut h = harness(app);
    let flag = node(&h, "flag");
    let flag_x =
        |h: &Harness<'_, EditorApp>| h.state().doc().scene().local(flag).unwrap().translation.x;
    let sea = node(&h, "sea");
    h.state_mut().doc_mut().selection.select_only(sea);
    assert!(
        !h.state().playback().game_has_input(),
        "editing: the editor's keys"
    );
    h.get_by_label("Play").click();
    h.run();
    assert!(
        h.state().playback().game_has_input(),
        "Play gives the game the keys"
    );

    // D held for a while: the game steers; Delete goes to the game too.
    let start = flag_x(&h);
    h.key_down(egui::Key::D);
    h.key_press(egui::Key::Delete);
    for _ in 0..30 {
        h.run();
        h.state_mut().advance(std::time::Duration::from_millis(20));
    }
    h.key_up(egui::Key::D);
    h.run();
    let steered = flag_x(&h);
    assert!(steered - start > 0.4, "steered from {start} to {steered}");
    assert!(
        h.state().doc().scene().contains(sea),
        "Delete went to the game, not to the editor's selection"
    );

    // Escape: the keys are the editor's again, the game reads none.
    h.key_press(egui::Key::Escape);
    h.run();
    assert!(!h.state().playback().game_has_input());
    assert_eq!(
        h.state().playback().state(),
        keel_editor::PlayState::Playing
    );
    h.key_down(egui::Key::D);
    for _ in 0..10 {
        h.run();
        h.state_mut().advance(std::time::Duration::from_millis(20));
    }
    h.key_up(egui::Key::D);
    h.run();
    assert_eq!(flag_x(&h), steered, "no input reaches the game");

    // A click on the Game view gives it back, one on the Scene view takes it again.
    let view = h
        .state()
        .views()
        .game
        .rect
        .expect("Play shows the Game view");
    click_at(&mut h, view.center());
    assert!(
        h.state().playback().game_has_input(),
        "a click in the Game view in Play"
    );
    h.get_by_role_and_label(egui::accesskit::Role::Button, "Scene")
        .click();
    h.run();
    h.run();
    let scene_view = h
        .state()
        .views()
        .viewport
        .rect
        .expect("the Scene tab in front");
    click_at(&mut h, scene_view.center());
    assert!(
        !h.state().playback().game_has_input(),
        "a click in the editor's view takes it back"
    );
}

/// The README's "Make your own game" component and plugin, as written there.
mod readme_game {
    use bevy_reflect::Reflect;
    use keel_engine::scene::{ComponentRegistry, RegistryError};
    use keel_engine::{Component, GameError, Plugin, World};
    use serde::{Deserialize, Serialize};

    #[derive(Clone, Debug, Default, Serialize, Deserialize, Reflect)]
    pub struct Health {
        #[reflect(@0.0..=100.0_f32)]
        pub hp: f32,
        pub regen: f32,
    }

    impl Component for Health {
        const NAME: &'static str = "health";
    }

    pub struct MyGame;

    impl Plugin for MyGame {
        fn components(&self, registry: &mut ComponentRegistry) -> Result<(), RegistryError> {
            registry.register::<Health>()
        }

        fn build(&self, world: &mut World) -> Result<(), GameError> {
            world.systems_mut().add("regen", |scene, _, step| {
                for health in scene.components_mut().parts_mut::<Health>().1 {
                    health.hp = (health.hp + health.regen * step.dt).min(100.0);
                }
            })?;
            Ok(())
        }
    }
}

#[test]
fn the_readme_game_steps_work_in_its_editor() {
    use readme_game::{Health, MyGame};
    let app = EditorApp::new(keel_editor::EditorOptions {
        game: keel_engine::Game::new().with(MyGame),
        ..keel_editor::EditorOptions::default()
    });
    let mut h = harness(app);
    h.run();
    // Add > Empty node.
    h.get_by_label("Add").click();
    h.run();
    h.get_by_label("Empty node").click();
    h.run();
    let node = h
        .state()
        .doc()
        .scene()
        .roots()
        .next()
        .expect("a node added");
    h.state_mut().doc_mut().selection.select_only(node);
    h.run();
    // Add component > Health.
    click_scrolled(&mut h, "Add component");
    h.run();
    h.get_by_label("Health").click();
    h.run();
    let health = |h: &Harness<'_, EditorApp>| h.state().doc().scene().get::<Health>(node).cloned();
    assert_eq!(health(&h).map(|c| c.hp), Some(0.0));
    h.get_by_label("Hp").set_value_accesskit(150.0);
    h.run();
    assert_eq!(health(&h).map(|c| c.hp), Some(100.0), "0 to 100");
    h.get_by_label("Hp").set_value_accesskit(10.0);
    h.run();
    h.get_by_label("Regen").set_value_accesskit(5.0);
    h.run();
    // Play: hp climbs; Reset puts it back.
    h.get_by_label("Play").click();
    h.run();
    for _ in 0..50 {
        h.state_mut().advance(std::time::Duration::from_millis(20));
        h.run();
    }
    let hp = health(&h).unwrap().hp;
    assert!(hp > 14.0, "regenerated to {hp}");
    h.get_by_label("Reset").click();
    h.run();
    assert_eq!(health(&h).map(|c| c.hp), Some(10.0));
    // Saved under its name, and read back by the same program.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("my_scene.ron");
    h.state_mut().doc_mut().save_to(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("health: (hp: 10.0, regen: 5.0)"), "{text}");
    let assets = keel_engine::Assets::new();
    let reopened = keel_engine::Game::new()
        .with(MyGame)
        .load(&path, &assets)
        .expect("reopened");
    let (_, read) = reopened.scene().components().parts::<Health>();
    assert_eq!(read[0].regen, 5.0);
}
