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

use super::{ModelInstance, ModelPart, NodeId, Scene, SceneError};
use crate::assets::animation::{Clip, Property, Sample};
use crate::assets::{Model, load_model};

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

    /// Appends the joint matrices of skin `skin` of the animated model (each
    /// joint's world transform times its inverse bind matrix, the vertex
    /// shader's input) to `out`; returns how many (0 before the animator is
    /// bound, i.e. before its first step).
    pub fn joint_matrices(&self, scene: &Scene, skin: usize, out: &mut Vec<glam::Mat4>) -> usize {
        let Some(skin) = self
            .state
            .model
            .as_ref()
            .and_then(|m| m.data.skins.get(skin))
        else {
            return 0;
        };
        let parts = &self.state.parts;
        out.extend(
            skin.joints
                .iter()
                .zip(&skin.inverse_bind)
                .map(|(&joint, ibm)| {
                    let world = parts
                        .get(joint as usize)
                        .copied()
                        .flatten()
                        .and_then(|n| scene.world(n))
                        .unwrap_or(glam::Affine3A::IDENTITY);
                    glam::Mat4::from(world) * *ibm
                }),
        );
        skin.joints.len()
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
    /// Cursors of the playing clip's channels, then of the faded-to clip's.
    cursors: Vec<u32>,
    fade_cursors: Vec<u32>,
    /// A bound node died or the model could not be found: bind again.
    stale: bool,
}

impl std::fmt::Debug for Binding {
    /// Only what decides a pose (the cursors are a search hint, the model is shared).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Binding({} parts)", self.parts.len())
    }
}

impl PartialEq for Binding {
    fn eq(&self, other: &Self) -> bool {
        self.parts == other.parts
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
        let Some(root) = self.instance_of(node) else {
            binding.stale = true;
            return;
        };
        let source = &self.get::<ModelInstance>(root).expect("found above").source;
        let Ok(model) = load_model(source) else {
            binding.stale = true;
            return;
        };
        binding.parts = vec![None; model.data.nodes.len()];
        for part in self.subtree(root) {
            if let Some(p) = self.get::<ModelPart>(part)
                && let Some(slot) = binding.parts.get_mut(p.gltf_node as usize)
            {
                *slot = Some(part);
            }
        }
        binding.model = Some(model);
    }

    /// The clip names an animator on `node` can play (its model's), or `None`
    /// when `node` is not in a model instance.
    pub fn animator_clips(&self, node: NodeId) -> Option<Vec<String>> {
        let root = self.instance_of(node)?;
        let source = &self.get::<ModelInstance>(root)?.source;
        let model = load_model(source).ok()?;
        Some(
            model
                .data
                .animations
                .iter()
                .map(|c| c.name.clone())
                .collect(),
        )
    }
}

/// Poses the bones of `clip` at `t`, blended over what `out` holds by `weight`
/// (1 replaces). `out` has one local transform per model node, pre-filled.
fn pose(
    clip: &Clip,
    t: f32,
    cursors: &mut Vec<u32>,
    weight: f32,
    out: &mut [Option<super::Transform>],
) {
    cursors.resize(clip.channels.len(), 0);
    for (c, channel) in clip.channels.iter().enumerate() {
        let Some(Some(local)) = out.get_mut(channel.node as usize) else {
            continue;
        };
        match (channel.property, clip.sample(c, t, &mut cursors[c])) {
            (Property::Translation, Some(Sample::Vec3(v))) => {
                local.translation = local.translation.lerp(v, weight);
            }
            (Property::Scale, Some(Sample::Vec3(v))) => local.scale = local.scale.lerp(v, weight),
            (Property::Rotation, Some(Sample::Quat(q))) => {
                local.rotation = local.rotation.slerp(q, weight);
            }
            _ => {}
        }
    }
}

/// Reused buffers of [`animate`].
#[derive(Default)]
pub(crate) struct AnimateScratch {
    locals: Vec<Option<super::Transform>>,
}

/// Advances every playing animator by `dt` and writes its pose.
pub(crate) fn animate(scene: &mut Scene, dt: f32, scratch: &mut AnimateScratch) {
    let mut column = std::mem::take(&mut scene.components.animator);
    let (owners, animators) = column.parts_mut();
    for (&node, animator) in owners.iter().zip(animators.iter_mut()) {
        step_one(scene, node, animator, dt, scratch);
    }
    scene.components.animator = column;
}

fn step_one(
    scene: &mut Scene,
    node: NodeId,
    animator: &mut Animator,
    dt: f32,
    scratch: &mut AnimateScratch,
) {
    if animator.state.model.is_none() || animator.state.stale {
        scene.bind(node, &mut animator.state);
    }
    let Some(model) = animator.state.model.clone() else {
        return;
    };
    let Some((_, clip)) = find_clip(&model, &animator.clip) else {
        return;
    };
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
    // The bones' current locals, for the properties a clip does not animate.
    let parts = &animator.state.parts;
    scratch.locals.clear();
    scratch
        .locals
        .extend(parts.iter().map(|p| p.and_then(|n| scene.local(n))));
    let t = clip_time(animator.mode, animator.time, clip.duration);
    pose(
        clip,
        t,
        &mut animator.state.cursors,
        1.0,
        &mut scratch.locals,
    );
    if let Some(fade) = &mut animator.fade {
        if let Some((_, to)) = find_clip(&model, &fade.to) {
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
            pose(
                to,
                t,
                &mut animator.state.fade_cursors,
                weight,
                &mut scratch.locals,
            );
            if weight >= 1.0 {
                animator.clip = fade.to.clone();
                animator.time = fade.time;
                animator.state.cursors = std::mem::take(&mut animator.state.fade_cursors);
                animator.fade = None;
            }
        } else {
            animator.fade = None;
        }
    }
    for (part, local) in animator.state.parts.iter().zip(&scratch.locals) {
        let (Some(part), Some(local)) = (part, local) else {
            continue;
        };
        // Unchanged locals are not written: only moving bones become dirty.
        if scene.local(*part) == Some(*local) {
            continue;
        }
        match scene.set_local(*part, *local) {
            Ok(_) => {}
            Err(SceneError::StaleNode { .. }) => animator.state.stale = true,
            Err(error) => log::warn!("animator on {node}: {error}"),
        }
    }
}
