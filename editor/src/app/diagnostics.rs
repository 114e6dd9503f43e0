//! What the editor reports about itself: the warnings and errors the Log tab
//! lists, and the frames the Profiler tab recorded.

use crate::log_book::LogBook;
use crate::panels::log::LogTab;
use crate::panels::profiler::ProfilerTab;

/// The Log and Profiler tabs with what they show.
#[derive(Default)]
pub(crate) struct Diagnostics {
    /// Warnings and errors, listed in the Log tab.
    pub(crate) log: LogBook,
    /// The Log tab's filter and scroll.
    pub(crate) log_tab: LogTab,
    /// The Profiler tab, and the frames it recorded.
    pub(crate) profiler: ProfilerTab,
}
