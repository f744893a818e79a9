//! Replays the REAL-A `redis-cli monitor` capture (redis-py Lock without
//! renewal, captured against a real redis-server) and checks the derived
//! events against the application's own log of the same run.

use std::collections::{BTreeSet, HashMap};
use std::io::BufReader;
use std::path::PathBuf;

use lockreplay::ingest::monitor::{MonitorOptions, read_monitor};
use lockreplay::model::{Dialect, EventKind, LoadedLog, LogBuilder, SourceInfo};

fn case_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cases/REAL-A-redispy-no-renewal")
}

fn info(name: &str) -> SourceInfo {
    SourceInfo::new(name, Dialect::RedisMonitor)
}

fn replay() -> (LoadedLog, SourceInfo) {
    let path = case_dir().join("a_redispy_lock_no_renewal.monitor.log");
    let f = std::fs::File::open(&path).expect("open capture");
    let mut b = LogBuilder::new();
    let mut i = info("a_redispy_lock_no_renewal.monitor.log");
    let file = b.add_source(i.clone());
    read_monitor(
        BufReader::new(f),
        file,
        &MonitorOptions::default(),
        &mut b,
        &mut i,
    )
    .expect("replay");
    (b.finish(), i)
}

/// owner → time (ns since the epoch) of each `acquired` line of the app log.
fn app_acquired() -> HashMap<String, i64> {
    let text = std::fs::read_to_string(case_dir().join("a_redispy_lock_no_renewal.app.jsonl"))
        .expect("app log");
    let mut out = HashMap::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("json line");
        if v["event"] == "acquired" {
            let owner = v["owner"].as_str().expect("owner").to_string();
            let ts = chrono::DateTime::parse_from_rfc3339(v["ts"].as_str().expect("ts"))
                .expect("rfc3339");
            let at_ns = ts.timestamp_nanos_opt().expect("in range");
            assert!(out.insert(owner, at_ns).is_none(), "owner acquired twice");
        }
    }
    out
}

#[test]
fn real_a_acquires_match_the_app_log() {
    let (log, info) = replay();
    assert_eq!(log.warnings.total(), 0, "{:?}", log.warnings.kept());
    assert_eq!(info.lines_warned, 0);
    let app = app_acquired();
    assert_eq!(app.len(), 40);
    let acquired: Vec<_> = log
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Acquired)
        .collect();
    assert_eq!(acquired.len(), 40);
    let tokens: BTreeSet<&str> = acquired
        .iter()
        .map(|e| log.strings.get_or_empty(e.holder))
        .collect();
    let owners: BTreeSet<&str> = app.keys().map(String::as_str).collect();
    assert_eq!(tokens, owners);
    // The app logs `acquired` after the reply, with its clock truncated to
    // ms: 39 of 40 lines are within 2 ms of the winning SET NX. One
    // (5e7c038a..., capture line 3237) is logged 2.65 ms late: the same
    // client's next command (GET stock) reached Redis 3.7 ms after the win,
    // so that thread was simply slow to log. Allow it and no more.
    let mut late = Vec::new();
    for e in &acquired {
        assert!(e.inferred);
        assert_eq!(e.ttl_ms, Some(2000));
        assert_eq!(log.strings.get_or_empty(e.key), "product:1001:lock");
        let owner = log.strings.get_or_empty(e.holder);
        let app_ns = app[owner];
        let diff_ms = (e.at_ns - app_ns).abs() as f64 / 1e6;
        assert!(diff_ms <= 3.0, "{owner}: {diff_ms} ms from the app log");
        if diff_ms > 2.0 {
            late.push((owner, e.source.line));
        }
    }
    assert_eq!(late, vec![("5e7c038aebcc11f1bee802fc00000001", 3237)]);
    // Every other SET NX lost.
    let failed = log
        .events
        .iter()
        .filter(|e| e.kind == EventKind::AcquireFailed)
        .count();
    assert_eq!(failed + 40, 3350 - 18);
}

#[test]
fn real_a_releases_match_the_app_log() {
    let (log, _) = replay();
    let count = |k: EventKind| log.events.iter().filter(|e| e.kind == k).count();
    // The app logs 36 `released` and 4 `release_failed`.
    assert_eq!(count(EventKind::Released), 36);
    assert_eq!(count(EventKind::ReleaseFailed), 4);
    assert!(
        log.events
            .iter()
            .filter(|e| e.kind == EventKind::Released)
            .all(|e| e.detail().deleted == Some(true))
    );
}

#[test]
fn real_a_business_events() {
    let (log, info) = replay();
    let s = &log.strings;
    let of = |k: EventKind| -> Vec<_> { log.events.iter().filter(|e| e.kind == k).collect() };
    let orders = of(EventKind::OrderCreated);
    assert_eq!(orders.len(), 17);
    for o in &orders {
        assert_eq!(s.get_or_empty(o.key), "product:1001:lock");
        assert_eq!(s.get_or_empty(o.detail().product), "product:1001");
        assert_eq!(o.detail().quantity, Some(1));
        assert!(o.holder.is_some() && o.detail().order_id.is_some());
    }
    let init = of(EventKind::StockInitialized);
    assert_eq!(init.len(), 1);
    assert_eq!(init[0].detail().stock, Some(12));
    assert_eq!(s.get_or_empty(init[0].key), "product:1001:lock");
    assert_eq!(of(EventKind::StockRead).len(), 40);
    let deducted = of(EventKind::StockDeducted);
    assert_eq!(deducted.len(), 17);

    // The final modelled stock is the last SET of the stock key.
    let text = std::fs::read_to_string(case_dir().join("a_redispy_lock_no_renewal.monitor.log"))
        .expect("capture");
    let last_set = text
        .lines()
        .rev()
        .find(|l| l.contains("\"SET\" \"product:1001:stock\""))
        .and_then(|l| l.rsplit('"').nth(1))
        .and_then(|v| v.parse::<i64>().ok());
    let last = deducted.iter().max_by_key(|e| e.at_ns).expect("deductions");
    assert_eq!(last.detail().stock_after, last_set);
    assert_eq!(last_set, Some(0));
    // Oversold from the order list: 17 sold, 12 in stock.
    let sold: i64 = orders.iter().filter_map(|o| o.detail().quantity).sum();
    assert_eq!(sold - init[0].detail().stock.unwrap_or(0), 5);
    assert!(!info.notes.iter().any(|n| n.starts_with("unknown commands")));
    assert_eq!(info.events_loaded as usize, log.events.len());
}

/// Replay speed on the REAL-A capture repeated 200 times (708,200 lines;
/// about 460k lines/s, 53 MB/s, with the crate at opt-level 3 on the 2-core
/// build machine; about 50k lines/s in an unoptimised test build). Run with
/// `cargo test --release --no-default-features --test monitor_real_a -- --ignored --nocapture`.
#[test]
#[ignore]
fn real_a_replay_speed() {
    let one =
        std::fs::read(case_dir().join("a_redispy_lock_no_renewal.monitor.log")).expect("capture");
    let reps = 200;
    let mut text = Vec::with_capacity(one.len() * reps);
    for _ in 0..reps {
        text.extend_from_slice(&one);
    }
    let lines = text.iter().filter(|&&c| c == b'\n').count();
    let start = std::time::Instant::now();
    let mut b = LogBuilder::new();
    let mut i = info("speed");
    read_monitor(&text[..], 0, &MonitorOptions::default(), &mut b, &mut i).expect("replay");
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{lines} lines in {secs:.3} s: {:.0} lines/s, {:.1} MB/s",
        lines as f64 / secs,
        text.len() as f64 / secs / 1e6
    );
}
