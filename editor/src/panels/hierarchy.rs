//! The hierarchy panel: the scene's tree with expand/collapse, selection,
//! rename, filter, drag-and-drop reparenting and a context menu.
//!
//! It must stay responsive with 100,000 nodes, so it never walks the whole
//! scene per frame: the visible (expanded or filter-matching) rows are
//! flattened into a cached `Vec`, rebuilt only when the scene's structure
//! version, the expansion state, the filter or the names change (a dirty flag
//! for the tree's layout), and only the rows inside the scroll area's
//! viewport are laid out and drawn (`ScrollArea::show_rows`).

use std::collections::HashSet;

use egui::{Align2, Color32, FontId, Id, Key, Rect, Sense, Stroke, StrokeKind, Vec2, pos2, vec2};
use keel_engine::Primitive;
use keel_engine::{NodeId, Scene};

use crate::document::{Document, primitive_name};
use crate::panels::assets::{AssetDrag, dropped};
use crate::status::Status;
use crate::undo::{EditError, Remap};

/// Roots with at least two and at most this many children start expanded.
const AUTO_EXPAND_CHILDREN: usize = 50;

/// Pixels of indentation per tree level.
const INDENT: f32 = 14.0;

/// One visible row of the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Row {
    node: NodeId,
    depth: u32,
    has_children: bool,
}

/// What the cached rows were built from.
#[derive(Clone, Debug, PartialEq, Eq)]
struct RowsKey {
    document: u64,
    structure: u64,
    expansion: u64,
    filter: String,
    names: u64,
}

/// The nodes being dragged in the tree (the drag-and-drop payload).
#[derive(Clone, Debug)]
pub(crate) struct DraggedNodes(pub(super) Vec<NodeId>);

/// An inline rename in progress.
#[derive(Clone, Debug)]
struct Renaming {
    node: NodeId,
    text: String,
    focus: bool,
}

/// State of the hierarchy panel.
#[derive(Debug, Default)]
pub struct Hierarchy {
    expanded: HashSet<NodeId>,
    expansion_version: u64,
    filter: String,
    rows: Vec<Row>,
    key: Option<RowsKey>,
    /// Where a Shift+click range starts.
    anchor: Option<NodeId>,
    renaming: Option<Renaming>,
    rows_drawn: usize,
    scroll_to: Option<NodeId>,
    initialised_for: Option<u64>,
}

impl Hierarchy {
    /// Rows laid out in the last frame (bounded by the panel's height, not the scene's size).
    pub fn rows_drawn(&self) -> usize {
        self.rows_drawn
    }

    /// Rows the tree has in all (visible when scrolled to).
    pub fn row_count(&self) -> usize {
        self.rows.len()
    }

    /// Whether `node`'s children are shown.
    pub fn is_expanded(&self, node: NodeId) -> bool {
        self.expanded.contains(&node)
    }

    /// Shows or hides `node`'s children.
    pub fn set_expanded(&mut self, node: NodeId, expanded: bool) {
        let changed = if expanded {
            self.expanded.insert(node)
        } else {
            self.expanded.remove(&node)
        };
        if changed {
            self.expansion_version += 1;
        }
    }

    /// Expands every ancestor of `node` and scrolls it into view next frame.
    pub fn reveal(&mut self, scene: &Scene, node: NodeId) {
        let mut at = scene.parent(node);
        while let Some(p) = at {
            self.set_expanded(p, true);
            at = scene.parent(p);
        }
        self.scroll_to = Some(node);
    }

    /// Starts renaming `node` in place.
    pub fn start_rename(&mut self, scene: &Scene, node: NodeId) {
        if let Some(name) = scene.name(node) {
            self.reveal(scene, node);
            self.renaming = Some(Renaming {
                node,
                text: name.to_string(),
                focus: true,
            });
        }
    }

    /// Whether a rename field is open.
    pub fn is_renaming(&self) -> bool {
        self.renaming.is_some()
    }

    /// Follows recreated nodes (after undo/redo) so they stay expanded.
    pub fn remap(&mut self, map: &Remap) {
        if map.is_empty() {
            return;
        }
        self.expanded = self
            .expanded
            .iter()
            .map(|n| map.get(n).copied().unwrap_or(*n))
            .collect();
        self.expansion_version += 1;
        if let Some(a) = self.anchor.as_mut() {
            *a = map.get(a).copied().unwrap_or(*a);
        }
    }

    fn key(&self, doc: &Document) -> RowsKey {
        RowsKey {
            document: doc.id(),
            structure: doc.scene().structure_version(),
            expansion: self.expansion_version,
            filter: self.filter.clone(),
            // Names only shape the rows through the filter.
            names: if self.filter.is_empty() {
                0
            } else {
                doc.names_version()
            },
        }
    }

    fn refresh(&mut self, doc: &Document) {
        let scene = doc.scene();
        if self.initialised_for != Some(doc.id()) {
            self.initialised_for = Some(doc.id());
            self.expanded.clear();
            for root in scene.roots() {
                let children = scene.children(root).count();
                // A lone child is usually a wrapper (a boat's body): open groups, not wrappers.
                if (2..=AUTO_EXPAND_CHILDREN).contains(&children) {
                    self.expanded.insert(root);
                }
            }
            self.expansion_version += 1;
            self.anchor = None;
            self.renaming = None;
        }
        let key = self.key(doc);
        if self.key.as_ref() == Some(&key) {
            return;
        }
        self.rows.clear();
        if self.filter.is_empty() {
            flatten(scene, &self.expanded, &mut self.rows);
        } else {
            flatten_filtered(scene, &self.filter, &mut self.rows);
        }
        self.key = Some(key);
    }

    /// Draws the panel and applies what the user does in it to `doc`.
    pub fn ui(&mut self, ui: &mut egui::Ui, doc: &mut Document, status: &mut Status) {
        self.refresh(doc);
        self.header_ui(ui, doc, status);
        ui.separator();
        self.refresh(doc);

        let row_height = ui.spacing().interact_size.y;
        let mut scroll = egui::ScrollArea::vertical()
            .id_salt("hierarchy_rows")
            .auto_shrink([false, false]);
        if let Some(target) = self.scroll_to.take()
            && let Some(i) = self.rows.iter().position(|r| r.node == target)
        {
            let visible = ui.available_height();
            scroll =
                scroll.vertical_scroll_offset((i as f32 * row_height - visible * 0.5).max(0.0));
        }
        let mut drawn = 0;
        let mut pending: Vec<RowEvent> = Vec::new();
        ui.scope(|ui| {
            ui.spacing_mut().item_spacing.y = 0.0;
            scroll.show_rows(ui, row_height, self.rows.len(), |ui, range| {
                for i in range {
                    drawn += 1;
                    let row = self.rows[i];
                    if let Some(event) = self.row_ui(ui, doc, row, row_height) {
                        pending.push(event);
                    }
                }
            });
        });
        self.rows_drawn = drawn;
        for event in pending {
            self.handle(event, doc, status);
        }
    }

    fn header_ui(&mut self, ui: &mut egui::Ui, doc: &mut Document, status: &mut Status) {
        ui.horizontal(|ui| {
            let target = doc.selection.primary();
            ui.menu_button("Add", |ui| {
                if let Some(event) = add_menu(ui, target) {
                    self.handle(event, doc, status);
                }
            })
            .response
            .on_hover_text("Add a node under the selected one (or at the root)");
        });
        ui.add(
            egui::TextEdit::singleline(&mut self.filter)
                .hint_text("Filter by name")
                .desired_width(f32::INFINITY),
        )
        .accessible_name("Filter");
        // The scene itself: a drop target that makes nodes roots.
        let (rect, response) = ui.allocate_exact_size(
            vec2(ui.available_width(), ui.spacing().interact_size.y),
            Sense::hover(),
        );
        let hovering = response.dnd_hover_payload::<DraggedNodes>().is_some()
            || response.dnd_hover_payload::<AssetDrag>().is_some();
        if hovering {
            ui.painter().rect_stroke(
                rect,
                2.0,
                Stroke::new(1.5, Color32::from_rgb(80, 200, 120)),
                StrokeKind::Inside,
            );
        }
        ui.painter().text(
            rect.left_center() + vec2(4.0, 0.0),
            Align2::LEFT_CENTER,
            format!("Scene ({} nodes)", doc.scene().len()),
            FontId::proportional(13.0),
            ui.visuals().weak_text_color(),
        );
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, "Scene root"));
        if let Some(dragged) = dropped::<DraggedNodes>(&response) {
            self.handle(
                RowEvent::Drop {
                    nodes: dragged.0.clone(),
                    target: None,
                },
                doc,
                status,
            );
        }
        if let Some(asset) = dropped::<AssetDrag>(&response) {
            let path = asset.0.clone();
            self.handle(RowEvent::PlaceAsset { path, parent: None }, doc, status);
        }
    }

    /// Draws one row; returns what the user did to it.
    fn row_ui(
        &mut self,
        ui: &mut egui::Ui,
        doc: &Document,
        row: Row,
        height: f32,
    ) -> Option<RowEvent> {
        let scene = doc.scene();
        let node = row.node;
        let name = scene.name(node).unwrap_or("?");
        // An id tied to the node, not to the row's position, so a drag survives scrolling.
        let id = Id::unique(("hierarchy_row", node));
        let (rect, _) = ui.allocate_exact_size(vec2(ui.available_width(), height), Sense::hover());
        let response = ui.interact(rect, id, Sense::click_and_drag());
        let selected = doc.selection.contains(node);
        response
            .widget_info(|| egui::WidgetInfo::selected(egui::Role::TreeItem, true, selected, name));

        let indent = rect.left() + 4.0 + row.depth as f32 * INDENT;
        let toggle_rect =
            Rect::from_center_size(pos2(indent + 6.0, rect.center().y), Vec2::splat(12.0));
        let name_left = indent + 16.0;

        // Drag and drop: which nodes travel, and whether this row would accept them.
        if response.drag_started() {
            let dragged = if selected {
                doc.selection.nodes().to_vec()
            } else {
                vec![node]
            };
            response.dnd_set_drag_payload(DraggedNodes(dragged));
        }
        let hover = response.dnd_hover_payload::<DraggedNodes>();
        let refused = hover
            .as_ref()
            .is_some_and(|d| d.0.iter().any(|&n| doc.would_cycle(n, Some(node))));

        let visuals = ui.visuals();
        let painter = ui.painter();
        if refused {
            painter.rect_filled(rect, 2.0, Color32::from_rgba_unmultiplied(200, 40, 40, 90));
            painter.rect_stroke(
                rect,
                2.0,
                Stroke::new(1.5, Color32::from_rgb(230, 60, 60)),
                StrokeKind::Inside,
            );
        } else if hover.is_some() {
            painter.rect_stroke(
                rect,
                2.0,
                Stroke::new(1.5, Color32::from_rgb(80, 200, 120)),
                StrokeKind::Inside,
            );
        } else if selected {
            painter.rect_filled(rect, 2.0, visuals.selection.bg_fill);
        } else if response.hovered() {
            painter.rect_filled(rect, 2.0, visuals.widgets.hovered.weak_bg_fill);
        }
        // Model parts are read-only (rebuilt from their file): drawn weaker.
        let text_color = if selected {
            visuals.selection.stroke.color
        } else if scene.is_model_part(node) {
            visuals.weak_text_color()
        } else {
            visuals.text_color()
        };

        let mut event = None;
        if row.has_children {
            let open = self.expanded.contains(&node) || !self.filter.is_empty();
            let toggle = ui.interact(toggle_rect, id.with("toggle"), Sense::click());
            let c = toggle_rect.center();
            let points = if open {
                vec![
                    c + vec2(-4.0, -2.0),
                    c + vec2(4.0, -2.0),
                    c + vec2(0.0, 3.0),
                ]
            } else {
                vec![
                    c + vec2(-2.0, -4.0),
                    c + vec2(3.0, 0.0),
                    c + vec2(-2.0, 4.0),
                ]
            };
            let color = if toggle.hovered() {
                visuals.strong_text_color()
            } else {
                visuals.weak_text_color()
            };
            ui.painter()
                .add(egui::Shape::convex_polygon(points, color, Stroke::NONE));
            if toggle.clicked() && self.filter.is_empty() {
                event = Some(RowEvent::Toggle(node));
            }
        }

        let renaming_here = self.renaming.as_ref().is_some_and(|r| r.node == node);
        if renaming_here {
            let name_rect = Rect::from_min_max(pos2(name_left, rect.top()), rect.right_bottom());
            let renaming = self.renaming.as_mut().expect("checked just above");
            let edit = ui.put(
                name_rect,
                egui::TextEdit::singleline(&mut renaming.text).desired_width(name_rect.width()),
            );
            let edit = edit.accessible_name("Rename");
            if renaming.focus {
                edit.request_focus();
                renaming.focus = false;
            } else if edit.lost_focus() {
                let cancelled = ui.input(|i| i.key_pressed(Key::Escape));
                let text = renaming.text.clone();
                self.renaming = None;
                if !cancelled {
                    event = Some(RowEvent::Rename(node, text));
                }
            }
        } else {
            ui.painter().text(
                pos2(name_left, rect.center().y),
                Align2::LEFT_CENTER,
                name,
                FontId::proportional(14.0),
                text_color,
            );
        }

        if let Some(dragged) = dropped::<DraggedNodes>(&response) {
            return Some(RowEvent::Drop {
                nodes: dragged.0.clone(),
                target: Some(node),
            });
        }
        if let Some(asset) = dropped::<AssetDrag>(&response) {
            return Some(RowEvent::PlaceAsset {
                path: asset.0.clone(),
                parent: Some(node),
            });
        }
        if response.double_clicked() {
            return Some(RowEvent::StartRename(node));
        }
        if response.clicked() {
            let modifiers = ui.input(|i| i.modifiers);
            return Some(if modifiers.shift {
                RowEvent::SelectRange(node, modifiers.command)
            } else if modifiers.command {
                RowEvent::ToggleSelect(node)
            } else {
                RowEvent::Select(node)
            });
        }
        if response.secondary_clicked() && !selected {
            event = Some(RowEvent::Select(node));
        }
        response.context_menu(|ui| {
            if let Some(e) = context_menu(ui, node) {
                event = Some(e);
            }
        });
        event
    }

    fn handle(&mut self, event: RowEvent, doc: &mut Document, status: &mut Status) {
        let report = |status: &mut Status, result: Result<(), EditError>| {
            if let Err(e) = result {
                status.error(e.to_string());
            }
        };
        match event {
            RowEvent::Toggle(node) => {
                let open = self.is_expanded(node);
                self.set_expanded(node, !open);
            }
            RowEvent::Select(node) => {
                doc.selection.select_only(node);
                self.anchor = Some(node);
            }
            RowEvent::ToggleSelect(node) => {
                doc.selection.toggle(node);
                self.anchor = Some(node);
            }
            RowEvent::SelectRange(node, add) => {
                let anchor = self.anchor.unwrap_or(node);
                let a = self.rows.iter().position(|r| r.node == anchor);
                let b = self.rows.iter().position(|r| r.node == node);
                if let (Some(a), Some(b)) = (a, b) {
                    let (lo, hi) = (a.min(b), a.max(b));
                    let range = self.rows[lo..=hi].iter().map(|r| r.node);
                    if add {
                        range.for_each(|n| doc.selection.add(n));
                    } else {
                        doc.selection.set_all(range);
                    }
                    // The clicked row is the primary one (the inspector's).
                    doc.selection.add(node);
                } else {
                    doc.selection.select_only(node);
                    self.anchor = Some(node);
                }
            }
            RowEvent::StartRename(node) => self.start_rename(doc.scene(), node),
            RowEvent::Rename(node, name) => report(status, doc.rename(node, name)),
            RowEvent::Drop { nodes, target } => match doc.reparent(&nodes, target) {
                Ok(()) => {
                    if let Some(t) = target {
                        self.set_expanded(t, true);
                    }
                }
                Err(e) => status.error(e.to_string()),
            },
            RowEvent::PlaceAsset { path, parent } => match doc.place_asset(&path, parent, None) {
                Ok(_) => {
                    if let Some(p) = parent {
                        self.set_expanded(p, true);
                    }
                }
                Err(e) => status.error(e.to_string()),
            },
            RowEvent::AddChild { parent, primitive } => {
                let added = match primitive {
                    Some(p) => doc.add_primitive(parent, p),
                    None => doc.add_node(parent, "node", &[]),
                };
                match added {
                    Ok(node) => {
                        self.reveal(doc.scene(), node);
                        status.info(format!(
                            "Added {}",
                            doc.scene().name(node).unwrap_or("node")
                        ));
                    }
                    Err(e) => status.error(e.to_string()),
                }
            }
            RowEvent::Duplicate(node) => {
                if !doc.selection.contains(node) {
                    doc.selection.select_only(node);
                }
                report(status, doc.duplicate_selection().map(drop));
            }
            RowEvent::Delete(node) => {
                if !doc.selection.contains(node) {
                    doc.selection.select_only(node);
                }
                report(status, doc.delete_selection().map(drop));
            }
        }
    }
}

/// What happened to a row, applied after the rows are drawn.
#[derive(Clone, Debug)]
enum RowEvent {
    Toggle(NodeId),
    Select(NodeId),
    ToggleSelect(NodeId),
    /// Shift+click; `true` when Ctrl was held too (adds to the selection).
    SelectRange(NodeId, bool),
    StartRename(NodeId),
    Rename(NodeId, String),
    Drop {
        nodes: Vec<NodeId>,
        target: Option<NodeId>,
    },
    /// A model or prefab dropped from the asset browser.
    PlaceAsset {
        path: std::path::PathBuf,
        parent: Option<NodeId>,
    },
    AddChild {
        parent: Option<NodeId>,
        primitive: Option<Primitive>,
    },
    Duplicate(NodeId),
    Delete(NodeId),
}

fn add_menu(ui: &mut egui::Ui, parent: Option<NodeId>) -> Option<RowEvent> {
    let mut event = None;
    if ui.button("Empty node").clicked() {
        event = Some(RowEvent::AddChild {
            parent,
            primitive: None,
        });
    }
    for p in Primitive::ALL {
        if ui.button(capitalised(primitive_name(p))).clicked() {
            event = Some(RowEvent::AddChild {
                parent,
                primitive: Some(p),
            });
        }
    }
    event
}

fn context_menu(ui: &mut egui::Ui, node: NodeId) -> Option<RowEvent> {
    let mut event = None;
    ui.menu_button("Add child", |ui| {
        event = add_menu(ui, Some(node));
    });
    if ui.button("Rename").clicked() {
        event = Some(RowEvent::StartRename(node));
    }
    if ui.button("Duplicate").clicked() {
        event = Some(RowEvent::Duplicate(node));
    }
    if ui.button("Delete").clicked() {
        event = Some(RowEvent::Delete(node));
    }
    event
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// The rows of the tree with only expanded nodes opened, in display order.
fn flatten(scene: &Scene, expanded: &HashSet<NodeId>, rows: &mut Vec<Row>) {
    let mut stack = vec![(scene.roots(), 0u32)];
    while let Some((children, depth)) = stack.last_mut() {
        let depth = *depth;
        let Some(node) = children.next() else {
            stack.pop();
            continue;
        };
        let has_children = scene.child_count(node) > 0;
        rows.push(Row {
            node,
            depth,
            has_children,
        });
        if has_children && expanded.contains(&node) {
            stack.push((scene.children(node), depth + 1));
        }
    }
}

/// The rows of nodes whose name contains `filter` (any case), with their
/// ancestors so the matches keep their place in the tree; everything open.
fn flatten_filtered(scene: &Scene, filter: &str, rows: &mut Vec<Row>) {
    let needle = filter.to_lowercase();
    let mut shown: HashSet<NodeId> = HashSet::new();
    for node in scene.nodes() {
        let matches = scene
            .name(node)
            .is_some_and(|n| n.to_lowercase().contains(&needle));
        if !matches {
            continue;
        }
        let mut at = Some(node);
        while let Some(n) = at {
            if !shown.insert(n) {
                break;
            }
            at = scene.parent(n);
        }
    }
    for node in scene.nodes() {
        if shown.contains(&node) {
            let depth = scene.depth(node).unwrap_or(0) as u32;
            let has_children = scene.children(node).any(|c| shown.contains(&c));
            rows.push(Row {
                node,
                depth,
                has_children,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_engine::Transform;

    fn scene() -> (Scene, Vec<NodeId>) {
        let mut s = Scene::new();
        let a = s.spawn(None, "Alpha", Transform::IDENTITY).unwrap();
        let b = s.spawn(Some(a), "beta", Transform::IDENTITY).unwrap();
        let c = s.spawn(Some(b), "gamma", Transform::IDENTITY).unwrap();
        let d = s.spawn(None, "delta", Transform::IDENTITY).unwrap();
        (s, vec![a, b, c, d])
    }

    #[test]
    fn flattening_opens_only_expanded_nodes() {
        let (s, ids) = scene();
        let mut rows = Vec::new();
        flatten(&s, &HashSet::new(), &mut rows);
        assert_eq!(
            rows.iter().map(|r| r.node).collect::<Vec<_>>(),
            vec![ids[0], ids[3]]
        );
        assert!(rows[0].has_children && !rows[1].has_children);
        rows.clear();
        flatten(&s, &[ids[0], ids[1]].into_iter().collect(), &mut rows);
        assert_eq!(
            rows.iter().map(|r| r.node).collect::<Vec<_>>(),
            ids[..].to_vec()
        );
        assert_eq!(
            rows.iter().map(|r| r.depth).collect::<Vec<_>>(),
            vec![0, 1, 2, 0]
        );
    }

    #[test]
    fn filtering_keeps_ancestors_of_matches_and_ignores_case() {
        let (s, ids) = scene();
        let mut rows = Vec::new();
        flatten_filtered(&s, "GAM", &mut rows);
        assert_eq!(
            rows.iter().map(|r| r.node).collect::<Vec<_>>(),
            ids[..3].to_vec()
        );
        rows.clear();
        flatten_filtered(&s, "zzz", &mut rows);
        assert!(rows.is_empty());
    }

    #[test]
    fn a_deep_chain_flattens_without_recursion() {
        let mut s = Scene::new();
        let mut parent = None;
        let mut expanded = HashSet::new();
        for i in 0..5_000 {
            let n = s
                .spawn(parent, format!("n{i}"), Transform::IDENTITY)
                .unwrap();
            expanded.insert(n);
            parent = Some(n);
        }
        let mut rows = Vec::new();
        flatten(&s, &expanded, &mut rows);
        assert_eq!(rows.len(), 5_000);
        assert_eq!(rows.last().unwrap().depth, 4_999);
    }
}
