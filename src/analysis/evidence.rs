//! Ties infrastructure evidence ([`crate::model::Evidence`]) to incidents:
//! which failover, restart or flush made a lock vanish, which stall of its
//! holder's process made a lease run out; and the `holder_stall` finding
//! (docs/semantics.md §11 states the rule).

use serde::Serialize;

use super::{
    Cause, EventId, Finding, FindingKind, Incident, IncidentId, Lease, LeaseId, Overlap, Settings,
};
use crate::model::{Dialect, Evidence, EvidenceKind, EvidenceOrigin, LoadedLog, ServerAddr, Sym};

/// What a cited line explains.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, bitcode::Encode, bitcode::Decode)]
#[serde(rename_all = "snake_case")]
pub enum CitationRole {
    /// The server lost the earlier holder's lock (failover, restart, flush,
    /// eviction) between its grant and the next holder's acquire.
    Vanished,
    /// The earlier holder's process (or the server) stalled inside the hold:
    /// why its lease ran out while it still worked.
    Stall,
}

/// One incident's cited evidence line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, bitcode::Encode, bitcode::Decode)]
pub struct Citation {
    /// The incident.
    pub incident: IncidentId,
    /// The hold it explains (an overlap's earlier hold).
    pub lease: LeaseId,
    /// The evidence line: its position in [`LoadedLog::evidence`].
    pub evidence: usize,
    /// What it explains.
    pub role: CitationRole,
    /// True when the line is tied to the hold by its host or its process
    /// ([`stall_matches`]), or by the server's address ([`server_tie`]);
    /// false when it was matched by time alone: a guess, said as one.
    /// `by_host` in JSON.
    #[serde(rename = "by_host")]
    pub tied: bool,
}

/// How far a line may fall outside its window, ns: the log-lag tolerance
/// (a server's clock and the application's differ by that much).
fn slack_ns(settings: &Settings) -> i64 {
    (settings.log_lag_tolerance_ms * 1e6) as i64
}

/// Preference among the lines that can explain a vanished lock: the
/// Sentinel's switch first, a restart last but one.
fn vanish_rank(k: EvidenceKind) -> u8 {
    match k {
        EvidenceKind::Failover => 0,
        EvidenceKind::Promoted => 1,
        EvidenceKind::Restart => 2,
        EvidenceKind::Flush => 3,
        _ => 4,
    }
}

/// Whether a stall line concerns `lease`'s process: `Some(true)` when its
/// host is the hold's (equal, or one contains the other), `None` when it
/// names another known host; when its host names no hold's, by its process
/// id (a JVM's `pid` decoration, a pid in the GC log's file name) when one
/// of the holder's tokens is that id (`4242@web-01`, Java's runtime name,
/// and `host:pid:uuid` holders), `None` when another hold's is; else
/// `Some(false)` (matched by time only). A slow command on the server
/// stalls every client.
pub fn stall_matches(
    log: &LoadedLog,
    leases: &[Lease],
    ev: &Evidence,
    lease: &Lease,
) -> Option<bool> {
    if ev.origin == EvidenceOrigin::Slowlog {
        return Some(true);
    }
    if let Some(h) = ev.host.as_deref().filter(|h| h.len() >= 2) {
        let same = |l: &Lease| same_host(log, h, l);
        if same(lease) {
            return Some(true);
        } else if leases.iter().any(same) {
            return None;
        }
    }
    let Some(p) = ev.process.as_deref().filter(|p| p.len() >= 2) else {
        return Some(false);
    };
    let named = |l: &Lease| holder_names_process(log, p, l);
    if named(lease) {
        Some(true)
    } else if leases.iter().any(named) {
        None
    } else {
        Some(false)
    }
}

/// True when one of `lease`'s holder's tokens (split at every character
/// that is no letter or digit) is the process id `pid`.
pub fn holder_names_process(log: &LoadedLog, pid: &str, lease: &Lease) -> bool {
    log.strings
        .get(lease.holder)
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|t| t == pid)
}

/// True when an evidence line's host `h` is `lease`'s: its host equal to
/// `h` or one containing the other, or its holder naming `h` (Redisson's
/// and many libraries' holders carry the host).
pub fn same_host(log: &LoadedLog, h: &str, lease: &Lease) -> bool {
    if h.len() < 2 {
        return false;
    }
    let host = lease.host.map_or("", |s| log.strings.get(s));
    let holder = log.strings.get(lease.holder);
    (!host.is_empty() && (host == h || host.contains(h) || h.contains(host))) || holder.contains(h)
}

/// The last grant of a hold (acquire or last counted renewal), ns.
fn last_grant_ns(l: &Lease) -> i64 {
    l.renewals_ns().last().copied().unwrap_or(l.acquired_ns)
}

/// The MONITOR captures (source indexes) whose events carry each holder
/// token: a capture linked to an application log (docs/semantics.md §9)
/// shows the server side of the application's holds under the same token.
pub type CapturesByHolder = hashbrown::HashMap<Sym, Vec<u16>>;

/// [`CapturesByHolder`] of `log`; empty when it has no MONITOR capture.
pub fn captures_by_holder(log: &LoadedLog) -> CapturesByHolder {
    let mut out = CapturesByHolder::default();
    let capture = |f: u16| {
        log.sources
            .get(usize::from(f))
            .is_some_and(|s| s.dialect == Dialect::RedisMonitor)
    };
    for e in &log.events {
        if let Some(h) = e.holder.filter(|_| capture(e.source.file)) {
            let files = out.entry(h).or_default();
            if !files.contains(&e.source.file) {
                files.push(e.source.file);
            }
        }
    }
    out
}

/// The servers hold `l` was granted on or seen by, as far as the log says:
/// the address in the name of each MONITOR capture that shows its events or
/// its holder's token (`monitor-27001.log`), and every address its lines'
/// messages write (`acquired on 10.0.0.5:6379`). `lines` is the list
/// `l.lines` indexes.
pub fn servers_of(
    log: &LoadedLog,
    (lines, captures): (&[EventId], &CapturesByHolder),
    l: &Lease,
) -> Vec<ServerAddr> {
    let mut files: Vec<u16> = captures.get(&l.holder).cloned().unwrap_or_default();
    let mut out: Vec<ServerAddr> = Vec::new();
    for &i in l.lines.of(lines) {
        let e = &log.events[i];
        files.push(e.source.file);
        if let Some(m) = e.detail().message {
            out.extend(ServerAddr::in_text(log.strings.get(m)));
        }
    }
    files.sort_unstable();
    files.dedup();
    for f in files {
        let src = log.sources.get(usize::from(f));
        if let Some(src) = src.filter(|s| s.dialect == Dialect::RedisMonitor) {
            out.extend(ServerAddr::of_file_name(&src.name));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The servers an evidence line is about: a Redis server's own log by its
/// file name (`redis-27001.log`), every other origin by the addresses its
/// words write (Sentinel's `+switch-master mymaster <old ip> <old port>
/// <new ip> <new port>`, an operator's `failover of 10.0.0.5:6379`).
/// Empty when it names none.
pub fn servers_named(log: &LoadedLog, ev: &Evidence) -> Vec<ServerAddr> {
    match ev.origin {
        EvidenceOrigin::RedisServer => ServerAddr::of_file_name(base_name(log, ev))
            .into_iter()
            .collect(),
        _ => ServerAddr::in_text(&ev.what),
    }
}

/// Whether a server's line concerns the holds whose servers are `holds`:
/// `Some(true)` when it names one of them, `None` when both sides name
/// servers and none is the other's (another server's restart explains
/// nothing here), `Some(false)` when either side names none (matched by
/// time only).
pub fn server_tie(named: &[ServerAddr], holds: &[ServerAddr]) -> Option<bool> {
    if named.is_empty() || holds.is_empty() {
        Some(false)
    } else if named.iter().any(|n| holds.iter().any(|h| n.same(h))) {
        Some(true)
    } else {
        None
    }
}

/// The server line that best explains the vanished lock of the pair
/// (`e`, `l`): the lines that lose keys between `e`'s grant and `l`'s
/// acquire (within the log-lag tolerance), the tied ones first (by the
/// holds' host or their server's address), then by [`vanish_rank`] and
/// time. Lines naming only other servers are left out.
fn vanish_line(
    log: &LoadedLog,
    on: (&[EventId], &CapturesByHolder),
    (e, l): (&Lease, &Lease),
    slack: i64,
) -> Option<(usize, bool)> {
    let mut holds = servers_of(log, on, e);
    holds.extend(servers_of(log, on, l));
    log.evidence
        .iter()
        .enumerate()
        .filter(|(_, ev)| {
            ev.kind.loses_keys()
                && ev.at_ns >= e.acquired_ns - slack
                && ev.at_ns <= l.acquired_ns + slack
        })
        .filter_map(|(i, ev)| {
            let by_host = ev
                .host
                .as_deref()
                .is_some_and(|h| same_host(log, h, e) || same_host(log, h, l));
            let by_addr = server_tie(&servers_named(log, ev), &holds)?;
            Some((i, ev, by_host || by_addr))
        })
        .min_by_key(|&(_, ev, tied)| (!tied, vanish_rank(ev.kind), ev.at_ns))
        .map(|(i, _, tied)| (i, tied))
}

/// The evidence each incident cites: per overlap pair, for a vanished lock
/// (or an unknown TTL) the best server line between the earlier grant and
/// the later acquire ([`vanish_line`]); for every pair but a foreign
/// release the longest stall of the earlier holder that began inside its
/// hold, before the later acquire, and reached past its last grant. Sorted
/// by incident, then time. `lines` is the list the holds' `lines` index.
pub fn cite(
    log: &LoadedLog,
    (leases, lines): (&[Lease], &[EventId]),
    overlaps: &[Overlap],
    incidents: &[Incident],
    settings: &Settings,
) -> Vec<Citation> {
    if log.evidence.is_empty() {
        return Vec::new();
    }
    let slack = slack_ns(settings);
    let captures = std::cell::OnceCell::new();
    let mut out: Vec<Citation> = Vec::new();
    for inc in incidents {
        for &o in &inc.overlaps {
            let o = &overlaps[o];
            let (e, l) = (&leases[o.earlier], &leases[o.later]);
            if matches!(o.cause, Cause::LockVanished | Cause::TtlUnknown)
                && let Some((i, tied)) = vanish_line(
                    log,
                    (lines, captures.get_or_init(|| captures_by_holder(log))),
                    (e, l),
                    slack,
                )
            {
                out.push(Citation {
                    incident: inc.id,
                    lease: e.id,
                    evidence: i,
                    role: CitationRole::Vanished,
                    tied,
                });
            }
            if o.cause != Cause::ForeignRelease
                && let Some((i, tied)) = stall_line(log, leases, (e, l), slack)
            {
                out.push(Citation {
                    incident: inc.id,
                    lease: e.id,
                    evidence: i,
                    role: CitationRole::Stall,
                    tied,
                });
            }
        }
    }
    out.sort_by_key(|c| (c.incident, log.evidence[c.evidence].at_ns, c.evidence));
    out.dedup_by_key(|c| (c.incident, c.evidence));
    out
}

/// The longest stall of `e`'s process (or the server) that began inside
/// its hold, before `l`'s acquire (within `slack`), and reached past its
/// last grant; tied lines first ([`stall_matches`]).
fn stall_line(
    log: &LoadedLog,
    leases: &[Lease],
    (e, l): (&Lease, &Lease),
    slack: i64,
) -> Option<(usize, bool)> {
    let from = last_grant_ns(e);
    log.evidence
        .iter()
        .enumerate()
        .filter(|(_, ev)| ev.kind.is_stall())
        .filter_map(|(i, ev)| {
            let end = ev.end_ns.unwrap_or(ev.at_ns);
            let inside = ev.at_ns <= e.window_end_ns
                && end >= from
                && ev.at_ns <= l.acquired_ns + slack
                && end > from.max(ev.at_ns);
            let tied = stall_matches(log, leases, ev, e)?;
            inside.then_some((i, end - ev.at_ns, tied))
        })
        .max_by_key(|&(i, len, tied)| (tied, len, std::cmp::Reverse(i)))
        .map(|(i, _, tied)| (i, tied))
}

/// Share of the TTL a stall must take to be a `holder_stall` finding: more
/// than half ("most of its TTL").
pub const STALL_SHARE: f64 = 0.5;

/// `holder_stall`: a hold whose process (or server) stalled, within the
/// hold, for more than [`STALL_SHARE`] of its TTL, whatever the stall's
/// source (GC pause, safepoint, slow command). One finding per hold, for its
/// longest such stall; lines matched by time only are left out (they are
/// cited as guesses, not findings).
pub fn holder_stalls(log: &LoadedLog, leases: &[Lease]) -> Vec<Finding> {
    if !log.evidence.iter().any(|e| e.kind.is_stall()) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for l in leases {
        let Some(ttl_ms) = l.ttl_ms.get().filter(|&t| t > 0) else {
            continue;
        };
        let from = last_grant_ns(l);
        let best = log
            .evidence
            .iter()
            .filter(|ev| ev.kind.is_stall())
            .filter(|ev| stall_matches(log, leases, ev, l) == Some(true))
            .filter_map(|ev| {
                let end = ev.end_ns?;
                let eaten = end.min(l.window_end_ns) - ev.at_ns.max(from);
                (eaten as f64 > STALL_SHARE * ttl_ms as f64 * 1e6).then_some((ev, eaten))
            })
            .max_by_key(|&(ev, eaten)| (eaten, std::cmp::Reverse(ev.at_ns)));
        if let Some((ev, _)) = best {
            let len_ms = ev.length_ms().unwrap_or(0.0);
            out.push(Finding {
                kind: FindingKind::HolderStall,
                key: Some(l.key),
                holder: Some(l.holder),
                lease: Some(l.id),
                at_ns: ev.at_ns,
                detail: super::FindingDetail::HolderStall {
                    host: ev.host.clone(),
                    stall_ms: len_ms.round(),
                    kind: ev.kind,
                    ttl_ms,
                    file: base_name(log, ev).to_string(),
                    line: ev.source.line,
                },
            });
        }
    }
    out
}

/// The file name (no folders) an evidence line came from.
pub fn base_name<'a>(log: &'a LoadedLog, ev: &Evidence) -> &'a str {
    let name = log.source_name(crate::model::SourceRef {
        file: ev.source.file,
        line: ev.source.line,
    });
    std::path::Path::new(name)
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or(name)
}
