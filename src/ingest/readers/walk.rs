//! The walk of a file's records by the reader its [`Container`] names:
//! every record of the file, in order, as an
//! [`Item`](crate::ingest::records::item::Item).

use super::container::Container;
use super::{csv, documents, lines, structured};
use crate::ingest::records::item::Visit;

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
        Container::Structured { structure, rules } => {
            structured::walk_structured(text, structure, rules.as_deref(), visit)
        }
    }
}
