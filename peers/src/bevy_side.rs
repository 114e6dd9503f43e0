//! Bevy's side: a `bevy_ecs` world with `bevy_transform`'s components and
//! its three propagation systems, chained as its `TransformPlugin` does,
//! with its static-scene optimisation on (`BevyWorld<true>`, its default)
//! or off (`BevyWorld<false>`).

use bevy_ecs::prelude::*;
use bevy_tasks::{ComputeTaskPool, TaskPoolBuilder};
use bevy_transform::components::{GlobalTransform, Transform};
use bevy_transform::systems::{
    StaticTransformOptimizations, mark_dirty_trees, propagate_parent_transforms,
    sync_simple_transforms,
};
use glam::{Affine3A, Vec3};

use crate::keel_side::start_local;
use crate::{Leaves, Side};

/// Gives Bevy's parallel queries `threads` threads (Keel's rayon pool has
/// as many).
pub fn init_task_pool(threads: usize) {
    ComputeTaskPool::get_or_init(|| TaskPoolBuilder::new().num_threads(threads).build());
}

/// A Bevy world, its propagation schedule, the forest's entities and the
/// spawned leaves; `STATIC`: whether Bevy's static-scene optimisation is on.
pub struct BevyWorld<const STATIC: bool> {
    world: World,
    schedule: Schedule,
    ids: Vec<Entity>,
    leaves: Leaves<Entity>,
    /// The query a batch of writes goes through (`iter_many_mut`).
    locals: QueryState<&'static mut Transform>,
}

/// Bevy's setting for the static-scene optimisation.
pub fn static_optimisation(on: bool) -> StaticTransformOptimizations {
    if on {
        StaticTransformOptimizations::Enabled
    } else {
        StaticTransformOptimizations::Disabled
    }
}

impl<const STATIC: bool> BevyWorld<STATIC> {
    fn global(&self, entity: Option<Entity>) -> Affine3A {
        let global = entity.and_then(|e| self.world.get::<GlobalTransform>(e));
        global.map_or(
            Affine3A::from_mat3(glam::Mat3::NAN),
            GlobalTransform::affine,
        )
    }
}

impl<const STATIC: bool> Side for BevyWorld<STATIC> {
    fn build(parents: &[Option<usize>], order: &[usize]) -> Self {
        let mut world = World::new();
        world.insert_resource(static_optimisation(STATIC));
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
        let locals = world.query::<&mut Transform>();
        Self {
            world,
            schedule,
            locals,
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

    fn set_many(&mut self, chosen: &[usize], x: f32) {
        let entities = chosen.iter().map(|&i| self.ids[i]);
        let mut many = self.locals.iter_many_mut(&mut self.world, entities);
        while let Some(item) = many.fetch_next() {
            if let Ok(mut local) = item {
                local.translation.x = x;
            }
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

    fn world(&self, i: usize) -> Affine3A {
        self.global(Some(self.ids[i]))
    }

    fn leaf_world(&self, leaf: usize) -> Affine3A {
        self.global(self.leaves.get(leaf))
    }
}
