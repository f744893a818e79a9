//! The words lockreplay reads by: field names for the roles
//! ([`names`]) and event names for the lock and business events
//! ([`events`]). Adding a spelling here is the last resort: the roles and
//! events are first found by evidence (`roles/`), and a new dialect is
//! first added to the invariance generator (`tests/invariance/`).

pub(crate) mod events;
pub(crate) mod message;
pub(crate) mod names;
