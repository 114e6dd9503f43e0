//! Hashes of the simulated state, per part, so that a replay or a seek can be
//! checked against a fresh run and a difference located.

use std::fmt::Write;

use super::canonical::CanonicalHasher;
use crate::particles::ParticleSystem;
use crate::scene::Scene;

/// XXH3 hashes of a world's simulated state, by part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct StateHash {
    /// Hot columns, links, slots, names and the layout's bookkeeping.
    pub nodes: u64,
    /// Every component column (emitter states included).
    pub components: u64,
    /// The resources (score, events, timers, a game's own); `0` in
    /// recordings made before resources had a part of their own.
    #[serde(default)]
    pub resources: u64,
    /// The particle pool's columns and counters.
    pub particles: u64,
    /// The bodies simulated (pose, velocities, sleep) and the gravity; `0`
    /// with nothing simulated, and in recordings made before physics.
    #[serde(default)]
    pub physics: u64,
    /// The step counter.
    pub step: u64,
}

impl StateHash {
    /// The parts folded into one number.
    pub fn combined(&self) -> u64 {
        xxhash_rust::xxh3::xxh3_64(bytemuck::bytes_of(&[
            self.nodes,
            self.components,
            self.resources,
            self.particles,
            self.physics,
            self.step,
        ]))
    }

    /// Names of the parts that differ from `other`.
    pub fn differing(&self, other: &StateHash) -> Vec<&'static str> {
        let mut out = Vec::new();
        for (name, a, b) in [
            ("nodes", self.nodes, other.nodes),
            ("components", self.components, other.components),
            ("resources", self.resources, other.resources),
            ("particles", self.particles, other.particles),
            ("physics", self.physics, other.physics),
            ("step", self.step, other.step),
        ] {
            if a != b {
                out.push(name);
            }
        }
        out
    }
}

/// Owners and values of a component column, in storage order.
fn hash_column<T: std::fmt::Debug>(w: &mut CanonicalHasher, column: &crate::scene::Column<T>) {
    for (node, value) in column.iter() {
        let _ = write!(w, "{node:?}{value:?}");
    }
}

/// Owners and the file names of a column of instances of files (models,
/// prefabs): their absolute paths say where the project lies (another folder,
/// a web page's relative ones), which is not state; the file a node shows is.
fn hash_sources<T>(
    w: &mut CanonicalHasher,
    column: &crate::scene::Column<T>,
    source: impl Fn(&T) -> &std::path::Path,
) {
    for (node, value) in column.iter() {
        let name = source(value).file_name().unwrap_or_default();
        let _ = write!(w, "{node:?}{}", name.to_string_lossy());
    }
}

impl StateHash {
    /// Hashes of everything a fixed step reads and writes: `scene`,
    /// `particles` and the step counter `step`. Columns of plain
    /// numbers are hashed as their bytes; component values and resources
    /// through their `Debug` form, which prints every float exactly
    /// (shortest round trip), made canonical (maps and sets in sorted order:
    /// `canonical.rs`).
    /// Scratch buffers and the octree (rebuilt from the scene) are left out.
    pub fn of(scene: &mut Scene, particles: &ParticleSystem, step: u64) -> StateHash {
        let mut raw = Vec::new();
        let mut rest = scene.save_state(&mut raw);
        // The resources have a part of their own (below).
        rest.replace_resources(Default::default());
        let mut nodes = CanonicalHasher::new();
        nodes.update(&raw);
        // The layout's bookkeeping (upkeep, pending lists) decides what later steps do.
        let _ = write!(nodes, "{rest:?}");
        raw.clear();
        let particles_rest = particles.save_state(&mut raw);
        let mut particles = CanonicalHasher::new();
        particles.update(&raw);
        // The counters (the stamp of the over-life table it last read is unique to
        // the process, and only compared with its table's).
        let _ = write!(particles, "{:?}", particles_rest.pool().stats());
        let mut components = CanonicalHasher::new();
        let c = scene.components();
        let w = &mut components;
        hash_column(w, &c.mesh);
        hash_column(w, &c.light);
        hash_column(w, &c.emitter);
        hash_sources(w, &c.model, |m| &m.source);
        hash_column(w, &c.model_part);
        hash_column(w, &c.animator);
        hash_column(w, &c.skin);
        hash_column(w, &c.morph);
        hash_sources(w, &c.prefab, |p| &p.source);
        hash_column(w, &c.prefab_part);
        hash_column(w, &c.unknown);
        // Registered columns by name; one no node has left hashes as none at all.
        for column in c.registered.iter().filter(|c| !c.is_empty()) {
            let _ = write!(w, "{}:", column.name());
            let _ = column.write_state(w);
        }
        let mut resources = CanonicalHasher::new();
        let _ = scene.resources().write_state(&mut resources);
        StateHash {
            nodes: nodes.digest(),
            components: components.digest(),
            resources: resources.digest(),
            particles: particles.digest(),
            // The world's physics hashes itself (`World::state_hash`).
            physics: 0,
            step,
        }
    }
}
