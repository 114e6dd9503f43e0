//! The simulation: a scene's bodies and colliders as rapier's, stepped once
//! per fixed step at one place in it (after the systems and their commands,
//! before the colliders and the mesh index re-file), fed by the dirty flag.
//!
//! - **By change.** After every propagation (a step's, an editor edit's) the
//!   world hands over the nodes it recomputed: a kinematic body is driven to
//!   its node's new place, a fixed body or a collider without a body is
//!   placed there, a dynamic body whose node something other than the
//!   simulation moved (game code, the editor, a moving parent) is
//!   teleported. Nothing else is read: sleeping bodies and still colliders
//!   cost nothing a step.
//! - **Edits of the columns.** When the `body` or `collider` column's stamp
//!   changes (one added, removed, edited, a node despawned), each body and
//!   collider is compared with what was applied and only the difference is
//!   made: new ones created, gone ones removed, edited ones changed.
//! - **Write-back.** After the step each awake dynamic body's pose is written
//!   to its node's local transform (world to local under its parent; the
//!   node's world scale kept), which the next propagation spreads.
//! - **Reproducible.** The whole of rapier's state (bodies, colliders,
//!   contacts with their warm-start impulses, islands, sleep) is cloned into
//!   keyframes and snapshots, and its bodies hash into the world's state:
//!   a seek or a Reset steps on exactly as the run did. `PhysicsPipeline`
//!   holds only scratch space and is made afresh. rapier is built with
//!   `enhanced-determinism` (libm, no SIMD, no threads): the same bits on
//!   every target.
//!
//! A collider goes with the body on its own node, or stands alone (fixed)
//! when its node has none. A dynamic body without a collider (or with one
//! of density 0) has no mass and, rapier's gravity being a force, floats
//! until something gives it a velocity; a warning says so when it is made. A body under a moving body follows
//! its parent's world as of the step's start.

use glam::{Affine3A, Vec3};
use rapier3d::math::Pose;
use rapier3d::prelude::{
    ActiveEvents, BroadPhaseBvh, CCDSolver, ColliderBuilder, ColliderHandle, ColliderSet, Group,
    ImpulseJointHandle, ImpulseJointSet, IntegrationParameters, InteractionGroups,
    InteractionTestMode, IslandManager, LockedAxes, MultibodyJointSet, NarrowPhase, PairContacts,
    PhysicsPipeline, RigidBody, RigidBodyBuilder, RigidBodyHandle, RigidBodySet, RigidBodyType,
    SoftBodySet,
};

use super::events::{Collision, Reports, collision};
use super::push::Forced;
use super::shape::shared_shape;
use crate::scene::body::{Axes, Body, BodyKind};
use crate::scene::collider::Collider;
use crate::scene::joint::Joint;
use crate::scene::{Column, NodeId, Scene};
use crate::transform::Transform;

/// The gravity a world starts with: Earth's, down the Y axis.
pub const GRAVITY: Vec3 = Vec3::new(0.0, -9.81, 0.0);

/// A column's stamp (`Column::stamp`).
type Stamp = (u64, u64);

/// A collider as made in rapier.
#[derive(Clone, Copy, Debug)]
pub(super) struct LinkedCollider {
    pub(super) handle: ColliderHandle,
    config: Collider,
    /// The world scale its sizes were made at.
    scale: Vec3,
    /// Whether it went with its node's body.
    on_body: bool,
}

/// A joint as made in rapier (`joints.rs` makes and unmakes them).
#[derive(Clone, Debug)]
pub(super) struct LinkedJoint {
    pub(super) handle: ImpulseJointHandle,
    pub(super) config: Joint,
    /// The two bodies it joins.
    pub(super) bodies: [RigidBodyHandle; 2],
    /// The fixed body made for a joint to the world.
    pub(super) anchor: Option<RigidBodyHandle>,
}

/// What a node with a body or a collider has in rapier.
#[derive(Clone, Debug, Default)]
pub(super) struct Link {
    pub(super) body: Option<(RigidBodyHandle, Body)>,
    pub(super) collider: Option<LinkedCollider>,
    /// Its joint to another body or the world (`joints.rs`).
    pub(super) joint: Option<LinkedJoint>,
    /// The node's world as the simulation last took it in (made, placed,
    /// or as a dynamic body's write-back left it after its propagation): a
    /// propagation that recomputed the node to the same world changes
    /// nothing, any other world is a move by something else.
    seen: Option<Affine3A>,
    /// The world scale of `seen` (kept by the write-back, which moves and
    /// turns a body but never scales it).
    scale: Vec3,
    /// Written back by the last step, its propagation not yet seen.
    writing: bool,
}

/// rapier's whole state, cloned into keyframes.
#[derive(Clone)]
pub(super) struct State {
    pub(super) gravity: Vec3,
    pub(super) params: IntegrationParameters,
    pub(super) islands: IslandManager,
    pub(super) broad: BroadPhaseBvh,
    pub(super) narrow: NarrowPhase,
    pub(super) bodies: RigidBodySet,
    pub(super) colliders: ColliderSet,
    pub(super) impulse_joints: ImpulseJointSet,
    pub(super) multibody_joints: MultibodyJointSet,
    pub(super) soft_bodies: SoftBodySet,
    pub(super) ccd: CCDSolver,
    pub(super) links: Column<Link>,
    /// The `body`, `collider` and `joint` columns' stamps when last compared.
    stamps: [Option<Stamp>; 3],
    /// Colliders removed since the last step, with their nodes and whether
    /// each was a sensor: the step reports what they stopped touching.
    removed: Vec<(ColliderHandle, NodeId, bool)>,
}

/// `node`'s link, made empty if it has none.
fn link_mut(links: &mut Column<Link>, node: NodeId) -> &mut Link {
    if !links.contains(node) {
        links.insert(node, Link::default());
    }
    links.get_mut(node).expect("inserted above")
}

impl State {
    /// Puts `node`'s `collider` into rapier, on `body` or standing alone
    /// where `world` places it; `None` when its shape cannot be made (sizes
    /// not finite, a mesh shape refused: a warning says why).
    fn make_collider(
        &mut self,
        scene: &Scene,
        node: NodeId,
        collider: &Collider,
        world: &Affine3A,
        body: Option<RigidBodyHandle>,
    ) -> Option<LinkedCollider> {
        let (scale, _, _) = world.to_scale_rotation_translation();
        let shape = match shared_shape(collider, scale, scene, node) {
            Ok(shape) => shape,
            Err(why) => {
                log::warn!(
                    "the collider of {} is not simulated: {why}",
                    scene.name(node).unwrap_or("a node")
                );
                return None;
            }
        };
        let groups = InteractionGroups::new(
            Group::from_bits_retain(collider.layers.membership),
            Group::from_bits_retain(collider.layers.filter),
            InteractionTestMode::And,
        );
        let built = ColliderBuilder::new(shape)
            .sensor(collider.sensor)
            .friction(collider.friction)
            .restitution(collider.restitution)
            .density(collider.density)
            .collision_groups(groups)
            .active_events(ActiveEvents::COLLISION_EVENTS)
            .user_data(user_data(node));
        let handle = match body {
            Some(body) => self
                .colliders
                .insert_with_parent(built, body, &mut self.bodies),
            None => self.colliders.insert(built.position(pose_of(world))),
        };
        Some(LinkedCollider {
            handle,
            config: *collider,
            scale,
            on_body: body.is_some(),
        })
    }

    /// Takes `node`'s collider out of rapier, waking what it touched.
    fn remove_collider(&mut self, node: NodeId, handle: ColliderHandle) {
        let s = self;
        if let Some(c) = s.colliders.get(handle) {
            s.removed.push((handle, node, c.is_sensor()));
        }
        s.colliders.remove(
            handle,
            &mut s.islands,
            &mut s.bodies,
            &mut s.soft_bodies,
            true,
        );
    }
}

/// A world's physics: its bodies and colliders simulated (see the module).
pub struct Physics {
    pub(super) state: State,
    /// Scratch space only (rapier's own word); not part of the state.
    pipeline: PhysicsPipeline,
    /// The step's touch reports (scratch, empty between steps).
    reports: Reports,
    /// The last step's touches, for the world to send (scratch).
    touches: Vec<Collision>,
    /// Bodies pushed by a force this step (scratch, empty between steps).
    pub(super) forced: Forced,
}

impl Clone for Physics {
    fn clone(&self) -> Self {
        Self {
            state: self.state.clone(),
            pipeline: PhysicsPipeline::new(),
            reports: Reports::default(),
            touches: Vec::new(),
            forced: Forced::new(),
        }
    }
}

impl std::fmt::Debug for Physics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Physics")
            .field("gravity", &self.state.gravity)
            .field("bodies", &self.state.bodies.len())
            .field("colliders", &self.state.colliders.len())
            .field("awake", &self.awake())
            .finish()
    }
}

impl Default for Physics {
    fn default() -> Self {
        Self::new()
    }
}

impl Physics {
    /// Nothing simulated, [`GRAVITY`].
    pub fn new() -> Self {
        Self {
            state: State {
                gravity: GRAVITY,
                params: IntegrationParameters::default(),
                islands: IslandManager::new(),
                broad: BroadPhaseBvh::new(),
                narrow: NarrowPhase::new(),
                bodies: RigidBodySet::new(),
                colliders: ColliderSet::new(),
                impulse_joints: ImpulseJointSet::new(),
                multibody_joints: MultibodyJointSet::new(),
                soft_bodies: SoftBodySet::new(),
                ccd: CCDSolver::new(),
                links: Column::default(),
                stamps: [None; 3],
                removed: Vec::new(),
            },
            pipeline: PhysicsPipeline::new(),
            reports: Reports::default(),
            touches: Vec::new(),
            forced: Forced::new(),
        }
    }

    /// The gravity pulling dynamic bodies, metres a second squared.
    pub fn gravity(&self) -> Vec3 {
        self.state.gravity
    }

    /// Sets the gravity (state: a recording keeps it).
    pub fn set_gravity(&mut self, gravity: Vec3) {
        if gravity.is_finite() {
            self.state.gravity = gravity;
        }
    }

    /// Bodies simulated.
    pub fn bodies(&self) -> usize {
        self.state.bodies.len()
    }

    /// Colliders simulated (with a body or standing alone).
    pub fn colliders(&self) -> usize {
        self.state.colliders.len()
    }

    /// Joints simulated.
    pub fn joints(&self) -> usize {
        self.state.impulse_joints.len()
    }

    /// Bodies awake (moving, or not yet settled).
    pub fn awake(&self) -> usize {
        self.state.islands.num_active_bodies()
    }

    /// `node`'s body's velocity and spin (world axes), if it has a body.
    pub fn velocity(&self, node: NodeId) -> Option<(Vec3, Vec3)> {
        let (handle, _) = self.state.links.get(node)?.body?;
        let body = self.state.bodies.get(handle)?;
        Some((body.linvel(), body.angvel()))
    }

    /// `node`'s body's mass, kilograms, if it has a body.
    pub fn mass(&self, node: NodeId) -> Option<f32> {
        let (handle, _) = self.state.links.get(node)?.body?;
        Some(self.state.bodies.get(handle)?.mass())
    }

    /// Whether `node`'s body sleeps (settled: costs nothing until woken).
    pub fn is_sleeping(&self, node: NodeId) -> Option<bool> {
        let (handle, _) = self.state.links.get(node)?.body?;
        Some(self.state.bodies.get(handle)?.is_sleeping())
    }

    /// Calls `each` with every contact point of the last step (touching or
    /// about to) and its normal (world space, from the first collider
    /// towards the second).
    pub fn each_contact(&self, mut each: impl FnMut(Vec3, Vec3)) {
        let s = &self.state;
        for pair in s.narrow.contact_pairs() {
            let (Some(first), PairContacts::Rigid(contacts)) =
                (s.colliders.get(pair.collider1), &pair.contacts)
            else {
                continue;
            };
            for manifold in &contacts.manifolds {
                // Touching or within the prediction distance: what the
                // solver holds apart.
                for point in &manifold.points {
                    each(first.position() * point.local_p1, manifold.data.normal);
                }
            }
        }
    }

    /// Brings the simulation in step with `scene` after a propagation: the
    /// columns' edits (by stamp), then the nodes it recomputed (read, not
    /// consumed).
    pub(crate) fn sync(&mut self, scene: &Scene) {
        let components = scene.components();
        let stamps = [
            components.column::<Body>().map(Column::stamp),
            components.column::<Collider>().map(Column::stamp),
            components.column::<Joint>().map(Column::stamp),
        ];
        if stamps != self.state.stamps {
            self.state.stamps = stamps;
            self.reconcile(scene);
        }
        if self.state.links.is_empty() {
            return;
        }
        for node in scene.changed_nodes() {
            if self.state.links.contains(node) {
                self.follow(scene, node);
            }
        }
    }

    /// Makes the difference between the scene's bodies and colliders and
    /// rapier's. A scene without bodies has nothing simulated (its
    /// colliders serve queries alone, and cost the step nothing).
    fn reconcile(&mut self, scene: &Scene) {
        let components = scene.components();
        let (bodies, colliders) = (components.column::<Body>(), components.column::<Collider>());
        if bodies.is_none_or(Column::is_empty) {
            if !self.state.links.is_empty() {
                let (gravity, stamps) = (self.state.gravity, self.state.stamps);
                *self = Self::new();
                self.state.gravity = gravity;
                self.state.stamps = stamps;
            }
            return;
        }
        let s = &mut self.state;
        // Gone: links whose node lost its body or collider (or is despawned).
        let gone: Vec<(NodeId, bool, bool)> = s
            .links
            .iter()
            .map(|(node, link)| {
                let body_gone = link.body.is_some() && !bodies.is_some_and(|c| c.contains(node));
                let collider_gone = link.collider.is_some_and(|c| {
                    !colliders.is_some_and(|col| col.contains(node)) || c.on_body && body_gone
                });
                (node, body_gone, collider_gone)
            })
            .filter(|&(_, b, c)| b || c)
            .collect();
        for (node, body_gone, collider_gone) in gone {
            let link = s.links.get_mut(node).expect("listed above");
            let collider = link.collider.take_if(|_| collider_gone);
            let body = link.body.take_if(|_| body_gone);
            let joint = if body.is_some() {
                link.seen = None;
                link.joint.take()
            } else {
                None
            };
            if link.body.is_none() && link.collider.is_none() {
                s.links.remove(node);
            }
            if let Some(c) = collider {
                s.remove_collider(node, c.handle);
            }
            if let Some(joint) = joint {
                s.remove_joint(&joint);
            }
            if let Some((handle, _)) = body {
                s.bodies.remove(
                    handle,
                    &mut s.islands,
                    &mut s.colliders,
                    &mut s.impulse_joints,
                    &mut s.multibody_joints,
                    &mut s.soft_bodies,
                    true,
                );
            }
        }
        // Bodies: new ones made, edited ones changed.
        let mut made = Vec::new();
        for (node, body) in bodies.into_iter().flat_map(|c| c.iter()) {
            let Some(world) = scene.world(node) else {
                continue;
            };
            let link = link_mut(&mut s.links, node);
            match link.body {
                Some((_, applied)) if applied == *body => {}
                Some((handle, applied)) => {
                    if let Some(rb) = s.bodies.get_mut(handle) {
                        apply(rb, body, Some(&applied));
                    }
                    link.body = Some((handle, *body));
                }
                None => {
                    let mut rb = RigidBodyBuilder::new(body_type(body.kind))
                        .pose(pose_of(&world))
                        .user_data(user_data(node))
                        .build();
                    apply(&mut rb, body, None);
                    let handle = s.bodies.insert(rb);
                    made.push((node, handle));
                    link.body = Some((handle, *body));
                    link.seen = Some(world);
                    link.scale = world.to_scale_rotation_translation().0;
                    // A collider standing alone goes with the body now.
                    if let Some(c) = link.collider.take() {
                        s.remove_collider(node, c.handle);
                    }
                }
            }
        }
        // Colliders: made, remade when edited.
        for (node, collider) in colliders.into_iter().flat_map(|c| c.iter()) {
            let Some(world) = scene.world(node) else {
                continue;
            };
            let link = link_mut(&mut s.links, node);
            let body = link.body.map(|(handle, _)| handle);
            if link
                .collider
                .is_some_and(|c| c.config == *collider && c.on_body == body.is_some())
            {
                continue;
            }
            if let Some(c) = link.collider.take() {
                s.remove_collider(node, c.handle);
            }
            match s.make_collider(scene, node, collider, &world, body) {
                Some(made) => {
                    let link = link_mut(&mut s.links, node);
                    if body.is_none() {
                        link.seen = Some(world);
                        link.scale = world.to_scale_rotation_translation().0;
                    }
                    link.collider = Some(made);
                }
                None if body.is_none() => {
                    s.links.remove(node);
                }
                None => {}
            }
        }
        for (node, handle) in made {
            if s.bodies
                .get(handle)
                .is_some_and(|rb| rb.is_dynamic() && rb.mass() == 0.0)
            {
                log::warn!(
                    "the dynamic body of {} has no mass (no collider, or density 0): gravity does not pull it",
                    scene.name(node).unwrap_or("a node")
                );
            }
        }
        s.reconcile_joints(scene);
    }

    /// `node` was recomputed by a propagation: its body or collider follows.
    fn follow(&mut self, scene: &Scene, node: NodeId) {
        let s = &mut self.state;
        let (Some(world), Some(link)) = (scene.world(node), s.links.get_mut(node)) else {
            return;
        };
        if link.writing {
            // The write-back's own propagation: nothing to take in.
            link.writing = false;
            link.seen = Some(world);
            return;
        }
        if link.seen == Some(world) {
            return;
        }
        link.seen = Some(world);
        let (scale, _, _) = world.to_scale_rotation_translation();
        link.scale = scale;
        if let Some(c) = link.collider.as_mut()
            && c.scale != scale
            && let (Ok(shape), Some(rc)) = (
                shared_shape(&c.config, scale, scene, node),
                s.colliders.get_mut(c.handle),
            )
        {
            rc.set_shape(shape);
            c.scale = scale;
        }
        let pose = pose_of(&world);
        match link.body {
            Some((handle, body)) => {
                let Some(rb) = s.bodies.get_mut(handle) else {
                    return;
                };
                match body.kind {
                    BodyKind::Kinematic => rb.set_next_kinematic_position(pose),
                    // Placed anew, or teleported.
                    BodyKind::Fixed | BodyKind::Dynamic => rb.set_position(pose, true),
                }
            }
            None => {
                if let Some(rc) = link.collider.and_then(|c| s.colliders.get_mut(c.handle)) {
                    rc.set_position(pose);
                }
            }
        }
    }

    /// One step of `dt` seconds, then each awake dynamic body's pose written
    /// to its node (the caller propagates). With `touches`, the step's
    /// touches wait in [`Physics::take_touches`] for the world to send.
    /// Returns the nodes written; a world without bodies does nothing.
    pub(crate) fn step(&mut self, dt: f32, scene: &mut Scene, touches: bool) -> usize {
        let s = &mut self.state;
        if s.links.is_empty() {
            return 0;
        }
        s.params.dt = dt;
        self.pipeline.step(
            s.gravity,
            &s.params,
            &mut s.islands,
            &mut s.broad,
            &mut s.narrow,
            &mut s.bodies,
            &mut s.colliders,
            &mut s.impulse_joints,
            &mut s.multibody_joints,
            &mut s.soft_bodies,
            &mut s.ccd,
            &(),
            &self.reports,
        );
        self.unforce();
        let s = &mut self.state;
        if touches {
            let known = |h: ColliderHandle| {
                s.colliders
                    .get(h)
                    .map(|c| (node_of(c.user_data), c.is_sensor()))
                    .or_else(|| {
                        s.removed
                            .iter()
                            .find(|r| r.0 == h)
                            .map(|&(_, node, sensor)| (node, sensor))
                    })
            };
            for report in self.reports.drain() {
                let touch = collision(
                    report,
                    |h| known(h).map(|(node, _)| node),
                    |h| known(h).is_some_and(|(_, sensor)| sensor),
                );
                self.touches.extend(touch);
            }
        } else {
            self.reports.drain();
        }
        s.removed.clear();
        let mut written = 0;
        for handle in s.islands.active_bodies() {
            let Some(rb) = s.bodies.get(handle).filter(|rb| rb.is_dynamic()) else {
                continue;
            };
            let node = node_of(rb.user_data);
            let Some(link) = s.links.get_mut(node) else {
                continue;
            };
            let (pose, scale) = (rb.position(), link.scale);
            let local = match scene.parent(node).and_then(|p| scene.world(p)) {
                Some(parent) => Transform::from_affine(
                    parent.inverse()
                        * Affine3A::from_scale_rotation_translation(
                            scale,
                            pose.rotation,
                            pose.translation,
                        ),
                ),
                // A root's local is its world: nothing to take apart.
                None => Transform {
                    translation: pose.translation,
                    rotation: pose.rotation,
                    scale,
                },
            };
            // A transform that is not finite is refused: the node stays.
            if matches!(scene.set_local(node, local), Ok(true)) {
                link.writing = true;
                written += 1;
            }
        }
        written
    }

    /// The last step's touches, in rapier's order (`events.rs`).
    pub(crate) fn take_touches(&mut self) -> std::vec::Drain<'_, Collision> {
        self.touches.drain(..)
    }

    /// Hash of the simulated state: every body's pose, velocities and
    /// sleep, in link order (0 for a world with nothing simulated, so
    /// recordings made before physics compare equal).
    pub(crate) fn state_hash(&self) -> u64 {
        let s = &self.state;
        if s.links.is_empty() {
            return 0;
        }
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        for (node, link) in s.links.iter() {
            hasher.update(&u64::from(node.index()).to_le_bytes());
            hasher.update(&u64::from(node.generation()).to_le_bytes());
            let Some(rb) = link.body.and_then(|(h, _)| s.bodies.get(h)) else {
                continue;
            };
            let pose = rb.position();
            let numbers: [Vec3; 4] = [
                pose.translation,
                pose.rotation.xyz(),
                rb.linvel(),
                rb.angvel(),
            ];
            hasher.update(bytemuck::bytes_of(&numbers));
            hasher.update(&pose.rotation.w.to_le_bytes());
            hasher.update(&[u8::from(rb.is_sleeping())]);
        }
        hasher.update(bytemuck::bytes_of(&s.gravity));
        hasher.digest()
    }

    /// About the bytes a clone holds (a keyframe's charge).
    pub(crate) fn bytes(&self) -> usize {
        let s = &self.state;
        s.bodies.len() * size_of::<RigidBody>()
            + s.colliders.len() * (size_of::<rapier3d::prelude::Collider>() + 64)
            + s.narrow.contact_pairs().count() * size_of::<rapier3d::prelude::ContactPair>()
            + s.links.len() * size_of::<Link>()
    }
}

/// rapier's kind for a body's.
fn body_type(kind: BodyKind) -> RigidBodyType {
    match kind {
        BodyKind::Dynamic => RigidBodyType::Dynamic,
        BodyKind::Kinematic => RigidBodyType::KinematicPositionBased,
        BodyKind::Fixed => RigidBodyType::Fixed,
    }
}

/// Applies what `body` says to `rb`; the velocities only where they differ
/// from `applied` (the values applied last: an edit sets them, the
/// simulation's own are kept otherwise).
fn apply(rb: &mut RigidBody, body: &Body, applied: Option<&Body>) {
    if applied.is_none_or(|a| a.kind != body.kind) {
        rb.set_body_type(body_type(body.kind), true);
    }
    rb.set_linear_damping(body.linear_damping);
    rb.set_angular_damping(body.angular_damping);
    rb.set_gravity_scale(body.gravity_scale, true);
    rb.enable_ccd(body.ccd);
    rb.set_locked_axes(locked(body.lock_translation, body.lock_rotation), true);
    if applied.is_none_or(|a| a.linear_velocity != body.linear_velocity) {
        rb.set_linvel(body.linear_velocity, true);
    }
    if applied.is_none_or(|a| a.angular_velocity != body.angular_velocity) {
        rb.set_angvel(body.angular_velocity, true);
    }
}

fn locked(translation: Axes, rotation: Axes) -> LockedAxes {
    let mut axes = LockedAxes::empty();
    for (on, flag) in [
        (translation.x, LockedAxes::TRANSLATION_LOCKED_X),
        (translation.y, LockedAxes::TRANSLATION_LOCKED_Y),
        (translation.z, LockedAxes::TRANSLATION_LOCKED_Z),
        (rotation.x, LockedAxes::ROTATION_LOCKED_X),
        (rotation.y, LockedAxes::ROTATION_LOCKED_Y),
        (rotation.z, LockedAxes::ROTATION_LOCKED_Z),
    ] {
        if on {
            axes |= flag;
        }
    }
    axes
}

/// A node's world as a pose (its scale left to the shapes' sizes).
fn pose_of(world: &Affine3A) -> Pose {
    let (_, rotation, translation) = world.to_scale_rotation_translation();
    Pose::from_parts(translation, rotation.normalize())
}

/// A node as rapier's user data, and back.
fn user_data(node: NodeId) -> u128 {
    u128::from(node.index()) | u128::from(node.generation()) << 32
}

fn node_of(data: u128) -> NodeId {
    let generation =
        std::num::NonZeroU32::new((data >> 32) as u32).unwrap_or(std::num::NonZeroU32::MIN);
    NodeId::new(data as u32, generation)
}
