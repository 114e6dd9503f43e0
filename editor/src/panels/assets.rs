//! The asset browser: the project's `assets/` folder as a tree (folders open
//! and close; a filter lists the matching files flat) with thumbnails (made
//! off the UI thread, see [`crate::assets_index`]). Drag a
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
    /// The rows shown: the folder tree (closed folders' contents left out),
    /// or with a filter, the matching files.
    shown: Vec<Shown>,
    shown_for: Option<(String, u64, u64)>,
    /// Folders closed (paths below the root, `/`-separated); all open at first.
    closed: std::collections::HashSet<String>,
    /// Bumped when a folder opens or closes.
    closed_version: u64,
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
    pub fn set_root(&mut self, root: Option<PathBuf>, formats: &keel_engine::assets::Importers) {
        let Some(root) = root else {
            self.index = None;
            return;
        };
        if self.index.as_ref().is_some_and(|i| i.root() == root) {
            return;
        }
        self.index = Some(AssetIndex::new(root, formats.clone()));
        self.textures.clear();
        self.shown_for = None;
    }

    /// Drops the thumbnails' textures (their device is gone); they are made
    /// again from the cached images as rows are shown.
    pub fn forget_textures(&mut self) {
        self.textures.clear();
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
        let key = (
            self.filter.to_lowercase(),
            index.version(),
            self.closed_version,
        );
        if self.shown_for.as_ref() != Some(&key) {
            self.shown = if key.0.is_empty() {
                tree_rows(index.entries(), &self.closed)
            } else {
                let matches = |e: &&AssetEntry| e.relative.to_lowercase().contains(&key.0);
                let files = index
                    .entries()
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| matches(e));
                files
                    .map(|(entry, _)| Shown::File { entry, depth: 0 })
                    .collect()
            };
            self.shown_for = Some(key);
        }
        let shown = &self.shown;
        let textures = &mut self.textures;
        let mut toggle = None;
        egui::ScrollArea::vertical()
            .id_salt("asset_rows")
            .auto_shrink([false, false])
            .show_rows(ui, ROW, shown.len(), |ui, rows| {
                for row in rows {
                    match &shown[row] {
                        Shown::Folder { path, depth } => {
                            let open = !self.closed.contains(path);
                            if folder_ui(ui, path, *depth, open) {
                                toggle = Some(path.clone());
                            }
                        }
                        &Shown::File { entry, depth } => {
                            let entry = index.entries()[entry].clone();
                            if let Some(r) = row_ui(ui, index, textures, &entry, depth) {
                                request = Some(r);
                            }
                        }
                    }
                }
            });
        if let Some(path) = toggle {
            if !self.closed.remove(&path) {
                self.closed.insert(path);
            }
            self.closed_version += 1;
        }
        request
    }
}

/// One row of the browser.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Shown {
    /// A folder: its path below the root (`prefabs/ships`) and depth.
    Folder { path: String, depth: usize },
    /// A file: its index in the listing, and depth.
    File { entry: usize, depth: usize },
}

/// The folder tree of `entries` (sorted by path): each folder's row before
/// its contents, the contents of `closed` folders left out.
fn tree_rows(entries: &[AssetEntry], closed: &std::collections::HashSet<String>) -> Vec<Shown> {
    let mut rows = Vec::new();
    let mut open_folders: Vec<&str> = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        let parts: Vec<&str> = entry.relative.split('/').collect();
        let (folders, _) = parts.split_at(parts.len() - 1);
        // Folders shared with the previous file stay; the new ones get rows.
        let shared = open_folders
            .iter()
            .zip(folders)
            .take_while(|(a, b)| a == b)
            .count();
        open_folders.truncate(shared);
        let mut hidden = (1..=shared).any(|d| closed.contains(&folders[..d].join("/")));
        for depth in shared..folders.len() {
            open_folders.push(folders[depth]);
            if !hidden {
                let path = folders[..=depth].join("/");
                hidden = closed.contains(&path);
                rows.push(Shown::Folder { path, depth });
            }
        }
        if !hidden {
            rows.push(Shown::File {
                entry: index,
                depth: folders.len(),
            });
        }
    }
    rows
}

/// Indent of one level of the tree, in points.
const INDENT: f32 = 14.0;

/// A folder's row; returns whether it was clicked (to open or close it).
fn folder_ui(ui: &mut Ui, path: &str, depth: usize, open: bool) -> bool {
    let (rect, _) = ui.allocate_exact_size(vec2(ui.available_width(), ROW), Sense::hover());
    let id = egui::Id::unique(("asset folder", path));
    let response = ui
        .interact(rect, id, Sense::click())
        .accessible_name(format!("{path}/"));
    if response.hovered() {
        ui.painter()
            .rect_filled(rect, 2.0, ui.visuals().widgets.hovered.weak_bg_fill);
    }
    let left = rect.left() + 6.0 + depth as f32 * INDENT;
    let centre = pos2(left + 5.0, rect.center().y);
    let color = ui.visuals().text_color();
    let triangle = if open {
        vec![
            centre + vec2(-5.0, -3.0),
            centre + vec2(5.0, -3.0),
            centre + vec2(0.0, 4.0),
        ]
    } else {
        vec![
            centre + vec2(-3.0, -5.0),
            centre + vec2(4.0, 0.0),
            centre + vec2(-3.0, 5.0),
        ]
    };
    ui.painter().add(egui::Shape::convex_polygon(
        triangle,
        color,
        egui::Stroke::NONE,
    ));
    let name = path.rsplit('/').next().unwrap_or(path);
    ui.painter().text(
        pos2(left + 16.0, rect.center().y),
        Align2::LEFT_CENTER,
        format!("{name}/"),
        FontId::proportional(14.0),
        color,
    );
    response.clicked()
}

fn row_ui(
    ui: &mut Ui,
    index: &mut AssetIndex,
    textures: &mut HashMap<PathBuf, TextureHandle>,
    entry: &AssetEntry,
    depth: usize,
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
    let indent = depth as f32 * INDENT;
    let thumb = egui::Rect::from_min_size(
        rect.min + vec2(2.0 + indent, 2.0),
        vec2(ROW - 4.0, ROW - 4.0),
    );
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(relative: &str) -> AssetEntry {
        AssetEntry {
            path: PathBuf::from("/p").join(relative),
            relative: relative.to_string(),
            kind: AssetKind::of(
                Path::new(relative),
                &keel_engine::assets::Importers::default(),
            ),
        }
    }

    #[test]
    fn the_tree_lists_each_folder_before_its_files_and_hides_closed_ones() {
        let entries: Vec<AssetEntry> = [
            "models/a.glb",
            "models/ships/b.glb",
            "models/ships/c.glb",
            "models/z.glb",
            "readme.txt",
            "scenes/demo.ron",
        ]
        .map(entry)
        .to_vec();
        let rows = tree_rows(&entries, &Default::default());
        let folder = |path: &str, depth| Shown::Folder {
            path: path.into(),
            depth,
        };
        let file = |entry, depth| Shown::File { entry, depth };
        assert_eq!(
            rows,
            [
                folder("models", 0),
                file(0, 1),
                folder("models/ships", 1),
                file(1, 2),
                file(2, 2),
                file(3, 1),
                file(4, 0),
                folder("scenes", 0),
                file(5, 1),
            ]
        );
        let closed = ["models/ships".to_string()].into_iter().collect();
        let rows = tree_rows(&entries, &closed);
        assert!(rows.contains(&folder("models/ships", 1)));
        assert!(!rows.contains(&file(1, 2)) && rows.contains(&file(3, 1)));
        let closed = ["models".to_string()].into_iter().collect();
        let rows = tree_rows(&entries, &closed);
        assert_eq!(rows[0], folder("models", 0));
        assert_eq!(rows[1], file(4, 0), "everything under models is hidden");
    }
}
