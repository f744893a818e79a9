//! The assembly layer, the top of ingest: the steps that read a file from
//! its bytes to its events, in the whole-file path and the parallel path
//! alike, and the last of them, a record made an event ([`collect`]).

pub(crate) mod collect;
