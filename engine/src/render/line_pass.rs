//! The line pass: depth-tested coloured line segments for debug drawing
//! (bounds, axes, paths) and the ground grid, in one draw call.
//!
//! Pattern: none of the book's; an immediate-mode debug drawer. Callers append
//! vertices to a plain `Vec` each frame (with the helpers below), the pass
//! copies them and the grid into one reused buffer.

use glam::{Affine3A, Vec3, Vec4};

use super::buffer::GrowableBuffer;
use super::frame::{FrameData, LineVertex};
use super::targets::{ColorTarget, DEPTH_FORMAT};
use crate::assets::{Shader, ShaderLibrary};

/// Grid lines run this many units either side of the grid's centre.
const GRID_HALF_EXTENT: i32 = 20;
/// Linear colour of ordinary grid lines: dim, so the scene stays in front.
const GRID_COLOR: Vec4 = Vec4::new(0.12, 0.12, 0.13, 1.0);
/// Every tenth line is brighter, to help judge distances.
const GRID_MAJOR_COLOR: Vec4 = Vec4::new(0.24, 0.24, 0.26, 1.0);
/// World X axis on the grid.
const AXIS_X_COLOR: Vec4 = Vec4::new(0.6, 0.08, 0.08, 1.0);
/// World Z axis on the grid.
const AXIS_Z_COLOR: Vec4 = Vec4::new(0.08, 0.15, 0.6, 1.0);

/// Appends the 12 edges of an axis-aligned box.
pub fn push_aabb(lines: &mut Vec<LineVertex>, min: Vec3, max: Vec3, color: Vec4) {
    push_box(lines, color, |i| {
        Vec3::new(
            if i & 1 == 0 { min.x } else { max.x },
            if i & 2 == 0 { min.y } else { max.y },
            if i & 4 == 0 { min.z } else { max.z },
        )
    });
}

/// Appends the 12 edges of a camera's view volume from its near plane to
/// `depth` (or its far plane when nearer), at `aspect`.
pub fn push_frustum(
    lines: &mut Vec<LineVertex>,
    camera: &crate::render::Camera,
    aspect: f32,
    depth: f32,
    color: Vec4,
) {
    let forward = camera.forward();
    let right = forward.cross(camera.up).try_normalize().unwrap_or(Vec3::X);
    let up = right.cross(forward);
    let planes = [camera.near, depth.min(camera.far).max(camera.near)];
    push_box(lines, color, |i| {
        let d = planes[i >> 2];
        let (x, y) = camera.half_extents_at(d, aspect);
        let sx = if i & 1 == 0 { -x } else { x };
        let sy = if i & 2 == 0 { -y } else { y };
        camera.position + forward * d + right * sx + up * sy
    });
}

/// Appends a circle around `center` through `center + a` and `center + b`
/// (two perpendicular radii), in 24 segments.
pub fn push_circle(lines: &mut Vec<LineVertex>, center: Vec3, a: Vec3, b: Vec3, color: Vec4) {
    const SEGMENTS: usize = 24;
    let at = |i: usize| {
        let (sin, cos) = crate::math::sin_cos(i as f32 / SEGMENTS as f32 * std::f32::consts::TAU);
        center + a * cos + b * sin
    };
    for i in 0..SEGMENTS {
        lines.push(LineVertex::new(at(i), color));
        lines.push(LineVertex::new(at(i + 1), color));
    }
}

/// Appends the 12 edges of a box-like solid whose corner `i` (0 to 7) is
/// `corner(i)`: bit 0 picks its x side, bit 1 its y side, bit 2 its z side.
pub(crate) fn push_box(lines: &mut Vec<LineVertex>, color: Vec4, corner: impl Fn(usize) -> Vec3) {
    // Two corners share an edge when their indices differ in exactly one bit.
    for i in 0..8 {
        for bit in [1, 2, 4] {
            if i & bit == 0 {
                lines.push(LineVertex::new(corner(i), color));
                lines.push(LineVertex::new(corner(i | bit), color));
            }
        }
    }
}

/// Appends the three axes of a transform, `length` world units long each
/// (whatever its scale): X red, Y green, Z blue.
pub fn push_axes(lines: &mut Vec<LineVertex>, transform: &Affine3A, length: f32) {
    let origin = Vec3::from(transform.translation);
    let axes = [
        (transform.matrix3.x_axis, Vec4::new(1.0, 0.1, 0.1, 1.0)),
        (transform.matrix3.y_axis, Vec4::new(0.1, 1.0, 0.1, 1.0)),
        (transform.matrix3.z_axis, Vec4::new(0.15, 0.3, 1.0, 1.0)),
    ];
    for (axis, color) in axes {
        let direction = Vec3::from(axis).normalize_or_zero();
        lines.push(LineVertex::new(origin, color));
        lines.push(LineVertex::new(origin + direction * length, color));
    }
}

/// Appends a grid on the XZ plane, one-unit cells, centred on the whole unit
/// nearest `center` so it follows the camera without swimming.
pub fn push_grid(lines: &mut Vec<LineVertex>, center: Vec3) {
    let cx = center.x.round() as i32;
    let cz = center.z.round() as i32;
    let extent = GRID_HALF_EXTENT as f32;
    for offset in -GRID_HALF_EXTENT..=GRID_HALF_EXTENT {
        let x = cx + offset;
        let z = cz + offset;
        let color_of = |coordinate: i32, axis_color: Vec4| match coordinate {
            0 => axis_color,
            c if c % 10 == 0 => GRID_MAJOR_COLOR,
            _ => GRID_COLOR,
        };
        // A line of constant x runs along Z: on x = 0 it is the Z axis.
        let color = color_of(x, AXIS_Z_COLOR);
        lines.push(LineVertex::new(
            Vec3::new(x as f32, 0.0, cz as f32 - extent),
            color,
        ));
        lines.push(LineVertex::new(
            Vec3::new(x as f32, 0.0, cz as f32 + extent),
            color,
        ));
        let color = color_of(z, AXIS_X_COLOR);
        lines.push(LineVertex::new(
            Vec3::new(cx as f32 - extent, 0.0, z as f32),
            color,
        ));
        lines.push(LineVertex::new(
            Vec3::new(cx as f32 + extent, 0.0, z as f32),
            color,
        ));
    }
}

/// GPU objects and staging memory of the line pass.
#[derive(Debug)]
pub(crate) struct LinePass {
    pipeline: wgpu::RenderPipeline,
    vertices: GrowableBuffer,
    staging: Vec<LineVertex>,
}

impl LinePass {
    /// Builds the line pipeline.
    pub(crate) fn new(
        device: &wgpu::Device,
        globals_layout: &wgpu::BindGroupLayout,
        target: ColorTarget,
        shaders: &ShaderLibrary,
    ) -> Self {
        Self {
            pipeline: create_pipeline(device, globals_layout, target, shaders),
            vertices: GrowableBuffer::new(
                device,
                "line pass: vertices",
                wgpu::BufferUsages::VERTEX,
                4096 * size_of::<LineVertex>() as u64,
            ),
            staging: Vec::new(),
        }
    }

    /// Uploads the frame's lines and, when asked for, the grid. An odd trailing
    /// vertex (half a segment) is dropped. Returns the number of vertices to draw.
    pub(crate) fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        frame: &FrameData<'_>,
    ) -> usize {
        self.staging.clear();
        let whole_segments = frame.lines.len() & !1;
        self.staging
            .extend_from_slice(&frame.lines[..whole_segments]);
        if frame.grid {
            push_grid(&mut self.staging, frame.camera.target);
        }
        self.vertices
            .write(device, queue, bytemuck::cast_slice(&self.staging));
        self.staging.len()
    }

    /// Draw calls `record` will issue.
    pub(crate) fn draw_calls(&self) -> usize {
        usize::from(!self.staging.is_empty())
    }

    /// Draws every prepared segment in one call.
    pub(crate) fn record(&self, pass: &mut wgpu::RenderPass<'_>) {
        if self.staging.is_empty() {
            return;
        }
        let count =
            u32::try_from(self.staging.len()).expect("more than 2^32 line vertices in one frame");
        pass.set_pipeline(&self.pipeline);
        pass.set_vertex_buffer(0, self.vertices.buffer().slice(..));
        pass.draw(0..count, 0..1);
    }
}

fn create_pipeline(
    device: &wgpu::Device,
    globals_layout: &wgpu::BindGroupLayout,
    target: ColorTarget,
    shaders: &ShaderLibrary,
) -> wgpu::RenderPipeline {
    let shader = shaders.module(device, Shader::Lines);
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("line pass: pipeline layout"),
        bind_group_layouts: &[Some(globals_layout)],
        immediate_size: 0,
    });
    let attributes = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x4];
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("line pass: pipeline"),
        layout: Some(&layout),
        vertex: wgpu::VertexState {
            module: &shader,
            entry_point: Some("vs_main"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: size_of::<LineVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &attributes,
            })],
        },
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::LineList,
            ..wgpu::PrimitiveState::default()
        },
        // LessEqual so a line drawn exactly on a surface (a grid under a plane,
        // an outline on a face) is not lost to depth fighting half the time.
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::LessEqual),
            stencil: wgpu::StencilState::default(),
            bias: wgpu::DepthBiasState::default(),
        }),
        multisample: target.multisample(),
        fragment: Some(wgpu::FragmentState {
            module: &shader,
            entry_point: Some("fs_main"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            targets: &[Some(target.state(None))],
        }),
        multiview_mask: None,
        cache: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segments(lines: &[LineVertex]) -> Vec<(Vec3, Vec3)> {
        lines
            .chunks_exact(2)
            .map(|pair| (pair[0].position.into(), pair[1].position.into()))
            .collect()
    }

    #[test]
    fn aabb_has_twelve_unit_edges_along_the_axes() {
        let mut lines = Vec::new();
        let (min, max) = (Vec3::new(-1.0, 0.0, 2.0), Vec3::new(1.0, 3.0, 6.0));
        push_aabb(&mut lines, min, max, Vec4::ONE);
        let edges = segments(&lines);
        assert_eq!(edges.len(), 12);
        let mut per_axis = [0; 3];
        for (a, b) in edges {
            let delta = (b - a).abs();
            let axis = (0..3).find(|&i| delta[i] > 0.0).expect("zero-length edge");
            assert_eq!(
                delta,
                (max - min) * Vec3::AXES[axis],
                "edge {a} -> {b} is not a box edge"
            );
            per_axis[axis] += 1;
            for corner in [a, b] {
                assert!(corner.cmpge(min).all() && corner.cmple(max).all());
            }
        }
        assert_eq!(per_axis, [4, 4, 4]);
    }

    #[test]
    fn axes_have_the_requested_length_whatever_the_scale() {
        let mut lines = Vec::new();
        let transform = Affine3A::from_scale_rotation_translation(
            Vec3::new(3.0, 0.5, 2.0),
            glam::Quat::from_rotation_z(0.4),
            Vec3::new(1.0, 2.0, 3.0),
        );
        push_axes(&mut lines, &transform, 1.5);
        for ((a, b), axis) in segments(&lines)
            .into_iter()
            .zip([Vec3::X, Vec3::Y, Vec3::Z])
        {
            assert_eq!(a, Vec3::new(1.0, 2.0, 3.0));
            assert!(((b - a).length() - 1.5).abs() < 1e-5);
            let expected = transform.transform_vector3(axis).normalize();
            assert!((b - a).normalize().abs_diff_eq(expected, 1e-5));
        }
    }

    #[test]
    fn grid_is_flat_and_crosses_the_centre() {
        let mut lines = Vec::new();
        push_grid(&mut lines, Vec3::new(3.4, 7.0, -2.6));
        assert_eq!(lines.len(), 4 * (2 * GRID_HALF_EXTENT as usize + 1));
        assert!(lines.iter().all(|v| v.position[1] == 0.0));
        let through_centre = segments(&lines)
            .into_iter()
            .filter(|(a, b)| a.x == 3.0 && b.x == 3.0 || a.z == -3.0 && b.z == -3.0)
            .count();
        assert_eq!(
            through_centre, 2,
            "expected one line along each axis through (3, -3)"
        );
    }

    #[test]
    fn grid_marks_the_world_axes() {
        let mut lines = Vec::new();
        push_grid(&mut lines, Vec3::ZERO);
        let colored = |color: Vec4| {
            lines
                .iter()
                .filter(|v| Vec4::from(v.color) == color)
                .count()
        };
        assert_eq!(colored(AXIS_X_COLOR), 2);
        assert_eq!(colored(AXIS_Z_COLOR), 2);
    }
}
