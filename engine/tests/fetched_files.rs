//! Scenes load from files fetched beforehand (what a web page does) exactly
//! as from the disk: every read of the scene, its prefabs, models, buffers,
//! images and sky goes through the store's `FileSource`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use keel_engine::files::{Fetch, FileSource, ReadLimits};
use keel_engine::{Assets, Scene, SceneError, World};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every file under the repository's `assets/`, under `site/assets/...`: a
/// folder that is not on the disk, so a read that went to the disk fails.
fn fetched_assets() -> Vec<(PathBuf, Fetch)> {
    let mut files = Vec::new();
    let mut stack = vec![repo().join("assets")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path.strip_prefix(repo()).unwrap();
                let bytes: Arc<[u8]> = std::fs::read(&path).unwrap().into();
                files.push((Path::new("site").join(relative), Fetch::Bytes(bytes)));
            }
        }
    }
    files
}

fn fetched_store(extra: Vec<(PathBuf, Fetch)>) -> Assets {
    let mut files = fetched_assets();
    files.extend(extra);
    Assets::with_limits(ReadLimits {
        source: FileSource::fetched("http://localhost:8000/", files),
        ..ReadLimits::DEFAULT
    })
}

fn world_positions(world: &World) -> Vec<(String, [f32; 3])> {
    let scene = world.scene();
    let mut out: Vec<_> = scene
        .nodes()
        .map(|n| {
            let name = scene.name(n).unwrap_or_default().to_owned();
            let t = scene.world(n).unwrap().translation;
            (name, t.to_array())
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.partial_cmp(&b.1).unwrap()));
    out
}

#[test]
fn the_demo_loads_from_fetched_files_as_from_the_disk() {
    let site = Path::new("site/assets/scenes/demo.ron");
    assert!(
        !site.exists(),
        "the test needs a path the disk does not have"
    );
    let fetched = Scene::load(site, &fetched_store(Vec::new())).expect("the fetched demo loads");
    let disk = Scene::load(&repo().join("assets/scenes/demo.ron"), &Assets::new()).unwrap();
    assert_eq!(fetched.len(), disk.len());
    let (mut a, mut b) = (World::new(fetched), World::new(disk));
    for _ in 0..30 {
        a.step();
        b.step();
    }
    assert_eq!(world_positions(&a), world_positions(&b));
}

#[test]
fn a_file_the_server_did_not_give_names_its_url_and_status() {
    let scene = "(version: 2, nodes: [(name: \"ship\", model: \"../models/gone.glb\")])";
    let store = fetched_store(vec![
        (
            PathBuf::from("site/assets/scenes/broken.ron"),
            Fetch::Bytes(Arc::from(scene.as_bytes())),
        ),
        (
            PathBuf::from("site/assets/models/gone.glb"),
            Fetch::Status(404),
        ),
    ]);
    let error = Scene::load(Path::new("site/assets/scenes/broken.ron"), &store).unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("http://localhost:8000/site/assets/models/gone.glb")
            && message.contains("HTTP 404"),
        "{message}"
    );

    let missing = Scene::load(Path::new("site/assets/scenes/none.ron"), &store).unwrap_err();
    assert!(matches!(missing, SceneError::Io { .. }), "{missing}");
    assert!(
        missing.to_string().contains("not among the page's files"),
        "{missing}"
    );
}

/// What tells a file changed comes from the source too: a fetched file has
/// a stamp (its length; it never changes), a file not fetched has none,
/// and the disk gives its own.
#[test]
fn stamps_come_from_the_source() {
    let bytes: Arc<[u8]> = b"(version: 3, nodes: [])".to_vec().into();
    let len = bytes.len() as u64;
    let source = FileSource::fetched(
        "http://localhost:8000/",
        [(PathBuf::from("site/a.ron"), Fetch::Bytes(bytes))],
    );
    assert_eq!(
        source.stamp(Path::new("site/./a.ron")),
        Some((std::time::SystemTime::UNIX_EPOCH, len))
    );
    assert_eq!(source.stamp(Path::new("site/b.ron")), None);
    let readme = repo().join("README.md");
    let meta = std::fs::metadata(&readme).unwrap();
    assert_eq!(
        FileSource::DISK.stamp(&readme),
        Some((meta.modified().unwrap(), meta.len()))
    );
    assert_eq!(
        source.stamp(&readme),
        None,
        "a fetched source never looks at the disk"
    );
}
