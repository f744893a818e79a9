//! The alert an incident calls for, as a rule for the log store: the
//! near-miss streak (docs/semantics.md §6: a hold that used `ratio` of its
//! TTL, `streak` times in a row) and an overlap alert, for ClickHouse and
//! DuckDB (the rules' own query), Alibaba Cloud SLS (scheduled SQL),
//! Grafana Loki (a ruler rule in LogQL) and Elasticsearch (an ES|QL rule).
//! What each store can and cannot express is in docs/alerts.md.

use std::fmt::Write as _;

use super::quote::{self, QuoteError};
use super::{Dialect, PERIOD_MIN, QuerySpec, Select, SqlError, TimeUnit, generate, names};
use crate::model::EventKind;

/// A log store an alert rule is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Store {
    /// ClickHouse: the rules' query over the last period, one row per key
    /// that alerts.
    Clickhouse,
    /// DuckDB: the same query.
    Duckdb,
    /// Alibaba Cloud SLS: a search plus SQL (Presto dialect with window
    /// functions) for a scheduled SQL job or an alert.
    Sls,
    /// Grafana Loki: a ruler rule group (YAML) in LogQL.
    Loki,
    /// Elasticsearch / Kibana: ES|QL queries for an ES|QL rule.
    Elasticsearch,
}

/// The rule for `store`, with the columns, event names and settings of
/// `spec` (ratio, streak; the TTL column or the mapping's TTL). Every name
/// is written by the store's own quoting rules ([`quote`]).
///
/// # Errors
/// [`SqlError`]: a table or filter that is not one expression, or a name
/// the store's language cannot carry. Never an empty rule.
pub fn rule(store: Store, spec: &QuerySpec) -> Result<String, SqlError> {
    match store {
        Store::Clickhouse | Store::Duckdb => sql_engine(store, spec),
        Store::Sls => Ok(sls(spec)?),
        Store::Loki => Ok(super::search_alerts::loki(spec)?),
        Store::Elasticsearch => Ok(super::search_alerts::esql(spec)?),
    }
}

/// `names` as a list of literals written by `lit`.
fn literal_list(
    names: &[String],
    lit: impl Fn(&str) -> Result<String, QuoteError>,
) -> Result<String, QuoteError> {
    Ok(names
        .iter()
        .map(|n| lit(n))
        .collect::<Result<Vec<_>, _>>()?
        .join(", "))
}

/// ClickHouse and DuckDB: the rules' own query, limited to the last
/// `streak` + 1 periods, grouped by key and kind: every row is an alert.
fn sql_engine(store: Store, spec: &QuerySpec) -> Result<String, SqlError> {
    let mut s = spec.clone();
    s.dialect = if store == Store::Clickhouse {
        Dialect::Clickhouse
    } else {
        Dialect::Duckdb
    };
    s.select = Select::Alerts;
    let minutes = PERIOD_MIN * (spec.near_miss_streak.max(1) + 1);
    let since = match (s.dialect, s.time_unit) {
        (Dialect::Clickhouse, TimeUnit::Datetime) => {
            format!("now() - INTERVAL {minutes} MINUTE")
        }
        (Dialect::Duckdb, TimeUnit::Datetime) => {
            format!("now() - INTERVAL {minutes} MINUTE")
        }
        (Dialect::Clickhouse, unit) => format!(
            "toInt64(now()) * 1000000000 / {} - {}",
            per_ns(unit),
            minutes as f64 * 60e9 / per_ns(unit) as f64
        ),
        (Dialect::Duckdb, unit) => format!(
            "epoch_ns(now()) / {} - {}",
            per_ns(unit),
            minutes as f64 * 60e9 / per_ns(unit) as f64
        ),
    };
    let window = format!("{} >= {since}", super::column(&s, &s.columns.time));
    s.filter = Some(match &spec.filter {
        Some(f) => format!("({f}) AND {window}"),
        None => window,
    });
    let head = format!(
        "-- lockreplay alert ({}): run every {PERIOD_MIN} min; each row is a key to alert on:\n\
         -- near_miss_streak = {} holds in a row used >= {:.0} % of their TTL; overlap = two holders believed they held the key.\n",
        if store == Store::Clickhouse {
            "ClickHouse"
        } else {
            "DuckDB"
        },
        spec.near_miss_streak.max(1),
        spec.near_miss_ratio * 100.0
    );
    Ok(head + &generate(&s)?)
}

fn per_ns(unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Ns | TimeUnit::Datetime => 1,
        TimeUnit::Us => 1_000,
        TimeUnit::Ms => 1_000_000,
        TimeUnit::S => 1_000_000_000,
    }
}

/// The time column in ms for SLS (Presto functions).
fn sls_ms(spec: &QuerySpec) -> String {
    let t = quote::standard_ident(&spec.columns.time);
    match spec.time_unit {
        TimeUnit::Ns => format!("cast({t} AS bigint) / 1000000"),
        TimeUnit::Us => format!("cast({t} AS bigint) / 1000"),
        TimeUnit::Ms => format!("cast({t} AS bigint)"),
        TimeUnit::S => format!("cast(cast({t} AS double) * 1000 AS bigint)"),
        TimeUnit::Datetime => {
            format!("cast(to_unixtime(from_iso8601_timestamp({t})) * 1000 AS bigint)")
        }
    }
}

/// The TTL in ms for SLS: the TTL column (an identifier) or the mapping's.
fn ttl_ms_sql(spec: &QuerySpec) -> String {
    let q = |c: &str| quote::standard_ident(c);
    let d = spec
        .default_ttl_ms
        .map_or("NULL".to_string(), |v| v.to_string());
    match &spec.columns.ttl {
        Some((c, true)) => format!("coalesce(try_cast({} AS double), {d})", q(c)),
        Some((c, false)) => format!("coalesce(try_cast({} AS double) * 1000, {d})", q(c)),
        None => d,
    }
}

/// SLS: the search selects the lock lines, the SQL pairs each release with
/// its holder's last grant on the key (window functions), and counts the
/// near-misses in a row per key; the overlap query finds an acquire while
/// another holder's lock line was the key's last, followed by that
/// holder's failed release or lost lock.
fn sls(spec: &QuerySpec) -> Result<String, QuoteError> {
    let c = &spec.columns;
    for (what, name) in [
        ("key field", &c.key),
        ("holder field", &c.holder),
        ("time field", &c.time),
    ] {
        quote::sls_plain(what, name)?;
    }
    let (k, h) = (
        quote::standard_ident(&c.key),
        quote::standard_ident(&c.holder),
    );
    let e = quote::standard_ident(&c.event);
    let e_search = quote::sls_field(&c.event)?;
    let grant = names(spec, &[EventKind::Acquired, EventKind::Renewed]);
    let acq = names(spec, &[EventKind::Acquired]);
    let rel = names(spec, &[EventKind::Released]);
    let lost = names(spec, &[EventKind::ReleaseFailed, EventKind::LockLost]);
    let all: Vec<String> = grant.iter().chain(&rel).chain(&lost).cloned().collect();
    // A hold ends with its release, failed release or lost lock alike (§2).
    let closes: Vec<String> = rel.iter().chain(&lost).cloned().collect();
    let search = all
        .iter()
        .map(|n| Ok(format!("{e_search}: {}", quote::sls_value(n)?)))
        .collect::<Result<Vec<_>, QuoteError>>()?
        .join(" or ");
    let lit = |n: &str| -> Result<String, QuoteError> {
        quote::sls_plain("event name", n)?;
        Ok(quote::standard_string(n))
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "-- lockreplay alert for Alibaba Cloud SLS (scheduled SQL or alert query; run every {PERIOD_MIN} min over the last {} min).",
        PERIOD_MIN * (spec.near_miss_streak.max(1) + 1)
    );
    let _ = writeln!(
        s,
        "-- Near-miss streak: {} holds in a row on one key held >= {:.0} % of the TTL since their last grant (to a release, failed release or lost lock).",
        spec.near_miss_streak.max(1),
        spec.near_miss_ratio * 100.0
    );
    let _ = writeln!(
        s,
        "{search} | WITH e AS (SELECT {k} AS k, {h} AS h, lower({e}) AS ev, {} AS t, {} AS ttl FROM log), \
g AS (SELECT k, h, ev, t, \
max(CASE WHEN ev IN ({g}) THEN t END) OVER (PARTITION BY k, h ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS last_grant, \
max(CASE WHEN ev IN ({g}) THEN ttl END) OVER (PARTITION BY k, h ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS grant_ttl FROM e), \
s AS (SELECT k, h, t, t - last_grant AS used_ms, grant_ttl, CASE WHEN t - last_grant >= {r} * grant_ttl THEN 1 ELSE 0 END AS near \
FROM g WHERE ev IN ({rl}) AND last_grant IS NOT NULL AND grant_ttl > 0), \
r AS (SELECT k, h, t, used_ms, grant_ttl, near, sum(1 - near) OVER (PARTITION BY k ORDER BY t) AS grp FROM s), \
r2 AS (SELECT k, t, used_ms, grant_ttl, near, sum(near) OVER (PARTITION BY k, grp ORDER BY t) AS run FROM r) \
SELECT k AS lock_key, max(run) AS streak, max(used_ms) AS max_used_ms, max(grant_ttl) AS ttl_ms FROM r2 GROUP BY k HAVING max(run) >= {n}",
        sls_ms(spec),
        ttl_ms_sql(spec),
        g = literal_list(&grant, lit)?,
        rl = literal_list(&closes, lit)?,
        r = spec.near_miss_ratio,
        n = spec.near_miss_streak.max(1),
    );
    let _ = writeln!(
        s,
        "-- Overlap: a holder acquired while another holder's grant was the key's last lock line, and that holder then failed to release or lost the lock."
    );
    let _ = writeln!(
        s,
        "{search} | WITH e AS (SELECT {k} AS k, {h} AS h, lower({e}) AS ev, {} AS t FROM log), \
p AS (SELECT k, h, ev, t, lag(h) OVER (PARTITION BY k ORDER BY t) AS prev_h, lag(ev) OVER (PARTITION BY k ORDER BY t) AS prev_ev FROM e), \
x AS (SELECT a.k, a.prev_h AS earlier, a.h AS later, a.t AS acquired_ms FROM p a \
WHERE a.ev IN ({aq}) AND a.prev_h IS NOT NULL AND a.prev_h <> a.h AND a.prev_ev IN ({g})) \
SELECT x.k AS lock_key, x.earlier, x.later, min(x.acquired_ms) AS at_ms, count(*) AS lines FROM x JOIN e ON e.k = x.k AND e.h = x.earlier AND e.t > x.acquired_ms \
WHERE e.ev IN ({lo}) GROUP BY x.k, x.earlier, x.later",
        sls_ms(spec),
        aq = literal_list(&acq, lit)?,
        g = literal_list(&grant, lit)?,
        lo = literal_list(&lost, lit)?,
    );
    Ok(s)
}
