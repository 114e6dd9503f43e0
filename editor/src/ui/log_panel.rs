//! The Log tab (beside Stats in the bottom panel): the editor's
//! [`LogBook`](crate::log_book::LogBook), newest last, with the time, level,
//! source and message of each entry and a filter; an entry that names a node
//! selects it when clicked. The status line counts the entries not seen yet.

use egui::{Color32, RichText, Ui};

use crate::document::Document;
use crate::log_book::{LogBook, LogEntry};

/// Which tab the bottom panel shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BottomTab {
    /// Frame time, steps and counts.
    #[default]
    Stats,
    /// Warnings and errors.
    Log,
}

/// The Log tab's state: its filter, and how many entries it has shown.
#[derive(Debug, Default)]
pub struct LogPanel {
    /// Entries shown contain this (any case; all when empty).
    pub filter: String,
    seen: u64,
}

impl LogPanel {
    /// Entries filed since the tab last showed the log.
    #[must_use]
    pub fn unseen(&self, book: &LogBook) -> u64 {
        book.total().saturating_sub(self.seen)
    }

    /// Draws the tab: the filter, then one row per entry.
    pub fn ui(&mut self, ui: &mut Ui, book: &LogBook, doc: &mut Document) {
        self.seen = book.total();
        ui.horizontal(|ui| {
            ui.add(
                egui::TextEdit::singleline(&mut self.filter)
                    .hint_text("Filter the log")
                    .desired_width(240.0),
            );
            ui.weak(format!("{} entries", book.total()));
        });
        let entries = book.matching(&self.filter);
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .stick_to_bottom(true)
            .show_rows(ui, 18.0, entries.len(), |ui, rows| {
                for entry in &entries[rows] {
                    entry_ui(ui, entry, doc);
                }
            });
    }
}

fn entry_ui(ui: &mut Ui, entry: &LogEntry, doc: &mut Document) {
    let color = match entry.level {
        log::Level::Error => Color32::from_rgb(230, 70, 70),
        log::Level::Warn => ui.visuals().warn_fg_color,
        _ => ui.visuals().text_color(),
    };
    ui.horizontal(|ui| {
        ui.monospace(format!("{:8.1} s", entry.at.as_secs_f64()));
        ui.label(RichText::new(entry.level.as_str()).color(color).monospace());
        ui.weak(&entry.source);
        let node = entry.node().and_then(|name| doc.scene().find(name));
        match node {
            Some(node) => {
                let row = ui
                    .link(&entry.message)
                    .on_hover_text("Select the node it names");
                if row.clicked() {
                    doc.selection.select_only(node);
                }
            }
            None => {
                ui.label(&entry.message);
            }
        }
    });
}
