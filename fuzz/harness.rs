//! What each fuzz target does with its input, shared by the libFuzzer targets
//! in `fuzz/fuzz_targets/` and by `tests/reading/fuzz_replay.rs`, which
//! replays the seed corpus and every saved crash through the same code in
//! `cargo test`.
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
pub const TARGETS: [&str; 18] = [
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
    "payload",
    "text_layout",
    "cri",
    "mapping_regex",
    "parquet",
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
        "payload" => payload(data),
        "text_layout" => text_layout(data),
        "cri" => cri(data),
        "mapping_regex" => mapping_regex(data),
        "parquet" => parquet(data),
        other => panic!("unknown fuzz target {other}"),
    }
}

/// A whole Parquet file: `data` between the format's magic at both ends
/// (so every input is taken for one), read as a source and as the
/// window's raw rows; never a panic, an abort or unbounded memory.
fn parquet(data: &[u8]) {
    let mut bytes = Vec::with_capacity(data.len() + 8);
    if !data.starts_with(b"PAR1") {
        bytes.extend_from_slice(b"PAR1");
    }
    bytes.extend_from_slice(data);
    if !data.ends_with(b"PAR1") {
        bytes.extend_from_slice(b"PAR1");
    }
    let _ = lockreplay::ingest::source_text(bytes.clone());
    let log = ingest(&bytes, &IngestOptions::default());
    analyse_and_print(&log);
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

/// The events of a log as comparable values: time, kind, key, holder, TTL,
/// line.
fn events_of(log: &LoadedLog) -> Vec<(i64, String, String, String, Option<i64>, u32)> {
    let text = |s: Option<lockreplay::model::Sym>| {
        s.map(|s| log.strings.get_or_empty(Some(s)).to_string())
            .unwrap_or_default()
    };
    log.events
        .iter()
        .map(|e| {
            (
                e.at_ns,
                format!("{:?}", e.kind),
                text(e.key),
                text(e.holder),
                e.ttl_ms(),
                e.source.line,
            )
        })
        .collect()
}

/// Reads `bytes` twice: the same events and warnings both times (no state
/// kept between reads), and the accounting of [`ingest`].
fn ingest_twice(bytes: &[u8], opts: &IngestOptions) -> LoadedLog {
    let a = ingest(bytes, opts);
    let b = ingest(bytes, opts);
    assert_eq!(
        events_of(&a),
        events_of(&b),
        "the same bytes, the same events"
    );
    assert_eq!(
        a.warnings.kept(),
        b.warnings.kept(),
        "and the same warnings"
    );
    a
}

/// Envelopes around each input line (payload detection, the kinds picked
/// apart): the first byte picks docker json-file (`log`), SLS
/// (`content`) or Filebeat (`message`); every line is one JSON record, so
/// the file's lines are read exactly once each, whatever the payloads are.
fn payload(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let mut doc = String::new();
    let mut lines = 0u64;
    for (i, line) in text.lines().enumerate() {
        let v = escape_json(line);
        let s = 1_700_000_000 + i as i64;
        doc.push_str(&match sel % 3 {
            0 => format!("{{\"log\":\"{v}\\n\",\"stream\":\"stdout\",\"time\":\"2023-11-14T22:13:{:02}.5Z\"}}\n", i % 60),
            1 => format!("{{\"__time__\":\"{s}\",\"__tag__:__hostname__\":\"h1\",\"content\":\"{v}\"}}\n"),
            _ => format!("{{\"@timestamp\":\"2023-11-14T22:13:{:02}.5Z\",\"host\":{{\"name\":\"h1\"}},\"message\":\"{v}\"}}\n", i % 60),
        });
        lines += 1;
    }
    let log = ingest_twice(doc.as_bytes(), &IngestOptions::default());
    if let Some(s) = log.sources.first()
        && matches!(s.dialect, Dialect::JsonLines | Dialect::SlsJson)
    {
        assert_eq!(s.lines_read, lines, "one record per envelope line");
    }
    analyse_and_print(&log);
}

/// The runtime prefixes `frame.rs` and `text.rs` take off a line: syslog
/// RFC 3164 and 5424, Fluentd's stdout, Ruby's Logger, a CRI line, logcli.
const PREFIXES: [&str; 6] = [
    "<13>Dec  1 07:06:55 web-01 shop[123]: ",
    "<165>1 2026-12-01T07:06:55.100+08:00 web-01 shop 123 - - ",
    "2026-12-01 07:06:55.100000000 +0800 app.shop: ",
    "I, [2026-12-01T07:06:55.100000 #123]  INFO -- : ",
    "2026-11-30T23:06:55.100000000Z stdout F ",
    "2026-12-01T07:06:55+08:00 {app=\"shop\", pod=\"web-01\"} ",
];

/// Text layouts: the first byte picks a runtime prefix, put before every
/// input line. No line is read twice or lost from the count: at most one
/// item per line, and the accounting of [`ingest`].
fn text_layout(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let prefix = PREFIXES[usize::from(sel) % PREFIXES.len()];
    let text = String::from_utf8_lossy(rest);
    let mut doc = String::new();
    for line in text.lines() {
        doc.push_str(prefix);
        doc.push_str(line);
        doc.push('\n');
    }
    let log = ingest_twice(doc.as_bytes(), &IngestOptions::default());
    at_most_one_per_line(&log, &doc);
    analyse_and_print(&log);
}

/// CRI joining: each input line is a `stdout` line, `P` when its first
/// byte is odd, else `F`; a line whose first byte is a multiple of 3 is
/// followed by a `stderr` line (`P` or `F` by the next bit) of no event.
/// Partial lines are joined per stream, so the `stdout` events are those of
/// the same file without its `stderr` lines, and every
/// line is counted once.
fn cri(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (mut both, mut alone) = (String::new(), String::new());
    // Line numbers of the stdout lines in `both`, by their number in `alone`.
    let mut line_in_both = vec![0u32];
    let mut n = 0u32;
    for (i, line) in text.lines().enumerate() {
        let Some(&b0) = line.as_bytes().first() else {
            continue;
        };
        let ts = format!("2026-11-30T23:06:{:02}.{:06}Z", (i / 1000) % 60, i % 1000);
        let tag = if b0 % 2 == 1 { "P" } else { "F" };
        // A lone `\r` ends a line too: kept out so the numbering holds.
        let content = line.get(1..).unwrap_or("").replace('\r', " ");
        let out = format!("{ts} stdout {tag} {content}\n");
        both.push_str(&out);
        alone.push_str(&out);
        n += 1;
        line_in_both.push(n);
        if b0 % 3 == 0 {
            let etag = if b0 & 4 == 0 { "F" } else { "P" };
            both.push_str(&format!("{ts} stderr {etag} -\n"));
            n += 1;
        }
    }
    let opts = IngestOptions::default();
    let a = ingest_twice(both.as_bytes(), &opts);
    let b = ingest_twice(alone.as_bytes(), &opts);
    let (Some(sa), Some(sb)) = (a.sources.first(), b.sources.first()) else {
        return;
    };
    // Compared when both are read the same way: text lines, the same fields
    // and layout, no payload field (a pair of the content taken for an
    // envelope's payload makes the picks' scopes depend on every record,
    // the stderr ones too: the first run's false alarm, input
    // `tests/fixtures/hostile/fuzz/cri-payload-field`).
    if sa.dialect != Dialect::Text
        || sb.dialect != Dialect::Text
        || sa.fields != sb.fields
        || sa.layout != sb.layout
        || sa.payload_field.is_some()
        || sb.payload_field.is_some()
    {
        return; // read another way: nothing to compare
    }
    let stdout: Vec<_> = events_of(&b)
        .into_iter()
        .map(|mut e| {
            e.5 = line_in_both.get(e.5 as usize).copied().unwrap_or(0);
            e
        })
        .collect();
    let mut from_stdout = events_of(&a);
    from_stdout.retain(|e| line_in_both.binary_search(&e.5).is_ok());
    assert_eq!(
        from_stdout, stdout,
        "stdout events with and without stderr lines"
    );
    let unclosed = |l: &LoadedLog| {
        l.warnings
            .kept()
            .iter()
            .filter(|w| {
                w.reason
                    .to_string()
                    .starts_with("partial line never closed")
            })
            .count()
    };
    assert!(unclosed(&a) <= 2 && unclosed(&b) <= 1, "one run per stream");
}

/// Mapping regexes: the first input line is a `line_regex`, the second an
/// `acquired` message regex (`[messages]`), the rest the log, each read
/// through a mapping (JSON, so any pattern can be written). A mapping that
/// compiles reads every line once, the same way twice.
fn mapping_regex(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.splitn(3, '\n');
    let (Some(line), Some(msg)) = (parts.next(), parts.next()) else {
        return;
    };
    let log_text = parts.next().unwrap_or("");
    let json = format!(
        "{{\"date\":\"2026-12-01\",\"line_regex\":\"{}\",\"messages\":{{\"acquired\":\"{}\"}}}}",
        escape_json(line),
        escape_json(msg)
    );
    let Ok(m) = Mapping::from_str(&json) else {
        return;
    };
    let opts = IngestOptions {
        mapping: Some(m),
        ..IngestOptions::default()
    };
    let log = ingest_twice(log_text.as_bytes(), &opts);
    at_most_one_per_line(&log, log_text);
    analyse_and_print(&log);
}

/// A file read as text lines counts at most its non-blank lines (a line
/// ends at `\n`, `\r\n` or a lone `\r`): none is read twice.
fn at_most_one_per_line(log: &LoadedLog, text: &str) {
    let lines = text
        .split(['\n', '\r'])
        .filter(|l| !l.trim().is_empty())
        .count() as u64;
    for s in log.sources.iter().filter(|s| s.dialect == Dialect::Text) {
        assert!(
            s.lines_read <= lines,
            "{} lines read of {lines}",
            s.lines_read
        );
    }
}
