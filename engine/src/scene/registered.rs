//! Components registered by name: the built-in behaviours and a game's own
//! types, all through one path.
//!
//! A [`Component`] is a plain struct or enum (serde for files, bevy_reflect
//! for the inspector, `Debug` for state hashes). Each registered type gets a
//! packed [`Column`] of its own, the same struct-of-arrays storage as the
//! engine's columns, created the first time a node gets one; a system borrows
//! the typed column once and walks it, so nothing is boxed per component and
//! nothing dispatches per node. What must handle every kind without knowing
//! it (despawn, copies, keyframes, state hashes, scene files) goes through
//! [`AnyColumn`] and [`AnyComponent`], once per column or per value.
//!
//! The registry belongs to an `Assets` store (kept there by type, as prefab
//! expansions are), so every scene loaded into one store knows the same types
//! and two stores know their own. A file naming a component the registry
//! lacks is refused with the registered names (the player), or kept as
//! written and saved back unchanged when the registry keeps unknown
//! components (the editor's does). Unknown fields are refused for every
//! type: the registry reads each component through `serde_ignored`, so a
//! field the type drops is an error at its line.
//!
//! Why bevy_reflect: it is the reflection crate of the ecosystem's largest
//! engine, maintained with it, usable alone (no ECS), with derive support for
//! structs, enums, lists, options and glam types, custom field attributes
//! (ranges, colours) and a `TypeRegistry` with defaults for switching enum
//! variants. A serde-driven schema would know neither enum variants nor
//! ranges without a second derive of our own.

mod nested;

use std::any::{Any, TypeId};
use std::fmt;

use bevy_reflect::{GetTypeRegistration, Reflect, Typed};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{Column, NodeId};
use crate::validation::InvalidValue;

/// A type a node can carry, stored in its own packed column and known by
/// [`Component::NAME`] in scene files, prefab overrides and the inspector.
///
/// ```
/// use bevy_reflect::Reflect;
/// use keel_engine::{Component, InvalidValue};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Clone, Debug, Serialize, Deserialize, Reflect)]
/// struct Health {
///     hp: f32,
///     max: f32,
/// }
///
/// impl Component for Health {
///     const NAME: &'static str = "health";
///     fn validate(&self) -> Result<(), InvalidValue> {
///         InvalidValue::range("max", self.max, 0.0..=1e6)?;
///         InvalidValue::range("hp", self.hp, 0.0..=self.max)
///     }
/// }
/// ```
pub trait Component:
    Clone
    + fmt::Debug
    + Serialize
    + DeserializeOwned
    + Reflect
    + Typed
    + GetTypeRegistration
    + Send
    + Sync
    + 'static
{
    /// The name scene files write it under (`health: (hp: 10, max: 10)`):
    /// lower case, unique among a registry's components.
    const NAME: &'static str;

    /// Checks a value read from a file or an override (ranges, finiteness).
    /// The engine's own values inside it (a [`crate::Timer`] field) are
    /// checked after it by their own rules, without being named here.
    ///
    /// # Errors
    /// The field (relative to the component) and what it should have been.
    fn validate(&self) -> Result<(), InvalidValue> {
        Ok(())
    }
}

/// Marks a `Vec3` or `Vec4` field of a component as a linear colour, for the
/// inspector: `#[reflect(@ColorHint)]`.
#[derive(Clone, Copy, Debug, Default, Reflect)]
pub struct ColorHint;

/// One registered component's column, whatever its type: what code that
/// handles every kind does with it (once per column, never per node in a
/// system's loop).
pub trait AnyColumn: Send + Sync {
    /// [`Component::NAME`] of its type.
    fn name(&self) -> &'static str;
    /// The `TypeId` of its values.
    fn value_type(&self) -> TypeId;
    /// Number of nodes that have it.
    fn len(&self) -> usize;
    /// Whether no node has it.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Takes it away from `node`; whether it had one.
    fn remove_node(&mut self, node: NodeId) -> bool;
    /// The nodes that have it, in storage order.
    fn owners(&self) -> &[NodeId];
    /// A copy of `node`'s value.
    fn value_of(&self, node: NodeId) -> Option<AnyComponent>;
    /// `node`'s value, reflected (the inspector reads and edits through it).
    fn reflect_of(&self, node: NodeId) -> Option<&dyn Reflect>;
    /// `node`'s value, reflected and mutable.
    fn reflect_mut_of(&mut self, node: NodeId) -> Option<&mut dyn Reflect>;
    /// The same values under a new identity (see [`Column`]'s `Clone`).
    fn clone_column(&self) -> Box<dyn AnyColumn>;
    /// Whether it may have changed since the last [`AnyColumn::untouch`].
    fn touched(&self) -> bool;
    /// Forgets past mutable accesses (a recording holds a copy).
    fn untouch(&mut self);
    /// Owners and values in storage order, as text every float of which
    /// reads back exactly (what state hashes are taken of).
    fn write_state(&self, out: &mut dyn fmt::Write) -> fmt::Result;
    /// Bytes its values and bookkeeping hold, roughly.
    fn heap_bytes(&self) -> usize;
    /// Starts a step's undo: the first mutable access copies the column
    /// aside (the engine's own, `World` arms it).
    #[doc(hidden)]
    fn arm(&mut self);
    /// Ends a step's undo: the step stands.
    #[doc(hidden)]
    fn disarm(&mut self);
    /// Puts the column back as it was when armed.
    #[doc(hidden)]
    fn roll_back(&mut self);
    /// The column itself, to downcast to `Column<T>`.
    fn as_any(&self) -> &dyn Any;
    /// The column itself, mutably.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<C: Component> AnyColumn for Column<C> {
    fn name(&self) -> &'static str {
        C::NAME
    }
    fn value_type(&self) -> TypeId {
        TypeId::of::<C>()
    }
    fn len(&self) -> usize {
        Column::len(self)
    }
    fn remove_node(&mut self, node: NodeId) -> bool {
        self.remove(node).is_some()
    }
    fn owners(&self) -> &[NodeId] {
        self.parts().0
    }
    fn value_of(&self, node: NodeId) -> Option<AnyComponent> {
        self.get(node).map(|value| AnyComponent::new(value.clone()))
    }
    fn reflect_of(&self, node: NodeId) -> Option<&dyn Reflect> {
        self.get(node).map(|value| value as &dyn Reflect)
    }
    fn reflect_mut_of(&mut self, node: NodeId) -> Option<&mut dyn Reflect> {
        self.get_mut(node).map(|value| value as &mut dyn Reflect)
    }
    fn clone_column(&self) -> Box<dyn AnyColumn> {
        Box::new(self.clone())
    }
    fn touched(&self) -> bool {
        Column::touched(self)
    }
    fn untouch(&mut self) {
        Column::untouch(self);
    }
    fn write_state(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        for (node, value) in self.iter() {
            write!(out, "{node:?}{value:?}")?;
        }
        Ok(())
    }
    fn heap_bytes(&self) -> usize {
        self.len() * (size_of::<C>() + 12)
    }
    fn arm(&mut self) {
        Column::arm(self);
    }
    fn disarm(&mut self) {
        Column::disarm(self);
    }
    fn roll_back(&mut self) {
        Column::roll_back(self);
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// The value side of a registered component whose type is known only at run
/// time: what a scene file record, a copy or an undo step holds.
trait ErasedValue: Send + Sync {
    fn name(&self) -> &'static str;
    fn value_type(&self) -> TypeId;
    fn clone_boxed(&self) -> Box<dyn ErasedValue>;
    fn debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    fn serialize(&self) -> &dyn erased_serde::Serialize;
    fn reflect(&self) -> &dyn Reflect;
    fn reflect_mut(&mut self) -> &mut dyn Reflect;
    fn validate(&self) -> Result<(), InvalidValue>;
    fn new_column(&self) -> Box<dyn AnyColumn>;
    /// Puts the value into `column` (a `Column` of its own type) for `node`.
    fn insert_into(self: Box<Self>, column: &mut dyn AnyColumn, node: NodeId);
}

impl<C: Component> ErasedValue for C {
    fn name(&self) -> &'static str {
        C::NAME
    }
    fn value_type(&self) -> TypeId {
        TypeId::of::<C>()
    }
    fn clone_boxed(&self) -> Box<dyn ErasedValue> {
        Box::new(self.clone())
    }
    fn debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
    fn serialize(&self) -> &dyn erased_serde::Serialize {
        self
    }
    fn reflect(&self) -> &dyn Reflect {
        self
    }
    fn reflect_mut(&mut self) -> &mut dyn Reflect {
        self
    }
    fn validate(&self) -> Result<(), InvalidValue> {
        Component::validate(self)?;
        nested::nested(self.as_partial_reflect())
    }
    fn new_column(&self) -> Box<dyn AnyColumn> {
        Box::new(Column::<C>::default())
    }
    fn insert_into(self: Box<Self>, column: &mut dyn AnyColumn, node: NodeId) {
        if let Some(column) = column.as_any_mut().downcast_mut::<Column<C>>() {
            column.insert(node, *self);
        }
    }
}

/// A registered component's value of a type known only at run time.
pub struct AnyComponent(Box<dyn ErasedValue>);

impl AnyComponent {
    /// Wraps a value.
    pub fn new<C: Component>(value: C) -> Self {
        Self(Box::new(value))
    }

    /// Its type's [`Component::NAME`].
    pub fn name(&self) -> &'static str {
        self.0.name()
    }

    /// The `TypeId` of the value inside.
    pub fn value_type(&self) -> TypeId {
        self.0.value_type()
    }

    /// The value, if it is a `C`.
    pub fn downcast_ref<C: Component>(&self) -> Option<&C> {
        self.0.reflect().downcast_ref::<C>()
    }

    /// The value, reflected (the inspector edits through it).
    pub fn reflect(&self) -> &dyn Reflect {
        self.0.reflect()
    }

    /// The value, reflected and mutable.
    pub fn reflect_mut(&mut self) -> &mut dyn Reflect {
        self.0.reflect_mut()
    }

    /// Its type's checks (see [`Component::validate`]), then those of the
    /// engine's values it holds (a [`crate::Timer`]'s duration).
    ///
    /// # Errors
    /// The field that breaks them.
    pub fn validate(&self) -> Result<(), InvalidValue> {
        self.0.validate()
    }

    pub(crate) fn serialize(&self) -> &dyn erased_serde::Serialize {
        self.0.serialize()
    }

    pub(crate) fn new_column(&self) -> Box<dyn AnyColumn> {
        self.0.new_column()
    }

    pub(crate) fn insert_into(self, column: &mut dyn AnyColumn, node: NodeId) {
        self.0.insert_into(column, node);
    }
}

impl Clone for AnyComponent {
    fn clone(&self) -> Self {
        Self(self.0.clone_boxed())
    }
}

impl fmt::Debug for AnyComponent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.debug(f)
    }
}

impl PartialEq for AnyComponent {
    fn eq(&self, other: &Self) -> bool {
        self.value_type() == other.value_type()
            && self
                .reflect()
                .reflect_partial_eq(other.reflect().as_partial_reflect())
                .unwrap_or(false)
    }
}

/// The registered columns of a scene, ordered by name (state hashes and
/// keyframes walk them in that order, whatever order they were created in).
#[derive(Default)]
pub struct RegisteredColumns {
    columns: Vec<Box<dyn AnyColumn>>,
    /// While a step's undo is armed: the columns made since (its roll-back
    /// drops them); `None` while disarmed.
    added: Option<Vec<&'static str>>,
}

impl RegisteredColumns {
    /// The column of `C`, if any node ever had one.
    pub fn get<C: Component>(&self) -> Option<&Column<C>> {
        let column = self
            .columns
            .iter()
            .find(|c| c.value_type() == TypeId::of::<C>())?;
        column.as_any().downcast_ref()
    }

    /// The column of `C`, mutably, if any node ever had one.
    pub fn get_mut<C: Component>(&mut self) -> Option<&mut Column<C>> {
        let at = self.position(TypeId::of::<C>())?;
        self.columns[at].as_any_mut().downcast_mut()
    }

    /// The column of `C`, made empty if there is none yet.
    pub fn get_or_insert<C: Component>(&mut self) -> &mut Column<C> {
        let at = match self.position(TypeId::of::<C>()) {
            Some(at) => at,
            None => self.add(Box::new(Column::<C>::default())),
        };
        self.columns[at]
            .as_any_mut()
            .downcast_mut()
            .expect("a column is found by its values' type")
    }

    fn position(&self, of: TypeId) -> Option<usize> {
        self.columns.iter().position(|c| c.value_type() == of)
    }

    fn add(&mut self, column: Box<dyn AnyColumn>) -> usize {
        let at = self.columns.partition_point(|c| c.name() < column.name());
        if let Some(added) = &mut self.added {
            added.push(column.name());
        }
        self.columns.insert(at, column);
        at
    }

    /// Starts a step's undo of every column (see [`Column::arm`]).
    pub(crate) fn arm(&mut self) {
        for column in &mut self.columns {
            column.arm();
        }
        self.added = Some(Vec::new());
    }

    /// Ends a step's undo: the step stands.
    pub(crate) fn disarm(&mut self) {
        for column in &mut self.columns {
            column.disarm();
        }
        self.added = None;
    }

    /// Puts every column back as it was when armed: the ones made since
    /// are dropped, the others rolled back.
    pub(crate) fn roll_back(&mut self) {
        let added = self.added.take().unwrap_or_default();
        self.columns.retain(|c| !added.contains(&c.name()));
        for column in &mut self.columns {
            column.roll_back();
        }
    }

    /// The column of the value's type (made if missing), for code that knows
    /// the value only at run time.
    pub fn column_for(&mut self, value: &AnyComponent) -> &mut dyn AnyColumn {
        let at = match self.position(value.value_type()) {
            Some(at) => at,
            None => self.add(value.new_column()),
        };
        self.columns[at].as_mut()
    }

    /// Gives `node` a value of a type known at run time.
    pub fn insert_any(&mut self, node: NodeId, value: AnyComponent) {
        let column = self.column_for(&value);
        value.insert_into(column, node);
    }

    /// The column named `name`, if any node ever had one.
    pub fn by_name(&self, name: &str) -> Option<&dyn AnyColumn> {
        self.columns
            .iter()
            .find(|c| c.name() == name)
            .map(|c| c.as_ref())
    }

    /// The column named `name`, mutably.
    pub fn by_name_mut(&mut self, name: &str) -> Option<&mut (dyn AnyColumn + 'static)> {
        self.columns
            .iter_mut()
            .find(|c| c.name() == name)
            .map(|c| c.as_mut())
    }

    /// Every column, by name.
    pub fn iter(&self) -> impl Iterator<Item = &dyn AnyColumn> {
        self.columns.iter().map(|c| c.as_ref())
    }

    /// Every column, mutably.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut Box<dyn AnyColumn>> {
        self.columns.iter_mut()
    }

    /// Copies of every component `node` has, by name.
    pub fn values_of(&self, node: NodeId) -> Vec<AnyComponent> {
        self.columns
            .iter()
            .filter_map(|c| c.value_of(node))
            .collect()
    }

    /// Drops every registered component of `node`.
    pub(crate) fn remove_all(&mut self, node: NodeId) {
        for column in &mut self.columns {
            column.remove_node(node);
        }
    }

    /// Columns put together from keyframe copies.
    pub(crate) fn from_columns(columns: Vec<Box<dyn AnyColumn>>) -> Self {
        Self {
            columns,
            added: None,
        }
    }
}

impl Clone for RegisteredColumns {
    fn clone(&self) -> Self {
        Self {
            columns: self.columns.iter().map(|c| c.clone_column()).collect(),
            added: None,
        }
    }
}

impl fmt::Debug for RegisteredColumns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_map();
        for column in &self.columns {
            list.entry(&column.name(), &column.len());
        }
        list.finish()
    }
}
