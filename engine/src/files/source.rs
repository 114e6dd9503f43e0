//! Where user files come from: the file system, or a set of files fetched
//! before anything is loaded (a web page's, over HTTP).
//!
//! A browser cannot read a file while a scene loads: fetching is
//! asynchronous. The web player therefore fetches the page's files first
//! (the list the build wrote beside them) and hands them to the store as a
//! [`FileSource::fetched`]; every read of a scene, prefab, model, buffer,
//! image, sky or `input.ron` then goes through [`crate::files::read`] as on
//! native, with the same limits and the same located errors. A file the
//! server did not give names its URL and the HTTP status.

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// A file's modification time and length ([`FileSource::stamp`]).
pub type Stamp = (std::time::SystemTime, u64);

/// What fetching one file gave.
#[derive(Clone, Debug)]
pub enum Fetch {
    /// The file's bytes.
    Bytes(Arc<[u8]>),
    /// The server's answer where it gave no file (404, 500, ...).
    Status(u16),
}

/// Where reads find their files: the file system (the default), or files
/// fetched beforehand. Cheap to clone (the fetched files are shared).
#[derive(Clone, Default)]
pub struct FileSource(Option<Arc<Fetched>>);

struct Fetched {
    /// What the paths are relative to, for messages (`http://host/game/`).
    base: String,
    files: HashMap<PathBuf, Fetch>,
}

impl FileSource {
    /// The file system.
    pub const DISK: FileSource = FileSource(None);

    /// Files fetched from `base` (a URL ending in `/`), each under its path
    /// relative to it (`assets/scenes/demo.ron`).
    pub fn fetched(
        base: impl Into<String>,
        files: impl IntoIterator<Item = (PathBuf, Fetch)>,
    ) -> Self {
        let files = files
            .into_iter()
            .map(|(path, fetch)| (normalize(&path), fetch))
            .collect();
        FileSource(Some(Arc::new(Fetched {
            base: base.into(),
            files,
        })))
    }

    /// Whether reads go to the file system.
    #[must_use]
    pub fn is_disk(&self) -> bool {
        self.0.is_none()
    }

    /// The canonical form of `path`: the file system's (links resolved), or,
    /// for fetched files, `.` and `..` taken out; an error when there is no
    /// such file.
    ///
    /// # Errors
    /// The file system's, or [`io::ErrorKind::NotFound`] naming the URL.
    pub fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        match &self.0 {
            None => std::fs::canonicalize(path),
            Some(fetched) => {
                let path = normalize(path);
                fetched.get(&path).map(|_| path)
            }
        }
    }

    /// When `path` was last written and its length: what tells a change
    /// (a fetched file never changes: its length and the epoch). `None`
    /// when there is no such file.
    #[must_use]
    pub fn stamp(&self, path: &Path) -> Option<Stamp> {
        match &self.0 {
            None => {
                let meta = std::fs::metadata(path).ok()?;
                Some((meta.modified().ok()?, meta.len()))
            }
            Some(fetched) => {
                let bytes = fetched.get(&normalize(path)).ok()?;
                Some((std::time::SystemTime::UNIX_EPOCH, bytes.len() as u64))
            }
        }
    }

    /// The bytes of a fetched file; `None` when reads go to the file system.
    pub(super) fn fetched_bytes(&self, path: &Path) -> Option<io::Result<Arc<[u8]>>> {
        let fetched = self.0.as_ref()?;
        Some(fetched.get(&normalize(path)))
    }
}

impl Fetched {
    fn get(&self, path: &Path) -> io::Result<Arc<[u8]>> {
        let why = match self.files.get(path) {
            Some(Fetch::Bytes(bytes)) => return Ok(bytes.clone()),
            Some(Fetch::Status(status)) => format!("the server answered HTTP {status}"),
            None => "not among the page's files (the list the build wrote)".to_owned(),
        };
        let url = format!("{}{}", self.base, path.to_string_lossy().replace('\\', "/"));
        Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("{url}: {why}"),
        ))
    }
}

impl fmt::Debug for FileSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            None => f.write_str("FileSource::DISK"),
            Some(fetched) => write!(
                f,
                "FileSource::fetched({:?}, {} files)",
                fetched.base,
                fetched.files.len()
            ),
        }
    }
}

impl PartialEq for FileSource {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for FileSource {}

/// `path` with `.` dropped and `..` taken against what precedes it, as a
/// URL resolves: what a file system without links would canonicalize to.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source() -> FileSource {
        FileSource::fetched(
            "http://localhost:8000/",
            [
                (
                    PathBuf::from("assets/scenes/a.ron"),
                    Fetch::Bytes(Arc::from(&b"()"[..])),
                ),
                (PathBuf::from("assets/gone.png"), Fetch::Status(404)),
            ],
        )
    }

    #[test]
    fn fetched_paths_resolve_as_urls_do() {
        let s = source();
        let p = s
            .canonicalize(Path::new("assets/scenes/../scenes/./a.ron"))
            .unwrap();
        assert_eq!(p, Path::new("assets/scenes/a.ron"));
        assert_eq!(&*s.fetched_bytes(&p).unwrap().unwrap(), b"()");
    }

    #[test]
    fn a_missing_file_names_its_url_and_status() {
        let s = source();
        let gone = s.fetched_bytes(Path::new("assets/x/../gone.png")).unwrap();
        let message = gone.unwrap_err().to_string();
        assert!(
            message.contains("http://localhost:8000/assets/gone.png"),
            "{message}"
        );
        assert!(message.contains("HTTP 404"), "{message}");
        let absent = s.canonicalize(Path::new("assets/none.ron")).unwrap_err();
        assert_eq!(absent.kind(), io::ErrorKind::NotFound);
        assert!(absent.to_string().contains("not among the page's files"));
    }

    #[test]
    fn disk_is_the_default() {
        assert!(FileSource::default().is_disk());
        assert_eq!(FileSource::default(), FileSource::DISK);
        assert_ne!(source(), FileSource::DISK);
    }
}
