//! The editor's command line, read with `lexopt` as the player's is: `keel-editor [SCENE] [--frames N] [--screenshot OUT.png]
//! [--view-screenshot OUT.png] [--play]`.
//! `--frames` bounds the game loop, so the window can be driven from scripts and CI;
//! `--lose-device-at N` destroys the GPU device after frame N, to try the shell's recovery.

use std::ffi::OsString;
use std::path::PathBuf;

/// How many frames `--screenshot` renders when `--frames` is not given (egui
/// lays out a few frames before it settles).
pub const SCREENSHOT_FRAMES: u64 = 3;

/// The usage text.
pub const USAGE: &str = "usage: keel-editor [SCENE] [--frames N] [--screenshot OUT.png]
                   [--view-screenshot OUT.png] [--game-screenshot OUT.png]
                   [--size WxH] [--play]
                   [--autosave SECONDS] [--live CRATE]

  SCENE              scene file to open (RON)
  --frames N         render N frames, then exit
  --screenshot FILE  write the last frame of the window to a PNG file
                     (renders 3 frames unless --frames says otherwise)
  --view-screenshot FILE
                     write the last frame of the 3D view alone, as the
                     renderer drew it (same frame rule)
  --game-screenshot FILE
                     open the Game view and write its last frame, the scene
                     through its camera (same frame rule)
  --size WxH         the window's size in points (default 1600x900)
  --play             start simulating at once
  --autosave SECONDS write the recovery file of unsaved edits this often
                     (default 30)
  --live CRATE       a game's editor only: rebuild this editor when the
                     game crate in folder CRATE changes, and go on in the
                     new build with everything as it was (live mode)
  --resume FILE      start from the editing state a live build handed over
  --save-every N     every N frames rename the first root node (an unsaved
                     edit), and N/2 frames later save, printing `saving F` and
                     `saved F` (the crash tests kill the editor meanwhile)
  --lose-device-at N destroy the GPU device after frame N (to try how the
                     editor rebuilds its GPU objects and goes on)
  -h, --help         show this text";

/// Parsed arguments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cli {
    /// Scene to open.
    pub scene: Option<PathBuf>,
    /// Frames to render before exiting.
    pub frames: Option<u64>,
    /// Where to write the last frame.
    pub screenshot: Option<PathBuf>,
    /// Where to write the Scene view's last frame.
    pub view_screenshot: Option<PathBuf>,
    /// Where to write the Game view's last frame (the Game view is opened).
    pub game_screenshot: Option<PathBuf>,
    /// Start in play mode.
    pub play: bool,
    /// Destroy the GPU device after this frame.
    pub lose_device_at: Option<u64>,
    /// Time between autosaves of unsaved edits.
    pub autosave: Option<std::time::Duration>,
    /// Rename and save every this many frames.
    pub save_every: Option<u64>,
    /// The window's size in points (`--size 1280x720`).
    pub size: Option<[u32; 2]>,
    /// The game crate's folder live mode rebuilds from.
    pub live: Option<PathBuf>,
    /// A handover to start from.
    pub resume: Option<PathBuf>,
}

/// `WIDTHxHEIGHT`, each 64 to 16384 points.
fn window_size(text: &str) -> Option<[u32; 2]> {
    let (w, h) = text.split_once('x')?;
    let size = [w.parse().ok()?, h.parse().ok()?];
    size.iter()
        .all(|n| (64..=16_384).contains(n))
        .then_some(size)
}

/// A command line that can't be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CliError {
    /// `-h` or `--help`: not a failure, the caller prints [`USAGE`].
    #[error("help requested")]
    Help,
    /// An option this program doesn't know.
    #[error("unknown option `{flag}`")]
    UnknownFlag {
        /// The option.
        flag: String,
    },
    /// An option given without its value.
    #[error("`{flag}` needs a value")]
    MissingValue {
        /// The option.
        flag: String,
    },
    /// `--frames` (or another count) with something other than a positive whole
    /// number, or `--autosave` with something other than a positive number.
    #[error("`{flag}` expects a positive whole number, got `{value}`")]
    BadNumber {
        /// The option.
        flag: String,
        /// What was given.
        value: String,
    },
    /// `--size` with something other than `WIDTHxHEIGHT`.
    #[error("`--size` expects WIDTHxHEIGHT in points, each 64 to 16384 (1280x720), got `{value}`")]
    BadSize {
        /// What was given.
        value: String,
    },
    /// An argument the parser cannot read (a value given to an option that
    /// takes none, text that is not valid Unicode).
    #[error("{message}")]
    Malformed {
        /// What the parser said.
        message: String,
    },
    /// A second scene path.
    #[error("unexpected argument `{arg}` (only one scene can be opened)")]
    ExtraArgument {
        /// The argument.
        arg: String,
    },
}

impl From<lexopt::Error> for CliError {
    fn from(error: lexopt::Error) -> Self {
        match error {
            lexopt::Error::MissingValue { option: Some(flag) } => CliError::MissingValue { flag },
            lexopt::Error::UnexpectedOption(flag) => CliError::UnknownFlag { flag },
            other => CliError::Malformed {
                message: other.to_string(),
            },
        }
    }
}

impl Cli {
    /// Parses the arguments after the program name.
    ///
    /// # Errors
    /// A [`CliError`] naming the offending argument; [`CliError::Help`] for `--help`.
    pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Cli, CliError> {
        use lexopt::prelude::*;
        let mut cli = Cli::default();
        let mut parser = lexopt::Parser::from_args(args);
        while let Some(arg) = parser.next().map_err(CliError::from)? {
            let flag = match arg {
                Long(name) => format!("--{name}"),
                Short(c) => format!("-{c}"),
                Value(path) => {
                    if cli.scene.is_some() {
                        return Err(CliError::ExtraArgument {
                            arg: path.to_string_lossy().into_owned(),
                        });
                    }
                    cli.scene = Some(PathBuf::from(path));
                    continue;
                }
            };
            let mut value = || {
                parser
                    .value()
                    .map_err(|_| CliError::MissingValue { flag: flag.clone() })
            };
            let count = |text: OsString| {
                let text = text.to_string_lossy().into_owned();
                text.parse::<u64>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| CliError::BadNumber {
                        flag: flag.clone(),
                        value: text,
                    })
            };
            match flag.as_str() {
                "-h" | "--help" => return Err(CliError::Help),
                "--play" => cli.play = true,
                "--frames" => cli.frames = Some(count(value()?)?),
                "--save-every" => cli.save_every = Some(count(value()?)?),
                "--lose-device-at" => cli.lose_device_at = Some(count(value()?)?),
                "--autosave" => {
                    let v = value()?.to_string_lossy().into_owned();
                    match v.parse::<f64>() {
                        Ok(s) if s.is_finite() && s > 0.0 && s < 1e9 => {
                            cli.autosave = Some(std::time::Duration::from_secs_f64(s));
                        }
                        _ => {
                            return Err(CliError::BadNumber {
                                flag: flag.clone(),
                                value: v,
                            });
                        }
                    }
                }
                "--size" => {
                    let v = value()?.to_string_lossy().into_owned();
                    cli.size = Some(window_size(&v).ok_or(CliError::BadSize { value: v })?);
                }
                "--screenshot" => cli.screenshot = Some(PathBuf::from(value()?)),
                "--live" => cli.live = Some(PathBuf::from(value()?)),
                "--resume" => cli.resume = Some(PathBuf::from(value()?)),
                "--view-screenshot" => cli.view_screenshot = Some(PathBuf::from(value()?)),
                "--game-screenshot" => cli.game_screenshot = Some(PathBuf::from(value()?)),
                _ => return Err(CliError::UnknownFlag { flag: flag.clone() }),
            }
        }
        Ok(cli)
    }

    /// Frames to render before exiting: `--frames`, or a few for `--screenshot`, or unlimited.
    pub fn frame_limit(&self) -> Option<u64> {
        let shot = self.screenshot.is_some()
            || self.view_screenshot.is_some()
            || self.game_screenshot.is_some();
        self.frames.or_else(|| shot.then_some(SCREENSHOT_FRAMES))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, CliError> {
        Cli::parse(args.iter().map(OsString::from))
    }

    #[test]
    fn all_options_in_both_spellings() {
        let cli = parse(&[
            "scene.ron",
            "--frames",
            "5",
            "--screenshot=out.png",
            "--play",
            "--lose-device-at",
            "2",
            "--autosave=0.5",
            "--save-every",
            "8",
            "--live",
            "games/harbour",
            "--resume=h.ron",
        ])
        .unwrap();
        assert_eq!(
            cli,
            Cli {
                scene: Some("scene.ron".into()),
                frames: Some(5),
                screenshot: Some("out.png".into()),
                view_screenshot: None,
                game_screenshot: None,
                play: true,
                lose_device_at: Some(2),
                autosave: Some(std::time::Duration::from_millis(500)),
                save_every: Some(8),
                size: None,
                live: Some("games/harbour".into()),
                resume: Some("h.ron".into()),
            }
        );
        assert_eq!(cli.frame_limit(), Some(5));
        assert_eq!(
            parse(&["--size", "1280x720"]).unwrap().size,
            Some([1280, 720])
        );
        for bad in ["1280", "1280x", "x720", "12x720", "1280x720x2"] {
            assert_eq!(
                parse(&["--size", bad]),
                Err(CliError::BadSize { value: bad.into() }),
                "{bad}"
            );
        }
        let cli = parse(&["--screenshot", "a.png"]).unwrap();
        assert_eq!(cli.frame_limit(), Some(SCREENSHOT_FRAMES));
        let cli = parse(&["--view-screenshot=v.png"]).unwrap();
        assert_eq!(cli.view_screenshot, Some("v.png".into()));
        assert_eq!(cli.frame_limit(), Some(SCREENSHOT_FRAMES));
        assert_eq!(parse(&[]).unwrap().frame_limit(), None);
        assert_eq!(
            parse(&["--", "--odd.ron"]).unwrap().scene,
            Some("--odd.ron".into())
        );
    }

    #[test]
    fn mistakes_name_the_argument() {
        assert_eq!(
            parse(&["--frames", "zero"]),
            Err(CliError::BadNumber {
                flag: "--frames".into(),
                value: "zero".into()
            })
        );
        assert!(matches!(
            parse(&["--frames", "0"]),
            Err(CliError::BadNumber { .. })
        ));
        assert_eq!(
            parse(&["--frames"]),
            Err(CliError::MissingValue {
                flag: "--frames".into()
            })
        );
        assert_eq!(
            parse(&["--fast"]),
            Err(CliError::UnknownFlag {
                flag: "--fast".into()
            })
        );
        assert_eq!(
            parse(&["a.ron", "b.ron"]),
            Err(CliError::ExtraArgument {
                arg: "b.ron".into()
            })
        );
        assert_eq!(parse(&["-h"]), Err(CliError::Help));
        assert!(matches!(
            parse(&["--play=yes"]),
            Err(CliError::Malformed { .. })
        ));
        assert_eq!(
            parse(&["--save-every=0"]),
            Err(CliError::BadNumber {
                flag: "--save-every".into(),
                value: "0".into()
            })
        );
    }
}
