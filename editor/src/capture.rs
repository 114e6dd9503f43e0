//! Reading a rendered frame back from the GPU into an image (`--screenshot`).
//!
//! The frame is rendered a second time into an offscreen texture of the
//! surface's format (surface textures often can't be copied from), copied
//! into a buffer with rows padded to wgpu's 256-byte alignment, mapped, and
//! unpadded (and swizzled from BGRA where needed). The window's own swap
//! chain (double buffer) is left alone: the presented image is never read.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use image::RgbaImage;
use keel_engine::render::target_descriptor;

/// How long to wait for the GPU to finish the copy.
const WAIT: Duration = Duration::from_secs(30);

/// Why a frame could not be captured.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// The GPU did not finish (device lost, timeout).
    #[error("waiting for the GPU: {message}")]
    Gpu {
        /// What wgpu said.
        message: String,
    },
    /// The texture format is not 8-bit RGBA or BGRA.
    #[error("cannot read back a {format:?} texture")]
    Format {
        /// The format.
        format: wgpu::TextureFormat,
    },
    /// The PNG could not be written.
    #[error("{}: {message}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// What the encoder or the OS said.
        message: String,
    },
}

/// A texture to render a frame into for capture: the size and format of the window's surface.
pub fn capture_target(
    device: &wgpu::Device,
    size: [u32; 2],
    format: wgpu::TextureFormat,
) -> wgpu::Texture {
    device.create_texture(&target_descriptor(
        "keel-editor screenshot target",
        (size[0], size[1]),
        format,
        wgpu::TextureUsages::COPY_SRC,
    ))
}

/// Copies `texture` (8-bit RGBA or BGRA) into an image.
///
/// # Errors
/// [`CaptureError::Format`] for other formats, [`CaptureError::Gpu`] if the copy never finishes.
pub fn read_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
) -> Result<RgbaImage, CaptureError> {
    let format = texture.format();
    let bgra = match format {
        wgpu::TextureFormat::Rgba8Unorm | wgpu::TextureFormat::Rgba8UnormSrgb => false,
        wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb => true,
        other => return Err(CaptureError::Format { format: other }),
    };
    let (width, height) = (texture.width(), texture.height());
    let unpadded = width as usize * 4;
    let align = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT as usize;
    let padded = unpadded.div_ceil(align) * align;
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("keel-editor screenshot readback"),
        size: (padded * height as usize) as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("keel-editor screenshot copy"),
    });
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded as u32),
                rows_per_image: None,
            },
        },
        wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
    );
    let submission = queue.submit(std::iter::once(encoder.finish()));
    let slice = buffer.slice(..);
    let (sender, receiver) = mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| drop(sender.send(r)));
    device
        .poll(wgpu::PollType::Wait {
            submission_index: Some(submission),
            timeout: Some(WAIT),
        })
        .map_err(|e| CaptureError::Gpu {
            message: e.to_string(),
        })?;
    receiver
        .recv()
        .map_err(|e| CaptureError::Gpu {
            message: e.to_string(),
        })?
        .map_err(|e| CaptureError::Gpu {
            message: e.to_string(),
        })?;
    let mut pixels = Vec::with_capacity(unpadded * height as usize);
    {
        let data = slice.get_mapped_range().map_err(|e| CaptureError::Gpu {
            message: e.to_string(),
        })?;
        for row in data.chunks_exact(padded) {
            pixels.extend_from_slice(&row[..unpadded]);
        }
    }
    buffer.unmap();
    if bgra {
        for px in pixels.chunks_exact_mut(4) {
            px.swap(0, 2);
        }
    }
    RgbaImage::from_raw(width, height, pixels).ok_or(CaptureError::Gpu {
        message: "the copied frame has the wrong size".into(),
    })
}

/// Writes an image as PNG.
///
/// # Errors
/// [`CaptureError::Write`] naming the file.
pub fn save_png(image: &RgbaImage, path: &Path) -> Result<(), CaptureError> {
    image
        .save_with_format(path, image::ImageFormat::Png)
        .map_err(|e| CaptureError::Write {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
}
