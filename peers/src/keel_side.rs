//! Keel's side: a `Scene` (the engine's own storage and propagation).

use glam::{Affine3A, Quat, Vec3};
use keel_engine::{NodeId, Scene, Transform};

use crate::{Leaves, Side};

/// A Keel scene and the handles of the forest's nodes and of spawned leaves.
pub struct KeelWorld {
    scene: Scene,
    ids: Vec<NodeId>,
    leaves: Leaves<NodeId>,
    /// The handles of a batch (kept: no allocation a round).
    batch: Vec<NodeId>,
}

/// The local transform node `i` starts with (the same on both sides).
pub fn start_local(i: usize) -> (Vec3, Quat) {
    let f = i as f32;
    (
        Vec3::new((f * 0.37).fract(), (f * 0.11).fract(), (f * 0.73).fract()),
        Quat::from_rotation_y((f * 0.13).fract()),
    )
}

impl KeelWorld {
    fn global(&self, node: Option<NodeId>) -> Affine3A {
        let world = node.and_then(|n| self.scene.world(n));
        world.unwrap_or(Affine3A::from_mat3(glam::Mat3::NAN))
    }
}

impl Side for KeelWorld {
    fn build(parents: &[Option<usize>], order: &[usize]) -> Self {
        let mut scene = Scene::new();
        let mut ids: Vec<Option<NodeId>> = vec![None; parents.len()];
        for &i in order {
            let parent = parents[i].and_then(|p| ids[p]);
            let (at, turn) = start_local(i);
            let local = Transform::from_translation(at).with_rotation(turn);
            ids[i] = Some(scene.spawn(parent, "", local).expect("spawn"));
        }
        scene.propagate();
        Self {
            scene,
            ids: ids
                .into_iter()
                .map(|id| id.expect("every node spawned"))
                .collect(),
            leaves: Leaves::default(),
            batch: Vec::new(),
        }
    }

    fn set(&mut self, i: usize, x: f32) {
        let _ = self
            .scene
            .update_local(self.ids[i], |local| local.translation.x = x);
    }

    fn set_many(&mut self, chosen: &[usize], x: f32) {
        self.batch.clear();
        self.batch.extend(chosen.iter().map(|&i| self.ids[i]));
        let set = |_, local: &mut Transform| local.translation.x = x;
        let _ = self.scene.update_locals(&self.batch, set);
    }

    fn propagate(&mut self) {
        self.scene.propagate();
    }

    fn spawn_leaf(&mut self, parent: usize) -> usize {
        let local = Transform::from_translation(Vec3::X);
        let node = self
            .scene
            .spawn(Some(self.ids[parent]), "", local)
            .expect("spawn");
        self.leaves.keep(node)
    }

    fn despawn_leaf(&mut self, leaf: usize) {
        if let Some(node) = self.leaves.take(leaf) {
            self.scene.despawn(node).expect("a live leaf");
        }
    }

    fn world(&self, i: usize) -> Affine3A {
        self.global(Some(self.ids[i]))
    }

    fn leaf_world(&self, leaf: usize) -> Affine3A {
        self.global(self.leaves.get(leaf))
    }
}
