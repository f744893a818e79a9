//! Stage 2, record readers: the containers and their contest of evidence
//! ([`containers`]: JSON Lines, JSON documents, CSV, logfmt, text lines,
//! Parquet), the JSON Lines fast path
//! ([`fast`]), text layouts ([`text`]) and Parquet files ([`parquet`]).

pub(crate) mod containers;
pub(crate) mod fast;
pub(crate) mod parquet;
pub(crate) mod text;
