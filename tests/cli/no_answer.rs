//! A run that cannot answer says so: lock events that build no hold are
//! an error (exit 2), not an all-clear, and the JSON report of a run that
//! is no answer lists why in `not_readable`.

use crate::support::{assert_error_saying, bin};

/// A log that starts inside two holds (renewals and a release, no acquire)
/// is no "0 holders, 0 incidents", exit 0: it is exit 2 with the reason,
/// and each holder's lines are a `no_acquire` finding.
#[test]
fn lock_events_that_build_no_hold_are_an_error_not_an_all_clear() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("only-renewals.jsonl");
    let lines = [
        r#"{"ts":"2025-03-03T10:20:00Z","event":"renewed","lock_key":"k1","owner":"a","ttl_ms":1000}"#,
        r#"{"ts":"2025-03-03T10:20:00.5Z","event":"renewed","lock_key":"k1","owner":"b","ttl_ms":1000}"#,
        r#"{"ts":"2025-03-03T10:20:03Z","event":"released","lock_key":"k1","owner":"a"}"#,
    ];
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    let out = bin()
        .args(["analyze", "--no-cache", "--format", "json"])
        .arg(&path)
        .output()
        .expect("runs");
    assert_error_saying(&out, "no hold could be built");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let kinds: Vec<&str> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["no_acquire", "no_acquire"]);
}

/// `analyze --format json` of a run that is no answer (exit 2) says so in
/// the report, not only by the exit code, also when lock events were read
/// but none named a key and a holder (`sources[].unreadable` is null then):
/// the report's `not_readable` lists why; a readable run has none.
#[test]
fn the_json_report_of_a_run_that_is_no_answer_says_why() {
    let dir = tempfile::tempdir().expect("tempdir");
    let no_holder = dir.path().join("no-holder.jsonl");
    std::fs::write(
        &no_holder,
        "{\"ts\":\"2026-12-01T00:00:00Z\",\"event\":\"acquired\",\"ttl_ms\":2000}\n\
         {\"ts\":\"2026-12-01T00:00:01Z\",\"event\":\"released\"}\n",
    )
    .expect("write");
    let notes = dir.path().join("notes.log");
    std::fs::write(&notes, "hello\nworld\n").expect("write");
    for (file, says) in [
        (&no_holder, "none names both a lock key and a holder"),
        (&notes, "no lock event could be read"),
    ] {
        let out = bin()
            .args(["analyze", "--format", "json"])
            .arg(file)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        let why = v["not_readable"].to_string();
        assert!(why.contains(says), "{}: {why}", file.display());
        assert_eq!(v["summary"]["incidents"], 0);
    }
    let fine = dir.path().join("fine.jsonl");
    std::fs::write(
        &fine,
        "{\"ts\":\"2026-12-01T00:00:00Z\",\"event\":\"acquired\",\"key\":\"k\",\"owner\":\"A\",\"ttl_ms\":2000}\n\
         {\"ts\":\"2026-12-01T00:00:01Z\",\"event\":\"released\",\"key\":\"k\",\"owner\":\"A\"}\n",
    )
    .expect("write");
    let out = bin()
        .args(["analyze", "--format", "json"])
        .arg(&fine)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(v.get("not_readable").is_none(), "{v}");
}
