//! Loads every handed incident case in `tests/fixtures/cases/` and checks what
//! the ingest layer must get right: no warnings, every acquire line loaded,
//! the holders of the expected overlaps, hosts, and the per-file accounting.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use lockreplay::ingest::{IngestOptions, Progress, load_paths, parse_tz};
use lockreplay::model::{EventKind, LoadedLog};

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cases")
}

fn case_json(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("case.json")).expect("case.json");
    serde_json::from_str(&text).expect("case.json parses")
}

fn load_case(name: &str) -> (LoadedLog, serde_json::Value, Vec<PathBuf>) {
    let dir = cases_dir().join(name);
    let case = case_json(&dir);
    let files: Vec<PathBuf> = case["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| dir.join(f.as_str().expect("file name")))
        .collect();
    let mut opts = IngestOptions::default();
    if let Some(tz) = case["settings"]["tz"].as_str() {
        opts.tz = Some(parse_tz(tz).expect("tz"));
    }
    let log = load_paths(&files, &opts, &Progress::default()).expect("loads");
    (log, case, files)
}

fn case_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(cases_dir())
        .expect("cases dir")
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Counts acquire lines in the raw text, independently of the parser.
fn count_acquire_lines(path: &Path) -> usize {
    let bytes = std::fs::read(path).expect("read");
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => t.to_string(),
        Err(_) => encoding_rs::GB18030.decode(&bytes).0.into_owned(),
    };
    text.lines()
        .filter(|l| {
            l.contains("\"event\": \"acquired\"")
                || l.contains("\"event\":\"acquired\"")
                || l.contains("\\\"event\\\":\\\"acquired\\\"")
                || l.contains(" event=acquired ")
                || l.contains(",获取锁成功,")
                || l.contains("\"Status\":\"Acquired\"")
                || l.contains("\"msg\":\"job lock acquired\"")
                || l.contains("\"message\": \"beat: Acquired lock\"")
        })
        .count()
}

fn holders(log: &LoadedLog) -> Vec<&str> {
    let mut h: Vec<&str> = log
        .events
        .iter()
        .filter_map(|e| e.holder.map(|s| log.strings.get(s)))
        .collect();
    h.sort();
    h.dedup();
    h
}

#[test]
fn every_case_loads_cleanly() {
    let names = case_names();
    assert!(names.len() >= 12, "{names:?}");
    for name in names {
        let (log, case, files) = load_case(&name);
        assert_eq!(log.warnings.total(), 0, "{name}: {:?}", log.warnings.kept());
        let acquires_in_text: usize = files.iter().map(|f| count_acquire_lines(f)).sum();
        let acquired = log
            .events
            .iter()
            .filter(|e| e.kind == EventKind::Acquired)
            .count();
        assert!(acquires_in_text > 0, "{name}");
        assert_eq!(acquired, acquires_in_text, "{name}: acquired events");
        let hs = holders(&log);
        for ov in case["expect"]["overlaps"].as_array().into_iter().flatten() {
            for h in ov["holders"].as_array().expect("holders") {
                let h = h.as_str().expect("holder");
                assert!(hs.contains(&h), "{name}: holder {h} missing from {hs:?}");
            }
        }
        // BR-02's jobs runner logs no host at all; BR-32's beat names its
        // host only inside its owner id (`beat-1@host-a`).
        if name != "BR-02-aredis-asyncio-shared-token"
            && name != "BR-32-redbeat-lock-lost-in-sentinel-failover"
        {
            let lock_events = log.events.iter().filter(|e| e.key.is_some());
            for e in lock_events {
                assert!(
                    e.host.is_some(),
                    "{name}: no host at line {}",
                    e.source.line
                );
            }
        }
        for s in &log.sources {
            assert_eq!(
                s.lines_read,
                s.events_loaded + s.lines_skipped + s.lines_warned,
                "{name}: accounting {s:?}"
            );
            // An evidence file (a `CONFIG GET` reply) carries no event.
            assert!(
                s.events_loaded > 0 || s.dialect == lockreplay::model::Dialect::Infrastructure,
                "{name}"
            );
        }
        assert!(
            log.events.windows(2).all(|w| w[0].at_ns <= w[1].at_ns),
            "{name}: sorted"
        );
    }
}

fn sym_of(log: &LoadedLog, s: Option<lockreplay::model::Sym>) -> &str {
    log.strings.get_or_empty(s)
}

#[test]
fn br02_holders_are_tasks_not_slot_tokens() {
    let (log, _, _) = load_case("BR-02-aredis-asyncio-shared-token");
    assert_eq!(holders(&log), vec!["taskA", "taskB", "taskC"]);
    let src = &log.sources[0];
    assert_eq!(src.dialect, lockreplay::model::Dialect::JsonArray);
    assert!(
        src.fields.contains(&("holder".into(), "client_id".into())),
        "{:?}",
        src.fields
    );
    // created = 1557817200.000031 keeps its microseconds.
    assert_eq!(log.events[0].at_ns, 1_557_817_200_000_031_000);
}

#[test]
fn br19_laravel_loki_export() {
    let (log, _, _) = load_case("BR-19-laravel-cache-lock-release-chain");
    assert_eq!(log.sources[0].dialect, lockreplay::model::Dialect::Loki);
    let acquirers: Vec<&str> = {
        let mut v: Vec<&str> = log
            .events
            .iter()
            .filter(|e| e.kind == EventKind::Acquired)
            .map(|e| sym_of(&log, e.holder))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    assert_eq!(
        acquirers,
        vec!["scheduler-1", "worker-a", "worker-b", "worker-c"]
    );
    let sched = log
        .events
        .iter()
        .find(|e| e.kind == EventKind::Acquired && sym_of(&log, e.holder) == "scheduler-1")
        .expect("scheduler acquire");
    assert_eq!(sched.ttl_ms(), None);
    assert!(sym_of(&log, sched.host).starts_with("shop-scheduler"));
    let deleted: Vec<Option<bool>> = log
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Released)
        .map(|e| e.detail().deleted)
        .collect();
    assert!(
        deleted.contains(&Some(true)) && deleted.contains(&Some(false)),
        "{deleted:?}"
    );
    assert!(deleted.iter().all(Option::is_some));
    // 2018-10-23 10:15:17.901 UTC, from the Loki timestamp and the Monolog datetime alike.
    let order = log
        .events
        .iter()
        .find(|e| e.kind == EventKind::OrderCreated && sym_of(&log, e.holder) == "worker-b")
        .expect("order");
    assert_eq!(order.at_ns, 1_540_289_717_901_000_000);
    let w = log
        .events
        .iter()
        .find(|e| e.ttl_ms().is_some())
        .expect("ttl");
    assert_eq!(w.ttl_ms(), Some(10_000));
}

#[test]
fn br19_monolog_datetime_agrees_with_loki_timestamp() {
    // Same file with the Loki timestamp removed: the Monolog datetime is used.
    let dir = cases_dir().join("BR-19-laravel-cache-lock-release-chain");
    let text = std::fs::read_to_string(dir.join("loki-shop.jsonl")).expect("read");
    let stripped: String = text
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("json");
            v.as_object_mut().expect("obj").remove("timestamp");
            format!("{v}\n")
        })
        .collect();
    let tmp = tempfile::tempdir().expect("tmp");
    let p = tmp.path().join("no-ts.jsonl");
    std::fs::write(&p, stripped).expect("write");
    let a = load_paths(
        &[dir.join("loki-shop.jsonl")],
        &IngestOptions::default(),
        &Progress::default(),
    )
    .expect("a");
    let b = load_paths(&[p], &IngestOptions::default(), &Progress::default()).expect("b");
    assert!(
        b.sources[0]
            .fields
            .contains(&("time".into(), "datetime".into())),
        "{:?}",
        b.sources[0].fields
    );
    let ta: Vec<i64> = a.events.iter().map(|e| e.at_ns).collect();
    let tb: Vec<i64> = b.events.iter().map(|e| e.at_ns).collect();
    assert_eq!(ta, tb);
}

#[test]
fn cn01_matches_br22() {
    let (cn, _, _) = load_case("CN-01-gb18030-console-csv");
    let (br, _, _) = load_case("BR-22-gc-pause-lock-expires-early");
    assert_eq!(cn.sources[0].encoding, "GB18030");
    assert_eq!(cn.sources[0].dialect, lockreplay::model::Dialect::Csv);
    let counts = |log: &LoadedLog| {
        let mut m = BTreeMap::new();
        for e in &log.events {
            *m.entry(e.kind).or_insert(0) += 1;
        }
        m
    };
    assert_eq!(counts(&cn), counts(&br));
    let rows = |log: &LoadedLog| {
        log.events
            .iter()
            .filter(|e| e.kind != EventKind::Activity)
            .map(|e| {
                (
                    e.at_ns,
                    e.kind,
                    sym_of(log, e.holder).to_string(),
                    e.ttl_ms(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(rows(&cn), rows(&br));
    assert_eq!(cn.display_offset_s, 8 * 3600);
    let d = |log: &LoadedLog| {
        log.events
            .iter()
            .filter(|e| e.kind == EventKind::StockDeducted)
            .map(|e| {
                (
                    e.detail().stock_before,
                    e.detail().stock_after,
                    e.detail().quantity,
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(d(&cn), d(&br));
}

#[test]
fn br22_six_digit_fractions_parse_exactly() {
    let (log, _, _) = load_case("BR-22-gc-pause-lock-expires-early");
    // 2023-05-20T14:30:12.00136+08:00 (the GC line, skipped: no lock key)
    // parses to 06:30:12.001360 UTC; the release at 12.50045 is loaded exactly.
    assert_eq!(
        lockreplay::ingest::parse_time("2023-05-20T14:30:12.00136+08:00", None),
        Ok((1_684_564_212_001_360_000, Some(8 * 3600)))
    );
    assert!(
        log.events
            .iter()
            .any(|e| e.at_ns == 1_684_564_212_500_450_000 && e.kind == EventKind::Released),
        "no release at 12.500450"
    );
    assert_eq!(log.sources[0].lines_skipped, 1, "the GC line");
    assert_eq!(log.display_offset_s, 8 * 3600);
    let e = &log.events[0];
    assert_eq!(sym_of(&log, e.host), "inventory-svc-6f8d4-1");
    assert_eq!(sym_of(&log, e.thread), "http-nio-8080-exec-3");
}

#[test]
fn real_c3_releases_carry_elapsed_ms() {
    let (log, _, _) = load_case("REAL-C3-node-redlock-no-extension");
    let rel: Vec<_> = log
        .events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Released | EventKind::ReleaseFailed))
        .collect();
    assert!(!rel.is_empty());
    assert!(rel.iter().all(|e| e.detail().elapsed_ms.is_some()));
    assert!(rel.iter().any(|e| e.detail().elapsed_ms == Some(2072.0)));
    assert_eq!(sym_of(&log, rel[0].host), "vm");
}

#[test]
fn real_a_prefers_host_over_instance_and_counts_sold_out_as_activity() {
    let (log, _, _) = load_case("REAL-A-redispy-no-renewal");
    let s = &log.sources[0];
    assert!(
        s.fields.contains(&("host".into(), "host".into())),
        "{:?}",
        s.fields
    );
    assert!(
        s.notes
            .iter()
            .map(ToString::to_string)
            .any(|n| n.contains("instance")),
        "{:?}",
        s.notes
    );
    assert!(log.events.iter().any(|e| e.kind == EventKind::Activity));
    // acquire_attempt lines have no holder: skipped, not loaded.
    assert!(s.lines_skipped > 0);
}

#[test]
fn br17_logfmt_tokens_and_br23_fencing() {
    let (log, _, _) = load_case("BR-17-redsync-unlock-false-after-expiry");
    assert_eq!(log.sources[0].dialect, lockreplay::model::Dialect::Logfmt);
    assert!(holders(&log).contains(&"q5cNpl2vPJ8ZlQF9Q4bA3w=="));
    let (log, _, _) = load_case("BR-23-kleppmann-gc-pause-fencing-token");
    let rejected = log
        .events
        .iter()
        .find(|e| e.kind == EventKind::WriteRejected)
        .expect("write_rejected");
    assert_eq!(rejected.detail().fencing_token, Some(33));
}

// ---- broken copies ----

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write");
    p
}

fn br01_text() -> String {
    std::fs::read_to_string(
        cases_dir().join("BR-01-redispy-shared-lock-overrun/inventory-sync.jsonl"),
    )
    .expect("read")
}

#[test]
fn truncated_last_line_warns_and_keeps_the_rest() {
    let text = br01_text();
    let cut = &text[..text.trim_end().len() - 20];
    let n_lines = cut.lines().count() as u64;
    let tmp = tempfile::tempdir().expect("tmp");
    let p = write(tmp.path(), "cut.jsonl", cut.as_bytes());
    let log = load_paths(&[p], &IngestOptions::default(), &Progress::default()).expect("loads");
    let w = log.warnings.kept();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].line, n_lines);
    assert!(
        w[0].reason
            .to_string()
            .starts_with("invalid JSON: EOF while parsing"),
        "{}",
        w[0].reason
    );
    assert!(w[0].file.ends_with("cut.jsonl"));
    let s = &log.sources[0];
    assert_eq!(s.lines_read, n_lines);
    assert_eq!(s.lines_warned, 1);
    assert_eq!(
        s.lines_read,
        s.events_loaded + s.lines_skipped + s.lines_warned
    );
}

#[test]
fn binary_garbage_in_the_middle() {
    let text = br01_text();
    let lines: Vec<&str> = text.lines().collect();
    let mut bytes = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if i == 3 {
            bytes.extend_from_slice(b"\x00\x9f\xff\xfe\x81garbage\x07\x1b[0m\n");
            bytes.extend_from_slice(&[0xC3, 0x28, 0xA0, 0xA1, b'\n']);
        }
        bytes.extend_from_slice(l.as_bytes());
        bytes.push(b'\n');
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let p = write(tmp.path(), "garbage.jsonl", &bytes);
    let clean = load_paths(
        &[write(tmp.path(), "clean.jsonl", text.as_bytes())],
        &IngestOptions::default(),
        &Progress::default(),
    )
    .expect("clean");
    let log = load_paths(&[p], &IngestOptions::default(), &Progress::default()).expect("loads");
    let w = log.warnings.kept();
    assert_eq!(
        w.iter().map(|w| w.line).collect::<Vec<_>>(),
        vec![4, 5],
        "{w:?}"
    );
    assert!(
        w.iter()
            .all(|w| w.reason.to_string().starts_with("invalid JSON"))
    );
    assert_eq!(log.events.len(), clean.events.len());
    assert_eq!(log.sources[0].encoding, "UTF-8");
}

#[test]
fn empty_and_whitespace_files() {
    let tmp = tempfile::tempdir().expect("tmp");
    for (name, bytes) in [
        ("empty.jsonl", &b""[..]),
        ("bom.csv", &b"\xEF\xBB\xBF"[..]),
        ("ws.log", &b"  \r\n\n\t\n"[..]),
    ] {
        let p = write(tmp.path(), name, bytes);
        let log = load_paths(&[p], &IngestOptions::default(), &Progress::default()).expect("loads");
        assert!(log.events.is_empty());
        let w = log.warnings.kept();
        assert_eq!(w.len(), 1, "{name}: {w:?}");
        assert_eq!(w[0].line, 0);
        assert!(
            w[0].reason.to_string().contains("no records"),
            "{}",
            w[0].reason
        );
        assert_eq!(log.sources[0].lines_read, 0);
    }
}

#[test]
fn wrong_time_format_warns_per_line() {
    let text = br01_text().replacen("2025-03-03T10:20:00.000+08:00", "yesterday", 1);
    let tmp = tempfile::tempdir().expect("tmp");
    let p = write(tmp.path(), "badtime.jsonl", text.as_bytes());
    let log = load_paths(&[p], &IngestOptions::default(), &Progress::default()).expect("loads");
    let w = log.warnings.kept();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].line, 2);
    assert!(
        w[0].reason
            .to_string()
            .starts_with("unreadable time \"yesterday\" in field ts"),
        "{}",
        w[0].reason
    );
    let s = &log.sources[0];
    assert_eq!(
        s.lines_read,
        s.events_loaded + s.lines_skipped + s.lines_warned
    );
}

#[test]
fn truncated_json_array_loads_complete_elements() {
    let text = std::fs::read_to_string(
        cases_dir().join("BR-02-aredis-asyncio-shared-token/jobs-runner.json"),
    )
    .expect("read");
    let cut = &text[..text.len() / 2];
    let tmp = tempfile::tempdir().expect("tmp");
    let p = write(tmp.path(), "cut.json", cut.as_bytes());
    let log = load_paths(&[p], &IngestOptions::default(), &Progress::default()).expect("loads");
    let w = log.warnings.kept();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].reason.to_string().starts_with("truncated JSON"),
        "{}",
        w[0].reason
    );
    assert!(!log.events.is_empty());
    let s = &log.sources[0];
    assert_eq!(
        s.lines_read,
        s.events_loaded + s.lines_skipped + s.lines_warned
    );
}

#[test]
fn gzip_and_non_ascii_file_names() {
    use std::io::Write;
    let text = br01_text();
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(text.as_bytes()).expect("gz");
    let gz = enc.finish().expect("gz");
    let tmp = tempfile::tempdir().expect("tmp");
    let p = write(tmp.path(), "库存日志 ä.jsonl.gz", &gz);
    let log = load_paths(
        std::slice::from_ref(&p),
        &IngestOptions::default(),
        &Progress::default(),
    )
    .expect("loads");
    assert!(log.sources[0].gzip);
    assert_eq!(log.warnings.total(), 0);
    assert!(log.sources[0].name.contains("库存日志"));
    let plain = load_paths(
        &[write(tmp.path(), "p.jsonl", text.as_bytes())],
        &IngestOptions::default(),
        &Progress::default(),
    )
    .expect("plain");
    assert_eq!(log.events.len(), plain.events.len());
}

#[test]
fn missing_file_is_an_error_naming_it() {
    let err = load_paths(
        &[PathBuf::from("/nonexistent/锁.jsonl")],
        &IngestOptions::default(),
        &Progress::default(),
    )
    .expect_err("fails");
    assert!(err.to_string().contains("/nonexistent/锁.jsonl"), "{err}");
    // The OS reason is said once, also when printed with its whole chain.
    let chain = format!("{:#}", anyhow::Error::from(err));
    assert_eq!(chain.matches("os error 2").count(), 1, "{chain}");
}

#[test]
fn progress_and_cancel() {
    let dir = cases_dir().join("REAL-A-redispy-no-renewal");
    let p = dir.join("a_redispy_lock_no_renewal.app.jsonl");
    let progress = Progress::default();
    load_paths(
        std::slice::from_ref(&p),
        &IngestOptions::default(),
        &progress,
    )
    .expect("loads");
    let total = progress
        .bytes_total
        .load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(total, std::fs::metadata(&p).expect("meta").len());
    assert_eq!(
        progress
            .bytes_read
            .load(std::sync::atomic::Ordering::Relaxed),
        total
    );
    let cancelled = Progress::default();
    cancelled
        .cancel
        .store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(matches!(
        load_paths(&[p], &IngestOptions::default(), &cancelled),
        Err(lockreplay::ingest::IngestError::Cancelled)
    ));
}

/// Throughput check on a generated 500k-line JSONL file (run with
/// `cargo test --release --no-default-features --test reading cases::throughput_probe -- --ignored`).
#[test]
#[ignore = "slow in debug builds; a throughput probe"]
fn throughput_probe() {
    let src = std::fs::read_to_string(
        cases_dir().join("REAL-A-redispy-no-renewal/a_redispy_lock_no_renewal.app.jsonl"),
    )
    .expect("read");
    let lines: Vec<&str> = src.lines().collect();
    let tmp = tempfile::tempdir().expect("tmp");
    let p = tmp.path().join("big.jsonl");
    let mut out = String::new();
    for i in 0..500_000 {
        out.push_str(lines[i % lines.len()]);
        out.push('\n');
    }
    std::fs::write(&p, &out).expect("write");
    let t = std::time::Instant::now();
    let log = load_paths(
        std::slice::from_ref(&p),
        &IngestOptions::default(),
        &Progress::default(),
    )
    .expect("loads");
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{} lines, {} MB, {} events in {secs:.2} s: {:.0} lines/s, {:.0} MB/s",
        500_000,
        out.len() / 1_000_000,
        log.events.len(),
        500_000.0 / secs,
        out.len() as f64 / 1e6 / secs
    );
}
