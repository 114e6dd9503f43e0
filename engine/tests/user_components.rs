//! A game's own components, resources and systems, through the public API
//! only: registered by name, read from and written to scene files with
//! located errors, stepped by a user system, and reproduced exactly by the
//! recorder (seek to any step equals a fresh run).

use std::path::Path;

use bevy_reflect::Reflect;
use glam::Vec3;
use keel_engine::record::RecordSettings;
use keel_engine::scene::{ComponentRegistry, NodeRecord, QueryError, RegistryError, SceneFile};
use keel_engine::{Assets, Component, InvalidValue, Scene, SceneError, Spin, Transform, World};
use serde::{Deserialize, Serialize};

/// Hit points, lost over time and regained at a well.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Reflect)]
#[serde(deny_unknown_fields)]
struct Health {
    hp: f32,
    max: f32,
    #[serde(default)]
    regen: Option<f32>,
}

impl Component for Health {
    const NAME: &'static str = "health";

    fn validate(&self) -> Result<(), InvalidValue> {
        InvalidValue::range("max", self.max, 0.0..=1e6)?;
        InvalidValue::range("hp", self.hp, 0.0..=self.max)
    }
}

/// How a boat behaves.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Reflect)]
enum Mood {
    #[default]
    Calm,
    Fleeing {
        speed: f32,
    },
}

impl Component for Mood {
    const NAME: &'static str = "mood";
}

/// The game's score: state that belongs to no node.
#[derive(Clone, Debug, Default, PartialEq)]
struct Score {
    points: u64,
    drained: f32,
}

const SCENE: &str = r#"(
    version: 2,
    nodes: [
        (name: "ship", health: (hp: 10.0, max: 10.0, regen: Some(0.5)), mood: Calm),
        (name: "buoy", parent: 0, transform: (translation: (1.0, 0.0, 0.0)), health: (hp: 3.0, max: 4.0)),
        (name: "boat", spin: (axis: (0.0, 1.0, 0.0), rate: 1.0), mood: Fleeing(speed: 2.5), health: (hp: 7.0, max: 9.0)),
    ],
)"#;

fn assets_with_game_types() -> Assets {
    let assets = Assets::new();
    let mut scene = Scene::with_assets(&assets);
    scene.register::<Health>().unwrap();
    scene.register::<Mood>().unwrap();
    assets
}

fn load(text: &str) -> Result<Scene, SceneError> {
    Scene::from_text(text, Path::new("game.ron"), &assets_with_game_types())
}

/// The game's one system: health drains, regenerates and scores.
fn game_world(scene: Scene) -> World {
    let mut world = World::new(scene);
    world.insert_resource(Score::default());
    world
        .systems_mut()
        .add("drain", |scene, _, ctx| {
            let mut drained = 0.0;
            let (_, values) = scene.components_mut().parts_mut::<Health>();
            for health in values {
                let before = health.hp;
                health.hp = (health.hp - ctx.dt + health.regen.unwrap_or(0.0) * ctx.dt * 0.5)
                    .clamp(0.0, health.max);
                drained += before - health.hp;
            }
            let moved = scene
                .query_each::<(&mut Mood, &Health)>(|_, (mood, health), _| {
                    if health.hp < 2.0 {
                        *mood = Mood::Fleeing { speed: health.max };
                    }
                })
                .is_ok();
            let score = scene.resource_mut::<Score>().expect("inserted at start");
            score.drained += drained;
            score.points += u64::from(moved) + ctx.index % 3;
        })
        .expect("a system of a new name");
    world
}

#[test]
fn user_components_load_by_name_and_save_back_the_same() {
    let scene = load(SCENE).expect("the game's scene loads");
    let ship = scene.find("ship").unwrap();
    let boat = scene.find("boat").unwrap();
    assert_eq!(
        scene.get::<Health>(ship),
        Some(&Health {
            hp: 10.0,
            max: 10.0,
            regen: Some(0.5)
        })
    );
    assert_eq!(scene.get::<Mood>(boat), Some(&Mood::Fleeing { speed: 2.5 }));
    assert_eq!(scene.get::<Spin>(boat).map(|s| s.rate), Some(1.0));
    let text = scene.to_file().to_text(Path::new("game.ron")).unwrap();
    assert!(text.contains("health:"), "written under its name:\n{text}");
    let again = load(&text).expect("what was saved loads");
    let back = again.to_file();
    assert_eq!(back, scene.to_file(), "a round trip keeps every component");
}

#[test]
fn bad_values_of_user_components_are_located() {
    let text = SCENE.replace("hp: 3.0, max: 4.0", "hp: 5.0, max: 4.0");
    let error = load(&text).unwrap_err();
    let SceneError::InvalidField(field) = &error else {
        panic!("expected a field error, got {error}");
    };
    assert_eq!(field.field, "health.hp", "{error}");
    assert_eq!(field.node, "buoy");
    assert_eq!(field.line, 5, "{error}");
    assert!(field.expected.contains("from 0 to 4"), "{error}");

    let text = SCENE.replace("regen: Some(0.5)", "regen: Some(true)");
    let error = load(&text).unwrap_err();
    assert!(
        matches!(error, SceneError::Parse { line: 4, .. }),
        "a wrong type is a parse error at its line: {error}"
    );
    let text = SCENE.replace("mood: Calm", "mood: Angry");
    let error = load(&text).unwrap_err();
    assert!(error.to_string().contains("Angry"), "{error}");
}

#[test]
fn a_build_without_the_game_types_refuses_or_keeps_them() {
    let error = Scene::from_text(SCENE, Path::new("game.ron"), &Assets::new()).unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("`health`") || text.contains("field `health`"),
        "names the unknown component: {text}"
    );
    assert!(
        text.contains("orbit, oscillate, spin"),
        "lists the known: {text}"
    );

    // An editor's registry keeps them, and writes them back as they were.
    let assets = Assets::new();
    ComponentRegistry::edit(&assets, |r| {
        r.keep_unknown(true);
        Ok(())
    })
    .unwrap();
    let plain = Scene::from_text(SCENE, Path::new("game.ron"), &assets).expect("kept, not refused");
    let text = plain.to_file().to_text(Path::new("game.ron")).unwrap();
    let game = load(&text).expect("the game reads what the plain build wrote");
    assert_eq!(
        game.to_file(),
        load(SCENE).unwrap().to_file(),
        "nothing lost"
    );
}

#[test]
fn names_and_queries_are_checked() {
    #[derive(Clone, Debug, Default, Serialize, Deserialize, Reflect)]
    struct Impostor;
    impl Component for Impostor {
        const NAME: &'static str = "health";
    }
    let mut scene = load(SCENE).unwrap();
    let error = scene.register::<Impostor>().unwrap_err();
    assert!(
        matches!(error, RegistryError::DuplicateName { .. }),
        "{error}"
    );
    let error = scene
        .query_each::<(&mut Health, &Health)>(|_, _, _| {})
        .unwrap_err();
    assert_eq!(error, QueryError::Repeated { name: "health" });
}

#[test]
fn components_die_with_their_nodes_and_copy_with_records() {
    let mut scene = load(SCENE).unwrap();
    let ship = scene.find("ship").unwrap();
    let buoy = scene.find("buoy").unwrap();
    let record: NodeRecord = scene.record_of(buoy, None);
    assert_eq!(record.component::<Health>().map(|h| h.max), Some(4.0));
    scene.despawn(ship).unwrap();
    assert_eq!(
        scene.components().parts::<Health>().0.len(),
        1,
        "the ship and its buoy are gone"
    );
    let copy = scene.spawn(None, "copy", Transform::IDENTITY).unwrap();
    for component in record.components {
        scene.insert_any(copy, component).unwrap();
    }
    assert_eq!(scene.get::<Health>(copy).map(|h| h.hp), Some(3.0));
}

#[test]
fn recording_user_state_seeks_to_a_fresh_runs_hash() {
    let steps = 240;
    let mut fresh = game_world(load(SCENE).unwrap());
    let mut hashes = Vec::new();
    for _ in 0..steps {
        fresh.step();
        hashes.push(fresh.state_hash());
    }
    assert!(
        fresh.resource::<Score>().unwrap().drained > 1.0,
        "the system ran"
    );
    let fleeing = fresh.scene().find("buoy").unwrap();
    assert!(
        matches!(
            fresh.scene().get::<Mood>(fleeing),
            None | Some(Mood::Fleeing { .. })
        ),
        "a query of two columns only touches nodes with both"
    );

    let mut recorded = game_world(load(SCENE).unwrap());
    recorded.start_recording(RecordSettings::default());
    for _ in 0..steps {
        recorded.step();
    }
    let mut seed = 0x2545_f491_u64;
    for _ in 0..24 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let step = 1 + seed % steps;
        recorded.seek(step).expect("a recorded step");
        assert_eq!(
            recorded.state_hash(),
            hashes[step as usize - 1],
            "step {step}: seeking must give the fresh run's state, components and resources"
        );
    }
    // The hash covers user state: a changed resource or component differs.
    recorded.seek(steps).unwrap();
    let before = recorded.state_hash();
    recorded.resource_mut::<Score>().unwrap().points += 1;
    assert_eq!(recorded.state_hash().differing(&before), ["resources"]);
    recorded.resource_mut::<Score>().unwrap().points -= 1;
    let (_, healths) = recorded.scene_mut().components_mut().parts_mut::<Health>();
    healths[0].hp += 0.25;
    assert_ne!(recorded.state_hash().components, before.components);
}

#[test]
fn a_query_moves_nodes_from_a_component() {
    let mut scene = load(SCENE).unwrap();
    let boat = scene.find("boat").unwrap();
    scene
        .query_each::<(&mut Mood,)>(|node, (mood,), transforms| {
            if let Mood::Fleeing { speed } = *mood
                && let Some(mut local) = transforms.local(node)
            {
                local.translation += Vec3::X * speed;
                transforms.set_local(node, local).unwrap();
            }
        })
        .unwrap();
    assert_eq!(scene.local(boat).unwrap().translation, Vec3::X * 2.5);
    assert_eq!(scene.get::<Mood>(boat), Some(&Mood::Fleeing { speed: 2.5 }));
    let _ = SceneFile::parse(SCENE, Path::new("game.ron"), &scene.registry()).unwrap();
}

#[test]
fn systems_run_in_the_order_asked_and_name_their_mistakes() {
    use keel_engine::{SystemError, Systems};
    let mut systems = Systems::new();
    systems.add("late", |_, _, _| {}).unwrap();
    systems
        .add("steer", |_, _, _| {})
        .unwrap()
        .before("orbit")
        .unwrap()
        .after("animate")
        .unwrap();
    systems
        .add("first", |_, _, _| {})
        .unwrap()
        .before("animate")
        .unwrap();
    let order: Vec<&str> = systems.names().collect();
    assert_eq!(
        order,
        [
            "first",
            "animate",
            "spin",
            "oscillate",
            "steer",
            "orbit",
            "late"
        ]
    );
    assert_eq!(
        systems.add("spin", |_, _, _| {}).err(),
        Some(SystemError::DuplicateName {
            name: "spin".into()
        })
    );
    let error = systems
        .add("x", |_, _, _| {})
        .unwrap()
        .after("nothing")
        .err()
        .unwrap();
    assert!(error.to_string().contains("`nothing`"), "{error}");
    let error = systems
        .add("y", |_, _, _| {})
        .unwrap()
        .before("first")
        .unwrap()
        .after("late");
    assert!(
        matches!(error, Err(SystemError::Cycle { .. })),
        "y before first, first before everything, late after y"
    );
}

#[test]
fn a_panicking_system_stops_the_world_and_names_itself() {
    let mut world = game_world(load(SCENE).unwrap());
    world
        .systems_mut()
        .add("fragile", |_, _, ctx| {
            assert!(ctx.index < 3, "the hull gave way");
        })
        .unwrap();
    for _ in 0..10 {
        world.step();
    }
    let panic = world.system_panic().expect("the system panicked").clone();
    assert_eq!((panic.system.as_str(), panic.step), ("fragile", 3));
    assert!(panic.message.contains("the hull gave way"), "{panic}");
    assert_eq!(world.systems().steps(), 3, "no step ran after the panic");
    assert!(world.take_system_panic().is_some());
    world.step();
    assert!(world.system_panic().is_some(), "it panics again at step 3");
}

#[test]
fn a_game_sets_worlds_up_from_its_plugins() {
    use keel_engine::{Game, GameError, Plugin};
    struct Harbour;
    impl Plugin for Harbour {
        fn components(&self, registry: &mut ComponentRegistry) -> Result<(), RegistryError> {
            registry.register::<Health>()?;
            registry.register::<Mood>()
        }
        fn build(&self, world: &mut World) -> Result<(), GameError> {
            world.insert_resource(Score::default());
            world.systems_mut().add("score", |scene, _, _| {
                if let Some(score) = scene.resource_mut::<Score>() {
                    score.points += 1;
                }
            })?;
            Ok(())
        }
    }
    struct Rival;
    impl Plugin for Rival {
        fn build(&self, world: &mut World) -> Result<(), GameError> {
            world.systems_mut().add("score", |_, _, _| {})?;
            Ok(())
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.ron");
    std::fs::write(&path, SCENE).unwrap();
    let game = Game::new().with(Harbour);
    let mut world = game
        .load(&path, &Assets::new())
        .expect("the game's scene loads");
    world.step();
    assert_eq!(world.resource::<Score>().map(|s| s.points), Some(1));
    let error = Game::new()
        .load(&path, &Assets::new())
        .err()
        .expect("unknown components");
    assert!(error.to_string().contains("health"), "{error}");
    let error = game
        .with(Rival)
        .load(&path, &Assets::new())
        .err()
        .expect("a name twice");
    let text = error.to_string();
    assert!(
        text.contains("Rival") && text.contains("`score` added twice"),
        "{text}"
    );
}

#[test]
fn plugins_declare_actions_and_an_input_file_beside_the_scene_rebinds_them() {
    use keel_engine::input::{Binding, INPUT_FILE, InputFrame, Key, KeySet};
    use keel_engine::{Game, GameError, Plugin};
    struct Helm;
    impl Plugin for Helm {
        fn actions(&self) -> keel_engine::input::Actions {
            keel_engine::input::Actions::default().bind(
                "steer",
                Binding::Axis {
                    keys: Some((Key::Left, Key::Right)),
                    gamepad: None,
                },
            )
        }
    }
    struct OtherHelm;
    impl Plugin for OtherHelm {
        fn actions(&self) -> keel_engine::input::Actions {
            Helm.actions()
        }
    }
    let steer_with = |world: &mut World, key: Key| {
        let mut keys = KeySet::default();
        keys.insert(key);
        world.set_input(InputFrame {
            keys,
            ..InputFrame::default()
        });
        world.step();
        world
            .scene()
            .resource::<keel_engine::Input>()
            .unwrap()
            .axis("steer")
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.ron");
    std::fs::write(&path, "(version: 2, nodes: [])").unwrap();
    let game = Game::new().with(Helm);
    // The plugin's own binding.
    let mut world = game.load(&path, &Assets::new()).unwrap();
    assert_eq!(steer_with(&mut world, Key::Right), 1.0);
    assert_eq!(steer_with(&mut world, Key::D), 0.0);
    // Rebound by the file beside the scene.
    let input = dir.path().join(INPUT_FILE);
    std::fs::write(&input, "{\"steer\": Axis(keys: (A, D))}").unwrap();
    let mut world = game.load(&path, &Assets::new()).unwrap();
    assert_eq!(steer_with(&mut world, Key::D), 1.0);
    assert_eq!(steer_with(&mut world, Key::Right), 0.0);
    // An action no plugin declares, a key this build lacks: named, located.
    std::fs::write(&input, "{\"jump\": Button(keys: [Space])}").unwrap();
    let text = game.load(&path, &Assets::new()).err().unwrap().to_string();
    assert!(
        text.contains("input.ron") && text.contains("`jump`") && text.contains("steer"),
        "{text}"
    );
    std::fs::write(&input, "{\n  \"steer\": Axis(keys: (A, Dee)),\n}").unwrap();
    let text = game.load(&path, &Assets::new()).err().unwrap().to_string();
    assert!(
        text.contains("input.ron:2:") && text.contains("Dee"),
        "{text}"
    );
    // A folder or a device where the file goes is an error naming it, not
    // a game running on its defaults.
    let refused = |what: &str| {
        let text = game
            .load(&path, &Assets::new())
            .err()
            .map(|e| e.to_string());
        assert!(
            text.as_deref()
                .is_some_and(|t| t.contains("input.ron") && t.contains(what)),
            "{what}: {text:?}"
        );
    };
    std::fs::remove_file(&input).unwrap();
    std::fs::create_dir(&input).unwrap();
    refused("folder");
    std::fs::remove_dir(&input).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/dev/zero", &input).unwrap();
        refused("device");
        std::fs::remove_file(&input).unwrap();
    }
    // One action declared by two plugins.
    let error = game.with(OtherHelm).actions().unwrap_err();
    assert!(
        matches!(error, GameError::DuplicateAction { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("`steer`"), "{error}");
}

#[test]
fn prefab_overrides_reach_user_component_fields() {
    let dir = tempfile::tempdir().unwrap();
    let crate_file = r#"(
        version: 2,
        nodes: [
            (name: "crate", health: (hp: 5.0, max: 10.0), mood: Calm),
        ],
    )"#;
    std::fs::write(dir.path().join("crate.ron"), crate_file).unwrap();
    let harbour = |hp: &str| {
        format!(
            r#"(
        version: 2,
        nodes: [
            (name: "plain", prefab: "crate.ron"),
            (name: "hit", prefab: "crate.ron", overrides: {{"crate": {{"health": {{"hp": {hp}}}}}}}),
        ],
    )"#
        )
    };
    let path = dir.path().join("harbour.ron");
    std::fs::write(&path, harbour("2.0")).unwrap();
    let assets = assets_with_game_types();
    let scene = Scene::load(&path, &assets).expect("overrides of a user component load");
    let hp_under = |scene: &Scene, instance: &str| {
        let root = scene.find(instance).unwrap();
        let part = scene.children(root).next().unwrap();
        scene.get::<Health>(part).map(|h| (h.hp, h.max))
    };
    assert_eq!(hp_under(&scene, "plain"), Some((5.0, 10.0)));
    assert_eq!(
        hp_under(&scene, "hit"),
        Some((2.0, 10.0)),
        "only hp overridden"
    );
    scene.save(&path).unwrap();
    let saved = std::fs::read_to_string(&path).unwrap();
    assert!(
        saved.contains("\"hp\": 2.0"),
        "the override is saved as one field:\n{saved}"
    );
    let again = Scene::load(&path, &assets).unwrap();
    assert_eq!(hp_under(&again, "hit"), Some((2.0, 10.0)));

    std::fs::write(&path, harbour("12.0")).unwrap();
    let error = Scene::load(&path, &assets).unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("health.hp") && text.contains("from 0 to 10"),
        "an overridden value breaking the component's rules is named: {text}"
    );
}

/// A scripted player: holds Right from step 10 to 40, taps Space at 25 and
/// at 60 (a tap shorter than a step), holds the stick left after 70.
fn script(step: u64) -> keel_engine::input::InputFrame {
    use keel_engine::input::{GamepadAxis, InputCollector, Key};
    let mut collector = InputCollector::default();
    if (10..40).contains(&step) {
        collector.key(Key::Right, true);
    }
    if step == 25 || step == 60 {
        collector.key(Key::Space, true);
        collector.key(Key::Space, false);
    }
    if step >= 70 {
        collector.pad_axis(GamepadAxis::LeftStickX, -0.75);
    }
    collector.take_frame()
}

/// A world whose system steers the ship from the input's actions and
/// scores a point per horn press.
fn steered_world() -> World {
    use keel_engine::Input;
    use keel_engine::input::{Actions, Binding, GamepadAxis, GamepadButton, Key};
    let mut world = World::new(load(SCENE).unwrap());
    world.insert_resource(Score::default());
    let actions = Actions::default()
        .bind(
            "steer",
            Binding::Axis {
                keys: Some((Key::Left, Key::Right)),
                gamepad: Some(GamepadAxis::LeftStickX),
            },
        )
        .bind(
            "horn",
            Binding::Button {
                keys: vec![Key::Space],
                mouse: vec![],
                gamepad: vec![GamepadButton::South],
            },
        );
    world.set_actions(std::sync::Arc::new(actions));
    world
        .systems_mut()
        .add("steer", |scene, _, ctx| {
            let (steer, horn) = {
                let input = scene.resource::<Input>().expect("every world has input");
                (input.axis("steer"), input.action_pressed("horn"))
            };
            let ship = scene.find("ship").expect("the ship");
            if let Some(mut local) = scene.local(ship) {
                local.translation.x += steer * 3.0 * ctx.dt;
                let _ = scene.set_local(ship, local);
            }
            if horn && let Some(score) = scene.resource_mut::<Score>() {
                score.points += 1;
            }
        })
        .unwrap();
    world
}

#[test]
fn a_scripted_input_is_recorded_replayed_and_sought_exactly() {
    use keel_engine::record::{Recording, Verdict};
    let steps = 100;
    let mut recorded = steered_world();
    recorded.start_recording(RecordSettings::default());
    let recording = Recording::record_with_input(
        &mut recorded,
        Path::new("game.ron"),
        SCENE.as_bytes(),
        steps,
        1,
        script,
    );
    assert_eq!(
        recorded.resource::<Score>().unwrap().points,
        2,
        "two horn taps, each seen once"
    );
    let ship = recorded.scene().find("ship").unwrap();
    let x = recorded.scene().local(ship).unwrap().translation.x;
    assert!(
        (x - (30.0 * 3.0 / 60.0 - 30.0 * 0.75 * 3.0 / 60.0)).abs() < 1e-3,
        "steered to {x}"
    );

    // Replayed from the file's input log: identical.
    let text = ron::to_string(&recording).unwrap();
    let read: Recording = ron::from_str(&text).unwrap();
    assert!(
        matches!(
            read.replay(&mut steered_world()),
            Verdict::Identical { steps: 100, .. }
        ),
        "a replay feeds each step its recorded input"
    );
    // One step's input altered: the replay diverges at that step.
    let mut altered = read.clone();
    altered.inputs = read
        .inputs
        .with_changed(33, keel_engine::input::InputFrame::default());
    match altered.replay(&mut steered_world()) {
        Verdict::Diverged { step, .. } => assert_eq!(step, 34, "the hash after step 33 differs"),
        Verdict::Identical { .. } => panic!("a changed input must show"),
    }

    // Seeking back re-simulates with the input each step read.
    let mut fresh = steered_world();
    let mut hashes = Vec::new();
    for s in 0..steps {
        fresh.set_input(script(s));
        fresh.step();
        hashes.push(fresh.state_hash());
    }
    for step in [5, 26, 39, 61, 77, 100] {
        recorded.seek(step).unwrap();
        assert_eq!(
            recorded.state_hash(),
            hashes[step as usize - 1],
            "step {step}"
        );
    }
}

/// What another build wrote (a `health` with a field this type lost) is
/// kept as written only by a read that asks for it; the same assets read
/// strictly before and after (the leniency is the call's, not the store's).
#[test]
fn keeping_what_no_longer_reads_is_asked_per_read() {
    use keel_engine::scene::ReadOptions;
    let assets = assets_with_game_types();
    // As an editor's assets: components no type here reads are kept.
    ComponentRegistry::edit(&assets, |r| {
        r.keep_unknown(true);
        Ok(())
    })
    .unwrap();
    let old = SCENE.replace("(hp: 3.0, max: 4.0)", "(hp: 3.0, max: 4.0, shield: 2.0)");
    let strict = |assets: &Assets| Scene::from_text(&old, Path::new("game.ron"), assets);
    assert!(strict(&assets).is_err(), "refused at its line by default");
    let kept = Scene::from_text_with(
        &old,
        Path::new("game.ron"),
        &assets,
        ReadOptions::KEEP_UNREADABLE,
    )
    .expect("kept as written");
    let buoy = kept.find("buoy").unwrap();
    assert!(
        kept.get::<Health>(buoy).is_none(),
        "the node goes without it"
    );
    let text = kept.to_file().to_text(Path::new("game.ron")).unwrap();
    assert!(
        text.contains("shield: 2.0"),
        "saved back as it was:\n{text}"
    );
    assert!(strict(&assets).is_err(), "the next read is strict again");
}
