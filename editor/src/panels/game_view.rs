//! The Game view: the world through the scene's camera, as the viewer shows
//! it, beside the Scene view's free camera. In Play it is the game's screen:
//! the game's [`keel_engine::Hud`] text shows over it, and a click on it
//! gives the game the keyboard and mouse back.

use keel_engine::Scene;

use crate::game_input::GameInput;
use crate::status::PlayState;

/// What the Game view keeps between frames (the shell renders into its
/// texture at `size_px`).
#[derive(Debug, Default)]
pub struct GameView {
    /// The texture the shell renders the game's picture into, once it exists.
    pub texture: Option<egui::TextureId>,
    /// Size in pixels the picture should be rendered at (the panel's size).
    pub size_px: [u32; 2],
    /// Where the view was drawn this frame, in screen points; `None` while
    /// it is closed or behind another tab (then the shell renders nothing).
    pub rect: Option<egui::Rect>,
}

impl GameView {
    /// Draws the Game view into `ui`'s whole area: the picture, the game's
    /// HUD text in Play, and a click giving the game the input.
    pub(crate) fn ui(
        &mut self,
        ui: &mut egui::Ui,
        scene: &Scene,
        play: PlayState,
        input: &mut GameInput,
    ) {
        let rect = ui.max_rect();
        let response = ui.allocate_rect(rect, egui::Sense::click());
        self.rect = Some(rect);
        self.size_px = crate::panels::scene_view::size_px(ui, rect);
        crate::panels::scene_view::show_texture(ui, self.texture, rect, scene);
        if play == PlayState::Editing {
            return;
        }
        if let Some(hud) = scene.resource::<keel_engine::Hud>()
            && !hud.text.is_empty()
        {
            // A label (not painted text) so screen readers and tests read it;
            // not selectable, so clicks under it still reach the view.
            let at = egui::Rect::from_min_size(
                rect.left_top() + egui::vec2(12.0, 10.0),
                egui::vec2((rect.width() - 24.0).max(0.0), 28.0),
            );
            let text = egui::RichText::new(&hud.text)
                .size(20.0)
                .strong()
                .color(egui::Color32::WHITE)
                .background_color(egui::Color32::from_black_alpha(110));
            ui.put(at, egui::Label::new(text).selectable(false));
        }
        if play == PlayState::Playing && !input.focused() && response.clicked() {
            input.focus();
        }
        let hint = if input.focused() {
            "The game has the keyboard and mouse: Esc gives them back"
        } else if play == PlayState::Playing {
            "Click to give the game the keyboard and mouse"
        } else {
            return;
        };
        ui.painter_at(rect).text(
            rect.center_bottom() - egui::vec2(0.0, 10.0),
            egui::Align2::CENTER_BOTTOM,
            hint,
            egui::FontId::proportional(13.0),
            egui::Color32::from_white_alpha(200),
        );
    }
}
