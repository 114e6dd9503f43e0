//! The renderer: owns one struct per pass plus what they share (the uniform
//! block, depth and MSAA targets) and turns a [`FrameData`] into pixels, either
//! in a caller's view (a window) or in an image (tests, thumbnails).
//!
//! Pattern: game loop, render half. The loop calls `render` once per displayed
//! frame with a snapshot interpolated between the last two fixed updates; each
//! pass runs `prepare` (CPU work and uploads) then `record` (draw commands).

use image::RgbaImage;

use super::capture::{CaptureTarget, capture_layout};
use super::frame::{FrameData, Globals, spot_shadows};
use super::gpu_timing::GpuTimer;
use super::ibl::EnvironmentMaps;
use super::line_pass::LinePass;
use super::mesh_pass::MeshPass;
use super::particle_pass::ParticlePass;
use super::post::{PostPass, hdr_format};
use super::shadow::{Cascades, ShadowViews, cascades};
use super::shadow_pass::ShadowPass;
use super::sky_pass::SkyPass;
use super::targets::{ColorTarget, RenderTargets, choose_target};
use super::texture::{fragment_cube, fragment_sampler};
use super::{GpuContext, RenderError};
use crate::assets::{Assets, SkyHandle};

/// Counts from the last rendered frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RenderStats {
    /// Mesh instances that passed frustum culling and were drawn.
    pub instances_drawn: usize,
    /// Mesh instances rejected by frustum culling.
    pub instances_culled: usize,
    /// Draw calls of the passes that draw the view (meshes, lines, particles).
    pub draw_calls: usize,
    /// Draw calls of the shadow map (one per mesh per cascade with casters).
    pub shadow_draw_calls: usize,
    /// Particles drawn (both blend modes).
    pub particles_drawn: usize,
}

/// A pass of a frame (see [`PASSES`] for their order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// The sun's cascades and the spots' maps: each view's casters, depth only.
    Shadows,
    /// An image sky behind everything (HDR target).
    Sky,
    /// Batched instances, then deformed meshes, then alpha-blended ones back
    /// to front (HDR target).
    Meshes,
    /// Debug lines and the ground grid (HDR target).
    Lines,
    /// Additive and alpha billboards (HDR target).
    Particles,
    /// Bloom, exposure and the tonemapper, from the HDR target into the output.
    Post,
}

impl Pass {
    /// Whether it draws inside the main render pass (the HDR target, one
    /// depth buffer) rather than in a render pass of its own.
    #[must_use]
    pub fn in_main_pass(self) -> bool {
        matches!(
            self,
            Pass::Sky | Pass::Meshes | Pass::Lines | Pass::Particles
        )
    }
}

/// The passes of a frame in the order the [`Renderer`] records them: the
/// one place that orders them (the docs point here).
pub const PASSES: [Pass; 6] = [
    Pass::Shadows,
    Pass::Sky,
    Pass::Meshes,
    Pass::Lines,
    Pass::Particles,
    Pass::Post,
];

/// Draws frames: the [`PASSES`], in their order, the scene's into an HDR
/// target and the post pass from it into the output.
#[derive(Debug)]
pub struct Renderer {
    color_format: wgpu::TextureFormat,
    globals: wgpu::Buffer,
    globals_layout: wgpu::BindGroupLayout,
    /// The globals, the shadow map and its sampler, the environment maps;
    /// rebuilt with the shadow map or a new sky.
    globals_bind_group: wgpu::BindGroup,
    /// Ambient light: the sky baked for image-based lighting.
    environment: EnvironmentMaps,
    /// The sky `environment` was baked from (`None`: the hemisphere).
    baked_sky: Option<SkyHandle>,
    /// Draws an image sky behind the frame.
    sky: SkyPass,
    shadows: ShadowPass,
    mesh: MeshPass,
    lines: LinePass,
    particles: ParticlePass,
    post: PostPass,
    /// The HDR frame the scene passes draw into.
    hdr: ColorTarget,
    targets: Option<RenderTargets>,
    capture: Option<CaptureTarget>,
    stats: RenderStats,
    /// The store whose handles the GPU copies are of, and whose shaders the
    /// passes were built from (an empty one until a frame brings one).
    assets: Assets,
    /// Whether a frame brought `assets` (another store after that is a new start).
    adopted: bool,
    /// The shader library's generation the passes were built from.
    shaders: u64,
    /// The registry's release count the GPU copies were last checked at.
    releases: u64,
    /// Each pass's GPU time, while asked for.
    gpu: GpuTimer,
}

impl Renderer {
    /// Creates the passes for finishing frames into views of `color_format`
    /// (an sRGB format gives correct output: the post pass writes linear colour).
    #[must_use]
    pub fn new(ctx: &GpuContext, color_format: wgpu::TextureFormat) -> Self {
        Self::with_assets(ctx, color_format, Assets::default())
    }

    /// As [`Renderer::new`], drawing the handles of `assets` with its shaders.
    fn with_assets(ctx: &GpuContext, color_format: wgpu::TextureFormat, assets: Assets) -> Self {
        let library = assets.shaders();
        let shaders = library.generation();
        let releases = assets.registry().releases();
        let (device, queue) = (&ctx.device, &ctx.queue);
        let hdr = choose_target(&ctx.adapter, hdr_format(device, &ctx.adapter));
        log::info!("HDR target {:?}, {}x multisampled", hdr.format, hdr.samples);
        let globals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("renderer: globals"),
            size: size_of::<Globals>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let globals_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("renderer: globals layout"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: wgpu::BufferSize::new(size_of::<Globals>() as u64),
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Depth,
                        view_dimension: wgpu::TextureViewDimension::D2Array,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
                    count: None,
                },
                fragment_cube(3),
                fragment_cube(4),
                fragment_sampler(5),
            ],
        });
        let environment = EnvironmentMaps::hemisphere(device, queue, library);
        let mesh = MeshPass::new(device, queue, &globals_layout, hdr, library);
        let sky = SkyPass::new(device, &globals_layout, hdr, library);
        let shadows = ShadowPass::new(device, &mesh, library);
        let globals_bind_group =
            bind_globals(device, &globals_layout, &globals, &shadows, &environment);
        Self {
            color_format,
            mesh,
            lines: LinePass::new(device, &globals_layout, hdr, library),
            particles: ParticlePass::new(device, &globals_layout, hdr, library),
            post: PostPass::new(device, hdr.format, color_format, library),
            hdr,
            globals,
            globals_layout,
            globals_bind_group,
            environment,
            baked_sky: None,
            sky,
            shadows,
            targets: None,
            capture: None,
            stats: RenderStats::default(),
            shaders,
            releases,
            gpu: GpuTimer::default(),
            adopted: false,
            assets,
        }
    }

    /// Imported meshes and textures this renderer holds on the GPU.
    #[must_use]
    pub fn uploaded_assets(&self) -> (usize, usize) {
        self.mesh.uploaded()
    }

    /// The colour format the renderer draws in.
    #[must_use]
    pub fn color_format(&self) -> wgpu::TextureFormat {
        self.color_format
    }

    /// Samples per pixel: 4 where the adapter can multisample the format, else 1.
    #[must_use]
    pub fn sample_count(&self) -> u32 {
        self.hdr.samples
    }

    /// Times each render pass on the GPU (timestamp queries) from the next
    /// frame on, or stops; returns whether passes are timed (an adapter
    /// without `TIMESTAMP_QUERY` cannot time them).
    pub fn set_gpu_timing(&mut self, ctx: &GpuContext, on: bool) -> bool {
        self.gpu.set(ctx, on)
    }

    /// Whether passes are timed on the GPU.
    #[must_use]
    pub fn gpu_timing(&self) -> bool {
        self.gpu.is_on()
    }

    /// After submitting an encoder [`Renderer::encode`] recorded into:
    /// queues the frame's pass times for readback and collects the frames
    /// the GPU has finished ([`Renderer::render`] does this itself).
    pub fn finish_gpu_frame(&mut self, ctx: &GpuContext) {
        self.gpu.finish_frame(ctx);
    }

    /// The pass times of the frames the GPU finished since the last call,
    /// oldest first (the last few are kept; empty while timing is off).
    pub fn take_gpu_times(&mut self) -> Vec<crate::profile::GpuFrame> {
        self.gpu.take()
    }

    /// Counts from the last frame.
    #[must_use]
    pub fn stats(&self) -> RenderStats {
        self.stats
    }

    /// Renders `frame` into `target_view` (of the renderer's colour format and
    /// `size`) and submits the work. A zero-sized target draws nothing.
    pub fn render(
        &mut self,
        ctx: &GpuContext,
        frame: &FrameData<'_>,
        target_view: &wgpu::TextureView,
        size: (u32, u32),
    ) {
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("renderer: frame encoder"),
            });
        self.encode(ctx, &mut encoder, frame, target_view, size);
        {
            puffin::profile_scope!("submit");
            ctx.queue.submit([encoder.finish()]);
        }
        self.gpu.finish_frame(ctx);
    }

    /// Like [`Renderer::render`], but records into the caller's encoder so more
    /// work (an editor overlay) can follow in the same submission; with GPU
    /// timing on, call [`Renderer::finish_gpu_frame`] after submitting it.
    pub fn encode(
        &mut self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        frame: &FrameData<'_>,
        target_view: &wgpu::TextureView,
        size: (u32, u32),
    ) {
        puffin::profile_scope!("render encode");
        if size.0 == 0 || size.1 == 0 {
            self.stats = RenderStats::default();
            return;
        }
        self.gpu.start_frame();
        if let Some(assets) = frame.assets
            && !assets.same(&self.assets)
        {
            if self.adopted || assets.shaders().generation() != self.shaders {
                // Another store's handles mean other meshes: start again.
                log::info!("frames of another asset store: rebuilding the renderer");
                self.rebuild(ctx, assets.clone());
            } else {
                // Nothing of the empty store it was made with is on the GPU.
                self.releases = assets.registry().releases();
                self.assets = assets.clone();
            }
            self.adopted = true;
        }
        if self.shaders != self.assets.shaders().generation() {
            // Shaders were reloaded: every pass again, from the new text.
            log::info!("shaders changed: rebuilding the renderer's passes");
            let adopted = self.adopted;
            self.rebuild(ctx, self.assets.clone());
            self.adopted = adopted;
        }
        let assets = self.assets.clone();
        let registry = assets.registry();
        if registry.releases() != self.releases {
            self.mesh.forget_released(&registry);
            self.releases = registry.releases();
        }
        let (device, queue) = (&ctx.device, &ctx.queue);
        match &mut self.targets {
            Some(targets) => targets.resize(device, size, self.hdr),
            None => self.targets = Some(RenderTargets::new(device, size, self.hdr)),
        }
        self.post.prepare(device, queue, size, &frame.post);

        let aspect = size.0 as f32 / size.1 as f32;
        // The sun's direction and strength come with the frame: a sun of no
        // strength casts nothing.
        let cascades = if frame.sun.intensity > 0.0 {
            cascades(&frame.camera, aspect, frame.sun.direction, &frame.shadows)
        } else {
            Cascades::default()
        };
        let new_sky = frame.sky != self.baked_sky;
        if new_sky {
            self.bake_sky(device, queue, frame.sky);
        }
        let shadow_views = ShadowViews {
            cascades,
            spots: spot_shadows(frame.point_lights, &frame.shadows),
        };
        let globals = Globals::new(frame, aspect, &shadow_views);
        queue.write_buffer(&self.globals, 0, bytemuck::bytes_of(&globals));
        let new_map = {
            puffin::profile_scope!("shadow upload");
            self.shadows
                .prepare(device, queue, frame, &shadow_views, &globals, &registry)
        };
        if new_map || new_sky {
            self.globals_bind_group = bind_globals(
                device,
                &self.globals_layout,
                &self.globals,
                &self.shadows,
                &self.environment,
            );
        }
        self.mesh
            .upload_meshes(device, queue, self.shadows.groups(), &registry);
        let mesh = {
            puffin::profile_scope!("mesh upload");
            self.mesh.prepare(
                device,
                queue,
                globals.view_proj(),
                frame,
                &shadow_views,
                &registry,
            )
        };
        drop(registry);
        self.shadows.bind_retained(device, &self.mesh);
        self.sky.prepare(queue, globals.view_proj());
        self.lines.prepare(device, queue, frame);
        let particles = {
            puffin::profile_scope!("particle upload");
            self.particles.prepare(device, queue, frame)
        };
        self.stats = RenderStats {
            instances_drawn: mesh.drawn,
            instances_culled: mesh.culled,
            draw_calls: mesh.draw_calls + self.lines.draw_calls() + self.particles.draw_calls(),
            shadow_draw_calls: self.shadows.draw_calls()
                + self.shadows.retained_draw_calls(&self.mesh),
            particles_drawn: particles,
        };

        let (Some(targets), Some(hdr)) = (&self.targets, self.post.hdr_view()) else {
            return;
        };
        // The retained meshes are culled first (the main pass draws them).
        self.mesh.cull(encoder, &self.gpu);
        let mut main_done = false;
        for pass in PASSES {
            match pass {
                Pass::Shadows => self.shadows.record(encoder, &self.mesh, &self.gpu),
                Pass::Post => self.post.record(encoder, target_view, &self.gpu),
                // The main pass's members draw in one render pass, opened at the first.
                _ if main_done => {}
                _ => {
                    self.record_main_pass(encoder, frame, targets, hdr);
                    main_done = true;
                }
            }
        }
        self.gpu.resolve(encoder);
    }

    /// The scene's HDR pass: the [`PASSES`] that draw in it, in their order,
    /// over a clear.
    fn record_main_pass(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        frame: &FrameData<'_>,
        targets: &RenderTargets,
        hdr: &wgpu::TextureView,
    ) {
        puffin::profile_scope!("main pass");
        let clear = frame.clear_color.as_dvec4();
        let (view, resolve_target, store) = match targets.msaa() {
            // The multisampled samples are only needed until resolved.
            Some(msaa) => (msaa, Some(hdr), wgpu::StoreOp::Discard),
            None => (hdr, None, wgpu::StoreOp::Store),
        };
        let timed = self.gpu.begin("main pass", encoder);
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("renderer: main pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color {
                        r: clear.x,
                        g: clear.y,
                        b: clear.z,
                        a: clear.w,
                    }),
                    store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: targets.depth(),
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: timed.writes(),
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_bind_group(0, &self.globals_bind_group, &[]);
        for member in PASSES.into_iter().filter(|p| p.in_main_pass()) {
            match member {
                Pass::Sky => self.sky.record(&mut pass),
                Pass::Meshes => self.mesh.record(&mut pass),
                Pass::Lines => self.lines.record(&mut pass),
                Pass::Particles => self.particles.record(&mut pass),
                Pass::Shadows | Pass::Post => {}
            }
        }
        drop(pass);
        self.gpu.end(encoder, timed);
    }

    /// Builds every pass again for `assets` (another store, or reloaded
    /// shaders); GPU timing stays as it was.
    fn rebuild(&mut self, ctx: &GpuContext, assets: Assets) {
        let gpu = std::mem::take(&mut self.gpu);
        *self = Self::with_assets(ctx, self.color_format, assets);
        self.gpu = gpu;
    }

    /// Bakes the lighting of `handle`'s sky (or the hemisphere) and shows it
    /// behind the frame; a sky no longer loaded falls back to the hemisphere.
    fn bake_sky(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, handle: Option<SkyHandle>) {
        let image = handle.and_then(|h| self.assets.sky(h));
        let library = self.assets.shaders();
        self.environment = match &image {
            Some(image) => EnvironmentMaps::bake(device, queue, image, library),
            None => EnvironmentMaps::hemisphere(device, queue, library),
        };
        self.sky
            .set_sky(device, image.is_some().then_some(&self.environment));
        self.baked_sky = handle;
    }

    /// Renders `frame` offscreen at `width` x `height` and reads it back.
    ///
    /// # Errors
    ///
    /// [`RenderError::InvalidSize`] for a zero or oversized side,
    /// [`RenderError::UnsupportedCaptureFormat`] when the renderer's format is not
    /// 8-bit RGBA or BGRA, [`RenderError::Validation`] when wgpu rejects the work,
    /// and [`RenderError::Readback`] when the pixels cannot be read back.
    pub fn render_to_image(
        &mut self,
        ctx: &GpuContext,
        frame: &FrameData<'_>,
        width: u32,
        height: u32,
    ) -> Result<RgbaImage, RenderError> {
        let max = ctx.device.limits().max_texture_dimension_2d;
        if width == 0 || height == 0 || width > max || height > max {
            return Err(RenderError::InvalidSize { width, height, max });
        }
        let bgra = capture_layout(self.color_format)?;
        let size = (width, height);
        if self
            .capture
            .as_ref()
            .is_none_or(|capture| capture.size() != size)
        {
            self.capture = Some(CaptureTarget::new(&ctx.device, size, self.color_format));
        }
        let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("renderer: capture encoder"),
            });
        let capture = self
            .capture
            .take()
            .expect("capture target was just ensured");
        self.encode(ctx, &mut encoder, frame, capture.view(), size);
        capture.copy_to_buffer(&mut encoder);
        {
            puffin::profile_scope!("submit");
            ctx.queue.submit([encoder.finish()]);
        }
        self.gpu.finish_frame(ctx);
        let validation = pollster::block_on(scope.pop());
        let image = match validation {
            Some(error) => Err(RenderError::Validation {
                message: error.to_string(),
            }),
            None => capture.read(&ctx.device, bgra),
        };
        self.capture = Some(capture);
        image
    }
}

/// The bind group of group 0: the globals, the shadow map and its sampler,
/// the environment's specular and irradiance maps and their sampler.
fn bind_globals(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    globals: &wgpu::Buffer,
    shadows: &ShadowPass,
    environment: &EnvironmentMaps,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("renderer: globals bind group"),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: globals.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::TextureView(shadows.map_view()),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::Sampler(shadows.sampler()),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: wgpu::BindingResource::TextureView(environment.specular()),
            },
            wgpu::BindGroupEntry {
                binding: 4,
                resource: wgpu::BindingResource::TextureView(environment.irradiance()),
            },
            wgpu::BindGroupEntry {
                binding: 5,
                resource: wgpu::BindingResource::Sampler(environment.sampler()),
            },
        ],
    })
}

#[cfg(test)]
mod pass_order {
    use super::{PASSES, Pass};

    /// `encode` opens the main pass once, at its first member: the members
    /// must follow each other, after the shadows and before the post pass.
    #[test]
    fn the_main_pass_members_are_one_run_between_shadows_and_post() {
        let members: Vec<usize> = (0..PASSES.len())
            .filter(|&i| PASSES[i].in_main_pass())
            .collect();
        assert_eq!(members.len(), 4);
        assert!(members.windows(2).all(|w| w[1] == w[0] + 1), "{PASSES:?}");
        let at = |p: Pass| PASSES.iter().position(|&q| q == p).unwrap();
        assert!(at(Pass::Shadows) < members[0]);
        assert_eq!(at(Pass::Post), PASSES.len() - 1);
    }
}
