//! The record every stage passes on: one record's fields ([`record`]:
//! [`record::Record`], [`record::FieldValue`], [`record::Scope`]) and what a
//! reader hands on per line ([`item`]). A leaf: it names no other module of
//! ingest, so every layer above may use it.

pub(crate) mod item;
pub(crate) mod record;
