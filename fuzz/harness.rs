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
use lockreplay::model::{Dialect, EventKind, LoadedLog, LogBuilder, SourceInfo, Warnings};
use lockreplay::report::{
    MarkdownImages, ReportInput, is_terminal_safe, to_json, to_markdown, to_text,
};
use lockreplay::sql::alerts::{self, Store};
use lockreplay::sql::{
    Dialect as SqlDialect, QuerySpec, Select, TimeUnit, client, fetch, listing, quote,
};

/// Every target, in the order `fuzz/run.sh all` runs them (used by the
/// replay test; each fuzz binary uses only `run`).
#[allow(dead_code)]
pub const TARGETS: [&str; 20] = [
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
    "sql_names",
    "fetch_response",
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
        "sql_names" => sql_names(data),
        "fetch_response" => fetch_response(data),
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

/// The name a hostile name is compared against: a plain identifier that no
/// generator writes of its own, so each of its occurrences in a text is
/// the name written in its slot.
const PLACEHOLDER: &str = "zqxph";

/// Where `sql_names` puts the hostile name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// The table (the user's own SQL, pasted as given) or, for
    /// `cluster_source`, the cluster's name.
    Table,
    Time,
    Key,
    Holder,
    Event,
    Seq,
    TtlMs,
    TtlS,
    TtlUnknown,
    Elapsed,
    Deleted,
    /// An `[events]` name of the mapping, for this kind.
    EventName(EventKind),
}

const SLOTS: [Slot; 11] = [
    Slot::Table,
    Slot::Time,
    Slot::Key,
    Slot::Holder,
    Slot::Event,
    Slot::Seq,
    Slot::TtlMs,
    Slot::TtlS,
    Slot::TtlUnknown,
    Slot::Elapsed,
    Slot::Deleted,
];

/// What `sql_names` generates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Generator {
    /// `sql::generate` for a dialect.
    Query(SqlDialect),
    /// `sql::alerts::rule` for a store.
    Alert(Store),
    /// `inspect::fields_toml` (the mapping file `inspect --write-mapping`
    /// and the window write).
    MappingToml,
    /// `sql::listing::cluster_source` (the cluster's name).
    ClusterSource,
}

const GENERATORS: [Generator; 9] = [
    Generator::Query(SqlDialect::Clickhouse),
    Generator::Query(SqlDialect::Duckdb),
    Generator::Alert(Store::Clickhouse),
    Generator::Alert(Store::Duckdb),
    Generator::Alert(Store::Sls),
    Generator::Alert(Store::Loki),
    Generator::Alert(Store::Elasticsearch),
    Generator::MappingToml,
    Generator::ClusterSource,
];

const SELECTS: [Select; 5] = [
    Select::All,
    Select::Overlaps,
    Select::Holds,
    Select::Keys,
    Select::Alerts,
];

const TIME_UNITS: [TimeUnit; 5] = [
    TimeUnit::Ns,
    TimeUnit::Us,
    TimeUnit::Ms,
    TimeUnit::S,
    TimeUnit::Datetime,
];

/// A quoting function: the text a name is written as.
type Quoting = fn(&str) -> Result<String, String>;

/// SQL generators and alert rules given a hostile name: the first byte
/// picks the generator (and the query's `select`), the second the slot
/// (and the time unit), the rest is the name, put in that one slot (an
/// `[events]` name of an acquire, renewal, release, failed release or lost
/// lock, by the first byte's high bits). The same generation with
/// [`PLACEHOLDER`] in the slot must succeed; with the name, the generator
/// refuses it with an error, or its text is the placeholder's with each
/// quoted occurrence of the placeholder replaced by the quoting function's
/// text for the name: the name changes nothing but itself. An accepted
/// rule is never empty; the Loki YAML keeps its lines; the TOML mapping
/// reads the name back.
fn sql_names(data: &[u8]) {
    let (Some(&sel), Some(&slot_sel)) = (data.first(), data.get(1)) else {
        return;
    };
    let Ok(name) = std::str::from_utf8(&data[2..]) else {
        return;
    };
    let generator = GENERATORS[usize::from(sel) % GENERATORS.len()];
    let select = match generator {
        Generator::Query(_) => SELECTS[usize::from(sel / 9) % SELECTS.len()],
        _ => Select::All, // the others choose their own
    };
    let n_slots = SLOTS.len() + 1;
    let slot = match usize::from(slot_sel) % n_slots {
        i if i < SLOTS.len() => SLOTS[i],
        _ => {
            let kinds = [
                EventKind::Acquired,
                EventKind::Renewed,
                EventKind::Released,
                EventKind::ReleaseFailed,
                EventKind::LockLost,
            ];
            Slot::EventName(kinds[usize::from(sel >> 5) % kinds.len()])
        }
    };
    let unit = TIME_UNITS[usize::from(slot_sel) / n_slots % TIME_UNITS.len()];
    if matches!(slot, Slot::EventName(_)) && is_taken_event_name(name) {
        return; // a name the generators list once already: nothing to compare
    }
    let Some(forms) = forms(generator, slot) else {
        return; // the generator has no such slot
    };
    let benign = benign_text(generator, select, unit, slot);
    let hostile = match generate_with(generator, select, unit, slot, name) {
        Ok(text) => text,
        Err(e) => {
            assert!(!e.is_empty(), "a refusal says why");
            return;
        }
    };
    assert!(
        hostile.lines().any(|l| {
            let l = l.trim_start();
            !l.is_empty() && !l.starts_with("--") && !l.starts_with('#') && !l.starts_with("//")
        }),
        "{generator:?} {slot:?} {name:?}: an accepted rule is not empty: {hostile:?}"
    );
    let mut pairs: Vec<(String, Result<String, String>)> = Vec::with_capacity(forms.len());
    for q in forms {
        let p = q(PLACEHOLDER)
            .unwrap_or_else(|e| panic!("{generator:?} {slot:?}: the placeholder: {e}"));
        pairs.push((p, q(name)));
    }
    // Longest first: a quoted form is tried before a bare one inside it.
    pairs.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
    let expected = substitute(&benign, &pairs)
        .unwrap_or_else(|e| panic!("{generator:?} {slot:?} {name:?}: {e}\n{benign}"));
    assert!(
        hostile == expected,
        "{generator:?} {slot:?} {name:?}: the name changed the text:\n{}",
        first_difference(&expected, &hostile)
    );
    let pastes_table = matches!(
        generator,
        Generator::Query(_) | Generator::Alert(Store::Clickhouse | Store::Duckdb)
    );
    if slot == Slot::Table && pastes_table {
        assert!(
            !name.contains([';', '\n', '\r']) && !name.contains("--") && !name.contains("/*"),
            "a table pasted as SQL ends no statement and starts no comment: {name:?}"
        );
    }
    match generator {
        Generator::Alert(Store::Loki) => yaml_lines_kept(&benign, &hostile),
        Generator::MappingToml => toml_reads_back(&hostile, slot, name),
        _ => {}
    }
}

thread_local! {
    /// The texts with [`PLACEHOLDER`], by generator, select, time unit and
    /// slot: the same each time, so made once (30 MB at most).
    static BENIGN: std::cell::RefCell<std::collections::HashMap<String, std::rc::Rc<String>>> =
        std::cell::RefCell::default();
}

/// The text of `generator` with [`PLACEHOLDER`] in `slot`, which must be
/// accepted.
fn benign_text(
    generator: Generator,
    select: Select,
    unit: TimeUnit,
    slot: Slot,
) -> std::rc::Rc<String> {
    let key = format!("{generator:?} {select:?} {unit:?} {slot:?}");
    if let Some(text) = BENIGN.with(|b| b.borrow().get(&key).cloned()) {
        return text;
    }
    let text = generate_with(generator, select, unit, slot, PLACEHOLDER)
        .unwrap_or_else(|e| panic!("{generator:?} {slot:?}: the placeholder refused: {e}"));
    let text = std::rc::Rc::new(text);
    BENIGN.with(|b| b.borrow_mut().insert(key, text.clone()));
    text
}

/// A name the generators write once whoever names it: a canonical kind's
/// or the fixed `[events]` name of [`spec_with`].
fn is_taken_event_name(name: &str) -> bool {
    name == "lock_ok" || EventKind::ALL.iter().any(|k| k.as_str() == name)
}

fn q_raw(s: &str) -> Result<String, String> {
    Ok(s.to_string())
}
fn q_ch_path(s: &str) -> Result<String, String> {
    Ok(quote::sql_path(SqlDialect::Clickhouse, s))
}
fn q_ch_string(s: &str) -> Result<String, String> {
    Ok(quote::sql_string(SqlDialect::Clickhouse, s))
}
fn q_duck_path(s: &str) -> Result<String, String> {
    Ok(quote::sql_path(SqlDialect::Duckdb, s))
}
fn q_duck_string(s: &str) -> Result<String, String> {
    Ok(quote::sql_string(SqlDialect::Duckdb, s))
}
fn q_ident(s: &str) -> Result<String, String> {
    Ok(quote::standard_ident(s))
}
fn q_string(s: &str) -> Result<String, String> {
    Ok(quote::standard_string(s))
}
fn q_sls_field(s: &str) -> Result<String, String> {
    quote::sls_field(s).map_err(|e| e.to_string())
}
fn q_sls_value(s: &str) -> Result<String, String> {
    quote::sls_value(s).map_err(|e| e.to_string())
}
/// A name inside a LogQL regex literal: its RE2 escape, JSON-escaped
/// (the literal's escapes are per character).
fn q_logql_alt(s: &str) -> Result<String, String> {
    let lit = quote::logql_any_of(&[s.to_string()]);
    lit.strip_prefix("\"(?i)")
        .and_then(|l| l.strip_suffix('"'))
        .map(str::to_string)
        .ok_or_else(|| format!("not a LogQL regex literal: {lit}"))
}
fn q_loki_label(s: &str) -> Result<String, String> {
    quote::loki_label(s).map_err(|e| e.to_string())
}
fn q_esql_string(s: &str) -> Result<String, String> {
    quote::esql_string(s).map_err(|e| e.to_string())
}
fn q_esql_field(s: &str) -> Result<String, String> {
    quote::esql_field(s).map_err(|e| e.to_string())
}
fn q_toml(s: &str) -> Result<String, String> {
    Ok(toml::Value::String(s.to_string()).to_string())
}

/// The quoting functions that write a name in `slot` for `generator`;
/// `None` when the generator has no such slot.
fn forms(generator: Generator, slot: Slot) -> Option<Vec<Quoting>> {
    let name = matches!(slot, Slot::EventName(_));
    let table = slot == Slot::Table;
    let column = !name && !table;
    Some(match generator {
        Generator::Query(SqlDialect::Clickhouse) | Generator::Alert(Store::Clickhouse) => {
            vec![if table {
                q_raw
            } else if column {
                q_ch_path
            } else {
                q_ch_string
            }]
        }
        Generator::Query(SqlDialect::Duckdb) | Generator::Alert(Store::Duckdb) => {
            vec![if table {
                q_raw
            } else if column {
                q_duck_path
            } else {
                q_duck_string
            }]
        }
        Generator::Alert(Store::Sls) if slot == Slot::Event => vec![q_ident, q_sls_field],
        Generator::Alert(Store::Sls) if name => vec![q_sls_value, q_string],
        Generator::Alert(Store::Sls) => vec![q_ident],
        Generator::Alert(Store::Loki) if name => vec![q_logql_alt],
        Generator::Alert(Store::Loki) => vec![q_loki_label],
        Generator::Alert(Store::Elasticsearch) if name => vec![q_esql_string],
        Generator::Alert(Store::Elasticsearch) => vec![q_esql_field],
        Generator::MappingToml if column => vec![q_toml],
        Generator::ClusterSource if table => vec![q_ch_string],
        Generator::MappingToml | Generator::ClusterSource => return None,
    })
}

/// A query spec with the export's columns, a TTL column, the `[events]`
/// name `lock_ok` for an acquire, and `name` in `slot`.
fn spec_with(dialect: SqlDialect, unit: TimeUnit, slot: Slot, name: &str) -> QuerySpec {
    let table = if slot == Slot::Table { name } else { "events" };
    let mut spec = QuerySpec::new(dialect, table);
    spec.time_unit = unit;
    spec.events = vec![("lock_ok".to_string(), EventKind::Acquired)];
    let c = &mut spec.columns;
    let n = name.to_string();
    match slot {
        Slot::Table => {}
        Slot::Time => c.time = n,
        Slot::Key => c.key = n,
        Slot::Holder => c.holder = n,
        Slot::Event => c.event = n,
        Slot::Seq => c.seq = Some(n),
        Slot::TtlMs => c.ttl = Some((n, true)),
        Slot::TtlS => c.ttl = Some((n, false)),
        Slot::TtlUnknown => c.ttl_unknown = Some(n),
        Slot::Elapsed => c.elapsed_ms = Some(n),
        Slot::Deleted => c.deleted = Some(n),
        Slot::EventName(kind) => spec.events.push((n, kind)),
    }
    spec
}

/// The text of `generator` with `name` in `slot`, or its refusal.
fn generate_with(
    generator: Generator,
    select: Select,
    unit: TimeUnit,
    slot: Slot,
    name: &str,
) -> Result<String, String> {
    match generator {
        Generator::Query(dialect) => {
            let mut spec = spec_with(dialect, unit, slot, name);
            spec.select = select;
            lockreplay::sql::generate(&spec).map_err(|e| e.to_string())
        }
        Generator::Alert(store) => {
            alerts::rule(store, &spec_with(SqlDialect::Clickhouse, unit, slot, name))
                .map_err(|e| e.to_string())
        }
        Generator::MappingToml => {
            let c = spec_with(SqlDialect::Clickhouse, unit, slot, name).columns;
            let mut pairs = vec![
                ("time", c.time.as_str()),
                ("key", c.key.as_str()),
                ("holder", c.holder.as_str()),
                ("event", c.event.as_str()),
            ];
            let optional = [
                ("seq", c.seq.as_deref()),
                ("ttl_unknown", c.ttl_unknown.as_deref()),
                ("elapsed_ms", c.elapsed_ms.as_deref()),
                ("deleted", c.deleted.as_deref()),
            ];
            pairs.extend(optional.iter().filter_map(|(r, f)| f.map(|f| (*r, f))));
            if let Some((f, ms)) = &c.ttl {
                pairs.push((if *ms { "ttl_ms" } else { "ttl_s" }, f.as_str()));
            }
            Ok(lockreplay::inspect::fields_toml(
                "# lockreplay mapping",
                pairs,
            ))
        }
        Generator::ClusterSource => {
            lockreplay::sql::listing::cluster_source(name, "db.events").map_err(|e| e.to_string())
        }
    }
}

/// `text` with each occurrence of [`PLACEHOLDER`] inside one of the pairs'
/// first texts (tried in order) replaced by the pair's second.
///
/// # Errors
/// An occurrence inside none of them (the placeholder written unquoted),
/// or inside one whose quoting refused the name the generator accepted.
fn substitute(text: &str, pairs: &[(String, Result<String, String>)]) -> Result<String, String> {
    let mut out = String::with_capacity(text.len() + 64);
    let mut from = 0;
    while let Some(at) = text[from..].find(PLACEHOLDER).map(|i| i + from) {
        let found = pairs.iter().find_map(|(p, h)| {
            let inner = p.find(PLACEHOLDER)?;
            let start = at.checked_sub(inner)?;
            let end = start + p.len();
            (start >= from && text.get(start..end) == Some(p.as_str())).then_some((start, end, h))
        });
        let Some((start, end, with)) = found else {
            return Err(format!("the placeholder written unquoted at byte {at}"));
        };
        let with = with
            .as_ref()
            .map_err(|e| format!("accepted, but its quoting refuses it: {e}"))?;
        out.push_str(&text[from..start]);
        out.push_str(with);
        from = end;
    }
    out.push_str(&text[from..]);
    Ok(out)
}

/// Where two texts first differ, with some context, for a failure's
/// message.
fn first_difference(expected: &str, got: &str) -> String {
    let at = expected
        .bytes()
        .zip(got.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(got.len()));
    let around = |s: &str| {
        let (mut lo, mut hi) = (at.saturating_sub(120), (at + 120).min(s.len()));
        while !s.is_char_boundary(lo) {
            lo -= 1;
        }
        while !s.is_char_boundary(hi) {
            hi += 1;
        }
        s[lo..hi].to_string()
    };
    format!(
        "at byte {at}\nexpected: {:?}\n     got: {:?}",
        around(expected),
        around(got)
    )
}

/// The characters YAML (the Loki ruler's reader) takes for a line break.
fn is_yaml_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// YAML's printable characters (YAML 1.2 §5.1, `c-printable`).
fn is_yaml_printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}')
        || c >= '\u{10000}'
}

/// A hostile name leaves the Loki rule file's lines as they were, and
/// writes nothing YAML cannot read.
fn yaml_lines_kept(benign: &str, hostile: &str) {
    let breaks = |s: &str| s.chars().filter(|&c| is_yaml_break(c)).count();
    assert_eq!(
        breaks(benign),
        breaks(hostile),
        "the YAML's lines: {hostile}"
    );
    assert!(
        hostile.chars().all(is_yaml_printable),
        "only YAML's printable characters: {hostile:?}"
    );
}

/// The mapping file reads back with the name in its slot.
fn toml_reads_back(text: &str, slot: Slot, name: &str) {
    let role = match slot {
        Slot::Time => "time",
        Slot::Key => "key",
        Slot::Holder => "holder",
        Slot::Event => "event",
        Slot::Seq => "seq",
        Slot::TtlMs => "ttl_ms",
        Slot::TtlS => "ttl_s",
        Slot::TtlUnknown => "ttl_unknown",
        Slot::Elapsed => "elapsed_ms",
        Slot::Deleted => "deleted",
        Slot::Table | Slot::EventName(_) => return,
    };
    let doc: toml::Table = text
        .parse()
        .unwrap_or_else(|e| panic!("the mapping file parses: {e}\n{text}"));
    let read = doc
        .get("fields")
        .and_then(|f| f.get(role))
        .and_then(toml::Value::as_str);
    assert_eq!(read, Some(name), "the mapping file reads back: {text}");
}

/// A server's answer, from the fuzz input: once, or repeated without end
/// (a server that never stops sending) up to `cap` bytes, so an input
/// always ends; counts the bytes taken from it.
struct Answer<'a> {
    body: &'a [u8],
    endless: bool,
    cap: u64,
    at: usize,
    sent: u64,
}

impl std::io::Read for Answer<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = usize::try_from(self.cap.saturating_sub(self.sent)).unwrap_or(usize::MAX);
        let want = buf.len().min(left);
        let mut n = 0;
        while n < want && !self.body.is_empty() {
            if self.at == self.body.len() {
                if !self.endless {
                    break;
                }
                self.at = 0;
            }
            let k = (want - n).min(self.body.len() - self.at);
            buf[n..n + k].copy_from_slice(&self.body[self.at..self.at + k]);
            self.at += k;
            n += k;
        }
        self.sent += n as u64;
        Ok(n)
    }
}

/// The capacity of the product's read buffer around an answer
/// (`BufReader::new`): what it may take from the server beyond a bound.
const READ_BUFFER: u64 = 8 << 10;

/// `fetch`'s response reading: the first byte picks what the answer is
/// read as (an error answer, rows, the listing, the pull, the server's
/// version), whether the body repeats without end, and the standard bounds
/// or small ones (so the fuzzer reaches them); the second sets the small
/// bounds, a status and counts; the rest is the body. Never a panic, every
/// bound kept (rows, error text, listed keys, pulled rows; bytes taken
/// from the server), every error and the listing safe for a terminal.
fn fetch_response(data: &[u8]) {
    let (Some(&sel), Some(&size)) = (data.first(), data.get(1)) else {
        return;
    };
    let limits = if sel & 8 != 0 {
        client::AnswerLimits::STANDARD
    } else {
        client::AnswerLimits {
            row_bytes: 1 + u64::from(size % 64) * 8,
            error_bytes: 1 + u64::from(size / 4) * 16,
            error_chars: 1 + usize::from(size) * 2,
        }
    };
    // What reaches each bound, and no more: just past the error answer's
    // read, or two of the longest rows (16 KiB at most: the standard row
    // bound is tested at the small ones).
    let cap = if sel % 5 == 0 {
        limits.error_bytes + READ_BUFFER + 1
    } else {
        (2 * limits.row_bytes + 2).min(16 << 10)
    };
    let mut answer = Answer {
        body: &data[2..],
        endless: sel & 16 != 0,
        cap,
        at: 0,
        sent: 0,
    };
    let mut reader = std::io::BufReader::new(&mut answer);
    let origin = "http://127.0.0.1:8123";
    let check_row = |line: &str| {
        assert!(
            line.len() as u64 <= 3 * limits.row_bytes,
            "a row within the bound (a byte that is not UTF-8 is 3)"
        );
        assert!(!line.contains('\n') && !line.ends_with('\r') && !line.trim().is_empty());
    };
    let result = match sel % 5 {
        0 => {
            let statuses = [400u16, 401, 403, 404, 500, 502, 503];
            let codes = [None, Some("516"), Some("192"), Some("62")];
            let status = statuses[usize::from(size) % statuses.len()];
            let code = codes[usize::from(sel >> 5) % codes.len()];
            let e = client::error_answer(status, code, &mut reader, &limits);
            drop(reader);
            assert!(
                answer.sent <= limits.error_bytes + READ_BUFFER,
                "an error answer is read {} bytes at most, {} taken",
                limits.error_bytes,
                answer.sent
            );
            let text = format!("{e:#}");
            assert!(
                text.chars().count() <= 400 + 10 * limits.error_chars,
                "the error text is bounded"
            );
            Err(e)
        }
        1 => client::read_rows(&mut reader, &limits, origin, &mut |line| {
            check_row(line);
            Ok(())
        }),
        2 => {
            let max_keys = 1 + usize::from(size % 8);
            let mut rows = Vec::new();
            let r = client::read_rows(&mut reader, &limits, origin, &mut |line| {
                check_row(line);
                listing::push_key_row(&mut rows, line, max_keys)
            });
            assert!(
                rows.len() <= max_keys,
                "the listing holds {max_keys} keys at most"
            );
            let shards = 1 + usize::from(sel >> 5);
            let text = fetch::listing_text(&rows, shards);
            assert!(
                is_terminal_safe(&text),
                "the listing is safe for a terminal: {text:?}"
            );
            let lines = 1 + rows.len().min(50) + usize::from(rows.len() > 50);
            assert_eq!(text.lines().count(), lines, "one line a key: {text:?}");
            r
        }
        3 => {
            let max_rows = u64::from(size % 16);
            let (mut out, mut n) = (Vec::new(), 0u64);
            let r = client::read_rows(&mut reader, &limits, origin, &mut |line| {
                check_row(line);
                fetch::write_pulled_row(&mut out, &mut n, max_rows, line)
            });
            let written = out.iter().filter(|&&b| b == b'\n').count() as u64;
            assert!(
                written <= max_rows,
                "{written} rows pulled, at most {max_rows}"
            );
            assert!(out.len() as u64 <= max_rows * (3 * limits.row_bytes + 1));
            r
        }
        _ => {
            let mut last = String::new();
            let r = client::read_rows(&mut reader, &limits, origin, &mut |line| {
                check_row(line);
                last = line.trim().to_string();
                Ok(())
            });
            let (_, text) = client::version_of(last.clone());
            assert_eq!(text, last);
            r
        }
    };
    if let Err(e) = result {
        let text = format!("{e:#}");
        assert!(!text.is_empty());
        assert!(
            is_terminal_safe(&text),
            "an error safe for a terminal: {text:?}"
        );
    }
}
