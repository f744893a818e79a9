//! Tests of the whole ingest path over small in-memory inputs.

use super::*;
use crate::ingest::readers::container::Container;
use crate::ingest::readers::sample::detect_fields;
use crate::model::{EventKind, LoadedLog, LogBuilder};

fn load(text: &[u8], opts: &IngestOptions) -> LoadedLog {
    let mut b = LogBuilder::new();
    read_source("mem", text, opts, &mut b, &Progress::default()).expect("reads");
    b.finish()
}

fn kinds(log: &LoadedLog) -> Vec<EventKind> {
    log.events.iter().map(|e| e.kind).collect()
}

#[test]
fn parse_tz_forms() {
    assert_eq!(
        parse_tz("+08:00").map(|t| t.offset_at(0)).ok(),
        Some(28_800)
    );
    assert_eq!(parse_tz("+0530").map(|t| t.offset_at(0)).ok(), Some(19_800));
    assert_eq!(parse_tz("-05").map(|t| t.offset_at(0)).ok(), Some(-18_000));
    assert_eq!(parse_tz("UTC").map(|t| t.offset_at(0)).ok(), Some(0));
    assert_eq!(parse_tz("UTC+8").map(|t| t.offset_at(0)).ok(), Some(28_800));
    assert_eq!(
        parse_tz("Asia/Shanghai").map(|t| t.offset_at(0)).ok(),
        Some(28_800)
    );
    assert!(matches!(parse_tz("Mars/Base"), Err(IngestError::BadTz(_))));
    assert!(matches!(parse_tz("+25:00"), Err(IngestError::BadTz(_))));
}

#[test]
fn logfmt_with_message_fallback_and_activity() {
    let text = b"time=2022-03-14T09:59:50.000Z msg=\"lock acquired\" lock=k owner=a ttl_s=5\n\
time=2022-03-14T09:59:51.000Z msg=\"page parsed\" lock=k owner=a\n\
time=2022-03-14T09:59:52.000Z msg=\"gc\"\n\
time=2022-03-14T09:59:53.000Z msg=\"lock released\" lock=k owner=a deleted=1 elapsed_ms=3\n";
    let log = load(text, &IngestOptions::default());
    assert_eq!(
        kinds(&log),
        vec![
            EventKind::Acquired,
            EventKind::Activity,
            EventKind::Released
        ]
    );
    assert_eq!(log.events[0].ttl_ms(), Some(5000));
    assert_eq!(log.events[2].detail().deleted, Some(true));
    assert_eq!(log.events[2].detail().elapsed_ms, Some(3.0));
    let s = &log.sources[0];
    assert_eq!((s.lines_read, s.events_loaded, s.lines_skipped), (4, 3, 1));
    assert!(s.fields.contains(&("event".into(), "msg".into())));
}

#[test]
fn mapping_beats_detection() {
    let mapping: Mapping = "[fields]\ntime = \"log_time\"\nkey = \"res\"\nholder = \"who\"\nevent = \"what\"\nttl_s = \"exp\"\n[events]\nLOCK_OK = \"acquired\"\n"
        .parse()
        .expect("mapping");
    let opts = IngestOptions {
        mapping: Some(mapping),
        ..IngestOptions::default()
    };
    let text = br#"{"log_time":"2024-01-01 00:00:00","res":"r1","who":"w1","owner":"not-me","what":"LOCK_OK","exp":3}"#;
    let log = load(text, &opts);
    assert_eq!(kinds(&log), vec![EventKind::Acquired]);
    let e = &log.events[0];
    assert_eq!(log.strings.get_or_empty(e.holder), "w1");
    assert_eq!(e.ttl_ms(), Some(3000));
    assert!(
        log.sources[0]
            .notes
            .iter()
            .map(ToString::to_string)
            .any(|n| n.contains("UTC"))
    );
}

#[test]
fn a_mapped_field_no_record_has_is_a_warning() {
    let mapping: Mapping = "[fields]\nkey = \"lock_nmae\"\n".parse().expect("mapping");
    let opts = IngestOptions {
        mapping: Some(mapping),
        ..IngestOptions::default()
    };
    let text = br#"{"ts":"2024-01-01T00:00:00Z","lock_name":"r1","owner":"w1","event":"acquired"}"#;
    let log = load(text, &opts);
    let w: Vec<String> = log
        .warnings
        .kept()
        .iter()
        .map(|w| w.reason.to_string())
        .collect();
    assert!(
        w.iter().any(|r| r.contains("`lock_nmae` for key") && r.contains("none of the first 1 records")),
        "{w:?}"
    );
}

#[test]
fn sls_json_and_csv() {
    let text = br#"{"__time__":"1725192000","__tag__:__hostname__":"h1","__source__":"10.0.0.1","event":"acquired","key":"k","owner":"o"}"#;
    let log = load(text, &IngestOptions::default());
    assert_eq!(log.sources[0].dialect, crate::model::Dialect::SlsJson);
    assert_eq!(log.events[0].at_ns, 1_725_192_000_000_000_000);
    assert_eq!(log.strings.get_or_empty(log.events[0].host), "h1");
    let csv = "__time__,__tag__:__hostname__,event,key,owner,msg\n1725192001,h2,released,k,o,\"done, ok\"\n1725192000,h2,acquired,k,o,\n";
    let log = load(csv.as_bytes(), &IngestOptions::default());
    assert_eq!(log.sources[0].dialect, crate::model::Dialect::Csv);
    assert_eq!(kinds(&log), vec![EventKind::Acquired, EventKind::Released]);
    assert_eq!(
        log.strings.get_or_empty(log.events[1].detail().message),
        "done, ok"
    );
}

#[test]
fn elasticsearch_export_with_ecs_fields() {
    let text = br#"{"took":1,"hits":{"hits":[{"_source":{"@timestamp":"2026-11-29T08:11:49.452Z","event":{"action":"lock_acquired"},"lock":{"key":"k","owner":"o"},"host":{"name":"vm"}}}]}}"#;
    let log = load(text, &IngestOptions::default());
    assert_eq!(log.sources[0].dialect, crate::model::Dialect::Elasticsearch);
    assert_eq!(kinds(&log), vec![EventKind::Acquired]);
    let e = &log.events[0];
    assert_eq!(log.strings.get_or_empty(e.key), "k");
    assert_eq!(log.strings.get_or_empty(e.holder), "o");
    assert_eq!(log.strings.get_or_empty(e.host), "vm");
}

#[test]
fn utf16_csv_with_chinese_headers() {
    let csv = "时间,事件,锁键,持有者,过期(秒)\r\n2024-01-01 08:00:00,加锁成功,k,甲,5\r\n";
    let mut bytes = vec![0xFF, 0xFE];
    for u in csv.encode_utf16() {
        bytes.extend_from_slice(&u.to_le_bytes());
    }
    let opts = IngestOptions {
        tz: parse_tz("+08:00").ok(),
        ..IngestOptions::default()
    };
    let log = load(&bytes, &opts);
    assert_eq!(log.sources[0].encoding, "UTF-16LE");
    assert_eq!(kinds(&log), vec![EventKind::Acquired]);
    assert_eq!(log.events[0].ttl_ms(), Some(5000));
    assert_eq!(log.events[0].at_ns, 1_704_067_200_000_000_000);
}

/// Chinese lock sentences with words between the verb and the lock, in an
/// event field and in a message: each line is a lock event, not a skipped
/// line of a file with "no lock event".
#[test]
fn chinese_lock_sentences_in_events_and_messages() {
    let text = "{\"ts\":\"2026-12-01T10:00:00.100+08:00\",\"event\":\"获取分布式锁成功\",\"lock_key\":\"k\",\"token\":\"a\",\"ttl_ms\":3000}\n\
{\"ts\":\"2026-12-01T10:00:00.200+08:00\",\"event\":\"释放分布式锁\",\"lock_key\":\"k\",\"token\":\"a\"}\n\
{\"ts\":\"2026-12-01T10:00:00.300+08:00\",\"event\":\"上锁成功\",\"lock_key\":\"k\",\"token\":\"b\",\"ttl_ms\":3000}\n";
    let log = load(text.as_bytes(), &IngestOptions::default());
    assert_eq!(
        kinds(&log),
        vec![
            EventKind::Acquired,
            EventKind::Released,
            EventKind::Acquired
        ]
    );
    let text = "time=2026-12-01T10:00:00.100+08:00 msg=成功获取分布式锁 key=k owner=a ttl_ms=3000\n\
time=2026-12-01T10:00:00.200+08:00 msg=释放分布式锁失败 key=k owner=a\n";
    let log = load(text.as_bytes(), &IngestOptions::default());
    assert_eq!(
        kinds(&log),
        vec![EventKind::Acquired, EventKind::ReleaseFailed]
    );
}

#[test]
fn nothing_panics_on_odd_input() {
    let odd: [&[u8]; 9] = [
        b"{\"ts\":1e400,\"event\":\"acquired\"}",
        b"{\"ts\":\"9999-12-31T23:59:59Z\",\"event\":\"acquired\"}",
        b"{\"ts\":-99999999999999999999,\"event\":\"acquired\"}",
        b"[1,2,\"x\",{\"ts\":1}]",
        b"[[[[",
        b"\x1f\x8b\x08garbage",
        b"a=\"\\",
        b"\xff\xfe\x00",
        b"{}\n[]\nnull\n",
    ];
    for t in odd {
        let mut b = LogBuilder::new();
        read_source(
            "odd",
            t,
            &IngestOptions::default(),
            &mut b,
            &Progress::default(),
        )
        .expect("no error");
        let log = b.finish();
        for s in &log.sources {
            assert_eq!(
                s.lines_read,
                s.events_loaded + s.lines_skipped + s.lines_warned
            );
        }
    }
}

#[test]
fn a_zone_with_a_multibyte_character_is_an_error_not_a_panic() {
    // `-0ɽZ` is 4 bytes: a split by byte count falls in the middle of `ɽ`.
    assert!(parse_tz("-0ɽZ").is_err());
    assert!(parse_tz("+ɽɽ").is_err());
    // The same text as a PHP DateTime's zone in a log line is a warning.
    let log = load(
        "{\"ts\":{\"date\":\"2018-10-23 10:15:20.000000\",\"timezone_type\":3,\"timezone\":\"-0ɽZ\"},\"event\":\"acquired\",\"key\":\"k\",\"holder\":\"h\"}\n"
            .as_bytes(),
        &IngestOptions::default(),
    );
    assert_eq!(log.events.len(), 1);
}

const NO_TTL_FIELD: &[u8] =
    b"{\"ts\":1700000000000,\"event\":\"acquired\",\"key\":\"k\",\"owner\":\"A\"}\n\
{\"ts\":1700000000500,\"event\":\"renewed\",\"key\":\"k\",\"owner\":\"A\"}\n\
{\"ts\":1700000000900,\"event\":\"released\",\"key\":\"k\",\"owner\":\"A\"}\n";

#[test]
fn a_file_without_ttl_field_is_marked_unknown_once_unless_a_ttl_is_given() {
    let log = load(NO_TTL_FIELD, &IngestOptions::default());
    let src = &log.sources[0];
    assert!(src.ttl_unknown);
    let said: Vec<String> = src
        .notes
        .iter()
        .map(ToString::to_string)
        .filter(|n| n.contains("TTL is unknown"))
        .collect();
    assert_eq!(said.len(), 1, "{:?}", src.notes);
    assert!(said[0].contains("--ttl-ms mem=MS"), "{}", said[0]);
    assert!(log.events.iter().all(|e| e.ttl_ms().is_none()));

    for opts in [
        IngestOptions {
            ttl: FileTtl::parse(&["mem=1500"]).expect("ttl"),
            ..IngestOptions::default()
        },
        IngestOptions {
            mapping: Some("ttl_ms = 1500".parse().expect("mapping")),
            ..IngestOptions::default()
        },
    ] {
        let log = load(NO_TTL_FIELD, &opts);
        assert!(!log.sources[0].ttl_unknown);
        let ttls: Vec<Option<i64>> = log.events.iter().map(|e| e.ttl_ms()).collect();
        assert_eq!(ttls, vec![Some(1500), Some(1500), None]);
    }
    // A file with a TTL field is not touched.
    let log = load(
        b"{\"ts\":1700000000000,\"event\":\"acquired\",\"key\":\"k\",\"owner\":\"A\",\"ttl\":null}\n",
        &IngestOptions {
            ttl: FileTtl::parse(&["1500"]).expect("ttl"),
            ..IngestOptions::default()
        },
    );
    assert!(!log.sources[0].ttl_unknown);
    assert_eq!(log.events[0].ttl_ms(), None);
}

#[test]
fn ttl_settings_parse_all_and_by_file() {
    let t = FileTtl::parse(&["2000", "a.jsonl=3000, logs/b.csv=4000"]).expect("parses");
    assert_eq!(t.for_file("x.jsonl"), Some(2000));
    assert_eq!(t.for_file("/var/log/a.jsonl"), Some(3000));
    assert_eq!(t.for_file("logs/b.csv"), Some(4000));
    assert!(FileTtl::parse::<&str>(&[]).expect("empty").is_empty());
    for bad in ["2s", "0", "-5", "=100", "a=", "1.5"] {
        assert!(
            matches!(FileTtl::parse(&[bad]), Err(IngestError::BadTtl(_))),
            "{bad}"
        );
    }
}

#[test]
fn an_epoch_or_dated_ttl_value_is_an_absolute_expiry() {
    // `expiration` as epoch ms (not a 55-year TTL), as a date-time (not "no TTL"), and
    // a plain duration; `lock.ttl_ms` beats a generic `duration_ms`.
    // 2026-12-01T07:06:55.100+08:00 = 1796080015100 ms.
    let text = br#"{"ts":"2026-12-01T07:06:55.100+08:00","event":"acquired","lock_key":"k1","owner":"a","expiration":1796080017100}
{"ts":"2026-12-01T07:06:56.100+08:00","event":"acquired","lock_key":"k2","owner":"b","expiration":"2026-12-01T07:06:59.100+08:00"}
{"ts":"2026-12-01T07:06:57.100+08:00","event":"acquired","lock_key":"k3","owner":"c","expiration":30000}
{"ts":"2026-12-01T07:06:58.100+08:00","event":"acquired","lock_key":"k4","owner":"d","expiration":4102444800000}
"#;
    let log = load(text, &IngestOptions::default());
    let ttls: Vec<Option<i64>> = log.events.iter().map(|e| e.ttl_ms()).collect();
    assert_eq!(ttls, vec![Some(2000), Some(3000), Some(30000), None]);

    let text = br#"{"ts":"2026-12-01T07:06:55.100+08:00","event":"acquired","lock_key":"k","owner":"a","lock":{"ttl_ms":2000},"duration_ms":5}
"#;
    let log = load(text, &IngestOptions::default());
    assert_eq!(log.events[0].ttl_ms(), Some(2000));
}

/// A Spring Boot line in a CRI line of `stream` with `tag`.
fn cri(ts: &str, stream: &str, tag: &str, content: &str) -> String {
    format!("2026-11-29T08:00:{ts}Z {stream} {tag} {content}\n")
}

/// A `stdout P` chunk waits for the `stdout F` line, never glued to an
/// interleaved `stderr F` (the stderr line would take the stdout chunk, and
/// both lines lose their lock words).
#[test]
fn cri_partial_lines_are_joined_per_stream() {
    let text = [
        cri(
            "01.000000",
            "stdout",
            "P",
            "2026-11-29 16:00:01.000  INFO 7 --- [exec-1] c.e.S : acquired lock ",
        ),
        cri(
            "01.100000",
            "stderr",
            "F",
            "2026-11-29 16:00:01.100  WARN 7 --- [exec-2] c.e.S : released lock key=k2 token=b",
        ),
        cri("01.200000", "stdout", "F", "key=k1 token=a ttl=5s"),
    ]
    .concat();
    let log = load(text.as_bytes(), &IngestOptions::default());
    assert_eq!(kinds(&log), vec![EventKind::Acquired, EventKind::Released]);
    let holder = |i: usize| {
        log.events[i]
            .holder
            .map(|h| log.strings.get_or_empty(Some(h)).to_string())
    };
    assert_eq!(holder(0).as_deref(), Some("a"));
    assert_eq!(log.events[0].ttl_ms(), Some(5000));
    assert_eq!(holder(1).as_deref(), Some("b"));
    let s = &log.sources[0];
    assert_eq!((s.lines_read, s.events_loaded, s.lines_skipped), (3, 2, 1));
    assert_eq!(log.warnings.total(), 0, "{:?}", log.warnings.kept());
}

/// `P` lines no `F` closes at the end of the file are read as the line they
/// would have been, with a warning naming their lines, never dropped
/// without a word.
#[test]
fn cri_partial_lines_never_closed_are_read_with_a_warning() {
    let text = [
        cri(
            "01.000000",
            "stdout",
            "F",
            "2026-11-29 16:00:01.000  INFO 7 --- [exec-1] c.e.S : acquired lock key=k1 token=a ttl=5s",
        ),
        cri(
            "02.000000",
            "stdout",
            "P",
            "2026-11-29 16:00:02.000  INFO 7 --- [exec-2] c.e.S : acquired ",
        ),
        cri("02.100000", "stdout", "P", "lock key=k1 token=b"),
        cri("02.200000", "stdout", "P", " ttl=5s"),
    ]
    .concat();
    let log = load(text.as_bytes(), &IngestOptions::default());
    assert_eq!(kinds(&log), vec![EventKind::Acquired, EventKind::Acquired]);
    assert_eq!(log.events[1].source.line, 4);
    assert_eq!(log.events[1].ttl_ms(), Some(5000));
    let w = log.warnings.kept();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!((w[0].file.as_str(), w[0].line), ("mem", 4));
    let want = crate::model::RecordWarning::CriUnclosed {
        stream: "stdout".into(),
        first: 2,
        last: 4,
    };
    assert_eq!(w[0].reason, want.into());
    let s = &log.sources[0];
    assert_eq!((s.lines_read, s.events_loaded, s.lines_skipped), (4, 2, 2));
    assert_eq!(s.lines_warned, 0);
}

/// A docker json-file line whose `log` holds `payload`.
fn docker(time: &str, payload: &str) -> String {
    let log = serde_json::to_string(&format!("{payload}\n")).expect("json");
    format!("{{\"log\":{log},\"stream\":\"stdout\",\"time\":\"{time}\"}}\n")
}

/// (holder, kind, TTL) of each event, in time order.
fn holds(log: &LoadedLog) -> Vec<(String, EventKind, Option<i64>)> {
    log.events
        .iter()
        .map(|e| {
            let h = e
                .holder
                .map(|h| log.strings.get_or_empty(Some(h)).to_string());
            (h.unwrap_or_default(), e.kind, e.ttl_ms())
        })
        .collect()
}

/// An envelope whose payloads mix a JSON logger's records and text lines:
/// each kind's holders and TTLs load, from fields picked on its own
/// records, and a note names the other kind's fields. One field per role
/// for the whole file would drop the text lines' holders and TTLs (or the
/// JSON records') without a warning.
#[test]
fn envelope_payloads_mixing_json_and_text_load_both_kinds() {
    let json = |ts: &str, ev: &str, owner: &str| {
        format!(
            "{{\"ts\":\"2026-12-01T07:06:{ts}+08:00\",\"event\":\"{ev}\",\"lock_key\":\"lock:sku:1\",\"owner\":\"{owner}\",\"ttl_ms\":5000}}"
        )
    };
    let text_line = |ts: &str, words: &str| {
        format!("2026-12-01T07:06:{ts}+08:00  INFO 1 --- [exec-2] c.e.S : {words}")
    };
    let file = [
        docker("2026-11-30T23:06:50.1Z", &json("50.100", "acquired", "a")),
        docker(
            "2026-11-30T23:06:51.1Z",
            &text_line("51.100", "acquired lock key=lock:sku:2 token=b ttl=7s"),
        ),
        docker("2026-11-30T23:06:52.1Z", &json("52.100", "released", "a")),
        docker(
            "2026-11-30T23:06:53.1Z",
            &text_line("53.100", "released lock key=lock:sku:2 token=b"),
        ),
    ]
    .concat();
    let log = load(file.as_bytes(), &IngestOptions::default());
    assert_eq!(
        holds(&log),
        vec![
            ("a".into(), EventKind::Acquired, Some(5000)),
            ("b".into(), EventKind::Acquired, Some(7000)),
            ("a".into(), EventKind::Released, Some(5000)),
            ("b".into(), EventKind::Released, None),
        ]
    );
    let key = |i: usize| {
        log.events[i]
            .key
            .map(|k| log.strings.get_or_empty(Some(k)).to_string())
    };
    assert_eq!(key(1).as_deref(), Some("lock:sku:2"));
    let s = &log.sources[0];
    assert_eq!((s.lines_read, s.events_loaded), (4, 4));
    assert!(
        s.notes
            .iter()
            .any(|n| matches!(n, crate::model::SourceNote::FieldsOfKind { .. })),
        "{:?}",
        s.notes
    );
}

/// The same with a JSON logger inside the envelope's JSON: some records
/// carry the lock fields in the envelope itself, others as a JSON string in
/// `message`. Both kinds' holders and TTLs load.
#[test]
fn envelope_records_mixing_own_fields_and_json_payloads_load_both_kinds() {
    let inner = |ts: &str, ev: &str| {
        let app = format!(
            "{{\"ts\":\"2026-12-01T07:06:{ts}+08:00\",\"event\":\"{ev}\",\"lock_key\":\"lock:sku:1\",\"owner\":\"a\",\"ttl_ms\":5000}}"
        );
        let app = serde_json::to_string(&app).expect("json");
        format!(
            "{{\"@timestamp\":\"2026-11-30T23:06:{ts}Z\",\"host\":\"web-1\",\"message\":{app}}}\n"
        )
    };
    let own = |ts: &str, ev: &str| {
        format!(
            "{{\"@timestamp\":\"2026-11-30T23:06:{ts}Z\",\"host\":\"web-2\",\"message\":\"lock event\",\"lock\":{{\"name\":\"lock:sku:2\",\"holder\":\"b\",\"lease_ms\":7000}},\"action\":\"{ev}\"}}\n"
        )
    };
    let file = [
        inner("50.100", "acquired"),
        own("51.100", "acquired"),
        inner("52.100", "released"),
        own("53.100", "released"),
        inner("54.100", "acquired"),
    ]
    .concat();
    let log = load(file.as_bytes(), &IngestOptions::default());
    let got = holds(&log);
    assert_eq!(
        got.iter()
            .map(|(h, k, t)| (h.as_str(), *k, *t))
            .collect::<Vec<_>>(),
        vec![
            ("a", EventKind::Acquired, Some(5000)),
            ("b", EventKind::Acquired, Some(7000)),
            ("a", EventKind::Released, Some(5000)),
            ("b", EventKind::Released, Some(7000)),
            ("a", EventKind::Acquired, Some(5000)),
        ],
        "{:?}",
        log.sources[0].notes
    );
}

/// Field detection past its window skips lines of a shape it counted for
/// nothing, and still finds a role a new shape brings late: here the
/// fencing token first appears at line 5 001 of a JSON Lines log.
#[test]
fn detection_finds_a_late_role_behind_thousands_of_quiet_lines() {
    let mut text = String::new();
    for i in 0..5000 {
        let ev = ["acquired", "released"][i % 2];
        text.push_str(&format!(
            "{{\"ts\":\"2026-12-01T07:00:{:02}.{:03}Z\",\"event\":\"{ev}\",\"lock_key\":\"k\",\"owner\":\"h{i}\",\"ttl_ms\":1000}}\n",
            (i / 1000) % 60,
            i % 1000
        ));
    }
    text.push_str(
        "{\"ts\":\"2026-12-01T07:00:59.000Z\",\"event\":\"stock_deducted\",\"lock_key\":\"k\",\"owner\":\"h1\",\"fencing_token\":7}\n",
    );
    let det = detect_fields(&Container::JsonLines { loki: false }, &text, None);
    assert_eq!(det.records, 5001, "every record counted, skipped or read");
    let (fields, _) = det.resolve(None);
    let fencing = fields
        .get(vocabulary::roles::Role::Fencing)
        .map(|p| p.field.as_str());
    assert_eq!(fencing, Some("fencing_token"));
}

/// A holder field no name list knows is found by its values: tokens that
/// recur across a hold's acquire and release, while a
/// per-line request id (never recurring) and a constant trace id (one
/// value) are not holders.
#[test]
fn the_holder_is_the_token_that_recurs() {
    let line = |t: &str, ev: &str, tok: &str, req: &str| {
        format!(
            "{{\"ts\":\"2026-12-01T07:00:{t}Z\",\"event\":\"{ev}\",\"lock_key\":\"lock:sku:1\",\"ttl_ms\":1000,\"x_ref\":\"{tok}\",\"req\":\"{req}\",\"trace\":\"00f067aa0ba902b7ffff000000000001\"}}\n"
        )
    };
    let a = "8f14e45f-ceea-467a-9575-6f2b0c1d2e3f";
    let b = "c9f0f895-fb98-4b91-a1c5-3d4e5f607182";
    let text = [
        line("00.000", "acquired", a, "0a1b2c3d4e5f60718293a4b5c6d7e8f9"),
        line("01.500", "acquired", b, "1a1b2c3d4e5f60718293a4b5c6d7e8f9"),
        line("01.700", "released", a, "2a1b2c3d4e5f60718293a4b5c6d7e8f9"),
        line("02.000", "released", b, "3a1b2c3d4e5f60718293a4b5c6d7e8f9"),
    ]
    .concat();
    let log = load(text.as_bytes(), &IngestOptions::default());
    let holders: std::collections::BTreeSet<&str> = log
        .events
        .iter()
        .filter_map(|e| e.holder.map(|h| log.strings.get(h)))
        .collect();
    assert_eq!(
        holders,
        [a, b].into_iter().collect(),
        "holders read from x_ref"
    );
}

/// Every source names its reader and a runner-up (the JSON report's
/// `sources[].readers`): JSON taken by its shape stays first,
/// with the line readers' bids after it.
#[test]
fn a_json_lines_source_names_its_reader_and_a_runner_up() {
    let text = "{\"ts\":\"2026-12-01T07:00:00.000Z\",\"event\":\"acquired\",\"lock_key\":\"k\",\"owner\":\"a\",\"ttl_ms\":1000}\n\
                {\"ts\":\"2026-12-01T07:00:01.000Z\",\"event\":\"released\",\"lock_key\":\"k\",\"owner\":\"a\"}\n";
    let log = load(text.as_bytes(), &IngestOptions::default());
    let readers = &log.sources[0].readers;
    assert!(readers.len() >= 2, "{readers:?}");
    assert_eq!(readers[0].0, "JSON Lines");
    assert!(readers[0].1 > 0, "{readers:?}");
    assert!(
        readers[1..].windows(2).all(|w| w[0].1 >= w[1].1),
        "{readers:?}"
    );
}

/// A glog file whose name has no date: the year comes from its header's
/// first full date (`Log file created at:`), said in a note; across a new
/// year the year advances. With the mapping's date, the mapping's year.
#[test]
fn a_year_a_layout_lacks_comes_from_the_first_dated_line_or_the_mapping() {
    let text = b"Log file created at: 2024/12/31 23:59:58\n\
Running on machine: web-01\n\
I1231 23:59:59.100000    4251 lock.go:88] acquired lock key=lock:a owner=tok-A ttl_ms=2000\n\
I0101 00:00:00.300000    4257 lock.go:88] acquired lock key=lock:a owner=tok-B ttl_ms=2000\n";
    let log = load(text, &IngestOptions::default());
    let at: Vec<i64> = log.events.iter().map(|e| e.at_ns).collect();
    let year_2024 = 1_735_689_599_100_000_000; // 2024-12-31T23:59:59.1Z
    assert_eq!(at, vec![year_2024, year_2024 + 1_200_000_000]);
    let notes: Vec<String> = log.sources[0].notes.iter().map(|n| n.to_string()).collect();
    assert!(
        notes
            .iter()
            .any(|n| n == "times carry no year: read in 2024, from the first line with a date"),
        "{notes:?}"
    );
    let mapping: Mapping = "date = \"2030-06-01\"".parse().expect("mapping");
    let opts = IngestOptions {
        mapping: Some(mapping),
        ..IngestOptions::default()
    };
    let log = load(text, &opts);
    assert_eq!(
        log.events.first().map(|e| e.at_ns / 1_000_000_000),
        Some(1_924_991_999) // 2030-12-31T23:59:59Z
    );
}
