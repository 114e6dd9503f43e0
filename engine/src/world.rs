//! The live world: a scene, the systems that animate it and the clock that
//! paces them (game loop pattern, the part that owns no window).
//!
//! The app (and the editor, and headless tools) call [`World::frame`] once per
//! displayed frame with the real time; it runs the fixed steps the clock asks
//! for and returns the interpolation alpha to draw with.

use std::time::Duration;

use crate::input::{Actions, Input, InputCollector, InputFrame};
use crate::particles::ParticleSystem;
use crate::physics::{Colliders, Collision, Physics, Space};
use crate::record::{
    Branch, Captured, RecordSettings, Recorder, Restored, Seek, SeekError, Simulation, StateHash,
};
use crate::scene::{Component, NodeId, RegistryError, Resource, Scene, SpatialIndex};
use crate::spatial::Ray;
use crate::systems::{Events, SystemPanic, Systems, is_events, swap_key, unswapped};
use crate::time::{Clock, FrameTick, TimeSource};

/// Counters of the last frame, for the stats panel and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameStats {
    /// The clock's verdict for this frame (steps, alpha, dropped time).
    pub tick: FrameTick,
    /// World transforms recomputed over the frame's steps (dirty flag at work).
    pub recomputed: usize,
    /// Mesh nodes re-filed in the octree over the frame's steps.
    pub refiled: usize,
}

/// A scene with its systems and clock.
pub struct World {
    /// The scene being simulated.
    pub(crate) scene: Scene,
    /// The systems run each fixed step.
    pub(crate) systems: Systems,
    /// The fixed-step clock.
    pub(crate) clock: Clock,
    /// Octree of mesh bounds, kept in step with the scene.
    pub(crate) index: SpatialIndex,
    /// The colliders filed for the systems' spatial queries.
    colliders: Colliders,
    /// The bodies and colliders simulated, once a fixed step.
    physics: Physics,
    /// The particle pool, fed by the scene's emitters each fixed step.
    pub(crate) particles: ParticleSystem,
    /// Collect the nodes recomputed over each frame (for the dirty-flag overlay).
    pub(crate) track_recomputed: bool,
    recomputed_nodes: Vec<NodeId>,
    stats: FrameStats,
    recorder: Option<Box<Recorder>>,
    /// The input the next fixed step reads.
    next_input: InputFrame,
    /// Whether steps with user systems can be rolled back (see
    /// [`World::set_step_undo`]).
    step_undo: bool,
}

impl World {
    /// Particles the pool holds before an emitter's `Grow` policy enlarges it.
    pub const PARTICLE_CAPACITY: u32 = 16_384;

    /// A world around `scene` with the built-in systems and a 60 Hz clock.
    pub fn new(scene: Scene) -> Self {
        let mut world = Self {
            scene: Scene::with_assets(scene.assets()),
            systems: Systems::new(),
            clock: Clock::default(),
            index: SpatialIndex::new(),
            colliders: Colliders::new(),
            physics: Physics::new(),
            particles: ParticleSystem::new(Self::PARTICLE_CAPACITY),
            track_recomputed: false,
            recomputed_nodes: Vec::new(),
            stats: FrameStats::default(),
            recorder: None,
            next_input: InputFrame::default(),
            step_undo: true,
        };
        world.replace_scene(scene);
        world
    }

    /// Reads the time source and runs the fixed steps due; returns the frame's stats.
    pub fn frame(&mut self, time: &mut impl TimeSource) -> FrameStats {
        let tick = self.clock.tick(time);
        self.run_steps(tick, None)
    }

    /// As [`World::frame`], each fixed step reading the input `collector`
    /// gathered (the first step of a frame sees what happened once: taps,
    /// motion; the others what is held).
    pub fn frame_with_input(
        &mut self,
        time: &mut impl TimeSource,
        collector: &mut InputCollector,
    ) -> FrameStats {
        let tick = self.clock.tick(time);
        self.run_steps(tick, Some(collector))
    }

    /// The input the next fixed step reads.
    pub fn input(&self) -> InputFrame {
        self.next_input
    }

    /// Sets the input the next fixed step reads (later steps of the same
    /// frame read what it holds).
    pub fn set_input(&mut self, input: InputFrame) {
        self.next_input = input;
    }

    /// The bindings named actions read through (from the game's plugins,
    /// an `input.ron`).
    pub fn set_actions(&mut self, actions: std::sync::Arc<Actions>) {
        self.input_resource().set_actions(actions);
    }

    fn input_resource(&mut self) -> &mut Input {
        if self.scene.resource::<Input>().is_none() {
            // A scene from a file or made by hand: every world has input.
            self.scene.insert_resource(Input::default());
        }
        self.scene
            .resource_mut::<Input>()
            .expect("inserted just above")
    }

    /// Advances by a known real duration (offline rendering, tests).
    pub fn advance(&mut self, real: Duration) -> FrameStats {
        let tick = self.clock.advance(real);
        self.run_steps(tick, None)
    }

    /// As [`World::advance`], each fixed step reading the input `collector`
    /// gathered (as [`World::frame_with_input`]).
    pub fn advance_with_input(
        &mut self,
        real: Duration,
        collector: &mut InputCollector,
    ) -> FrameStats {
        let tick = self.clock.advance(real);
        self.run_steps(tick, Some(collector))
    }

    /// Runs exactly one fixed step now, whatever the clock says.
    pub fn step(&mut self) {
        self.recomputed_nodes.clear();
        self.index.clear_moved();
        self.fixed_step(self.clock.step_seconds());
    }

    /// One fixed update: systems (with the transform pass), the physics step
    /// (and the transform pass of the bodies it moved), then particles from
    /// the emitters' fresh world transforms; returns (recomputed, re-filed).
    /// A recorder, when there is one, looks before and after.
    ///
    /// All or nothing: with user systems (the only code that can panic) the
    /// scene's step undo is armed before the step reads its input, and a
    /// panic rolls the world back to where the step found it (the scene,
    /// the input), particles not stepped.
    fn fixed_step(&mut self, dt: f32) -> (usize, usize) {
        puffin::profile_scope!("fixed step");
        if self.systems.panic().is_some() {
            return (0, 0);
        }
        let mut recorder = self.recorder.take();
        let started = recorder.as_mut().map(|r| {
            r.before_step(self);
            web_time::Instant::now()
        });
        if self.step_undo && self.systems.has_user_systems() {
            self.scene.arm_step();
        }
        let input = self.next_input;
        self.input_resource().advance(&input);
        self.next_input = input.held_only();
        let bodies = crate::physics::Bodies::of(&self.physics);
        if !self
            .systems
            .run_step(&mut self.scene, self.colliders.space(), bodies, dt)
        {
            self.scene.roll_back_step();
            self.next_input = input;
            self.recorder = recorder;
            return (0, 0);
        }
        let (mut recomputed, mut refiled) = self.after_propagation(self.scene.last_recomputed());
        let moved = {
            puffin::profile_scope!("physics");
            self.physics.push(&self.scene, self.systems.take_pushes());
            // Touches are sent only to a world that added their events.
            let touches = self.scene.resource::<Events<Collision>>().is_some();
            let moved = self.physics.step(dt, &mut self.scene, touches);
            if touches && let Some(events) = self.scene.resource_mut::<Events<Collision>>() {
                for touch in self.physics.take_touches() {
                    events.send(touch);
                }
            }
            moved
        };
        if moved > 0 {
            let again = self.scene.propagate().recomputed;
            let (r, f) = self.after_propagation(again);
            recomputed += r;
            refiled += f;
        }
        {
            puffin::profile_scope!("particles");
            self.particles.step(dt, self.scene.emitters_mut());
        }
        if let (Some(r), Some(started)) = (recorder.as_mut(), started) {
            r.after_step(self, started.elapsed());
        }
        self.recorder = recorder;
        (recomputed, refiled)
    }

    /// The user system panic that stopped this world's steps, if one did
    /// (the world is as it was before the step that panicked; frames draw
    /// it).
    pub fn system_panic(&self) -> Option<&SystemPanic> {
        self.systems.panic()
    }

    /// Whether a step whose user system panics is rolled back (on by
    /// default). Off, such a step stays as the panic left it (half its
    /// writes made, its commands dropped) and its steps cost what copying
    /// aside the parts each writes costs less: for a world that never steps
    /// on after a panic (one that is restored or exits).
    pub fn set_step_undo(&mut self, on: bool) {
        self.step_undo = on;
    }

    /// Takes the panic that stopped the steps, so they run again: the next
    /// step is the one that panicked, tried afresh (after the caller fixed
    /// what made it panic, say).
    pub fn take_system_panic(&mut self) -> Option<SystemPanic> {
        self.systems.take_panic()
    }

    /// Starts recording every fixed step (see [`crate::record`]); a recording
    /// already running is dropped.
    pub fn start_recording(&mut self, settings: RecordSettings) {
        self.recorder = Some(Box::new(Recorder::new(settings)));
    }

    /// Stops recording and hands the recording over.
    pub fn stop_recording(&mut self) -> Option<Box<Recorder>> {
        self.recorder.take()
    }

    /// The running recording.
    pub fn recorder(&self) -> Option<&Recorder> {
        self.recorder.as_deref()
    }

    /// Puts the world back to a recorded step (see [`Recorder::seek`]).
    ///
    /// # Errors
    /// [`SeekError`], also [`SeekError::Empty`] when nothing is recording.
    pub fn seek(&mut self, step: u64) -> Result<Seek, SeekError> {
        let mut recorder = self.recorder.take().ok_or(SeekError::Empty)?;
        let sought = recorder.seek(self, step);
        self.recorder = Some(recorder);
        self.clock.reset_lag();
        sought
    }

    /// Tells the recording (if any) that the world was just edited outside a
    /// step: it keeps the edited world as a keyframe now, discarding the
    /// future when the world was at a past step. The discarded future comes
    /// back with [`World::restore_branch`] (undo).
    pub fn note_edit(&mut self) -> Option<Branch> {
        let mut recorder = self.recorder.take()?;
        let branch = recorder.edit(self);
        self.recorder = Some(recorder);
        Some(branch)
    }

    /// Puts back a future discarded by [`World::note_edit`].
    pub fn restore_branch(&mut self, branch: Branch) {
        if let Some(r) = self.recorder.as_mut() {
            r.restore_branch(branch);
        }
    }

    /// Edits made between frames (editor, tools) are applied before drawing.
    fn sync_edits(&mut self) -> (usize, usize) {
        let recomputed = self.scene.propagate().recomputed;
        self.after_propagation(recomputed)
    }

    /// What follows every propagation: remember the recomputed nodes (when the
    /// overlay wants them), re-file them with the colliders, let the physics
    /// follow them, and re-file them in the octree (which consumes them).
    fn after_propagation(&mut self, recomputed: usize) -> (usize, usize) {
        if self.track_recomputed {
            self.recomputed_nodes.extend(self.scene.changed_nodes());
        }
        self.colliders.sync(&self.scene);
        self.physics.sync(&self.scene);
        self.index.sync(&mut self.scene);
        (recomputed, self.index.refiled())
    }

    fn run_steps(
        &mut self,
        tick: FrameTick,
        mut collector: Option<&mut InputCollector>,
    ) -> FrameStats {
        let dt = self.clock.step_seconds();
        self.recomputed_nodes.clear();
        self.index.clear_moved();
        let (mut recomputed, mut refiled) = (0, 0);
        for _ in 0..tick.steps {
            if let Some(collector) = collector.as_deref_mut() {
                self.next_input = collector.take_frame();
            }
            let (r, f) = self.fixed_step(dt);
            recomputed += r;
            refiled += f;
        }
        let (r, f) = self.sync_edits();
        self.stats = FrameStats {
            tick,
            recomputed: recomputed + r,
            refiled: refiled + f,
        };
        self.stats
    }

    /// Nodes whose world transform was recomputed during the last frame (only
    /// while [`World::set_track_recomputed`] is on).
    pub fn recomputed_nodes(&self) -> &[NodeId] {
        &self.recomputed_nodes
    }

    /// Stats of the last frame.
    pub fn stats(&self) -> FrameStats {
        self.stats
    }

    /// The scene being simulated.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// The scene, to edit between frames: the next frame propagates what
    /// changed, refiles moved meshes in the index and keyframes edits made
    /// while recording.
    pub fn scene_mut(&mut self) -> &mut Scene {
        &mut self.scene
    }

    /// Puts `scene` in place of the world's (a file loaded or a snapshot
    /// restored) and returns the old one: the new scene's transforms are
    /// propagated and the index is rebuilt around it, its bodies simulated
    /// afresh (the gravity kept); systems, clock and particles stay.
    pub fn replace_scene(&mut self, mut scene: Scene) -> Scene {
        scene.propagate();
        scene.snapshot_previous();
        let gravity = self.physics.gravity();
        self.physics = Physics::new();
        self.physics.set_gravity(gravity);
        self.physics.sync(&scene);
        self.index.rebuild(&mut scene);
        self.colliders.rebuild(&scene);
        std::mem::replace(&mut self.scene, scene)
    }

    /// The systems run each fixed step.
    pub fn systems(&self) -> &Systems {
        &self.systems
    }

    /// The systems, to add one.
    pub fn systems_mut(&mut self) -> &mut Systems {
        &mut self.systems
    }

    /// What the game shows this frame: the scene's active camera at the
    /// clock's interpolation alpha ([`Scene::game_camera`]).
    pub fn game_camera(&self) -> crate::render::Camera {
        self.scene.game_camera(self.clock.alpha())
    }

    /// The fixed-step clock.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The clock, to pause, scale or single-step time.
    pub fn clock_mut(&mut self) -> &mut Clock {
        &mut self.clock
    }

    /// The particle pool, fed by the scene's emitters each fixed step.
    pub fn particles(&self) -> &ParticleSystem {
        &self.particles
    }

    /// The octree of mesh bounds, as of the last frame's sync.
    pub fn index(&self) -> &SpatialIndex {
        &self.index
    }

    /// Brings the octree in step with edits made since the last frame (a
    /// frame does this itself; call it to query the index before one).
    pub fn sync_index(&mut self) {
        self.colliders.sync(&self.scene);
        self.physics.sync(&self.scene);
        self.index.sync(&mut self.scene);
    }

    /// The colliders as of the last frame's sync, for spatial queries (what
    /// a system's `StepContext::space` holds).
    pub fn space(&self) -> Space<'_> {
        self.colliders.space()
    }

    /// The colliders filed for queries.
    pub fn colliders(&self) -> &Colliders {
        &self.colliders
    }

    /// The bodies and colliders simulated.
    pub fn physics(&self) -> &Physics {
        &self.physics
    }

    /// The simulation, to set its gravity.
    pub fn physics_mut(&mut self) -> &mut Physics {
        &mut self.physics
    }

    /// The nearest mesh `ray` hits and the distance along it (bounding boxes
    /// through the octree, then the mesh's own bounds).
    pub fn raycast(&mut self, ray: &Ray) -> Option<(NodeId, f32)> {
        self.index.raycast(&self.scene, ray)
    }

    /// Whether frames collect the nodes they recompute (for the dirty-flag overlay).
    pub fn set_track_recomputed(&mut self, on: bool) {
        self.track_recomputed = on;
    }
}

/// A world's whole simulated state at one moment: the scene (resources
/// included), the particles, the physics, the step counter and the input
/// the next step reads. What Play's Reset goes back to: restored, the world hashes as it
/// did when it was taken ([`World::state_hash`]), step included.
#[derive(Clone, Debug)]
pub struct WorldSnapshot {
    scene: Scene,
    particles: ParticleSystem,
    physics: Physics,
    step: u64,
    applied: crate::systems::AppliedCommands,
    input: InputFrame,
}

impl WorldSnapshot {
    /// The step the snapshot was taken at.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// The scene as it was.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }
}

impl World {
    /// The world's simulated state as it is now (see [`WorldSnapshot`]).
    pub fn snapshot(&self) -> WorldSnapshot {
        WorldSnapshot {
            scene: self.scene.clone(),
            particles: self.particles.clone(),
            physics: self.physics.clone(),
            step: self.systems.steps(),
            applied: self.systems.last_applied(),
            input: self.next_input,
        }
    }

    /// Puts back the state of `snapshot`, step counter included; the clock's
    /// lag starts afresh, a system's panic is forgotten and the octree is
    /// rebuilt. Systems, clock settings and a recording stay (a recording
    /// sees the restore as an edit: call [`World::note_edit`]).
    pub fn restore_snapshot(&mut self, snapshot: WorldSnapshot) {
        self.scene = snapshot.scene;
        self.particles = snapshot.particles;
        self.physics = snapshot.physics;
        self.systems.set_steps(snapshot.step, snapshot.applied);
        self.systems.take_panic();
        self.next_input = snapshot.input;
        self.index.rebuild(&mut self.scene);
        self.colliders.rebuild(&self.scene);
        self.clock.reset_lag();
    }
}

impl World {
    /// Makes `C` known by name to this world's scene files, overrides and
    /// inspector (see [`Scene::register`]).
    ///
    /// # Errors
    /// [`RegistryError`] when another type has its name.
    pub fn register<C: Component + Default>(&mut self) -> Result<(), RegistryError> {
        self.scene.register::<C>()
    }

    /// Gives the world events of type `E` (an [`Events<E>`] resource, if it
    /// has none): sent in one step, read by every system in the next. Each
    /// step starts by making the last step's events the read ones.
    pub fn add_event<E: Resource>(&mut self) {
        if self.scene.resource::<Events<E>>().is_none() {
            self.scene.insert_resource(Events::<E>::default());
        }
        self.systems
            .at_step_start(swap_key::<E>(), update_events::<E>);
    }

    /// Puts a resource in (or replaces it): state that belongs to no node,
    /// captured by recordings with the scene.
    ///
    /// # Panics
    /// When `R` is an [`Events`] type the world was not given with
    /// [`World::add_event`]: nothing would swap its buffers, and its events
    /// would pile up unread. The message names the type. (Once added, an
    /// `Events<E>` may be replaced through here.)
    pub fn insert_resource<R: Resource>(&mut self, value: R) -> Option<R> {
        let name = std::any::type_name::<R>();
        if is_events(name) && !self.systems.starts_step(std::any::TypeId::of::<R>()) {
            panic!("{}", unswapped(name));
        }
        self.scene.insert_resource(value)
    }

    /// The resource of type `R`.
    pub fn resource<R: Resource>(&self) -> Option<&R> {
        self.scene.resource()
    }

    /// The resource of type `R`, mutably.
    pub fn resource_mut<R: Resource>(&mut self) -> Option<&mut R> {
        self.scene.resource_mut()
    }

    /// Hashes of everything a fixed step reads and writes (see [`StateHash::of`]).
    pub fn state_hash(&mut self) -> StateHash {
        StateHash {
            physics: self.physics.state_hash(),
            ..StateHash::of(&mut self.scene, &self.particles, self.systems.steps())
        }
    }
}

/// Swaps the event buffers of `E` at the start of a step.
fn update_events<E: Resource>(scene: &mut Scene) {
    if let Some(events) = scene.resource_mut::<Events<E>>() {
        events.update();
    }
}

/// What the recorder captures of a world: the scene, the particles, the
/// physics and the step counter; the octree is rebuilt from the scene on
/// restore.
impl Simulation for World {
    fn step(&mut self) {
        World::step(self);
    }

    fn steps(&self) -> u64 {
        self.systems.steps()
    }

    fn structure_version(&self) -> u64 {
        self.scene.structure_version()
    }

    fn captured(&mut self) -> Captured<'_> {
        Captured {
            scene: &mut self.scene,
            particles: &self.particles,
            physics: &self.physics,
            step: self.systems.steps(),
            applied: self.systems.last_applied(),
        }
    }

    fn restore(&mut self, state: Restored) {
        self.scene = state.scene;
        self.particles = state.particles;
        self.physics = state.physics;
        self.systems.set_steps(state.step, state.applied);
        self.index.rebuild(&mut self.scene);
        self.colliders.rebuild(&self.scene);
    }

    fn state_hash(&mut self) -> StateHash {
        World::state_hash(self)
    }

    fn step_length(&self) -> Duration {
        self.clock.step()
    }

    fn set_step_length(&mut self, step: Duration) {
        self.clock = Clock::new(step);
    }

    fn input(&self) -> InputFrame {
        self.next_input
    }

    fn set_input(&mut self, input: InputFrame) {
        self.next_input = input;
    }
}
