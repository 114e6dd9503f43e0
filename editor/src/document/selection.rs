//! The selection: an ordered set of nodes with a primary one.

use std::collections::HashSet;

use keel_engine::NodeId;

use crate::undo::Remap;

/// An ordered set of selected nodes, with a primary one (the inspector's).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    nodes: Vec<NodeId>,
    set: HashSet<NodeId>,
    primary: Option<NodeId>,
}

impl Selection {
    /// Nothing selected.
    pub fn new() -> Self {
        Self::default()
    }

    /// Selects only `node`.
    pub fn select_only(&mut self, node: NodeId) {
        self.clear();
        self.add(node);
    }

    /// Adds `node` (if absent) and makes it primary.
    pub fn add(&mut self, node: NodeId) {
        if self.set.insert(node) {
            self.nodes.push(node);
        }
        self.primary = Some(node);
    }

    /// Adds `node` if absent, removes it if present (Ctrl+click).
    pub fn toggle(&mut self, node: NodeId) {
        if self.set.contains(&node) {
            self.retain(|n| n != node);
        } else {
            self.add(node);
        }
    }

    /// Replaces the selection with `nodes` (duplicates dropped), the last one primary.
    pub fn set_all(&mut self, nodes: impl IntoIterator<Item = NodeId>) {
        self.clear();
        for n in nodes {
            self.add(n);
        }
    }

    /// Selects nothing.
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.set.clear();
        self.primary = None;
    }

    /// Whether `node` is selected.
    pub fn contains(&self, node: NodeId) -> bool {
        self.set.contains(&node)
    }

    /// The primary node: the one last added.
    pub fn primary(&self) -> Option<NodeId> {
        self.primary
    }

    /// Selected nodes in the order they were selected.
    pub fn nodes(&self) -> &[NodeId] {
        &self.nodes
    }

    /// Number of selected nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether nothing is selected.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Keeps the nodes `keep` accepts; the primary falls back to the last kept.
    pub fn retain(&mut self, mut keep: impl FnMut(NodeId) -> bool) {
        let before = self.nodes.len();
        self.nodes.retain(|&n| keep(n));
        if self.nodes.len() != before {
            self.set = self.nodes.iter().copied().collect();
        }
        if self.primary.is_some_and(|p| !self.set.contains(&p)) {
            self.primary = self.nodes.last().copied();
        }
    }

    /// Rewrites handles of recreated nodes.
    pub fn remap(&mut self, map: &Remap) {
        if map.is_empty() {
            return;
        }
        let fix = |n: NodeId| map.get(&n).copied().unwrap_or(n);
        self.nodes.iter_mut().for_each(|n| *n = fix(*n));
        self.set = self.nodes.iter().copied().collect();
        self.primary = self.primary.map(fix);
    }
}
