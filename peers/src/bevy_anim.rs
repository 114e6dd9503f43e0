//! Bevy's side of the animation row: `bevy_animation`'s player driven
//! through an `App`, the way a Bevy game plays a glTF clip, without the
//! renderer and without `bevy_gltf` (neither is built here).
//!
//! What `bevy_gltf` would make of Fox.glb is made here from the file, read
//! with the `gltf` crate: one entity per glTF node (`Transform` + `ChildOf`),
//! an `AnimationTargetId` (the hash of the names from the animation root
//! down, as `bevy_gltf` computes it) and `AnimatedBy` on the animation root
//! (the scene's `root` node) and every node under it, the `AnimationPlayer`
//! and `AnimationGraphHandle` on that root, and the Run clip built as
//! `bevy_gltf` builds a LINEAR channel: `UnevenSampleAutoCurve` of the keys
//! (slerp between rotations) behind `AnimatableCurve` of the `Transform`
//! field.
//!
//! Each `App::update` is one Bevy frame: `TimePlugin` advances time by
//! exactly 1/60 s (`TimeUpdateStrategy::ManualDuration`), `AnimationPlugin`
//! advances every player (`advance_animations`) and samples every target
//! (`animate_targets`, in parallel), then `TransformPlugin` propagates
//! (`mark_dirty_trees`, `propagate_parent_transforms`,
//! `sync_simple_transforms`), and the app's other schedules run empty.
//!
//! It lacks what needs the renderer: meshes, the skinned mesh's joint
//! matrices (`bevy_render` computes them), `Name` components (only the
//! target ids, which are made from the names, are kept).

use std::path::Path;
use std::time::Duration;

use bevy_animation::prelude::*;
use bevy_animation::{AnimatedBy, AnimationTargetId, animated_field};
use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{AssetPlugin, Assets};
use bevy_curve::UnevenSampleAutoCurve;
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_time::{TimePlugin, TimeUpdateStrategy};
use bevy_transform::TransformPlugin;
use bevy_transform::components::{GlobalTransform, Transform};
use glam::{Affine3A, Quat, Vec3};

/// A glTF node of the model, parents first.
struct Node {
    name: String,
    parent: Option<usize>,
    local: Transform,
    /// Its animation target, when it is under the animation root.
    target: Option<AnimationTargetId>,
}

/// The model read from the glTF file: its nodes (parents first), the
/// animation root's place among them, and the clip.
pub struct Fox {
    nodes: Vec<Node>,
    root: usize,
    clip: AnimationClip,
}

impl Fox {
    /// Reads the nodes of `path`'s default scene and its clip named `clip`.
    pub fn load(path: &Path, clip: &str) -> Self {
        let gltf = gltf::Gltf::open(path).expect("the glTF file reads");
        let blob = gltf.blob.as_deref();
        let scene = gltf.default_scene().expect("a default scene");
        // Depth first from the scene's roots; `at[g]` is glTF node g's place.
        let mut nodes = Vec::new();
        let mut at = vec![usize::MAX; gltf.nodes().len()];
        let mut stack: Vec<(gltf::Node, Option<usize>)> =
            scene.nodes().map(|n| (n, None)).collect();
        stack.reverse();
        while let Some((node, parent)) = stack.pop() {
            let (t, r, s) = node.transform().decomposed();
            at[node.index()] = nodes.len();
            nodes.push(Node {
                name: node.name().unwrap_or_default().to_owned(),
                parent,
                local: Transform {
                    translation: Vec3::from(t),
                    rotation: Quat::from_array(r),
                    scale: Vec3::from(s),
                },
                target: None,
            });
            let me = Some(nodes.len() - 1);
            stack.extend(
                node.children()
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .map(|c| (c, me)),
            );
        }
        let animation = (gltf.animations())
            .find(|a| a.name() == Some(clip))
            .expect("the clip is in the file");
        // The animation root, as `bevy_gltf` finds it: the scene root above
        // the animated nodes.
        let first = animation.channels().next().expect("a channel");
        let mut root = at[first.target().node().index()];
        while let Some(parent) = nodes[root].parent {
            root = parent;
        }
        // Target ids: the names from the animation root down, for the root
        // and the nodes under it (parents come first).
        let mut paths: Vec<Option<Vec<Name>>> = Vec::with_capacity(nodes.len());
        for (i, node) in nodes.iter_mut().enumerate() {
            let above = match node.parent {
                _ if i == root => Some(Vec::new()),
                Some(parent) => paths[parent].clone(),
                None => None,
            };
            let path = above.map(|mut path| {
                path.push(Name::new(node.name.clone()));
                path
            });
            node.target = (path.as_ref()).map(|p| AnimationTargetId::from_names(p.iter()));
            paths.push(path);
        }
        let mut bevy_clip = AnimationClip::default();
        for channel in animation.channels() {
            let node = at[channel.target().node().index()];
            let target = nodes[node].target.expect("an animated node is a target");
            let reader = channel.reader(|_| blob);
            let times: Vec<f32> = reader.read_inputs().expect("key times").collect();
            use gltf::animation::util::ReadOutputs;
            match reader.read_outputs().expect("key values") {
                ReadOutputs::Translations(values) => {
                    let keys = times.iter().copied().zip(values.map(Vec3::from));
                    let curve = UnevenSampleAutoCurve::new(keys).expect("keys in order");
                    let field = animated_field!(Transform::translation);
                    bevy_clip.add_curve_to_target(target, AnimatableCurve::new(field, curve));
                }
                ReadOutputs::Rotations(values) => {
                    let values = values.into_f32().map(Quat::from_array);
                    let curve = UnevenSampleAutoCurve::new(times.iter().copied().zip(values))
                        .expect("keys in order");
                    let field = animated_field!(Transform::rotation);
                    bevy_clip.add_curve_to_target(target, AnimatableCurve::new(field, curve));
                }
                ReadOutputs::Scales(values) => {
                    let keys = times.iter().copied().zip(values.map(Vec3::from));
                    let curve = UnevenSampleAutoCurve::new(keys).expect("keys in order");
                    let field = animated_field!(Transform::scale);
                    bevy_clip.add_curve_to_target(target, AnimatableCurve::new(field, curve));
                }
                ReadOutputs::MorphTargetWeights(_) => {}
            }
        }
        Self {
            nodes,
            root,
            clip: bevy_clip,
        }
    }

    /// The clip's length, seconds.
    pub fn duration(&self) -> f32 {
        self.clip.duration()
    }
}

/// A Bevy app holding the crowd, and each rig's entities (the rig's own
/// entity, then one per model node).
pub struct BevyCrowd {
    app: App,
    per_rig: usize,
    ids: Vec<Entity>,
    names: Vec<String>,
}

impl BevyCrowd {
    /// Spawns a rig per `(place, phase)` playing `fox`'s clip on repeat from
    /// `phase` seconds, and runs the first update (time starts: no step);
    /// `static_scene`: Bevy's static-scene optimisation on (its default).
    pub fn build(fox: &Fox, rigs: &[(Vec3, f64)], static_scene: bool) -> Self {
        let mut app = App::new();
        // The compute pool is already built with every core
        // (`bevy_side::init_task_pool`); this adds the IO and async pools.
        app.add_plugins((
            TaskPoolPlugin::default(),
            TimePlugin,
            AssetPlugin::default(),
            TransformPlugin,
            AnimationPlugin,
        ));
        app.insert_resource(crate::bevy_side::static_optimisation(static_scene));
        app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            1.0 / 60.0,
        )));
        let world = app.world_mut();
        let clip = world
            .resource_mut::<Assets<AnimationClip>>()
            .add(fox.clip.clone());
        let (graph, node) = AnimationGraph::from_clip(clip);
        let graph = world.resource_mut::<Assets<AnimationGraph>>().add(graph);
        let per_rig = fox.nodes.len() + 1;
        let mut ids = Vec::with_capacity(rigs.len() * per_rig);
        for &(place, phase) in rigs {
            let rig = world.spawn(Transform::from_translation(place)).id();
            ids.push(rig);
            let first = ids.len();
            for (i, n) in fox.nodes.iter().enumerate() {
                let parent = n.parent.map_or(rig, |p| ids[first + p]);
                let mut entity = world.spawn((n.local, ChildOf(parent)));
                if let Some(target) = n.target {
                    // Under the root, which comes first (parents first).
                    let player = ids.get(first + fox.root).copied();
                    entity.insert((target, AnimatedBy(player.unwrap_or(entity.id()))));
                }
                if i == fox.root {
                    let mut player = AnimationPlayer::default();
                    let seek = phase.rem_euclid(f64::from(fox.duration())) as f32;
                    player.play(node).repeat().set_seek_time(seek);
                    entity.insert((player, AnimationGraphHandle(graph.clone())));
                }
                ids.push(entity.id());
            }
        }
        app.finish();
        app.cleanup();
        // The first update starts the clock (no time passes) and propagates.
        app.update();
        Self {
            app,
            per_rig,
            ids,
            names: fox.nodes.iter().map(|n| n.name.clone()).collect(),
        }
    }

    /// One frame: time advances 1/60 s, every clip is sampled, the bones
    /// written, and world transforms propagated.
    pub fn frame(&mut self) {
        self.app.update();
    }

    /// The model's node names, in the order [`BevyCrowd::world`] takes them.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// World transform of model node `node` (an index into
    /// [`BevyCrowd::names`]) in rig `rig`.
    pub fn world(&self, rig: usize, node: usize) -> Affine3A {
        let entity = self.ids[rig * self.per_rig + 1 + node];
        let world = self.app.world().get::<GlobalTransform>(entity);
        world.map_or(
            Affine3A::from_mat3(glam::Mat3::NAN),
            GlobalTransform::affine,
        )
    }
}
