//! Material images: decoded once each (per colour space) into RGBA8 with a
//! full mip chain. Colour images (base colour, emission) are filtered in
//! linear light so that downsized stripes and checkers keep their
//! brightness; data images (metallic-roughness, normals, occlusion) are
//! averaged as stored and sampled without the sRGB curve.

use std::collections::HashMap;

use super::GltfError;
use super::source::Sources;
use crate::assets::TextureData;

/// A glTF image as a material reads it: one texture each (an image used
/// both for colour and for data is decoded twice).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct ImageUse {
    /// Index of the image in the document.
    pub image: usize,
    /// Colour (sRGB-encoded, filtered in linear light) rather than data.
    pub srgb: bool,
}

/// The textures decoded so far, and which glTF image each one came from.
#[derive(Default)]
pub(super) struct TextureCache {
    by_image: HashMap<ImageUse, usize>,
    textures: Vec<TextureData>,
}

impl TextureCache {
    /// The index in [`ModelData::textures`](crate::assets::ModelData::textures)
    /// of the texture of `image`, decoding it on first use.
    pub fn get_or_decode(
        &mut self,
        image: ImageUse,
        path: &std::path::Path,
        document: &gltf::Document,
        sources: &Sources,
    ) -> Result<usize, GltfError> {
        if let Some(&texture) = self.by_image.get(&image) {
            return Ok(texture);
        }
        let texture = decode(image, path, document, sources)?;
        self.textures.push(texture);
        let index = self.textures.len() - 1;
        self.by_image.insert(image, index);
        Ok(index)
    }

    pub fn into_textures(self) -> Vec<TextureData> {
        self.textures
    }
}

fn decode(
    image: ImageUse,
    path: &std::path::Path,
    document: &gltf::Document,
    sources: &Sources,
) -> Result<TextureData, GltfError> {
    let ImageUse { image: index, srgb } = image;
    let json = &document.as_json().images[index];
    let external_uri = json.uri.as_deref().filter(|uri| !uri.starts_with("data:"));
    let label = json.name.as_deref().or(external_uri);
    let element = match label {
        Some(label) => format!("images[{index}] ({label})"),
        None => format!("images[{index}]"),
    };
    let bytes = sources.image_bytes(document, index, &element)?;
    let image = image::load_from_memory(&bytes)
        .map_err(|e| GltfError::Texture {
            path: path.to_path_buf(),
            element: element.clone(),
            message: e.to_string(),
        })?
        .into_rgba8();
    let (width, height) = image.dimensions();
    if width == 0 || height == 0 {
        return Err(GltfError::Texture {
            path: path.to_path_buf(),
            element,
            message: format!("expected a non-empty image, found {width} x {height}"),
        });
    }
    Ok(TextureData {
        name: label.map_or_else(|| format!("images[{index}]"), str::to_owned),
        width,
        height,
        mips: mip_chain_in(width, height, image.into_raw(), srgb),
        srgb,
    })
}

/// The mip chain of an sRGB RGBA8 image: `level0` (`4 * width * height`
/// bytes, rows top first) and then each level half the size of the one before
/// (rounded down, at least 1) down to 1 x 1.
///
/// Each texel is the average of its 2 x 2 block, computed in linear light
/// (sRGB decoded, averaged, encoded again; alpha averaged as is). Where a
/// level has an odd width or height, the last row or column folds into the
/// texels beside it, so no source texel is dropped.
///
/// Returns `level0` alone when `width` or `height` is zero or when its length
/// does not match them: there is nothing to filter.
#[must_use]
pub fn mip_chain(width: u32, height: u32, level0: Vec<u8>) -> Vec<Vec<u8>> {
    mip_chain_in(width, height, level0, true)
}

/// [`mip_chain`] for colour (`srgb`: RGB averaged as linear light) or data
/// (normals, roughness, occlusion: every channel averaged as stored).
pub fn mip_chain_in(width: u32, height: u32, level0: Vec<u8>, srgb: bool) -> Vec<Vec<u8>> {
    let consistent =
        width > 0 && height > 0 && level0.len() == 4 * width as usize * height as usize;
    let mut mips = vec![level0];
    if !consistent {
        return mips;
    }
    let encoding = Encoding::new(srgb);
    let (mut w, mut h) = (width as usize, height as usize);
    while w > 1 || h > 1 {
        let next = downsample(&mips[mips.len() - 1], w, h, &encoding);
        (w, h) = ((w / 2).max(1), (h / 2).max(1));
        mips.push(next);
    }
    mips
}

/// How a level's colour channels are stored, and so averaged: sRGB-encoded
/// (decoded to linear light first, the average encoded again) or as is.
struct Encoding {
    srgb: bool,
    /// Each byte's value as averaged.
    to_linear: [f32; 256],
}

impl Encoding {
    fn new(srgb: bool) -> Self {
        let to_linear = std::array::from_fn(|i| {
            let v = i as f32 / 255.0;
            if srgb { srgb_to_linear(v) } else { v }
        });
        Self { srgb, to_linear }
    }
}

/// One mip step of an RGBA8 level of `w` x `h`, its colour stored in `encoding`.
fn downsample(src: &[u8], w: usize, h: usize, encoding: &Encoding) -> Vec<u8> {
    let Encoding { srgb, to_linear } = encoding;
    let encode = |v: f32| if *srgb { linear_to_srgb8(v) } else { unorm8(v) };
    let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
    let mut dst = Vec::with_capacity(4 * nw * nh);
    for y in 0..nh {
        let rows = footprint(y, nh, h);
        for x in 0..nw {
            let columns = footprint(x, nw, w);
            let mut sum = [0.0_f32; 4];
            for sy in rows.clone() {
                for sx in columns.clone() {
                    let texel = &src[4 * (sy * w + sx)..][..4];
                    for c in 0..3 {
                        sum[c] += to_linear[usize::from(texel[c])];
                    }
                    sum[3] += f32::from(texel[3]) / 255.0;
                }
            }
            let n = (rows.len() * columns.len()) as f32;
            dst.extend([
                encode(sum[0] / n),
                encode(sum[1] / n),
                encode(sum[2] / n),
                unorm8(sum[3] / n),
            ]);
        }
    }
    dst
}

/// The source rows (or columns) that destination row `i` of `n` covers in a
/// level of `size`: two, or three for the last one when `size` is odd.
fn footprint(i: usize, n: usize, size: usize) -> std::ops::Range<usize> {
    let start = (2 * i).min(size - 1);
    let end = if i + 1 == n { size } else { 2 * i + 2 };
    start..end
}

/// An sRGB-encoded channel in `0..=1` to linear light (the piecewise sRGB transfer function).
#[must_use]
pub fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        crate::math::powf((c + 0.055) / 1.055, 2.4)
    }
}

fn linear_to_srgb8(c: f32) -> u8 {
    let encoded = if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * crate::math::powf(c, 1.0 / 2.4) - 0.055
    };
    unorm8(encoded)
}

fn unorm8(c: f32) -> u8 {
    // In range after the clamp, so the cast only drops the fraction.
    (c.clamp(0.0, 1.0) * 255.0).round() as u8
}
