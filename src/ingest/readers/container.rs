//! Which reader reads a file ([`Container`], chosen by the contest in
//! `contest.rs`), as data: `walk.rs` walks its records.

use serde_json::{Map, Value};

use super::text::TextRules;
use crate::ingest::framing::structure::Structure;
use crate::model::Dialect;

/// A record taken out of a whole-document export.
#[derive(Debug)]
pub(crate) struct DocRec {
    /// The record's own fields (empty: no record could be taken).
    pub main: Map<String, Value>,
    /// Its envelope (Loki's labels and time, the fields of the arrays'
    /// elements above it).
    pub extra: Option<Map<String, Value>>,
}

/// The container of one source.
#[derive(Debug)]
pub(crate) enum Container {
    /// Nothing but whitespace.
    Empty,
    /// Not recognised.
    Unknown,
    /// `redis-cli monitor` capture.
    Monitor,
    /// One JSON object per line; `loki` for logcli output (`line` holds the
    /// application's record).
    JsonLines { loki: bool },
    /// One JSON array of objects.
    JsonArray,
    /// A whole JSON document (Elasticsearch hits, Loki `query_range`, one
    /// object): records already extracted; line numbers are record numbers.
    Doc {
        records: Vec<DocRec>,
        dialect: Dialect,
    },
    /// CSV with a header row.
    Csv { delim: u8 },
    /// `key=value` lines.
    Logfmt,
    /// Plain-text lines with a timestamp (runtime prefixes, Java layouts;
    /// `text.rs`), read with a mapping's `line_regex` and `[messages]` when
    /// it has them.
    Text { rules: Option<Box<TextRules>> },
    /// Text records no known layout reads, by the structure found on the
    /// file's head (`framing/structure.rs`; `structured.rs` walks them),
    /// with a mapping's field names to keep.
    Structured {
        structure: Box<Structure>,
        rules: Option<Box<TextRules>>,
    },
}

impl Container {
    /// The dialect to report (JSON lines/arrays may become SLS later).
    pub fn dialect(&self) -> Dialect {
        match self {
            Container::Empty | Container::Unknown => Dialect::Unknown,
            Container::Monitor => Dialect::RedisMonitor,
            Container::JsonLines { loki: true } => Dialect::Loki,
            Container::JsonLines { loki: false } => Dialect::JsonLines,
            Container::JsonArray => Dialect::JsonArray,
            Container::Doc { dialect, .. } => *dialect,
            Container::Csv { .. } => Dialect::Csv,
            Container::Logfmt => Dialect::Logfmt,
            Container::Text { .. } | Container::Structured { .. } => Dialect::Text,
        }
    }
}
