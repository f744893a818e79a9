//! A team's own field and event names, given in a small TOML or JSON file,
//! to override or extend automatic detection.

use std::collections::BTreeMap;
use std::path::Path;
use std::str::FromStr;

use serde::Deserialize;

use crate::model::EventKind;

use crate::ingest::error::IngestError;
use crate::ingest::roles::time::{TzSpec, parse_tz};
use crate::ingest::vocabulary::events::normalize_event;
use crate::ingest::vocabulary::roles::{Role, Unit};

/// Field and event-name overrides. Mapping beats detection.
///
/// TOML example (JSON with the same shape works too):
///
/// ```toml
/// tz = "Asia/Shanghai"          # zone of times without an offset (a --tz option wins)
/// ttl_ms = 2000                 # TTL of files with no TTL field (a --ttl-ms option wins)
///
/// [fields]                      # role = field name (dotted paths for nested JSON)
/// time = "log_time"
/// key = "res"
/// holder = "who"
/// event = "what"
/// ttl_s = "expire_after"        # or ttl / ttl_ms for milliseconds
/// host = "node"
///
/// [events]                      # event name in the log = canonical kind
/// "LOCK_OK" = "acquired"
/// "LOCK_GONE" = "lock_lost"
/// ```
///
/// Roles: `time`, `key`, `holder`, `event`, `ttl` (= `ttl_ms`), `ttl_s`,
/// `host`, `thread`, `product`, `quantity`, `stock`, `stock_before`,
/// `stock_after`, `order_id`, `unit_price`, `fencing_token`, `elapsed_ms`,
/// `deleted`, `outcome` (a step's result: a false one makes an acquire a
/// failed one), `message`. Kinds: the snake_case names of
/// [`EventKind`](crate::model::EventKind) (`acquired`, `acquire_failed`,
/// `renewed`, `released`, `release_failed`, `lock_lost`, `stock_initialized`,
/// `stock_read`, `stock_deducted`, `order_created`, `write_rejected`,
/// `failover`, `activity`). Event names match case-insensitively with `-`,
/// `.`, space and `_` treated alike.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mapping {
    /// Role name -> field name, as written in the file.
    pub fields: BTreeMap<String, String>,
    /// Normalised event name -> kind.
    pub events: BTreeMap<String, EventKind>,
    /// Zone for times without an offset.
    pub tz: Option<TzSpec>,
    /// strftime format of the time field (chrono's syntax, `%3f` for
    /// milliseconds); tried before the built-in formats.
    pub time_format: Option<String>,
    /// The date of times that carry only a time of day (`HH:MM:SS.fff`, as
    /// Logback's and Log4j2's default patterns write them), `YYYY-MM-DD`.
    pub date: Option<String>,
    /// A text line's layout: a regex whose named groups are roles (or any
    /// name) plus `message`, which the built-in message reading or
    /// [`Mapping::messages`] then reads.
    pub line_regex: Option<Pattern>,
    /// Per event kind, a regex over the message whose named groups are
    /// roles (a kind may have several: `kind = ['...', '...']`); the first
    /// that matches gives the line's event.
    pub messages: Vec<(EventKind, Pattern)>,
    /// TTL, ms, of files read with this mapping whose records carry no TTL
    /// field (`ttl_ms = 2000`); a `--ttl-ms` option wins.
    pub ttl_ms: Option<i64>,
}

/// A compiled regex that compares by its pattern, and the longest line it
/// is run on, bytes ([`longest_line`]).
#[derive(Clone, Debug)]
pub struct Pattern(pub regex::Regex, pub usize);

/// What one line's match with captures may cost: the regex's compiled size
/// times the line's bytes (2^32). The regex crate's engine for captures on
/// a long line takes time in proportion to both (a regex near the size
/// limit took seconds on a 60 KB line; a small one 79 s on 8 MB lines).
const LINE_BUDGET: usize = 1 << 32;

/// The longest line `pattern` is run on: [`LINE_BUDGET`] over its compiled
/// size, known within a factor of 4 by building it under smaller size
/// limits (at most 256 KiB of line, at least 4 KiB).
fn longest_line(pattern: &str) -> usize {
    for size in [16usize << 10, 64 << 10, 256 << 10] {
        if regex::RegexBuilder::new(pattern)
            .size_limit(size)
            .build()
            .is_ok()
        {
            return (LINE_BUDGET / size).min(256 << 10);
        }
    }
    LINE_BUDGET / (1 << 20)
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.0.as_str() == other.0.as_str()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMapping {
    #[serde(default)]
    fields: BTreeMap<String, String>,
    #[serde(default)]
    events: BTreeMap<String, String>,
    tz: Option<String>,
    time_format: Option<String>,
    date: Option<String>,
    line_regex: Option<String>,
    #[serde(default)]
    messages: toml::Table,
    ttl_ms: Option<i64>,
}

/// Largest TTL a setting may give, ms (exclusive): 9·10^15 ms (285 000
/// years), where a TTL read from a record is already "no TTL"
/// (docs/ingest.md); beyond it a lease's end would leave the ns range.
pub const MAX_TTL_MS: i64 = 9_000_000_000_000_000;

/// The largest mapping file read, in bytes (1 MiB: the biggest mapping we
/// know of is a few KiB).
pub const MAX_MAPPING_BYTES: u64 = 1 << 20;

impl Mapping {
    /// Reads a mapping file (at most [`MAX_MAPPING_BYTES`]) (TOML, or JSON when the text starts with `{`).
    ///
    /// # Errors
    /// [`IngestError::Io`] when the file cannot be read,
    /// [`IngestError::BadMapping`] naming the file when it is invalid, not
    /// UTF-8, or larger than [`MAX_MAPPING_BYTES`].
    pub fn from_path(path: &Path) -> Result<Mapping, IngestError> {
        use std::io::Read;
        let io = |error| IngestError::Io {
            path: path.to_path_buf(),
            error,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        // A mapping is a few lines; a bigger file is a wrong path, not one
        // to hand the TOML parser (a 1 GB file asks it for 7.4 GB).
        let mut raw = Vec::new();
        file.take(MAX_MAPPING_BYTES + 1)
            .read_to_end(&mut raw)
            .map_err(io)?;
        if raw.len() as u64 > MAX_MAPPING_BYTES {
            return Err(IngestError::BadMapping {
                source_name: path.display().to_string(),
                reason: format!(
                    "the file is larger than {} KiB: a mapping is a few lines of TOML or JSON (is this the right file?)",
                    MAX_MAPPING_BYTES / 1024
                ),
            });
        }
        let text = String::from_utf8(raw).map_err(|e| IngestError::BadMapping {
            source_name: path.display().to_string(),
            reason: format!("not UTF-8 text ({e})"),
        })?;
        text.parse::<Mapping>().map_err(|e| match e {
            IngestError::BadMapping { reason, .. } => IngestError::BadMapping {
                source_name: path.display().to_string(),
                reason,
            },
            other => other,
        })
    }

    /// (role, unit, field) for every field override.
    pub(crate) fn field_roles(&self) -> Vec<(Role, Unit, &str)> {
        self.fields
            .iter()
            .filter_map(|(r, f)| Role::from_mapping_name(r).map(|(role, u)| (role, u, f.as_str())))
            .collect()
    }
}

/// Every role name a mapping's `[fields]` accepts, in [`Role::ALL`]'s
/// order, with the TTL's units after `ttl` (`ttl_ms`, `ttl_s`, `ttl_ns`).
pub fn role_names() -> Vec<&'static str> {
    let mut names = Vec::with_capacity(Role::ALL.len() + 3);
    for role in Role::ALL {
        names.push(role.name());
        if role == Role::Ttl {
            names.extend(["ttl_ms", "ttl_s", "ttl_ns"]);
        }
    }
    names
}

/// `kinds: acquired, acquire_failed, ...`: every event kind a mapping may
/// name, for an error about one it does not know.
fn kinds_list() -> String {
    let names: Vec<&str> = EventKind::ALL.iter().map(|k| k.as_str()).collect();
    format!("kinds: {}", names.join(", "))
}

/// Refuses a `[fields]` role no mapping knows, and one field given two
/// roles: one column for two roles (`key = "id"` and `holder = "id"`)
/// would make every lock its own holder. `ttl`, `ttl_ms` and `ttl_s` are
/// one role in three units.
fn check_fields(fields: &BTreeMap<String, String>) -> Result<(), String> {
    for role in fields.keys() {
        if Role::from_mapping_name(role).is_none() {
            return Err(format!(
                "unknown role `{role}` in [fields] (roles: {})",
                role_names().join(", ")
            ));
        }
    }
    let mut by_field: BTreeMap<&str, &str> = BTreeMap::new();
    for (role, field) in fields {
        if let Some(other) = by_field.insert(field.as_str(), role.as_str())
            && Role::from_mapping_name(other).map(|(r, _)| r)
                != Role::from_mapping_name(role).map(|(r, _)| r)
        {
            return Err(format!(
                "[fields] gives the field `{field}` to two roles, `{other}` and `{role}`"
            ));
        }
    }
    Ok(())
}

/// The regexes a `[messages]` entry gives `kind`: one string, or a list
/// of strings.
fn message_patterns<'a>(kind: &str, value: &'a toml::Value) -> Result<Vec<&'a str>, String> {
    let patterns: Vec<&str> = match value {
        toml::Value::String(p) => vec![p.as_str()],
        toml::Value::Array(a) => a.iter().filter_map(toml::Value::as_str).collect(),
        _ => Vec::new(),
    };
    let all = match value {
        toml::Value::Array(a) => a.len() == patterns.len(),
        _ => true,
    };
    if patterns.is_empty() || !all {
        return Err(format!(
            "[messages] {kind} must be a regex string or a list of them"
        ));
    }
    Ok(patterns)
}

impl FromStr for Mapping {
    type Err = IngestError;

    /// Parses TOML, or JSON when the text starts with `{`.
    fn from_str(text: &str) -> Result<Mapping, IngestError> {
        let bad = |reason: String| IngestError::BadMapping {
            source_name: "mapping".into(),
            reason,
        };
        let raw: RawMapping = if text.trim_start().starts_with('{') {
            serde_json::from_str(text).map_err(|e| bad(e.to_string()))?
        } else {
            toml::from_str(text).map_err(|e| bad(e.to_string()))?
        };
        check_fields(&raw.fields).map_err(bad)?;
        let mut events = BTreeMap::new();
        let mut norm = String::new();
        for (name, kind) in &raw.events {
            let k = EventKind::from_canonical(kind).ok_or_else(|| {
                bad(format!(
                    "unknown event kind `{kind}` for `{name}` ({})",
                    kinds_list()
                ))
            })?;
            normalize_event(name, &mut norm);
            events.insert(norm.clone(), k);
        }
        let tz = match raw.tz {
            Some(t) => Some(parse_tz(&t).map_err(|e| bad(e.to_string()))?),
            None => None,
        };
        let rx = |what: &str, p: &str| {
            regex::RegexBuilder::new(p)
                .size_limit(1 << 20)
                .build()
                .map(|r| Pattern(r, longest_line(p)))
                .map_err(|e| bad(format!("bad regex for {what}: {e}")))
        };
        let line_regex = match &raw.line_regex {
            Some(p) => Some(rx("line_regex", p)?),
            None => None,
        };
        let mut messages = Vec::new();
        for (kind, p) in &raw.messages {
            let k = EventKind::from_canonical(kind).ok_or_else(|| {
                bad(format!(
                    "unknown event kind `{kind}` in [messages] ({})",
                    kinds_list()
                ))
            })?;
            for p in message_patterns(kind, p).map_err(bad)? {
                messages.push((k, rx(kind, p)?));
            }
        }
        if let Some(d) = &raw.date
            && chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").is_err()
        {
            return Err(bad(format!("date {d:?} is not YYYY-MM-DD")));
        }
        if let Some(f) = &raw.time_format {
            use chrono::format::{Item, StrftimeItems};
            if StrftimeItems::new(f).any(|i| matches!(i, Item::Error)) {
                return Err(bad(format!(
                    "time_format {f:?} is not a valid strftime format"
                )));
            }
        }
        if let Some(ms) = raw.ttl_ms
            && !(1..MAX_TTL_MS).contains(&ms)
        {
            return Err(bad(format!(
                "ttl_ms must be a positive number of ms below {}, got {ms}",
                MAX_TTL_MS
            )));
        }
        Ok(Mapping {
            fields: raw.fields,
            events,
            tz,
            time_format: raw.time_format,
            date: raw.date,
            line_regex,
            messages,
            ttl_ms: raw.ttl_ms,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_and_json_mappings() {
        let m: Mapping = r#"
tz = "+08:00"
ttl_ms = 2000
[fields]
time = "log_time"
holder = "who"
ttl_s = "exp"
[events]
"LOCK_OK" = "acquired"
"#
        .parse()
        .expect("toml");
        assert_eq!(m.fields.get("holder").map(String::as_str), Some("who"));
        assert_eq!(m.events.get("lock_ok").copied(), Some(EventKind::Acquired));
        assert!(m.tz.is_some());
        assert_eq!(m.ttl_ms, Some(2000));
        assert!(m.field_roles().contains(&(Role::Ttl, Unit::S, "exp")));
        let j: Mapping = r#"{"fields":{"key":"res"},"events":{"Lock-Gone":"lock_lost"}}"#
            .parse()
            .expect("json");
        assert_eq!(
            j.events.get("lock_gone").copied(),
            Some(EventKind::LockLost)
        );
    }

    fn reason(text: &str) -> String {
        match text.parse::<Mapping>() {
            Err(IngestError::BadMapping { reason, .. }) => reason,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn an_unknown_kind_is_named_with_every_kind() {
        let why = reason("[events]\nx = \"sold\"");
        assert!(
            why.starts_with("unknown event kind `sold` for `x` (kinds: acquired, acquire_failed,"),
            "{why}"
        );
        for kind in EventKind::ALL {
            assert!(why.contains(kind.as_str()), "{why}");
        }
        let m: Mapping =
            "[messages]\nreleased = ['^unlock (?P<key>\\S+)$', '^free (?P<key>\\S+)$']"
                .parse()
                .expect("a list of regexes");
        assert_eq!(m.messages.len(), 2);
        assert!(reason("[messages]\nreleased = [1]").contains("a list of them"));
        let why = reason("[messages]\nsold = \"x\"");
        assert!(why.contains("in [messages] (kinds: acquired,"), "{why}");
        assert!(why.contains("order_created"), "{why}");
    }

    #[test]
    fn an_unknown_role_is_named_with_every_role() {
        let why = reason("[fields]\nwho = \"x\"");
        assert!(
            why.starts_with("unknown role `who` in [fields] (roles: time, key, holder, event, ttl, ttl_ms, ttl_s, ttl_ns, host,"),
            "{why}"
        );
        assert!(why.ends_with("deleted, outcome, message)"), "{why}");
        for name in role_names() {
            assert!(Role::from_mapping_name(name).is_some(), "{name}");
        }
    }

    #[test]
    fn bad_mappings_are_errors() {
        for text in [
            "[fields]\nwho = \"x\"",
            "[events]\nX = \"grabbed\"",
            "tz = \"Mars/Olympus\"",
            "ttl_ms = 0",
            "ttl_ms = -5",
            "ttl_ms = 9223372036854775807",
            "ttl_ms = \"2s\"",
            "[fields]\nkey = \"id\"\nholder = \"id\"",
            "nonsense = 1",
            "{not json",
        ] {
            assert!(
                matches!(text.parse::<Mapping>(), Err(IngestError::BadMapping { .. })),
                "{text}"
            );
        }
    }
}
