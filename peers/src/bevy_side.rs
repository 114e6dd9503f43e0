//! Bevy's side: a `bevy_ecs` world with `bevy_transform`'s components and
//! its three propagation systems, chained as its `TransformPlugin` does.

use bevy_ecs::prelude::*;
use bevy_tasks::{ComputeTaskPool, TaskPoolBuilder};
use bevy_transform::components::{GlobalTransform, Transform};
use bevy_transform::systems::{
    StaticTransformOptimizations, mark_dirty_trees, propagate_parent_transforms,
    sync_simple_transforms,
};
use glam::Vec3;

use crate::keel_side::start_local;
use crate::{Leaves, Side};

/// Gives Bevy's parallel queries `threads` threads (Keel's rayon pool has
/// as many).
pub fn init_task_pool(threads: usize) {
    ComputeTaskPool::get_or_init(|| TaskPoolBuilder::new().num_threads(threads).build());
}

/// A Bevy world, its propagation schedule, the forest's entities and the
/// spawned leaves.
pub struct BevyWorld {
    world: World,
    schedule: Schedule,
    ids: Vec<Entity>,
    leaves: Leaves<Entity>,
}

impl Side for BevyWorld {
    fn build(parents: &[Option<usize>], order: &[usize]) -> Self {
        let mut world = World::new();
        world.init_resource::<StaticTransformOptimizations>();
        let mut ids: Vec<Option<Entity>> = vec![None; parents.len()];
        for &i in order {
            let (at, turn) = start_local(i);
            let local = Transform::from_translation(at).with_rotation(turn);
            let entity = match parents[i].and_then(|p| ids[p]) {
                Some(parent) => world.spawn((local, ChildOf(parent))).id(),
                None => world.spawn(local).id(),
            };
            ids[i] = Some(entity);
        }
        let mut schedule = Schedule::default();
        schedule.add_systems(
            (
                mark_dirty_trees,
                propagate_parent_transforms,
                sync_simple_transforms,
            )
                .chain(),
        );
        schedule.run(&mut world);
        world.clear_trackers();
        Self {
            world,
            schedule,
            ids: ids
                .into_iter()
                .map(|id| id.expect("every node spawned"))
                .collect(),
            leaves: Leaves::default(),
        }
    }

    fn set(&mut self, i: usize, x: f32) {
        if let Some(mut local) = self.world.get_mut::<Transform>(self.ids[i]) {
            local.translation.x = x;
        }
    }

    fn propagate(&mut self) {
        self.schedule.run(&mut self.world);
        // What `App::update` does after its schedules: change ticks and
        // removal events move on.
        self.world.clear_trackers();
    }

    fn spawn_leaf(&mut self, parent: usize) -> usize {
        let local = Transform::from_translation(Vec3::X);
        let entity = self.world.spawn((local, ChildOf(self.ids[parent]))).id();
        self.leaves.keep(entity)
    }

    fn despawn_leaf(&mut self, leaf: usize) {
        if let Some(entity) = self.leaves.take(leaf) {
            assert!(self.world.despawn(entity), "a live leaf");
        }
    }

    fn world_x(&self, i: usize) -> f32 {
        self.world
            .get::<GlobalTransform>(self.ids[i])
            .map_or(f32::NAN, |g| g.translation().x)
    }
}
