//! glTF materials to [`ModelMaterial`]s: metallic-roughness factors, the five
//! textures with how each is read (its sampler, its texture coordinate set,
//! `KHR_texture_transform`), emission strength, alpha mode and sidedness.

use gltf::json::Value;
use gltf::texture::{MagFilter, MinFilter, WrappingMode};

use super::texture::{ImageUse, TextureCache};
use super::{GltfError, Importer};
use crate::assets::{
    AlphaMode, ModelMaterial, SLOTS, Sampling, Slot, TextureFilter, TextureSlot, UvTransform, Wrap,
};

/// `KHR_texture_transform` read from a texture reference: the transform and
/// the coordinate set it may override, or what is wrong with it.
type Transform = Result<(UvTransform, Option<u32>), String>;

/// One texture reference of a material, as the file gives it.
struct Reference<'a> {
    texture: gltf::Texture<'a>,
    tex_coord: u32,
    transform: Option<Transform>,
}

impl Importer<'_> {
    pub(super) fn material<'a>(
        &mut self,
        material: &gltf::Material<'a>,
        textures: &mut TextureCache,
    ) -> Result<ModelMaterial, GltfError> {
        let element = format!("materials[{}]", material.index().unwrap_or_default());
        let pbr = material.pbr_metallic_roughness();
        let info = |i: gltf::texture::Info<'a>| Reference {
            tex_coord: i.tex_coord(),
            transform: i.texture_transform().map(|t| {
                let transform = UvTransform {
                    offset: t.offset().into(),
                    rotation: t.rotation(),
                    scale: t.scale().into(),
                };
                let finite = transform.offset.is_finite()
                    && transform.rotation.is_finite()
                    && transform.scale.is_finite();
                if finite {
                    Ok((transform, t.tex_coord()))
                } else {
                    Err(format!("expected finite numbers, found {transform:?}"))
                }
            }),
            texture: i.texture(),
        };
        let normal = material.normal_texture();
        let occlusion = material.occlusion_texture();
        let references = [
            (
                pbr.base_color_texture().map(info),
                "pbrMetallicRoughness.baseColorTexture",
            ),
            (
                pbr.metallic_roughness_texture().map(info),
                "pbrMetallicRoughness.metallicRoughnessTexture",
            ),
            (
                normal.as_ref().map(|n| Reference {
                    tex_coord: n.tex_coord(),
                    transform: n
                        .extension_value("KHR_texture_transform")
                        .map(parse_transform),
                    texture: n.texture(),
                }),
                "normalTexture",
            ),
            (
                occlusion.as_ref().map(|o| Reference {
                    tex_coord: o.tex_coord(),
                    transform: o
                        .extension_value("KHR_texture_transform")
                        .map(parse_transform),
                    texture: o.texture(),
                }),
                "occlusionTexture",
            ),
            (material.emissive_texture().map(info), "emissiveTexture"),
        ];
        let mut found = [None; SLOTS];
        let mut slots = [TextureSlot::default(); SLOTS];
        for (slot, (reference, name)) in references.into_iter().enumerate() {
            let Some(reference) = reference else { continue };
            let srgb = slot == Slot::BaseColor as usize || slot == Slot::Emissive as usize;
            let image = reference.texture.source().index();
            found[slot] = Some(textures.get_or_decode(
                ImageUse { image, srgb },
                self.path,
                self.document,
                &self.sources,
            )?);
            slots[slot] = self.slot(&reference, &format!("{element}.{name}"));
        }
        let [base, metal_rough, normal_image, occlusion_image, emissive] = found;
        Ok(ModelMaterial {
            name: material.name().unwrap_or_default().to_owned(),
            base_color: pbr.base_color_factor().into(),
            base_color_texture: base,
            metallic: pbr.metallic_factor(),
            roughness: pbr.roughness_factor(),
            emissive: glam::Vec3::from(material.emissive_factor())
                * material.emissive_strength().unwrap_or(1.0),
            alpha_mode: match material.alpha_mode() {
                gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
                gltf::material::AlphaMode::Mask => AlphaMode::Mask {
                    cutoff: material.alpha_cutoff().unwrap_or(0.5).clamp(0.0, 1.0),
                },
                gltf::material::AlphaMode::Blend => AlphaMode::Blend,
            },
            double_sided: material.double_sided(),
            metal_rough_texture: metal_rough,
            normal_texture: normal_image
                .zip(normal.map(|i| i.scale()))
                .filter(|(_, scale)| scale.is_finite()),
            occlusion_texture: occlusion_image.zip(occlusion.map(|i| i.strength().clamp(0.0, 1.0))),
            emissive_texture: emissive,
            slots,
        })
    }

    /// How `reference` is read: its sampler, coordinate set and transform.
    /// What the engine cannot do is warned about and read the nearest way.
    fn slot(&mut self, reference: &Reference<'_>, element: &str) -> TextureSlot {
        let transform = reference.transform.clone().map(|parsed| {
            parsed.unwrap_or_else(|problem| {
                self.warn(
                    format!("{element}.extensions.KHR_texture_transform"),
                    format!("{problem}; the texture is drawn untransformed"),
                );
                (UvTransform::default(), None)
            })
        });
        let (transform, coordinate_override) = transform.unwrap_or_default();
        let mut tex_coord = coordinate_override.unwrap_or(reference.tex_coord);
        if tex_coord > 1 {
            self.warn(
                format!("{element}.texCoord"),
                format!("TEXCOORD_{tex_coord} is not imported (TEXCOORD_0 and TEXCOORD_1 are); read with TEXCOORD_0"),
            );
            tex_coord = 0;
        }
        TextureSlot {
            sampling: sampling(&reference.texture.sampler()),
            tex_coord: tex_coord as u8,
            transform,
        }
    }
}

/// A glTF sampler as the renderer's; unspecified filters are trilinear.
fn sampling(sampler: &gltf::texture::Sampler<'_>) -> Sampling {
    let wrap = |mode| match mode {
        WrappingMode::Repeat => Wrap::Repeat,
        WrappingMode::MirroredRepeat => Wrap::MirroredRepeat,
        WrappingMode::ClampToEdge => Wrap::ClampToEdge,
    };
    let (min, mipmap) = match sampler.min_filter() {
        None | Some(MinFilter::LinearMipmapLinear) => {
            (TextureFilter::Linear, Some(TextureFilter::Linear))
        }
        Some(MinFilter::Linear) => (TextureFilter::Linear, None),
        Some(MinFilter::Nearest) => (TextureFilter::Nearest, None),
        Some(MinFilter::NearestMipmapNearest) => {
            (TextureFilter::Nearest, Some(TextureFilter::Nearest))
        }
        Some(MinFilter::LinearMipmapNearest) => {
            (TextureFilter::Linear, Some(TextureFilter::Nearest))
        }
        Some(MinFilter::NearestMipmapLinear) => {
            (TextureFilter::Nearest, Some(TextureFilter::Linear))
        }
    };
    Sampling {
        wrap_u: wrap(sampler.wrap_s()),
        wrap_v: wrap(sampler.wrap_t()),
        mag: match sampler.mag_filter() {
            Some(MagFilter::Nearest) => TextureFilter::Nearest,
            None | Some(MagFilter::Linear) => TextureFilter::Linear,
        },
        min,
        mipmap,
    }
}

/// `KHR_texture_transform`'s object: offset, rotation, scale, and the
/// texture coordinate set it may override. Every value must be a finite number.
/// (The gltf crate reads the extension typed on `textureInfo`s; on normal and
/// occlusion textures it hands over the JSON.)
fn parse_transform(value: &Value) -> Transform {
    let Value::Object(fields) = value else {
        return Err("expected an object".into());
    };
    let number = |name: &str, default: f32| -> Result<f32, String> {
        match fields.get(name) {
            None => Ok(default),
            Some(v) => v
                .as_f64()
                .map(|n| n as f32)
                .filter(|n| n.is_finite())
                .ok_or_else(|| format!("{name}: expected a finite number, found {v}")),
        }
    };
    let pair = |name: &str, default: f32| -> Result<glam::Vec2, String> {
        match fields.get(name) {
            None => Ok(glam::Vec2::splat(default)),
            Some(Value::Array(items)) if items.len() == 2 => {
                let at = |i: usize| {
                    items[i]
                        .as_f64()
                        .map(|n| n as f32)
                        .filter(|n| n.is_finite())
                        .ok_or_else(|| {
                            format!("{name}[{i}]: expected a finite number, found {}", items[i])
                        })
                };
                Ok(glam::Vec2::new(at(0)?, at(1)?))
            }
            Some(v) => Err(format!("{name}: expected two numbers, found {v}")),
        }
    };
    let tex_coord = match fields.get("texCoord") {
        None => None,
        Some(v) => Some(
            v.as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| format!("texCoord: expected a set number, found {v}"))?,
        ),
    };
    Ok((
        UvTransform {
            offset: pair("offset", 0.0)?,
            rotation: number("rotation", 0.0)?,
            scale: pair("scale", 1.0)?,
        },
        tex_coord,
    ))
}
