//! The component types a scene knows by name: the built-in behaviours and
//! whatever a game registers, for scene files, prefab overrides and the
//! inspector.
//!
//! A registry belongs to whoever runs worlds (a scene holds a cheap handle to
//! its own, copied on write): two games in one process do not see each
//! other's types. Typed access (`scene.get::<Health>(node)`) never consults
//! it; only what meets a component by its name does.

use std::any::TypeId;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use bevy_reflect::TypeRegistry;

use super::registered::{AnyComponent, Component};
use super::{Orbit, Oscillate, Spin};
use crate::assets::Assets;

/// Why a type could not be registered.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RegistryError {
    /// Two types under one name.
    #[error("component `{name}` registered twice: by `{first}` and by `{second}`")]
    DuplicateName {
        /// The name both claim.
        name: &'static str,
        /// The type registered first.
        first: &'static str,
        /// The type that came second.
        second: &'static str,
    },
    /// A name scene files could not write.
    #[error(
        "component name `{name}` of `{type_name}`: expected lower case letters, digits and `_`, starting with a letter"
    )]
    BadName {
        /// The name given.
        name: &'static str,
        /// The type.
        type_name: &'static str,
    },
}

/// One registered component type.
#[derive(Clone)]
pub struct ComponentType {
    name: &'static str,
    type_name: &'static str,
    type_id: TypeId,
    deserialize:
        fn(&mut dyn erased_serde::Deserializer<'_>) -> Result<AnyComponent, erased_serde::Error>,
    default: fn() -> AnyComponent,
    reflect: fn(&mut TypeRegistry),
}

impl ComponentType {
    fn of<C: Component + Default>() -> Self {
        Self {
            name: C::NAME,
            type_name: std::any::type_name::<C>(),
            type_id: TypeId::of::<C>(),
            deserialize: |d| erased_serde::deserialize::<C>(d).map(AnyComponent::new),
            default: || AnyComponent::new(C::default()),
            reflect: TypeRegistry::register::<C>,
        }
    }

    /// The name files write it under.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The Rust type's path.
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }

    /// Its `TypeId`.
    pub fn type_id(&self) -> TypeId {
        self.type_id
    }

    /// The value a freshly added one starts with (its `Default`).
    pub fn default_value(&self) -> AnyComponent {
        (self.default)()
    }

    /// Reads a value of this type. A field the type does not have is an
    /// error whether or not the type refuses unknown fields itself: read
    /// and saved again, its value would be gone.
    ///
    /// # Errors
    /// The deserializer's, for a value of the wrong shape; an unknown field,
    /// named by its path within the component.
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(
        &self,
        deserializer: D,
    ) -> Result<AnyComponent, D::Error> {
        let mut unknown: Option<String> = None;
        let value = {
            let mut note = |path: serde_ignored::Path<'_>| {
                unknown.get_or_insert_with(|| path.to_string());
            };
            let watched = serde_ignored::Deserializer::new(deserializer, &mut note);
            let mut erased = <dyn erased_serde::Deserializer>::erase(watched);
            (self.deserialize)(&mut erased).map_err(serde::de::Error::custom)?
        };
        match unknown {
            Some(field) => Err(serde::de::Error::custom(format_args!(
                "unknown field `{field}` in component `{}`",
                self.name
            ))),
            None => Ok(value),
        }
    }
}

/// Component types by name, with their reflection data.
#[derive(Clone)]
pub struct ComponentRegistry {
    /// Sorted by name.
    types: Vec<ComponentType>,
    reflect: Arc<TypeRegistry>,
    /// Names of components a file had and no type here has: scene records
    /// write them back under the same name, which serde wants `'static`.
    /// Leaked once per distinct name and shared by copies of the registry.
    unknown: Arc<Mutex<HashSet<&'static str>>>,
    /// Load scenes naming such components (keeping them for saving) instead
    /// of refusing them.
    keep_unknown: bool,
}

impl Default for ComponentRegistry {
    /// The built-in components: the behaviours `spin`, `oscillate`,
    /// `orbit`, `camera`, `collider`, `body`, `joint` and `character`.
    fn default() -> Self {
        let mut registry = Self {
            types: Vec::new(),
            reflect: Arc::new(TypeRegistry::new()),
            unknown: Arc::default(),
            keep_unknown: false,
        };
        for result in [
            registry.register::<Spin>(),
            registry.register::<Oscillate>(),
            registry.register::<Orbit>(),
            registry.register::<super::SceneCamera>(),
            registry.register::<super::Collider>(),
            registry.register::<super::Body>(),
            registry.register::<super::Joint>(),
            registry.register::<super::Character>(),
        ] {
            result.expect("the built-in names are distinct and well formed");
        }
        registry
    }
}

impl std::fmt::Debug for ComponentRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl ComponentRegistry {
    /// The built-in components only.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `C` under [`Component::NAME`]; registering a type again does nothing.
    ///
    /// # Errors
    /// [`RegistryError::DuplicateName`] when another type has the name,
    /// [`RegistryError::BadName`] when files could not write it.
    pub fn register<C: Component + Default>(&mut self) -> Result<(), RegistryError> {
        let added = ComponentType::of::<C>();
        let well_formed = added.name.starts_with(|c: char| c.is_ascii_lowercase())
            && added
                .name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !well_formed || super::file::BUILT_IN_FIELDS.contains(&added.name) {
            return Err(RegistryError::BadName {
                name: added.name,
                type_name: added.type_name,
            });
        }
        match self.types.binary_search_by(|t| t.name.cmp(added.name)) {
            Ok(at) if self.types[at].type_id == added.type_id => Ok(()),
            Ok(at) => Err(RegistryError::DuplicateName {
                name: added.name,
                first: self.types[at].type_name,
                second: added.type_name,
            }),
            Err(at) => {
                let mut reflect = TypeRegistry::new();
                for t in self.types.iter().chain([&added]) {
                    (t.reflect)(&mut reflect);
                }
                self.reflect = Arc::new(reflect);
                self.types.insert(at, added);
                Ok(())
            }
        }
    }

    /// Whether scenes naming a component this registry lacks load (the
    /// component kept as written, and written back on save) or are refused
    /// with an error listing the registered names (the default).
    pub fn keeps_unknown(&self) -> bool {
        self.keep_unknown
    }

    /// Loads scenes with components this registry lacks, keeping them as
    /// written (what an editor does: nothing of a game's scene is lost).
    pub fn keep_unknown(&mut self, keep: bool) {
        self.keep_unknown = keep;
    }

    /// The type registered as `name`.
    pub fn get(&self, name: &str) -> Option<&ComponentType> {
        let at = self.types.binary_search_by(|t| t.name.cmp(name)).ok()?;
        Some(&self.types[at])
    }

    /// The registration of `type_id`.
    pub fn of_type(&self, type_id: TypeId) -> Option<&ComponentType> {
        self.types.iter().find(|t| t.type_id == type_id)
    }

    /// Every registered type, by name.
    pub fn types(&self) -> impl Iterator<Item = &ComponentType> {
        self.types.iter()
    }

    /// Every registered name, sorted.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.types.iter().map(|t| t.name)
    }

    /// The reflection data of every registered type (and the types their
    /// fields use), for the inspector.
    pub fn reflect(&self) -> &TypeRegistry {
        &self.reflect
    }

    /// `name` as a `'static` string, for a component this registry lacks.
    pub(crate) fn unknown_name(&self, name: &str) -> &'static str {
        let mut names = self.unknown.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&known) = names.get(name) {
            return known;
        }
        let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
        names.insert(leaked);
        leaked
    }
}

impl ComponentRegistry {
    /// The registry of the worlds that share `assets` (made with the
    /// built-in behaviours on first use).
    pub fn of(assets: &Assets) -> Arc<ComponentRegistry> {
        if let Some(registry) = assets.component_types::<ComponentRegistry>() {
            return registry;
        }
        let registry = Arc::new(ComponentRegistry::default());
        assets.set_component_types(Arc::clone(&registry));
        registry
    }

    /// Changes the registry of the worlds that share `assets` (registering
    /// types, keeping unknown ones); scenes already loaded keep what they read.
    ///
    /// # Errors
    /// Whatever `edit` returns.
    pub fn edit<R>(
        assets: &Assets,
        edit: impl FnOnce(&mut ComponentRegistry) -> Result<R, RegistryError>,
    ) -> Result<R, RegistryError> {
        let mut registry = (*Self::of(assets)).clone();
        let out = edit(&mut registry)?;
        assets.set_component_types(Arc::new(registry));
        Ok(out)
    }
}

impl super::Scene {
    /// The component types this scene knows by name: its [`Assets`]' (every
    /// scene loaded into one store knows the same types).
    pub fn registry(&self) -> Arc<ComponentRegistry> {
        ComponentRegistry::of(self.assets())
    }

    /// Makes `C` known by name to every scene of this scene's [`Assets`]
    /// (files, overrides, the inspector); its column is made when a node
    /// first gets one. Register at startup, before loading files that use it.
    ///
    /// # Errors
    /// As [`ComponentRegistry::register`].
    pub fn register<C: Component + Default>(&mut self) -> Result<(), RegistryError> {
        if self.registry().of_type(TypeId::of::<C>()).is_some() {
            return Ok(());
        }
        ComponentRegistry::edit(self.assets(), ComponentRegistry::register::<C>)
    }

    /// Copies of every registered component `node` has, by name.
    pub fn components_of(&self, node: super::NodeId) -> Vec<AnyComponent> {
        self.components.registered.values_of(node)
    }

    /// Gives `node` a component whose type is known at run time.
    ///
    /// # Errors
    /// [`NodeError::StaleNode`](super::NodeError::StaleNode) if `node` is not alive.
    pub fn insert_any(
        &mut self,
        node: super::NodeId,
        value: AnyComponent,
    ) -> Result<(), super::NodeError> {
        self.dense_or_err(node)?;
        self.components.registered.insert_any(node, value);
        Ok(())
    }

    /// Takes the component named `name` from `node`; whether it had one.
    pub fn remove_named(&mut self, node: super::NodeId, name: &str) -> bool {
        self.components
            .registered
            .by_name_mut(name)
            .is_some_and(|column| column.remove_node(node))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(
        Clone, Debug, Default, serde::Serialize, serde::Deserialize, bevy_reflect::Reflect,
    )]
    struct Health {
        hp: f32,
    }

    impl Component for Health {
        const NAME: &'static str = "health";
    }

    #[derive(
        Clone, Debug, Default, serde::Serialize, serde::Deserialize, bevy_reflect::Reflect,
    )]
    struct OtherHealth;

    impl Component for OtherHealth {
        const NAME: &'static str = "health";
    }

    #[derive(
        Clone, Debug, Default, serde::Serialize, serde::Deserialize, bevy_reflect::Reflect,
    )]
    struct Shouting;

    impl Component for Shouting {
        const NAME: &'static str = "Shouting";
    }

    #[test]
    fn a_name_belongs_to_one_type() {
        let mut registry = ComponentRegistry::new();
        registry.register::<Health>().unwrap();
        registry
            .register::<Health>()
            .expect("the same type again is fine");
        let error = registry.register::<OtherHealth>().unwrap_err();
        let text = error.to_string();
        assert!(
            text.contains("`health` registered twice") && text.contains("OtherHealth"),
            "{text}"
        );
        assert_eq!(
            registry.names().collect::<Vec<_>>(),
            [
                "body",
                "camera",
                "character",
                "collider",
                "health",
                "joint",
                "orbit",
                "oscillate",
                "spin"
            ]
        );
    }

    #[test]
    fn names_files_cannot_write_are_refused() {
        let error = ComponentRegistry::new().register::<Shouting>().unwrap_err();
        assert!(matches!(error, RegistryError::BadName { .. }), "{error}");
    }

    #[test]
    fn registered_types_are_reflected() {
        let mut registry = ComponentRegistry::new();
        registry.register::<Health>().unwrap();
        assert!(registry.reflect().contains(TypeId::of::<Health>()));
        assert!(registry.reflect().contains(TypeId::of::<Spin>()));
        let copy = registry.clone();
        assert_eq!(copy.names().count(), 9, "copies keep every type");
    }
}
