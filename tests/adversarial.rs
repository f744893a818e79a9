//! Analysis cost on adversarial inputs: many holds on one key that all
//! overlap. Run with `cargo test --release --no-default-features --test
//! adversarial -- --ignored --nocapture`; the figures are in
//! `docs/reliability.md`. The small non-ignored case checks the totals.

use std::time::Instant;

use lockreplay::analysis::{Settings, analyze};
use lockreplay::model::{Event, EventKind, LoadedLog, LogBuilder, SourceRef};

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
    e.ttl_ms = ttl_ms;
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
    eprintln!(
        "{name:<28} n={n:>8} events={:>8} leases={:>8} pairs={:>10} incidents={} listed={listed} unlisted={unlisted}  {s:.3} s",
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
#[ignore = "timing run; use --release"]
fn adversarial_timings() {
    for n in [10_000, 100_000, 1_000_000] {
        measure("zombie + short holds", n, &zombie_and_short_holds(n));
    }
    for n in [10_000, 20_000, 40_000] {
        measure("chain", n, &chain(n));
    }
    for n in [250, 500, 1_000] {
        measure("all expired, all working", n, &all_expired_all_working(n));
    }
}
