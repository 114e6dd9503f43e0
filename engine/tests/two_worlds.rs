//! Two worlds in one process, each with its own [`Assets`]: neither sees the
//! other's imports, prefab expansions, skies, shaders or read limits, and
//! releasing one's imports leaves the other's alone. A third world sharing
//! the first one's store shares its imports (the same handles).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use keel_engine::Assets;
use keel_engine::World;
use keel_engine::assets::SkyImage;
use keel_engine::assets::shaders::Shader;
use keel_engine::files::ReadLimits;
use keel_engine::scene::load_prefab;
use keel_engine::{MeshRef, Primitive};
use keel_engine::{MeshRenderer, Scene, Transform};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

fn imported_meshes(scene: &Scene) -> Vec<keel_engine::assets::MeshHandle> {
    scene
        .nodes()
        .filter_map(|n| match scene.get::<MeshRenderer>(n)?.mesh {
            MeshRef::Asset(handle) => Some(handle),
            MeshRef::Primitive(_) => None,
        })
        .collect()
}

#[test]
fn two_worlds_with_their_own_assets_do_not_see_each_others() {
    let demo = repo("assets/scenes/demo.ron");
    let (a, b) = (Assets::new(), Assets::new());
    assert!(!a.same(&b) && a.same(&a.clone()));

    let mut first = World::new(Scene::load(&demo, &a).expect("the demo loads"));
    let second = World::new(Scene::load(&demo, &b).expect("the demo loads again"));
    assert!(first.scene().assets().same(&a) && second.scene().assets().same(&b));

    // The same file imported once per store: two copies, the same count.
    let (models_a, models_b) = (a.loaded_models(), b.loaded_models());
    assert!(!models_a.is_empty(), "the demo imports models");
    assert_eq!(models_a.len(), models_b.len());
    for (ma, mb) in models_a.iter().zip(&models_b) {
        assert_eq!(ma.path, mb.path);
        assert!(!Arc::ptr_eq(ma, mb), "{} shared", ma.path.display());
    }
    let meshes = a.registry().mesh_count();
    assert_eq!(b.registry().mesh_count(), meshes);

    // A mesh made in one store is not in the other.
    let extra = a.add_mesh("only in a", Primitive::Cone.mesh());
    assert!(a.registry().mesh(extra).is_some());
    assert!(b.registry().mesh(extra).is_none());
    assert_eq!(b.registry().mesh_count(), meshes);

    // A third world on the first store shares its imports: the same handles.
    let third = Scene::load(&demo, &a).expect("loads");
    assert_eq!(imported_meshes(&third), imported_meshes(first.scene()));
    assert_eq!(
        a.loaded_models().len(),
        models_a.len(),
        "nothing imported twice"
    );

    // Prefab expansions are kept per store.
    let boat = repo("assets/prefabs/boat.ron");
    let (pa, pb) = (
        load_prefab(&boat, &a).unwrap(),
        load_prefab(&boat, &b).unwrap(),
    );
    assert!(
        Arc::ptr_eq(&pa, &load_prefab(&boat, &a).unwrap()),
        "cached in a"
    );
    assert!(!Arc::ptr_eq(&pa, &pb), "each store expands it once");

    // Skies.
    let sky = a.add_sky(SkyImage::hemisphere(1.0));
    assert!(a.sky(sky).is_some());
    assert!(b.sky(sky).is_none());

    // Shaders: a reload in one store rebuilds only its renderers.
    let dir = tempfile::tempdir().unwrap();
    let post = dir.path().join(Shader::Post.file_name());
    let edited = format!("{}\n// edited\n", a.shaders().source(Shader::Post));
    std::fs::write(&post, &edited).unwrap();
    assert_eq!(a.shaders().reload(&[post]).unwrap(), [Shader::Post]);
    assert_eq!(a.shaders().generation(), 1);
    assert_eq!(b.shaders().generation(), 0);
    assert_eq!(*a.shaders().source(Shader::Post), *edited);
    assert_ne!(*b.shaders().source(Shader::Post), *edited);

    // Releasing: the first store's copies go when no scene of it holds
    // them; the second world still draws its own.
    drop(third);
    let spare = first.replace_scene(Scene::with_assets(&a));
    assert_eq!(
        a.release_unused().models,
        0,
        "held (a clone of the scene, the list above)"
    );
    drop(spare);
    let imported = models_a.len();
    drop(models_a);
    let released = a.release_unused();
    assert_eq!(released.models, imported);
    assert!(a.loaded_models().is_empty());
    for handle in imported_meshes(second.scene()) {
        assert!(
            b.registry().mesh(handle).is_some(),
            "b's {handle:?} released"
        );
    }
    assert_eq!(b.release_unused().models, 0, "b's scene holds all of b's");
}

#[test]
fn read_limits_belong_to_the_store_that_reads() {
    let fox = repo("assets/models/Fox.glb");
    let tight = Assets::with_limits(ReadLimits {
        model: 1024,
        ..ReadLimits::DEFAULT
    });
    let roomy = Assets::with_limits(ReadLimits::DEFAULT);
    let error = tight
        .load_model(&fox)
        .expect_err("over the tight store's cap");
    assert!(error.to_string().contains("Fox.glb"), "{error}");
    assert!(
        roomy.load_model(&fox).is_ok(),
        "the other store's cap is its own"
    );
    let mut scene = Scene::with_assets(&tight);
    let refused = scene.spawn_model(None, "fox", Transform::IDENTITY, &fox);
    assert!(refused.is_err(), "a scene imports through its own store");
}

#[test]
fn worlds_on_separate_stores_load_and_step_on_separate_threads() {
    let demo = repo("assets/scenes/demo.ron");
    let hashes: Vec<_> = std::thread::scope(|s| {
        let runs: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut world = World::new(Scene::load(&demo, &Assets::new()).unwrap());
                    for _ in 0..30 {
                        world.step();
                    }
                    world.state_hash()
                })
            })
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    assert_eq!(hashes[0], hashes[1], "the same scene, the same steps");
}
