//! How runtimes write durations, lock outcomes and release lines, through
//! the built binary. Each case is written from the runtime's documentation
//! or source, and each is easy to read wrong:
//! Go `slog`'s nanosecond durations, Java/.NET/Python/Go duration strings,
//! a Spring Boot `unlock success` line, a `tryLock ... locked=false` line,
//! and an `elapsed_ms` that counts the hold rather than the release.

use crate::support;

use std::path::Path;

use serde_json::Value;
use support::{causes, finding_kinds, write_lines as write};

/// `analyze --format json` of `file`: (exit code, report).
fn analyze(file: &Path) -> (i32, Value) {
    let out = crate::support::bin()
        .args([
            "analyze",
            "--format",
            "json",
            "--no-cache",
            "--unit-loss",
            "100",
        ])
        .arg(file)
        .output()
        .expect("run");
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), v)
}

/// The `events:` line of `inspect FILE`: events per kind (`acquired 2, ...`).
fn events_line(file: &Path) -> String {
    let out = crate::support::bin()
        .arg("inspect")
        .arg(file)
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.lines()
        .find_map(|l| l.trim().strip_prefix("events: "))
        .unwrap_or_else(|| panic!("no events line: {text}"))
        .to_string()
}

/// The classic expiry as JSON lines, the TTL written `ttl` (a JSON value,
/// raw): A's 2 s lease runs out at 3.0 s, B acquires at 3.1 s, both deduct
/// the one unit.
fn expiry(ttl: &str) -> Vec<String> {
    let line = |t: &str, msg: &str, owner: &str, extra: &str| {
        format!(
            r#"{{"time":"2026-11-11T00:00:0{t}+08:00","level":"INFO","msg":"{msg}","lock_key":"lock:sku:1001","token":"{owner}"{extra}}}"#
        )
    };
    vec![
        line(
            "0.000",
            "stock initialized",
            "",
            r#","sku":"1001","stock":1"#,
        ),
        line("1.000", "lock acquired", "A", &format!(r#","ttl":{ttl}"#)),
        line("3.100", "lock acquired", "B", &format!(r#","ttl":{ttl}"#)),
        line(
            "3.150",
            "stock deducted",
            "B",
            r#","sku":"1001","quantity":1,"stock_after":0"#,
        ),
        line("3.300", "lock released", "B", r#","deleted":1"#),
        line(
            "3.500",
            "stock deducted",
            "A",
            r#","sku":"1001","quantity":1,"stock_after":0"#,
        ),
        line("3.600", "lock release failed", "A", r#","deleted":0"#),
    ]
}

#[test]
fn go_slog_durations_are_nanoseconds_and_said_as_a_guess() {
    // Go's log/slog JSONHandler writes a Duration as its nanoseconds
    // (json_handler.go, `case KindDuration: // Do what json.Marshal does.
    // strconv.AppendInt(..., int64(v.Duration()), 10)`): 2 s is 2000000000.
    // Read as ms that was a 23-day TTL and the cause `lock_vanished`.
    let dir = tempfile::tempdir().expect("tmp");
    let file = write(dir.path(), "slog.jsonl", &expiry("2000000000"));
    let (code, v) = analyze(&file);
    assert_eq!(code, 1);
    assert_eq!(causes(&v), vec!["lease_expired"]);
    assert_eq!(v["incidents"][0]["holds"][0]["ttl_ms"], 2000);
    let notes = v["sources"][0]["notes"].to_string();
    assert!(notes.contains("read as nanoseconds"), "{notes}");
}

#[test]
fn duration_strings_of_java_dotnet_python_and_go_are_ttls() {
    // Java `Duration.toString()` (ISO 8601), .NET `TimeSpan.ToString()`
    // (Serilog's JsonValueFormatter falls back to ToString()), Python
    // `str(timedelta)`, Go `Duration.String()`. Each was "no TTL": a false
    // `no_ttl` and the cause `lock_vanished`.
    let dir = tempfile::tempdir().expect("tmp");
    for (ttl, ms, cause) in [
        (r#""PT2S""#, 2000, "lease_expired"),
        (r#""00:00:02""#, 2000, "lease_expired"),
        (r#""0:00:02""#, 2000, "lease_expired"),
        (r#""2s""#, 2000, "lease_expired"),
        // 90 s: A's lease was still valid at B's acquire, and nobody
        // deleted it.
        (r#""1m30s""#, 90_000, "lock_vanished"),
    ] {
        let file = write(dir.path(), "app.jsonl", &expiry(ttl));
        let (_, v) = analyze(&file);
        assert_eq!(causes(&v), vec![cause], "{ttl}");
        assert_eq!(v["incidents"][0]["holds"][0]["ttl_ms"], ms, "{ttl}");
        assert!(!finding_kinds(&v).contains(&"no_ttl".to_string()), "{ttl}");
    }
}

/// A Spring Boot line (the default console pattern) of thread `exec-N`.
fn spring(t: &str, thread: &str, msg: &str) -> String {
    format!("2026-11-11 00:00:0{t}  INFO 1 --- [http-nio-8080-{thread}] c.s.i.StockService : {msg}")
}

#[test]
fn an_unlock_line_in_english_words_is_a_release() {
    // `unlock success key=...` was work of the holder, so its order after
    // the unlock (the usual `finally { unlock }` then insert) made a false
    // incident of 48 ms.
    let dir = tempfile::tempdir().expect("tmp");
    for unlock in ["unlock success", "release lock", "lock.unlock()", "unlock"] {
        let lines = vec![
            spring("0.000", "exec-1", "库存初始化 sku=1001 stock=2"),
            spring(
                "1.000",
                "exec-3",
                "获取锁成功 key=lock:sku:1001 owner=u:63 leaseTime=2000ms",
            ),
            spring(
                "1.050",
                "exec-3",
                "扣减库存成功 sku=1001 quantity=1 stock_before=2 stock_after=1",
            ),
            spring(
                "1.100",
                "exec-3",
                &format!("{unlock} key=lock:sku:1001 owner=u:63"),
            ),
            spring(
                "1.102",
                "exec-9",
                "获取锁成功 key=lock:sku:1001 owner=u:71 leaseTime=2000ms",
            ),
            spring(
                "1.140",
                "exec-9",
                "扣减库存成功 sku=1001 quantity=1 stock_before=1 stock_after=0",
            ),
            spring(
                "1.150",
                "exec-3",
                "创建订单成功 orderId=O-A sku=1001 quantity=1",
            ),
            spring(
                "1.190",
                "exec-9",
                &format!("{unlock} key=lock:sku:1001 owner=u:71"),
            ),
        ];
        let file = write(dir.path(), "spring.log", &lines);
        let (code, v) = analyze(&file);
        assert_eq!(
            (code, v["incidents"].as_array().map(Vec::len)),
            (0, Some(0)),
            "{unlock}"
        );
        let events = events_line(&file);
        assert!(events.contains("released 2"), "{unlock}: {events}");
    }
}

#[test]
fn a_try_lock_line_that_says_it_failed_is_no_acquire() {
    // `tryLock ... locked=false` was an acquire (the phrase `locked` matched
    // the pair's name): a false incident of a hold that never was.
    let dir = tempfile::tempdir().expect("tmp");
    let lines = vec![
        spring("0.000", "exec-1", "库存初始化 sku=1001 stock=1"),
        spring(
            "1.000",
            "exec-3",
            "tryLock key=lock:sku:1001 owner=u:63 leaseTime=2000ms locked=true",
        ),
        spring(
            "1.050",
            "exec-3",
            "扣减库存成功 sku=1001 quantity=1 stock_before=1 stock_after=0",
        ),
        spring(
            "1.300",
            "exec-9",
            "tryLock key=lock:sku:1001 owner=u:71 leaseTime=2000ms locked=false",
        ),
        spring("1.400", "exec-3", "unlock key=lock:sku:1001 owner=u:63"),
    ];
    let file = write(dir.path(), "trylock.log", &lines);
    let (code, v) = analyze(&file);
    assert_eq!(
        (code, v["incidents"].as_array().map(Vec::len)),
        (0, Some(0))
    );
    let events = events_line(&file);
    assert!(
        events.contains("acquired 1") && events.contains("acquire_failed 1"),
        "{events}"
    );
}

#[test]
fn an_elapsed_time_that_counts_the_hold_does_not_end_the_window_early() {
    // A wrapper logging the time held as `elapsed_ms` on its release line
    // (2600 since the acquire) ended A's window at its acquire, before its
    // own deduction: 0 incidents, exit 0, beside 1 unit oversold.
    let dir = tempfile::tempdir().expect("tmp");
    let mut lines = expiry("2000");
    lines[4] = lines[4].replace(r#""deleted":1"#, r#""deleted":1,"elapsed_ms":200"#);
    lines[6] = lines[6].replace(r#""deleted":0"#, r#""deleted":0,"elapsed_ms":2600"#);
    let file = write(dir.path(), "elapsed.jsonl", &lines);
    let (code, v) = analyze(&file);
    assert_eq!(code, 1);
    assert_eq!(causes(&v), vec!["lease_expired"]);
    assert_eq!(v["incidents"][0]["overlaps"][0]["duration_ms"], 200.0);
}

/// A Log4j2 `JsonLayout` record as the manual shows it
/// (logging.apache.org/log4j/2.x/manual/layouts.html, "JSON Layout":
/// `"instant" : { "epochSecond" : 1493121664, "nanoOfSecond" : 118000000 }`,
/// `thread`, `level`, `loggerName`, `message`, `endOfBatch`, `loggerFqcn`,
/// `contextMap`, `threadId`, `threadPriority`), pretty-printed (the default
/// `compact="false"`) or on one line; `ms` after 2026-11-11T00:00:00+08:00.
fn log4j2(ms: u64, msg: &str, ctx: &str, pretty: bool) -> String {
    let (s, n) = (1_794_326_400 + ms / 1000, (ms % 1000) * 1_000_000 + 412_000);
    let rec = format!(
        r#"{{"instant" : {{"epochSecond" : {s}, "nanoOfSecond" : {n}}}, "thread" : "http-nio-8080-exec-3", "level" : "INFO", "loggerName" : "com.shop.StockService", "message" : "{msg}", "endOfBatch" : false, "loggerFqcn" : "org.apache.logging.slf4j.Log4jLogger", "contextMap" : {{{ctx}}}, "threadId" : 31, "threadPriority" : 5}}"#
    );
    if !pretty {
        return rec;
    }
    let v: Value = serde_json::from_str(&rec).expect("json");
    serde_json::to_string_pretty(&v).expect("pretty")
}

#[test]
fn log4j2_json_layout_compact_and_pretty_is_read_to_the_nanosecond() {
    // Both were "no time field" (exit 2); the time is the `instant` object.
    let dir = tempfile::tempdir().expect("tmp");
    let ctx = |owner: &str, extra: &str| {
        format!(r#""key" : "lock:sku:1001", "owner" : "{owner}"{extra}"#)
    };
    for pretty in [false, true] {
        let lines = vec![
            log4j2(
                1000,
                "lock acquired",
                &ctx("A", r#", "ttl_ms" : "2000""#),
                pretty,
            ),
            log4j2(
                3100,
                "lock acquired",
                &ctx("B", r#", "ttl_ms" : "2000""#),
                pretty,
            ),
            log4j2(
                3300,
                "lock released",
                &ctx("B", r#", "deleted" : "1""#),
                pretty,
            ),
            log4j2(
                3600,
                "lock release failed",
                &ctx("A", r#", "deleted" : "0""#),
                pretty,
            ),
        ];
        let file = write(dir.path(), "log4j2.json", &lines);
        let (code, v) = analyze(&file);
        assert_eq!(code, 1, "pretty {pretty}: {v}");
        assert_eq!(causes(&v), vec!["lease_expired"], "pretty {pretty}");
        let overlap = &v["incidents"][0]["overlaps"][0];
        assert_eq!(overlap["duration_ms"], 200.0, "pretty {pretty}");
        assert_eq!(v["sources"][0]["time_resolution"], "µs", "pretty {pretty}");
    }
}

#[test]
fn whole_second_times_keep_the_overlap_the_files_order_shows() {
    // zerolog's default time is RFC 3339 without fractions (globals.go:
    // `TimeFieldFormat = time.RFC3339`), as is logrus's JSONFormatter's. The
    // expiry's lines after A's acquire all carry second 3; B's acquire comes
    // before A's deduction and failed release in the file. The windows only
    // touched: 0 incidents, exit 0, beside 1 unit oversold.
    let dir = tempfile::tempdir().expect("tmp");
    let lines: Vec<String> = expiry("2000")
        .into_iter()
        .map(|l| {
            let at = l.find("00:00:0").expect("time") + 8;
            format!("{}{}", &l[..at], &l[at + 4..])
        })
        .collect();
    assert!(
        lines[3].contains(r#""time":"2026-11-11T00:00:03+08:00""#),
        "{}",
        lines[3]
    );
    let file = write(dir.path(), "zerolog.jsonl", &lines);
    let (code, v) = analyze(&file);
    assert_eq!(code, 1, "{v}");
    assert_eq!(causes(&v), vec!["lease_expired"]);
    assert_eq!(v["incidents"][0]["overlaps"][0]["duration_ms"], 0.0);
    assert_eq!(v["incidents"][0]["oversold_units"], 1);
}

#[test]
fn journald_json_with_a_gbk_message_as_bytes_and_its_own_times() {
    // `journalctl -o json` (journalctl(1), "json"): every field a string,
    // `__REALTIME_TIMESTAMP` µs since the epoch; a field that is not valid
    // UTF-8 (a GBK application's message) is "encoded as arrays containing
    // the raw bytes individually formatted as unsigned numbers". The file
    // was unreadable (exit 2): no time field, no message.
    let dir = tempfile::tempdir().expect("tmp");
    let entry = |ms: u64, msg: &str| {
        let (gbk, _, _) = encoding_rs::GBK.encode(msg);
        let bytes: Vec<String> = gbk.iter().map(u8::to_string).collect();
        format!(
            r#"{{"__CURSOR":"s=7c1e;i={ms}","__REALTIME_TIMESTAMP":"{}","_HOSTNAME":"order-svc-a","SYSLOG_IDENTIFIER":"order-svc","_PID":"4242","_TRANSPORT":"stdout","MESSAGE":[{}]}}"#,
            (1_794_326_400_000 + ms) * 1000,
            bytes.join(",")
        )
    };
    let lines = vec![
        entry(0, "库存初始化 sku=1001 stock=1"),
        entry(
            1000,
            "获取锁成功 key=lock:sku:1001 owner=A leaseTime=2000ms",
        ),
        entry(
            3100,
            "获取锁成功 key=lock:sku:1001 owner=B leaseTime=2000ms",
        ),
        entry(
            3150,
            "扣减库存成功 key=lock:sku:1001 owner=B sku=1001 quantity=1 stock_after=0",
        ),
        entry(3300, "释放锁 key=lock:sku:1001 owner=B deleted=1"),
        entry(
            3500,
            "扣减库存成功 key=lock:sku:1001 owner=A sku=1001 quantity=1 stock_after=0",
        ),
        entry(3600, "释放锁失败 key=lock:sku:1001 owner=A deleted=0"),
    ];
    assert!(
        !lines[1].contains("获取"),
        "the message is bytes: {}",
        lines[1]
    );
    let file = write(dir.path(), "journal.json", &lines);
    let (code, v) = analyze(&file);
    assert_eq!(code, 1, "{v}");
    assert_eq!(causes(&v), vec!["lease_expired"]);
    assert_eq!(v["incidents"][0]["overlaps"][0]["duration_ms"], 200.0);
    assert_eq!(v["incidents"][0]["oversold_units"], 1);
}

#[test]
fn docker_json_file_parts_of_a_long_line_are_joined() {
    // moby daemon/logger/copier.go copies a line in parts of at most
    // `defaultBufSize = 16 * 1024` bytes; the json-file driver writes each
    // as `{"log":..,"stream":..,"time":..}`, only the last `log` ending in
    // `\n` (docs.docker.com, json-file). The order line with a large cart
    // was two entries, neither a record: ¥0 lost where the plain lines gave
    // ¥100, nothing warned.
    let dir = tempfile::tempdir().expect("tmp");
    let entry = |log: &str, ms: u64| {
        serde_json::json!({
            "log": log,
            "stream": "stdout",
            "time": format!("2026-11-10T16:00:0{}.{:03}000123Z", ms / 1000, ms % 1000),
        })
        .to_string()
    };
    let app = |ms: u64, event: &str, owner: &str, extra: &str| {
        format!(
            r#"{{"level":30,"time":{},"lockKey":"lock:sku:1001","lockToken":"{owner}","event":"{event}"{extra}}}"#,
            1_794_326_400_000 + ms
        )
    };
    let cart = format!(r#","cart":"{}""#, "x".repeat(20_000));
    let order = |ms: u64, owner: &str, id: &str| {
        app(
            ms,
            "order_created",
            owner,
            &format!(r#","sku":"1001","quantity":1,"order_id":"{id}"{cart}"#),
        )
    };
    let mut lines = vec![
        entry(
            &(app(0, "stock_initialized", "", r#","sku":"1001","stock":1"#) + "\n"),
            0,
        ),
        entry(
            &(app(1000, "acquired", "A", r#","ttlMs":2000"#) + "\n"),
            1000,
        ),
        entry(
            &(app(3100, "acquired", "B", r#","ttlMs":2000"#) + "\n"),
            3100,
        ),
    ];
    for (ms, owner, id) in [(3150, "B", "O-B"), (3500, "A", "O-A")] {
        let whole = order(ms, owner, id) + "\n";
        let (head, tail) = whole.split_at(16 * 1024);
        lines.push(entry(head, ms));
        lines.push(entry(tail, ms));
    }
    lines.push(entry(
        &(app(3300, "released", "B", r#","deleted":1"#) + "\n"),
        3300,
    ));
    lines.push(entry(
        &(app(3600, "release_failed", "A", r#","deleted":0"#) + "\n"),
        3600,
    ));
    let file = write(dir.path(), "container-json.log", &lines);
    let (code, v) = analyze(&file);
    assert_eq!(code, 1, "{v}");
    assert_eq!(causes(&v), vec!["lease_expired"]);
    assert_eq!(
        v["incidents"][0]["oversold_units"], 1,
        "{}",
        v["incidents"][0]
    );
    let notes = v["sources"][0]["notes"].to_string();
    assert!(
        notes.contains("2 docker json-file entr(ies) were parts"),
        "{notes}"
    );
}

#[test]
fn rsyslog_files_of_rfc_3164_times_get_a_year() {
    // RFC 3164 §4.1.2: TIMESTAMP is `Mmm dd hh:mm:ss`, the day space-padded,
    // no year; rsyslog's default file format (RSYSLOG_TraditionalFileFormat)
    // writes it so, without `<PRI>`. A message without its own time was
    // "unreadable time" on every line (exit 2).
    let dir = tempfile::tempdir().expect("tmp");
    let line = |t: &str, msg: &str| format!("Nov  9 00:00:0{t} web-01 shop[2345]: {msg}");
    let lines = vec![
        line("0", "库存初始化 product=SKU-1001 stock=1"),
        line("1", "获取锁成功 key=lock:sku:1001 owner=tokA ttl=2000ms"),
        line("3", "获取锁成功 key=lock:sku:1001 owner=tokB ttl=2000ms"),
        line(
            "3",
            "扣减库存成功 key=lock:sku:1001 owner=tokB product=SKU-1001 quantity=1 stock_after=0",
        ),
        line("4", "释放锁 key=lock:sku:1001 owner=tokB deleted=1"),
        line(
            "5",
            "扣减库存成功 key=lock:sku:1001 owner=tokA product=SKU-1001 quantity=1 stock_after=0",
        ),
        line("6", "释放锁失败 key=lock:sku:1001 owner=tokA deleted=0"),
    ];
    let file = write(dir.path(), "messages", &lines);
    let (code, v) = analyze(&file);
    assert_eq!(code, 1, "{v}");
    assert_eq!(causes(&v), vec!["lease_expired"]);
    assert_eq!(v["incidents"][0]["oversold_units"], 1);
    let notes = v["sources"][0]["notes"].to_string();
    assert!(notes.contains("RFC 3164 times carry no year"), "{notes}");
    // A mapping's date gives the year.
    let mapping = dir.path().join("m.toml");
    std::fs::write(&mapping, "date = \"2024-11-09\"\n").expect("write");
    let out = crate::support::bin()
        .args(["analyze", "--format", "json", "--no-cache", "--mapping"])
        .arg(&mapping)
        .arg(&file)
        .output()
        .expect("run");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let start = v["incidents"][0]["start"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(start.starts_with("2024-11-09T00:00:03"), "{start}");
}

#[test]
fn gunicorn_and_env_logger_bracketed_times_are_read() {
    // gunicorn's error log: `[%Y-%m-%d %H:%M:%S %z] [pid] [LEVEL] message`
    // (gunicorn/glogging.py, `datefmt = r"[%Y-%m-%d %H:%M:%S %z]"`); Rust
    // env_logger's default: `[TIME LEVEL target] message`
    // (env_logger/src/fmt/mod.rs, `DefaultFormat`: `[`, timestamp in whole
    // seconds, level, module path, `] `). Both were "no time field", exit 2.
    let dir = tempfile::tempdir().expect("tmp");
    let steps = [
        (0, "stock initialized product=SKU-1001 stock=1"),
        (1, "acquired lock key=lock:sku:1001 owner=tokA ttl=2000ms"),
        (4, "acquired lock key=lock:sku:1001 owner=tokB ttl=2000ms"),
        (
            4,
            "stock deducted key=lock:sku:1001 owner=tokB product=SKU-1001 quantity=1 stock_after=0",
        ),
        (5, "released lock key=lock:sku:1001 owner=tokB deleted=1"),
        (
            6,
            "stock deducted key=lock:sku:1001 owner=tokA product=SKU-1001 quantity=1 stock_after=0",
        ),
        (7, "release failed key=lock:sku:1001 owner=tokA deleted=0"),
    ];
    let gunicorn: Vec<String> = steps
        .iter()
        .map(|(s, m)| format!("[2026-11-11 00:00:0{s} +0800] [2345] [INFO] {m}"))
        .collect();
    let env_logger: Vec<String> = steps
        .iter()
        .map(|(s, m)| format!("[2026-11-10T16:00:0{s}Z INFO  shop::lock] {m}"))
        .collect();
    for (name, lines, start) in [
        ("gunicorn.log", gunicorn, "2026-11-11T00:00:04.000000+08:00"),
        ("app.log", env_logger, "2026-11-10T16:00:04.000000+00:00"),
    ] {
        let file = write(dir.path(), name, &lines);
        let (code, v) = analyze(&file);
        assert_eq!(code, 1, "{name}: {v}");
        assert_eq!(causes(&v), vec!["lease_expired"], "{name}");
        // The same instant, shown in each log's own offset.
        assert_eq!(v["incidents"][0]["start"], start, "{name}");
    }
}

#[test]
fn a_skywalking_trace_bracket_is_no_thread() {
    // SkyWalking's Logback pattern `%d [%tid] [%thread] %-5level %logger -
    // %msg` (skywalking.apache.org, apm-toolkit-logback-1.x) prints
    // `[TID:N/A]` when the agent is off. It was read as the thread: one
    // holder, 0 incidents, exit 0, beside 1 unit oversold. The Redisson
    // exception's first line after the failed release is part of that line.
    let dir = tempfile::tempdir().expect("tmp");
    let line = |t: &str, th: &str, msg: &str| {
        format!(
            "2024-11-11 00:00:0{t} [TID:N/A] [http-nio-8080-{th}] INFO  c.d.s.SeckillServiceImpl - {msg}"
        )
    };
    let lines = vec![
        line("0.000", "exec-1", "库存初始化 skuId=10086 stock=1"),
        line("1.000", "exec-3", "获取分布式锁成功 lockKey=lock:sku:10086 leaseTime=2000ms"),
        line("3.200", "exec-9", "获取分布式锁成功 lockKey=lock:sku:10086 leaseTime=2000ms"),
        line("3.250", "exec-9", "扣减库存成功 lockKey=lock:sku:10086 skuId=10086 quantity=1 stock_after=0"),
        line("3.500", "exec-3", "扣减库存成功 lockKey=lock:sku:10086 skuId=10086 quantity=1 stock_after=0"),
        line("3.600", "exec-3", "释放锁失败 lockKey=lock:sku:10086"),
        "java.lang.IllegalMonitorStateException: attempt to unlock lock, not locked by current thread by node id: 8f1e thread-id: 61".to_string(),
        "\tat org.redisson.RedissonBaseLock.lambda$unlockAsync$2(RedissonBaseLock.java:323)".to_string(),
        line("3.800", "exec-9", "释放锁成功 lockKey=lock:sku:10086"),
    ];
    let file = write(dir.path(), "seckill.log", &lines);
    let (code, v) = analyze(&file);
    assert_eq!(code, 1, "{v}");
    assert_eq!(causes(&v), vec!["lease_expired"]);
    assert_eq!(v["incidents"][0]["overlaps"][0]["duration_ms"], 400.0);
    assert_eq!(v["sources"][0]["warned"], 0, "{}", v["warnings"]);
}

#[test]
fn sls_high_precision_times_newest_first_give_the_overlap() {
    // Alibaba Cloud SLS, "高精度时间戳": a log's time is `__time__` (whole
    // seconds) plus `__time_ns_part__`; a console download lists the newest
    // first. The part was ignored and the second's lines read in the file's
    // order: 0 incidents, exit 0, beside 1 unit oversold.
    let dir = tempfile::tempdir().expect("tmp");
    let rec = |ms: u64, thread: &str, event: &str, owner: &str, extra: &str| {
        format!(
            r#"{{"__source__":"10.0.3.17","__tag__:__hostname__":"seckill-7c9d8","__time__":"{}","__time_ns_part__":"{}","__topic__":"seckill","thread":"{thread}","event":"{event}","lockKey":"lock:sku:10086","owner":"{owner}"{extra}}}"#,
            1_731_254_400 + ms / 1000,
            (ms % 1000) * 1_000_000
        )
    };
    let mut lines = vec![
        rec(
            0,
            "main",
            "库存初始化",
            "",
            r#","skuId":"10086","stock":"1""#,
        ),
        rec(
            1000,
            "exec-3",
            "获取分布式锁成功",
            "A",
            r#","leaseTime":"2000ms""#,
        ),
        rec(
            3200,
            "exec-9",
            "获取分布式锁成功",
            "B",
            r#","leaseTime":"2000ms""#,
        ),
        rec(
            3250,
            "exec-9",
            "扣减库存成功",
            "B",
            r#","skuId":"10086","quantity":"1","stock_after":"0""#,
        ),
        rec(
            3500,
            "exec-3",
            "扣减库存成功",
            "A",
            r#","skuId":"10086","quantity":"1","stock_after":"0""#,
        ),
        rec(3600, "exec-3", "释放锁失败", "A", ""),
        rec(3800, "exec-9", "释放锁成功", "B", ""),
    ];
    lines.reverse();
    let file = write(dir.path(), "sls-download.json", &lines);
    let (code, v) = analyze(&file);
    assert_eq!(code, 1, "{v}");
    assert_eq!(causes(&v), vec!["lease_expired"]);
    assert_eq!(v["incidents"][0]["overlaps"][0]["duration_ms"], 400.0);
    assert_eq!(v["incidents"][0]["oversold_units"], 1);
}

#[test]
fn an_excel_workbook_is_said_to_be_one() {
    // An .xlsx is a zip archive (ECMA-376 Open Packaging Conventions): it
    // was "unknown, WINDOWS-1252" with advice to write a line_regex.
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("导出.xlsx");
    std::fs::write(
        &path,
        b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00[Content_Types].xml",
    )
    .expect("write");
    let (code, v) = analyze(&path);
    assert_eq!(code, 2);
    let reason = v["not_readable"].to_string();
    assert!(
        reason.contains("save the workbook's sheet as CSV"),
        "{reason}"
    );
}

/// The overlap of the renaming generator's oversell incident (hold A from
/// 55.100 with a 2 s TTL, its release failing at 58.200; B from 57.300 to
/// 57.500), each line behind an RFC 3164 header of whole seconds:
/// `(whole second, application line)`.
fn syslog_wrapped(app: &dyn Fn(&str, &str) -> Vec<String>) -> Vec<String> {
    let rows = [
        ("55.100", "lock taken key=lock:sku:1 owner=tok-A ttl=2000ms"),
        ("57.300", "lock taken key=lock:sku:1 owner=tok-B ttl=2000ms"),
        ("57.500", "lock released key=lock:sku:1 owner=tok-B"),
        ("58.200", "lock release failed key=lock:sku:1 owner=tok-A"),
    ];
    rows.iter()
        .flat_map(|(t, msg)| {
            let host = if msg.contains("tok-A") {
                "web-01"
            } else {
                "web-02"
            };
            let sec = &t[..2];
            app(t, msg)
                .into_iter()
                .map(move |l| format!("<134>Nov 30 23:06:{sec} {host} shop[4242]: {l}"))
        })
        .collect()
}

#[test]
fn an_application_time_behind_a_syslog_header_is_the_lines_time() {
    // RFC 3164 §4.1.2: the header's TIMESTAMP has whole seconds. glog's
    // header (`Lmmdd hh:mm:ss.uuuuuu threadid file:line]`, glog's
    // `LogMessage::Init`) and a logger written before its time carry the
    // application's milliseconds; read only the header's seconds, the 200 ms
    // overlap became "< 1 ms" (exit 1, silent).
    let dir = tempfile::tempdir().expect("tmp");
    let glog = |t: &str, msg: &str| vec![format!("I1201 07:06:{t}000    4242 lock.go:88] {msg}")];
    let logger = |t: &str, msg: &str| {
        vec![format!(
            "c.e.shop.LockService 2026-12-01 07:06:{t} INFO  [exec-1] - {msg}"
        )]
    };
    for (name, app) in [
        ("glog", &glog as &dyn Fn(&str, &str) -> Vec<String>),
        ("logger", &logger),
    ] {
        let file = write(dir.path(), &format!("{name}.log"), &syslog_wrapped(app));
        let (code, v) = analyze(&file);
        assert_eq!(code, 1, "{name}: {v}");
        assert_eq!(
            v["incidents"][0]["duration_ms"], 200.0,
            "{name}: {}",
            v["incidents"][0]
        );
    }
}

#[test]
fn a_two_line_console_record_behind_a_syslog_header_keeps_its_time() {
    // Microsoft.Extensions.Logging's console formatter writes
    // `LEVEL: Category[EventId]` on one line and the message, indented, on
    // the next (docs: "Console log formatting", the simple formatter); behind
    // a syslog header each line has the header's whole second. The message
    // line takes its record's time, from the line before it of its stream.
    let dir = tempfile::tempdir().expect("tmp");
    let mel = |t: &str, msg: &str| {
        vec![
            format!("2026-12-01 07:06:{t} info: Shop.LockService[0]"),
            format!("      {msg}"),
        ]
    };
    let file = write(dir.path(), "mel.log", &syslog_wrapped(&mel));
    let (code, v) = analyze(&file);
    assert_eq!(code, 1, "{v}");
    assert_eq!(
        v["incidents"][0]["duration_ms"], 200.0,
        "{}",
        v["incidents"][0]
    );
}
