//! The readers layer: a file's text to records. The contest of the readers
//! on a file's head ([`contest`]) chooses a [`container::Container`], whose
//! walk hands every record on; what each reader reads: CSV ([`csv`]), JSON
//! documents ([`documents`]) and one JSON record's fields ([`json`]), line
//! streams ([`lines`]: JSON Lines, logfmt, text lines), Grafana Loki's
//! exports ([`loki`]), XML exports of events ([`xml`]), text layouts and
//! message words ([`text`]), text
//! records by a structure found in their file ([`structured`]), Parquet
//! files ([`parquet`], within [`parquet_bounds`]); pairs in a line's text ([`pairs`]); the record a string
//! holds and a record's lock evidence ([`inner`]), the application's record
//! inside an envelope's field ([`payload`]), the walk of a file's records by
//! its reader ([`walk`]), the JSON Lines fast path ([`fast`], the gaps between its
//! fields learned in [`gaps`]) and the sample
//! of first records that decides the fields ([`sample`]).

pub(crate) mod container;
pub(crate) mod contest;
pub(crate) mod csv;
pub(crate) mod documents;
pub(crate) mod fast;
pub(crate) mod gaps;
pub(crate) mod inner;
pub(crate) mod json;
pub(crate) mod lines;
pub(crate) mod loki;
pub(crate) mod pairs;
pub(crate) mod parquet;
pub(crate) mod parquet_bounds;
pub(crate) mod payload;
pub(crate) mod sample;
pub(crate) mod structured;
pub(crate) mod text;
pub(crate) mod walk;
pub(crate) mod xml;

#[cfg(test)]
mod tests;
