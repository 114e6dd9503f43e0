//! A `Timer` a game keeps in its own component is checked wherever the
//! component is: a scene file with a negative or NaN duration is refused at
//! that field's line, and the check the inspector asks before applying an
//! edit refuses it too, without the component's `validate` naming it.

use std::path::Path;

use bevy_reflect::Reflect;
use keel_engine::scene::AnyComponent;
use keel_engine::{Assets, Component, Scene, SceneError, Timer};
use serde::{Deserialize, Serialize};

/// A lighthouse's lamp: on for a while, then off, over and over.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Reflect)]
#[serde(deny_unknown_fields)]
struct Lamp {
    brightness: f32,
    blink: Timer,
}

impl Component for Lamp {
    const NAME: &'static str = "lamp";
}

fn load(duration: &str) -> Result<Scene, SceneError> {
    let assets = Assets::new();
    Scene::with_assets(&assets).register::<Lamp>().unwrap();
    let text = format!(
        "(\n  version: 2,\n  nodes: [\n    (name: \"tower\"),\n    (name: \"light\", lamp: (\n      brightness: 2.0,\n      blink: (duration: {duration}, repeat: true),\n    )),\n  ],\n)"
    );
    Scene::from_text(&text, Path::new("harbour.ron"), &assets)
}

#[test]
fn a_negative_or_nan_timer_duration_in_a_file_is_an_error_at_its_line() {
    assert!(load("0.5").is_ok(), "a good duration loads");
    for bad in ["-1.0", "NaN", "inf"] {
        let err = load(bad).expect_err(bad);
        let SceneError::InvalidField(field) = &err else {
            panic!("{bad}: expected a located field error, got {err}");
        };
        assert_eq!(
            (field.line, field.node.as_str(), field.field.as_ref()),
            (7, "light", "lamp.blink.duration"),
            "{err}"
        );
        let text = err.to_string();
        assert!(text.starts_with("harbour.ron:7:"), "names the file: {text}");
        assert!(text.contains(">= 0"), "says what was expected: {text}");
    }
}

#[test]
fn an_edit_to_a_timer_duration_is_refused_by_the_components_check() {
    let good = Lamp {
        brightness: 1.0,
        blink: Timer::repeating(0.5),
    };
    assert!(AnyComponent::new(good.clone()).validate().is_ok());
    let mut typed = good;
    typed.blink.duration = -0.25;
    let invalid = AnyComponent::new(typed).validate().unwrap_err();
    assert_eq!(invalid.field, "blink.duration", "{invalid}");
}
