//! Soak: a world run for a long time under a chaos system that churns its
//! structure every fixed step, with every invariant checked as it goes and
//! the process's memory watched for growth.
//!
//! The chaos system is an ordinary user system. Each step it spawns nodes
//! (plain, with meshes, point lights, particle emitters, and now and then a
//! whole glTF model instance, an animated rig with an animator, or a prefab
//! instance whose parts it then edits into overrides), despawns subtrees
//! (directly and through the command buffer), reparents subtrees, edits
//! transforms and materials and starts and stops animators,
//! keeping its own nodes around a target count so the world reaches a steady
//! size. After the step the runner extracts a frame the way the viewer does,
//! and checks the scene's storage, the spatial index against the scene, the
//! particle pool's bounds and that no world transform is NaN.
//!
//! Memory: resident size is sampled through the run; after the warm-up it
//! must stay within [`SoakOptions::growth_limit`] of the size at the end of
//! the warm-up. `keel-viewer --soak MINUTES` runs this on a scene (the demo
//! by default) and prints the report.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use glam::{Quat, Vec3, Vec4};

use keel_engine::assets::Model;
use keel_engine::particles::FloatRange;
use keel_engine::record::RecordSettings;
use keel_engine::{
    Animator, CameraRig, Commands, Emitter, Extractor, Keep, Light, LightKind, Material, MeshRef,
    MeshRenderer, NodeId, Overlays, Primitive, Scene, SplitMix64, StepContext, Transform, World,
};

/// How long and how hard to soak.
#[derive(Clone, Debug)]
pub struct SoakOptions {
    /// Wall-clock time to run for.
    pub duration: Duration,
    /// Stop after this many steps, if sooner (tests).
    pub max_steps: Option<u64>,
    /// Seed of the chaos system's choices (the same seed makes the same edits).
    pub seed: u64,
    /// Nodes of the chaos system's own kept alive, about.
    pub churn_nodes: usize,
    /// The time after which memory must stop growing.
    pub warm_up: Duration,
    /// Bytes the resident size may grow past its size at the end of the warm-up.
    pub growth_limit: u64,
    /// Check every invariant after every this many steps.
    pub check_every: u64,
    /// A glTF model the chaos system instances now and then.
    pub model: Option<PathBuf>,
    /// An animated glTF model the chaos system instances with an animator.
    pub rig: Option<PathBuf>,
    /// A prefab the chaos system instances (and edits the parts of).
    pub prefab: Option<PathBuf>,
    /// Record every step, and every this many steps seek back into the
    /// recording and go on from there (a branch); `None`: no recording.
    pub seek_every: Option<u64>,
}

impl SoakOptions {
    /// A soak of `duration` with a warm-up of a fifth of it (at least 10 s,
    /// at most 2 minutes), 2,000 churned nodes and 32 MB of allowed growth.
    pub fn new(duration: Duration) -> Self {
        let assets = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets");
        Self {
            duration,
            max_steps: None,
            seed: 0x50A4,
            churn_nodes: 2_000,
            warm_up: (duration / 5).clamp(Duration::from_secs(10), Duration::from_secs(120)),
            growth_limit: 32 << 20,
            check_every: 10,
            model: Some(assets.join("models/lighthouse.glb")),
            rig: Some(assets.join("models/Fox.glb")),
            prefab: Some(assets.join("prefabs/boat.ron")),
            seek_every: Some(500),
        }
    }
}

/// What a soak did and how memory behaved.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SoakReport {
    /// Fixed steps run.
    pub steps: u64,
    /// Wall-clock time run.
    pub elapsed: Duration,
    /// Nodes spawned by the chaos system (model parts counted).
    pub spawned: u64,
    /// Nodes despawned (subtrees counted whole).
    pub despawned: u64,
    /// Subtrees moved to a new parent.
    pub reparented: u64,
    /// Reparents refused because the new parent was inside the subtree.
    pub refused_reparents: u64,
    /// Transform and material edits.
    pub edits: u64,
    /// glTF model instances made.
    pub models: u64,
    /// Animated rigs made (each with an animator).
    pub rigs: u64,
    /// Animators started or stopped.
    pub animator_toggles: u64,
    /// Prefab instances made.
    pub prefabs: u64,
    /// Seeks back into the recording (each followed by a new branch).
    pub seeks: u64,
    /// Full invariant checks passed.
    pub checks: u64,
    /// Nodes in the scene now.
    pub nodes: usize,
    /// Most nodes the scene held at once.
    pub peak_nodes: usize,
    /// Live particles now.
    pub particles: usize,
    /// Resident bytes at the start (where the OS tells).
    pub rss_start: Option<u64>,
    /// Resident bytes at the end of the warm-up.
    pub rss_warm: Option<u64>,
    /// Most resident bytes seen after the warm-up.
    pub rss_peak: Option<u64>,
    /// Resident bytes at the end.
    pub rss_end: Option<u64>,
}

impl SoakReport {
    /// Structural edits: spawns, despawns and reparents.
    pub fn structural_edits(&self) -> u64 {
        self.spawned + self.despawned + self.reparented
    }
}

impl std::fmt::Display for SoakReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mb =
            |b: Option<u64>| b.map_or("?".to_string(), |b| format!("{:.1} MB", b as f64 / 1e6));
        write!(
            f,
            "{} steps in {:.0} s ({:.0} steps/s); {} structural edits ({} spawned, {} despawned, \
             {} reparented, {} reparents refused), {} transform/material edits, {} models, \
             {} rigs ({} animator starts/stops), {} prefab instances, {} seeks; \
             {} checks passed; nodes {} (peak {}), particles {}; memory: start {}, after warm-up {}, \
             peak after warm-up {}, end {}",
            self.steps,
            self.elapsed.as_secs_f64(),
            self.steps as f64 / self.elapsed.as_secs_f64().max(1e-9),
            self.structural_edits(),
            self.spawned,
            self.despawned,
            self.reparented,
            self.refused_reparents,
            self.edits,
            self.models,
            self.rigs,
            self.animator_toggles,
            self.prefabs,
            self.seeks,
            self.checks,
            self.nodes,
            self.peak_nodes,
            self.particles,
            mb(self.rss_start),
            mb(self.rss_warm),
            mb(self.rss_peak),
            mb(self.rss_end),
        )
    }
}

/// Why a soak failed.
#[derive(Debug, thiserror::Error)]
pub enum SoakError {
    /// An invariant broke.
    #[error("step {step}: {what}: {message}")]
    Invariant {
        /// The step after which the check failed.
        step: u64,
        /// Which structure.
        what: &'static str,
        /// The broken invariant.
        message: String,
        /// The run so far.
        report: Box<SoakReport>,
    },
    /// Resident memory grew past the limit after the warm-up.
    #[error(
        "step {step}: resident memory grew from {warm} to {now} bytes after the warm-up, over the {limit}-byte limit"
    )]
    MemoryGrowth {
        /// The step of the sample.
        step: u64,
        /// Resident bytes at the end of the warm-up.
        warm: u64,
        /// Resident bytes now.
        now: u64,
        /// The allowed growth.
        limit: u64,
        /// The run so far.
        report: Box<SoakReport>,
    },
    /// The chaos system's model could not be loaded.
    #[error(transparent)]
    Model(#[from] keel_engine::assets::ModelError),
}

/// The recording's byte budget when the soak seeks: small, so the ring of
/// keyframes fills early and memory is flat after the warm-up.
const SEEK_BUDGET: usize = 4 << 20;

/// Resident bytes of this process (Linux; `None` elsewhere).
pub fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// The chaos system's state: its random stream, its nodes and its counts.
struct Chaos {
    rng: SplitMix64,
    /// Nodes it spawned (some may have died with a despawned ancestor).
    made: Vec<NodeId>,
    /// The scene's own nodes at the start: parents and edit targets, never despawned.
    original: Vec<NodeId>,
    target: usize,
    model: Option<Arc<Model>>,
    rig: Option<Arc<Model>>,
    prefab: Option<PathBuf>,
    report: SoakReport,
}

impl Chaos {
    fn next(&mut self) -> u64 {
        self.rng.next_u64()
    }

    fn below(&mut self, n: usize) -> usize {
        self.rng.below(n as u64) as usize
    }

    fn unit(&mut self) -> f32 {
        self.rng.unit()
    }

    fn signed(&mut self) -> f32 {
        self.unit() * 2.0 - 1.0
    }

    /// A live node of its own, dropping dead ones it meets.
    fn pick_made(&mut self, scene: &Scene) -> Option<NodeId> {
        while !self.made.is_empty() {
            let i = self.below(self.made.len());
            if scene.contains(self.made[i]) {
                return Some(self.made[i]);
            }
            self.made.swap_remove(i);
        }
        None
    }

    fn pick_original(&mut self, scene: &Scene) -> Option<NodeId> {
        let i = self.below(self.original.len());
        self.original.get(i).copied().filter(|&n| scene.contains(n))
    }

    fn pick_parent(&mut self, scene: &Scene) -> Option<NodeId> {
        match self.below(4) {
            0 => None,
            1 => self.pick_original(scene),
            _ => self.pick_made(scene),
        }
    }

    fn step(&mut self, scene: &mut Scene, commands: &mut Commands, ctx: &StepContext) {
        let live = self.made.len();
        let spawns = 1 + self.below(if live < self.target { 6 } else { 3 });
        for _ in 0..spawns {
            self.spawn(scene, ctx);
        }
        let despawns = if live > self.target {
            1 + self.below(3)
        } else {
            self.below(2)
        };
        for i in 0..despawns {
            if let Some(node) = self.pick_made(scene) {
                if i % 2 == 0 {
                    // Deferred: the command buffer applies it after the step's systems.
                    commands.despawn(node);
                } else if let Ok(count) = scene.despawn(node) {
                    self.report.despawned += count as u64;
                }
            }
        }
        for _ in 0..2 {
            self.reparent(scene);
        }
        for _ in 0..8 {
            self.edit(scene);
        }
    }

    fn spawn(&mut self, scene: &mut Scene, ctx: &StepContext) {
        let parent = self.pick_parent(scene);
        let at = Transform::from_translation(Vec3::new(
            self.signed() * 40.0,
            self.unit() * 10.0,
            self.signed() * 40.0,
        ))
        .with_rotation(Quat::from_rotation_y(self.signed() * 3.0));
        let kind = self.below(64);
        let name = format!("chaos {}", ctx.index);
        let Ok(node) = scene.spawn(parent, name, at) else {
            return;
        };
        self.report.spawned += 1;
        self.made.push(node);
        let color = Vec4::new(self.unit(), self.unit(), self.unit(), 1.0);
        // Inserting into a live node cannot fail: the results are ignored.
        match kind {
            0..=23 => {
                let mesh = [Primitive::Cube, Primitive::Sphere, Primitive::Cylinder][kind % 3];
                let material = Material {
                    base_color: color,
                    ..Material::default()
                };
                let _ = scene.insert(
                    node,
                    MeshRenderer {
                        cast_shadows: true,
                        mesh: MeshRef::from(mesh),
                        material,
                    },
                );
            }
            24..=29 => {
                let range = 1.0 + self.unit() * 10.0;
                let intensity = self.unit() * 3.0;
                let _ = scene.insert(
                    node,
                    Light {
                        kind: LightKind::Point { range },
                        color: color.truncate(),
                        intensity,
                        cast_shadows: false,
                    },
                );
            }
            30..=33 => {
                let emitter = Emitter {
                    rate: 5.0 + self.unit() * 20.0,
                    lifetime: FloatRange::new(0.3, 1.0),
                    seed: self.next(),
                    ..Emitter::default()
                };
                let _ = scene.insert(node, emitter);
            }
            34 => {
                if let Some(model) = self.model.clone() {
                    let before = scene.len();
                    if scene.instantiate_model(node, &model).is_ok() {
                        self.report.models += 1;
                        self.report.spawned += (scene.len() - before) as u64;
                    }
                }
            }
            35 => {
                if let Some(rig) = self.rig.clone() {
                    let before = scene.len();
                    if scene.instantiate_model(node, &rig).is_ok() {
                        let clips = &rig.data.animations;
                        if !clips.is_empty() {
                            let clip = &clips[self.below(clips.len())].name;
                            let _ = scene.insert(node, Animator::new(clip.clone()));
                        }
                        self.report.rigs += 1;
                        self.report.spawned += (scene.len() - before) as u64;
                    }
                }
            }
            36 => {
                if let Some(prefab) = self.prefab.clone() {
                    let before = scene.len();
                    if let Ok(instance) = scene.spawn_prefab(Some(node), "prefab", at, &prefab) {
                        self.report.prefabs += 1;
                        self.report.spawned += (scene.len() - before) as u64;
                        // Its parts are edited later like any node: overrides.
                        self.made.extend(scene.children(instance));
                    }
                }
            }
            _ => {}
        }
    }

    fn reparent(&mut self, scene: &mut Scene) {
        let Some(node) = self.pick_made(scene) else {
            return;
        };
        let parent = self.pick_parent(scene);
        let keep = if self.below(2) == 0 {
            Keep::World
        } else {
            Keep::Local
        };
        match scene.reparent(node, parent, keep) {
            Ok(()) => self.report.reparented += 1,
            Err(_) => self.report.refused_reparents += 1,
        }
    }

    fn edit(&mut self, scene: &mut Scene) {
        let node = if self.below(4) == 0 {
            self.pick_original(scene)
        } else {
            self.pick_made(scene)
        };
        let Some(node) = node else {
            return;
        };
        if let Some(animator) = scene.get_mut::<Animator>(node) {
            animator.playing = !animator.playing;
            self.report.animator_toggles += 1;
            return;
        }
        if let Some(mesh) = scene.get_mut::<MeshRenderer>(node)
            && self.below(2) == 0
        {
            mesh.material.base_color = Vec4::new(self.unit(), self.unit(), self.unit(), 1.0);
            self.report.edits += 1;
            return;
        }
        let Some(mut local) = scene.local(node) else {
            return;
        };
        // Small nudges, pulled back toward the origin so nothing drifts to infinity.
        let nudge = Vec3::new(self.signed(), self.signed(), self.signed()) * 0.1;
        local.translation = local.translation * 0.999 + nudge;
        local.rotation = (Quat::from_rotation_y(self.signed() * 0.1) * local.rotation).normalize();
        if scene.set_local(node, local).is_ok() {
            self.report.edits += 1;
        }
    }
}

/// Checks everything the soak promises after a step.
fn check(world: &World) -> Result<(), (&'static str, String)> {
    world
        .scene()
        .check_consistency()
        .map_err(|m| ("scene", m))?;
    world
        .index()
        .check(world.scene())
        .map_err(|m| ("spatial index", m))?;
    let pool = world.particles().pool();
    if pool.len() > pool.capacity() {
        return Err((
            "particle pool",
            format!("{} particles in a pool of {}", pool.len(), pool.capacity()),
        ));
    }
    let ages = pool.ages().iter().zip(pool.lifetimes());
    if let Some((i, (age, life))) = ages
        .enumerate()
        .find(|(_, (a, l))| !(a.is_finite() && **a >= 0.0 && l.is_finite() && a <= l))
    {
        return Err((
            "particle pool",
            format!("particle {i}: age {age} of {life}"),
        ));
    }
    if let Some(i) = pool.positions().iter().position(|p| !p.is_finite()) {
        return Err((
            "particle pool",
            format!("particle {i} at {:?}", pool.positions()[i]),
        ));
    }
    Ok(())
}

/// Runs `world` under the chaos system for `options.duration` (or
/// `options.max_steps`), calling `progress` about every ten seconds.
///
/// # Errors
/// The first broken invariant or memory growth past the limit, with the report so far.
pub fn run(
    mut world: World,
    options: &SoakOptions,
    mut progress: impl FnMut(&SoakReport),
) -> Result<SoakReport, SoakError> {
    let assets = world.scene().assets().clone();
    let model = options
        .model
        .as_deref()
        .map(|p| assets.load_model(p))
        .transpose()?;
    let rig = options
        .rig
        .as_deref()
        .map(|p| assets.load_model(p))
        .transpose()?;
    if let Some(every) = options.seek_every {
        world.start_recording(RecordSettings {
            budget_bytes: SEEK_BUDGET,
            ..RecordSettings::default()
        });
        debug_assert!(every > 0);
    }
    let mut seeker = SplitMix64::new(options.seed ^ 0x5EE4);
    let chaos = Arc::new(Mutex::new(Chaos {
        rng: SplitMix64::new(options.seed),
        made: Vec::new(),
        original: world.scene().nodes().collect(),
        target: options.churn_nodes,
        model,
        rig,
        prefab: options.prefab.clone(),
        report: SoakReport::default(),
    }));
    let shared = Arc::clone(&chaos);
    world
        .systems_mut()
        .add("chaos", move |scene, commands, ctx| {
            shared
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .step(scene, commands, ctx);
        })
        .expect("a system of a new name");
    let rig = CameraRig::new(world.scene());
    let mut buffers = Extractor::default();
    let start = Instant::now();
    let mut tally = Tally {
        steps: 0,
        seeks: 0,
        deferred_despawns: 0,
        peak_nodes: world.scene().len(),
        rss_start: resident_bytes(),
        rss_warm: None,
        rss_peak: None,
    };
    let snapshot = |world: &World, tally: &Tally| {
        let mut report = chaos
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .report
            .clone();
        report.steps = tally.steps;
        report.elapsed = start.elapsed();
        report.despawned += tally.deferred_despawns;
        report.seeks = tally.seeks;
        report.nodes = world.scene().len();
        report.peak_nodes = tally.peak_nodes;
        report.particles = world.particles().pool().len();
        report.rss_start = tally.rss_start;
        report.rss_warm = tally.rss_warm;
        report.rss_peak = tally.rss_peak;
        report.rss_end = resident_bytes();
        report
    };
    let invariant = |world: &World, tally: &Tally, (what, message): (&'static str, String)| {
        SoakError::Invariant {
            step: tally.steps,
            what,
            message,
            report: Box::new(snapshot(world, tally)),
        }
    };
    // Every check, counted in the report when it passes.
    let checked = |world: &World, tally: &Tally| {
        check(world).map_err(|e| invariant(world, tally, e))?;
        chaos
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .report
            .checks += 1;
        Ok::<(), SoakError>(())
    };
    let mut last_progress = start;
    loop {
        let elapsed = start.elapsed();
        if elapsed >= options.duration || options.max_steps.is_some_and(|m| tally.steps >= m) {
            break;
        }
        world.step();
        tally.steps += 1;
        if options
            .seek_every
            .is_some_and(|every| tally.steps.is_multiple_of(every.max(1)))
        {
            // Back up to a few hundred steps into the recording and go on from
            // there: the future is discarded as an edit at a past step would.
            let now = world.systems().steps();
            let back = 1 + seeker.below(400);
            if world.seek(now.saturating_sub(back)).is_ok() {
                drop(world.note_edit());
                tally.seeks += 1;
            }
        }
        tally.deferred_despawns += world.systems().last_applied().despawned as u64;
        tally.peak_nodes = tally.peak_nodes.max(world.scene().len());
        // Drawn as the viewer would, so the frame path churns too.
        let frame =
            buffers.extract_world(&mut world, rig.camera(), 16.0 / 9.0, &Overlays::default());
        std::hint::black_box(frame.instances.len());
        if tally.steps.is_multiple_of(options.check_every.max(1)) {
            checked(&world, &tally)?;
        }
        if tally.steps.is_multiple_of(100)
            && elapsed >= options.warm_up
            && let Some(now) = resident_bytes()
        {
            let warm = *tally.rss_warm.get_or_insert(now);
            tally.rss_peak = Some(tally.rss_peak.map_or(now, |p| p.max(now)));
            if now > warm + options.growth_limit {
                return Err(SoakError::MemoryGrowth {
                    step: tally.steps,
                    warm,
                    now,
                    limit: options.growth_limit,
                    report: Box::new(snapshot(&world, &tally)),
                });
            }
        }
        if last_progress.elapsed() >= Duration::from_secs(10) {
            last_progress = Instant::now();
            progress(&snapshot(&world, &tally));
        }
    }
    checked(&world, &tally)?;
    Ok(snapshot(&world, &tally))
}

/// The runner's own counts.
struct Tally {
    steps: u64,
    seeks: u64,
    /// Nodes despawned through the command buffer (the chaos system counts its direct ones).
    deferred_despawns: u64,
    peak_nodes: usize,
    rss_start: Option<u64>,
    rss_warm: Option<u64>,
    rss_peak: Option<u64>,
}
