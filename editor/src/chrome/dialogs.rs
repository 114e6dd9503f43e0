//! Modal dialogs: the in-egui file chooser (a path field and the folder's
//! scene files: native dialogs would need GTK or desktop portals), the
//! "save changes?" question, errors, and the offer to restore a recovery file.
//! The last two are where the document's dirty flag reaches the user.

use std::path::{Path, PathBuf};

use egui::{Color32, Id, Modal, RichText, Ui};
use keel_engine::assets::Importers;

use crate::status::Status;

/// What to do once unsaved changes are dealt with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pending {
    /// Start an empty scene.
    New,
    /// Open this scene file.
    Open(PathBuf),
    /// Leave the editor.
    Quit,
}

/// What the file chooser is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FilePurpose {
    /// Pick a scene to open.
    Open,
    /// Pick where to save; then carry on with the pending action, if any.
    SaveAs(Option<Pending>),
    /// Pick a glTF model to import.
    Import,
    /// Pick where to save this node's children as a prefab.
    SavePrefab(keel_engine::NodeId),
}

impl FilePurpose {
    /// The extensions the chooser lists: scenes, or the models `formats` reads.
    fn extensions(&self, formats: &Importers) -> Vec<&'static str> {
        match self {
            FilePurpose::Import => formats.extensions(),
            FilePurpose::Open | FilePurpose::SaveAs(_) | FilePurpose::SavePrefab(_) => vec!["ron"],
        }
    }
}

fn has_extension(path: &Path, wanted: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| wanted.iter().any(|w| e.eq_ignore_ascii_case(w)))
}

/// The path-field file chooser.
#[derive(Clone, Debug)]
pub struct FileDialog {
    /// Open or save.
    pub purpose: FilePurpose,
    /// The path being typed.
    pub path: String,
    /// The extensions of the files listed.
    extensions: Vec<&'static str>,
    listing: Option<(PathBuf, Vec<(String, bool)>)>,
}

impl FileDialog {
    /// A chooser starting at `start`; an import lists the models `formats` reads.
    pub fn new(purpose: FilePurpose, start: &Path, formats: &Importers) -> Self {
        Self {
            extensions: purpose.extensions(formats),
            purpose,
            path: start.display().to_string(),
            listing: None,
        }
    }

    /// The folder the typed path is in (the path itself when it names a folder).
    fn folder(&self) -> PathBuf {
        let p = PathBuf::from(&self.path);
        if p.is_dir() {
            p
        } else {
            p.parent()
                .filter(|d| !d.as_os_str().is_empty())
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
        }
    }

    /// Subfolders and the files the purpose wants (scenes or models), cached
    /// until the folder changes.
    fn entries(&mut self) -> &[(String, bool)] {
        let folder = self.folder();
        if self.listing.as_ref().is_none_or(|(dir, _)| *dir != folder) {
            let mut entries: Vec<(String, bool)> = std::fs::read_dir(&folder)
                .map(|rd| {
                    rd.filter_map(Result::ok)
                        .filter_map(|e| {
                            let name = e.file_name().to_string_lossy().into_owned();
                            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
                            let shown = !name.starts_with('.')
                                && (is_dir || has_extension(Path::new(&name), &self.extensions));
                            shown.then_some((name, is_dir))
                        })
                        .collect()
                })
                .unwrap_or_default();
            entries.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            self.listing = Some((folder, entries));
        }
        &self.listing.as_ref().expect("filled above").1
    }
}

/// The dialog on screen, if any.
#[derive(Clone, Debug)]
pub enum Dialog {
    /// Choose a file.
    File(FileDialog),
    /// The document has unsaved changes and `then` would drop them.
    ConfirmDiscard {
        /// What the user asked for.
        then: Pending,
    },
    /// Something failed.
    Error {
        /// One-line summary.
        title: String,
        /// The full message (file, line, what).
        message: String,
    },
    /// The open scene's file was changed by another program while it has unsaved edits.
    ChangedOnDisk {
        /// The file.
        path: PathBuf,
    },
    /// A recovery file newer than its scene was found at start.
    Recovery {
        /// The recovery file.
        recovery: PathBuf,
    },
}

impl Dialog {
    /// The dialog that shows `error` under `title`, the two also said in
    /// the status line.
    pub fn error(title: String, error: &dyn std::fmt::Display, status: &mut Status) -> Self {
        status.error(format!("{title}: {error}"));
        Self::Error {
            title,
            message: error.to_string(),
        }
    }
}

/// What the user answered in a dialog.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DialogOutcome {
    /// Still open.
    Open,
    /// Closed with no action.
    Closed,
    /// A path was chosen in the file chooser.
    PathChosen(FilePurpose, PathBuf),
    /// "Save" in the unsaved-changes question.
    SaveThen(Pending),
    /// "Don't save".
    DiscardThen(Pending),
    /// "Restore" in the recovery offer.
    Restore(PathBuf),
    /// "Discard" in the recovery offer.
    DiscardRecovery(PathBuf),
    /// "Reload from disk" when the file changed under unsaved edits.
    ReloadFromDisk,
    /// "Keep my edits" when the file changed under unsaved edits.
    KeepMine,
}

/// Shows `dialog`; returns what the user did.
pub fn dialog_ui(ui: &mut Ui, dialog: &mut Dialog, document_name: &str) -> DialogOutcome {
    let ctx = ui.ctx().clone();
    let modal = Modal::new(Id::unique("keel_dialog"));
    let response = modal.show(&ctx, |ui| {
        ui.set_min_width(360.0);
        match dialog {
            Dialog::File(file) => file_ui(ui, file),
            Dialog::ConfirmDiscard { then } => {
                let action = match then {
                    Pending::New => "starting a new scene",
                    Pending::Open(_) => "opening another scene",
                    Pending::Quit => "quitting",
                };
                ui.heading("Unsaved changes");
                ui.label(format!(
                    "Save the changes to {document_name} before {action}?"
                ));
                ui.add_space(8.0);
                let mut outcome = DialogOutcome::Open;
                ui.horizontal(|ui| {
                    if ui.button("Save").clicked() {
                        outcome = DialogOutcome::SaveThen(then.clone());
                    }
                    if ui.button("Don't save").clicked() {
                        outcome = DialogOutcome::DiscardThen(then.clone());
                    }
                    if ui.button("Cancel").clicked() {
                        outcome = DialogOutcome::Closed;
                    }
                });
                outcome
            }
            Dialog::Error { title, message } => {
                ui.heading(RichText::new(title.as_str()).color(Color32::from_rgb(230, 80, 80)));
                ui.label(message.as_str());
                ui.add_space(8.0);
                if ui.button("OK").clicked() {
                    DialogOutcome::Closed
                } else {
                    DialogOutcome::Open
                }
            }
            Dialog::ChangedOnDisk { path } => {
                ui.heading("Changed on disk");
                ui.label(format!(
                    "{} was changed by another program, and {document_name} has unsaved edits.",
                    path.display()
                ));
                ui.add_space(8.0);
                let mut outcome = DialogOutcome::Open;
                ui.horizontal(|ui| {
                    if ui.button("Reload from disk").clicked() {
                        outcome = DialogOutcome::ReloadFromDisk;
                    }
                    if ui.button("Keep my edits").clicked() {
                        outcome = DialogOutcome::KeepMine;
                    }
                });
                outcome
            }
            Dialog::Recovery { recovery } => {
                ui.heading("Recover unsaved changes?");
                ui.label(format!(
                    "An autosave of {document_name} newer than the file was found:\n{}",
                    recovery.display()
                ));
                ui.add_space(8.0);
                let mut outcome = DialogOutcome::Open;
                ui.horizontal(|ui| {
                    if ui.button("Restore").clicked() {
                        outcome = DialogOutcome::Restore(recovery.clone());
                    }
                    if ui.button("Discard").clicked() {
                        outcome = DialogOutcome::DiscardRecovery(recovery.clone());
                    }
                });
                outcome
            }
        }
    });
    let cancellable = matches!(
        dialog,
        Dialog::File(_) | Dialog::Error { .. } | Dialog::ConfirmDiscard { .. }
    );
    if response.inner == DialogOutcome::Open && cancellable && response.should_close() {
        return DialogOutcome::Closed;
    }
    response.inner
}

fn file_ui(ui: &mut Ui, file: &mut FileDialog) -> DialogOutcome {
    let (title, verb) = match file.purpose {
        FilePurpose::Open => ("Open scene".to_owned(), "Open"),
        FilePurpose::SaveAs(_) => ("Save scene as".to_owned(), "Save"),
        FilePurpose::Import => (
            format!("Import a model (.{})", file.extensions.join(", .")),
            "Import",
        ),
        FilePurpose::SavePrefab(_) => ("Save as prefab".to_owned(), "Save"),
    };
    ui.heading(title);
    let field = ui
        .add(egui::TextEdit::singleline(&mut file.path).desired_width(f32::INFINITY))
        .accessible_name("Path");
    let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
    ui.add_space(4.0);
    let folder = file.folder();
    let mut pick: Option<(String, bool)> = None;
    egui::ScrollArea::vertical()
        .id_salt("file_dialog_entries")
        .max_height(200.0)
        .show(ui, |ui| {
            if ui.selectable_label(false, "..").clicked() {
                pick = Some(("..".into(), true));
            }
            for (name, is_dir) in file.entries() {
                let label = if *is_dir {
                    format!("{name}/")
                } else {
                    name.clone()
                };
                if ui.selectable_label(false, label).clicked() {
                    pick = Some((name.clone(), *is_dir));
                }
            }
        });
    if let Some((name, is_dir)) = pick {
        let target = if name == ".." {
            folder.parent().map_or(folder.clone(), Path::to_path_buf)
        } else {
            folder.join(&name)
        };
        let mut text = target.display().to_string();
        if is_dir && !text.ends_with('/') {
            text.push('/');
        }
        file.path = text;
    }
    ui.add_space(8.0);
    let mut outcome = DialogOutcome::Open;
    ui.horizontal(|ui| {
        let path = PathBuf::from(file.path.trim());
        let usable = !file.path.trim().is_empty() && !path.is_dir();
        let clicked = ui.add_enabled(usable, egui::Button::new(verb)).clicked();
        if usable && (clicked || entered) {
            let path =
                if matches!(file.purpose, FilePurpose::SaveAs(_)) && path.extension().is_none() {
                    path.with_extension("ron")
                } else {
                    path
                };
            outcome = DialogOutcome::PathChosen(file.purpose.clone(), path);
        }
        if ui.button("Cancel").clicked() {
            outcome = DialogOutcome::Closed;
        }
    });
    outcome
}
