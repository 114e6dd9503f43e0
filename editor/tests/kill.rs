//! Crash safety shown, not argued: the editor's document layer runs in a child
//! process on a 100,000-node scene, saving (or autosaving) one edit after
//! another, and is killed with SIGKILL at a random moment, 100 times for the
//! scene file and 100 times for the recovery file. After every kill the file
//! on disk must be, byte for byte, the last version the child reported
//! complete or the one it was writing: never a mix, never a torn file. After
//! kills of the autosave, restarting the editor must offer the recovery, and
//! restoring it must bring back everything but the interval being written.
//!
//! Then the program users run is killed the same way (see `kill/binary.rs`):
//! `keel-editor` itself, in an X display, saving and autosaving.
//!
//! `harness = false`: the same binary is the child (`--child ...`). The kill
//! moments come from a seed printed at the start (`KEEL_KILL_SEED` repeats a run).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use egui::vec2;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::{Quat, Vec3, Vec4};
use keel_editor::{Document, EditorApp, EditorOptions};
use keel_engine::Primitive;
use keel_engine::SplitMix64;
use keel_engine::{Material, MeshRenderer, NodeId, Scene, Transform};

#[path = "kill/binary.rs"]
mod binary;

/// Nodes in the scene that is saved.
const NODES: usize = 100_000;
/// Kills per file.
const KILLS: usize = 100;
/// Every this many autosave kills, the editor is restarted on the files left.
const RESTART_EVERY: usize = 20;

/// What the child writes in its loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// The scene file, through the editor's Save.
    Scene,
    /// The recovery file, through the autosave's writer.
    Recovery,
}

impl Target {
    fn arg(self) -> &'static str {
        match self {
            Target::Scene => "scene",
            Target::Recovery => "recovery",
        }
    }
}

/// A 100,000-node scene: 100 groups of 999 nodes, every fourth with a mesh.
fn base_scene() -> Scene {
    let mut scene = Scene::new();
    let mut made = 0;
    while made < NODES {
        let g = made / 1000;
        let group = scene
            .spawn(
                None,
                format!("group {g}"),
                Transform::from_translation(Vec3::new(g as f32 * 3.0, 0.0, 0.0)),
            )
            .expect("spawns");
        made += 1;
        for i in 1..1000.min(NODES - made + 1) {
            let at = Transform::from_translation(Vec3::new(0.0, i as f32 * 0.25, (i % 7) as f32))
                .with_rotation(Quat::from_rotation_y(i as f32 * 0.01));
            let node = scene
                .spawn(Some(group), format!("node {g}.{i}"), at)
                .expect("spawns");
            if i % 4 == 0 {
                let mesh = MeshRenderer {
                    cast_shadows: true,
                    mesh: Primitive::Cube.into(),
                    material: Material {
                        base_color: Vec4::new(i as f32 / 1000.0, 0.5, 0.25, 1.0),
                        ..Material::default()
                    },
                };
                scene.insert(node, mesh).expect("live node");
            }
            made += 1;
        }
    }
    scene
}

/// The first and last nodes in file order: generation `g` renames both, with
/// names whose length changes, so versions differ at both ends of the file.
fn ends(scene: &Scene) -> (NodeId, NodeId) {
    let first = scene.nodes().next().expect("nodes");
    let last = scene.nodes().last().expect("nodes");
    (first, last)
}

fn names(g: u64) -> (String, String) {
    (
        format!("first, generation {g}"),
        format!("last, generation {g}{}", "!".repeat((g % 5) as usize)),
    )
}

/// The bytes the editor writes for each generation: the scene's text written
/// once with placeholder names, the names put in per generation.
struct Versions {
    /// The text before the first name, between the names, after the last one.
    parts: [String; 3],
}

impl Versions {
    fn new(scene: &mut Scene, path: &Path) -> Self {
        let (first, last) = ends(scene);
        scene.set_name(first, "@@first@@").expect("live");
        scene.set_name(last, "@@last@@").expect("live");
        let text = text_of(scene, path);
        let (head, rest) = text.split_once("@@first@@").expect("first name written");
        let (middle, tail) = rest.split_once("@@last@@").expect("last name written");
        Self {
            parts: [head.into(), middle.into(), tail.into()],
        }
    }

    fn of(&self, g: u64) -> Vec<u8> {
        let (a, b) = names(g);
        let [head, middle, tail] = &self.parts;
        [head.as_str(), &a, middle, &b, tail].concat().into_bytes()
    }
}

/// The scene as the editor writes it at `path`.
fn text_of(scene: &Scene, path: &Path) -> String {
    scene
        .to_file_in(path.parent())
        .to_text(path)
        .expect("serialises")
}

/// The child: opens the scene file, then forever renames the two ends to the
/// next generation and saves (or autosaves), saying `begin g` and `done g`.
fn child(target: &str, path: &Path, start: u64) -> ExitCode {
    let doc = Document::open(path, &keel_engine::Assets::new()).expect("the child opens the scene");
    let mut app = EditorApp::with_game(doc, None, keel_engine::Game::new());
    let (first, last) = ends(app.doc().scene());
    println!("ready");
    for g in start.. {
        let (a, b) = names(g);
        app.doc_mut().rename(first, a).expect("renames");
        app.doc_mut().rename(last, b).expect("renames");
        println!("begin {g}");
        match target {
            "scene" => {
                app.act(keel_editor::Action::Save);
                assert!(!app.doc().is_dirty(), "saved: {}", app.status().text());
            }
            _ => {
                app.files().write_recovery(app.doc()).expect("autosaves");
            }
        }
        println!("done {g}");
    }
    ExitCode::SUCCESS
}

/// What one child said before it died.
struct Run {
    /// Last generation reported complete.
    done: Option<u64>,
    /// A generation begun and not reported done when the kill came.
    writing: Option<u64>,
    /// Time from `ready` to the first `done`, when there was one.
    first_save: Option<Duration>,
}

/// Starts a child writing `target` from generation `start`, waits until it is
/// ready, lets it run `delay` (or until `saves` saves, when given), kills it.
fn run_child(target: Target, path: &Path, start: u64, delay: Duration, saves: Option<u64>) -> Run {
    let mut child = Command::new(std::env::current_exe().expect("own path"))
        .args(["--child", target.arg()])
        .arg(path)
        .arg(start.to_string())
        .stdout(Stdio::piped())
        .spawn()
        .expect("starts the child");
    let (rx, reader) = timed_lines(child.stdout.take().expect("piped"));
    let (mut run, mut ready_at) = (
        Run {
            done: None,
            writing: None,
            first_save: None,
        },
        None,
    );
    let take = |(at, line): (Instant, String), run: &mut Run, ready_at: &mut Option<Instant>| {
        let number = |prefix: &str| {
            line.strip_prefix(prefix)
                .and_then(|n| n.parse::<u64>().ok())
        };
        if line == "ready" {
            *ready_at = Some(at);
        } else if let Some(g) = number("begin ") {
            run.writing = Some(g);
        } else if let Some(g) = number("done ") {
            assert_eq!(run.writing, Some(g), "done without begin");
            run.writing = None;
            run.done = Some(g);
            if run.first_save.is_none() {
                run.first_save = ready_at.map(|r| at - r);
            }
        }
    };
    // Up to ready (a load of 100,000 nodes), then the chosen moment.
    let deadline = Instant::now() + Duration::from_secs(120);
    while ready_at.is_none() {
        let message = rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .expect("the child gets ready");
        take(message, &mut run, &mut ready_at);
    }
    match saves {
        Some(n) => {
            while run.done.is_none_or(|d| d < start + n - 1) {
                let message = rx
                    .recv_timeout(Duration::from_secs(120))
                    .expect("the child saves");
                take(message, &mut run, &mut ready_at);
            }
        }
        None => std::thread::sleep(delay),
    }
    child.kill().expect("SIGKILL");
    let status = child.wait().expect("reaped");
    assert!(!status.success(), "the child was killed: {status}");
    reader.join().expect("reader thread");
    while let Ok(message) = rx.try_recv() {
        take(message, &mut run, &mut ready_at);
    }
    run
}

/// The lines a child prints, each with the moment it arrived, read on a
/// thread of their own (joined once the child is dead).
fn timed_lines(
    stdout: std::process::ChildStdout,
) -> (
    mpsc::Receiver<(Instant, String)>,
    std::thread::JoinHandle<()>,
) {
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send((Instant::now(), line)).is_err() {
                break;
            }
        }
    });
    (rx, reader)
}

/// Temporary files of saves left in the folder.
fn temporaries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .expect("folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().contains(".tmp"))
        })
        .collect()
}

/// Restarts the editor on the scene: it must offer the recovery file, and
/// "Restore" must bring back unsaved changes; returns the restored scene's text.
fn restart_and_restore(path: &Path) -> Vec<u8> {
    let mut h = Harness::builder()
        .with_size(vec2(1400.0, 860.0))
        .build_ui_state(
            |ui, app: &mut EditorApp| app.ui(ui),
            EditorApp::new(EditorOptions {
                scene: Some(path.to_path_buf()),
                ..EditorOptions::default()
            }),
        );
    assert!(
        h.state().has_dialog(),
        "the recovery is offered after a kill"
    );
    h.get_by_label("Restore").click();
    h.run();
    let doc = &h.state().doc();
    assert!(doc.is_dirty(), "restored changes are not saved yet");
    text_of(doc.scene(), path).into_bytes()
}

/// Restarts the editor on the scene: "Restore" must bring back generation `g`.
fn restart_restores(path: &Path, versions: &Versions, g: u64) {
    assert!(
        restart_and_restore(path) == versions.of(g),
        "the restored scene is not generation {g}"
    );
}

/// Kills a child writing `target` `KILLS` times; returns how many kills came
/// while a file was being written.
fn kill_while_writing(target: Target, rng: &mut SplitMix64) -> usize {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("scene.ron");
    let recovery = dir.path().join(".scene.ron.recovery.ron");
    let versions = Versions::new(&mut base_scene(), &path);
    let written = match target {
        Target::Scene => path.clone(),
        Target::Recovery => recovery.clone(),
    };
    std::fs::write(&path, versions.of(0)).expect("writes the scene");
    if target == Target::Recovery {
        // An older scene, as after a real session: the recovery is newer.
        let old = std::time::SystemTime::now() - Duration::from_secs(3600);
        std::fs::File::options()
            .append(true)
            .open(&path)
            .and_then(|f| f.set_modified(old))
            .expect("ages the scene");
        std::fs::write(&recovery, versions.of(0)).expect("writes the recovery");
    }
    // Calibration: how long one save takes in this build, on this machine.
    let calibration = run_child(target, &path, 1, Duration::ZERO, Some(2));
    let save = calibration.first_save.expect("saved");
    let mut on_disk = check_file(&written, &calibration, 0, &versions);
    eprintln!("{target:?}: a save of {NODES} nodes takes {save:?} here");
    let mut mid_write = 0;
    for kill in 1..=KILLS {
        // Anywhere in the first two saves (an edit between saves is instant).
        let delay = Duration::from_nanos(rng.below(2 * save.as_nanos() as u64));
        let run = run_child(target, &path, on_disk + 1, delay, None);
        mid_write += usize::from(run.writing.is_some());
        on_disk = check_file(&written, &run, on_disk, &versions);
        let left = temporaries(dir.path());
        assert!(
            left.len() <= 1,
            "kill {kill}: temporary files of dead saves pile up: {left:?}"
        );
        if target == Target::Recovery && kill % RESTART_EVERY == 0 {
            restart_restores(&path, &versions, on_disk);
        }
    }
    mid_write
}

/// The file must be exactly the last generation done or the one being
/// written (the one before `run` when it finished none); returns which.
fn check_file(file: &Path, run: &Run, before: u64, versions: &Versions) -> u64 {
    let bytes = std::fs::read(file).expect("the file is there after every kill");
    let done = run.done.unwrap_or(before);
    let candidates = [Some(done), run.writing].into_iter().flatten();
    for g in candidates {
        if bytes == versions.of(g) {
            return g;
        }
    }
    panic!(
        "{}: {} bytes, neither generation {done} (last done) nor {:?} (being written)",
        file.display(),
        bytes.len(),
        run.writing
    );
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, target, path, start] = args.as_slice()
        && flag == "--child"
    {
        return child(
            target,
            Path::new(path),
            start.parse().expect("a generation"),
        );
    }
    let tests = [
        "kill_during_save",
        "kill_during_autosave",
        "kill_the_editor_binary",
    ];
    if args.iter().any(|a| a == "--list") {
        for t in tests {
            println!("{t}: test");
        }
        return ExitCode::SUCCESS;
    }
    // Like libtest: a plain argument is a name filter.
    let filter = args.iter().skip(1).find(|a| !a.starts_with('-'));
    let seed = std::env::var("KEEL_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        });
    println!("kill tests: seed {seed} (KEEL_KILL_SEED={seed} repeats the kill moments)");
    let mut rng = SplitMix64::new(seed);
    let mut ran = 0;
    for (name, target) in tests.into_iter().zip([Target::Scene, Target::Recovery]) {
        if filter.is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        let start = Instant::now();
        let mid_write = kill_while_writing(target, &mut rng);
        println!(
            "test {name} ... ok: {KILLS} kills, {mid_write} of them while writing, {:.1} s",
            start.elapsed().as_secs_f64()
        );
        assert!(
            mid_write >= KILLS * 3 / 4,
            "{name}: only {mid_write} of {KILLS} kills came while a file was written"
        );
        ran += 1;
    }
    if filter.is_none_or(|f| tests[2].contains(f.as_str())) {
        let start = Instant::now();
        if let Some((mid_save, recoveries)) = binary::kill_the_editor_binary(&mut rng) {
            println!(
                "test {} ... ok: {} kills, {mid_save} of them while saving, {recoveries} left a recovery to offer, {:.1} s",
                tests[2],
                binary::BINARY_KILLS,
                start.elapsed().as_secs_f64()
            );
            assert!(
                mid_save >= binary::BINARY_KILLS / 2,
                "only {mid_save} of {} kills came while the editor saved",
                binary::BINARY_KILLS
            );
            assert!(recoveries > 0, "no kill left a recovery file to offer");
            ran += 1;
        }
    }
    println!("test result: ok. {ran} passed");
    ExitCode::SUCCESS
}
