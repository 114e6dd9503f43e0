//! Queries: how a system walks the components it updates.
//!
//! One form: [`Scene::query_each`] (and [`Scene::query_filtered`], the same
//! with filters) over a tuple of terms (`&C`, `&mut C`, `Option<&C>`,
//! `Option<&mut C>`). It borrows the typed columns once and walks their
//! packed values front to back (data locality): no allocation, no lookup or
//! dispatch per node.
//!
//! Systems keep one signature, `(scene, commands, step)`, and walk what they
//! need through a query rather than declaring their access in their
//! signature as Bevy's do. Declared access pays for a scheduler that runs
//! systems in parallel; Keel's run in one fixed order, each with the whole
//! scene, and keep their parallelism inside (propagation, particles). A query
//! moves the columns it names out of the scene for the walk and hands the
//! closure only the node and the transforms (`Transforms`), so no second
//! handle to a moved column exists to see it empty; the smallest required
//! column drives the walk and the others are found through their O(1)
//! lookup, and the columns go back before a panic unwinds on. A column read
//! or written whole, with no walk, is [`Components::parts`] and
//! [`Components::parts_mut`] (`scene.components()`).
//!
//! ```
//! use bevy_reflect::Reflect;
//! use glam::Vec3;
//! use keel_engine::{Component, Scene, Transform, World};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Clone, Debug, Default, Serialize, Deserialize, Reflect)]
//! struct Health { hp: f32 }
//! impl Component for Health { const NAME: &'static str = "health"; }
//!
//! #[derive(Clone, Debug, Default, Serialize, Deserialize, Reflect)]
//! struct Drift { velocity: Vec3 }
//! impl Component for Drift { const NAME: &'static str = "drift"; }
//!
//! let mut world = World::new(Scene::new());
//! world.register::<Health>()?;
//! world.register::<Drift>()?;
//! let scene = world.scene_mut();
//! let raft = scene.spawn(None, "raft", Transform::IDENTITY)?;
//! scene.insert(raft, Health { hp: 10.0 })?;
//! scene.insert(raft, Drift { velocity: Vec3::X })?;
//! world.systems_mut().add("weather", |scene, _, step| {
//!     // One column, whole: every health, packed.
//!     for health in scene.components_mut().parts_mut::<Health>().1 {
//!         health.hp -= step.dt;
//!     }
//!     // Two columns, for the nodes with both, moving them as it goes.
//!     scene
//!         .query_each::<(&mut Drift, &Health)>(|node, (drift, health), transforms| {
//!             drift.velocity *= health.hp / 10.0;
//!             let mut local = transforms.local(node).unwrap();
//!             local.translation += drift.velocity * step.dt;
//!             transforms.set_local(node, local).unwrap();
//!         })
//!         .unwrap();
//! })?;
//! world.step();
//! assert!(world.scene().get::<Health>(raft).unwrap().hp < 10.0);
//! assert!(world.scene().local(raft).unwrap().translation.x > 0.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`Components::parts`]: super::Components::parts
//! [`Components::parts_mut`]: super::Components::parts_mut

mod terms;

pub use terms::{Filter, Query, Term, With, Without};

use super::{NodeId, Scene, Transforms};

/// Why a query could not borrow what it asked for.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum QueryError {
    /// A component named twice among a query's terms and filters.
    #[error("query names component `{name}` twice (its terms and filters each name one type)")]
    Repeated {
        /// The component's name.
        name: &'static str,
    },
    /// A query whose terms are all optional: every node would match.
    #[error("query has no required term: name one component as `&C` or `&mut C`")]
    NothingRequired,
}

/// Runs a walk over columns moved out of the scene, catching a panic so the
/// caller puts them back before [`rethrow`] lets it unwind on.
fn caught(walk: impl FnOnce()) -> std::thread::Result<()> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(walk))
}

/// Lets a panic [`caught`] caught unwind on (the columns are back).
fn rethrow(walked: std::thread::Result<()>) {
    if let Err(payload) = walked {
        std::panic::resume_unwind(payload);
    }
}

impl Scene {
    /// Calls `update` for every node that has the components `Q` names
    /// (a tuple of `&C`, `&mut C`, `Option<&C>`, `Option<&mut C>`, up to
    /// six), with the node's transforms at hand ([`Transforms`]: read the
    /// local and world transforms, set the local). Walks the smallest
    /// required column in storage order and finds the others through their
    /// lookup: nothing is collected or allocated, and each value has one
    /// handle (the closure sees no scene, so no second, stale copy).
    ///
    /// ```
    /// use keel_engine::{Scene, Spin, Oscillate, Transform};
    /// use keel_engine::glam::Vec3;
    ///
    /// let mut scene = Scene::new();
    /// let top = scene.spawn(None, "top", Transform::IDENTITY)?;
    /// scene.insert(top, Spin { axis: Vec3::Y, rate: 1.0 })?;
    /// scene.insert(top, Oscillate::new(Vec3::Y, 0.5, 1.0, 0.0))?;
    /// scene.query_each::<(&mut Spin, Option<&Oscillate>)>(|node, (spin, osc), transforms| {
    ///     spin.rate += osc.map_or(0.0, |o| o.amplitude);
    ///     let mut local = transforms.local(node).unwrap();
    ///     local.translation.y += spin.rate;
    ///     transforms.set_local(node, local).unwrap();
    /// })?;
    /// assert_eq!(scene.get::<Spin>(top).unwrap().rate, 1.5);
    /// assert_eq!(scene.world_now(top).unwrap().translation.y, 1.5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`QueryError::Repeated`], [`QueryError::NothingRequired`].
    pub fn query_each<Q: Query>(
        &mut self,
        update: impl FnMut(NodeId, Q::Item<'_>, &mut Transforms<'_>),
    ) -> Result<(), QueryError> {
        self.query_filtered::<Q, ()>(update)
    }

    /// As [`Scene::query_each`], keeping only the nodes `F` accepts:
    /// [`With<C>`], [`Without<C>`] or a tuple of them.
    ///
    /// # Errors
    /// As [`Scene::query_each`].
    pub fn query_filtered<Q: Query, F: Filter>(
        &mut self,
        mut update: impl FnMut(NodeId, Q::Item<'_>, &mut Transforms<'_>),
    ) -> Result<(), QueryError> {
        let types = || Q::types().chain(F::types());
        for (i, (a, name)) in types().enumerate() {
            if types().skip(i + 1).any(|(b, _)| a == b) {
                return Err(QueryError::Repeated { name });
            }
        }
        let (registered, mut transforms) = self.columns_and_transforms();
        let mut columns = Q::take(registered);
        let Some(driver) = Q::driver(&columns) else {
            Q::put_back(registered, columns);
            return Err(QueryError::NothingRequired);
        };
        let walked = caught(|| {
            let filter = F::prepare(registered);
            Q::walk(
                &mut columns,
                driver,
                |node| F::keeps(&filter, node),
                |node, items| update(node, items, &mut transforms),
            );
        });
        // Back in place before a panic unwinds on: the scene loses nothing.
        Q::put_back(registered, columns);
        rethrow(walked);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::{QueryError, With, Without};
    use crate::{NodeId, Orbit, Oscillate, Scene, Spin, Transform, World};

    fn spinning(n: usize) -> (Scene, Vec<crate::NodeId>) {
        let mut scene = Scene::new();
        let nodes: Vec<_> = (0..n)
            .map(|i| {
                let node = scene
                    .spawn(None, format!("n{i}"), Transform::IDENTITY)
                    .unwrap();
                scene
                    .insert(
                        node,
                        Spin {
                            axis: Vec3::Y,
                            rate: i as f32,
                        },
                    )
                    .unwrap();
                node
            })
            .collect();
        (scene, nodes)
    }

    #[test]
    fn a_panic_inside_a_query_keeps_the_column() {
        let (scene, _) = spinning(3);
        let mut world = World::new(scene);
        world
            .systems_mut()
            .add("trip", |scene, _, _| {
                let _ = scene.query_each::<(&mut Spin,)>(|_, (spin,), _| {
                    if spin.rate == 1.0 {
                        panic!("tripped");
                    }
                    spin.rate += 10.0;
                });
            })
            .unwrap();
        world.step();
        let panic = world.take_system_panic().expect("the system panicked");
        assert_eq!(panic.system, "trip");
        let (owners, spins) = world.scene().components().parts::<Spin>();
        assert_eq!(owners.len(), 3, "every spin survives the panic");
        assert_eq!(
            spins[0].rate, 0.0,
            "the walk's writes before the panic are rolled back with its step"
        );
    }

    /// Nodes with a mix of spin, orbit and oscillate: every combination.
    fn mixed(n: usize) -> Scene {
        let mut scene = Scene::new();
        for i in 0..n {
            let node = scene
                .spawn(None, format!("n{i}"), Transform::IDENTITY)
                .unwrap();
            if i % 2 == 0 {
                scene
                    .insert(
                        node,
                        Spin {
                            axis: Vec3::Y,
                            rate: i as f32,
                        },
                    )
                    .unwrap();
            }
            if i % 3 == 0 {
                scene
                    .insert(
                        node,
                        Orbit {
                            radius: i as f32,
                            ..Orbit::default()
                        },
                    )
                    .unwrap();
            }
            if i % 5 == 0 {
                scene
                    .insert(node, Oscillate::new(Vec3::X, i as f32, 1.0, 0.0))
                    .unwrap();
            }
        }
        scene
    }

    #[test]
    fn a_three_term_query_matches_a_naive_walk() {
        let mut scene = mixed(300);
        let mut naive: Vec<(NodeId, f32)> = Vec::new();
        for node in scene.nodes().collect::<Vec<_>>() {
            if let (Some(spin), Some(orbit)) = (scene.get::<Spin>(node), scene.get::<Orbit>(node)) {
                let amplitude = scene.get::<Oscillate>(node).map_or(0.0, |o| o.amplitude);
                naive.push((node, spin.rate + orbit.radius + amplitude));
            }
        }
        let mut seen = Vec::new();
        scene
            .query_each::<(&mut Spin, &Orbit, Option<&Oscillate>)>(|node, (spin, orbit, osc), _| {
                spin.rate += orbit.radius + osc.map_or(0.0, |o| o.amplitude);
                seen.push(node);
            })
            .unwrap();
        naive.sort_by_key(|(n, _)| n.index());
        seen.sort_by_key(|n| n.index());
        assert_eq!(seen, naive.iter().map(|(n, _)| *n).collect::<Vec<_>>());
        for (node, rate) in naive {
            assert_eq!(scene.get::<Spin>(node).unwrap().rate, rate, "{node}");
        }
    }

    #[test]
    fn filters_keep_and_drop_nodes() {
        let mut scene = mixed(60);
        let count = |scene: &mut Scene, with: bool| {
            let mut n = 0;
            let counted = if with {
                scene.query_filtered::<(&Spin,), With<Orbit>>(|_, _, _| n += 1)
            } else {
                scene.query_filtered::<(&Spin,), (Without<Orbit>, Without<Oscillate>)>(|_, _, _| {
                    n += 1
                })
            };
            counted.unwrap();
            n
        };
        let with = (0..60).filter(|i| i % 2 == 0 && i % 3 == 0).count();
        let without = (0..60)
            .filter(|i| i % 2 == 0 && i % 3 != 0 && i % 5 != 0)
            .count();
        assert_eq!(count(&mut scene, true), with);
        assert_eq!(count(&mut scene, false), without);
    }

    #[test]
    fn a_query_moves_nodes_and_world_now_sees_it_before_propagation() {
        let mut scene = Scene::new();
        let parent = scene.spawn(None, "parent", Transform::IDENTITY).unwrap();
        let child = scene
            .spawn(Some(parent), "child", Transform::from_translation(Vec3::X))
            .unwrap();
        scene
            .insert(
                parent,
                Spin {
                    axis: Vec3::Y,
                    rate: 0.0,
                },
            )
            .unwrap();
        scene.propagate();
        scene
            .query_each::<(&Spin,)>(|node, _, transforms| {
                let mut local = transforms.local(node).unwrap();
                local.translation.y = 2.0;
                transforms.set_local(node, local).unwrap();
                assert_eq!(transforms.world(node).unwrap().translation.y, 0.0, "stored");
                assert_eq!(transforms.world_now(node).unwrap().translation.y, 2.0);
            })
            .unwrap();
        let now = scene.world_now(child).unwrap();
        assert_eq!(now.translation, Vec3::new(1.0, 2.0, 0.0).into());
        scene.propagate();
        assert_eq!(
            scene.world(child).unwrap(),
            now,
            "the arithmetic of propagation"
        );
    }

    #[test]
    fn queries_refuse_repeated_and_all_optional_terms_and_survive_panics() {
        let mut scene = mixed(10);
        assert_eq!(
            scene.query_each::<(&mut Spin, &Spin)>(|_, _, _| {}),
            Err(QueryError::Repeated { name: "spin" })
        );
        assert_eq!(
            scene.query_filtered::<(&Spin,), Without<Spin>>(|_, _, _| {}),
            Err(QueryError::Repeated { name: "spin" })
        );
        assert_eq!(
            scene.query_each::<(Option<&Spin>,)>(|_, _, _| {}),
            Err(QueryError::NothingRequired)
        );
        let before = scene.components().parts::<Spin>().0.len();
        let walked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = scene.query_each::<(&mut Spin, Option<&mut Orbit>)>(|_, _, _| panic!("no"));
        }));
        assert!(walked.is_err());
        assert_eq!(
            scene.components().parts::<Spin>().0.len(),
            before,
            "the columns came back"
        );
        assert_eq!(scene.components().parts::<Orbit>().0.len(), 4);
    }
}
