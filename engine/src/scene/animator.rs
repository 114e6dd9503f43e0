//! The `Animator` component: plays a model's animation clips on the nodes of a
//! model instance (update method pattern, sampled once per fixed step).
//!
//! Bones are nodes: a clip writes local transforms through `set_local`, so
//! only animated bones become dirty and the dirty flag propagates exactly what
//! moved. Sampling depends on the clip time alone (kept in `f64`), so a clip
//! played at 240 Hz or at 30 Hz gives the same pose at the same time, and a
//! recording restores an animator with its node like any other component.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{ModelInstance, ModelPart, MorphWeights, NodeId, Scene};
use crate::assets::Model;
use crate::assets::animation::{Clip, Property};

mod sample;

use sample::{pose, write, write_shared};

/// What happens at the end of a clip.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlayMode {
    /// Starts again from the beginning.
    #[default]
    Loop,
    /// Stops on the last pose.
    Once,
    /// Plays backwards to the start, then forwards again.
    PingPong,
}

/// A cross-fade to another clip in progress.
#[derive(Clone, Debug, PartialEq)]
pub struct CrossFade {
    /// The clip faded to.
    pub to: String,
    /// Seconds the fade lasts.
    pub duration: f32,
    /// Seconds faded so far.
    pub elapsed: f32,
    /// Play time of the clip faded to.
    pub time: f64,
}

/// Plays animation clips of the model instance on its node (or of the model
/// instance it sits under).
#[derive(Clone, Debug, PartialEq)]
pub struct Animator {
    /// The clip playing, by name.
    pub clip: String,
    /// Play speed (1 = as authored; negative plays backwards).
    pub speed: f32,
    /// What happens at the end.
    pub mode: PlayMode,
    /// Whether time advances (a paused animator still poses its bones).
    pub playing: bool,
    /// Seconds played (the pose is this time mapped into the clip by `mode`).
    pub time: f64,
    /// A cross-fade in progress.
    pub fade: Option<CrossFade>,
    state: Binding,
}

impl Animator {
    /// Plays `clip` from the start, looping, at speed 1.
    pub fn new(clip: impl Into<String>) -> Self {
        Self {
            clip: clip.into(),
            speed: 1.0,
            mode: PlayMode::Loop,
            playing: true,
            time: 0.0,
            fade: None,
            state: Binding::default(),
        }
    }

    /// Forgets that its pose was written: the next step (or
    /// [`Scene::pose_animators`]) writes it even while paused. For a copy put
    /// back over bones that moved since (an undo).
    pub fn repose(&mut self) {
        self.state.posed = None;
    }

    /// Starts fading to `clip` over `duration` seconds (from its start).
    pub fn cross_fade(&mut self, clip: impl Into<String>, duration: f32) {
        self.fade = Some(CrossFade {
            to: clip.into(),
            duration: duration.max(0.0),
            elapsed: 0.0,
            time: 0.0,
        });
    }
}

/// Where an animator's channels land: resolved once, then reused every step.
#[derive(Clone, Default)]
struct Binding {
    model: Option<Arc<Model>>,
    /// For each model node, its node in this instance.
    parts: Vec<Option<NodeId>>,
    /// Nodes with morph weights, by the model node they came from (a mesh
    /// of several primitives has one node per primitive).
    morph_nodes: Vec<(u32, NodeId)>,
    /// The clips the channel tables below were built for (playing, faded to).
    clips: (Option<usize>, Option<usize>),
    /// Model nodes some channel of those clips animates, and their nodes here.
    animated: Vec<u32>,
    targets: Vec<NodeId>,
    /// For each model node, its place in `animated` (`u32::MAX`: none).
    slot: Vec<u32>,
    /// The pose being built, one local transform per animated node.
    pose: Vec<super::Transform>,
    /// Where each animated node's local lives in the hot column (`DEAD`: the
    /// node is gone), found before posing.
    dense: Vec<u32>,
    /// Where the bone of each channel of the playing clip lives (`DEAD`:
    /// none), found with `dense`: the shared-keys path's one lookup a channel.
    channel_dense: Vec<u32>,
    /// Whether the playing clip [`sample::shares_keys`].
    shared_keys: bool,
    /// The lowest and highest of `dense` this step (`(u32::MAX, 0)`: none).
    span: (u32, u32),
    /// The scene's layout stamp `dense` was found under, and its span (0:
    /// none): while the stamp holds, the targets are where they were.
    placed_in: (u64, (u32, u32)),
    /// Whether this step poses and writes (placed, and not paused on a pose
    /// already written).
    placed: bool,
    /// The nodes the last write made dirty (appended to the scene's list after
    /// the writes, which run in parallel), when they are listed; how many.
    dirtied: Vec<NodeId>,
    dirtied_count: usize,
    /// Model nodes whose morph weights those clips animate, with their run
    /// (start, length) in `weights`.
    morphs: Vec<(u32, u32, u32)>,
    /// The morph weights being built.
    weights: Vec<f32>,
    /// Cursors of the playing clip's channels, then of the faded-to clip's.
    cursors: Vec<u32>,
    fade_cursors: Vec<u32>,
    /// The play time and clip of the last pose written: a paused animator
    /// whose pose is written does nothing.
    posed: Option<(f64, usize)>,
    /// A bound node died: bind again.
    stale: bool,
    /// The scene's structure version when binding last failed (no model
    /// instance, an unreadable model): tried again only once it changes.
    failed_at: Option<u64>,
}

impl std::fmt::Debug for Binding {
    /// Only what decides a pose (the cursors are a search hint, the model is shared).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Binding({} parts, posed {:?})",
            self.parts.len(),
            self.posed
        )
    }
}

impl PartialEq for Binding {
    fn eq(&self, other: &Self) -> bool {
        self.parts == other.parts && self.posed == other.posed
    }
}

impl Binding {
    /// The tables of animated nodes for `clips` (playing, faded to).
    fn build_targets(&mut self, model: &Model, clips: (Option<usize>, Option<usize>)) {
        self.clips = clips;
        let playing = clips.0.and_then(|c| model.data.animations.get(c));
        self.shared_keys = playing.is_some_and(sample::shares_keys);
        self.placed_in = (0, (u32::MAX, 0));
        self.animated.clear();
        self.targets.clear();
        self.morphs.clear();
        self.slot.clear();
        self.slot.resize(self.parts.len(), u32::MAX);
        let channels = [clips.0, clips.1]
            .into_iter()
            .flatten()
            .filter_map(|c| model.data.animations.get(c))
            .flat_map(|clip| &clip.channels);
        for channel in channels {
            let node = channel.node as usize;
            if channel.property == Property::Weights {
                let morphed = self.morph_nodes.iter().any(|&(n, _)| n == channel.node);
                if morphed && !self.morphs.iter().any(|&(n, ..)| n == channel.node) {
                    let start = self.morphs.last().map_or(0, |&(_, s, l)| s + l);
                    self.morphs.push((channel.node, start, channel.width));
                }
                continue;
            }
            let (Some(&Some(part)), Some(slot)) = (self.parts.get(node), self.slot.get_mut(node))
            else {
                continue;
            };
            if *slot == u32::MAX {
                *slot = self.animated.len() as u32;
                self.animated.push(channel.node);
                self.targets.push(part);
            }
        }
        self.pose.clear();
        self.pose
            .resize(self.animated.len(), super::Transform::IDENTITY);
        // Room for every animated node, so no step's write grows it.
        self.dense.reserve(self.animated.len());
        self.dirtied.reserve(self.animated.len());
        let weights = self.morphs.last().map_or(0, |&(_, s, l)| s + l);
        self.weights.clear();
        self.weights.resize(weights as usize, 0.0);
    }

    /// The cursors of the playing clip (or, with `fade`, of the clip faded
    /// to) and where the sampled values go.
    fn targets(&mut self, fade: bool) -> (&mut Vec<u32>, Targets<'_>) {
        let cursors = if fade {
            &mut self.fade_cursors
        } else {
            &mut self.cursors
        };
        let targets = Targets {
            slot: &self.slot,
            pose: &mut self.pose,
            morphs: &self.morphs,
            weights: &mut self.weights,
        };
        (cursors, targets)
    }
}

/// The pose being built: a local transform per animated node (by `slot`),
/// morph weights per animated mesh (by `morphs`).
struct Targets<'a> {
    slot: &'a [u32],
    pose: &'a mut [super::Transform],
    morphs: &'a [(u32, u32, u32)],
    weights: &'a mut [f32],
}

impl Targets<'_> {
    /// The pose of the model node `node`, if the animator animates it.
    fn pose_of(&mut self, node: u32) -> Option<&mut super::Transform> {
        let &slot = self.slot.get(node as usize)?;
        self.pose.get_mut(slot as usize)
    }
}

/// The clip time for play time `t` of a clip of `duration` seconds.
pub fn clip_time(mode: PlayMode, t: f64, duration: f32) -> f32 {
    let d = f64::from(duration);
    if d <= 0.0 {
        return 0.0;
    }
    let mapped = match mode {
        PlayMode::Loop => t.rem_euclid(d),
        PlayMode::Once => t.clamp(0.0, d),
        PlayMode::PingPong => {
            let phase = t.rem_euclid(2.0 * d);
            if phase <= d { phase } else { 2.0 * d - phase }
        }
    };
    mapped as f32
}

fn find_clip<'m>(model: &'m Model, name: &str) -> Option<(usize, &'m Clip)> {
    model
        .data
        .animations
        .iter()
        .enumerate()
        .find(|(_, c)| c.name == name)
}

impl Scene {
    /// The model instance an animator on `node` drives: `node` itself, or the
    /// nearest ancestor that is one.
    fn instance_of(&self, node: NodeId) -> Option<NodeId> {
        let mut at = Some(node);
        while let Some(n) = at {
            if self.get::<ModelInstance>(n).is_some() {
                return Some(n);
            }
            at = self.parent(n);
        }
        None
    }

    fn bind(&self, node: NodeId, binding: &mut Binding) {
        *binding = Binding::default();
        let failed = Some(self.structure_version());
        let Some(root) = self.instance_of(node) else {
            binding.failed_at = failed;
            return;
        };
        let source = &self.get::<ModelInstance>(root).expect("found above").source;
        let Ok(model) = self.assets().load_model(source) else {
            binding.failed_at = failed;
            return;
        };
        binding.parts = vec![None; model.data.nodes.len()];
        for part in self.subtree(root) {
            let Some(p) = self.get::<ModelPart>(part) else {
                continue;
            };
            // The model node's own part comes first in pre-order; the children
            // holding its mesh's other primitives share its index.
            if let Some(slot @ None) = binding.parts.get_mut(p.gltf_node as usize) {
                *slot = Some(part);
            }
            if self.get::<MorphWeights>(part).is_some() {
                binding.morph_nodes.push((p.gltf_node, part));
            }
        }
        binding.model = Some(model);
    }

    /// The clips an animator on `node` can play (its model's: name and
    /// duration in seconds), or `None` when `node` is not in a model instance.
    pub fn animator_clips(&self, node: NodeId) -> Option<Vec<(String, f32)>> {
        let root = self.instance_of(node)?;
        let source = &self.get::<ModelInstance>(root)?.source;
        let model = self.assets().load_model(source).ok()?;
        let clips = model.data.animations.iter();
        Some(clips.map(|c| (c.name.clone(), c.duration)).collect())
    }

    /// Poses every animator whose pose is not written yet (one just edited,
    /// scrubbed while paused) without advancing time: what the editor calls
    /// after an edit so the view follows without a step.
    pub fn pose_animators(&mut self) {
        animate(self, 0.0);
    }
}

/// Animators below this many are stepped on one thread.
const PARALLEL_ANIMATORS: usize = 64;

/// Advances every playing animator by `dt` and writes its pose, in two passes:
/// first each animator binds and finds where its bones live in the hot column
/// (in parallel: it reads the scene and writes only its own buffers); then
/// each one samples its clips and writes the bones that moved straight into
/// the local column while the pose is still in cache (in parallel when the
/// animators split into halves whose bones lie on either side of one
/// position, as a crowd's do; else in storage order). The result is the same
/// on any number of threads.
pub(crate) fn animate(scene: &mut Scene, dt: f32) {
    if scene.components.animator.is_empty() {
        return;
    }
    let mut column = std::mem::take(&mut scene.components.animator);
    let (owners, animators) = column.parts_mut();
    let shared: &Scene = scene;
    if animators.len() >= PARALLEL_ANIMATORS {
        use rayon::prelude::*;
        owners
            .par_iter()
            .zip(animators.par_iter_mut())
            .with_min_len(16)
            .for_each(|(&node, animator)| place(shared, node, animator));
    } else {
        for (&node, animator) in owners.iter().zip(animators.iter_mut()) {
            place(shared, node, animator);
        }
    }
    // A crowd's bones are not worth listing: the propagation after this reads
    // every flag in one linear pass anyway.
    let posing: usize = (animators.iter().filter(|a| a.state.placed))
        .map(|a| a.state.animated.len())
        .sum();
    let list = !scene.propagates_linearly(posing);
    let (local, flags) = scene.locals_and_flags_mut();
    let columns = Columns {
        base: 0,
        local,
        flags,
        list,
    };
    pose_split(animators, columns, dt);
    for animator in animators.iter() {
        if list {
            scene.note_dirtied(&animator.state.dirtied, 0);
        } else {
            scene.note_dirtied(&[], animator.state.dirtied_count);
        }
        write_weights(scene, animator);
    }
    scene.components.animator = column;
}

/// Binds the animator if it must, builds the tables of the clips it plays, and
/// finds where their bones and the current morph weights are (nothing when
/// paused on a pose already written).
fn place(scene: &Scene, node: NodeId, animator: &mut Animator) {
    let state = &mut animator.state;
    let unbound = state.model.is_none() && state.failed_at != Some(scene.structure_version());
    if unbound || state.stale {
        scene.bind(node, state);
    }
    state.placed = false;
    state.span = (u32::MAX, 0);
    // Moved out for the step rather than cloned: no shared count bumped across threads.
    let Some(model) = animator.state.model.take() else {
        return;
    };
    place_with(scene, animator, &model);
    animator.state.model = Some(model);
}

/// [`place`] with the animator's model lent out.
fn place_with(scene: &Scene, animator: &mut Animator, model: &Model) {
    let Some((clip_index, clip)) = find_clip(model, &animator.clip) else {
        return;
    };
    let fade_to = animator.fade.as_ref().and_then(|f| find_clip(model, &f.to));
    if animator.fade.is_some() && fade_to.is_none() {
        animator.fade = None;
    }
    if !animator.playing
        && animator.fade.is_none()
        && animator.state.posed == Some((animator.time, clip_index))
    {
        return;
    }
    let clips = (Some(clip_index), fade_to.map(|(i, _)| i));
    let state = &mut animator.state;
    if state.clips != clips || state.pose.len() != state.animated.len() {
        state.build_targets(model, clips);
    }
    let layout = scene.layout_stamp();
    if state.placed_in.0 != layout {
        state.dense.clear();
        let mut span = (u32::MAX, 0);
        let mut dead = false;
        for &target in &state.targets {
            let d = scene.dense(target).map_or(DEAD, |d| d as u32);
            if d == DEAD {
                dead = true;
            } else {
                span = (span.0.min(d), span.1.max(d));
            }
            state.dense.push(d);
        }
        state.channel_dense.clear();
        for channel in &clip.channels {
            let at = state.slot.get(channel.node as usize);
            let d = at.and_then(|&at| state.dense.get(at as usize));
            state.channel_dense.push(d.copied().unwrap_or(DEAD));
        }
        // A node gone: bound again next step (nothing kept till then).
        state.stale |= dead;
        state.placed_in = (if dead { 0 } else { layout }, span);
    }
    state.span = state.placed_in.1;
    // The current weights, for the targets no channel sets.
    for &(model_node, start, len) in &state.morphs {
        let run = &mut state.weights[start as usize..(start + len) as usize];
        let node = state.morph_nodes.iter().find(|m| m.0 == model_node);
        let current = node.and_then(|&(_, n)| scene.get::<MorphWeights>(n));
        for (w, c) in run.iter_mut().zip(current.map_or(&[][..], |m| &m.weights)) {
            *w = *c;
        }
    }
    state.placed = true;
}

/// A dense index that says: the node is gone (bind again).
const DEAD: u32 = u32::MAX;

/// The part of the hot columns from dense position `base` on that some
/// animators pose, and whether the bones they make dirty are listed (for the
/// scene's dirty list) or only counted.
struct Columns<'a> {
    base: usize,
    local: &'a mut [super::Transform],
    flags: &'a mut [u8],
    list: bool,
}

/// Poses `animators` (in storage order): when they split into two halves whose
/// bones lie on either side of one dense position (a crowd of model instances
/// does), the halves are posed in parallel.
fn pose_split(animators: &mut [Animator], columns: Columns<'_>, dt: f32) {
    if animators.len() >= 2 * PARALLEL_ANIMATORS {
        let mid = animators.len() / 2;
        let (left, right) = animators.split_at_mut(mid);
        let pivot = right
            .iter()
            .map(|a| a.state.span.0)
            .min()
            .unwrap_or(u32::MAX);
        let end = columns.base + columns.local.len();
        let disjoint = (pivot as usize) > columns.base
            && (pivot as usize) < end
            && left.iter().all(|a| a.state.span.1 < pivot)
            && right.iter().all(|a| a.state.span.0 >= pivot);
        if disjoint {
            let at = pivot as usize - columns.base;
            let (local_l, local_r) = columns.local.split_at_mut(at);
            let (flags_l, flags_r) = columns.flags.split_at_mut(at);
            let (l, r) = (
                Columns {
                    base: columns.base,
                    local: local_l,
                    flags: flags_l,
                    list: columns.list,
                },
                Columns {
                    base: pivot as usize,
                    local: local_r,
                    flags: flags_r,
                    list: columns.list,
                },
            );
            rayon::join(|| pose_split(left, l, dt), || pose_split(right, r, dt));
            return;
        }
    }
    let mut columns = columns;
    for animator in animators {
        animator.state.dirtied.clear();
        animator.state.dirtied_count = 0;
        if !animator.state.placed {
            continue;
        }
        if let Some(model) = animator.state.model.take() {
            pose_with(&mut columns, animator, &model, dt);
            animator.state.model = Some(model);
        }
    }
}

/// Advances a placed animator, samples its clips over its bones' current
/// locals and writes the bones that moved.
fn pose_with(columns: &mut Columns<'_>, animator: &mut Animator, model: &Model, dt: f32) {
    // The clips `place` found by name and built the tables for.
    let clips = &model.data.animations;
    let (Some(clip_index), fade_index) = animator.state.clips else {
        return;
    };
    let Some(clip) = clips.get(clip_index) else {
        return;
    };
    let fade_to = fade_index.and_then(|i| Some((i, clips.get(i)?)));
    if animator.playing {
        animator.time += f64::from(dt) * f64::from(animator.speed);
        if animator.mode == PlayMode::Once {
            let end = f64::from(clip.duration);
            if animator.time >= end || animator.time <= 0.0 {
                animator.time = animator.time.clamp(0.0, end);
                animator.playing = false;
            }
        }
    }
    let state = &mut animator.state;
    let t = clip_time(animator.mode, animator.time, clip.duration);
    if animator.fade.is_none() && write_shared(columns, state, clip, t) {
        state.posed = Some((animator.time, clip_index));
        return;
    }
    // The animated nodes' current locals, for the properties no channel sets.
    for (pose, &d) in state.pose.iter_mut().zip(&state.dense) {
        *pose = if d == DEAD {
            super::Transform::IDENTITY
        } else {
            columns.local[d as usize - columns.base]
        };
    }
    let (cursors, targets) = state.targets(false);
    pose(clip, t, cursors, 1.0, targets);
    state.posed = Some((animator.time, clip_index));
    if let (Some(fade), Some((to_index, to))) = (&mut animator.fade, fade_to) {
        if animator.playing {
            fade.time += f64::from(dt) * f64::from(animator.speed);
            fade.elapsed += dt;
        }
        let weight = if fade.duration > 0.0 {
            (fade.elapsed / fade.duration).clamp(0.0, 1.0)
        } else {
            1.0
        };
        let t = clip_time(animator.mode, fade.time, to.duration);
        let (cursors, targets) = state.targets(true);
        pose(to, t, cursors, weight, targets);
        if weight >= 1.0 {
            animator.clip = fade.to.clone();
            animator.time = fade.time;
            state.cursors = std::mem::take(&mut state.fade_cursors);
            animator.fade = None;
            state.posed = Some((animator.time, to_index));
        }
    }
    write(columns, state);
}

/// Writes the morph weights [`pose_with`] computed (the ones that changed).
fn write_weights(scene: &mut Scene, animator: &Animator) {
    let state = &animator.state;
    if !state.placed {
        return;
    }
    for &(model_node, start, len) in &state.morphs {
        let run = &state.weights[start as usize..(start + len) as usize];
        for &(_, target) in state.morph_nodes.iter().filter(|m| m.0 == model_node) {
            let Some(morph) = scene.get::<MorphWeights>(target) else {
                continue;
            };
            if morph.weights.get(..run.len()) != Some(run)
                && let Some(morph) = scene.get_mut::<MorphWeights>(target)
            {
                let n = run.len().min(morph.weights.len());
                morph.weights[..n].copy_from_slice(&run[..n]);
            }
        }
    }
}
