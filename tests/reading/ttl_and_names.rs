//! TTLs and lease names through the built binary: an unknown TTL is not
//! an infinite one (and a TTL can be given per file), a watchdog renewing
//! after the unlock is a ghost renewal, lease field names of the lock
//! libraries' families, Serilog CLEF, `LockId`, and Tair event names.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;
use support::{bin, causes, finding_kinds as kinds};

fn write(dir: &Path, name: &str, lines: &[&str]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n")).expect("write");
    path
}

fn analyze(files: &[&Path], extra: &[&str]) -> (Output, Value) {
    let out = bin()
        .args(["analyze", "--format", "json"])
        .args(extra)
        .args(files)
        .output()
        .expect("run");
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out, v)
}

fn text_report(files: &[&Path], extra: &[&str]) -> String {
    let out = bin()
        .args(["analyze"])
        .args(extra)
        .args(files)
        .output()
        .expect("run");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A's lease (2 s in reality) ran out at 2.0 s; B acquired at 2.1 s while A
/// still worked until 3.0 s. The log never says the TTL.
const NO_TTL_FIELD: &[&str] = &[
    r#"{"ts":"2026-01-01T00:00:00.000Z","event":"acquired","key":"lock:sku:1","owner":"A"}"#,
    r#"{"ts":"2026-01-01T00:00:02.100Z","event":"acquired","key":"lock:sku:1","owner":"B"}"#,
    r#"{"ts":"2026-01-01T00:00:03.000Z","event":"release_failed","key":"lock:sku:1","owner":"A"}"#,
    r#"{"ts":"2026-01-01T00:00:03.100Z","event":"released","key":"lock:sku:1","owner":"B"}"#,
];

#[test]
fn a_file_without_a_ttl_field_has_an_unknown_ttl_not_an_infinite_one() {
    let dir = tempfile::tempdir().expect("tmp");
    let app = write(dir.path(), "app.jsonl", NO_TTL_FIELD);
    let (out, v) = analyze(&[&app], &[]);
    assert_eq!(out.status.code(), Some(1));
    // No `no_ttl` per hold, and no cause that rests on the TTL: neither an
    // expired lease nor a failover.
    assert!(
        !kinds(&v).contains(&"no_ttl".to_string()),
        "{:?}",
        kinds(&v)
    );
    assert_eq!(causes(&v), vec!["ttl_unknown"]);
    assert_eq!(v["incidents"][0]["cause"], "ttl_unknown");
    let hold = &v["incidents"][0]["holds"][0];
    assert_eq!(hold["ttl_unknown"], true);
    assert_eq!(hold["lock_end"], "unknown");
    assert_eq!(v["incidents"][0]["overlaps"][0]["duration_ms"], 900.0);
    // Said once, with how to give it.
    let text = text_report(&[&app], &[]);
    assert_eq!(text.matches("TTL is unknown").count(), 1, "{text}");
    assert!(text.contains("--ttl-ms"), "{text}");
    assert!(text.contains("ttl_unknown"), "{text}");
}

#[test]
fn a_ttl_given_for_the_file_makes_the_expiry_known_and_the_flag_beats_the_mapping() {
    let dir = tempfile::tempdir().expect("tmp");
    let app = write(dir.path(), "app.jsonl", NO_TTL_FIELD);
    for flag in ["2000", "app.jsonl=2000"] {
        let (_, v) = analyze(&[&app], &["--ttl-ms", flag]);
        assert_eq!(causes(&v), vec!["lease_expired"], "--ttl-ms {flag}");
        assert_eq!(v["incidents"][0]["holds"][0]["ttl_ms"], 2000);
        assert_eq!(v["incidents"][0]["holds"][0]["ttl_unknown"], false);
        assert!(!kinds(&v).contains(&"no_ttl".to_string()));
    }
    // A TTL for another file leaves this one unknown.
    let (_, v) = analyze(&[&app], &["--ttl-ms", "other.jsonl=2000"]);
    assert_eq!(causes(&v), vec!["ttl_unknown"]);
    // The mapping's `ttl_ms`.
    let mapping = write(dir.path(), "map.toml", &["ttl_ms = 2000"]);
    let m = mapping.to_str().expect("utf-8 path");
    let (_, v) = analyze(&[&app], &["--mapping", m]);
    assert_eq!(causes(&v), vec!["lease_expired"]);
    // 5 s from the flag: A's lease was still valid when B acquired.
    let (_, v) = analyze(&[&app], &["--mapping", m, "--ttl-ms", "5000"]);
    assert_eq!(causes(&v), vec!["lock_vanished"]);
    // A file that says its TTL keeps it.
    let said = write(
        dir.path(),
        "said.jsonl",
        &[
            r#"{"ts":"2026-01-01T00:00:00.000Z","event":"acquired","key":"k","owner":"A","ttl_ms":1000}"#,
            r#"{"ts":"2026-01-01T00:00:00.500Z","event":"released","key":"k","owner":"A"}"#,
        ],
    );
    let (_, v) = analyze(&[&said], &["--ttl-ms", "9000"]);
    assert_eq!(v["summary"]["incidents"], 0);
    // Not a TTL setting: exit 2, naming it.
    let out = bin()
        .args(["analyze", "--ttl-ms", "2s"])
        .arg(&app)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"2s\""));
}

#[test]
fn a_present_but_empty_ttl_is_still_no_ttl() {
    let dir = tempfile::tempdir().expect("tmp");
    let app = write(
        dir.path(),
        "app.jsonl",
        &[
            r#"{"ts":"2026-01-01T00:00:00.000Z","event":"acquired","key":"k","owner":"A","ttl_ms":null}"#,
            r#"{"ts":"2026-01-01T00:00:00.500Z","event":"released","key":"k","owner":"A"}"#,
        ],
    );
    let (_, v) = analyze(&[&app], &[]);
    assert_eq!(kinds(&v), vec!["no_ttl"]);
}

#[test]
fn a_watchdog_renewing_after_the_unlock_is_one_ghost_renewal_and_no_renewal_gap() {
    let dir = tempfile::tempdir().expect("tmp");
    let app = write(
        dir.path(),
        "redisson.jsonl",
        &[
            r#"{"ts":"2026-01-01T00:00:00.000Z","event":"acquired","key":"lock:order","owner":"8f1e:57","lease_ms":1000}"#,
            r#"{"ts":"2026-01-01T00:00:00.300Z","event":"released","key":"lock:order","owner":"8f1e:57"}"#,
            r#"{"ts":"2026-01-01T00:00:01.300Z","event":"watchdog_renewed","key":"lock:order","owner":"8f1e:57","lease_ms":1000}"#,
            r#"{"ts":"2026-01-01T00:00:02.300Z","event":"watchdog_renewed","key":"lock:order","owner":"8f1e:57","lease_ms":1000}"#,
            r#"{"ts":"2026-01-01T00:00:02.500Z","event":"acquire_failed","key":"lock:order","owner":"c0de:12"}"#,
        ],
    );
    let (out, v) = analyze(&[&app], &[]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(kinds(&v), vec!["ghost_renewal"]);
    let detail = v["findings"][0]["detail"].as_str().unwrap_or("");
    assert!(detail.contains("2 time(s)"), "{detail}");
    assert!(detail.contains("other requests block"), "{detail}");
}

/// Two holders, A's lease of 2 s (`ttl` in the name under test) ran out
/// before B acquired at 2.1 s; A worked until 3.0 s.
fn lease_named(dir: &Path, field: &str, value: &str) -> PathBuf {
    let acquire = |t: &str, who: &str| {
        format!(
            r#"{{"ts":"2026-01-01T00:00:0{t}Z","event":"acquired","key":"k","owner":"{who}","{field}":{value}}}"#
        )
    };
    let lines = [
        acquire("0.000", "A"),
        acquire("2.100", "B"),
        r#"{"ts":"2026-01-01T00:00:03.000Z","event":"release_failed","key":"k","owner":"A"}"#
            .into(),
        r#"{"ts":"2026-01-01T00:00:03.100Z","event":"released","key":"k","owner":"B"}"#.into(),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    write(dir, &format!("{field}.jsonl"), &refs)
}

#[test]
fn lease_names_of_the_libraries_families_are_ttls_with_the_unit_of_their_suffix() {
    let dir = tempfile::tempdir().expect("tmp");
    for (field, value) in [
        ("expire_seconds", "2"),
        ("expireAfter", "2000"),
        ("duration", "2000"),
        ("leaseSeconds", "2"),
        ("lockTimeoutMs", "2000"),
        ("timeout", "2000"),
    ] {
        let file = lease_named(dir.path(), field, value);
        let (_, v) = analyze(&[&file], &[]);
        assert_eq!(causes(&v), vec!["lease_expired"], "{field}");
        assert_eq!(v["incidents"][0]["holds"][0]["ttl_ms"], 2000, "{field}");
        let fields = v["sources"][0]["fields"].to_string();
        assert!(fields.contains(field), "{field}: {fields}");
    }
    // node-redlock's `duration` may be a request's duration: the choice is
    // said.
    let file = lease_named(dir.path(), "duration", "2000");
    let text = text_report(&[&file], &[]);
    assert!(
        text.contains("`duration` is read as the lease TTL in ms"),
        "{text}"
    );
}

#[test]
fn serilog_compact_json_with_resource_and_lock_id_is_read() {
    let dir = tempfile::tempdir().expect("tmp");
    let clef = write(
        dir.path(),
        "orders.clef",
        &[
            r#"{"@t":"2026-01-01T00:00:00.0000000Z","@mt":"Lock acquired","Resource":"lock:sku:9","LockId":"5d1c","ExpiryMs":2000,"SourceContext":"RedLockNet"}"#,
            r#"{"@t":"2026-01-01T00:00:02.1000000Z","@mt":"Lock acquired","Resource":"lock:sku:9","LockId":"77aa","ExpiryMs":2000}"#,
            r#"{"@t":"2026-01-01T00:00:03.0000000Z","@mt":"Unlock failed","@l":"Warning","@x":"System.TimeoutException","Resource":"lock:sku:9","LockId":"5d1c"}"#,
            r#"{"@t":"2026-01-01T00:00:03.1000000Z","@mt":"Lock released","Resource":"lock:sku:9","LockId":"77aa"}"#,
        ],
    );
    let (_, v) = analyze(&[&clef], &[]);
    assert_eq!(v["summary"]["events"], 4, "{}", v["sources"]);
    assert_eq!(causes(&v), vec!["lease_expired"]);
    let inc = &v["incidents"][0];
    assert_eq!(inc["key"], "lock:sku:9");
    assert_eq!(inc["holders"], serde_json::json!(["5d1c", "77aa"]));
    let fields = v["sources"][0]["fields"].to_string();
    for f in ["@t", "Resource", "LockId", "@mt"] {
        assert!(fields.contains(f), "{f}: {fields}");
    }
}

#[test]
fn tair_exset_cad_and_a_rejected_excas_are_acquire_release_and_contained_fencing() {
    let dir = tempfile::tempdir().expect("tmp");
    let tair = write(
        dir.path(),
        "tair.jsonl",
        &[
            r#"{"ts":"2026-01-01T00:00:00.000Z","event":"stock_initialized","key":"lock:sku:3","product":"sku-3","stock":1}"#,
            r#"{"ts":"2026-01-01T00:00:00.010Z","event":"EXSET","key":"lock:sku:3","owner":"A","ttl_ms":1000,"fencing_token":1}"#,
            r#"{"ts":"2026-01-01T00:00:01.100Z","event":"EXSET","key":"lock:sku:3","owner":"B","ttl_ms":1000,"fencing_token":2}"#,
            r#"{"ts":"2026-01-01T00:00:01.200Z","event":"stock_deducted","key":"lock:sku:3","owner":"B","product":"sku-3","quantity":1,"fencing_token":2}"#,
            r#"{"ts":"2026-01-01T00:00:01.300Z","event":"EXCAS rejected","key":"lock:sku:3","owner":"A","product":"sku-3","fencing_token":1}"#,
            r#"{"ts":"2026-01-01T00:00:01.400Z","event":"CAD","key":"lock:sku:3","owner":"A","result":0}"#,
            r#"{"ts":"2026-01-01T00:00:01.500Z","event":"cad","key":"lock:sku:3","owner":"B","result":1}"#,
        ],
    );
    let (_, v) = analyze(&[&tair], &["--unit-loss", "100"]);
    // A's EXSET lease ran out, B took it: an overlap until A's CAD.
    assert_eq!(causes(&v), vec!["lease_expired"]);
    // A's CAD deleted nothing (its value no longer matched): no foreign
    // release; its EXCAS was refused by version: contained, no sale.
    let k = kinds(&v);
    assert!(!k.contains(&"foreign_release".to_string()), "{k:?}");
    assert!(k.contains(&"fencing_violation".to_string()), "{k:?}");
    let fv = v["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|f| f["kind"] == "fencing_violation")
        .map(|f| f["detail"].to_string())
        .unwrap_or_default();
    assert!(fv.contains("rejected"), "{fv}");
    assert_eq!(v["summary"]["oversold_units"], 0);
    assert_eq!(v["summary"]["loss"]["amount"], 0.0);
}

/// A TTL field named without a unit whose values are all small is read in
/// seconds, said as a guess. The lines are zap's production JSON encoder
/// (go.uber.org/zap `NewProductionEncoderConfig`: `ts` epoch seconds as a
/// float, `msg`, `caller`, and `EncodeDuration: SecondsDurationEncoder`, so
/// `zap.Duration("ttl", 2*time.Second)` is written `"ttl":2`). Read as
/// 2 ms, every hold would be an expired lease from its start.
#[test]
fn a_unit_less_ttl_with_small_values_is_seconds_and_said_as_a_guess() {
    let dir = tempfile::tempdir().expect("tmp");
    let zap = |ts: &str, msg: &str, who: &str, extra: &str| {
        format!(
            r#"{{"level":"info","ts":{ts},"caller":"stock/lock.go:42","msg":"{msg}","key":"lock:sku:1001","owner":"{who}"{extra}}}"#
        )
    };
    let lines = [
        zap("1796090400.1", "acquired", "A", r#","ttl":2"#),
        zap("1796090402.3", "acquired", "B", r#","ttl":2"#),
        zap("1796090403.2", "release_failed", "A", ""),
        zap("1796090403.5", "released", "B", ""),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let file = write(dir.path(), "zap-production.jsonl", &refs);
    let (_, v) = analyze(&[&file], &[]);
    assert_eq!(causes(&v), vec!["lease_expired"]);
    assert_eq!(v["incidents"][0]["holds"][0]["ttl_ms"], 2000);
    let overlap = &v["incidents"][0]["overlaps"][0];
    assert_eq!(overlap["duration_ms"], 900.0, "{overlap}");
    let notes = v["sources"][0]["notes"].to_string();
    assert!(notes.contains("read as seconds, a guess"), "{notes}");
    // A name that says ms, or values no TTL in seconds has, stay ms.
    for (field, value, ttl_ms) in [("ttl_ms", "2", 2), ("ttl", "2000", 2000)] {
        let file = lease_named(dir.path(), field, value);
        let (_, v) = analyze(&[&file], &[]);
        assert_eq!(v["incidents"][0]["holds"][0]["ttl_ms"], ttl_ms, "{field}");
        let notes = v["sources"][0]["notes"].to_string();
        assert!(!notes.contains("read as seconds"), "{field}: {notes}");
    }
}

#[test]
fn a_gcp_entrys_application_time_beats_the_agents() {
    // Google Cloud Logging LogEntry
    // (https://cloud.google.com/logging/docs/reference/v2/rest/v2/LogEntry):
    // `timestamp` is the entry's time as the agent set it; a .NET console
    // JSON line (Microsoft.Extensions.Logging's JsonConsoleFormatter:
    // `Timestamp`, `LogLevel`, `Category`, `Message`, `State`) becomes
    // `jsonPayload`, its own `Timestamp` beside its `Message`. Key and holder
    // read from the message's pairs sit at the record's top, so no object
    // held them and the agent's later time won: a 300 ms overlap read as 307.
    let dir = tempfile::tempdir().expect("tmp");
    let entry = |app_ms: u32, agent_ms: u32, msg: &str| {
        serde_json::json!({
            "insertId": format!("x{app_ms}"),
            "jsonPayload": {
                "Category": "Shop.LockService",
                "LogLevel": "Information",
                "Message": msg,
                "Timestamp": format!("2026-12-01T07:06:{:02}.{:03}+08:00", app_ms / 1000, app_ms % 1000),
            },
            "logName": "projects/shop/logs/stdout",
            "resource": {"type": "k8s_container", "labels": {"pod_name": "web"}},
            "severity": "INFO",
            "timestamp": format!("2026-11-30T23:06:{:02}.{:03}000000Z", agent_ms / 1000, agent_ms % 1000),
        })
    };
    let entries = serde_json::Value::Array(vec![
        entry(57_500, 57_516, "lock released key=lock:a owner=B"),
        entry(
            57_300,
            57_309,
            "lock acquired key=lock:a owner=B ttl_ms=2000",
        ),
        entry(58_200, 58_207, "lock release failed key=lock:a owner=A"),
        entry(
            55_100,
            55_103,
            "lock acquired key=lock:a owner=A ttl_ms=2000",
        ),
    ]);
    let path = dir.path().join("gcloud-logging-read.json");
    std::fs::write(&path, entries.to_string()).expect("write");
    let (out, v) = analyze(&[&path], &["--no-cache"]);
    assert_eq!(out.status.code(), Some(1), "{v}");
    assert_eq!(
        v["incidents"][0]["duration_ms"], 200.0,
        "{}",
        v["incidents"][0]
    );
}

#[test]
fn a_release_in_words_no_list_has_is_placed_by_the_protocol() {
    // The acquire's words are known, the release's are not (`归还锁`, "hand
    // the lock back"; the logger also writes the words in a field no list
    // names, `e`): the message gave those lines no event, so the names read
    // acquires and no release, and A's release after its lease ended, which
    // deleted B's lock, was lost: the takeover read as the lock vanishing,
    // not as A's foreign release. The protocol places the unread words.
    // tests/fixtures/protocol/README.md tells the story.
    let path = support::repo("tests/fixtures/protocol/unlisted-release.log");
    let (out, v) = analyze(&[&path], &["--no-cache"]);
    assert_eq!(out.status.code(), Some(1), "{v}");
    assert!(causes(&v).contains(&"foreign_release".to_string()), "{v}");
    assert!(kinds(&v).contains(&"foreign_release".to_string()), "{v}");
}

#[test]
fn names_that_found_every_lock_role_are_never_said_to_have_found_none() {
    // The release words `归还锁` only in the message: the names found key,
    // holder and event, the protocol finds no better fit, and the note
    // "no field names the lock key, holder or event" would be false.
    let path = support::repo("tests/fixtures/protocol/unlisted-release-message-only.log");
    let text = text_report(&[&path], &["--no-cache"]);
    assert!(text.contains("key=") || text.contains("lock:a"), "{text}");
    assert!(!text.contains("no field names the lock key"), "{text}");
}
