//! Components seen by the editor as values: one enum over every kind a
//! scene stores, so undo records, the inspector and subtree snapshots handle
//! all kinds through one exhaustive `match` each. The engine's own kinds
//! (meshes, lights, emitters, animators) have their own variants and panels;
//! every registered component (the built-in behaviours and a game's types)
//! is one variant, [`ComponentValue::Registered`], read, written and shown
//! through the scene's registry and reflection, so a game's type needs no
//! editor code.

use glam::Vec3;
use keel_engine::Emitter;
use keel_engine::Primitive;
use keel_engine::scene::{AnimatorRecord, AnyComponent, ComponentRegistry, NodeRecord};
use keel_engine::{Animator, Light, LightKind, Material, MeshRenderer, NodeError, NodeId, Scene};

/// Which kind of component (a column of the scene's [`Components`](keel_engine::scene::Components)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ComponentKind {
    /// [`MeshRenderer`].
    Mesh,
    /// [`Light`].
    Light,
    /// [`Emitter`].
    Emitter,
    /// [`Animator`] (on a model instance or under one).
    Animator,
    /// A registered component, by its name (`spin`, a game's `health`).
    Registered(&'static str),
}

impl ComponentKind {
    /// The engine's own kinds, in the order the inspector lists them.
    pub const ENGINE: [ComponentKind; 4] = [
        ComponentKind::Mesh,
        ComponentKind::Light,
        ComponentKind::Emitter,
        ComponentKind::Animator,
    ];

    /// Every kind `registry` knows: the engine's, then the registered ones by name.
    pub fn all(registry: &ComponentRegistry) -> Vec<ComponentKind> {
        let registered = registry.names().map(ComponentKind::Registered);
        Self::ENGINE.into_iter().chain(registered).collect()
    }

    /// The name shown in the UI.
    pub fn label(self) -> String {
        match self {
            ComponentKind::Mesh => "Mesh Renderer".into(),
            ComponentKind::Light => "Light".into(),
            ComponentKind::Emitter => "Particle Emitter".into(),
            ComponentKind::Animator => "Animator".into(),
            ComponentKind::Registered(name) => title(name),
        }
    }

    /// Its field in a scene file's node record (`mesh`, `light`, `spin`, ...).
    pub fn record_field(self) -> &'static str {
        match self {
            ComponentKind::Mesh => "mesh",
            ComponentKind::Light => "light",
            ComponentKind::Emitter => "emitter",
            ComponentKind::Animator => "animator",
            ComponentKind::Registered(name) => name,
        }
    }

    /// The value a freshly added component of this kind starts with (a
    /// registered one's `Default`); `None` for a name `registry` lacks.
    pub fn default_value(self, registry: &ComponentRegistry) -> Option<ComponentValue> {
        Some(match self {
            ComponentKind::Mesh => ComponentValue::Mesh(MeshRenderer {
                cast_shadows: true,
                mesh: Primitive::Cube.into(),
                material: Material::default(),
            }),
            ComponentKind::Light => ComponentValue::Light(Light {
                kind: LightKind::Point { range: 10.0 },
                color: Vec3::ONE,
                intensity: 1.0,
                cast_shadows: false,
            }),
            ComponentKind::Emitter => ComponentValue::Emitter(Box::default()),
            // The inspector names the model's first clip when it adds one.
            ComponentKind::Animator => ComponentValue::Animator(Box::new(Animator::new(""))),
            ComponentKind::Registered(name) => {
                ComponentValue::Registered(registry.get(name)?.default_value())
            }
        })
    }

    /// Removes this kind of component from `node`; returns the removed value.
    pub fn remove(self, scene: &mut Scene, node: NodeId) -> Option<ComponentValue> {
        match self {
            ComponentKind::Mesh => scene.remove::<MeshRenderer>(node).map(ComponentValue::Mesh),
            ComponentKind::Light => scene.remove::<Light>(node).map(ComponentValue::Light),
            ComponentKind::Emitter => scene
                .remove::<Emitter>(node)
                .map(|e| ComponentValue::Emitter(Box::new(e))),
            ComponentKind::Animator => scene
                .remove::<Animator>(node)
                .map(|a| ComponentValue::Animator(Box::new(a))),
            ComponentKind::Registered(name) => {
                let value = self.get(scene, node)?;
                scene.remove_named(node, name);
                Some(value)
            }
        }
    }

    /// The component of this kind on `node`, if any.
    pub fn get(self, scene: &Scene, node: NodeId) -> Option<ComponentValue> {
        match self {
            ComponentKind::Mesh => scene
                .get::<MeshRenderer>(node)
                .copied()
                .map(ComponentValue::Mesh),
            ComponentKind::Light => scene.get::<Light>(node).copied().map(ComponentValue::Light),
            ComponentKind::Emitter => scene
                .get::<Emitter>(node)
                .map(|e| ComponentValue::Emitter(Box::new(e.clone()))),
            ComponentKind::Animator => scene
                .get::<Animator>(node)
                .map(|a| ComponentValue::Animator(Box::new(a.clone()))),
            ComponentKind::Registered(name) => scene
                .components()
                .registered
                .by_name(name)?
                .value_of(node)
                .map(ComponentValue::Registered),
        }
    }
}

/// `face_forward` as "Face Forward".
fn title(name: &str) -> String {
    name.split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars.next().map_or_else(String::new, |c| {
                c.to_uppercase().chain(chars).collect::<String>()
            })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A component value of any kind.
///
/// Emitters own vectors (bursts, gradient stops), so values are cloned, not
/// copied; the emitter is boxed to keep the small kinds small.
#[derive(Clone, Debug, PartialEq)]
pub enum ComponentValue {
    /// A [`MeshRenderer`].
    Mesh(MeshRenderer),
    /// A [`Light`].
    Light(Light),
    /// An [`Emitter`].
    Emitter(Box<Emitter>),
    /// An [`Animator`].
    Animator(Box<Animator>),
    /// A registered component (a behaviour, a game's type).
    Registered(AnyComponent),
}

impl ComponentValue {
    /// A registered component's value.
    pub fn registered<C: keel_engine::Component>(value: C) -> Self {
        ComponentValue::Registered(AnyComponent::new(value))
    }

    /// The kind of this value.
    pub fn kind(&self) -> ComponentKind {
        match self {
            ComponentValue::Mesh(_) => ComponentKind::Mesh,
            ComponentValue::Light(_) => ComponentKind::Light,
            ComponentValue::Emitter(_) => ComponentKind::Emitter,
            ComponentValue::Animator(_) => ComponentKind::Animator,
            ComponentValue::Registered(c) => ComponentKind::Registered(c.name()),
        }
    }

    /// Gives `node` this component, replacing one of the same kind.
    ///
    /// # Errors
    /// [`NodeError::StaleNode`] if `node` is not alive.
    pub fn insert(self, scene: &mut Scene, node: NodeId) -> Result<(), NodeError> {
        match self {
            ComponentValue::Mesh(c) => scene.insert(node, c).map(drop),
            ComponentValue::Light(c) => scene.insert(node, c).map(drop),
            ComponentValue::Emitter(c) => scene.insert(node, *c).map(drop),
            ComponentValue::Animator(mut c) => {
                // A copy put back (undo) poses the bones again.
                c.repose();
                scene.insert(node, *c).map(drop)
            }
            ComponentValue::Registered(c) => scene.insert_any(node, c),
        }
    }

    /// Stores this value in the matching field of a file record.
    pub fn store_in(self, record: &mut NodeRecord) {
        match self {
            ComponentValue::Mesh(c) => record.mesh = Some(c),
            ComponentValue::Light(c) => record.light = Some(c),
            ComponentValue::Emitter(c) => record.emitter = Some(*c),
            ComponentValue::Animator(c) => {
                record.animator = Some(AnimatorRecord {
                    clip: c.clip,
                    speed: c.speed,
                    mode: c.mode,
                });
            }
            ComponentValue::Registered(c) => record.set_component(c),
        }
    }

    /// Every component a file record carries.
    pub fn from_record(record: &NodeRecord) -> Vec<ComponentValue> {
        let mut out = Vec::new();
        out.extend(record.mesh.map(ComponentValue::Mesh));
        out.extend(record.light.map(ComponentValue::Light));
        out.extend(
            record
                .emitter
                .clone()
                .map(|e| ComponentValue::Emitter(Box::new(e))),
        );
        out.extend(record.animator.as_ref().map(|a| {
            let mut animator = Animator::new(a.clip.clone());
            (animator.speed, animator.mode) = (a.speed, a.mode);
            ComponentValue::Animator(Box::new(animator))
        }));
        out.extend(
            record
                .components
                .iter()
                .cloned()
                .map(ComponentValue::Registered),
        );
        out
    }

    /// Every component of `node`: the engine's kinds, then the registered ones by name.
    pub fn all_of(scene: &Scene, node: NodeId) -> Vec<ComponentValue> {
        let engine = ComponentKind::ENGINE
            .iter()
            .filter_map(|kind| kind.get(scene, node));
        let registered = scene
            .components_of(node)
            .into_iter()
            .map(ComponentValue::Registered);
        engine.chain(registered).collect()
    }

    /// Whether the value keeps its component's rules (each component's own
    /// `validate`, the one scene files ask too).
    pub fn is_valid(&self) -> bool {
        match self {
            ComponentValue::Mesh(m) => m.material.validate().is_ok(),
            ComponentValue::Light(l) => l.validate().is_ok(),
            ComponentValue::Emitter(e) => e.validate().is_ok(),
            ComponentValue::Animator(a) => a.speed.is_finite() && a.time.is_finite(),
            ComponentValue::Registered(c) => c.validate().is_ok(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_engine::{Orbit, Transform};

    #[test]
    fn every_kind_round_trips_through_the_scene_and_a_record() {
        let mut scene = Scene::new();
        let registry = scene.registry();
        let node = scene.spawn(None, "n", Transform::IDENTITY).unwrap();
        let kinds = ComponentKind::all(&registry);
        assert!(kinds.contains(&ComponentKind::Registered("spin")));
        for &kind in &kinds {
            let value = kind.default_value(&registry).unwrap();
            assert_eq!(value.kind(), kind);
            assert!(value.is_valid(), "default {kind:?} must be valid");
            value.insert(&mut scene, node).unwrap();
        }
        let values = ComponentValue::all_of(&scene, node);
        assert_eq!(values.len(), kinds.len());
        let mut record = NodeRecord::new("n");
        for v in &values {
            v.clone().store_in(&mut record);
        }
        let mut back = ComponentValue::from_record(&record);
        let mut expected = values.clone();
        back.sort_by_key(ComponentValue::kind);
        expected.sort_by_key(ComponentValue::kind);
        assert_eq!(back, expected);
        for kind in kinds {
            assert!(kind.remove(&mut scene, node).is_some(), "{kind:?}");
            assert!(kind.get(&scene, node).is_none());
        }
    }

    #[test]
    fn invalid_values_are_caught() {
        let registry = ComponentRegistry::default();
        let Some(ComponentValue::Light(mut light)) = ComponentKind::Light.default_value(&registry)
        else {
            unreachable!("the default of Light is a light")
        };
        light.kind = LightKind::Point { range: 0.0 };
        assert!(!ComponentValue::Light(light).is_valid());
        let orbit = Orbit {
            radius: f32::NAN,
            ..Orbit::default()
        };
        assert!(!ComponentValue::registered(orbit).is_valid());
        let Some(ComponentValue::Emitter(mut emitter)) =
            ComponentKind::Emitter.default_value(&registry)
        else {
            unreachable!("the default of Emitter is an emitter")
        };
        emitter.lifetime.min = emitter.lifetime.max + 1.0;
        assert!(!ComponentValue::Emitter(emitter).is_valid());
        // The inspector asks the rule scene files use: an alpha over 1 is
        // refused by both (the inspector's own copy once let it through).
        let Some(ComponentValue::Mesh(mut mesh)) = ComponentKind::Mesh.default_value(&registry)
        else {
            unreachable!("the default of Mesh is a mesh")
        };
        mesh.material.base_color.w = 1.5;
        assert!(!ComponentValue::Mesh(mesh).is_valid());
        let refused = mesh.material.validate().unwrap_err();
        assert_eq!(refused.field, "base_color");
    }

    #[test]
    fn names_read_as_titles() {
        assert_eq!(
            ComponentKind::Registered("face_forward").label(),
            "Face Forward"
        );
        assert_eq!(ComponentKind::Registered("spin").label(), "Spin");
    }
}
