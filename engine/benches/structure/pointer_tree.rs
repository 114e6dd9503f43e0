//! The naive twin Keel is measured against: a classic pointer tree, each node
//! its own heap allocation with an ordered list of child pointers, plus a
//! dirty list and the list of nodes recomputed since the last snapshot.

#![expect(
    unsafe_code,
    reason = "the naive twin is the pointer tree a C++ engine would write"
)]

use std::ptr::NonNull;

use glam::Affine3A;
use keel_engine::{Scene, Transform};

use crate::forest::{Forest, Tree};

/// A node of the pointer tree, in its own heap allocation.
pub(crate) struct PNode {
    local: Transform,
    world: Affine3A,
    prev_world: Affine3A,
    parent: Option<NonNull<PNode>>,
    /// Owned: allocated with `Box::into_raw`, freed on despawn.
    children: Vec<NonNull<PNode>>,
    /// The world is stale: set by edits, cleared when recomputed.
    dirty: bool,
    /// In `PointerTree::dirty` (a despawned node stays allocated while listed).
    listed_dirty: bool,
    /// In `PointerTree::recomputed` (likewise).
    listed_recomputed: bool,
    /// Despawned: unlinked, freed once in no list.
    dead: bool,
}

/// A pointer-tree handle: the node's address. The bench drops its copy when
/// it despawns the node (its mirror tracks which nodes live), so a handle it
/// passes in always points to a live node.
#[derive(Clone, Copy)]
pub(crate) struct PHandle(NonNull<PNode>);

/// The naive twin. A dirty node is recomputed with its whole subtree; a
/// dirty node under a dirty ancestor listed after it is recomputed twice.
#[derive(Default)]
pub(crate) struct PointerTree {
    pub(crate) roots: Vec<NonNull<PNode>>,
    dirty: Vec<NonNull<PNode>>,
    recomputed: Vec<NonNull<PNode>>,
    /// Scratch for despawns.
    stack: Vec<NonNull<PNode>>,
    len: usize,
}

/// Frees `p` if it is despawned and in no list.
///
/// # Safety
/// `p` is allocated and no reference to it is alive.
unsafe fn release(p: NonNull<PNode>) {
    // SAFETY: allocated, per the contract.
    let node = unsafe { p.as_ref() };
    if node.dead && !node.listed_dirty && !node.listed_recomputed {
        // SAFETY: from `Box::into_raw`, unreachable from the tree and the lists.
        drop(unsafe { Box::from_raw(p.as_ptr()) });
    }
}

impl PointerTree {
    /// Takes `p` out of its parent's child list (or the roots), keeping order.
    fn unlink(&mut self, p: NonNull<PNode>) {
        // SAFETY: `p` is live, so is its parent; they are distinct nodes.
        let siblings = match unsafe { p.as_ref() }.parent {
            // SAFETY: the parent of a live node is live, and no other reference to it is held.
            Some(q) => unsafe { &mut (*q.as_ptr()).children },
            None => &mut self.roots,
        };
        let i = siblings.iter().position(|&c| c == p).expect("linked");
        siblings.remove(i);
    }

    /// Recomputes the worlds of `p`'s subtree under `parent`, listing them.
    ///
    /// # Safety
    /// `p` is live and no reference into its subtree is alive.
    unsafe fn recompute(&mut self, p: NonNull<PNode>, parent: &Affine3A) {
        // SAFETY: per the contract; children are distinct live nodes.
        let node = unsafe { &mut *p.as_ptr() };
        let world = *parent * node.local.to_affine();
        node.world = world;
        node.dirty = false;
        if !node.listed_recomputed {
            node.listed_recomputed = true;
            self.recomputed.push(p);
        }
        for i in 0..node.children.len() {
            // SAFETY: a child of a live node is live.
            unsafe { self.recompute(node.children[i], &world) };
        }
    }

    /// Every world recomputed by recursion from the roots, no flags.
    pub(crate) fn update_all(&mut self) {
        /// # Safety
        /// `p` is live and no reference into its subtree is alive.
        unsafe fn walk(p: NonNull<PNode>, parent: &Affine3A) {
            // SAFETY: per the contract.
            let node = unsafe { &mut *p.as_ptr() };
            let world = *parent * node.local.to_affine();
            node.world = world;
            for &c in &node.children {
                // SAFETY: a child of a live node is live and distinct.
                unsafe { walk(c, &world) };
            }
        }
        for &root in &self.roots {
            // SAFETY: roots are live.
            unsafe { walk(root, &Affine3A::IDENTITY) };
        }
    }
}

impl Tree for PointerTree {
    type H = PHandle;

    fn spawn_node(&mut self, parent: Option<PHandle>, local: Transform) -> PHandle {
        // SAFETY: the handle is live.
        let parent_world = parent.map_or(Affine3A::IDENTITY, |q| unsafe { q.0.as_ref() }.world);
        let world = parent_world * local.to_affine();
        let p = NonNull::from(Box::leak(Box::new(PNode {
            local,
            world,
            prev_world: world,
            parent: parent.map(|q| q.0),
            children: Vec::new(),
            dirty: true,
            listed_dirty: true,
            listed_recomputed: false,
            dead: false,
        })));
        match parent {
            // SAFETY: live, and distinct from the new node.
            Some(q) => unsafe { (*q.0.as_ptr()).children.push(p) },
            None => self.roots.push(p),
        }
        self.dirty.push(p);
        self.len += 1;
        PHandle(p)
    }

    fn despawn_node(&mut self, node: PHandle) -> usize {
        self.unlink(node.0);
        let (mut stack, mut count) = (std::mem::take(&mut self.stack), 0);
        stack.push(node.0);
        while let Some(p) = stack.pop() {
            {
                // SAFETY: in the unlinked subtree, so allocated; this is the only reference.
                let node = unsafe { &mut *p.as_ptr() };
                stack.append(&mut node.children);
                node.dead = true;
            }
            count += 1;
            // SAFETY: allocated; the reference above has ended.
            unsafe { release(p) };
        }
        self.stack = stack;
        self.len -= count;
        count
    }

    fn move_node(&mut self, node: PHandle, parent: PHandle) {
        // The cycle check Keel makes: a walk up from the new parent.
        let mut at = Some(parent.0);
        while let Some(a) = at {
            assert!(a != node.0, "cyclic move");
            // SAFETY: ancestors of a live node are live.
            at = unsafe { a.as_ref() }.parent;
        }
        self.unlink(node.0);
        // SAFETY: both live and distinct (checked above); one reference at a time.
        unsafe { (*parent.0.as_ptr()).children.push(node.0) };
        // SAFETY: live, and the parent's reference above has ended.
        let moved = unsafe { &mut *node.0.as_ptr() };
        moved.parent = Some(parent.0);
        moved.dirty = true;
        if !moved.listed_dirty {
            moved.listed_dirty = true;
            self.dirty.push(node.0);
        }
    }

    fn snapshot(&mut self) {
        let mut list = std::mem::take(&mut self.recomputed);
        for &p in &list {
            {
                // SAFETY: listed nodes stay allocated; the only reference.
                let node = unsafe { &mut *p.as_ptr() };
                node.listed_recomputed = false;
                node.prev_world = node.world;
            }
            // SAFETY: allocated; the reference above has ended.
            unsafe { release(p) };
        }
        list.clear();
        self.recomputed = list;
    }

    fn update(&mut self) {
        let mut list = std::mem::take(&mut self.dirty);
        for &p in &list {
            let (dead, dirty, parent) = {
                // SAFETY: listed nodes stay allocated; the only reference.
                let node = unsafe { &mut *p.as_ptr() };
                node.listed_dirty = false;
                (node.dead, node.dirty, node.parent)
            };
            if dead {
                // SAFETY: allocated; no reference alive.
                unsafe { release(p) };
            } else if dirty {
                // SAFETY: the parent of a live node is live.
                let world = parent.map_or(Affine3A::IDENTITY, |q| unsafe { q.as_ref() }.world);
                // SAFETY: live; no reference alive.
                unsafe { self.recompute(p, &world) };
            }
        }
        list.clear();
        self.dirty = list;
    }

    fn count(&self) -> usize {
        self.len
    }
}

impl Drop for PointerTree {
    fn drop(&mut self) {
        // Emptying the lists frees the despawned nodes still in them.
        self.update();
        self.snapshot();
        let mut stack = std::mem::take(&mut self.roots);
        while let Some(p) = stack.pop() {
            // SAFETY: live nodes are owned by their parent (or the roots) only.
            let node = unsafe { Box::from_raw(p.as_ptr()) };
            stack.extend_from_slice(&node.children);
        }
    }
}

/// Whether Keel and the twin, after the same edits, hold the same worlds.
pub(crate) fn same_worlds(keel: &Forest<Scene>, twin: &Forest<PointerTree>) -> bool {
    keel.m.live == twin.m.live
        && keel.m.live.iter().all(|&k| {
            let a = keel.tree.world(keel.h[k as usize]).expect("live node");
            // SAFETY: the mirror lists live nodes only.
            let b = unsafe { twin.h[k as usize].0.as_ref() }.world;
            a.abs_diff_eq(b, 1e-4 * (1.0 + a.translation.abs().max_element()))
        })
}
