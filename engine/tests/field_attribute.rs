//! A component's plain field types (an enum of states, a nested struct)
//! written with `#[keel_engine::field]`: one line, no import of
//! `bevy_reflect` or serde, and the same rules as the component holding
//! them (a misspelt field refused at its line, the value saved whole).

use std::path::Path;

use keel_engine::{Assets, Scene, SceneError, component, field};

/// How a gate stands: a plain enum, no component of its own.
#[field]
#[derive(Default, PartialEq)]
enum Stance {
    #[default]
    Shut,
    Open {
        by: f32,
    },
}

/// A nested struct of plain numbers.
#[field]
#[derive(Default, PartialEq)]
#[serde(default)]
struct Hinge {
    stiffness: f32,
    squeaks: bool,
}

/// The component that holds both.
#[component(name = "gate")]
#[derive(Default, PartialEq)]
struct Gate {
    stance: Stance,
    hinge: Hinge,
    hinges: Vec<Hinge>,
}

fn load(text: &str) -> Result<Scene, SceneError> {
    let assets = Assets::new();
    let mut scene = Scene::with_assets(&assets);
    scene.register::<Gate>().unwrap();
    Scene::from_text(text, Path::new("yard.ron"), &assets)
}

#[test]
fn field_types_read_write_and_reflect_as_the_component_does() {
    let scene = load(
        "(version: 3, nodes: [(name: \"g\", gate: (stance: Open(by: 0.5), \
         hinge: (stiffness: 2.0), hinges: [(squeaks: true)]))])",
    )
    .unwrap();
    let gate = scene.get::<Gate>(scene.find("g").unwrap()).unwrap();
    assert_eq!(gate.stance, Stance::Open { by: 0.5 });
    assert_eq!(gate.hinge.stiffness, 2.0);
    assert!(!gate.hinge.squeaks, "missing: the struct's default");
    assert!(gate.hinges[0].squeaks);
    let text = scene.to_file().to_text(Path::new("yard.ron")).unwrap();
    let again = load(&text).unwrap();
    assert_eq!(again.get::<Gate>(again.find("g").unwrap()), Some(gate));
    // Reflected, as the inspector reads it.
    let reflected: &dyn keel_engine::bevy_reflect::Reflect = &gate.hinge;
    assert!(reflected.reflect_type_path().ends_with("Hinge"));
}

#[test]
fn a_misspelt_field_of_a_field_type_is_refused_at_its_line() {
    for (field, misspelt) in [("hinge", "(stifness: 3.0)"), ("stance", "Open(bye: 1.0)")] {
        let text = format!(
            "(\n    version: 3,\n    nodes: [\n        (\n            name: \"g\",\n            \
             gate: (\n                {field}: {misspelt},\n            ),\n        ),\n    ],\n)"
        );
        match load(&text) {
            Err(SceneError::Parse { line, message, .. }) => {
                assert_eq!(line, 7, "{field}: at its line: {message}");
                let name = misspelt.split(['(', ':']).nth(1).unwrap();
                assert!(
                    message.contains(name.trim()),
                    "{field}: names it: {message}"
                );
            }
            Err(other) => panic!("{field}: {other}"),
            Ok(_) => panic!("{field}: read {text}"),
        }
    }
}
