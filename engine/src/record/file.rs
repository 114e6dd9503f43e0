//! Recording files (`keel-viewer --record` / `--replay`): what a run must
//! reproduce, step by step.
//!
//! The simulation is deterministic, so the file holds no world at all: the
//! scene file's content hash, the build, the clock's step, the number of steps,
//! and the world's [`StateHash`] every `hash_every` steps. A replay loads the
//! scene, runs the same steps and reports the first step whose hash differs.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{InputLog, Simulation, StateHash};
use crate::files::{self, FileKind, ReadLimits};
use crate::input::InputFrame;

/// Version of the recording format this build writes; it reads 1 (no input) too.
pub const RECORDING_VERSION: u32 = 2;

/// The build that made a recording: the engine's version and a hash of its
/// sources and shaders.
pub fn build_id() -> String {
    format!("{}+{}", env!("CARGO_PKG_VERSION"), env!("KEEL_BUILD_ID"))
}

/// Identity of the running program's build, game code included: the
/// binary's name and a hash of its executable (any change to a game's code,
/// or to what it was built with, gives another). `"unknown"` where the
/// executable cannot be read: a web page has none, and names its build
/// `NAME.wasm+HASH` instead (its module's name and hash, which the page's
/// build writes in it; the web player sets [`Recording::game_build`] to it and
/// replays with [`Recording::differences_for_build`]).
pub fn game_build_id() -> String {
    let Ok(exe) = std::env::current_exe() else {
        return "unknown".to_owned();
    };
    let name = exe
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    match std::fs::read(&exe) {
        Ok(bytes) => format!("{name}+{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes)),
        Err(_) => format!("{name}+unknown"),
    }
}

/// Whether a game build id names a web page's module (`NAME.wasm+HASH`).
fn in_web_page(game_build: &str) -> bool {
    game_build
        .split_once('+')
        .is_some_and(|(name, _)| name.ends_with(".wasm"))
}

/// Content hash of a scene file (hex).
pub fn scene_hash(bytes: &[u8]) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(bytes))
}

/// A recording file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recording {
    /// `RECORDING_VERSION`.
    pub version: u32,
    /// [`build_id`] of the build that recorded.
    pub build: String,
    /// [`game_build_id`] of the program that recorded, `NAME.wasm+HASH` where
    /// a web page recorded (empty in recordings made before it was kept).
    #[serde(default)]
    pub game_build: String,
    /// The scene file, as given on the command line.
    pub scene: PathBuf,
    /// [`scene_hash`] of the scene file's bytes.
    pub scene_hash: String,
    /// Length of a fixed step, in nanoseconds.
    pub step_ns: u64,
    /// Fixed steps recorded.
    pub steps: u64,
    /// A hash was taken after every this many steps.
    pub hash_every: u32,
    /// The world's hashes after steps `hash_every`, `2 * hash_every`, ...
    pub hashes: Vec<StateHash>,
    /// The input each step read (where it changed).
    #[serde(default)]
    pub inputs: InputLog,
}

/// Why a recording could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    /// The file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The file is not a recording.
    #[error("{}: not a recording: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// What the parser expected.
        message: String,
    },
    /// The file is from another format version.
    #[error("{}: recording format {found}, this build reads {expected}", path.display())]
    Version {
        /// The file.
        path: PathBuf,
        /// Its version.
        found: u32,
        /// `RECORDING_VERSION`.
        expected: u32,
    },
    /// A field holds a value no recording can have (a truncated or edited file).
    #[error("{}: field `{field}`: expected {expected}, found {found}", path.display())]
    InvalidValue {
        /// The file.
        path: PathBuf,
        /// The field at fault.
        field: &'static str,
        /// What a recording holds there.
        expected: String,
        /// What the file holds.
        found: String,
    },
}

/// The shortest fixed step a recording may have, in nanoseconds (10 kHz).
pub const MIN_STEP_NS: u64 = 100_000;
/// The longest fixed step a recording may have, in nanoseconds (one second).
pub const MAX_STEP_NS: u64 = 1_000_000_000;

/// What a replay found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every hash matched.
    Identical {
        /// Steps replayed and checked: through the last recorded hash (steps
        /// after it have nothing to compare with and are not run).
        steps: u64,
        /// Hashes compared.
        hashes: usize,
    },
    /// The first hash that differs.
    Diverged {
        /// The step after which it was taken (the divergence happened at or
        /// before it, after the previous hash).
        step: u64,
        /// The parts that differ (`nodes`, `components`, `particles`, `step`).
        parts: Vec<&'static str>,
    },
}

/// What a replay prints: `identical: 1200 steps (1200 hashes compared)` or
/// `diverged at step 42 (first differing hash; nodes differ)`; the native
/// player and the web page say the same.
impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Identical { steps, hashes } => {
                write!(f, "identical: {steps} steps ({hashes} hashes compared)")
            }
            Verdict::Diverged { step, parts } => write!(
                f,
                "diverged at step {step} (first differing hash; {} differ)",
                parts.join(", ")
            ),
        }
    }
}

impl Recording {
    /// Runs `world` for `steps` fixed steps with no input, hashing every `hash_every`.
    pub fn record(
        world: &mut impl Simulation,
        scene: &Path,
        scene_bytes: &[u8],
        steps: u64,
        hash_every: u32,
    ) -> Recording {
        Self::record_with_input(world, scene, scene_bytes, steps, hash_every, |_| {
            InputFrame::default()
        })
    }

    /// As [`Recording::record`], step `s` (from 0) reading `input(s)`.
    pub fn record_with_input(
        world: &mut impl Simulation,
        scene: &Path,
        scene_bytes: &[u8],
        steps: u64,
        hash_every: u32,
        mut input: impl FnMut(u64) -> InputFrame,
    ) -> Recording {
        let hash_every = hash_every.max(1);
        let mut hashes = Vec::with_capacity((steps / u64::from(hash_every)) as usize);
        let mut inputs = InputLog::default();
        for step in 1..=steps {
            let frame = input(step - 1);
            inputs.note(step - 1, &frame);
            world.set_input(frame);
            world.step();
            if step % u64::from(hash_every) == 0 {
                hashes.push(world.state_hash());
            }
        }
        Recording {
            version: RECORDING_VERSION,
            build: build_id(),
            game_build: game_build_id(),
            scene: scene.to_path_buf(),
            scene_hash: scene_hash(scene_bytes),
            step_ns: world.step_length().as_nanos() as u64,
            steps,
            hash_every,
            hashes,
            inputs,
        }
    }

    /// Runs `world` (loaded from the recording's scene) through the recorded
    /// steps and compares every hash; stops at the first difference.
    pub fn replay(&self, world: &mut impl Simulation) -> Verdict {
        world.set_step_length(std::time::Duration::from_nanos(self.step_ns));
        let every = u64::from(self.hash_every.max(1));
        let mut step = 0_u64;
        for want in &self.hashes {
            for s in step..step + every {
                world.set_input(self.inputs.at(s));
                world.step();
            }
            step += every;
            let got = world.state_hash();
            if got != *want {
                return Verdict::Diverged {
                    step,
                    parts: got.differing(want),
                };
            }
        }
        Verdict::Identical {
            steps: step,
            hashes: self.hashes.len(),
        }
    }

    /// What a replay of this recording should be told first: a scene file
    /// whose bytes changed since (`scene_bytes` are this run's), another
    /// build of the engine, another build of the game (`game_build`, this
    /// run's [`game_build_id`]; `program` names it), or a run recorded on the
    /// other side of a web page. Empty when all match.
    pub fn differences(&self, scene: &Path, scene_bytes: &[u8], program: &str) -> Vec<String> {
        self.differences_for_build(scene, scene_bytes, program, &game_build_id())
    }

    /// As [`Recording::differences`], for a program whose build is
    /// `game_build` (a web page's `NAME.wasm+HASH`, which
    /// [`game_build_id`] cannot read there). A recording made in a page and
    /// replayed natively, or the other way, is said to be so, with both
    /// builds: the two are different programs by nature, not a changed game.
    pub fn differences_for_build(
        &self,
        scene: &Path,
        scene_bytes: &[u8],
        program: &str,
        game_build: &str,
    ) -> Vec<String> {
        let mut out = Vec::new();
        let hash = scene_hash(scene_bytes);
        if hash != self.scene_hash {
            out.push(format!(
                "the scene changed since the recording: {} hashes {hash}, recorded {}",
                scene.display(),
                self.scene_hash
            ));
        }
        let build = build_id();
        if build != self.build {
            out.push(format!(
                "recorded by another build of the engine: {}, this is {build}",
                self.build
            ));
        }
        let recorded = self.game_build.as_str();
        if recorded.is_empty() || recorded == game_build {
            return out;
        }
        out.push(match (in_web_page(recorded), in_web_page(game_build)) {
            // A web page's recording from before pages named their build.
            _ if recorded == "unknown" => {
                format!("recorded by a build that could not name itself; this is {game_build}")
            }
            (true, false) => {
                format!("recorded in a web page by {recorded}; this is {game_build} (native)")
            }
            (false, true) => {
                format!("recorded natively by {recorded}; this is {game_build} (a web page)")
            }
            _ => {
                format!("recorded by another build of {program}: {recorded}, this is {game_build}")
            }
        });
        out
    }

    /// The recording as the text its file holds (RON).
    ///
    /// # Errors
    /// [`RecordingError::Parse`] naming `path` where a value has no text form
    /// (never expected).
    pub fn to_text(&self, path: &Path) -> Result<String, RecordingError> {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default()).map_err(|e| {
            RecordingError::Parse {
                path: path.to_path_buf(),
                message: e.to_string(),
            }
        })
    }

    /// Writes the recording (atomically).
    ///
    /// # Errors
    /// [`RecordingError::Io`] naming the file.
    pub fn write(&self, path: &Path) -> Result<(), RecordingError> {
        let text = self.to_text(path)?;
        files::write_atomically(path, text.as_bytes()).map_err(|source| RecordingError::Io {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Reads a recording.
    ///
    /// # Errors
    /// [`RecordingError`] naming the file (and the line of a parse error, or
    /// the field of a value no recording has: see [`Recording::check`]).
    /// It is read within `limits`' size for scene files, from their source
    /// (the disk, or a page's fetched files).
    pub fn read(path: &Path, limits: &ReadLimits) -> Result<Recording, RecordingError> {
        let bytes =
            files::read(path, FileKind::Scene, limits).map_err(|source| RecordingError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        let text = String::from_utf8_lossy(&bytes);
        let recording: Recording = ron::from_str(&text).map_err(|e| RecordingError::Parse {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        if !(1..=RECORDING_VERSION).contains(&recording.version) {
            return Err(RecordingError::Version {
                path: path.to_path_buf(),
                found: recording.version,
                expected: RECORDING_VERSION,
            });
        }
        recording.check(path)?;
        Ok(recording)
    }

    /// Refuses values no recording has: a `hash_every` of 0, a step outside
    /// `MIN_STEP_NS`..=`MAX_STEP_NS`, or a count of `hashes` other than
    /// `steps / hash_every` (a truncated file, or `steps` edited).
    ///
    /// # Errors
    /// [`RecordingError::InvalidValue`] naming `path` and the field.
    pub fn check(&self, path: &Path) -> Result<(), RecordingError> {
        let invalid = |field, expected: String, found: String| RecordingError::InvalidValue {
            path: path.to_path_buf(),
            field,
            expected,
            found,
        };
        if self.hash_every == 0 {
            return Err(invalid("hash_every", "at least 1".into(), "0".into()));
        }
        if !(MIN_STEP_NS..=MAX_STEP_NS).contains(&self.step_ns) {
            return Err(invalid(
                "step_ns",
                format!("a fixed step of {MIN_STEP_NS} to {MAX_STEP_NS} ns"),
                self.step_ns.to_string(),
            ));
        }
        let due = self.steps / u64::from(self.hash_every);
        if self.hashes.len() as u64 != due {
            return Err(invalid(
                "hashes",
                format!(
                    "{due} hashes (steps {} / hash_every {})",
                    self.steps, self.hash_every
                ),
                format!("{} hashes", self.hashes.len()),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded_by(game_build: &str) -> Recording {
        Recording {
            version: RECORDING_VERSION,
            build: build_id(),
            game_build: game_build.to_owned(),
            scene: PathBuf::from("s.ron"),
            scene_hash: scene_hash(b"scene"),
            step_ns: 16_666_667,
            steps: 0,
            hash_every: 1,
            hashes: Vec::new(),
            inputs: InputLog::default(),
        }
    }

    fn told(recorded: &str, this: &str) -> Vec<String> {
        recorded_by(recorded).differences_for_build(Path::new("s.ron"), b"scene", "harbour", this)
    }

    #[test]
    fn a_run_across_a_web_page_names_both_builds_and_where_each_ran() {
        assert_eq!(
            told("harbour.wasm+abcd", "harbour+ef01"),
            ["recorded in a web page by harbour.wasm+abcd; this is harbour+ef01 (native)"]
        );
        assert_eq!(
            told("harbour+ef01", "harbour.wasm+abcd"),
            ["recorded natively by harbour+ef01; this is harbour.wasm+abcd (a web page)"]
        );
        assert_eq!(
            told("harbour+0123", "harbour+ef01"),
            ["recorded by another build of harbour: harbour+0123, this is harbour+ef01"]
        );
        assert_eq!(
            told("harbour.wasm+0123", "harbour.wasm+abcd"),
            ["recorded by another build of harbour: harbour.wasm+0123, this is harbour.wasm+abcd"]
        );
        let old_page = told("unknown", "harbour+ef01");
        assert!(
            old_page.len() == 1 && !old_page[0].contains("another build"),
            "{old_page:?}"
        );
        assert!(told("harbour+ef01", "harbour+ef01").is_empty());
        assert!(told("", "harbour+ef01").is_empty(), "older recordings");
    }
}
