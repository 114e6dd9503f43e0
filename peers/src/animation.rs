//! The animation row: the same Fox crowd on Keel and on both Bevys
//! ([`crate::keel_anim`], [`crate::bevy_anim`]), a frame at a time, and the
//! check that all posed every node of every rig at the same place.

use glam::{Affine3A, Vec3};

use crate::contest::{Contest, SIDES, timed};
use crate::{bevy_anim, disagreement, keel_anim, worst};

/// Rigs in the animation row, and frames each round times.
const RIGS: usize = 4_000;
const FRAMES: u32 = 10;

/// The Fox is about 100 units (centimetres) long: a node's transform
/// relative to its rig may differ by a thousandth of that between the sides
/// (both interpolate the same keys; Bevy's curves and Keel's sampler round
/// differently).
const FOX_SIZE: f32 = 100.0;
const TOLERANCE: f32 = 1e-3;

/// The `animation_crowd` row, checked before and after its rounds.
pub fn crowd_row(contest: &Contest) {
    let path = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../assets/models/Fox.glb"
    ));
    // A grid 64 rigs wide, two Fox lengths apart; rig i at phase i x 0.013 s.
    let rigs: Vec<(Vec3, f64)> = (0..RIGS)
        .map(|i| {
            let (x, z) = ((i % 64) as f32, (i / 64) as f32);
            (Vec3::new(x, 0.0, z) * 2.0 * FOX_SIZE, i as f64 * 0.013)
        })
        .collect();
    let fox = bevy_anim::Fox::load(path, "Run");
    let mut keel = keel_anim::KeelCrowd::build(path, "Run", &rigs);
    let mut bevy = bevy_anim::BevyCrowd::build(&fox, &rigs, true);
    let mut dynamic = bevy_anim::BevyCrowd::build(&fox, &rigs, false);
    // Warm: Keel binds its animators on the first step, Bevy threads its
    // graph and makes its evaluators. Every side always runs as many frames.
    for _ in 0..FRAMES {
        keel.frame();
        bevy.frame();
        dynamic.frame();
    }
    let name = format!("animation_crowd/{RIGS}");
    check_poses(contest, "animation_start", &keel, [&bevy, &dynamic], &rigs);
    let frames = |frame: &mut dyn FnMut()| timed(|| (0..FRAMES).for_each(|_| frame())) / FRAMES;
    contest.row(
        &name,
        [
            &mut || frames(&mut || keel.frame()),
            &mut || frames(&mut || bevy.frame()),
            &mut || frames(&mut || dynamic.frame()),
        ],
    );
    check_poses(contest, &name, &keel, [&bevy, &dynamic], &rigs);
}

/// Reports how far each Bevy's nodes are from Keel's, for every node of
/// every rig, relative to the rig's place; and asserts that the rigs'
/// poses differ (the clip plays, at different phases).
fn check_poses(
    contest: &Contest,
    name: &str,
    keel: &keel_anim::KeelCrowd,
    bevys: [&bevy_anim::BevyCrowd; 2],
    rigs: &[(Vec3, f64)],
) {
    let names = bevys[0].names();
    let mut unique = names.to_vec();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "the Fox's node names are unique");
    // Relative to the rig's place, in Fox lengths: the measure's scale.
    let near = |world: Affine3A, place: Vec3| {
        let mut world = world;
        world.translation -= glam::Vec3A::from(place);
        world.translation /= FOX_SIZE;
        world
    };
    let head = names.iter().position(|n| n == "b_Head_05").expect("a head");
    for (side, bevy) in SIDES[1..].iter().zip(bevys) {
        let mut count = 0;
        let mut spread = 0.0_f32;
        let first_head = bevy.world(0, head).translation - glam::Vec3A::from(rigs[0].0);
        let worst = worst((0..rigs.len()).flat_map(|rig| {
            let worlds = keel.worlds(rig);
            let place = rigs[rig].0;
            let at = bevy.world(rig, head).translation - glam::Vec3A::from(place);
            spread = spread.max(at.distance(first_head));
            count += names.len();
            let missing = Affine3A::from_mat3(glam::Mat3::NAN);
            (names.iter().enumerate())
                .map(|(i, node)| {
                    let k = worlds.get(node.as_str()).copied().unwrap_or(missing);
                    disagreement(near(k, place), near(bevy.world(rig, i), place))
                })
                .collect::<Vec<_>>()
        }));
        assert!(
            spread > 0.01 * FOX_SIZE,
            "{name}: every rig in the same pose"
        );
        contest.agree(name, side, count, worst, TOLERANCE);
    }
}
