//! The viewer's command line (`keel-viewer`, and a game's own viewer built
//! with [`run_viewer`]): opens a scene in a window, renders it headless to a PNG,
//! soaks, records and replays it, with the game's plugins.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use crate::soak::{self, SoakOptions};
use crate::window::{PlayerError, PlayerOptions};
use keel_engine::files::ReadLimits;
use keel_engine::record::{Recording, Verdict};
use keel_engine::render::{PresentModeChoice, parse_backends};
use keel_engine::{Assets, Game, World};

/// Who runs the command line: the engine's viewer, or a game's player (its
/// own binary, named after it, with the viewer's debug keys off).
struct Program {
    /// The binary's name, which errors and the usage start with.
    name: String,
    /// A game's player ([`play`]) rather than `keel-viewer` ([`run_viewer`]).
    player: bool,
    /// The file and node limits, read from the environment once, here.
    limits: ReadLimits,
    /// The shader folder watched for hot reload, read from the environment
    /// once, here.
    shader_dir: PathBuf,
}

impl Program {
    fn new(player: bool) -> Self {
        let name = std::env::args_os()
            .next()
            .and_then(|arg0| {
                Path::new(&arg0)
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
            })
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| "keel-viewer".to_owned());
        Self {
            name,
            player,
            limits: ReadLimits::from_env(),
            shader_dir: keel_engine::assets::shaders::dir_from_env(),
        }
    }

    fn usage(&self) -> String {
        let name = &self.name;
        let pad = " ".repeat(name.len());
        let (no_scene, keys) = if self.player {
            (
                "With no SCENE, plays the game's own scene. Every key, the mouse and the\n\
                 gamepads go to the game. --debug-keys turns the viewer's keys on (they then\n\
                 go to the viewer, not the game): C free look (mouse drag orbits, shift or\n\
                 middle button pans, wheel zooms, Tab the fly camera with WASD, Q/E), Space\n\
                 pauses, '.' steps one fixed update, G grid, B bounding boxes, O octree cells,\n\
                 R nodes recomputed by the dirty flag, Esc quits.",
                "\n                   [--debug-keys]",
            )
        } else {
            (
                "With no SCENE, opens the bundled demo scene. Keys: C free look (mouse drag\n\
                 orbits, shift or middle button pans, wheel zooms, Tab toggles the fly camera,\n\
                 WASD, Q/E), Space pauses, '.' steps one fixed update, G grid, B bounding\n\
                 boxes, O octree cells, R nodes recomputed by the dirty flag, Esc quits; these\n\
                 keys go to the viewer, every other key to the scene's game.",
                "",
            )
        };
        format!(
            "\
usage: {name} [SCENE] [--headless] [--frames N] [--size WxH] [--screenshot OUT.png]
       {pad} [--backend vulkan|gl|metal|dx12|all] [--present fifo|mailbox|immediate]
       {pad} [--fps-cap N] [--profile] [--cpu-culling] [--lose-device-at N]{keys}
       {name} [SCENE] --benchmark [--frames N] [--size WxH] [--cpu-culling] [--backend ...]
       {name} [SCENE] --soak MINUTES [--seed N]
       {name} [SCENE] --record FILE [--steps N] [--hash-every N] [--input-of REC]
       {name} [SCENE] --record FILE --play
       {name} --replay FILE [SCENE]

{no_scene}

--profile times every frame (the fixed step and each system, propagation, extraction,
culling, each render pass on the CPU and, where the adapter has timestamp queries, on
the GPU) and prints where the time went when the window closes. Off by default.

--lose-device-at N destroys the GPU device after the window's frame N, to try how the
viewer makes its drawing again on a new device and goes on.

--benchmark renders the scene offscreen (no window, no vsync) at a fixed step of 1/60 s
a frame for N frames (default 300) after a warm-up, waiting for the GPU after each, and
prints one JSON line: the median, p99 and mean of the CPU's frame time (and its step,
extraction and rendering), and of each pass on the GPU where the adapter has timestamp
queries. assets/stress/ holds 100,000 and 1,000,000 cubes, 1% of them orbiting.
--cpu-culling (with any mode that draws) culls and packs the camera's meshes on the CPU
each frame (the reference path) instead of culling the retained scene on the GPU, to
compare the two.

--soak runs the scene headless (no GPU) for MINUTES under a chaos system that spawns,
despawns, reparents and edits nodes every fixed step, checks every invariant, and fails
when resident memory keeps growing after the warm-up.

--record runs the scene headless for N fixed steps (default 3600, a minute at 60 Hz)
and writes FILE: the scene's content hash, the engine's and the game's builds, and the
world's hash every --hash-every steps (default 1). With --input-of REC, every step reads
the input that step read in the recording REC (a run played in a web page or by
another build, recorded again here; N defaults to REC's steps). With --play, the scene is played in
the window instead and every fixed step's input (keys, mouse, gamepads) is recorded:
FILE is written when the window closes. --replay runs the recorded scene (or SCENE)
again and prints \"identical\" or the first step whose world differs (exit code 1),
then the game's HUD text at the end; a changed scene, engine build or game build is
reported first. Recordings cross platforms: one made in the web player replays here,
and one made here replays in the page (?replay=FILE)."
        )
    }
}

/// What the command line asked for.
enum Mode {
    View(PlayerOptions),
    Benchmark(PlayerOptions),
    Soak {
        scene: PathBuf,
        options: Box<SoakOptions>,
    },
    Record {
        scene: PathBuf,
        out: PathBuf,
        steps: Option<u64>,
        hash_every: u32,
        /// A recording whose steps' input the steps read.
        input_of: Option<PathBuf>,
    },
    Replay {
        file: PathBuf,
        scene: Option<PathBuf>,
    },
    /// `--help`: the usage, on standard output.
    Help,
}

fn demo_scene() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes/demo.ron")
}

fn parse_size(text: &str) -> Option<(u32, u32)> {
    let (w, h) = text.split_once(['x', 'X'])?;
    let size = (w.parse().ok()?, h.parse().ok()?);
    (size.0 > 0 && size.1 > 0).then_some(size)
}

fn parse_args(default_scene: PathBuf, game: &Game, program: &Program) -> Result<Mode, String> {
    use lexopt::prelude::*;
    let mut options = PlayerOptions {
        scene: default_scene,
        game: game.clone(),
        headless: false,
        frames: None,
        size: (1280, 720),
        screenshot: None,
        backends: wgpu::Backends::all(),
        present: PresentModeChoice::default(),
        fps_cap: None,
        record: None,
        profile: false,
        debug_keys: !program.player,
        limits: program.limits.clone(),
        shader_dir: Some(program.shader_dir.clone()),
        cpu_culling: false,
        lose_device_at: None,
    };
    let mut play = false;
    let mut benchmark = false;
    let mut parser = lexopt::Parser::from_env();
    let mut scene_given = false;
    let mut soak_minutes: Option<f64> = None;
    let mut seed: Option<u64> = None;
    let (mut record, mut replay) = (None, None);
    let (mut steps, mut hash_every) = (None, None);
    let mut input_of = None;
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        let value = |parser: &mut lexopt::Parser| -> Result<String, String> {
            parser
                .value()
                .map_err(|e| e.to_string())?
                .into_string()
                .map_err(|v| format!("not valid text: {v:?}"))
        };
        match arg {
            Long("headless") => options.headless = true,
            Long("profile") => options.profile = true,
            Long("benchmark") => benchmark = true,
            Long("cpu-culling") => options.cpu_culling = true,
            Long("debug-keys") if program.player => options.debug_keys = true,
            Long("frames") => {
                let v = value(&mut parser)?;
                options.frames = Some(
                    v.parse()
                        .ok()
                        .filter(|&n: &u32| n > 0)
                        .ok_or(format!("--frames: expected a whole number > 0, got `{v}`"))?,
                );
            }
            Long("lose-device-at") => {
                let v = value(&mut parser)?;
                options.lose_device_at = Some(v.parse().ok().filter(|&n: &u64| n > 0).ok_or(
                    format!("--lose-device-at: expected a whole number > 0, got `{v}`"),
                )?);
            }
            Long("size") => {
                let v = value(&mut parser)?;
                options.size =
                    parse_size(&v).ok_or(format!("--size: expected WIDTHxHEIGHT, got `{v}`"))?;
            }
            Long("screenshot") => options.screenshot = Some(PathBuf::from(value(&mut parser)?)),
            Long("backend") => {
                options.backends =
                    parse_backends(&value(&mut parser)?).map_err(|e| e.to_string())?;
            }
            Long("present") => {
                options.present = match value(&mut parser)?.as_str() {
                    "fifo" => PresentModeChoice::Fifo,
                    "mailbox" => PresentModeChoice::Mailbox,
                    "immediate" => PresentModeChoice::Immediate,
                    other => {
                        return Err(format!(
                            "--present: expected fifo, mailbox or immediate, got `{other}`"
                        ));
                    }
                };
            }
            Long("fps-cap") => {
                let v = value(&mut parser)?;
                options.fps_cap = Some(
                    v.parse()
                        .map_err(|_| format!("--fps-cap: expected a number, got `{v}`"))?,
                );
            }
            Long("soak") => {
                let v = value(&mut parser)?;
                soak_minutes = Some(
                    v.parse()
                        .ok()
                        .filter(|m: &f64| m.is_finite() && *m > 0.0 && *m < 1e6)
                        .ok_or(format!(
                            "--soak: expected a number of minutes > 0, got `{v}`"
                        ))?,
                );
            }
            Long("seed") => {
                let v = value(&mut parser)?;
                seed = Some(
                    v.parse()
                        .map_err(|_| format!("--seed: expected a whole number, got `{v}`"))?,
                );
            }
            Long("record") => record = Some(PathBuf::from(value(&mut parser)?)),
            Long("play") => play = true,
            Long("input-of") => input_of = Some(PathBuf::from(value(&mut parser)?)),
            Long("replay") => replay = Some(PathBuf::from(value(&mut parser)?)),
            Long("steps") => {
                let v = value(&mut parser)?;
                steps = Some(
                    v.parse()
                        .ok()
                        .filter(|n: &u64| *n > 0)
                        .ok_or(format!("--steps: expected a whole number > 0, got `{v}`"))?,
                );
            }
            Long("hash-every") => {
                let v = value(&mut parser)?;
                hash_every = Some(v.parse().ok().filter(|n: &u32| *n > 0).ok_or(format!(
                    "--hash-every: expected a whole number > 0, got `{v}`"
                ))?);
            }
            Short('h') | Long("help") => return Ok(Mode::Help),
            Value(path) if !scene_given => {
                options.scene = PathBuf::from(path);
                scene_given = true;
            }
            other => return Err(other.unexpected().to_string()),
        }
    }
    if benchmark {
        if replay.is_some() || record.is_some() || soak_minutes.is_some() {
            return Err("--benchmark runs alone: no --record, --replay or --soak".into());
        }
        return Ok(Mode::Benchmark(options));
    }
    if let Some(file) = replay {
        return Ok(Mode::Replay {
            file,
            scene: scene_given.then_some(options.scene),
        });
    }
    if play {
        let Some(out) = record else {
            return Err("--play applies to --record only".into());
        };
        if steps.is_some() || hash_every.is_some() || input_of.is_some() || options.headless {
            return Err(
                "--record --play records a window: no --steps, --hash-every, \
                 --input-of or --headless"
                    .into(),
            );
        }
        options.record = Some(out);
        return Ok(Mode::View(options));
    }
    if let Some(out) = record {
        return Ok(Mode::Record {
            scene: options.scene,
            out,
            steps,
            hash_every: hash_every.unwrap_or(1),
            input_of,
        });
    }
    if steps.is_some() || hash_every.is_some() || input_of.is_some() {
        return Err("--steps, --hash-every and --input-of apply to --record only".into());
    }
    match soak_minutes {
        Some(minutes) => {
            let mut soak = SoakOptions::new(Duration::from_secs_f64(minutes * 60.0));
            if let Some(seed) = seed {
                soak.seed = seed;
            }
            Ok(Mode::Soak {
                scene: options.scene,
                options: Box::new(soak),
            })
        }
        None if seed.is_some() => Err("--seed applies to --soak only".into()),
        None => Ok(Mode::View(options)),
    }
}

/// Runs a soak and prints its progress and report; failure is exit code 1.
fn run_soak(scene: &Path, options: &SoakOptions, game: &Game, program: &Program) -> ExitCode {
    let world = match game.load(scene, &Assets::with_limits(program.limits.clone())) {
        Ok(world) => world,
        Err(error) => {
            eprintln!("{}: {error}", program.name);
            return ExitCode::from(2);
        }
    };
    println!(
        "soak: {} for {:.1} min, seed {}, warm-up {:.0} s, growth limit {} MB",
        scene.display(),
        options.duration.as_secs_f64() / 60.0,
        options.seed,
        options.warm_up.as_secs_f64(),
        options.growth_limit >> 20
    );
    match soak::run(world, options, |report| println!("soak: {report}")) {
        Ok(report) => {
            println!("soak passed: {report}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("{}: soak failed: {error}", program.name);
            match &error {
                soak::SoakError::Invariant { report, .. }
                | soak::SoakError::MemoryGrowth { report, .. } => {
                    eprintln!("{}: soak so far: {report}", program.name);
                }
                soak::SoakError::Model(_) => {}
            }
            ExitCode::FAILURE
        }
    }
}

/// Loads a scene for a recording or a replay: its bytes (for the content hash) and its world.
fn load_world(scene: &Path, game: &Game, program: &Program) -> Result<(Vec<u8>, World), ExitCode> {
    let assets = Assets::with_limits(program.limits.clone());
    let loaded =
        keel_engine::files::read(scene, keel_engine::files::FileKind::Scene, assets.limits())
            .map_err(|e| format!("{}: {e}", scene.display()))
            .and_then(|bytes| Ok((bytes, game.load(scene, &assets).map_err(|e| e.to_string())?)));
    match loaded {
        Ok((bytes, world)) => Ok((bytes, world)),
        Err(message) => {
            eprintln!("{}: {message}", program.name);
            Err(ExitCode::from(2))
        }
    }
}

fn run_record(
    scene: &Path,
    out: &Path,
    (steps, hash_every): (Option<u64>, u32),
    input_of: Option<&Path>,
    game: &Game,
    program: &Program,
) -> ExitCode {
    let inputs = match input_of.map(|file| Recording::read(file, &program.limits)) {
        Some(Ok(recording)) => Some(recording),
        Some(Err(error)) => {
            eprintln!("{}: {error}", program.name);
            return ExitCode::from(2);
        }
        None => None,
    };
    let steps = steps.unwrap_or(inputs.as_ref().map_or(3600, |r| r.steps));
    let (bytes, mut world) = match load_world(scene, game, program) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let started = std::time::Instant::now();
    let recording = match &inputs {
        Some(played) => {
            keel_engine::record::Simulation::set_step_length(
                &mut world,
                Duration::from_nanos(played.step_ns),
            );
            Recording::record_with_input(&mut world, scene, &bytes, steps, hash_every, |s| {
                played.inputs.at(s)
            })
        }
        None => Recording::record(&mut world, scene, &bytes, steps, hash_every),
    };
    if let Some(panic) = world.system_panic() {
        eprintln!("{}: {panic}", program.name);
        return ExitCode::from(2);
    }
    if let Err(error) = recording.write(out) {
        eprintln!("{}: {error}", program.name);
        return ExitCode::FAILURE;
    }
    println!(
        "recorded {steps} steps of {} in {:.2} s ({} hashes) to {}",
        scene.display(),
        started.elapsed().as_secs_f64(),
        recording.hashes.len(),
        out.display()
    );
    ExitCode::SUCCESS
}

fn run_replay(file: &Path, scene: Option<&Path>, game: &Game, program: &Program) -> ExitCode {
    let recording = match Recording::read(file, &program.limits) {
        Ok(r) => r,
        Err(error) => {
            eprintln!("{}: {error}", program.name);
            return ExitCode::from(2);
        }
    };
    let scene = scene.unwrap_or(&recording.scene);
    let (bytes, mut world) = match load_world(scene, game, program) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    for difference in recording.differences(scene, &bytes, &program.name) {
        println!("{difference}");
    }
    let verdict = recording.replay(&mut world);
    if let Some(panic) = world.system_panic() {
        eprintln!("{}: {panic}", program.name);
        return ExitCode::from(2);
    }
    println!("{verdict}");
    if let Some(hud) = world.resource::<keel_engine::Hud>() {
        println!("hud: {}", hud.text);
    }
    match verdict {
        Verdict::Identical { .. } => ExitCode::SUCCESS,
        Verdict::Diverged { .. } => ExitCode::FAILURE,
    }
}

/// Runs the viewer's command line with `game`'s plugins (`keel-viewer` is
/// `keel_player::run_viewer(Game::new())`): the viewer's keys are on.
/// A game's own binary calls [`play`] instead.
///
/// Exit codes: 0 done, 1 a failed check (soak, replay) or a runtime error,
/// 2 bad input (command line, scene file, a plugin, a user system that panicked).
pub fn run_viewer(game: Game) -> ExitCode {
    run_viewer_with_scene(game, demo_scene())
}

/// As [`run_viewer`], opening `default_scene` when the command line names none.
pub fn run_viewer_with_scene(game: Game, default_scene: PathBuf) -> ExitCode {
    run(game, default_scene, &Program::new(false))
}

/// A game's player: `fn main() -> ExitCode { keel_player::play(game(),
/// scene_path()) }`. The viewer's command line under the binary's own name
/// (errors and `--help` say it), opening `scene` when none is named; every
/// key goes to the game, the viewer's debug keys only with `--debug-keys`.
/// Exit codes as [`run_viewer`].
pub fn play(game: Game, scene: PathBuf) -> ExitCode {
    run(game, scene, &Program::new(true))
}

fn run(game: Game, default_scene: PathBuf, program: &Program) -> ExitCode {
    env_logger::Builder::from_env(
        env_logger::Env::default().default_filter_or("warn,keel_engine=info"),
    )
    .init();
    keel_engine::join_pool();
    let options = match parse_args(default_scene, &game, program) {
        Ok(Mode::View(options)) => options,
        Ok(Mode::Benchmark(options)) => {
            let result = crate::benchmark::run(&options).map(|report| {
                let line = serde_json::to_string(&report).expect("numbers and text print as JSON");
                println!("{line}");
            });
            return exit_code(result, program);
        }
        Ok(Mode::Soak { scene, options }) => return run_soak(&scene, &options, &game, program),
        Ok(Mode::Record {
            scene,
            out,
            steps,
            hash_every,
            input_of,
        }) => {
            return run_record(
                &scene,
                &out,
                (steps, hash_every),
                input_of.as_deref(),
                &game,
                program,
            );
        }
        Ok(Mode::Replay { file, scene }) => {
            return run_replay(&file, scene.as_deref(), &game, program);
        }
        Ok(Mode::Help) => {
            println!("{}", program.usage());
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("{}: {message}", program.name);
            eprintln!("{}", program.usage());
            return ExitCode::from(2);
        }
    };
    let result = if options.headless {
        super::render_headless(&options).map(|_| ())
    } else {
        super::run_windowed(options)
    };
    exit_code(result, program)
}

/// The exit code of a run of the viewer, its error printed.
fn exit_code(result: Result<(), PlayerError>, program: &Program) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A scene the engine refuses, or GPU work the device refused: the input's fault, code 2.
        Err(
            error @ (PlayerError::Scene(_)
            | PlayerError::Gpu(_)
            | PlayerError::Game(_)
            | PlayerError::System(_)),
        ) => {
            eprintln!("{}: {error}", program.name);
            ExitCode::from(2)
        }
        Err(error) => {
            eprintln!("{}: {error}", program.name);
            ExitCode::FAILURE
        }
    }
}
