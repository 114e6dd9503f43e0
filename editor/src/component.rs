//! Components seen by the editor as values: one enum over every kind the
//! engine stores, so undo records, the inspector and subtree snapshots handle
//! all kinds through one exhaustive `match` each. It is the editor's view of
//! the engine's update-method components, as plain data that edits copy.
//!
//! Adding a component kind to the engine (particle emitters, say) means adding
//! a variant to [`ComponentKind`] and [`ComponentValue`]: the compiler then
//! points at every place that must learn about it (reading, writing, removing,
//! copying into a [`NodeRecord`], the inspector's editor for it).

use glam::{Vec3, Vec4};
use keel_engine::Emitter;
use keel_engine::Primitive;
use keel_engine::scene::{AnimatorRecord, NodeRecord};
use keel_engine::{
    Animator, Light, LightKind, Material, MeshRenderer, NodeId, Orbit, Oscillate, Scene,
    SceneError, Spin,
};

/// Which kind of component (a column of the scene's [`Components`](keel_engine::scene::Components)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ComponentKind {
    /// [`Spin`].
    Spin,
    /// [`Oscillate`].
    Oscillate,
    /// [`Orbit`].
    Orbit,
    /// [`MeshRenderer`].
    Mesh,
    /// [`Light`].
    Light,
    /// [`Emitter`].
    Emitter,
    /// [`Animator`] (on a model instance or under one).
    Animator,
}

impl ComponentKind {
    /// Every kind, in the order the inspector lists them.
    pub const ALL: [ComponentKind; 7] = [
        ComponentKind::Mesh,
        ComponentKind::Light,
        ComponentKind::Emitter,
        ComponentKind::Animator,
        ComponentKind::Spin,
        ComponentKind::Oscillate,
        ComponentKind::Orbit,
    ];

    /// The name shown in the UI.
    pub fn label(self) -> &'static str {
        match self {
            ComponentKind::Spin => "Spin",
            ComponentKind::Oscillate => "Oscillate",
            ComponentKind::Orbit => "Orbit",
            ComponentKind::Mesh => "Mesh Renderer",
            ComponentKind::Light => "Light",
            ComponentKind::Emitter => "Particle Emitter",
            ComponentKind::Animator => "Animator",
        }
    }

    /// Its field in a scene file's node record (`mesh`, `light`, ...).
    pub fn record_field(self) -> &'static str {
        match self {
            ComponentKind::Spin => "spin",
            ComponentKind::Oscillate => "oscillate",
            ComponentKind::Orbit => "orbit",
            ComponentKind::Mesh => "mesh",
            ComponentKind::Light => "light",
            ComponentKind::Emitter => "emitter",
            ComponentKind::Animator => "animator",
        }
    }

    /// The value a freshly added component of this kind starts with.
    pub fn default_value(self) -> ComponentValue {
        match self {
            ComponentKind::Spin => ComponentValue::Spin(Spin {
                axis: Vec3::Y,
                rate: 1.0,
            }),
            ComponentKind::Oscillate => {
                ComponentValue::Oscillate(Oscillate::new(Vec3::Y, 0.5, 0.5, 0.0))
            }
            ComponentKind::Orbit => ComponentValue::Orbit(Orbit {
                center: Vec3::ZERO,
                radius: 3.0,
                rate: 0.5,
                angle: 0.0,
                face_forward: false,
            }),
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
        }
    }

    /// Removes this kind of component from `node`; returns the removed value.
    pub fn remove(self, scene: &mut Scene, node: NodeId) -> Option<ComponentValue> {
        match self {
            ComponentKind::Spin => scene.remove::<Spin>(node).map(ComponentValue::Spin),
            ComponentKind::Oscillate => scene
                .remove::<Oscillate>(node)
                .map(ComponentValue::Oscillate),
            ComponentKind::Orbit => scene.remove::<Orbit>(node).map(ComponentValue::Orbit),
            ComponentKind::Mesh => scene.remove::<MeshRenderer>(node).map(ComponentValue::Mesh),
            ComponentKind::Light => scene.remove::<Light>(node).map(ComponentValue::Light),
            ComponentKind::Emitter => scene
                .remove::<Emitter>(node)
                .map(|e| ComponentValue::Emitter(Box::new(e))),
            ComponentKind::Animator => scene
                .remove::<Animator>(node)
                .map(|a| ComponentValue::Animator(Box::new(a))),
        }
    }

    /// The component of this kind on `node`, if any.
    pub fn get(self, scene: &Scene, node: NodeId) -> Option<ComponentValue> {
        match self {
            ComponentKind::Spin => scene.get::<Spin>(node).copied().map(ComponentValue::Spin),
            ComponentKind::Oscillate => scene
                .get::<Oscillate>(node)
                .copied()
                .map(ComponentValue::Oscillate),
            ComponentKind::Orbit => scene.get::<Orbit>(node).copied().map(ComponentValue::Orbit),
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
        }
    }
}

/// A component value of any kind.
///
/// Emitters own vectors (bursts, gradient stops), so values are cloned, not
/// copied; the emitter is boxed to keep the small kinds small.
#[derive(Clone, Debug, PartialEq)]
pub enum ComponentValue {
    /// A [`Spin`].
    Spin(Spin),
    /// An [`Oscillate`].
    Oscillate(Oscillate),
    /// An [`Orbit`].
    Orbit(Orbit),
    /// A [`MeshRenderer`].
    Mesh(MeshRenderer),
    /// A [`Light`].
    Light(Light),
    /// An [`Emitter`].
    Emitter(Box<Emitter>),
    /// An [`Animator`].
    Animator(Box<Animator>),
}

impl ComponentValue {
    /// The kind of this value.
    pub fn kind(&self) -> ComponentKind {
        match self {
            ComponentValue::Spin(_) => ComponentKind::Spin,
            ComponentValue::Oscillate(_) => ComponentKind::Oscillate,
            ComponentValue::Orbit(_) => ComponentKind::Orbit,
            ComponentValue::Mesh(_) => ComponentKind::Mesh,
            ComponentValue::Light(_) => ComponentKind::Light,
            ComponentValue::Emitter(_) => ComponentKind::Emitter,
            ComponentValue::Animator(_) => ComponentKind::Animator,
        }
    }

    /// Gives `node` this component, replacing one of the same kind.
    ///
    /// # Errors
    /// [`SceneError::StaleNode`] if `node` is not alive.
    pub fn insert(self, scene: &mut Scene, node: NodeId) -> Result<(), SceneError> {
        match self {
            ComponentValue::Spin(c) => scene.insert(node, c).map(drop),
            ComponentValue::Oscillate(c) => scene.insert(node, c).map(drop),
            ComponentValue::Orbit(c) => scene.insert(node, c).map(drop),
            ComponentValue::Mesh(c) => scene.insert(node, c).map(drop),
            ComponentValue::Light(c) => scene.insert(node, c).map(drop),
            ComponentValue::Emitter(c) => scene.insert(node, *c).map(drop),
            ComponentValue::Animator(mut c) => {
                // A copy put back (undo) poses the bones again.
                c.repose();
                scene.insert(node, *c).map(drop)
            }
        }
    }

    /// Stores this value in the matching field of a file record.
    pub fn store_in(self, record: &mut NodeRecord) {
        match self {
            ComponentValue::Spin(c) => record.spin = Some(c),
            ComponentValue::Oscillate(c) => record.oscillate = Some(c),
            ComponentValue::Orbit(c) => record.orbit = Some(c),
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
        }
    }

    /// Every component a file record carries.
    pub fn from_record(record: &NodeRecord) -> Vec<ComponentValue> {
        let mut out = Vec::new();
        out.extend(record.spin.map(ComponentValue::Spin));
        out.extend(record.oscillate.map(ComponentValue::Oscillate));
        out.extend(record.orbit.map(ComponentValue::Orbit));
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
        out
    }

    /// Every component of `node`, in [`ComponentKind::ALL`] order.
    pub fn all_of(scene: &Scene, node: NodeId) -> Vec<ComponentValue> {
        ComponentKind::ALL
            .iter()
            .filter_map(|kind| kind.get(scene, node))
            .collect()
    }

    /// Whether every number in the value is one a scene file accepts (finite,
    /// and non-negative or positive where the file format requires it).
    pub fn is_valid(&self) -> bool {
        fn nonneg(v: f32) -> bool {
            v.is_finite() && v >= 0.0
        }
        match self {
            ComponentValue::Spin(s) => s.axis.is_finite() && s.rate.is_finite(),
            ComponentValue::Oscillate(o) => {
                o.axis.is_finite()
                    && o.amplitude.is_finite()
                    && nonneg(o.frequency)
                    && o.phase.is_finite()
                    && o.elapsed.is_finite()
                    && o.applied.is_finite()
            }
            ComponentValue::Orbit(o) => {
                o.center.is_finite()
                    && nonneg(o.radius)
                    && o.rate.is_finite()
                    && o.angle.is_finite()
            }
            ComponentValue::Mesh(m) => {
                let c: Vec4 = m.material.base_color;
                let unit = |v: f32| (0.0..=1.0).contains(&v);
                let e = m.material.emissive;
                c.is_finite()
                    && c.min_element() >= 0.0
                    && unit(m.material.metallic)
                    && unit(m.material.roughness)
                    && e.is_finite()
                    && e.min_element() >= 0.0
                    && match m.material.alpha_mode {
                        keel_engine::assets::AlphaMode::Mask { cutoff } => unit(cutoff),
                        _ => true,
                    }
            }
            ComponentValue::Light(l) => {
                let range_ok = match l.kind {
                    LightKind::Directional => true,
                    LightKind::Point { range } => range.is_finite() && range > 0.0,
                    LightKind::Spot {
                        range,
                        inner_degrees,
                        outer_degrees,
                    } => {
                        range.is_finite()
                            && range > 0.0
                            && inner_degrees >= 0.0
                            && inner_degrees < outer_degrees
                            && outer_degrees <= 90.0
                    }
                };
                l.color.is_finite() && nonneg(l.intensity) && range_ok
            }
            ComponentValue::Emitter(e) => e.validate().is_ok(),
            ComponentValue::Animator(a) => a.speed.is_finite() && a.time.is_finite(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_engine::Transform;

    #[test]
    fn every_kind_round_trips_through_the_scene_and_a_record() {
        let mut scene = Scene::new();
        let node = scene.spawn(None, "n", Transform::IDENTITY).unwrap();
        for kind in ComponentKind::ALL {
            let value = kind.default_value();
            assert_eq!(value.kind(), kind);
            assert!(value.is_valid(), "default {kind:?} must be valid");
            value.insert(&mut scene, node).unwrap();
        }
        let values = ComponentValue::all_of(&scene, node);
        assert_eq!(values.len(), ComponentKind::ALL.len());
        let mut record = NodeRecord::new("n");
        for v in &values {
            v.clone().store_in(&mut record);
        }
        let mut back = ComponentValue::from_record(&record);
        let mut expected = values.clone();
        back.sort_by_key(ComponentValue::kind);
        expected.sort_by_key(ComponentValue::kind);
        assert_eq!(back, expected);
        for kind in ComponentKind::ALL {
            assert!(kind.remove(&mut scene, node).is_some());
            assert!(kind.get(&scene, node).is_none());
        }
    }

    #[test]
    fn invalid_values_are_caught() {
        let ComponentValue::Light(mut light) = ComponentKind::Light.default_value() else {
            unreachable!("the default of Light is a light")
        };
        light.kind = LightKind::Point { range: 0.0 };
        assert!(!ComponentValue::Light(light).is_valid());
        let ComponentValue::Orbit(mut orbit) = ComponentKind::Orbit.default_value() else {
            unreachable!("the default of Orbit is an orbit")
        };
        orbit.radius = f32::NAN;
        assert!(!ComponentValue::Orbit(orbit).is_valid());
        let ComponentValue::Emitter(mut emitter) = ComponentKind::Emitter.default_value() else {
            unreachable!("the default of Emitter is an emitter")
        };
        emitter.lifetime.min = emitter.lifetime.max + 1.0;
        assert!(!ComponentValue::Emitter(emitter).is_valid());
    }
}
