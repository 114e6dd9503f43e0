//! What the user asks for: the menus, the toolbar, the shortcuts and the
//! panels push these, and the app applies them in one place
//! ([`EditorApp::act`](crate::EditorApp::act)), between the frame's drawing
//! and the next. The window shell, live mode and tests drive the editor
//! through the same actions.

use std::path::PathBuf;

/// Something the user asked for through a menu, the toolbar, a shortcut or
/// a panel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// A new untitled scene (asking about unsaved changes first).
    New,
    /// The file chooser, to open a scene.
    Open,
    /// Opens this scene file (asking about unsaved changes first).
    OpenPath(PathBuf),
    /// Saves to the document's file (the chooser for an untitled scene).
    Save,
    /// The file chooser, to save under a new name.
    SaveAs,
    /// The file chooser, to import a model.
    Import,
    /// Imports this model file under the selected node (or at the root).
    ImportPath(PathBuf),
    /// Quits (asking about unsaved changes first).
    Quit,
    /// Undoes the last edit.
    Undo,
    /// Redoes the last undone edit.
    Redo,
    /// Duplicates the selection.
    Duplicate,
    /// Copies the selection to the clipboard as scene text.
    Copy,
    /// Copies the selection and deletes it.
    Cut,
    /// Pastes this scene text under the selection.
    Paste(String),
    /// Deletes the selection.
    Delete,
    /// Starts renaming the selected node in the Hierarchy.
    Rename,
    /// Frames the selection in the Scene view.
    FrameSelection,
    /// Play: the game runs, recorded; the Game view comes to the front,
    /// opened if it was closed, as Unity does.
    Play,
    /// Pauses Play.
    Pause,
    /// One fixed step while paused.
    Step,
    /// The timeline one step back.
    StepBack,
    /// The timeline one step on.
    StepForward,
    /// The timeline at this step.
    Seek(u64),
    /// Ends Play: the world of the moment Play was pressed comes back.
    Reset,
    /// Shows or hides the list of shortcuts.
    Shortcuts,
    /// Open the Log tab (the status line's count of new warnings).
    ShowLog,
    /// Leave prefab mode for the scene the prefab was opened from.
    BackFromPrefab,
    /// Show the previous build's run in the views instead of this one's
    /// (live mode's timeline), or stop showing it.
    ShowPreviousRun(bool),
    /// Parks the scene and edits this prefab file (prefab mode).
    OpenPrefab(PathBuf),
    /// The file chooser, to save this node's children as a prefab.
    SavePrefabAs(keel_engine::NodeId),
    /// Brings instances whose prefab file changed on disk up to date.
    RefreshPrefabs,
}
