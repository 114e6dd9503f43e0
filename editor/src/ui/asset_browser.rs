//! The asset browser: the project's `assets/` files with a filter and
//! thumbnails (made off the UI thread, see [`crate::assets_index`]). Drag a
//! model or a prefab (scene file) into the 3D view (placed where the cursor
//! ray meets the scene, else the ground plane) or onto a hierarchy row (as
//! its child); double-click a scene to open it. Only the rows in view are
//! drawn, so thousands of files cost what a screenful does.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use egui::{Align2, FontId, Sense, TextureHandle, Ui, pos2, vec2};

use crate::assets_index::{AssetEntry, AssetIndex, AssetKind, Thumbnail};
use crate::document::Document;

/// Height of one row, in points.
const ROW: f32 = 36.0;

/// What is dragged out of the browser: a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssetDrag(pub PathBuf);

/// The payload of type `P` released over `response` this frame, if any.
///
/// Unlike `Response::dnd_release_payload`, a payload of another type is left
/// alone (egui's take would drop it), so one drop target can tell node drags
/// from asset drags.
pub fn dropped<P: std::any::Any + Send + Sync>(
    response: &egui::Response,
) -> Option<std::sync::Arc<P>> {
    if egui::DragAndDrop::has_payload_of_type::<P>(&response.ctx) {
        response.dnd_release_payload::<P>()
    } else {
        None
    }
}

/// What the browser asks of the editor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BrowserRequest {
    /// Open this scene.
    Open(PathBuf),
}

/// The browser's state between frames.
#[derive(Default)]
pub struct AssetBrowser {
    index: Option<AssetIndex>,
    /// What the list is filtered by (part of the path, any case).
    pub filter: String,
    /// Rows matching the filter, as indices into the index's entries.
    shown: Vec<usize>,
    shown_for: Option<(String, u64)>,
    textures: HashMap<PathBuf, TextureHandle>,
}

impl std::fmt::Debug for AssetBrowser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "AssetBrowser({:?}, {} thumbnails shown)",
            self.index,
            self.textures.len()
        )
    }
}

/// The folder the browser lists for a document saved at `path`: the
/// `assets` folder above it, else its own folder; for an untitled one,
/// `./assets` if there is one.
pub fn project_root(path: Option<&Path>) -> Option<PathBuf> {
    let folder = path
        .and_then(Path::parent)
        .map(|f| std::fs::canonicalize(f).unwrap_or_else(|_| f.to_path_buf()));
    if let Some(folder) = folder {
        let root = folder
            .ancestors()
            .find(|a| a.file_name().is_some_and(|n| n == "assets"))
            .unwrap_or(&folder);
        return Some(root.to_path_buf());
    }
    let assets = std::env::current_dir().ok()?.join("assets");
    assets.is_dir().then_some(assets)
}

impl AssetBrowser {
    /// Lists `root` from now on (a new listing when it differs from the
    /// last); `None` lists nothing.
    pub fn set_root(&mut self, root: Option<PathBuf>) {
        let Some(root) = root else {
            self.index = None;
            return;
        };
        if self.index.as_ref().is_some_and(|i| i.root() == root) {
            return;
        }
        self.index = Some(AssetIndex::new(root));
        self.textures.clear();
        self.shown_for = None;
    }

    /// How many files the last listing found.
    pub fn listed(&self) -> usize {
        self.index.as_ref().map_or(0, |i| i.entries().len())
    }

    /// Thumbnails asked for and not made yet.
    pub fn pending_thumbnails(&self) -> usize {
        self.index.as_ref().map_or(0, |i| i.thumbnail_counts().0)
    }

    /// Thumbnails made.
    pub fn ready_thumbnails(&self) -> usize {
        self.index.as_ref().map_or(0, |i| i.thumbnail_counts().1)
    }

    /// The index, once a root is set.
    pub fn index_mut(&mut self) -> Option<&mut AssetIndex> {
        self.index.as_mut()
    }

    /// Files under the root changed on disk: list again, remake their thumbnails.
    pub fn files_changed(&mut self, files: &[PathBuf]) {
        let Some(index) = &mut self.index else {
            return;
        };
        let ours: Vec<PathBuf> = files
            .iter()
            .filter(|f| f.starts_with(index.root()))
            .cloned()
            .collect();
        if !ours.is_empty() {
            index.forget(&ours);
            index.rescan();
            for file in &ours {
                self.textures.remove(file);
            }
        }
    }

    /// Draws the panel.
    pub fn ui(&mut self, ui: &mut Ui, _doc: &Document) -> Option<BrowserRequest> {
        let Some(index) = &mut self.index else {
            ui.weak("Save the scene to browse its project's assets");
            return None;
        };
        index.poll();
        let mut request = None;
        ui.horizontal(|ui| {
            ui.strong("Assets");
            ui.weak(index.root().display().to_string());
            if index.listing() {
                ui.weak("listing…");
                // Look again soon: the listing comes from another thread.
                ui.ctx()
                    .request_repaint_after(std::time::Duration::from_millis(50));
            }
        });
        ui.add(
            egui::TextEdit::singleline(&mut self.filter)
                .hint_text("Filter by path")
                .desired_width(f32::INFINITY),
        )
        .accessible_name("Filter assets");
        let key = (self.filter.to_lowercase(), index.version());
        if self.shown_for.as_ref() != Some(&key) {
            self.shown = index
                .entries()
                .iter()
                .enumerate()
                .filter(|(_, e)| key.0.is_empty() || e.relative.to_lowercase().contains(&key.0))
                .map(|(i, _)| i)
                .collect();
            self.shown_for = Some(key);
        }
        let shown = &self.shown;
        let textures = &mut self.textures;
        egui::ScrollArea::vertical()
            .id_salt("asset_rows")
            .auto_shrink([false, false])
            .show_rows(ui, ROW, shown.len(), |ui, rows| {
                for row in rows {
                    let entry = index.entries()[shown[row]].clone();
                    if let Some(r) = row_ui(ui, index, textures, &entry) {
                        request = Some(r);
                    }
                }
            });
        request
    }
}

fn row_ui(
    ui: &mut Ui,
    index: &mut AssetIndex,
    textures: &mut HashMap<PathBuf, TextureHandle>,
    entry: &AssetEntry,
) -> Option<BrowserRequest> {
    let (rect, _) = ui.allocate_exact_size(vec2(ui.available_width(), ROW), Sense::hover());
    let id = egui::Id::unique(("asset", &entry.path));
    let response = ui
        .interact(rect, id, Sense::click_and_drag())
        .on_hover_text(entry.path.display().to_string());
    let response = response.accessible_name(entry.relative.clone());
    if response.hovered() {
        ui.painter()
            .rect_filled(rect, 2.0, ui.visuals().widgets.hovered.weak_bg_fill);
    }
    let thumb = egui::Rect::from_min_size(rect.min + vec2(2.0, 2.0), vec2(ROW - 4.0, ROW - 4.0));
    let texture = match index.thumbnail(entry) {
        Thumbnail::Ready(image) => Some(textures.entry(entry.path.clone()).or_insert_with(|| {
            let size = [image.width() as usize, image.height() as usize];
            let pixels = egui::ColorImage::from_rgba_unmultiplied(size, image.as_raw());
            ui.ctx().load_texture(
                format!("thumbnail {}", entry.path.display()),
                pixels,
                egui::TextureOptions::LINEAR,
            )
        })),
        _ => None,
    };
    match texture {
        Some(texture) => {
            let size = texture.size_vec2();
            let scale = (thumb.width() / size.x).min(thumb.height() / size.y);
            let fitted = egui::Rect::from_center_size(thumb.center(), size * scale);
            let uv = egui::Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0));
            ui.painter()
                .image(texture.id(), fitted, uv, egui::Color32::WHITE);
        }
        None => {
            ui.painter()
                .rect_filled(thumb, 3.0, ui.visuals().extreme_bg_color);
        }
    }
    let name = entry
        .path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let text = ui.visuals().text_color();
    ui.painter().text(
        pos2(thumb.max.x + 8.0, rect.center().y - 7.0),
        Align2::LEFT_CENTER,
        name,
        FontId::proportional(14.0),
        text,
    );
    ui.painter().text(
        pos2(thumb.max.x + 8.0, rect.center().y + 9.0),
        Align2::LEFT_CENTER,
        format!("{} · {}", entry.kind.label(), entry.relative),
        FontId::proportional(11.0),
        ui.visuals().weak_text_color(),
    );
    if entry.kind.placeable() && response.dragged() {
        egui::DragAndDrop::set_payload(ui.ctx(), AssetDrag(entry.path.clone()));
        if let Some(pointer) = ui.ctx().pointer_interact_pos() {
            egui::Tooltip::always_open(
                ui.ctx().clone(),
                ui.layer_id(),
                id.with("dragging"),
                egui::PopupAnchor::Position(pointer + vec2(12.0, 12.0)),
            )
            .show(|ui| ui.label(format!("Place {}", entry.relative)));
        }
    }
    if response.double_clicked() && entry.kind == AssetKind::Scene {
        return Some(BrowserRequest::Open(entry.path.clone()));
    }
    None
}
