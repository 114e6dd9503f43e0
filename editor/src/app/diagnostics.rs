//! What the editor reports about itself: the warnings and errors the Log tab
//! lists, and the frames the Profiler tab recorded.

use crate::log_book::LogBook;
use crate::panels::log::LogTab;
use crate::panels::profiler::ProfilerTab;

/// The Log and Profiler tabs with what they show
/// ([`EditorApp::diagnostics`]).
///
/// [`EditorApp::diagnostics`]: crate::EditorApp::diagnostics
#[derive(Default)]
pub struct Diagnostics {
    /// Warnings and errors, listed in the Log tab.
    pub(crate) log: LogBook,
    /// The Log tab's filter and scroll.
    pub(crate) log_tab: LogTab,
    /// The Profiler tab, and the frames it recorded.
    pub(crate) profiler: ProfilerTab,
}

impl Diagnostics {
    /// The warnings and errors the Log tab lists.
    pub fn log(&self) -> &LogBook {
        &self.log
    }

    /// The Profiler tab's state and the frames it recorded.
    pub fn profiler(&self) -> &ProfilerTab {
        &self.profiler
    }

    /// The Profiler tab's state (the shell files GPU pass times in it).
    pub fn profiler_mut(&mut self) -> &mut ProfilerTab {
        &mut self.profiler
    }
}
