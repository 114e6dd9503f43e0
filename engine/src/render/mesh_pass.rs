//! The mesh pass: every generated primitive lives in one shared vertex buffer
//! and one index buffer; each frame the visible instances are packed per
//! primitive into one instance buffer and drawn with one call per primitive.
//!
//! Pattern: data locality. Instances are culled and bucketed into contiguous,
//! tightly packed runs (one per primitive) so the upload is a single copy and
//! the GPU reads them sequentially; the buckets are reused frame to frame, so a
//! steady scene allocates nothing.

use std::ops::Range;
use std::sync::OnceLock;

use glam::{Affine3A, Mat4, Vec3, Vec4};
use wgpu::util::DeviceExt;

use super::buffer::GrowableBuffer;
use super::culling::Frustum;
use super::frame::MeshInstance;
use super::targets::DEPTH_FORMAT;
use crate::assets::{MeshVertex, Primitive};

/// Number of primitive kinds, one bucket and one draw range each.
const PRIMITIVE_COUNT: usize = Primitive::ALL.len();

/// Bounding-sphere radius of each primitive around its origin, by [`slot`];
/// measured from the generated meshes once per process.
fn primitive_radii() -> &'static [f32; PRIMITIVE_COUNT] {
    static RADII: OnceLock<[f32; PRIMITIVE_COUNT]> = OnceLock::new();
    RADII.get_or_init(|| Primitive::ALL.map(|p| p.mesh().bounding_radius()))
}

fn slot(primitive: Primitive) -> usize {
    match primitive {
        Primitive::Cube => 0,
        Primitive::Sphere => 1,
        Primitive::Plane => 2,
        Primitive::Cylinder => 3,
        Primitive::Cone => 4,
    }
}

/// One instance as the mesh shader reads it (100 bytes, no padding).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuInstance {
    /// Model matrix columns: x, y, z axes and translation.
    pub model: [[f32; 3]; 4],
    /// Normal matrix columns (inverse-transpose of the model's 3x3, up to a positive scale).
    pub normal: [[f32; 3]; 3],
    /// Linear RGBA base colour.
    pub color: [f32; 4],
}

impl GpuInstance {
    /// Packs a transform and colour.
    #[must_use]
    pub fn new(model: &Affine3A, color: Vec4) -> Self {
        let (x, y, z) = (
            Vec3::from(model.matrix3.x_axis),
            Vec3::from(model.matrix3.y_axis),
            Vec3::from(model.matrix3.z_axis),
        );
        // The cofactor matrix equals det * inverse-transpose: the same normals after
        // normalisation, without a division, and still defined for flattened
        // (zero-scale) axes. The sign keeps mirrored transforms' normals outwards.
        let sign = if x.dot(y.cross(z)) < 0.0 { -1.0 } else { 1.0 };
        let normal = [y.cross(z), z.cross(x), x.cross(y)].map(|c| (c * sign).to_array());
        Self {
            model: [
                x.to_array(),
                y.to_array(),
                z.to_array(),
                Vec3::from(model.translation).to_array(),
            ],
            normal,
            color: color.to_array(),
        }
    }
}

/// A run of consecutive instances of one primitive: one draw call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrawGroup {
    /// The primitive drawn.
    pub mesh: Primitive,
    /// Range in the packed instance array.
    pub instances: Range<u32>,
}

/// The CPU half of the mesh pass: culls, buckets by primitive and packs
/// instances. Kept apart from the GPU objects so it can be tested and measured
/// without a device.
#[derive(Debug)]
pub struct InstanceBatcher {
    /// Bounding-sphere radius of each primitive around its origin.
    radii: [f32; PRIMITIVE_COUNT],
    buckets: [Vec<GpuInstance>; PRIMITIVE_COUNT],
    packed: Vec<GpuInstance>,
    groups: Vec<DrawGroup>,
    culled: usize,
}

impl Default for InstanceBatcher {
    fn default() -> Self {
        Self::new()
    }
}

impl InstanceBatcher {
    /// Creates an empty batcher.
    #[must_use]
    pub fn new() -> Self {
        Self {
            radii: *primitive_radii(),
            buckets: Default::default(),
            packed: Vec::new(),
            groups: Vec::new(),
            culled: 0,
        }
    }

    /// Culls `instances` against the view and packs the visible ones, grouped by
    /// primitive in [`Primitive::ALL`] order and in input order within a group.
    pub fn prepare(&mut self, view_proj: Mat4, instances: &[MeshInstance]) {
        let frustum = Frustum::from_view_projection(view_proj);
        for bucket in &mut self.buckets {
            bucket.clear();
        }
        self.culled = 0;
        for instance in instances {
            let index = slot(instance.mesh);
            if is_visible(&frustum, self.radii[index], &instance.model) {
                self.buckets[index].push(GpuInstance::new(&instance.model, instance.color));
            } else {
                self.culled += 1;
            }
        }
        self.packed.clear();
        self.groups.clear();
        for (primitive, bucket) in Primitive::ALL.into_iter().zip(&self.buckets) {
            if bucket.is_empty() {
                continue;
            }
            let start = to_u32(self.packed.len());
            self.packed.extend_from_slice(bucket);
            self.groups.push(DrawGroup {
                mesh: primitive,
                instances: start..to_u32(self.packed.len()),
            });
        }
    }

    /// The visible instances of the last `prepare`, grouped.
    #[must_use]
    pub fn instances(&self) -> &[GpuInstance] {
        &self.packed
    }

    /// The packed instances as bytes, ready to upload.
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        bytemuck::cast_slice(&self.packed)
    }

    /// One group per primitive with visible instances.
    #[must_use]
    pub fn groups(&self) -> &[DrawGroup] {
        &self.groups
    }

    /// How many instances the last `prepare` culled.
    #[must_use]
    pub fn culled(&self) -> usize {
        self.culled
    }
}

/// One instance drawn on its own, as [`prepare_unbatched`] produces it.
#[derive(Clone, Debug, PartialEq)]
pub struct UnbatchedDraw {
    /// The primitive drawn.
    pub mesh: Primitive,
    /// The instance's bytes, uploaded by their own write.
    pub bytes: Vec<u8>,
}

/// The straightforward path the batcher replaces: cull each instance and give
/// every visible one its own upload and its own draw, in input order. Kept as
/// the reference the batcher is tested and benchmarked against.
#[must_use]
pub fn prepare_unbatched(view_proj: Mat4, instances: &[MeshInstance]) -> Vec<UnbatchedDraw> {
    let frustum = Frustum::from_view_projection(view_proj);
    let radii = primitive_radii();
    let mut draws = Vec::new();
    for instance in instances {
        let radius = radii[slot(instance.mesh)];
        if is_visible(&frustum, radius, &instance.model) {
            let packed = GpuInstance::new(&instance.model, instance.color);
            draws.push(UnbatchedDraw {
                mesh: instance.mesh,
                bytes: bytemuck::bytes_of(&packed).to_vec(),
            });
        }
    }
    draws
}

/// Tests an instance's bounding sphere, scaled by its largest axis, against the view.
fn is_visible(frustum: &Frustum, radius: f32, model: &Affine3A) -> bool {
    let m = &model.matrix3;
    let max_scale_squared = m
        .x_axis
        .length_squared()
        .max(m.y_axis.length_squared())
        .max(m.z_axis.length_squared());
    frustum.intersects_sphere(model.translation.into(), radius * max_scale_squared.sqrt())
}

fn to_u32(value: usize) -> u32 {
    u32::try_from(value).expect("more than 2^32 mesh instances in one frame")
}

/// Where one primitive lives in the shared buffers.
#[derive(Clone, Debug, PartialEq, Eq)]
struct MeshRange {
    base_vertex: i32,
    indices: Range<u32>,
}

/// What the mesh pass drew in its last `prepare`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct MeshStats {
    pub(crate) drawn: usize,
    pub(crate) culled: usize,
    pub(crate) draw_calls: usize,
}

/// GPU objects of the mesh pass.
#[derive(Debug)]
pub(crate) struct MeshPass {
    pipeline: wgpu::RenderPipeline,
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    ranges: [MeshRange; PRIMITIVE_COUNT],
    instance_buffer: GrowableBuffer,
    batcher: InstanceBatcher,
}

impl MeshPass {
    /// Uploads every primitive once and builds the lit pipeline.
    pub(crate) fn new(
        device: &wgpu::Device,
        globals_layout: &wgpu::BindGroupLayout,
        color_format: wgpu::TextureFormat,
        sample_count: u32,
    ) -> Self {
        let mut vertices: Vec<MeshVertex> = Vec::new();
        let mut indices: Vec<u32> = Vec::new();
        let ranges = Primitive::ALL.map(|primitive| {
            let mesh = primitive.mesh();
            let base_vertex = i32::try_from(vertices.len()).expect("primitive vertices fit in i32");
            let first = to_u32(indices.len());
            vertices.extend_from_slice(&mesh.vertices);
            indices.extend_from_slice(&mesh.indices);
            MeshRange {
                base_vertex,
                indices: first..to_u32(indices.len()),
            }
        });
        let vertex_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("mesh pass: primitive vertices"),
            contents: bytemuck::cast_slice(&vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let index_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("mesh pass: primitive indices"),
            contents: bytemuck::cast_slice(&indices),
            usage: wgpu::BufferUsages::INDEX,
        });
        let instance_buffer = GrowableBuffer::new(
            device,
            "mesh pass: instances",
            wgpu::BufferUsages::VERTEX,
            256 * size_of::<GpuInstance>() as u64,
        );
        Self {
            pipeline: create_pipeline(device, globals_layout, color_format, sample_count),
            vertices: vertex_buffer,
            indices: index_buffer,
            ranges,
            instance_buffer,
            batcher: InstanceBatcher::new(),
        }
    }

    /// Culls, batches and uploads this frame's instances.
    pub(crate) fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        view_proj: Mat4,
        instances: &[MeshInstance],
    ) -> MeshStats {
        self.batcher.prepare(view_proj, instances);
        self.instance_buffer
            .write(device, queue, self.batcher.bytes());
        MeshStats {
            drawn: self.batcher.instances().len(),
            culled: self.batcher.culled(),
            draw_calls: self.batcher.groups().len(),
        }
    }

    /// Draws the prepared groups: one indexed, instanced call per primitive.
    pub(crate) fn record(&self, pass: &mut wgpu::RenderPass<'_>) {
        if self.batcher.groups().is_empty() {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_vertex_buffer(0, self.vertices.slice(..));
        pass.set_vertex_buffer(1, self.instance_buffer.buffer().slice(..));
        pass.set_index_buffer(self.indices.slice(..), wgpu::IndexFormat::Uint32);
        for group in self.batcher.groups() {
            let range = &self.ranges[slot(group.mesh)];
            pass.draw_indexed(
                range.indices.clone(),
                range.base_vertex,
                group.instances.clone(),
            );
        }
    }
}

fn create_pipeline(
    device: &wgpu::Device,
    globals_layout: &wgpu::BindGroupLayout,
    color_format: wgpu::TextureFormat,
    sample_count: u32,
) -> wgpu::RenderPipeline {
    let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("mesh pass: shader"),
        source: wgpu::ShaderSource::Wgsl(include_str!("../../../shaders/mesh.wgsl").into()),
    });
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("mesh pass: pipeline layout"),
        bind_group_layouts: &[Some(globals_layout)],
        immediate_size: 0,
    });
    let vertex_attributes = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3];
    let instance_attributes = wgpu::vertex_attr_array![
        2 => Float32x3, 3 => Float32x3, 4 => Float32x3, 5 => Float32x3,
        6 => Float32x3, 7 => Float32x3, 8 => Float32x3,
        9 => Float32x4,
    ];
    let buffers = [
        Some(wgpu::VertexBufferLayout {
            array_stride: size_of::<MeshVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &vertex_attributes,
        }),
        Some(wgpu::VertexBufferLayout {
            array_stride: size_of::<GpuInstance>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &instance_attributes,
        }),
    ];
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("mesh pass: pipeline"),
        layout: Some(&layout),
        vertex: wgpu::VertexState {
            module: &shader,
            entry_point: Some("vs_main"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            buffers: &buffers,
        },
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::TriangleList,
            front_face: wgpu::FrontFace::Ccw,
            cull_mode: Some(wgpu::Face::Back),
            ..wgpu::PrimitiveState::default()
        },
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Less),
            stencil: wgpu::StencilState::default(),
            bias: wgpu::DepthBiasState::default(),
        }),
        multisample: wgpu::MultisampleState {
            count: sample_count,
            ..wgpu::MultisampleState::default()
        },
        fragment: Some(wgpu::FragmentState {
            module: &shader,
            entry_point: Some("fs_main"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format: color_format,
                blend: None,
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::render::camera::Camera;

    fn view_proj() -> Mat4 {
        Camera {
            position: Vec3::new(0.0, 5.0, 12.0),
            ..Camera::default()
        }
        .view_projection(1.5)
    }

    fn instance_strategy() -> impl Strategy<Value = MeshInstance> {
        (
            0..PRIMITIVE_COUNT,
            prop::array::uniform3(-30.0f32..30.0),
            prop::array::uniform3(0.1f32..3.0),
            0.0f32..6.3,
            prop::array::uniform4(0.0f32..1.0),
        )
            .prop_map(|(mesh, position, scale, angle, color)| MeshInstance {
                mesh: Primitive::ALL[mesh],
                model: Affine3A::from_scale_rotation_translation(
                    scale.into(),
                    glam::Quat::from_rotation_y(angle),
                    position.into(),
                ),
                color: color.into(),
            })
    }

    proptest! {
        #[test]
        fn batches_match_the_unbatched_reference(
            instances in prop::collection::vec(instance_strategy(), 0..200),
        ) {
            let mut batcher = InstanceBatcher::new();
            batcher.prepare(view_proj(), &instances);
            let reference = prepare_unbatched(view_proj(), &instances);

            prop_assert_eq!(batcher.instances().len() + batcher.culled(), instances.len());
            prop_assert_eq!(batcher.instances().len(), reference.len());
            let mut covered = 0;
            for group in batcher.groups() {
                prop_assert_eq!(group.instances.start as usize, covered, "groups must be contiguous");
                covered = group.instances.end as usize;
                let expected: Vec<&[u8]> = reference
                    .iter()
                    .filter(|draw| draw.mesh == group.mesh)
                    .map(|draw| draw.bytes.as_slice())
                    .collect();
                let range = group.instances.start as usize..group.instances.end as usize;
                let actual: Vec<&[u8]> = batcher.instances()[range]
                    .iter()
                    .map(bytemuck::bytes_of)
                    .collect();
                prop_assert_eq!(actual, expected, "{:?} group differs", group.mesh);
            }
            prop_assert_eq!(covered, reference.len());
            let mut distinct: Vec<Primitive> = reference.iter().map(|d| d.mesh).collect();
            distinct.sort();
            distinct.dedup();
            prop_assert_eq!(batcher.groups().len(), distinct.len());
        }
    }

    #[test]
    fn normal_matrix_is_the_inverse_transpose_up_to_scale() {
        let model = Affine3A::from_scale_rotation_translation(
            Vec3::new(2.0, 0.5, -3.0),
            glam::Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 0.7),
            Vec3::new(1.0, 2.0, 3.0),
        );
        let packed = GpuInstance::new(&model, Vec4::ONE);
        let expected = glam::Mat3::from(model.matrix3).inverse().transpose();
        let normal = glam::Mat3::from_cols_array_2d(&packed.normal);
        for local in [Vec3::X, Vec3::Y, Vec3::Z, Vec3::new(1.0, -2.0, 0.5)] {
            let got = (normal * local).normalize();
            let want = (expected * local).normalize();
            assert!(got.abs_diff_eq(want, 1e-5), "{local}: {got} vs {want}");
        }
    }

    #[test]
    fn flattened_instances_keep_a_usable_normal() {
        let model = Affine3A::from_scale(Vec3::new(4.0, 0.0, 4.0));
        let packed = GpuInstance::new(&model, Vec4::ONE);
        let normal = glam::Mat3::from_cols_array_2d(&packed.normal) * Vec3::Y;
        assert!(normal.normalize().abs_diff_eq(Vec3::Y, 1e-6), "{normal}");
    }

    #[test]
    fn scaled_instances_use_a_scaled_bound() {
        let frustum = Frustum::from_view_projection(view_proj());
        let radius = Primitive::Sphere.mesh().bounding_radius();
        // Just left of the view: only a large scale makes it reach in.
        let outside = Camera {
            position: Vec3::new(0.0, 5.0, 12.0),
            ..Camera::default()
        };
        let left = outside.position + Vec3::new(-40.0, -5.0, -12.0);
        assert!(!is_visible(
            &frustum,
            radius,
            &Affine3A::from_translation(left)
        ));
        let big = Affine3A::from_scale_rotation_translation(
            Vec3::new(1.0, 1.0, 200.0),
            glam::Quat::IDENTITY,
            left,
        );
        assert!(is_visible(&frustum, radius, &big));
    }
}
