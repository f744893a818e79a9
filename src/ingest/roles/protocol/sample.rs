//! The first records of a file kept as text columns while the role
//! detection counts them, then turned into the [`Table`] the protocol reads:
//! each row timed by the time field the detection chose, its severity from
//! the record's level, and each column's name as a [`NameHint`].

use std::collections::HashMap;

use super::fit::NameHint;
use super::table::{Row, Severity, Table};
use crate::ingest::records::record::Record;
use crate::ingest::roles::time::{TzSpec, parse_time, parse_with_format};
use crate::ingest::vocabulary::names::roles_of;
use crate::ingest::vocabulary::roles::Role;

/// Records kept: enough for a few dozen holds on a busy key.
pub const ROWS: usize = 2000;

/// Longest value kept, bytes (a longer one is cut at a character).
const VALUE_BYTES: usize = 512;

/// The first [`ROWS`] records of a file, as text columns.
#[derive(Clone, Debug, Default)]
pub(crate) struct Sample {
    names: Vec<String>,
    /// Per column: seen only in an envelope's part of a record (a log
    /// service's own fields), never in the application's.
    outer: Vec<bool>,
    index: HashMap<String, u32>,
    rows: Vec<Vec<(u32, String)>>,
}

impl Sample {
    /// Keeps `rec`'s fields, until [`ROWS`] records are kept.
    pub fn add(&mut self, rec: &Record<'_>) {
        if self.rows.len() >= ROWS {
            return;
        }
        let mut cells: Vec<(u32, String)> = Vec::new();
        let Sample {
            names,
            index,
            outer,
            ..
        } = self;
        rec.visit_scoped(&mut |k, v, is_outer| {
            let text = v.text();
            let t = text.trim();
            if t.is_empty() {
                return;
            }
            let c = *index.entry(k.to_string()).or_insert_with(|| {
                names.push(k.to_string());
                outer.push(true);
                (names.len() - 1) as u32
            });
            outer[c as usize] &= is_outer;
            let mut end = t.len().min(VALUE_BYTES);
            while !t.is_char_boundary(end) {
                end -= 1;
            }
            cells.push((c, t[..end].to_string()));
        });
        cells.sort_by_key(|(c, _)| *c);
        cells.dedup_by_key(|(c, _)| *c);
        self.rows.push(cells);
    }

    /// Per kept record that has fields `key` and `holder`, its value of
    /// field `event` (`None` when it has none); empty when a field is
    /// never seen.
    fn lock_events<'a>(
        &'a self,
        event: &str,
        (key, holder): (&str, &str),
    ) -> impl Iterator<Item = Option<&'a str>> + 'a {
        let col = |n: &str| self.index.get(n).copied();
        let cols = match (col(event), col(key), col(holder)) {
            (Some(e), Some(k), Some(h)) => Some((e, k, h)),
            _ => None,
        };
        fn get(cells: &[(u32, String)], c: u32) -> Option<&str> {
            cells.iter().find(|(x, _)| *x == c).map(|(_, v)| v.as_str())
        }
        cols.into_iter().flat_map(move |(e, k, h)| {
            self.rows
                .iter()
                .filter(move |r| get(r, k).is_some() && get(r, h).is_some())
                .map(move |r| get(r, e))
        })
    }

    /// Of the kept records that have fields `key` and `holder`, how many
    /// have field `event` too: `(with event, with key and holder)`.
    pub fn coverage(&self, event: &str, lock: (&str, &str)) -> (u32, u32) {
        let (mut with, mut all) = (0u32, 0u32);
        for v in self.lock_events(event, lock) {
            all += 1;
            with += u32::from(v.is_some());
        }
        (with, all)
    }

    /// The distinct values of field `event` on the kept records that have
    /// fields `key` and `holder` too, in first-seen order.
    pub fn lock_values(&self, event: &str, lock: (&str, &str)) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for v in self.lock_events(event, lock).flatten() {
            if !out.contains(&v) {
                out.push(v);
            }
        }
        out
    }

    /// Records kept.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// The table of the kept records, in time order by `time_field` (a
    /// record without a readable time keeps the time of the one before it;
    /// ties keep the file's order), with each row's severity from the
    /// level column when there is one. A time is read in `tz`, with the
    /// mapping's `time_format` first when there is one (as the collector
    /// reads it), else by the built-in formats.
    pub fn table(
        &self,
        time_field: Option<&str>,
        (tz, format): (Option<&TzSpec>, Option<&str>),
    ) -> Table {
        let time = time_field.and_then(|f| self.index.get(f).copied());
        let level = self.level_column();
        let mut last = 0i64;
        let mut rows: Vec<Row> = self
            .rows
            .iter()
            .map(|cells| {
                let get = |c: Option<u32>| {
                    c.and_then(|c| cells.iter().find(|(k, _)| *k == c))
                        .map(|(_, v)| v.as_str())
                };
                if let Some(ns) = get(time).and_then(|v| read_time(v, tz, format)) {
                    last = ns;
                }
                Row {
                    t_ns: last,
                    severity: get(level).map_or(Severity::Unknown, Severity::of_level),
                    cells: cells.clone(),
                }
            })
            .collect();
        rows.sort_by_key(|r| r.t_ns);
        Table {
            names: self.names.clone(),
            rows,
        }
    }

    /// The column of the records' level: one named as a level
    /// ([`LEVEL_NAMES`]) whose values mostly read as one, else one whose
    /// values are nearly all level words.
    fn level_column(&self) -> Option<u32> {
        let share = |c: u32| {
            let (mut n, mut known) = (0u32, 0u32);
            for cells in &self.rows {
                if let Some((_, v)) = cells.iter().find(|(k, _)| *k == c) {
                    n += 1;
                    known += u32::from(Severity::of_level(v) != Severity::Unknown);
                }
            }
            (n, known)
        };
        let named = (0..self.names.len() as u32).find(|&c| {
            let (n, known) = share(c);
            level_name(&self.names[c as usize]) && n > 0 && known * 2 >= n
        });
        named.or_else(|| {
            (0..self.names.len() as u32).find(|&c| {
                let (n, known) = share(c);
                let words = self.rows.iter().filter_map(|cells| {
                    cells.iter().find(|(k, _)| *k == c).map(|(_, v)| v.as_str())
                });
                let numbers = words.clone().any(|v| v.parse::<f64>().is_ok());
                n >= 2 && known * 10 >= n * 9 && !numbers
            })
        })
    }

    /// What each column's name says ([`NameHint`]); a field whose values
    /// are IP addresses is the shipper's or the runtime's.
    pub fn hints(&self) -> Vec<NameHint> {
        // A level-named column is the runtime's by its name, so never a `c`
        // compared with it below.
        let level = (0..self.names.len() as u32).find(|&l| level_name(&self.names[l as usize]));
        (0..self.names.len() as u32)
            .map(|c| match hint_of(&self.names[c as usize]) {
                NameHint::Unknown
                    if self.addresses(c) || level.is_some_and(|l| self.follows(c, l)) =>
                {
                    NameHint::Runtime
                }
                h => h,
            })
            .collect()
    }

    /// Whether column `c` is the record's level `level` (a field named as
    /// one) written another way: the level has at least two values, and
    /// `c` has one value per level value and one level value per value of
    /// `c` on the rows with both (OpenTelemetry's `severityNumber` beside
    /// `severityText`, logstash-logback-encoder's `level_value` beside
    /// `level`). Such a column splits the rows by level, which can pass
    /// for holders taking turns.
    fn follows(&self, c: u32, level: u32) -> bool {
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        for cells in &self.rows {
            let get = |k: u32| cells.iter().find(|(x, _)| *x == k).map(|(_, v)| v.as_str());
            if let (Some(v), Some(l)) = (get(c), get(level))
                && !pairs.contains(&(v, l))
            {
                pairs.push((v, l));
            }
        }
        let one_to_one = pairs
            .iter()
            .all(|(v, l)| pairs.iter().all(|(v2, l2)| (v == v2) == (l == l2)));
        pairs.len() >= 2 && one_to_one
    }

    /// Whether most values of column `c` are IPv4 addresses (a shipper's
    /// source, a pod's IP).
    fn addresses(&self, c: u32) -> bool {
        let (mut n, mut ip) = (0u32, 0u32);
        for cells in &self.rows {
            if let Some((_, v)) = cells.iter().find(|(k, _)| *k == c) {
                n += 1;
                ip += u32::from(v.parse::<std::net::Ipv4Addr>().is_ok());
            }
        }
        n > 0 && ip * 2 > n
    }
}

/// Names of a record's level field in the runtimes and shippers we know
/// (the runtime's own fields, not the application's).
const LEVEL_NAMES: &[&str] = &[
    "level",
    "levelname",
    "level_name",
    "lvl",
    "severity",
    "loglevel",
    "log_level",
    "@l",
    "@level",
    "severity_text",
    "severitytext",
    "priority",
];

fn last_segment(name: &str) -> String {
    name.rsplit(['.', ':'])
        .next()
        .unwrap_or(name)
        .to_ascii_lowercase()
}

fn level_name(name: &str) -> bool {
    LEVEL_NAMES.contains(&last_segment(name).as_str())
}

/// The runtime's and the log shippers' own fields (process, logger,
/// caller, host, pod, file, index...): on every line whatever the lock
/// does. Compared on a name's last segment, lower-case.
const RUNTIME_NAMES: &[&str] = &[
    "pid",
    "tid",
    "logger",
    "logger_name",
    "loggername",
    "name",
    "v",
    "@version",
    "version",
    "caller",
    "source",
    "sourcecontext",
    "service",
    "app",
    "application",
    "env",
    "stream",
    "channel",
    "category",
    "module",
    "file",
    "line",
    "func",
    "function",
    "class",
    "ecs",
    "trace_id",
    "span_id",
    "traceid",
    "spanid",
    "@i",
    "eventid",
    "_id",
    "_index",
    "host",
    "hostname",
    "__hostname__",
    "__source__",
    "__filename__",
    "__topic__",
    "__path__",
    "ip",
    "pod",
    "pod_name",
    "podname",
    "container",
    "container_name",
    "namespace",
    "namespace_name",
    "node",
    "node_name",
    "instance",
    "job",
    "path",
    "filename",
    "sourcetype",
    "_stream",
    "agent",
    "ddsource",
    "ddtags",
    "logstream",
    "log_stream",
    "loggroup",
    "log_group",
    "cluster",
    "region",
    "zone",
    "image",
    "labels",
    "tag",
    "tags",
    "type",
    "index",
    "_cd",
    "_serial",
    "_indextime",
    "linecount",
    "splunk_server",
    "offset",
    "@ptr",
    "@logstream",
    "@log",
    "seq",
    "sequence",
    "insertid",
    "insert_id",
    "logname",
    "receivetimestamp",
    "partition",
    "_bkt",
    "_si",
    "_sourcetype",
    "punct",
    "eventtype",
];

/// What `name` says of its role, from the vocabulary: a lock key's, a
/// holder's, an event's or message's, or the runtime's own field.
fn hint_of(name: &str) -> NameHint {
    let last = last_segment(name);
    // `_PID`, `__CURSOR`, `_indextime`: the journal's trusted fields and the
    // stores' own start with `_`.
    if level_name(name) || RUNTIME_NAMES.contains(&last.as_str()) || last.starts_with('_') {
        return NameHint::Runtime;
    }
    let roles = roles_of(name);
    let best = roles
        .iter()
        .min_by_key(|(_, rank, _)| *rank)
        .map(|(r, _, _)| *r);
    match best {
        Some(Role::Key) => NameHint::Key,
        Some(Role::Holder) => NameHint::Holder,
        Some(Role::Event | Role::Message) => NameHint::Event,
        Some(Role::Host | Role::Thread | Role::Time) => NameHint::Runtime,
        _ => NameHint::Unknown,
    }
}

/// `v` read as a time, ns: by `format` when it reads it, else by the
/// built-in formats ([`dated`] first).
fn read_time(v: &str, tz: Option<&TzSpec>, format: Option<&str>) -> Option<i64> {
    if let Some(f) = format
        && let Ok((ns, _)) = parse_with_format(v, f, tz)
    {
        return Some(ns);
    }
    parse_time(&dated(v), tz).ok().map(|(ns, _)| ns)
}

/// A time without its date or year (a found structure's `--MM-dd
/// HH:mm:ss` and `THH:mm:ss`, a text layout's bare `HH:mm:ss.SSS`) given a
/// fixed one, so that the sample's rows order by it (the file's own date
/// is supplied later, when records become events); any other text as it
/// is.
fn dated(v: &str) -> std::borrow::Cow<'_, str> {
    let t = v.trim();
    let bare = crate::ingest::roles::time::is_clock(t);
    if let Some(rest) = t.strip_prefix("--") {
        std::borrow::Cow::Owned(format!("2000-{rest}"))
    } else if t.starts_with('T') && t.contains(':') {
        std::borrow::Cow::Owned(format!("2000-01-01{t}"))
    } else if bare {
        std::borrow::Cow::Owned(format!("2000-01-01T{t}"))
    } else {
        std::borrow::Cow::Borrowed(v)
    }
}

#[cfg(test)]
mod tests {
    use super::{NameHint, Sample};
    use crate::ingest::records::record::Record;
    use serde_json::{Map, Value};

    fn sample(lines: &[&str]) -> Sample {
        let mut s = Sample::default();
        for l in lines {
            let v: Map<String, Value> = serde_json::from_str(l).expect("json");
            s.add(&Record::Json {
                main: &v,
                extra: None,
            });
        }
        s
    }

    fn hint(s: &Sample, name: &str) -> NameHint {
        let c = s.names.iter().position(|n| n == name).expect("column");
        s.hints()[c]
    }

    #[test]
    fn a_number_that_follows_the_level_is_the_runtimes() {
        // logstash-logback-encoder writes `level` and `level_value`; the
        // holders (`h`) take turns at the same levels, so they follow none.
        let s = sample(&[
            r#"{"level":"INFO","level_value":20000,"h":"a"}"#,
            r#"{"level":"WARN","level_value":30000,"h":"b"}"#,
            r#"{"level":"INFO","level_value":20000,"h":"b"}"#,
            r#"{"level":"INFO","level_value":20000,"h":"a"}"#,
        ]);
        assert_eq!(hint(&s, "level_value"), NameHint::Runtime);
        assert_eq!(hint(&s, "h"), NameHint::Unknown);
        // One level seen: nothing to follow.
        let s = sample(&[
            r#"{"level":"INFO","n":1,"h":"a"}"#,
            r#"{"level":"INFO","n":2,"h":"b"}"#,
        ]);
        assert_eq!(hint(&s, "n"), NameHint::Unknown);
    }

    /// A time the mapping's `time_format` reads (a day-first date before
    /// the time of day) orders the rows, as it orders the events: read by
    /// the built-in formats alone it would not read, and every row would
    /// keep the first one's time.
    #[test]
    fn rows_are_timed_by_the_mappings_time_format() {
        let s = sample(&[
            r#"{"t":"07.12.2026 11:00:03.500","h":"b"}"#,
            r#"{"t":"07.12.2026 11:00:00.100","h":"a"}"#,
        ]);
        let times = |format: Option<&str>| -> Vec<i64> {
            let table = s.table(Some("t"), (None, format));
            table.rows.iter().map(|r| r.t_ns).collect()
        };
        assert_eq!(times(None), [0, 0], "the built-in formats do not read it");
        let t = times(Some("%d.%m.%Y %H:%M:%S%.3f"));
        assert_eq!(t[1] - t[0], 3_400_000_000, "{t:?}");
        assert!(t[0] > 0);
    }
}
