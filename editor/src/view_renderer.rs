//! The editor's 3D views: the engine's renderer drawing the live world into
//! the textures that egui shows in the Scene view (the editor's camera) and
//! the Game view (the scene's camera), each only while it is on screen.
//!
//! GPU state lives here, in the shell's hands, never in UI code: the UI only
//! says how large the view is and where the camera is, and shows the texture.

use keel_engine::Extractor;
use keel_engine::render::target_descriptor;
use keel_engine::{GpuContext, Renderer};

use crate::app::EditorApp;
use crate::gpu::Gpu;

/// Colour format the renderer draws the 3D view in: sRGB, as the viewer's
/// surface and captures, so the stored bytes are the encoded colours.
const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// What egui samples the same texture as: the encoded bytes as they are. egui
/// draws in gamma space into a non-sRGB framebuffer, so sampling through an
/// sRGB view would decode the colours once more and darken everything (sky
/// 156, 199, 230 shown as 85, 145, 201).
const EGUI_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// A texture a 3D view is rendered into, registered with egui.
#[derive(Default)]
struct ViewTarget {
    target: Option<(wgpu::Texture, wgpu::TextureView)>,
    texture_id: Option<egui::TextureId>,
}

impl ViewTarget {
    /// The view to render into at `size` (made again when the size changed),
    /// and egui's id for it.
    fn at_size(
        &mut self,
        device: &wgpu::Device,
        egui_renderer: &mut egui_wgpu::Renderer,
        [width, height]: [u32; 2],
    ) -> (&wgpu::TextureView, egui::TextureId) {
        let stale = self
            .target
            .as_ref()
            .is_none_or(|(texture, _)| texture.width() != width || texture.height() != height);
        if stale {
            let texture = device.create_texture(&wgpu::TextureDescriptor {
                view_formats: &[EGUI_FORMAT],
                ..target_descriptor(
                    "keel-editor 3D view",
                    (width, height),
                    FORMAT,
                    wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_SRC,
                )
            });
            let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
            let shown = texture.create_view(&wgpu::TextureViewDescriptor {
                label: Some("keel-editor 3D view, as egui samples it"),
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
                    ));
                }
            }
            self.target = Some((texture, view));
        }
        match (&self.target, self.texture_id) {
            (Some((_, view)), Some(id)) => (view, id),
            _ => unreachable!("made above"),
        }
    }
}

/// The engine renderer and the textures it draws the two 3D views into.
pub struct SceneView {
    ctx: GpuContext,
    renderer: Renderer,
    buffers: Extractor,
    scene: ViewTarget,
    game: ViewTarget,
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
            buffers: Extractor::default(),
            scene: ViewTarget::default(),
            game: ViewTarget::default(),
            thumbnails: None,
        }
    }

    /// The Scene view's last frame read back, exactly the pixels egui shows
    /// (`None` before the first frame).
    pub fn read_back(&self) -> Option<Result<image::RgbaImage, crate::capture::CaptureError>> {
        Self::read(&self.ctx, &self.scene)
    }

    /// The Game view's last frame read back (`None` before it was shown).
    pub fn read_back_game(&self) -> Option<Result<image::RgbaImage, crate::capture::CaptureError>> {
        Self::read(&self.ctx, &self.game)
    }

    fn read(
        ctx: &GpuContext,
        view: &ViewTarget,
    ) -> Option<Result<image::RgbaImage, crate::capture::CaptureError>> {
        let (texture, _) = view.target.as_ref()?;
        Some(crate::capture::read_texture(
            &ctx.device,
            &ctx.queue,
            texture,
        ))
    }

    /// Draws one waiting model thumbnail for the asset browser (one a frame,
    /// so a folder of models never stalls the editor).
    pub fn draw_thumbnail(&mut self, app: &mut EditorApp) {
        let Some(index) = app.workspace.assets.index_mut() else {
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

    /// Renders the world as the 3D views on screen will show it (the Scene
    /// view through the editor's camera with its overlays, the Game view
    /// through the scene's camera) and hands egui the textures; puts the
    /// renderer's counters in the stats panel.
    pub fn render(&mut self, egui_renderer: &mut egui_wgpu::Renderer, app: &mut EditorApp) {
        // Passes are timed on the GPU while the Profiler tab records.
        let recording = app.diagnostics().profiler().is_recording();
        if recording != self.renderer.gpu_timing() {
            self.renderer.set_gpu_timing(&self.ctx, recording);
        }
        self.render_views(egui_renderer, app);
        app.diagnostics_mut()
            .profiler_mut()
            .add_gpu(self.renderer.take_gpu_times());
    }

    fn render_views(&mut self, egui_renderer: &mut egui_wgpu::Renderer, app: &mut EditorApp) {
        if app.views.game.rect.is_some() {
            keel_engine::profile::puffin::profile_scope!("game view");
            let size = app.views.game.size_px;
            let camera = app.shown_world_mut().game_camera();
            let (view, id) = self.game.at_size(&self.ctx.device, egui_renderer, size);
            let frame = self.buffers.extract_world(
                app.shown_world_mut(),
                camera,
                size[0] as f32 / size[1] as f32,
                &keel_engine::Overlays::default(),
            );
            self.renderer
                .render(&self.ctx, &frame, view, (size[0], size[1]));
            app.views.game.texture = Some(id);
        }
        // Last, so the stats below count the Scene view's frame.
        if app.views.viewport.rect.is_none() {
            return;
        }
        keel_engine::profile::puffin::profile_scope!("scene view");
        let size @ [width, height] = app.views.viewport.size_px;
        let (view, id) = self.scene.at_size(&self.ctx.device, egui_renderer, size);
        let camera = app.views.viewport.rig(app.doc.world.scene()).camera();
        let aspect = width as f32 / height as f32;
        // The old code's run, when the timeline shows it.
        // The selection's overlays stay the document's; the nodes recomputed
        // are tracked in the document's world when they are drawn.
        let overlays = app.views.options.overlays(app.doc.selection.nodes());
        app.doc.world.set_track_recomputed(overlays.recomputed);
        let world = (app.play.previous_run).world(&mut app.doc.world, app.doc.path.as_deref());
        let frame = self.buffers.extract_world(world, camera, aspect, &overlays);
        self.renderer
            .render(&self.ctx, &frame, view, (width, height));
        app.views.viewport.texture = Some(id);
        let stats = self.renderer.stats();
        app.views.stats.set_counter("draw calls", stats.draw_calls);
        app.views
            .stats
            .set_counter("shadow draw calls", stats.shadow_draw_calls);
        app.views
            .stats
            .set_counter("instances drawn", stats.instances_drawn);
        app.views.stats.set_counter(
            "instances culled",
            stats.instances_culled + self.buffers.culled_by_octree,
        );
        app.views
            .stats
            .set_counter("octree re-filed", app.doc.world.stats().refiled);
        let particles = app.doc.world.particles().stats();
        let alive = format!("{} / {}", particles.alive, particles.capacity);
        app.views.stats.set_counter("particles", alive);
    }
}
