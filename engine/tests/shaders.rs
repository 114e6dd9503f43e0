//! Every WGSL file in `shaders/` must parse and validate with naga (the
//! compiler wgpu uses), so a broken shader fails `cargo test` instead of the
//! first frame on someone's machine.

use std::path::{Path, PathBuf};

use naga::valid::{Capabilities, ValidationFlags, Validator};

fn shader_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shaders")
}

fn shader_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(shader_dir())
        .expect("shaders/ directory at the repository root")
        .map(|entry| entry.expect("readable shaders/ entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "wgsl"))
        .collect();
    files.sort();
    files
}

fn parse(path: &Path) -> naga::Module {
    let source = std::fs::read_to_string(path).expect("readable shader");
    naga::front::wgsl::parse_str(&source).unwrap_or_else(|error| {
        panic!(
            "{}",
            error.emit_to_string_with_path(&source, &path.display().to_string())
        )
    })
}

#[test]
fn every_shader_parses_and_validates() {
    let files = shader_files();
    assert!(
        files.len() >= 3,
        "expected the mesh, particle and line shaders, found {files:?}"
    );
    for path in files {
        let module = parse(&path);
        // Default capabilities: what every wgpu backend (GL included) must support.
        Validator::new(ValidationFlags::all(), Capabilities::default())
            .validate(&module)
            .unwrap_or_else(|error| {
                let source = std::fs::read_to_string(&path).unwrap_or_default();
                panic!(
                    "{}",
                    error.emit_to_string_with_path(&source, &path.display().to_string())
                )
            });
        let stages: Vec<naga::ShaderStage> = module.entry_points.iter().map(|e| e.stage).collect();
        let fragment_needed = !is_depth_only(&path);
        assert!(
            stages.contains(&naga::ShaderStage::Vertex)
                && (stages.contains(&naga::ShaderStage::Fragment) || !fragment_needed),
            "{} needs a vertex and a fragment entry point, has {stages:?}",
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
/// their own settings, not the frame's globals.
fn is_post(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|name| name == "post.wgsl" || name == "ibl.wgsl")
}

#[test]
fn every_shader_declares_the_same_globals_block() {
    let layouts: Vec<(PathBuf, _)> = shader_files()
        .into_iter()
        .filter(|path| !is_depth_only(path) && !is_post(path))
        .map(|path| {
            let module = parse(&path);
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
