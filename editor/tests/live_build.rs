//! Live mode's build half: a small crate in a temporary folder, built by
//! [`LiveBuild`] as a game's crate would be (cargo's JSON read as it comes).

use std::path::{Path, PathBuf};
use std::time::Duration;

use keel_editor::{BuildEvent, BuildStatus, GameCrate, LiveBuild, LogBook, Severity, log_event};

/// A cold build of a crate without dependencies takes about a second; a
/// busy CI machine gets a minute.
const BUILD: Duration = Duration::from_secs(60);

/// A binary crate `livegame` in `dir` whose `main.rs` is `main`.
fn game(dir: &Path, main: &str) -> GameCrate {
    std::fs::create_dir_all(dir.join("src")).expect("temp dir writable");
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"livegame\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[workspace]\n",
    )
    .expect("manifest written");
    std::fs::write(dir.join("src/main.rs"), main).expect("source written");
    GameCrate {
        target_dir: Some(dir.join("target")),
        bin: Some("livegame".into()),
        ..GameCrate::new(dir.join("Cargo.toml"))
    }
}

/// What the executable prints.
fn run(exe: &Path) -> String {
    let out = std::process::Command::new(exe)
        .output()
        .expect("the executable runs");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A broken build lists each error with its file, line and column, keeps
/// no executable, and says so in the status line and the log; the fixed
/// one builds, its warnings listed with their lines, and its program runs.
#[test]
fn a_broken_build_lists_its_errors_where_they_are_and_a_fixed_one_runs() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let broken = "fn main() {\n    let n = 42;\n    let s: u32 = \"forty-two\";\n    println!(\"{n} {s}\");\n}\n";
    let mut build = LiveBuild::new(game(dir.path(), broken));
    assert_eq!(build.status_line(), "not built yet");
    build.start();
    assert!(
        build.status_line().starts_with("building"),
        "{}",
        build.status_line()
    );
    let failed = build.wait(BUILD).expect("the build ends");
    assert!(!failed.success, "a type error fails the build");
    assert_eq!(failed.executable, None);
    assert!(failed.errors >= 1, "{failed:?}");
    let error = (build.diagnostics().iter())
        .find(|d| d.severity == Severity::Error)
        .expect("the error is listed");
    assert_eq!(error.file.as_deref(), Some(Path::new("src/main.rs")));
    assert_eq!((error.line, error.column), (3, 18), "{error}");
    assert!(error.message.contains("mismatched types"), "{error}");
    assert!(
        error.rendered.contains("forty-two"),
        "the excerpt: {}",
        error.rendered
    );
    assert!(!error.rendered.contains('\u{1b}'), "no colour codes");
    assert!(
        error
            .to_string()
            .starts_with("src/main.rs:3:18: error: mismatched types")
    );
    assert!(
        build.status_line().starts_with("build failed: 1 error"),
        "{}",
        build.status_line()
    );
    assert_eq!(build.executable(), None);

    // Fixed, with an unused variable: a warning at its line.
    let fixed = "fn main() {\n    let unused = 1;\n    println!(\"42\");\n}\n";
    std::fs::write(dir.path().join("src/main.rs"), fixed).expect("source written");
    let book = LogBook::default();
    build.start();
    let mut events = Vec::new();
    let start = std::time::Instant::now();
    while start.elapsed() < BUILD && !matches!(events.last(), Some(BuildEvent::Finished(_))) {
        events.extend(build.poll());
        std::thread::sleep(Duration::from_millis(20));
    }
    for event in &events {
        log_event(&book, event);
    }
    let Some(BuildEvent::Finished(built)) = events.last() else {
        panic!("the build ends: {events:?}");
    };
    assert!(built.success, "{built:?}");
    assert!(
        events
            .iter()
            .any(|e| matches!(e, BuildEvent::Progress { name, .. } if name == "livegame")),
        "progress names the crate: {events:?}"
    );
    let warning = (build.diagnostics().iter())
        .find(|d| d.severity == Severity::Warning)
        .expect("the warning is listed");
    assert_eq!(
        (warning.line, warning.message.contains("unused")),
        (2, true),
        "{warning}"
    );
    assert!(matches!(build.status(), BuildStatus::Ended(o) if o.success));
    assert!(
        build.status_line().starts_with("built in"),
        "{}",
        build.status_line()
    );
    assert!(
        build.status_line().ends_with("1 warning"),
        "{}",
        build.status_line()
    );
    let exe = build.executable().expect("the executable").to_path_buf();
    assert_eq!(run(&exe), "42");
    let logged = book.matching("src/main.rs:2");
    assert_eq!(logged.len(), 1, "the warning in the log with its line");
    assert_eq!(logged[0].level, log::Level::Warn);
}

/// Saving a source rebuilds by itself; a save during a build queues one
/// more, so the executable ends up being the last save's; a broken save
/// keeps the last good executable.
#[test]
fn saving_a_source_rebuilds_and_a_failed_build_keeps_the_last_good_program() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let main = |n: u32| format!("fn main() {{\n    println!(\"{n}\");\n}}\n");
    let mut build = LiveBuild::new(game(dir.path(), &main(1)))
        .watching()
        .expect("the folder can be watched");
    build.start();
    let first = build.wait(BUILD).expect("the first build ends");
    assert!(first.success, "{first:?}");
    let exe: PathBuf = build.executable().expect("built").to_path_buf();
    assert_eq!(run(&exe), "1");

    // A save: the watcher starts a build; a second save while it runs.
    let source = dir.path().join("src/main.rs");
    std::fs::write(&source, main(2)).expect("saved");
    let start = std::time::Instant::now();
    while !matches!(build.status(), BuildStatus::Building { .. }) {
        assert!(start.elapsed() < BUILD, "no build started after a save");
        build.poll();
        std::thread::sleep(Duration::from_millis(10));
    }
    std::fs::write(&source, main(3)).expect("saved again");
    // Builds end (one or two, as the saves fell) until one runs the last save.
    loop {
        assert!(start.elapsed() < 2 * BUILD, "the last save never ran");
        if let Some(outcome) = build.wait(Duration::from_millis(200)) {
            assert!(outcome.success, "{outcome:?}");
            if run(&exe) == "3" {
                break;
            }
        }
    }

    // A broken save: the build fails, the program built before stays.
    std::fs::write(&source, "fn main() {\n    nope\n}\n").expect("saved");
    let failed = loop {
        assert!(
            start.elapsed() < 3 * BUILD,
            "no build after the broken save"
        );
        // A good build still queued from the saves above may end first.
        if let Some(outcome) = build.wait(Duration::from_millis(200))
            && !outcome.success
        {
            break outcome;
        }
    };
    assert!(!failed.success);
    assert_eq!(
        build.executable(),
        Some(exe.as_path()),
        "the last good one kept"
    );
    assert_eq!(run(&exe), "3");
}

/// A stand-in for a game's new editor build: reads the handover it is
/// given, keeps a copy beside it, and deletes it (what a new editor does
/// once its window shows the state).
const TAKES_OVER: &str = r#"fn main() {
    let args: Vec<String> = std::env::args().collect();
    let at = args.iter().position(|a| a == "--resume").expect("--resume FILE");
    let file = std::path::PathBuf::from(&args[at + 1]);
    let text = std::fs::read_to_string(&file).expect("the handover");
    std::fs::write(file.with_extension("seen"), format!("{:?}\n{text}", &args[1..at])).unwrap();
    std::fs::remove_file(&file).unwrap();
}
"#;

/// Live mode's process half: a good build gets the editing state and takes
/// over; a new build that fails at start leaves this editor up, its edits
/// whole and the reason shown.
#[test]
fn a_new_build_takes_over_with_the_state_and_one_that_fails_at_start_changes_nothing() {
    use keel_editor::{AfterFrame, EditorApp, Handover, LiveMode};

    let dir = tempfile::tempdir().expect("a temp dir");
    let crate_dir = dir.path().join("game");
    // Says why beside the handover, as a build that cannot read it does, and fails.
    let failing = r#"fn main() {
    let args: Vec<String> = std::env::args().collect();
    let at = args.iter().position(|a| a == "--resume").expect("--resume FILE");
    let file = std::path::PathBuf::from(&args[at + 1]);
    std::fs::write(file.with_extension("failed"), "no type reads `ship` any more").unwrap();
    panic!("the new build fails at start");
}
"#;
    let mut build = LiveBuild::new(game(&crate_dir, failing))
        .watching()
        .expect("the folder can be watched");
    build.start();
    let handovers = dir.path().join("handovers");
    std::fs::create_dir_all(&handovers).unwrap();
    let args = vec!["scene.ron".into(), "--resume".into(), "old.ron".into()];
    let mut live = LiveMode::new(build, LogBook::default(), args).with_folder(&handovers);

    // A spinning crate, renamed (an unsaved edit), selected, and played.
    let scene_file = dir.path().join("crate.ron");
    std::fs::write(
        &scene_file,
        "(version: 3, nodes: [(name: \"crate\", spin: (axis: (0.0, 1.0, 0.0), rate: 1.0))])",
    )
    .unwrap();
    let mut app = EditorApp::new(keel_editor::EditorOptions {
        scene: Some(scene_file),
        ..keel_editor::EditorOptions::default()
    });
    let node = app.doc().scene().find("crate").expect("the scene opened");
    app.doc_mut().rename(node, "barrel").unwrap();
    app.doc_mut().selection.select_only(node);
    app.act(keel_editor::Action::Play);
    for _ in 0..30 {
        app.advance(Duration::from_millis(20));
    }
    let played = app.doc().step();
    assert!(played > 20, "{played} steps");

    let start = std::time::Instant::now();
    let frames_until =
        |live: &mut LiveMode, app: &mut EditorApp, done: &dyn Fn(&EditorApp) -> bool| {
            loop {
                assert!(start.elapsed() < 3 * BUILD, "{}", app.status().text());
                if live.frame(app) == AfterFrame::Quit {
                    return AfterFrame::Quit;
                }
                if done(app) {
                    return AfterFrame::Continue;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        };
    let stopped = |app: &EditorApp| app.status().text().contains("stopped before it took over");
    assert_eq!(
        frames_until(&mut live, &mut app, &stopped),
        AfterFrame::Continue
    );
    assert!(app.status().is_error());
    assert!(
        app.status()
            .text()
            .contains("no type reads `ship` any more"),
        "the reason it gave: {}",
        app.status().text()
    );
    assert_eq!(
        app.doc().scene().name(node),
        Some("barrel"),
        "the edit stays"
    );
    assert!(app.doc().is_dirty());
    assert_eq!(app.doc().undo.len(), 1);
    assert_eq!(
        (app.playback().state(), app.doc().step()),
        (keel_editor::PlayState::Playing, played),
        "Play taken back where it was"
    );
    assert_eq!(app.doc().selection.primary(), Some(node));
    assert_eq!(
        std::fs::read_dir(&handovers).unwrap().count(),
        0,
        "the failed handover's files are removed"
    );

    // A save: the watcher rebuilds, and the good build takes over.
    std::fs::write(crate_dir.join("src/main.rs"), TAKES_OVER).unwrap();
    assert_eq!(
        frames_until(&mut live, &mut app, &|_| false),
        AfterFrame::Quit
    );
    let seen: Vec<_> = std::fs::read_dir(&handovers)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(seen.len(), 1, "{seen:?}");
    let text = std::fs::read_to_string(&seen[0]).unwrap();
    let (args, handover) = text.split_once('\n').unwrap();
    assert_eq!(
        args, r#"["scene.ron"]"#,
        "this run's arguments, less --resume"
    );
    let copy = dir.path().join("copy.ron");
    std::fs::write(&copy, handover).unwrap();
    let handover = Handover::read(&copy).expect("a handover this build reads");
    assert!(handover.scene.contains("barrel"), "{}", handover.scene);
    assert_eq!(handover.selection, [0]);
}
