//! Frame profiling: where a frame's time goes, scope by scope, on every
//! thread, and on the GPU pass by pass.
//!
//! The engine marks its work with `puffin` scopes: the fixed step and each
//! system in it, propagation, particles, the spatial index, extraction and
//! culling, each render pass's CPU encode. A game marks its own the same way
//! (`keel_engine::profile::puffin::profile_scope!("pathfinding")`). A scope
//! costs one relaxed atomic load while nobody records.
//!
//! `puffin` gathers scopes from all threads in one process-wide collector, as
//! `log` has one logger: a scope cannot be handed an owner. That collector
//! holds timings only, never world state. What a window shows is owned: a
//! [`Profiler`] made by whoever runs the frames (the viewer with `--profile`,
//! the editor's Profiler tab) receives the finished frames into its own
//! ring, and the GPU pass times its renderers measured
//! ([`crate::Renderer::take_gpu_times`]). Two profilers in one process see
//! each other's scopes (the collector is one); they keep separate rings.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

pub use puffin;

/// Profilers recording now, in this process: `puffin`'s scopes are one
/// switch for the process, on while any profiler records (one stopping
/// must not stop another's).
static RECORDING: Mutex<usize> = Mutex::new(0);

/// Frames a profiler keeps (about four seconds at 60 frames a second).
pub const KEPT_FRAMES: usize = 256;

/// The lane name GPU pass times are shown under.
pub const GPU_LANE: &str = "GPU";

/// One pass's time on the GPU, from its timestamp queries.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuPass {
    /// The pass's label (`main pass`, `shadow view`, `tonemap`).
    pub label: String,
    /// Start, in nanoseconds of the GPU's clock.
    pub start_ns: i64,
    /// End, in nanoseconds of the GPU's clock.
    pub end_ns: i64,
}

/// The passes of one submitted frame, as the GPU timed them.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuFrame {
    /// When the CPU encoded the frame ([`puffin::now_ns`]): the GPU clock
    /// cannot be compared with the CPU's, so the lane is drawn from here.
    pub encoded_ns: i64,
    /// The passes in the order they were recorded.
    pub passes: Vec<GpuPass>,
}

/// One scope of a frame, flattened for drawing and for tests.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    /// The scope's name (`propagate`, `system`, `main pass`).
    pub name: String,
    /// What the scope was given to say (a system's name), or empty.
    pub data: String,
    /// Where the scope is in the source (`engine/src/world.rs:140`), if known.
    pub location: String,
    /// Nesting: 0 for a scope no other scope on its lane contains.
    pub depth: usize,
    /// Start, in nanoseconds from the frame's start.
    pub start_ns: i64,
    /// Length in nanoseconds.
    pub duration_ns: i64,
}

impl Span {
    /// The name, with the data after it when there is some (`system spin`).
    #[must_use]
    pub fn label(&self) -> String {
        if self.data.is_empty() {
            self.name.clone()
        } else {
            format!("{} {}", self.name, self.data)
        }
    }
}

/// The scopes one thread (or the GPU) ran in a frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Lane {
    /// The thread's name, or [`GPU_LANE`].
    pub name: String,
    /// Scopes in stream order: each parent before its children.
    pub spans: Vec<Span>,
}

/// One recorded frame, every lane flattened.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameProfile {
    /// The collector's frame number.
    pub index: u64,
    /// Start of the frame's first CPU scope ([`puffin::now_ns`]).
    pub start_ns: i64,
    /// From the first CPU scope's start to the last one's end.
    pub duration_ns: i64,
    /// CPU threads first, by name; the GPU lane (if measured) last.
    pub lanes: Vec<Lane>,
}

impl FrameProfile {
    /// Every span of every lane, with its lane's name.
    pub fn spans(&self) -> impl Iterator<Item = (&str, &Span)> {
        self.lanes
            .iter()
            .flat_map(|lane| lane.spans.iter().map(move |s| (lane.name.as_str(), s)))
    }

    /// The first span called `name` (on any lane).
    #[must_use]
    pub fn find(&self, name: &str) -> Option<&Span> {
        self.spans().map(|(_, s)| s).find(|s| s.name == name)
    }
}

#[derive(Default)]
struct Ring {
    /// Oldest first.
    frames: VecDeque<Arc<puffin::FrameData>>,
    /// Every scope's name and place, as the collector described them.
    scopes: puffin::ScopeCollection,
    gpu: VecDeque<GpuFrame>,
}

impl Ring {
    fn add(&mut self, frame: Arc<puffin::FrameData>) {
        if self.frames.len() == KEPT_FRAMES {
            self.frames.pop_front();
        }
        self.frames.push_back(frame);
    }
}

/// A recorder of frames: turns the scopes on while it records and keeps the
/// last [`KEPT_FRAMES`] frames and their GPU times. Dropping it stops the
/// recording it started.
pub struct Profiler {
    ring: Arc<Mutex<Ring>>,
    sink: puffin::FrameSinkId,
    /// Shared with the sink: frames that end while not recording (another
    /// profiler's) are not kept.
    recording: Arc<AtomicBool>,
}

impl Default for Profiler {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Profiler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Profiler")
            .field("recording", &self.is_recording())
            .field("frames", &self.frame_count())
            .finish_non_exhaustive()
    }
}

impl Profiler {
    /// A profiler with an empty ring, not recording yet.
    #[must_use]
    pub fn new() -> Self {
        let ring = Arc::new(Mutex::new(Ring::default()));
        let recording = Arc::new(AtomicBool::new(false));
        let (filled, on) = (ring.clone(), recording.clone());
        let mut collector = puffin::GlobalProfiler::lock();
        let sink = collector.add_sink(Box::new(move |frame| {
            let mut ring = lock(&filled);
            for scope in &frame.scope_delta {
                ring.scopes.insert(scope.clone());
            }
            if on.load(Ordering::Relaxed) {
                ring.add(frame);
            }
        }));
        // Scopes named before this profiler existed are described to it too.
        collector.emit_scope_snapshot();
        Self {
            ring,
            sink,
            recording,
        }
    }

    /// Starts or stops recording: the engine's scopes (and any game's) are
    /// timed only while some profiler records.
    pub fn set_recording(&mut self, on: bool) {
        if on != self.is_recording() {
            self.recording.store(on, Ordering::Relaxed);
            let mut recording = RECORDING.lock().unwrap_or_else(PoisonError::into_inner);
            if on {
                *recording += 1;
            } else {
                *recording = recording.saturating_sub(1);
            }
            // Counted and switched under one lock: the first to start turns
            // the scopes on, the last to stop off.
            puffin::set_scopes_on(*recording > 0);
        }
    }

    /// Whether this profiler records.
    #[must_use]
    pub fn is_recording(&self) -> bool {
        self.recording.load(Ordering::Relaxed)
    }

    /// Ends the frame being recorded and starts the next: call once a frame,
    /// outside every scope. Does nothing while not recording.
    pub fn new_frame(&self) {
        if self.is_recording() {
            puffin::GlobalProfiler::lock().new_frame();
        }
    }

    /// Files GPU pass times (from [`crate::Renderer::take_gpu_times`]); each
    /// is shown with the frame it was encoded in.
    pub fn add_gpu(&self, frames: impl IntoIterator<Item = GpuFrame>) {
        let mut ring = lock(&self.ring);
        for frame in frames {
            if ring.gpu.len() == KEPT_FRAMES {
                ring.gpu.pop_front();
            }
            ring.gpu.push_back(frame);
        }
    }

    /// Frames kept.
    #[must_use]
    pub fn frame_count(&self) -> usize {
        lock(&self.ring).frames.len()
    }

    /// Each kept frame's index and length in nanoseconds, oldest first.
    #[must_use]
    pub fn frame_lengths(&self) -> Vec<(u64, i64)> {
        lock(&self.ring)
            .frames
            .iter()
            .map(|f| (f.frame_index(), f.duration_ns()))
            .collect()
    }

    /// The kept frame numbered `index`, flattened (`None` once it left the ring).
    #[must_use]
    pub fn frame(&self, index: u64) -> Option<FrameProfile> {
        let ring = lock(&self.ring);
        let frame = ring.frames.iter().find(|f| f.frame_index() == index)?;
        flatten(frame, &ring)
    }

    /// The newest kept frame, flattened.
    #[must_use]
    pub fn latest(&self) -> Option<FrameProfile> {
        let ring = lock(&self.ring);
        flatten(ring.frames.back()?, &ring)
    }

    /// Every scope of the kept frames, summed: what a frame spends where.
    #[must_use]
    pub fn summary(&self) -> Vec<ScopeSummary> {
        self.summary_of_last(KEPT_FRAMES)
    }

    /// As [`Profiler::summary`], over the newest `frames` kept frames only
    /// (a window showing it live reads the last second, not every frame).
    #[must_use]
    pub fn summary_of_last(&self, frames: usize) -> Vec<ScopeSummary> {
        let ring = lock(&self.ring);
        let skip = ring.frames.len().saturating_sub(frames);
        let flat: Vec<FrameProfile> = ring
            .frames
            .iter()
            .skip(skip)
            .filter_map(|frame| flatten(frame, &ring))
            .collect();
        summarise(&flat)
    }

    /// [`Profiler::summary`] as a table, one scope a line, each lane's
    /// costliest first.
    #[must_use]
    pub fn report(&self) -> String {
        use std::fmt::Write as _;
        let rows = self.summary();
        let mut out = format!(
            "profile of {} frames: time per frame, the most in one frame, calls per frame\n",
            self.frame_count()
        );
        for row in rows {
            let _ = writeln!(
                out,
                "{:<8} {:<34} {:>9.3} ms {:>9.3} ms {:>7.1}",
                if row.gpu { GPU_LANE } else { "CPU" },
                row.label,
                row.mean_ns / 1e6,
                row.max_ns as f64 / 1e6,
                row.calls_per_frame,
            );
        }
        out
    }

    /// Forgets every kept frame.
    pub fn clear(&self) {
        let mut ring = lock(&self.ring);
        ring.frames.clear();
        ring.gpu.clear();
    }
}

impl Drop for Profiler {
    fn drop(&mut self) {
        self.set_recording(false);
        puffin::GlobalProfiler::lock().remove_sink(self.sink);
    }
}

/// One scope's cost over many frames.
#[derive(Clone, Debug, PartialEq)]
pub struct ScopeSummary {
    /// On the GPU lane (a pass), else on some CPU thread.
    pub gpu: bool,
    /// [`Span::label`]: the name with its data.
    pub label: String,
    /// Mean time per frame, over every frame summed (a frame without the
    /// scope counts as zero), in nanoseconds.
    pub mean_ns: f64,
    /// The most one frame spent in it, in nanoseconds.
    pub max_ns: i64,
    /// How often it ran, per frame.
    pub calls_per_frame: f64,
}

/// Sums `frames` scope by scope: each lane's scopes by their label, the CPU's
/// first, each costliest first.
#[must_use]
pub fn summarise(frames: &[FrameProfile]) -> Vec<ScopeSummary> {
    use std::collections::HashMap;
    // (gpu, label) -> (total, max in a frame, calls)
    let mut sums: HashMap<(bool, String), (i64, i64, u64)> = HashMap::new();
    for frame in frames {
        let mut this: HashMap<(bool, String), (i64, u64)> = HashMap::new();
        for (lane, span) in frame.spans() {
            let entry = this.entry((lane == GPU_LANE, span.label())).or_default();
            entry.0 += span.duration_ns;
            entry.1 += 1;
        }
        for (key, (time, calls)) in this {
            let sum = sums.entry(key).or_default();
            sum.0 += time;
            sum.1 = sum.1.max(time);
            sum.2 += calls;
        }
    }
    let n = frames.len().max(1) as f64;
    let mut rows: Vec<ScopeSummary> = sums
        .into_iter()
        .map(|((gpu, label), (total, max_ns, calls))| ScopeSummary {
            gpu,
            label,
            mean_ns: total as f64 / n,
            max_ns,
            calls_per_frame: calls as f64 / n,
        })
        .collect();
    rows.sort_by(|a, b| {
        a.gpu
            .cmp(&b.gpu)
            .then(b.mean_ns.total_cmp(&a.mean_ns))
            .then_with(|| a.label.cmp(&b.label))
    });
    rows
}

fn lock(ring: &Mutex<Ring>) -> MutexGuard<'_, Ring> {
    // A panic while holding the lock leaves at worst a frame half added.
    ring.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Reads a frame's streams into lanes; `None` for a frame that cannot be read.
fn flatten(frame: &puffin::FrameData, ring: &Ring) -> Option<FrameProfile> {
    let unpacked = frame.unpacked().ok()?;
    let (start_ns, end_ns) = unpacked.meta.range_ns;
    let scopes = &ring.scopes;
    let mut lanes = Vec::new();
    for (thread, stream) in &unpacked.thread_streams {
        let mut spans = Vec::new();
        read_scopes(
            &stream.stream,
            puffin::Reader::from_start(&stream.stream),
            0,
            start_ns,
            scopes,
            &mut spans,
        )
        .ok()?;
        lanes.push(Lane {
            name: thread.name.clone(),
            spans,
        });
    }
    lanes.sort_by(|a, b| a.name.cmp(&b.name));
    let gpu: Vec<Span> = ring
        .gpu
        .iter()
        .filter(|g| (start_ns..=end_ns).contains(&g.encoded_ns))
        .flat_map(|g| gpu_spans(g, start_ns))
        .collect();
    if !gpu.is_empty() {
        lanes.push(Lane {
            name: GPU_LANE.to_owned(),
            spans: gpu,
        });
    }
    Some(FrameProfile {
        index: frame.frame_index(),
        start_ns,
        duration_ns: end_ns - start_ns,
        lanes,
    })
}

fn read_scopes(
    stream: &puffin::Stream,
    reader: puffin::Reader<'_>,
    depth: usize,
    frame_start: i64,
    scopes: &puffin::ScopeCollection,
    out: &mut Vec<Span>,
) -> puffin::Result<()> {
    for scope in reader {
        let scope = scope?;
        let details = scopes.fetch_by_id(&scope.id);
        out.push(Span {
            name: details.map_or_else(|| "?".to_owned(), |d| d.name().to_string()),
            data: scope.record.data.to_owned(),
            location: details.map(|d| d.location()).unwrap_or_default(),
            depth,
            start_ns: scope.record.start_ns - frame_start,
            duration_ns: scope.record.duration_ns,
        });
        let children = puffin::Reader::with_offset(stream, scope.child_begin_position)?;
        read_scopes(stream, children, depth + 1, frame_start, scopes, out)?;
    }
    Ok(())
}

/// A GPU frame's passes on the frame's time line: the first pass starts
/// where the CPU encoded the frame, the rest keep their GPU spacing.
fn gpu_spans(gpu: &GpuFrame, frame_start: i64) -> impl Iterator<Item = Span> + '_ {
    let first = gpu.passes.iter().map(|p| p.start_ns).min().unwrap_or(0);
    gpu.passes.iter().map(move |pass| Span {
        name: pass.label.clone(),
        data: String::new(),
        location: String::new(),
        depth: 0,
        start_ns: gpu.encoded_ns - frame_start + (pass.start_ns - first),
        duration_ns: (pass.end_ns - pass.start_ns).max(0),
    })
}
