//! Live mode's handover with the harbour game: the editing state one build
//! hands the next survives whole, the ship then sails by the new `sail`, and
//! the timeline's "what if" finds the first step the new code changed, as a
//! replay of the old recording against the new code does.
//!
//! The new build is the harbour's plugin with `sail` given another body
//! ([`keel_engine::Systems::replace`]), what editing `sail` in `lib.rs` and
//! rebuilding gives (the process side, rebuilding and restarting, is
//! `keel_editor::live_build`'s and the shell's).

use std::path::{Path, PathBuf};
use std::time::Duration;

use harbour::{HARBOUR_HALF_SIZE, HarbourPlugin, Ship};
use keel_editor::test_kit::egui::vec2;
use keel_editor::test_kit::{Harness, Queryable};
use keel_editor::{Action, EditorApp, EditorOptions, Handover, PlayState};
use keel_engine::glam::{Quat, Vec3};
use keel_engine::input::Key;
use keel_engine::record::{Recording, Verdict};
use keel_engine::{
    Assets, Commands, Game, GameError, Input, NodeId, Plugin, Scene, StepContext, World,
};

/// The harbour with `sail` turning `factor` times as hard (1.0: the same
/// code, a no-op change), or panicking.
struct EditedSail {
    factor: f32,
    panics: bool,
}

impl Plugin for EditedSail {
    fn name(&self) -> String {
        "edited sail".to_owned()
    }

    fn build(&self, world: &mut World) -> Result<(), GameError> {
        let (factor, panics) = (self.factor, self.panics);
        world.systems_mut().replace(
            "sail",
            move |scene: &mut Scene, _: &mut Commands, step: &StepContext| {
                assert!(!panics, "the new sail fails");
                sail(scene, step, factor);
            },
        )?;
        Ok(())
    }
}

/// The harbour's `sail`, its turn scaled by `factor`.
fn sail(scene: &mut Scene, step: &StepContext, factor: f32) {
    let (steer, throttle) = scene.resource::<Input>().map_or((0.0, 0.0), |input| {
        (input.axis("steer"), input.axis("throttle"))
    });
    let dt = step.dt;
    let walked = scene.query_each::<(&mut Ship,)>(|node, (ship,), transforms| {
        let Some(mut local) = transforms.local(node) else {
            return;
        };
        let change = if throttle != 0.0 {
            throttle * ship.acceleration
        } else {
            -0.25 * ship.acceleration
        };
        ship.speed = (ship.speed + change * dt).clamp(0.0, ship.max_speed);
        let way = (ship.speed / ship.max_speed.max(1e-3)).min(1.0);
        let turn = Quat::from_rotation_y(-steer * ship.turn_rate * factor * way * dt);
        local.rotation = (turn * local.rotation).normalize();
        let forward = local.rotation * Vec3::NEG_Z;
        let at = local.translation + forward * ship.speed * dt;
        let half = HARBOUR_HALF_SIZE;
        local.translation = Vec3::new(at.x.clamp(-half, half), at.y, at.z.clamp(-half, half));
        let _ = transforms.set_local(node, local);
    });
    debug_assert!(walked.is_ok(), "one required term");
}

fn edited(factor: f32, panics: bool) -> Game {
    Game::new()
        .with(HarbourPlugin)
        .with(EditedSail { factor, panics })
}

/// The game's folder copied to a temp folder: the editor autosaves unsaved
/// edits beside the scene, which must not be the repository's.
fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    for file in [
        "harbour.ron",
        "input.ron",
        "prefabs/boat.ron",
        "models/lighthouse.glb",
    ] {
        let to = dir.path().join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(harbour::scene_path().with_file_name(file), &to).unwrap();
    }
    let scene = dir.path().join("harbour.ron");
    (dir, scene)
}

fn options(game: Game, scene: &Path) -> EditorOptions {
    EditorOptions {
        scene: Some(scene.to_path_buf()),
        game,
        ..EditorOptions::default()
    }
}

fn harness(app: EditorApp) -> Harness<'static, EditorApp> {
    keel_editor::test_kit::harness(app, vec2(1400.0, 860.0))
}

/// The ship, renamed by the edits before Play.
fn ship(app: &EditorApp) -> NodeId {
    app.doc()
        .scene()
        .find("flagship")
        .expect("the renamed ship")
}

/// What the tests compare of the editing state.
#[derive(Debug, PartialEq)]
struct Editing {
    scene: String,
    selection: Vec<String>,
    dirty: bool,
    undo: usize,
    redo: usize,
    title: String,
}

fn editing(app: &EditorApp) -> Editing {
    let doc = app.doc();
    let scene = doc.scene();
    Editing {
        scene: scene
            .to_file_in(None)
            .to_text(Path::new("compared"))
            .unwrap(),
        selection: doc
            .selection
            .nodes()
            .iter()
            .map(|&n| scene.name(n).unwrap_or_default().to_owned())
            .collect(),
        dirty: doc.is_dirty(),
        undo: doc.undo.len(),
        redo: doc.undo.redo_len(),
        title: app.doc().title(),
    }
}

/// The harbour edited (a rename, a delete undone and redone, a buoy moved
/// and that move undone), the ship selected, then played with the keys for
/// `frames` frames of 20 ms: full sail, a turn to starboard from frame 100.
fn edited_and_played(scene: &Path, frames: usize) -> (Harness<'static, EditorApp>, Editing) {
    let mut h = harness(EditorApp::new(options(harbour::game(), scene)));
    h.run();
    let app = h.state_mut();
    let doc = app.doc_mut();
    let scene = doc.scene();
    let buoys: Vec<NodeId> = scene.components().parts::<harbour::Buoy>().0.to_vec();
    let ship_node = scene.find("ship").unwrap();
    doc.rename(ship_node, "flagship").unwrap();
    doc.delete(&buoys[..1]).unwrap();
    doc.undo().unwrap();
    doc.redo().unwrap();
    let mut moved = doc.scene().local(buoys[1]).unwrap();
    moved.translation.x += 3.0;
    doc.set_transform(buoys[1], moved, None).unwrap();
    doc.undo().unwrap();
    doc.selection.select_only(ship_node);
    let before = editing(h.state());
    h.get_by_label("Play").click();
    h.run();
    assert_eq!(
        h.state().playback().state(),
        PlayState::Playing,
        "dialog {} status {}",
        h.state().has_dialog(),
        h.state().status().text()
    );
    // The keys pressed as a script does (the window's keys are the other
    // editor tests'), the frames run as the shell runs them.
    let app = h.state_mut();
    app.playback_mut().game_input_mut().key(Key::W, true);
    for frame in 0..frames {
        if frame == 100 {
            app.playback_mut().game_input_mut().key(Key::D, true);
        }
        app.advance(Duration::from_millis(20));
    }
    app.playback_mut().game_input_mut().release_all();
    (h, before)
}

/// A fresh headless world of `game` from the harbour's scene, run through
/// the handover's recorded inputs.
/// A headless world of `game` from the handover's scene text (the edited
/// document), as `Game::load` makes one from a file.
fn world_of(game: &Game, scene: &Path, handover: &Handover) -> World {
    let assets = Assets::new();
    game.register(&assets).unwrap();
    let mut world = World::new(Scene::from_text(&handover.scene, scene, &assets).unwrap());
    game.build_for(&mut world, scene).unwrap();
    world
}

fn fresh_run(game: &Game, scene: &Path, handover: &Handover) -> World {
    fresh_run_to(game, scene, handover, handover.play.as_ref().unwrap().steps)
}

/// As [`fresh_run`], for the first `steps` steps.
fn fresh_run_to(game: &Game, scene: &Path, handover: &Handover, steps: u64) -> World {
    let mut world = world_of(game, scene, handover);
    let play = handover.play.as_ref().unwrap();
    for i in 0..steps {
        world.set_input(play.inputs.at(play.first_step + i));
        world.step();
    }
    world
}

fn flagship(world: &World) -> Vec3 {
    let node = world.scene().find("flagship").expect("the renamed ship");
    world.scene().local(node).unwrap().translation
}

#[test]
fn a_new_build_resumes_with_the_editing_state_whole_and_sails_by_its_code() {
    let (_dir, scene) = project();
    let (mut h, before) = edited_and_played(&scene, 200);
    let step = h.state().doc().step();
    assert!(step > 200, "played {step} steps");
    let old_at = h
        .state()
        .doc()
        .scene()
        .local(ship(h.state()))
        .map(|l| l.translation);
    let handover = h.state_mut().handover().unwrap();
    assert_eq!(handover.play.as_ref().unwrap().steps, step);
    // Through the file, as the shell hands it over.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("handover.ron");
    handover.write(&file).unwrap();
    let read = Handover::read(&file).unwrap();

    let new_game = edited(3.0, false);
    let mut resumed =
        harness(EditorApp::resume(options(edited(3.0, false), &scene), read).unwrap());
    resumed.run();
    let app = resumed.state();
    assert_eq!(app.playback().state(), PlayState::Playing);
    assert_eq!(app.doc().step(), step, "the world is at the same step");
    // The ship sails by the new code: not where the old code took it, but
    // where a fresh headless run of the new code over the same inputs does.
    let now = app.doc().scene().local(ship(app)).unwrap().translation;
    let fresh = flagship(&fresh_run(&new_game, &scene, &handover));
    assert_eq!(now, fresh);
    let old = flagship(&fresh_run(&harbour::game(), &scene, &handover));
    assert_eq!(
        Some(old),
        old_at,
        "the old code's fresh run is the played one"
    );
    assert!(
        now.distance(old) > 1.0,
        "turning 3x as hard shows: {now} vs {old}"
    );

    // Either run on the timeline: the views show the old code's run, at
    // the kept step nearest before the timeline's (the last one is kept).
    let app = resumed.state_mut();
    assert!(app.playback_mut().previous_run_mut().show(true));
    let shown = |app: &EditorApp| app.playback().previous_run().shown(app.doc().step());
    assert_eq!(shown(app), Some(step));
    assert_eq!(flagship(app.shown_world_mut()), old);
    app.doc_mut().seek(150).unwrap();
    let kept = shown(app).expect("a kept step before 150");
    assert!(kept <= 150 && kept > 140, "kept {kept}");
    let then = flagship(&fresh_run_to(&harbour::game(), &scene, &handover, kept));
    assert_eq!(flagship(app.shown_world_mut()), then);
    assert!(app.playback_mut().previous_run_mut().show(false));
    let new_then = flagship(&fresh_run_to(&new_game, &scene, &handover, 150));
    assert_eq!(
        flagship(app.shown_world_mut()),
        new_then,
        "the new run again"
    );

    // Reset: the edited document as it was when Play was pressed, its
    // unsaved mark, history and selection with it.
    resumed.get_by_label("Reset").click();
    resumed.run();
    assert_eq!(resumed.state().playback().state(), PlayState::Editing);
    assert_eq!(editing(resumed.state()), before);
    // The history works on the new build's nodes: the delete undoes.
    let app = resumed.state_mut();
    let buoys = app
        .doc()
        .scene()
        .components()
        .parts::<harbour::Buoy>()
        .0
        .len();
    app.doc_mut().undo().unwrap();
    assert_eq!(
        app.doc()
            .scene()
            .components()
            .parts::<harbour::Buoy>()
            .0
            .len(),
        buoys + 1
    );
    app.doc_mut().undo().unwrap();
    assert!(app.doc().scene().find("ship").is_some(), "the rename undid");
    assert!(!app.doc().is_dirty(), "back to the file's state");
}

#[test]
fn the_divergence_is_the_first_changed_step_as_a_replay_does_and_none_for_a_no_op() {
    let (_dir, scene) = project();
    let (mut h, _) = edited_and_played(&scene, 150);
    let handover = h.state_mut().handover().unwrap();
    let play = handover.play.clone().unwrap();

    let same = EditorApp::resume(options(harbour::game(), &scene), handover.clone()).unwrap();
    let divergence = same.playback().divergence().unwrap();
    assert_eq!(divergence.steps, play.steps);
    assert_eq!(divergence.diverged_at, None, "{}", divergence.summary());

    let changed = EditorApp::resume(options(edited(3.0, false), &scene), handover.clone()).unwrap();
    let divergence = changed.playback().divergence().unwrap();
    let diverged = divergence.diverged_at.expect("turning harder diverges");

    // `--replay` of the old code's recording against the new code.
    let bytes = std::fs::read(&scene).unwrap();
    let mut old = world_of(&harbour::game(), &scene, &handover);
    let recording = Recording::record_with_input(&mut old, &scene, &bytes, play.steps, 1, |s| {
        play.inputs.at(play.first_step + s)
    });
    let mut new = world_of(&edited(3.0, false), &scene, &handover);
    match recording.replay(&mut new) {
        Verdict::Diverged { step, .. } => assert_eq!(diverged, step),
        Verdict::Identical { .. } => panic!("the replay must diverge too"),
    }
    // The steer starts at frame 100: nothing differs before it.
    assert!(diverged > 100, "diverged at {diverged}");
    assert!(divergence.summary().contains("diverges at step"));
}

#[test]
fn a_new_build_whose_system_panics_stops_play_and_keeps_the_editing_state() {
    let (_dir, scene) = project();
    let (mut h, before) = edited_and_played(&scene, 60);
    let handover = h.state_mut().handover().unwrap();
    let app = EditorApp::resume(options(edited(1.0, true), &scene), handover);
    let mut resumed = harness(app.expect("resumed"));
    resumed.run();
    let app = resumed.state();
    assert_eq!(app.playback().state(), PlayState::Editing);
    assert!(app.status().is_error(), "{}", app.status().text());
    assert!(app.status().text().contains("the new sail fails"));
    let after = editing(app);
    assert_eq!(after, before);
    assert!(resumed.query_by_label("Play").is_some());
}

#[test]
fn a_field_the_new_build_lost_is_kept_as_written_and_a_refused_value_keeps_the_old_build() {
    let (_dir, scene) = project();
    let (mut h, before) = edited_and_played(&scene, 30);
    let mut handover = h.state_mut().handover().unwrap();
    // The old build's ship had a field the new one's type lacks.
    let at = handover
        .scene
        .find("ship: (")
        .expect("the ship's component")
        + "ship: (".len();
    let mut lost = handover.clone();
    lost.scene.insert_str(at, "figurehead: \"mermaid\", ");
    let app = EditorApp::resume(options(harbour::game(), &scene), lost).expect("resumed");
    let doc = app.doc();
    let ship_node = ship(&app);
    assert_eq!(
        doc.scene().get::<Ship>(ship_node),
        None,
        "the node goes without it"
    );
    let text = doc
        .scene()
        .to_file_in(None)
        .to_text(Path::new("kept"))
        .unwrap();
    assert!(
        text.contains("figurehead: \"mermaid\""),
        "kept as written: {text}"
    );
    assert_eq!(doc.undo.len(), before.undo, "the history came over");

    // A value the new build's type refuses: nothing is made, and why is said.
    let refused = handover
        .scene
        .replacen("turn_rate: 0.9", "turn_rate: 60.0", 1);
    assert_ne!(refused, handover.scene, "{}", handover.scene);
    handover.scene = refused;
    let Err(e) = EditorApp::resume(options(harbour::game(), &scene), handover) else {
        panic!("a turn rate out of range is refused");
    };
    assert!(e.to_string().contains("turn_rate"), "{e}");
}

#[test]
fn in_prefab_mode_the_handover_waits_and_changes_nothing() {
    let (dir, scene) = project();
    let (mut h, _) = edited_and_played(&scene, 10);
    let app = h.state_mut();
    app.act(Action::OpenPrefab(dir.path().join("prefabs/boat.ron")));
    let parked = app.prefab_mode().parked().is_some();
    assert!(parked, "{}", app.status().text());
    let text = |app: &EditorApp| {
        let file = app.doc().scene().to_file_in(None);
        file.to_text(Path::new("p")).unwrap()
    };
    let prefab = text(app);
    match app.handover() {
        Err(keel_editor::HandoverError::NotNow(why)) => assert!(why.contains("prefab"), "{why}"),
        other => panic!("handed over under a prefab: {:?}", other.map(|_| ())),
    }
    assert_eq!(text(app), prefab, "nothing changed");
    app.act(Action::BackFromPrefab);
    let parked = app.prefab_mode().parked().is_none();
    assert!(parked, "{}", app.status().text());
    assert!(app.handover().is_ok(), "back in the scene, it goes over");
}
