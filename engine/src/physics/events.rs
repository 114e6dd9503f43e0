//! Touches as events: two colliders that started or stopped touching in a
//! step, and a sensor's visitors entering and leaving, sent as
//! [`Collision`] events (`Events<Collision>`) that systems read in the next
//! step, like any event. A world that wants them asks for them
//! ([`crate::World::add_event`]`::<Collision>()`); one that did not pays
//! nothing for them.
//!
//! rapier reports each change once, in the order its narrow phase meets
//! them, which is part of its cloned state: a replay, a seek or a Reset
//! sends the same events in the same order. A collider removed while
//! touching (its node despawned, its component taken away) sends its
//! `Stopped` or `Left` in the next step, naming the node it had.

use std::sync::Mutex;

use rapier3d::prelude::{
    ColliderHandle, ColliderSet, CollisionEvent, ContactPair, EventHandler, Real, RigidBodySet,
    SoftBodySet, SoftBodyTearEvent,
};

use crate::scene::NodeId;

/// Two colliders' nodes that began or ceased to touch (see the module).
///
/// ```
/// use keel_engine::{Body, Collider, Collision, Events, Scene, Transform, World};
/// use glam::Vec3;
///
/// let mut scene = Scene::new();
/// let floor = scene.spawn(None, "floor", Transform::IDENTITY)?;
/// scene.insert(floor, Collider::cuboid(Vec3::new(10.0, 0.5, 10.0)));
/// scene.insert(floor, Body::fixed());
/// let ball = scene.spawn(None, "ball", Transform::from_translation(Vec3::Y))?;
/// scene.insert(ball, Collider::ball(0.25));
/// scene.insert(ball, Body::dynamic());
/// let mut world = World::new(scene);
/// world.add_event::<Collision>();
/// let mut landed = None;
/// for step in 0..120 {
///     world.step();
///     let events = world.resource::<Events<Collision>>().unwrap();
///     if let Some(touch) = events.sent().iter().find(|c| matches!(c, Collision::Started { .. })) {
///         landed = Some((step, touch.nodes()));
///         break;
///     }
/// }
/// let (step, nodes) = landed.expect("the ball lands within two seconds");
/// assert!(nodes == (floor, ball) || nodes == (ball, floor));
/// assert!(step > 10, "a quarter metre's fall takes a few steps");
/// # Ok::<(), keel_engine::SceneError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Collision {
    /// Two solid colliders began touching.
    Started {
        /// One of the two.
        a: NodeId,
        /// The other.
        b: NodeId,
    },
    /// Two solid colliders ceased touching (or one of them was removed).
    Stopped {
        /// One of the two.
        a: NodeId,
        /// The other.
        b: NodeId,
    },
    /// A collider came into a sensor.
    Entered {
        /// The sensor.
        sensor: NodeId,
        /// What came in.
        other: NodeId,
    },
    /// A collider left a sensor (or one of them was removed).
    Left {
        /// The sensor.
        sensor: NodeId,
        /// What went out.
        other: NodeId,
    },
}

impl Collision {
    /// The two nodes, the sensor first where there is one.
    pub fn nodes(&self) -> (NodeId, NodeId) {
        match *self {
            Self::Started { a, b } | Self::Stopped { a, b } => (a, b),
            Self::Entered { sensor, other } | Self::Left { sensor, other } => (sensor, other),
        }
    }

    /// Whether `node` is one of the two.
    pub fn involves(&self, node: NodeId) -> bool {
        let (a, b) = self.nodes();
        a == node || b == node
    }

    /// The node `node` touched, when it is one of the two.
    pub fn other(&self, node: NodeId) -> Option<NodeId> {
        match self.nodes() {
            (a, b) if a == node => Some(b),
            (a, b) if b == node => Some(a),
            _ => None,
        }
    }
}

/// rapier's reports of one step, kept until turned into [`Collision`]s
/// (scratch space: empty between steps, its buffer reused).
#[derive(Default)]
pub(super) struct Reports(Mutex<Vec<CollisionEvent>>);

impl Reports {
    /// The step's reports, in rapier's order.
    pub(super) fn drain(&mut self) -> std::vec::Drain<'_, CollisionEvent> {
        self.0
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .drain(..)
    }
}

impl EventHandler for Reports {
    fn handle_collision_event(
        &self,
        _: &RigidBodySet,
        _: &ColliderSet,
        event: CollisionEvent,
        _: Option<&ContactPair>,
    ) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(event);
    }

    fn handle_contact_force_event(
        &self,
        _: Real,
        _: &RigidBodySet,
        _: &ColliderSet,
        _: &ContactPair,
        _: Real,
    ) {
    }

    fn handle_soft_body_tear_event(&self, _: &SoftBodySet, _: &SoftBodyTearEvent) {}
}

/// `event` as a [`Collision`], its colliders' nodes found by `node_of`
/// (`None` when either is unknown) and which is a sensor by `is_sensor`.
pub(super) fn collision(
    event: CollisionEvent,
    node_of: impl Fn(ColliderHandle) -> Option<NodeId>,
    is_sensor: impl Fn(ColliderHandle) -> bool,
) -> Option<Collision> {
    let (h1, h2) = (event.collider1(), event.collider2());
    let (n1, n2) = (node_of(h1)?, node_of(h2)?);
    let sensor = event.sensor();
    let (sensor_node, other) = if is_sensor(h2) && !is_sensor(h1) {
        (n2, n1)
    } else {
        (n1, n2)
    };
    Some(match (event.started(), sensor) {
        (true, false) => Collision::Started { a: n1, b: n2 },
        (false, false) => Collision::Stopped { a: n1, b: n2 },
        (true, true) => Collision::Entered {
            sensor: sensor_node,
            other,
        },
        (false, true) => Collision::Left {
            sensor: sensor_node,
            other,
        },
    })
}
