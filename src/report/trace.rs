//! The Chrome trace-event file of the report folder (`trace.json`), which
//! Perfetto UI and chrome://tracing open: one process per lock key, one
//! thread per holder.

use serde::{Deserialize, Serialize};

use super::ReportInput;

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

/// Builds the trace: one process per lock key, one thread per holder,
/// leases as complete events, overlaps and oversold orders as instants.
pub fn chrome_trace(r: &ReportInput<'_>) -> Trace {
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
    for l in &a.leases {
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
        // every (key, holder) pair per lease (quadratic).
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
        let pid = pids.get(&o.key).copied().unwrap_or(0);
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
        let pid = pids.get(&key).copied().unwrap_or(0);
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
