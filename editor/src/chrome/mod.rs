//! What frames the panels: the dock of tabs, the menus and toolbar, the
//! keyboard shortcuts and the modal dialogs.
//!
//! - [`dock`]: the layout, every panel a dockable tab (the app draws the
//!   panels inside it: `app::workspace`).
//! - [`menus`]: the menu bar, the toolbar and the status line.
//! - [`shortcuts`]: the one table of keys that both dispatches and lists them.
//! - [`dialogs`]: file chooser, unsaved-changes, error and recovery modals.

pub(crate) mod dialogs;
pub(crate) mod dock;
pub(crate) mod menus;
pub(crate) mod shortcuts;
