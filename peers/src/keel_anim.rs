//! Keel's side of the animation row: the engine's own model import,
//! `Animator` and fixed step, as its animation bench runs them
//! (`engine/benches/animation.rs`), without the joint packing.
//!
//! Each rig is `Scene::spawn_model` of the glTF file (the rig's node, then
//! one node per glTF node) with an `Animator` on the rig's node. One frame
//! is `Systems::run_step` (the built-in `animate` system samples every
//! animator's clip and writes the bones' locals, then the propagation), then
//! `Scene::clear_changed`, as the engine's loop does after a step.
//!
//! It lacks `Scene::pack_joints` (the skinning matrices): Bevy computes
//! those in its renderer, which the other side does not build.

use std::path::Path;

use std::collections::HashMap;

use glam::{Affine3A, Vec3};
use keel_engine::{Animator, NodeId, Scene, Systems, Transform};

/// A Keel scene holding the crowd, its systems, and each rig's node.
pub struct KeelCrowd {
    scene: Scene,
    systems: Systems,
    rigs: Vec<NodeId>,
}

impl KeelCrowd {
    /// Spawns a rig of the model at `path` per `(place, phase)`, each
    /// playing `clip` on loop from `phase` seconds, and propagates once.
    pub fn build(path: &Path, clip: &str, rigs: &[(Vec3, f64)]) -> Self {
        let mut scene = Scene::new();
        let rigs = rigs
            .iter()
            .enumerate()
            .map(|(i, &(place, phase))| {
                let at = Transform::from_translation(place);
                let (rig, _) = (scene.spawn_model(None, format!("rig{i}"), at, path))
                    .expect("the model loads");
                let mut animator = Animator::new(clip);
                animator.time = phase;
                scene.insert(rig, animator).expect("alive");
                rig
            })
            .collect();
        scene.propagate();
        Self {
            scene,
            systems: Systems::new(),
            rigs,
        }
    }

    /// One frame: a 1/60 s step (every animator samples its clip and writes
    /// the bones, the dirty ones propagate), then the changes cleared.
    pub fn frame(&mut self) {
        self.systems.run_step(&mut self.scene, 1.0 / 60.0);
        self.scene.clear_changed();
    }

    /// World transforms of the nodes under rig `rig` (itself excluded), by
    /// name (the first node of each name, in pre-order).
    pub fn worlds(&self, rig: usize) -> HashMap<&str, Affine3A> {
        let mut worlds = HashMap::new();
        let mut stack: Vec<NodeId> = self.scene.children(self.rigs[rig]).collect();
        stack.reverse();
        while let Some(node) = stack.pop() {
            if let (Some(name), Some(world)) = (self.scene.name(node), self.scene.world(node)) {
                worlds.entry(name).or_insert(world);
            }
            let at = stack.len();
            stack.extend(self.scene.children(node));
            stack[at..].reverse();
        }
        worlds
    }
}
