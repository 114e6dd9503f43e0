//! Where a glTF file's bytes come from: buffers and images behind data URIs,
//! external files or the GLB `BIN` chunk, and the range checks that keep every
//! read inside them.

use std::borrow::Cow;
use std::ops::Range;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use gltf::accessor::{DataType, Dimensions};
use gltf::buffer;

use super::GltfError;
use crate::files::{FileKind, ReadLimits};

/// Accessors with no buffer view are all zeros (plus sparse values); their
/// count is not bounded by any data, so it is bounded here to keep a
/// malformed count from allocating gigabytes.
const MAX_UNBACKED_ELEMENTS: usize = 1 << 24;

/// Longest stretch of a URI quoted in a message.
const QUOTED_URI_CHARS: usize = 64;

/// What an accessor must look like for one use.
pub(super) struct Layout {
    /// Vector shape (`Vec3` for positions).
    pub dimensions: Dimensions,
    /// Component types accepted.
    pub types: &'static [DataType],
}

/// The resolved bytes of every buffer of one file, each cut to its `byteLength`.
pub(super) struct Sources {
    path: PathBuf,
    buffers: Vec<Vec<u8>>,
    /// The caps external files are read within.
    limits: ReadLimits,
}

impl Sources {
    /// Reads every buffer of `document`: the GLB `blob`, data URIs or files
    /// beside `path`.
    pub fn resolve(
        document: &gltf::Document,
        mut blob: Option<Vec<u8>>,
        path: &Path,
        limits: &ReadLimits,
    ) -> Result<Self, GltfError> {
        let mut buffers = Vec::with_capacity(document.buffers().len());
        for buffer in document.buffers() {
            let element = format!("buffers[{}]", buffer.index());
            let (mut data, within) = match buffer.source() {
                buffer::Source::Bin => {
                    let data = blob.take().ok_or_else(|| GltfError::MissingBin {
                        path: path.to_path_buf(),
                        element: element.clone(),
                    })?;
                    (data, "the BIN chunk".to_owned())
                }
                buffer::Source::Uri(uri) => (
                    read_uri(uri, &element, path, limits)?,
                    format!("`{}`", quote(uri)),
                ),
            };
            if data.len() < buffer.length() {
                return Err(GltfError::OutOfBounds {
                    path: path.to_path_buf(),
                    element,
                    within,
                    needed: to_u64(buffer.length()),
                    available: to_u64(data.len()),
                });
            }
            data.truncate(buffer.length());
            buffers.push(data);
        }
        Ok(Self {
            path: path.to_path_buf(),
            buffers,
            limits: limits.clone(),
        })
    }

    /// The bytes of buffer `index`, for the gltf crate's readers.
    pub fn buffer(&self, index: usize) -> Option<&[u8]> {
        self.buffers.get(index).map(Vec::as_slice)
    }

    /// The bytes of a buffer view, checked against its buffer.
    pub fn view_bytes(&self, view: &buffer::View<'_>) -> Result<&[u8], GltfError> {
        let range = self.view_range(view)?;
        Ok(&self.buffers[view.buffer().index()][range])
    }

    fn view_range(&self, view: &buffer::View<'_>) -> Result<Range<usize>, GltfError> {
        let buffer = view.buffer().index();
        let available = self.buffers.get(buffer).map_or(0, Vec::len);
        let start = view.offset();
        match start.checked_add(view.length()) {
            Some(end) if end <= available => Ok(start..end),
            end => Err(GltfError::OutOfBounds {
                path: self.path.clone(),
                element: format!("bufferViews[{}]", view.index()),
                within: format!("buffers[{buffer}]"),
                needed: end.map_or(u64::MAX, to_u64),
                available: to_u64(available),
            }),
        }
    }

    /// Checks that `accessor` has the `layout` its use needs and that every
    /// byte the gltf crate's reader will touch lies inside its buffer views, so
    /// the reader neither panics nor silently stops short.
    pub fn check_accessor(
        &self,
        accessor: &gltf::Accessor<'_>,
        usage: &str,
        layout: &Layout,
    ) -> Result<(), GltfError> {
        let element = format!("accessors[{}] ({usage})", accessor.index());
        let bad = |expected: String, found: String| GltfError::BadAccessor {
            path: self.path.clone(),
            element: element.clone(),
            expected,
            found,
        };
        if accessor.dimensions() != layout.dimensions
            || !layout.types.contains(&accessor.data_type())
        {
            return Err(bad(
                format!("{:?} of {:?}", layout.dimensions, layout.types),
                format!("{:?} of {:?}", accessor.dimensions(), accessor.data_type()),
            ));
        }
        let count = accessor.count();
        if count == 0 {
            return Err(bad("at least one element".into(), "count 0".into()));
        }
        let size = accessor.size();
        match accessor.view() {
            Some(view) => {
                self.check_span(&element, &view, accessor.offset(), count, size)?;
            }
            None if count > MAX_UNBACKED_ELEMENTS => {
                return Err(bad(
                    format!("at most {MAX_UNBACKED_ELEMENTS} elements without a bufferView"),
                    format!("count {count}"),
                ));
            }
            None => {}
        }
        if let Some(sparse) = accessor.sparse() {
            let sparse_count = sparse.count();
            if sparse_count == 0 || sparse_count > count {
                return Err(bad(
                    format!("a sparse count from 1 to {count}"),
                    format!("{sparse_count}"),
                ));
            }
            let indices = sparse.indices();
            self.check_span(
                &format!("{element}.sparse.indices"),
                &indices.view(),
                indices.offset(),
                sparse_count,
                indices.index_type().size(),
            )?;
            let values = sparse.values();
            self.check_span(
                &format!("{element}.sparse.values"),
                &values.view(),
                values.offset(),
                sparse_count,
                size,
            )?;
        }
        Ok(())
    }

    /// Checks `count` elements of `size` bytes from `offset` into `view`, with
    /// the view's stride, the way the gltf crate's reader will slice them.
    fn check_span(
        &self,
        element: &str,
        view: &buffer::View<'_>,
        offset: usize,
        count: usize,
        size: usize,
    ) -> Result<(), GltfError> {
        let stride = view.stride().unwrap_or(size);
        if stride < size {
            return Err(GltfError::BadAccessor {
                path: self.path.clone(),
                element: element.to_owned(),
                expected: format!("a byteStride of at least the element size {size}"),
                found: format!("bufferViews[{}] with byteStride {stride}", view.index()),
            });
        }
        self.view_range(view)?;
        let needed = stride
            .checked_mul(count - 1)
            .and_then(|span| span.checked_add(size))
            .and_then(|span| span.checked_add(offset));
        match needed {
            Some(end) if end <= view.length() => Ok(()),
            end => Err(GltfError::OutOfBounds {
                path: self.path.clone(),
                element: element.to_owned(),
                within: format!("bufferViews[{}]", view.index()),
                needed: end.map_or(u64::MAX, to_u64),
                available: to_u64(view.length()),
            }),
        }
    }

    /// The encoded bytes of `images[index]`: a buffer view, a data URI or a file.
    pub fn image_bytes(
        &self,
        document: &gltf::Document,
        index: usize,
        element: &str,
    ) -> Result<Cow<'_, [u8]>, GltfError> {
        let image = &document.as_json().images[index];
        if let Some(view) = image.buffer_view {
            let view = document
                .views()
                .nth(view.value())
                .ok_or_else(|| GltfError::Parse {
                    path: self.path.clone(),
                    message: format!("{element}: bufferView {} does not exist", view.value()),
                })?;
            return self.view_bytes(&view).map(Cow::Borrowed);
        }
        match &image.uri {
            Some(uri) => read_uri(uri, element, &self.path, &self.limits).map(Cow::Owned),
            None => Err(GltfError::Texture {
                path: self.path.clone(),
                element: element.to_owned(),
                message: "expected a uri or a bufferView, found neither".into(),
            }),
        }
    }
}

/// The bytes a buffer or image URI names: a base64 `data:` URI or a file
/// relative to the model file's folder (read within `limits`).
pub(super) fn read_uri(
    uri: &str,
    element: &str,
    path: &Path,
    limits: &ReadLimits,
) -> Result<Vec<u8>, GltfError> {
    let bad = |reason: &str| GltfError::BadUri {
        path: path.to_path_buf(),
        element: element.to_owned(),
        uri: quote(uri).to_owned(),
        reason: reason.to_owned(),
    };
    if let Some(data) = uri.strip_prefix("data:") {
        let (header, payload) = data
            .split_once(',')
            .ok_or_else(|| bad("expected a comma after the data URI's media type"))?;
        if !header.ends_with(";base64") {
            return Err(bad("expected a base64 data URI"));
        }
        return base64::engine::general_purpose::STANDARD
            .decode(payload)
            .map_err(|e| bad(&format!("bad base64: {e}")));
    }
    if has_scheme(uri) {
        return Err(bad(
            "expected a data URI or a path relative to the model file",
        ));
    }
    let relative = percent_decode(uri).ok_or_else(|| bad("bad percent-encoding"))?;
    let file = path.parent().unwrap_or(Path::new("")).join(relative);
    let kind = if element.starts_with("images") {
        FileKind::Image
    } else {
        FileKind::Model
    };
    crate::files::read(&file, kind, limits).map_err(|source| GltfError::MissingFile {
        path: path.to_path_buf(),
        element: element.to_owned(),
        file,
        source,
    })
}

/// Whether `uri` starts with a scheme (`http:`, `file:`); a single letter
/// before the colon is taken as a Windows drive, not a scheme.
fn has_scheme(uri: &str) -> bool {
    uri.split_once(':').is_some_and(|(scheme, _)| {
        scheme.len() > 1
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    })
}

/// Decodes `%XX` escapes (glTF URIs are URI-encoded: a space is `%20`).
/// `None` on a malformed escape or bytes that are not UTF-8.
pub(super) fn percent_decode(uri: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(uri.len());
    let mut rest = uri.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        if byte == b'%' {
            let hex = tail
                .get(..2)
                .filter(|h| h.iter().all(u8::is_ascii_hexdigit))?;
            bytes.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
            rest = &tail[2..];
        } else {
            bytes.push(byte);
            rest = tail;
        }
    }
    String::from_utf8(bytes).ok()
}

/// `uri`, cut short: data URIs can be megabytes long.
fn quote(uri: &str) -> &str {
    uri.char_indices()
        .nth(QUOTED_URI_CHARS)
        .map_or(uri, |(end, _)| &uri[..end])
}

fn to_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}
