//! What can go wrong with a scene: [`NodeError`] for an edit the hierarchy
//! refuses, [`SceneError`] for a file that cannot be read, parsed or trusted.

use std::path::PathBuf;

use super::NodeId;
use crate::transform::Transform;

/// A field holds a value the engine cannot use.
#[derive(Debug, thiserror::Error)]
#[error("{}:{line}:{column}: node {index} (`{node}`), field `{field}`: expected {expected}, found {found}", path.display())]
pub struct NodeFieldError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line of the field (of the node when the field is not written out).
    pub line: u32,
    /// 1-based column of the field.
    pub column: u32,
    /// Position of the node in the file's `nodes` list.
    pub index: u32,
    /// Name of the node.
    pub node: String,
    /// Dotted path of the field, e.g. `orbit.radius`.
    pub field: std::borrow::Cow<'static, str>,
    /// What a valid value looks like.
    pub expected: std::borrow::Cow<'static, str>,
    /// The value found.
    pub found: String,
}

/// A value of the `camera` or `environment` section the engine cannot use.
#[derive(Debug, thiserror::Error)]
#[error("{}:{line}:{column}: {section}, field `{field}`: expected {expected}, found {found}", path.display())]
pub struct SettingError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line of the field (of the section when the field is not written out).
    pub line: u32,
    /// 1-based column of the field.
    pub column: u32,
    /// `camera` or `environment`.
    pub section: &'static str,
    /// Name of the field within the section, e.g. `fov_y_degrees`.
    pub field: std::borrow::Cow<'static, str>,
    /// What a valid value looks like.
    pub expected: std::borrow::Cow<'static, str>,
    /// The value found.
    pub found: String,
}

impl From<crate::assets::ModelError> for SceneError {
    fn from(error: crate::assets::ModelError) -> Self {
        SceneError::Model(Box::new(error))
    }
}

/// An edit the scene refuses: a handle that is not alive, a move that would
/// make a cycle, a transform that is not finite. What [`Scene`](super::Scene)'s
/// hierarchy methods return; no file is involved.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    /// The handle's node was despawned (or never belonged to this scene).
    #[error("no such node: {node} is not alive in this scene")]
    StaleNode {
        /// The stale handle.
        node: NodeId,
    },
    /// A node can't become a child of itself or of its own descendant.
    #[error("cannot move {node} under {new_parent}: that is inside its own subtree")]
    CyclicReparent {
        /// The node being moved.
        node: NodeId,
        /// The refused new parent.
        new_parent: NodeId,
    },
    /// A transform with NaN or infinite components.
    #[error("node `{node}`: transform must be finite, got {transform:?}")]
    InvalidTransform {
        /// Name of the node.
        node: String,
        /// The refused value.
        transform: Transform,
    },
}

/// What can go wrong reading, expanding or writing a scene file (or a prefab
/// or model it names). An edit made while loading (spawning under a parent
/// that is gone) comes through [`SceneError::Node`].
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// An edit made while building the scene was refused.
    #[error(transparent)]
    Node(#[from] NodeError),
    /// The file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The text is not a valid scene file.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// What was expected, in the parser's words.
        message: String,
    },
    /// The file was written by a newer (or unknown) version of the format.
    #[error("{}: unsupported scene version {found}, expected 1 to {expected}", path.display())]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// The version in the file.
        found: u32,
        /// The newest version this build reads.
        expected: u32,
    },
    /// A field holds a value the engine cannot use.
    #[error(transparent)]
    InvalidField(Box<NodeFieldError>),
    /// A value of the `camera` or `environment` section the engine cannot use.
    #[error(transparent)]
    InvalidSetting(Box<SettingError>),
    /// A prefab contains itself, directly or through others.
    #[error("prefab cycle: {}", chain.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" -> "))]
    PrefabCycle {
        /// The files, from the outermost to the one that comes back.
        chain: Vec<PathBuf>,
    },
    /// Expanding the records (their prefabs and models) would spawn more
    /// nodes than the budget allows (see `scene::file::prefab::budget`).
    #[error("too many nodes: expanding {} reaches {reached} nodes, over the budget of {max} (set KEEL_MAX_NODES to change it)", chain.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" -> "))]
    TooManyNodes {
        /// The files, from the one expanded to the prefab whose count passed the budget.
        chain: Vec<PathBuf>,
        /// The count when it passed the budget (a lower bound of the whole).
        reached: u64,
        /// The budget.
        max: u64,
    },
    /// A model file could not be imported (the message names the file and element).
    #[error(transparent)]
    Model(Box<crate::assets::ModelError>),
    /// The scene could not be turned into text.
    #[error("{}: could not write the scene: {message}", path.display())]
    Serialize {
        /// The file.
        path: PathBuf,
        /// The serializer's message.
        message: String,
    },
}
