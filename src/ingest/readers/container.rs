//! Which reader reads a file ([`Container`], chosen by the contest in
//! `contest.rs`) and the walk of its records by that reader: every record
//! of the file, in order, as an [`Item`](crate::ingest::records::item::Item).

use super::documents::{self, DocRec};
use super::text::TextRules;
use super::{csv, lines};
use crate::ingest::records::item::Visit;
use crate::model::Dialect;

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
            Container::Text { .. } => Dialect::Text,
        }
    }
}

/// Walks every record of `text` in order, stopping when `visit` breaks.
pub(crate) fn walk(c: &Container, text: &str, visit: &mut Visit<'_>) {
    match c {
        Container::Empty | Container::Unknown | Container::Monitor => {}
        Container::JsonLines { loki } => {
            let _ = lines::walk_json_lines(text, *loki, visit);
        }
        Container::JsonArray => documents::walk_array(text, visit),
        Container::Doc { records, dialect } => documents::walk_records(records, *dialect, visit),
        Container::Logfmt => {
            let _ = lines::walk_logfmt(text, visit);
        }
        Container::Csv { delim } => csv::walk_csv(text, *delim, visit),
        Container::Text { rules } => lines::walk_text(text, rules.as_deref(), visit),
    }
}
