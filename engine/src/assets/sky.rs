//! Sky images: equirectangular Radiance HDR files (`.hdr`) the environment
//! lights a scene with (image-based lighting) and shows behind it. Loaded
//! once per file and kept in the [`Assets`] beside the registry; a
//! [`SkyHandle`] names one (4 bytes, `Copy`, what frames carry).
//!
//! Pattern: flyweight: every scene naming the same file shares one image.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use super::Assets;
use crate::files::{self, FileKind};

/// Widest sky kept: wider images are halved (box-filtered) down to it. The
/// lighting is baked from a 128-texel cube and the background rarely needs more.
pub const MAX_SKY_WIDTH: u32 = 2048;

/// A sky as an equirectangular image of linear RGB: u is the longitude (0.5
/// looks along -Z, +X to its right), v the latitude (0 straight up).
#[derive(Clone, Debug, PartialEq)]
pub struct SkyImage {
    /// Texels across.
    pub width: u32,
    /// Texels down.
    pub height: u32,
    /// Linear RGB, row by row from the top.
    pub pixels: Vec<[f32; 3]>,
}

impl SkyImage {
    /// The sky/ground hemisphere at unit strength: 1 straight up, falling
    /// linearly with height to `ground` straight down.
    #[must_use]
    pub fn hemisphere(ground: f32) -> Self {
        let height = 64;
        let pixels = (0..height)
            .flat_map(|row| {
                let latitude = (row as f32 + 0.5) / height as f32 * std::f32::consts::PI;
                let up = crate::math::cos(latitude) * 0.5 + 0.5;
                [[ground + (1.0 - ground) * up; 3]; 4]
            })
            .collect();
        Self {
            width: 4,
            height,
            pixels,
        }
    }

    /// Whether its pixels fill its size.
    #[must_use]
    pub fn is_whole(&self) -> bool {
        self.width > 0
            && self.height > 0
            && self.pixels.len() == self.width as usize * self.height as usize
    }

    /// Half the size, each texel the mean of the 2 x 2 it covers (an odd last
    /// row or column is dropped).
    fn halved(&self) -> Self {
        let (width, height) = ((self.width / 2).max(1), (self.height / 2).max(1));
        let at = |x: u32, y: u32| {
            let (x, y) = (x.min(self.width - 1), y.min(self.height - 1));
            self.pixels[(y * self.width + x) as usize]
        };
        let mut pixels = Vec::with_capacity((width * height) as usize);
        for y in 0..height {
            for x in 0..width {
                let texels = [
                    at(2 * x, 2 * y),
                    at(2 * x + 1, 2 * y),
                    at(2 * x, 2 * y + 1),
                    at(2 * x + 1, 2 * y + 1),
                ];
                pixels.push([0, 1, 2].map(|c| texels.iter().map(|t| t[c]).sum::<f32>() / 4.0));
            }
        }
        Self {
            width,
            height,
            pixels,
        }
    }
}

/// A loaded sky.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SkyHandle(u32);

/// Why a sky file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum SkyError {
    /// The file could not be read.
    #[error("{}: cannot read the sky image: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the file system said.
        source: std::io::Error,
    },
    /// Not a Radiance HDR image.
    #[error("{}: not a Radiance HDR (.hdr) image: {message}", path.display())]
    Decode {
        /// The file.
        path: PathBuf,
        /// What the decoder said.
        message: String,
    },
}

#[derive(Debug)]
struct Loaded {
    path: PathBuf,
    modified: Option<SystemTime>,
    image: Arc<SkyImage>,
}

/// The sky images one [`Assets`] has loaded, newest last.
#[derive(Debug, Default)]
pub(super) struct Skies(Vec<Loaded>);

impl Skies {
    fn push(&mut self, path: PathBuf, modified: Option<SystemTime>, image: SkyImage) -> SkyHandle {
        self.0.push(Loaded {
            path,
            modified,
            image: Arc::new(image),
        });
        SkyHandle((self.0.len() - 1) as u32)
    }

    fn find(&self, path: &Path, modified: Option<SystemTime>) -> Option<SkyHandle> {
        self.0
            .iter()
            .rposition(|s| s.path == path && s.modified == modified)
            .map(|i| SkyHandle(i as u32))
    }
}

impl Assets {
    /// Loads the sky image at `path` (once per file and modification time).
    ///
    /// # Errors
    /// [`SkyError`] naming the file when it cannot be read or decoded.
    pub fn load_sky(&self, path: &Path) -> Result<SkyHandle, SkyError> {
        self.load_canonical_sky(path).map(|(handle, _)| handle)
    }

    /// Loads the sky a scene file at `scene_file` names as `written` (a
    /// relative path is taken from the scene file's folder, as model paths
    /// are; from the working folder for a scene not saved yet) and returns
    /// the canonical path a scene's environment holds, which
    /// [`Assets::loaded_sky`] finds.
    ///
    /// # Errors
    /// As [`Assets::load_sky`].
    pub fn load_scene_sky(
        &self,
        scene_file: Option<&Path>,
        written: &Path,
    ) -> Result<PathBuf, SkyError> {
        let path = match scene_file {
            Some(file) => files::resolve_written_path(file, &written.to_string_lossy()),
            None => written.to_path_buf(),
        };
        self.load_canonical_sky(&path).map(|(_, path)| path)
    }

    fn load_canonical_sky(&self, path: &Path) -> Result<(SkyHandle, PathBuf), SkyError> {
        let path = self
            .limits()
            .source
            .canonicalize(path)
            .unwrap_or_else(|_| path.to_path_buf());
        let modified = self.limits().source.stamp(&path).map(|(time, _)| time);
        if let Some(handle) = self.skies().find(&path, modified) {
            return Ok((handle, path));
        }
        let bytes =
            files::read(&path, FileKind::Image, self.limits()).map_err(|source| SkyError::Io {
                path: path.clone(),
                source,
            })?;
        let image = decode(&bytes).map_err(|message| SkyError::Decode {
            path: path.clone(),
            message,
        })?;
        let handle = self.skies_mut().push(path.clone(), modified, image);
        Ok((handle, path))
    }

    /// Stores a sky made in memory (tests, tools).
    pub fn add_sky(&self, image: SkyImage) -> SkyHandle {
        self.skies_mut().push(PathBuf::new(), None, image)
    }

    /// The newest load of the file at `path` (canonical, as
    /// [`Assets::load_sky`] and scenes hold it), if any: what extraction
    /// hands the renderer each frame. Never reads the disk, never allocates.
    #[must_use]
    pub fn loaded_sky(&self, path: &Path) -> Option<SkyHandle> {
        self.skies()
            .0
            .iter()
            .rposition(|s| s.path == path)
            .map(|i| SkyHandle(i as u32))
    }

    /// The image behind `handle`.
    #[must_use]
    pub fn sky(&self, handle: SkyHandle) -> Option<Arc<SkyImage>> {
        let skies = self.skies();
        skies.0.get(handle.0 as usize).map(|s| Arc::clone(&s.image))
    }
}

/// Decodes a Radiance HDR image, clamping what is not a finite, positive
/// radiance and halving it until it is at most [`MAX_SKY_WIDTH`] wide.
fn decode(bytes: &[u8]) -> Result<SkyImage, String> {
    let decoded = image::load_from_memory_with_format(bytes, image::ImageFormat::Hdr)
        .map_err(|error| error.to_string())?
        .to_rgb32f();
    let (width, height) = decoded.dimensions();
    let pixels = decoded
        .pixels()
        .map(|p| p.0.map(|c| if c.is_finite() { c.max(0.0) } else { 0.0 }))
        .collect();
    let mut image = SkyImage {
        width,
        height,
        pixels,
    };
    while image.width > MAX_SKY_WIDTH {
        image = image.halved();
    }
    Ok(image)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halving_averages_two_by_two() {
        let image = SkyImage {
            width: 4,
            height: 2,
            pixels: (0..8).map(|i| [i as f32; 3]).collect(),
        };
        let half = image.halved();
        assert_eq!((half.width, half.height), (2, 1));
        // (0 + 1 + 4 + 5) / 4 and (2 + 3 + 6 + 7) / 4.
        assert_eq!(half.pixels, [[2.5; 3], [4.5; 3]]);
    }

    #[test]
    fn bad_files_are_errors_naming_them() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.hdr");
        let assets = Assets::new();
        let error = assets.load_sky(&missing).unwrap_err().to_string();
        assert!(error.contains("missing.hdr"), "{error}");
        let garbage = dir.path().join("garbage.hdr");
        std::fs::write(&garbage, b"#?RADIANCE\nnot really\n").unwrap();
        let error = assets.load_sky(&garbage).unwrap_err().to_string();
        assert!(
            error.contains("garbage.hdr") && error.contains("Radiance"),
            "{error}"
        );
    }

    #[test]
    fn a_written_sky_loads_once_and_wide_ones_are_halved() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("wide.hdr");
        let (width, height) = (4 * MAX_SKY_WIDTH as usize, 8);
        let pixels: Vec<image::Rgb<f32>> = (0..width * height)
            .map(|i| image::Rgb([(i % width) as f32, 0.5, 2.0]))
            .collect();
        let file = std::fs::File::create(&path).unwrap();
        image::codecs::hdr::HdrEncoder::new(file)
            .encode(&pixels, width, height)
            .unwrap();
        let assets = Assets::new();
        let handle = assets.load_sky(&path).expect("loads");
        assert_eq!(assets.load_sky(&path).unwrap(), handle, "cached");
        assert_eq!(
            assets.loaded_sky(&path.canonicalize().unwrap()),
            Some(handle)
        );
        assert_eq!(
            Assets::new().loaded_sky(&path.canonicalize().unwrap()),
            None,
            "another store's"
        );
        let image = assets.sky(handle).unwrap();
        assert_eq!((image.width, image.height), (MAX_SKY_WIDTH, 2));
        assert!(
            (image.pixels[0][2] - 2.0).abs() < 0.02,
            "{:?}",
            image.pixels[0]
        );
    }
}
