//! The editor's log: every warning and error the engine and the editor report
//! through `log` (a prefab override kept for a node the prefab lost, a glTF
//! feature skipped, a reload that failed, a GPU error), kept in a bounded
//! ring that the Log tab lists, besides going to stderr as before.
//!
//! `log` has one logger per process by design; [`CaptureLogger`] is that
//! logger for the editor binary: it hands every record to `env_logger` (so
//! `RUST_LOG` works as usual) and files the engine's and the editor's
//! warnings and errors (not other crates') in the
//! [`LogBook`] the [`EditorApp`](crate::app::EditorApp) was given. The book itself
//! is owned state, passed in: tests give an editor a book of their own.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Entries kept: older ones are dropped first.
pub const KEPT: usize = 1000;

/// One reported warning or error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogEntry {
    /// When, counted from the book's start.
    pub at: Duration,
    /// `Warn` or `Error` (or any level a caller files itself).
    pub level: log::Level,
    /// Who said it: the module path (`keel_engine::scene::file::prefab`).
    pub source: String,
    /// What it said (files and nodes named in it as the engine writes them).
    pub message: String,
}

impl LogEntry {
    /// The node the message names (the engine writes ``node `NAME` ``), if any.
    #[must_use]
    pub fn node(&self) -> Option<&str> {
        let (_, rest) = self.message.split_once("node `")?;
        let (name, _) = rest.split_once('`')?;
        Some(name)
    }
}

#[derive(Debug)]
struct Entries {
    start: Instant,
    list: VecDeque<LogEntry>,
    /// Entries ever filed (the list keeps the last [`KEPT`]).
    total: u64,
}

/// Warnings and errors, newest last; cheap to clone (one shared ring).
#[derive(Clone, Debug)]
pub struct LogBook(Arc<Mutex<Entries>>);

impl Default for LogBook {
    fn default() -> Self {
        LogBook(Arc::new(Mutex::new(Entries {
            start: Instant::now(),
            list: VecDeque::new(),
            total: 0,
        })))
    }
}

impl LogBook {
    fn lock(&self) -> MutexGuard<'_, Entries> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Files an entry.
    pub fn push(&self, level: log::Level, source: &str, message: impl Into<String>) {
        let mut entries = self.lock();
        if entries.list.len() == KEPT {
            entries.list.pop_front();
        }
        let at = entries.start.elapsed();
        entries.list.push_back(LogEntry {
            at,
            level,
            source: source.to_owned(),
            message: message.into(),
        });
        entries.total += 1;
    }

    /// Entries ever filed (the count the status line compares with what was seen).
    #[must_use]
    pub fn total(&self) -> u64 {
        self.lock().total
    }

    /// The kept entries that contain `filter` (any case; all when it is empty),
    /// oldest first.
    #[must_use]
    pub fn matching(&self, filter: &str) -> Vec<LogEntry> {
        let filter = filter.to_lowercase();
        self.lock()
            .list
            .iter()
            .filter(|e| {
                filter.is_empty()
                    || e.message.to_lowercase().contains(&filter)
                    || e.source.to_lowercase().contains(&filter)
            })
            .cloned()
            .collect()
    }
}

/// The process's logger in the editor binary: `env_logger` as before, plus
/// every warning and error filed in a [`LogBook`].
pub struct CaptureLogger {
    inner: env_logger::Logger,
    book: LogBook,
}

impl CaptureLogger {
    /// Wraps `inner`, filing into `book`.
    #[must_use]
    pub fn new(inner: env_logger::Logger, book: LogBook) -> Self {
        Self { inner, book }
    }

    /// Makes a logger of `env_logger`'s usual settings (`RUST_LOG`, default
    /// `warn`) that also files into `book`, and installs it for the process.
    ///
    /// # Errors
    /// When a logger was installed already.
    pub fn install(book: LogBook) -> Result<(), log::SetLoggerError> {
        let inner =
            env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
                .build();
        let level = inner.filter().max(log::LevelFilter::Warn);
        log::set_boxed_logger(Box::new(CaptureLogger::new(inner, book)))?;
        log::set_max_level(level);
        Ok(())
    }
}

impl log::Log for CaptureLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::Level::Warn || self.inner.enabled(metadata)
    }

    fn log(&self, record: &log::Record<'_>) {
        // The engine's and the editor's own (the platform's chatter about X
        // settings stays on stderr).
        if record.level() <= log::Level::Warn && record.target().starts_with("keel") {
            self.book
                .push(record.level(), record.target(), record.args().to_string());
        }
        if self.inner.matches(record) {
            self.inner.log(record);
        }
    }

    fn flush(&self) {
        self.inner.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use log::Log;

    #[test]
    fn warnings_and_errors_are_filed_and_the_rest_only_passed_on() {
        let book = LogBook::default();
        let inner = env_logger::Builder::new()
            .filter_level(log::LevelFilter::Off)
            .build();
        let logger = CaptureLogger::new(inner, book.clone());
        for (level, text) in [
            (log::Level::Info, "loaded"),
            (
                log::Level::Warn,
                "harbour.ron: node `boat_b`: prefab has no node `body/hull`",
            ),
            (log::Level::Error, "GPU error: refused"),
        ] {
            logger.log(
                &log::Record::builder()
                    .level(log::Level::Warn)
                    .target("winit::platform_impl::linux::x11::xdisplay")
                    .args(format_args!("error setting XSETTINGS"))
                    .build(),
            );
            logger.log(
                &log::Record::builder()
                    .level(level)
                    .target("keel_engine::scene::prefab")
                    .args(format_args!("{text}"))
                    .build(),
            );
        }
        assert_eq!(
            book.total(),
            2,
            "info and other crates' warnings are not filed"
        );
        let entries = book.matching("");
        assert_eq!(entries[0].level, log::Level::Warn);
        assert_eq!(entries[0].node(), Some("boat_b"));
        assert_eq!(entries[1].node(), None);
        assert_eq!(book.matching("gpu").len(), 1, "filtered, any case");
        assert_eq!(book.matching("SCENE::PREFAB").len(), 2, "by source too");
    }

    #[test]
    fn the_ring_keeps_the_newest() {
        let book = LogBook::default();
        for i in 0..KEPT + 5 {
            book.push(log::Level::Warn, "test", format!("{i}"));
        }
        let entries = book.matching("");
        assert_eq!(entries.len(), KEPT);
        assert_eq!(entries[0].message, "5");
        assert_eq!(book.total(), (KEPT + 5) as u64);
    }
}
