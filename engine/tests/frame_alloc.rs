//! Once warm, preparing a frame (octree culling, interpolation, packing and
//! batching of instances and particles) allocates nothing on the heap, nor
//! does a fixed step of animated rigs (sampling, writing, packing joints) or
//! the extraction of their skinned meshes, nor a step of user systems over
//! registered components and a resource (queries of one and of two columns, a column whole).
//! The tests take turns: the counter is global, and rayon's workers count too.

#![expect(
    unsafe_code,
    reason = "the counting global allocator forwards to the system one"
)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use glam::{Quat, Vec3};
use keel_engine::Camera;
use keel_engine::Emitter;
use keel_engine::Primitive;
use keel_engine::World;
use keel_engine::render::{GpuCaster, InstanceBatcher, cascades};
use keel_engine::scene::JointPalette;
use keel_engine::scene::MAX_CASCADES;
use keel_engine::{Animator, Light, LightKind, Material, MeshRenderer, Orbit, Scene, Transform};
use keel_engine::{Extractor, Overlays};

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards to `System` with the caller's arguments unchanged;
// counting touches only atomics, which do not allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// One test counts at a time.
static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn preparing_a_frame_allocates_nothing_once_warm() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    ALLOCATIONS.store(0, Ordering::Relaxed);
    let mut scene = Scene::new();
    for g in 0..50 {
        let root = scene.spawn(None, "group", Transform::IDENTITY).unwrap();
        let orbit = Orbit {
            center: Vec3::ZERO,
            radius: 5.0 + g as f32,
            rate: 0.5,
            angle: g as f32,
            face_forward: true,
        };
        scene.insert(root, orbit).unwrap();
        for i in 0..20 {
            let node = scene
                .spawn(
                    Some(root),
                    "part",
                    Transform::from_translation(Vec3::Y * i as f32),
                )
                .unwrap();
            let mesh = Primitive::ALL[i % 5];
            scene
                .insert(
                    node,
                    MeshRenderer {
                        cast_shadows: true,
                        mesh: mesh.into(),
                        material: Material::default(),
                    },
                )
                .unwrap();
        }
        scene
            .insert(
                root,
                Emitter {
                    rate: 30.0,
                    ..Emitter::default()
                },
            )
            .unwrap();
    }
    // A sun: every frame also culls and packs each shadow cascade's casters.
    let sun = scene
        .spawn(
            None,
            "sun",
            Transform::IDENTITY.with_rotation(Quat::from_rotation_x(-0.9)),
        )
        .unwrap();
    let light = Light {
        kind: LightKind::Directional,
        color: Vec3::ONE,
        intensity: 2.0,
        cast_shadows: false,
    };
    scene.insert(sun, light).unwrap();
    let mut world = World::new(scene);
    let camera = Camera {
        position: Vec3::new(0.0, 20.0, 60.0),
        target: Vec3::ZERO,
        ..Camera::default()
    };
    let view_proj = camera.view_projection(1.5);
    // Both paths: the CPU-culled reference (camera and casters packed on
    // the CPU), then the retained scene (its moving slots rewritten).
    for cpu_culling in [true, false] {
        let mut buffers = Extractor::default();
        buffers.set_cpu_culling(cpu_culling);
        let mut batcher = InstanceBatcher::new();
        let mut shadow_batchers: Vec<InstanceBatcher<GpuCaster>> =
            (0..MAX_CASCADES).map(|_| InstanceBatcher::new()).collect();
        let overlays = Overlays::default();
        let (mut drawn, mut cast) = (0, 0);
        for frame in 0..200 {
            world.step();
            COUNTING.store(frame >= 100, Ordering::Relaxed);
            let data = buffers.extract_world(&mut world, camera, 1.5, &overlays);
            let retained = data.retained.map_or(0, |r| r.records.len());
            drawn += data.packed.len() + data.alpha.len() + retained;
            let registry = data
                .assets
                .expect("extraction names the scene's store")
                .registry();
            batcher.prepare_frame(view_proj, &data, &registry);
            let set = cascades(&camera, 1.5, data.sun.direction, &data.shadows);
            for (i, shadow) in shadow_batchers.iter_mut().enumerate().take(set.count) {
                shadow.prepare_casters(
                    set.view_proj[i],
                    data.instances,
                    data.casters[i],
                    &registry,
                );
                cast += shadow.drawn();
            }
            drop(registry);
            COUNTING.store(false, Ordering::Relaxed);
        }
        // The retained scene's casters are culled on the GPU.
        assert!(
            drawn > 10_000 && (cast > 10_000 || !cpu_culling),
            "the frames must have had instances, casters and particles to prepare ({drawn}, {cast})"
        );
        assert_eq!(
            ALLOCATIONS.load(Ordering::Relaxed),
            0,
            "heap allocations while preparing warm frames (CPU culling: {cpu_culling})"
        );
    }
}

#[test]
fn stepping_animated_rigs_allocates_nothing_once_warm() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    // As the viewer does: the stepping thread is one of rayon's workers (a
    // thread outside the pool hands work over through a queue that allocates).
    // The other test here does not use rayon.
    assert!(keel_engine::join_pool(), "rayon's pool was already built");
    // A worker's first steal from its own deque (when the other worker took
    // its job first) registers the thread with crossbeam's epoch collector,
    // once per thread: done here, not by chance inside the counted steps.
    rayon::broadcast(|_| crossbeam_epoch::is_pinned());
    let fox = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/models/Fox.glb");
    let mut scene = Scene::new();
    // More rigs than the parallel threshold, two clips, one cross-fading, some paused.
    for i in 0..80 {
        let at = Transform::from_translation(Vec3::new(i as f32, 0.0, 0.0));
        let (root, _) = scene.spawn_model(None, "fox", at, &fox).unwrap();
        let mut animator = Animator::new(if i % 2 == 0 { "Walk" } else { "Run" });
        animator.playing = i % 5 != 0;
        scene.insert(root, animator).unwrap();
    }
    let mut world = World::new(scene);
    let mut palette = JointPalette::default();
    // Far enough back to see every fox (each about 100 units tall).
    let camera = Camera {
        position: Vec3::new(40.0, 80.0, 600.0),
        target: Vec3::new(40.0, 50.0, 0.0),
        ..Camera::default()
    };
    let mut buffers = Extractor::default();
    let mut deformed = 0;
    for step in 0..200 {
        COUNTING.store(step >= 100, Ordering::Relaxed);
        world.step();
        world.scene().pack_joints(1.0, &mut palette);
        // And a frame's extraction: the palette at alpha, weights, culling.
        let frame = buffers.extract_world(&mut world, camera, 1.5, &Overlays::default());
        deformed = frame.deformed.len();
        COUNTING.store(false, Ordering::Relaxed);
    }
    assert_eq!(deformed, 80, "every fox extracted as a skinned instance");
    assert_eq!(
        palette.matrices.len(),
        80 * 24,
        "every rig packed its 24 joints"
    );
    assert_eq!(
        ALLOCATIONS.load(Ordering::Relaxed),
        0,
        "heap allocations in warm animated steps"
    );
}

/// A game's component: the user systems below walk it every step.
#[derive(
    Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize, bevy_reflect::Reflect,
)]
struct Fuel {
    left: f32,
    burn: f32,
}

impl keel_engine::Component for Fuel {
    const NAME: &'static str = "fuel";
}

/// The game's score, a resource the systems write.
#[derive(Clone, Debug, Default)]
struct Burned(f32);

#[test]
fn stepping_user_systems_over_user_components_with_input_allocates_nothing_once_warm() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    ALLOCATIONS.store(0, Ordering::Relaxed);
    let mut scene = Scene::new();
    for i in 0..2_000 {
        let at = Transform::from_translation(Vec3::new(i as f32, 0.0, 0.0));
        let node = scene.spawn(None, "tank", at).unwrap();
        let fuel = Fuel {
            left: 1e6,
            burn: 1.0 + (i % 7) as f32,
        };
        scene.insert(node, fuel).unwrap();
        if i % 3 == 0 {
            scene
                .insert(
                    node,
                    keel_engine::Spin {
                        axis: Vec3::Y,
                        rate: 1.0,
                    },
                )
                .unwrap();
        }
    }
    let mut world = World::new(scene);
    world.register::<Fuel>().unwrap();
    world.insert_resource(Burned::default());
    world
        .systems_mut()
        .add("burn", |scene, _, ctx| {
            let throttle = scene
                .resource::<keel_engine::Input>()
                .map_or(0.0, |input| input.axis("throttle"));
            let mut burned = 0.0;
            for fuel in scene.components_mut().parts_mut::<Fuel>().1 {
                let used = (fuel.burn * (1.0 + throttle) * ctx.dt).min(fuel.left);
                fuel.left -= used;
                burned += used;
            }
            if let Some(total) = scene.resource_mut::<Burned>() {
                total.0 += burned;
            }
        })
        .unwrap()
        .before("spin")
        .unwrap();
    world
        .systems_mut()
        .add("lift", |scene, _, ctx| {
            let _ = scene.query_each::<(&Fuel,)>(|node, (fuel,), transforms| {
                if let Some(mut local) = transforms.local(node) {
                    local.translation.y = fuel.left * 1e-6 + ctx.dt;
                    let _ = transforms.set_local(node, local);
                }
            });
            let _ = scene.query_each::<(&Fuel, &mut keel_engine::Spin)>(|_, (fuel, spin), _| {
                spin.rate = fuel.left * 1e-6;
            });
        })
        .unwrap();
    use keel_engine::input::{Actions, Binding, InputCollector, Key};
    world.set_actions(std::sync::Arc::new(Actions::default().bind(
        "throttle",
        Binding::Axis {
            keys: Some((Key::S, Key::W)),
            gamepad: None,
        },
    )));
    // Frames as a window runs them: keys and the cursor change between
    // frames, each frame's steps read the collector.
    let mut collector = InputCollector::default();
    let step = world.clock().step();
    for frame in 0..200 {
        collector.key(Key::W, frame % 3 != 0);
        collector.cursor(glam::Vec2::new(frame as f32, 0.0));
        COUNTING.store(frame >= 100, Ordering::Relaxed);
        world.advance_with_input(step, &mut collector);
        COUNTING.store(false, Ordering::Relaxed);
    }
    assert!(
        world.resource::<Burned>().unwrap().0 > 1_000.0,
        "the systems ran"
    );
    assert!(world.clock().total_steps() >= 190, "the frames stepped");
    assert!(world.system_panic().is_none());
    assert_eq!(
        ALLOCATIONS.load(Ordering::Relaxed),
        0,
        "heap allocations in warm steps of user systems reading input"
    );
}

/// What a game's systems send each other.
#[derive(Clone, Copy, Debug)]
struct Spark {
    node: keel_engine::NodeId,
    heat: f32,
}

/// A resource with a timer in it (state in the world).
#[derive(Clone, Debug, Default)]
struct Beat {
    timer: keel_engine::Timer,
    beats: u32,
    sparks: f32,
}

#[test]
fn a_step_with_events_timers_queries_and_commands_allocates_nothing_once_warm() {
    use keel_engine::{Events, Keep, Timer};
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    ALLOCATIONS.store(0, Ordering::Relaxed);
    let mut scene = Scene::new();
    let (left, right) = (
        scene.spawn(None, "left", Transform::IDENTITY).unwrap(),
        scene.spawn(None, "right", Transform::IDENTITY).unwrap(),
    );
    let rover = scene
        .spawn(Some(left), "rover", Transform::IDENTITY)
        .unwrap();
    for i in 0..2_000 {
        let at = Transform::from_translation(Vec3::new(i as f32, 0.0, 0.0));
        let node = scene.spawn(None, "tank", at).unwrap();
        scene
            .insert(
                node,
                Fuel {
                    left: 1e6,
                    burn: 1.0,
                },
            )
            .unwrap();
        if i % 2 == 0 {
            scene
                .insert(
                    node,
                    keel_engine::Spin {
                        axis: Vec3::Y,
                        rate: 1.0,
                    },
                )
                .unwrap();
        }
        if i % 3 == 0 {
            scene.insert(node, Orbit::default()).unwrap();
        }
    }
    let mut world = World::new(scene);
    world.register::<Fuel>().unwrap();
    world.add_event::<Spark>();
    world.insert_resource(Beat {
        timer: Timer::repeating(0.1),
        ..Beat::default()
    });
    world
        .systems_mut()
        .add("ignite", move |scene, commands, ctx| {
            let mut sparks = 0;
            // Sparks from a query: three terms, one optional, transforms at hand.
            let mut queued = [None; 64];
            scene
                .query_each::<(&mut Fuel, &keel_engine::Spin, Option<&Orbit>)>(
                    |node, (fuel, spin, orbit), transforms| {
                        fuel.left -= spin.rate * ctx.dt;
                        let x = transforms.local(node).map_or(0.0, |l| l.translation.x);
                        if orbit.is_some() && sparks < queued.len() {
                            queued[sparks] = Some(Spark { node, heat: x });
                            sparks += 1;
                        }
                    },
                )
                .unwrap();
            let events = scene.resource_mut::<Events<Spark>>().unwrap();
            for spark in queued.iter().flatten() {
                events.send(*spark);
            }
            // Structural changes that carry no value: the queue is reused.
            let to = if ctx.index % 2 == 0 { right } else { left };
            commands.reparent(rover, Some(to), Keep::Local);
            commands.remove::<Orbit>(rover);
        })
        .unwrap();
    world
        .systems_mut()
        .add("beat", |scene, _, ctx| {
            let heat: f32 = scene.resource::<Events<Spark>>().map_or(0.0, |e| {
                e.read().map(|s| s.heat + s.node.index() as f32).sum()
            });
            if let Some(beat) = scene.resource_mut::<Beat>() {
                beat.beats += beat.timer.tick(ctx.dt);
                beat.sparks += heat;
            }
        })
        .unwrap();
    for step in 0..300 {
        COUNTING.store(step >= 150, Ordering::Relaxed);
        world.step();
        COUNTING.store(false, Ordering::Relaxed);
    }
    assert!(world.system_panic().is_none(), "{:?}", world.system_panic());
    let beat = world.resource::<Beat>().unwrap();
    assert!(beat.beats >= 29, "the timer fired: {}", beat.beats);
    assert!(beat.sparks > 0.0, "the events were read");
    assert_eq!(
        world.scene().parent(rover),
        Some(left),
        "the last reparent ran"
    );
    assert_eq!(
        ALLOCATIONS.load(Ordering::Relaxed),
        0,
        "heap allocations in warm steps with events, timers, queries and commands"
    );
}

#[test]
fn a_step_of_spatial_queries_over_moving_colliders_allocates_nothing_once_warm() {
    use keel_engine::physics::QueryFilter;
    use keel_engine::spatial::Ray;
    use keel_engine::{Collider, Spin};
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    ALLOCATIONS.store(0, Ordering::Relaxed);
    let mut scene = Scene::new();
    for i in 0..2_000 {
        let at = Transform::from_translation(Vec3::new((i % 50) as f32, 0.0, (i / 50) as f32));
        let node = scene.spawn(None, "crate", at).unwrap();
        scene
            .insert(node, Collider::cuboid(Vec3::splat(0.4)))
            .unwrap();
        if i % 10 == 0 {
            // Turning: re-filed every step.
            scene.insert(node, Spin::default()).unwrap();
        }
        if i % 4 == 0 {
            let orbit = Orbit {
                center: at.translation,
                radius: 2.0,
                ..Orbit::default()
            };
            scene.insert(node, orbit).unwrap();
        }
    }
    let mut world = World::new(scene);
    let (mut out, mut near) = (Vec::with_capacity(256), Vec::with_capacity(8));
    world
        .systems_mut()
        .add("look around", move |scene, _, step| {
            let at = Vec3::new((step.index % 50) as f32, 0.0, 20.0);
            let spinning = QueryFilter::new().with::<Spin>();
            step.space
                .overlap_sphere(scene, at, 3.0, &QueryFilter::new(), &mut out);
            step.space.overlap_box(
                scene,
                at,
                Vec3::splat(2.0),
                Quat::from_rotation_y(0.3),
                &spinning,
                &mut out,
            );
            step.space.nearest(scene, at, 8, &spinning, &mut near);
            let ray = Ray::new(at + Vec3::Y * 10.0, Vec3::NEG_Y).unwrap();
            let hit = step.space.cast_ray(scene, &ray, 100.0, &QueryFilter::new());
            assert!(near.len() == 8 && hit.is_none_or(|h| h.distance < 10.0));
        })
        .unwrap();
    for step in 0..400 {
        COUNTING.store(step >= 300, Ordering::Relaxed);
        world.step();
        COUNTING.store(false, Ordering::Relaxed);
    }
    assert!(world.system_panic().is_none(), "{:?}", world.system_panic());
    assert!(
        world.colliders().refiled() >= 500,
        "{}",
        world.colliders().refiled()
    );
    let still = Ray::new(Vec3::new(1.0, 10.0, 20.0), Vec3::NEG_Y).unwrap();
    let hit = world
        .space()
        .cast_ray(world.scene(), &still, 100.0, &QueryFilter::new());
    assert_eq!(
        hit.map(|h| h.distance),
        Some(9.6),
        "the crate at (1, 0, 20) is hit"
    );
    assert_eq!(
        ALLOCATIONS.load(Ordering::Relaxed),
        0,
        "heap allocations in warm steps of spatial queries"
    );
}
