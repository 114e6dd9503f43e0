//! The program users run, killed: `keel-editor` on the 100,000-node scene in
//! a real X display (Xvfb), renaming its first root node and saving every 8
//! frames (`--save-every`) and autosaving unsaved edits every 50 ms
//! (`--autosave`), SIGKILLed at a random moment, [`BINARY_KILLS`] times.
//! After every kill the scene file is, byte for byte, the version it held
//! before or a version a save wrote whole; a recovery file newer than the
//! scene is offered when the editor starts again, and restores the edit.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use keel_engine::SplitMix64;

use super::{base_scene, restart_and_restore, temporaries, text_of, timed_lines};

/// Kills of the editor binary.
pub const BINARY_KILLS: usize = 50;
/// Frames between renames (the save comes half-way).
const SAVE_EVERY: u64 = 8;

/// A private X display for the editors: the test kills the editor itself, not
/// an `xvfb-run` wrapper around it.
struct Display {
    server: Child,
    name: String,
}

impl Display {
    fn start() -> Option<Display> {
        let mut server = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1280x720x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let mut number = String::new();
        BufReader::new(server.stdout.take()?)
            .read_line(&mut number)
            .ok()?;
        let name = format!(":{}", number.trim());
        Some(Display { server, name })
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

/// The scene file's text for each name of its first root, the rest fixed.
struct RootNames {
    head: String,
    tail: String,
}

impl RootNames {
    fn of(&self, name: &str) -> Vec<u8> {
        [self.head.as_str(), name, &self.tail].concat().into_bytes()
    }

    /// The root name `bytes` hold, when they are a whole version.
    fn name_in<'a>(&self, bytes: &'a [u8]) -> Option<&'a str> {
        let text = std::str::from_utf8(bytes).ok()?;
        text.strip_prefix(self.head.as_str())?
            .strip_suffix(self.tail.as_str())
    }
}

/// What one editor said before it died.
#[derive(Debug, Default)]
struct Said {
    /// Frames whose save was reported done.
    saved: Vec<u64>,
    /// A save begun and not reported done.
    saving: Option<u64>,
    /// Time from the first `saving` to its `saved`.
    save_time: Option<Duration>,
}

/// The name a save at `frame` writes: the rename `SAVE_EVERY / 2` frames before.
fn name_saved_at(frame: u64) -> String {
    format!("saved at frame {}", frame - SAVE_EVERY / 2)
}

/// Starts the editor on `path`, waits for its first save to begin, then lets
/// it run `delay` (or until it has saved twice, when `None`), and kills it.
fn run_editor(display: &Display, path: &Path, home: &Path, delay: Option<Duration>) -> Said {
    let mut child = Command::new(env!("CARGO_BIN_EXE_keel-editor"))
        .arg(path)
        .args([
            "--save-every",
            &SAVE_EVERY.to_string(),
            "--autosave",
            "0.05",
        ])
        .env("DISPLAY", &display.name)
        .env_remove("WAYLAND_DISPLAY")
        .env("HOME", home)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("starts keel-editor");
    let (rx, reader) = timed_lines(child.stdout.take().expect("piped"));
    let mut said = Said::default();
    let mut began: Option<Instant> = None;
    let mut take = |(at, line): (Instant, String), said: &mut Said| {
        let number = |prefix: &str| line.strip_prefix(prefix).and_then(|n| n.parse().ok());
        if let Some(frame) = number("saving ") {
            said.saving = Some(frame);
            began.get_or_insert(at);
        } else if let Some(frame) = number("saved ") {
            assert_eq!(said.saving, Some(frame), "saved without saving");
            said.saving = None;
            said.saved.push(frame);
            if said.save_time.is_none() {
                said.save_time = began.map(|b| at - b);
            }
        }
    };
    // Up to the first save (a load of 100,000 nodes and the first frames).
    let deadline = Instant::now() + Duration::from_secs(180);
    while said.saving.is_none() {
        let line = rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .expect("the editor starts saving");
        take(line, &mut said);
    }
    match delay {
        Some(delay) => std::thread::sleep(delay),
        None => {
            while said.saved.len() < 2 {
                let line = rx
                    .recv_timeout(Duration::from_secs(180))
                    .expect("the editor saves");
                take(line, &mut said);
            }
        }
    }
    child.kill().expect("SIGKILL");
    let status = child.wait().expect("reaped");
    assert!(!status.success(), "the editor was killed: {status}");
    reader.join().expect("reader thread");
    while let Ok(line) = rx.try_recv() {
        take(line, &mut said);
    }
    said
}

/// Starts the editor (in-process) on the scene: it must offer the recovery,
/// and "Restore" must bring back an edit of the first root, unsaved.
fn restart_offers_recovery(path: &Path, names: &RootNames) {
    let text = restart_and_restore(path);
    let name = names
        .name_in(&text)
        .expect("the restored scene is a whole version");
    assert!(
        name.starts_with("saved at frame "),
        "restored root {name:?}"
    );
}

/// Kills the editor binary [`BINARY_KILLS`] times; returns how many kills came
/// while it was saving, and how many left a recovery file to offer.
/// `None` when this machine has no Xvfb (allowed only without `KEEL_REQUIRE_GPU=1`).
pub fn kill_the_editor_binary(rng: &mut SplitMix64) -> Option<(usize, usize)> {
    let Some(display) = Display::start() else {
        assert!(
            std::env::var("KEEL_REQUIRE_GPU").as_deref() != Ok("1"),
            "KEEL_REQUIRE_GPU=1 but Xvfb is missing (scripts/install-deps.sh installs it)"
        );
        eprintln!("skipping the binary kills: no Xvfb");
        return None;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let home = tempfile::tempdir().expect("a home of its own");
    let path = dir.path().join("scene.ron");
    let recovery = dir.path().join(".scene.ron.recovery.ron");
    let mut scene = base_scene();
    let root = scene.roots().next().expect("a root");
    scene.set_name(root, "@@root@@").expect("live");
    let text = text_of(&scene, &path);
    let (head, tail) = text
        .split_once("@@root@@")
        .expect("the root's name written");
    let names = RootNames {
        head: head.into(),
        tail: tail.into(),
    };
    std::fs::write(&path, names.of("group 0")).expect("writes the scene");
    let mut on_disk = "group 0".to_owned();

    let calibration = run_editor(&display, &path, home.path(), None);
    let mut save = calibration.save_time.expect("saved");
    let (mut mid_save, mut recoveries) = (0, 0);
    let mut check = |kill: usize, said: &Said| {
        let bytes = std::fs::read(&path).expect("the scene file is there after every kill");
        let name = names
            .name_in(&bytes)
            .unwrap_or_else(|| panic!("kill {kill}: the scene file is no whole version"));
        let allowed: Vec<String> = std::iter::once(on_disk.clone())
            .chain(
                said.saved
                    .iter()
                    .chain(&said.saving)
                    .map(|&f| name_saved_at(f)),
            )
            .collect();
        assert!(
            allowed.iter().any(|a| a == name),
            "kill {kill}: the file's root is {name:?}, none of {allowed:?}"
        );
        on_disk = name.to_owned();
        let left = temporaries(dir.path());
        assert!(
            left.len() <= 1,
            "kill {kill}: temporary files of dead saves pile up: {left:?}"
        );
        let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        if let (Some(kept), Some(scene)) = (modified(&recovery), modified(&path))
            && kept > scene
        {
            recoveries += 1;
            if recoveries % 10 == 1 {
                restart_offers_recovery(&path, &names);
            }
        }
    };
    check(0, &calibration);
    // The first save's time varies from run to run (the first frames draw
    // while it writes): the shortest of three, so that the kills meant to
    // land inside a save do.
    for _ in 0..2 {
        let again = run_editor(&display, &path, home.path(), None);
        save = save.min(again.save_time.expect("saved"));
        check(0, &again);
    }
    eprintln!(
        "keel-editor: a save of the 100,000-node scene takes {save:?} here (the shortest of 3)"
    );
    for kill in 1..=BINARY_KILLS {
        // Three kills in four inside the save that begins; the rest in the
        // frames after it, where the next rename is autosaved.
        let nanos = save.as_nanos() as u64;
        let delay = if rng.below(4) == 0 {
            Duration::from_nanos(nanos + rng.below(2 * nanos))
        } else {
            Duration::from_nanos(rng.below(nanos))
        };
        let said = run_editor(&display, &path, home.path(), Some(delay));
        mid_save += usize::from(said.saving.is_some());
        check(kill, &said);
    }
    Some((mid_save, recoveries))
}
