//! The node budget: how many nodes one expansion of scene records (a scene
//! file, a pasted subtree, a prefab instance) may spawn, counted before a
//! single node is made.
//!
//! A prefab that pulls in another ten times, at each of a dozen levels, is a
//! few hundred bytes of text that expands to 10^12 nodes. Expansion flattens
//! prefabs into node lists, so it would allocate its way to that total (and
//! abort the process on a failed allocation) before any check on the result.
//! Instead, [`check`] walks the files first, counting each record as one node,
//! each prefab instance as its file's count (each file counted once, however
//! often it is pulled in; a file whose expansion is cached, from that without
//! reading it) and each model instance as the nodes its import spawns; it
//! stops at the first file whose running count passes the budget, so the walk
//! itself is bounded by the budget and the number of files.
//! `removed` keys are not subtracted: the count is an upper bound.
//!
//! The budget is the store's [`ReadLimits::nodes`](crate::files::ReadLimits::nodes).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::assets::Assets;
use crate::files::resolve_written_path;
use crate::scene::{NodeRecord, SceneError, SceneFile};

/// Refuses `records` (written in the file `origin`) when expanding them
/// would spawn more than `max` nodes.
///
/// `chain` holds the files already being expanded around them (cycles through
/// them are refused as expansion would). Files that cannot be read or parsed
/// count as nothing here: expansion reports them with their place.
///
/// # Errors
/// [`SceneError::TooManyNodes`] with the chain of files down to the one
/// whose count passed the budget; [`SceneError::PrefabCycle`].
pub(crate) fn check(
    records: &[NodeRecord],
    origin: &Path,
    chain: &[PathBuf],
    max: u64,
    assets: &Assets,
) -> Result<u64, SceneError> {
    let mut counter = Counter {
        max,
        assets,
        top: origin,
        outer: chain,
        nested: Vec::new(),
        files: HashMap::new(),
    };
    counter.records(records, origin)
}

struct Counter<'a> {
    max: u64,
    /// Where models are imported and prefab expansions cached.
    assets: &'a Assets,
    /// The file (or text) whose records are counted: first in an error's chain.
    top: &'a Path,
    /// Files being expanded around it.
    outer: &'a [PathBuf],
    /// The prefab files being counted, outermost first.
    nested: Vec<PathBuf>,
    /// Each prefab file's count, once known.
    files: HashMap<PathBuf, u64>,
}

impl Counter<'_> {
    fn records(&mut self, records: &[NodeRecord], origin: &Path) -> Result<u64, SceneError> {
        let mut count = 0_u64;
        for record in records {
            count = count.saturating_add(1);
            if let Some(model) = &record.model {
                count = count.saturating_add(model_nodes(
                    &resolve_written_path(origin, model),
                    self.assets,
                ));
            }
            if let Some(prefab) = &record.prefab {
                count = count.saturating_add(self.file(&resolve_written_path(origin, prefab))?);
            }
            if count > self.max {
                let chain = std::iter::once(self.top.to_path_buf())
                    .chain(self.nested.iter().cloned())
                    .collect();
                return Err(SceneError::TooManyNodes {
                    chain,
                    reached: count,
                    max: self.max,
                });
            }
        }
        Ok(count)
    }

    fn file(&mut self, path: &Path) -> Result<u64, SceneError> {
        let Ok(canonical) = self.assets.limits().source.canonicalize(path) else {
            return Ok(0);
        };
        if let Some(&count) = self.files.get(&canonical) {
            return Ok(count);
        }
        if self.outer.contains(&canonical) || self.nested.contains(&canonical) {
            let mut chain: Vec<PathBuf> = self.outer.iter().chain(&self.nested).cloned().collect();
            chain.push(canonical);
            return Err(SceneError::PrefabCycle { chain });
        }
        // An expansion already made is counted from its flat node list (nested
        // prefabs in it, models not), without reading a file.
        if let Some(prefab) = super::cached(&canonical, self.assets) {
            let count = prefab.nodes.iter().fold(0_u64, |count, node| {
                let model = node
                    .model
                    .as_deref()
                    .map_or(0, |m| model_nodes(Path::new(m), self.assets));
                count.saturating_add(1).saturating_add(model)
            });
            self.files.insert(canonical, count);
            return Ok(count);
        }
        let Ok(text) = crate::scene::file::read_text(&canonical, self.assets.limits()) else {
            return Ok(0);
        };
        let Ok(file) = SceneFile::parse(
            &text,
            &canonical,
            &crate::scene::ComponentRegistry::of(self.assets),
        ) else {
            return Ok(0);
        };
        self.nested.push(canonical.clone());
        let count = self.records(&file.nodes, &canonical);
        self.nested.pop();
        let count = count?;
        self.files.insert(canonical, count);
        Ok(count)
    }
}

/// The nodes an instance of the model at `path` spawns below its root (0 when
/// it does not import: spawning reports that).
fn model_nodes(path: &Path, assets: &Assets) -> u64 {
    assets
        .load_model(path)
        .map_or(0, |model| model.instance_nodes() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instance(prefab: &str) -> NodeRecord {
        let mut record = NodeRecord::new("instance");
        record.prefab = Some(prefab.to_owned());
        record
    }

    #[test]
    fn counts_records_prefabs_once_each_and_models_cached_or_not() {
        let dir = tempfile::tempdir().unwrap();
        let prefab = dir.path().join("three.ron");
        std::fs::write(
            &prefab,
            r#"(version: 2, nodes: [(name: "a"), (name: "b", parent: 0), (name: "c")])"#,
        )
        .unwrap();
        let origin = dir.path().join("scene.ron");
        let assets = Assets::new();
        let records = [instance("three.ron"), instance("three.ron")];
        assert_eq!(
            check(&records, &origin, &[], 100, &assets).unwrap(),
            8,
            "2 x (1 + 3)"
        );
        // Counted again from the cached expansion, without reading the file.
        crate::scene::load_prefab(&prefab, &assets).unwrap();
        assert_eq!(check(&records, &origin, &[], 100, &assets).unwrap(), 8);
        let error = check(&records, &origin, &[], 7, &assets).unwrap_err();
        assert!(
            matches!(&error, SceneError::TooManyNodes { reached: 8, max: 7, chain } if chain.as_slice() == std::slice::from_ref(&origin)),
            "{error}"
        );

        let fox = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/models/Fox.glb");
        let mut rig = NodeRecord::new("rig");
        rig.model = Some(fox.to_string_lossy().into_owned());
        let parts = assets.load_model(&fox).unwrap().instance_nodes() as u64;
        assert!(parts > 20, "the Fox's hierarchy: {parts}");
        assert_eq!(
            check(&[rig], &origin, &[], 100, &assets).unwrap(),
            1 + parts
        );
    }

    #[test]
    fn a_prefab_that_contains_a_file_being_expanded_is_a_cycle() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.ron");
        std::fs::write(&a, r#"(version: 2, nodes: [(name: "b", prefab: "b.ron")])"#).unwrap();
        std::fs::write(
            dir.path().join("b.ron"),
            r#"(version: 2, nodes: [(name: "a", prefab: "a.ron")])"#,
        )
        .unwrap();
        let assets = Assets::new();
        let error = check(&[instance("a.ron")], &a, &[], 100, &assets).unwrap_err();
        assert!(matches!(error, SceneError::PrefabCycle { .. }), "{error}");
    }
}
