//! The renaming generator's sanity check: a mapping file that names a
//! variant's fields and event words (`lockreplay::ingest::Mapping`:
//! `[fields]`, `[events]`, and for a text layout no reader knows its
//! `line_regex`, `date` and `[messages]`), with which the same file must give
//! the plain answer. It proves the file is fine and the words were all the
//! reader lacked. Where a mapping cannot describe a variant,
//! [`Plan::Inexpressible`] says why and the check is skipped.

use serde_json::{Map, Value, json};

use crate::layouts::Layout;
use crate::model::{Kind, Renaming};

/// What the sanity check does for one variant.
pub enum Plan {
    /// Read the variant with this mapping (JSON, the shape of a TOML one).
    /// `limit`: a limit of today's reader that makes the mapping fail
    /// although it names the fields right (reported, not a failure).
    Mapping {
        json: String,
        limit: Option<&'static str>,
    },
    /// A mapping cannot describe the variant: why.
    Inexpressible(&'static str),
}

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

/// The sanity plan of a variant written by `layout` with `r`'s words.
pub fn plan(layout: Layout, r: &Renaming) -> Plan {
    let mut m = Map::new();
    let line_regex = match layout {
        Layout::MelConsole | Layout::ErlangReport => {
            return Plan::Inexpressible(
                "a record over several lines (a mapping's line_regex reads one line)",
            );
        }
        // The message's `key: value` pairs are no syntax the reader splits:
        // a regex per event kind names them.
        Layout::Logcat => {
            m.insert("messages".into(), logcat_messages(r));
            r"^\d{2}-\d{2} (?P<time>[\d:.]+) +\d+ +(?P<thread>\d+) (?P<level>[A-Z]) (?P<logger>[^:]*?) *: (?P<message>.*)$"
        }
        Layout::Geth => r"^(?P<level>[A-Z]+) ?\[\d{2}-\d{2}\|(?P<time>[\d:.]+)\] (?P<message>.*)$",
        Layout::Glog => {
            r"^(?P<level>[IWEF])\d{4} (?P<time>[\d:.]+) +\d+ (?P<logger>[^\]]+)\] (?P<message>.*)$"
        }
        Layout::LogbackLoggerFirst => {
            r"^(?P<logger>\S+) (?P<time>\d{4}-\d{2}-\d{2} [\d:.]+) (?P<level>[A-Z]+) +\[(?P<thread>[^\]]*)\] - (?P<message>.*)$"
        }
        _ => "",
    };
    if !line_regex.is_empty() {
        m.insert("line_regex".into(), json!(line_regex));
    }
    if matches!(
        layout,
        Layout::Logcat | Layout::Geth | Layout::Glog | Layout::Log4j2Default
    ) {
        m.insert("date".into(), json!(DATE));
    }
    if layout != Layout::Logcat {
        m.insert("fields".into(), fields(layout, r));
        m.insert("events".into(), events(r));
    }
    Plan::Mapping {
        json: Value::Object(m).to_string(),
        limit: None,
    }
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

/// `[messages]` for logcat's `phrase, name: value, ...`: per kind, its
/// phrase, then each field optional in the order the layout writes them,
/// the roles as named groups.
fn logcat_messages(r: &Renaming) -> Value {
    let ttl_group = if r.ttl_s { "ttl_s" } else { "ttl_ms" };
    let mut order: Vec<(usize, &str)> = ROLES.to_vec();
    order.insert(3, (3, ttl_group));
    let mut out = Map::new();
    for k in Kind::ALL {
        let mut rx = format!("^{}", regex::escape(r.phrases[k.index()]));
        for &(i, role) in &order {
            let name = regex::escape(r.names[i]);
            if role == "event" {
                rx.push_str(&format!("(?:, {name}: [^,]*)?"));
            } else {
                rx.push_str(&format!("(?:, {name}: (?P<{role}>[^,]*))?"));
            }
        }
        rx.push('$');
        out.insert(k.canonical().into(), json!(rx));
    }
    Value::Object(out)
}
