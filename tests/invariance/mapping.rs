//! The renaming generator's sanity check: a mapping file that names a
//! variant's fields and event words (`lockreplay::ingest::Mapping`:
//! `[fields]`, `[events]`, and the `date` a layout without one lacks), with
//! which the same file must give the plain answer. It proves the file is
//! fine and the words were all the reader lacked. Every layout is checked,
//! records over several lines too.

use serde_json::{Map, Value, json};

use crate::layouts::Layout;
use crate::model::{Kind, Renaming};

/// The mapping role of each of [`Renaming::names`] but the TTL's.
const ROLES: [(usize, &str); 9] = [
    (0, "event"),
    (1, "key"),
    (2, "holder"),
    (4, "fencing_token"),
    (5, "product"),
    (6, "quantity"),
    (7, "stock"),
    (8, "stock_after"),
    (9, "order_id"),
];

/// The Shanghai server's day: the date a layout without one lacks.
const DATE: &str = "2026-12-01";

/// The sanity mapping of a variant written by `layout` with `r`'s words
/// (JSON, the shape of a TOML one): its `[fields]` and `[events]`, and the
/// date a layout without a year or a date lacks. The permuted text layouts
/// (records over several lines, a level before the time, the time after
/// the logger, a fused level letter, logcat's `k: v` pairs) need no
/// `line_regex`: the reader finds their structure.
pub fn plan(layout: Layout, r: &Renaming) -> String {
    let mut m = Map::new();
    if matches!(
        layout,
        Layout::Logcat | Layout::Geth | Layout::Glog | Layout::Log4j2Default
    ) {
        m.insert("date".into(), json!(DATE));
    }
    m.insert("fields".into(), fields(layout, r));
    m.insert("events".into(), events(r));
    Value::Object(m).to_string()
}

/// Where a layout puts the application's fields: the path prefix of their
/// names in the record.
fn prefix(layout: Layout) -> &'static str {
    match layout {
        Layout::MonologJson => "context.",
        Layout::TracingJson => "fields.",
        Layout::Log4j2Json => "contextMap.",
        Layout::OtelStdout => "Attributes.",
        Layout::MelJson => "State.",
        _ => "",
    }
}

/// `[fields]`: every role by its name in `r`, under the layout's prefix.
fn fields(layout: Layout, r: &Renaming) -> Value {
    let p = prefix(layout);
    let mut fields = Map::new();
    for (i, role) in ROLES {
        let name = match (layout, role) {
            // structlog logs the event as `event`, whatever the family.
            (Layout::Structlog, "event") => "event".to_string(),
            _ => format!("{p}{}", r.names[i]),
        };
        fields.insert(role.into(), json!(name));
    }
    let ttl_role = match layout {
        Layout::SlogJsonDuration => "ttl_ns",
        Layout::SerilogTimeSpan => "ttl",
        _ if r.ttl_s => "ttl_s",
        _ => "ttl_ms",
    };
    fields.insert(ttl_role.into(), json!(format!("{p}{}", r.names[3])));
    Value::Object(fields)
}

/// `[events]`: each kind's identifier and phrase.
fn events(r: &Renaming) -> Value {
    let mut events = Map::new();
    for k in Kind::ALL {
        events.insert(r.events[k.index()].into(), json!(k.canonical()));
        events.insert(r.phrases[k.index()].into(), json!(k.canonical()));
    }
    Value::Object(events)
}
