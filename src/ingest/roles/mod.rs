//! The roles layer, above the vocabulary and the record: which field is the
//! time, the lock key, the holder, the event, the TTL and the business
//! fields, by name and by value ([`fields`]); a user's mapping file that
//! pins them ([`mapping`]); time texts and numbers read as instants, and
//! the zone of times without an offset ([`time`]); durations written as
//! text ([`duration`]); the roles of a file whose names no list knows,
//! chosen by how well the lock protocol fits ([`protocol`]).

pub(crate) mod duration;
pub(crate) mod fields;
pub(crate) mod mapping;
pub(crate) mod protocol;
pub mod time;
pub(crate) mod time_memo;
