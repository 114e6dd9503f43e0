//! Plugins: what a game adds to the engine (its components, resources and
//! systems), and [`Game`], the list of them a program runs worlds with.
//!
//! A game crate builds its own editor and viewer from the same plugins
//! (`keel_editor::run_game(game)`, `keel_player::play(game, scene)`), so both know its
//! types. Setting up happens in two phases because scene files name
//! components: [`Game::register`] makes every plugin's component types known
//! to an [`Assets`] store before any scene loads into it; [`Game::build`]
//! gives a world about to run its resources and systems.
//!
//! ```
//! use keel_engine::scene::ComponentRegistry;
//! use keel_engine::{Assets, Game, GameError, Plugin, Scene, World};
//!
//! #[derive(Clone, Debug, Default)]
//! struct Score(u32);
//!
//! struct Scoring;
//!
//! impl Plugin for Scoring {
//!     fn build(&self, world: &mut World) -> Result<(), GameError> {
//!         world.insert_resource(Score::default());
//!         world.systems_mut().add("score", |scene, _, _| {
//!             if let Some(score) = scene.resource_mut::<Score>() {
//!                 score.0 += 1;
//!             }
//!         })?;
//!         Ok(())
//!     }
//! }
//!
//! let game = Game::new().with(Scoring);
//! let assets = Assets::new();
//! game.register(&assets)?;
//! let mut world = World::new(Scene::with_assets(&assets));
//! game.build(&mut world)?;
//! world.step();
//! assert_eq!(world.resource::<Score>().map(|s| s.0), Some(1));
//! # Ok::<(), GameError>(())
//! ```

use std::path::Path;
use std::sync::Arc;

use crate::assets::Assets;
use crate::files::ReadLimits;
use crate::input::{Actions, INPUT_FILE, InputError};
use crate::scene::{ComponentRegistry, RegistryError, Scene, SceneError};
use crate::systems::SystemError;
use crate::world::World;

/// Why a game could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// A plugin's component types clash with others.
    #[error("plugin `{plugin}`: {source}")]
    Registry {
        /// The plugin.
        plugin: String,
        /// What clashed.
        source: RegistryError,
    },
    /// A plugin's systems could not be added or ordered.
    #[error("plugin `{plugin}`: {source}")]
    System {
        /// The plugin.
        plugin: String,
        /// What was refused.
        source: SystemError,
    },
    /// A scene file the game loads.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// A system error raised outside a plugin's build (converted by `?`).
    #[error(transparent)]
    Systems(#[from] SystemError),
    /// A registry error raised outside a plugin's build (converted by `?`).
    #[error(transparent)]
    Types(#[from] RegistryError),
    /// Two plugins declare one input action.
    #[error("input action `{action}` is declared by both `{first}` and `{second}`")]
    DuplicateAction {
        /// The action.
        action: String,
        /// The plugin that declared it first.
        first: String,
        /// The plugin that declared it again.
        second: String,
    },
    /// The `input.ron` beside the scene.
    #[error(transparent)]
    Input(#[from] InputError),
}

/// A line of text a game shows its player (a score, what to do next). A
/// resource: a system sets it when what it says changes; the viewer shows it
/// in the window's title, the editor over the 3D view while playing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hud {
    /// What the player reads.
    pub text: String,
}

/// What a game adds to the engine. Both methods have empty defaults.
pub trait Plugin: Send + Sync {
    /// The name errors name it by.
    fn name(&self) -> String {
        std::any::type_name::<Self>().to_owned()
    }

    /// Registers the component types its scenes use (see
    /// [`ComponentRegistry::register`]); runs before any scene loads.
    ///
    /// # Errors
    /// The registry's, for a name taken by another type.
    fn components(&self, registry: &mut ComponentRegistry) -> Result<(), RegistryError> {
        let _ = registry;
        Ok(())
    }

    /// Adds the model formats its scenes use beyond glTF and OBJ (see
    /// [`ModelImporter`](crate::assets::ModelImporter)); runs before any scene loads.
    fn importers(&self, importers: &mut crate::assets::Importers) {
        let _ = importers;
    }

    /// The input actions its systems read ([`crate::Input::axis`],
    /// `action_held`, `action_pressed`), with their default bindings; an
    /// `input.ron` beside the scene may rebind them.
    fn actions(&self) -> Actions {
        Actions::default()
    }

    /// Gives a world about to run its resources and systems.
    ///
    /// # Errors
    /// A system name added twice, an order that names no system or makes a cycle.
    fn build(&self, world: &mut World) -> Result<(), GameError> {
        let _ = world;
        Ok(())
    }
}

/// The plugins a program runs worlds with, in the order added (their systems
/// are added in that order too). Cheap to clone.
#[derive(Clone, Default)]
pub struct Game {
    plugins: Vec<Arc<dyn Plugin>>,
}

impl std::fmt::Debug for Game {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.plugins.iter().map(|p| p.name()))
            .finish()
    }
}

impl Game {
    /// No plugins: the engine as it comes.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a plugin.
    #[must_use]
    pub fn with(mut self, plugin: impl Plugin + 'static) -> Self {
        self.plugins.push(Arc::new(plugin));
        self
    }

    /// Names of the plugins, in order.
    pub fn names(&self) -> Vec<String> {
        self.plugins.iter().map(|p| p.name()).collect()
    }

    /// Makes every plugin's component types and model formats known to
    /// `assets`' scenes.
    ///
    /// # Errors
    /// [`GameError::Registry`] naming the plugin whose type clashed.
    pub fn register(&self, assets: &Assets) -> Result<(), GameError> {
        for plugin in &self.plugins {
            plugin.importers(&mut assets.importers_mut());
            ComponentRegistry::edit(assets, |registry| plugin.components(registry)).map_err(
                |source| GameError::Registry {
                    plugin: plugin.name(),
                    source,
                },
            )?;
        }
        Ok(())
    }

    /// Every plugin's input actions with their default bindings.
    ///
    /// # Errors
    /// [`GameError::DuplicateAction`]: two plugins declare one name.
    pub fn actions(&self) -> Result<Actions, GameError> {
        let mut all = Actions::default();
        let mut owner: std::collections::BTreeMap<String, String> = Default::default();
        for plugin in &self.plugins {
            for (name, binding) in plugin.actions().iter() {
                if let Some(first) = owner.insert(name.to_owned(), plugin.name()) {
                    return Err(GameError::DuplicateAction {
                        action: name.to_owned(),
                        first,
                        second: plugin.name(),
                    });
                }
                all = all.bind(name, binding.clone());
            }
        }
        Ok(all)
    }

    /// The game's actions as the scene at `scene` plays them: the plugins'
    /// bindings with those of an `input.ron` in the scene's folder over
    /// them (none there: the plugins' own), read within `limits` and from
    /// their source (the disk, or a web page's fetched files).
    ///
    /// # Errors
    /// As [`Game::actions`]; the file's [`InputError`] (an unknown key or an
    /// action no plugin declares, at its line).
    pub fn actions_for(&self, scene: &Path, limits: &ReadLimits) -> Result<Actions, GameError> {
        let actions = self.actions()?;
        let file = scene.with_file_name(INPUT_FILE);
        // Only a file that is not there means "no bindings of its own": a
        // folder, a device or an unreadable file in its place is an error
        // naming it (reading refuses what is not a regular file).
        match crate::files::check_path(&file, crate::files::FileKind::Settings, limits) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(actions),
            _ => Ok(actions.overridden_by_file(&file, limits)?),
        }
    }

    /// As [`Game::build`], the world's input actions bound as the scene
    /// file at `scene` plays them ([`Game::actions_for`]).
    ///
    /// # Errors
    /// As [`Game::build`] and [`Game::actions_for`].
    pub fn build_for(&self, world: &mut World, scene: &Path) -> Result<(), GameError> {
        let limits = world.scene().assets().limits().clone();
        self.build_with(world, self.actions_for(scene, &limits)?)
    }

    /// Gives `world` every plugin's resources, systems and input actions.
    ///
    /// # Errors
    /// The first plugin's error, naming the plugin.
    pub fn build(&self, world: &mut World) -> Result<(), GameError> {
        self.build_with(world, self.actions()?)
    }

    /// Gives `world` `actions` and every plugin's resources and systems.
    fn build_with(&self, world: &mut World, actions: Actions) -> Result<(), GameError> {
        world.set_actions(Arc::new(actions));
        for plugin in &self.plugins {
            plugin.build(world).map_err(|error| match error {
                GameError::Systems(source) => GameError::System {
                    plugin: plugin.name(),
                    source,
                },
                GameError::Types(source) => GameError::Registry {
                    plugin: plugin.name(),
                    source,
                },
                other => other,
            })?;
        }
        Ok(())
    }

    /// Registers the game's types in `assets`, loads the scene file at
    /// `path` into it and builds a world around it ([`Game::build_for`]:
    /// an `input.ron` beside the scene rebinds the game's actions).
    ///
    /// # Errors
    /// As [`Game::register`], [`Scene::load`] and [`Game::build_for`].
    pub fn load(&self, path: &Path, assets: &Assets) -> Result<World, GameError> {
        self.register(assets)?;
        let mut world = World::new(Scene::load(path, assets)?);
        self.build_for(&mut world, path)?;
        Ok(world)
    }
}
