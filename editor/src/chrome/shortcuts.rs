//! The editor's keyboard shortcuts: one table ([`SHORTCUTS`]) that both
//! dispatches them and lists them, so the menus' hints and the shortcuts
//! window (F1) cannot drift from what the keys do.

use egui::{Key, KeyboardShortcut, Modifiers};

use crate::action::Action;

/// What triggers a shortcut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// Keys pressed together.
    Keys(KeyboardShortcut),
    /// Ctrl+C (Cmd+C on macOS): the platform turns it into egui's copy event.
    CopyEvent,
    /// Ctrl+X, likewise.
    CutEvent,
    /// Ctrl+V, likewise (the event carries the clipboard's text).
    PasteEvent,
}

/// One shortcut: its trigger, what it does, and whether it stays the
/// editor's while a text field has the keyboard.
#[derive(Clone, Debug)]
pub struct Shortcut {
    /// What the user presses.
    pub trigger: Trigger,
    /// What it does, as the shortcuts window lists it.
    pub does: &'static str,
    /// Taken even while typing in a text field (Save, Open...).
    pub while_typing: bool,
    action: Action,
}

const fn keys(
    modifiers: Modifiers,
    key: Key,
    does: &'static str,
    while_typing: bool,
    action: Action,
) -> Shortcut {
    Shortcut {
        trigger: Trigger::Keys(KeyboardShortcut::new(modifiers, key)),
        does,
        while_typing,
        action,
    }
}

/// A clipboard shortcut: the platform's event, never while typing (the
/// text field takes it).
const fn event(trigger: Trigger, does: &'static str, action: Action) -> Shortcut {
    Shortcut {
        trigger,
        does,
        while_typing: false,
        action,
    }
}

const CMD: Modifiers = Modifiers::COMMAND;
const CMD_SHIFT: Modifiers = Modifiers::COMMAND.plus(Modifiers::SHIFT);
const NONE: Modifiers = Modifiers::NONE;

/// Every shortcut the editor dispatches, most specific first (Ctrl+Shift+S
/// would also match Ctrl+S).
pub const SHORTCUTS: &[Shortcut] = &[
    keys(
        CMD_SHIFT,
        Key::S,
        "Save the scene as a new file",
        true,
        Action::SaveAs,
    ),
    keys(CMD, Key::S, "Save the scene", true, Action::Save),
    keys(CMD, Key::N, "New scene", true, Action::New),
    keys(CMD, Key::O, "Open a scene", true, Action::Open),
    keys(CMD, Key::Q, "Quit", true, Action::Quit),
    keys(
        NONE,
        Key::F1,
        "Show the keyboard shortcuts",
        true,
        Action::Shortcuts,
    ),
    keys(CMD_SHIFT, Key::Z, "Redo", false, Action::Redo),
    keys(CMD, Key::Z, "Undo", false, Action::Undo),
    keys(CMD, Key::Y, "Redo", false, Action::Redo),
    keys(
        CMD,
        Key::D,
        "Duplicate the selection",
        false,
        Action::Duplicate,
    ),
    keys(
        NONE,
        Key::Delete,
        "Delete the selection",
        false,
        Action::Delete,
    ),
    keys(
        NONE,
        Key::F,
        "Frame the selection in the Scene view",
        false,
        Action::FrameSelection,
    ),
    keys(
        NONE,
        Key::F2,
        "Rename the selected node",
        false,
        Action::Rename,
    ),
    keys(
        NONE,
        Key::Comma,
        "One recorded step back",
        false,
        Action::StepBack,
    ),
    keys(
        NONE,
        Key::Period,
        "One step forward",
        false,
        Action::StepForward,
    ),
    event(Trigger::CopyEvent, "Copy the selection", Action::Copy),
    event(Trigger::CutEvent, "Cut the selection", Action::Cut),
    // The event carries the text pasted.
    event(
        Trigger::PasteEvent,
        "Paste nodes",
        Action::Paste(String::new()),
    ),
];

impl Shortcut {
    /// The action this clipboard shortcut asks for if `event` is its
    /// trigger's (a paste carries the event's text).
    fn on_event(&self, event: &egui::Event) -> Option<Action> {
        match (self.trigger, event) {
            (Trigger::CopyEvent, egui::Event::Copy) | (Trigger::CutEvent, egui::Event::Cut) => {
                Some(self.action.clone())
            }
            (Trigger::PasteEvent, egui::Event::Paste(text)) => Some(Action::Paste(text.clone())),
            _ => None,
        }
    }
}

impl Trigger {
    /// The keys as the platform writes them ("Ctrl+Shift+S", "⌘S").
    pub fn text(&self, ctx: &egui::Context) -> String {
        let event = |key| ctx.format_shortcut(&KeyboardShortcut::new(CMD, key));
        match self {
            Self::Keys(shortcut) => ctx.format_shortcut(shortcut),
            Self::CopyEvent => event(Key::C),
            Self::CutEvent => event(Key::X),
            Self::PasteEvent => event(Key::V),
        }
    }
}

/// The keys of the first shortcut that does `action`, for a menu's hint
/// (the data an action carries is not compared).
pub(crate) fn text_for(ctx: &egui::Context, action: &Action) -> String {
    SHORTCUTS
        .iter()
        .find(|s| std::mem::discriminant(&s.action) == std::mem::discriminant(action))
        .map(|s| s.trigger.text(ctx))
        .unwrap_or_default()
}

/// Turns this frame's shortcuts into actions (only the `while_typing` ones
/// while a text field has the keys).
pub(crate) fn collect(ctx: &egui::Context, actions: &mut Vec<Action>) {
    let typing = ctx.egui_wants_keyboard_input();
    ctx.input_mut(|i| {
        for shortcut in SHORTCUTS {
            if typing && !shortcut.while_typing {
                continue;
            }
            match shortcut.trigger {
                Trigger::Keys(keys) => {
                    if i.consume_shortcut(&keys) {
                        actions.push(shortcut.action.clone());
                    }
                }
                _ => actions.extend(i.events.iter().filter_map(|e| shortcut.on_event(e))),
            }
        }
    });
}

/// The shortcuts window (F1, Help menu): every row of [`SHORTCUTS`].
pub(crate) fn window(ctx: &egui::Context, open: &mut bool) {
    egui::Window::new("Keyboard shortcuts")
        .open(open)
        .collapsible(false)
        .resizable(false)
        .show(ctx, |ui| {
            egui::Grid::new("shortcuts")
                .num_columns(2)
                .striped(true)
                .spacing([24.0, 4.0])
                .show(ui, |ui| {
                    for shortcut in SHORTCUTS {
                        ui.monospace(shortcut.trigger.text(ctx));
                        ui.label(shortcut.does);
                        ui.end_row();
                    }
                });
            ui.add_space(6.0);
            ui.weak(
                "Scene view: drag to orbit, middle or Shift-drag to pan, wheel to zoom, \
                 Tab to fly with W A S D Q E. In Play, Esc gives the keys back to the editor.",
            );
        });
}
