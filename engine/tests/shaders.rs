//! Every shader in `shaders/` must parse and validate with naga (the
//! compiler wgpu uses), its `#import`s written in, so a broken shader fails
//! `cargo test` instead of the first frame on someone's machine. Every other
//! WGSL file there is a piece a shader imports, compiled into the binary.

use std::path::{Path, PathBuf};

use keel_engine::assets::shaders::Shader;
use keel_engine::assets::shaders::{self, Composed};
use naga::valid::{Capabilities, ValidationFlags, Validator};

fn shader_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shaders")
}

fn wgsl_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(shader_dir())
        .expect("shaders/ directory at the repository root")
        .map(|entry| entry.expect("readable shaders/ entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "wgsl"))
        .collect();
    files.sort();
    files
}

fn is_shader(path: &Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .and_then(Shader::from_file_name)
        .is_some()
}

/// The shaders (the WGSL files with entry points; the others are imported).
fn shader_files() -> Vec<PathBuf> {
    wgsl_files().into_iter().filter(|p| is_shader(p)).collect()
}

fn read(path: &Path) -> std::io::Result<String> {
    std::fs::read_to_string(path)
}

/// The shader at `path` with its imports written in.
fn compose(path: &Path) -> Composed {
    let source = std::fs::read_to_string(path).expect("readable shader");
    shaders::compose(path, &source, &mut read).unwrap_or_else(|error| panic!("{error}"))
}

/// naga's report of an error at `location`, led by the file and line it is in.
fn report(composed: &Composed, location: Option<naga::SourceLocation>, text: String) -> String {
    format!("{}\n{text}", composed.error(location, String::new()))
}

fn parse(composed: &Composed) -> naga::Module {
    let source = composed.text();
    naga::front::wgsl::parse_str(source).unwrap_or_else(|error| {
        panic!(
            "{}",
            report(
                composed,
                error.location(source),
                error.emit_to_string(source)
            )
        )
    })
}

#[test]
fn every_shader_parses_and_validates() {
    let files = shader_files();
    assert_eq!(files.len(), Shader::ALL.len(), "{files:?}");
    for path in files {
        let composed = compose(&path);
        let module = parse(&composed);
        // Default capabilities: what every wgpu backend (GL included) must support.
        Validator::new(ValidationFlags::all(), Capabilities::default())
            .validate(&module)
            .unwrap_or_else(|error| {
                let source = composed.text();
                panic!(
                    "{}",
                    report(
                        &composed,
                        error.location(source),
                        error.emit_to_string(source)
                    )
                )
            });
        let stages: Vec<naga::ShaderStage> = module.entry_points.iter().map(|e| e.stage).collect();
        let fragment_needed = !is_depth_only(&path);
        // A compute shader (the GPU culling) draws nothing.
        let compute = stages.iter().all(|s| *s == naga::ShaderStage::Compute);
        assert!(
            compute
                || stages.contains(&naga::ShaderStage::Vertex)
                    && (stages.contains(&naga::ShaderStage::Fragment) || !fragment_needed),
            "{} needs a vertex and a fragment entry point (or only a compute one), has {stages:?}",
            path.display()
        );
    }
}

/// Byte layout of a WGSL struct, as wgpu will see it.
#[derive(Debug, PartialEq)]
struct StructLayout {
    size: u32,
    /// Each member's name, offset and size.
    members: Vec<(String, u32, u32)>,
}

fn struct_layout(module: &naga::Module, name: &str) -> Option<StructLayout> {
    let mut layouter = naga::proc::Layouter::default();
    layouter
        .update(module.to_ctx())
        .expect("layout of the shader's types");
    module
        .types
        .iter()
        .find_map(|(handle, ty)| match &ty.inner {
            naga::TypeInner::Struct { members, .. } if ty.name.as_deref() == Some(name) => {
                Some(StructLayout {
                    size: layouter[handle].size,
                    members: members
                        .iter()
                        .map(|m| {
                            let member_name = m.name.clone().unwrap_or_default();
                            (member_name, m.offset, layouter[m.ty].size)
                        })
                        .collect(),
                })
            }
            _ => None,
        })
}

/// Depth-only passes (the shadow map): a vertex stage alone, bound to their
/// own per-pass data rather than the frame's globals.
fn is_depth_only(path: &Path) -> bool {
    path.file_name().is_some_and(|name| name == "shadow.wgsl")
}

/// Passes outside the frame's scene drawing: over the finished HDR frame
/// (bloom, tonemapping) or baking the sky's lighting at load. They read
/// their own settings, not the frame's globals; and the GPU culling, a
/// compute pass with its own block.
fn has_own_block(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|name| name == "post.wgsl" || name == "ibl.wgsl" || name == "cull.wgsl")
}

#[test]
fn every_shader_declares_the_same_globals_block() {
    let layouts: Vec<(PathBuf, _)> = shader_files()
        .into_iter()
        .filter(|path| !is_depth_only(path) && !has_own_block(path))
        .map(|path| {
            let module = parse(&compose(&path));
            let layout = struct_layout(&module, "Globals")
                .unwrap_or_else(|| panic!("{} has no Globals struct", path.display()));
            (path, layout)
        })
        .collect();
    let (first_path, first) = &layouts[0];
    for (path, layout) in &layouts[1..] {
        assert_eq!(
            layout,
            first,
            "Globals in {} differs from {}",
            path.display(),
            first_path.display()
        );
    }
}

#[test]
fn every_other_wgsl_file_is_a_piece_a_shader_imports_compiled_into_the_binary() {
    let pieces: Vec<PathBuf> = wgsl_files().into_iter().filter(|p| !is_shader(p)).collect();
    assert!(!pieces.is_empty(), "shaders/ shares its common blocks");
    for piece in &pieces {
        let name = piece.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let embedded = shaders::EMBEDDED
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("{name} is missing from shaders::EMBEDDED"));
        assert_eq!(
            std::fs::read_to_string(piece).unwrap(),
            embedded.1,
            "{name} as compiled in"
        );
        assert!(
            shader_files()
                .iter()
                .any(|shader| shaders::imports_reach(shader, piece, &mut read)),
            "no shader imports {name}"
        );
    }
    assert_eq!(pieces.len(), shaders::EMBEDDED.len());
}
