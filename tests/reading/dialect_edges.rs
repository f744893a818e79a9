//! Dialects at their edges, on input made here at run time: writes to one
//! huge MONITOR hash, time-of-day lines across midnight, Java stack traces
//! between lock lines, CRI partial lines (per stream, left open at the end
//! of the file, past the head that is read whole), CRI lines without their
//! own time, and envelope payloads mixing JSON records and text lines.

use lockreplay::model::RecordWarning;

use crate::support::{bin, export, load, stderr};

/// 200 000 `HSET`s of a new field each on one hash, and one `HSET` of
/// 100 000 fields, replay in a debug build in no time that matters (a
/// write that scanned every field before it made 200 000 take 82 s in a
/// release build). No timing assertion: a quadratic replay hangs here; the
/// speed is measured by `benches/monitor_replay.rs` (`one_hash_1m`).
#[test]
fn writes_to_one_big_hash_replay_in_linear_time() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("one-hash.monitor");
    let mut text = String::from(
        "1795939839.000001 [0 10.0.0.1:5000] \"SET\" \"sku:3b:lock\" \"t1\" \"NX\" \"PX\" \"30000\"\n",
    );
    let n = 200_000u64;
    for i in 0..n {
        let us = 1 + i;
        text.push_str(&format!(
            "{}.{:06} [0 10.0.0.1:5000] \"HSET\" \"orders:sku:3b\" \"order-{i}\" \"1\"\n",
            1_795_939_840 + us / 1_000_000,
            us % 1_000_000
        ));
    }
    // The same on the lock key itself (a Redisson hash with many fields):
    // the lock rules read its holder, not a copy of every field.
    for i in 0..20_000u64 {
        text.push_str(&format!(
            "1795939841.{:06} [0 10.0.0.1:5000] \"HSET\" \"sku:3b:lock\" \"f-{i}\" \"1\"\n",
            i + 1
        ));
    }
    text.push_str("1795939842.000001 [0 10.0.0.1:5000] \"HSET\" \"orders:sku:4c\"");
    for i in 0..100_000 {
        text.push_str(&format!(" \"order-{i}\" \"1\""));
    }
    text.push('\n');
    std::fs::write(&path, text).expect("write");
    let log = load(&[path]);
    let s = &log.sources[0];
    assert_eq!(s.dialect, lockreplay::model::Dialect::RedisMonitor);
    assert_eq!(
        s.lines_read,
        s.events_loaded + s.lines_skipped + s.lines_warned
    );
    assert!(s.lines_read >= n + 2, "{}", s.lines_read);
    assert!(log.events.iter().any(|e| e.kind.is_lock()));
}

/// Logback's TTLLLayout (time of day only; see
/// tests/reading/exports_text.rs for its source) read with the mapping's
/// `date`, across midnight: the lines after 00:00 are on the next day, so
/// tok-B's grant falls inside tok-A's lease (an overlap), and a source note
/// says the date advanced. With the mapping's date on every line the hold
/// would run backwards and the overlap vanish (exit 0, a false all-clear).
#[test]
fn time_of_day_lines_advance_the_date_at_midnight() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("logback-ttll-midnight.web-01.log");
    let l = "INFO com.example.shop.lock.RedisLockService --";
    let s = "INFO com.example.shop.service.InventoryService --";
    let o = "INFO com.example.shop.service.OrderService --";
    let text = [
        "23:59:58.000 [main] INFO com.example.shop.StockBootstrap -- stock initialized sku=sku-1001 stock=1".to_string(),
        format!("23:59:59.100 [exec-1] {l} acquired lock key=lock:sku:1001 token=tok-A ttl=2000ms"),
        format!("23:59:59.150 [exec-1] {s} stock read sku=sku-1001 stock=1"),
        format!("00:00:00.300 [exec-7] {l} acquired lock key=lock:sku:1001 token=tok-B ttl=2000ms"),
        format!("00:00:00.350 [exec-7] {s} stock read sku=sku-1001 stock=1"),
        format!("00:00:00.400 [exec-7] {s} stock deducted sku=sku-1001 qty=1 stockAfter=0"),
        format!("00:00:00.420 [exec-7] {o} order created orderId=O-2 sku=sku-1001 qty=1"),
        format!("00:00:00.500 [exec-7] {l} released lock key=lock:sku:1001 token=tok-B"),
        format!("00:00:00.600 [exec-1] {s} stock deducted sku=sku-1001 qty=1 stockAfter=-1"),
        format!("00:00:00.620 [exec-1] {o} order created orderId=O-1 sku=sku-1001 qty=1"),
        format!("00:00:00.700 [exec-1] {l} released lock key=lock:sku:1001 token=tok-A"),
    ]
    .join("\n");
    std::fs::write(&log, text + "\n").expect("write");
    let out = bin()
        .args(["analyze", "--format", "json", "--mapping"])
        .arg(export("date.mapping.toml"))
        .arg(&log)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(
        v["summary"]["incidents"].as_u64() >= Some(1),
        "{}",
        v["summary"]
    );
    let text = v["sources"].to_string();
    assert!(text.contains("advanced 1 day(s)"), "{text}");
}

/// A 20-line Java stack trace (the shape `Throwable.printStackTrace` and
/// Logback's `%wEx` print: the exception's line, `\tat` frames, `Caused
/// by:`, `... N common frames omitted`) after every line of a Spring Boot
/// 3.3 file log (the default file pattern; see SOURCES-text.md for
/// `springboot33-file.web-01.log`).
fn with_traces(text: &str) -> String {
    let mut trace = vec![
        "java.lang.IllegalStateException: stock service timeout".to_string(),
        "\tat com.example.shop.service.InventoryService.deduct(InventoryService.java:42)"
            .to_string(),
    ];
    for i in 0..15 {
        trace.push(format!(
            "\tat org.springframework.aop.framework.ReflectiveMethodInvocation.proceed(ReflectiveMethodInvocation.java:{})",
            180 + i
        ));
    }
    trace.push("Caused by: java.net.SocketTimeoutException: Read timed out".into());
    trace.push("\tat java.base/sun.nio.ch.NioSocketImpl.timedRead(NioSocketImpl.java:288)".into());
    trace.push("\t... 12 common frames omitted".into());
    let mut out = String::new();
    for line in text.lines() {
        out.push_str(line);
        out.push('\n');
        for t in &trace {
            out.push_str(t);
            out.push('\n');
        }
    }
    out
}

/// Stack traces between lock lines belong to the line before: the file is
/// still a text log, every lock line loads as without the traces, and no
/// trace line is a warning (never an "unknown" file, every line a warning,
/// exit 2).
#[test]
fn stack_traces_between_lock_lines_are_continuation_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let plain = export("springboot33-file.web-01.log");
    let text = std::fs::read_to_string(&plain).expect("fixture");
    let traced = dir.path().join("springboot33-traces.web-01.log");
    std::fs::write(&traced, with_traces(&text)).expect("write");
    let want = load(&[plain]);
    let got = load(&[traced]);
    let s = &got.sources[0];
    assert_eq!(s.dialect, want.sources[0].dialect);
    assert_eq!(got.events.len(), want.events.len());
    assert_eq!(got.warnings.total(), want.warnings.total());
    assert_eq!(s.events_loaded, want.sources[0].events_loaded);
    assert_eq!(
        s.lines_read,
        s.events_loaded + s.lines_skipped + s.lines_warned
    );
}

/// One CRI line: the node's RFC 3339 time, the stream, `P` or `F`, the
/// content (containerd's `internal/cri/io/logger.go`).
fn cri_line(ms: u64, stream: &str, tag: &str, content: &str) -> String {
    format!(
        "2026-11-30T23:{:02}:{:02}.{:03}000000Z {stream} {tag} {content}\n",
        (ms / 60_000) % 60,
        (ms / 1000) % 60,
        ms % 1000
    )
}

/// A Spring Boot 3 line at `ms` (the app's clock, +08:00).
fn spring(ms: u64, words: &str) -> String {
    format!(
        "2026-12-01T07:{:02}:{:02}.{:03}+08:00  INFO 1 --- [exec-1] c.e.shop.LockService : {words}",
        (ms / 60_000) % 60,
        (ms / 1000) % 60,
        ms % 1000
    )
}

/// `P` chunks no `F` line closes at the end of the file are read as the
/// line they would have been, with a warning naming the file, the lines
/// and the reason, so the last grant never vanishes without a word; a
/// `stdout P` waits for its own stream's `F`, never glued to an
/// interleaved `stderr F` (which would take the stdout chunk, and both
/// lines lose their lock words).
#[test]
fn cri_partial_lines_are_joined_per_stream_and_never_dropped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("web-01.cri.log");
    let grant = spring(1000, "acquired lock key=lock:sku:1 token=a ttl=30s");
    let (a, b) = grant.split_at(70);
    let late = spring(3000, "acquired lock key=lock:sku:1 token=c ttl=30s");
    let (c, d) = late.split_at(50);
    let text = [
        cri_line(1000, "stdout", "P", a),
        cri_line(
            1001,
            "stderr",
            "F",
            &spring(1001, "released lock key=lock:sku:2 token=b"),
        ),
        cri_line(1002, "stdout", "F", b),
        cri_line(
            2000,
            "stdout",
            "F",
            &spring(2000, "released lock key=lock:sku:1 token=a"),
        ),
        cri_line(3000, "stdout", "P", c),
        cri_line(3001, "stdout", "P", d),
    ]
    .concat();
    std::fs::write(&path, text).expect("write");
    let log = load(&[path]);
    let holders: Vec<String> = log
        .events
        .iter()
        .map(|e| {
            e.holder
                .map(|h| log.strings.get_or_empty(Some(h)).to_string())
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(holders, ["a", "b", "a", "c"]);
    assert_eq!(log.events[0].ttl_ms(), Some(30_000));
    let w = log.warnings.kept();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].file.ends_with("web-01.cri.log"), "{}", w[0].file);
    assert_eq!(w[0].line, 6);
    let want = RecordWarning::CriUnclosed {
        stream: "stdout".into(),
        first: 5,
        last: 6,
    };
    assert_eq!(w[0].reason, want.into());
    let s = &log.sources[0];
    assert_eq!(
        [
            s.lines_read,
            s.events_loaded,
            s.lines_skipped,
            s.lines_warned
        ],
        [6, 4, 2, 0]
    );
}

/// Past the 32 MB head, where chunks are read in parallel, a lock line cut
/// into `P` chunks at a chunk boundary is joined as in the head. The file
/// (~34 MB, made here) is Spring Boot CRI lines; past 32 MB every lock line
/// is cut in three with a stderr line between. A chunk that started with
/// no partial line would skip the chunks and load the `F` rests as
/// nothing: every grant past the head lost.
#[test]
fn cri_partial_lines_past_the_head_are_joined() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("big.cri.log");
    let mut text = String::with_capacity(35 << 20);
    let mut ms = 0u64;
    // Lock lines among the first ones, where the fields are picked.
    let mut grants = 0;
    while text.len() < 32 << 20 {
        let words = if ms < 400 && ms.is_multiple_of(2) {
            grants += 1;
            format!("acquired lock key=lock:{ms} token=t{ms} ttl=5s")
        } else {
            "healthy".to_string()
        };
        text.push_str(&cri_line(ms, "stdout", "F", &spring(ms, &words)));
        ms += 1;
    }
    while text.len() < 34 << 20 {
        let line = spring(
            ms,
            &format!("acquired lock key=lock:{ms} token=t{ms} ttl=5s"),
        );
        // Cut inside the words: no part names the event on its own.
        let words = line.find(" : ").expect("layout") + 3;
        let (a, rest) = line.split_at(words + 5);
        let (b, c) = rest.split_at(20);
        text.push_str(&cri_line(ms, "stdout", "P", a));
        text.push_str(&cri_line(ms, "stderr", "F", &spring(ms, "GC pause")));
        text.push_str(&cri_line(ms, "stdout", "P", b));
        text.push_str(&cri_line(ms, "stdout", "F", c));
        grants += 1;
        ms += 1;
    }
    std::fs::write(&path, &text).expect("write");
    drop(text);
    let log = load(&[path]);
    assert_eq!(log.events.len(), grants, "every grant, past the head too");
    assert!(log.events.iter().all(|e| e.ttl_ms() == Some(5000)));
    let s = &log.sources[0];
    assert_eq!(
        s.lines_read,
        s.events_loaded + s.lines_skipped + s.lines_warned
    );
    assert_eq!(log.warnings.total(), 0, "{:?}", log.warnings.kept());
}

/// A CRI pod log whose Spring Boot lines carry their own time beside lines
/// that have only the CRI prefix's (printed without the layout; the `cri`
/// fuzz target's input in `tests/fixtures/hostile/fuzz/` is another). The
/// time pick is the application's `time`; the lines without it fall back
/// to `prefix.time` whether or not a line with a JSON message fell inside
/// the detection window, so the three plain lines are not warned "no time
/// in field time" and the overlap on `lock:sku:43` stays.
#[test]
fn cri_lines_without_their_own_time_keep_the_prefix_time() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("mixed.cri.log");
    let lines = [
        cri_line(
            100,
            "stdout",
            "F",
            &spring(100, "lock acquired key=lock:sku:42 holder=t1 ttl=2000"),
        ),
        cri_line(
            200,
            "stdout",
            "F",
            "lock acquired key=lock:sku:43 holder=t2 ttl=2000",
        ),
        cri_line(
            300,
            "stdout",
            "F",
            "stock deducted key=lock:sku:43 holder=t2 sku=43 qty=1",
        ),
        cri_line(
            400,
            "stdout",
            "F",
            "lock released key=lock:sku:43 holder=t2",
        ),
        cri_line(
            1100,
            "stdout",
            "F",
            &spring(1100, "lock released key=lock:sku:42 holder=t1"),
        ),
    ];
    std::fs::write(&path, lines.concat()).expect("write");
    let log = load(&[path]);
    assert_eq!(log.warnings.total(), 0, "{:?}", log.warnings.kept());
    assert_eq!(log.events.len(), 5, "every line is an event");
    let s = &log.sources[0];
    assert_eq!(s.lines_read, 5);
    assert_eq!(s.events_loaded, 5);
}

/// A docker json-file line (`kubectl logs` and docker's own format) whose
/// `log` holds `payload`.
fn docker_line(ms: u64, payload: &str) -> String {
    let log = serde_json::to_string(&format!("{payload}\n")).expect("json");
    format!(
        "{{\"log\":{log},\"stream\":\"stdout\",\"time\":\"2026-11-30T23:06:{:02}.{:03}Z\"}}\n",
        ms / 1000 % 60,
        ms % 1000
    )
}

/// A docker json-file log whose payloads mix a JSON logger's records
/// (`owner`, `ttl_ms`) and Spring Boot text lines (`token=`, `ttl=`): the
/// fields are picked per kind, so both kinds' holders and TTLs load and the
/// two grants of one key by two holders are an overlap (one field per role
/// for the file would drop the text lines' holders and TTLs without a
/// warning, and the overlap with them).
#[test]
fn envelope_payloads_mixing_json_and_text_keep_both_kinds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("shop-0.docker.log");
    let json = |ms: u64, ev: &str| {
        format!(
            "{{\"ts\":\"2026-12-01T07:00:{:02}.{:03}+08:00\",\"level\":\"info\",\"event\":\"{ev}\",\"lock_key\":\"lock:sku:1\",\"owner\":\"json-a\",\"ttl_ms\":30000}}",
            ms / 1000 % 60,
            ms % 1000
        )
    };
    let text = [
        docker_line(1000, &json(1000, "acquired")),
        docker_line(
            1500,
            &spring(1500, "acquired lock key=lock:sku:1 token=text-b ttl=30s"),
        ),
        docker_line(4000, &json(4000, "released")),
        docker_line(
            4500,
            &spring(4500, "released lock key=lock:sku:1 token=text-b"),
        ),
    ]
    .concat();
    std::fs::write(&path, text).expect("write");
    let log = load(&[path]);
    let got: Vec<(String, Option<i64>)> = log
        .events
        .iter()
        .map(|e| {
            let h = e
                .holder
                .map(|h| log.strings.get_or_empty(Some(h)).to_string());
            (h.unwrap_or_default(), e.ttl_ms())
        })
        .collect();
    assert_eq!(
        got,
        [
            ("json-a".to_string(), Some(30_000)),
            ("text-b".to_string(), Some(30_000)),
            ("json-a".to_string(), Some(30_000)),
            ("text-b".to_string(), None),
        ]
    );
    let analysis = lockreplay::analysis::analyze(&log, &lockreplay::analysis::Settings::default());
    assert_eq!(analysis.summary.overlap_pairs, 1);
}
