//! Live mode's build half: a game crate rebuilt in the background whenever
//! its sources change, cargo's JSON messages read as they come (how many
//! crates are done and which one compiles, for the status line; every error
//! and warning with its file, line and column, for the Log tab).
//!
//! A build that fails changes nothing: the last good executable stays the
//! one to run, and the errors stay listed until the next build. A change
//! saved while a build runs queues one more build after it (a build is
//! never killed halfway: cargo's lock and rustc's children stay sane).
//! Handing the editing state to the new executable is the other half of
//! live mode (`process.rs`).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use cargo_metadata::Message;
use cargo_metadata::diagnostic::DiagnosticLevel;
use keel_engine::reload::FileWatcher;

use crate::log_book::LogBook;

/// What to build: a package and, optionally, one of its binaries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameCrate {
    /// The package's `Cargo.toml`.
    pub manifest: PathBuf,
    /// The binary to build (`--bin`); `None` builds the package's default
    /// targets.
    pub bin: Option<String>,
    /// Cargo's `--profile` (`None`: dev).
    pub profile: Option<String>,
    /// Cargo's `--target-dir` (`None`: the workspace's).
    pub target_dir: Option<PathBuf>,
}

impl GameCrate {
    /// The package in the folder holding `manifest`, its default targets,
    /// the dev profile, cargo's target folder.
    #[must_use]
    pub fn new(manifest: impl Into<PathBuf>) -> Self {
        Self {
            manifest: manifest.into(),
            bin: None,
            profile: None,
            target_dir: None,
        }
    }

    /// The package's folder.
    fn dir(&self) -> &Path {
        self.manifest.parent().unwrap_or(Path::new("."))
    }

    /// The `cargo build` this crate takes, its messages as JSON on stdout.
    fn command(&self) -> Command {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut command = Command::new(cargo);
        command
            .arg("build")
            .arg("--message-format=json-diagnostic-rendered-ansi")
            .arg("--manifest-path")
            .arg(&self.manifest);
        if let Some(bin) = &self.bin {
            command.args(["--bin", bin]);
        }
        if let Some(profile) = &self.profile {
            command.args(["--profile", profile]);
        }
        if let Some(dir) = &self.target_dir {
            command.arg("--target-dir").arg(dir);
        }
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }
}

/// How bad a [`Diagnostic`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The build fails.
    Error,
    /// The build goes on.
    Warning,
}

/// An error or warning of the compiler, where it points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The compiler's message (first line: `mismatched types`).
    pub message: String,
    /// The file of its primary span (as the compiler names it: relative to
    /// the workspace), if it has one.
    pub file: Option<PathBuf>,
    /// Line and column of that span (1-based; 0 without a span).
    pub line: usize,
    /// See `line`.
    pub column: usize,
    /// The whole message as rustc prints it (source excerpt, notes, help),
    /// without colours.
    pub rendered: String,
}

impl std::fmt::Display for Diagnostic {
    /// `src/lib.rs:12:5: error: mismatched types`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match &self.file {
            Some(file) => write!(
                f,
                "{}:{}:{}: {severity}: {}",
                file.display(),
                self.line,
                self.column,
                self.message
            ),
            None => write!(f, "{severity}: {}", self.message),
        }
    }
}

impl Diagnostic {
    /// The compiler's message as one of ours; `None` for notes and help
    /// (they come inside the error they belong to).
    fn from_cargo(message: &cargo_metadata::diagnostic::Diagnostic) -> Option<Self> {
        let severity = match message.level {
            DiagnosticLevel::Error | DiagnosticLevel::Ice => Severity::Error,
            DiagnosticLevel::Warning => Severity::Warning,
            _ => return None,
        };
        let span = (message.spans.iter()).find(|s| s.is_primary);
        let rendered = message.rendered.as_deref().unwrap_or(&message.message);
        Some(Self {
            severity,
            message: message.message.clone(),
            file: span.map(|s| PathBuf::from(&s.file_name)),
            line: span.map_or(0, |s| s.line_start),
            column: span.map_or(0, |s| s.column_start),
            rendered: strip_ansi(rendered),
        })
    }
}

/// `text` without its ANSI colour sequences (`ESC [ ... m`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// How a build ended.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildOutcome {
    /// Whether cargo built everything asked.
    pub success: bool,
    /// The executable of the binary asked for (or the package's only one),
    /// when built.
    pub executable: Option<PathBuf>,
    /// From start to end.
    pub took: Duration,
    /// Errors and warnings the compiler reported.
    pub errors: usize,
    /// See `errors`.
    pub warnings: usize,
    /// What cargo itself said on a failure the compiler did not explain (a
    /// broken manifest, no cargo at all): its last lines.
    pub cargo_said: String,
}

impl BuildOutcome {
    /// A build started at `started` that failed before the compiler said
    /// anything, with what was said instead.
    fn failed(started: Instant, said: String) -> Self {
        Self {
            success: false,
            executable: None,
            took: started.elapsed(),
            errors: 0,
            warnings: 0,
            cargo_said: said,
        }
    }
}

/// What a build reports while it runs.
#[derive(Clone, Debug, PartialEq)]
pub enum BuildEvent {
    /// A crate finished compiling (or was fresh): `done` so far, `name` the
    /// last one.
    Progress {
        /// Crates done.
        done: usize,
        /// The crate that just finished.
        name: String,
    },
    /// An error or a warning.
    Diagnostic(Diagnostic),
    /// The build ended.
    Finished(BuildOutcome),
}

/// Where the live build stands, for the status line.
#[derive(Clone, Debug, PartialEq)]
pub enum BuildStatus {
    /// No build yet.
    Idle,
    /// A build runs: crates done, the last one, since when.
    Building {
        /// Crates done.
        done: usize,
        /// The crate that finished last (empty at first).
        last: String,
        /// When it started.
        since: Instant,
    },
    /// The last build ended so.
    Ended(BuildOutcome),
}

/// A crate folder that cannot be watched.
#[derive(Debug, thiserror::Error)]
#[error("cannot watch {}: {reason}", dir.display())]
pub struct WatchError {
    /// The crate's folder.
    pub dir: PathBuf,
    /// What the system said.
    pub reason: String,
}

/// A game crate, rebuilt in the background when its sources change.
pub struct LiveBuild {
    game: GameCrate,
    watcher: Option<FileWatcher>,
    running: Option<Receiver<BuildEvent>>,
    /// A change came while a build ran: one more after it.
    again: bool,
    status: BuildStatus,
    /// The errors and warnings of the running build, or of the last one.
    diagnostics: Vec<Diagnostic>,
    /// The last executable a build produced (a failed build keeps it).
    executable: Option<PathBuf>,
}

impl LiveBuild {
    /// Builds `game` on request only ([`LiveBuild::start`]).
    #[must_use]
    pub fn new(game: GameCrate) -> Self {
        Self {
            game,
            watcher: None,
            running: None,
            again: false,
            status: BuildStatus::Idle,
            diagnostics: Vec::new(),
            executable: None,
        }
    }

    /// Also rebuilds when a file under the crate's `src/` or its manifest
    /// changes (seen by [`LiveBuild::poll`]).
    ///
    /// # Errors
    /// When the system offers no file watching, or refuses the folder.
    pub fn watching(mut self) -> Result<Self, WatchError> {
        let dir = self.game.dir().to_path_buf();
        let refused = |reason: &dyn std::fmt::Display| WatchError {
            dir: dir.clone(),
            reason: reason.to_string(),
        };
        let mut watcher = FileWatcher::new().map_err(|e| refused(&e))?;
        (watcher.watch(&dir.join("src"), true)).map_err(|e| refused(&e))?;
        watcher.watch(&dir, false).map_err(|e| refused(&e))?;
        self.watcher = Some(watcher);
        Ok(self)
    }

    /// Starts a build now, or queues one after the running one.
    pub fn start(&mut self) {
        if self.running.is_some() {
            self.again = true;
            return;
        }
        let (tx, rx) = channel();
        let command = self.game.command();
        let wanted = self.game.bin.clone();
        let sender = tx.clone();
        let spawned = std::thread::Builder::new()
            .name("keel-live-build".into())
            .spawn(move || build(command, wanted, &sender));
        if let Err(e) = spawned {
            let _ = tx.send(BuildEvent::Finished(BuildOutcome::failed(
                Instant::now(),
                format!("no thread to run cargo: {e}"),
            )));
        }
        self.running = Some(rx);
        self.diagnostics.clear();
        self.status = BuildStatus::Building {
            done: 0,
            last: String::new(),
            since: Instant::now(),
        };
    }

    /// Starts a build if a source changed, and returns what the running
    /// build reported since the last call (a finished build may start the
    /// queued one).
    pub fn poll(&mut self) -> Vec<BuildEvent> {
        if let Some(watcher) = &mut self.watcher {
            let sources = watcher.changed().into_iter().any(|path| is_source(&path));
            if sources {
                self.start();
            }
        }
        let Some(running) = &self.running else {
            return Vec::new();
        };
        let events: Vec<BuildEvent> = running.try_iter().collect();
        for event in &events {
            match event {
                BuildEvent::Progress { done, name } => {
                    if let BuildStatus::Building {
                        done: d, last: l, ..
                    } = &mut self.status
                    {
                        (*d, *l) = (*done, name.clone());
                    }
                }
                BuildEvent::Diagnostic(d) => self.diagnostics.push(d.clone()),
                BuildEvent::Finished(outcome) => {
                    if outcome.success {
                        self.executable.clone_from(&outcome.executable);
                    }
                    self.status = BuildStatus::Ended(outcome.clone());
                    self.running = None;
                }
            }
        }
        if self.running.is_none() && std::mem::take(&mut self.again) {
            self.start();
        }
        events
    }

    /// Polls until a build ends (or `timeout`): its outcome.
    pub fn wait(&mut self, timeout: Duration) -> Option<BuildOutcome> {
        let start = Instant::now();
        while start.elapsed() < timeout {
            for event in self.poll() {
                if let BuildEvent::Finished(outcome) = event {
                    return Some(outcome);
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// Where the build stands.
    #[must_use]
    pub fn status(&self) -> &BuildStatus {
        &self.status
    }

    /// The errors and warnings of the running build, or of the last one.
    #[must_use]
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The executable of the last build that succeeded.
    #[must_use]
    pub fn executable(&self) -> Option<&Path> {
        self.executable.as_deref()
    }

    /// The status line: `building: 12 crates done, last keel-harbour (4.1 s)`,
    /// `built in 4.2 s, 1 warning`, `build failed: 2 errors (see Log)`.
    #[must_use]
    pub fn status_line(&self) -> String {
        let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        match &self.status {
            BuildStatus::Idle => "not built yet".into(),
            BuildStatus::Building { done, last, since } => format!(
                "building: {} done{} ({:.1} s)",
                plural(*done, "crate"),
                if last.is_empty() {
                    String::new()
                } else {
                    format!(", last {last}")
                },
                since.elapsed().as_secs_f32()
            ),
            BuildStatus::Ended(o) if o.success => format!(
                "built in {:.1} s{}",
                o.took.as_secs_f32(),
                if o.warnings > 0 {
                    format!(", {}", plural(o.warnings, "warning"))
                } else {
                    String::new()
                }
            ),
            BuildStatus::Ended(o) if o.errors > 0 => {
                format!("build failed: {} (see Log)", plural(o.errors, "error"))
            }
            BuildStatus::Ended(o) => format!("build failed: {}", o.cargo_said.trim()),
        }
    }
}

/// Files `event` in the editor's log: errors and warnings with file:line,
/// and how each build ended.
pub fn log_event(book: &LogBook, event: &BuildEvent) {
    match event {
        BuildEvent::Progress { .. } => {}
        BuildEvent::Diagnostic(d) => {
            let level = match d.severity {
                Severity::Error => log::Level::Error,
                Severity::Warning => log::Level::Warn,
            };
            book.push(level, "cargo", d.to_string());
        }
        BuildEvent::Finished(o) if o.success => book.push(
            log::Level::Info,
            "cargo",
            format!("built in {:.1} s", o.took.as_secs_f32()),
        ),
        BuildEvent::Finished(o) => book.push(
            log::Level::Error,
            "cargo",
            format!(
                "build failed ({} errors): {}",
                o.errors,
                o.cargo_said.trim()
            ),
        ),
    }
}

/// Whether a changed file is one a build reads: Rust sources and manifests.
fn is_source(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "rs")
        || path.file_name().is_some_and(|n| n == "Cargo.toml")
}

/// Lines of cargo's own stderr kept for a failure the compiler did not
/// explain.
const CARGO_LINES: usize = 8;

/// Runs `command` (a `cargo build` with JSON messages), sending its events
/// to `tx`; `wanted`: the binary whose executable the outcome names.
fn build(mut command: Command, wanted: Option<String>, tx: &Sender<BuildEvent>) {
    let started = Instant::now();
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            let said = format!("cargo did not start: {e}");
            let _ = tx.send(BuildEvent::Finished(BuildOutcome::failed(started, said)));
            return;
        }
    };
    // Cargo's own lines (progress, "could not compile"), read beside stdout
    // so that neither pipe fills up.
    let stderr = child.stderr.take().map(|err| {
        std::thread::spawn(move || {
            let mut tail: Vec<String> = Vec::new();
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                tail.push(strip_ansi(&line));
                if tail.len() > CARGO_LINES {
                    tail.remove(0);
                }
            }
            tail.join("\n")
        })
    });
    let (mut done, mut errors, mut warnings) = (0, 0, 0);
    let (mut executable, mut finished) = (None, false);
    if let Some(out) = child.stdout.take() {
        for message in Message::parse_stream(BufReader::new(out)).map_while(Result::ok) {
            let event = match message {
                Message::CompilerArtifact(artifact) => {
                    done += 1;
                    let name = artifact.target.name.clone();
                    if let Some(exe) = artifact.executable
                        && wanted.as_ref().is_none_or(|w| *w == name)
                    {
                        executable = Some(exe.into_std_path_buf());
                    }
                    BuildEvent::Progress { done, name }
                }
                Message::CompilerMessage(m) => match Diagnostic::from_cargo(&m.message) {
                    Some(d) => {
                        match d.severity {
                            Severity::Error => errors += 1,
                            Severity::Warning => warnings += 1,
                        }
                        BuildEvent::Diagnostic(d)
                    }
                    None => continue,
                },
                Message::BuildFinished(f) => {
                    finished = f.success;
                    continue;
                }
                _ => continue,
            };
            // Nobody listening any more is fine: the build still finishes.
            let _ = tx.send(event);
        }
    }
    let status = child.wait();
    let said = stderr.and_then(|t| t.join().ok()).unwrap_or_default();
    let success = finished && status.is_ok_and(|s| s.success());
    let _ = tx.send(BuildEvent::Finished(BuildOutcome {
        success,
        executable: executable.filter(|_| success),
        took: started.elapsed(),
        errors,
        warnings,
        cargo_said: if success { String::new() } else { said },
    }));
}
