//! What each fuzz target does with its input, shared by the libFuzzer targets
//! in `fuzz/fuzz_targets/` and by `tests/fuzz_replay.rs`, which replays the
//! seed corpus and every saved crash through the same code in `cargo test`.
//!
//! Besides "no panic", every target checks the invariants a user relies on:
//! the per-file accounting identity (`lines_read = events_loaded +
//! lines_skipped + lines_warned`), the warning cap, and that analysis and
//! every printer run on whatever was loaded.

use std::str::FromStr;

use lockreplay::analysis::{Settings, analyze};
use lockreplay::ingest::monitor::{MonitorOptions, parse_line, read_monitor};
use lockreplay::ingest::{
    IngestOptions, Mapping, Progress, TzSpec, parse_time, parse_tz, read_source,
};
use lockreplay::model::{Dialect, LoadedLog, LogBuilder, SourceInfo, Warnings};
use lockreplay::report::{MarkdownImages, ReportInput, to_json, to_markdown, to_text};

/// Every target, in the order `fuzz/run.sh all` runs them (used by the
/// replay test; each fuzz binary uses only `run`).
#[allow(dead_code)]
pub const TARGETS: [&str; 13] = [
    "detect",
    "jsonl",
    "json_array",
    "csv",
    "elasticsearch",
    "loki",
    "sls",
    "logfmt",
    "time",
    "mapping",
    "monitor_line",
    "monitor_replay",
    "pipeline",
];

/// Runs target `name` on `data`. Panics (the fuzzer's crash) when an
/// invariant breaks.
pub fn run(name: &str, data: &[u8]) {
    match name {
        "detect" => {
            ingest(data, &IngestOptions::default());
        }
        "jsonl" => dialect(
            b"{\"ts\":\"2024-01-01T00:00:00Z\",\"event\":\"acquired\",\"key\":\"lock:a\",\"holder\":\"t1\",\"ttl_ms\":30000}\n",
            data,
            b"",
        ),
        "json_array" => dialect(b"[", data, b""),
        "csv" => dialect(b"time,event,key,holder,ttl_ms,host\n", data, b""),
        "elasticsearch" => dialect(b"{\"took\":1,\"hits\":{\"total\":1,\"hits\":[", data, b"]}}"),
        "loki" => loki(data),
        "sls" => dialect(
            b"{\"__time__\":\"1700000000\",\"__tag__:__hostname__\":\"h1\",\"event\":\"acquired\",\"key\":\"lock:a\",\"holder\":\"t1\"}\n",
            data,
            b"",
        ),
        "logfmt" => dialect(
            b"time=2024-01-01T00:00:00Z event=acquired key=lock:a holder=t1 ttl_ms=30000\n",
            data,
            b"",
        ),
        "time" => time(data),
        "mapping" => mapping(data),
        "monitor_line" => {
            if let Ok(Some(l)) = parse_line(data) {
                assert!(!l.args.is_empty(), "a parsed command has a name");
            }
        }
        "monitor_replay" => monitor_replay(data),
        "pipeline" => {
            let log = ingest(data, &IngestOptions::default());
            analyse_and_print(&log);
        }
        other => panic!("unknown fuzz target {other}"),
    }
}

/// Reads `data` as one source and checks the accounting of every source.
pub fn ingest(data: &[u8], opts: &IngestOptions) -> LoadedLog {
    let mut b = LogBuilder::new();
    let res = read_source("fuzz", data, opts, &mut b, &Progress::default());
    assert!(res.is_ok(), "reading bytes never fails: {res:?}");
    let log = b.finish();
    check_log(&log);
    log
}

/// The invariants every loaded log keeps.
pub fn check_log(log: &LoadedLog) {
    for s in &log.sources {
        check_accounting(s);
    }
    let events: u64 = log.sources.iter().map(|s| s.events_loaded).sum();
    assert_eq!(
        events,
        log.events.len() as u64,
        "events counted = events kept"
    );
    let kept = log.warnings.kept().len() as u64;
    assert!(kept <= log.warnings.total());
    // Three warning kinds at most per source kind in practice; the cap is per kind.
    assert!(
        kept <= 16 * Warnings::KEEP_PER_KIND * log.sources.len().max(1) as u64,
        "warning list is bounded"
    );
}

/// `lines_read = events_loaded + lines_skipped + lines_warned`.
pub fn check_accounting(s: &SourceInfo) {
    assert_eq!(
        s.lines_read,
        s.events_loaded + s.lines_skipped + s.lines_warned,
        "accounting of {} ({:?}): read {} = loaded {} + skipped {} + warned {}",
        s.name,
        s.dialect,
        s.lines_read,
        s.events_loaded,
        s.lines_skipped,
        s.lines_warned
    );
}

fn dialect(prefix: &[u8], data: &[u8], suffix: &[u8]) {
    let mut bytes = Vec::with_capacity(prefix.len() + data.len() + suffix.len());
    bytes.extend_from_slice(prefix);
    bytes.extend_from_slice(data);
    bytes.extend_from_slice(suffix);
    ingest(&bytes, &IngestOptions::default());
}

/// Each input line becomes one Loki `query_range` value (escaped as a JSON
/// string), so the fuzzer reaches the per-line JSON / logfmt / message parse.
fn loki(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut doc = String::from(
        "{\"status\":\"success\",\"data\":{\"resultType\":\"streams\",\"result\":[{\"stream\":{\"pod\":\"p1\"},\"values\":[",
    );
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            doc.push(',');
        }
        let ts = 1_700_000_000_000_000_000i64 + i as i64;
        let escaped = escape_json(line);
        doc.push_str(&format!("[\"{ts}\",\"{escaped}\"]"));
    }
    doc.push_str("]}]}}");
    ingest(doc.as_bytes(), &IngestOptions::default());
}

fn escape_json(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// First byte picks the zone, the rest is the time text.
fn time(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let Ok(s) = std::str::from_utf8(rest) else {
        return;
    };
    let zones = [
        "+08:00",
        "-05:00",
        "UTC",
        "Asia/Shanghai",
        "America/New_York",
    ];
    let tz: Option<TzSpec> = match usize::from(sel) % (zones.len() + 1) {
        0 => None,
        n => parse_tz(zones[n - 1]).ok(),
    };
    if let Ok((ns, off)) = parse_time(s, tz.as_ref())
        && let Some(off) = off
    {
        assert!(
            off.abs() < 86_400,
            "offset {off} within a day for {s:?} -> {ns}"
        );
    }
    // The zone parser sees the same text.
    let _ = parse_tz(s);
}

/// Parses a mapping; when it is valid, loads a small log with it.
fn mapping(data: &[u8]) {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(m) = Mapping::from_str(s) {
        let opts = IngestOptions {
            mapping: Some(m),
            ..IngestOptions::default()
        };
        let log = ingest(
            b"{\"ts\":\"2024-01-01 00:00:00\",\"event\":\"acquired\",\"key\":\"lock:a\",\"holder\":\"t1\",\"ttl_ms\":30000,\"what\":\"LOCK_OK\",\"who\":\"a\",\"res\":\"r\"}\n{\"ts\":\"2024-01-01 00:00:01\",\"event\":\"released\",\"key\":\"lock:a\",\"holder\":\"t1\"}\n",
            &opts,
        );
        analyse_and_print(&log);
    }
}

fn monitor_replay(data: &[u8]) {
    let mut b = LogBuilder::new();
    let mut info = SourceInfo::new("fuzz.monitor", Dialect::RedisMonitor);
    let res = read_monitor(data, 0, &MonitorOptions::default(), &mut b, &mut info);
    assert!(res.is_ok(), "reading bytes never fails: {res:?}");
    check_accounting(&info);
    b.add_source(info);
    let log = b.finish();
    check_log(&log);
    analyse_and_print(&log);
}

/// Analysis and every printer over a loaded log.
pub fn analyse_and_print(log: &LoadedLog) {
    let settings = Settings {
        unit_loss: Some(650.0),
        ..Settings::default()
    };
    let analysis = analyze(log, &settings);
    assert_eq!(analysis.summary.events, log.events.len());
    let r = ReportInput {
        log,
        settings: &settings,
        analysis: &analysis,
    };
    let json = to_json(&r);
    assert!(!json.is_empty());
    let _ = to_text(&r);
    let _ = to_markdown(&r, &MarkdownImages::default());
}
