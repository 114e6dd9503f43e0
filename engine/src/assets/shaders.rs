//! The WGSL the renderer builds its pipelines from: a [`ShaderLibrary`], one
//! per [`Assets`](super::Assets). Each shader starts as the text compiled into
//! the binary (`shaders/*.wgsl`); [`ShaderLibrary::reload`] swaps in new text
//! from disk after naga has parsed and validated it, and bumps a generation
//! that every [`Renderer`] drawing the library's frames checks before its
//! next frame (it then rebuilds its passes). A shader that fails keeps the
//! last good one drawing: the error names its file, line and column.
//!
//! A shader may take shared WGSL from other files of its folder with a line
//! `#import "frame.wgsl"` (see `shader_imports`): the pieces of `shaders/`
//! are compiled into the binary too, an error in one names that file and its
//! own line, and a piece changed on disk reloads every shader beside it that
//! imports it.
//!
//! [`Renderer`]: crate::render::Renderer

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use super::shader_imports;
pub use super::shader_imports::{
    Composed, EMBEDDED, ShaderError, compose, embedded, imports_reach,
};

/// The shader table: each shader's name, doc and file, written once; the
/// enum, [`Shader::ALL`], the file names and the embedded text come from it
/// (what each imports is read from its text: `shader_imports`).
macro_rules! shader_table {
    ($($(#[doc = $doc:literal])* $name:ident => $file:literal,)*) => {
        /// One WGSL file of `shaders/`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Shader {
            $($(#[doc = $doc])* $name,)*
        }

        const SHADER_COUNT: usize = [$($file),*].len();

        impl Shader {
            /// Every shader.
            pub const ALL: [Shader; SHADER_COUNT] = [$(Shader::$name),*];

            /// Its file name in `shaders/`.
            pub fn file_name(self) -> &'static str {
                match self {
                    $(Shader::$name => $file,)*
                }
            }

            fn embedded(self) -> &'static str {
                match self {
                    $(Shader::$name => include_str!(concat!("../../../shaders/", $file)),)*
                }
            }
        }
    };
}

shader_table! {
    /// Meshes (plain, textured, deformed) and their shadow casters' masks.
    Mesh => "mesh.wgsl",
    /// Static shadow casters.
    Shadow => "shadow.wgsl",
    /// Bloom, exposure, tonemapping.
    Post => "post.wgsl",
    /// Debug lines.
    Lines => "lines.wgsl",
    /// Particles.
    Particles => "particles.wgsl",
    /// The image sky behind the frame.
    Sky => "sky.wgsl",
    /// The image-based lighting bake.
    Ibl => "ibl.wgsl",
    /// GPU culling of the retained scene.
    Cull => "cull.wgsl",
}

impl Shader {
    /// The shader a file of this name is, if any.
    pub fn from_file_name(name: &str) -> Option<Shader> {
        Self::ALL.into_iter().find(|s| s.file_name() == name)
    }

    /// Its text as compiled into the binary, imports written in.
    pub(crate) fn composed_embedded(self) -> Result<Composed, ShaderError> {
        let file = Path::new(self.file_name());
        shader_imports::compose(file, self.embedded(), &mut shader_imports::embedded)
    }

    fn index(self) -> usize {
        Self::ALL.iter().position(|&s| s == self).unwrap_or(0)
    }
}

/// The `shaders/` folder of this source tree.
pub fn source_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shaders")
}

/// The variable that names the shader folder a binary watches.
pub const SHADER_DIR_VARIABLE: &str = "KEEL_SHADER_DIR";

/// The shader folder a binary watches for hot reload: the folder
/// [`SHADER_DIR_VARIABLE`] names, else [`source_dir`]. Read once, by the
/// binary at start; the library is told the folder.
pub fn dir_from_env() -> PathBuf {
    std::env::var_os(SHADER_DIR_VARIABLE).map_or_else(source_dir, PathBuf::from)
}

/// The current text of every [`Shader`] (see the [module docs](self)).
#[derive(Debug, Default)]
pub struct ShaderLibrary {
    /// Texts swapped in by [`ShaderLibrary::reload`]; `None`: the embedded one.
    texts: RwLock<[Option<Arc<str>>; Shader::ALL.len()]>,
    /// The embedded texts with their imports in place, composed at first use.
    embedded: OnceLock<[Arc<str>; Shader::ALL.len()]>,
    generation: AtomicU64,
}

impl ShaderLibrary {
    /// How many times shaders were swapped: a renderer built at another
    /// generation rebuilds its passes (0: every shader is the embedded one).
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The current text of `shader`, its imports in place.
    pub fn source(&self, shader: Shader) -> Arc<str> {
        let texts = self.texts.read().unwrap_or_else(PoisonError::into_inner);
        if let Some(text) = &texts[shader.index()] {
            return Arc::clone(text);
        }
        drop(texts);
        let embedded = self.embedded.get_or_init(|| {
            Shader::ALL.map(|s| match s.composed_embedded() {
                Ok(composed) => Arc::from(composed.into_text()),
                Err(e) => {
                    log::error!("{e}");
                    Arc::from(s.embedded())
                }
            })
        });
        Arc::clone(&embedded[shader.index()])
    }

    /// A module of `shader`'s current text.
    pub(crate) fn module(&self, device: &wgpu::Device, shader: Shader) -> wgpu::ShaderModule {
        device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(shader.file_name()),
            source: wgpu::ShaderSource::Wgsl(self.source(shader).as_ref().into()),
        })
    }

    /// Reads the shaders among `files`, and those beside a `.wgsl` file
    /// among them that import it (others are ignored), checks each, and
    /// swaps them in if all are good. Returns the shaders swapped.
    ///
    /// # Errors
    /// The first file that cannot be read or does not compile; nothing is
    /// swapped then, and the last good shaders keep drawing.
    pub fn reload(&self, files: &[PathBuf]) -> Result<Vec<Shader>, ShaderError> {
        let mut fresh: Vec<(Shader, Arc<str>)> = Vec::new();
        for (shader, file) in reached(files) {
            let text = read(&file).map_err(|e| ShaderError {
                file: file.clone(),
                line: 0,
                column: 0,
                message: e.to_string(),
            })?;
            let composed = shader_imports::compose(&file, &text, &mut read)?;
            validate(&composed)?;
            fresh.push((shader, composed.into_text().into()));
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

/// Parses and validates WGSL `text` (from `file`, named in the error), its
/// imports read from disk beside `file`.
///
/// # Errors
/// The first import, parse or validation error, with the file it is in and
/// its line and column there.
pub fn check(text: &str, file: &Path) -> Result<(), ShaderError> {
    validate(&shader_imports::compose(file, text, &mut read)?)
}

/// Parses and validates a composed shader; errors name the file and line
/// each part came from.
fn validate(composed: &Composed) -> Result<(), ShaderError> {
    let text = composed.text();
    let fail = |location, message| composed.error(location, message);
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

/// The shaders a change to `files` reaches, each with the file to read it
/// from: the shaders among them, and the shaders beside a changed `.wgsl`
/// file that import it (directly or through another piece).
fn reached(files: &[PathBuf]) -> Vec<(Shader, PathBuf)> {
    let mut out: Vec<(Shader, PathBuf)> = Vec::new();
    let mut add = |shader: Shader, file: PathBuf| {
        if !out.iter().any(|(s, _)| *s == shader) {
            out.push((shader, file));
        }
    };
    for file in files {
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(shader) = Shader::from_file_name(name) {
            add(shader, file.clone());
        }
        let Some(dir) = file.parent().filter(|_| name.ends_with(".wgsl")) else {
            continue;
        };
        for shader in Shader::ALL {
            let beside = dir.join(shader.file_name());
            if beside != *file && shader_imports::imports_reach(&beside, file, &mut read) {
                add(shader, beside);
            }
        }
    }
    out
}

/// Reads a shader or a piece it imports from disk (a regular file within
/// the shaders' cap).
fn read(file: &Path) -> std::io::Result<String> {
    let limits = crate::files::ReadLimits::from_env();
    crate::files::read_to_string(file, crate::files::FileKind::Shader, &limits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_shader_checks_and_is_found_by_its_file_name() {
        for shader in Shader::ALL {
            validate(&shader.composed_embedded().unwrap()).unwrap();
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
