//! A run played by a person (in the window or a web page) made into a
//! recording file that any build replays: the played world logged every
//! step's input; a fresh world from the same scene runs those steps again,
//! hashing each, and must end where the played one did.

use std::path::Path;

use keel_engine::record::{Recording, Simulation};
use keel_engine::{Assets, Game, World};

/// The recording of what was played in `world`, which has been recording
/// since its first step: `game` loads `scene` afresh through `assets`
/// (whose file bytes are `scene_bytes`, for the recording's content hash)
/// and runs every played step with the input it read, hashing each.
///
/// # Errors
/// The world was not recording, the scene did not load again, or the fresh
/// run did not end with the played world's state hash (the run was not
/// reproducible, so a recording of it would lie).
pub(crate) fn recording_of(
    world: &mut World,
    game: &Game,
    scene: &Path,
    assets: &Assets,
    scene_bytes: &[u8],
) -> Result<Recording, String> {
    let inputs = match world.recorder() {
        Some(recorder) => recorder.inputs().clone(),
        None => return Err("the world was not recording".into()),
    };
    let steps = world.steps();
    let mut fresh = game.load(scene, assets).map_err(|e| e.to_string())?;
    fresh.set_step_length(world.step_length());
    let recording =
        Recording::record_with_input(&mut fresh, scene, scene_bytes, steps, 1, |s| inputs.at(s));
    if fresh.state_hash() != world.state_hash() {
        return Err(format!(
            "the run did not reproduce from its input over {steps} steps"
        ));
    }
    Ok(recording)
}
