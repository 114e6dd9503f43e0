//! Culling for a frame: the octree asked for what the camera sees and what
//! every shadow view holds, the questions answered on several cores when the
//! scene is large, and the answers marked by slot for the walk that packs
//! the mesh column in storage order.

use super::Extractor;
use super::pack::PACK_SPAN;
use crate::render::shadow::ShadowViews;
use crate::render::{Camera, Cascades, cascades, spot_shadows};
use crate::scene::{NodeId, Scene, SpatialIndex};
use crate::spatial::{Frustum, QueryPart};

/// One question to the octree and its answer (buffers kept from frame to frame).
#[derive(Debug)]
pub(super) struct Query {
    frustum: Frustum,
    /// Which part of the tree.
    part: QueryPart,
    /// The shadow view asking (`None`: the camera).
    view: Option<usize>,
    found: Vec<NodeId>,
    stack: Vec<u32>,
}

/// Answers `queries`, halves on two cores when `parallel`.
fn answer(index: &SpatialIndex, queries: &mut [Query], parallel: bool) {
    if !parallel || queries.len() < 2 {
        for q in queries {
            index.visible_part(&q.frustum, q.part, &mut q.stack, &mut q.found);
        }
        return;
    }
    let (front, back) = queries.split_at_mut(queries.len() / 2);
    rayon::join(|| answer(index, front, true), || answer(index, back, true));
}

impl Extractor {
    /// This frame's shadow views (the sun's cascades and the shadowed
    /// spots), fitted to `view`, from the lights gathered.
    fn shadow_views(&self, scene: &Scene, view: &Camera, aspect: f32) -> ShadowViews {
        let settings = &scene.environment().shadows;
        ShadowViews {
            cascades: match &self.sun {
                Some(sun) if sun.intensity > 0.0 => cascades(view, aspect, sun.direction, settings),
                _ => Cascades::default(),
            },
            spots: spot_shadows(&self.point_lights, settings),
        }
    }

    /// Notes the shadow views' volumes (for the deformed meshes' culling)
    /// without asking the octree what they hold: the GPU culls the casters.
    pub(super) fn note_shadow_views(&mut self, scene: &Scene, view: &Camera, aspect: f32) {
        let shadows = self.shadow_views(scene, view, aspect);
        for (_, _, view_proj) in shadows.in_use() {
            self.cascade_frustums
                .push(Frustum::from_view_projection(view_proj));
        }
    }

    /// Asks the octree what `camera` sees (unless `None`: nothing is
    /// marked seen) and what each shadow view holds (the sun's cascades and
    /// the shadowed spots, fitted to `view`, from the lights gathered), and
    /// marks the answers by slot: a bit of `visible_marks` for the camera,
    /// bit `i` of `caster_marks` for view `i` (cascades from 0, spots from
    /// [`MAX_CASCADES`](crate::scene::MAX_CASCADES)). Returns how many
    /// shadow views there are.
    pub(super) fn cull(
        &mut self,
        scene: &Scene,
        index: &SpatialIndex,
        camera: Option<&Frustum>,
        view: &Camera,
        aspect: f32,
    ) -> usize {
        let shadows = self.shadow_views(scene, view, aspect);
        let meshes = scene.components().mesh.len();
        // A small scene is answered on this thread alone: no other core is woken.
        let parallel = meshes >= 2 * PACK_SPAN;
        let mut asked = 0;
        let mut ask = |queries: &mut Vec<Query>, frustum: Frustum, part, view| {
            if queries.len() == asked {
                queries.push(Query {
                    frustum,
                    part,
                    view,
                    found: Vec::new(),
                    stack: Vec::new(),
                });
            }
            let query = &mut queries[asked];
            (query.frustum, query.part, query.view) = (frustum, part, view);
            // Every mesh is the most an answer can hold: reserved once, never
            // grown frame by frame.
            query.found.reserve(meshes);
            asked += 1;
        };
        // Each volume in two parts of the tree when parallel: the volumes
        // differ in size (the far cascade holds most of a scene), the parts
        // of one far less.
        let count = if parallel { 2 } else { 1 };
        if let Some(frustum) = camera {
            for index in 0..count {
                ask(
                    &mut self.queries,
                    *frustum,
                    QueryPart { index, count },
                    None,
                );
            }
        }
        for (i, _, view_proj) in shadows.in_use() {
            let frustum = Frustum::from_view_projection(view_proj);
            self.cascade_frustums.push(frustum);
            for index in 0..count {
                ask(
                    &mut self.queries,
                    frustum,
                    QueryPart { index, count },
                    Some(i),
                );
            }
        }
        let queries = &mut self.queries[..asked];
        answer(index, queries, parallel);
        // The octree answers in its own order, scattered over the hot arrays:
        // marked by slot, the mesh column is then walked front to back (the
        // same set, read in storage order so transforms stream through the cache).
        self.visible_marks.clear();
        self.visible_marks
            .resize(scene.slot_count().div_ceil(64), 0);
        let views = shadows.count();
        if views > 0 {
            self.caster_marks.clear();
            self.caster_marks.resize(scene.slot_count(), 0);
        }
        // Slices, so their bounds stay in registers while the marks are set.
        let (seen, cast) = (
            self.visible_marks.as_mut_slice(),
            self.caster_marks.as_mut_slice(),
        );
        for query in queries.iter() {
            match query.view {
                None => {
                    for node in &query.found {
                        let slot = node.index() as usize;
                        seen[slot / 64] |= 1 << (slot % 64);
                    }
                }
                Some(i) => {
                    for node in &query.found {
                        if let Some(mark) = cast.get_mut(node.index() as usize) {
                            *mark |= 1 << i;
                        }
                    }
                }
            }
        }
        self.asked = asked;
        views
    }

    /// Mesh nodes the octree found in the camera's frustum at the last
    /// culled extraction, in no order.
    pub fn visible(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.queries[..self.asked]
            .iter()
            .filter(|q| q.view.is_none())
            .flat_map(|q| q.found.iter().copied())
    }
}
