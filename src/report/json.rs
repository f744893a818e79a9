//! The JSON report: a stable, documented schema (`docs/json-schema.md`) that
//! other tools read. Typed structs, so the schema is the code.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{ReportInput, explain_incident, snake_name};
use crate::analysis::Lease;
use crate::model::{EventKind, Message, SourceRef, Sym};

/// Version tag written as `schema`.
pub const JSON_SCHEMA_VERSION: &str = "lockreplay/1";

/// Money with its currency.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Money {
    /// Amount in `currency`; `null` when unknown (units were oversold and
    /// no unit loss was given, or products were sold in a log without any
    /// stock level).
    pub amount: Option<f64>,
    /// ISO code, for example `CNY`.
    pub currency: String,
    /// Why `amount` is `null` ([`crate::money::UNKNOWN_REASON`],
    /// [`crate::money::STOCK_UNKNOWN_REASON`]); absent when the amount is
    /// known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unknown_reason: Option<String>,
}

impl Money {
    /// `loss` in `currency`, with the reason when it is unknown.
    pub fn of(loss: crate::money::Loss, currency: &str) -> Money {
        Money {
            amount: loss.amount().map(crate::money::to_cents),
            currency: currency.to_string(),
            unknown_reason: loss.unknown_reason().map(str::to_string),
        }
    }
}

/// Totals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonSummary {
    /// Incidents (groups of overlaps).
    pub incidents: usize,
    /// Overlap pairs over all incidents.
    pub overlap_pairs: usize,
    /// Oversold units over all products.
    pub oversold_units: i64,
    /// Total loss.
    pub loss: Money,
    /// `near_miss` findings.
    pub near_misses: usize,
    /// Unreadable lines.
    pub warnings: u64,
    /// Events loaded.
    pub events: usize,
    /// Lock keys with at least one hold.
    pub keys: usize,
    /// Holders with at least one hold.
    pub holders: usize,
}

/// One overlap pair.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonOverlap {
    /// Lock key.
    pub key: String,
    /// Earlier holder id, as in the log.
    pub earlier: String,
    /// Later holder id, as in the log.
    pub later: String,
    /// Start (the later acquire), RFC 3339.
    pub start: String,
    /// End, RFC 3339.
    pub end: String,
    /// Length of the intersection, ms.
    pub duration_ms: f64,
    /// `lease_expired`, `foreign_release`, `lock_vanished` or `ttl_unknown`.
    pub cause: String,
    /// True when either hold was inferred from a MONITOR replay.
    #[serde(default)]
    pub inferred: bool,
}

/// One hold of an incident.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonHold {
    /// Holder id, as in the log.
    pub holder: String,
    /// Host that acquired, when known.
    pub host: Option<String>,
    /// Grant, RFC 3339.
    pub acquired: String,
    /// TTL of the grant, ms; `null` for a lock without TTL (or with an
    /// unknown one, see `ttl_unknown`).
    pub ttl_ms: Option<i64>,
    /// True when the TTL is unknown, not absent: the file has no TTL field
    /// and none was given for it (added within `lockreplay/1`).
    #[serde(default)]
    pub ttl_unknown: bool,
    /// How the lock ended on the server: `own_release`, `expired`,
    /// `foreign_release`, `vanished`, `unknown` (TTL unknown: expired or
    /// vanished), `reacquired` or `still_held`.
    pub lock_end: String,
    /// When it ended on the server, RFC 3339.
    pub lock_end_at: String,
    /// End of the holder's believed window, RFC 3339.
    pub believed_until: String,
    /// True when the hold was inferred from a MONITOR replay (its acquire is
    /// a replayed `SET NX` that won, not a line the application logged).
    pub inferred: bool,
    /// True when the lock ended by the holder's own release whose holder
    /// was guessed: a replayed `DEL` nothing in the capture ties to a
    /// request, credited to the key's holder (docs/semantics.md §8).
    /// Omitted when false (added within `lockreplay/1`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub release_guessed: bool,
    /// The same hold as the server saw it, when a MONITOR capture of the
    /// lock was loaded beside the application log (added within
    /// `lockreplay/1`; omitted otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<JsonServerHold>,
}

/// A hold as a MONITOR capture shows it: the server's truth beside the
/// application's belief (docs/semantics.md §9).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonServerHold {
    /// When the server granted it, RFC 3339.
    pub acquired: String,
    /// How the lock ended on the server (the names of `lock_end`).
    pub lock_end: String,
    /// When, RFC 3339.
    pub lock_end_at: String,
    /// `file:line` of the granting command in the capture.
    pub source: String,
}

/// A sale inside an incident.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonOrder {
    /// Order id; `null` for a deduction without order.
    pub order_id: Option<String>,
    /// Holder that sold.
    pub holder: Option<String>,
    /// Product.
    pub product: Option<String>,
    /// When, RFC 3339.
    pub at: String,
    /// Units.
    pub quantity: i64,
    /// Units of it beyond the stock.
    pub oversold_units: i64,
    /// `file:line` of the log line.
    pub source: String,
    /// True when the order or stock deduction was inferred from a MONITOR
    /// replay.
    #[serde(default)]
    pub inferred: bool,
    /// `file:line` of the same order (same order id) in a MONITOR capture
    /// loaded beside the application log (added within `lockreplay/1`;
    /// omitted otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_source: Option<String>,
}

/// One incident.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonIncident {
    /// `INC-1`, `INC-2`, ... in time order.
    pub id: String,
    /// Lock key.
    pub key: String,
    /// Start, RFC 3339.
    pub start: String,
    /// End, RFC 3339.
    pub end: String,
    /// Length, ms.
    pub duration_ms: f64,
    /// Holder ids involved, in acquire order.
    pub holders: Vec<String>,
    /// The holds involved, in acquire order (the same as `holders`).
    #[serde(default)]
    pub holds: Vec<JsonHold>,
    /// True when any of its holds or sales was inferred from a MONITOR
    /// replay.
    #[serde(default)]
    pub inferred: bool,
    /// Cause of the first overlap.
    pub cause: String,
    /// Overlap pairs, listed in full up to the cap.
    pub overlaps: Vec<JsonOverlap>,
    /// Overlap pairs beyond the cap, counted only.
    pub overlaps_unlisted: usize,
    /// Sales inside the incident.
    pub orders: Vec<JsonOrder>,
    /// Oversold units attributed to it.
    pub oversold_units: i64,
    /// Its loss.
    pub loss: Money,
    /// One paragraph in plain words.
    pub explanation: String,
    /// Infrastructure evidence that explains it (a failover, a restart, a
    /// GC pause), in time order; absent when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<super::evidence::JsonEvidence>,
}

/// A finding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonFinding {
    /// `near_miss`, `near_miss_streak`, `renewal_gap`, `ghost_renewal`, `no_ttl`,
    /// `foreign_release`, `clock_skew`, `fencing_violation`, `holder_stall` or
    /// `no_acquire` (docs/semantics.md §6).
    pub kind: String,
    /// Lock key.
    pub key: Option<String>,
    /// Holder.
    pub holder: Option<String>,
    /// When, RFC 3339.
    pub at: String,
    /// Plain words.
    pub detail: String,
    /// True when the hold it is about was inferred from a MONITOR replay.
    #[serde(default)]
    pub inferred: bool,
}

/// Stock accounting per product.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonProduct {
    /// Product id (product field, else the lock key).
    pub product: Option<String>,
    /// Initial stock, when known.
    pub initial_stock: Option<i64>,
    /// Units sold.
    pub sold: i64,
    /// Oversold units.
    pub oversold_units: i64,
    /// Last stock level logged.
    pub final_stock: Option<i64>,
    /// Deductions lost to stale read-modify-write.
    pub lost_updates: i64,
}

/// An unreadable line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonWarning {
    /// File name as given.
    pub file: String,
    /// 1-based line (0: the whole file).
    pub line: u64,
    /// Why.
    pub reason: String,
}

/// Per-file accounting.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonSource {
    /// File name as given.
    pub file: String,
    /// Detected dialect.
    pub dialect: String,
    /// Detected encoding.
    pub encoding: String,
    /// Role -> field chosen.
    pub fields: Vec<(String, String)>,
    /// Lines read = events + skipped + warned.
    pub lines_read: u64,
    /// Events loaded.
    pub events: u64,
    /// Readable lines that are not lock or business events.
    pub skipped: u64,
    /// Unreadable lines.
    pub warned: u64,
    /// Lock events (acquire, renewal, release, lock lost) loaded.
    #[serde(default)]
    pub lock_events: u64,
    /// Text layout (`Spring Boot`, `CRI pod log + JSON`...), when text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<String>,
    /// The envelope field that held the application's record (SLS
    /// `content`, Filebeat `message`...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload_field: Option<String>,
    /// Resolution of the chosen time field: `s`, `ms`, `µs` or `ns`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_resolution: Option<String>,
    /// Notes on how the file was read (fields chosen among several, zones,
    /// inferred ties).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The reader that read the file and the runner-up, with the lock
    /// evidence each found in its first lines (at most two).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub readers: Vec<JsonReader>,
    /// Set when no event could be read: what was recognised and what would
    /// make the file readable (the run exits 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
}

/// One reader's bid on a file's first lines.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsonReader {
    /// The reader (`JSON Lines`, `text lines`, `CSV`...).
    pub reader: String,
    /// Lock evidence found: per record, 2 for a lock or business event, 1
    /// each for a lock key, a holder and a readable time.
    pub score: u32,
}

/// The whole report. `I` holds the incidents: a `Vec` when the report is
/// built in memory ([`build`]), a lazy sequence when [`write_json`] streams
/// it (each incident built as it is written); both print the same bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonReport<I = Vec<JsonIncident>> {
    /// [`JSON_SCHEMA_VERSION`].
    pub schema: String,
    /// Why this run is no answer (exit 2): [`crate::analysis::problems`],
    /// each a sentence; omitted when the run was read. With it, zeros below
    /// are not an all-clear (a log whose lock events name no key and
    /// holder would have no other sign of it in the JSON).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_readable: Vec<String>,
    /// Totals.
    pub summary: JsonSummary,
    /// Incidents in time order.
    pub incidents: I,
    /// Findings, by kind then time.
    pub findings: Vec<JsonFinding>,
    /// Stock per product.
    pub products: Vec<JsonProduct>,
    /// Input files.
    pub sources: Vec<JsonSource>,
    /// Unreadable lines (the first 1000 per kind).
    pub warnings: Vec<JsonWarning>,
    /// Warnings counted but not listed.
    pub warnings_unlisted: u64,
}

/// What MONITOR captures loaded beside the application log say of its holds
/// and orders (docs/semantics.md §9), indexed once per report.
struct ServerEvidence<'a> {
    /// The server view's holds by (key, holder), in server-view order.
    holds: HashMap<(Sym, Sym), Vec<&'a Lease>>,
    /// Order id -> the capture line of the first inferred order with that id.
    orders: HashMap<Sym, SourceRef>,
}

impl<'a> ServerEvidence<'a> {
    fn new(r: &ReportInput<'a>) -> ServerEvidence<'a> {
        let mut holds: HashMap<(Sym, Sym), Vec<&Lease>> = HashMap::new();
        for s in &r.analysis.server_view {
            holds.entry((s.key, s.holder)).or_default().push(s);
        }
        let mut orders = HashMap::new();
        for e in &r.log.events {
            if e.inferred
                && e.kind == EventKind::OrderCreated
                && let Some(o) = e.detail().order_id
            {
                orders.entry(o).or_insert(e.source);
            }
        }
        ServerEvidence { holds, orders }
    }

    /// The server view's hold of `l`'s key and holder granted nearest to
    /// `l`'s acquire (a holder can hold a key several times: Redisson reuses
    /// its `uuid:threadId`).
    fn hold(&self, r: &ReportInput<'_>, l: &Lease) -> Option<JsonServerHold> {
        let sv = self
            .holds
            .get(&(l.key, l.holder))?
            .iter()
            .min_by_key(|s| s.acquired_ns.abs_diff(l.acquired_ns))?;
        let src = r.analysis.sources_of(r.log, sv).next()?;
        Some(JsonServerHold {
            acquired: r.rfc3339(sv.acquired_ns),
            lock_end: snake_name(&sv.lock_end),
            lock_end_at: r.rfc3339(sv.lock_end_ns),
            source: format!("{}:{}", r.log.source_name(src), src.line),
        })
    }
}

/// One incident of the report: its holds (with the server's view when a
/// capture was loaded beside the application log), overlaps and sales.
fn incident(
    r: &ReportInput<'_>,
    inc: &crate::analysis::Incident,
    server: &ServerEvidence<'_>,
) -> JsonIncident {
    let a = r.analysis;
    let s = |sym| r.log.strings.get(sym).to_string();
    let money = |loss| Money::of(loss, &r.settings.currency);
    JsonIncident {
        id: inc.label(),
        key: s(inc.key),
        start: r.rfc3339(inc.start_ns),
        end: r.rfc3339(inc.end_ns),
        duration_ms: inc.duration_ms(),
        holders: inc.leases.iter().map(|&l| s(a.leases[l].holder)).collect(),
        holds: inc
            .leases
            .iter()
            .map(|&l| {
                let l = &a.leases[l];
                JsonHold {
                    holder: s(l.holder),
                    host: l.host.map(s),
                    acquired: r.rfc3339(l.acquired_ns),
                    ttl_ms: l.ttl_ms.get(),
                    ttl_unknown: l.ttl_unknown,
                    lock_end: snake_name(&l.lock_end),
                    lock_end_at: r.rfc3339(l.lock_end_ns),
                    believed_until: r.rfc3339(l.window_end_ns),
                    inferred: l.inferred,
                    release_guessed: l.release_guessed,
                    server: server.hold(r, l),
                }
            })
            .collect(),
        inferred: r.incident_inferred(inc),
        cause: inc.cause.as_str().to_string(),
        overlaps: inc
            .overlaps
            .iter()
            .map(|&o| {
                let o = &a.overlaps[o];
                JsonOverlap {
                    key: s(o.key),
                    earlier: s(a.leases[o.earlier].holder),
                    later: s(a.leases[o.later].holder),
                    start: r.rfc3339(o.start_ns),
                    end: r.rfc3339(o.end_ns),
                    duration_ms: o.duration_ms(),
                    cause: o.cause.as_str().to_string(),
                    inferred: r.overlap_inferred(o),
                }
            })
            .collect(),
        overlaps_unlisted: inc.overlaps_unlisted,
        orders: inc
            .sales
            .iter()
            .map(|&i| {
                let x = &a.sales[i];
                let src = r.log.events[x.event].source;
                JsonOrder {
                    order_id: x.order_id.map(s),
                    holder: x.holder.map(s),
                    product: x.product.map(s),
                    at: r.rfc3339(x.at_ns),
                    quantity: x.quantity,
                    oversold_units: x.oversold_units,
                    source: format!("{}:{}", r.log.source_name(src), src.line),
                    inferred: r.sale_inferred(x),
                    server_source: x
                        .order_id
                        .filter(|_| !r.sale_inferred(x))
                        .and_then(|o| server.orders.get(&o))
                        .map(|&src| format!("{}:{}", r.log.source_name(src), src.line)),
                }
            })
            .collect(),
        oversold_units: inc.oversold_units,
        loss: money(inc.loss),
        explanation: explain_incident(r, inc),
        evidence: super::evidence::citations_of(r, inc)
            .map(|c| super::evidence::json(r, inc, c))
            .collect(),
    }
}

/// Builds the typed report in memory (the tests compare it with the
/// streamed one).
#[cfg(test)]
pub fn build(r: &ReportInput<'_>) -> JsonReport {
    let server = ServerEvidence::new(r);
    let incidents = r
        .analysis
        .incidents
        .iter()
        .map(|inc| incident(r, inc, &server))
        .collect();
    assemble(r, incidents)
}

/// Incidents formatted at a time: on every core when there are at least
/// this many, then written in order.
const FORMAT_BATCH: usize = 1024;

/// Spaces before an incident's nested lines in the pretty report: the
/// incidents are the values of an array in the top-level object (depth 2,
/// two spaces a level, as `serde_json::to_writer_pretty` indents).
const INCIDENT_INDENT: &[u8] = b"    ";

/// Where the incidents go in the report written without them: the
/// top-level field (depth 1) with its empty list. JSON strings hold no raw
/// line breaks, so only that field can match.
const INCIDENTS_FIELD: &[u8] = b"\n  \"incidents\": [";

/// `inc` as the pretty report writes it in its list: formatted on its own,
/// its nested lines indented for its depth (JSON strings hold no raw line
/// breaks, so every line break starts a line of the document).
fn incident_text(
    r: &ReportInput<'_>,
    inc: &crate::analysis::Incident,
    server: &ServerEvidence<'_>,
) -> Result<Vec<u8>, serde_json::Error> {
    let flat = serde_json::to_vec_pretty(&incident(r, inc, server))?;
    let mut text = Vec::with_capacity(flat.len() + flat.len() / 8);
    let mut from = 0;
    for at in memchr::memchr_iter(b'\n', &flat) {
        text.extend_from_slice(&flat[from..=at]);
        text.extend_from_slice(INCIDENT_INDENT);
        from = at + 1;
    }
    text.extend_from_slice(&flat[from..]);
    Ok(text)
}

/// Writes the items of the incident list as `serde_json`'s pretty printer
/// would (each on a new line at depth 2, commas between, the closing
/// bracket's line indented at depth 1), [`FORMAT_BATCH`] incidents at a
/// time in parallel (the report of the 10 M overlap-heavy log, 635 MB,
/// takes 4.4 s on one core), in order: byte for byte the serial
/// report, with one batch in memory. Each incident is written as it was
/// formatted: not parsed again (`RawValue` would validate every
/// incident's text, a second parse of the whole report).
fn write_incidents(
    r: &ReportInput<'_>,
    server: &ServerEvidence<'_>,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    use rayon::prelude::*;
    let incidents = &r.analysis.incidents;
    if incidents.is_empty() {
        return Ok(());
    }
    let parallel = incidents.len() >= FORMAT_BATCH;
    let one = |inc| incident_text(r, inc, server);
    let mut first = true;
    for batch in incidents.chunks(FORMAT_BATCH) {
        let texts: Vec<_> = if parallel {
            batch.par_iter().map(one).collect()
        } else {
            batch.iter().map(one).collect()
        };
        for text in texts {
            w.write_all(if first { b"\n    " } else { b",\n    " })?;
            w.write_all(&text.map_err(std::io::Error::from)?)?;
            first = false;
        }
    }
    w.write_all(b"\n  ")
}

/// Writes the JSON report, pretty-printed, to `w`, building each incident
/// only as it is written: memory stays the analysis's, not the report's
/// (a report of 10 M events is 670 MB).
/// The report around the incidents is formatted first, with an empty
/// list, and the incidents are written into its place. Byte for byte
/// `serde_json::to_writer_pretty` of the whole report (tests below).
///
/// # Errors
/// When `w` fails (a closed pipe, a full disk).
pub fn write_json(r: &ReportInput<'_>, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let server = ServerEvidence::new(r);
    let shell = serde_json::to_vec_pretty(&assemble(r, [(); 0]))?;
    let at = memchr::memmem::find(&shell, INCIDENTS_FIELD)
        .map(|at| at + INCIDENTS_FIELD.len())
        .ok_or_else(|| std::io::Error::other("the report has no incident list"))?;
    w.write_all(&shell[..at])?;
    write_incidents(r, &server, w)?;
    w.write_all(&shell[at..])
}

/// The report around `incidents`.
fn assemble<I>(r: &ReportInput<'_>, incidents: I) -> JsonReport<I> {
    let a = r.analysis;
    let s = |sym| r.log.strings.get(sym).to_string();
    let money = |loss| Money::of(loss, &r.settings.currency);
    JsonReport {
        schema: super::JSON_SCHEMA_VERSION.to_string(),
        not_readable: crate::analysis::problems(r.log, r.analysis)
            .iter()
            .map(crate::model::Message::en)
            .collect(),
        summary: JsonSummary {
            incidents: a.summary.incidents,
            overlap_pairs: a.summary.overlap_pairs,
            oversold_units: a.summary.oversold_units,
            loss: money(a.summary.loss),
            near_misses: a.summary.near_misses,
            warnings: a.summary.warnings,
            events: a.summary.events,
            keys: a.summary.keys,
            holders: a.summary.holders,
        },
        incidents,
        findings: a
            .findings
            .iter()
            .map(|f| JsonFinding {
                kind: f.kind.as_str().to_string(),
                key: f.key.map(s),
                holder: f.holder.map(s),
                at: r.rfc3339(f.at_ns),
                detail: crate::model::Message::en(&f.detail),
                inferred: r.finding_inferred(f),
            })
            .collect(),
        products: a
            .products
            .iter()
            .map(|p| JsonProduct {
                product: p.product.map(s),
                initial_stock: p.initial_stock,
                sold: p.sold,
                oversold_units: p.oversold,
                final_stock: p.final_stock,
                lost_updates: p.lost_updates,
            })
            .collect(),
        sources: r
            .log
            .sources
            .iter()
            .map(|src| JsonSource {
                file: src.name.clone(),
                dialect: snake_name(&src.dialect),
                encoding: src.encoding.clone(),
                fields: src.fields.clone(),
                lines_read: src.lines_read,
                events: src.events_loaded,
                skipped: src.lines_skipped,
                warned: src.lines_warned,
                lock_events: src.lock_events,
                layout: src.layout.clone(),
                payload_field: src.payload_field.clone(),
                time_resolution: src.time_resolution.clone(),
                notes: src.notes.iter().map(ToString::to_string).collect(),
                readers: src
                    .readers
                    .iter()
                    .take(2)
                    .map(|(reader, score)| JsonReader {
                        reader: reader.clone(),
                        score: *score,
                    })
                    .collect(),
                unreadable: src.unreadable.clone(),
            })
            .collect(),
        warnings: r
            .log
            .warnings
            .kept()
            .iter()
            .map(|w| JsonWarning {
                file: w.file.clone(),
                line: w.line,
                reason: w.reason.en(),
            })
            .collect(),
        warnings_unlisted: r.log.warnings.dropped(),
    }
}

/// The JSON report, pretty-printed ([`write_json`] into memory).
pub fn to_json(r: &ReportInput<'_>) -> String {
    let mut out = Vec::new();
    match write_json(r, &mut out) {
        Ok(()) => String::from_utf8(out).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}")),
        Err(e) => format!("{{\"error\": \"{e}\"}}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bytes` read as the file `name` with the default options.
    fn loaded(name: &str, bytes: &[u8]) -> crate::model::LoadedLog {
        let mut b = crate::model::LogBuilder::new();
        crate::ingest::read_source(
            name,
            bytes,
            &crate::ingest::IngestOptions::default(),
            &mut b,
            &crate::ingest::Progress::default(),
        )
        .expect("loads");
        b.finish()
    }

    #[test]
    fn the_streamed_report_is_the_built_one() {
        let log = loaded(
            "seed-incident.jsonl",
            include_bytes!("../../sample-logs/seed-incident.jsonl"),
        );
        let settings = crate::analysis::Settings {
            unit_loss: Some(200.0),
            ..Default::default()
        };
        let analysis = crate::analysis::analyze(&log, &settings);
        let r = ReportInput {
            log: &log,
            settings: &settings,
            analysis: &analysis,
        };
        assert!(!analysis.incidents.is_empty());
        let built = serde_json::to_string_pretty(&build(&r)).expect("json");
        assert_eq!(to_json(&r), built);
    }

    #[test]
    fn a_report_without_incidents_is_the_built_one() {
        // The healthy watchdog sample: no incident, so the incident list is
        // the empty one the report around it was formatted with.
        let log = loaded(
            "seed-fixed-watchdog.jsonl",
            include_bytes!("../../sample-logs/seed-fixed-watchdog.jsonl"),
        );
        let settings = crate::analysis::Settings::default();
        let analysis = crate::analysis::analyze(&log, &settings);
        let r = ReportInput {
            log: &log,
            settings: &settings,
            analysis: &analysis,
        };
        assert!(analysis.incidents.is_empty());
        let built = serde_json::to_string_pretty(&build(&r)).expect("json");
        assert!(built.contains("\n  \"incidents\": [],\n"));
        assert_eq!(to_json(&r), built);
    }

    #[test]
    fn incidents_formatted_in_parallel_give_the_built_report() {
        // One lease overrun per key: more incidents than a batch, so they
        // are formatted on every core.
        let mut text = String::new();
        let n = FORMAT_BATCH + FORMAT_BATCH / 2 + 7;
        for k in 0..n {
            let at =
                |ms: usize| format!("2024-01-01T00:{:02}:{:02}.{:03}Z", k / 600, k / 10 % 60, ms);
            for (ms, event, holder) in [
                (0, "acquired", "a"),
                (200, "acquired", "b"),
                (300, "released", "a"),
                (400, "released", "b"),
            ] {
                text.push_str(&format!(
                    "{{\"ts\":\"{}\",\"event\":\"{event}\",\"key\":\"lock:{k}\",\"holder\":\"{holder}-{k}\",\"ttl_ms\":100}}\n",
                    at(ms)
                ));
            }
        }
        let log = loaded("many.jsonl", text.as_bytes());
        let settings = crate::analysis::Settings::default();
        let analysis = crate::analysis::analyze(&log, &settings);
        assert_eq!(analysis.incidents.len(), n);
        let r = ReportInput {
            log: &log,
            settings: &settings,
            analysis: &analysis,
        };
        let built = serde_json::to_string_pretty(&build(&r)).expect("json");
        assert_eq!(to_json(&r), built);
    }

    #[test]
    fn a_report_written_before_inferred_still_reads() {
        let overlap = r#"{"key": "k", "earlier": "a", "later": "b", "start": "s", "end": "e",
            "duration_ms": 1.0, "cause": "lease_expired"}"#;
        let o: Result<JsonOverlap, _> = serde_json::from_str(overlap);
        assert!(o.is_ok_and(|o| !o.inferred));
        let order = r#"{"order_id": null, "holder": null, "product": null, "at": "t",
            "quantity": 1, "oversold_units": 0, "source": "f:1"}"#;
        let o: Result<JsonOrder, _> = serde_json::from_str(order);
        assert!(o.is_ok_and(|o| !o.inferred));
        let incident = r#"{"id": "INC-1", "key": "k", "start": "s", "end": "e",
            "duration_ms": 1.0, "holders": ["a"], "cause": "lease_expired", "overlaps": [],
            "overlaps_unlisted": 0, "orders": [], "oversold_units": 0,
            "loss": {"amount": 0.0, "currency": "CNY"}, "explanation": "x"}"#;
        let i: Result<JsonIncident, _> = serde_json::from_str(incident);
        assert!(i.is_ok_and(|i| !i.inferred && i.holds.is_empty()));
    }

    #[test]
    fn a_guessed_release_is_written_only_when_true() {
        let hold = r#"{"holder": "a", "host": null, "acquired": "t", "ttl_ms": 100,
            "lock_end": "own_release", "lock_end_at": "t", "believed_until": "t",
            "inferred": true}"#;
        let Ok(mut h) = serde_json::from_str::<JsonHold>(hold) else {
            panic!("a hold written before release_guessed reads");
        };
        assert!(!h.release_guessed);
        let text = |h: &JsonHold| serde_json::to_string(h).unwrap_or_default();
        assert!(!text(&h).contains("release_guessed"));
        h.release_guessed = true;
        assert!(text(&h).contains(r#""release_guessed":true"#));
    }
}
