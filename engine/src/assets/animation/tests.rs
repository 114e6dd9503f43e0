use super::*;

fn clip(interpolation: Interpolation, property: Property, times: &[f32], values: &[f32]) -> Clip {
    let width = match property {
        Property::Rotation => 4,
        _ => 3,
    };
    Clip {
        name: "test".into(),
        duration: *times.last().unwrap(),
        times: times.to_vec(),
        values: values.to_vec(),
        channels: vec![Channel {
            node: 0,
            property,
            interpolation,
            keys: 0..times.len() as u32,
            values: 0..values.len() as u32,
            width,
        }],
    }
}

fn vec3_at(clip: &Clip, t: f32) -> Vec3 {
    match clip.sample(0, t, &mut 0) {
        Some(Sample::Vec3(v)) => v,
        other => panic!("expected a vector, got {other:?}"),
    }
}

#[test]
fn linear_and_step_match_hand_computed_values_and_clamp_outside_the_keys() {
    let values = [0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 2.0, 4.0, 0.0];
    let linear = clip(
        Interpolation::Linear,
        Property::Translation,
        &[0.0, 1.0, 3.0],
        &values,
    );
    assert_eq!(vec3_at(&linear, 0.5), Vec3::new(1.0, 0.0, 0.0));
    assert_eq!(vec3_at(&linear, 2.0), Vec3::new(2.0, 2.0, 0.0));
    assert_eq!(vec3_at(&linear, 5.0), Vec3::new(2.0, 4.0, 0.0));
    assert_eq!(vec3_at(&linear, -1.0), Vec3::ZERO);
    let step = clip(
        Interpolation::Step,
        Property::Translation,
        &[0.0, 1.0, 3.0],
        &values,
    );
    assert_eq!(vec3_at(&step, 0.99), Vec3::ZERO);
    assert_eq!(vec3_at(&step, 1.0), Vec3::new(2.0, 0.0, 0.0));
    assert_eq!(vec3_at(&step, 2.9), Vec3::new(2.0, 0.0, 0.0));
}

#[test]
fn cubic_spline_uses_the_tangents_scaled_by_the_key_gap() {
    // Keys at 0 and 2 s: in-tangent, value, out-tangent each.
    let values = [
        0.0, 0.0, 0.0, /* v0 */ 0.0, 0.0, 0.0, /* out0 */ 3.0, 0.0, 0.0, //
        -1.0, 0.0, 0.0, /* v1 */ 4.0, 0.0, 0.0, /* out1 */ 0.0, 0.0, 0.0,
    ];
    let cubic = clip(
        Interpolation::CubicSpline,
        Property::Translation,
        &[0.0, 2.0],
        &values,
    );
    // u = 0.5: 0.125 * 2 * 3 + 0.5 * 4 + (-0.125) * 2 * (-1) = 3.
    assert!((vec3_at(&cubic, 1.0).x - 3.0).abs() < 1e-6);
    // u = 0.25: h10 = 0.140625, h01 = 0.15625, h11 = -0.046875 -> 0.84375 + 0.625 + 0.09375.
    assert!((vec3_at(&cubic, 0.5).x - 1.5625).abs() < 1e-6);
    assert_eq!(vec3_at(&cubic, 2.0).x, 4.0);
}

#[test]
fn rotations_take_the_shortest_path() {
    let quarter = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
    // The same rotation as `quarter`, written with the opposite sign.
    let far = -quarter;
    let mut values = Quat::IDENTITY.to_array().to_vec();
    values.extend_from_slice(&far.to_array());
    let linear = clip(
        Interpolation::Linear,
        Property::Rotation,
        &[0.0, 1.0],
        &values,
    );
    let Some(Sample::Quat(half)) = linear.sample(0, 0.5, &mut 0) else {
        panic!("a rotation");
    };
    let expected = Quat::from_rotation_y(std::f32::consts::FRAC_PI_4);
    assert!(half.angle_between(expected) < 1e-4, "{half:?}");
}

#[test]
fn a_cursor_gives_what_a_fresh_search_gives_forward_and_backward() {
    let times: Vec<f32> = (0..200).map(|i| i as f32 * 0.05).collect();
    let values: Vec<f32> = times
        .iter()
        .flat_map(|t| [crate::math::sin(*t), crate::math::cos(*t), *t])
        .collect();
    let linear = clip(
        Interpolation::Linear,
        Property::Translation,
        &times,
        &values,
    );
    let mut cursor = 0;
    let mut t = 0.0;
    for step in 0..600 {
        // Forward mostly, with jumps back (a loop wrapping).
        t = if step % 150 == 149 { 0.3 } else { t + 0.0173 };
        let with_cursor = linear.sample(0, t, &mut cursor);
        assert_eq!(with_cursor, linear.sample(0, t, &mut 0), "t = {t}");
    }
}

#[test]
fn the_polynomial_slerp_stays_within_1e_6_of_glams() {
    let mut rng = crate::rng::SplitMix64::new(5);
    let mut worst = 0.0f32;
    let mut worst_length = 0.0f32;
    for _ in 0..20_000 {
        let axis =
            Vec3::new(rng.unit() - 0.5, rng.unit() - 0.5, rng.unit() - 0.5).normalize_or(Vec3::X);
        let other =
            Vec3::new(rng.unit() - 0.5, rng.unit() - 0.5, rng.unit() - 0.5).normalize_or(Vec3::Y);
        let a = Quat::from_axis_angle(axis, rng.unit() * std::f32::consts::TAU);
        // Up to 180 degrees apart (half the cases within 45: the four-term
        // path for keys near each other), either sign.
        let spread = if rng.unit() < 0.5 { 0.25 } else { 1.0 };
        let angle = rng.unit() * std::f32::consts::PI * spread;
        let mut b = a * Quat::from_axis_angle(other, angle);
        if rng.unit() < 0.5 {
            b = -b;
        }
        let t = rng.unit();
        let exact = a.slerp(b, t);
        // Components, sign aligned (angle_between's acos has an f32 noise floor of 1e-3).
        let got = slerp(a, b, t);
        worst_length = worst_length.max((got.length() - 1.0).abs());
        let got = if got.dot(exact) < 0.0 { -got } else { got };
        worst = worst.max(
            (glam::Vec4::from(got) - glam::Vec4::from(exact))
                .abs()
                .max_element(),
        );
    }
    assert!(worst < 1e-6, "worst component error {worst}");
    assert!(worst_length < 1e-6, "worst length error {worst_length}");
}

#[test]
fn paired_slerps_equal_single_ones_bit_for_bit() {
    let mut rng = crate::rng::SplitMix64::new(9);
    let rotation = |rng: &mut crate::rng::SplitMix64, spread: f32| {
        let axis =
            Vec3::new(rng.unit() - 0.5, rng.unit() - 0.5, rng.unit() - 0.5).normalize_or(Vec3::X);
        Quat::from_axis_angle(axis, (rng.unit() - 0.5) * spread)
    };
    let mut mixed = 0;
    for case in 0..5_000 {
        // Mostly close keys, some far apart (the wide path), either sign.
        // (Turns up to 1 rad: some pairs with one lane near and one not.)
        let spread = match case % 7 {
            0 => 6.0,
            1 | 2 => 2.0,
            _ => 0.5,
        };
        let a = [rotation(&mut rng, 6.0), rotation(&mut rng, 6.0)];
        let mut b = [
            a[0] * rotation(&mut rng, spread),
            a[1] * rotation(&mut rng, spread),
        ];
        if case % 3 == 0 {
            b[1] = -b[1];
        }
        let t = rng.unit();
        let near = |i: usize| a[i].dot(b[i]).abs() >= 0.94;
        mixed += usize::from(near(0) != near(1));
        let pair = slerp_pair(a, b, t);
        assert_eq!(
            pair,
            [slerp(a[0], b[0], t), slerp(a[1], b[1], t)],
            "case {case}"
        );
    }
    assert!(mixed > 100, "{mixed} pairs with one lane near and one not");
}
