//! What the editor keeps on disk besides scenes: the recent-files list, the
//! panel layout (`ui::dock`) and recovery files (autosaves).
//!
//! Dirty flag, applied to crashes: while a document has unsaved changes it is
//! written every [`AUTOSAVE_INTERVAL`] to a recovery file, so a crash loses at
//! most that much work. A scene's recovery file sits beside it, hidden, named
//! `.NAME.recovery.ron` after the scene file's full name (`.demo.ron.recovery.ron`, matched by
//! the `*.recovery.ron` ignore pattern); an untitled scene's goes to the
//! config folder. Saving removes it. At start, a recovery file newer than
//! its scene is offered back.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use keel_engine::files::{FileKind, write_atomically};
use serde::{Deserialize, Serialize};

/// How often a dirty document is written to its recovery file.
pub const AUTOSAVE_INTERVAL: Duration = Duration::from_secs(30);

/// How many recent files are remembered.
pub const RECENT_LIMIT: usize = 10;

/// Where the editor keeps its own files: the platform's config folder for
/// Keel (`$XDG_CONFIG_HOME/keel` or `~/.config/keel` on Linux, Application
/// Support on macOS, `%APPDATA%` on Windows); `None` when the platform names
/// none (no home folder).
pub fn default_config_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "keel").map(|d| d.config_dir().to_path_buf())
}

/// Problems with the editor's own files. None of them stops the editor.
#[derive(Debug, thiserror::Error)]
pub enum PersistError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The recent-files list is not valid RON.
    #[error("{}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
}

/// The text of one of the editor's files; `Ok(None)` when it does not exist.
///
/// # Errors
/// [`PersistError::Io`] for a file that cannot be read.
pub fn read_ron(path: &Path) -> Result<Option<String>, PersistError> {
    let limits = keel_engine::files::ReadLimits::DEFAULT;
    match keel_engine::files::read_to_string(path, FileKind::Settings, &limits) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(PersistError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Writes one of the editor's files, creating its folder; a temp file renamed
/// over the old one, so a crash leaves the old file or the new one.
///
/// # Errors
/// [`PersistError::Io`].
pub fn write_ron(path: &Path, text: &str) -> Result<(), PersistError> {
    let io = |source| PersistError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(io)?;
    }
    write_atomically(path, text.as_bytes()).map_err(io)
}

/// The recently opened or saved scenes, most recent first, persisted as RON.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecentFiles {
    /// Most recent first, at most [`RECENT_LIMIT`], no duplicates.
    pub paths: Vec<PathBuf>,
}

impl RecentFiles {
    /// The list file inside a config folder.
    pub fn file_in(config_dir: &Path) -> PathBuf {
        config_dir.join("recent.ron")
    }

    /// Reads the list; a missing file is an empty list.
    ///
    /// # Errors
    /// [`PersistError::Io`] for an unreadable file, [`PersistError::Parse`] for a broken one.
    pub fn load(path: &Path) -> Result<Self, PersistError> {
        let Some(text) = read_ron(path)? else {
            return Ok(Self::default());
        };
        ron::from_str(&text).map_err(|e| PersistError::Parse {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    }

    /// Writes the list (creating the folder).
    ///
    /// # Errors
    /// [`PersistError::Io`].
    pub fn save(&self, path: &Path) -> Result<(), PersistError> {
        let text = ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::new())
            .unwrap_or_else(|e| unreachable!("a list of paths always serializes: {e}"));
        write_ron(path, &text)
    }

    /// Puts `path` first (absolute when it can be made so), dropping an older
    /// entry for it and the oldest past the limit.
    pub fn touch(&mut self, path: &Path) {
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        self.paths.retain(|p| p != &path);
        self.paths.insert(0, path);
        self.paths.truncate(RECENT_LIMIT);
    }
}

/// The recovery file of a scene (beside it), or of an untitled scene (in the config folder).
pub fn recovery_path(scene: Option<&Path>, config_dir: Option<&Path>) -> Option<PathBuf> {
    match scene {
        Some(path) => {
            let name = path.file_name()?.to_string_lossy();
            let dir = path.parent().unwrap_or(Path::new(""));
            Some(dir.join(format!(".{name}.recovery.ron")))
        }
        None => config_dir.map(|d| d.join("untitled.recovery.ron")),
    }
}

/// Whether the recovery file should be offered back: it exists and was written
/// after the scene file (or the scene file is gone).
pub fn recovery_is_newer(recovery: &Path, scene: Option<&Path>) -> bool {
    let modified = |p: &Path| fs::metadata(p).and_then(|m| m.modified()).ok();
    let Some(saved) = modified(recovery) else {
        return false;
    };
    match scene.map(modified) {
        Some(Some(scene_time)) => saved > scene_time,
        _ => true,
    }
}

/// Decides when a dirty document is autosaved: every interval of editor time
/// while dirty, and only when the content changed since the last autosave.
#[derive(Clone, Debug)]
pub struct Autosave {
    interval: f64,
    /// Editor time (seconds) when the current dirty period started.
    since: Option<f64>,
    saved_revision: Option<u64>,
}

impl Autosave {
    /// Autosaves every `interval`.
    pub fn new(interval: Duration) -> Self {
        Self {
            interval: interval.as_secs_f64(),
            since: None,
            saved_revision: None,
        }
    }

    /// Whether to write the recovery file now. `now` is any monotonic time in seconds.
    pub fn due(&mut self, now: f64, dirty: bool, revision: u64) -> bool {
        if !dirty {
            self.since = None;
            return false;
        }
        let since = *self.since.get_or_insert(now);
        now - since >= self.interval && self.saved_revision != Some(revision)
    }

    /// Records that the recovery file now holds `revision`.
    pub fn done(&mut self, now: f64, revision: u64) {
        self.since = Some(now);
        self.saved_revision = Some(revision);
    }

    /// Forgets the last autosave (after a save or a new document).
    pub fn reset(&mut self) {
        self.since = None;
        self.saved_revision = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    fn touch_file(path: &Path) -> std::io::Result<()> {
        fs::File::options()
            .append(true)
            .open(path)?
            .set_modified(SystemTime::now())
    }

    #[test]
    fn recent_files_keep_the_newest_first_without_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        let file = RecentFiles::file_in(&dir.path().join("cfg"));
        let mut recent = RecentFiles::load(&file).unwrap();
        assert!(recent.paths.is_empty(), "a missing list is empty");
        for i in 0..12 {
            recent.touch(&dir.path().join(format!("{i}.ron")));
        }
        recent.touch(&dir.path().join("5.ron"));
        assert_eq!(recent.paths.len(), RECENT_LIMIT);
        assert_eq!(recent.paths[0], dir.path().join("5.ron"));
        assert_eq!(
            recent.paths.iter().filter(|p| p.ends_with("5.ron")).count(),
            1
        );
        recent.save(&file).unwrap();
        assert_eq!(RecentFiles::load(&file).unwrap(), recent);
        fs::write(&file, "not ron (").unwrap();
        assert!(matches!(
            RecentFiles::load(&file),
            Err(PersistError::Parse { .. })
        ));
    }

    #[test]
    fn a_folder_in_place_of_a_settings_file_is_named_as_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("layout.ron");
        std::fs::create_dir(&path).unwrap();
        let error = read_ron(&path)
            .expect_err("a folder is no file")
            .to_string();
        assert!(
            error.contains("layout.ron") && error.contains("a folder"),
            "{error}"
        );
        assert!(
            error.contains("settings files") && !error.contains("scene"),
            "an editor file is no scene file: {error}"
        );
    }

    #[test]
    fn recovery_files_sit_beside_the_scene_and_match_the_ignore_pattern() {
        let p = recovery_path(Some(Path::new("assets/scenes/demo.ron")), None).unwrap();
        assert_eq!(p, Path::new("assets/scenes/.demo.ron.recovery.ron"));
        assert!(p.to_string_lossy().ends_with(".recovery.ron"));
        let cfg = Path::new("/cfg");
        assert_eq!(
            recovery_path(None, Some(cfg)).unwrap(),
            cfg.join("untitled.recovery.ron")
        );
        assert!(recovery_path(None, None).is_none());
    }

    #[test]
    fn a_recovery_file_counts_only_when_newer_than_its_scene() {
        let dir = tempfile::tempdir().unwrap();
        let scene = dir.path().join("a.ron");
        let recovery = recovery_path(Some(&scene), None).unwrap();
        assert!(
            !recovery_is_newer(&recovery, Some(&scene)),
            "no recovery file"
        );
        fs::write(&scene, "x").unwrap();
        fs::write(&recovery, "y").unwrap();
        let old = SystemTime::now() - Duration::from_secs(100);
        fs::File::options()
            .append(true)
            .open(&scene)
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert!(recovery_is_newer(&recovery, Some(&scene)));
        fs::File::options()
            .append(true)
            .open(&recovery)
            .unwrap()
            .set_modified(old - Duration::from_secs(100))
            .unwrap();
        assert!(!recovery_is_newer(&recovery, Some(&scene)));
        touch_file(&recovery).unwrap();
        assert!(recovery_is_newer(&recovery, Some(&scene)));
    }

    #[test]
    fn autosave_waits_an_interval_of_dirtiness_and_skips_unchanged_content() {
        let mut a = Autosave::new(Duration::from_secs(30));
        assert!(!a.due(0.0, false, 0));
        assert!(!a.due(1.0, true, 1), "dirty since 1 s");
        assert!(!a.due(30.0, true, 1));
        assert!(a.due(31.0, true, 1));
        a.done(31.0, 1);
        assert!(!a.due(70.0, true, 1), "nothing new since the last autosave");
        assert!(a.due(70.0, true, 2));
        assert!(!a.due(80.0, false, 2), "saved: nothing to do");
        assert!(
            !a.due(100.0, true, 3),
            "a new dirty period starts the wait again"
        );
        assert!(a.due(130.0, true, 3));
    }
}
