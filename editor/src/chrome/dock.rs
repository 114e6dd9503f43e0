//! The editor's workspace: every panel is a tab that can be dragged into a
//! new split or another group, closed, and reopened from the View menu, laid
//! out by `egui_tiles` (rerun's tiling crate, which follows egui's releases;
//! `egui_dock` trails them, one egui version behind at 0.37).
//!
//! A closed panel stays in the tree, hidden, so it reopens where it was. The
//! layout is the user's, not the scene's: it is saved as RON in the config
//! folder ([`LAYOUT_FILE`]) and read back at start; a file that does not
//! read as a layout is set aside for the default.

use std::path::{Path, PathBuf};

use egui_tiles::{Container, Linear, LinearDir, Tile, TileId, Tiles, Tree};
use serde::{Deserialize, Serialize};

use crate::persist::{PersistError, read_ron, write_ron};

/// The layout's file inside the config folder.
pub const LAYOUT_FILE: &str = "layout.ron";

/// One of the editor's panels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Panel {
    /// The scene tree.
    Hierarchy,
    /// The project's files.
    Assets,
    /// The selected node's transform and components.
    Inspector,
    /// The 3D view through the editor's free camera.
    Scene,
    /// The 3D view through the scene's active camera: what the game shows.
    Game,
    /// Scrubbing the recording of a Play.
    Timeline,
    /// Game-loop and dirty-flag counters, frame-time plot.
    Stats,
    /// Warnings and errors.
    Log,
    /// Where each frame's time goes: a flame graph of the recent frames.
    Profiler,
}

impl Panel {
    /// Every panel, in the View menu's order.
    pub const ALL: [Self; 9] = [
        Self::Hierarchy,
        Self::Assets,
        Self::Inspector,
        Self::Scene,
        Self::Game,
        Self::Timeline,
        Self::Stats,
        Self::Log,
        Self::Profiler,
    ];

    /// The tab's title.
    pub fn title(self) -> &'static str {
        match self {
            Self::Hierarchy => "Hierarchy",
            Self::Assets => "Assets",
            Self::Inspector => "Inspector",
            Self::Scene => "Scene",
            Self::Game => "Game",
            Self::Timeline => "Timeline",
            Self::Stats => "Stats",
            Self::Log => "Log",
            Self::Profiler => "Profiler",
        }
    }

    /// The panel whose group a panel joins when a saved layout lacks it.
    fn neighbour(self) -> Self {
        match self {
            Self::Hierarchy => Self::Assets,
            Self::Assets => Self::Hierarchy,
            Self::Inspector => Self::Stats,
            Self::Scene => Self::Game,
            Self::Game => Self::Scene,
            Self::Timeline | Self::Log | Self::Profiler => Self::Stats,
            Self::Stats => Self::Log,
        }
    }
}

/// Share of the window's width each column of the default layout gets.
const LEFT: f32 = 0.12;
const RIGHT: f32 = 0.19;

/// The panels' arrangement.
#[derive(Debug)]
pub struct Layout {
    tree: Tree<Panel>,
}

impl Default for Layout {
    /// Hierarchy over Assets on the left, the Scene and Game views as tabs in
    /// the middle (most of the window), the Inspector over Stats, Log,
    /// Profiler and Timeline on the right.
    fn default() -> Self {
        let mut tiles = Tiles::default();
        let mut tabs = |panels: &[Panel]| {
            let panes = panels.iter().map(|&p| tiles.insert_pane(p)).collect();
            tiles.insert_tab_tile(panes)
        };
        let hierarchy = tabs(&[Panel::Hierarchy]);
        let assets = tabs(&[Panel::Assets]);
        let views = tabs(&[Panel::Scene, Panel::Game]);
        let inspector = tabs(&[Panel::Inspector]);
        let bottom = tabs(&[Panel::Stats, Panel::Log, Panel::Profiler, Panel::Timeline]);
        let vertical = |a, b, fraction| Linear::new_binary(LinearDir::Vertical, [a, b], fraction);
        let left = tiles.insert_container(vertical(hierarchy, assets, 0.6));
        let right = tiles.insert_container(vertical(inspector, bottom, 0.6));
        let mut columns = Linear::new(LinearDir::Horizontal, vec![left, views, right]);
        // Shares sum to the number of columns, as egui_tiles keeps them.
        columns.shares.set_share(left, 3.0 * LEFT);
        columns.shares.set_share(views, 3.0 * (1.0 - LEFT - RIGHT));
        columns.shares.set_share(right, 3.0 * RIGHT);
        let root = tiles.insert_container(columns);
        Self {
            tree: Tree::new(egui::Id::unique("keel_workspace"), root, tiles),
        }
    }
}

impl Layout {
    /// No panels at all (what the editor holds while egui_tiles draws its layout).
    pub(crate) fn empty() -> Self {
        Self {
            tree: Tree::empty(egui::Id::unique("keel_workspace")),
        }
    }

    /// The tree egui_tiles draws.
    pub(crate) fn tree_mut(&mut self) -> &mut Tree<Panel> {
        &mut self.tree
    }

    fn tile(&self, panel: Panel) -> Option<TileId> {
        self.tree.tiles.find_pane(&panel)
    }

    /// Whether the panel is open (it may be behind another tab of its group).
    pub fn is_open(&self, panel: Panel) -> bool {
        self.tile(panel).is_some_and(|t| self.tree.is_visible(t))
    }

    /// Whether the panel is drawn: open and its group's active tab.
    pub fn is_shown(&self, panel: Panel) -> bool {
        self.tile(panel)
            .is_some_and(|t| self.tree.is_visible(t) && self.tree.active_tiles().contains(&t))
    }

    /// Where the panel's content was laid out last frame (screen points);
    /// `None` while it is closed or behind another tab.
    pub fn rect(&self, panel: Panel) -> Option<egui::Rect> {
        let tile = self.tile(panel)?;
        self.is_shown(panel)
            .then(|| self.tree.tiles.rect(tile))
            .flatten()
    }

    /// Tiles that are tabs of a group but not its active one.
    pub(crate) fn tabs_behind(&self) -> Vec<TileId> {
        self.tree
            .tiles
            .iter()
            .filter_map(|(_, tile)| match tile {
                Tile::Container(Container::Tabs(tabs)) => Some(tabs),
                _ => None,
            })
            .flat_map(|tabs| tabs.children.iter().filter(|&&c| !tabs.is_active(c)))
            .copied()
            .collect()
    }

    /// Opens the panel where it was last (or beside its neighbour) and
    /// brings it to the front of its group.
    pub fn open(&mut self, panel: Panel) {
        let tile = match self.tile(panel) {
            Some(tile) => tile,
            None => self.insert_near_neighbour(panel),
        };
        self.tree.set_visible(tile, true);
        self.tree.make_active(|id, _| id == tile);
    }

    /// Closes the panel (it keeps its place for [`Layout::open`]).
    pub fn close(&mut self, panel: Panel) {
        if let Some(tile) = self.tile(panel) {
            self.tree.set_visible(tile, false);
        }
    }

    /// Opens or closes the panel.
    pub fn set_open(&mut self, panel: Panel, open: bool) {
        if open {
            self.open(panel);
        } else {
            self.close(panel);
        }
    }

    /// Adds the panel as a tab of its neighbour's group, else as a new
    /// column at the right.
    fn insert_near_neighbour(&mut self, panel: Panel) -> TileId {
        let pane = self.tree.tiles.insert_pane(panel);
        let group = self
            .tile(panel.neighbour())
            .and_then(|n| self.tree.tiles.parent_of(n))
            .filter(|&g| {
                matches!(
                    self.tree.tiles.get(g),
                    Some(Tile::Container(Container::Tabs(_)))
                )
            });
        if let Some(group) = group
            && let Some(Tile::Container(Container::Tabs(tabs))) = self.tree.tiles.get_mut(group)
        {
            tabs.add_child(pane);
            return pane;
        }
        let tabs = self.tree.tiles.insert_tab_tile(vec![pane]);
        match self.tree.root().and_then(|r| self.tree.tiles.get_mut(r)) {
            Some(Tile::Container(Container::Linear(row))) if row.dir == LinearDir::Horizontal => {
                row.add_child(tabs);
            }
            _ => {
                let children = self.tree.root().into_iter().chain([tabs]).collect();
                let root = self.tree.tiles.insert_horizontal_tile(children);
                self.tree.root = Some(root);
            }
        }
        pane
    }

    /// A layout from its saved text: every panel once at most, those the
    /// file lacks (saved by an older editor) added beside their neighbours.
    ///
    /// # Errors
    /// What is wrong with the text, as a message.
    pub fn from_ron(text: &str) -> Result<Self, String> {
        let tree: Tree<Panel> = ron::from_str(text).map_err(|e| e.to_string())?;
        let root = tree.root().ok_or("the layout has no root tile")?;
        if tree.tiles.get(root).is_none() {
            return Err(format!("the root tile {root:?} is not in the layout"));
        }
        let mut layout = Self { tree };
        for panel in Panel::ALL {
            let count = layout
                .tree
                .tiles
                .tiles()
                .filter(|t| matches!(t, Tile::Pane(p) if *p == panel))
                .count();
            match count {
                0 => {
                    layout.insert_near_neighbour(panel);
                }
                1 => {}
                n => {
                    return Err(format!(
                        "the {} panel is in the layout {n} times",
                        panel.title()
                    ));
                }
            }
        }
        Ok(layout)
    }

    /// The layout as text for [`Layout::from_ron`].
    pub fn to_ron(&self) -> String {
        ron::ser::to_string_pretty(&self.tree, ron::ser::PrettyConfig::new())
            .unwrap_or_else(|e| unreachable!("a tile tree always serializes: {e}"))
    }

    /// Reads a saved layout; `Ok(None)` when there is none.
    ///
    /// # Errors
    /// [`PersistError`] for a file that cannot be read or is not a layout.
    pub fn load(path: &Path) -> Result<Option<Self>, PersistError> {
        let Some(text) = read_ron(path)? else {
            return Ok(None);
        };
        Self::from_ron(&text)
            .map(Some)
            .map_err(|message| PersistError::Parse {
                path: path.to_path_buf(),
                message,
            })
    }

    /// Writes the layout (a temp file renamed over the old one).
    ///
    /// # Errors
    /// [`PersistError::Io`].
    pub fn save(&self, path: &Path) -> Result<(), PersistError> {
        write_ron(path, &self.to_ron())
    }

    /// The layout file inside a config folder.
    pub fn file_in(config_dir: &Path) -> PathBuf {
        config_dir.join(LAYOUT_FILE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_layout_has_every_panel_open_once() {
        let layout = Layout::default();
        for panel in Panel::ALL {
            assert!(layout.is_open(panel), "{panel:?}");
        }
        assert!(layout.is_shown(Panel::Scene));
        assert!(!layout.is_shown(Panel::Game), "behind the Scene tab");
        assert!(layout.is_shown(Panel::Stats) && !layout.is_shown(Panel::Log));
    }

    #[test]
    fn a_closed_panel_reopens_in_its_group_in_front() {
        let mut layout = Layout::default();
        let before = layout.tile(Panel::Log);
        layout.close(Panel::Log);
        assert!(!layout.is_open(Panel::Log));
        layout.open(Panel::Log);
        assert_eq!(
            layout.tile(Panel::Log),
            before,
            "the same tile, in its place"
        );
        assert!(layout.is_shown(Panel::Log) && !layout.is_shown(Panel::Stats));
    }

    #[test]
    fn a_layout_reads_back_what_it_wrote() {
        let mut layout = Layout::default();
        layout.close(Panel::Assets);
        layout.open(Panel::Game);
        let back = Layout::from_ron(&layout.to_ron()).expect("reads back");
        assert!(!back.is_open(Panel::Assets));
        assert!(back.is_shown(Panel::Game) && !back.is_shown(Panel::Scene));
    }

    #[test]
    fn a_panel_the_file_lacks_joins_its_neighbour_and_a_doubled_one_is_refused() {
        let mut layout = Layout::default();
        let log = layout.tile(Panel::Log).expect("in the default");
        layout.tree.remove_recursively(log);
        let back = Layout::from_ron(&layout.to_ron()).expect("reads back");
        let stats_group = back
            .tile(Panel::Stats)
            .and_then(|t| back.tree.tiles.parent_of(t));
        let log_group = back
            .tile(Panel::Log)
            .and_then(|t| back.tree.tiles.parent_of(t));
        assert_eq!(log_group, stats_group);

        let mut doubled = Layout::default();
        let extra = doubled.tree.tiles.insert_pane(Panel::Scene);
        doubled.insert_tab_into_root(extra);
        let err = Layout::from_ron(&doubled.to_ron()).expect_err("Scene twice");
        assert!(
            err.contains("Scene panel is in the layout 2 times"),
            "{err}"
        );
        let err = Layout::from_ron("(root: 7)").expect_err("not a layout");
        assert!(!err.is_empty());
    }

    impl Layout {
        fn insert_tab_into_root(&mut self, pane: TileId) {
            let tabs = self.tree.tiles.insert_tab_tile(vec![pane]);
            if let Some(Tile::Container(Container::Linear(row))) =
                self.tree.root().and_then(|r| self.tree.tiles.get_mut(r))
            {
                row.add_child(tabs);
            }
        }
    }
}
