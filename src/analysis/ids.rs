//! Typed indices into the analysis's vectors, so that a lease index cannot be
//! used where an overlap, incident, sale or event index is meant: swapping
//! two of them does not compile.
//!
//! Each id is a 32-bit index (docs/performance.md: 32-bit ids keep leases
//! and incidents compact). It serialises as the bare number, so the JSON
//! report shows plain indices. `vec[id]` works on the vector it names through the
//! `Index` impls below; `id.index()` gives the `usize` where a position is
//! needed (a table row, a `get`).

use std::fmt;
use std::ops::{Index, IndexMut};

use serde::Serialize;

use super::{Incident, Lease, Overlap, Sale};
use crate::model::Event;

macro_rules! typed_index {
    ($(#[$doc:meta])* $name:ident => $item:ty) => {
        $(#[$doc])*
        #[derive(
            Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize,
            bitcode::Encode, bitcode::Decode,
        )]
        #[serde(transparent)]
        pub struct $name(u32);

        impl $name {
            /// The id of position `i`.
            ///
            /// # Panics
            /// When `i` does not fit 32 bits: four billion items of this
            /// kind would need hundreds of GB before it could happen.
            #[inline]
            pub fn new(i: usize) -> Self {
                Self(u32::try_from(i).expect(concat!(stringify!($name), " beyond 32 bits")))
            }

            /// The same id moved `by` places: a per-key result's local id
            /// once its key's results are appended after `by` others.
            #[inline]
            pub fn shifted(self, by: usize) -> Self {
                Self::new(self.index() + by)
            }

            /// The position it names.
            #[inline]
            pub const fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl Index<$name> for [$item] {
            type Output = $item;
            #[inline]
            fn index(&self, id: $name) -> &$item {
                &self[id.index()]
            }
        }

        impl IndexMut<$name> for [$item] {
            #[inline]
            fn index_mut(&mut self, id: $name) -> &mut $item {
                &mut self[id.index()]
            }
        }

        impl Index<$name> for Vec<$item> {
            type Output = $item;
            #[inline]
            fn index(&self, id: $name) -> &$item {
                &self[id.index()]
            }
        }

        impl IndexMut<$name> for Vec<$item> {
            #[inline]
            fn index_mut(&mut self, id: $name) -> &mut $item {
                &mut self[id.index()]
            }
        }
    };
}

typed_index!(
    /// A hold: an index into [`super::Analysis::leases`] (or, for the
    /// capture's own holds, into [`super::Analysis::server_view`]).
    LeaseId => Lease
);
typed_index!(
    /// An overlap pair: an index into [`super::Analysis::overlaps`].
    OverlapId => Overlap
);
typed_index!(
    /// An incident: an index into [`super::Analysis::incidents`]; shown to
    /// users as `INC-{index + 1}`.
    IncidentId => Incident
);
typed_index!(
    /// A sale: an index into [`super::Analysis::sales`].
    SaleId => Sale
);
typed_index!(
    /// An event: an index into [`crate::model::LoadedLog::events`] (and the
    /// parallel [`super::Analysis::times_ns`] by [`EventId::index`]).
    EventId => Event
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_serialise_as_bare_numbers_and_index_their_vector() {
        assert_eq!(serde_json::to_string(&LeaseId::new(7)).expect("json"), "7");
        assert_eq!(IncidentId::new(3).index(), 3);
        assert_eq!(format!("{}", OverlapId::new(12)), "12");
        assert!(SaleId::new(1) < SaleId::new(2));
    }
}
