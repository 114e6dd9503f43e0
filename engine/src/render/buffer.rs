//! A GPU buffer that grows by doubling, for per-frame data of varying size,
//! and the layout entry through which a vertex stage reads one as storage.
//!
//! Pattern: object pool, applied to GPU memory: the buffer is allocated once and
//! reused every frame; when full it grows (to a power of two, so a slowly
//! growing scene reallocates O(log n) times) and never shrinks.
//!
//! It never asks the device for more than its limits allow (`max_buffer_size`,
//! and for a storage buffer `max_storage_buffer_binding_size`, since passes
//! bind it whole): bytes past that are not uploaded, with a warning, and the
//! pass that wrote them clamps what it draws to [`GrowableBuffer::max_bytes`].

/// Smallest allocation: avoids a string of tiny reallocations in the first frames.
const MIN_CAPACITY: u64 = 4096;

/// A reusable buffer rewritten from offset 0 each frame.
#[derive(Debug)]
pub(crate) struct GrowableBuffer {
    label: &'static str,
    usage: wgpu::BufferUsages,
    buffer: wgpu::Buffer,
    capacity: u64,
    /// The largest buffer the device allows for this usage.
    max: u64,
    /// Whether an upload was cut short (warned once).
    warned: bool,
}

impl GrowableBuffer {
    /// Creates the buffer with room for at least `capacity` bytes.
    pub(crate) fn new(
        device: &wgpu::Device,
        label: &'static str,
        usage: wgpu::BufferUsages,
        capacity: u64,
    ) -> Self {
        let usage = usage | wgpu::BufferUsages::COPY_DST;
        let max = max_size(&device.limits(), usage);
        let capacity = grown_capacity(0, capacity, max);
        Self {
            label,
            usage,
            buffer: create(device, label, usage, capacity),
            capacity,
            max,
            warned: false,
        }
    }

    /// Uploads `bytes` at offset 0, reallocating first when they do not fit.
    /// Returns whether the buffer was reallocated (bind groups would need rebuilding).
    pub(crate) fn write(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        bytes: &[u8],
    ) -> bool {
        self.write_parts(device, queue, &[bytes])
    }

    /// Uploads `parts` one after another from offset 0, as [`GrowableBuffer::write`].
    /// Bytes past [`GrowableBuffer::max_bytes`] are left out (warned once).
    pub(crate) fn write_parts(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        parts: &[&[u8]],
    ) -> bool {
        let needed: u64 = parts.iter().map(|p| p.len() as u64).sum();
        if needed > self.max && !self.warned {
            self.warned = true;
            log::warn!(
                "{}: {needed} bytes are more than the device allows in one buffer ({}); the rest is not drawn",
                self.label,
                self.max
            );
        }
        let grew = needed > self.capacity && self.capacity < self.max;
        if grew {
            self.capacity = grown_capacity(self.capacity, needed, self.max);
            self.buffer = create(device, self.label, self.usage, self.capacity);
        }
        let mut offset = 0;
        for bytes in parts.iter().filter(|p| !p.is_empty()) {
            // Every element type uploaded here is made of 4-byte scalars, so the
            // copy alignment wgpu requires always holds.
            debug_assert_eq!(bytes.len() as u64 % wgpu::COPY_BUFFER_ALIGNMENT, 0);
            let room = self.capacity.saturating_sub(offset);
            let take = (bytes.len() as u64).min(room) & !(wgpu::COPY_BUFFER_ALIGNMENT - 1);
            if take == 0 {
                break;
            }
            queue.write_buffer(&self.buffer, offset, &bytes[..take as usize]);
            offset += take;
        }
        grew
    }

    /// Makes room for `needed` bytes without uploading: true when the buffer
    /// was reallocated (its contents are then gone, and bind groups stale).
    pub(crate) fn reserve(&mut self, device: &wgpu::Device, needed: u64) -> bool {
        let grew = needed > self.capacity && self.capacity < self.max;
        if grew {
            self.capacity = grown_capacity(self.capacity, needed, self.max);
            self.buffer = create(device, self.label, self.usage, self.capacity);
        }
        grew
    }

    /// The most bytes the buffer can ever hold on this device.
    pub(crate) fn max_bytes(&self) -> u64 {
        self.max
    }

    /// The current buffer.
    pub(crate) fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }
}

/// Capacity for `needed` bytes: at least double the current one, a power of two,
/// and never below [`MIN_CAPACITY`]; but never above `max`.
fn grown_capacity(current: u64, needed: u64, max: u64) -> u64 {
    needed
        .max(current.saturating_mul(2))
        .max(MIN_CAPACITY)
        .checked_next_power_of_two()
        .unwrap_or(u64::MAX)
        .min(max & !(wgpu::COPY_BUFFER_ALIGNMENT - 1))
}

/// The largest buffer of `usage` the device allows: storage buffers are bound
/// whole, so their binding limit counts too.
fn max_size(limits: &wgpu::Limits, usage: wgpu::BufferUsages) -> u64 {
    let mut max = limits.max_buffer_size;
    if usage.contains(wgpu::BufferUsages::STORAGE) {
        max = max.min(limits.max_storage_buffer_binding_size);
    }
    if usage.contains(wgpu::BufferUsages::UNIFORM) {
        max = max.min(limits.max_uniform_buffer_binding_size);
    }
    max
}

fn create(
    device: &wgpu::Device,
    label: &str,
    usage: wgpu::BufferUsages,
    size: u64,
) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage,
        mapped_at_creation: false,
    })
}

/// A read-only storage buffer the vertex shader reads at `binding` (how
/// the passes bind their growable storage buffers, whole).
pub(super) fn vertex_storage(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_doubles_and_covers_the_request() {
        assert_eq!(grown_capacity(0, 1, u64::MAX), MIN_CAPACITY);
        assert_eq!(
            grown_capacity(MIN_CAPACITY, MIN_CAPACITY + 1, u64::MAX),
            MIN_CAPACITY * 2
        );
        for (current, needed) in [(4096, 5000), (8192, 100_000), (1 << 20, (1 << 20) + 4)] {
            let grown = grown_capacity(current, needed, u64::MAX);
            assert!(
                grown >= needed && grown >= current * 2 && grown.is_power_of_two(),
                "{current} {needed} -> {grown}"
            );
        }
    }

    #[test]
    fn reallocations_are_logarithmic_in_the_final_size() {
        let mut capacity = 0;
        let mut reallocations = 0;
        for needed in (0..100_000u64).step_by(100) {
            if needed > capacity {
                capacity = grown_capacity(capacity, needed, u64::MAX);
                reallocations += 1;
            }
        }
        assert!(reallocations <= 6, "{reallocations} reallocations");
    }

    #[test]
    fn capacity_never_passes_the_device_limit() {
        let max = 256 << 20;
        assert_eq!(grown_capacity(0, 512 << 20, max), max, "a 512 MB request");
        assert_eq!(grown_capacity(200 << 20, (200 << 20) + 4, max), max);
        assert_eq!(grown_capacity(0, u64::MAX, u64::MAX), !3_u64, "no overflow");
        let limits = wgpu::Limits::downlevel_defaults();
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        assert_eq!(
            max_size(&limits, storage),
            limits.max_storage_buffer_binding_size
        );
        assert_eq!(
            max_size(&limits, wgpu::BufferUsages::VERTEX),
            limits.max_buffer_size
        );
    }
}
