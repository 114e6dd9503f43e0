//! Components that name other nodes: [`NodeRef`], a field type, and the
//! passes that keep it pointing at the right node through files, copies and
//! prefabs (what Bevy's entity mapping and Godot's `NodePath` do).
//!
//! In memory a reference holds the target's generational handle, so a
//! despawned target simply answers `None` (a handle never aliases a later
//! node). In a scene file it is written as the target's index in the file's
//! node list (`Node(3)`, as `parent: 3` is), or, for a target outside the
//! nodes written (a copied subtree naming a node it does not hold), as the
//! target's path (`Path("harbour/ship")`). Writing records maps handles to
//! indices ([`RefsOut`]); spawning a record list maps indices back to the new
//! handles ([`Scene::resolve_refs`]), so a copied, pasted, duplicated or
//! instanced subtree names its own copies inside and the same nodes outside.
//! The reflection walk visits every `NodeRef` a component holds, in nested
//! structs, enums, tuples, lists and options alike.

use bevy_reflect::std_traits::ReflectDefault;
use bevy_reflect::{PartialReflect, Reflect, ReflectMut, ReflectRef};
use serde::{Deserialize, Serialize};

use super::{NodeId, Scene};

/// A component's reference to another node (see the module's docs).
///
/// ```
/// use keel_engine::{NodeRef, Scene, Transform};
///
/// let mut scene = Scene::new();
/// let ship = scene.spawn(None, "ship", Transform::IDENTITY)?;
/// let follow = NodeRef::to(ship);
/// assert_eq!(follow.get(&scene), Some(ship));
/// scene.despawn(ship)?;
/// assert_eq!(follow.get(&scene), None, "a despawned target is no target");
/// # Ok::<(), keel_engine::SceneError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Reflect)]
#[reflect(opaque, Clone, Debug, PartialEq, Default)]
pub struct NodeRef(Target);

/// Where a [`NodeRef`] points, in memory or as written.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
enum Target {
    /// No node.
    #[default]
    None,
    /// The node at this index of the node list being read or written.
    Node(u32),
    /// The node at this path, outside the nodes written.
    Path(String),
    /// A live handle (memory; the list being written turns it into one of
    /// the above).
    Live(NodeId),
}

/// A [`NodeRef`] as files write it: `None`, or (an implicit `Some`) `Node(3)`,
/// `Path("harbour/ship")`; a handle no list turned into either is written as
/// `Handle(slot, generation)`, which only the same run can read back.
#[derive(Serialize, Deserialize)]
enum Written {
    Node(u32),
    Path(String),
    Handle(u32, u32),
}

impl Serialize for NodeRef {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let written = match &self.0 {
            Target::None => None,
            Target::Node(i) => Some(Written::Node(*i)),
            Target::Path(p) => Some(Written::Path(p.clone())),
            Target::Live(id) => Some(Written::Handle(id.index(), id.generation())),
        };
        written.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for NodeRef {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // The format's own words for a number or a word in the wrong place
        // ("invalid identifier 9") name none of the forms a reference takes.
        let written = Option::<Written>::deserialize(deserializer).map_err(|_| {
            serde::de::Error::custom(
                "expected a node reference: `None`, `Node(3)` (a place in the file's \
                 node list) or `Path(\"harbour/ship\")`",
            )
        })?;
        Ok(NodeRef(match written {
            None => Target::None,
            Some(Written::Node(i)) => Target::Node(i),
            Some(Written::Path(p)) => Target::Path(p),
            Some(Written::Handle(index, generation)) => {
                match std::num::NonZeroU32::new(generation) {
                    Some(g) => Target::Live(NodeId::new(index, g)),
                    None => Target::None,
                }
            }
        }))
    }
}

impl NodeRef {
    /// No node.
    pub const NONE: NodeRef = NodeRef(Target::None);

    /// A reference to `node`.
    pub fn to(node: NodeId) -> Self {
        NodeRef(Target::Live(node))
    }

    /// The target, if it is a node of `scene` now.
    pub fn get(&self, scene: &Scene) -> Option<NodeId> {
        self.id().filter(|&node| scene.contains(node))
    }

    /// The handle it holds, alive or not.
    pub fn id(&self) -> Option<NodeId> {
        match self.0 {
            Target::Live(node) => Some(node),
            _ => None,
        }
    }

    /// Whether it names no node.
    pub fn is_none(&self) -> bool {
        self.0 == Target::None
    }

    /// Points it at `node` (or at nothing).
    pub fn set(&mut self, node: Option<NodeId>) {
        self.0 = node.map_or(Target::None, Target::Live);
    }

    /// As written: the index of the target in the node list being read or
    /// written, if it is one (tools that cut and join record lists remap it).
    pub fn written_index(&self) -> Option<u32> {
        match self.0 {
            Target::Node(i) => Some(i),
            _ => None,
        }
    }

    /// Points it at index `i` of the node list being written or expanded
    /// (`None`: at no node).
    pub fn set_index(&mut self, i: Option<u32>) {
        self.0 = i.map_or(Target::None, Target::Node);
    }
}

/// Calls `visit` with every [`NodeRef`] inside `value` (the value itself, its
/// fields, variants, items and their fields, all the way down).
pub fn visit_refs(value: &mut dyn PartialReflect, visit: &mut dyn FnMut(&mut NodeRef)) {
    match value.reflect_mut() {
        ReflectMut::Struct(s) => {
            for i in 0..s.field_len() {
                if let Some(field) = s.field_at_mut(i) {
                    visit_refs(field, visit);
                }
            }
        }
        ReflectMut::TupleStruct(s) => {
            for i in 0..s.field_len() {
                if let Some(field) = s.field_mut(i) {
                    visit_refs(field, visit);
                }
            }
        }
        ReflectMut::Tuple(t) => {
            for i in 0..t.field_len() {
                if let Some(field) = t.field_mut(i) {
                    visit_refs(field, visit);
                }
            }
        }
        ReflectMut::List(l) => {
            for i in 0..l.len() {
                if let Some(item) = l.get_mut(i) {
                    visit_refs(item, visit);
                }
            }
        }
        ReflectMut::Array(a) => {
            for i in 0..a.len() {
                if let Some(item) = a.get_mut(i) {
                    visit_refs(item, visit);
                }
            }
        }
        ReflectMut::Enum(e) => {
            for i in 0..e.field_len() {
                if let Some(field) = e.field_at_mut(i) {
                    visit_refs(field, visit);
                }
            }
        }
        ReflectMut::Opaque(o) => {
            if let Some(node_ref) = o.try_downcast_mut::<NodeRef>() {
                visit(node_ref);
            }
        }
        _ => {}
    }
}

/// The first reference in `value` that a file may not hold: a place past
/// the end of a list of `count` nodes, or a run-time handle (files name
/// nodes by place or path only). Returns its field's dotted path below the
/// value (struct fields by name) and the reference as written.
pub(crate) fn bad_written_ref(
    value: &dyn PartialReflect,
    count: usize,
) -> Option<(String, String)> {
    fn walk(value: &dyn PartialReflect, path: &mut String, count: usize) -> Option<String> {
        let field = |path: &mut String, name: Option<&str>, field: &dyn PartialReflect| {
            let len = path.len();
            if let Some(name) = name {
                path.push('.');
                path.push_str(name);
            }
            let found = walk(field, path, count);
            if found.is_none() {
                path.truncate(len);
            }
            found
        };
        match value.reflect_ref() {
            ReflectRef::Struct(s) => {
                (0..s.field_len()).find_map(|i| field(path, s.name_at(i), s.field_at(i)?))
            }
            ReflectRef::TupleStruct(s) => {
                (0..s.field_len()).find_map(|i| field(path, None, s.field(i)?))
            }
            ReflectRef::Tuple(t) => (0..t.field_len()).find_map(|i| field(path, None, t.field(i)?)),
            ReflectRef::List(l) => (0..l.len()).find_map(|i| field(path, None, l.get(i)?)),
            ReflectRef::Array(a) => (0..a.len()).find_map(|i| field(path, None, a.get(i)?)),
            ReflectRef::Enum(e) => {
                (0..e.field_len()).find_map(|i| field(path, e.name_at(i), e.field_at(i)?))
            }
            ReflectRef::Opaque(o) => match &o.try_downcast_ref::<NodeRef>()?.0 {
                Target::Node(i) if *i as usize >= count => Some(format!("Node({i})")),
                Target::Live(id) => Some(format!("Handle({}, {})", id.index(), id.generation())),
                _ => None,
            },
            _ => None,
        }
    }
    let mut path = String::new();
    let found = walk(value, &mut path, count)?;
    Some((path, found))
}

/// Makes the references that `records` (a list of nodes made from `ids`,
/// in order) hold to nodes of the list name them by their index in it:
/// spawned again ([`Scene::resolve_refs`]), they name the new nodes; other
/// references keep their target. A subtree copied within a scene (duplicate,
/// the undo of a delete) goes through this.
pub fn index_refs(records: &mut [super::NodeRecord], ids: &[NodeId]) {
    let position: std::collections::HashMap<NodeId, u32> = ids
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, i as u32))
        .collect();
    for record in records {
        for value in &mut record.components {
            visit_refs(value.reflect_mut().as_partial_reflect_mut(), &mut |r| {
                if let Some(&i) = r.id().and_then(|id| position.get(&id)) {
                    r.0 = Target::Node(i);
                }
            });
        }
    }
}

/// Maps live targets to what a list of written nodes says of them: the
/// index of a node in the list, the path of a node outside it, nothing for
/// a despawned one (with a warning).
pub(crate) struct RefsOut<'a> {
    /// The scene the handles are of.
    pub scene: &'a Scene,
    /// Index in the list being written of each node written.
    pub written: &'a std::collections::HashMap<NodeId, u32>,
}

impl RefsOut<'_> {
    /// Rewrites `node_ref` (held by `holder`'s component `component`) for the list.
    pub fn write(&self, node_ref: &mut NodeRef, holder: &str, component: &str) {
        let Target::Live(target) = node_ref.0 else {
            return;
        };
        node_ref.0 = if let Some(&i) = self.written.get(&target) {
            Target::Node(i)
        } else if let Some(path) = self.scene.path(target) {
            Target::Path(path)
        } else {
            log::warn!(
                "node `{holder}`: component `{component}` names a node that was despawned; \
                 written with no target"
            );
            Target::None
        };
    }
}

impl Scene {
    /// Points every reference to a node `map` names at the node it maps to
    /// (nodes an editor's undo spawned again in place of the ones it
    /// deleted): a component that named a deleted node names it again once
    /// the deletion is undone. Walks every registered component: for edits,
    /// not for steps.
    pub fn remap_refs(&mut self, map: &std::collections::HashMap<NodeId, NodeId>) {
        if map.is_empty() {
            return;
        }
        let mut owners: Vec<NodeId> = self
            .components
            .registered
            .iter()
            .flat_map(|c| c.owners().iter().copied())
            .collect();
        owners.sort_unstable();
        owners.dedup();
        for node in owners {
            visit_node_refs(&mut self.components.registered, node, &mut |_, r| {
                if let Some(&to) = r.id().and_then(|id| map.get(&id)) {
                    r.0 = Target::Live(to);
                }
            });
        }
    }

    /// Points the references held by the components of `nodes` (a record
    /// list just spawned, in list order) at their targets: `Node(i)` at
    /// `nodes[i]`, `Path(p)` at the scene's node of that path. A target that
    /// is not there becomes no target, with a warning naming the holder.
    pub fn resolve_refs(&mut self, nodes: &[NodeId]) {
        // Indices in place; paths, rare (a paste naming nodes it left
        // behind), need the scene, which the walk borrows: after.
        let mut by_path: Vec<NodeId> = Vec::new();
        for &node in nodes {
            let mut path = false;
            let mut missing: Option<&'static str> = None;
            visit_node_refs(
                &mut self.components.registered,
                node,
                &mut |component, r| match r.0 {
                    Target::Node(i) => {
                        r.0 = nodes.get(i as usize).map_or_else(
                            || {
                                missing = Some(component);
                                Target::None
                            },
                            |&target| Target::Live(target),
                        );
                    }
                    Target::Path(_) => path = true,
                    Target::None | Target::Live(_) => {}
                },
            );
            if let Some(component) = missing {
                self.warn_missing(node, component, "a node past the list it was spawned with");
            }
            if path {
                by_path.push(node);
            }
        }
        for node in by_path {
            for mut value in self.components.registered.values_of(node) {
                let mut changed = false;
                let mut missing = Vec::new();
                visit_refs(value.reflect_mut().as_partial_reflect_mut(), &mut |r| {
                    if let Target::Path(path) = &r.0 {
                        let target = self.find_path(path);
                        if target.is_none() {
                            missing.push(format!("the path {path:?}"));
                        }
                        r.0 = target.map_or(Target::None, Target::Live);
                        changed = true;
                    }
                });
                for what in missing {
                    self.warn_missing(node, value.name(), &what);
                }
                if changed {
                    self.components.registered.insert_any(node, value);
                }
            }
        }
    }

    /// Points the references `record`'s components hold as written at live
    /// nodes: `Node(i)` at `node(i)`, `Path(p)` at the scene's node of that
    /// path; a target that is not there becomes no target.
    pub(crate) fn resolve_written_refs(
        &self,
        record: &mut super::NodeRecord,
        node: &dyn Fn(u32) -> Option<NodeId>,
    ) {
        for value in &mut record.components {
            visit_refs(value.reflect_mut().as_partial_reflect_mut(), &mut |r| {
                let target = match &r.0 {
                    Target::Node(i) => node(*i),
                    Target::Path(path) => self.find_path(path),
                    Target::None | Target::Live(_) => return,
                };
                r.0 = target.map_or(Target::None, Target::Live);
            });
        }
    }

    fn warn_missing(&self, node: NodeId, component: &str, what: &str) {
        log::warn!(
            "node `{}`: component `{component}` names {what}, which is not there; it names no node",
            self.name(node).unwrap_or("?")
        );
    }
}

/// Calls `visit` with the component's name and every reference `node`'s
/// registered components hold, in place.
fn visit_node_refs(
    registered: &mut super::RegisteredColumns,
    node: NodeId,
    visit: &mut dyn FnMut(&'static str, &mut NodeRef),
) {
    for column in registered.iter_mut() {
        let name = column.name();
        if let Some(value) = column.reflect_mut_of(node) {
            visit_refs(value.as_partial_reflect_mut(), &mut |r| visit(name, r));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, Default, Reflect)]
    struct Crew {
        captain: NodeRef,
        mates: Vec<NodeRef>,
        spare: Option<NodeRef>,
        #[reflect(ignore)]
        _skip: u8,
    }

    #[test]
    fn the_walk_finds_every_reference_however_deep() {
        let mut crew = Crew {
            captain: NodeRef(Target::Node(1)),
            mates: vec![NodeRef(Target::Node(2)), NodeRef::NONE],
            spare: Some(NodeRef(Target::Node(4))),
            _skip: 0,
        };
        let mut seen = Vec::new();
        visit_refs(&mut crew, &mut |r| seen.push(r.written_index()));
        assert_eq!(seen, [Some(1), Some(2), None, Some(4)]);
    }
}
