//! The harbour game played headless: scripted keys reach a score, a bot
//! clears the harbour, boats keep away, and a played run records and
//! replays bit for bit.

use harbour::{Buoy, Cheers, Escort, Score, Ship, Skittish};
use keel_engine::glam::{Quat, Vec3};
use keel_engine::input::{InputFrame, Key, KeySet};
use keel_engine::record::{Recording, Verdict};
use keel_engine::{Assets, Collider, Hud, Transform, World};

fn world() -> World {
    harbour::game()
        .load(&harbour::scene_path(), &Assets::new())
        .expect("the game's scene loads with its plugin")
}

fn keys(held: &[Key]) -> InputFrame {
    let mut keys = KeySet::default();
    for &key in held {
        keys.insert(key);
    }
    InputFrame {
        keys,
        ..InputFrame::default()
    }
}

fn ship(world: &World) -> (Vec3, Vec3) {
    let scene = world.scene();
    let (nodes, _) = scene.components().parts::<Ship>();
    let local = scene.local(nodes[0]).unwrap();
    (local.translation, local.rotation * Vec3::NEG_Z)
}

/// Full sail straight ahead for five seconds, then a turn to starboard.
fn script(step: u64) -> InputFrame {
    match step {
        0..300 => keys(&[Key::W]),
        300..420 => keys(&[Key::W, Key::D]),
        _ => InputFrame::default(),
    }
}

/// The ship finds buoys through a spatial query of the colliders: a buoy
/// whose collider is taken away is sailed over and stays.
#[test]
fn a_buoy_without_a_collider_is_not_found() {
    let mut world = world();
    let ahead = world.scene().find("buoy_0").unwrap();
    assert!(world.scene_mut().remove::<Collider>(ahead).is_some());
    for step in 0..480 {
        world.set_input(script(step));
        world.step();
    }
    assert!(world.scene().contains(ahead), "buoy_0 is still there");
    let score = *world.resource::<Score>().unwrap();
    assert_eq!(score.collected, 1, "only the second buoy ahead");
}

#[test]
fn scripted_keys_sail_over_the_buoys_ahead_and_score() {
    let mut world = world();
    let start = ship(&world).0;
    for step in 0..480 {
        world.set_input(script(step));
        world.step();
    }
    let score = *world.resource::<Score>().unwrap();
    assert_eq!(
        (score.collected, score.points),
        (2, 2),
        "the two buoys dead ahead"
    );
    let (at, heading) = ship(&world);
    assert!(at.z < start.z - 40.0, "sailed ahead: {at}");
    assert!(heading.x > 0.5, "turned to starboard: {heading}");
    assert_eq!(
        world.scene().components().parts::<Buoy>().0.len(),
        6,
        "two buoys gone"
    );
    let hud = world.resource::<Hud>().unwrap();
    assert_eq!(hud.text, "Score 2, buoys left 6");
    // The escort (its leader the ship, by reference in the scene file)
    // kept up, and sounded its horn for each collection (an event heard the
    // step after, a timer run out a second later).
    let scene = world.scene();
    let escort = scene.find("escort").unwrap();
    let follows = scene.get::<Escort>(escort).unwrap();
    assert_eq!(
        follows.leader.get(scene),
        Some(scene.components().parts::<Ship>().0[0])
    );
    let gap = (scene.local(escort).unwrap().translation - at) * Vec3::new(1.0, 0.0, 1.0);
    assert!(gap.length() < 14.5, "kept within its distance: {gap}");
    assert_eq!(
        world.resource::<Cheers>().unwrap().0,
        2,
        "a blast per collection"
    );
}

/// Puts the ship at `at` heading along `heading` (radians about Y) and
/// sails full ahead for `steps` steps; where it ends.
fn sail_from(world: &mut World, at: Vec3, heading: f32, steps: u64) -> Vec3 {
    let node = world.scene().components().parts::<Ship>().0[0];
    let placed = Transform::from_translation(at).with_rotation(Quat::from_rotation_y(heading));
    world.scene_mut().set_local(node, placed).unwrap();
    // One still step: the physics takes in where it was put.
    world.step();
    for _ in 0..steps {
        world.set_input(keys(&[Key::W]));
        world.step();
    }
    ship(world).0
}

#[test]
fn the_ship_bumps_into_a_boat_and_the_island_instead_of_sailing_through() {
    let mut world = world();
    // A boat that does not flee, 16 m dead ahead (its stern 14.8 m off).
    let boat = world.scene().find("boat_00").unwrap();
    world.scene_mut().remove::<Skittish>(boat);
    world
        .scene_mut()
        .set_local(
            boat,
            Transform::from_translation(Vec3::new(0.0, 0.0, -16.0)),
        )
        .unwrap();
    let at = sail_from(&mut world, Vec3::new(0.0, 0.6, 0.0), 0.0, 240);
    // The bow (5 m ahead of the ship's middle) stops at the boat's stern.
    assert!(
        (at.z - (-16.0 + 1.2 + 5.0)).abs() < 0.2,
        "stopped at the boat: {at}"
    );
    let boat_at = world.scene().local(boat).unwrap().translation;
    assert_eq!(
        boat_at,
        Vec3::new(0.0, 0.0, -16.0),
        "which stays where it is"
    );
    // Towards the lighthouse's island (6.4 m across the water from its
    // tower at x = 68): the bow stops at its shore, short of the
    // harbour's edge the ship would otherwise sail to.
    let at = sail_from(
        &mut world,
        Vec3::new(40.0, 0.6, 30.0),
        -std::f32::consts::FRAC_PI_2,
        300,
    );
    assert!(
        (at.x - (68.0 - 6.4 - 5.0)).abs() < 0.3,
        "stopped at the island: {at}"
    );
}

#[test]
fn a_played_run_records_and_replays_identically_and_an_altered_key_diverges() {
    let scene = harbour::scene_path();
    let bytes = std::fs::read(&scene).unwrap();
    let mut played = world();
    let recording = Recording::record_with_input(&mut played, &scene, &bytes, 480, 10, script);
    assert_eq!(played.resource::<Score>().unwrap().points, 2);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.ron");
    recording.write(&file).unwrap();
    let read = Recording::read(&file, &keel_engine::files::ReadLimits::DEFAULT).unwrap();
    assert!(matches!(
        read.replay(&mut world()),
        Verdict::Identical { steps: 480, .. }
    ));
    let mut altered = read.clone();
    altered.inputs = read.inputs.with_changed(350, keys(&[Key::W, Key::A]));
    match altered.replay(&mut world()) {
        Verdict::Diverged { step, .. } => assert_eq!(step, 360, "first hash after step 350"),
        Verdict::Identical { .. } => panic!("steering the other way must show"),
    }
}

/// Steers for the nearest buoy left, as a player would.
fn bot(world: &World) -> InputFrame {
    let (at, heading) = ship(world);
    let scene = world.scene();
    let (nodes, _) = scene.components().parts::<Buoy>();
    let Some(target) = nodes
        .iter()
        .filter_map(|&n| scene.local(n))
        .map(|t| t.translation)
        .min_by(|a, b| a.distance(at).total_cmp(&b.distance(at)))
    else {
        return InputFrame::default();
    };
    let to = (target - at).with_y(0.0).normalize_or_zero();
    // Positive when the buoy lies to starboard (right of the heading).
    let side = heading.cross(to).y;
    let mut held = vec![Key::W];
    if side < -0.05 {
        held.push(Key::D);
    } else if side > 0.05 || heading.dot(to) < 0.0 {
        held.push(Key::A);
    }
    keys(&held)
}

#[test]
fn a_bot_steering_by_keys_clears_the_harbour() {
    let mut world = world();
    let buoys = world.scene().components().parts::<Buoy>().1.to_vec();
    let total: u32 = buoys.iter().map(|b| b.points).sum();
    let mut steps = 0;
    while !world.scene().components().parts::<Buoy>().0.is_empty() {
        assert!(steps < 60 * 180, "three minutes and buoys left");
        let input = bot(&world);
        world.set_input(input);
        world.step();
        steps += 1;
    }
    let score = *world.resource::<Score>().unwrap();
    assert_eq!(score.collected as usize, buoys.len());
    assert_eq!(score.points, total);
    assert!(
        world.resource::<Hud>().unwrap().text.contains("every buoy"),
        "the end is announced"
    );
}

#[test]
fn boats_keep_away_from_the_ship() {
    let mut world = world();
    let scene = world.scene();
    let (boats, skittish) = scene.components().parts::<Skittish>();
    let (boat, radius) = (boats[0], skittish[0].radius);
    let boat_at = scene.local(boat).unwrap().translation;
    // The ship placed half the boat's radius from it.
    let (ships, _) = scene.components().parts::<Ship>();
    let ship_node = ships[0];
    let mut local = scene.local(ship_node).unwrap();
    let offset = (Vec3::new(1.0, 0.0, 0.5).normalize()) * radius * 0.5;
    local.translation = boat_at - offset;
    world.scene_mut().set_local(ship_node, local).unwrap();
    for _ in 0..120 {
        world.step();
    }
    let now = world.scene().local(boat).unwrap();
    let gone = (now.translation - local.translation).with_y(0.0).length();
    assert!(gone >= radius - 0.1, "fled to {gone} of {radius}");
    // It faces the way it fled.
    let bow = now.rotation * Vec3::NEG_Z;
    assert!(bow.dot(offset.normalize()) > 0.99, "bow {bow}");
    // A boat far from the ship stays where it was.
    let far = world
        .scene()
        .components()
        .parts::<Skittish>()
        .0
        .iter()
        .copied()
        .find(|&b| {
            let t = world.scene().local(b).unwrap().translation;
            (t - local.translation).length() > 2.0 * radius
        })
        .unwrap();
    let before = self::world().scene().local(far).unwrap();
    assert_eq!(
        world.scene().local(far).unwrap().translation,
        before.translation
    );
}

#[test]
fn an_out_of_range_ship_value_in_the_scene_is_located() {
    let text = std::fs::read_to_string(harbour::scene_path()).unwrap();
    let broken = text.replacen("max_speed: 12.0", "max_speed: 90.0", 1);
    let assets = Assets::new();
    harbour::game().register(&assets).unwrap();
    let registry = keel_engine::scene::ComponentRegistry::of(&assets);
    let error = keel_engine::scene::SceneFile::parse(&broken, &harbour::scene_path(), &registry)
        .and_then(|file| file.to_scene(&harbour::scene_path(), &assets))
        .expect_err("refused")
        .to_string();
    assert!(
        error.contains("harbour.ron:") && error.contains("ship.max_speed") && error.contains("40"),
        "{error}"
    );
    // Parsed then built, the error still names where the value is written.
    let at = broken.find("max_speed: 90.0").unwrap();
    let line = broken[..at].matches('\n').count() + 1;
    let column = at - broken[..at].rfind('\n').map_or(0, |i| i + 1) + 1;
    assert!(
        error.contains(&format!("harbour.ron:{line}:{column}")),
        "expected harbour.ron:{line}:{column} in: {error}"
    );
}

#[test]
fn a_run_framed_as_a_window_frames_it_equals_its_input_stepped_alone() {
    // Frames of 0 to 3 steps with keys going down and up between them, as
    // the viewer's window runs the game while recording.
    let mut played = world();
    played.start_recording(keel_engine::record::RecordSettings::default());
    let mut collector = keel_engine::input::InputCollector::default();
    let step = played.clock().step();
    for frame in 0..300_u32 {
        if frame % 37 == 0 {
            collector.key(Key::W, true);
        }
        if frame % 53 == 0 {
            collector.key(Key::W, false);
            collector.key(Key::D, frame % 2 == 0);
        }
        let real = step.mul_f64([0.4, 1.0, 2.5, 0.0, 3.0][(frame % 5) as usize]);
        played.advance_with_input(real, &mut collector);
    }
    let inputs = played.recorder().unwrap().inputs().clone();
    let steps = played.clock().total_steps();
    assert!(steps > 300, "{steps} steps");
    let mut stepped = world();
    for s in 0..steps {
        stepped.set_input(inputs.at(s));
        stepped.step();
    }
    assert_ne!(
        ship(&stepped).0,
        ship(&world()).0,
        "the keys sailed the ship"
    );
    assert_eq!(played.state_hash(), stepped.state_hash());
}

#[test]
fn the_input_file_beside_the_scene_rebinds_the_controls() {
    let dir = tempfile::tempdir().unwrap();
    for file in ["harbour.ron", "prefabs/boat.ron", "models/lighthouse.glb"] {
        let to = dir.path().join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(harbour::scene_path().with_file_name(file), &to).unwrap();
    }
    let shipped =
        std::fs::read_to_string(harbour::scene_path().with_file_name("input.ron")).unwrap();
    let arrows = shipped
        .replace("keys: (S, W)", "keys: (Down, Up)")
        .replace("keys: (A, D)", "keys: (Left, Right)");
    assert_ne!(arrows, shipped, "the shipped file binds both actions");
    std::fs::write(dir.path().join("input.ron"), arrows).unwrap();
    let scene = dir.path().join("harbour.ron");
    let sail = |held: Key| {
        let mut world = harbour::game().load(&scene, &Assets::new()).unwrap();
        let start = ship(&world).0;
        for _ in 0..120 {
            world.set_input(keys(&[held]));
            world.step();
        }
        ship(&world).0.distance(start)
    };
    assert!(sail(Key::Up) > 5.0, "Up is the throttle now");
    assert_eq!(sail(Key::W), 0.0, "W no longer is");
}
