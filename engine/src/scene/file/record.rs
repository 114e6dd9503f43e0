//! One node of a scene file, and how it is read and written.
//!
//! The engine's own components are fixed fields of the record; registered
//! components (the built-in behaviours and a game's types) sit beside them
//! under their names (`spin: (axis: (0.0, 1.0, 0.0), rate: 1.0)`,
//! `health: (hp: 10, max: 10)`), read through the [`ComponentRegistry`] the file is
//! parsed with. A name the registry lacks is kept as the text the file wrote,
//! so a scene made by a game's editor survives a round trip through one that
//! does not know the game's types.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};

use super::prefab::Patch;
use crate::particles::Emitter;
use crate::scene::{
    AnyComponent, Component, ComponentRegistry, Light, MeshRenderer, Transform, UnknownComponents,
};

/// The fields of a node record that are not registered components (a
/// component may not be registered under one of these names).
pub const BUILT_IN_FIELDS: [&str; 12] = [
    "name",
    "parent",
    "transform",
    "mesh",
    "light",
    "emitter",
    "model",
    "animator",
    "prefab",
    "overrides",
    "removed",
    "under",
];

/// One node of a [`super::SceneFile`].
#[derive(Clone, Debug, PartialEq)]
pub struct NodeRecord {
    /// Display name (need not be unique).
    pub name: String,
    /// Position of the parent in the node list; absent for a root.
    pub parent: Option<usize>,
    /// Local transform.
    pub transform: Transform,
    /// Registered components (behaviours and a game's own), in name order.
    pub components: Vec<AnyComponent>,
    /// Components named in the file that the registry it was read with
    /// lacks, as written.
    pub unknown: UnknownComponents,
    /// Mesh and material.
    pub mesh: Option<MeshRenderer>,
    /// Light source.
    pub light: Option<Light>,
    /// Particle emitter.
    pub emitter: Option<Emitter>,
    /// A model file (`.gltf`, `.glb`, `.obj`: any the store imports) instanced under this node, its path
    /// relative to the scene file. The model's nodes are rebuilt from the file
    /// at each load, so they are not listed in `nodes`.
    pub model: Option<String>,
    /// Plays a clip of the model instanced here (or above).
    pub animator: Option<AnimatorRecord>,
    /// A scene file whose nodes this node gets as children (a prefab), its
    /// path relative to this file; see `scene::file::prefab`.
    pub prefab: Option<String>,
    /// On a prefab instance: per key of the prefab's nodes, the fields this
    /// instance changed (a merge patch of the node's record).
    pub overrides: BTreeMap<String, Patch>,
    /// On a prefab instance: keys of the prefab's nodes it does not have.
    pub removed: Vec<String>,
    /// On a node added under a prefab instance's part: the part's key (the
    /// node's `parent` is the instance).
    pub under: Option<String>,
    /// In memory only: the node's key when it is a part of the prefab
    /// instance above it (subtree copies keep the link).
    pub part: Option<String>,
}

/// An [`crate::scene::Animator`] as a scene file writes it: `animator: (clip:
/// "Walk", speed: 1.0, mode: Loop)`; it starts at the clip's beginning.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnimatorRecord {
    /// The clip's name in the model file.
    pub clip: String,
    /// Play speed.
    #[serde(default = "one")]
    pub speed: f32,
    /// Loop, Once or PingPong.
    #[serde(default)]
    pub mode: crate::scene::PlayMode,
}

fn one() -> f32 {
    1.0
}

impl NodeRecord {
    /// A node with no parent, the identity transform and no components.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            parent: None,
            transform: Transform::IDENTITY,
            components: Vec::new(),
            unknown: UnknownComponents::default(),
            mesh: None,
            light: None,
            emitter: None,
            model: None,
            animator: None,
            prefab: None,
            overrides: BTreeMap::new(),
            removed: Vec::new(),
            under: None,
            part: None,
        }
    }

    /// The registered component of type `C`, if the record has one.
    pub fn component<C: Component>(&self) -> Option<&C> {
        self.components.iter().find_map(|c| c.downcast_ref::<C>())
    }

    /// The registered component named `name`.
    pub fn component_named(&self, name: &str) -> Option<&AnyComponent> {
        self.components.iter().find(|c| c.name() == name)
    }

    /// Gives the record a registered component (replacing one of its type).
    pub fn set_component(&mut self, value: AnyComponent) {
        match self
            .components
            .binary_search_by(|c| c.name().cmp(value.name()))
        {
            Ok(at) => self.components[at] = value,
            Err(at) => self.components.insert(at, value),
        }
    }

    /// Takes the component named `name` away; whether it had one.
    pub fn remove_component(&mut self, name: &str) -> bool {
        let before = self.components.len();
        self.components.retain(|c| c.name() != name);
        self.unknown.0.retain(|(n, _)| *n != name);
        before != self.components.len()
    }
}

impl Serialize for NodeRecord {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("NodeRecord", 16)?;
        s.serialize_field("name", &self.name)?;
        if let Some(parent) = self.parent {
            s.serialize_field("parent", &parent)?;
        }
        s.serialize_field("transform", &self.transform)?;
        for component in &self.components {
            s.serialize_field(component.name(), component.serialize())?;
        }
        for (name, raw) in &self.unknown.0 {
            s.serialize_field(name, raw)?;
        }
        macro_rules! optional {
            ($($field:ident),*) => {$(
                if let Some(value) = &self.$field {
                    s.serialize_field(stringify!($field), value)?;
                }
            )*};
        }
        optional!(mesh, light, emitter, model, animator, prefab);
        if !self.overrides.is_empty() {
            s.serialize_field("overrides", &self.overrides)?;
        }
        if !self.removed.is_empty() {
            s.serialize_field("removed", &self.removed)?;
        }
        if let Some(under) = &self.under {
            s.serialize_field("under", under)?;
        }
        s.end()
    }
}

/// Reads a [`NodeRecord`], its registered components through `registry`.
#[derive(Clone, Copy)]
pub struct RecordSeed<'a> {
    /// The types the record's components are read as.
    pub registry: &'a ComponentRegistry,
    /// How the record is read. A record read from a parsed value (a
    /// prefab's override) is read strictly: only RON text can be kept as
    /// written.
    pub options: ReadOptions,
}

/// How scene text is read, given with each read ([`SceneFile::parse_with`](crate::scene::SceneFile::parse_with),
/// [`Scene::from_text_with`](crate::Scene::from_text_with)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Keep a registered component whose value does not read as its type
    /// (a field its type lost, another type) as written, like a component
    /// no type here has (saved back as it was, a warning naming the node,
    /// the component and why), instead of refusing the scene. For state
    /// handed from one build of a game to the next (live mode), whose types
    /// may have changed; a file opened by a user keeps the error at its line.
    pub keep_unreadable: bool,
}

impl ReadOptions {
    /// What live mode reads the previous build's state with.
    pub const KEEP_UNREADABLE: ReadOptions = ReadOptions {
        keep_unreadable: true,
    };
}

impl<'de> DeserializeSeed<'de> for RecordSeed<'_> {
    type Value = NodeRecord;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<NodeRecord, D::Error> {
        d.deserialize_struct("NodeRecord", &BUILT_IN_FIELDS, self)
    }
}

impl<'de> Visitor<'de> for RecordSeed<'_> {
    type Value = NodeRecord;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a node: (name: \"...\", ...)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<NodeRecord, A::Error> {
        let mut record = NodeRecord::new("");
        let mut named = false;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "name" => {
                    record.name = map.next_value()?;
                    named = true;
                }
                "parent" => record.parent = map.next_value()?,
                "transform" => record.transform = map.next_value()?,
                "mesh" => record.mesh = map.next_value()?,
                "light" => record.light = map.next_value()?,
                "emitter" => record.emitter = map.next_value()?,
                "model" => record.model = map.next_value()?,
                "animator" => record.animator = map.next_value()?,
                "prefab" => record.prefab = map.next_value()?,
                "overrides" => record.overrides = map.next_value()?,
                "removed" => record.removed = map.next_value()?,
                "under" => record.under = map.next_value()?,
                name => match self.registry.get(name) {
                    Some(kind) => {
                        if record.component_named(name).is_some() {
                            let message = format!("duplicate component `{name}`");
                            return Err(de::Error::custom(message));
                        }
                        if self.options.keep_unreadable {
                            let raw: Box<ron::value::RawValue> = map.next_value()?;
                            match super::ron_options()
                                .from_str_seed(raw.get_ron(), ComponentSeed(kind))
                            {
                                Ok(value) => record.set_component(value),
                                Err(e) => {
                                    log::warn!(
                                        "node `{}`: its `{name}` no longer reads as this build's type ({}); kept as written, the node goes without it",
                                        record.name,
                                        e.code
                                    );
                                    let name = self.registry.unknown_name(name);
                                    record.unknown.0.push((name, raw));
                                }
                            }
                        } else {
                            let value = map.next_value_seed(ComponentSeed(kind))?;
                            record.set_component(value);
                        }
                    }
                    None => {
                        let raw: Box<ron::value::RawValue> = map.next_value()?;
                        let name = self.registry.unknown_name(name);
                        record.unknown.0.push((name, raw));
                    }
                },
            }
        }
        if !named {
            return Err(de::Error::missing_field("name"));
        }
        Ok(record)
    }
}

/// Reads one registered component's value.
struct ComponentSeed<'a>(&'a crate::scene::ComponentType);

impl<'de> DeserializeSeed<'de> for ComponentSeed<'_> {
    type Value = AnyComponent;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<AnyComponent, D::Error> {
        self.0.deserialize(d)
    }
}

/// Reads a list of [`NodeRecord`]s through `registry`, as the options say.
#[derive(Clone, Copy)]
pub(crate) struct RecordsSeed<'a>(pub &'a ComponentRegistry, pub ReadOptions);

impl<'de> DeserializeSeed<'de> for RecordsSeed<'_> {
    type Value = Vec<NodeRecord>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Vec<NodeRecord>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for RecordsSeed<'_> {
    type Value = Vec<NodeRecord>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of nodes")
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<NodeRecord>, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
        while let Some(record) = seq.next_element_seed(RecordSeed {
            registry: self.0,
            options: self.1,
        })? {
            out.push(record);
        }
        Ok(out)
    }
}
