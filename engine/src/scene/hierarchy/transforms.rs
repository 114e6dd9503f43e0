//! The transforms of a scene while its registered components are borrowed
//! elsewhere (a query walking them): read locals and worlds, set locals,
//! with the same rules as [`Scene::set_local`].

use glam::Affine3A;

use super::layout::Hot;
use super::{NONE, Slot, flag};
use crate::scene::{NodeError, NodeId, RegisteredColumns, Scene};
use crate::transform::{Affine3x4, Transform};

/// A scene's transforms beside its component columns (see [`Scene::query_each`]).
pub struct Transforms<'a> {
    hot: &'a mut Hot,
    slots: &'a [Slot],
    names: &'a [String],
    dirty: &'a mut Vec<NodeId>,
    undo: &'a mut super::StepUndo,
}

impl Transforms<'_> {
    fn dense(&self, node: NodeId) -> Option<usize> {
        super::dense_in(self.slots, node)
    }

    /// The local transform of `node` (as [`Scene::local`]).
    pub fn local(&self, node: NodeId) -> Option<Transform> {
        self.dense(node).map(|d| self.hot.local[d])
    }

    /// The world transform of `node` as of the last propagation (as
    /// [`Scene::world`]).
    pub fn world(&self, node: NodeId) -> Option<Affine3A> {
        self.dense(node)
            .map(|d| self.hot.current_world(d).to_affine())
    }

    /// The world transform `node` has now, local changes since the last
    /// propagation included (as [`Scene::world_now`]).
    pub fn world_now(&self, node: NodeId) -> Option<Affine3A> {
        self.dense(node).map(|d| self.hot.world_now(d).to_affine())
    }

    /// Sets the local transform of `node` (as [`Scene::set_local`]).
    ///
    /// # Errors
    /// As [`Scene::set_local`].
    pub fn set_local(&mut self, node: NodeId, local: Transform) -> Result<bool, NodeError> {
        let d = self.dense(node).ok_or(NodeError::StaleNode { node })?;
        self.set_local_at(node, d, local, flag::DIRTY)
    }

    /// Writes `local` at position `d` (the live `node`'s) and sets `bits`
    /// (dirty, and teleport for a jump) if it changed: the one writer of
    /// locals, for the scene's methods and for queries.
    pub(super) fn set_local_at(
        &mut self,
        node: NodeId,
        d: usize,
        local: Transform,
        bits: u8,
    ) -> Result<bool, NodeError> {
        if !local.is_finite() {
            return Err(NodeError::InvalidTransform {
                node: self.names[node.index() as usize].clone(),
                transform: local,
            });
        }
        if self.hot.local[d] == local {
            return Ok(false);
        }
        self.undo
            .local_written(d, self.hot.local[d], self.hot.flags[d]);
        self.hot.local[d] = local;
        if bits & flag::DIRTY != 0 && self.hot.flags[d] & flag::DIRTY == 0 {
            self.dirty.push(node);
        }
        self.hot.flags[d] |= bits;
        Ok(true)
    }
}

impl Hot {
    /// The world transform at `d` with the local changes not yet propagated:
    /// the arithmetic of propagation along the path from the highest dirty
    /// ancestor down (the stored world when none is dirty).
    pub(super) fn world_now(&self, d: usize) -> Affine3x4 {
        // Positions from `d` up to the root; the highest dirty one's index.
        let mut near = [0u32; 32];
        let mut far: Vec<u32> = Vec::new();
        let (mut len, mut top) = (0usize, None);
        let mut at = d as u32;
        while at != NONE {
            match near.get_mut(len) {
                Some(slot) => *slot = at,
                None => {
                    if far.is_empty() {
                        far.extend_from_slice(&near);
                    }
                    far.push(at);
                }
            }
            if self.flags[at as usize] & flag::DIRTY != 0 {
                top = Some(len);
            }
            len += 1;
            at = self.parent[at as usize];
        }
        let Some(top) = top else {
            return *self.current_world(d);
        };
        let chain: &[u32] = if far.is_empty() { &near[..len] } else { &far };
        let parent = self.parent[chain[top] as usize];
        let mut world = if parent == NONE {
            Affine3x4::IDENTITY
        } else {
            *self.current_world(parent as usize)
        };
        for &at in chain[..=top].iter().rev() {
            world = world.mul(&Affine3x4::from_transform(&self.local[at as usize]));
        }
        world
    }
}

impl Scene {
    /// The registered component columns and the transforms, borrowed apart.
    pub(in crate::scene) fn columns_and_transforms(
        &mut self,
    ) -> (&mut RegisteredColumns, Transforms<'_>) {
        (
            &mut self.components.registered,
            Transforms {
                hot: &mut self.hot,
                slots: &self.slots,
                names: &self.names,
                dirty: &mut self.dirty,
                undo: &mut self.undo,
            },
        )
    }
}
