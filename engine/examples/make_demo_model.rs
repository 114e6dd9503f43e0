//! Writes `assets/models/lighthouse.glb`: a lighthouse for the pirate harbour,
//! generated here so the repository needs no downloaded art.
//!
//! A rocky island with a few boulders, a tapered tower wrapped in red and white
//! stripes over stone blocks (a colour texture and a normal map made below and
//! stored in the GLB), an iron gallery, a
//! bright lamp room and a red roof: about 6.8 units tall, base at y = 0, every part a
//! node of its own (island > tower > gallery > lamp room > roof).
//!
//! Run: `cargo run -p keel-engine --example make_demo_model [OUT.glb]`.

#![expect(
    clippy::disallowed_methods,
    reason = "generates committed assets (made with these functions); nothing here is simulated"
)]

use std::f32::consts::{PI, TAU};
use std::path::PathBuf;

use glam::{Quat, Vec2, Vec3, Vec4};
use keel_engine::Transform;
use keel_engine::assets::gltf::Export;
use keel_engine::assets::gltf::{mip_chain, srgb_to_linear};
use keel_engine::assets::{
    MeshData, MeshVertex, ModelData, ModelMaterial, ModelMesh, ModelNode, ModelPrimitive,
    TextureData,
};

/// Segments around the axis of every turned part.
const SEGMENTS: u32 = 32;
const ISLAND_HEIGHT: f32 = 0.6;
const TOWER_HEIGHT: f32 = 4.2;
const GALLERY_HEIGHT: f32 = 0.12;
const LAMP_HEIGHT: f32 = 0.95;

/// sRGB hex colour to a linear RGBA factor (glTF factors are linear).
fn hex(rgb: u32) -> Vec4 {
    let channel = |shift: u32| srgb_to_linear(((rgb >> shift) & 0xff) as f32 / 255.0);
    Vec4::new(channel(16), channel(8), channel(0), 1.0)
}

/// Point on the unit circle in the XZ plane; angles grow counter-clockwise seen from +Y.
fn ring(angle: f32) -> Vec3 {
    Vec3::new(angle.cos(), 0.0, -angle.sin())
}

/// A surface of revolution around +Y. `profile` is a polyline of (radius, y)
/// points; each of its segments becomes a band with its own vertices, so the
/// profile's corners stay sharp. `wobble` scales the radius by angle (rocks).
/// Texture v runs from 0 at the profile's last point to 1 at its first, so a
/// profile drawn bottom to top shows the image upright.
fn lathe(mesh: &mut MeshData, profile: &[Vec2], wobble: impl Fn(f32) -> f32) {
    let length: f32 = profile.windows(2).map(|w| w[0].distance(w[1])).sum();
    let mut travelled = 0.0;
    for band in profile.windows(2) {
        let first = mesh.vertices.len() as u32;
        let step = band[0].distance(band[1]);
        for (point, along) in [(band[0], travelled), (band[1], travelled + step)] {
            for s in 0..=SEGMENTS {
                let u = s as f32 / SEGMENTS as f32;
                let angle = TAU * u;
                // The seam's two columns must wobble alike or the surface opens.
                let radius = point.x * wobble(angle % TAU);
                mesh.vertices.push(MeshVertex::new(
                    (ring(angle) * radius + Vec3::Y * point.y).to_array(),
                    [0.0; 3],
                    [u, 1.0 - along / length],
                ));
            }
        }
        travelled += step;
        let columns = SEGMENTS + 1;
        for s in 0..SEGMENTS {
            let (bottom, top) = (first + s, first + columns + s);
            mesh.indices
                .extend([bottom, bottom + 1, top + 1, bottom, top + 1, top]);
        }
    }
    smooth_normals(mesh);
}

/// Area-weighted vertex normals from the faces around each vertex, with the
/// seam's duplicated columns given the same normal.
fn smooth_normals(mesh: &mut MeshData) {
    let mut sums = vec![Vec3::ZERO; mesh.vertices.len()];
    for tri in mesh.indices.chunks_exact(3) {
        let [a, b, c] = [0, 1, 2].map(|k| Vec3::from(mesh.vertices[tri[k] as usize].position));
        let face = (b - a).cross(c - a);
        for &i in tri {
            sums[i as usize] += face;
        }
    }
    let columns = (SEGMENTS + 1) as usize;
    for row in sums.chunks_exact_mut(columns) {
        let seam = row[0] + row[columns - 1];
        (row[0], row[columns - 1]) = (seam, seam);
    }
    for (vertex, sum) in mesh.vertices.iter_mut().zip(sums) {
        // Vertices on the axis touch only zero-area faces: point them along it.
        let fallback = if vertex.position[1] > 0.0 {
            Vec3::Y
        } else {
            Vec3::NEG_Y
        };
        vertex.normal = sum.try_normalize().unwrap_or(fallback).to_array();
    }
}

fn turned(profile: &[[f32; 2]]) -> MeshData {
    turned_with(profile, |_| 1.0)
}

fn turned_with(profile: &[[f32; 2]], wobble: impl Fn(f32) -> f32) -> MeshData {
    let mut mesh = MeshData::default();
    let profile: Vec<Vec2> = profile.iter().map(|&p| Vec2::from(p)).collect();
    lathe(&mut mesh, &profile, wobble);
    mesh
}

/// Lumpy radius: a few sine waves of different frequency around the axis.
fn rocky(seed: f32) -> impl Fn(f32) -> f32 {
    move |angle| 1.0 + 0.07 * (5.0 * angle + seed).sin() + 0.04 * (11.0 * angle + 2.0 * seed).sin()
}

fn island() -> MeshData {
    let profile = [
        [0.0, 0.0],
        [3.0, 0.0],
        [2.9, 0.2],
        [2.6, 0.42],
        [2.1, ISLAND_HEIGHT],
        [0.0, ISLAND_HEIGHT],
    ];
    turned_with(&profile, rocky(0.0))
}

fn boulder(seed: f32) -> MeshData {
    let profile = [
        [0.0, 0.0],
        [0.5, 0.0],
        [0.46, 0.22],
        [0.25, 0.4],
        [0.0, 0.44],
    ];
    turned_with(&profile, rocky(seed))
}

fn tower() -> MeshData {
    turned(&[[0.95, 0.0], [0.62, TOWER_HEIGHT]])
}

/// The balcony floor and its railing, one mesh.
fn gallery() -> MeshData {
    let mut mesh = turned(&[
        [0.5, 0.0],
        [1.0, 0.0],
        [1.0, GALLERY_HEIGHT],
        [0.5, GALLERY_HEIGHT],
    ]);
    let rail_top = GALLERY_HEIGHT + 0.2;
    let railing = [
        Vec2::new(0.97, GALLERY_HEIGHT),
        Vec2::new(0.97, rail_top),
        Vec2::new(0.95, rail_top),
        Vec2::new(0.95, GALLERY_HEIGHT),
    ];
    lathe(&mut mesh, &railing, |_| 1.0);
    mesh
}

fn lamp_room() -> MeshData {
    turned(&[
        [0.0, 0.0],
        [0.45, 0.0],
        [0.45, LAMP_HEIGHT],
        [0.0, LAMP_HEIGHT],
    ])
}

/// A cone with a small ball on top.
fn roof() -> MeshData {
    let (height, ball) = (0.8, 0.09);
    let mut profile = vec![[0.0, 0.0], [0.65, 0.0], [0.0, height]];
    profile.extend((1..=6).map(|i| {
        let a = PI * i as f32 / 6.0;
        [ball * a.sin(), height + ball - ball * a.cos()]
    }));
    turned(&profile)
}

/// Red and white bands, top row first, with a little grain so they don't
/// look printed.
fn stripes() -> TextureData {
    let (width, height, bands) = (64_u32, 256_u32, 8);
    let mut pixels = Vec::with_capacity((4 * width * height) as usize);
    for y in 0..height {
        let red = (y * bands / height) % 2 == 0;
        for x in 0..width {
            let grain = ((x * 7 + y * 13) % 5) as u8;
            let [r, g, b] = if red { [190, 28, 30] } else { [236, 234, 226] };
            pixels.extend([r - grain, g.saturating_sub(grain), b - grain, 255]);
        }
    }
    TextureData {
        name: "lighthouse stripes".into(),
        width,
        height,
        mips: mip_chain(width, height, pixels),
        srgb: true,
    }
}

/// The tower's masonry as a tangent-space normal map (glTF's convention: +Y
/// up the image): courses of stone blocks, staggered, with bevelled mortar
/// joints and each block tilted a little its own way.
fn masonry() -> TextureData {
    let (width, height) = (256_u32, 192_u32);
    let (columns, courses) = (16_u32, 24_u32);
    let (block_w, block_h) = ((width / columns) as f32, (height / courses) as f32);
    // Height at texel (x, y), y down the image: 1 on a block's face, falling
    // to 0 over the 1.5 texels of bevel at its edges.
    let height_at = |x: f32, y: f32| {
        let course = (y / block_h).floor();
        let stagger = if course as i32 % 2 == 0 {
            0.0
        } else {
            block_w * 0.5
        };
        let (bx, by) = ((x + stagger).rem_euclid(block_w), y.rem_euclid(block_h));
        let edge = bx.min(block_w - bx).min(by).min(block_h - by);
        let block = ((x + stagger) / block_w).floor() + course * 17.0;
        // A tilt per block from a cheap hash of its number.
        let tilt = ((block * 12.9898).sin() * 43758.547).fract() - 0.5;
        (edge / 1.5).min(1.0) * (1.0 + 0.15 * tilt * (bx / block_w - 0.5))
    };
    let strength = 1.2;
    let mut pixels = Vec::with_capacity((4 * width * height) as usize);
    for y in 0..height {
        for x in 0..width {
            let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
            let right = height_at(fx + 1.0, fy) - height_at(fx - 1.0, fy);
            let down = height_at(fx, fy + 1.0) - height_at(fx, fy - 1.0);
            // Uphill to the right tilts the normal left; uphill down the
            // image tilts it up the image.
            let normal = Vec3::new(-right * strength, down * strength, 2.0).normalize();
            let encode = |c: f32| ((c * 0.5 + 0.5) * 255.0).round() as u8;
            pixels.extend([encode(normal.x), encode(normal.y), encode(normal.z), 255]);
        }
    }
    TextureData {
        name: "lighthouse masonry".into(),
        width,
        height,
        mips: mip_chain(width, height, pixels),
        srgb: false,
    }
}

fn material(name: &str, base_color: Vec4, metallic: f32, roughness: f32) -> ModelMaterial {
    ModelMaterial {
        name: name.into(),
        base_color,
        base_color_texture: None,
        metallic,
        roughness,
        emissive: Vec3::ZERO,
        ..ModelMaterial::default()
    }
}

fn node(name: &str, parent: Option<usize>, transform: Transform, mesh: usize) -> ModelNode {
    ModelNode {
        name: name.into(),
        parent,
        transform,
        mesh: Some(mesh),
        skin: None,
        weights: Vec::new(),
        light: None,
    }
}

fn lighthouse() -> ModelData {
    const ROCK: usize = 0;
    const STRIPES: usize = 1;
    const IRON: usize = 2;
    const LAMP: usize = 3;
    const ROOF: usize = 4;
    let materials = vec![
        material("rock", hex(0x5d564d), 0.0, 0.95),
        ModelMaterial {
            base_color_texture: Some(0),
            normal_texture: Some((1, 1.0)),
            ..material("painted stone", Vec4::ONE, 0.0, 0.7)
        },
        material("iron", hex(0x23262b), 0.8, 0.45),
        // Far brighter than any lit surface (HDR), so the lamp blooms.
        ModelMaterial {
            emissive: Vec3::new(6.0, 3.75, 0.75),
            ..material("lamp", Vec4::new(1.0, 0.82, 0.35, 1.0), 0.0, 0.2)
        },
        material("roof", hex(0x9e1c1a), 0.1, 0.6),
    ];
    let meshes: Vec<(&str, MeshData, usize)> = vec![
        ("island", island(), ROCK),
        ("boulder", boulder(1.3), ROCK),
        ("tower", tower(), STRIPES),
        ("gallery", gallery(), IRON),
        ("lamp room", lamp_room(), LAMP),
        ("roof", roof(), ROOF),
    ];
    let meshes = meshes
        .into_iter()
        .map(|(name, mesh, material)| ModelMesh {
            name: name.into(),
            primitives: vec![ModelPrimitive {
                mesh,
                material: Some(material),
            }],
        })
        .collect();

    let up = |y: f32| Transform::from_translation(Vec3::Y * y);
    let mut nodes = vec![node("island", None, Transform::IDENTITY, 0)];
    for (i, (angle, size)) in [(0.4, 1.4), (2.3, 1.0), (4.4, 1.7)].into_iter().enumerate() {
        let placed = Transform {
            translation: ring(angle) * 3.0,
            rotation: Quat::from_rotation_y(angle * 3.0),
            scale: Vec3::new(size, size * 0.8, size),
        };
        nodes.push(node(&format!("boulder {}", i + 1), Some(0), placed, 1));
    }
    let tower = nodes.len();
    nodes.push(node("tower", Some(0), up(ISLAND_HEIGHT), 2));
    nodes.push(node("gallery", Some(tower), up(TOWER_HEIGHT), 3));
    nodes.push(node("lamp room", Some(tower + 1), up(GALLERY_HEIGHT), 4));
    nodes.push(node("roof", Some(tower + 2), up(LAMP_HEIGHT), 5));

    ModelData {
        path: PathBuf::from("lighthouse.glb"),
        meshes,
        materials,
        textures: vec![stripes(), masonry()],
        nodes,
        animations: Vec::new(),
        skins: Vec::new(),
        warnings: Vec::new(),
        files: Vec::new(),
    }
}

fn main() {
    let out = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets/models/lighthouse.glb")
        });
    let glb = Export::new(&lighthouse())
        .and_then(Export::to_glb)
        .unwrap_or_else(|e| panic!("the lighthouse does not export: {e}"));
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    }
    std::fs::write(&out, &glb).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    println!("wrote {} ({} bytes)", out.display(), glb.len());
}
