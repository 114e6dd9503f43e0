//! What games use every day, through the public API: events (sent in one
//! step, read in the next by every reader), timers and startup systems that
//! rewind with seek, run conditions, and commands that hand out a node's id
//! at once and insert, remove and reparent at the step's end. A recorded
//! run sought to any step equals a fresh run. Events misused (put in as a
//! plain resource, or sent without being added) are refused by name.

use keel_engine::glam::Vec3;
use keel_engine::record::RecordSettings;
use keel_engine::{Events, Keep, Orbit, Scene, Spin, Timer, Transform, World};

/// A buoy rang: sent by one system, read by two.
#[derive(Clone, Debug, PartialEq)]
struct Rang {
    buoy: keel_engine::NodeId,
    step: u64,
}

/// The game's tally (a resource: state in the world).
#[derive(Clone, Debug, Default, PartialEq)]
struct Tally {
    rings_heard: u32,
    echoes: u32,
    started: u32,
    gusts: u32,
    wind: Timer,
    spawned: Vec<keel_engine::NodeId>,
}

fn world() -> World {
    let mut scene = Scene::new();
    for i in 0..4 {
        let buoy = scene
            .spawn(
                None,
                format!("buoy{i}"),
                Transform::from_translation(Vec3::X * i as f32),
            )
            .unwrap();
        scene
            .insert(
                buoy,
                Spin {
                    axis: Vec3::Y,
                    rate: 1.0,
                },
            )
            .unwrap();
    }
    let mut world = World::new(scene);
    world.add_event::<Rang>();
    world.insert_resource(Tally {
        wind: Timer::repeating(0.08),
        ..Tally::default()
    });
    let systems = world.systems_mut();
    systems
        .add_startup("moor", |scene, _, step| {
            assert_eq!(step.index, 0, "startup runs in step 0");
            scene.resource_mut::<Tally>().unwrap().started += 1;
        })
        .unwrap();
    systems
        .add("ring", |scene, commands, step| {
            // Every 7th step the first spinning buoy rings, stops and has a
            // new buoy moored to it, named in the event before it exists.
            if step.index % 7 != 3 {
                return;
            }
            let Some(&buoy) = scene.components().parts::<Spin>().0.first() else {
                return;
            };
            let new = commands.spawn_reserved(scene, None, "new buoy", Transform::IDENTITY);
            commands.insert(
                new,
                Orbit {
                    radius: 2.0,
                    ..Orbit::default()
                },
            );
            commands.reparent(new, Some(buoy), Keep::Local);
            commands.remove::<Spin>(buoy);
            scene.send_event(Rang {
                buoy: new,
                step: step.index,
            });
            scene.resource_mut::<Tally>().unwrap().spawned.push(new);
        })
        .unwrap();
    systems
        .add("listen", |scene, _, step| {
            let heard: Vec<Rang> = scene.events::<Rang>().read().cloned().collect();
            for rang in &heard {
                assert_eq!(
                    rang.step + 1,
                    step.index,
                    "read in the step after it was sent"
                );
                assert!(scene.contains(rang.buoy), "the reserved node exists now");
                assert_eq!(scene.get::<Orbit>(rang.buoy).map(|o| o.radius), Some(2.0));
                assert!(scene.parent(rang.buoy).is_some(), "reparented");
            }
            scene.resource_mut::<Tally>().unwrap().rings_heard += heard.len() as u32;
        })
        .unwrap();
    systems
        .add("echo", |scene, _, _| {
            let heard = scene.events::<Rang>().read().count() as u32;
            scene.resource_mut::<Tally>().unwrap().echoes += heard;
        })
        .unwrap();
    systems
        .add("gust", |scene, _, step| {
            let tally = scene.resource_mut::<Tally>().unwrap();
            tally.gusts += tally.wind.tick(step.dt);
        })
        .unwrap()
        .run_if(|scene, _| scene.components().parts::<Spin>().0.len() > 1);
    world
}

#[test]
fn events_commands_timers_and_conditions_play_as_a_game_expects() {
    let mut world = world();
    for _ in 0..60 {
        world.step();
    }
    assert!(world.system_panic().is_none(), "{:?}", world.system_panic());
    let tally = world.resource::<Tally>().unwrap().clone();
    assert_eq!(tally.started, 1, "startup ran once");
    assert_eq!(
        tally.spawned.len(),
        4,
        "rings at steps 3, 10, 17 and 24 stop the four spins"
    );
    assert_eq!(tally.rings_heard, 4, "each heard in the step after");
    assert_eq!(
        tally.echoes, tally.rings_heard,
        "every reader reads every event"
    );
    assert_eq!(
        world.scene().components().parts::<Spin>().0.len(),
        0,
        "each ring stopped a spin"
    );
    // The wind blows while two buoys spin: through step 17 (its ring's
    // removal applies when the step ends), 18 steps, 0.3 s.
    assert_eq!(
        tally.gusts, 3,
        "0.08 s gusts over the 0.3 s the condition held"
    );
}

#[test]
fn a_recorded_run_seeks_to_a_fresh_runs_state_events_and_timers_included() {
    let steps = 90;
    let mut fresh = world();
    let hashes: Vec<_> = (0..steps)
        .map(|_| {
            fresh.step();
            fresh.state_hash()
        })
        .collect();
    let mut recorded = world();
    recorded.start_recording(RecordSettings::default());
    for _ in 0..steps {
        recorded.step();
    }
    let mut seed = 0x9e37_79b9_u64;
    for _ in 0..25 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let step = seed % (steps + 1);
        recorded.seek(step).unwrap();
        if step > 0 {
            assert_eq!(
                recorded.state_hash(),
                hashes[step as usize - 1],
                "step {step}"
            );
        }
    }
    // Run on from a sought step (a new branch): the same steps as the fresh run.
    recorded.seek(40).unwrap();
    for (step, fresh) in hashes.iter().enumerate().take(60).skip(40) {
        recorded.step();
        assert_eq!(recorded.state_hash(), *fresh, "step {} run again", step + 1);
    }
    // Back to step 0: the startup system runs again, as in a fresh run.
    recorded.seek(0).unwrap();
    recorded.step();
    assert_eq!(recorded.resource::<Tally>().unwrap().started, 1);
    assert_eq!(recorded.state_hash(), hashes[0]);
}

/// A wave broke: an event type the tests below add, or forget to.
#[derive(Clone, Debug, PartialEq)]
struct Wave(u32);

#[test]
fn events_put_in_as_a_plain_resource_are_refused_by_name() {
    let wave = std::any::type_name::<Wave>();
    let mut world = World::new(Scene::new());
    let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.insert_resource(Events::<Wave>::default());
    }))
    .expect_err("World::insert_resource of events never added panics");
    let message = refused
        .downcast_ref::<String>()
        .expect("a formatted message");
    assert!(
        message.contains(&format!("add_event::<{wave}>()")),
        "{message}"
    );
    // Through the scene, the next step stops before anything runs.
    let mut world = World::new(Scene::new());
    world.scene_mut().insert_resource(Events::<Wave>::default());
    world.step();
    let stopped = world.system_panic().expect("the step refuses the events");
    assert_eq!(
        stopped.system,
        keel_engine::Systems::STEP_START,
        "{stopped}"
    );
    assert!(stopped.message.contains(wave), "names the type: {stopped}");
    assert_eq!(world.systems().steps(), 0, "nothing ran");
    // Added first, the same resource may be put in (replaced) either way.
    let mut world = World::new(Scene::new());
    world.add_event::<Wave>();
    world.insert_resource(Events::<Wave>::default());
    world.scene_mut().insert_resource(Events::<Wave>::default());
    world.step();
    assert!(world.system_panic().is_none(), "{:?}", world.system_panic());
}

#[test]
fn sending_events_never_added_panics_naming_the_type() {
    let mut world = World::new(Scene::new());
    world
        .systems_mut()
        .add("break", |scene, _, _| scene.send_event(Wave(3)))
        .unwrap();
    world.step();
    let stopped = world.system_panic().expect("the send panics");
    assert_eq!(stopped.system, "break");
    let wave = std::any::type_name::<Wave>();
    assert!(
        stopped.message.contains(&format!("`{wave}`")),
        "names the event type: {stopped}"
    );
    assert!(
        stopped.message.contains("add_event"),
        "says what to do: {stopped}"
    );
}
