//! Stage 3, roles: which field is the time, the lock key, the holder, the
//! event, the TTL and the business fields, by name and by value
//! ([`fields`]); a user's mapping file that pins them ([`mapping`]); time
//! texts and numbers read as instants ([`time`]).

pub(crate) mod fields;
pub(crate) mod mapping;
pub mod time;
