//! The parts of a query: its terms (`&C`, `&mut C`, `Option<&C>`,
//! `Option<&mut C>`), tuples of them, and filters (`With<C>`, `Without<C>`).
//!
//! A query moves the columns its terms name out of the scene for the walk
//! (the closure sees no scene, only the nodes' transforms, so nothing can
//! reach a moved column and see it empty) and puts them back after, on a
//! panic too. The smallest required column drives the walk; the others are
//! found through their O(1) lookup, as a hand-written loop would.

use std::any::TypeId;
use std::marker::PhantomData;

use super::super::registered::Component;
use super::super::{Column, NodeId, RegisteredColumns};

/// One term of a query tuple: the column it reads and what the closure gets.
pub trait Term {
    /// The component.
    type Component: Component;
    /// What the closure gets for one node.
    type Item<'r>;
    /// Whether nodes without the component match (`Option<..>`).
    const OPTIONAL: bool;
    /// Whether it writes (`&mut`).
    const MUTABLE: bool;
    /// The item of the value at `at` (a position in `column`).
    fn at(column: &mut Column<Self::Component>, at: usize) -> Self::Item<'_>;
    /// The item for `node`; `None` when the node does not match.
    fn get(column: &mut Column<Self::Component>, node: NodeId) -> Option<Self::Item<'_>>;
}

impl<C: Component> Term for &C {
    type Component = C;
    type Item<'r> = &'r C;
    const OPTIONAL: bool = false;
    const MUTABLE: bool = false;
    #[inline]
    fn at(column: &mut Column<C>, at: usize) -> &C {
        column.value_at(at)
    }
    #[inline]
    fn get(column: &mut Column<C>, node: NodeId) -> Option<&C> {
        column.position(node).map(|at| column.value_at(at))
    }
}

impl<C: Component> Term for &mut C {
    type Component = C;
    type Item<'r> = &'r mut C;
    const OPTIONAL: bool = false;
    const MUTABLE: bool = true;
    #[inline]
    fn at(column: &mut Column<C>, at: usize) -> &mut C {
        column.value_at_mut(at)
    }
    #[inline]
    fn get(column: &mut Column<C>, node: NodeId) -> Option<&mut C> {
        column.position(node).map(|at| column.value_at_mut(at))
    }
}

impl<C: Component> Term for Option<&C> {
    type Component = C;
    type Item<'r> = Option<&'r C>;
    const OPTIONAL: bool = true;
    const MUTABLE: bool = false;
    #[inline]
    fn at(column: &mut Column<C>, at: usize) -> Option<&C> {
        Some(column.value_at(at))
    }
    #[inline]
    fn get(column: &mut Column<C>, node: NodeId) -> Option<Option<&C>> {
        Some(column.position(node).map(|at| column.value_at(at)))
    }
}

impl<C: Component> Term for Option<&mut C> {
    type Component = C;
    type Item<'r> = Option<&'r mut C>;
    const OPTIONAL: bool = true;
    const MUTABLE: bool = true;
    #[inline]
    fn at(column: &mut Column<C>, at: usize) -> Option<&mut C> {
        Some(column.value_at_mut(at))
    }
    #[inline]
    fn get(column: &mut Column<C>, node: NodeId) -> Option<Option<&mut C>> {
        Some(column.position(node).map(|at| column.value_at_mut(at)))
    }
}

/// Moves `C`'s column out of `registered` (an empty one when no node has a `C`).
fn take<C: Component>(registered: &mut RegisteredColumns, mutable: bool) -> Column<C> {
    let mut column = match registered.get_mut::<C>() {
        Some(column) => std::mem::take(column),
        None => Column::default(),
    };
    if mutable && !column.is_empty() {
        column.touch();
    }
    column
}

/// Puts a column [`take`] moved out back (dropping the empty one made for a
/// type no node has).
fn put_back<C: Component>(registered: &mut RegisteredColumns, column: Column<C>) {
    match registered.get_mut::<C>() {
        Some(slot) => *slot = column,
        None if column.is_empty() => {}
        None => *registered.get_or_insert::<C>() = column,
    }
}

/// A tuple of [`Term`]s, the components a query walks together.
pub trait Query {
    /// The columns, moved out for the walk.
    type Columns: Default;
    /// What the closure gets for one node: a tuple of the terms' items.
    type Item<'r>;
    /// The terms' component types, in order.
    fn types() -> impl Iterator<Item = (TypeId, &'static str)>;
    /// Moves the columns out of `registered`.
    fn take(registered: &mut RegisteredColumns) -> Self::Columns;
    /// Puts them back.
    fn put_back(registered: &mut RegisteredColumns, columns: Self::Columns);
    /// The term that drives the walk (the smallest required column); `None`
    /// when no term is required.
    fn driver(columns: &Self::Columns) -> Option<usize>;
    /// Calls `visit` for every node of term `driver`'s column that `keep`
    /// accepts and that has every required term, in storage order.
    fn walk(
        columns: &mut Self::Columns,
        driver: usize,
        keep: impl FnMut(NodeId) -> bool,
        visit: impl FnMut(NodeId, Self::Item<'_>),
    );
    /// As [`Query::walk`], the driving term a constant: the loop a
    /// programmer would write for that term, with no per-node dispatch.
    fn walk_from<const DRIVER: usize>(
        columns: &mut Self::Columns,
        keep: impl FnMut(NodeId) -> bool,
        visit: impl FnMut(NodeId, Self::Item<'_>),
    );
}

macro_rules! query_tuple {
    ($($t:ident $i:tt),+) => {
        impl<$($t: Term),+> Query for ($($t,)+) {
            type Columns = ($(Column<$t::Component>,)+);
            type Item<'r> = ($($t::Item<'r>,)+);

            fn types() -> impl Iterator<Item = (TypeId, &'static str)> {
                [$((TypeId::of::<$t::Component>(), <$t::Component as Component>::NAME)),+].into_iter()
            }

            fn take(registered: &mut RegisteredColumns) -> Self::Columns {
                ($(take::<$t::Component>(registered, $t::MUTABLE),)+)
            }

            fn put_back(registered: &mut RegisteredColumns, columns: Self::Columns) {
                $(put_back::<$t::Component>(registered, columns.$i);)+
            }

            fn driver(columns: &Self::Columns) -> Option<usize> {
                let mut best: Option<(usize, usize)> = None;
                $(
                    if !$t::OPTIONAL {
                        let len = columns.$i.len();
                        if best.is_none_or(|(_, l)| len < l) {
                            best = Some(($i, len));
                        }
                    }
                )+
                best.map(|(term, _)| term)
            }

            #[inline]
            fn walk(
                columns: &mut Self::Columns,
                driver: usize,
                keep: impl FnMut(NodeId) -> bool,
                visit: impl FnMut(NodeId, Self::Item<'_>),
            ) {
                match driver {
                    $($i => Self::walk_from::<$i>(columns, keep, visit),)+
                    _ => {}
                }
            }

            #[inline]
            fn walk_from<const DRIVER: usize>(
                columns: &mut Self::Columns,
                mut keep: impl FnMut(NodeId) -> bool,
                mut visit: impl FnMut(NodeId, Self::Item<'_>),
            ) {
                let len = match DRIVER {
                    $($i => columns.$i.len(),)+
                    _ => 0,
                };
                for at in 0..len {
                    let node = match DRIVER {
                        $($i => columns.$i.owner_at(at),)+
                        _ => return,
                    };
                    if !keep(node) {
                        continue;
                    }
                    // `DRIVER == $i` is a constant: each term is either read at
                    // `at` (the driver) or looked up, never both.
                    let items = ($(
                        if DRIVER == $i {
                            $t::at(&mut columns.$i, at)
                        } else {
                            match $t::get(&mut columns.$i, node) {
                                Some(item) => item,
                                None => continue,
                            }
                        },
                    )+);
                    visit(node, items);
                }
            }
        }
    };
}

query_tuple!(A 0);
query_tuple!(A 0, B 1);
query_tuple!(A 0, B 1, C 2);
query_tuple!(A 0, B 1, C 2, D 3);
query_tuple!(A 0, B 1, C 2, D 3, E 4);
query_tuple!(A 0, B 1, C 2, D 3, E 4, F 5);

/// Which nodes a query keeps besides its terms: `()` (all), [`With`],
/// [`Without`], or a tuple of them (all must hold).
pub trait Filter {
    /// The filter's columns, borrowed for the walk.
    type State<'c>;
    /// The component types it reads.
    fn types() -> impl Iterator<Item = (TypeId, &'static str)>;
    /// Borrows what it reads.
    fn prepare(registered: &RegisteredColumns) -> Self::State<'_>;
    /// Whether `node` passes.
    fn keeps(state: &Self::State<'_>, node: NodeId) -> bool;
}

/// Keeps the nodes that have a `C` (without borrowing its value).
pub struct With<C>(PhantomData<C>);

/// Keeps the nodes that have no `C`.
pub struct Without<C>(PhantomData<C>);

impl Filter for () {
    type State<'c> = ();
    fn types() -> impl Iterator<Item = (TypeId, &'static str)> {
        std::iter::empty()
    }
    fn prepare(_: &RegisteredColumns) {}
    fn keeps(_: &(), _: NodeId) -> bool {
        true
    }
}

impl<C: Component> Filter for With<C> {
    type State<'c> = Option<&'c Column<C>>;
    fn types() -> impl Iterator<Item = (TypeId, &'static str)> {
        std::iter::once((TypeId::of::<C>(), C::NAME))
    }
    fn prepare(registered: &RegisteredColumns) -> Option<&Column<C>> {
        registered.get::<C>()
    }
    fn keeps(state: &Option<&Column<C>>, node: NodeId) -> bool {
        state.is_some_and(|c| c.contains(node))
    }
}

/// The nodes [`With<C>`] drops.
impl<C: Component> Filter for Without<C> {
    type State<'c> = <With<C> as Filter>::State<'c>;
    fn types() -> impl Iterator<Item = (TypeId, &'static str)> {
        With::<C>::types()
    }
    fn prepare(registered: &RegisteredColumns) -> Self::State<'_> {
        With::<C>::prepare(registered)
    }
    fn keeps(state: &Self::State<'_>, node: NodeId) -> bool {
        !With::<C>::keeps(state, node)
    }
}

macro_rules! filter_tuple {
    ($($t:ident $i:tt),+) => {
        impl<$($t: Filter),+> Filter for ($($t,)+) {
            type State<'c> = ($($t::State<'c>,)+);
            fn types() -> impl Iterator<Item = (TypeId, &'static str)> {
                std::iter::empty()$(.chain($t::types()))+
            }
            fn prepare(registered: &RegisteredColumns) -> Self::State<'_> {
                ($($t::prepare(registered),)+)
            }
            fn keeps(state: &Self::State<'_>, node: NodeId) -> bool {
                $($t::keeps(&state.$i, node))&&+
            }
        }
    };
}

filter_tuple!(A 0, B 1);
filter_tuple!(A 0, B 1, C 2);
filter_tuple!(A 0, B 1, C 2, D 3);
