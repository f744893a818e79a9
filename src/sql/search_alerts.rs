//! The alert rules of the log stores that cannot join two lines: Grafana
//! Loki (a ruler rule group in LogQL) and Elasticsearch (ES|QL queries for
//! a Kibana ES|QL rule). What each can and cannot say is in docs/alerts.md.
//!
//! - Near-miss (§6): per holder and period, the time from its last grant
//!   (acquire or renewal) to its closing line (release, failed release,
//!   lost lock) against its TTL, from the lock lines alone: ES|QL groups by
//!   key and holder; LogQL subtracts the two lines' times when the time
//!   field is a number it can `unwrap`, and otherwise reads the hold time a
//!   release line carries (`held_ms`). The streak is periods in a row.
//! - Overlap (§4): on one key within two periods, a line saying a holder's
//!   lock was gone (a failed release, a lost lock, a release that deleted
//!   nothing) while at least two holders acquired the key; or holders whose
//!   last holds (last acquire to the closing line after it) add up to more
//!   than the time from the first of them to the end of the last, plus the
//!   log-lag tolerance for each after the first, so two of them overlap by
//!   more than the tolerance although every line looks ordinary (a lock
//!   that vanished under a holder that released cleanly). LogQL sees the holds only with
//!   a numeric time field it can `unwrap`. A lock whose lease ran out with
//!   nobody waiting is silent.

use std::fmt::Write as _;

use super::quote::{self, QuoteError};
use super::{PERIOD_MIN, names};
use super::{QuerySpec, TimeUnit};
use crate::model::EventKind;

/// The field a release line must carry for Loki when the time field is a
/// date (LogQL cannot subtract two lines' dates): how long the lock was
/// held, ms.
pub const HELD_FIELD: &str = "held_ms";

/// The TTL assumed, ms, when neither a TTL column nor the mapping gives one.
const ASSUMED_TTL_MS: i64 = 30_000;

/// Kinds whose line grants a lease.
const GRANTS: [EventKind; 2] = [EventKind::Acquired, EventKind::Renewed];

/// Kinds whose line ends a holder's window (§2).
const CLOSES: [EventKind; 3] = [
    EventKind::Released,
    EventKind::ReleaseFailed,
    EventKind::LockLost,
];

/// Kinds whose line says the holder's lock was already gone.
const GONE: [EventKind; 2] = [EventKind::ReleaseFailed, EventKind::LockLost];

/// The Loki stream selector, JSON parse and event filter of `kinds`.
fn loki_pipe(spec: &QuerySpec, kinds: &[EventKind]) -> Result<String, QuoteError> {
    let e = quote::loki_label(&spec.columns.event)?;
    let re = quote::logql_any_of(&names(spec, kinds));
    Ok(format!("{{job=~\".+\"}} | json | {e}=~{re}"))
}

/// How many of the time field's units make a millisecond, for LogQL's
/// arithmetic on unwrapped times; `None` for a date (LogQL cannot unwrap
/// one).
fn per_ms(unit: TimeUnit) -> Option<f64> {
    match unit {
        TimeUnit::Ns => Some(1e6),
        TimeUnit::Us => Some(1e3),
        TimeUnit::Ms => Some(1.0),
        TimeUnit::S => Some(1e-3),
        TimeUnit::Datetime => None,
    }
}

/// Loki's near-miss expression and what its TTL is. With a numeric time
/// field: per key and holder over a period, its last closing line's time
/// minus its last grant's, over the TTL (the grant lines' TTL field, or
/// the mapping's); with a date, the release lines' `held_ms`.
fn loki_near(spec: &QuerySpec) -> Result<(String, String), QuoteError> {
    let (k, h) = (
        quote::loki_label(&spec.columns.key)?,
        quote::loki_label(&spec.columns.holder)?,
    );
    let p = format!("[{PERIOD_MIN}m]");
    let ttl_ms = spec.default_ttl_ms.unwrap_or(ASSUMED_TTL_MS);
    let ratio = spec.near_miss_ratio;
    let Some(scale) = per_ms(spec.time_unit) else {
        return Ok((
            format!(
                "max by ({k}) (max_over_time({} | unwrap {HELD_FIELD} | __error__=\"\" {p})) >= {}",
                loki_pipe(spec, &CLOSES)?,
                ratio * ttl_ms as f64
            ),
            format!(
                "the time field is a date, which LogQL cannot subtract: the release lines must carry {HELD_FIELD}; TTL {ttl_ms} ms"
            ),
        ));
    };
    let t = quote::loki_label(&spec.columns.time)?;
    let last = |kinds: &[EventKind]| -> Result<String, QuoteError> {
        Ok(format!(
            "max by ({k}, {h}) (max_over_time({} | unwrap {t} | __error__=\"\" {p}))",
            loki_pipe(spec, kinds)?
        ))
    };
    let held = format!(
        "({} - on ({k}, {h}) {}) / {scale}",
        last(&CLOSES)?,
        last(&GRANTS)?
    );
    Ok(match &spec.columns.ttl {
        Some((col, ms)) => (
            format!(
                "max by ({k}) ({held} / on ({k}, {h}) (max by ({k}, {h}) (max_over_time({} | unwrap {} | __error__=\"\" {p})){})) >= {ratio}",
                loki_pipe(spec, &GRANTS)?,
                quote::loki_label(col)?,
                if *ms { "" } else { " * 1000" }
            ),
            format!("TTL from the grant lines' `{}`", quote::loki_label(col)?),
        ),
        None => (
            format!("max by ({k}) ({held}) >= {}", ratio * ttl_ms as f64),
            format!(
                "TTL {ttl_ms} ms ({})",
                if spec.default_ttl_ms.is_some() {
                    "from the mapping"
                } else {
                    "assumed: give it with ttl_ms in the mapping"
                }
            ),
        ),
    })
}

/// Loki's overlap expression: within two periods on one key, a line saying
/// a lock was gone, and acquires by at least two holders; with a numeric
/// time field, or last holds that overlap ([`loki_holds_overlap`]).
fn loki_overlap(spec: &QuerySpec) -> Result<String, QuoteError> {
    let (k, h) = (
        quote::loki_label(&spec.columns.key)?,
        quote::loki_label(&spec.columns.holder)?,
    );
    let p = format!("[{}m]", 2 * PERIOD_MIN);
    let mut gone = format!(
        "sum by ({k}) (count_over_time({} {p}))",
        loki_pipe(spec, &GONE)?
    );
    if let Some(d) = &spec.columns.deleted {
        let _ = write!(
            gone,
            " or sum by ({k}) (count_over_time({} | {}=~\"(?i)0|false\" {p}))",
            loki_pipe(spec, &[EventKind::Released])?,
            quote::loki_label(d)?
        );
    }
    let gone_and_holders = format!(
        "({gone}) and on ({k}) (count by ({k}) (sum by ({k}, {h}) (count_over_time({} {p}))) >= 2)",
        loki_pipe(spec, &[EventKind::Acquired])?
    );
    Ok(match per_ms(spec.time_unit) {
        Some(scale) => format!(
            "({gone_and_holders}) or ({})",
            loki_holds_overlap(spec, scale)?
        ),
        None => gone_and_holders,
    })
}

/// Loki's overlap of last holds (numeric time field, `scale` of its units
/// a millisecond): per key and holder within two periods, its last acquire
/// and its last closing line; a holder whose closing line is not before its
/// acquire has a hold of their difference. Fires when a key's holds sum to
/// more than the time from the earliest of them to the end of the latest,
/// plus the log-lag tolerance (§4) for each hold after the first: holds
/// that overlap by no more than the tolerance fit in that time, so two of
/// them overlap by more.
fn loki_holds_overlap(spec: &QuerySpec, scale: f64) -> Result<String, QuoteError> {
    let (k, h, t) = (
        quote::loki_label(&spec.columns.key)?,
        quote::loki_label(&spec.columns.holder)?,
        quote::loki_label(&spec.columns.time)?,
    );
    let p = format!("[{}m]", 2 * PERIOD_MIN);
    let tol = spec.log_lag_ms * scale;
    let last = |kinds: &[EventKind]| -> Result<String, QuoteError> {
        Ok(format!(
            "max by ({k}, {h}) (max_over_time({} | unwrap {t} | __error__=\"\" {p}))",
            loki_pipe(spec, kinds)?
        ))
    };
    let (from, to) = (last(&[EventKind::Acquired])?, last(&CLOSES)?);
    let held = format!("(({to} - on ({k}, {h}) {from}) >= 0)");
    Ok(format!(
        "sum by ({k}) ({held} - {tol}) > on ({k}) (max by ({k}) ({to} and on ({k}, {h}) {held}) - on ({k}) min by ({k}) ({from} and on ({k}, {h}) {held}) - {tol})"
    ))
}

/// Loki: a ruler rule group of the near-miss streak (`for:` = streak - 1
/// periods) and the overlap.
pub(super) fn loki(spec: &QuerySpec) -> Result<String, QuoteError> {
    let k = quote::loki_label(&spec.columns.key)?;
    let streak = spec.near_miss_streak.max(1);
    let (near, ttl_note) = loki_near(spec)?;
    Ok(format!(
        "# lockreplay alert rules for the Loki ruler (docs/alerts.md). Replace the stream selector\n\
         # {{job=~\".+\"}} with your service's. Near-miss: {ttl_note}.\n\
         groups:\n  - name: lockreplay\n    interval: {PERIOD_MIN}m\n    rules:\n\
         \x20     - alert: LockNearMissStreak\n\
         \x20       expr: |\n          {near}\n\
         \x20       for: {}m\n\
         \x20       labels:\n          severity: warning\n\
         \x20       annotations:\n          summary: \"Lock {{{{ $labels.{k} }}}}: a hold reached {:.0} % of its TTL from its last grant, {streak} periods in a row\"\n\
         \x20     - alert: LockOverlap\n\
         \x20       expr: |\n          {}\n\
         \x20       labels:\n          severity: critical\n\
         \x20       annotations:\n          summary: \"Lock {{{{ $labels.{k} }}}}: two holders held it at once: a holder's lock was gone (failed release, lost lock, a release that deleted nothing) while another holder acquired it, or their last holds overlap\"\n",
        PERIOD_MIN * (streak - 1),
        spec.near_miss_ratio * 100.0,
        loki_overlap(spec)?,
    ))
}

/// The mapped time field in ms, in ES|QL.
fn esql_ms(spec: &QuerySpec) -> Result<String, QuoteError> {
    let t = quote::esql_field(&spec.columns.time)?;
    Ok(match spec.time_unit {
        TimeUnit::Datetime => format!("TO_LONG({t})"),
        TimeUnit::Ns => format!("TO_LONG({t}) / 1000000"),
        TimeUnit::Us => format!("TO_LONG({t}) / 1000"),
        TimeUnit::Ms => format!("TO_LONG({t})"),
        TimeUnit::S => format!("TO_LONG(TO_DOUBLE({t}) * 1000)"),
    })
}

/// `TO_LOWER(event) IN (...)` of `kinds`' names.
fn esql_is(spec: &QuerySpec, kinds: &[EventKind]) -> Result<String, QuoteError> {
    let e = quote::esql_field(&spec.columns.event)?;
    let lits = names(spec, kinds)
        .iter()
        .map(|n| quote::esql_string(n))
        .collect::<Result<Vec<_>, _>>()?
        .join(", ");
    Ok(format!("TO_LOWER({e}) IN ({lits})"))
}

/// Elasticsearch: two ES|QL queries for Kibana's ES|QL rule (every period;
/// "alert after {streak} consecutive matches" makes the near-miss streak).
pub(super) fn esql(spec: &QuerySpec) -> Result<String, QuoteError> {
    let c = &spec.columns;
    let (k, h) = (quote::esql_field(&c.key)?, quote::esql_field(&c.holder)?);
    let ttl = match &c.ttl {
        Some((col, true)) => format!("TO_DOUBLE({})", quote::esql_field(col)?),
        Some((col, false)) => format!("TO_DOUBLE({}) * 1000", quote::esql_field(col)?),
        None => spec.default_ttl_ms.unwrap_or(ASSUMED_TTL_MS).to_string(),
    };
    let (grant, close) = (esql_is(spec, &GRANTS)?, esql_is(spec, &CLOSES)?);
    let near = format!(
        "FROM logs-* | WHERE @timestamp > NOW() - {PERIOD_MIN} minutes AND ({grant} OR {close}) \
         | EVAL lr_t = {}, lr_grant = CASE({grant}, lr_t, null), lr_close = CASE({close}, lr_t, null), lr_ttl = CASE({grant}, {ttl}, null) \
         | STATS lr_last_grant = MAX(lr_grant), lr_closed = MAX(lr_close), lr_ttl = MAX(lr_ttl) BY {k}, {h} \
         | WHERE lr_closed >= lr_last_grant \
         | EVAL ratio = TO_DOUBLE(lr_closed - lr_last_grant) / TO_DOUBLE(lr_ttl) \
         | STATS max_ratio = MAX(ratio), holds = COUNT(*) BY {k} | WHERE max_ratio >= {}",
        esql_ms(spec)?,
        spec.near_miss_ratio
    );
    let acq = esql_is(spec, &[EventKind::Acquired])?;
    let mut gone = esql_is(spec, &GONE)?;
    if let Some(d) = &c.deleted {
        let _ = write!(
            gone,
            " OR ({} AND TO_LOWER(TO_STRING({})) IN (\"0\", \"false\"))",
            esql_is(spec, &[EventKind::Released])?,
            quote::esql_field(d)?
        );
    }
    let overlap = format!(
        "FROM logs-* | WHERE @timestamp > NOW() - {} minutes AND ({acq} OR {close}) \
         | EVAL lr_t = {}, lr_acquired = CASE({acq} AND {h} IS NOT NULL, lr_t, null), lr_closed = CASE({close}, lr_t, null), lr_gone = CASE({gone}, 1, 0) \
         | STATS lr_from = MAX(lr_acquired), lr_to = MAX(lr_closed), lr_gone_lines = SUM(lr_gone) BY {k}, {h} \
         | EVAL lr_held = CASE(lr_to >= lr_from, lr_to - lr_from - {tol}, null), lr_start = CASE(lr_to >= lr_from, lr_from, null), lr_end = CASE(lr_to >= lr_from, lr_to, null) \
         | STATS holders = COUNT(lr_from), gone = SUM(lr_gone_lines), held = SUM(lr_held), lr_first = MIN(lr_start), lr_last = MAX(lr_end) BY {k} \
         | WHERE (gone > 0 AND holders >= 2) OR held > lr_last - lr_first - {tol}",
        2 * PERIOD_MIN,
        esql_ms(spec)?,
        tol = spec.log_lag_ms
    );
    Ok(format!(
        "// lockreplay alert rules for Elasticsearch (Kibana ES|QL rule, every {PERIOD_MIN} min; docs/alerts.md).\n\
         // Near-miss: per holder, its last closing line minus its last grant, over the TTL; set the rule's alert delay to {} consecutive matches.\n\
         {near}\n\
         // Overlap: within {} min on one key, a holder's lock was gone (failed release, lost lock, a release that deleted nothing) and two or more holders acquired it, or the holders' last holds (last acquire to the closing line after it), less the log-lag tolerance each, sum to more than the time they span less one tolerance.\n\
         {overlap}\n",
        spec.near_miss_streak.max(1),
        2 * PERIOD_MIN
    ))
}
