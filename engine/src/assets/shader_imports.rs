//! `#import` for WGSL, which has no includes of its own: a line
//!
//! ```text
//! #import "frame.wgsl"
//! ```
//!
//! is replaced by the text of that file (named relative to the importing
//! file's folder) before naga sees the shader. Each file is written in at most
//! once per shader: a second import of it, from anywhere, adds nothing, so a
//! piece may import what it needs and a shader may import the same piece too.
//! A file that imports itself, directly or through others, is an error naming
//! the circle; so is a file that cannot be read, named at the importing
//! file's line and column. The directive is a line of its own (spaces before
//! it and a `//` comment after it allowed), found on any line, comment blocks
//! included.
//!
//! [`Composed`] keeps, for every line of the composed text, the file and line
//! it came from, so naga's errors name the file the mistake is in.
//!
//! The pieces the shaders of `shaders/` import are compiled into the binary
//! ([`EMBEDDED`]) as the shaders are; on disk they sit beside them.

use std::io;
use std::path::{Component, Path, PathBuf};

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

/// The imported pieces of `shaders/` (no entry points of their own), by file
/// name, as compiled into the binary.
pub const EMBEDDED: [(&str, &str); 3] = [
    ("caster.wgsl", include_str!("../../../shaders/caster.wgsl")),
    ("frame.wgsl", include_str!("../../../shaders/frame.wgsl")),
    ("lights.wgsl", include_str!("../../../shaders/lights.wgsl")),
];

/// How deep imports may nest (a chain of distinct files; circles are caught
/// before this).
const MAX_DEPTH: usize = 32;

/// Reads `file` from [`EMBEDDED`]: what the shaders compiled into the binary
/// import (they are named by bare file names, so their imports are too).
///
/// # Errors
/// `NotFound` for a file that is not among them.
pub fn embedded(file: &Path) -> io::Result<String> {
    EMBEDDED
        .iter()
        .find(|(name, _)| Path::new(name) == file)
        .map(|(_, text)| (*text).to_string())
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                "not among the shader pieces compiled into the binary",
            )
        })
}

/// A shader's text with its imports written in, and where each line came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Composed {
    text: String,
    /// Every file written in, the shader's own first.
    files: Vec<PathBuf>,
    /// Per line of `text`: the index in `files` and the 1-based line there.
    lines: Vec<(usize, u32)>,
    /// How many lines the shader's own file has.
    root_lines: u32,
}

impl Composed {
    /// The composed WGSL.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The composed WGSL, owned.
    pub fn into_text(self) -> String {
        self.text
    }

    /// Every file written in: the shader's own first, then its imports in the
    /// order they were reached.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// The file and 1-based line that 1-based `line` of the composed text
    /// came from. A line past the end (naga names one for a missing closing
    /// brace) is past the end of the shader's own file.
    pub fn locate(&self, line: u32) -> (&Path, u32) {
        let index = line.saturating_sub(1) as usize;
        match self.lines.get(index) {
            Some(&(file, line)) => (&self.files[file], line),
            None => {
                let past = to_u32(index - self.lines.len().min(index));
                (
                    &self.files[0],
                    self.root_lines.saturating_add(past).saturating_add(1),
                )
            }
        }
    }

    /// The error naga reported at `location` in the composed text, placed in
    /// the file and line it came from (the shader's first line when naga
    /// gave no place).
    pub fn error(&self, location: Option<naga::SourceLocation>, message: String) -> ShaderError {
        let (file, line, column) = match location {
            Some(at) => {
                let (file, line) = self.locate(at.line_number);
                (file, line, at.line_position)
            }
            None => (self.files[0].as_path(), 1, 1),
        };
        ShaderError {
            file: file.to_path_buf(),
            line,
            column,
            message,
        }
    }
}

/// Writes the imports of `text` (the contents of `file`) in, reading each
/// imported file with `load`.
///
/// # Errors
/// A malformed `#import` line, a file `load` cannot read (named at the
/// importing line), a circle of imports, or imports nested too deep.
pub fn compose(
    file: &Path,
    text: &str,
    load: &mut dyn FnMut(&Path) -> io::Result<String>,
) -> Result<Composed, ShaderError> {
    let mut composer = Composer {
        load,
        out: Composed {
            text: String::with_capacity(text.len()),
            files: vec![normalize(file)],
            lines: Vec::new(),
            root_lines: to_u32(text.split_inclusive('\n').count()),
        },
        stack: Vec::new(),
    };
    composer.write(0, text)?;
    Ok(composer.out)
}

/// Whether `file` imports `target`, directly or through the files it imports
/// (files that cannot be read, and malformed lines, are passed over). Paths
/// are compared as written, after `.` and `..` are resolved.
pub fn imports_reach(
    file: &Path,
    target: &Path,
    load: &mut dyn FnMut(&Path) -> io::Result<String>,
) -> bool {
    let target = normalize(target);
    let mut seen = vec![normalize(file)];
    let mut next = seen.clone();
    while let Some(file) = next.pop() {
        let Ok(text) = load(&file) else { continue };
        for line in text.lines() {
            let Line::Import { name, .. } = directive(line) else {
                continue;
            };
            let imported = resolve(&file, name);
            if imported == target {
                return true;
            }
            if !seen.contains(&imported) {
                seen.push(imported.clone());
                next.push(imported);
            }
        }
    }
    false
}

struct Composer<'a> {
    load: &'a mut dyn FnMut(&Path) -> io::Result<String>,
    out: Composed,
    /// The files being written in, outermost first (indices into `files`).
    stack: Vec<usize>,
}

impl Composer<'_> {
    /// Appends `text`, the contents of file `index`, its imports written in.
    fn write(&mut self, index: usize, text: &str) -> Result<(), ShaderError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.fail(
                index,
                1,
                1,
                format!("imports nest deeper than {MAX_DEPTH} files"),
            ));
        }
        self.stack.push(index);
        for (number, line) in text.split_inclusive('\n').enumerate() {
            let number = to_u32(number + 1);
            let (name, column) = match directive(line) {
                Line::Text => {
                    self.out.text.push_str(line);
                    self.out.lines.push((index, number));
                    continue;
                }
                Line::Malformed { message, column } => {
                    return Err(self.fail(index, number, column, message.to_string()));
                }
                Line::Import { name, column } => (name, column),
            };
            let path = resolve(&self.out.files[index], name);
            if let Some(at) = self.out.files.iter().position(|f| *f == path) {
                if let Some(start) = self.stack.iter().position(|&i| i == at) {
                    let circle: Vec<String> = self.stack[start..]
                        .iter()
                        .map(|&i| self.out.files[i].display().to_string())
                        .chain([path.display().to_string()])
                        .collect();
                    let message = format!("import circle: {}", circle.join(" -> "));
                    return Err(self.fail(index, number, column, message));
                }
                // Written in already: once is enough.
                continue;
            }
            let imported = (self.load)(&path).map_err(|e| {
                let message = format!("cannot import {}: {e}", path.display());
                self.fail(index, number, column, message)
            })?;
            self.out.files.push(path);
            self.write(self.out.files.len() - 1, &imported)?;
            // An imported file's last line may lack its newline.
            if !self.out.text.is_empty() && !self.out.text.ends_with('\n') {
                self.out.text.push('\n');
            }
        }
        self.stack.pop();
        Ok(())
    }

    fn fail(&self, index: usize, line: u32, column: u32, message: String) -> ShaderError {
        ShaderError {
            file: self.out.files[index].clone(),
            line,
            column,
            message,
        }
    }
}

/// A line of WGSL as the composer reads it.
enum Line<'a> {
    /// WGSL, kept as it is.
    Text,
    /// `#import "name"`, its opening quote at 1-based `column`.
    Import { name: &'a str, column: u32 },
    /// An `#import` line that names no file: what is wrong, and where.
    Malformed { message: &'static str, column: u32 },
}

/// Reads `line` (its newline included or not) as WGSL or an `#import`.
fn directive(line: &str) -> Line<'_> {
    let line = line.trim_end_matches(['\n', '\r']);
    let Some(rest) = line.trim_start().strip_prefix("#import") else {
        return Line::Text;
    };
    // The column where a tail of `line`, `len` bytes long, starts.
    let column = |len: usize| to_u32(line.len() - len + 1);
    let malformed = |message, tail: &str| Line::Malformed {
        message,
        column: column(tail.len()),
    };
    let expected = "expected a quoted file name: #import \"file.wgsl\"";
    let name_start = rest.trim_start();
    if name_start.len() == rest.len() && !rest.is_empty() {
        // `#imports ...`: not the directive, and not WGSL either.
        return malformed(expected, rest);
    }
    let Some(quoted) = name_start.strip_prefix('"') else {
        return malformed(expected, name_start);
    };
    let Some(end) = quoted.find('"') else {
        return malformed("the file name has no closing quote", name_start);
    };
    let name = &quoted[..end];
    if name.trim().is_empty() {
        return malformed("the file name is empty", name_start);
    }
    let after = quoted[end + 1..].trim_start();
    if !after.is_empty() && !after.starts_with("//") {
        return malformed("only a `//` comment may follow the file name", after);
    }
    Line::Import {
        name,
        column: column(name_start.len()),
    }
}

/// `name` as imported by `importer`: beside it, `.` and `..` resolved.
fn resolve(importer: &Path, name: &str) -> PathBuf {
    normalize(&importer.parent().unwrap_or(Path::new("")).join(name))
}

/// `path` with `.` dropped and `..` taking back the folder before it (where
/// there is one to take back).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests;
