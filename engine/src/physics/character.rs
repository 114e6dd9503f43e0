//! The character sweep: where a character's wished move takes it
//! ([`Bodies::move_character`]), by rapier's kinematic character
//! controller over the simulation as the last step left it. The node's
//! collider is swept along the move: it stops at walls or slides along
//! them, climbs slopes up to [`Character::max_slope`] and steps up to
//! [`Character::step_height`], and keeps to the ground within
//! [`Character::snap_to_ground`]. Sensors and the node's own body are not
//! in the way. The answer is a world-space move; the system moves the node
//! by it (its kinematic body follows in the step, pushing what it meets).

use glam::Vec3;
use rapier3d::control::{CharacterAutostep, CharacterLength, KinematicCharacterController};
use rapier3d::prelude::QueryFilter;

use super::view::Bodies;
use crate::scene::{Character, NodeId, Scene};

/// Where a move took a character ([`Bodies::move_character`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CharacterMove {
    /// The move to make, world space (the wished one, cut short or turned
    /// by what is in the way).
    pub translation: Vec3,
    /// Whether it stands on the ground after the move.
    pub grounded: bool,
    /// Whether it slides down a slope too steep to stand on.
    pub sliding: bool,
}

/// rapier's controller for `character`'s settings.
fn controller(character: &Character) -> KinematicCharacterController {
    KinematicCharacterController {
        up: Vec3::Y,
        offset: CharacterLength::Absolute(character.skin),
        slide: character.slide,
        autostep: (character.step_height > 0.0).then_some(CharacterAutostep {
            max_height: CharacterLength::Absolute(character.step_height),
            min_width: CharacterLength::Absolute(character.step_width),
            include_dynamic_bodies: false,
        }),
        max_slope_climb_angle: character.max_slope.to_radians(),
        min_slope_slide_angle: character.slide_slope.to_radians(),
        snap_to_ground: (character.snap_to_ground > 0.0)
            .then_some(CharacterLength::Absolute(character.snap_to_ground)),
        ..KinematicCharacterController::default()
    }
}

impl Bodies<'_> {
    /// Where `node`, walked by `wished` (world space, this step's share),
    /// really goes: the sweep of its collider through the simulation (see
    /// the module), by its [`Character`] (the default one when it has
    /// none). `None` when it has no collider in the simulation (a scene
    /// without bodies simulates nothing) or `wished` is not finite.
    pub fn move_character(
        &self,
        scene: &Scene,
        node: NodeId,
        wished: Vec3,
    ) -> Option<CharacterMove> {
        let physics = self.physics?;
        if !wished.is_finite() {
            return None;
        }
        let s = &physics.state;
        let link = s.links.get(node)?;
        let collider = s.colliders.get(link.collider?.handle)?;
        let mut filter = QueryFilter::default()
            .exclude_sensors()
            .exclude_collider(link.collider?.handle)
            .groups(collider.collision_groups());
        if let Some((body, _)) = link.body {
            filter = filter.exclude_rigid_body(body);
        }
        let queries =
            s.broad
                .as_query_pipeline(s.narrow.query_dispatcher(), &s.bodies, &s.colliders, filter);
        let settings = scene.get::<Character>(node).copied().unwrap_or_default();
        let moved = controller(&settings).move_shape(
            s.params.dt,
            &queries,
            collider.shape(),
            collider.position(),
            wished,
            |_| {},
        );
        Some(CharacterMove {
            translation: moved.translation,
            grounded: moved.grounded,
            sliding: moved.is_sliding_down_slope,
        })
    }
}
