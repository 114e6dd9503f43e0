//! What frames the panels: the dock of tabs, the menus and toolbar, the
//! keyboard shortcuts, the modal dialogs and the widgets the panels share.
//!
//! - [`dock`]: the layout, every panel a dockable tab; [`workspace`] draws
//!   the panels inside it.
//! - [`menus`]: the menu bar, the toolbar and the status line.
//! - [`shortcuts`]: the one table of keys that both dispatches and lists them.
//! - [`dialogs`]: file chooser, unsaved-changes, error and recovery modals.
//! - [`widgets`]: labelled rows for numbers, vectors and colours.

pub(crate) mod dialogs;
pub(crate) mod dock;
pub(crate) mod menus;
pub(crate) mod shortcuts;
pub(crate) mod widgets;
pub(crate) mod workspace;
