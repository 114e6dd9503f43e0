//! The 3D view of the editor: the engine's renderer drawing the live world into
//! a texture that egui shows in the viewport panel.
//!
//! GPU state lives here, in the shell's hands, never in UI code: the UI only
//! says how large the view is and where the camera is, and shows the texture.

use keel_engine::FrameBuffers;
use keel_engine::{GpuContext, Renderer};

use crate::gpu::Gpu;
use crate::ui::EditorApp;

/// Colour format the renderer draws the 3D view in: sRGB, as the viewer's
/// surface and captures, so the stored bytes are the encoded colours.
const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// What egui samples the same texture as: the encoded bytes as they are. egui
/// draws in gamma space into a non-sRGB framebuffer, so sampling through an
/// sRGB view would decode the colours once more and darken everything (sky
/// 156, 199, 230 shown as 85, 145, 201).
const EGUI_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// The engine renderer and the texture it draws the viewport into.
pub struct SceneView {
    ctx: GpuContext,
    renderer: Renderer,
    buffers: FrameBuffers,
    target: Option<(wgpu::Texture, wgpu::TextureView)>,
    texture_id: Option<egui::TextureId>,
    /// Draws the asset browser's model thumbnails (made on first need).
    thumbnails: Option<Renderer>,
}

impl SceneView {
    /// A renderer on the editor's device.
    pub fn new(gpu: &Gpu) -> Self {
        let ctx = gpu.ctx.clone();
        let renderer = Renderer::new(&ctx, FORMAT);
        Self {
            ctx,
            renderer,
            buffers: FrameBuffers::default(),
            target: None,
            texture_id: None,
            thumbnails: None,
        }
    }

    /// The view's last frame read back, exactly the pixels egui shows
    /// (`None` before the first frame).
    pub fn read_back(&self) -> Option<Result<image::RgbaImage, crate::capture::CaptureError>> {
        let (texture, _) = self.target.as_ref()?;
        Some(crate::capture::read_texture(
            &self.ctx.device,
            &self.ctx.queue,
            texture,
        ))
    }

    /// Draws one waiting model thumbnail for the asset browser (one a frame,
    /// so a folder of models never stalls the editor).
    pub fn draw_thumbnail(&mut self, app: &mut EditorApp) {
        let Some(index) = app.assets.index_mut() else {
            return;
        };
        let Some(path) = index.next_model() else {
            return;
        };
        let renderer = self
            .thumbnails
            .get_or_insert_with(|| Renderer::new(&self.ctx, FORMAT));
        let size = crate::assets_index::THUMBNAIL;
        let image = keel_engine::model_thumbnail(&self.ctx, renderer, &path, size);
        index.put_model_thumbnail(&path, image);
    }

    /// Renders the world as the viewport will show it and hands egui the texture;
    /// puts the renderer's counters in the stats panel.
    pub fn render(&mut self, egui_renderer: &mut egui_wgpu::Renderer, app: &mut EditorApp) {
        let [width, height] = app.viewport.size_px;
        if width == 0 || height == 0 {
            return;
        }
        let device = &self.ctx.device;
        let stale = self
            .target
            .as_ref()
            .is_none_or(|(texture, _)| texture.width() != width || texture.height() != height);
        if stale {
            let texture = device.create_texture(&wgpu::TextureDescriptor {
                label: Some("keel-editor viewport"),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: FORMAT,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                    | wgpu::TextureUsages::TEXTURE_BINDING
                    | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[EGUI_FORMAT],
            });
            let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
            let shown = texture.create_view(&wgpu::TextureViewDescriptor {
                label: Some("keel-editor viewport, as egui samples it"),
                format: Some(EGUI_FORMAT),
                ..Default::default()
            });
            match self.texture_id {
                Some(id) => egui_renderer.update_egui_texture_from_wgpu_texture(
                    device,
                    &shown,
                    wgpu::FilterMode::Linear,
                    id,
                ),
                None => {
                    self.texture_id = Some(egui_renderer.register_native_texture(
                        device,
                        &shown,
                        wgpu::FilterMode::Linear,
                    ))
                }
            }
            self.target = Some((texture, view));
        }
        let Some((_, view)) = &self.target else {
            return;
        };
        let camera = app.viewport.rig(app.doc.world.scene()).camera();
        let overlays = app.view.overlays(app.doc.selection.nodes());
        app.doc.world.set_track_recomputed(overlays.recomputed);
        let aspect = width as f32 / height as f32;
        let frame = self
            .buffers
            .extract_world(&mut app.doc.world, camera, aspect, &overlays);
        self.renderer
            .render(&self.ctx, &frame, view, (width, height));
        app.viewport.texture = self.texture_id;
        let stats = self.renderer.stats();
        app.stats.set_counter("draw calls", stats.draw_calls);
        app.stats
            .set_counter("shadow draw calls", stats.shadow_draw_calls);
        app.stats
            .set_counter("instances drawn", stats.instances_drawn);
        app.stats.set_counter(
            "instances culled",
            stats.instances_culled + self.buffers.culled_by_octree,
        );
        app.stats
            .set_counter("octree re-filed", app.doc.world.stats().refiled);
        let particles = app.doc.world.particles().stats();
        let alive = format!("{} / {}", particles.alive, particles.capacity);
        app.stats.set_counter("particles", alive);
    }
}
