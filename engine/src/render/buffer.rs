//! A GPU buffer that grows by doubling, for per-frame data of varying size.
//!
//! Pattern: object pool, applied to GPU memory: the buffer is allocated once and
//! reused every frame; when full it grows (to a power of two, so a slowly
//! growing scene reallocates O(log n) times) and never shrinks.

/// Smallest allocation: avoids a string of tiny reallocations in the first frames.
const MIN_CAPACITY: u64 = 4096;

/// A reusable buffer rewritten from offset 0 each frame.
#[derive(Debug)]
pub(crate) struct GrowableBuffer {
    label: &'static str,
    usage: wgpu::BufferUsages,
    buffer: wgpu::Buffer,
    capacity: u64,
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
        let capacity = grown_capacity(0, capacity);
        Self {
            label,
            usage,
            buffer: create(device, label, usage, capacity),
            capacity,
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
    pub(crate) fn write_parts(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        parts: &[&[u8]],
    ) -> bool {
        let needed: u64 = parts.iter().map(|p| p.len() as u64).sum();
        let grew = needed > self.capacity;
        if grew {
            self.capacity = grown_capacity(self.capacity, needed);
            self.buffer = create(device, self.label, self.usage, self.capacity);
        }
        let mut offset = 0;
        for bytes in parts.iter().filter(|p| !p.is_empty()) {
            // Every element type uploaded here is made of 4-byte scalars, so the
            // copy alignment wgpu requires always holds.
            debug_assert_eq!(bytes.len() as u64 % wgpu::COPY_BUFFER_ALIGNMENT, 0);
            queue.write_buffer(&self.buffer, offset, bytes);
            offset += bytes.len() as u64;
        }
        grew
    }

    /// The current buffer.
    pub(crate) fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }
}

/// Capacity for `needed` bytes: at least double the current one, a power of two,
/// and never below [`MIN_CAPACITY`].
fn grown_capacity(current: u64, needed: u64) -> u64 {
    needed
        .max(current.saturating_mul(2))
        .max(MIN_CAPACITY)
        .next_power_of_two()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_doubles_and_covers_the_request() {
        assert_eq!(grown_capacity(0, 1), MIN_CAPACITY);
        assert_eq!(
            grown_capacity(MIN_CAPACITY, MIN_CAPACITY + 1),
            MIN_CAPACITY * 2
        );
        for (current, needed) in [(4096, 5000), (8192, 100_000), (1 << 20, (1 << 20) + 4)] {
            let grown = grown_capacity(current, needed);
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
                capacity = grown_capacity(capacity, needed);
                reallocations += 1;
            }
        }
        assert!(reallocations <= 6, "{reallocations} reallocations");
    }
}
