//! What the user asks for: the menus, the toolbar, the shortcuts and the
//! panels push these, and the app applies them in one place
//! (`EditorApp::run_action`), between the frame's drawing and the next.

use std::path::PathBuf;

/// Something the user asked for through a menu, the toolbar or a shortcut.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    New,
    Open,
    OpenPath(PathBuf),
    Save,
    SaveAs,
    Import,
    ImportPath(PathBuf),
    Quit,
    Undo,
    Redo,
    Duplicate,
    Copy,
    Cut,
    Paste(String),
    Delete,
    Rename,
    FrameSelection,
    Play,
    Pause,
    Step,
    StepBack,
    StepForward,
    Seek(u64),
    Reset,
    Shortcuts,
    /// Open the Log tab (the status line's count of new warnings).
    ShowLog,
    /// Leave prefab mode for the scene the prefab was opened from.
    BackFromPrefab,
    /// Show the previous build's run in the views instead of this one's
    /// (live mode's timeline), or stop showing it.
    ShowPreviousRun(bool),
}
