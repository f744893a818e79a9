//! Whole JSON documents: an Elasticsearch or OpenSearch search response, a
//! wrapper around an array of records (`aws logs filter-log-events`,
//! Splunk's `results`, CloudWatch Logs Insights' rows of cells), records at
//! any depth (OTLP's `resourceLogs[].scopeLogs[].logRecords[]`, the
//! Collector's file exporter writing one request a line, Azure Monitor's
//! columns and rows), pretty-printed objects one after another (Log4j2's
//! `JsonLayout`, `jq`), and one JSON array walked element by element. Loki's
//! `query_range` response is `loki.rs`'s.

use serde_json::{Map, Value};

use super::container::{Container, DocRec};
use super::json::{
    columns_as_records, json_reason, json_record, kv_lists_as_fields, sls_time_ns, unwrap_hit,
};
use super::{inner, lines, loki};
use crate::ingest::records::item::{Item, Visit};
use crate::ingest::records::record::Record;
use crate::model::{Dialect, RecordWarning};

/// True for an Elasticsearch or OpenSearch search response
/// (`{"hits": {"hits": [..]}}`).
pub(crate) fn is_es(o: &Map<String, Value>) -> bool {
    matches!(o.get("hits"), Some(Value::Object(h)) if matches!(h.get("hits"), Some(Value::Array(_))))
}

/// Turns a whole JSON document into records.
pub(crate) fn doc(v: Value) -> Container {
    let Value::Object(mut o) = v else {
        return Container::Unknown;
    };
    if is_es(&o) {
        return Container::Doc {
            records: es_records(&mut o),
            dialect: Dialect::Elasticsearch,
        };
    }
    if loki::is_query(&o) {
        return Container::Doc {
            records: loki::query_records(&mut o),
            dialect: Dialect::Loki,
        };
    }
    // Key/value attribute lists (OTLP `[{key, value: {stringValue}}]`)
    // read as fields.
    for v in o.values_mut() {
        kv_lists_as_fields(v, 0);
        columns_as_records(v, 0);
    }
    // The array of records at any depth with the most lock evidence
    // (OTLP's `resourceLogs[].scopeLogs[].logRecords[]`), when it beats the
    // document's own fields.
    if let Some(records) = deep_records(&o) {
        return Container::Doc {
            records: with_sls_times(records),
            dialect: Dialect::JsonLines,
        };
    }
    // A wrapper around the records: `aws logs filter-log-events`'
    // `{"events": [..]}`, Splunk's `{"results": [..]}`, CloudWatch Logs
    // Insights' `{"results": [[{"field":..,"value":..}, ..], ..]}`: the
    // longest array of records among the document's fields.
    let best = records_array(&o);
    if let Some(k) = best
        && let Some(Value::Array(items)) = o.remove(&k)
    {
        let records = items
            .into_iter()
            .map(|e| DocRec {
                main: as_record(&e)
                    .map(|m| unwrap_hit(&m).clone())
                    .unwrap_or_default(),
                extra: None,
            })
            .collect();
        return Container::Doc {
            records: with_sls_times(records),
            dialect: Dialect::JsonLines,
        };
    }
    // Any other single object: one record.
    Container::Doc {
        records: with_sls_times(vec![DocRec {
            main: std::mem::take(&mut o),
            extra: None,
        }]),
        dialect: Dialect::JsonLines,
    }
}

/// The records with SLS's `__time__` + `__time_ns_part__` read as one time
/// ([`sls_time_ns`]), as every JSON line's are: the records of a GetLogs
/// answer (`{"meta": .., "data": [..]}`) or a LogGroup (`__topic__` and
/// `__tag__` beside its `logs`) carry the nanosecond part in each record.
fn with_sls_times(mut records: Vec<DocRec>) -> Vec<DocRec> {
    for r in &mut records {
        sls_time_ns(&mut r.main);
    }
    records
}

/// The records of a search response: each hit's `_source` (a hit without
/// one is an empty record, read as unreadable).
fn es_records(o: &mut Map<String, Value>) -> Vec<DocRec> {
    let mut records = Vec::new();
    if let Some(Value::Object(h)) = o.get_mut("hits")
        && let Some(Value::Array(hits)) = h.get_mut("hits")
    {
        for hit in hits.iter_mut() {
            let main = match hit.get_mut("_source").map(Value::take) {
                Some(Value::Object(src)) => src,
                _ => Map::new(),
            };
            records.push(DocRec { main, extra: None });
        }
    }
    records
}

/// Walks the records a document was turned into; line numbers are record
/// numbers.
pub(crate) fn walk_records(records: &[DocRec], dialect: Dialect, visit: &mut Visit<'_>) {
    let missing = if dialect == Dialect::Elasticsearch {
        RecordWarning::NoSource
    } else {
        RecordWarning::NotJsonObject
    };
    for (i, r) in records.iter().enumerate() {
        let item = if r.main.is_empty() {
            Item::Bad(missing.clone().into())
        } else {
            Item::Record(Record::Json {
                main: &r.main,
                extra: r.extra.as_ref(),
            })
        };
        if visit(i as u64 + 1, 0, item).is_break() {
            return;
        }
    }
}

/// The field of a wrapper document holding its records: the array whose
/// elements carry the most fields in all (Splunk's `fields` list of column
/// names loses to its `results`).
pub(crate) fn records_array(o: &Map<String, Value>) -> Option<String> {
    o.iter()
        .filter_map(|(k, v)| match v {
            Value::Array(a) => {
                let cells: usize = a.iter().filter_map(as_record).map(|m| m.len()).sum();
                (cells > 0).then(|| (k.clone(), cells))
            }
            _ => None,
        })
        .max_by_key(|(_, n)| *n)
        .map(|(k, _)| k)
}

/// One element of a wrapper's array as a record: an object, or a row of
/// `{"field": name, "value": v}` cells (CloudWatch Logs Insights'
/// `GetQueryResults`).
fn as_record(e: &Value) -> Option<Map<String, Value>> {
    match e {
        Value::Object(m) => Some(m.clone()),
        Value::Array(cells) if !cells.is_empty() => {
            let mut m = Map::new();
            for c in cells {
                let Value::Object(cell) = c else { return None };
                let (Some(Value::String(f)), Some(v)) = (cell.get("field"), cell.get("value"))
                else {
                    return None;
                };
                m.insert(f.clone(), v.clone());
            }
            Some(m)
        }
        _ => None,
    }
}

/// Arrays of objects found in a document: (path, each element with the
/// index of its context in `contexts`).
type Found<'a> = Vec<(String, Vec<(&'a Map<String, Value>, usize)>)>;

/// Collects every array of objects under `o` (at most 8 levels), grouped by
/// path (`/resourceLogs/scopeLogs/logRecords`): each element keeps the
/// non-array fields of the array elements above it as its context (OTLP's
/// `resource` and `scope`), never the document's own (`meta`, `links`).
fn collect_arrays<'a>(
    o: &'a Map<String, Value>,
    ctx: usize,
    path: &str,
    depth: u32,
    contexts: &mut Vec<Map<String, Value>>,
    out: &mut Found<'a>,
) {
    if depth > 8 {
        return;
    }
    for (k, v) in o {
        let Value::Array(a) = v else { continue };
        let p = format!("{path}/{k}");
        for e in a {
            let Value::Object(e) = e else { continue };
            let slot = match out.iter().position(|(q, _)| *q == p) {
                Some(i) => i,
                None => {
                    out.push((p.clone(), Vec::new()));
                    out.len() - 1
                }
            };
            out[slot].1.push((e, ctx));
            if e.values().any(Value::is_array) {
                let mut here = contexts[ctx].clone();
                for (ek, ev) in e {
                    if !ev.is_array() {
                        here.insert(ek.clone(), ev.clone());
                    }
                }
                contexts.push(here);
                let c = contexts.len() - 1;
                collect_arrays(e, c, &p, depth + 1, contexts, out);
            }
        }
    }
}

/// The records of a document whose records sit deeper than its top level:
/// the array, at any depth, whose first records carry the most lock
/// evidence (`inner::bid_evidence`), each record with the fields of the
/// elements above it as its envelope. `None` when the best array is a
/// top-level one or carries no evidence (the top-level rules decide).
fn deep_records(o: &Map<String, Value>) -> Option<Vec<DocRec>> {
    let mut contexts = vec![Map::new()];
    let mut found: Found<'_> = Vec::new();
    collect_arrays(o, 0, "", 0, &mut contexts, &mut found);
    let score = |recs: &[(&Map<String, Value>, usize)]| -> u32 {
        recs.iter()
            .take(inner::BID_LINES)
            .map(|(m, c)| {
                let rec = Record::Json {
                    main: m,
                    extra: Some(&contexts[*c]),
                };
                inner::bid_evidence(&rec).max(inner::inner_evidence(&rec))
            })
            .sum()
    };
    let (path, recs) = found
        .iter()
        .map(|(p, r)| (p, r, score(r)))
        .filter(|(_, _, s)| *s > 0)
        .max_by_key(|(p, r, s)| (*s, r.len(), std::cmp::Reverse(p.len())))
        .map(|(p, r, _)| (p, r))?;
    if path.matches('/').count() < 2 {
        return None;
    }
    Some(
        recs.iter()
            .map(|(m, c)| DocRec {
                main: (*m).clone(),
                extra: (!contexts[*c].is_empty()).then(|| contexts[*c].clone()),
            })
            .collect(),
    )
}

/// True when the first line's object holds its records deeper than its top
/// level (`deep_records`) or in an array of records with more lock evidence
/// than its own fields (`wrapped_records`).
pub(crate) fn nested_first_line(o: &Map<String, Value>) -> bool {
    let mut v = Value::Object(o.clone());
    kv_lists_as_fields(&mut v, 0);
    matches!(&v, Value::Object(m) if deep_records(m).is_some() || wrapped_records(m).is_some())
}

/// The records of one line's wrapper object: the top-level array of
/// objects whose first records carry lock evidence, more than the
/// object's own fields do (an SLS LogGroup a line, as `aliyun log
/// pull_log` and the consumer SDKs write it: `__topic__`, `__source__` and
/// `__tag__` beside its `logs`), each record with the object's other fields
/// as its envelope. `None` otherwise: an array inside a record (its tags)
/// stays a field.
fn wrapped_records(o: &Map<String, Value>) -> Option<Vec<DocRec>> {
    let envelope: Map<String, Value> = o
        .iter()
        .filter(|(_, v)| !v.is_array())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let own = inner::bid_evidence(&Record::Json {
        main: &envelope,
        extra: None,
    });
    let extra = (!envelope.is_empty()).then_some(&envelope);
    let (_, items) = o
        .iter()
        .filter_map(|(k, v)| match v {
            Value::Array(a) => {
                let score: u32 = a
                    .iter()
                    .take(inner::BID_LINES)
                    .filter_map(Value::as_object)
                    .map(|m| inner::bid_evidence(&Record::Json { main: m, extra }))
                    .sum();
                (score > own).then_some((score, (k, a)))
            }
            _ => None,
        })
        .max_by_key(|(score, _)| *score)
        .map(|(_, found)| found)?;
    Some(
        items
            .iter()
            .map(|e| DocRec {
                main: e.as_object().cloned().unwrap_or_default(),
                extra: extra.cloned(),
            })
            .collect(),
    )
}

/// JSON Lines of documents (one OTLP request or SLS LogGroup per line):
/// the deep or wrapped records of every line, in order; a line that is no JSON object is one unreadable
/// record. Line numbers become record numbers (a note says so).
pub(crate) fn lines_of_documents(text: &str) -> Container {
    let mut records = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let Ok(mut v @ Value::Object(_)) = serde_json::from_str::<Value>(line) else {
            records.push(DocRec {
                main: Map::new(),
                extra: None,
            });
            continue;
        };
        kv_lists_as_fields(&mut v, 0);
        columns_as_records(&mut v, 0);
        if let Value::Object(m) = &v {
            match deep_records(m).or_else(|| wrapped_records(m)) {
                Some(r) => records.extend(r),
                None => records.push(DocRec {
                    main: m.clone(),
                    extra: None,
                }),
            }
        }
    }
    Container::Doc {
        records: with_sls_times(records),
        dialect: Dialect::JsonLines,
    }
}

/// Pretty-printed JSON objects one after another, each over several lines
/// (Log4j2's `JsonLayout` with its default `compact="false"` and
/// `complete="false"`, `jq` output): each object one record. Text between
/// objects that is no JSON object is one unreadable record, and reading
/// goes on at the next line that starts with `{`. `None` unless at least
/// two objects are read and the first starts the text.
pub(crate) fn concatenated_objects(text: &str) -> Option<Container> {
    let mut records = Vec::new();
    let mut objects = 0;
    let mut at = text.len() - text.trim_start().len();
    while at < text.len() {
        let mut it = serde_json::Deserializer::from_str(&text[at..]).into_iter::<Value>();
        match it.next() {
            Some(Ok(mut v @ Value::Object(_))) => {
                // Objects on one line each are JSON Lines (with odd line
                // ends, `\r`), not this.
                if objects == 0 && !text[at..at + it.byte_offset()].contains('\n') {
                    return None;
                }
                at += it.byte_offset();
                kv_lists_as_fields(&mut v, 0);
                if let Value::Object(m) = v {
                    records.push(DocRec {
                        main: m,
                        extra: None,
                    });
                }
                objects += 1;
            }
            None => break,
            Some(_) => {
                if objects == 0 {
                    return None;
                }
                records.push(DocRec {
                    main: Map::new(),
                    extra: None,
                });
                // The next line that starts with `{`, searched in bytes:
                // `at + 1` may fall inside a character, the byte after
                // `\n` never.
                at = memchr::memmem::find(&text.as_bytes()[at + 1..], b"\n{")
                    .map_or(text.len(), |i| at + 1 + i + 1);
            }
        }
        at += text[at..].len() - text[at..].trim_start().len();
    }
    (objects >= 2).then(|| Container::Doc {
        records: with_sls_times(records),
        dialect: Dialect::JsonLines,
    })
}

/// Walks a JSON array element by element, so a cut file still yields its
/// complete elements and one warning for the incomplete one.
pub(crate) fn walk_array(text: &str, visit: &mut Visit<'_>) {
    let b = text.as_bytes();
    let mut i = 0usize;
    let mut line = 1u64;
    let skip_ws = |i: &mut usize, line: &mut u64, commas: bool| {
        while *i < b.len() && (b[*i].is_ascii_whitespace() || (commas && b[*i] == b',')) {
            if b[*i] == b'\n' {
                *line += 1;
            }
            *i += 1;
        }
    };
    skip_ws(&mut i, &mut line, false);
    if b.get(i) != Some(&b'[') {
        let _ = visit(line, i, Item::Bad(RecordWarning::NotJsonArray.into()));
        return;
    }
    i += 1;
    loop {
        skip_ws(&mut i, &mut line, true);
        if i >= b.len() {
            // A missing ']' after complete elements loses nothing.
            return;
        }
        if b[i] == b']' {
            // More after the array (paged exports joined with `>>`): a next array is read on, anything else as JSON lines.
            i += 1;
            skip_ws(&mut i, &mut line, false);
            if i >= b.len() {
                return;
            }
            if b[i] == b'[' {
                i += 1;
                continue;
            }
            let (base, from) = (line - 1, i);
            let mut shifted =
                |no: u64, off: usize, item: Item<'_>| visit(no + base, off + from, item);
            let _ = lines::walk_json_lines(text.get(from..).unwrap_or(""), false, &mut shifted);
            return;
        }
        let (start, start_line) = (i, line);
        let complete;
        (i, complete, line) = element_end(b, i, line);
        let end = i.min(b.len());
        let elem = text.get(start..end).unwrap_or("");
        let item = if !complete {
            Item::Bad(RecordWarning::TruncatedJson { line: start_line }.into())
        } else {
            match json_record(elem) {
                Ok(Some(o)) => {
                    let r = visit(
                        start_line,
                        start,
                        Item::Record(Record::Json {
                            main: unwrap_hit(&o),
                            extra: None,
                        }),
                    );
                    if r.is_break() {
                        return;
                    }
                    continue;
                }
                Ok(None) => Item::Bad(RecordWarning::ElementNotObject.into()),
                Err(e) => Item::Bad(json_reason(&e).into()),
            }
        };
        if visit(start_line, start, item).is_break() || !complete {
            return;
        }
    }
}

/// Where the array element starting at byte `i` (on line `line`) ends:
/// at the `,` or `]` after it, or just past the `}` or `]` that closes it;
/// whether it is complete (a cut file's last element is not), and the line
/// its end is on. Strings are skipped with their escapes.
fn element_end(b: &[u8], mut i: usize, mut line: u64) -> (usize, bool, u64) {
    let mut depth = 0i64;
    let mut in_str = false;
    let mut complete = false;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
        }
        if in_str {
            if c == b'\\' {
                i += 1;
            } else if c == b'"' {
                in_str = false;
            }
        } else {
            match c {
                b'"' => in_str = true,
                b'{' | b'[' => depth += 1,
                b']' if depth == 0 => {
                    complete = true;
                    break;
                }
                // A stray `}` is part of this (bad) element; stopping on
                // it without moving on would loop forever.
                b'}' if depth == 0 => {}
                b'}' | b']' => {
                    depth -= 1;
                    if depth <= 0 {
                        i += 1;
                        complete = depth == 0;
                        break;
                    }
                }
                b',' if depth == 0 => {
                    complete = true;
                    break;
                }
                _ => {}
            }
        }
        i += 1;
    }
    (i, complete, line)
}
