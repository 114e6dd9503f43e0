//! Live mode's process half: a game's editor started with `--live CRATE`
//! rebuilds itself when the crate's sources change ([`LiveBuild`]) and, on
//! a good build, hands its editing state to the new executable
//! ([`EditorApp::handover`]) and gives way to it.
//!
//! The handover goes through a file: this editor writes it (the recovery
//! file of unsaved edits first, so a crash of both loses nothing), starts
//! the new build with this run's arguments and `--resume FILE`, and goes on
//! drawing until the new one deletes the file, which it does once its
//! window has drawn a frame from it; then this one quits. A new build that
//! exits first (a panic at start, a scene it cannot read) leaves this
//! editor up, the reason in the status line and the Log.
//!
//! Why a restart and not a patch, measured: the dev profile (dependencies
//! at opt-level 2, incremental builds of the game's crate) rebuilds
//! `harbour-editor` after a one-line change to `games/harbour/src/lib.rs`
//! in 2.7 s on a two-core machine with the system linker (the game's crate
//! compiled 1.5 s after the build starts, the link 1.2 s more), and the new
//! process shows the handed-over state 1-2 s after it starts (window and GPU
//! about 0.8 s, the re-simulation of the steps played the rest): about 5 s
//! from save to the resumed editor, inside the ten seconds live mode is
//! allowed, and every change taken, a component's layout included.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Instant, SystemTime};

use crate::app::EditorApp;
use crate::live::build::{BuildEvent, BuildStatus, LiveBuild, Severity, log_event};
use crate::live::handover::HandoverError;
use crate::log_book::LogBook;
use crate::saved;

/// What the shell does after a frame of live mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterFrame {
    /// Go on.
    Continue,
    /// The new build has taken over: quit (no questions about unsaved
    /// edits, which went over).
    Quit,
}

/// A new build being handed the editing state.
struct PendingHandover {
    child: Child,
    file: PathBuf,
    since: Instant,
    /// Play as it was, to take back if the new build does not take over.
    play: Option<saved::Play>,
}

/// Live mode: the build, and the handover in progress.
pub struct LiveMode {
    build: LiveBuild,
    log: LogBook,
    /// This run's arguments, less any `--resume FILE`.
    args: Vec<OsString>,
    /// Where handover files are written.
    folder: PathBuf,
    handing: Option<PendingHandover>,
    /// A good build waiting for the editor to be ready to hand over.
    waiting: Option<PathBuf>,
    /// The executable running now and its modification time: a build that
    /// changed nothing (a save of the same text) hands over nothing.
    running: Option<(PathBuf, SystemTime)>,
}

/// When `exe` was last written.
fn modified(exe: &Path) -> Option<SystemTime> {
    std::fs::metadata(exe).and_then(|m| m.modified()).ok()
}

impl LiveMode {
    /// Live mode around `build` (watching its crate already), filing the
    /// build's messages in `log`; a new build starts with `args`.
    pub fn new(build: LiveBuild, log: LogBook, args: Vec<OsString>) -> Self {
        Self {
            build,
            log,
            args: without_resume(args),
            folder: std::env::temp_dir(),
            handing: None,
            waiting: None,
            running: std::env::current_exe()
                .ok()
                .and_then(|exe| modified(&exe).map(|t| (exe, t))),
        }
    }

    /// Handover files go in `folder` rather than the system's temp folder.
    #[must_use]
    pub fn with_folder(mut self, folder: impl Into<PathBuf>) -> Self {
        self.folder = folder.into();
        self
    }

    /// The build.
    pub fn build(&self) -> &LiveBuild {
        &self.build
    }

    /// Once a frame: reads what the build said (the status line shows its
    /// progress, the Log its errors), hands over after a good build, and
    /// watches the new build take over.
    pub fn frame(&mut self, app: &mut EditorApp) -> AfterFrame {
        if let Some(handing) = &mut self.handing {
            return match handing.child.try_wait() {
                _ if !handing.file.exists() => {
                    log::info!(
                        "live: the new build took over in {:.2} s",
                        handing.since.elapsed().as_secs_f64()
                    );
                    AfterFrame::Quit
                }
                Ok(Some(status)) => {
                    let file = handing.file.clone();
                    let _ = std::fs::remove_file(&file);
                    let why = reason_file(&file);
                    let reason = std::fs::read_to_string(&why)
                        .map_or_else(|_| status.to_string(), |r| format!("{status}: {r}"));
                    let _ = std::fs::remove_file(&why);
                    log::error!("live: the new build stopped before it took over ({reason})");
                    if let Some(play) = self.handing.take().and_then(|h| h.play) {
                        app.take_back_play(&play);
                    }
                    app.status_mut().error(format!(
                        "The new build stopped before it took over ({reason}); this one goes on"
                    ));
                    AfterFrame::Continue
                }
                Ok(None) => AfterFrame::Continue,
                Err(e) => {
                    app.status_mut()
                        .error(format!("The new build cannot be watched: {e}"));
                    AfterFrame::Continue
                }
            };
        }
        let mut built = None;
        let mut heard = false;
        for event in self.build.poll() {
            heard = true;
            log_event(&self.log, &event);
            match event {
                BuildEvent::Progress { name, .. } => {
                    if let BuildStatus::Building { since, .. } = self.build.status() {
                        // When the game's crate and then its binary are done:
                        // compile and link apart.
                        log::debug!("live: {name} at {:.2} s", since.elapsed().as_secs_f64());
                    }
                }
                BuildEvent::Finished(outcome) => {
                    log::info!(
                        "live: build ended in {:.2} s ({})",
                        outcome.took.as_secs_f64(),
                        if outcome.success { "good" } else { "failed" }
                    );
                    built = outcome.success.then_some(outcome.executable).flatten();
                }
                BuildEvent::Diagnostic(_) => {}
            }
        }
        if heard {
            let line = format!("live: {}", self.build.status_line());
            if (self.build.diagnostics().iter()).any(|d| d.severity == Severity::Error) {
                app.status_mut().error(line);
            } else {
                app.status_mut().info(line);
            }
        }
        if let Some(exe) = built {
            let stamp = modified(&exe);
            let same = (self.running.as_ref()).is_some_and(|(e, t)| *e == exe && Some(*t) == stamp);
            if same {
                app.status_mut()
                    .info("live: the build changed nothing; this editor goes on");
            } else {
                self.running = stamp.map(|t| (exe.clone(), t));
                self.waiting = Some(exe);
            }
        }
        if let Some(exe) = self.waiting.take() {
            self.hand_over(app, exe);
        }
        AfterFrame::Continue
    }

    /// Writes the handover and starts `exe` on it (or waits, when the
    /// editor is not ready to hand over).
    fn hand_over(&mut self, app: &mut EditorApp, exe: PathBuf) {
        let started = Instant::now();
        let handover = match app.handover() {
            Ok(h) => h,
            Err(HandoverError::NotNow(why)) => {
                if app.status().text() != why {
                    app.status_mut().info(why);
                }
                self.waiting = Some(exe);
                return;
            }
            Err(e) => {
                app.status_mut().error(format!("live: {e}"));
                return;
            }
        };
        // The unsaved edits on disk before anything else can go wrong.
        if app.doc().is_dirty()
            && let Err(e) = app.files().write_recovery(app.doc())
        {
            log::warn!("live: the recovery file: {e}");
        }
        let file = self
            .folder
            .join(format!("keel-handover-{}.ron", std::process::id()));
        if let Err(e) = handover.write(&file) {
            if let Some(play) = &handover.play {
                app.take_back_play(play);
            }
            app.status_mut().error(format!("live: {e}"));
            return;
        }
        let written = started.elapsed();
        match Command::new(&exe)
            .args(&self.args)
            .arg("--resume")
            .arg(&file)
            .spawn()
        {
            Ok(child) => {
                log::info!(
                    "live: handed over in {:.0} ms; starting {}",
                    written.as_secs_f64() * 1e3,
                    exe.display()
                );
                app.status_mut()
                    .info("live: the new build is starting with this editor's state");
                self.handing = Some(PendingHandover {
                    child,
                    file,
                    since: Instant::now(),
                    play: handover.play,
                });
            }
            Err(e) => {
                let _ = std::fs::remove_file(&file);
                if let Some(play) = &handover.play {
                    app.take_back_play(play);
                }
                app.status_mut()
                    .error(format!("live: cannot start {}: {e}", exe.display()));
            }
        }
    }
}

/// Where a new build that cannot take over says why, beside the handover `file`.
pub fn reason_file(file: &Path) -> PathBuf {
    file.with_extension("failed")
}

/// `args` less every `--resume FILE` (and `--resume=FILE`).
fn without_resume(args: Vec<OsString>) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "--resume" {
            args.next();
        } else if !arg.to_string_lossy().starts_with("--resume=") {
            out.push(arg);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resume_arguments_are_not_passed_on() {
        let args = [
            "scene.ron",
            "--resume",
            "a.ron",
            "--live",
            "g",
            "--resume=b",
        ]
        .map(OsString::from)
        .to_vec();
        assert_eq!(
            without_resume(args),
            ["scene.ron", "--live", "g"].map(OsString::from).to_vec()
        );
    }
}
