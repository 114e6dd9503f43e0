//! The inspector's prefab section: for an instance, its prefab file (open it,
//! what it removed, and with a warning and "Remove" each key its file names
//! that the prefab no longer has); for a part, its key and the fields this instance changed,
//! in bold, each with "Revert to prefab"; for any other node with children,
//! "Save as prefab".

use std::path::PathBuf;

use egui::{RichText, Ui};
use keel_engine::NodeId;

use crate::document::{Document, PrefabLink};
use crate::status::Status;

/// What the prefab section asks of the editor (it cannot do it itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PrefabRequest {
    /// Edit this prefab file (the scene waits until the editor comes back).
    Open(PathBuf),
    /// Choose where to save the children of this node as a prefab.
    SaveAs(NodeId),
}

/// Draws the section for `node`; returns what the user asked for.
pub fn prefab_ui(
    ui: &mut Ui,
    doc: &mut Document,
    node: NodeId,
    status: &mut Status,
) -> Option<PrefabRequest> {
    let mut request = None;
    match doc.prefab_link(node) {
        Some(PrefabLink::Instance {
            source,
            removed,
            orphans,
        }) => {
            ui.horizontal(|ui| {
                ui.label(format!("Prefab: {}", file_name(&source)))
                    .on_hover_text(source.display().to_string());
                if ui.button("Open prefab").clicked() {
                    request = Some(PrefabRequest::Open(source.clone()));
                }
            });
            if !removed.is_empty() {
                ui.label(RichText::new(format!("Removed: {}", removed.join(", "))).strong());
            }
            for key in orphans {
                // Wrapped: the panel may be narrower than the sentence.
                ui.horizontal_wrapped(|ui| {
                    ui.colored_label(
                        ui.visuals().warn_fg_color,
                        format!("Orphaned `{key}`: the prefab has no such node any more"),
                    )
                    .on_hover_text(
                        "This instance's overrides of it are kept and saved unchanged, unused, until removed",
                    );
                    let remove = ui
                        .small_button("Remove")
                        .accessible_name(format!("Remove orphaned {key}"));
                    if remove.clicked()
                        && let Err(e) = doc.remove_orphan(node, &key)
                    {
                        status.error(e.to_string());
                    }
                });
            }
        }
        Some(PrefabLink::Part {
            source,
            key,
            overridden,
            ..
        }) => {
            ui.weak(format!("Part `{key}` of {}", file_name(&source)));
            for field in overridden {
                ui.horizontal(|ui| {
                    ui.label(RichText::new(&field).strong())
                        .on_hover_text("Overridden in this instance");
                    let revert = ui
                        .small_button("Revert to prefab")
                        .on_hover_text(format!("Put {field} back to the prefab's value"));
                    let revert = revert.accessible_name(format!("Revert {field}"));
                    if revert.clicked()
                        && let Err(e) = doc.revert_override(node, &field)
                    {
                        status.error(e.to_string());
                    }
                });
            }
        }
        None => {
            if doc.scene().children(node).next().is_some()
                && doc.editable(node).is_ok()
                && ui
                    .button("Save as prefab…")
                    .on_hover_text("Its children become a prefab file; this node an instance of it")
                    .clicked()
            {
                request = Some(PrefabRequest::SaveAs(node));
            }
        }
    }
    request
}

fn file_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}
