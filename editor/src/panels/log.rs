//! The Log tab: the editor's
//! [`LogBook`], newest last, with the time, level,
//! source and message of each entry and a filter; an entry that names a node
//! selects it when clicked. The status line counts the entries not seen yet.

use egui::{Color32, RichText, Ui};

use crate::document::Document;
use crate::log_book::{LogBook, LogEntry};

/// The Log tab's state: its filter, and how many entries it has shown.
#[derive(Debug, Default)]
pub struct LogTab {
    /// Entries shown contain this (any case; all when empty).
    pub filter: String,
    seen: u64,
}

impl LogTab {
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
        let node = entry.node().and_then(|name| doc.scene().find(name));
        // Cut to the panel's width; the whole message and its source (the
        // module that logged it) show on hover.
        let text = RichText::new(&entry.message);
        let text = match node {
            Some(_) => text.color(ui.visuals().hyperlink_color).underline(),
            None => text,
        };
        let hint = if node.is_some() {
            "\n\nClick to select the node it names"
        } else {
            ""
        };
        let row = ui
            .add(
                egui::Label::new(text)
                    .truncate()
                    .sense(egui::Sense::click()),
            )
            .on_hover_text(format!("{}\n{}{hint}", entry.source, entry.message));
        if let Some(node) = node
            && row.clicked()
        {
            doc.selection.select_only(node);
        }
    });
}
