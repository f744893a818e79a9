//! lockreplay's rules (docs/semantics.md §1–§6) as SQL for ClickHouse and
//! DuckDB, the lock events of a load as a table for them, and the alert
//! rules of a log store (`lockreplay sql`, docs/sql.md, docs/alerts.md).
//!
//! Two programs of the same rules: for DuckDB one text (`rules.sql`) of
//! window functions per key and per hold and equi-joins; for ClickHouse a
//! per-key program of array functions (`perkey.rs`), which shards by key
//! and runs on every ClickHouse release from 18.16 on. No UDF.

pub mod alerts;
mod arrays;
pub mod client;
pub mod command;
pub mod export;
pub mod fetch;
pub mod listing;
mod perkey;
pub mod quote;
mod search_alerts;

use std::fmt::Write as _;

use crate::ingest::Mapping;
use crate::model::EventKind;

/// The SQL engine a query is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Dialect {
    /// ClickHouse (and chDB), 18.16 or later.
    Clickhouse,
    /// DuckDB 1.x.
    Duckdb,
}

/// How the time column is stored in the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TimeUnit {
    /// Integer nanoseconds since the Unix epoch (the export's `ts_ns`).
    Ns,
    /// Integer microseconds since the Unix epoch.
    Us,
    /// Integer milliseconds since the Unix epoch.
    Ms,
    /// Integer or fractional seconds since the Unix epoch.
    S,
    /// A date-time column (ClickHouse `DateTime64`, DuckDB `TIMESTAMP`), UTC.
    Datetime,
}

/// What the query returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Select {
    /// Overlap pairs, near-misses and near-miss streaks, one row each:
    /// `row_kind, key, holder, other, at_ns, duration_ms, detail`.
    All,
    /// The overlap pairs only (same columns).
    Overlaps,
    /// One row a hold: `key, holder, acquired_ns, window_end_ns, ttl_ms,
    /// lock_end, lock_end_ns, last_grant_ns`.
    Holds,
    /// Per key, its overlap pairs and the window they span:
    /// `key, pairs, first_ns, last_ns, cause` (what `fetch` lists).
    Keys,
    /// One row per key and alert kind (`overlap`, `near_miss_streak`):
    /// `row_kind, key, n, first_ns` (what `--alert` runs).
    Alerts,
}

/// Everything the query needs: the table, its columns and the rules'
/// settings.
#[derive(Clone, Debug)]
pub struct QuerySpec {
    /// The engine.
    pub dialect: Dialect,
    /// The table (or any table expression: `file('x.jsonl')`, a view).
    pub table: String,
    /// Role -> column of the table, as field names (quoted by the dialect's
    /// rules when the query is written); the export's names by default.
    pub columns: Columns,
    /// Event name in the table -> kind, as a mapping file's `[events]`
    /// (names normalised as the reader does: lower case, `-`, `.`, space
    /// and `/` as `_`). The canonical names always count.
    pub events: Vec<(String, EventKind)>,
    /// How the time column is stored.
    pub time_unit: TimeUnit,
    /// TTL, ms, of rows without a TTL column (a mapping's `ttl_ms`); none:
    /// the TTL is unknown (§3).
    pub default_ttl_ms: Option<i64>,
    /// Log-lag tolerance, ms (§4; default 5).
    pub log_lag_ms: f64,
    /// Near-miss ratio of the TTL (§6; default 0.8).
    pub near_miss_ratio: f64,
    /// Near-misses in a row for the streak (§6; default 3).
    pub near_miss_streak: u32,
    /// What to return.
    pub select: Select,
    /// An extra SQL condition on the table's rows (a time range, a service).
    pub filter: Option<String>,
    /// A time slice: only its results, computed from its rows and the
    /// carry around it.
    pub slice: Option<Slice>,
    /// ClickHouse before 20.1: a `DateTime` time column holds whole
    /// seconds and there is no `DateTime64` (`fetch` sets it from the
    /// server's version).
    pub datetime_seconds: bool,
}

/// A time slice of a run (a day of a month): results whose instant falls
/// in `[lo_ns, hi_ns)` (an overlap's start, a hold's acquire), from the rows
/// in `[lo_ns - carry_ns, hi_ns + carry_ns)`. Exact when no believed window
/// and no lease (renewals included) reaches across more than the carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice {
    /// Start, ns since the epoch (inclusive).
    pub lo_ns: i64,
    /// End, ns since the epoch (exclusive).
    pub hi_ns: i64,
    /// Rows read before and after the slice, ns.
    pub carry_ns: i64,
}

/// The table's column for each role, as a field name (a dotted path for
/// nested JSON); `None` where the table has no such column. The names are
/// data: [`generate`] quotes each by the dialect's rules.
#[derive(Clone, Debug, PartialEq)]
pub struct Columns {
    /// Event time.
    pub time: String,
    /// Lock key.
    pub key: String,
    /// Holder (token).
    pub holder: String,
    /// Event name.
    pub event: String,
    /// Order of rows with equal times (the export's `seq`); without one,
    /// ties are ordered by holder, then acquire, renewal, other lines and
    /// closing lines (docs/sql.md).
    pub seq: Option<String>,
    /// TTL column and its unit: ms (`ttl`, `ttl_ms`) or s (`ttl_s`).
    pub ttl: Option<(String, bool)>,
    /// 1 where the row's TTL is unknown (the export's `ttl_unknown`).
    pub ttl_unknown: Option<String>,
    /// How long a release took, ms (§2).
    pub elapsed_ms: Option<String>,
    /// Whether a release deleted the key: true/false/1/0, NULL unknown.
    pub deleted: Option<String>,
}

impl Default for Columns {
    /// The columns of `lockreplay sql --export-events`.
    fn default() -> Columns {
        Columns {
            time: "ts_ns".into(),
            key: "key".into(),
            holder: "holder".into(),
            event: "event".into(),
            seq: Some("seq".into()),
            ttl: Some(("ttl_ms".into(), true)),
            ttl_unknown: Some("ttl_unknown".into()),
            elapsed_ms: Some("elapsed_ms".into()),
            deleted: Some("deleted".into()),
        }
    }
}

/// Why no query could be made.
#[derive(Debug, thiserror::Error)]
pub enum SqlError {
    /// A mapping file names no column for a role the rules need.
    #[error("the mapping names no `{0}` field; the query needs time, key, holder and event")]
    MissingRole(&'static str),
    /// A table or filter (the user's own SQL) that is not one expression.
    #[error(
        "{what} {value:?} holds a character the query cannot carry safely (`;`, a comment or a line break)"
    )]
    Unsafe {
        /// Which input.
        what: &'static str,
        /// Its value.
        value: String,
    },
    /// A name the target language cannot carry ([`quote`]).
    #[error(transparent)]
    Quote(#[from] quote::QuoteError),
}

impl Columns {
    /// The columns a mapping file names (`[fields]`); a role it does not
    /// name has no column (time, key, holder and event are required).
    ///
    /// # Errors
    /// [`SqlError::MissingRole`].
    pub fn from_mapping(m: &Mapping) -> Result<Columns, SqlError> {
        let get = |r: &str| m.fields.get(r).cloned();
        let need = |r: &'static str| get(r).ok_or(SqlError::MissingRole(r));
        let ttl = get("ttl_ms")
            .or_else(|| get("ttl"))
            .map(|c| (c, true))
            .or_else(|| get("ttl_s").map(|c| (c, false)));
        Ok(Columns {
            time: need("time")?,
            key: need("key")?,
            holder: need("holder")?,
            event: need("event")?,
            seq: get("seq"),
            ttl,
            ttl_unknown: None,
            elapsed_ms: get("elapsed_ms"),
            deleted: get("deleted"),
        })
    }
}

impl QuerySpec {
    /// A spec for `table` with the export's columns and the default
    /// settings (§4 log lag 5 ms, §6 ratio 0.8 and streak 3).
    pub fn new(dialect: Dialect, table: &str) -> QuerySpec {
        QuerySpec {
            dialect,
            table: table.to_string(),
            columns: Columns::default(),
            events: Vec::new(),
            time_unit: TimeUnit::Ns,
            default_ttl_ms: None,
            log_lag_ms: 5.0,
            near_miss_ratio: 0.8,
            near_miss_streak: 3,
            select: Select::All,
            filter: None,
            slice: None,
            datetime_seconds: false,
        }
    }

    /// Applies a mapping file: its columns, event names and file TTL.
    ///
    /// # Errors
    /// [`SqlError::MissingRole`].
    pub fn with_mapping(mut self, m: &Mapping) -> Result<QuerySpec, SqlError> {
        self.columns = Columns::from_mapping(m)?;
        self.events = m.events.iter().map(|(k, v)| (k.clone(), *v)).collect();
        self.default_ttl_ms = m.ttl_ms;
        Ok(self)
    }
}

const RULES: &str = include_str!("rules.sql");
const PASS: &str = include_str!("pass.sql");

/// The query for `spec`.
///
/// Field and event names are data, quoted by the dialect's rules
/// ([`quote`]); the table and the filter are the user's own SQL, pasted as
/// given.
///
/// # Errors
/// [`SqlError::Unsafe`] for a table or filter carrying `;`, a comment or a
/// line break (the table is also written into the query's first comment).
pub fn generate(spec: &QuerySpec) -> Result<String, SqlError> {
    check("table", &spec.table)?;
    if spec.table.contains(['\n', '\r']) {
        return Err(SqlError::Unsafe {
            what: "table",
            value: spec.table.clone(),
        });
    }
    if let Some(f) = &spec.filter {
        check("filter", f)?;
    }
    if spec.dialect == Dialect::Clickhouse {
        return Ok(perkey::generate(spec));
    }
    let template = RULES
        .replace(
            "{{PASS1}}",
            &PASS.trim_end().replace("{K}", "1").replace("{ABS}", "abs0"),
        )
        .replace(
            "{{PASS2}}",
            &PASS.trim_end().replace("{K}", "2").replace("{ABS}", "abs1"),
        );
    let mut subs: Vec<(&str, String)> = substitutions(spec).into();
    let (n_int, n_dbl, n_str) = null_types(spec.dialect);
    subs.extend([
        ("{{NINT}}", n_int.to_string()),
        ("{{NDBL}}", n_dbl.to_string()),
        ("{{NSTR}}", n_str.to_string()),
    ]);
    Ok(fill(&template, &subs))
}

/// `template` with each of its `{{NAME}}` placeholders in `subs` replaced
/// by the text given, in one pass over the template: a text put in (a
/// column or table name holding `{{ELAPSED}}`) is never read as a
/// placeholder itself.
fn fill(template: &str, subs: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(template.len() * 2);
    let mut rest = template;
    while let Some(at) = rest.find("{{") {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        match subs.iter().find(|(k, _)| tail.starts_with(k)) {
            Some((k, v)) => {
                out.push_str(v);
                rest = &tail[k.len()..];
            }
            None => {
                out.push_str("{{");
                rest = &tail[2..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The nullable integer, float and string types of `dialect`.
fn null_types(dialect: Dialect) -> (&'static str, &'static str, &'static str) {
    match dialect {
        Dialect::Clickhouse => ("Nullable(Int64)", "Nullable(Float64)", "Nullable(String)"),
        Dialect::Duckdb => ("BIGINT", "DOUBLE", "VARCHAR"),
    }
}

/// `col` of the table, quoted for the spec's dialect.
fn column(spec: &QuerySpec, col: &str) -> String {
    quote::sql_path(spec.dialect, col)
}

/// The rules' placeholders and what fills each.
fn substitutions(spec: &QuerySpec) -> [(&'static str, String); 18] {
    let c = &spec.columns;
    let (n_int, n_dbl, n_str) = null_types(spec.dialect);
    let col = |name: &str| column(spec, name);
    let null = "NULL".to_string();
    let ttl = match (&c.ttl, spec.default_ttl_ms) {
        (Some((name, true)), d) => format!("COALESCE(CAST({} AS {n_dbl}), {})", col(name), opt(d)),
        (Some((name, false)), d) => {
            format!(
                "COALESCE(CAST({} AS {n_dbl}) * 1000, {})",
                col(name),
                opt(d)
            )
        }
        (None, d) => opt(d),
    };
    let ttl_unknown = match (&c.ttl_unknown, &c.ttl, spec.default_ttl_ms) {
        (Some(name), _, _) => format!("CAST({} AS {n_int})", col(name)),
        (None, None, None) => "1".into(),
        _ => "0".into(),
    };
    let deleted = c.deleted.as_ref().map_or(null.clone(), |name| {
        let d = col(name);
        format!(
            "CASE WHEN lower(CAST({d} AS {n_str})) IN ('1', 'true') THEN 1 WHEN lower(CAST({d} AS {n_str})) IN ('0', 'false') THEN 0 END"
        )
    });
    [
        ("{{VERSION}}", env!("CARGO_PKG_VERSION").to_string()),
        (
            "{{DIALECT}}",
            if spec.dialect == Dialect::Clickhouse {
                "ClickHouse"
            } else {
                "DuckDB"
            }
            .into(),
        ),
        ("{{TABLE}}", spec.table.clone()),
        ("{{KEY}}", col(&c.key)),
        ("{{HOLDER}}", col(&c.holder)),
        ("{{KIND}}", kind_expr(spec)),
        ("{{TS}}", time_expr(spec)),
        (
            "{{SEQ}}",
            c.seq.as_deref().map_or_else(|| "0".to_string(), col),
        ),
        ("{{TTL}}", ttl),
        ("{{TTL_UNKNOWN}}", ttl_unknown),
        (
            "{{ELAPSED}}",
            c.elapsed_ms
                .as_ref()
                .map_or(null, |e| format!("CAST({} AS {n_dbl})", col(e))),
        ),
        ("{{DELETED}}", deleted),
        (
            "{{TOL_NS}}",
            format!("{}", (spec.log_lag_ms * 1e6).round() as i64),
        ),
        ("{{RATIO}}", format!("{}", spec.near_miss_ratio)),
        ("{{STREAK}}", spec.near_miss_streak.max(1).to_string()),
        ("{{PAIRS}}", pairs()),
        ("{{SELECT}}", select(spec)),
        (
            "{{FILTER}}",
            spec.filter
                .as_ref()
                .map_or(String::new(), |f| format!(" AND ({f})"))
                + &spec.slice.map_or(String::new(), |s| {
                    let ts = time_expr(spec);
                    format!(
                        " AND ({ts}) >= {} AND ({ts}) < {}",
                        s.lo_ns.saturating_sub(s.carry_ns),
                        s.hi_ns.saturating_add(s.carry_ns)
                    )
                }),
        ),
    ]
}

fn opt(v: Option<i64>) -> String {
    v.map_or("NULL".into(), |v| v.to_string())
}

fn check(what: &'static str, v: &str) -> Result<(), SqlError> {
    if v.contains(';') || v.contains("--") || v.contains("/*") {
        return Err(SqlError::Unsafe {
            what,
            value: v.to_string(),
        });
    }
    Ok(())
}

/// The event column as a kind name (§1): the mapping's names first, then
/// the canonical ones; anything else is not a lock event (NULL).
fn kind_expr(spec: &QuerySpec) -> String {
    let col = column(spec, &spec.columns.event);
    let norm = match spec.dialect {
        Dialect::Clickhouse => format!(
            "trim(BOTH '_' FROM replaceRegexpAll(lower(trim(CAST({col} AS Nullable(String)))), '[-. _/:\\t]+', '_'))"
        ),
        Dialect::Duckdb => format!(
            "trim(regexp_replace(lower(trim(CAST({col} AS VARCHAR))), '[-. _/:\\t]+', '_', 'g'), '_')"
        ),
    };
    let mut s = format!("CASE {norm}");
    for (name, kind) in &spec.events {
        let _ = write!(
            s,
            " WHEN {} THEN '{}'",
            quote::sql_string(spec.dialect, name),
            kind.as_str()
        );
    }
    for kind in EventKind::ALL {
        let _ = write!(s, " WHEN '{0}' THEN '{0}'", kind.as_str());
    }
    s.push_str(" END");
    s
}

/// The time column in ns since the epoch.
fn time_expr(spec: &QuerySpec) -> String {
    let col = column(spec, &spec.columns.time);
    match (spec.time_unit, spec.dialect) {
        (TimeUnit::Ns, _) => col,
        (TimeUnit::Us, _) => format!("CAST({col} AS BIGINT) * 1000"),
        (TimeUnit::Ms, _) => format!("CAST({col} AS BIGINT) * 1000000"),
        (TimeUnit::S, _) => format!("CAST(round(CAST({col} AS DOUBLE) * 1e9) AS BIGINT)"),
        (TimeUnit::Datetime, Dialect::Clickhouse) if spec.datetime_seconds => {
            format!("toInt64(toUnixTimestamp({col})) * 1000000000")
        }
        (TimeUnit::Datetime, Dialect::Clickhouse) => {
            format!("toUnixTimestamp64Nano(toDateTime64({col}, 9, 'UTC'))")
        }
        (TimeUnit::Datetime, Dialect::Duckdb) => format!("epoch_ns(CAST({col} AS TIMESTAMP))"),
    }
}

/// §4: the pairs (zombie, later hold), by DuckDB's range join.
fn pairs() -> String {
    "  SELECT z.key AS e_key, z.holder AS earlier, z.hid AS e_hid, l.holder AS later, l.hid AS l_hid, \
     l.acq_ts AS start_ts, LEAST(z.wend, l.wend) AS end_ts, z.cause AS cause\n  \
     FROM zombies AS z INNER JOIN holds AS l ON l.key = z.key AND l.acq_ts >= z.lock_end_ts \
     AND l.acq_ts < z.wend AND l.hid > z.hid AND l.holder <> z.holder"
        .to_string()
}

/// ` AND lo <= col < hi` of the spec's slice (its results), or nothing.
fn anchor(spec: &QuerySpec, col: &str) -> String {
    spec.slice.map_or(String::new(), |s| {
        format!(" AND {col} >= {} AND {col} < {}", s.lo_ns, s.hi_ns)
    })
}

/// The final SELECT for [`Select`].
fn select(spec: &QuerySpec) -> String {
    let overlaps = format!(
        "SELECT 'overlap' AS row_kind, e_key AS key, earlier AS holder, later AS other, \
         start_ts AS at_ns, (end_ts - start_ts) / 1000000.0 AS duration_ms, cause AS detail FROM pairs WHERE 1 = 1{}",
        anchor(spec, "start_ts")
    );
    let nm = anchor(spec, "acq_ts");
    let near = format!(
        "SELECT 'near_miss' AS row_kind, key, holder, '' AS other, wend AS at_ns, used_ms AS duration_ms, \
         CAST(ttl_lease AS VARCHAR) AS detail FROM nm2 WHERE near = 1{nm}"
    );
    let streak = format!(
        "SELECT 'near_miss_streak' AS row_kind, key, holder, '' AS other, wend AS at_ns, used_ms AS duration_ms, \
         CAST(run AS VARCHAR) AS detail FROM nm2 WHERE near = 1 AND run = {}{nm}",
        spec.near_miss_streak.max(1)
    );
    let order = "ORDER BY row_kind, key, at_ns, holder, other";
    match spec.select {
        Select::Alerts => format!(
            "SELECT row_kind, key, COUNT(*) AS n, MIN(at_ns) AS first_ns FROM ({overlaps}\nUNION ALL {streak}) AS out\n\
             GROUP BY row_kind, key\nORDER BY row_kind, key\n"
        ),
        Select::All => format!(
            "SELECT * FROM ({overlaps}\nUNION ALL {near}\nUNION ALL {streak}) AS out\n{order}\n"
        ),
        Select::Overlaps => format!("SELECT * FROM ({overlaps}) AS out\n{order}\n"),
        Select::Holds => format!(
            "SELECT key, holder, acq_ts AS acquired_ns, wend AS window_end_ns, ttl_lease AS ttl_ms, \
             lock_end, lock_end_ts AS lock_end_ns, last_grant_ts AS last_grant_ns FROM holds WHERE 1 = 1{}\n\
             ORDER BY key, acquired_ns, holder\n",
            anchor(spec, "acq_ts")
        ),
        Select::Keys => format!(
            "SELECT e_key AS key, COUNT(*) AS pairs, MIN(start_ts) AS first_ns, MAX(end_ts) AS last_ns, \
             MIN(cause) AS cause FROM pairs WHERE 1 = 1{}\nGROUP BY e_key\nORDER BY pairs DESC, key\n",
            anchor(spec, "start_ts")
        ),
    }
}

/// Minutes of one alert period (the rule runs once a period).
const PERIOD_MIN: u32 = 5;

/// The names a kind has in the table: the mapping's and the canonical one.
fn names(spec: &QuerySpec, kinds: &[EventKind]) -> Vec<String> {
    let mut out: Vec<String> = kinds.iter().map(|k| k.as_str().to_string()).collect();
    for (name, kind) in &spec.events {
        if kinds.contains(kind) && !out.contains(name) {
            out.push(name.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_placeholder_is_filled_in_both_dialects() {
        for d in [Dialect::Clickhouse, Dialect::Duckdb] {
            for s in [
                Select::All,
                Select::Overlaps,
                Select::Holds,
                Select::Keys,
                Select::Alerts,
            ] {
                let mut spec = QuerySpec::new(d, "events");
                spec.select = s;
                let sql = generate(&spec).expect("ok");
                assert!(!sql.contains("{{") && !sql.contains("{K}"), "{sql}");
            }
        }
    }

    #[test]
    fn a_mapping_gives_columns_and_event_names_and_a_missing_role_is_an_error() {
        let m: Mapping = "[fields]\ntime = \"log_time\"\nkey = \"res\"\nholder = \"who\"\nevent = \"what\"\nttl_s = \"exp\"\n[events]\n\"LOCK_OK\" = \"acquired\"\n"
            .parse()
            .expect("ok");
        let spec = QuerySpec::new(Dialect::Clickhouse, "logs")
            .with_mapping(&m)
            .expect("ok");
        let sql = generate(&spec).expect("ok");
        // The mapping's name first, as the kind code of an acquire.
        assert!(sql.contains("['lock_ok', 'acquired',"), "{sql}");
        assert!(sql.contains("[1, 1, 6, 2,"), "{sql}");
        let duck = generate(&QuerySpec {
            dialect: Dialect::Duckdb,
            ..spec.clone()
        })
        .expect("ok");
        assert!(duck.contains("WHEN 'lock_ok' THEN 'acquired'"), "{duck}");
        assert!(
            sql.contains("CAST(`exp` AS Nullable(Float64)) * 1000"),
            "{sql}"
        );
        let m: Mapping = "[fields]\ntime = \"t\"\nkey = \"k\"\n".parse().expect("ok");
        assert!(matches!(
            Columns::from_mapping(&m),
            Err(SqlError::MissingRole("holder"))
        ));
        let bad = QuerySpec::new(Dialect::Duckdb, "t; DROP TABLE x");
        assert!(generate(&bad).is_err());
    }

    #[test]
    fn a_name_holding_a_placeholder_is_written_as_a_name() {
        let mut spec = QuerySpec::new(Dialect::Duckdb, "events");
        spec.columns.time = "t{{ELAPSED}}\"".to_string();
        let sql = generate(&spec).expect("ok");
        assert!(sql.contains("\"t{{ELAPSED}}\"\"\""), "{sql}");
        assert!(!sql.contains("\"tCAST("), "{sql}");
    }
}
