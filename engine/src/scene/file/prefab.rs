//! Prefabs: any scene file used as a reusable piece of another. A node that
//! says `prefab: "../prefabs/boat.ron"` gets the file's nodes as its children
//! (with their components, models and nested prefabs), and stores only what
//! it changed:
//!
//! ```ron
//! (name: "boat_007", prefab: "../prefabs/boat.ron",
//!  overrides: {"body/hull": {"mesh": {"material": {"base_color": (0.3, 0.1, 0.0, 1.0)}}}},
//!  removed: ["body/flag"]),
//! (name: "lamp", parent: 12, under: "body"),
//! ```
//!
//! A prefab's nodes are named by **keys**: the path of names from the
//! prefab's roots (`body/hull`; a name repeated among siblings gets `#1`,
//! `#2` after the first). An override is a merge patch of the node's record
//! (the scene file's own fields, nested as in the file): only what differs
//! from the prefab is written, so a later change to the prefab reaches every
//! field an instance did not change. Removed nodes are listed by key; added
//! nodes are ordinary records that name the part they hang under (`under`).
//!
//! In memory a scene is flat: an instance's node has a [`PrefabInstance`]
//! (the expanded prefab it came from), each node spawned from the prefab a
//! [`PrefabPart`] with its key; saving diffs the parts against the prefab.
//! Loading expands nested prefabs into one list (their parts become the outer
//! prefab's, keyed through the nested instance), refuses cycles with the chain
//! of files, and caches each file's expansion until it or a file it pulls in
//! changes on disk.

mod budget;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use super::validate::Check;
use crate::assets::Assets;
use crate::files::resolve_written_path;
use serde::de::DeserializeSeed;

use crate::scene::{ComponentRegistry, NodeRecord, RecordSeed, SceneError, SceneFile};

/// The expanded form of a prefab file: every node it brings (nested prefabs
/// flattened), parents before children, each keyed.
#[derive(Clone, PartialEq)]
pub struct Prefab {
    /// The file, canonical.
    pub path: PathBuf,
    /// The nodes: `parent` indexes this list (`None`: a root of the prefab,
    /// under the instance), `part` holds the key, model and prefab paths are
    /// absolute.
    pub nodes: Vec<NodeRecord>,
    /// Every file the expansion read, with what it looked like on disk then.
    sources: Vec<(PathBuf, Stamp)>,
}

impl std::fmt::Debug for Prefab {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Prefab({}, {} nodes)",
            self.path.display(),
            self.nodes.len()
        )
    }
}

impl Prefab {
    /// The node with `key`, if the prefab has one.
    pub fn node(&self, key: &str) -> Option<&NodeRecord> {
        self.nodes.iter().find(|n| n.part.as_deref() == Some(key))
    }

    /// Whether the prefab's file, or one it pulls in, changed in `files`
    /// (the source it was read from) since it was read.
    pub fn is_stale(&self, files: &crate::files::FileSource) -> bool {
        self.sources
            .iter()
            .any(|(path, stamp)| files.stamp(path) != *stamp)
    }

    /// The files the expansion read: the prefab's and those of the prefabs
    /// it pulls in.
    pub fn files(&self) -> impl Iterator<Item = PathBuf> + '_ {
        self.sources.iter().map(|(path, _)| path.clone())
    }
}

/// The node of a prefab instance: its children are the prefab's nodes.
#[derive(Clone, PartialEq)]
pub struct PrefabInstance {
    /// The prefab file, absolute; scene files store it relative to themselves.
    pub source: PathBuf,
    /// What the file held when the instance was made (its parts are diffed
    /// against it when saving).
    pub prefab: Arc<Prefab>,
    /// What the instance's file said of keys the prefab no longer has: kept,
    /// shown, and written back on save until the user removes them.
    pub orphans: Orphans,
}

impl PrefabInstance {
    /// An instance of `prefab` (read from `source`) whose file wrote
    /// `overrides` and `removed`: those naming keys the prefab lacks are kept
    /// as its [`Orphans`].
    pub fn new(
        source: PathBuf,
        prefab: Arc<Prefab>,
        overrides: &BTreeMap<String, Patch>,
        removed: &[String],
    ) -> Self {
        let orphans = Orphans::of(&prefab, overrides, removed);
        Self {
            source,
            prefab,
            orphans,
        }
    }
}

/// Overrides and removals an instance's file names for keys its prefab does
/// not have (the prefab was edited since): nothing in the scene shows them,
/// but they are not dropped, so a prefab whose node comes back (or a build
/// that reads it) finds them again.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Orphans {
    /// Overrides of keys the prefab lacks.
    pub overrides: BTreeMap<String, Patch>,
    /// Removed keys the prefab lacks.
    pub removed: Vec<String>,
}

impl Orphans {
    /// The entries of `overrides` and `removed` whose key `prefab` lacks.
    #[must_use]
    pub fn of(prefab: &Prefab, overrides: &BTreeMap<String, Patch>, removed: &[String]) -> Self {
        let keys: HashSet<&str> = prefab
            .nodes
            .iter()
            .filter_map(|n| n.part.as_deref())
            .collect();
        Orphans {
            overrides: overrides
                .iter()
                .filter(|(key, _)| !keys.contains(key.as_str()))
                .map(|(key, patch)| (key.clone(), patch.clone()))
                .collect(),
            removed: removed
                .iter()
                .filter(|key| !keys.contains(key.as_str()))
                .cloned()
                .collect(),
        }
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.overrides.is_empty() && self.removed.is_empty()
    }

    /// The orphaned keys, overrides first, each once.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        let overridden = self.overrides.keys().map(String::as_str);
        let removed = self.removed.iter().map(String::as_str);
        overridden.chain(removed.filter(|k| !self.overrides.contains_key(*k)))
    }

    /// Forgets everything kept for `key`; whether there was anything.
    pub fn remove(&mut self, key: &str) -> bool {
        let before = self.overrides.len() + self.removed.len();
        self.overrides.remove(key);
        self.removed.retain(|k| k != key);
        before != self.overrides.len() + self.removed.len()
    }
}

impl std::fmt::Debug for PrefabInstance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PrefabInstance({})", self.source.display())
    }
}

/// Marks a node spawned from a prefab (by the nearest [`PrefabInstance`] above it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrefabPart {
    /// Its key in the prefab (`body/hull`).
    pub key: Arc<str>,
}

/// A file's modification time and length, if it is there: enough to see
/// it changed.
type Stamp = Option<crate::files::Stamp>;

/// The cached expansion of the prefab file at `canonical`, while it is fresh.
pub(super) fn cached(canonical: &Path, assets: &Assets) -> Option<Arc<Prefab>> {
    assets
        .prefab::<Prefab>(canonical)
        .filter(|p| !p.is_stale(&assets.limits().source))
}

/// The expanded prefab at `path` (read again only when it, or a prefab it
/// pulls in, changed on disk).
///
/// # Errors
/// Any [`SceneError`] of loading the file or a prefab inside it;
/// [`SceneError::PrefabCycle`] when it contains itself;
/// [`SceneError::TooManyNodes`] when it would expand past the node budget.
pub fn load_prefab(path: &Path, assets: &Assets) -> Result<Arc<Prefab>, SceneError> {
    let canonical = canonical(path, assets)?;
    let mut instance = NodeRecord::new("");
    instance.prefab = Some(canonical.to_string_lossy().into_owned());
    budget::check(&[instance], &canonical, &[], assets.limits().nodes, assets)?;
    load_in(&canonical, &mut Vec::new(), assets)
}

/// Where `path` is for the store's file source, or the error naming it.
fn canonical(path: &Path, assets: &Assets) -> Result<PathBuf, SceneError> {
    assets
        .limits()
        .source
        .canonicalize(path)
        .map_err(|source| SceneError::Io {
            path: path.to_path_buf(),
            source,
        })
}

fn load_in(
    path: &Path,
    chain: &mut Vec<PathBuf>,
    assets: &Assets,
) -> Result<Arc<Prefab>, SceneError> {
    let canonical = canonical(path, assets)?;
    if chain.contains(&canonical) {
        let mut files = chain.clone();
        files.push(canonical);
        return Err(SceneError::PrefabCycle { chain: files });
    }
    if let Some(prefab) = cached(&canonical, assets) {
        return Ok(prefab);
    }
    let stamp = assets.limits().source.stamp(&canonical);
    let text = super::read_text(&canonical, assets.limits())?;
    let file = SceneFile::parse(
        &text,
        &canonical,
        &crate::scene::ComponentRegistry::of(assets),
    )?;
    chain.push(canonical.clone());
    let expanded = expand_in(&file.nodes, &canonical, chain, assets)
        .map_err(|e| super::validate::locate(e, &text));
    chain.pop();
    let expanded = expanded?;
    let mut sources = vec![(canonical.clone(), stamp)];
    for e in &expanded {
        for (p, s) in e.prefab.iter().flat_map(|p| &p.sources) {
            if !sources.iter().any(|(q, _)| q == p) {
                sources.push((p.clone(), *s));
            }
        }
    }
    let mut nodes: Vec<NodeRecord> = expanded.into_iter().map(|e| e.record).collect();
    // Nested instances become plain parts of this prefab, keyed from here.
    let keys = keys_of(&nodes);
    for (node, key) in nodes.iter_mut().zip(keys) {
        node.part = Some(key);
        node.prefab = None;
    }
    let prefab = Arc::new(Prefab {
        path: canonical.clone(),
        nodes,
        sources,
    });
    assets.keep_prefab(canonical, Arc::clone(&prefab));
    Ok(prefab)
}

impl crate::scene::Scene {
    /// Spawns an instance of the prefab file at `path`: a node named `name`
    /// under `parent`, with the prefab's nodes as its children.
    ///
    /// # Errors
    /// As [`load_prefab`]; [`NodeError::StaleNode`](crate::NodeError::StaleNode) for a dead parent.
    /// Nothing stays behind on error.
    pub fn spawn_prefab(
        &mut self,
        parent: Option<crate::scene::NodeId>,
        name: impl Into<String>,
        transform: crate::scene::Transform,
        path: &Path,
    ) -> Result<crate::scene::NodeId, SceneError> {
        let path = &canonical(path, self.assets())?;
        let mut record = NodeRecord::new(name);
        record.transform = transform;
        record.prefab = Some(path.to_string_lossy().into_owned());
        let records = [record];
        let assets = self.assets().clone();
        budget::check(&records, path, &[], assets.limits().nodes, &assets)?;
        let expanded = expand_in(&records, path, &mut Vec::new(), &assets)?;
        Ok(self.spawn_expanded(parent, &expanded, path)?[0])
    }
}

/// Keys of `nodes` (parents before children): the names from the roots down,
/// `#k` after a name already used by an earlier sibling.
fn keys_of(nodes: &[NodeRecord]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::with_capacity(nodes.len());
    let mut used: HashMap<(Option<usize>, &str), usize> = HashMap::new();
    for node in nodes {
        let seen = used.entry((node.parent, node.name.as_str())).or_insert(0);
        let name = match *seen {
            0 => node.name.clone(),
            k => format!("{}#{k}", node.name),
        };
        *seen += 1;
        keys.push(match node.parent.and_then(|p| keys.get(p)) {
            Some(parent) => format!("{parent}/{name}"),
            None => name,
        });
    }
    keys
}

/// One node of a file's expanded list.
pub(crate) struct Expanded {
    /// Index of the file's node it comes from (an instance's, for its parts).
    pub origin: usize,
    /// The node: parents index the expanded list, paths absolute, `part` set
    /// on parts of the nearest instance above.
    pub record: NodeRecord,
    /// On an instance: its prefab.
    pub prefab: Option<Arc<Prefab>>,
    /// On an instance: what its record said of keys the prefab lacks.
    pub orphans: Orphans,
}

/// A file's `nodes` with every prefab instance's parts in place (see the
/// module's documentation); `origin` is the file (relative paths start at its
/// folder, errors name it).
///
/// # Errors
/// [`SceneError::InvalidField`] naming the file's node and field (a missing
/// or broken prefab, an override that does not fit, an `under` that names no
/// part); [`SceneError::PrefabCycle`].
pub(crate) fn expand(
    records: &[NodeRecord],
    origin: &Path,
    assets: &Assets,
) -> Result<Vec<Expanded>, SceneError> {
    let mut chain: Vec<PathBuf> = assets
        .limits()
        .source
        .canonicalize(origin)
        .ok()
        .into_iter()
        .collect();
    budget::check(records, origin, &chain, assets.limits().nodes, assets)?;
    expand_in(records, origin, &mut chain, assets)
}

/// `records` (a scene file's nodes, parents before children) with every
/// prefab instance's parts listed after it, as [`Scene::to_scene`] spawns
/// them: parts carry their key in `part`, instances their prefab's absolute
/// path, model paths are absolute. What a subtree copy pastes: `origin`
/// names the text in errors and is where relative paths start; `host` is the
/// file the nodes go into, which no prefab among them may contain.
///
/// # Errors
/// As loading the file would (see [`load_prefab`]);
/// [`SceneError::PrefabCycle`] for a prefab that contains `host`.
///
/// [`Scene::to_scene`]: crate::scene::SceneFile::to_scene
pub fn expand_records(
    records: &[NodeRecord],
    origin: &Path,
    host: Option<&Path>,
    assets: &Assets,
) -> Result<Vec<NodeRecord>, SceneError> {
    let mut chain: Vec<PathBuf> = host
        .and_then(|h| assets.limits().source.canonicalize(h).ok())
        .into_iter()
        .collect();
    budget::check(records, origin, &chain, assets.limits().nodes, assets)?;
    Ok(expand_in(records, origin, &mut chain, assets)?
        .into_iter()
        .map(|e| e.record)
        .collect())
}

/// Rewrites the node-list indices `record`'s components reference through
/// `map` (`None`: the target is not in the new list, and is no target).
fn remap_refs(record: &mut NodeRecord, map: impl Fn(usize) -> Option<usize>) {
    for value in &mut record.components {
        crate::scene::visit_refs(value.reflect_mut().as_partial_reflect_mut(), &mut |r| {
            if let Some(i) = r.written_index() {
                r.set_index(map(i as usize).and_then(|i| u32::try_from(i).ok()));
            }
        });
    }
}

fn expand_in(
    records: &[NodeRecord],
    origin: &Path,
    chain: &mut Vec<PathBuf>,
    assets: &Assets,
) -> Result<Vec<Expanded>, SceneError> {
    let mut out: Vec<Expanded> = Vec::with_capacity(records.len());
    let mut position: Vec<usize> = Vec::with_capacity(records.len());
    // Per instance (by its position in `out`): where each of its parts went.
    let mut parts: HashMap<usize, HashMap<String, usize>> = HashMap::new();
    for (index, record) in records.iter().enumerate() {
        let check = Check::node(origin, index, &record.name);
        // A place past the list would be no node; a handle another run's.
        check.refs("", record, records.len())?;
        let parent = match (record.parent, &record.under) {
            (None, _) => None,
            (Some(p), _) if p >= index => {
                return Err(check.fail(
                    "parent",
                    "the index of an earlier node (forward references and cycles are refused)",
                    p.to_string(),
                ));
            }
            (Some(p), None) => Some(position[p]),
            (Some(p), Some(key)) => {
                let at = parts.get(&position[p]).and_then(|keys| keys.get(key));
                Some(*at.ok_or_else(|| {
                    check.fail(
                        "under",
                        "the key of a node of the parent's prefab",
                        format!("{key:?}"),
                    )
                })?)
            }
        };
        let mut node = record.clone();
        node.parent = parent;
        node.under = None;
        node.part = None;
        if let Some(model) = &mut node.model {
            // Absolute from here on: a prefab's parts are spawned (and their
            // models read) on behalf of another file, in another folder.
            let resolved = resolve_written_path(origin, model);
            let resolved = assets
                .limits()
                .source
                .canonicalize(&resolved)
                .unwrap_or(resolved);
            *model = resolved.to_string_lossy().into_owned();
        }
        position.push(out.len());
        let Some(written) = record.prefab.as_deref() else {
            out.push(Expanded {
                origin: index,
                record: node,
                prefab: None,
                orphans: Orphans::default(),
            });
            continue;
        };
        let file = resolve_written_path(origin, written);
        let prefab = load_in(&file, chain, assets).map_err(|error| match error {
            cycle @ SceneError::PrefabCycle { .. } => cycle,
            error => check.fail("prefab", "a readable scene file", error.to_string()),
        })?;
        let registry = crate::scene::ComponentRegistry::of(assets);
        let spawned = instance_nodes(&prefab, record, origin, &check, &registry)?;
        let orphans = Orphans::of(&prefab, &record.overrides, &record.removed);
        node.prefab = Some(prefab.path.to_string_lossy().into_owned());
        node.overrides.clear();
        node.removed.clear();
        let at = out.len();
        out.push(Expanded {
            origin: index,
            record: node,
            prefab: Some(prefab),
            orphans,
        });
        let keys = parts.entry(at).or_default();
        for mut part in spawned {
            part.parent = Some(part.parent.map_or(at, |p| at + 1 + p));
            // The prefab's own references: to its parts, now after `at`.
            remap_refs(&mut part, |i| Some(at + 1 + i));
            if let Some(key) = &part.part {
                keys.insert(key.clone(), out.len());
            }
            out.push(Expanded {
                origin: index,
                record: part,
                prefab: None,
                orphans: Orphans::default(),
            });
        }
    }
    // The file's references index the file's nodes: now the expanded list's.
    for &at in &position {
        remap_refs(&mut out[at].record, |i| position.get(i).copied());
    }
    Ok(out)
}

/// The nodes `instance` (a node of the file `origin`) gets of `prefab`: the
/// prefab's, less its `removed` keys (with their subtrees), with its
/// `overrides` merged in. Parents index the returned list; `None` is the
/// instance.
fn instance_nodes(
    prefab: &Prefab,
    instance: &NodeRecord,
    origin: &Path,
    check: &Check<'_>,
    registry: &ComponentRegistry,
) -> Result<Vec<NodeRecord>, SceneError> {
    let removed = &instance.removed;
    let mut kept: Vec<Option<usize>> = Vec::with_capacity(prefab.nodes.len());
    let mut out: Vec<NodeRecord> = Vec::with_capacity(prefab.nodes.len());
    for node in &prefab.nodes {
        let gone = node.part.as_ref().is_some_and(|k| removed.contains(k));
        let parent = node.parent.map(|p| kept[p]);
        if gone || parent == Some(None) {
            kept.push(None);
            continue;
        }
        kept.push(Some(out.len()));
        let mut node = node.clone();
        node.parent = parent.flatten();
        out.push(node);
    }
    // Overrides name the prefab's nodes by their place in the prefab (as
    // its own records do, whatever this instance removed): patched first,
    // then every reference follows its node past the removed ones.
    for (key, patch) in &instance.overrides {
        let Some(node) = out.iter_mut().find(|n| n.part.as_ref() == Some(key)) else {
            log::warn!(
                "{}: node `{}`: prefab {} has no node `{key}` any more; its overrides are kept, unused, until removed in the inspector",
                origin.display(),
                instance.name,
                prefab.path.display()
            );
            continue;
        };
        *node = patched(node, &patch.0, registry).map_err(|message| {
            check.fail(
                format!("overrides.{key}"),
                "fields of the prefab node's record",
                message,
            )
        })?;
        check.refs(&format!("overrides.{key}."), node, prefab.nodes.len())?;
    }
    for node in &mut out {
        remap_refs(node, |i| kept.get(i).copied().flatten());
    }
    Ok(out)
}

/// The fields of a node's record that overrides patch (not its place or links).
fn fields(record: &NodeRecord) -> Value {
    let mut plain = record.clone();
    plain.parent = None;
    plain.prefab = None;
    plain.overrides.clear();
    plain.removed.clear();
    plain.under = None;
    plain.part = None;
    // Kept as written, outside the patch (their text is RON, not JSON).
    plain.unknown.0.clear();
    serde_json::to_value(&plain).unwrap_or(Value::Null)
}

/// `record` with `patch` merged in (RFC 7396: objects merge, `null` removes,
/// anything else replaces).
fn patched(
    record: &NodeRecord,
    patch: &Value,
    registry: &ComponentRegistry,
) -> Result<NodeRecord, String> {
    let mut value = fields(record);
    merge(&mut value, patch);
    record_from(value, record, registry)
}

/// The record `value` holds, in `like`'s place (parent, part, unknown
/// components).
fn record_from(
    value: Value,
    like: &NodeRecord,
    registry: &ComponentRegistry,
) -> Result<NodeRecord, String> {
    let mut out = RecordSeed {
        registry,
        options: crate::scene::ReadOptions::default(),
    }
    .deserialize(value)
    .map_err(|e| e.to_string())?;
    out.parent = like.parent;
    out.part.clone_from(&like.part);
    out.unknown = like.unknown.clone();
    Ok(out)
}

fn merge(target: &mut Value, patch: &Value) {
    let Value::Object(patch) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(serde_json::Map::new());
    }
    if let Value::Object(map) = target {
        for (k, v) in patch {
            if v.is_null() {
                map.remove(k);
            } else {
                merge(map.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
    }
}

/// The merge patch that turns `from` into `to`; `None` when they are equal.
fn diff(from: &Value, to: &Value) -> Option<Value> {
    if from == to {
        return None;
    }
    let (Value::Object(a), Value::Object(b)) = (from, to) else {
        return Some(to.clone());
    };
    let mut out = serde_json::Map::new();
    for (k, v) in b {
        if let Some(d) = diff(a.get(k).unwrap_or(&Value::Null), v) {
            out.insert(k.clone(), d);
        }
    }
    for k in a.keys().filter(|k| !b.contains_key(*k)) {
        out.insert(k.clone(), Value::Null);
    }
    Some(Value::Object(out))
}

/// What an instance changed of its prefab: per key, the merge patch from the
/// prefab's node to `current` (the part's record as it is now); and the
/// prefab's keys no part has any more (only the top of a removed subtree).
pub(crate) fn overrides_of(
    prefab: &Prefab,
    current: &HashMap<Arc<str>, NodeRecord>,
) -> (BTreeMap<String, Patch>, Vec<String>) {
    let mut overrides = BTreeMap::new();
    let mut removed = Vec::new();
    let mut gone: HashSet<usize> = HashSet::new();
    for (i, node) in prefab.nodes.iter().enumerate() {
        let Some(key) = node.part.as_deref() else {
            continue;
        };
        let Some(now) = current.get(key) else {
            if !node.parent.is_some_and(|p| gone.contains(&p)) {
                removed.push(key.to_string());
            }
            gone.insert(i);
            continue;
        };
        if let Some(patch) = diff(&fields(node), &fields(now)) {
            overrides.insert(key.to_string(), Patch(patch));
        }
    }
    (overrides, removed)
}

/// The overridden fields of one part, as dotted paths (`mesh.material.base_color`):
/// what the inspector shows in bold.
pub fn overridden_fields(prefab_node: &NodeRecord, current: &NodeRecord) -> Vec<String> {
    fn walk(prefix: &str, patch: &Value, out: &mut Vec<String>) {
        match patch {
            Value::Object(map) if !map.is_empty() => {
                for (k, v) in map {
                    let path = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&path, v, out);
                }
            }
            _ => out.push(prefix.to_string()),
        }
    }
    let mut out = Vec::new();
    if let Some(patch) = diff(&fields(prefab_node), &fields(current)) {
        walk("", &patch, &mut out);
    }
    out
}

/// `current` with the dotted `field` put back to the prefab node's value.
///
/// # Errors
/// When the result is no valid record (it always is for a field
/// [`overridden_fields`] listed).
pub fn reverted(
    prefab_node: &NodeRecord,
    current: &NodeRecord,
    field: &str,
    registry: &ComponentRegistry,
) -> Result<NodeRecord, String> {
    let from = fields(prefab_node);
    let mut value = fields(current);
    let parts: Vec<&str> = field.split('.').collect();
    let original = parts.iter().try_fold(&from, |v, k| v.get(k));
    let (last, path) = parts.split_last().ok_or("empty field")?;
    let mut target = &mut value;
    for k in path {
        target = target
            .get_mut(*k)
            .ok_or_else(|| format!("no field `{field}`"))?;
    }
    let map = target
        .as_object_mut()
        .ok_or_else(|| format!("no field `{field}`"))?;
    match original {
        Some(v) => {
            map.insert((*last).to_string(), v.clone());
        }
        None => {
            map.remove(*last);
        }
    }
    record_from(value, current, registry)
}

/// A merge patch as a scene file writes it: numbers that are `f32` values
/// (every float of a record) are written as `f32`, so `0.1` stays `0.1`.
#[derive(Clone, Debug, PartialEq)]
pub struct Patch(pub Value);

impl serde::Serialize for Patch {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        struct Short<'a>(&'a Value);
        impl serde::Serialize for Short<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self.0 {
                    Value::Number(n) if n.is_f64() => {
                        let x = n.as_f64().unwrap_or(0.0);
                        if f64::from(x as f32) == x {
                            s.serialize_f32(x as f32)
                        } else {
                            s.serialize_f64(x)
                        }
                    }
                    Value::Array(items) => {
                        let mut seq = s.serialize_seq(Some(items.len()))?;
                        for item in items {
                            seq.serialize_element(&Short(item))?;
                        }
                        seq.end()
                    }
                    Value::Object(map) => {
                        let mut m = s.serialize_map(Some(map.len()))?;
                        for (k, v) in map {
                            m.serialize_entry(k, &Short(v))?;
                        }
                        m.end()
                    }
                    other => other.serialize(s),
                }
            }
        }
        Short(&self.0).serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for Patch {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(Patch)
    }
}

#[cfg(test)]
mod tests;
