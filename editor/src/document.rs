//! The document: the live world being edited, where it is saved, what is
//! selected, and the undo history.
//!
//! Every change goes through a method here that builds an [`Edit`], applies it
//! and records it, so nothing reaches the scene without an undo entry. The UI
//! calls these between frames (after `World::frame` has run the fixed steps),
//! so the systems never see a half-made edit.
//!
//! Dirty flag: the document is unsaved while the undo stack's revision differs
//! from the revision last written to disk; undoing back to the saved state
//! makes it clean again.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use keel_engine::Assets;
use keel_engine::Primitive;
use keel_engine::World;
use keel_engine::scene::{ModelInstance, NodeRecord, ReadOptions};
use keel_engine::{Keep, NodeId, Scene, SceneError};

use crate::component::{ComponentKind, ComponentValue};
use crate::subtree::{self, Placement};
use crate::undo::{Applied, Edit, EditError, Remap, UndoStack};

/// The file name of a document not saved yet (what its title shows, and
/// where its relative paths are taken from).
pub(crate) const UNTITLED: &str = "untitled.ron";

/// A revision no stack ever reaches: a document "saved" at it is always dirty.
const NEVER_SAVED: u64 = u64::MAX;

/// The world as it was when Play was pressed, to go back to on Reset.
#[derive(Clone, Debug)]
pub struct PlaySnapshot {
    /// Everything simulated, step counter included: Reset gives the world
    /// that hashes the same, handles and all.
    world: keel_engine::WorldSnapshot,
    undo: UndoStack,
    selection: Selection,
}

/// A scene being edited.
pub struct Document {
    /// The live world (scene, systems, clock).
    pub world: World,
    /// Where the scene is saved; `None` until first saved.
    pub path: Option<PathBuf>,
    /// What is selected.
    pub selection: Selection,
    /// The undo history.
    pub undo: UndoStack,
    saved_revision: u64,
    names_version: u64,
    id: u64,
    /// Recorded futures discarded by edits at a past step, by the depth of the
    /// undo history the edit's entry sits at (see `document/recording.rs`).
    futures: Vec<(usize, keel_engine::record::Branch)>,
    /// The file as this document last read or wrote it (time, length): a
    /// different one on disk was changed by someone else.
    disk_stamp: Option<(std::time::SystemTime, u64)>,
}

fn stamp_of(path: &Path) -> Option<(std::time::SystemTime, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

/// Source of [`Document::id`]s.
static NEXT_DOCUMENT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl PlaySnapshot {
    /// The world's step counter when Play was pressed.
    pub fn step(&self) -> u64 {
        self.world.step()
    }
}

impl Document {
    /// A document around `scene`, clean, saved at `path` (if any).
    pub fn new(scene: Scene, path: Option<PathBuf>) -> Self {
        let mut world = World::new(scene);
        world.clock_mut().set_paused(true);
        // Animated models show their animators' first pose, not the bind pose.
        world.scene_mut().pose_animators();
        Self {
            world,
            path,
            selection: Selection::new(),
            undo: UndoStack::new(),
            saved_revision: 0,
            names_version: 0,
            id: NEXT_DOCUMENT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            futures: Vec::new(),
            disk_stamp: None,
        }
        .with_disk_stamp()
    }

    fn with_disk_stamp(mut self) -> Self {
        self.disk_stamp = self.path.as_deref().and_then(stamp_of);
        self
    }

    /// Whether the file was changed on disk since this document read or wrote it.
    pub fn changed_on_disk(&self) -> bool {
        self.path.is_some() && self.path.as_deref().and_then(stamp_of) != self.disk_stamp
    }

    /// Takes the file as it is on disk now as the one this document knows
    /// (the user chose to keep their version): no more questions until it
    /// changes again.
    pub fn accept_disk_version(&mut self) {
        self.disk_stamp = self.path.as_deref().and_then(stamp_of);
    }

    /// A number no other document of this process has: caches built from a
    /// document compare it to notice that the document was replaced.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// An empty, untitled document with an asset store of its own.
    pub fn untitled() -> Self {
        let scene = Scene::new();
        keep_unknown_components(scene.assets());
        Self::new(scene, None)
    }

    /// An empty, untitled document whose imports go into `assets`.
    pub fn untitled_in(assets: &Assets) -> Self {
        keep_unknown_components(assets);
        Self::new(Scene::with_assets(assets), None)
    }

    /// Loads a scene file, its models, prefabs and sky into `assets`.
    ///
    /// # Errors
    /// Whatever [`Scene::load`] reports (file, line, node and field).
    pub fn open(path: &Path, assets: &Assets) -> Result<Self, SceneError> {
        keep_unknown_components(assets);
        Ok(Self::new(
            Scene::load(path, assets)?,
            Some(path.to_path_buf()),
        ))
    }

    /// A document read from scene-file `text` as if it were the file at
    /// `path` (models and prefabs found beside it), unsaved or not as `path`
    /// says nothing: the caller marks it.
    ///
    /// # Errors
    /// Whatever [`Scene::from_text_with`] reports.
    pub fn from_text(
        text: &str,
        path: Option<&Path>,
        assets: &Assets,
        options: ReadOptions,
    ) -> Result<Self, SceneError> {
        keep_unknown_components(assets);
        let origin = path.unwrap_or(Path::new(UNTITLED));
        Ok(Self::new(
            Scene::from_text_with(text, origin, assets, options)?,
            path.map(Path::to_path_buf),
        ))
    }

    /// The scene being edited.
    pub fn scene(&self) -> &Scene {
        self.world.scene()
    }

    /// Whether there are changes not yet saved.
    pub fn is_dirty(&self) -> bool {
        self.undo.revision() != self.saved_revision
    }

    /// Marks the current state as the one on disk.
    pub fn mark_saved(&mut self) {
        self.saved_revision = self.undo.revision();
    }

    /// The history's revision last saved (what a handover carries).
    pub(crate) fn saved_revision(&self) -> u64 {
        self.saved_revision
    }

    /// Takes `revision` as the history's revision last saved (a handover's).
    pub(crate) fn restore_saved_revision(&mut self, revision: u64) {
        self.saved_revision = revision;
    }

    /// Marks the document as differing from disk whatever the history says
    /// (a scene restored from a recovery file).
    pub fn mark_unsaved(&mut self) {
        self.saved_revision = NEVER_SAVED;
    }

    /// Counter bumped by every rename (and its undo): caches of names compare it.
    pub fn names_version(&self) -> u64 {
        self.names_version
    }

    /// The file name, or `untitled.ron`.
    pub fn display_name(&self) -> String {
        self.path.as_deref().and_then(Path::file_name).map_or_else(
            || UNTITLED.to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }

    /// The window title: `Keel — name.ron`, with ` *` while unsaved.
    pub fn title(&self) -> String {
        let star = if self.is_dirty() { " *" } else { "" };
        format!("Keel — {}{star}", self.display_name())
    }

    /// Saves to `path` atomically, makes it the document's path and clears the dirty mark.
    ///
    /// # Errors
    /// [`SceneError::Io`] naming the file; the document stays dirty.
    pub fn save_to(&mut self, path: &Path) -> Result<(), SceneError> {
        self.world.scene().save(path)?;
        self.path = Some(path.to_path_buf());
        self.mark_saved();
        self.accept_disk_version();
        Ok(())
    }

    /// Applies `edit`, records it and brings world transforms up to date.
    ///
    /// # Errors
    /// The edit's error; nothing is recorded then.
    pub fn apply(
        &mut self,
        mut edit: Edit,
        label: impl Into<String>,
        merge: Option<u64>,
    ) -> Result<(), EditError> {
        let mut remap = Remap::new();
        edit.apply(self.world.scene_mut(), true, &mut remap)?;
        self.after_change(&edit, &remap);
        self.undo.push_applied(edit, label, merge);
        self.recording_after_edit();
        Ok(())
    }

    /// Undoes the last edit; `Ok(None)` when there is none.
    ///
    /// # Errors
    /// When the scene no longer matches the entry (see `UndoStack::undo`).
    pub fn undo(&mut self) -> Result<Option<Applied>, EditError> {
        let key = self.undo.len();
        let applied = self.undo.undo(self.world.scene_mut());
        if matches!(applied, Ok(Some(_))) {
            self.world.scene_mut().pose_animators();
            self.recording_after_undo(key);
        }
        self.after_history(applied)
    }

    /// Redoes the last undone edit; `Ok(None)` when there is none.
    ///
    /// # Errors
    /// As [`Document::undo`].
    pub fn redo(&mut self) -> Result<Option<Applied>, EditError> {
        let applied = self.undo.redo(self.world.scene_mut());
        if matches!(applied, Ok(Some(_))) {
            self.world.scene_mut().pose_animators();
            self.recording_after_edit();
        }
        self.after_history(applied)
    }

    fn after_history(
        &mut self,
        applied: Result<Option<Applied>, EditError>,
    ) -> Result<Option<Applied>, EditError> {
        // Renames are rare; bumping on every history step keeps the name caches simple and exact.
        self.names_version += 1;
        let applied = applied.inspect_err(|_| self.prune())?;
        if let Some(a) = &applied {
            self.selection.remap(&a.remap);
            self.select_recreated(&a.remap);
            // Components that named the nodes an undo brought back name them again.
            self.world.scene_mut().remap_refs(&a.remap);
        }
        self.prune();
        Ok(applied)
    }

    /// Selects the roots of subtrees an undo or redo brought back, so a
    /// restored deletion comes back selected as it was deleted.
    fn select_recreated(&mut self, remap: &Remap) {
        if remap.is_empty() {
            return;
        }
        let scene = self.world.scene();
        let recreated: HashSet<NodeId> = remap.values().copied().collect();
        let mut roots: Vec<NodeId> = recreated
            .iter()
            .copied()
            .filter(|&n| {
                scene.contains(n) && !scene.parent(n).is_some_and(|p| recreated.contains(&p))
            })
            .collect();
        in_scene_order(scene, &mut roots);
        self.selection.set_all(roots);
    }

    fn after_change(&mut self, edit: &Edit, remap: &Remap) {
        if matches!(edit, Edit::Rename { .. } | Edit::Group(_)) {
            self.names_version += 1;
        }
        self.selection.remap(remap);
        self.prune();
        // An edited animator (a scrub while paused) poses its bones now.
        self.world.scene_mut().pose_animators();
    }

    /// Drops dead nodes from the selection and recomputes world transforms.
    fn prune(&mut self) {
        let scene = self.world.scene();
        self.selection.retain(|n| scene.contains(n));
        self.world.scene_mut().propagate();
    }

    fn name_of(&self, node: NodeId) -> String {
        self.scene().name(node).unwrap_or("?").to_string()
    }

    /// Renames a node.
    ///
    /// # Errors
    /// [`EditError::NoSuchNode`].
    pub fn rename(&mut self, node: NodeId, name: impl Into<String>) -> Result<(), EditError> {
        self.editable(node)?;
        let after = name.into();
        let before = self
            .scene()
            .name(node)
            .ok_or(EditError::NoSuchNode { node })?
            .to_string();
        if before == after {
            return Ok(());
        }
        let label = format!("Rename {before} to {after}");
        self.apply(
            Edit::Rename {
                node,
                before,
                after,
            },
            label,
            None,
        )
    }

    /// Whether moving `node` under `new_parent` would be refused as a cycle.
    pub fn would_cycle(&self, node: NodeId, new_parent: Option<NodeId>) -> bool {
        new_parent.is_some_and(|p| self.scene().is_ancestor_or_self(node, p))
    }

    /// Moves `nodes` (with their subtrees) under `new_parent` (the root level for
    /// `None`), keeping them where they are in the world; one undo entry.
    ///
    /// Nodes inside another moved node's subtree move with it and are skipped.
    ///
    /// # Errors
    /// [`EditError::Cycle`] if the new parent is inside one of the moved subtrees
    /// (nothing moves, nothing is recorded); [`EditError::NoSuchNode`].
    pub fn reparent(
        &mut self,
        nodes: &[NodeId],
        new_parent: Option<NodeId>,
    ) -> Result<(), EditError> {
        if let Some(p) = new_parent {
            if !self.scene().contains(p) {
                return Err(EditError::NoSuchNode { node: p });
            }
            self.editable(p)?;
        }
        let roots = self.top_level(nodes)?;
        if let Some(&bad) = roots.iter().find(|&&n| self.would_cycle(n, new_parent)) {
            return Err(EditError::Cycle {
                node: self.name_of(bad),
                new_parent: new_parent.map_or_else(String::new, |p| self.name_of(p)),
            });
        }
        let mut edits = Vec::new();
        for node in roots {
            if self.scene().parent(node) == new_parent {
                continue;
            }
            let scene = self.world.scene_mut();
            let from = Placement::of(scene, node).ok_or(EditError::NoSuchNode { node })?;
            let before = scene.local(node).ok_or(EditError::NoSuchNode { node })?;
            let moved = scene.reparent(node, new_parent, Keep::World);
            if let Err(source) = moved {
                self.roll_back(edits);
                return Err(EditError::Scene {
                    action: "reparent".into(),
                    source: source.into(),
                });
            }
            let scene = self.world.scene();
            let to = Placement::of(scene, node).ok_or(EditError::NoSuchNode { node })?;
            let after = scene.local(node).ok_or(EditError::NoSuchNode { node })?;
            edits.push(Edit::Reparent {
                node,
                from,
                to,
                before,
                after,
            });
        }
        if edits.is_empty() {
            return Ok(());
        }
        let target = new_parent.map_or_else(|| "the root".to_string(), |p| self.name_of(p));
        let label = match &edits[..] {
            [Edit::Reparent { node, .. }] => format!("Move {} under {target}", self.name_of(*node)),
            many => format!("Move {} nodes under {target}", many.len()),
        };
        self.record(group(edits), label);
        Ok(())
    }

    /// Duplicates each node's subtree (components included) right after the
    /// original; one undo entry; selects the copies. Returns the copies' roots.
    ///
    /// # Errors
    /// [`EditError::NoSuchNode`]; nothing is recorded then.
    pub fn duplicate(&mut self, nodes: &[NodeId]) -> Result<Vec<NodeId>, EditError> {
        let roots = self.top_level(nodes)?;
        if roots.is_empty() {
            return Ok(Vec::new());
        }
        let scene = self.world.scene();
        let mut places: Vec<Placement> = Vec::with_capacity(roots.len());
        for (k, &node) in roots.iter().enumerate() {
            let place = Placement::of(scene, node).ok_or(EditError::NoSuchNode { node })?;
            // Each earlier copy under the same parent went in before this original.
            let before = roots[..k]
                .iter()
                .filter(|&&r| scene.parent(r) == place.parent)
                .count();
            places.push(Placement {
                index: place.index + 1 + before,
                ..place
            });
        }
        // One list, so references between the duplicated roots name the copies.
        let mut records = subtree::extract_all(scene, &roots).ok_or(EditError::Empty {
            action: "duplicate",
        })?;
        for record in records.iter_mut().filter(|r| r.parent.is_none()) {
            record.name = format!("{} (copy)", record.name);
        }
        self.spawn_copies(&records, &places, "Duplicate")
    }

    /// Deletes each node with its subtree; one undo entry (undo restores names,
    /// components, parent and position). Returns how many nodes went.
    ///
    /// # Errors
    /// [`EditError::NoSuchNode`]; nothing is recorded then.
    pub fn delete(&mut self, nodes: &[NodeId]) -> Result<usize, EditError> {
        let roots = self.top_level(nodes)?;
        let mut edits = Vec::new();
        let mut removed = 0;
        for node in roots {
            removed += self.push_despawn(&mut edits, node)?;
        }
        if edits.is_empty() {
            return Ok(0);
        }
        let label = match &edits[..] {
            [Edit::Despawn { records, .. }] => format!("Delete {}", records[0].name),
            many => format!("Delete {} nodes", many.len()),
        };
        self.record(group(edits), label);
        Ok(removed)
    }

    /// Deletes the selection.
    ///
    /// # Errors
    /// As [`Document::delete`].
    pub fn delete_selection(&mut self) -> Result<usize, EditError> {
        let nodes = self.selection.nodes().to_vec();
        self.delete(&nodes)
    }

    /// Duplicates the selection.
    ///
    /// # Errors
    /// As [`Document::duplicate`].
    pub fn duplicate_selection(&mut self) -> Result<Vec<NodeId>, EditError> {
        let nodes = self.selection.nodes().to_vec();
        self.duplicate(&nodes)
    }

    /// Gives `node` a component (or replaces the one of the same kind).
    /// Edits sharing a `merge` key (one drag) become one undo entry.
    ///
    /// # Errors
    /// [`EditError::InvalidComponent`] for values a scene file would reject;
    /// [`EditError::NoSuchNode`].
    pub fn set_component(
        &mut self,
        node: NodeId,
        value: ComponentValue,
        merge: Option<u64>,
    ) -> Result<(), EditError> {
        if !self.scene().contains(node) {
            return Err(EditError::NoSuchNode { node });
        }
        self.editable(node)?;
        let kind = value.kind();
        if !value.is_valid() {
            return Err(EditError::InvalidComponent {
                node: self.name_of(node),
                kind: kind.label(),
                value: format!("{value:?}"),
            });
        }
        let before = kind.get(self.scene(), node);
        if before.as_ref() == Some(&value) {
            return Ok(());
        }
        let verb = if before.is_some() { "Edit" } else { "Add" };
        let label = format!("{verb} {} of {}", kind.label(), self.name_of(node));
        self.apply(
            Edit::Component {
                node,
                kind,
                before,
                after: Some(value),
            },
            label,
            merge,
        )
    }

    /// Removes a component from `node` (nothing happens if it has none).
    ///
    /// # Errors
    /// [`EditError::NoSuchNode`].
    pub fn remove_component(&mut self, node: NodeId, kind: ComponentKind) -> Result<(), EditError> {
        if !self.scene().contains(node) {
            return Err(EditError::NoSuchNode { node });
        }
        self.editable(node)?;
        let Some(before) = kind.get(self.scene(), node) else {
            return Ok(());
        };
        let label = format!("Remove {} from {}", kind.label(), self.name_of(node));
        self.apply(
            Edit::Component {
                node,
                kind,
                before: Some(before),
                after: None,
            },
            label,
            None,
        )
    }

    /// Records an applied edit and tidies up after it.
    fn record(&mut self, edit: Edit, label: String) {
        self.after_change(&edit, &Remap::new());
        self.names_version += 1;
        self.undo.push_applied(edit, label, None);
        self.recording_after_edit();
    }

    /// Despawns the subtree of `node` and appends the edit to `edits`; returns
    /// how many nodes went. On failure the earlier `edits` are rolled back.
    fn push_despawn(&mut self, edits: &mut Vec<Edit>, node: NodeId) -> Result<usize, EditError> {
        let scene = self.world.scene();
        let found = Placement::of(scene, node).zip(subtree::extract(scene, node));
        let Some((at, records)) = found else {
            self.roll_back(std::mem::take(edits));
            return Err(EditError::NoSuchNode { node });
        };
        let ids: Vec<NodeId> = scene.subtree(node).collect();
        let count = ids.len();
        let mut edit = Edit::Despawn { at, records, ids };
        if let Err(e) = edit.apply(self.world.scene_mut(), true, &mut Remap::new()) {
            self.roll_back(std::mem::take(edits));
            return Err(e);
        }
        edits.push(edit);
        Ok(count)
    }

    /// Spawns `records` (a subtree) at `at` and appends the edit to `edits`;
    /// returns the new root. On failure the earlier `edits` are rolled back.
    fn push_spawn(
        &mut self,
        edits: &mut Vec<Edit>,
        at: Placement,
        records: Vec<NodeRecord>,
    ) -> Result<NodeId, EditError> {
        let mut edit = Edit::Spawn {
            at,
            records,
            ids: vec![],
        };
        if let Err(e) = edit.apply(self.world.scene_mut(), true, &mut Remap::new()) {
            self.roll_back(std::mem::take(edits));
            return Err(e);
        }
        let Edit::Spawn { ids, .. } = &edit else {
            unreachable!("built as a spawn above")
        };
        let root = ids[0];
        edits.push(edit);
        Ok(root)
    }

    /// Records the spawns of [`Document::push_spawn`] (or of a copy's roots) as one undo entry
    /// ("`verb` name", or "`verb` n nodes") and selects their `roots`.
    fn record_spawns(&mut self, edits: Vec<Edit>, roots: &[NodeId], verb: &str) {
        if edits.is_empty() {
            return;
        }
        let label = match &edits[..] {
            [Edit::Spawn { records, .. }] => format!("{verb} {}", records[0].name),
            many => format!("{verb} {} nodes", many.len()),
        };
        self.record(group(edits), label);
        self.selection.set_all(roots.iter().copied());
    }

    /// Undoes already-applied parts of a group whose later part failed.
    fn roll_back(&mut self, mut edits: Vec<Edit>) {
        while let Some(mut edit) = edits.pop() {
            let mut remap = Remap::new();
            if let Err(e) = edit.apply(self.world.scene_mut(), false, &mut remap) {
                log::warn!("could not roll back a partial edit: {e}");
            }
            for earlier in &mut edits {
                earlier.remap(&remap);
            }
        }
        self.prune();
    }

    /// The nodes of `nodes` that are not inside another one's subtree, in scene order.
    /// Refuses edits to nodes spawned from a model file (see [`EditError::ModelPart`]).
    ///
    /// # Errors
    /// [`EditError::ModelPart`].
    pub fn editable(&self, node: NodeId) -> Result<(), EditError> {
        let scene = self.scene();
        if !scene.is_model_part(node) {
            return Ok(());
        }
        let mut at = scene.parent(node);
        while let Some(p) = at {
            if let Some(instance) = scene.get::<ModelInstance>(p) {
                return Err(EditError::ModelPart {
                    node: self.name_of(node),
                    model: instance.source.display().to_string(),
                });
            }
            at = scene.parent(p);
        }
        Err(EditError::ModelPart {
            node: self.name_of(node),
            model: "(unknown)".into(),
        })
    }

    fn top_level(&self, nodes: &[NodeId]) -> Result<Vec<NodeId>, EditError> {
        let scene = self.scene();
        if let Some(&dead) = nodes.iter().find(|&&n| !scene.contains(n)) {
            return Err(EditError::NoSuchNode { node: dead });
        }
        let set: HashSet<NodeId> = nodes.iter().copied().collect();
        let mut out: Vec<NodeId> = set
            .iter()
            .copied()
            .filter(|&n| !has_ancestor_in(scene, n, |p| set.contains(&p)))
            .collect();
        // Scene order makes multi-node edits independent of click order.
        in_scene_order(scene, &mut out);
        for &node in &out {
            self.editable(node)?;
        }
        Ok(out)
    }

    /// Remembers the world as it is now, for [`Document::restore_play_snapshot`].
    pub fn play_snapshot(&self) -> PlaySnapshot {
        PlaySnapshot {
            world: self.world.snapshot(),
            undo: self.undo.clone(),
            selection: self.selection.clone(),
        }
    }

    /// Puts back the world (step counter included), history and selection of
    /// a snapshot. Handles are those of the snapshot, so the history and the
    /// selection apply as they were.
    pub fn restore_play_snapshot(&mut self, snapshot: PlaySnapshot) {
        self.world.restore_snapshot(snapshot.world);
        self.undo = snapshot.undo;
        self.selection = snapshot.selection;
        self.names_version += 1;
        self.prune();
    }
}

/// Whether an ancestor of `node` is one that `member` accepts.
fn has_ancestor_in(scene: &Scene, node: NodeId, member: impl Fn(NodeId) -> bool) -> bool {
    std::iter::successors(scene.parent(node), |&p| scene.parent(p)).any(member)
}

/// Sorts live nodes in the scene's pre-order (a walk of the whole scene, only
/// when there are two or more).
fn in_scene_order(scene: &Scene, nodes: &mut [NodeId]) {
    if nodes.len() < 2 {
        return;
    }
    let order: std::collections::HashMap<NodeId, usize> =
        scene.nodes().enumerate().map(|(i, n)| (n, i)).collect();
    nodes.sort_by_key(|n| order.get(n).copied().unwrap_or(0));
}

fn group(mut edits: Vec<Edit>) -> Edit {
    if edits.len() == 1 {
        edits.pop().expect("one edit")
    } else {
        Edit::Group(edits)
    }
}

/// The default node name for a primitive.
pub fn primitive_name(primitive: Primitive) -> &'static str {
    match primitive {
        Primitive::Cube => "cube",
        Primitive::Sphere => "sphere",
        Primitive::Plane => "plane",
        Primitive::Cylinder => "cylinder",
        Primitive::Cone => "cone",
    }
}

mod clipboard;
mod place;
mod selection;
pub use selection::Selection;
mod prefab;
mod transforms;
pub use prefab::PrefabLink;
mod environment;
mod recording;
mod rename;

#[cfg(test)]
mod tests;

/// An editor opens scenes naming components this build lacks (a game's),
/// shows them read-only and writes them back unchanged.
fn keep_unknown_components(assets: &Assets) {
    let kept = keel_engine::scene::ComponentRegistry::edit(assets, |registry| {
        registry.keep_unknown(true);
        Ok(())
    });
    debug_assert!(kept.is_ok(), "keeping unknown components cannot fail");
}
