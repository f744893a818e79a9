//! The lowest layer of ingest, the words lockreplay reads by: the roles a
//! field can play and a TTL's units ([`roles`]), field names for the roles
//! ([`names`]), event names for the lock and business events ([`events`])
//! a message's leading words and outcome pairs ([`message`]) and the
//! words of failure and negation in several languages ([`failure`]), the
//! infrastructure's words in families ([`infra`]). It names
//! no other module of ingest: what a team calls its events comes in as data
//! ([`events::EventNames`]). Adding a spelling here is the last resort: the
//! roles and events are first found by evidence (`roles/`), and a new
//! dialect is first added to the invariance generator (`tests/invariance/`).

pub(crate) mod events;
pub(crate) mod failure;
pub(crate) mod infra;
pub(crate) mod message;
pub(crate) mod names;
pub(crate) mod roles;
