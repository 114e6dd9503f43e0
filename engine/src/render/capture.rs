//! Offscreen capture: a colour texture the renderer draws into when there is no
//! window, and the buffer its pixels are copied to and read back from.
//!
//! Pattern: object pool, for one object: the texture and readback buffer are
//! kept and reused while the capture size stays the same (golden tests and
//! thumbnails render many frames of one size).

use image::RgbaImage;

use super::RenderError;

/// Rows copied out of a texture must start on this many bytes.
const ROW_ALIGNMENT: u32 = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;

/// Bytes per row of a `width`-pixel RGBA8 image, padded for a texture copy.
pub(crate) fn padded_bytes_per_row(width: u32) -> u32 {
    (width * 4).div_ceil(ROW_ALIGNMENT) * ROW_ALIGNMENT
}

/// Drops the per-row padding of a texture copy, and swaps blue and red when the
/// texture was BGRA.
pub(crate) fn unpad_rows(padded: &[u8], width: u32, height: u32, bgra: bool) -> Vec<u8> {
    let row_bytes = (width * 4) as usize;
    let stride = padded_bytes_per_row(width) as usize;
    let mut pixels = Vec::with_capacity(row_bytes * height as usize);
    for row in padded.chunks(stride).take(height as usize) {
        pixels.extend_from_slice(&row[..row_bytes]);
    }
    if bgra {
        for pixel in pixels.chunks_exact_mut(4) {
            pixel.swap(0, 2);
        }
    }
    pixels
}

/// Whether captures can read `format` back as 8-bit RGBA, and whether it needs
/// its red and blue swapped.
pub(crate) fn capture_layout(format: wgpu::TextureFormat) -> Result<bool, RenderError> {
    match format {
        wgpu::TextureFormat::Rgba8UnormSrgb | wgpu::TextureFormat::Rgba8Unorm => Ok(false),
        wgpu::TextureFormat::Bgra8UnormSrgb | wgpu::TextureFormat::Bgra8Unorm => Ok(true),
        other => Err(RenderError::UnsupportedCaptureFormat {
            format: format!("{other:?}"),
        }),
    }
}

/// The offscreen texture and its readback buffer, for one size.
#[derive(Debug)]
pub(crate) struct CaptureTarget {
    size: (u32, u32),
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    readback: wgpu::Buffer,
}

impl CaptureTarget {
    /// Creates a target of `size` in `format` (one of those [`capture_layout`] accepts).
    pub(crate) fn new(
        device: &wgpu::Device,
        size: (u32, u32),
        format: wgpu::TextureFormat,
    ) -> Self {
        let texture = device.create_texture(&super::targets::target_descriptor(
            "capture: colour",
            size,
            format,
            wgpu::TextureUsages::COPY_SRC,
        ));
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("capture: colour view"),
            ..wgpu::TextureViewDescriptor::default()
        });
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("capture: readback"),
            size: u64::from(padded_bytes_per_row(size.0)) * u64::from(size.1),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        Self {
            size,
            texture,
            view,
            readback,
        }
    }

    /// The size this target was made for.
    pub(crate) fn size(&self) -> (u32, u32) {
        self.size
    }

    /// The view to render into.
    pub(crate) fn view(&self) -> &wgpu::TextureView {
        &self.view
    }

    /// Records the copy of the rendered texture into the readback buffer.
    pub(crate) fn copy_to_buffer(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.copy_texture_to_buffer(
            self.texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &self.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded_bytes_per_row(self.size.0)),
                    rows_per_image: Some(self.size.1),
                },
            },
            wgpu::Extent3d {
                width: self.size.0,
                height: self.size.1,
                depth_or_array_layers: 1,
            },
        );
    }

    /// Maps the readback buffer after the copy was submitted, waits for it and
    /// returns the image.
    ///
    /// # Errors
    ///
    /// [`RenderError::Readback`] when the device cannot be polled or the buffer
    /// cannot be mapped (typically a lost device).
    pub(crate) fn read(&self, device: &wgpu::Device, bgra: bool) -> Result<RgbaImage, RenderError> {
        let slice = self.readback.slice(..);
        let (sender, receiver) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |result| {
            // The receiver only disappears if `read` already returned with an error.
            let _ = sender.send(result);
        });
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|error| RenderError::Readback {
                reason: format!("waiting for the GPU failed: {error}"),
            })?;
        receiver
            .recv()
            .map_err(|_| RenderError::Readback {
                reason: "the map callback never ran".to_owned(),
            })?
            .map_err(|error| RenderError::Readback {
                reason: format!("mapping the readback buffer failed: {error}"),
            })?;
        let pixels = {
            let mapped = slice
                .get_mapped_range()
                .map_err(|error| RenderError::Readback {
                    reason: format!("reading the mapped buffer failed: {error}"),
                })?;
            unpad_rows(&mapped, self.size.0, self.size.1, bgra)
        };
        self.readback.unmap();
        RgbaImage::from_raw(self.size.0, self.size.1, pixels).ok_or(RenderError::Readback {
            reason: "readback size does not match the image".to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_padded_to_the_copy_alignment() {
        for width in [1, 63, 64, 65, 256, 1000] {
            let padded = padded_bytes_per_row(width);
            assert_eq!(padded % ROW_ALIGNMENT, 0);
            assert!(
                padded >= width * 4 && padded < width * 4 + ROW_ALIGNMENT,
                "{width}: {padded}"
            );
        }
    }

    #[test]
    fn unpadding_keeps_each_row_and_drops_the_rest() {
        let (width, height) = (3u32, 2u32);
        let stride = padded_bytes_per_row(width) as usize;
        let mut padded = vec![0xEE; stride * height as usize];
        let mut expected = Vec::new();
        for y in 0..height as usize {
            for x in 0..(width * 4) as usize {
                let value = (y * 100 + x) as u8;
                padded[y * stride + x] = value;
                expected.push(value);
            }
        }
        assert_eq!(unpad_rows(&padded, width, height, false), expected);
        let swapped = unpad_rows(&padded, width, height, true);
        assert_eq!(swapped[0], expected[2]);
        assert_eq!(swapped[2], expected[0]);
        assert_eq!(swapped[1], expected[1]);
        assert_eq!(swapped[3], expected[3]);
    }

    #[test]
    fn only_eight_bit_rgba_layouts_can_be_captured() {
        assert!(!capture_layout(wgpu::TextureFormat::Rgba8UnormSrgb).unwrap());
        assert!(capture_layout(wgpu::TextureFormat::Bgra8UnormSrgb).unwrap());
        let error = capture_layout(wgpu::TextureFormat::Rgba16Float).unwrap_err();
        assert!(error.to_string().contains("Rgba16Float"), "{error}");
    }
}
