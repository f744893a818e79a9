//! Two real captures (how each was made is in its folder's README): a redis-py connection pool with a hand-written
//! SETNX/DEL lock (`tests/fixtures/monitor/pool/`), whose application log is
//! the ground truth, and Alibaba's TairString module loaded into a real
//! redis-server (`tests/fixtures/monitor/tair/`), whose replies were
//! recorded beside the capture.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use lockreplay::analysis::{Analysis, Settings, analyze};
use lockreplay::ingest::monitor::parse_line;
use lockreplay::ingest::{IngestOptions, Progress, load_paths};
use lockreplay::model::{EventKind, LoadedLog, SourceInfo};
use lockreplay::redis_model::{Keyspace, Outcome};
use serde_json::Value;

use crate::support;

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/monitor")
        .join(path)
}

fn replay(path: &str) -> (LoadedLog, SourceInfo) {
    support::replay_capture(&fixture(path), path)
}

/// True when the model's `out` is what the client saw (`reply`, as
/// redis-py 8 returns it: `True`/`None` for `SET`, errors as text without
/// their `ERR `).
fn same_reply(out: &Outcome, reply: &Value) -> bool {
    match (out, reply) {
        (Outcome::Ok, Value::String(s)) => s == "OK",
        (Outcome::Set { written: true, .. }, Value::Bool(true)) => true,
        (Outcome::Set { written: true, .. }, Value::String(s)) => s == "OK",
        (Outcome::Set { written: false, .. } | Outcome::Nil, Value::Null) => true,
        (Outcome::Int(n), Value::Number(m)) => m.as_i64() == Some(*n),
        (Outcome::Bulk(b), Value::String(s)) => b.as_slice() == s.as_bytes(),
        (Outcome::Array(a), Value::Array(r)) => {
            a.len() == r.len() && a.iter().zip(r).all(|(o, v)| same_reply(o, v))
        }
        (Outcome::Stale { .. }, Value::String(s)) => s == "(error) update version is stale",
        (Outcome::Stale { version }, Value::Array(r)) => {
            r.first().and_then(Value::as_str) == Some("CAS_FAILED")
                && r.get(2).and_then(Value::as_i64) == Some(*version)
        }
        (Outcome::Error(e), Value::String(s)) => {
            s.strip_prefix("(error) ") == Some(e.strip_prefix("ERR ").unwrap_or(e))
        }
        _ => false,
    }
}

#[test]
fn the_model_gives_the_real_tair_modules_replies() {
    let capture = std::fs::read(fixture("tair/tair.monitor.log")).expect("capture");
    let replies = std::fs::read_to_string(fixture("tair/tair.replies.jsonl")).expect("replies");
    let mut replies = replies.lines().map(|l| {
        let v: Value = serde_json::from_str(l).expect("reply line");
        v
    });
    let mut ks = Keyspace::new();
    let mut checked = 0;
    for raw in capture.split(|&c| c == b'\n') {
        let Some(cmd) = parse_line(raw).expect("capture line") else {
            continue;
        };
        if cmd.client.starts_with('?') {
            continue; // the module's own `GET` inside `CAS`/`CAD`
        }
        let r = replies.next().expect("a reply per command");
        let args: Vec<String> = r["cmd"]
            .as_array()
            .expect("cmd")
            .iter()
            .map(|a| a.as_str().expect("arg").to_string())
            .collect();
        let words: Vec<String> = cmd
            .args
            .iter()
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        assert_eq!(words, args, "the capture and the replies are in step");
        let out = ks.apply(cmd.at_ns / 1_000_000, cmd.db, &cmd.args[0], &cmd.args[1..]);
        assert!(
            same_reply(&out, &r["reply"]),
            "{args:?}: model {out:?}, server {}",
            r["reply"]
        );
        checked += 1;
    }
    assert_eq!(checked, 39);
    assert!(replies.next().is_none());
}

#[test]
fn the_tair_capture_replays_to_lock_and_stock_events() {
    let (log, info) = replay("tair/tair.monitor.log");
    assert_eq!(log.warnings.total(), 0);
    assert!(
        !info
            .notes
            .iter()
            .map(ToString::to_string)
            .any(|n| n.contains("unknown commands")),
        "{:?}",
        info.notes
    );
    let s = &log.strings;
    let got: Vec<(EventKind, String, String)> = log
        .events
        .iter()
        .map(|e| {
            (
                e.kind,
                s.get_or_empty(e.key).to_string(),
                s.get_or_empty(e.holder).to_string(),
            )
        })
        .collect();
    let want = |k: EventKind, key: &str, h: &str| (k, key.to_string(), h.to_string());
    use EventKind::*;
    let (l1, l2, l3) = ("product:2001:lock", "product:2002:lock", "");
    assert_eq!(
        got,
        vec![
            want(StockInitialized, l1, ""),
            want(Acquired, l1, "tA"),
            want(AcquireFailed, l1, "tB"),
            want(Renewed, l1, "tA"),
            want(StockRead, l1, ""),
            want(StockDeducted, l1, ""),
            want(OrderCreated, l1, "tA"),
            want(Released, l1, "tA"),
            want(Acquired, l1, "tB"),
            want(StockRead, l1, ""),
            want(Acquired, l1, "tC"),
            want(StockRead, l1, ""),
            want(StockDeducted, l1, ""),
            want(OrderCreated, l1, "tB"),
            want(WriteRejected, l1, "tC"),
            want(ReleaseFailed, l1, "tB"),
            want(Released, l1, "tC"),
            want(ReleaseFailed, l1, "tC"),
            want(Acquired, l2, "tD"),
            want(AcquireFailed, l2, "tE"),
            want(Renewed, l2, "tD"),
            want(WriteRejected, l2, "tD"),
            want(Renewed, l2, "tD"),
            want(ReleaseFailed, l2, "tD"),
            want(Released, l2, "tD"),
            want(Acquired, l2, "tE"),
            want(AcquireFailed, l2, "tF"),
            want(Released, l2, "tE"),
            want(Acquired, l2, "tG"),
            want(Renewed, l2, "tG"),
            want(WriteRejected, l2, "tH"),
            want(Released, l2, "tG"),
            want(StockInitialized, l3, ""),
            want(StockDeducted, l3, ""),
            // A's request ended with its CAD: nobody to name.
            want(WriteRejected, l3, ""),
        ]
    );
    // Every delete is tied to its request: D retried its EXCAD with the
    // right version on the same connection, G and E deleted their own.
    assert!(log.events.iter().all(|e| !e.holder_guessed()));
    // B worked past its TTL and sold under C's lock; C's write was refused
    // by version: one overlap, fencing contained C.
    let a = analyze(&log, &Settings::default());
    let pairs: Vec<(String, String)> = a
        .overlaps
        .iter()
        .map(|o| {
            (
                s.get(a.leases[o.earlier].holder).to_string(),
                s.get(a.leases[o.later].holder).to_string(),
            )
        })
        .collect();
    assert_eq!(pairs, vec![("tB".to_string(), "tC".to_string())]);
}

/// (earlier holder, later holder) of every overlap.
fn pairs(log: &LoadedLog, a: &Analysis) -> BTreeSet<(String, String)> {
    a.overlaps
        .iter()
        .map(|o| {
            (
                log.strings.get(a.leases[o.earlier].holder).to_string(),
                log.strings.get(a.leases[o.later].holder).to_string(),
            )
        })
        .collect()
}

fn analyze_file(path: &str) -> (LoadedLog, Analysis) {
    let log = load_paths(
        &[fixture(path)],
        &IngestOptions::default(),
        &Progress::default(),
    )
    .expect("load");
    let a = analyze(&log, &Settings::default());
    (log, a)
}

#[test]
fn the_pooled_capture_gives_the_app_logs_answer() {
    // The application log knows who sent each DEL; the capture only shows
    // connections.
    let (app_log, app) = analyze_file("pool/pool.app.jsonl");
    let (cap_log, cap) = analyze_file("pool/pool.monitor.log");
    let (truth, replayed) = (pairs(&app_log, &app), pairs(&cap_log, &cap));
    assert_eq!(truth.len(), TRUE_OVERLAPS);
    let missed: Vec<_> = truth.difference(&replayed).collect();
    let invented: Vec<_> = replayed.difference(&truth).collect();
    assert!(
        missed.len() <= MAX_MISSED && invented.is_empty(),
        "missed {missed:?}, invented {invented:?}"
    );
    assert_eq!(cap.summary.oversold_units, app.summary.oversold_units);
    let notes = &cap_log.sources[0].notes;
    assert!(
        notes
            .iter()
            .map(ToString::to_string)
            .any(|n| n.starts_with("pooled client")),
        "{notes:?}"
    ); // The deletes nothing ties to a request end their holds as guessed own
    // releases, and the JSON report says so.
    let guessed: Vec<&str> = cap
        .leases
        .iter()
        .filter(|l| l.release_guessed)
        .map(|l| cap_log.strings.get(l.holder))
        .collect();
    assert_eq!(guessed.len(), GUESSED, "{guessed:?}");
}

/// Holds of the pool capture whose lock ended by a guessed own release.
const GUESSED: usize = 3;

/// Overlap pairs in the application log of the pool capture.
const TRUE_OVERLAPS: usize = 20;
/// Pairs the replay may miss: deletes nothing in the capture ties to their
/// request are credited to the holder (never a foreign release).
const MAX_MISSED: usize = 6;
