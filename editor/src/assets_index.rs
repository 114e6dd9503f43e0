//! What the asset browser shows, gathered off the UI thread: the project's
//! files (listed by a background thread, again when the folder changes), and
//! thumbnails: images decoded and shrunk by a worker thread, models drawn
//! off-screen by the shell's GPU (one a frame). Each thumbnail is cached on
//! disk under `.keel/thumbnails/` beside the folder, named by a hash of the
//! file's bytes, so a changed file gets a new one and an unchanged one is
//! read back instead of made again.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};

use image::RgbaImage;
use keel_engine::assets::Importers;
use keel_engine::files::{FileKind, ReadLimits};

/// Side of a thumbnail, in pixels.
pub const THUMBNAIL: u32 = 64;

/// What kind of file an asset is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AssetKind {
    /// A scene file (`.ron`), usable as a prefab.
    Scene,
    /// A glTF model.
    Model,
    /// An image (a texture or a sky).
    Texture,
    /// A WGSL shader.
    Shader,
    /// Anything else.
    Other,
}

impl AssetKind {
    /// The kind of `path`, by its extension (a model's: one `models` reads).
    pub fn of(path: &Path, models: &Importers) -> Self {
        if models.reads(path) {
            return AssetKind::Model;
        }
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        match ext.as_str() {
            "ron" => AssetKind::Scene,
            "png" | "jpg" | "jpeg" | "hdr" => AssetKind::Texture,
            "wgsl" => AssetKind::Shader,
            _ => AssetKind::Other,
        }
    }

    /// The label shown beside the name.
    pub fn label(self) -> &'static str {
        match self {
            AssetKind::Scene => "scene",
            AssetKind::Model => "model",
            AssetKind::Texture => "image",
            AssetKind::Shader => "shader",
            AssetKind::Other => "file",
        }
    }

    /// Whether it can be dropped into a scene (a model or a prefab).
    pub fn placeable(self) -> bool {
        matches!(self, AssetKind::Scene | AssetKind::Model)
    }
}

/// One file of the project.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssetEntry {
    /// The file.
    pub path: PathBuf,
    /// Its path below the root, `/`-separated (what the filter matches).
    pub relative: String,
    /// Its kind.
    pub kind: AssetKind,
}

/// A thumbnail's state.
#[derive(Clone, Debug)]
pub enum Thumbnail {
    /// Asked for, not made yet.
    Pending,
    /// Made (or read from the cache).
    Ready(RgbaImage),
    /// Could not be made (a broken file): the kind's label stands in.
    Failed,
}

/// What the worker thread made of a file.
enum Made {
    Image(RgbaImage),
    Failed,
    /// A model not in the cache: the shell's GPU must draw it.
    NeedsDrawing,
}

/// The project's files and their thumbnails.
pub struct AssetIndex {
    root: PathBuf,
    /// The model formats of the edited scene's store.
    formats: Importers,
    entries: Vec<AssetEntry>,
    listing: Option<Receiver<Vec<AssetEntry>>>,
    thumbnails: HashMap<PathBuf, Thumbnail>,
    /// Files for the worker thread: images to shrink, models to look up in the cache.
    jobs: Sender<(PathBuf, AssetKind)>,
    made: Receiver<(PathBuf, Made)>,
    /// Models waiting for the shell's GPU.
    models: VecDeque<PathBuf>,
    /// Bumped whenever the listing or a thumbnail changes.
    version: u64,
}

impl std::fmt::Debug for AssetIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "AssetIndex({}, {} files)",
            self.root.display(),
            self.entries.len()
        )
    }
}

impl AssetIndex {
    /// An index of `root`, listed in the background from now on; the files
    /// `formats` reads are its models.
    pub fn new(root: PathBuf, formats: Importers) -> Self {
        let (jobs, queue) = channel::<(PathBuf, AssetKind)>();
        let (done, made) = channel();
        let cache = root.join(".keel").join("thumbnails");
        std::thread::Builder::new()
            .name("asset thumbnails".into())
            .spawn(move || {
                for (file, kind) in queue {
                    let outcome = match (kind, cached(&cache, &file)) {
                        (_, Some(image)) => Made::Image(image),
                        (AssetKind::Model, None) => Made::NeedsDrawing,
                        (_, None) => {
                            image_thumbnail(&file, &cache).map_or(Made::Failed, Made::Image)
                        }
                    };
                    if done.send((file, outcome)).is_err() {
                        break;
                    }
                }
            })
            .ok();
        let mut index = Self {
            root,
            formats,
            entries: Vec::new(),
            listing: None,
            thumbnails: HashMap::new(),
            jobs,
            made,
            models: VecDeque::new(),
            version: 0,
        };
        index.rescan();
        index
    }

    /// The folder listed.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Lists the folder again (in the background); the old list stays shown
    /// until the new one is in.
    pub fn rescan(&mut self) {
        let (tx, rx) = channel();
        let root = self.root.clone();
        let formats = self.formats.clone();
        std::thread::Builder::new()
            .name("asset listing".into())
            .spawn(move || {
                let _ = tx.send(list(&root, &formats));
            })
            .ok();
        self.listing = Some(rx);
    }

    /// Takes in what the background threads finished; call once a frame.
    pub fn poll(&mut self) {
        if let Some(rx) = &self.listing
            && let Ok(entries) = rx.try_recv()
        {
            self.entries = entries;
            self.listing = None;
            self.version += 1;
        }
        for (file, made) in self.made.try_iter() {
            let state = match made {
                Made::Image(image) => Thumbnail::Ready(image),
                Made::Failed => Thumbnail::Failed,
                Made::NeedsDrawing => {
                    self.models.push_back(file.clone());
                    Thumbnail::Pending
                }
            };
            self.thumbnails.insert(file, state);
            self.version += 1;
        }
    }

    /// Whether a listing is still being made.
    pub fn listing(&self) -> bool {
        self.listing.is_some()
    }

    /// The files, sorted by path.
    pub fn entries(&self) -> &[AssetEntry] {
        &self.entries
    }

    /// Changes whenever the listing or a thumbnail does.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The thumbnail of `entry`, asked for on first call (the worker thread
    /// shrinks images and looks models up in the cache; models not there
    /// wait for [`AssetIndex::next_model`]).
    pub fn thumbnail(&mut self, entry: &AssetEntry) -> &Thumbnail {
        if !self.thumbnails.contains_key(&entry.path) {
            let state = match entry.kind {
                AssetKind::Texture | AssetKind::Model => {
                    let _ = self.jobs.send((entry.path.clone(), entry.kind));
                    Thumbnail::Pending
                }
                _ => Thumbnail::Failed,
            };
            self.thumbnails.insert(entry.path.clone(), state);
        }
        &self.thumbnails[&entry.path]
    }

    /// How many thumbnails are (pending, made).
    pub fn thumbnail_counts(&self) -> (usize, usize) {
        let pending = self
            .thumbnails
            .values()
            .filter(|t| matches!(t, Thumbnail::Pending))
            .count();
        let made = self
            .thumbnails
            .values()
            .filter(|t| matches!(t, Thumbnail::Ready(_)))
            .count();
        (pending, made)
    }

    /// A model whose thumbnail the shell should draw, if any is waiting.
    pub fn next_model(&mut self) -> Option<PathBuf> {
        self.models.pop_front()
    }

    /// The shell's drawing of a model's thumbnail (`None`: it could not).
    pub fn put_model_thumbnail(&mut self, file: &Path, image: Option<RgbaImage>) {
        if let Some(image) = &image {
            store(&self.cache_dir(), file, image);
        }
        let state = image.map_or(Thumbnail::Failed, Thumbnail::Ready);
        self.thumbnails.insert(file.to_path_buf(), state);
        self.version += 1;
    }

    /// Forgets the thumbnails of `files` (changed on disk): they are made again.
    pub fn forget(&mut self, files: &[PathBuf]) {
        for file in files {
            self.thumbnails.remove(file);
        }
        self.version += 1;
    }

    fn cache_dir(&self) -> PathBuf {
        self.root.join(".keel").join("thumbnails")
    }
}

/// Every file under `root` (hidden ones left out), sorted by path.
fn list(root: &Path, models: &Importers) -> Vec<AssetEntry> {
    let mut out = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(read) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in read.flatten() {
            let path = entry.path();
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            match entry.file_type() {
                Ok(t) if t.is_dir() => folders.push(path),
                Ok(t) if t.is_file() => {
                    let relative = path
                        .strip_prefix(root)
                        .unwrap_or(&path)
                        .to_string_lossy()
                        .replace('\\', "/");
                    out.push(AssetEntry {
                        kind: AssetKind::of(&path, models),
                        path,
                        relative,
                    });
                }
                _ => {}
            }
        }
    }
    out.sort_by(|a, b| a.relative.cmp(&b.relative));
    out
}

/// Where the thumbnail of `file`'s current bytes is cached.
fn cache_path(cache: &Path, file: &Path) -> Option<PathBuf> {
    // The file as its import reads it (a regular file within its kind's cap).
    let kind = match file.extension().and_then(|e| e.to_str()) {
        Some("png" | "jpg" | "jpeg" | "hdr") => FileKind::Image,
        _ => FileKind::Model,
    };
    let bytes = keel_engine::files::read(file, kind, &ReadLimits::from_env()).ok()?;
    let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
    Some(cache.join(format!("{hash:016x}.png")))
}

fn cached(cache: &Path, file: &Path) -> Option<RgbaImage> {
    let path = cache_path(cache, file)?;
    Some(image::open(path).ok()?.to_rgba8())
}

fn store(cache: &Path, file: &Path, image: &RgbaImage) {
    let Some(path) = cache_path(cache, file) else {
        return;
    };
    if std::fs::create_dir_all(cache).is_ok() {
        let mut png = Vec::new();
        let encoded = image
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .is_ok();
        if encoded && let Err(e) = keel_engine::files::write_atomically(&path, &png) {
            log::warn!("thumbnail cache {}: {e}", path.display());
        }
    }
}

/// An image file shrunk to fit [`THUMBNAIL`] (from the cache when its bytes
/// were seen before).
fn image_thumbnail(file: &Path, cache: &Path) -> Option<RgbaImage> {
    if let Some(image) = cached(cache, file) {
        return Some(image);
    }
    let image = image::open(file).ok()?;
    let small = if image.width() > THUMBNAIL || image.height() > THUMBNAIL {
        image.thumbnail(THUMBNAIL, THUMBNAIL).to_rgba8()
    } else {
        image.to_rgba8()
    };
    store(cache, file, &small);
    Some(small)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait(index: &mut AssetIndex, mut done: impl FnMut(&mut AssetIndex) -> bool) {
        let start = std::time::Instant::now();
        while !done(index) {
            assert!(start.elapsed().as_secs() < 10, "timed out");
            std::thread::sleep(std::time::Duration::from_millis(5));
            index.poll();
        }
    }

    #[test]
    fn the_folder_is_listed_in_the_background_and_images_get_cached_thumbnails() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("textures")).unwrap();
        let png = dir.path().join("textures/wood.png");
        RgbaImage::from_pixel(200, 100, image::Rgba([200, 100, 50, 255]))
            .save(&png)
            .unwrap();
        std::fs::write(dir.path().join("boat.ron"), "()").unwrap();
        std::fs::write(dir.path().join(".hidden"), "x").unwrap();
        let mut index = AssetIndex::new(dir.path().to_path_buf(), Importers::default());
        wait(&mut index, |i| !i.listing());
        let names: Vec<_> = index.entries().iter().map(|e| e.relative.clone()).collect();
        assert_eq!(names, ["boat.ron", "textures/wood.png"]);
        assert_eq!(index.entries()[0].kind, AssetKind::Scene);

        let wood = index.entries()[1].clone();
        assert!(matches!(index.thumbnail(&wood), Thumbnail::Pending));
        wait(&mut index, |i| {
            !matches!(i.thumbnail(&wood), Thumbnail::Pending)
        });
        let Thumbnail::Ready(image) = index.thumbnail(&wood) else {
            panic!("the image has a thumbnail");
        };
        assert_eq!((image.width(), image.height()), (64, 32), "aspect kept");
        let cached: Vec<_> = std::fs::read_dir(dir.path().join(".keel/thumbnails"))
            .unwrap()
            .collect();
        assert_eq!(cached.len(), 1, "cached under the bytes' hash");

        // A changed file: a new hash, a new thumbnail.
        RgbaImage::from_pixel(10, 10, image::Rgba([0, 0, 255, 255]))
            .save(&png)
            .unwrap();
        index.forget(std::slice::from_ref(&wood.path));
        wait(
            &mut index,
            |i| matches!(i.thumbnail(&wood), Thumbnail::Ready(img) if img.width() == 10),
        );
        let cached = std::fs::read_dir(dir.path().join(".keel/thumbnails")).unwrap();
        assert_eq!(cached.count(), 2);
    }
}
