//! The user's files: reading them with limits (only regular files, no more
//! bytes than a cap per kind) and writing them atomically. Reads go to the
//! disk, or to a web page's files fetched beforehand (a [`FileSource`]).
//!
//! A scene can name any path in a `model:` field and a glTF file any path in
//! a URI, so a hostile or mistaken file can point the engine at `/dev/zero`
//! or a pipe. Every user file goes through [`read`], which refuses anything
//! but a regular file before opening it and refuses a file over the cap for
//! its [`FileKind`] before reading a byte of it (and stops at the cap should
//! the file grow while it is read).
//!
//! The caps are a [`ReadLimits`] value, held by whoever reads (an
//! [`Assets`](crate::Assets) holds the ones its imports obey): defaults that
//! fit real assets, raised or lowered in code or with the `KEEL_MAX_SCENE_MB`,
//! `KEEL_MAX_MODEL_MB` and `KEEL_MAX_IMAGE_MB` environment variables
//! ([`ReadLimits::from_env`]).
//!
//! [`write_atomically`] never leaves a half-written file where a whole one
//! was: the bytes go to a temporary file beside the target, are flushed to
//! the disk, and the temporary file is renamed over the target (the kill
//! tests SIGKILL the editor mid-save a hundred times to show it).

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};

mod source;

pub use source::{Fetch, FileSource, Stamp};

/// What a file is read as; each kind has its own size cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A scene file (`.ron`).
    Scene,
    /// A model (`.gltf`, `.glb`, `.obj`) or a buffer or material library it names.
    Model,
    /// An image a model references (`.png`, `.jpg`).
    Image,
    /// A settings file (input bindings, the editor's layout and recent
    /// files): read within the scene files' limit.
    Settings,
    /// A WGSL shader or a piece it imports: read within the scene files'
    /// limit.
    Shader,
}

impl FileKind {
    fn plural(self) -> &'static str {
        match self {
            FileKind::Scene => "scene files",
            FileKind::Model => "models and their buffers",
            FileKind::Image => "images",
            FileKind::Settings => "settings files",
            FileKind::Shader => "shaders",
        }
    }

    fn variable(self) -> &'static str {
        match self {
            FileKind::Scene | FileKind::Settings | FileKind::Shader => "KEEL_MAX_SCENE_MB",
            FileKind::Model => "KEEL_MAX_MODEL_MB",
            FileKind::Image => "KEEL_MAX_IMAGE_MB",
        }
    }
}

const MB: u64 = 1 << 20;

/// Nodes one expansion of scene records may spawn unless the limits say
/// otherwise: four times the largest scene the benches load (a million nodes).
pub const DEFAULT_MAX_NODES: u64 = 4_000_000;

/// The environment variable [`ReadLimits::from_env`] reads the node budget
/// from (a whole number of nodes).
pub const MAX_NODES_VARIABLE: &str = "KEEL_MAX_NODES";

/// What reading user files may cost (the largest file, in bytes, read for
/// each [`FileKind`], and the most nodes one expansion of scene records (a
/// scene file, a pasted subtree, a prefab instance) may spawn), and where
/// the files come from (the [`FileSource`]: the disk, or a web page's
/// files fetched beforehand).
///
/// An [`Assets`](crate::Assets) carries one; the applications read it from
/// the environment once, at start ([`ReadLimits::from_env`]), and the
/// library never reads the environment for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadLimits {
    /// Scene files (a million-node scene is about 150 MB).
    pub scene: u64,
    /// Model files and the buffers and material libraries they name.
    pub model: u64,
    /// Images referenced by models.
    pub image: u64,
    /// Nodes one expansion may spawn (see `scene::file::prefab::budget`).
    pub nodes: u64,
    /// Where the files are read from.
    pub source: FileSource,
}

impl ReadLimits {
    /// 256 MB for scenes and models, 128 MB for images, [`DEFAULT_MAX_NODES`].
    pub const DEFAULT: ReadLimits = ReadLimits {
        scene: 256 * MB,
        model: 256 * MB,
        image: 128 * MB,
        nodes: DEFAULT_MAX_NODES,
        source: FileSource::DISK,
    };

    /// The cap for `kind`.
    pub fn of(&self, kind: FileKind) -> u64 {
        match kind {
            FileKind::Scene | FileKind::Settings | FileKind::Shader => self.scene,
            FileKind::Model => self.model,
            FileKind::Image => self.image,
        }
    }

    fn set(&mut self, kind: FileKind, bytes: u64) {
        match kind {
            FileKind::Scene | FileKind::Settings | FileKind::Shader => self.scene = bytes,
            FileKind::Model => self.model = bytes,
            FileKind::Image => self.image = bytes,
        }
    }

    /// The defaults, with each kind's environment variable (whole megabytes)
    /// and [`MAX_NODES_VARIABLE`] applied where set; a variable that is not a
    /// number is reported and ignored. For an application's start (the
    /// player's and the editor's `main`), not for a library.
    pub fn from_env() -> ReadLimits {
        let mut limits = ReadLimits::DEFAULT;
        for kind in [FileKind::Scene, FileKind::Model, FileKind::Image] {
            let Some(value) = std::env::var_os(kind.variable()) else {
                continue;
            };
            match value.to_str().and_then(|v| v.trim().parse::<u64>().ok()) {
                Some(mb) => limits.set(kind, mb.saturating_mul(MB)),
                None => log::warn!(
                    "{}: expected a whole number of megabytes, found {value:?}; keeping {} MB",
                    kind.variable(),
                    limits.of(kind) / MB
                ),
            }
        }
        if let Some(value) = std::env::var_os(MAX_NODES_VARIABLE) {
            match value.to_str().and_then(|v| v.trim().parse::<u64>().ok()) {
                Some(max) => limits.nodes = max,
                None => log::warn!(
                    "{MAX_NODES_VARIABLE}: expected a whole number of nodes, found {value:?}; keeping {}",
                    limits.nodes
                ),
            }
        }
        limits
    }
}

impl Default for ReadLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Whether `path` is a regular file of `kind` within `limits`, without
/// reading it: the errors of [`read`] before it opens the file.
///
/// # Errors
/// As [`read`]'s for a missing file, one that is not a regular file, or one
/// too large.
pub fn check_path(path: &Path, kind: FileKind, limits: &ReadLimits) -> io::Result<()> {
    if let Some(bytes) = limits.source.fetched_bytes(path) {
        return check_len(bytes?.len() as u64, kind, limits.of(kind));
    }
    check(&fs::metadata(path)?, kind, limits.of(kind))
}

/// Reads a whole user file of `kind`, no larger than `limits` allow.
///
/// # Errors
/// The OS's error for a missing or unreadable file; an
/// [`io::ErrorKind::InvalidInput`] error saying what the path is when it is
/// not a regular file (a folder, a device, a pipe, a socket); an
/// [`io::ErrorKind::FileTooLarge`] error giving the size and the cap when the
/// file is larger than the cap for `kind`. None of them names the path: the
/// caller's error does.
pub fn read(path: &Path, kind: FileKind, limits: &ReadLimits) -> io::Result<Vec<u8>> {
    let cap = limits.of(kind);
    if let Some(bytes) = limits.source.fetched_bytes(path) {
        let bytes = bytes?;
        check_len(bytes.len() as u64, kind, cap)?;
        return Ok(bytes.to_vec());
    }
    // Checked before opening: opening a FIFO blocks until a writer appears.
    check(&fs::metadata(path)?, kind, cap)?;
    let file = fs::File::open(path)?;
    let metadata = file.metadata()?;
    // Checked again on the opened file: the path may have been swapped meanwhile.
    check(&metadata, kind, cap)?;
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(too_large(
            bytes.len() as u64,
            kind,
            cap,
            " (it grew while read)",
        ));
    }
    Ok(bytes)
}

/// Reads a whole user file of `kind` as UTF-8 text.
///
/// # Errors
/// Those of [`read`], and [`io::ErrorKind::InvalidData`] when the bytes are not UTF-8.
pub fn read_to_string(path: &Path, kind: FileKind, limits: &ReadLimits) -> io::Result<String> {
    String::from_utf8(read(path, kind, limits)?).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "expected UTF-8 text, found a byte that is not at offset {}",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

/// Writes `bytes` to `path` through a temporary file in the same folder
/// (`.NAME.tmpPID`), flushed to the disk, then renamed over `path`; the folder
/// is flushed too, so the rename survives a power cut. Temporary files left
/// by an earlier process that died mid-save are removed first (where the OS
/// tells which processes are alive).
///
/// # Errors
/// The OS's error; the temporary file is removed on failure and `path` is untouched.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let file_name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"))?;
    let prefix = format!(".{}.tmp", file_name.to_string_lossy());
    remove_orphans(&dir, &prefix);
    let temp = dir.join(format!("{prefix}{}", std::process::id()));
    let result = (|| {
        let mut file = fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)
    })();
    if let Err(error) = result {
        let _ = fs::remove_file(&temp);
        return Err(error);
    }
    #[cfg(unix)]
    if let Err(error) = fs::File::open(&dir).and_then(|d| d.sync_all()) {
        // The file is complete and in place; only its durability across a power cut is in doubt.
        log::warn!("{}: could not flush the folder: {error}", dir.display());
    }
    Ok(())
}

/// Removes `PREFIX<pid>` files in `dir` whose process is gone (Linux only:
/// elsewhere there is no cheap way to tell, and a live process's file must stay).
fn remove_orphans(dir: &Path, prefix: &str) {
    let proc = Path::new("/proc/self");
    if !proc.exists() {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(prefix))
            .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        if !Path::new("/proc").join(pid).exists() {
            let _ = fs::remove_file(entry.path());
        }
    }
}

fn check(metadata: &fs::Metadata, kind: FileKind, cap: u64) -> io::Result<()> {
    let file_type = metadata.file_type();
    if !file_type.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "expected a regular file, found {}; {} are read only from regular files",
                describe(&file_type),
                kind.plural()
            ),
        ));
    }
    check_len(metadata.len(), kind, cap)
}

fn check_len(len: u64, kind: FileKind, cap: u64) -> io::Result<()> {
    if len > cap {
        return Err(too_large(len, kind, cap, ""));
    }
    Ok(())
}

fn too_large(len: u64, kind: FileKind, cap: u64, note: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!(
            "the file is {len} bytes{note}, over the limit of {cap} bytes ({} MB) for {}; {} raises it",
            cap / MB,
            kind.plural(),
            kind.variable()
        ),
    )
}

fn describe(file_type: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_fifo() {
            return "a named pipe";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_dir() {
        "a folder"
    } else {
        "something that is not a file"
    }
}

/// Where a path written in the file at `scene_path` (a model, a prefab, a
/// sky) points: relative paths are taken from that file's folder.
pub(crate) fn resolve_written_path(scene_path: &Path, written: &str) -> PathBuf {
    let written = Path::new(written);
    if written.is_absolute() {
        return written.to_path_buf();
    }
    scene_path
        .parent()
        .unwrap_or_else(|| Path::new(""))
        .join(written)
}

/// How a file in `dir` should write the path of `model`: relative to
/// `dir`, with `/` separators so the file reads the same on every platform;
/// absolute when the two share no root.
pub(crate) fn written_path(model: &Path, dir: &Path) -> String {
    // A bare file name's folder is the empty path: the working directory.
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let (model_parts, dir_parts): (Vec<Component>, Vec<Component>) =
        (model.components().collect(), dir.components().collect());
    let common = model_parts
        .iter()
        .zip(&dir_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let shares_root = common > 0 && model.is_absolute() == dir.is_absolute();
    if !shares_root {
        return model.to_string_lossy().replace('\\', "/");
    }
    let ups = std::iter::repeat_n("..".to_string(), dir_parts.len() - common);
    let downs = model_parts[common..]
        .iter()
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    ups.chain(downs).collect::<Vec<_>>().join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_folders_and_pipes_are_refused_before_reading() {
        let dir = tempfile::tempdir().unwrap();
        let error = read(dir.path(), FileKind::Scene, &ReadLimits::DEFAULT).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
        assert!(error.to_string().contains("found a folder"), "{error}");
        #[cfg(unix)]
        {
            // /dev/zero never ends: read whole, it would exhaust memory.
            let error = read(
                Path::new("/dev/zero"),
                FileKind::Model,
                &ReadLimits::DEFAULT,
            )
            .unwrap_err();
            assert!(error.to_string().contains("a character device"), "{error}");
            let fifo = dir.path().join("pipe.ron");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                // Opening would block forever: the check must come first.
                let error = read(&fifo, FileKind::Scene, &ReadLimits::DEFAULT).unwrap_err();
                assert!(error.to_string().contains("a named pipe"), "{error}");
            }
        }
    }

    #[test]
    fn a_file_over_its_cap_is_refused_and_one_at_the_cap_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.bin");
        fs::write(&path, vec![7u8; 4096]).unwrap();
        let small = ReadLimits {
            image: 4095,
            ..ReadLimits::DEFAULT
        };
        let cap = small.of(FileKind::Image);
        let error = check(&fs::metadata(&path).unwrap(), FileKind::Image, cap).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::FileTooLarge);
        let text = error.to_string();
        assert!(
            text.contains("4096 bytes") && text.contains("4095 bytes"),
            "{text}"
        );
        assert!(text.contains("KEEL_MAX_IMAGE_MB"), "{text}");
        assert!(check(&fs::metadata(&path).unwrap(), FileKind::Image, 4096).is_ok());
        assert_eq!(
            read(&path, FileKind::Image, &ReadLimits::DEFAULT)
                .unwrap()
                .len(),
            4096
        );
        let error = read(&path, FileKind::Image, &small).unwrap_err();
        assert_eq!(
            error.kind(),
            io::ErrorKind::FileTooLarge,
            "the limits given are the ones obeyed"
        );
    }

    #[test]
    fn an_atomic_write_replaces_the_file_and_clears_orphans_of_dead_saves() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scene.ron");
        write_atomically(&path, b"old").unwrap();
        // A save killed mid-write by a process that no longer exists, and one
        // in progress in a live process (pid 1 always runs).
        let dead = dir.path().join(".scene.ron.tmp4294967295");
        let live = dir.path().join(".scene.ron.tmp1");
        fs::write(&dead, b"torn").unwrap();
        fs::write(&live, b"being written").unwrap();
        write_atomically(&path, b"new").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(!dead.exists(), Path::new("/proc/self").exists());
        assert!(
            live.exists(),
            "a live process's temporary file is left alone"
        );
        let ours = dir
            .path()
            .join(format!(".scene.ron.tmp{}", std::process::id()));
        assert!(!ours.exists(), "the temporary file was renamed into place");
        let error = write_atomically(&dir.path().join("missing/scene.ron"), b"x").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn text_that_is_not_utf8_names_the_offset() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.ron");
        fs::write(&path, b"(version: \xff)").unwrap();
        let error = read_to_string(&path, FileKind::Scene, &ReadLimits::DEFAULT).unwrap_err();
        assert!(error.to_string().contains("offset 10"), "{error}");
    }

    #[test]
    fn relative_paths_walk_up_and_down() {
        let model = Path::new("/project/assets/models/lighthouse.glb");
        assert_eq!(
            written_path(model, Path::new("/project/assets/scenes")),
            "../models/lighthouse.glb"
        );
        assert_eq!(
            written_path(model, Path::new("/project/assets/models")),
            "lighthouse.glb"
        );
        assert_eq!(
            written_path(model, Path::new("/elsewhere")),
            "../project/assets/models/lighthouse.glb"
        );
    }

    #[test]
    fn written_paths_resolve_against_the_scene_folder() {
        let scene = Path::new("/project/assets/scenes/demo.ron");
        assert_eq!(
            resolve_written_path(scene, "../models/a.glb"),
            Path::new("/project/assets/scenes/../models/a.glb")
        );
        assert_eq!(
            resolve_written_path(scene, "/abs/a.glb"),
            Path::new("/abs/a.glb")
        );
    }
}
