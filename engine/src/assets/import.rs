//! The model importers: the seam a file format joins the engine through.
//!
//! A [`ModelImporter`] names its format and extensions and reads a file into
//! the engine-neutral [`ModelData`], with an error type of its own. Every
//! [`Assets`](crate::assets::Assets) keeps a list of them ([`Importers`]):
//! glTF and Wavefront OBJ come built in, and a game adds its own through
//! [`Plugin::importers`](crate::Plugin::importers). Whatever asks which files
//! are models (loading, hot reload, the editor's file dialog, drag and drop
//! and asset browser) asks that list, so a format added there is found
//! everywhere at once.
//!
//! Pattern: none of the book's; a registry of strategies at the data boundary.

use std::error::Error;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::ModelData;
use crate::files::{FileKind, ReadLimits};

/// A model file format: its extensions and the import into [`ModelData`].
///
/// The import checks everything (ranges, indices, images) and returns plain
/// owned data; a malformed file gives [`Self::Error`], whose message starts
/// with the file and names the element or line at fault, never a panic.
pub trait ModelImporter: Send + Sync + 'static {
    /// Why a file could not be imported.
    type Error: Error + Send + Sync + 'static;

    /// The format's name, for messages and the file dialog (`"glTF 2.0"`).
    fn format(&self) -> &'static str;

    /// The file extensions it reads, lower case, without the dot.
    fn extensions(&self) -> &'static [&'static str];

    /// Reads and imports the file at `path`, reading it and every file it
    /// names within `limits`. The files it read besides `path` go in
    /// [`ModelData::files`], so that a change to one reloads the model.
    ///
    /// # Errors
    /// The format's own error, naming the file and what is wrong in it.
    fn import(&self, path: &Path, limits: &ReadLimits) -> Result<ModelData, Self::Error>;
}

/// Why a model file could not be imported.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// No importer of this store reads files with this extension.
    #[error(
        "{}: no model importer reads `{extension}` files: expected one of {expected}",
        path.display()
    )]
    UnknownFormat {
        /// The file.
        path: PathBuf,
        /// Its extension as written (empty for none).
        extension: String,
        /// The extensions the store's importers read.
        expected: String,
    },
    /// The path names no readable file (checked before its extension).
    #[error("{}: cannot read the file: {source}", path.display())]
    Unreadable {
        /// The path.
        path: PathBuf,
        /// What the file system said.
        source: std::io::Error,
    },
    /// The format's importer refused the file; its error names the file and
    /// the element or line at fault.
    #[error("{error}")]
    Import {
        /// The importer's [`ModelImporter::format`].
        format: &'static str,
        /// The importer's error.
        error: Box<dyn Error + Send + Sync>,
    },
}

impl ModelError {
    /// The importer's own error, if it is an `E` (a glTF file's
    /// [`GltfError`](crate::assets::gltf::GltfError), an OBJ file's
    /// [`ObjError`](crate::assets::obj::ObjError)).
    #[must_use]
    pub fn import_error<E: Error + 'static>(&self) -> Option<&E> {
        match self {
            ModelError::Import { error, .. } => error.downcast_ref(),
            ModelError::UnknownFormat { .. } | ModelError::Unreadable { .. } => None,
        }
    }
}

/// An importer behind a pointer, its error boxed: what [`Importers`] holds.
trait AnyImporter: Send + Sync {
    fn format(&self) -> &'static str;
    fn extensions(&self) -> &'static [&'static str];
    fn import(&self, path: &Path, limits: &ReadLimits) -> Result<ModelData, ModelError>;
}

impl<T: ModelImporter> AnyImporter for T {
    fn format(&self) -> &'static str {
        ModelImporter::format(self)
    }

    fn extensions(&self) -> &'static [&'static str] {
        ModelImporter::extensions(self)
    }

    fn import(&self, path: &Path, limits: &ReadLimits) -> Result<ModelData, ModelError> {
        ModelImporter::import(self, path, limits).map_err(|error| ModelError::Import {
            format: ModelImporter::format(self),
            error: Box::new(error),
        })
    }
}

/// The importers of one store, in the order added: the first whose
/// extensions name a file's imports it. Cheap to clone. The default (glTF,
/// then Wavefront OBJ) is made in the `assets` module, above the formats.
#[derive(Clone)]
pub struct Importers {
    list: Vec<Arc<dyn AnyImporter>>,
}

impl std::fmt::Debug for Importers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.list.iter().map(|i| i.format()))
            .finish()
    }
}

impl Importers {
    /// No importer at all: no file is a model.
    #[must_use]
    pub fn empty() -> Self {
        Self { list: Vec::new() }
    }

    /// Adds `importer` after the ones there (an extension already taken
    /// stays with the earlier one).
    #[must_use]
    pub fn with(mut self, importer: impl ModelImporter) -> Self {
        self.add(importer);
        self
    }

    /// Adds `importer` after the ones there.
    pub fn add(&mut self, importer: impl ModelImporter) {
        self.list.push(Arc::new(importer));
    }

    /// Every extension a model file may have, lower case, in the order added.
    #[must_use]
    pub fn extensions(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for extension in self.list.iter().flat_map(|i| i.extensions()) {
            if !out.contains(extension) {
                out.push(extension);
            }
        }
        out
    }

    /// The formats, each with its extensions, in the order added (for a file
    /// dialog's filters).
    #[must_use]
    pub fn formats(&self) -> Vec<(&'static str, &'static [&'static str])> {
        self.list
            .iter()
            .map(|i| (i.format(), i.extensions()))
            .collect()
    }

    /// Whether an importer reads files named like `path` (by its extension,
    /// in any case).
    #[must_use]
    pub fn reads(&self, path: &Path) -> bool {
        self.find(path).is_some()
    }

    fn find(&self, path: &Path) -> Option<&dyn AnyImporter> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        self.list
            .iter()
            .find(|i| i.extensions().contains(&extension.as_str()))
            .map(|i| &**i)
    }

    /// Imports the file at `path` with the importer its extension names.
    ///
    /// # Errors
    /// [`ModelError::Unreadable`] for a path that is no readable file (a
    /// folder, a device, a missing file) whatever its name;
    /// [`ModelError::UnknownFormat`] when no importer reads it; else the
    /// importer's error.
    pub fn import(&self, path: &Path, limits: &ReadLimits) -> Result<ModelData, ModelError> {
        match self.find(path) {
            Some(importer) => importer.import(path, limits),
            None => Err(
                match crate::files::check_path(path, FileKind::Model, limits) {
                    Err(source) => ModelError::Unreadable {
                        path: path.to_path_buf(),
                        source,
                    },
                    Ok(()) => ModelError::UnknownFormat {
                        path: path.to_path_buf(),
                        extension: path
                            .extension()
                            .map_or_else(String::new, |e| format!(".{}", e.to_string_lossy())),
                        expected: self
                            .extensions()
                            .iter()
                            .map(|e| format!(".{e}"))
                            .collect::<Vec<_>>()
                            .join(", "),
                    },
                },
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A format of one extension that imports an empty model, or refuses.
    struct Empty(bool);

    #[derive(Debug, thiserror::Error)]
    #[error("refused")]
    struct Refused;

    impl ModelImporter for Empty {
        type Error = Refused;
        fn format(&self) -> &'static str {
            "empty"
        }
        fn extensions(&self) -> &'static [&'static str] {
            &["empty", "glb"]
        }
        fn import(&self, path: &Path, _: &ReadLimits) -> Result<ModelData, Refused> {
            if self.0 {
                Ok(ModelData {
                    path: path.to_path_buf(),
                    ..ModelData::default()
                })
            } else {
                Err(Refused)
            }
        }
    }

    #[test]
    fn the_extension_picks_the_importer_in_any_case_and_the_first_added_wins() {
        let importers = Importers::default().with(Empty(true));
        assert_eq!(importers.extensions(), ["gltf", "glb", "obj", "empty"]);
        assert!(importers.reads(Path::new("a/B.EMPTY")));
        assert!(importers.reads(Path::new("a/b.Obj")));
        assert!(!importers.reads(Path::new("a/b.fbx")));
        assert!(!importers.reads(Path::new("a/glb")));
        let limits = ReadLimits::DEFAULT;
        let model = importers.import(Path::new("x.EMPTY"), &limits).unwrap();
        assert_eq!(model.path, Path::new("x.EMPTY"));
        // `.glb` stays glTF's: the missing file is glTF's error.
        let error = importers.import(Path::new("missing.glb"), &limits);
        let error = error.unwrap_err();
        assert!(
            error
                .import_error::<crate::assets::gltf::GltfError>()
                .is_some(),
            "{error:?}"
        );
    }

    #[test]
    fn an_unknown_extension_names_the_file_and_the_ones_expected() {
        let dir = tempfile::tempdir().unwrap();
        let ship = dir.path().join("ship.fbx");
        std::fs::write(&ship, b"Kaydara FBX Binary").unwrap();
        let error = Importers::default()
            .import(&ship, &ReadLimits::DEFAULT)
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "{}: no model importer reads `.fbx` files: expected one of .gltf, .glb, .obj",
                ship.display()
            )
        );
        // A folder is refused as what it is, whatever its name.
        let error = Importers::default()
            .import(dir.path(), &ReadLimits::DEFAULT)
            .unwrap_err();
        assert!(matches!(error, ModelError::Unreadable { .. }), "{error}");
        assert!(error.to_string().contains("a folder"), "{error}");
        let error = Importers::empty()
            .with(Empty(false))
            .import(Path::new("a.empty"), &ReadLimits::DEFAULT)
            .unwrap_err();
        assert_eq!(error.to_string(), "refused");
        assert!(error.import_error::<Refused>().is_some());
    }
}
