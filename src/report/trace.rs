//! The Chrome trace-event file of the report folder (`trace.json`), which
//! Perfetto UI and chrome://tracing open: one process per lock key, one
//! thread per holder.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::ReportInput;
use crate::analysis::{Lease, Overlap, Sale};
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
    let a = r.analysis;
    let t0 = a.leases.iter().map(|l| l.acquired_ns).min().unwrap_or(0);
    let mut lanes = Lanes::default();
    for l in a.leases.iter().filter(|l| keep(l)) {
        let (pid, tid) = lanes.lane_of(r, l.key, l.holder);
        lanes.events.push(lease_event(r, l, t0, pid, tid));
        if let Some(z) = zombie_event(r, l, t0, pid, tid) {
            lanes.events.push(z);
        }
    }
    for o in &a.overlaps {
        let Some(&pid) = lanes.pids.get(&o.key) else {
            continue;
        };
        lanes.events.push(overlap_event(r, o, t0, pid));
    }
    for sale in a.sales.iter().filter(|x| x.oversold_units > 0) {
        let Some(key) = sale.key else { continue };
        let pid = match lanes.pids.get(&key) {
            Some(&pid) => pid,
            None if all => 0,
            None => continue,
        };
        let tid = sale
            .holder
            .and_then(|h| lanes.tids.get(&(key, h)).copied())
            .unwrap_or(0);
        lanes.events.push(oversold_event(r, sale, t0, pid, tid));
    }
    Trace {
        trace_events: lanes.events,
        display_time_unit: "ms".into(),
    }
}

/// The trace's events so far and the process and thread of each lock key
/// and holder, numbered as they are first met (1-based).
#[derive(Default)]
struct Lanes {
    events: Vec<TraceEvent>,
    pids: HashMap<Sym, u32>,
    tids: HashMap<(Sym, Sym), u32>,
    /// Holders seen on each key so far: a count per key, not a scan of
    /// every (key, holder) pair per lease (quadratic).
    threads_per_key: HashMap<Sym, u32>,
}

impl Lanes {
    /// The (process, thread) of `holder` on `key`, each named by a metadata
    /// event the first time it is met.
    fn lane_of(&mut self, r: &ReportInput<'_>, key: Sym, holder: Sym) -> (u32, u32) {
        let s = |sym| r.log.strings.get(sym).to_string();
        let next_pid = self.pids.len() as u32 + 1;
        let pid = *self.pids.entry(key).or_insert_with(|| {
            self.events
                .push(metadata("process_name", next_pid, 0, s(key)));
            next_pid
        });
        let threads = self.threads_per_key.entry(key).or_insert(0u32);
        let next_tid = *threads + 1;
        let tid = *self.tids.entry((key, holder)).or_insert_with(|| {
            *threads += 1;
            self.events
                .push(metadata("thread_name", pid, next_tid, s(holder)));
            next_tid
        });
        (pid, tid)
    }
}

/// `ns` as µs since `t0_ns`.
fn us(ns: i64, t0_ns: i64) -> f64 {
    (ns - t0_ns) as f64 / 1000.0
}

/// The fields of a JSON object, for an event's `args`.
fn args(pairs: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    pairs.as_object().cloned().unwrap_or_default()
}

/// A metadata event naming a process or a thread (`what`).
fn metadata(what: &str, pid: u32, tid: u32, name: String) -> TraceEvent {
    TraceEvent {
        name: what.into(),
        cat: "__metadata".into(),
        ph: "M".into(),
        ts: 0.0,
        dur: None,
        pid,
        tid,
        s: None,
        args: args(json!({ "name": name })),
    }
}

/// A lease as a complete event, from its grant to the end of its window.
fn lease_event(r: &ReportInput<'_>, l: &Lease, t0: i64, pid: u32, tid: u32) -> TraceEvent {
    let s = |sym| r.log.strings.get(sym).to_string();
    let end = l.window_end_ns.max(l.acquired_ns);
    TraceEvent {
        name: "lease".into(),
        cat: "lease".into(),
        ph: "X".into(),
        ts: us(l.acquired_ns, t0),
        dur: Some(us(end, t0) - us(l.acquired_ns, t0)),
        pid,
        tid,
        s: None,
        args: args(json!({
            "holder": s(l.holder),
            "host": l.host.map(s),
            "ttl_ms": l.ttl_ms,
            "renewals": l.renewals_ns().len(),
            "lock_end": l.lock_end,
            "lock_end_at": r.rfc3339(l.lock_end_ns),
            "inferred": l.inferred,
        })),
    }
}

/// A lease's zombie part (the holder acting after its lock ended), if any.
fn zombie_event(r: &ReportInput<'_>, l: &Lease, t0: i64, pid: u32, tid: u32) -> Option<TraceEvent> {
    let (z0, z1) = l.zombie_ns()?;
    Some(TraceEvent {
        name: "zombie hold".into(),
        cat: "zombie".into(),
        ph: "X".into(),
        ts: us(z0, t0),
        dur: Some(us(z1, t0) - us(z0, t0)),
        pid,
        tid,
        s: None,
        args: args(json!({ "holder": r.log.strings.get(l.holder), "lock_end": l.lock_end })),
    })
}

/// An overlap as an instant over its key's whole process.
fn overlap_event(r: &ReportInput<'_>, o: &Overlap, t0: i64, pid: u32) -> TraceEvent {
    let a = r.analysis;
    let s = |sym| r.log.strings.get(sym).to_string();
    TraceEvent {
        name: format!("overlap: {}", o.cause.as_str()),
        cat: "overlap".into(),
        ph: "i".into(),
        ts: us(o.start_ns, t0),
        dur: None,
        pid,
        tid: 0,
        s: Some("p".into()),
        args: args(json!({
            "earlier": s(a.leases[o.earlier].holder),
            "later": s(a.leases[o.later].holder),
            "duration_ms": o.duration_ms(),
            "inferred": r.overlap_inferred(o),
        })),
    }
}

/// An oversold order as an instant on its holder's thread.
fn oversold_event(r: &ReportInput<'_>, sale: &Sale, t0: i64, pid: u32, tid: u32) -> TraceEvent {
    let s = |sym| r.log.strings.get(sym).to_string();
    let unit_loss = r.settings.unit_loss;
    TraceEvent {
        name: "oversold order".into(),
        cat: "oversell".into(),
        ph: "i".into(),
        ts: us(sale.at_ns, t0),
        dur: None,
        pid,
        tid,
        s: Some("t".into()),
        args: args(json!({
            "order_id": sale.order_id.map(s),
            "oversold_units": sale.oversold_units,
            "loss": crate::money::loss(sale.oversold_units, unit_loss),
            "loss_unknown_reason": (unit_loss.is_none() && sale.oversold_units != 0).then_some(crate::money::UNKNOWN_REASON),
            "currency": r.settings.currency,
            "inferred": r.sale_inferred(sale),
        })),
    }
}
