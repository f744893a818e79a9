//! Recognises a source's container from its content (never its name) and
//! walks it record by record: JSON Lines, a JSON array, Elasticsearch hits,
//! Loki exports, CSV with a header, logfmt.

use std::borrow::Cow;
use std::ops::ControlFlow;

use serde_json::{Map, Value};

use crate::model::Dialect;

use crate::ingest::records::item::{Item, Visit};
use crate::ingest::records::record::{Record, parse_logfmt};

/// A record taken out of a whole-document export.
#[derive(Debug)]
pub(crate) struct DocRec {
    main: Map<String, Value>,
    extra: Option<Map<String, Value>>,
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
    Text {
        rules: Option<Box<crate::ingest::readers::text::TextRules>>,
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
            Container::Text { .. } => Dialect::Text,
        }
    }
}

fn first_lines(text: &str, n: usize) -> impl Iterator<Item = &str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(n)
}

/// A line of a stack trace (trimmed): a Java frame (`at pkg.Class.m(..)`),
/// `Caused by:`, `Suppressed:`, `... 12 more` / `... 12 common frames
/// omitted`, an exception's first line (`java.lang.IllegalStateException:
/// msg`: a dotted class name ending in Exception, Error or Throwable), or a
/// Python traceback's header and `File "x.py", line N` lines
/// (<https://docs.oracle.com/en/java/javase/21/docs/api/java.base/java/lang/Throwable.html#printStackTrace()>,
/// <https://docs.python.org/3/library/traceback.html>).
pub(crate) fn is_trace_line(l: &str) -> bool {
    if l.starts_with("at ") && l.ends_with(')')
        || l.starts_with("Caused by: ")
        || l.starts_with("Suppressed: ")
        || l.starts_with("Traceback (most recent call last)")
        || l.starts_with("File \"") && l.contains("\", line ")
    {
        return true;
    }
    if let Some(rest) = l.strip_prefix("... ") {
        return rest
            .split(' ')
            .next()
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
            && (rest.ends_with(" more") || rest.ends_with(" omitted"));
    }
    let class = l.split(": ").next().unwrap_or(l);
    class.contains('.')
        && !class.contains(' ')
        && ["Exception", "Error", "Throwable"]
            .iter()
            .any(|s| class.ends_with(s))
        && class
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'$'))
}

fn is_es(o: &Map<String, Value>) -> bool {
    matches!(o.get("hits"), Some(Value::Object(h)) if matches!(h.get("hits"), Some(Value::Array(_))))
}

fn is_loki_query(o: &Map<String, Value>) -> bool {
    matches!(o.get("data"), Some(Value::Object(d)) if matches!(d.get("result"), Some(Value::Array(_))))
}

fn is_logcli_line(o: &Map<String, Value>) -> bool {
    matches!(o.get("line"), Some(Value::String(_)))
        && (o.contains_key("labels") || o.contains_key("timestamp") || o.contains_key("stream"))
}

/// Detects the container. `monitor_check` is `monitor::looks_like_monitor`.
///
/// The first guess (JSON by its first byte, MONITOR by its commands, then
/// CSV, text lines, logfmt by their shape) stands for JSON and MONITOR; a
/// guess of CSV, text lines, logfmt or nothing is put to [`contest`]: every
/// line reader bids the lock evidence it finds in the head of the file, and
/// the highest bid reads it (a tie keeps the first guess). Tests use it;
/// a load calls [`detect_with`].
#[cfg(test)]
pub(crate) fn detect(text: &str, monitor_check: fn(&str) -> bool) -> Container {
    detect_with(text, monitor_check, &mut BidBook::default())
}

/// [`detect`], keeping the bids it computes in `book` for
/// [`bids_for`] on the same text (a load bids once per reader).
pub(crate) fn detect_with(
    text: &str,
    monitor_check: fn(&str) -> bool,
    book: &mut BidBook,
) -> Container {
    let first = guess(text, monitor_check, book);
    if !contested(&first) {
        return first;
    }
    contest(text, first, book).0
}

/// The bids already computed on one text, by reader name, and the CSV
/// delimiter its alternatives offer: [`bid`] and [`alternatives`] are pure
/// functions of the text, so a load computes each once (each CSV bid builds
/// a `csv_core` automaton, about 7 µs; before, a load built six to eight).
/// One book serves one text only.
#[derive(Default)]
pub(crate) struct BidBook {
    scores: Vec<((String, Option<u8>), u32)>,
    header: Option<Option<u8>>,
}

impl BidBook {
    /// `bid(c, head)`, computed once per reader.
    fn bid(&mut self, c: &Container, head: &str) -> u32 {
        let delim = match c {
            Container::Csv { delim } => Some(*delim),
            _ => None,
        };
        let id = (reader_name(c), delim);
        if let Some((_, s)) = self.scores.iter().find(|(n, _)| *n == id) {
            return *s;
        }
        let s = bid(c, head);
        self.scores.push((id, s));
        s
    }

    /// [`csv_with_header`], computed once.
    fn header(&mut self, text: &str) -> Option<u8> {
        *self.header.get_or_insert_with(|| csv_with_header(text))
    }

    /// The CSV delimiter [`alternatives`] offers.
    fn delim(&mut self, text: &str) -> Option<u8> {
        self.header(text).or_else(|| any_delim(text))
    }
}

/// Lines of the head that readers bid on.
const BID_LINES: usize = 50;

/// One reader's bid on the head of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bid {
    /// The reader, for the user (`text lines`, `CSV`...).
    pub reader: String,
    /// Its evidence: per record read, 2 for a lock or business event, 1
    /// each for a lock key, a holder and a readable time (`payload.rs`).
    pub score: u32,
}

/// True for the guesses a contest may overturn.
pub(crate) fn contested(c: &Container) -> bool {
    matches!(
        c,
        Container::Csv { .. }
            | Container::Logfmt
            | Container::Text { rules: None }
            | Container::Unknown
    )
}

/// The reader's name for the user.
pub(crate) fn reader_name(c: &Container) -> String {
    match c {
        Container::Empty => "empty",
        Container::Unknown => "none",
        Container::Monitor => "redis-cli MONITOR",
        Container::JsonLines { loki: true } => "logcli JSON Lines",
        Container::JsonLines { loki: false } => "JSON Lines",
        Container::JsonArray => "JSON array",
        Container::Doc { .. } => "JSON document",
        Container::Csv { delim: b'\t' } => "TSV",
        Container::Csv { .. } => "CSV",
        Container::Logfmt => "logfmt",
        Container::Text { rules: Some(_) } => "text lines (mapping)",
        Container::Text { rules: None } => "text lines",
    }
    .to_string()
}

/// The head of `text` readers bid on: its first [`BID_LINES`] lines.
fn head_of(text: &str) -> &str {
    let end = memchr::memchr_iter(b'\n', text.as_bytes())
        .nth(BID_LINES)
        .unwrap_or(text.len());
    &text[..end]
}

/// What a reader finds in `head`: the evidence of its first
/// [`BID_LINES`] records, each read through the envelope field holding the
/// application's record when there is one.
pub(crate) fn bid(c: &Container, head: &str) -> u32 {
    let field = crate::ingest::framing::payload::detect(c, head);
    let mut score = 0u32;
    let mut n = 0usize;
    walk(c, head, &mut |_, _, item| {
        if let Item::Record(r) = item {
            n += 1;
            match &field {
                Some(f) => crate::ingest::framing::payload::with_inner(&r, f, &mut |inner| {
                    score += crate::ingest::framing::payload::bid_evidence(inner);
                }),
                None => score += crate::ingest::framing::payload::bid_evidence(&r),
            }
        }
        if n >= BID_LINES {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    score
}

/// The line readers other than `first` that could read `text`.
fn alternatives(text: &str, first: &Container, book: &mut BidBook) -> Vec<Container> {
    let mut out = vec![Container::Text { rules: None }, Container::Logfmt];
    if let Some(delim) = book.delim(text) {
        out.push(Container::Csv { delim });
    }
    out.retain(|c| reader_name(c) != reader_name(first));
    out
}

/// Puts `first` and the other line readers to a contest on the head of
/// `text`: the winner, and every bid, best first (a tie keeps `first`
/// ahead).
pub(crate) fn contest(text: &str, first: Container, book: &mut BidBook) -> (Container, Vec<Bid>) {
    let head = head_of(text);
    let mut all: Vec<(Container, u32)> = vec![];
    let s = book.bid(&first, head);
    all.push((first, s));
    for c in alternatives(text, &all[0].0, book) {
        let s = book.bid(&c, head);
        all.push((c, s));
    }
    all.sort_by_key(|a| std::cmp::Reverse(a.1));
    let bids = all
        .iter()
        .map(|(c, s)| Bid {
            reader: reader_name(c),
            score: *s,
        })
        .collect();
    let winner = all
        .into_iter()
        .next()
        .map_or(Container::Unknown, |(c, _)| c);
    (winner, bids)
}

/// The bids for the container `c` chosen for `text`, the reader first: the
/// contest's when `c` is a line reader, else `c`'s own bid followed by the
/// line readers' (the runners-up the JSON report names; issue #31).
pub(crate) fn bids_for(c: &Container, text: &str, book: &mut BidBook) -> Vec<Bid> {
    let head = head_of(text);
    let own = Bid {
        reader: reader_name(c),
        score: book.bid(c, head),
    };
    let mut out = vec![own];
    if matches!(c, Container::Empty) {
        return out;
    }
    for alt in alternatives(text, c, book) {
        out.push(Bid {
            reader: reader_name(&alt),
            score: book.bid(&alt, head),
        });
    }
    if contested(c) {
        out.sort_by_key(|b| std::cmp::Reverse(b.score));
    } else {
        // JSON and MONITOR are taken by their shape, not by the contest:
        // the reader stays first, the others follow as runners-up.
        out[1..].sort_by_key(|b| std::cmp::Reverse(b.score));
    }
    out
}

/// The first guess at the container, from the shape of the first lines.
fn guess(text: &str, monitor_check: fn(&str) -> bool, book: &mut BidBook) -> Container {
    let Some(first) = first_lines(text, 1).next() else {
        return Container::Empty;
    };
    // A JSON array starts `[` then `{` or `]`; `[2026/12/01 ...]` and
    // `[exec-1]` start text lines.
    if let Some(rest) = text.trim_start().strip_prefix('[')
        && !rest
            .trim_start()
            .bytes()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
    {
        return Container::JsonArray;
    }
    if first.starts_with('{') {
        if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(first) {
            // One object alone on its line that wraps an array of records
            // (`{"results": [..]}` written without line breaks).
            let alone = first_lines(text, 2).count() == 1;
            if is_es(&o) || is_loki_query(&o) || (alone && records_array(&o).is_some()) {
                return doc(Value::Object(o));
            }
            // One document per line whose records sit deeper (the
            // Collector's file exporter: an OTLP request per line).
            if o.values().any(Value::is_array) && nested_first_line(&o) {
                return lines_of_documents(text);
            }
            return Container::JsonLines {
                loki: is_logcli_line(&o),
            };
        }
        if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(text) {
            return doc(v);
        }
        if let Some(c) = concatenated_objects(text) {
            return c;
        }
        return Container::JsonLines { loki: false };
    }
    let head: String = first_lines(text, 10).collect::<Vec<_>>().join("\n");
    if monitor_check(&head) {
        return Container::Monitor;
    }
    // JSON Lines behind a damaged or commented first line.
    let heads: Vec<&str> = first_lines(text, 20).collect();
    let json_like = heads.iter().filter(|l| l.starts_with('{')).count();
    if json_like * 2 > heads.len() {
        return Container::JsonLines {
            loki: heads
                .iter()
                .filter_map(|l| serde_json::from_str::<Map<String, Value>>(l).ok())
                .next()
                .is_some_and(|o| is_logcli_line(&o)),
        };
    }
    // A CSV header over rows of the same width (a text log's lines vary).
    if let Some(delim) = book.header(text) {
        return Container::Csv { delim };
    }
    // Text lines: most of the first lines start with a timestamp, stack
    // trace lines between them left out of the count (they belong to the
    // line before; issue #35: a Spring Boot log with 20-line traces was
    // "unknown").
    let timed = heads
        .iter()
        .filter(|l| {
            let t = crate::ingest::readers::text::parse_line(l);
            t.time.is_some() || t.prefix_time.is_some()
        })
        .count();
    let traces = heads.iter().filter(|l| is_trace_line(l)).count();
    if timed > 0 && timed * 2 > heads.len() - traces {
        return Container::Text { rules: None };
    }
    let key_ok = |k: &str| {
        k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'@'))
    };
    let logfmt_line = |line: &str| {
        let pairs = parse_logfmt(line);
        pairs.len() >= 2
            && pairs.iter().all(|(k, _)| key_ok(k))
            && line.split_whitespace().next().unwrap_or("").contains('=')
    };
    // The first line, or most of the first lines behind a damaged or
    // commented first one (issue #18).
    if logfmt_line(first) || heads.iter().filter(|l| logfmt_line(l)).count() * 2 > heads.len() {
        return Container::Logfmt;
    }
    match any_delim(text) {
        Some(delim) => Container::Csv { delim },
        None => Container::Unknown,
    }
}

/// The delimiter (comma, tab or semicolon) the first line has most of.
fn any_delim(text: &str) -> Option<u8> {
    let first = first_lines(text, 1).next()?;
    let count = |c: char| first.matches(c).count();
    let (delim, n) = [(b',', count(',')), (b'\t', count('\t')), (b';', count(';'))]
        .into_iter()
        .max_by_key(|(_, n)| *n)?;
    (n >= 1).then_some(delim)
}

/// The delimiter of a CSV whose first row is a header (no cell reads as a
/// time) over at least one row, with most of the first rows as wide as the
/// header.
fn csv_with_header(text: &str) -> Option<u8> {
    let first = first_lines(text, 1).next()?;
    let count = |c: char| first.matches(c).count();
    let (delim, n) = [(b',', count(',')), (b'\t', count('\t')), (b';', count(';'))]
        .into_iter()
        .max_by_key(|(_, n)| *n)?;
    if n == 0 {
        return None;
    }
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delim)
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut rows = rdr.records().take(11).filter_map(Result::ok);
    let header = rows.next()?;
    if header.len() < 2
        || header
            .get(0)
            .is_some_and(|c| crate::ingest::framing::timestamp::time_len(c.trim()).is_some())
        || header
            .iter()
            .any(|c| c.trim().is_empty() || crate::ingest::roles::time::parse_time(c, None).is_ok())
    {
        return None;
    }
    let widths: Vec<usize> = rows.map(|r| r.len()).collect();
    let same = widths.iter().filter(|w| **w == header.len()).count();
    (!widths.is_empty() && same * 2 > widths.len()).then_some(delim)
}

/// Turns a whole JSON document into records.
fn doc(v: Value) -> Container {
    let Value::Object(mut o) = v else {
        return Container::Unknown;
    };
    if is_es(&o) {
        let mut records = Vec::new();
        if let Some(Value::Object(h)) = o.get_mut("hits")
            && let Some(Value::Array(hits)) = h.get_mut("hits")
        {
            for hit in hits.iter_mut() {
                if let Some(Value::Object(src)) = hit.get_mut("_source").map(Value::take) {
                    records.push(DocRec {
                        main: src,
                        extra: None,
                    });
                } else {
                    records.push(DocRec {
                        main: Map::new(),
                        extra: None,
                    });
                }
            }
        }
        return Container::Doc {
            records,
            dialect: Dialect::Elasticsearch,
        };
    }
    if is_loki_query(&o) {
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
        return Container::Doc {
            records,
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
            records,
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
            records,
            dialect: Dialect::JsonLines,
        };
    }
    // Any other single object: one record.
    Container::Doc {
        records: vec![DocRec {
            main: std::mem::take(&mut o),
            extra: None,
        }],
        dialect: Dialect::JsonLines,
    }
}

/// The value types of an OTLP `AnyValue` (opentelemetry-proto
/// `common/v1/common.proto`, lowerCamelCase in the JSON encoding).
const ANY_VALUE: &[&str] = &[
    "stringValue",
    "intValue",
    "doubleValue",
    "boolValue",
    "bytesValue",
    "arrayValue",
    "kvlistValue",
];

/// Rewrites, in place and at any depth (at most 12), a columnar table as
/// an array of records: an object with `columns` (names, or objects with a
/// `name`/`ColumnName`) and `rows` (arrays of cells) gets `rows` as objects
/// keyed by the column names. The Azure Monitor Logs query API's response
/// (<https://learn.microsoft.com/azure/azure-monitor/logs/api/response-format>:
/// `tables[].columns[{name,type}]`, `tables[].rows[][]`) and Kusto's
/// `Columns`/`Rows`. A row whose length differs from the columns' is left
/// as it is.
pub(crate) fn columns_as_records(v: &mut Value, depth: u32) {
    if depth > 12 {
        return;
    }
    match v {
        Value::Object(o) => {
            let names = ["columns", "Columns"]
                .iter()
                .find_map(|k| o.get(*k))
                .and_then(column_names);
            let rows_key = ["rows", "Rows"].into_iter().find(|k| o.contains_key(*k));
            if let (Some(names), Some(rk)) = (names, rows_key)
                && let Some(Value::Array(rows)) = o.get_mut(rk)
            {
                for row in rows.iter_mut() {
                    if let Value::Array(cells) = row
                        && cells.len() == names.len()
                    {
                        let rec: Map<String, Value> =
                            names.iter().cloned().zip(cells.drain(..)).collect();
                        *row = Value::Object(rec);
                    }
                }
                return;
            }
            for x in o.values_mut() {
                columns_as_records(x, depth + 1);
            }
        }
        Value::Array(a) => {
            for x in a.iter_mut() {
                columns_as_records(x, depth + 1);
            }
        }
        _ => {}
    }
}

/// The names of a table's `columns`: strings, or objects naming
/// themselves with `name` or `ColumnName`; `None` unless every column has
/// a name.
fn column_names(cols: &Value) -> Option<Vec<String>> {
    let Value::Array(cols) = cols else {
        return None;
    };
    if cols.is_empty() {
        return None;
    }
    cols.iter()
        .map(|c| match c {
            Value::String(s) => Some(s.clone()),
            Value::Object(m) => ["name", "ColumnName"]
                .iter()
                .find_map(|k| m.get(*k).and_then(Value::as_str))
                .map(str::to_string),
            _ => None,
        })
        .collect()
}

/// Rewrites, in place and at any depth (at most 12), key/value attribute
/// lists as objects and OTLP `AnyValue`s as their value:
/// `[{"key": "k", "value": {"stringValue": "v"}}]` -> `{"k": "v"}`,
/// `{"kvlistValue": {"values": [..]}}` -> an object. A list with any
/// element of another shape is left as it is.
pub(crate) fn kv_lists_as_fields(v: &mut Value, depth: u32) {
    if depth > 12 {
        return;
    }
    match v {
        Value::Object(o) => {
            if let Some(t) = java_instant(o) {
                *v = Value::String(t);
                return;
            }
            if is_go_typed_value(o) {
                let mut inner = o.remove("Value").unwrap_or(Value::Null);
                kv_lists_as_fields(&mut inner, depth + 1);
                *v = inner;
                return;
            }
            if o.len() == 1
                && let Some(k) = o.keys().next().cloned()
                && ANY_VALUE.contains(&k.as_str())
            {
                let inner = o.remove(&k).unwrap_or(Value::Null);
                let mut inner = match (k.as_str(), inner) {
                    ("kvlistValue" | "arrayValue", Value::Object(mut l)) => {
                        l.remove("values").unwrap_or(Value::Null)
                    }
                    (_, x) => x,
                };
                kv_lists_as_fields(&mut inner, depth + 1);
                *v = inner;
                return;
            }
            for x in o.values_mut() {
                kv_lists_as_fields(x, depth + 1);
            }
        }
        Value::Array(a) => {
            for x in a.iter_mut() {
                kv_lists_as_fields(x, depth + 1);
            }
            // `key`/`value` (OTLP JSON), `Key`/`Value` (opentelemetry-go's
            // stdout exporters encode attribute.KeyValue with Go's field
            // names).
            let names = [("key", "value"), ("Key", "Value")]
                .into_iter()
                .find(|(kn, vn)| {
                    !a.is_empty()
                        && a.iter().all(|e| {
                            matches!(e, Value::Object(m) if m.len() <= 2
                                && matches!(m.get(*kn), Some(Value::String(_)))
                                && m.keys().all(|k| k == kn || k == vn))
                        })
                });
            if let Some((kn, vn)) = names {
                let mut m = Map::new();
                for e in a.drain(..) {
                    if let Value::Object(mut e) = e
                        && let Some(Value::String(k)) = e.remove(kn)
                    {
                        m.insert(k, e.remove(vn).unwrap_or(Value::Null));
                    }
                }
                *v = Value::Object(m);
            }
        }
        _ => {}
    }
}

/// A Java `Instant` as Log4j2's `JsonLayout` writes its `instant` (since
/// 2.11: `"instant":{"epochSecond":1731254401,"nanoOfSecond":412000}`,
/// `InstantMixIn`), as epoch seconds with nine decimals
/// (`"1731254401.000412000"`), which the time parser reads to the ns.
/// `None` for any other object.
fn java_instant(o: &Map<String, Value>) -> Option<String> {
    if o.len() != 2 {
        return None;
    }
    let s = o.get("epochSecond")?.as_i64()?;
    let n = o
        .get("nanoOfSecond")?
        .as_u64()
        .filter(|n| *n < 1_000_000_000)?;
    Some(format!("{s}.{n:09}"))
}

/// True for a Go-typed value as opentelemetry-go's stdout exporters write
/// it: exactly `{"Type": "STRING", "Value": ..}`, the type a capitalised
/// word of at most 16 letters and digits (`attribute.Type`'s `STRING`,
/// `INT64`, `BOOLSLICE`; `log.Kind`'s `String`, `Map`).
fn is_go_typed_value(o: &Map<String, Value>) -> bool {
    o.len() == 2
        && o.contains_key("Value")
        && matches!(o.get("Type"), Some(Value::String(t)) if !t.is_empty()
            && t.len() <= 16
            && t.starts_with(|c: char| c.is_ascii_uppercase())
            && t.bytes().all(|c| c.is_ascii_alphanumeric()))
}

/// Rewrites a JSON line's key/value attribute lists and typed values as
/// fields ([`kv_lists_as_fields`]), in place: OTLP's `attributes`, the Go
/// exporter's `Attributes` and `Body`. Costs one look at the top-level
/// values when the line has no array or object.
pub(crate) fn kv_lists_in_record(o: &mut Map<String, Value>) {
    sls_time_ns(o);
    for (k, v) in o.iter_mut() {
        if k == "MESSAGE"
            && let Some(text) = journald_bytes(v)
        {
            *v = Value::String(text);
        } else if matches!(v, Value::Array(_) | Value::Object(_)) {
            kv_lists_as_fields(v, 0);
        }
    }
}

/// SLS's high-precision time: `__time__` (whole seconds) and
/// `__time_ns_part__` (the nanoseconds within it) are one time, written back
/// into `__time__` as epoch seconds with nine decimals (Alibaba Cloud SLS,
/// "高精度时间戳": the log's time is `__time__` + `__time_ns_part__`). A
/// new-user trial (session 21) found the part ignored: every line of a
/// second at one instant, the overlap a 0 ms touch.
fn sls_time_ns(o: &mut Map<String, Value>) {
    let Some(ns) = o
        .get("__time_ns_part__")
        .and_then(|v| v.as_u64().or_else(|| v.as_str()?.trim().parse().ok()))
        .filter(|n| *n < 1_000_000_000)
    else {
        return;
    };
    let secs = o
        .get("__time__")
        .and_then(|v| v.as_i64().or_else(|| v.as_str()?.trim().parse().ok()));
    if let Some(secs) = secs {
        o.insert("__time__".into(), Value::String(format!("{secs}.{ns:09}")));
    }
}

/// A journald `MESSAGE` written as its bytes, as text. `journalctl -o json`
/// writes a field that is not valid UTF-8 as an array of its bytes
/// (journalctl(1), "json": "Fields containing non-printable or non-UTF8
/// bytes are encoded as arrays containing the raw bytes individually
/// formatted as unsigned numbers"): a GBK application's message (a new-user
/// trial, session 21: the file was unreadable). Decoded as UTF-8, else as
/// GB18030 (a superset of GBK and GB2312, the encodings such bytes come in
/// here), bytes neither reads replaced by U+FFFD. `None` for any other value.
fn journald_bytes(v: &Value) -> Option<String> {
    let Value::Array(a) = v else {
        return None;
    };
    let bytes = a
        .iter()
        .map(|x| x.as_u64().and_then(|n| u8::try_from(n).ok()))
        .collect::<Option<Vec<u8>>>()
        .filter(|b| !b.is_empty())?;
    Some(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => encoding_rs::GB18030.decode(e.as_bytes()).0.into_owned(),
    })
}

/// The fields of one JSON record's text: its object, key/value attribute
/// lists and Go-typed values read as fields ([`kv_lists_in_record`]). Every
/// reader of a JSON record (lines, array elements, payloads in a field or
/// after a text prefix) takes it from here. `Ok(None)`: JSON, but no object.
pub(crate) fn json_record(s: &str) -> Result<Option<Map<String, Value>>, serde_json::Error> {
    Ok(match serde_json::from_str::<Value>(s)? {
        Value::Object(mut o) => {
            kv_lists_in_record(&mut o);
            Some(o)
        }
        _ => None,
    })
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
/// evidence (`payload::bid_evidence`), each record with the fields of the
/// elements above it as its envelope. `None` when the best array is a
/// top-level one or carries no evidence (the top-level rules decide).
fn deep_records(o: &Map<String, Value>) -> Option<Vec<DocRec>> {
    let mut contexts = vec![Map::new()];
    let mut found: Found<'_> = Vec::new();
    collect_arrays(o, 0, "", 0, &mut contexts, &mut found);
    let score = |recs: &[(&Map<String, Value>, usize)]| -> u32 {
        recs.iter()
            .take(BID_LINES)
            .map(|(m, c)| {
                let rec = Record::Json {
                    main: m,
                    extra: Some(&contexts[*c]),
                };
                crate::ingest::framing::payload::bid_evidence(&rec)
                    .max(crate::ingest::framing::payload::inner_evidence(&rec))
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
/// level (`deep_records`).
fn nested_first_line(o: &Map<String, Value>) -> bool {
    let mut v = Value::Object(o.clone());
    kv_lists_as_fields(&mut v, 0);
    matches!(&v, Value::Object(m) if deep_records(m).is_some())
}

/// JSON Lines of documents (one OTLP request per line): the deep records
/// of every line, in order; a line that is no JSON object is one unreadable
/// record. Line numbers become record numbers (a note says so).
fn lines_of_documents(text: &str) -> Container {
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
            match deep_records(m) {
                Some(r) => records.extend(r),
                None => records.push(DocRec {
                    main: m.clone(),
                    extra: None,
                }),
            }
        }
    }
    Container::Doc {
        records,
        dialect: Dialect::JsonLines,
    }
}

/// Pretty-printed JSON objects one after another, each over several lines
/// (Log4j2's `JsonLayout` with its default `compact="false"` and
/// `complete="false"`, `jq` output): each object one record. Text between
/// objects that is no JSON object is one unreadable record, and reading
/// goes on at the next line that starts with `{`. `None` unless at least
/// two objects are read and the first starts the text.
fn concatenated_objects(text: &str) -> Option<Container> {
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
                // `at + 1` may fall inside a character (found by the
                // `mapping_regex` fuzz target), the byte after `\n` never.
                at = memchr::memmem::find(&text.as_bytes()[at + 1..], b"\n{")
                    .map_or(text.len(), |i| at + 1 + i + 1);
            }
        }
        at += text[at..].len() - text[at..].trim_start().len();
    }
    (objects >= 2).then_some(Container::Doc {
        records,
        dialect: Dialect::JsonLines,
    })
}

/// The field of a wrapper document holding its records: the array whose
/// elements carry the most fields in all (Splunk's `fields` list of column
/// names loses to its `results`).
fn records_array(o: &Map<String, Value>) -> Option<String> {
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
    match crate::ingest::records::record::go_map_entries(v) {
        Some(entries) if !entries.is_empty() && depth < 5 => Value::Object(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_string(), go_map_as_value(v, depth + 1)))
                .collect(),
        ),
        _ => Value::String(v.to_string()),
    }
}

/// Formats a serde_json error without its "line 1" part.
pub(crate) fn json_reason(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => format!("invalid JSON: {} at column {}", &s[..i], e.column()),
        None => format!("invalid JSON: {s}"),
    }
}

/// One JSON Lines line as its item: a logcli line (`loki`) as its Loki
/// record, any other object as a record (a search hit's `_source`, key/value
/// attribute lists read as fields), else a warning.
pub(crate) fn json_line_item(
    line: &str,
    loki: bool,
    visit: &mut Visit<'_>,
    no: u64,
    off: usize,
) -> ControlFlow<()> {
    match json_record(line) {
        Ok(Some(o)) if loki && is_logcli_line(&o) => {
            let labels = match o.get("labels").or_else(|| o.get("stream")) {
                Some(Value::Object(l)) => l.clone(),
                _ => Map::new(),
            };
            let ts = o.get("timestamp").cloned().unwrap_or(Value::Null);
            let r = loki_record(
                o.get("line").and_then(Value::as_str).unwrap_or(""),
                &labels,
                ts,
            );
            visit(
                no,
                off,
                Item::Record(Record::Json {
                    main: &r.main,
                    extra: r.extra.as_ref(),
                }),
            )
        }
        Ok(Some(o)) => visit(
            no,
            off,
            Item::Record(Record::Json {
                main: unwrap_hit(&o),
                extra: None,
            }),
        ),
        Ok(None) => visit(no, off, Item::Bad("json", "not a JSON object".into())),
        Err(e) => visit(no, off, Item::Bad("json", json_reason(&e))),
    }
}

/// Walks every record of `text` in order, stopping when `visit` breaks.
pub(crate) fn walk(c: &Container, text: &str, visit: &mut Visit<'_>) {
    match c {
        Container::Empty | Container::Unknown | Container::Monitor => {}
        Container::JsonLines { loki } => {
            let _ = walk_lines(text, visit, |line, visit, no, off| {
                json_line_item(line, *loki, visit, no, off)
            });
        }
        Container::JsonArray => walk_array(text, visit),
        Container::Doc { records, dialect } => {
            let missing = if *dialect == Dialect::Elasticsearch {
                "record without _source"
            } else {
                "not a JSON object"
            };
            for (i, r) in records.iter().enumerate() {
                let item = if r.main.is_empty() {
                    Item::Bad("json", missing.into())
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
        Container::Logfmt => {
            let _ = walk_lines(text, visit, |line, visit, no, off| {
                let pairs = parse_logfmt(line);
                if pairs.is_empty() {
                    visit(no, off, Item::Bad("logfmt", "not a key=value line".into()))
                } else {
                    visit(no, off, Item::Record(Record::Pairs(&pairs)))
                }
            });
        }
        Container::Csv { delim } => walk_csv(text, *delim, visit),
        Container::Text { rules } => walk_text(text, rules.as_deref(), visit),
    }
}

/// The record inside a search hit or an export row: Elasticsearch's
/// `_source` (its `_index`, `_type` and `_id` are metadata, never fields),
/// Splunk export's `result` (`{"preview":..,"offset":..,"result":{..}}`).
pub(crate) fn unwrap_hit(o: &Map<String, Value>) -> &Map<String, Value> {
    if let Some(Value::Object(src)) = o.get("_source")
        && (o.contains_key("_index") || o.contains_key("_id"))
    {
        return src;
    }
    if let Some(Value::Object(r)) = o.get("result")
        && (o.contains_key("preview") || o.contains_key("offset"))
    {
        return r;
    }
    o
}

/// Walks text lines: each line's prefix and layout become pairs, a JSON
/// payload becomes the inner record with the prefix outside it. Lines
/// without a time that name no event are continuation lines (skipped); CRI
/// partial lines (`P`) are joined to the line that completes them, and a run
/// of them that no `F` line closes is read, with a warning, at the end.
fn walk_text(
    text: &str,
    rules: Option<&crate::ingest::readers::text::TextRules>,
    visit: &mut Visit<'_>,
) {
    let mut partials = Partials::default();
    let done = walk_lines(text, visit, |_, visit, no, off| {
        // The line as written: a `P` chunk may end in a space.
        let raw = text
            .get(off..line_end(text.as_bytes(), off).0)
            .unwrap_or("");
        text_line(raw, rules, &mut partials, no, off, visit)
    });
    if done.is_continue() {
        let _ = partials.finish(text.len(), visit);
    }
}

/// The CRI streams a partial line can belong to.
const CRI_STREAMS: [&str; 2] = ["stdout", "stderr"];

/// CRI partial lines (`TIME STREAM P chunk`) waiting for the `F` line of
/// the same stream that ends them: one run per stream, so a `stdout` chunk is
/// never glued to an interleaved `stderr` line (kubelet's `ReadLogs` in
/// `pkg/kubelet/kuberuntime/logs/logs.go` joins per stream the same way).
/// The serial walk carries it from line to line; the parallel chunks
/// (`stream.rs`) start each chunk from the state the line before it left.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Partials {
    /// One run for `stdout`, one for `stderr` ([`CRI_STREAMS`]).
    runs: [Option<PartialRun>; 2],
}

/// One stream's partial chunks so far.
#[derive(Clone, Debug, PartialEq, Eq)]
struct PartialRun {
    /// The chunks, joined with nothing in between.
    text: String,
    /// The time of the last chunk (the time of a run no `F` closes).
    time: String,
    /// Line number of the first chunk.
    first: u64,
    /// Line number of the last chunk: the one line of the run not yet
    /// counted (it counts as the joined line when no `F` comes).
    last: u64,
}

impl Partials {
    /// True when no stream has a partial line pending.
    pub(crate) fn is_empty(&self) -> bool {
        self.runs.iter().all(Option::is_none)
    }

    /// Keeps the chunk of P line `no` (stream index `s`); the line before it
    /// in the run, if any, is counted now (skipped: its text is in the run).
    fn push(
        &mut self,
        s: usize,
        time: &str,
        chunk: &str,
        no: u64,
        off: usize,
        visit: &mut Visit<'_>,
    ) -> ControlFlow<()> {
        match &mut self.runs[s] {
            Some(run) => {
                let before = std::mem::replace(&mut run.last, no);
                run.text.push_str(chunk);
                time.clone_into(&mut run.time);
                visit(before, off, Item::Skip)
            }
            none => {
                *none = Some(PartialRun {
                    text: chunk.to_string(),
                    time: time.to_string(),
                    first: no,
                    last: no,
                });
                ControlFlow::Continue(())
            }
        }
    }

    /// Reads every run no `F` line closed, in the order they began: a
    /// warning naming its lines, then the joined text as the line it would
    /// have been, counted on its last line.
    pub(crate) fn finish(&mut self, off: usize, visit: &mut Visit<'_>) -> ControlFlow<()> {
        let mut open: Vec<(usize, PartialRun)> = self
            .runs
            .iter_mut()
            .enumerate()
            .filter_map(|(s, r)| Some((s, r.take()?)))
            .collect();
        open.sort_by_key(|(_, r)| r.first);
        for (s, run) in open {
            let stream = CRI_STREAMS[s];
            let lines = if run.first == run.last {
                format!("line {}", run.first)
            } else {
                format!("lines {} to {}", run.first, run.last)
            };
            let reason = format!(
                "partial line never closed: the CRI {stream} `P` chunks on {lines} have no `F` line after them; read as one line"
            );
            visit(run.last, off, Item::Warn("cri", reason))?;
            let joined = format!("{} {stream} F {}", run.time, run.text);
            visit_text(
                &crate::ingest::readers::text::parse_line(&joined),
                visit,
                run.last,
                off,
            )?;
        }
        ControlFlow::Continue(())
    }
}

/// Reads one text line (without its line end, not blank) into items for
/// `visit`: the mapping's rules first, CRI partial lines (`TIME STREAM P
/// chunk`) kept in `partials` and joined, with nothing in between (a chunk's
/// trailing spaces kept), to the `F` line of their stream that ends them.
/// The serial walk and the parallel chunks (`stream.rs`) share it.
pub(crate) fn text_line(
    raw: &str,
    rules: Option<&crate::ingest::readers::text::TextRules>,
    partials: &mut Partials,
    no: u64,
    off: usize,
    visit: &mut Visit<'_>,
) -> ControlFlow<()> {
    use crate::ingest::readers::text::parse_line;
    let line = crate::ingest::readers::fast::trim(raw);
    if let Some(r) = rules
        && let Some(pairs) = r.pairs(line)
    {
        return visit(no, off, Item::Record(Record::Pairs(&pairs)));
    }
    if let Some((time, s, partial, chunk)) = cri_parts(raw.trim_start()) {
        if partial {
            return partials.push(s, time, chunk, no, off, visit);
        }
        if let Some(run) = partials.runs[s].take() {
            visit(run.last, off, Item::Skip)?;
            let joined = format!("{time} {} F {}{chunk}", CRI_STREAMS[s], run.text);
            return visit_text(&parse_line(&joined), visit, no, off);
        }
    }
    visit_text(&parse_line(line), visit, no, off)
}

/// A CRI line's parts: (time, stream index in [`CRI_STREAMS`], partial,
/// content), `None` for a line of another layout.
fn cri_parts(line: &str) -> Option<(&str, usize, bool, &str)> {
    let mut parts = line.splitn(4, ' ');
    let (ts, stream, tag) = (parts.next()?, parts.next()?, parts.next()?);
    let s = CRI_STREAMS.iter().position(|c| *c == stream)?;
    let partial = match tag {
        "P" => true,
        "F" => false,
        _ => return None,
    };
    Some((ts, s, partial, parts.next().unwrap_or("")))
}

/// The CRI state after `text` (whole lines), starting from `state`, and
/// the number of lines in `text`, without reading the lines for records:
/// what the chunk after `text` starts from. The lines of `text` are numbered
/// from `base + 1`.
pub(crate) fn partials_after(text: &str, mut state: Partials, base: u64) -> (Partials, u64) {
    let mut ignore = |_: u64, _: usize, _: Item<'_>| ControlFlow::Continue(());
    let b = text.as_bytes();
    let (mut start, mut no) = (0usize, 0u64);
    while start < b.len() {
        let (end, next) = line_end(b, start);
        no += 1;
        let line = text.get(start..end).unwrap_or("").trim_start();
        match cri_parts(line) {
            Some((time, s, true, chunk)) => {
                let _ = state.push(s, time, chunk, base + no, start, &mut ignore);
            }
            Some((_, s, false, _)) => state.runs[s] = None,
            None => {}
        }
        start = next;
    }
    (state, no)
}

/// The items of one parsed text line: a continuation line (no time, and no
/// event or a stack trace's line) is skipped, a JSON payload is the inner record with the prefix
/// outside it, anything else is its pairs.
fn visit_text(
    t: &crate::ingest::readers::text::TextLine<'_>,
    visit: &mut Visit<'_>,
    no: u64,
    off: usize,
) -> ControlFlow<()> {
    use crate::ingest::readers::text::{Layout, to_pairs};
    // A stack trace's line is part of the line before, whatever its words
    // say (`java.lang.IllegalMonitorStateException: attempt to unlock lock,
    // not locked by current thread` names a lock word but no event).
    if t.time.is_none()
        && t.prefix_time.is_none()
        && (is_trace_line(t.message.trim())
            || (crate::ingest::readers::text::message_event(t.message).is_none()
                && crate::ingest::readers::text::message_event(t.around).is_none()))
    {
        return visit(no, off, Item::Skip);
    }
    if t.layout == Layout::Json {
        let prefix = to_pairs(&crate::ingest::readers::text::TextLine {
            message: t.around,
            labels: t.labels.clone(),
            ..*t
        });
        return match json_record(t.message) {
            Ok(Some(map)) => {
                let inner = Record::Json {
                    main: &map,
                    extra: None,
                };
                let outer = Record::Pairs(&prefix);
                visit(
                    no,
                    off,
                    Item::Record(Record::Nested {
                        inner: &inner,
                        outer: &outer,
                        skip: "",
                    }),
                )
            }
            Ok(None) => visit(no, off, Item::Bad("json", "not a JSON object".into())),
            Err(e) => visit(no, off, Item::Bad("json", json_reason(&e))),
        };
    }
    let pairs = to_pairs(t);
    visit(no, off, Item::Record(Record::Pairs(&pairs)))
}

/// Each non-blank line of `text`, trimmed, with its 1-based number and byte
/// offset. A line ends at `\n`, `\r\n` or a lone `\r` (old Mac exports), so
/// no record hides behind a carriage return.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = (u64, usize, &str)> {
    let b = text.as_bytes();
    let mut start = 0usize;
    let mut no = 0u64;
    std::iter::from_fn(move || {
        while start < b.len() {
            let (end, next) = line_end(b, start);
            let at = start;
            no += 1;
            start = next;
            let line = text.get(at..end).unwrap_or("").trim();
            if !line.is_empty() {
                return Some((no, at, line));
            }
        }
        None
    })
}

/// Calls `f` for each line of [`lines`], stopping when it breaks.
fn walk_lines(
    text: &str,
    visit: &mut Visit<'_>,
    mut f: impl FnMut(&str, &mut Visit<'_>, u64, usize) -> ControlFlow<()>,
) -> ControlFlow<()> {
    for (no, off, line) in lines(text) {
        f(line, visit, no, off)?;
    }
    ControlFlow::Continue(())
}

/// The end of the line starting at `start` (before its `\n`, `\r\n` or
/// lone `\r`) and the start of the next.
fn line_end(b: &[u8], start: usize) -> (usize, usize) {
    match memchr::memchr2(b'\n', b'\r', &b[start..]) {
        Some(i) if b[start + i] == b'\r' && b.get(start + i + 1) == Some(&b'\n') => {
            (start + i, start + i + 2)
        }
        Some(i) => (start + i, start + i + 1),
        None => (b.len(), b.len()),
    }
}

/// Walks a JSON array element by element, so a cut file still yields its
/// complete elements and one warning for the incomplete one.
fn walk_array(text: &str, visit: &mut Visit<'_>) {
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
        let _ = visit(line, i, Item::Bad("json", "not a JSON array".into()));
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
            // More after the array (paged exports joined with `>>`, issue
            // #18): a next array is read on, anything else as JSON lines.
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
            walk(
                &Container::JsonLines { loki: false },
                text.get(from..).unwrap_or(""),
                &mut shifted,
            );
            return;
        }
        let (start, start_line) = (i, line);
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
                    // it without moving on looped forever.
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
        let end = i.min(b.len());
        let elem = text.get(start..end).unwrap_or("");
        let item = if !complete {
            Item::Bad(
                "json",
                format!("truncated JSON: element starting at line {start_line} is incomplete"),
            )
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
                Ok(None) => Item::Bad("json", "array element is not a JSON object".into()),
                Err(e) => Item::Bad("json", json_reason(&e)),
            }
        };
        if visit(start_line, start, item).is_break() || !complete {
            return;
        }
    }
}

/// Walks CSV rows under the first row's headers; empty cells are absent.
/// A row whose quote never closes on its line (so that the quoted cell ran
/// over the next lines and the row came out of the header's width) is one
/// warning, and the lines after it are read again as rows (issue #18: the
/// rows after an unbalanced quote were swallowed). One reader serves the
/// whole text: after such a row it seeks to the next line rather than being
/// built again (building one cost about a quarter of a small file's read,
/// issue #18's fuzzing profile).
fn walk_csv(text: &str, delim: u8, visit: &mut Visit<'_>) {
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delim)
        .has_headers(false)
        .flexible(true)
        .from_reader(std::io::Cursor::new(text.as_bytes()));
    let mut headers: Option<Vec<String>> = None;
    let mut row = csv::StringRecord::new();
    let mut lines = LineCounter::default();
    loop {
        match rdr.read_record(&mut row) {
            Ok(false) => return,
            Ok(true) => match csv_row(text, &row, &mut headers, &mut lines, visit) {
                Row::Next => {}
                Row::Stop => return,
                Row::ResumeAt(off, line) => {
                    let mut pos = csv::Position::new();
                    pos.set_byte(off as u64).set_line(line);
                    if rdr
                        .seek_raw(std::io::SeekFrom::Start(off as u64), pos)
                        .is_err()
                    {
                        return;
                    }
                }
            },
            Err(e) => {
                let no = e.position().map_or(0, |p| {
                    lines.line_at(text, LineCounter::row_start(text, p.byte() as usize))
                });
                if visit(no, 0, Item::Bad("csv", format!("unreadable CSV row: {e}"))).is_break() {
                    return;
                }
                if matches!(e.kind(), csv::ErrorKind::Io(_)) {
                    return;
                }
            }
        }
    }
}

/// The 1-based line number of a byte offset, counted as [`lines`] counts
/// (a line ends at `\n`, `\r\n` or a lone `\r`), for offsets that only
/// grow. The `csv` crate's own line number skips blank lines and does not
/// count a lone `\r`, so a warning named the wrong line.
#[derive(Default)]
struct LineCounter {
    /// The offset counted up to.
    off: usize,
    /// Line ends before `off`.
    ends: u64,
}

impl LineCounter {
    /// The first byte at or after `off` that is no line end (the `csv`
    /// crate places a row after blank lines at the start of the blanks).
    fn row_start(text: &str, off: usize) -> usize {
        let b = text.as_bytes();
        let off = off.min(b.len());
        off + b[off..]
            .iter()
            .position(|c| !matches!(c, b'\n' | b'\r'))
            .unwrap_or(b.len() - off)
    }

    /// The line of byte `off` (not before the last asked).
    fn line_at(&mut self, text: &str, off: usize) -> u64 {
        let b = text.as_bytes();
        let off = off.min(b.len());
        if off > self.off {
            let span = &b[self.off..off];
            let lf = memchr::memchr_iter(b'\n', span).count();
            let lone_cr = memchr::memchr_iter(b'\r', span)
                .filter(|&i| b.get(self.off + i + 1) != Some(&b'\n'))
                .count();
            self.ends += (lf + lone_cr) as u64;
            self.off = off;
        }
        self.ends + 1
    }
}

/// What [`walk_csv`] does after a row.
enum Row {
    /// Read the next row.
    Next,
    /// `visit` broke, or nothing follows.
    Stop,
    /// Read on from this byte offset, which starts this (1-based) line.
    ResumeAt(usize, u64),
}

/// Visits one CSV row: the header row, a repeated header, a row cut by an
/// unbalanced quote, or a record.
fn csv_row(
    text: &str,
    row: &csv::StringRecord,
    headers: &mut Option<Vec<String>>,
    lines: &mut LineCounter,
    visit: &mut Visit<'_>,
) -> Row {
    let off = LineCounter::row_start(text, row.position().map_or(0, |p| p.byte() as usize));
    let no = lines.line_at(text, off);
    let stop = |flow: ControlFlow<()>| {
        if flow.is_break() {
            Row::Stop
        } else {
            Row::Next
        }
    };
    if row.iter().all(|f| f.trim().is_empty()) {
        return Row::Next;
    }
    let Some(h) = headers.as_ref() else {
        let names: Vec<String> = row.iter().map(|f| f.trim().to_string()).collect();
        // A header cell that reads as a time means the export lost its
        // header: the row is data we cannot place, so say so.
        let dated = names
            .iter()
            .find(|n| crate::ingest::roles::time::parse_time(n, None).is_ok());
        let mut flow = ControlFlow::Continue(());
        if let Some(cell) = dated {
            let reason = format!(
                "the first row looks like data, not a header (\"{cell}\" is a time): \
                 the CSV has no header row, so its columns are unknown"
            );
            flow = visit(no, off, Item::Bad("csv", reason));
        }
        *headers = Some(names);
        return stop(flow);
    };
    if row.len() != h.len() && row.iter().any(|f| f.contains('\n')) {
        let reason = "unbalanced quote: a quoted cell does not close on its line; the row is skipped and the lines after it are read as rows".to_string();
        if visit(no, off, Item::Bad("csv", reason)).is_break() {
            return Row::Stop;
        }
        return match memchr::memchr(b'\n', &text.as_bytes()[off..]) {
            Some(eol) => Row::ResumeAt(off + eol + 1, no + 1),
            None => Row::Stop,
        };
    }
    if row.len() == h.len() && row.iter().zip(h).all(|(f, n)| f.trim() == n) {
        let item = Item::Bad("csv", "repeated header row (files joined together?)".into());
        return stop(visit(no, off, item));
    }
    let pairs: Vec<(&str, Cow<'_, str>)> = h
        .iter()
        .zip(row.iter())
        // Kibana and OpenSearch Dashboards write `-` for a field the row
        // lacks.
        .filter(|(_, v)| !matches!(v.trim(), "" | "-"))
        .map(|(k, v)| (k.as_str(), Cow::Borrowed(v.trim())))
        .collect();
    stop(visit(no, off, Item::Record(Record::Pairs(&pairs))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn never(_: &str) -> bool {
        false
    }

    fn count(text: &str) -> (Dialect, usize, Vec<String>) {
        let c = detect(text, never);
        let mut n = 0;
        let mut bad = Vec::new();
        walk(&c, text, &mut |line, _, item| {
            match item {
                Item::Record(_) => n += 1,
                Item::Skip | Item::Warn(..) => {}
                Item::Bad(_, r) => bad.push(format!("{line}: {r}")),
            }
            ControlFlow::Continue(())
        });
        (c.dialect(), n, bad)
    }

    #[test]
    fn detects_containers() {
        assert_eq!(count("{\"a\":1}\n\n{\"a\":2}\n").0, Dialect::JsonLines);
        assert_eq!(count("[{\"a\":1},\n{\"a\":2}]").1, 2);
        assert_eq!(count("time=1 level=INFO msg=\"x y\"\n").0, Dialect::Logfmt);
        assert_eq!(count("a,b\n1,2\n\n3,4\n"), (Dialect::Csv, 2, vec![]));
        assert_eq!(count("   \n").0, Dialect::Unknown);
        let es = r#"{"took":3,"hits":{"total":2,"hits":[{"_index":"x","_source":{"a":1}},{"_source":{"a":2}}]}}"#;
        assert_eq!(count(es), (Dialect::Elasticsearch, 2, vec![]));
        let es_pretty = "{\n \"hits\": {\"hits\": [\n {\"_source\": {\"a\": 1}}\n ]}\n}\n";
        assert_eq!(count(es_pretty), (Dialect::Elasticsearch, 1, vec![]));
        let loki = r#"{"status":"success","data":{"resultType":"streams","result":[{"stream":{"pod":"p1"},"values":[["1540289720000000000","{\"event\":\"acquired\"}"],["1540289721000000000","event=released k=v"]]}]}}"#;
        assert_eq!(count(loki), (Dialect::Loki, 2, vec![]));
        let logcli =
            r#"{"labels":{"pod":"p"},"line":"{\"a\":1}","timestamp":"2018-10-23T10:15:20Z"}"#;
        assert_eq!(count(logcli).0, Dialect::Loki);
    }

    #[test]
    fn bids_kept_by_detection_are_the_bids_computed_afresh() {
        // A semicolon CSV with a header (the contest's CSV), text lines,
        // logfmt, and a comma file whose header test fails (any_delim's CSV):
        // the book detection fills gives describe_reading the same bids as
        // a fresh one, for the winner and for every other reader.
        let texts = [
            "time;event;lock_key;owner\n2026-12-01 07:00:00;acquired;k;a\n2026-12-01 07:00:01;released;k;a\n",
            "2026-12-01 07:00:00 INFO acquired lock k owner=a\n2026-12-01 07:00:01 INFO released lock k owner=a\n",
            "time=2026-12-01T07:00:00Z event=acquired key=k holder=a\n",
            "2026-12-01 07:00:00,acquired,k,a\nx,y\n",
        ];
        for text in texts {
            let mut book = BidBook::default();
            let winner = detect_with(text, never, &mut book);
            let others = [
                Container::Text { rules: None },
                Container::Logfmt,
                Container::Csv { delim: b',' },
                Container::Csv { delim: b';' },
            ];
            for c in std::iter::once(&winner).chain(&others) {
                assert_eq!(
                    bids_for(c, text, &mut book),
                    bids_for(c, text, &mut BidBook::default()),
                    "{c:?} on {text:?}"
                );
            }
        }
    }

    #[test]
    fn truncated_array_keeps_complete_elements() {
        let (_, n, bad) = count("[\n{\"a\":1},\n{\"a\":\"x]}\"},\n{\"a\":3,\"b\":\"cut");
        assert_eq!(n, 2);
        assert_eq!(
            bad,
            vec!["4: truncated JSON: element starting at line 4 is incomplete"]
        );
    }

    #[test]
    fn a_stray_closing_brace_in_an_array_does_not_hang() {
        // Found by fuzzing (json_array, pipeline): `}` at depth 0 looped.
        let (d, n, bad) = count("[}]");
        assert_eq!((d, n), (Dialect::JsonArray, 0));
        assert_eq!(bad, vec!["1: invalid JSON: expected value at column 1"]);
        let (_, n, bad) = count("[{\"a\":1}},\n{\"a\":2}]");
        assert_eq!(n, 2);
        assert_eq!(bad, vec!["1: invalid JSON: expected value at column 1"]);
    }

    #[test]
    fn bad_json_line_reason() {
        let (_, n, bad) = count("{\"a\":1}\n{\"a\":\"unterminated\n{\"a\":2}\n");
        assert_eq!(n, 2);
        assert_eq!(
            bad,
            vec!["2: invalid JSON: EOF while parsing a string at column 18"]
        );
    }

    #[test]
    fn lone_carriage_returns_end_lines() {
        // Found by the hostile corpus: a file with `\r` line ends read as one
        // line, and in logfmt the later records vanished without a warning.
        let (d, n, bad) = count("a=1 b=2\rc=3 d=4\r\re=5 f=6\r\n\ng=7 h=8");
        assert_eq!((d, n, bad), (Dialect::Logfmt, 4, vec![]));
        let (_, n, bad) = count("{\"a\":1}\r{\"a\":2}\r\n{\"a\":\r");
        assert_eq!(n, 2);
        assert_eq!(
            bad,
            vec!["3: invalid JSON: EOF while parsing a value at column 5"]
        );
    }

    #[test]
    fn csv_missing_or_repeated_header_is_a_warning() {
        // Found by the hostile corpus: the first data row was silently taken
        // for the header, and a repeated header read as a bad time.
        let (_, n, bad) = count("2024-01-01T00:00:00Z,acquired\n2024-01-01T00:00:01Z,released\n");
        assert_eq!(n, 1);
        assert_eq!(
            bad,
            vec![
                "1: the first row looks like data, not a header (\"2024-01-01T00:00:00Z\" is a time): \
                 the CSV has no header row, so its columns are unknown"
            ]
        );
        let (_, n, bad) = count("time,event\n1,a\ntime, event\n2,b\n");
        assert_eq!(n, 2);
        assert_eq!(bad, vec!["3: repeated header row (files joined together?)"]);
    }

    #[test]
    fn csv_quotes_and_crlf() {
        let (d, n, bad) = count("时间,消息\r\n\"2023-01-01 00:00:00\",\"a, \"\"b\"\"\"\r\n");
        assert_eq!((d, n, bad), (Dialect::Csv, 1, vec![]));
    }

    #[test]
    fn csv_warnings_name_the_line_after_blank_lines_and_lone_carriage_returns() {
        // Found by a hostile-input probe (session 19): the `csv` crate's line
        // number skipped the blank lines and counted no lone `\r`, so
        // `BAD1` on line 8 was warned as line 3, and both rows of a CR-only
        // file as line 1.
        let lines_of = |text: &str| {
            let mut seen = Vec::new();
            walk_csv(text, b',', &mut |line, _, item| {
                if matches!(item, Item::Record(_)) {
                    seen.push(line);
                }
                ControlFlow::Continue(())
            });
            seen
        };
        let blank = "time,event\n1,a\n\n\n\n\n\nBAD1,a\n";
        assert_eq!(lines_of(blank), vec![2, 8]);
        assert_eq!(lines_of("time,event\r1,a\rBAD1,a\rBAD2,a\r"), vec![2, 3, 4]);
        assert_eq!(
            lines_of("time,event\r\n1,a\r\n\r\n2,\"x\ny\"\r\n3,a\n"),
            vec![2, 4, 6]
        );
    }

    #[test]
    fn csv_rows_after_several_unbalanced_quotes_keep_their_line_numbers() {
        let text = "time,event,key\n1,a,k\n\"2,b,k\n3,c,k\n\"4,d\n5,e,k\n6,\"f\n";
        let mut seen = Vec::new();
        walk_csv(text, b',', &mut |line, off, item| {
            let what = match item {
                Item::Record(_) => "row",
                Item::Skip => "skip",
                Item::Bad(..) => "bad",
                Item::Warn(..) => "warn",
            };
            seen.push((line, &text[off..off + 1], what));
            ControlFlow::Continue(())
        });
        assert_eq!(
            seen,
            vec![
                (2, "1", "row"),
                (3, "\"", "bad"),
                (4, "3", "row"),
                (5, "\"", "bad"),
                (6, "5", "row"),
                (7, "6", "bad"),
            ]
        );
    }
}
