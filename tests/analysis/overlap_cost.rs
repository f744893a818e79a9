//! Analysis cost on adversarial inputs: many holds on one key that all
//! overlap. Run with `cargo test --release --no-default-features --test
//! analysis overlap_cost -- --ignored --nocapture`; the figures are in
//! `docs/reliability.md`. The non-ignored cases check the totals, and the
//! sweep in `detect_overlaps` against an all-pairs reference on random holds.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Instant;

use lockreplay::analysis::{
    Cause, Incident, IncidentId, Lease, LeaseId, LockEnd, LogLagArtefact, Opt64, Overlap,
    OverlapId, Settings, WindowEnd, analyze, detect_overlaps,
};
use lockreplay::model::{Event, EventKind, Interner, LoadedLog, LogBuilder, SourceRef};
use proptest::prelude::*;

const MS: i64 = 1_000_000;

fn push(
    b: &mut LogBuilder,
    line: &mut u32,
    at_ms: i64,
    kind: EventKind,
    holder: &str,
    ttl_ms: Option<i64>,
) {
    *line += 1;
    let mut e = Event::new(
        at_ms * MS,
        kind,
        SourceRef {
            file: 0,
            line: *line,
        },
    );
    e.key = Some(b.intern("lock:hot"));
    e.holder = Some(b.intern(holder));
    e.set_ttl_ms(ttl_ms);
    b.push(e);
}

/// One zombie hold (TTL 1 ms, still working at the end) plus `n` short
/// holds, each released before the next: `n` overlap pairs, one incident.
fn zombie_and_short_holds(n: usize) -> LoadedLog {
    let mut b = LogBuilder::new();
    let mut line = 0;
    push(&mut b, &mut line, 0, EventKind::Acquired, "zombie", Some(1));
    for i in 0..n as i64 {
        let h = format!("h{i}");
        push(
            &mut b,
            &mut line,
            10 + 10 * i,
            EventKind::Acquired,
            &h,
            Some(5),
        );
        push(
            &mut b,
            &mut line,
            10 + 10 * i + 2,
            EventKind::Released,
            &h,
            None,
        );
    }
    push(
        &mut b,
        &mut line,
        10 + 10 * n as i64 + 10,
        EventKind::Activity,
        "zombie",
        None,
    );
    b.finish()
}

/// `n` holds, each expired 1 ms after its acquire and all still working at
/// the end: every pair overlaps, n(n-1)/2 pairs.
fn all_expired_all_working(n: usize) -> LoadedLog {
    let mut b = LogBuilder::new();
    let mut line = 0;
    for i in 0..n as i64 {
        push(
            &mut b,
            &mut line,
            10 * i,
            EventKind::Acquired,
            &format!("h{i}"),
            Some(1),
        );
    }
    for i in 0..n as i64 {
        push(
            &mut b,
            &mut line,
            10 * n as i64 + 10 + i,
            EventKind::Activity,
            &format!("h{i}"),
            None,
        );
    }
    b.finish()
}

/// A chain: hold i expires, works on just past hold i+1's acquire, then
/// stops: n-1 pairs, each sharing a hold with the one before (one incident).
fn chain(n: usize) -> LoadedLog {
    let mut b = LogBuilder::new();
    let mut line = 0;
    for i in 0..n as i64 {
        let h = format!("h{i}");
        push(&mut b, &mut line, 100 * i, EventKind::Acquired, &h, Some(1));
        push(
            &mut b,
            &mut line,
            100 * i + 101,
            EventKind::Activity,
            &h,
            None,
        );
    }
    b.finish()
}

fn measure(name: &str, n: usize, log: &LoadedLog) -> (usize, usize, usize, usize) {
    let settings = Settings::default();
    let t = Instant::now();
    let a = analyze(log, &settings);
    let s = t.elapsed().as_secs_f64();
    let listed: usize = a.incidents.iter().map(|i| i.overlaps.len()).sum();
    let unlisted: usize = a.incidents.iter().map(|i| i.overlaps_unlisted).sum();
    // The overlap sweep alone, on the same holds (no log lag in these).
    assert!(a.artefacts.is_empty());
    let t = Instant::now();
    let found = detect_overlaps(&a.leases, &[], settings.max_listed_pairs);
    let sweep_s = t.elapsed().as_secs_f64();
    assert_eq!(found.pairs, a.summary.overlap_pairs);
    eprintln!(
        "{name:<28} n={n:>8} events={:>8} leases={:>8} pairs={:>12} incidents={} listed={listed} unlisted={unlisted}  analyze {s:.3} s (overlaps {sweep_s:.3} s)",
        log.events.len(),
        a.leases.len(),
        a.summary.overlap_pairs,
        a.incidents.len()
    );
    (a.summary.overlap_pairs, a.incidents.len(), listed, unlisted)
}

#[test]
fn overlap_totals_stay_right_when_pairs_are_capped() {
    let n = 12_000;
    let (pairs, incidents, listed, unlisted) =
        measure("zombie + short holds", n, &zombie_and_short_holds(n));
    assert_eq!((pairs, incidents), (n, 1));
    assert_eq!(listed, Settings::default().max_listed_pairs);
    assert_eq!(listed + unlisted, n, "listed + unlisted = all pairs");
    let n = 200;
    let (pairs, incidents, ..) =
        measure("all expired, all working", n, &all_expired_all_working(n));
    assert_eq!((pairs, incidents), (n * (n - 1) / 2, 1));
    let (pairs, incidents, ..) = measure("chain", n, &chain(n));
    assert_eq!((pairs, incidents), (n - 1, 1));
}

#[test]
fn a_million_pairs_cost_a_sweep_not_a_list() {
    // 3 000 holds that all overlap: 4.5 M pairs, one incident of every hold,
    // the first `max_listed_pairs` listed.
    let n = 3_000;
    let a = analyze(&all_expired_all_working(n), &Settings::default());
    assert_eq!(a.summary.overlap_pairs, n * (n - 1) / 2);
    assert_eq!(a.incidents.len(), 1);
    let inc = &a.incidents[0];
    assert_eq!(inc.leases.len(), n);
    assert_eq!(inc.overlaps.len(), Settings::default().max_listed_pairs);
    assert_eq!(
        a.overlaps.len(),
        inc.overlaps.len(),
        "only listed pairs are built"
    );
    assert_eq!(inc.overlaps.len() + inc.overlaps_unlisted, n * (n - 1) / 2);
    // The first pairs in (start, earlier, later) order: hold 0 with 1, then
    // holds 0 and 1 with 2, ...
    let first: Vec<(usize, usize)> = inc.overlaps[..4]
        .iter()
        .map(|&o| (a.overlaps[o].earlier.index(), a.overlaps[o].later.index()))
        .collect();
    assert_eq!(first, [(0, 1), (0, 2), (1, 2), (0, 3)]);
    // Every hold was in an overlap: no near-miss.
    assert_eq!(a.summary.near_misses, 0);
}

/// `n` acquires by `n` holders 1 ns apart (all inside the log-lag
/// tolerance), TTL 30 s. With `lagged`, each holder's release line trails
/// the next acquire by 1 ns (log lag: no overlap); without, every holder
/// releases 1 s later (every lock vanished under the next acquire, every
/// pair overlaps). Without the log-lag index each acquire would scan all
/// the burst after it: n² (300 000 acquires in 1 ms ran past 60 s).
fn acquire_burst(n: usize, lagged: bool) -> LoadedLog {
    let mut b = LogBuilder::new();
    let mut line = 0u32;
    let mut at = |b: &mut LogBuilder, ns: i64, kind: EventKind, holder: &str| {
        line += 1;
        let mut e = Event::new(ns, kind, SourceRef { file: 0, line });
        e.key = Some(b.intern("lock:hot"));
        e.holder = Some(b.intern(holder));
        if kind == EventKind::Acquired {
            e.set_ttl_ms(Some(30_000));
        }
        b.push(e);
    };
    let t0 = 1_000 * MS;
    for i in 0..n as i64 {
        at(&mut b, t0 + 2 * i, EventKind::Acquired, &format!("h{i}"));
        let release = if lagged {
            t0 + 2 * i + 3
        } else {
            t0 + 1_000 * MS + i
        };
        at(&mut b, release, EventKind::Released, &format!("h{i}"));
    }
    b.finish()
}

#[test]
fn a_burst_of_acquires_inside_the_log_lag_tolerance_is_near_linear() {
    let n = 20_000;
    let a = analyze(&acquire_burst(n, false), &Settings::default());
    assert!(a.artefacts.is_empty());
    // The all-pairs reference: every earlier hold with every later one.
    assert_eq!(a.summary.overlap_pairs, n * (n - 1) / 2);
    assert_eq!(a.incidents.len(), 1);
    let a = analyze(&acquire_burst(n, true), &Settings::default());
    assert_eq!(
        a.artefacts.len(),
        n - 1,
        "each release trails the next acquire"
    );
    assert_eq!(a.summary.overlap_pairs, 0);
    assert!(a.incidents.is_empty());
}

#[test]
#[ignore = "timing run; use --release"]
fn adversarial_timings() {
    for n in [30_000, 300_000] {
        for lagged in [false, true] {
            let log = acquire_burst(n, lagged);
            let t = Instant::now();
            let a = analyze(&log, &Settings::default());
            eprintln!(
                "acquire burst (lagged {lagged}) n={n:>8} pairs={:>12} artefacts={} analyze {:.3} s",
                a.summary.overlap_pairs,
                a.artefacts.len(),
                t.elapsed().as_secs_f64()
            );
        }
    }
    for n in [10_000, 100_000, 1_000_000] {
        measure("zombie + short holds", n, &zombie_and_short_holds(n));
    }
    for n in [10_000, 100_000, 1_000_000] {
        measure("chain", n, &chain(n));
    }
    for n in [1_000, 10_000, 100_000, 1_000_000] {
        measure("all expired, all working", n, &all_expired_all_working(n));
    }
}

// ---- The sweep against an all-pairs reference -----------------------------

/// Every pair by the definition (docs/semantics.md §4), O(n²): pairs sorted
/// by (key, start, earlier, later), and the log-lag artefacts.
fn reference_pairs(
    leases: &[Lease],
    log_lag: &[LogLagArtefact],
) -> (Vec<Overlap>, Vec<LogLagArtefact>) {
    let mut pairs = Vec::new();
    let mut artefacts = Vec::new();
    for later in leases {
        for earlier in &leases[..later.id.index()] {
            if earlier.key != later.key
                || earlier.holder == later.holder
                || earlier.window_end_ns <= later.acquired_ns
            {
                continue;
            }
            if let Some(a) = log_lag
                .iter()
                .find(|a| a.earlier == earlier.id && a.later == later.id)
            {
                artefacts.push(a.clone());
                continue;
            }
            let cause = match earlier.lock_end {
                LockEnd::Expired => Cause::LeaseExpired,
                LockEnd::ForeignRelease => Cause::ForeignRelease,
                LockEnd::Vanished => Cause::LockVanished,
                LockEnd::Unknown => Cause::TtlUnknown,
                _ => continue,
            };
            if earlier.lock_end_ns <= later.acquired_ns {
                pairs.push(Overlap {
                    key: later.key,
                    earlier: earlier.id,
                    later: later.id,
                    start_ns: later.acquired_ns,
                    end_ns: earlier.window_end_ns.min(later.window_end_ns),
                    cause,
                });
            }
        }
    }
    let mut rank = HashMap::new();
    for l in leases {
        rank.entry(l.key).or_insert(l.id);
    }
    pairs.sort_by_key(|o| (rank[&o.key], o.start_ns, o.earlier, o.later));
    (pairs, artefacts)
}

/// Incidents by the definition (§5), pair by pair, plus the listed pairs:
/// each incident's first `cap`.
fn reference_incidents(
    leases: &[Lease],
    pairs: &[Overlap],
    cap: usize,
) -> (Vec<Incident>, Vec<Overlap>) {
    let mut incidents: Vec<(Incident, HashSet<LeaseId>, Vec<Overlap>)> = Vec::new();
    for o in pairs {
        let joins = incidents.last().is_some_and(|(inc, holds, _)| {
            inc.key == o.key
                && (o.start_ns <= inc.end_ns
                    || holds.contains(&o.earlier)
                    || holds.contains(&o.later))
        });
        if !joins {
            incidents.push((
                Incident {
                    id: IncidentId::default(),
                    key: o.key,
                    start_ns: o.start_ns,
                    end_ns: o.end_ns,
                    leases: Vec::new(),
                    overlaps: Vec::new(),
                    overlaps_unlisted: 0,
                    cause: o.cause,
                    sales: Vec::new(),
                    oversold_units: 0,
                    loss: lockreplay::money::Loss::default(),
                },
                HashSet::new(),
                Vec::new(),
            ));
        }
        let (inc, holds, listed) = incidents.last_mut().expect("one was just pushed");
        inc.end_ns = inc.end_ns.max(o.end_ns);
        holds.extend([o.earlier, o.later]);
        if listed.len() < cap {
            listed.push(o.clone());
        } else {
            inc.overlaps_unlisted += 1;
        }
    }
    let mut all_listed = Vec::new();
    let mut out = Vec::new();
    for (mut inc, holds, listed) in incidents {
        inc.leases = holds.into_iter().collect();
        inc.leases.sort_by_key(|&l| (leases[l].acquired_ns, l));
        inc.overlaps = (all_listed.len()..all_listed.len() + listed.len())
            .map(OverlapId::new)
            .collect();
        all_listed.extend(listed);
        out.push(inc);
    }
    let mut rank = HashMap::new();
    for l in leases {
        rank.entry(l.key).or_insert(l.id);
    }
    out.sort_by_key(|i| (i.start_ns, rank[&i.key]));
    for (id, inc) in out.iter_mut().enumerate() {
        inc.id = IncidentId::new(id);
    }
    (out, all_listed)
}

const LOCK_ENDS: [LockEnd; 7] = [
    LockEnd::Expired,
    LockEnd::ForeignRelease,
    LockEnd::Vanished,
    LockEnd::Unknown,
    LockEnd::OwnRelease,
    LockEnd::Reacquired,
    LockEnd::StillHeld,
];

/// Holds as `reconstruct_leases` hands them over (id = index, sorted by key
/// then acquire, no window ending before its acquire), but otherwise free:
/// ties, one holder's windows overlapping, locks ending after the window.
/// Each row: (key, acquire step, holder, window length, lock end kind,
/// lock end offset).
fn holds_from(rows: &[(u8, i64, u8, i64, usize, i64)], strings: &mut Interner) -> Vec<Lease> {
    let mut rows = rows.to_vec();
    rows.sort_by_key(|r| r.0);
    let mut leases: Vec<Lease> = Vec::new();
    let mut t = 0;
    for (i, &(key, step, holder, window_ms, lock_end, lock_off_ms)) in rows.iter().enumerate() {
        if i > 0 && rows[i - 1].0 != key {
            t = 0;
        }
        t += step * MS;
        leases.push(Lease {
            id: LeaseId::new(i),
            key: strings.intern(&format!("k{key}")),
            holder: strings.intern(&format!("h{holder}")),
            host: None,
            thread: None,
            acquired_ns: t,
            ttl_ms: Opt64::NONE,
            ttl_unknown: false,
            renewals: None,
            expiry_ns: Opt64::NONE,
            window_end_ns: t + window_ms * MS,
            window_end: WindowEnd::LastEvent,
            lock_end_ns: t + lock_off_ms * MS,
            lock_end: LOCK_ENDS[lock_end],
            ended_by: None,
            inferred: false,
            release_guessed: false,
            lines: Default::default(),
        });
    }
    leases
}

fn check_against_reference(leases: &[Lease], log_lag: &[LogLagArtefact], cap: usize) {
    let (pairs, artefacts) = reference_pairs(leases, log_lag);
    let (incidents, listed) = reference_incidents(leases, &pairs, cap);
    let got = detect_overlaps(leases, log_lag, cap);
    assert_eq!(got.pairs, pairs.len(), "total pairs");
    assert_eq!(got.artefacts, artefacts, "artefacts");
    assert_eq!(got.overlaps, listed, "listed pairs");
    assert_eq!(got.incidents, incidents, "incidents");
    if incidents.iter().all(|i| i.overlaps_unlisted == 0) {
        assert_eq!(got.overlaps, pairs, "under the cap every pair is listed");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn sweep_agrees_with_all_pairs(
        rows in prop::collection::vec(
            (0u8..3, 0i64..4, 0u8..4, 0i64..20, 0usize..7, 0i64..20),
            0..40,
        ),
        lag in prop::collection::vec((0usize..40, 0usize..40), 0..6),
        cap in prop_oneof![Just(1usize), Just(2), Just(3), Just(10_000)],
    ) {
        let mut strings = Interner::with_capacity(8, 32);
        let leases = holds_from(&rows, &mut strings);
        let n = leases.len().max(1);
        let log_lag: Vec<LogLagArtefact> = lag
            .iter()
            .enumerate()
            .map(|(i, &(a, b))| {
                let (a, b) = (a % n, b % n);
                LogLagArtefact {
                    earlier: LeaseId::new(a.min(b)),
                    later: LeaseId::new(a.max(b)),
                    lag_ms: i as f64,
                }
            })
            .collect();
        check_against_reference(&leases, &log_lag, cap);
    }
}

#[test]
fn sweep_agrees_with_all_pairs_on_the_adversarial_shapes() {
    for log in [
        zombie_and_short_holds(50),
        all_expired_all_working(40),
        chain(50),
    ] {
        let set = lockreplay::analysis::reconstruct_leases(
            &log,
            &lockreplay::analysis::apply_host_offsets(&log, &BTreeMap::new()),
            &Settings::default(),
        );
        for cap in [1, 7, 10_000] {
            check_against_reference(&set.leases, &set.log_lag, cap);
        }
    }
}
