//! One JSON record's fields, whoever wrote it: its object with key/value
//! attribute lists (OTLP, opentelemetry-go), Go-typed values, Log4j2's
//! `instant`, SLS's nanosecond part and journald's byte-array `MESSAGE`
//! read as plain fields, a search hit's or export row's record taken out
//! of its wrapper, and a JSON error worded for a warning. Every reader of
//! JSON (lines, arrays, documents, payloads in a field) takes a record
//! from here.

use serde_json::{Map, Value};

use crate::model::RecordWarning;

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
/// "高精度时间戳": the log's time is `__time__` + `__time_ns_part__`). With the part
/// ignored every line of a second would stand at one instant, and an
/// overlap within it read as a 0 ms touch.
pub(crate) fn sls_time_ns(o: &mut Map<String, Value>) {
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

/// [`sls_time_ns`] on a record's pairs (SLS's CSV export, whose header
/// has both columns): `__time__` becomes epoch seconds with nine decimals.
pub(crate) fn sls_time_ns_pairs(pairs: &mut [(&str, std::borrow::Cow<'_, str>)]) {
    let Some(ns) = pairs
        .iter()
        .find(|(k, _)| *k == "__time_ns_part__")
        .and_then(|(_, v)| v.trim().parse::<u64>().ok())
        .filter(|n| *n < 1_000_000_000)
    else {
        return;
    };
    if let Some((_, v)) = pairs.iter_mut().find(|(k, _)| *k == "__time__")
        && let Ok(secs) = v.trim().parse::<i64>()
    {
        *v = std::borrow::Cow::Owned(format!("{secs}.{ns:09}"));
    }
}

/// A journald `MESSAGE` written as its bytes, as text. `journalctl -o json`
/// writes a field that is not valid UTF-8 as an array of its bytes
/// (journalctl(1), "json": "Fields containing non-printable or non-UTF8
/// bytes are encoded as arrays containing the raw bytes individually
/// formatted as unsigned numbers"), as a GBK application's messages are.
/// Decoded as UTF-8, else as
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

/// A serde_json error as a warning's reason, without its "line 1" part.
pub(crate) fn json_reason(e: &serde_json::Error) -> RecordWarning {
    let (error, column) = json_error_parts(e);
    RecordWarning::InvalidJson { error, column }
}

/// A serde_json error's message without its position, and the 1-based
/// column it names, if any.
pub(crate) fn json_error_parts(e: &serde_json::Error) -> (String, Option<u64>) {
    let mut error = e.to_string();
    let column = error.rfind(" at line ").map(|i| {
        error.truncate(i);
        e.column() as u64
    });
    (error, column)
}
