//! A game's components written with `#[keel_engine::component]` (one line
//! instead of six derives and an impl): missing fields take their defaults,
//! a misspelt field is refused at its line, whether the type was written
//! with the attribute or by hand, and nothing of a file is lost on save.

use std::path::Path;

use keel_engine::glam::Vec3;
use keel_engine::{Assets, Component, Scene, SceneError, component};

/// What grows on a tree.
#[component(name = "fruit")]
#[derive(Default, PartialEq)]
enum Fruit {
    #[default]
    Apple,
    Pear {
        ripe: f32,
    },
}

/// A tree of the orchard: every kind of field a game's component has.
#[component(name = "tree", validate = Tree::check)]
#[derive(PartialEq)]
struct Tree {
    height: f32,
    crop: Vec<f32>,
    fruit: Fruit,
    label: String,
    planted: Option<u32>,
    at: Vec3,
}

impl Default for Tree {
    fn default() -> Self {
        Tree {
            height: 2.0,
            crop: Vec::new(),
            fruit: Fruit::Apple,
            label: "tree".into(),
            planted: None,
            at: Vec3::ZERO,
        }
    }
}

impl Tree {
    fn check(&self) -> Result<(), keel_engine::InvalidValue> {
        keel_engine::InvalidValue::range("height", self.height, 0.0..=100.0)
    }
}

/// Written by hand, without `deny_unknown_fields` (missing fields
/// defaulted, as the README's example once did): still refused.
#[derive(
    Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, bevy_reflect::Reflect,
)]
#[serde(default)]
struct Loose {
    speed: f32,
}

impl Component for Loose {
    const NAME: &'static str = "loose";
}

fn assets() -> Assets {
    let assets = Assets::new();
    let mut scene = Scene::with_assets(&assets);
    scene.register::<Tree>().unwrap();
    scene.register::<Fruit>().unwrap();
    scene.register::<Loose>().unwrap();
    assets
}

fn load(text: &str) -> Result<Scene, SceneError> {
    Scene::from_text(text, Path::new("orchard.ron"), &assets())
}

#[test]
fn the_attribute_names_the_type_and_fills_missing_fields() {
    assert_eq!(Tree::NAME, "tree");
    assert_eq!(Fruit::NAME, "fruit");
    let scene = load(
        "(version: 3, nodes: [(name: \"pear\", \
         tree: (crop: [1.5, 2.5], fruit: Pear(ripe: 0.5), planted: Some(3)))])",
    )
    .unwrap();
    let node = scene.find("pear").unwrap();
    let tree = scene.get::<Tree>(node).unwrap();
    assert_eq!(tree.height, 2.0, "missing: the type's default");
    assert_eq!(tree.label, "tree");
    assert_eq!(tree.crop, [1.5, 2.5]);
    assert_eq!(tree.fruit, Fruit::Pear { ripe: 0.5 });
    assert_eq!(tree.planted, Some(3));
    // Saved and read back: the same tree.
    let text = scene.to_file().to_text(Path::new("orchard.ron")).unwrap();
    let again = load(&text).unwrap();
    assert_eq!(again.get::<Tree>(again.find("pear").unwrap()), Some(tree));
}

#[test]
fn validate_runs_on_values_from_files() {
    let error = load("(version: 3, nodes: [(name: \"t\", tree: (height: 500.0))])")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("tree.height") && error.contains("100"),
        "{error}"
    );
}

#[test]
fn a_misspelt_field_is_refused_at_its_line() {
    for (component, misspelt) in [("tree", "heigth: 3.0"), ("loose", "sped: 3.0")] {
        let text = format!(
            "(\n    version: 3,\n    nodes: [\n        (\n            name: \"t\",\n            \
             {component}: (\n                {misspelt},\n            ),\n        ),\n    ],\n)"
        );
        let error = load(&text).expect_err("a misspelt field is no value to drop");
        let SceneError::Parse { line, message, .. } = &error else {
            panic!("{component}: {error}");
        };
        let field = misspelt.split(':').next().unwrap();
        assert_eq!(
            *line, 7,
            "{component}: at the misspelt field's line: {error}"
        );
        assert!(message.contains(field), "{component}: names it: {message}");
    }
}
