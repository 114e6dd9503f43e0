//! Tests of emitters.

use super::super::PARALLEL_SAMPLES;
use super::*;
use glam::Quat;

#[test]
fn default_emitter_is_valid() {
    assert_eq!(Emitter::default().validate(), Ok(()));
}

fn field_of(err: &ParticleError) -> &'static str {
    match err {
        ParticleError::NotFinite { field, .. }
        | ParticleError::Negative { field, .. }
        | ParticleError::NotPositive { field, .. }
        | ParticleError::InvertedRange { field, .. }
        | ParticleError::OutOfRange { field, .. }
        | ParticleError::StopCount { field, .. }
        | ParticleError::StopsUnsorted { field, .. } => field,
        ParticleError::GrowLimit { .. } => "overflow.max",
    }
}

#[test]
fn validation_names_the_field_and_value() {
    let cases: Vec<(Emitter, &str, &str)> = vec![
        (
            Emitter {
                rate: -3.0,
                ..Emitter::default()
            },
            "rate",
            "-3",
        ),
        (
            Emitter {
                rate: f32::NAN,
                ..Emitter::default()
            },
            "rate",
            "NaN",
        ),
        (
            Emitter {
                lifetime: FloatRange::new(0.0, 1.0),
                ..Emitter::default()
            },
            "lifetime.min",
            "0",
        ),
        (
            Emitter {
                lifetime: FloatRange::new(3.0, 2.0),
                ..Emitter::default()
            },
            "lifetime",
            "3",
        ),
        (
            Emitter {
                speed: FloatRange::new(1.0, f32::INFINITY),
                ..Emitter::default()
            },
            "speed.max",
            "inf",
        ),
        (
            Emitter {
                cone_angle: 181.0,
                ..Emitter::default()
            },
            "cone_angle",
            "181",
        ),
        (
            Emitter {
                gravity: Vec3::new(0.0, f32::NAN, 0.0),
                ..Emitter::default()
            },
            "gravity.y",
            "NaN",
        ),
        (
            Emitter {
                drag: -0.5,
                ..Emitter::default()
            },
            "drag",
            "-0.5",
        ),
        (
            Emitter {
                burst_period: Some(0.0),
                ..Emitter::default()
            },
            "burst_period",
            "0",
        ),
        (
            Emitter {
                bursts: vec![Burst {
                    time: -1.0,
                    count: 3,
                }],
                ..Emitter::default()
            },
            "bursts.time",
            "-1",
        ),
        (
            Emitter {
                color_over_life: vec![ColorStop {
                    t: 0.0,
                    color: [1.0; 4],
                }],
                ..Emitter::default()
            },
            "color_over_life",
            "1 stops",
        ),
        (
            Emitter {
                size_over_life: vec![
                    SizeStop { t: 0.7, size: 1.0 },
                    SizeStop { t: 0.2, size: 1.0 },
                ],
                ..Emitter::default()
            },
            "size_over_life",
            "0.2",
        ),
        (
            Emitter {
                color_over_life: vec![
                    ColorStop {
                        t: 0.0,
                        color: [1.0; 4],
                    },
                    ColorStop {
                        t: 1.0,
                        color: [1.0, f32::NAN, 1.0, 1.0],
                    },
                ],
                ..Emitter::default()
            },
            "color_over_life.color",
            "NaN",
        ),
        (
            Emitter {
                size_over_life: vec![
                    SizeStop { t: 0.0, size: 1.0 },
                    SizeStop { t: 1.5, size: 1.0 },
                ],
                ..Emitter::default()
            },
            "size_over_life.t",
            "1.5",
        ),
        (
            Emitter {
                size_over_life: vec![
                    SizeStop { t: 0.0, size: -1.0 },
                    SizeStop { t: 1.0, size: 1.0 },
                ],
                ..Emitter::default()
            },
            "size_over_life.size",
            "-1",
        ),
        (
            Emitter {
                overflow: Overflow::Grow { max: u32::MAX },
                ..Emitter::default()
            },
            "overflow.max",
            "4294967295",
        ),
    ];
    for (emitter, field, value) in cases {
        let err = emitter
            .validate()
            .expect_err(&format!("{field} = {value} should be rejected"));
        assert_eq!(field_of(&err), field, "wrong field reported: {err}");
        let message = err.to_string();
        assert!(
            message.contains(field) && message.contains(value),
            "message should name `{field}` and `{value}`: {message}"
        );
    }
}

#[test]
fn rate_accumulates_fractions_across_steps() {
    let mut e = Emitter {
        rate: 25.0,
        ..Emitter::default()
    };
    let total: u32 = (0..60).map(|_| e.advance(1.0 / 60.0)).sum();
    // 25 particles per second over one second, give or take the fraction still owed.
    assert!((24..=25).contains(&total), "got {total}");
}

#[test]
fn bursts_fire_once_or_every_period() {
    let mut once = Emitter {
        rate: 0.0,
        bursts: vec![Burst {
            time: 0.0,
            count: 7,
        }],
        ..Emitter::default()
    };
    let counts: Vec<u32> = (0..10).map(|_| once.advance(0.1)).collect();
    assert_eq!(counts[0], 7);
    assert_eq!(counts[1..].iter().sum::<u32>(), 0);

    let mut periodic = Emitter {
        rate: 0.0,
        bursts: vec![Burst {
            time: 0.25,
            count: 3,
        }],
        burst_period: Some(0.5),
        ..Emitter::default()
    };
    // Over 2 s the burst fires at 0.25, 0.75, 1.25 and 1.75.
    let total: u32 = (0..20).map(|_| periodic.advance(0.1)).sum();
    assert_eq!(total, 12);
    // A step longer than the period catches up on every missed burst.
    let mut coarse = periodic.clone();
    coarse.restart();
    assert_eq!(coarse.advance(2.0), 12);
}

#[test]
fn particles_leave_inside_the_rotated_cone() {
    let mut e = Emitter {
        cone_angle: 30.0,
        speed: FloatRange::new(2.0, 3.0),
        ..Emitter::default()
    };
    let rotation = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let world = Affine3A::from_scale_rotation_translation(
        Vec3::splat(4.0),
        rotation,
        Vec3::new(1.0, 2.0, 3.0),
    );
    let axis = rotation * Vec3::Y;
    for _ in 0..1000 {
        let p = e.sample_particle(&world, 9);
        assert_eq!(p.position, Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(p.owner, 9);
        let speed = p.velocity.length();
        assert!(
            (2.0 - 1e-4..=3.0 + 1e-4).contains(&speed),
            "speed {speed} ignores node scale"
        );
        let angle = p.velocity.angle_between(axis).to_degrees();
        assert!(angle <= 30.0 + 1e-2, "direction {angle} degrees off axis");
        assert!((1.0..=2.0).contains(&p.lifetime));
    }
}

#[test]
fn gradients_interpolate_and_clamp() {
    let e = Emitter {
        color_over_life: vec![
            ColorStop {
                t: 0.2,
                color: [1.0, 0.0, 0.0, 1.0],
            },
            ColorStop {
                t: 0.6,
                color: [0.0, 1.0, 0.0, 1.0],
            },
            ColorStop {
                t: 0.6,
                color: [0.0, 0.0, 1.0, 0.5],
            },
        ],
        ..Emitter::default()
    };
    assert_eq!(e.color_at(0.0), Vec4::new(1.0, 0.0, 0.0, 1.0));
    assert!(
        e.color_at(0.4)
            .abs_diff_eq(Vec4::new(0.5, 0.5, 0.0, 1.0), 1e-6)
    );
    assert_eq!(e.color_at(0.9), Vec4::new(0.0, 0.0, 1.0, 0.5));
    let mut table = OverLifeTable::default();
    table.bake(2, &e);
    assert_eq!(table.slots(), 3);
    for k in 0..=20 {
        let t = k as f32 / 20.0;
        let (color, size) = table.sample(2, t).expect("slot 2 was baked");
        // Nearest sample: off by at most half a table step of the steepest segment (away
        // from the hard step at 0.6).
        if (t - 0.6).abs() > 0.01 {
            let tolerance = 0.5 / 255.0 / 0.4 + 1e-5;
            assert!(color.abs_diff_eq(e.color_at(t), tolerance), "t = {t}");
        }
        assert!((size - e.size_at(t)).abs() <= 0.2 * 0.5 / 255.0 + 1e-6);
    }
    assert_eq!(table.sample(3, 0.5), None);
}

#[test]
fn a_batch_split_across_threads_draws_what_one_by_one_does() {
    let world =
        Affine3A::from_rotation_translation(Quat::from_rotation_z(0.7), Vec3::new(1.0, 2.0, 3.0));
    let mut split = Emitter {
        cone_angle: 35.0,
        speed: FloatRange::new(2.0, 5.0),
        lifetime: FloatRange::new(0.5, 4.0),
        seed: 99,
        ..Emitter::default()
    };
    let mut single = split.clone();
    // Long enough to be split twice over, and not a whole number of batches.
    let n = 4 * PARALLEL_SAMPLES + 37;
    for _ in 0..2 {
        let mut velocity = vec![Vec3::ZERO; n];
        let mut lifetime = vec![0.0; n];
        rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .expect("a thread pool")
            .install(|| split.sample_into(&world, &mut velocity, &mut lifetime));
        let mut expected = Vec::with_capacity(n);
        single.sample_particles(n as u32, &world, 0, |p| {
            expected.push((p.velocity, p.lifetime));
        });
        assert!(
            velocity
                .iter()
                .zip(&lifetime)
                .map(|(&v, &l)| (v, l))
                .eq(expected),
            "the same particles, bit for bit"
        );
    }
}

#[test]
fn directions_are_uniform_over_the_cap() {
    // For a cap of half-angle a, cos(theta) is uniform in [cos a, 1]: its mean is
    // (1 + cos a) / 2, and the sideways components average out.
    for (cone, mean_y) in [(180.0f32, 0.0f32), (90.0, 0.5), (30.0, 0.933)] {
        let mut e = Emitter {
            cone_angle: cone,
            speed: FloatRange::new(1.0, 1.0),
            ..Emitter::default()
        };
        let mut sum = Vec3::ZERO;
        let n = 50_000;
        e.sample_particles(n, &Affine3A::IDENTITY, 0, |p| sum += p.velocity);
        let mean = sum / n as f32;
        assert!((mean.y - mean_y).abs() < 0.01, "cone {cone}: mean {mean}");
        assert!(
            mean.x.abs() < 0.01 && mean.z.abs() < 0.01,
            "cone {cone}: mean {mean}"
        );
    }
}

#[test]
fn sample_offset_rounds_to_the_nearest_sample() {
    let last = (OVER_LIFE_SAMPLES - 1) as f32;
    for k in 0..=4000 {
        let t = k as f32 / 3000.0 - 0.1;
        let expected = (t * last).round_ties_even().clamp(0.0, last) as u32;
        assert_eq!(OverLifeTable::sample_offset(t), expected, "t = {t}");
    }
    assert_eq!(
        OverLifeTable::sample_offset(f32::NAN),
        OVER_LIFE_SAMPLES as u32 - 1
    );
    assert_eq!(
        OverLifeTable::sample_offset(f32::INFINITY),
        OVER_LIFE_SAMPLES as u32 - 1
    );
    assert_eq!(OverLifeTable::sample_offset(f32::NEG_INFINITY), 0);
}

#[test]
fn same_seed_same_draws() {
    let mut a = Emitter::default();
    let mut b = Emitter::default();
    let mut c = Emitter {
        seed: 1,
        ..Emitter::default()
    };
    fn draw(e: &mut Emitter) -> Vec<Vec3> {
        (0..16)
            .map(|_| e.sample_particle(&Affine3A::IDENTITY, 0).velocity)
            .collect()
    }
    let va = draw(&mut a);
    assert_eq!(va, draw(&mut b));
    assert_ne!(va, draw(&mut c));
    a.restart();
    assert_eq!(va, draw(&mut a), "restart replays");
}

#[test]
fn round_trips_through_ron_without_runtime_state() {
    let mut e = Emitter {
        bursts: vec![Burst {
            time: 0.5,
            count: 10,
        }],
        burst_period: Some(2.0),
        overflow: Overflow::Grow { max: 4096 },
        blend: BlendMode::Additive,
        ..Emitter::default()
    };
    e.advance(0.3);
    let text = ron::to_string(&e).expect("emitters serialise");
    assert!(!text.contains("state"));
    let back: Emitter = ron::from_str(&text).expect("and deserialise");
    assert_eq!(back, e);
    assert_eq!(back.state.time(), 0.0);
}

#[test]
fn a_pool_that_could_never_be_drawn_is_refused() {
    // MAX_POOL_CAPACITY particles fill exactly the buffer every device allows.
    let bytes = u64::from(MAX_POOL_CAPACITY) * size_of::<super::super::ParticleInstance>() as u64;
    assert_eq!(bytes, wgpu::Limits::default().max_buffer_size);
    assert_eq!(
        bytes,
        wgpu::Limits::downlevel_defaults().max_buffer_size,
        "the limits the engine asks its device for"
    );
    let grow = |max| Emitter {
        overflow: Overflow::Grow { max },
        ..Emitter::default()
    };
    assert_eq!(grow(MAX_POOL_CAPACITY).validate(), Ok(()));
    // 16,777,216 (once accepted) asked the renderer for a 512 MB buffer, over the device's 256 MB.
    let error = grow(1 << 24).validate().unwrap_err();
    assert_eq!(error.field(), "overflow.max");
    assert!(error.to_string().contains("8388608"), "{error}");
}
