//! The workspace's state: the panels' arrangement (read from and written
//! back to the config folder), the panels that keep state between frames,
//! and the windows over them. `panes.rs` draws it.

use std::path::Path;

use crate::chrome::dock::Layout;
use crate::panels::assets::AssetBrowser;
use crate::panels::hierarchy::Hierarchy;
use crate::panels::inspector::Inspector;
use crate::status::Status;

/// The panels, their arrangement and the windows over them
/// ([`EditorApp::workspace`]).
///
/// [`EditorApp::workspace`]: crate::EditorApp::workspace
#[derive(Default)]
pub struct Workspace {
    /// The panels' arrangement.
    pub(crate) layout: Layout,
    /// Whether the arrangement changed since it was saved.
    pub(crate) layout_changed: bool,
    /// The keyboard shortcuts window (F1) is open.
    pub(crate) shortcuts_open: bool,
    /// The Hierarchy panel.
    pub(crate) hierarchy: Hierarchy,
    /// The Inspector panel.
    pub(crate) inspector: Inspector,
    /// The asset browser (the project's files).
    pub(crate) assets: AssetBrowser,
}

impl Workspace {
    /// The panels' arrangement.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The panels' arrangement, to open or close panels (saved with the
    /// next frame).
    pub fn layout_mut(&mut self) -> &mut Layout {
        self.layout_changed = true;
        &mut self.layout
    }

    /// Opens a panel and brings it to the front for this run, without
    /// saving that in the user's layout (a script's screenshot of it).
    pub fn show_panel(&mut self, panel: crate::chrome::dock::Panel) {
        self.layout.open(panel);
    }

    /// The hierarchy panel's state.
    pub fn hierarchy(&self) -> &Hierarchy {
        &self.hierarchy
    }

    /// The asset browser (the project's files).
    pub fn asset_browser(&self) -> &AssetBrowser {
        &self.assets
    }

    /// The asset browser, to filter or select.
    pub fn asset_browser_mut(&mut self) -> &mut AssetBrowser {
        &mut self.assets
    }

    /// Writes the layout to the config folder (if there is one).
    pub(crate) fn save_layout(&mut self, config_dir: Option<&Path>, status: &mut Status) {
        self.layout_changed = false;
        let Some(path) = config_dir.map(Layout::file_in) else {
            return;
        };
        if let Err(e) = self.layout.save(&path) {
            status.error(format!("Could not save the panel layout: {e}"));
        }
    }

    /// Forgets the panels' textures on the GPU device (the asset browser's
    /// thumbnails): after the device is lost they are made again.
    pub fn forget_textures(&mut self) {
        self.assets.forget_textures();
    }

    /// The layout saved in the config folder, else the default; a file that
    /// cannot be read is reported in the status line and the log.
    pub(crate) fn load_layout(&mut self, config_dir: Option<&Path>, status: &mut Status) {
        let Some(path) = config_dir.map(Layout::file_in) else {
            return;
        };
        match Layout::load(&path) {
            Ok(Some(layout)) => self.layout = layout,
            Ok(None) => {}
            Err(e) => status.error(format!("{e}; the default panel layout is used instead")),
        }
    }
}
