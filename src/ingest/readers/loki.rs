//! Grafana Loki's exports: a `query_range` response (a JSON document) and
//! `logcli query --output=jsonl` lines, each entry's line read as the
//! application's record (JSON, logfmt or text) with the stream's labels
//! and the entry's time outside it. logcli's default text output is a
//! header (`framing/header.rs`).

use serde_json::{Map, Value};

use super::container::DocRec;
use super::json::json_record;
use super::pairs::parse_logfmt;
use crate::ingest::records::record::go_map_entries;

/// True for a `query_range` response (`{"data": {"result": [..]}}`).
pub(crate) fn is_query(o: &Map<String, Value>) -> bool {
    matches!(o.get("data"), Some(Value::Object(d)) if matches!(d.get("result"), Some(Value::Array(_))))
}

/// True for a line of `logcli query --output=jsonl` (`line` with
/// `labels`, `timestamp` or `stream`).
pub(crate) fn is_logcli_line(o: &Map<String, Value>) -> bool {
    matches!(o.get("line"), Some(Value::String(_)))
        && (o.contains_key("labels") || o.contains_key("timestamp") || o.contains_key("stream"))
}

/// The records of a `query_range` response: each stream's values, its
/// labels (or metric) and each value's time as the envelope.
pub(crate) fn query_records(o: &mut Map<String, Value>) -> Vec<DocRec> {
    let mut records = Vec::new();
    if let Some(Value::Object(d)) = o.get_mut("data")
        && let Some(Value::Array(result)) = d.get_mut("result")
    {
        for stream in result.iter_mut() {
            let labels = match stream.get("stream").or_else(|| stream.get("metric")) {
                Some(Value::Object(l)) => l.clone(),
                _ => Map::new(),
            };
            if let Some(Value::Array(values)) = stream.get_mut("values") {
                for pair in values.iter_mut() {
                    let (ts, line) = match pair {
                        Value::Array(p) if p.len() >= 2 => (p[0].take(), p[1].take()),
                        _ => (Value::Null, Value::Null),
                    };
                    let line = line.as_str().unwrap_or("");
                    records.push(loki_record(line, &labels, ts));
                }
            }
        }
    }
    records
}

/// The record of one logcli JSON line ([`is_logcli_line`]).
pub(crate) fn logcli_record(o: &Map<String, Value>) -> DocRec {
    let labels = match o.get("labels").or_else(|| o.get("stream")) {
        Some(Value::Object(l)) => l.clone(),
        _ => Map::new(),
    };
    let ts = o.get("timestamp").cloned().unwrap_or(Value::Null);
    loki_record(
        o.get("line").and_then(Value::as_str).unwrap_or(""),
        &labels,
        ts,
    )
}

/// Builds a Loki record: the application's record from `line` (JSON object,
/// else logfmt pairs, else `{"message": line}`) plus labels and timestamp.
fn loki_record(line: &str, labels: &Map<String, Value>, ts: Value) -> DocRec {
    // Read as every JSON record is (`json_record`: attribute lists, typed
    // values and Log4j2's `instant` rewritten; the generator's Log4j2 JSON
    // in Loki took Loki's later time without it).
    let main = match json_record(line) {
        Ok(Some(m)) => m,
        _ => {
            let pairs = parse_logfmt(line);
            let mut m = Map::new();
            // A logfmt line is its pairs; any other text (a runtime's
            // layout: `2026-11-30 23:06:57,100 [exec-1] INFO ... k=v`) stays
            // whole, for the payload reading to take its own time and
            // fields from (the entry's time is Loki's, later).
            let logfmt = line
                .split_whitespace()
                .next()
                .is_some_and(|w| w.contains('=') && !w.starts_with('='));
            if pairs.len() >= 2 && logfmt {
                for (k, v) in pairs {
                    m.insert(k.to_string(), go_map_as_value(&v, 0));
                }
            } else {
                m.insert("message".into(), Value::String(line.to_string()));
            }
            m
        }
    };
    let mut extra = labels.clone();
    if !ts.is_null() {
        extra.insert("timestamp".into(), ts);
    }
    DocRec {
        main,
        extra: Some(extra),
    }
}

/// A logfmt value as JSON: a Go map (`map[key:k holder:h]`, logrus's text
/// formatter) as an object, so its fields read as `lock.key` the way a
/// [`Record::Pairs`] reads them; anything else as a string.
fn go_map_as_value(v: &str, depth: usize) -> Value {
    match go_map_entries(v) {
        Some(entries) if !entries.is_empty() && depth < 5 => Value::Object(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_string(), go_map_as_value(v, depth + 1)))
                .collect(),
        ),
        _ => Value::String(v.to_string()),
    }
}
