//! Packing the mesh column into the frame's records: one walk in storage
//! order packs every mesh the camera sees into the camera's records and
//! every casting mesh marked for a shadow view into that view's casters
//! (the shadow pass's smaller records); a mesh both seen and casting is
//! interpolated once.
//!
//! Large scenes are cut into spans of the column packed on several cores.
//! Each span first counts what it will write (a cheap pass: the marks, the
//! flags), so every span knows where its records go and writes them in
//! place: the records stay in column order, contiguous, and are never copied
//! again.
//!
//! # Mesh instances on the GPU, in full
//!
//! Extraction writes each visible mesh once, straight in the GPU layout (a
//! sequential stream of 80-byte records: the 3x4 model matrix's rows, RGBA base
//! colour, emission, metallic, roughness and alpha cutoff as unorm8s) with its batch key beside it (`PackedInstances` in `FrameData`);
//! the renderer uploads those records as they are into a storage buffer. A
//! shadow view's casters are smaller records (`GpuCaster`, 64 bytes, a cache
//! line: the rows, the base colour's alpha and the alpha cutoff, all a
//! depth-only pass and a masked caster's alpha test read; `render/records.rs`
//! holds both record types). Large
//! scenes (two spans of 2,048 meshes or more) are packed on several cores: each
//! span of the mesh column first counts what it writes (camera records, casters
//! per view), a prefix sum gives it its place, and the spans then write in place,
//! so the records stay in column order and are never copied again. While writing
//! a key, extraction compares it with the one there from last frame; an array of
//! keys that did not change keeps its `version`, and a batcher handed the version
//! it grouped last frame keeps that grouping (only blended instances are sorted
//! again for the view). Many extracted keys are grouped in two halves on two
//! cores, the second half's batches merged into the first's, with the same
//! groups and runs as one pass. The caster count learns whether each mesh can
//! cast from the meshes once and keeps a byte per mesh while the mesh column's
//! stamp holds. Loose
//! `MeshInstance`s (hand-built frames, tests) are culled and packed by the batcher
//! and uploaded after them. Grouping is a counting sort of 4-byte
//! indices: one pass counts each (texture, mesh) batch, a prefix sum gives each
//! batch a run of the index array, and the packing pass drops every instance's
//! index into its batch's run. The index array is the per-instance vertex stream;
//! the vertex shader fetches the record and derives the normal matrix (cofactor)
//! itself. Scattering the 64-byte records into hundreds of runs instead missed the
//! cache on nearly every write. Imported meshes and textures are uploaded the first
//! time a batch draws them (`GpuMesh` per registry mesh, a bind group per texture
//! with its full mip chain; a 1x1 white texture stands in for none).

use crate::scene::Affine3x4;

use super::Extractor;
use crate::render::{
    BatchKey, GpuCaster, GpuInstance, InstanceRecord, MAX_SHADOW_VIEWS, PackedInstances,
};
use crate::scene::{MeshRenderer, NodeId, Scene};

/// Meshes per span: columns shorter than two spans are packed on one core.
pub const PACK_SPAN: usize = 2 * 1024;

/// The packed buffers of a frame: the camera's records (0), then each
/// shadow view's casters (`1 + i` for view `i`).
const BUFFERS: usize = 1 + MAX_SHADOW_VIEWS;

/// What a span of the mesh column writes into each buffer.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Counts([usize; BUFFERS]);

impl Counts {
    fn add(&mut self, other: &Self) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a += b;
        }
    }
}

/// Records packed for the GPU with their batch keys: grow-only buffers, the
/// first `len` in use (the rest is kept from larger frames), so spans write
/// into them in place and nothing is cleared and refilled.
#[derive(Debug, Default)]
pub(super) struct PackedBuffer<R> {
    records: Vec<R>,
    keys: Vec<BatchKey>,
    len: usize,
    /// Changes whenever the keys do ([`PackedInstances::version`]), with
    /// the length the keys had then.
    version: (u64, usize),
}

impl<R: InstanceRecord> PackedBuffer<R> {
    /// The records and keys in use.
    pub(super) fn packed(&self) -> PackedInstances<'_, R> {
        PackedInstances {
            records: &self.records[..self.len],
            keys: &self.keys[..self.len],
            version: self.version.0,
        }
    }

    /// Takes `len` records and keys (grown if need be, the old ones kept);
    /// whether that changes the length the version was given for.
    fn resize(&mut self, len: usize) -> bool {
        if self.records.len() < len {
            self.records.resize(len, R::default());
            self.keys.resize(len, BatchKey::default());
        }
        self.len = len;
        self.version.1 != len
    }

    /// A new version when `changed`.
    fn update_version(&mut self, changed: bool) {
        if changed {
            self.version = (next_version(), self.len);
        }
    }

    /// Where a span writes: the records and keys in use.
    fn out(&mut self) -> (&mut [R], &mut [BatchKey]) {
        (&mut self.records[..self.len], &mut self.keys[..self.len])
    }
}

/// The frame's packed buffers: the camera's records (buffer 0 of
/// [`Counts`]) and each shadow view's casters (buffer `1 + i`).
#[derive(Debug, Default)]
pub(super) struct Packed {
    pub(super) camera: PackedBuffer<GpuInstance>,
    pub(super) casters: [PackedBuffer<GpuCaster>; MAX_SHADOW_VIEWS],
}

impl Packed {
    /// Empties every buffer (their memory is kept).
    pub(super) fn clear(&mut self) {
        self.camera.len = 0;
        for buffer in &mut self.casters {
            buffer.len = 0;
        }
    }
}

/// A version no array of keys had before (never 0: "unknown").
fn next_version() -> u64 {
    crate::identity::fresh()
}

/// What the walk reads besides the scene: the camera's marks (a bit per
/// slot) and the shadow views' (a byte per slot, bit `i` for view `i`).
#[derive(Clone, Copy)]
struct Marks<'a> {
    visible: &'a [u64],
    casters: &'a [u8],
    views: usize,
}

impl Marks<'_> {
    /// Whether the camera sees `node`, and the shadow views it casts into
    /// (the one rule both passes follow, so the counts are exact), for a
    /// mesh that can cast ([`MeshRenderer::can_cast`]).
    #[inline]
    fn of(&self, scene: &Scene, node: NodeId, can_cast: bool) -> (bool, u8) {
        let slot = node.index() as usize;
        let seen = self.visible[slot / 64] & (1 << (slot % 64)) != 0;
        let casts = if self.views != 0 && can_cast {
            self.casters.get(slot).copied().unwrap_or(0)
        } else {
            0
        };
        if (!seen && casts == 0) || super::deformed::is_deformed(scene, node) {
            return (false, 0);
        }
        (seen, casts)
    }
}

/// Where the count pass learns whether each mesh can cast: from the meshes
/// themselves, writing it down (a byte per mesh) for the next frames, or
/// from what an earlier frame wrote (the column is unchanged since), which
/// spares reading every mesh twice.
enum Casting<'a> {
    /// No shadow view this frame: never asked.
    Unasked,
    Learn(&'a mut [u8]),
    Known(&'a [u8]),
}

impl<'a> Casting<'a> {
    /// The first `at` meshes' part, and the rest.
    fn split_at(self, at: usize) -> (Casting<'a>, Casting<'a>) {
        match self {
            Casting::Unasked => (Casting::Unasked, Casting::Unasked),
            Casting::Learn(flags) => {
                let (a, b) = flags.split_at_mut(at);
                (Casting::Learn(a), Casting::Learn(b))
            }
            Casting::Known(flags) => {
                let (a, b) = flags.split_at(at);
                (Casting::Known(a), Casting::Known(b))
            }
        }
    }
}

/// Part of one buffer: records and their keys.
type Part<'a, R> = (&'a mut [R], &'a mut [BatchKey]);

/// Where one span writes: its part of each buffer's records and keys.
struct Out<'a> {
    camera: Part<'a, GpuInstance>,
    casters: [Part<'a, GpuCaster>; MAX_SHADOW_VIEWS],
}

/// The first `at` of `part`, and the rest.
fn split_part<'a, R>(part: &mut Part<'a, R>, at: usize) -> Part<'a, R> {
    let (records, keys) = std::mem::take(part);
    let (r0, r1) = records.split_at_mut(at);
    let (k0, k1) = keys.split_at_mut(at);
    *part = (r0, k0);
    (r1, k1)
}

impl<'a> Out<'a> {
    /// The first `counts` of every buffer, and the rest.
    fn split(mut self, counts: &Counts) -> (Out<'a>, Out<'a>) {
        let tails = Out {
            camera: split_part(&mut self.camera, counts.0[0]),
            casters: std::array::from_fn(|i| split_part(&mut self.casters[i], counts.0[1 + i])),
        };
        (self, tails)
    }
}

/// Writes `record` and `key` at `at` of `part`; whether the key there changed.
#[inline]
fn write<R>((records, keys): &mut Part<'_, R>, at: usize, record: R, key: BatchKey) -> bool {
    records[at] = record;
    // Compared while its line is being written anyway: an unchanged array
    // of keys lets the batcher keep last frame's grouping.
    let changed = keys[at] != key;
    keys[at] = key;
    changed
}

/// A span of the mesh column (positions `start..end`) and what it writes.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Span {
    start: usize,
    end: usize,
    counts: Counts,
}

/// Counts what `spans` write, halves on two cores; `casting` covers the
/// spans' meshes.
fn count_spans(
    scene: &Scene,
    marks: Marks<'_>,
    column: Column<'_>,
    spans: &mut [Span],
    casting: Casting<'_>,
) {
    if let [span] = spans {
        let range = span.start..span.end;
        let part = (&column.0[range.clone()], &column.1[range]);
        span.counts = count(scene, marks, part, casting);
        return;
    }
    let (front, back) = spans.split_at_mut(spans.len() / 2);
    let (casting0, casting1) = casting.split_at(back[0].start - front[0].start);
    rayon::join(
        || count_spans(scene, marks, column, front, casting0),
        || count_spans(scene, marks, column, back, casting1),
    );
}

/// The mesh column's owners and components, in storage order.
type Column<'a> = (&'a [NodeId], &'a [MeshRenderer]);

/// Counts what a part of the column writes.
fn count(
    scene: &Scene,
    marks: Marks<'_>,
    (nodes, meshes): Column<'_>,
    mut casting: Casting<'_>,
) -> Counts {
    let mut counts = Counts::default();
    for (i, (&node, mesh)) in nodes.iter().zip(meshes).enumerate() {
        let can_cast = match &mut casting {
            Casting::Unasked => false,
            Casting::Learn(flags) => {
                let can = mesh.can_cast();
                flags[i] = u8::from(can);
                can
            }
            Casting::Known(flags) => flags[i] != 0,
        };
        let (seen, casts) = marks.of(scene, node, can_cast);
        counts.0[0] += usize::from(seen);
        let mut left = casts;
        while left != 0 {
            counts.0[1 + left.trailing_zeros() as usize] += 1;
            left &= left - 1;
        }
    }
    counts
}

/// Packs what `marks` keep of a part of the column, placed at `alpha`,
/// into `out`, which holds exactly what it counted and last frame's keys.
/// Returns which buffers' keys changed (bit `b` for buffer `b`).
fn pack(
    scene: &Scene,
    marks: Marks<'_>,
    alpha: f32,
    (nodes, meshes): Column<'_>,
    mut out: Out<'_>,
) -> u32 {
    let mut written = [0usize; BUFFERS];
    let mut changed = 0;
    let mut model = Affine3x4::IDENTITY;
    for (&node, mesh) in nodes.iter().zip(meshes) {
        let (seen, casts) = marks.of(scene, node, mesh.can_cast());
        if !seen && casts == 0 {
            continue;
        }
        // A node of the column is alive, so it has a transform; should it
        // not, the mesh collapses to a point rather than shifting the others.
        if !scene.interpolate_world_into(node, alpha, &mut model) {
            model = Affine3x4::ZERO;
        }
        if seen {
            let record = GpuInstance::from_rows(&model, &mesh.material);
            let key = BatchKey::new(mesh.mesh, &mesh.material);
            changed |= u32::from(write(&mut out.camera, written[0], record, key));
            written[0] += 1;
        }
        // Only the views marked: most casters are in one or two of eight.
        let mut left = casts;
        if left != 0 {
            let record = GpuCaster::from_rows(&model, &mesh.material);
            let key = BatchKey::caster(mesh.mesh, &mesh.material);
            while left != 0 {
                let b = 1 + left.trailing_zeros() as usize;
                changed |= u32::from(write(&mut out.casters[b - 1], written[b], record, key)) << b;
                written[b] += 1;
                left &= left - 1;
            }
        }
    }
    changed
}

/// Packs `spans` into `out`, halves on two cores. Returns which keys
/// changed (as [`pack`]).
fn pack_spans(
    scene: &Scene,
    marks: Marks<'_>,
    alpha: f32,
    column: Column<'_>,
    spans: &[Span],
    out: Out<'_>,
) -> u32 {
    if let [span] = spans {
        let range = span.start..span.end;
        let part = (&column.0[range.clone()], &column.1[range]);
        return pack(scene, marks, alpha, part, out);
    }
    let (front, back) = spans.split_at(spans.len() / 2);
    let mut written = Counts::default();
    for span in front {
        written.add(&span.counts);
    }
    let (out0, out1) = out.split(&written);
    let (a, b) = rayon::join(
        || pack_spans(scene, marks, alpha, column, front, out0),
        || pack_spans(scene, marks, alpha, column, back, out1),
    );
    a | b
}

impl Extractor {
    /// One walk of the mesh column in storage order: every mesh the camera
    /// sees (marked in `visible_marks`) is packed into the frame's records,
    /// and every casting mesh marked for a shadow view into that view's
    /// casters; a mesh both seen and casting is interpolated and packed
    /// once.
    pub(super) fn pack_meshes(&mut self, scene: &Scene, alpha: f32, views: usize) {
        let column = scene.components().mesh.parts();
        let total = column.0.len();
        let marks = Marks {
            visible: &self.visible_marks,
            casters: &self.caster_marks,
            views,
        };
        // Spans of the column (one when it is short: no other core is asked).
        let spans = total.div_ceil(PACK_SPAN).max(1);
        self.spans.clear();
        self.spans.extend((0..spans).map(|i| Span {
            start: total * i / spans,
            end: total * (i + 1) / spans,
            counts: Counts::default(),
        }));
        let stamp = scene.components().mesh.stamp();
        let casting = if views == 0 {
            Casting::Unasked
        } else if self.cast_flags.0 == Some(stamp) {
            Casting::Known(&self.cast_flags.1)
        } else {
            self.cast_flags.0 = Some(stamp);
            self.cast_flags.1.resize(total, 0);
            Casting::Learn(&mut self.cast_flags.1)
        };
        count_spans(scene, marks, column, &mut self.spans, casting);
        let mut sum = Counts::default();
        for span in &self.spans {
            sum.add(&span.counts);
        }
        // A buffer whose length changes has new keys.
        let packed = &mut self.packed;
        let mut changed = u32::from(packed.camera.resize(sum.0[0]));
        for (i, buffer) in packed.casters.iter_mut().enumerate() {
            changed |= u32::from(buffer.resize(sum.0[1 + i])) << (1 + i);
        }
        let out = Out {
            camera: packed.camera.out(),
            casters: packed.casters.each_mut().map(PackedBuffer::out),
        };
        changed |= pack_spans(scene, marks, alpha, column, &self.spans, out);
        packed.camera.update_version(changed & 1 != 0);
        for (i, buffer) in packed.casters.iter_mut().enumerate() {
            buffer.update_version(changed & (1 << (1 + i)) != 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use glam::{Mat4, Quat, Vec3};

    use super::*;
    use crate::Material;
    use crate::assets::Primitive;
    use crate::extract::Overlays;
    use crate::render::{Camera, InstanceBatcher};
    use crate::scene::{Light, LightKind, Orbit, Transform};
    use crate::world::World;

    /// Groups of orbiting meshes under a low sun: some see-through (they
    /// cast nothing), some not casting, the rest casting.
    fn fleet(count: usize) -> World {
        let mut scene = Scene::new();
        for g in 0..count.div_ceil(50) {
            let root = scene.spawn(None, "group", Transform::IDENTITY).unwrap();
            let orbit = Orbit {
                center: Vec3::ZERO,
                radius: 10.0 + (g % 40) as f32,
                rate: 0.3,
                angle: g as f32 * 0.41,
                face_forward: true,
            };
            scene.insert(root, orbit).unwrap();
            for i in 0..50.min(count - g * 50) {
                let at = Vec3::new((i % 10) as f32 * 0.6, (i / 10) as f32 * 0.6, 0.0);
                let node = scene
                    .spawn(Some(root), "part", Transform::from_translation(at))
                    .unwrap();
                let mut material = Material::rgb(0.5, (i % 5) as f32 / 5.0, 0.5);
                if i % 7 == 0 {
                    material.alpha_mode = crate::assets::AlphaMode::Blend;
                }
                let mut mesh = MeshRenderer::new(Primitive::ALL[(g + i) % 5].into(), material);
                mesh.cast_shadows = i % 11 != 0;
                scene.insert(node, mesh).unwrap();
            }
        }
        let sun = scene
            .spawn(
                None,
                "sun",
                Transform::IDENTITY.with_rotation(Quat::from_rotation_x(-0.6)),
            )
            .unwrap();
        let light = Light {
            kind: LightKind::Directional,
            color: Vec3::ONE,
            intensity: 2.0,
            cast_shadows: true,
        };
        scene.insert(sun, light).unwrap();
        let mut world = World::new(scene);
        world.step();
        world.step();
        world
    }

    fn camera() -> Camera {
        Camera {
            position: Vec3::new(0.0, 4.0, 32.0),
            target: Vec3::new(10.0, 0.0, 0.0),
            ..Camera::default()
        }
    }

    /// What one buffer must hold, the slow way: the meshes `keep` keys, in
    /// column order, drawn at `interpolated_world`.
    fn expected<R: InstanceRecord>(
        world: &World,
        keep: impl Fn(NodeId, &MeshRenderer) -> Option<BatchKey>,
    ) -> Vec<(R, BatchKey)> {
        let alpha = world.clock.alpha();
        let scene = &world.scene;
        (scene.components().mesh.iter())
            .filter_map(|(node, mesh)| {
                let key = keep(node, mesh)?;
                let model = scene.interpolated_world(node, alpha)?;
                Some((R::pack(&model, &mesh.material), key))
            })
            .collect()
    }

    fn pairs<R: InstanceRecord>(packed: PackedInstances<'_, R>) -> Vec<(R, BatchKey)> {
        packed
            .records
            .iter()
            .copied()
            .zip(packed.keys.iter().copied())
            .collect()
    }

    /// Checks one extraction of `world` against the slow way: the camera's
    /// records and every cascade's casters.
    fn check_extraction(world: &mut World, buffers: &mut Extractor) {
        let frame = buffers.extract_world(world, camera(), 1.5, &Overlays::default());
        let (seen, casters) = (pairs(frame.packed), frame.casters.map(pairs));
        assert!(buffers.spans.len() >= 3, "{} spans", buffers.spans.len());
        let visible: HashSet<NodeId> = buffers.visible().collect();
        let want: Vec<(GpuInstance, _)> = expected(world, |node, mesh| {
            visible
                .contains(&node)
                .then(|| BatchKey::new(mesh.mesh, &mesh.material))
        });
        assert!(want.len() > PACK_SPAN && want.len() < world.scene.components().mesh.len());
        assert_eq!(seen, want, "the camera's records");
        let views = buffers.cascade_frustums.clone();
        assert!(views.len() >= 3, "{} cascades", views.len());
        for (view, frustum) in views.iter().enumerate() {
            let mut found = Vec::new();
            world.index.visible(frustum, &mut found);
            let found: HashSet<NodeId> = found.into_iter().collect();
            let want: Vec<(GpuCaster, _)> = expected(world, |node, mesh| {
                (mesh.can_cast() && found.contains(&node))
                    .then(|| BatchKey::caster(mesh.mesh, &mesh.material))
            });
            assert!(!want.is_empty(), "cascade {view} holds casters");
            assert_eq!(casters[view], want, "cascade {view}'s casters");
        }
        for (view, packed) in casters.iter().enumerate().skip(views.len()) {
            assert!(packed.is_empty(), "view {view} is not in use");
        }
    }

    #[test]
    fn spans_on_several_cores_pack_what_one_walk_would() {
        let mut world = fleet(3 * PACK_SPAN + 77);
        let mut buffers = Extractor::default();
        buffers.set_cpu_culling(true);
        check_extraction(&mut world, &mut buffers);
        // Frames later, with meshes that stop casting and turn see-through
        // in between (whether a mesh casts is kept from frame to frame
        // while the column is unchanged).
        check_extraction(&mut world, &mut buffers);
        let nodes: Vec<NodeId> = world
            .scene
            .components()
            .mesh
            .iter()
            .map(|(n, _)| n)
            .collect();
        for (i, &node) in nodes.iter().enumerate().step_by(13) {
            let mesh = world.scene.get_mut::<MeshRenderer>(node).unwrap();
            if i % 2 == 0 {
                mesh.cast_shadows = !mesh.cast_shadows;
            } else {
                mesh.material.alpha_mode = crate::assets::AlphaMode::Blend;
            }
        }
        check_extraction(&mut world, &mut buffers);
        world.step();
        check_extraction(&mut world, &mut buffers);
    }

    #[test]
    fn keys_keep_their_version_until_one_changes_and_batchers_keep_their_grouping() {
        let mut world = fleet(2 * PACK_SPAN + 5);
        let mut buffers = Extractor::default();
        buffers.set_cpu_culling(true);
        let mut batcher = InstanceBatcher::new();
        let overlays = Overlays::default();
        // The batcher kept across frames must group as a fresh one does.
        // `sorted_from`: the view the blended instances are sorted for.
        let mut check =
            |world: &mut World, buffers: &mut Extractor, view: Camera, sorted_from: Camera| {
                let frame = buffers.extract_world(world, view, 1.5, &overlays);
                let view_proj: Mat4 = sorted_from.view_projection(1.5);
                batcher.prepare_frame(view_proj, &frame, &crate::assets::Registry::default());
                let mut fresh = InstanceBatcher::new();
                fresh.prepare_frame(view_proj, &frame, &crate::assets::Registry::default());
                assert_eq!(batcher.groups(), fresh.groups());
                assert_eq!(batcher.indices(), fresh.indices());
                (frame.packed.version, frame.casters[0].version)
            };
        let first = check(&mut world, &mut buffers, camera(), camera());
        assert!(first.0 != 0 && first.1 != 0);
        assert_eq!(check(&mut world, &mut buffers, camera(), camera()), first);
        // Recoloured: the same keys. The blended instances' order follows
        // the view even so (the check compares it with a fresh batcher's).
        let node = buffers.visible().next().unwrap();
        let mesh = world.scene.get_mut::<MeshRenderer>(node).unwrap();
        mesh.material.base_color.x = 0.9;
        let behind = Camera {
            position: Vec3::new(-30.0, 10.0, -30.0),
            ..camera()
        };
        assert_eq!(check(&mut world, &mut buffers, camera(), behind), first);
        // Double-sided: a new key for the camera; its shadow key is the same.
        let mesh = world.scene.get_mut::<MeshRenderer>(node).unwrap();
        mesh.material.double_sided = !mesh.material.double_sided;
        let changed = check(&mut world, &mut buffers, camera(), camera());
        assert_ne!(changed.0, first.0);
        assert_eq!(changed.1, first.1);
        // Another view: other meshes seen, new versions.
        let other = check(&mut world, &mut buffers, behind, behind);
        assert!(other.0 != changed.0 && other.1 != changed.1);
    }
}
