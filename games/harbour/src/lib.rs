//! Harbour: a small game made with Keel through its public API alone.
//!
//! Steer the ship (A/D or the left stick; W/S or the stick forward and back
//! for the sails) and sail over the buoys to collect them; the small boats
//! keep out of the ship's way, and bump it when they do not (the ship sails
//! as a kinematic character of the physics: the boats and the lighthouse's
//! island stop it). The score is a resource shown on screen
//! through [`keel_engine::Hud`].
//!
//! Everything the game adds is one [`Plugin`]: four components ([`Ship`],
//! [`Buoy`], [`Skittish`], and [`Escort`], which names the node it follows),
//! [`Score`] and [`Cheers`] resources, a [`Collected`] event, five systems and
//! two input actions. Its two binaries are the engine's player and editor
//! given the plugin; its scene (`assets/harbour.ron`) names the components
//! like any built-in, and an `input.ron` beside it may rebind the actions.
//! It depends on Keel alone: the components are written with
//! `#[keel_engine::component]`, `glam` is Keel's.
//!
//! ```
//! use keel_engine::{Assets, Hud};
//!
//! let mut world = harbour::game().load(&harbour::scene_path(), &Assets::new())?;
//! world.step();
//! let hud = world.resource::<Hud>().expect("the game shows its score");
//! assert!(hud.text.starts_with("Score 0"), "{}", hud.text);
//! # Ok::<(), keel_engine::GameError>(())
//! ```

use std::path::PathBuf;

use keel_engine::glam::{Quat, Vec3};
use keel_engine::input::{Actions, Binding, GamepadAxis, Key};
use keel_engine::math;
use keel_engine::physics::QueryFilter;
use keel_engine::scene::{ComponentRegistry, RegistryError, Without};
use keel_engine::{
    Commands, Component, Events, GameError, Hud, Input, InvalidValue, NodeId, NodeRef, Plugin,
    Scene, StepContext, Timer, World, component,
};

/// Half the side of the square of sea the game is played in, metres.
pub const HARBOUR_HALF_SIZE: f32 = 60.0;

/// The game's scene, beside the crate.
pub fn scene_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/harbour.ron")
}

/// The game: its plugin, for a viewer, an editor or a test world.
pub fn game() -> keel_engine::Game {
    keel_engine::Game::new().with(HarbourPlugin)
}

/// The player's ship: sails forward (its -Z), turned by the `steer` action,
/// sped up and slowed by `throttle`.
#[component(name = "ship", validate = Ship::check)]
#[derive(PartialEq)]
pub struct Ship {
    /// Speed now, metres per second.
    #[reflect(@0.0..=40.0_f32)]
    pub speed: f32,
    /// Top speed, metres per second.
    #[reflect(@0.0..=40.0_f32)]
    pub max_speed: f32,
    /// Speed gained per second at full throttle.
    #[reflect(@0.0..=40.0_f32)]
    pub acceleration: f32,
    /// Turn rate at full steer, radians per second.
    #[reflect(@0.0..=6.0_f32)]
    pub turn_rate: f32,
}

impl Default for Ship {
    fn default() -> Self {
        Self {
            speed: 0.0,
            max_speed: 12.0,
            acceleration: 6.0,
            turn_rate: 0.9,
        }
    }
}

impl Ship {
    fn check(&self) -> Result<(), InvalidValue> {
        InvalidValue::range("max_speed", self.max_speed, 0.0..=40.0)?;
        InvalidValue::range("speed", self.speed, 0.0..=self.max_speed)?;
        InvalidValue::range("acceleration", self.acceleration, 0.0..=40.0)?;
        InvalidValue::range("turn_rate", self.turn_rate, 0.0..=6.0)
    }
}

/// A buoy to collect: gone, and its points scored, once the ship is within
/// `radius` of it. The ship finds it through its [`keel_engine::Collider`]
/// (the scene's are small sensors): a buoy without one is not found.
#[component(name = "buoy", validate = Buoy::check)]
#[derive(PartialEq)]
pub struct Buoy {
    /// What collecting it scores.
    pub points: u32,
    /// How close the ship must come, metres.
    #[reflect(@0.5..=20.0_f32)]
    pub radius: f32,
}

impl Default for Buoy {
    fn default() -> Self {
        Self {
            points: 1,
            radius: 5.0,
        }
    }
}

impl Buoy {
    /// The largest radius a buoy may have.
    pub const MOST_RADIUS: f32 = 20.0;

    fn check(&self) -> Result<(), InvalidValue> {
        InvalidValue::range("radius", self.radius, 0.5..=Self::MOST_RADIUS)
    }
}

/// A boat that steers away from the ship once it comes within `radius`
/// (found, as a buoy is, through its collider).
#[component(name = "skittish", validate = Skittish::check)]
#[derive(PartialEq)]
pub struct Skittish {
    /// How close the ship may come before the boat flees, metres.
    #[reflect(@0.0..=60.0_f32)]
    pub radius: f32,
    /// How fast it flees, metres per second.
    #[reflect(@0.0..=30.0_f32)]
    pub speed: f32,
}

impl Default for Skittish {
    fn default() -> Self {
        Self {
            radius: 16.0,
            speed: 5.0,
        }
    }
}

impl Skittish {
    /// The largest radius a boat may keep clear.
    pub const MOST_RADIUS: f32 = 60.0;

    fn check(&self) -> Result<(), InvalidValue> {
        InvalidValue::range("radius", self.radius, 0.0..=Self::MOST_RADIUS)?;
        InvalidValue::range("speed", self.speed, 0.0..=30.0)
    }
}

/// A boat that follows another node (the ship, in the scene), keeping
/// `distance` behind it, and sounds its horn when a buoy is collected.
#[component(name = "escort", validate = Escort::check)]
#[derive(PartialEq)]
pub struct Escort {
    /// The node it follows (drag one onto it in the editor).
    pub leader: NodeRef,
    /// How close it keeps, metres.
    #[reflect(@2.0..=60.0_f32)]
    pub distance: f32,
    /// How fast it catches up, metres per second.
    #[reflect(@0.0..=30.0_f32)]
    pub speed: f32,
    /// Sounding while it runs: started by a [`Collected`] event.
    pub horn: Timer,
}

impl Default for Escort {
    fn default() -> Self {
        Self {
            leader: NodeRef::NONE,
            distance: 12.0,
            speed: 8.0,
            horn: Timer {
                finished: true,
                ..Timer::once(1.0)
            },
        }
    }
}

impl Escort {
    fn check(&self) -> Result<(), InvalidValue> {
        InvalidValue::range("distance", self.distance, 2.0..=60.0)?;
        InvalidValue::range("speed", self.speed, 0.0..=30.0)
    }
}

/// Buoys were collected (sent by `collect`, heard by the escorts the step after).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Collected {
    /// What they scored.
    pub points: u32,
    /// Where the last of them was.
    pub at: Vec3,
}

/// Horn blasts the escorts finished (a resource: it belongs to no node).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cheers(pub u32);

/// Points scored and buoys collected (a resource: it belongs to no node).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Score {
    /// Points scored.
    pub points: u32,
    /// Buoys collected.
    pub collected: u32,
}

/// The harbour game's plugin.
pub struct HarbourPlugin;

impl Plugin for HarbourPlugin {
    fn name(&self) -> String {
        "harbour".to_owned()
    }

    fn components(&self, registry: &mut ComponentRegistry) -> Result<(), RegistryError> {
        registry.register::<Ship>()?;
        registry.register::<Buoy>()?;
        registry.register::<Skittish>()?;
        registry.register::<Escort>()
    }

    fn actions(&self) -> Actions {
        Actions::default()
            .bind(
                "steer",
                Binding::Axis {
                    keys: Some((Key::A, Key::D)),
                    gamepad: Some(GamepadAxis::LeftStickX),
                },
            )
            .bind(
                "throttle",
                Binding::Axis {
                    keys: Some((Key::S, Key::W)),
                    gamepad: Some(GamepadAxis::LeftStickY),
                },
            )
    }

    fn build(&self, world: &mut World) -> Result<(), GameError> {
        world.insert_resource(Score::default());
        world.insert_resource(Cheers::default());
        world.insert_resource(Hud::default());
        world.add_event::<Collected>();
        let systems = world.systems_mut();
        // Each keeps the buffer its nodes or its spatial query's answers go into.
        let mut ships = Vec::new();
        let sailing = move |scene: &mut Scene, _: &mut Commands, step: &StepContext| {
            sail(scene, step, &mut ships);
        };
        systems.add("sail", sailing)?;
        let mut near = Vec::new();
        let collecting = move |scene: &mut Scene, commands: &mut Commands, step: &StepContext| {
            collect(scene, commands, step, &mut near);
        };
        systems.add("collect", collecting)?.after("sail")?;
        let mut near = Vec::new();
        let fleeing = move |scene: &mut Scene, _: &mut Commands, step: &StepContext| {
            keep_away(scene, step, &mut near);
        };
        systems.add("keep_away", fleeing)?.after("sail")?;
        systems.add("escort", escort)?.after("keep_away")?;
        // Only while an event waits: most steps skip it.
        systems.add("cheer", cheer)?.run_if(|scene, _| {
            scene
                .resource::<Events<Collected>>()
                .is_some_and(|e| e.read().len() > 0)
        });
        Ok(())
    }
}

/// Moves every ship by the `steer` and `throttle` actions. A ship sails
/// as a character of the physics (`Bodies::move_character`): the boats and
/// the island stop it, and it slides along them, instead of passing
/// through. `ships` is the buffer the step's ships are listed into.
fn sail(scene: &mut Scene, step: &StepContext, ships: &mut Vec<NodeId>) {
    let (steer, throttle) = scene.resource::<Input>().map_or((0.0, 0.0), |input| {
        (input.axis("steer"), input.axis("throttle"))
    });
    let dt = step.dt;
    ships.clear();
    ships.extend_from_slice(scene.components().parts::<Ship>().0);
    for &node in ships.iter() {
        let Some(mut local) = scene.local(node) else {
            continue;
        };
        let Some(ship) = scene.get_mut::<Ship>(node) else {
            continue;
        };
        // Full throttle accelerates; none lets the ship drift to a stop.
        let change = if throttle != 0.0 {
            throttle * ship.acceleration
        } else {
            -0.25 * ship.acceleration
        };
        ship.speed = (ship.speed + change * dt).clamp(0.0, ship.max_speed);
        // A ship turns only while it moves; steering right turns clockwise
        // seen from above.
        let way = (ship.speed / ship.max_speed.max(1e-3)).min(1.0);
        let turn = Quat::from_rotation_y(-steer * ship.turn_rate * way * dt);
        local.rotation = (turn * local.rotation).normalize();
        let wished = local.rotation * Vec3::NEG_Z * ship.speed * dt;
        // What is in the way cuts the move short (a ship in a scene without
        // bodies sails free).
        let moved = step
            .bodies
            .move_character(scene, node, wished)
            .map_or(wished, |m| horizontal(m.translation));
        local.translation = within_harbour(local.translation + moved);
        // A node that was removed meanwhile is no error for the game.
        let _ = scene.set_local(node, local);
    }
}

/// How far above and below the ship the spatial queries look, metres: the
/// sea's swell and the buoys' bobbing stay well inside.
const QUERY_HEIGHT: f32 = 50.0;

/// How far a boat may have moved since the colliders were filed (the last
/// step), metres: a query reaching this much farther finds every boat the
/// exact test could keep (30 m/s, `Skittish::speed`'s most, for 1/6 s).
const MOVED_SINCE_FILED: f32 = 5.0;

/// The nodes with a `C` whose colliders come within `reach` of the ship,
/// measured across the water (a box as tall as [`QUERY_HEIGHT`]), into `out`.
fn around_ship<C: Component>(
    scene: &Scene,
    step: &StepContext,
    ship: Vec3,
    reach: f32,
    out: &mut Vec<NodeId>,
) {
    let half = Vec3::new(reach, QUERY_HEIGHT, reach);
    let filter = QueryFilter::new().with::<C>();
    step.space
        .overlap_box(scene, ship, half, Quat::IDENTITY, &filter, out);
}

/// Collects the buoys within reach of a ship and scores them: the buoys near
/// it are asked of the colliders (a spatial query), and each one's own
/// radius decides.
fn collect(scene: &mut Scene, commands: &mut Commands, step: &StepContext, near: &mut Vec<NodeId>) {
    let Some(ship) = first_position::<Ship>(scene) else {
        return;
    };
    around_ship::<Buoy>(scene, step, ship, Buoy::MOST_RADIUS, near);
    let mut scored = Score::default();
    let mut collected_at = None;
    for &node in near.iter() {
        let (Some(buoy), Some(at)) = (scene.get::<Buoy>(node), scene.local(node)) else {
            continue;
        };
        if horizontal(at.translation - ship).length() <= buoy.radius {
            commands.despawn(node);
            scored.points += buoy.points;
            scored.collected += 1;
            collected_at = Some(at.translation);
        }
    }
    let left = scene.components().parts::<Buoy>().0.len() as u32 - scored.collected;
    if let Some(at) = collected_at {
        scene.send_event(Collected {
            points: scored.points,
            at,
        });
    }
    let Some(score) = scene.resource_mut::<Score>() else {
        return;
    };
    score.points += scored.points;
    score.collected += scored.collected;
    let score = *score;
    // The text changes only when the score does: no string made per step.
    if scored.collected > 0 || scene.resource::<Hud>().is_some_and(|h| h.text.is_empty()) {
        let text = if left == 0 {
            format!("Score {}: every buoy collected!", score.points)
        } else {
            format!("Score {}, buoys left {left}", score.points)
        };
        scene.insert_resource(Hud { text });
    }
}

/// Boats within their radius of the ship sail straight away from it: the
/// boats near it are asked of the colliders, each one's radius decides.
fn keep_away(scene: &mut Scene, step: &StepContext, near: &mut Vec<NodeId>) {
    let Some(ship) = first_position::<Ship>(scene) else {
        return;
    };
    let reach = Skittish::MOST_RADIUS + MOVED_SINCE_FILED;
    around_ship::<Skittish>(scene, step, ship, reach, near);
    let dt = step.dt;
    for &node in near.iter() {
        let (Some(boat), Some(mut local)) = (scene.get::<Skittish>(node), scene.local(node)) else {
            continue;
        };
        let (radius, speed) = (boat.radius, boat.speed);
        let away = horizontal(local.translation - ship);
        let distance = away.length();
        if distance >= radius || distance < 1e-3 {
            continue;
        }
        let heading = away / distance;
        local.translation = within_harbour(local.translation + heading * speed * dt);
        // Its bow (-Z) points the way it flees.
        local.rotation = Quat::from_rotation_y(math::atan2(-heading.x, -heading.z));
        // A node that was removed meanwhile is no error for the game.
        let _ = scene.set_local(node, local);
    }
}

/// Escorts (but not a ship) catch up with their leader while it is farther
/// than their distance, and count down their horn.
fn escort(scene: &mut Scene, _: &mut Commands, step: &StepContext) {
    let dt = step.dt;
    let mut blasts = 0;
    let walked = scene.query_filtered::<(&mut Escort, Option<&Skittish>), Without<Ship>>(
        |node, (escort, skittish), transforms| {
            blasts += escort.horn.tick(dt);
            let leader = escort.leader.id().and_then(|l| transforms.world(l));
            let (Some(leader), Some(mut local)) = (leader, transforms.local(node)) else {
                return;
            };
            let behind = horizontal(Vec3::from(leader.translation) - local.translation);
            let distance = behind.length();
            // A skittish escort does not come closer than it dares.
            let dare = skittish.map_or(0.0, |s| s.radius);
            if distance <= escort.distance.max(dare) || distance < 1e-3 {
                return;
            }
            let heading = behind / distance;
            let reach = (distance - escort.distance).min(escort.speed * dt);
            local.translation = within_harbour(local.translation + heading * reach);
            local.rotation = Quat::from_rotation_y(math::atan2(-heading.x, -heading.z));
            let _ = transforms.set_local(node, local);
        },
    );
    debug_assert!(walked.is_ok(), "the query's terms are distinct");
    if blasts > 0
        && let Some(cheers) = scene.resource_mut::<Cheers>()
    {
        cheers.0 += blasts;
    }
}

/// A collected buoy sets every escort's horn sounding.
fn cheer(scene: &mut Scene, _: &mut Commands, _: &StepContext) {
    for escort in scene.components_mut().parts_mut::<Escort>().1 {
        escort.horn.reset();
    }
}

/// Where the first node with a `C` is (ships are roots: local is world).
fn first_position<C: Component>(scene: &Scene) -> Option<Vec3> {
    let (nodes, _) = scene.components().parts::<C>();
    scene.local(*nodes.first()?).map(|t| t.translation)
}

fn horizontal(v: Vec3) -> Vec3 {
    Vec3::new(v.x, 0.0, v.z)
}

fn within_harbour(at: Vec3) -> Vec3 {
    let half = HARBOUR_HALF_SIZE;
    Vec3::new(at.x.clamp(-half, half), at.y, at.z.clamp(-half, half))
}

// The web page's entry point (`scripts/web.sh harbour`): the harbour in the
// web player, from the page's copy of `assets/`.
keel_player::web_page!(game(), "assets/harbour.ron");
