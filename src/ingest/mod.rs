//! Reads exported logs (JSON Lines, JSON arrays, CSV, Elasticsearch, Loki, SLS,
//! logfmt, `redis-cli monitor`) into a [`LoadedLog`](crate::model::LoadedLog).
pub mod monitor;
