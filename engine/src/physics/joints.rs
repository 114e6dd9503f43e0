//! Joints in the simulation: each `joint` component made as one of
//! rapier's impulse joints between its node's body and the body its
//! `other` names (or a fixed body standing where the node stood, for a
//! joint to the world), remade when the component, either body or the
//! reference's target changes (`scene/joint.rs` says what a joint is).
//!
//! The joint's frame is the anchor, its X axis turned onto the joint's
//! axis, in this body's space (scaled by the node's world scale, as
//! shapes are); the other body's frame is the same world frame in its
//! space as the two stood when the joint was made, so it starts at rest.
//! A joint whose node has no body, or whose `other` names a node that is
//! gone or has no body, is not made: a warning names the node.

use glam::{Quat, Vec3};
use rapier3d::math::Pose;
use rapier3d::prelude::{
    GenericJoint, JointAxesMask, JointAxis, RigidBodyBuilder, RigidBodyHandle,
};

use super::bodies::{LinkedJoint, State};
use crate::scene::joint::{Joint, JointKind};
use crate::scene::{NodeId, Scene};

impl State {
    /// Makes the difference between the scene's joints and rapier's (after
    /// the bodies are made: the column stamps changed).
    pub(super) fn reconcile_joints(&mut self, scene: &Scene) {
        let joints = scene.components().column::<Joint>();
        // Unmade: links whose joint is gone, edited, or between other bodies now.
        let stale: Vec<NodeId> = self
            .links
            .iter()
            .filter(|(node, link)| {
                link.joint.as_ref().is_some_and(|made| {
                    let wanted = joints.and_then(|c| c.get(*node));
                    wanted != Some(&made.config)
                        || self.joined(scene, *node, &made.config).map(|(b, _)| b)
                            != Some(made.bodies)
                        || !self.impulse_joints.contains(made.handle)
                })
            })
            .map(|(node, _)| node)
            .collect();
        for node in stale {
            if let Some(made) = self.links.get_mut(node).and_then(|l| l.joint.take()) {
                self.remove_joint(&made);
            }
        }
        for (node, joint) in joints.into_iter().flat_map(|c| c.iter()) {
            if self.links.get(node).is_some_and(|l| l.joint.is_some()) {
                continue;
            }
            let Some((bodies, to_world)) = self.joined(scene, node, joint) else {
                let name = scene.name(node).unwrap_or("a node");
                log::warn!(
                    "the joint of {name} is not made: {}",
                    if self.links.get(node).is_none_or(|l| l.body.is_none()) {
                        "its node has no body"
                    } else {
                        "its `other` names a node that is gone or has no body"
                    }
                );
                continue;
            };
            let made = self.make_joint(scene, node, joint, bodies, to_world);
            if let Some(link) = self.links.get_mut(node) {
                link.joint = made;
            }
        }
    }

    /// The bodies `node`'s `joint` joins (the second its node's own when
    /// the joint is to the world, to be replaced by a fixed anchor), and
    /// whether it is to the world; `None` when it cannot be made.
    fn joined(
        &self,
        scene: &Scene,
        node: NodeId,
        joint: &Joint,
    ) -> Option<([RigidBodyHandle; 2], bool)> {
        let own = self.links.get(node)?.body?.0;
        if joint.other.is_none() {
            return Some(([own, own], true));
        }
        let other = joint.other.get(scene)?;
        let theirs = self.links.get(other)?.body?.0;
        (theirs != own).then_some(([own, theirs], false))
    }

    fn make_joint(
        &mut self,
        scene: &Scene,
        node: NodeId,
        joint: &Joint,
        [own, theirs]: [RigidBodyHandle; 2],
        to_world: bool,
    ) -> Option<LinkedJoint> {
        let world = scene.world(node)?;
        let (scale, _, _) = world.to_scale_rotation_translation();
        let own_pose = *self.bodies.get(own)?.position();
        let axis = (joint.axis * scale).normalize_or(Vec3::X);
        let own_frame =
            Pose::from_parts(joint.anchor * scale, Quat::from_rotation_arc(Vec3::X, axis));
        let (theirs, anchor) = if to_world {
            let fixed = self
                .bodies
                .insert(RigidBodyBuilder::fixed().pose(own_pose).build());
            (fixed, Some(fixed))
        } else {
            (theirs, None)
        };
        // rapier measures its second body from its first: this node's
        // turn or slide is what the limits bound.
        let their_frame = self.bodies.get(theirs)?.position().inverse() * own_pose * own_frame;
        let mut made = GenericJoint::new(match joint.kind {
            JointKind::Fixed => JointAxesMask::LOCKED_FIXED_AXES,
            JointKind::Revolute => JointAxesMask::LOCKED_REVOLUTE_AXES,
            JointKind::Prismatic => JointAxesMask::LOCKED_PRISMATIC_AXES,
            JointKind::Spherical => JointAxesMask::LOCKED_SPHERICAL_AXES,
        });
        made.set_local_frame1(their_frame)
            .set_local_frame2(own_frame)
            .set_contacts_enabled(joint.contacts);
        if joint.limited {
            let limits = [joint.limits.x, joint.limits.y];
            match joint.kind {
                JointKind::Revolute => {
                    made.set_limits(JointAxis::AngX, limits);
                }
                JointKind::Prismatic => {
                    made.set_limits(JointAxis::LinX, limits);
                }
                JointKind::Fixed | JointKind::Spherical => {}
            }
        }
        let handle = self.impulse_joints.insert(theirs, own, made, true);
        Some(LinkedJoint {
            handle,
            config: joint.clone(),
            bodies: [own, if to_world { own } else { theirs }],
            anchor,
        })
    }

    /// Takes a joint out of rapier (with the fixed body of one to the world).
    pub(super) fn remove_joint(&mut self, made: &LinkedJoint) {
        self.impulse_joints.remove(made.handle, true);
        if let Some(anchor) = made.anchor {
            self.bodies.remove(
                anchor,
                &mut self.islands,
                &mut self.colliders,
                &mut self.impulse_joints,
                &mut self.multibody_joints,
                &mut self.soft_bodies,
                true,
            );
        }
    }
}
