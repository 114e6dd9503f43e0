//! `keel-editor` in a real window (Xvfb): renders a few frames of the demo
//! scene, writes a screenshot, exits 0; the picture shows the panels and the scene.

use std::process::Command;

/// Runs the editor on the demo under Xvfb with `args` and a screenshot;
/// returns the picture and what it wrote to stderr (`None`: no Xvfb here, skipped).
fn demo_screenshot(args: &[&str]) -> Option<(image::RgbaImage, String)> {
    if !have_xvfb() {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("editor.png");
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/scenes/demo.ron");
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1600x900x24"])
        .arg(env!("CARGO_BIN_EXE_keel-editor"))
        .arg(demo)
        .args(args)
        .arg("--screenshot")
        .arg(&shot)
        .env("HOME", dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "editor failed: {stderr}");
    Some((image::open(&shot).unwrap().to_rgba8(), stderr))
}

/// The editor's picture of the demo: dark grey panels around a 3D view of
/// sky, sea and boats (many colours, none of them panel grey).
fn assert_shows_panels_and_the_demo(image: &image::RgbaImage) {
    let (w, h) = image.dimensions();
    assert!(w >= 800 && h >= 500, "window-sized picture, got {w}x{h}");
    let panel = image.get_pixel(w / 100, h / 2).0;
    assert!(
        panel[0] < 60 && panel[0] == panel[1] && panel[1] == panel[2],
        "left panel pixel {panel:?}"
    );
    let mut colours = std::collections::HashSet::new();
    let mut blue = 0;
    for y in (h / 10..h * 6 / 10).step_by(4) {
        for x in (w * 3 / 10..w * 7 / 10).step_by(4) {
            let p = image.get_pixel(x, y).0;
            colours.insert([p[0] / 16, p[1] / 16, p[2] / 16]);
            blue += usize::from(u16::from(p[2]) > u16::from(p[0]) + 30);
        }
    }
    assert!(
        colours.len() > 20,
        "the viewport looks blank: {} colours",
        colours.len()
    );
    assert!(
        blue > 1_000,
        "sky and sea should fill much of the viewport: {blue} blue samples"
    );
}

#[test]
fn the_editor_window_shows_panels_and_the_scene() {
    let Some((image, _)) = demo_screenshot(&["--frames", "6"]) else {
        return;
    };
    assert_shows_panels_and_the_demo(&image);
    // That the window shows the view's pixels unaltered (neither encoded nor
    // decoded twice) is checked on a still scene below.
}

#[test]
fn the_editor_makes_its_gpu_objects_again_when_the_device_is_lost_and_goes_on() {
    // The device is destroyed after frame 3; the frames after it are drawn on a new one.
    let Some((image, stderr)) = demo_screenshot(&["--frames", "9", "--lose-device-at", "3"]) else {
        return;
    };
    assert!(
        stderr.contains("destroying the GPU device") && stderr.contains("made again"),
        "{stderr}"
    );
    assert_shows_panels_and_the_demo(&image);
}

/// A still scene (nothing moves before Play) that uses the whole colour
/// path: a sun with shadows, a glowing sphere with bloom, ACES tonemapping
/// and an exposure.
fn still_scene(path: &std::path::Path) {
    use glam::{Quat, Vec3};
    use keel_engine::Primitive;
    use keel_engine::scene::{PostSettings, Tonemapper};
    use keel_engine::{Light, LightKind, Material, MeshRenderer, Scene, Transform};
    let mut scene = Scene::new();
    let sun = scene
        .spawn(
            None,
            "sun",
            Transform::IDENTITY.with_rotation(Quat::from_euler(
                glam::EulerRot::YXZ,
                0.7,
                -0.8,
                0.0,
            )),
        )
        .unwrap();
    let light = Light {
        kind: LightKind::Directional,
        color: Vec3::ONE,
        intensity: 2.0,
        cast_shadows: false,
    };
    scene.insert(sun, light).unwrap();
    let mut place = |name: &str, mesh: Primitive, t: Transform, material: Material| {
        let node = scene.spawn(None, name, t).unwrap();
        scene
            .insert(node, MeshRenderer::new(mesh.into(), material))
            .unwrap();
    };
    place(
        "ground",
        Primitive::Plane,
        Transform::IDENTITY.with_scale(Vec3::new(30.0, 1.0, 30.0)),
        Material::rgb(0.4, 0.45, 0.35),
    );
    place(
        "box",
        Primitive::Cube,
        Transform::from_translation(Vec3::new(-1.5, 1.0, 0.0)).with_scale(Vec3::splat(2.0)),
        Material::rgb(0.8, 0.3, 0.2),
    );
    place(
        "lamp",
        Primitive::Sphere,
        Transform::from_translation(Vec3::new(1.5, 1.0, 1.0)),
        Material {
            emissive: Vec3::new(5.0, 3.0, 1.0),
            ..Material::rgb(0.9, 0.8, 0.5)
        },
    );
    scene.environment_mut().post = PostSettings {
        exposure: 0.5,
        tonemapper: Tonemapper::AcesFitted,
        bloom: true,
        ..PostSettings::default()
    };
    let (at, lens) = keel_engine::SceneCamera::from_setup(&keel_engine::scene::CameraSetup {
        position: Vec3::new(4.0, 5.0, 9.0),
        target: Vec3::new(0.0, 0.5, 0.0),
        fov_y_degrees: 50.0,
    });
    let camera = scene.spawn(None, "Camera", at).unwrap();
    scene.insert(camera, lens).unwrap();
    scene.save(path).unwrap();
}

/// Whether Xvfb is here to run the editor in a window (without it, a run
/// that requires the GPU tests fails; others skip).
fn have_xvfb() -> bool {
    let require = std::env::var("KEEL_REQUIRE_GPU").as_deref() == Ok("1");
    if Command::new("xvfb-run").arg("--help").output().is_err() {
        assert!(
            !require,
            "KEEL_REQUIRE_GPU=1 but xvfb-run is missing (scripts/install-deps.sh installs it)"
        );
        eprintln!("skipping: xvfb-run is not installed");
        return false;
    }
    true
}

/// Runs the editor on `scene` under Xvfb with `args` (HOME in `home`), and
/// asserts it exits 0.
fn run_editor(scene: &std::path::Path, home: &std::path::Path, args: &[&std::ffi::OsStr]) {
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x800x24"])
        .arg(env!("CARGO_BIN_EXE_keel-editor"))
        .arg(scene)
        .args(args)
        .env("HOME", home)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "editor failed: {stderr}");
}

/// The viewer's renderer's picture of `scene` through `camera` (given the
/// loaded scene).
fn viewer_image(
    scene: &std::path::Path,
    (width, height): (u32, u32),
    overlays: &keel_engine::Overlays<'_>,
    camera: fn(&keel_engine::Scene) -> keel_engine::Camera,
) -> image::RgbaImage {
    use keel_engine::render::wgpu;
    use keel_engine::{Extractor, GpuContext, Renderer, World};
    let ctx = GpuContext::headless(wgpu::Backends::all()).expect("an adapter");
    let mut world =
        World::new(keel_engine::Scene::load(scene, &keel_engine::Assets::new()).unwrap());
    let camera = camera(world.scene());
    let mut buffers = Extractor::default();
    let aspect = width as f32 / height as f32;
    let frame = buffers.extract_world(&mut world, camera, aspect, overlays);
    Renderer::new(&ctx, wgpu::TextureFormat::Rgba8UnormSrgb)
        .render_to_image(&ctx, &frame, width, height)
        .unwrap()
}

/// Asserts at most 0.5% of the pixels differ by more than 8 in a channel.
fn assert_same_pixels(ours: &image::RgbaImage, viewer: &image::RgbaImage, what: &str) {
    let (width, height) = ours.dimensions();
    let differing = ours
        .pixels()
        .zip(viewer.pixels())
        .filter(|(a, b)| (0..3).any(|c| a[c].abs_diff(b[c]) > 8))
        .count();
    let share = differing as f64 / f64::from(width * height);
    assert!(
        share <= 0.005,
        "{differing} of {width}x{height} pixels differ between {what} and the viewer"
    );
}

/// The editor's 3D view shows exactly what the viewer's renderer draws of the
/// same scene from the same camera: same HDR path, same post pass, same
/// output encoding (the editor's grid included on both sides).
#[test]
fn the_editor_view_and_the_viewer_show_the_same_pixels() {
    use keel_engine::CameraRig;
    if !have_xvfb() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let scene_path = dir.path().join("still.ron");
    still_scene(&scene_path);
    let shot = dir.path().join("view.png");
    let window_shot = dir.path().join("window.png");
    let args = [
        "--frames".as_ref(),
        "4".as_ref(),
        "--view-screenshot".as_ref(),
        shot.as_os_str(),
    ];
    let mut args = args.to_vec();
    args.extend(["--screenshot".as_ref(), window_shot.as_os_str()]);
    run_editor(&scene_path, dir.path(), &args);
    let editor = image::open(&shot).unwrap().to_rgba8();
    let (width, height) = editor.dimensions();
    assert!(width > 200 && height > 200, "a view of {width}x{height}");
    let overlays = keel_engine::Overlays {
        grid: true,
        ..keel_engine::Overlays::default()
    };
    // The editor's free camera starts where the scene's camera is.
    let free = |scene: &keel_engine::Scene| CameraRig::new(scene).camera();
    let viewer = viewer_image(&scene_path, (width, height), &overlays, free);
    assert_same_pixels(&editor, &viewer, "the editor's view");
    // The window shows the view texture as it is: its sky (the most common
    // colour of the view's top rows) is the sky in the middle of the window.
    let window = image::open(&window_shot).unwrap().to_rgba8();
    let most_common =
        |image: &image::RgbaImage, xs: std::ops::Range<u32>, ys: std::ops::Range<u32>| {
            let mut counts = std::collections::HashMap::new();
            for y in ys {
                for x in xs.clone() {
                    *counts.entry(image.get_pixel(x, y).0).or_insert(0) += 1;
                }
            }
            counts.into_iter().max_by_key(|&(_, n)| n).unwrap().0
        };
    let sky = most_common(&viewer, 0..width, 0..height / 8);
    let (w, h) = window.dimensions();
    // The view's top edge: the first row, down the window's middle, that is not
    // the menu bar's or the toolbar's dark grey.
    let top = (0..h)
        .find(|&y| {
            let p = window.get_pixel(w / 2, y).0;
            !(p[0] < 60 && p[0] == p[1] && p[1] == p[2])
        })
        .expect("the view under the toolbar");
    let shown = most_common(&window, w * 4 / 10..w * 6 / 10, top + 2..top + height / 8);
    assert!(
        (0..3).all(|c| sky[c].abs_diff(shown[c]) <= 1),
        "the view's sky {sky:?} is shown in the window as {shown:?}"
    );
    // And it is the glowing, shadowed picture, not a blank one.
    let distinct: std::collections::HashSet<[u8; 3]> = viewer
        .pixels()
        .map(|p| [p[0] / 8, p[1] / 8, p[2] / 8])
        .collect();
    assert!(distinct.len() > 50, "{} colours", distinct.len());
}

/// The Game view shows what the viewer's window shows of the same scene:
/// the world through the scene's camera, without the editor's grid.
#[test]
fn the_game_view_and_the_viewer_show_the_same_pixels() {
    if !have_xvfb() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let scene_path = dir.path().join("still.ron");
    still_scene(&scene_path);
    let shot = dir.path().join("game.png");
    let args = ["--size", "1200x760", "--frames", "4", "--game-screenshot"];
    let mut args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
    args.push(shot.as_os_str());
    run_editor(&scene_path, dir.path(), &args);
    let game = image::open(&shot).unwrap().to_rgba8();
    let (width, height) = game.dimensions();
    assert!(width > 600 && height > 400, "a view of {width}x{height}");
    // The viewer's window draws through the scene's active camera.
    let through = |scene: &keel_engine::Scene| scene.game_camera(0.0);
    let overlays = keel_engine::Overlays::default();
    let viewer = viewer_image(&scene_path, (width, height), &overlays, through);
    assert_same_pixels(&game, &viewer, "the Game view");
}

/// `--resume` reads its file as every file is read: `/dev/zero` (endless,
/// not a regular file) is refused at once, naming it, instead of read until
/// memory runs out.
#[test]
#[cfg(unix)]
fn resume_from_a_file_that_is_not_regular_is_refused_at_once() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_keel-editor"))
        .args(["--resume", "/dev/zero"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("/dev/zero") && stderr.contains("expected a regular file"),
        "{stderr}"
    );
}
