//! Animators on real-world models: poses independent of the step rate, joint
//! matrices checked by hand, cross-fades, and recordings that seek exactly.

use std::path::{Path, PathBuf};
use std::time::Duration;

use glam::{Mat4, Quat, Vec3};
use keel_engine::Clock;
use keel_engine::World;
use keel_engine::record::RecordSettings;
use keel_engine::scene::{Skin, clip_time};
use keel_engine::{Animator, NodeId, PlayMode, Scene, Transform};

/// A bundled model: the Fox is the demo's (`assets/models`), the others are
/// test inputs (`tests/models`, credits in its `CREDITS.md`).
fn bundled(name: &str) -> PathBuf {
    let folder = if name == "Fox.glb" {
        "../assets/models"
    } else {
        "../tests/models"
    };
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(folder)
        .join(name)
}

/// A world holding one instance of `model` with an animator playing `clip`.
fn animated(model: &str, clip: &str, step: Duration) -> (World, NodeId) {
    let mut scene = Scene::new();
    let (root, _) = scene
        .spawn_model(None, "rig", Transform::IDENTITY, &bundled(model))
        .expect("the model loads");
    scene.insert(root, Animator::new(clip)).unwrap();
    let mut world = World::new(scene);
    *world.clock_mut() = Clock::new(step);
    (world, root)
}

fn run_for(world: &mut World, seconds: f64) {
    let steps = (seconds / world.clock().step().as_secs_f64()).round() as u64;
    for _ in 0..steps {
        world.step();
    }
}

#[test]
fn simple_skin_joint_matrices_at_half_a_second_match_the_file_by_hand() {
    let (mut world, root) = animated("SimpleSkin.gltf", "animation 0", Duration::from_millis(10));
    run_for(&mut world, 0.5);
    let animator = world.scene().get::<Animator>(root).unwrap();
    assert!((animator.time - 0.5).abs() < 1e-6, "{}", animator.time);
    let skinned = world
        .scene()
        .subtree(root)
        .find(|&n| world.scene().get::<Skin>(n).is_some())
        .expect("the mesh node has the skin");
    let mut joints = Vec::new();
    assert_eq!(world.scene().joint_matrices(skinned, &mut joints), 2);
    // Joint 0: nodes[1] at (0, 1, 0), inverse bind translate(-0.5, -1, 0).
    let first = Mat4::from_translation(Vec3::new(-0.5, 0.0, 0.0));
    assert!(joints[0].abs_diff_eq(first, 1e-6), "{:?}", joints[0]);
    // Joint 1: nodes[2] under it, rotated by the key at 0.5 s (z = 0.383, w = 0.924).
    let key = Quat::from_xyzw(0.0, 0.0, 0.383, 0.924).normalize();
    let second = Mat4::from_translation(Vec3::Y)
        * Mat4::from_quat(key)
        * Mat4::from_translation(Vec3::new(-0.5, -1.0, 0.0));
    assert!(
        joints[1].abs_diff_eq(second, 1e-5),
        "{:?} vs {second:?}",
        joints[1]
    );
}

fn locals(world: &World, root: NodeId) -> Vec<Transform> {
    world
        .scene()
        .subtree(root)
        .map(|n| world.scene().local(n).unwrap())
        .collect()
}

#[test]
fn a_clip_at_240_hz_and_at_30_hz_gives_the_same_pose_at_the_same_time() {
    let (mut fast, a) = animated("Fox.glb", "Walk", Duration::from_nanos(1_000_000_000 / 240));
    let (mut slow, b) = animated("Fox.glb", "Walk", Duration::from_nanos(1_000_000_000 / 30));
    let before = locals(&fast, a);
    run_for(&mut fast, 1.5);
    run_for(&mut slow, 1.5);
    let (fast_pose, slow_pose) = (locals(&fast, a), locals(&slow, b));
    assert_ne!(fast_pose, before, "the Fox walked");
    for (i, (p, q)) in fast_pose.iter().zip(&slow_pose).enumerate() {
        assert!(p.translation.abs_diff_eq(q.translation, 1e-5), "node {i}");
        assert!(
            p.rotation.abs_diff_eq(q.rotation, 1e-5),
            "node {i}: {p:?} vs {q:?}"
        );
        assert!(p.scale.abs_diff_eq(q.scale, 1e-5), "node {i}");
    }
}

#[test]
fn a_cross_fade_ends_on_the_new_clip() {
    let (mut world, root) = animated("Fox.glb", "Survey", Duration::from_millis(10));
    run_for(&mut world, 0.3);
    world
        .scene_mut()
        .get_mut::<Animator>(root)
        .unwrap()
        .cross_fade("Run", 0.4);
    run_for(&mut world, 0.2);
    let animator = world.scene().get::<Animator>(root).unwrap();
    let fade = animator.fade.as_ref().expect("still fading");
    assert!((fade.elapsed - 0.2).abs() < 1e-4 && animator.clip == "Survey");
    run_for(&mut world, 0.3);
    let animator = world.scene().get::<Animator>(root).unwrap();
    assert!(animator.fade.is_none());
    assert_eq!(animator.clip, "Run");
    // The pose is Run's at its own time now, like an animator that only ran Run.
    let t = animator.time;
    let (mut run, other) = animated("Fox.glb", "Run", Duration::from_millis(10));
    run.scene_mut().get_mut::<Animator>(other).unwrap().time = t - 0.01;
    run.step();
    for (p, q) in locals(&world, root).iter().zip(&locals(&run, other)) {
        assert!(p.rotation.abs_diff_eq(q.rotation, 1e-4), "{p:?} vs {q:?}");
    }
}

/// A crowd large enough that animators write their poses in parallel: every
/// fox ends in the pose (local and world) of the same fox animated alone.
/// Alone, or as the crowd's bulk, the bones are counted dirty, not listed
/// (the linear propagation reads the flags); among many more still nodes
/// they are listed (and the propagation follows the list).
#[test]
fn a_crowd_poses_each_rig_as_if_it_were_alone() {
    keel_engine::join_pool();
    crowd_against_alone(0);
    crowd_against_alone(40_000);
}

fn crowd_against_alone(still: usize) {
    let fox = bundled("Fox.glb");
    let offset = |i: usize| i as f64 * 0.013;
    let mut scene = Scene::new();
    for i in 0..still {
        let at = Transform::from_translation(Vec3::Y * i as f32);
        scene.spawn(None, format!("still {i}"), at).unwrap();
    }
    let mut roots = Vec::new();
    for i in 0..160 {
        let at = Transform::from_translation(Vec3::new(i as f32 * 3.0, 0.0, 0.0));
        let (root, _) = scene.spawn_model(None, "fox", at, &fox).unwrap();
        let mut animator = Animator::new(if i % 3 == 0 { "Run" } else { "Walk" });
        animator.time = offset(i);
        scene.insert(root, animator).unwrap();
        roots.push(root);
    }
    let mut crowd = World::new(scene);
    *crowd.clock_mut() = Clock::new(Duration::from_millis(10));
    run_for(&mut crowd, 0.25);
    for i in [0, 1, 77, 159] {
        let (mut alone, root) = animated(
            "Fox.glb",
            if i % 3 == 0 { "Run" } else { "Walk" },
            Duration::from_millis(10),
        );
        let mut local = alone.scene().local(root).unwrap();
        local.translation.x = i as f32 * 3.0;
        alone.scene_mut().set_local(root, local).unwrap();
        alone.scene_mut().get_mut::<Animator>(root).unwrap().time = offset(i);
        run_for(&mut alone, 0.25);
        assert_eq!(
            locals(&crowd, roots[i]),
            locals(&alone, root),
            "fox {i}, {still} still"
        );
        let worlds = |w: &World, r: NodeId| -> Vec<_> {
            w.scene()
                .subtree(r)
                .map(|n| w.scene().world(n).unwrap())
                .collect()
        };
        assert_eq!(
            worlds(&crowd, roots[i]),
            worlds(&alone, root),
            "fox {i}, {still} still"
        );
    }
}

/// A mesh of two primitives is one model node spawned as two scene nodes
/// (the second a child of the first): a channel on it moves the first.
#[test]
fn a_channel_on_a_mesh_of_two_primitives_moves_its_node() {
    let text = std::fs::read_to_string(bundled("SimpleSkin.gltf")).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let primitive = json["meshes"][0]["primitives"][0].clone();
    json["meshes"][0]["primitives"]
        .as_array_mut()
        .unwrap()
        .push(primitive);
    json["animations"][0]["channels"][0]["target"]["node"] = 0.into();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("two_primitives.gltf");
    std::fs::write(&path, json.to_string()).unwrap();
    let mut scene = Scene::new();
    let (root, _) = scene
        .spawn_model(None, "model", Transform::IDENTITY, &path)
        .unwrap();
    scene.insert(root, Animator::new("animation 0")).unwrap();
    let mesh_node = scene.children(root).next().unwrap();
    let second = scene.children(mesh_node).next().unwrap();
    assert_eq!(scene.name(second), Some("node 0 #1"));
    let mut world = World::new(scene);
    *world.clock_mut() = Clock::new(Duration::from_millis(10));
    run_for(&mut world, 0.5);
    let key = Quat::from_xyzw(0.0, 0.0, 0.383, 0.924).normalize();
    let rotation = world.scene().local(mesh_node).unwrap().rotation;
    assert!(rotation.angle_between(key) < 1e-3, "{rotation:?}");
    assert_eq!(world.scene().local(second).unwrap(), Transform::IDENTITY);
}

#[test]
fn play_modes_map_time_into_the_clip() {
    assert_eq!(clip_time(PlayMode::Loop, 2.5, 2.0), 0.5);
    assert_eq!(clip_time(PlayMode::Once, 2.5, 2.0), 2.0);
    assert_eq!(clip_time(PlayMode::PingPong, 2.5, 2.0), 1.5);
    assert_eq!(clip_time(PlayMode::PingPong, 4.5, 2.0), 0.5);
    assert_eq!(clip_time(PlayMode::Loop, -0.5, 2.0), 1.5);
}

#[test]
fn only_animated_bones_become_dirty() {
    let (mut world, root) = animated("Fox.glb", "Walk", Duration::from_millis(10));
    world.step();
    world.step();
    let nodes = world.scene().subtree(root).count();
    let recomputed = world.scene().last_recomputed();
    assert!(
        recomputed > 0 && recomputed < nodes,
        "{recomputed} of {nodes}"
    );
}

#[test]
fn seeking_a_recording_of_animators_matches_a_fresh_run() {
    let (mut world, _) = animated("Fox.glb", "Walk", Duration::from_nanos(16_666_667));
    world.start_recording(RecordSettings {
        every: Some(45),
        ..RecordSettings::default()
    });
    for _ in 0..600 {
        world.step();
    }
    for k in [599_u64, 17, 300, 46, 451] {
        let (mut fresh, _) = animated("Fox.glb", "Walk", Duration::from_nanos(16_666_667));
        for _ in 0..k {
            fresh.step();
        }
        world.seek(k).unwrap();
        assert_eq!(world.state_hash(), fresh.state_hash(), "seek to {k}");
    }
}

fn fox_scene(animator: &str) -> String {
    format!(
        "(\n    version: 1,\n    nodes: [\n        (\n            name: \"fox\",\n            model: {:?},\n            animator: {animator},\n        ),\n    ],\n)\n",
        bundled("Fox.glb").display().to_string()
    )
}

#[test]
fn a_scene_file_animator_loads_plays_and_saves_back() {
    let text = fox_scene("(clip: \"Run\", speed: 1.5, mode: PingPong)");
    let scene =
        Scene::from_text(&text, Path::new("fox.ron"), &keel_engine::Assets::new()).expect("loads");
    let fox = scene.find("fox").unwrap();
    let animator = scene.get::<Animator>(fox).expect("an animator");
    assert_eq!((animator.clip.as_str(), animator.speed), ("Run", 1.5));
    assert_eq!(animator.mode, PlayMode::PingPong);
    let saved = scene.to_file();
    let record = saved.nodes[0].animator.as_ref().expect("saved");
    assert_eq!(
        (record.clip.as_str(), record.speed, record.mode),
        ("Run", 1.5, PlayMode::PingPong)
    );
    let mut world = World::new(scene);
    let before = locals(&world, fox);
    world.step();
    assert_ne!(locals(&world, fox), before, "the loaded animator plays");
}

#[test]
fn an_unknown_clip_is_an_error_that_lists_the_clips() {
    let text = fox_scene("(clip: \"Gallop\")");
    let error = Scene::from_text(&text, Path::new("fox.ron"), &keel_engine::Assets::new())
        .unwrap_err()
        .to_string();
    assert!(error.contains("fox.ron:7:"), "{error}");
    assert!(error.contains("animator.clip"), "{error}");
    assert!(
        error.contains("\"Gallop\"") && error.contains("Survey, Walk, Run"),
        "{error}"
    );
    let error = Scene::from_text(
        "(version: 1, nodes: [(name: \"box\", animator: (clip: \"Walk\"))])",
        Path::new("box.ron"),
        &keel_engine::Assets::new(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("animator") && error.contains("no model"),
        "{error}"
    );
}

/// Animators and the joint palette keep where their bones are between steps
/// while nothing moves; when the layout moves them (a sweep closing the holes
/// of despawned nodes over several steps, a rig reparented to the end), they
/// play and pack as rigs that never moved.
#[test]
fn rigs_the_layout_moves_pose_and_pack_as_rigs_that_stayed() {
    let fox = bundled("Fox.glb");
    let step = Duration::from_millis(10);
    let at = |i: usize| Transform::from_translation(Vec3::new(i as f32 * 3.0, 0.0, 0.0));
    let mut scene = Scene::new();
    // Nodes ahead of the rigs: despawned, they leave more holes than a
    // step's sweep closes, so the rigs move steps after the last despawn.
    let filler: Vec<NodeId> = (0..12_000)
        .map(|i| {
            scene
                .spawn(None, format!("filler {i}"), Transform::IDENTITY)
                .unwrap()
        })
        .collect();
    let mut roots = Vec::new();
    for i in 0..3 {
        let (root, _) = scene.spawn_model(None, "fox", at(i), &fox).unwrap();
        scene.insert(root, Animator::new("Walk")).unwrap();
        roots.push(root);
    }
    let holder = scene.spawn(None, "holder", Transform::IDENTITY).unwrap();
    let mut moved = World::new(scene);
    *moved.clock_mut() = Clock::new(step);
    let mut stayed: Vec<(World, NodeId)> = (0..3)
        .map(|i| {
            let (mut world, root) = animated("Fox.glb", "Walk", step);
            world.scene_mut().set_local(root, at(i)).unwrap();
            (world, root)
        })
        .collect();
    let mut palette = keel_engine::scene::JointPalette::default();
    // The bones' locals against the rigs that stayed (the roots' own may
    // differ: a reparented rig keeps its place in the world), and the packed
    // matrices against each skin's, computed afresh.
    let mut check = |moved: &mut World, stayed: &mut [(World, NodeId)], seconds, when: &str| {
        run_for(moved, seconds);
        for (world, _) in stayed.iter_mut() {
            run_for(world, seconds);
        }
        moved.scene().pack_joints(1.0, &mut palette);
        for (i, (alone, root)) in stayed.iter().enumerate() {
            let bones = |w: &World, r: NodeId| locals(w, r)[1..].to_vec();
            assert_eq!(
                bones(moved, roots[i]),
                bones(alone, *root),
                "fox {i} {when}"
            );
        }
        assert_eq!(palette.runs.len(), 3);
        for &(mesh, start, len) in &palette.runs {
            let packed: Vec<Mat4> = palette.matrices[start as usize..(start + len) as usize]
                .iter()
                .map(|m| Mat4::from(m.to_affine()))
                .collect();
            let mut want = Vec::new();
            moved.scene().joint_matrices(mesh, &mut want);
            assert_eq!(packed, want, "the joint matrices of {mesh:?} {when}");
        }
    };
    check(&mut moved, &mut stayed, 0.1, "before any move");
    for node in filler {
        moved.scene_mut().despawn(node).unwrap();
    }
    check(&mut moved, &mut stayed, 0.01, "the step after the despawns");
    for n in 0..6 {
        check(
            &mut moved,
            &mut stayed,
            0.01,
            &format!("{n} steps into the sweep"),
        );
    }
    // The first rig under a node after it: its nodes move to the end.
    let keep = keel_engine::Keep::World;
    moved
        .scene_mut()
        .reparent(roots[0], Some(holder), keep)
        .unwrap();
    check(&mut moved, &mut stayed, 0.01, "after a reparent");
    check(&mut moved, &mut stayed, 0.05, "steps after a reparent");
}

/// Packs `world`'s joints into the palette kept between frames and into a
/// fresh one: they must agree. How many runs the kept one wrote.
fn pack_kept(world: &World, alpha: f32, kept: &mut keel_engine::scene::JointPalette) -> usize {
    world.scene().pack_joints(alpha, kept);
    let mut fresh = keel_engine::scene::JointPalette::default();
    world.scene().pack_joints(alpha, &mut fresh);
    assert_eq!(kept.runs, fresh.runs);
    assert!(
        kept.matrices == fresh.matrices,
        "alpha {alpha}: kept matrices differ"
    );
    kept.packed_runs()
}

/// A palette kept between frames writes only the rigs that moved since its
/// last pack and still matches one packed afresh, at every alpha: rigs
/// playing, paused, moved or teleported by their root, a frame after several
/// steps, several frames within one step, a rig gone.
#[test]
fn a_kept_palette_packs_only_moving_rigs_and_matches_a_fresh_one() {
    let fox = bundled("Fox.glb");
    let mut scene = Scene::new();
    let mut roots = Vec::new();
    for i in 0..6 {
        let at = Transform::from_translation(Vec3::new(i as f32 * 3.0, 0.0, 0.0));
        let (root, _) = scene.spawn_model(None, "fox", at, &fox).unwrap();
        let mut animator = Animator::new("Walk");
        // Every other fox stands in its first pose.
        animator.playing = i % 2 == 0;
        scene.insert(root, animator).unwrap();
        roots.push(root);
    }
    let mut world = World::new(scene);
    *world.clock_mut() = Clock::new(Duration::from_millis(10));
    let mut kept = keel_engine::scene::JointPalette::default();
    let frames = |world: &mut World, steps: usize, kept: &mut _| -> Vec<usize> {
        for _ in 0..steps {
            world.step();
        }
        [0.25, 0.75, 1.0]
            .map(|alpha| pack_kept(world, alpha, kept))
            .to_vec()
    };
    assert_eq!(
        frames(&mut world, 1, &mut kept),
        [6, 6, 6],
        "the first step moves all"
    );
    frames(&mut world, 1, &mut kept);
    assert_eq!(
        frames(&mut world, 1, &mut kept),
        [3, 3, 3],
        "the three playing"
    );
    assert_eq!(
        frames(&mut world, 4, &mut kept),
        [3, 3, 3],
        "after steps unseen"
    );
    // Paused: one more pack of the last step's pose, then nothing.
    for &root in &roots {
        world.scene_mut().get_mut::<Animator>(root).unwrap().playing = false;
    }
    frames(&mut world, 1, &mut kept);
    frames(&mut world, 1, &mut kept);
    assert_eq!(frames(&mut world, 1, &mut kept), [0, 0, 0], "all at rest");
    // A rig carried by its root moves its joints though no bone changed.
    let root = roots[1];
    let mut local = world.scene().local(root).unwrap();
    local.translation.y += 2.0;
    world.scene_mut().set_local(root, local).unwrap();
    assert_eq!(
        frames(&mut world, 1, &mut kept),
        [1, 1, 1],
        "the carried rig"
    );
    frames(&mut world, 1, &mut kept);
    assert_eq!(frames(&mut world, 1, &mut kept), [0, 0, 0]);
    local.translation.x -= 40.0;
    world.scene_mut().teleport(root, local).unwrap();
    assert_eq!(
        frames(&mut world, 1, &mut kept),
        [1, 1, 1],
        "the teleported rig"
    );
    // One rig plays again; another goes (the layout changes: all packed).
    world
        .scene_mut()
        .get_mut::<Animator>(roots[2])
        .unwrap()
        .playing = true;
    frames(&mut world, 2, &mut kept);
    assert_eq!(
        frames(&mut world, 1, &mut kept),
        [1, 1, 1],
        "the one playing"
    );
    world.scene_mut().despawn(roots[5]).unwrap();
    assert_eq!(
        frames(&mut world, 1, &mut kept),
        [5, 1, 1],
        "after a rig went"
    );
}
