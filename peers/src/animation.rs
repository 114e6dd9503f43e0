//! The animation row: the same Fox crowd on both sides
//! ([`crate::keel_anim`], [`crate::bevy_anim`]), a frame at a time, and the
//! check that both posed the same bones at the same places.

use crate::{Row, bevy_anim, keel_anim, row, timed};

/// Rigs in the animation row, and frames each round times.
const RIGS: usize = 4_000;
const FRAMES: u32 = 10;

/// The Fox is about 100 units (centimetres) long: the two sides' bones must
/// agree within a thousandth of that.
const FOX_SIZE: f32 = 100.0;

/// The `animation_crowd` row, checked before and after its rounds.
pub fn crowd_row(rows: &mut Vec<Row>) {
    let path = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../assets/models/Fox.glb"
    ));
    // A grid 64 rigs wide, two Fox lengths apart; rig i at phase i x 0.013 s.
    let rigs: Vec<(glam::Vec3, f64)> = (0..RIGS)
        .map(|i| {
            let (x, z) = ((i % 64) as f32, (i / 64) as f32);
            (
                glam::Vec3::new(x, 0.0, z) * 2.0 * FOX_SIZE,
                i as f64 * 0.013,
            )
        })
        .collect();
    let fox = bevy_anim::Fox::load(path, "Run");
    let mut keel = keel_anim::KeelCrowd::build(path, "Run", &rigs);
    let mut bevy = bevy_anim::BevyCrowd::build(&fox, &rigs);
    // Warm: Keel binds its animators on the first step, Bevy threads its
    // graph and makes its evaluators. Both sides always run as many frames.
    for _ in 0..FRAMES {
        keel.frame();
        bevy.frame();
    }
    check_poses(&keel, &bevy, &rigs);
    rows.push(row(
        &format!("animation_crowd/{RIGS}"),
        || timed(|| (0..FRAMES).for_each(|_| keel.frame())) / FRAMES,
        || timed(|| (0..FRAMES).for_each(|_| bevy.frame())) / FRAMES,
    ));
    check_poses(&keel, &bevy, &rigs);
}

/// Asserts both sides posed the same bones at the same places, and that the
/// rigs' poses differ (the clip plays, at different phases).
fn check_poses(
    keel: &keel_anim::KeelCrowd,
    bevy: &bevy_anim::BevyCrowd,
    rigs: &[(glam::Vec3, f64)],
) {
    let bones = [
        "b_Hip_01",
        "b_Head_05",
        "b_RightHand_08",
        "b_Tail03_014",
        "b_LeftFoot02_018",
    ];
    let (mut worst, mut spread) = (0.0_f32, 0.0_f32);
    let first_head = keel.world(0, "b_Head_05") - rigs[0].0;
    for rig in (0..rigs.len()).step_by(97) {
        for bone in bones {
            let (k, b) = (keel.world(rig, bone), bevy.world(rig, bone));
            let off = (k - b).abs().max_element();
            assert!(
                off <= 1e-3 * FOX_SIZE,
                "rig {rig} {bone}: keel {k}, bevy {b}: the two sides disagree"
            );
            worst = worst.max(off);
        }
        let head = keel.world(rig, "b_Head_05") - rigs[rig].0;
        spread = spread.max(head.distance(first_head));
    }
    assert!(spread > 0.01 * FOX_SIZE, "every rig in the same pose");
    eprintln!("animation: sides agree within {worst:.2e} (poses spread {spread:.1})");
}
