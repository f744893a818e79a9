//! One log record as the dialect readers hand it to field extraction: a JSON
//! object (plus optional outer fields such as Loki labels) or a list of
//! `key=value` pairs (logfmt, CSV rows), with lookup by dotted path.

use std::borrow::Cow;

use serde_json::{Map, Number, Value};

/// A scalar field value borrowed from a record.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum FieldValue<'a> {
    /// Text (never empty).
    Str(&'a str),
    /// A JSON number.
    Num(Number),
    /// A JSON boolean.
    Bool(bool),
    /// A PHP `DateTime` object (`{"date": .., "timezone_type": .., "timezone": ..}`).
    Date { date: &'a str, tz: Option<&'a str> },
}

impl<'a> FieldValue<'a> {
    /// The value as text (numbers in their shortest decimal form).
    pub fn text(&self) -> Cow<'a, str> {
        match self {
            FieldValue::Str(s) => Cow::Borrowed(s),
            FieldValue::Num(n) => Cow::Owned(n.to_string()),
            FieldValue::Bool(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
            FieldValue::Date { date, .. } => Cow::Borrowed(date),
        }
    }

    /// The value as an integer (floats rounded; text parsed).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            FieldValue::Num(n) => n.as_i64().or_else(|| n.as_f64().and_then(f64_to_i64)),
            FieldValue::Str(s) => {
                let s = s.trim();
                s.parse::<i64>()
                    .ok()
                    .or_else(|| s.parse::<f64>().ok().and_then(f64_to_i64))
            }
            _ => None,
        }
    }

    /// The value as a float (text parsed). Non-finite values are `None`.
    pub fn as_f64(&self) -> Option<f64> {
        let f = match self {
            FieldValue::Num(n) => n.as_f64(),
            FieldValue::Str(s) => s.trim().parse::<f64>().ok(),
            _ => None,
        }?;
        f.is_finite().then_some(f)
    }

    /// The value as a boolean: `true`/`false`, 1/0, `yes`/`no`, `ok`.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            FieldValue::Bool(b) => Some(*b),
            FieldValue::Num(n) => match n.as_i64() {
                Some(1) => Some(true),
                Some(0) => Some(false),
                _ => None,
            },
            FieldValue::Str(s) => match s.trim().to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" | "ok" => Some(true),
                "false" | "0" | "no" => Some(false),
                _ => None,
            },
            FieldValue::Date { .. } => None,
        }
    }
}

fn f64_to_i64(f: f64) -> Option<i64> {
    (f.is_finite() && f.abs() < 9.0e18).then(|| f.round() as i64)
}

/// One record.
#[derive(Debug)]
pub(crate) enum Record<'a> {
    /// A JSON object, with fields looked up in `main` first, then `extra`
    /// (Loki labels and timestamp).
    Json {
        main: &'a Map<String, Value>,
        extra: Option<&'a Map<String, Value>>,
    },
    /// Ordered `key=value` pairs (logfmt line, CSV row under its header).
    Pairs(&'a [(&'a str, Cow<'a, str>)]),
    /// The wanted top-level fields of a flat JSON object, read by the fast
    /// JSON Lines scanner (`fast.rs`): `vals[i]` is the value of `names[i]`.
    Slots {
        names: &'a [&'a str],
        vals: &'a [Option<FieldValue<'a>>],
        /// For each role (`Role as usize`), its index in `names`.
        by_role: &'a [Option<usize>],
    },
    /// An application record found inside a string field of an outer
    /// record (a log service's envelope, a runtime's line prefix). Lookups
    /// try `inner` first; `outer` supplies what the application left out
    /// (host, labels, the shipper's time). `skip` is the outer field that
    /// held `inner`: it plays no role of its own.
    Nested {
        inner: &'a Record<'a>,
        outer: &'a Record<'a>,
        skip: &'a str,
    },
}

/// Which part of a [`Record::Nested`] a field is looked up in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub(crate) enum Scope {
    /// The inner record first, then the outer one (any record that is not
    /// nested is all inner).
    #[default]
    Any,
    /// The application's own record only.
    Inner,
    /// The envelope only.
    Outer,
}

fn is_php_date(o: &Map<String, Value>) -> bool {
    matches!(o.get("date"), Some(Value::String(_))) && o.contains_key("timezone")
}

fn to_field_value(v: &Value) -> Option<FieldValue<'_>> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(FieldValue::Str(s)),
        Value::Number(n) => Some(FieldValue::Num(n.clone())),
        Value::Bool(b) => Some(FieldValue::Bool(*b)),
        Value::Object(o) if is_php_date(o) => match o.get("date") {
            Some(Value::String(d)) => Some(FieldValue::Date {
                date: d,
                tz: o.get("timezone").and_then(Value::as_str),
            }),
            _ => None,
        },
        _ => None,
    }
}

/// Looks up `path` in `map`: the literal key first (`host.name` as one key),
/// then nested objects split at each dot (`context.client_id`).
fn get_path<'a>(map: &'a Map<String, Value>, path: &str) -> Option<&'a Value> {
    if let Some(v) = map.get(path) {
        return Some(v);
    }
    for (i, _) in path.match_indices('.') {
        if let Some(Value::Object(sub)) = map.get(&path[..i])
            && let Some(v) = get_path(sub, &path[i + 1..])
        {
            return Some(v);
        }
    }
    None
}

impl<'a> Record<'a> {
    /// The non-empty scalar at `field`, if any.
    pub fn get(&self, field: &str) -> Option<FieldValue<'a>> {
        match self {
            Record::Json { main, extra } => {
                get_path(main, field).and_then(to_field_value).or_else(|| {
                    extra
                        .and_then(|e| get_path(e, field))
                        .and_then(to_field_value)
                })
            }
            Record::Pairs(pairs) => pairs
                .iter()
                .find(|(k, _)| *k == field)
                .map(|(_, v)| v.as_ref())
                .or_else(|| pairs_go_map_get(pairs, field))
                .filter(|v| !v.trim().is_empty())
                .map(FieldValue::Str),
            Record::Slots { names, vals, .. } => names
                .iter()
                .position(|n| *n == field)
                .and_then(|i| vals.get(i))
                .and_then(Clone::clone),
            Record::Nested { inner, outer, skip } => inner
                .get(field)
                .or_else(|| (field != *skip).then(|| outer.get(field)).flatten()),
        }
    }

    /// The non-empty scalar at `field` in the part `scope` names.
    pub fn get_in(&self, field: &str, scope: Scope) -> Option<FieldValue<'a>> {
        match (self, scope) {
            (_, Scope::Any) => self.get(field),
            // A JSON record's `extra` (Loki's labels and entry time) is its
            // envelope.
            (Record::Json { main, .. }, Scope::Inner) => {
                get_path(main, field).and_then(to_field_value)
            }
            (Record::Json { extra, .. }, Scope::Outer) => extra
                .and_then(|e| get_path(e, field))
                .and_then(to_field_value),
            // A JSON message behind a text line's own prefix (`skip` is
            // empty: no envelope field held it) keeps its prefix as a text
            // line does: a field the text lines have (`prefix.time`) is
            // looked up there when the JSON lacks it, the record's plain
            // lookup. Else whether such a line had its time would depend on
            // whether one of them fell inside the detection window
            // (interleaved stderr lines can push the JSON line past it).
            (Record::Nested { skip: "", .. }, Scope::Inner) => self.get(field),
            (Record::Nested { inner, .. }, Scope::Inner) => inner.get(field),
            (Record::Nested { outer, skip, .. }, Scope::Outer) => {
                (field != *skip).then(|| outer.get(field)).flatten()
            }
            (_, Scope::Inner) => self.get(field),
            // A text or logfmt line without an envelope is its own prefix:
            // its `prefix.time` is the one a nested line keeps outside (else
            // a lone text line between JSON payloads loses its time, and
            // interleaved stderr lines change what stdout reads).
            (Record::Pairs(_), Scope::Outer) => self.get(field),
            (_, Scope::Outer) => None,
        }
    }

    /// Like [`Record::visit`], also telling whether each leaf is from the outer
    /// part of a nested record or from a JSON record's `extra` (its envelope).
    pub fn visit_scoped(&self, f: &mut dyn FnMut(&str, &FieldValue<'_>, bool)) {
        match self {
            Record::Json { main, extra } => {
                let mut prefix = String::new();
                flatten(main, &mut prefix, 0, &mut |k, v| f(k, v, false));
                if let Some(e) = extra {
                    prefix.clear();
                    flatten(e, &mut prefix, 0, &mut |k, v| f(k, v, true));
                }
            }
            Record::Nested { inner, outer, skip } => {
                inner.visit(&mut |k, v| f(k, v, false));
                outer.visit(&mut |k, v| {
                    if k != *skip {
                        f(k, v, true)
                    }
                });
            }
            // A text line's runtime prefix (`prefix.time`, the CRI or
            // syslog header's time) is its envelope: counted outside, so
            // the fallback to it does not depend on whether a line with a
            // JSON message fell inside the detection window (interleaved
            // stderr lines can push the JSON line out).
            Record::Pairs(_) => self.visit(&mut |k, v| f(k, v, k.starts_with("prefix."))),
            _ => self.visit(&mut |k, v| f(k, v, false)),
        }
    }

    /// Calls `f` with the name of every field that is present but null or
    /// blank (skipped by [`Record::visit`]): a TTL field that is there but
    /// empty is still the file's TTL field.
    pub fn visit_empty(&self, f: &mut dyn FnMut(&str)) {
        match self {
            Record::Json { main, extra } => {
                let mut prefix = String::new();
                empty_leaves(main, &mut prefix, 0, f);
                if let Some(e) = extra {
                    prefix.clear();
                    empty_leaves(e, &mut prefix, 0, f);
                }
            }
            Record::Pairs(pairs) => {
                for (k, v) in pairs.iter() {
                    if v.trim().is_empty() {
                        f(k);
                    }
                }
            }
            Record::Slots { names, vals, .. } => {
                for (k, v) in names.iter().zip(vals.iter()) {
                    if v.is_none() {
                        f(k);
                    }
                }
            }
            Record::Nested { inner, .. } => inner.visit_empty(f),
        }
    }

    /// Calls `f` with every scalar leaf as (dotted path, value). Nested objects
    /// are flattened to dotted paths (depth <= 5); PHP `DateTime` objects are
    /// leaves; arrays are skipped.
    pub fn visit(&self, f: &mut dyn FnMut(&str, &FieldValue<'_>)) {
        match self {
            Record::Json { .. } | Record::Nested { .. } => {
                self.visit_scoped(&mut |k, v, _| f(k, v));
            }
            Record::Pairs(pairs) => {
                for (k, v) in pairs.iter() {
                    if v.trim().is_empty() {
                        continue;
                    }
                    match go_map_entries(v) {
                        Some(entries) if !entries.is_empty() => {
                            let mut prefix = String::from(*k);
                            visit_go_map(&entries, &mut prefix, 0, f);
                        }
                        _ => f(k, &FieldValue::Str(v)),
                    }
                }
            }
            Record::Slots { names, vals, .. } => {
                for (k, v) in names.iter().zip(vals.iter()) {
                    if let Some(v) = v {
                        f(k, v);
                    }
                }
            }
        }
    }
}

/// The dotted paths of `map`'s null and blank leaves (the ones
/// [`Record::visit`] skips), depth <= 5.
fn empty_leaves(
    map: &Map<String, Value>,
    prefix: &mut String,
    depth: usize,
    f: &mut dyn FnMut(&str),
) {
    let base = prefix.len();
    for (k, v) in map {
        prefix.truncate(base);
        prefix.push_str(k);
        match v {
            Value::Object(o) if !is_php_date(o) && depth < 5 => {
                prefix.push('.');
                empty_leaves(o, prefix, depth + 1, f);
            }
            Value::Null => f(prefix),
            Value::String(s) if s.trim().is_empty() => f(prefix),
            _ => {}
        }
    }
    prefix.truncate(base);
}

fn flatten(
    map: &Map<String, Value>,
    prefix: &mut String,
    depth: usize,
    f: &mut dyn FnMut(&str, &FieldValue<'_>),
) {
    let base = prefix.len();
    for (k, v) in map {
        prefix.truncate(base);
        prefix.push_str(k);
        match v {
            Value::Object(o) if !is_php_date(o) => {
                if depth < 5 {
                    prefix.push('.');
                    flatten(o, prefix, depth + 1, f);
                }
            }
            _ => {
                if let Some(val) = to_field_value(v) {
                    f(prefix, &val);
                }
            }
        }
    }
    prefix.truncate(base);
}

/// The value at dotted `field` inside a pair holding a Go map
/// (`lock="map[holder:h1 key:k]"` answers `lock.key`), at any split of the
/// dots (`a.b` may be one key of the map).
fn pairs_go_map_get<'a>(pairs: &'a [(&'a str, Cow<'a, str>)], field: &str) -> Option<&'a str> {
    inside_go_map(
        |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.as_ref()),
        field,
        0,
    )
}

/// The value at dotted `path` in the Go map `s`, through nested maps
/// (depth <= 5).
fn go_map_get<'a>(s: &'a str, path: &str, depth: usize) -> Option<&'a str> {
    let entries = go_map_entries(s)?;
    let value_of = |k: &str| entries.iter().find(|(n, _)| *n == k).map(|(_, v)| *v);
    value_of(path).or_else(|| (depth < 5).then(|| inside_go_map(value_of, path, depth + 1))?)
}

/// The value at dotted `path` found by splitting it at a dot: the part
/// before names a field (`value_of`) holding a Go map, the part after is
/// looked up in that map.
fn inside_go_map<'a>(
    value_of: impl Fn(&str) -> Option<&'a str>,
    path: &str,
    depth: usize,
) -> Option<&'a str> {
    path.match_indices('.')
        .find_map(|(i, _)| go_map_get(value_of(&path[..i])?, &path[i + 1..], depth))
}

/// Calls `f` with every leaf of a Go map's entries as `prefix.key`, nested
/// maps flattened (depth <= 5), as [`Record::visit`] flattens JSON objects.
fn visit_go_map(
    entries: &[(&str, &str)],
    prefix: &mut String,
    depth: usize,
    f: &mut dyn FnMut(&str, &FieldValue<'_>),
) {
    let base = prefix.len();
    for (k, v) in entries {
        prefix.truncate(base);
        prefix.push('.');
        prefix.push_str(k);
        match go_map_entries(v) {
            Some(inner) if depth < 5 && !inner.is_empty() => {
                visit_go_map(&inner, prefix, depth + 1, f)
            }
            _ if v.trim().is_empty() => {}
            _ => f(prefix, &FieldValue::Str(v)),
        }
    }
    prefix.truncate(base);
}

/// The entries of Go's `%v` of a map, `map[holder:h1 key:product:42:lock
/// ttl_ms:2000]` (fmt prints a map's keys sorted, `key:value` apart by
/// spaces): how logrus's text formatter writes a map field
/// (sirupsen/logrus `text_formatter.go` formats a value with `%+v` via
/// `fmt.Sprint`). `None` when `s` is not one. A key is a word of
/// `[A-Za-z0-9_.@-]`; a value runs to the next ` word:` outside brackets, so
/// it may hold colons and nested maps, not a space before a word and a
/// colon (Go's output is ambiguous there too).
pub(crate) fn go_map_entries(s: &str) -> Option<Vec<(&str, &str)>> {
    let inner = s.strip_prefix("map[")?.strip_suffix(']')?;
    let b = inner.as_bytes();
    let key_at = |i: usize| -> Option<usize> {
        let n = b[i..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'@' | b'-'))
            .count();
        (n > 0 && b.get(i + n) == Some(&b':')).then_some(i + n)
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let colon = key_at(i)?;
        let vs = colon + 1;
        let mut j = vs;
        let mut depth = 0usize;
        while j < b.len() {
            match b[j] {
                b'[' => depth += 1,
                b']' => depth = depth.saturating_sub(1),
                b' ' if depth == 0 && key_at(j + 1).is_some() => break,
                _ => {}
            }
            j += 1;
        }
        out.push((&inner[i..colon], &inner[vs..j]));
        i = j + 1;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_maps_read_as_dotted_fields() {
        let e = go_map_entries("map[holder:h 1 key:product:42:lock sub:map[a:1 b:x y]]");
        assert_eq!(
            e,
            Some(vec![
                ("holder", "h 1"),
                ("key", "product:42:lock"),
                ("sub", "map[a:1 b:x y]")
            ])
        );
        assert_eq!(go_map_entries("map[]"), Some(vec![]));
        assert_eq!(go_map_entries("map[ no key]"), None);
        assert_eq!(go_map_entries("mapping"), None);
        let pairs = [
            ("msg", Cow::Borrowed("x")),
            (
                "lock",
                Cow::Borrowed("map[holder:h1 key:product:42:lock sub:map[a:1]]"),
            ),
        ];
        let rec = Record::Pairs(&pairs);
        assert_eq!(
            rec.get("lock.key").map(|v| v.text().into_owned()),
            Some("product:42:lock".into())
        );
        assert_eq!(
            rec.get("lock.sub.a").map(|v| v.text().into_owned()),
            Some("1".into())
        );
        let mut seen = Vec::new();
        rec.visit(&mut |k, v| seen.push(format!("{k}={}", v.text())));
        assert_eq!(
            seen,
            [
                "msg=x",
                "lock.holder=h1",
                "lock.key=product:42:lock",
                "lock.sub.a=1"
            ]
        );
    }

    #[test]
    fn json_paths_literal_and_nested() {
        let v: Value = serde_json::from_str(
            r#"{"host.name":"vm","context":{"client_id":"w-a","n":3},"datetime":{"date":"2018-10-23 10:15:20.000000","timezone_type":3,"timezone":"UTC"},"extra":[]}"#,
        )
        .expect("json");
        let m = v.as_object().expect("object");
        let r = Record::Json {
            main: m,
            extra: None,
        };
        assert_eq!(r.get("host.name"), Some(FieldValue::Str("vm")));
        assert_eq!(r.get("context.client_id"), Some(FieldValue::Str("w-a")));
        assert!(matches!(
            r.get("datetime"),
            Some(FieldValue::Date {
                tz: Some("UTC"),
                ..
            })
        ));
        let mut keys = Vec::new();
        r.visit(&mut |k, _| keys.push(k.to_string()));
        assert_eq!(
            keys,
            vec!["context.client_id", "context.n", "datetime", "host.name"]
        );
    }
}
