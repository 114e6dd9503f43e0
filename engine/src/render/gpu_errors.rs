//! What the device reports outside any error scope: validation errors, running
//! out of memory, and losing the device.
//!
//! wgpu's default for an uncaptured error is to panic ("Handling wgpu errors
//! as fatal by default"): one bad size in a pass would take the editor and
//! its unsaved scene down with it. Every [`GpuContext`](super::GpuContext)
//! installs a handler that files the error here instead, and a device-lost
//! callback that marks the loss. Whoever owns the loop asks after each frame:
//! the viewer reports and exits, the editor shows the error and goes on (or
//! rebuilds its GPU objects when the device is gone).

use std::sync::{Arc, Mutex};

/// A problem the device reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GpuProblem {
    /// A command was refused (a validation error: the work it named was skipped).
    Error(String),
    /// The device is gone (destroyed, reset by the driver, unplugged); nothing
    /// made from it works any more.
    Lost(String),
}

impl std::fmt::Display for GpuProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GpuProblem::Error(message) => write!(f, "GPU error: {message}"),
            GpuProblem::Lost(message) => write!(f, "GPU device lost: {message}"),
        }
    }
}

/// The problems a device reported since they were last taken; shared by the
/// device's handlers and the context's owner.
#[derive(Clone, Debug, Default)]
pub struct GpuErrors(Arc<Mutex<Vec<GpuProblem>>>);

/// Problems kept until taken: a frame that fails the same way every time
/// must not grow the list without bound.
const KEPT: usize = 64;

impl GpuErrors {
    /// Installs the handlers on `device`: every later uncaptured error and the
    /// device's loss are filed here instead of panicking.
    pub(crate) fn watch(device: &wgpu::Device) -> Self {
        let errors = GpuErrors::default();
        let on_error = errors.clone();
        device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
            on_error.push(GpuProblem::Error(error.to_string()));
        }));
        let on_lost = errors.clone();
        device.set_device_lost_callback(move |reason, message| {
            let said = if message.is_empty() {
                format!("{reason:?}")
            } else {
                format!("{reason:?}: {message}")
            };
            on_lost.push(GpuProblem::Lost(said));
        });
        errors
    }

    fn push(&self, problem: GpuProblem) {
        let mut list = self.0.lock().unwrap_or_else(|e| e.into_inner());
        log::error!("{problem}");
        if list.len() < KEPT || matches!(problem, GpuProblem::Lost(_)) {
            list.push(problem);
        }
    }

    /// The problems reported since the last call, oldest first.
    #[must_use]
    pub fn take(&self) -> Vec<GpuProblem> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}
