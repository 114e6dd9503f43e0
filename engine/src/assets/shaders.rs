//! The WGSL the renderer builds its pipelines from: a [`ShaderLibrary`], one
//! per [`Assets`](super::Assets). Each shader starts as the text compiled into
//! the binary (`shaders/*.wgsl`); [`ShaderLibrary::reload`] swaps in new text
//! from disk after naga has parsed and validated it, and bumps a generation
//! that every [`Renderer`] drawing the library's frames checks before its
//! next frame (it then rebuilds its passes). A shader that fails keeps the
//! last good one drawing: the error names its file, line and column.
//!
//! [`Renderer`]: crate::render::Renderer

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

/// One WGSL file of `shaders/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shader {
    /// Meshes (plain, textured, deformed) and their shadow casters' masks.
    Mesh,
    /// Static shadow casters.
    Shadow,
    /// Bloom, exposure, tonemapping.
    Post,
    /// Debug lines.
    Lines,
    /// Particles.
    Particles,
    /// The image sky behind the frame.
    Sky,
    /// The image-based lighting bake.
    Ibl,
}

impl Shader {
    /// Every shader.
    pub const ALL: [Shader; 7] = [
        Shader::Mesh,
        Shader::Shadow,
        Shader::Post,
        Shader::Lines,
        Shader::Particles,
        Shader::Sky,
        Shader::Ibl,
    ];

    /// Its file name in `shaders/`.
    pub fn file_name(self) -> &'static str {
        match self {
            Shader::Mesh => "mesh.wgsl",
            Shader::Shadow => "shadow.wgsl",
            Shader::Post => "post.wgsl",
            Shader::Lines => "lines.wgsl",
            Shader::Particles => "particles.wgsl",
            Shader::Sky => "sky.wgsl",
            Shader::Ibl => "ibl.wgsl",
        }
    }

    /// The shader a file of this name is, if any.
    pub fn from_file_name(name: &str) -> Option<Shader> {
        Self::ALL.into_iter().find(|s| s.file_name() == name)
    }

    fn embedded(self) -> &'static str {
        match self {
            Shader::Mesh => include_str!("../../../shaders/mesh.wgsl"),
            Shader::Shadow => include_str!("../../../shaders/shadow.wgsl"),
            Shader::Post => include_str!("../../../shaders/post.wgsl"),
            Shader::Lines => include_str!("../../../shaders/lines.wgsl"),
            Shader::Particles => include_str!("../../../shaders/particles.wgsl"),
            Shader::Sky => include_str!("../../../shaders/sky.wgsl"),
            Shader::Ibl => include_str!("../../../shaders/ibl.wgsl"),
        }
    }

    fn index(self) -> usize {
        Self::ALL.iter().position(|&s| s == self).unwrap_or(0)
    }
}

/// The `shaders/` folder of this source tree (what the editor and the viewer
/// watch); `KEEL_SHADER_DIR` names another.
pub fn source_dir() -> PathBuf {
    std::env::var_os("KEEL_SHADER_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shaders"),
        PathBuf::from,
    )
}

/// A shader that does not compile: where and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}:{line}:{column}: {message}", file.display())]
pub struct ShaderError {
    /// The file.
    pub file: PathBuf,
    /// 1-based line (0 when the file could not be read).
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// What naga (or the file system) said.
    pub message: String,
}

/// The current text of every [`Shader`] (see the [module docs](self)).
#[derive(Debug, Default)]
pub struct ShaderLibrary {
    /// Texts swapped in by [`ShaderLibrary::reload`]; `None`: the embedded one.
    texts: RwLock<[Option<Arc<str>>; Shader::ALL.len()]>,
    generation: AtomicU64,
}

impl ShaderLibrary {
    /// How many times shaders were swapped: a renderer built at another
    /// generation rebuilds its passes (0: every shader is the embedded one).
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The current text of `shader`.
    pub fn source(&self, shader: Shader) -> Arc<str> {
        let texts = self.texts.read().unwrap_or_else(PoisonError::into_inner);
        texts[shader.index()]
            .clone()
            .unwrap_or_else(|| Arc::from(shader.embedded()))
    }

    /// A module of `shader`'s current text.
    pub(crate) fn module(&self, device: &wgpu::Device, shader: Shader) -> wgpu::ShaderModule {
        device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(shader.file_name()),
            source: wgpu::ShaderSource::Wgsl(self.source(shader).as_ref().into()),
        })
    }

    /// Reads the shaders among `files` (others are ignored), checks each,
    /// and swaps them in if all are good. Returns the shaders swapped.
    ///
    /// # Errors
    /// The first file that cannot be read or does not compile; nothing is
    /// swapped then, and the last good shaders keep drawing.
    pub fn reload(&self, files: &[PathBuf]) -> Result<Vec<Shader>, ShaderError> {
        let mut fresh: Vec<(Shader, Arc<str>)> = Vec::new();
        for file in files {
            let Some(shader) = file
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(Shader::from_file_name)
            else {
                continue;
            };
            let text = std::fs::read_to_string(file).map_err(|e| ShaderError {
                file: file.clone(),
                line: 0,
                column: 0,
                message: e.to_string(),
            })?;
            check(&text, file)?;
            fresh.push((shader, text.into()));
        }
        if fresh.is_empty() {
            return Ok(Vec::new());
        }
        let mut swapped = Vec::new();
        for (shader, text) in fresh {
            if *self.source(shader) != *text {
                let mut texts = self.texts.write().unwrap_or_else(PoisonError::into_inner);
                texts[shader.index()] = Some(text);
                swapped.push(shader);
            }
        }
        if !swapped.is_empty() {
            self.generation.fetch_add(1, Ordering::AcqRel);
        }
        Ok(swapped)
    }
}

/// Parses and validates WGSL `text` (from `file`, named in the error).
///
/// # Errors
/// The first parse or validation error, with its line and column.
pub fn check(text: &str, file: &Path) -> Result<(), ShaderError> {
    let fail = |location: Option<naga::SourceLocation>, message: String| ShaderError {
        file: file.to_path_buf(),
        line: location.map_or(1, |l| l.line_number),
        column: location.map_or(1, |l| l.line_position),
        message,
    };
    let module = naga::front::wgsl::parse_str(text)
        .map_err(|e| fail(e.location(text), e.message().to_string()))?;
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| {
        // The innermost cause and span say what and where (the outer ones
        // name only the function).
        let mut message = e.as_inner().to_string();
        let mut cause = std::error::Error::source(e.as_inner());
        while let Some(c) = cause {
            message = format!("{message}: {c}");
            cause = c.source();
        }
        let span = e
            .spans()
            .filter(|(span, _)| span.is_defined())
            .last()
            .map(|(span, _)| span.location(text));
        fail(span.or_else(|| e.location(text)), message)
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_shader_checks_and_is_found_by_its_file_name() {
        for shader in Shader::ALL {
            check(shader.embedded(), Path::new(shader.file_name())).unwrap();
            assert_eq!(Shader::from_file_name(shader.file_name()), Some(shader));
        }
        assert_eq!(Shader::from_file_name("notes.txt"), None);
    }

    #[test]
    fn a_broken_shader_is_named_with_its_line_and_column() {
        let text = "fn main() -> f32 {\n    return 1.0;\n}\n\nfn bad() {\n    let x: f32 = ;\n}\n";
        let error = check(text, Path::new("broken.wgsl")).unwrap_err();
        assert_eq!(
            (error.line, error.file.as_path()),
            (6, Path::new("broken.wgsl"))
        );
        assert!(error.to_string().starts_with("broken.wgsl:6:"), "{error}");
        // Parses, but does not validate: a type mismatch.
        let text = "fn f() -> f32 {\n    return 1u;\n}\n";
        let error = check(text, Path::new("types.wgsl")).unwrap_err();
        assert_eq!(error.line, 2, "{error}");
    }
}
