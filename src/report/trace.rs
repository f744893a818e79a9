//! The Chrome trace-event file of the report folder (`trace.json`), which
//! Perfetto UI and chrome://tracing open: one process per lock key, one
//! thread per holder.

use serde::{Deserialize, Serialize};

use std::collections::HashMap;

use super::ReportInput;
use crate::analysis::Lease;
use crate::model::Sym;

/// One Chrome trace event (the JSON Object Format of the Trace Event Format,
/// as read by Perfetto UI and chrome://tracing).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceEvent {
    /// Name shown on the slice.
    pub name: String,
    /// Category.
    pub cat: String,
    /// Phase: `X` complete, `i` instant, `M` metadata.
    pub ph: String,
    /// Start, µs since the first event of the log.
    pub ts: f64,
    /// Duration, µs (complete events only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dur: Option<f64>,
    /// Process id: one per lock key (1-based).
    pub pid: u32,
    /// Thread id: one per holder within the key (1-based); 0 for key-wide.
    pub tid: u32,
    /// Instant scope: `p` (process) for overlaps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub s: Option<String>,
    /// Extra fields shown in the details panel.
    #[serde(default)]
    pub args: serde_json::Map<String, serde_json::Value>,
}

/// The trace file: `{"traceEvents": [...], "displayTimeUnit": "ms"}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Trace {
    /// Events.
    pub trace_events: Vec<TraceEvent>,
    /// `ms`.
    pub display_time_unit: String,
}

/// Builds the trace of the whole log: one process per lock key, one thread
/// per holder, leases as complete events, overlaps and oversold orders as
/// instants (`report --full-trace`).
pub fn chrome_trace(r: &ReportInput<'_>) -> Trace {
    trace_of(r, true, |_| true)
}

/// The trace of the incidents' windows ([`chrome_trace`] of the holds that
/// take part in an incident or meet an incident's window on its key), the
/// report folder's default: a large log's trace stays as small as its
/// incidents.
pub fn incident_trace(r: &ReportInput<'_>) -> Trace {
    let a = r.analysis;
    let mut windows: HashMap<Sym, Vec<(i64, i64)>> = HashMap::new();
    for inc in &a.incidents {
        windows
            .entry(inc.key)
            .or_default()
            .push((inc.start_ns, inc.end_ns));
    }
    for w in windows.values_mut() {
        *w = merged(std::mem::take(w));
    }
    let involved = crate::analysis::Incident::holds_in_overlaps(&a.incidents);
    trace_of(r, false, |l| {
        involved.contains(&l.id)
            || windows.get(&l.key).is_some_and(|w| {
                let end = l.window_end_ns.max(l.lock_end_ns).max(l.acquired_ns);
                meets(w, l.acquired_ns, end)
            })
    })
}

/// `spans` sorted and merged where they meet.
fn merged(mut spans: Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    spans.sort_unstable();
    let mut out: Vec<(i64, i64)> = Vec::with_capacity(spans.len());
    for (a, b) in spans {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// Whether `[a, b]` meets one of the sorted, disjoint `spans`.
fn meets(spans: &[(i64, i64)], a: i64, b: i64) -> bool {
    let i = spans.partition_point(|s| s.1 < a);
    spans.get(i).is_some_and(|s| s.0 <= b)
}

/// The trace of the holds `keep` keeps, with the overlaps between them and
/// the oversold orders of their keys (`all`: every oversold order, those of
/// a key without holds on a process 0).
fn trace_of(r: &ReportInput<'_>, all: bool, keep: impl Fn(&Lease) -> bool) -> Trace {
    use serde_json::json;
    let a = r.analysis;
    let s = |sym| r.log.strings.get(sym).to_string();
    let t0 = a.leases.iter().map(|l| l.acquired_ns).min().unwrap_or(0);
    let us = |ns: i64| (ns - t0) as f64 / 1000.0;
    let mut events = Vec::new();
    let mut pids = std::collections::HashMap::new();
    let mut tids = std::collections::HashMap::new();
    let mut threads_per_key = std::collections::HashMap::new();
    let arg = |pairs: serde_json::Value| pairs.as_object().cloned().unwrap_or_default();
    for l in a.leases.iter().filter(|l| keep(l)) {
        let next_pid = pids.len() as u32 + 1;
        let pid = *pids.entry(l.key).or_insert_with(|| {
            events.push(TraceEvent {
                name: "process_name".into(),
                cat: "__metadata".into(),
                ph: "M".into(),
                ts: 0.0,
                dur: None,
                pid: next_pid,
                tid: 0,
                s: None,
                args: arg(json!({ "name": s(l.key) })),
            });
            next_pid
        });
        // Holders seen on this key so far: a count per key, not a scan of
        // every (key, holder) pair per lease (quadratic: issue #18).
        let threads = threads_per_key.entry(l.key).or_insert(0u32);
        let next_tid = *threads + 1;
        let tid = *tids.entry((l.key, l.holder)).or_insert_with(|| {
            *threads += 1;
            events.push(TraceEvent {
                name: "thread_name".into(),
                cat: "__metadata".into(),
                ph: "M".into(),
                ts: 0.0,
                dur: None,
                pid,
                tid: next_tid,
                s: None,
                args: arg(json!({ "name": s(l.holder) })),
            });
            next_tid
        });
        let end = l.window_end_ns.max(l.acquired_ns);
        events.push(TraceEvent {
            name: "lease".into(),
            cat: "lease".into(),
            ph: "X".into(),
            ts: us(l.acquired_ns),
            dur: Some(us(end) - us(l.acquired_ns)),
            pid,
            tid,
            s: None,
            args: arg(json!({
                "holder": s(l.holder),
                "host": l.host.map(s),
                "ttl_ms": l.ttl_ms,
                "renewals": l.renewals_ns().len(),
                "lock_end": l.lock_end,
                "lock_end_at": r.rfc3339(l.lock_end_ns),
                "inferred": l.inferred,
            })),
        });
        if let Some((z0, z1)) = l.zombie_ns() {
            events.push(TraceEvent {
                name: "zombie hold".into(),
                cat: "zombie".into(),
                ph: "X".into(),
                ts: us(z0),
                dur: Some(us(z1) - us(z0)),
                pid,
                tid,
                s: None,
                args: arg(json!({ "holder": s(l.holder), "lock_end": l.lock_end })),
            });
        }
    }
    for o in &a.overlaps {
        let Some(&pid) = pids.get(&o.key) else {
            continue;
        };
        events.push(TraceEvent {
            name: format!("overlap: {}", o.cause.as_str()),
            cat: "overlap".into(),
            ph: "i".into(),
            ts: us(o.start_ns),
            dur: None,
            pid,
            tid: 0,
            s: Some("p".into()),
            args: arg(json!({
                "earlier": s(a.leases[o.earlier].holder),
                "later": s(a.leases[o.later].holder),
                "duration_ms": o.duration_ms(),
                "inferred": r.overlap_inferred(o),
            })),
        });
    }
    for sale in a.sales.iter().filter(|x| x.oversold_units > 0) {
        let Some(key) = sale.key else { continue };
        let pid = match pids.get(&key) {
            Some(&pid) => pid,
            None if all => 0,
            None => continue,
        };
        let tid = sale
            .holder
            .and_then(|h| tids.get(&(key, h)).copied())
            .unwrap_or(0);
        events.push(TraceEvent {
            name: "oversold order".into(),
            cat: "oversell".into(),
            ph: "i".into(),
            ts: us(sale.at_ns),
            dur: None,
            pid,
            tid,
            s: Some("t".into()),
            args: arg(json!({
                "order_id": sale.order_id.map(s),
                "oversold_units": sale.oversold_units,
                "loss": crate::money::loss(sale.oversold_units, r.settings.unit_loss),
                "loss_unknown_reason": (r.settings.unit_loss.is_none() && sale.oversold_units != 0).then_some(crate::money::UNKNOWN_REASON),
                "currency": r.settings.currency,
                "inferred": r.sale_inferred(sale),
            })),
        });
    }
    Trace {
        trace_events: events,
        display_time_unit: "ms".into(),
    }
}
