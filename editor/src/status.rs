//! What the editor is doing and saying: whether the world is edited or
//! simulated, and the message line at the bottom of the window. Every part
//! reads them; the app sets them.

/// The message line at the bottom of the window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Status {
    text: String,
    error: bool,
}

impl Status {
    /// Shows an informational message.
    pub fn info(&mut self, text: impl Into<String>) {
        self.text = text.into();
        self.error = false;
    }

    /// Shows an error (in red).
    pub fn error(&mut self, text: impl Into<String>) {
        self.text = text.into();
        self.error = true;
        log::warn!("{}", self.text);
    }

    /// The message shown.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the message is an error.
    pub fn is_error(&self) -> bool {
        self.error
    }
}

/// Whether the world is being edited or simulated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayState {
    /// Time stands still; Play starts it (and remembers the world for Reset).
    Editing,
    /// The fixed-step clock runs.
    Playing,
    /// Stopped mid-play: Step runs one fixed update, Play goes on, Reset goes back.
    Paused,
}
