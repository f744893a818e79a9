//! A partial reading never answers "no incident" with confidence: when no
//! incident is found while most lines of a file (more than half) became
//! activity of no known kind, the run exits 2 saying so, in both
//! languages; at half or less it answers as before.

use std::path::Path;

/// Two holders of `lock:sku:1` handing it over cleanly: four lock lines
/// read, and `work` lines of an event name no list has.
fn log(work: usize) -> String {
    let mut out = vec![
        r#"{"ts":"2026-12-01T07:00:00.000Z","event":"acquired","lock_key":"lock:sku:1","owner":"a","ttl_ms":5000}"#.to_string(),
    ];
    for i in 0..work {
        out.push(format!(
            r#"{{"ts":"2026-12-01T07:00:00.{:03}Z","event":"supplier_page_parsed","lock_key":"lock:sku:1","owner":"a","page":{i}}}"#,
            100 + i
        ));
    }
    out.extend([
        r#"{"ts":"2026-12-01T07:00:01.000Z","event":"released","lock_key":"lock:sku:1","owner":"a"}"#.to_string(),
        r#"{"ts":"2026-12-01T07:00:01.100Z","event":"acquired","lock_key":"lock:sku:1","owner":"b","ttl_ms":5000}"#.to_string(),
        r#"{"ts":"2026-12-01T07:00:01.900Z","event":"released","lock_key":"lock:sku:1","owner":"b"}"#.to_string(),
    ]);
    out.join("\n") + "\n"
}

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let args: Vec<&str> = ["--no-cache"].iter().chain(args).copied().collect();
    crate::support::analyze(&args, &[dir.join("app.jsonl")])
}

#[test]
fn no_incident_from_a_file_mostly_of_no_known_kind_is_no_answer() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("app.jsonl");
    // 5 of 9 lines: more than half.
    std::fs::write(&file, log(5)).expect("write");
    let (code, text, err) = run(dir.path(), &["--format", "text"]);
    assert_eq!(code, 2, "{text}{err}");
    assert!(text.starts_with("NOT READABLE: "), "{text}");
    assert!(
        text.contains("5 of 9 line(s) were read as activity of no known kind"),
        "{text}"
    );
    assert!(err.contains("5 of 9 line(s)"), "{err}");
    let (code, zh, _) = run(dir.path(), &["--format", "text", "--lang", "zh"]);
    assert_eq!(code, 2);
    assert!(zh.contains("9 行中有 5 行被读作未知类型的活动"), "{zh}");
    let (code, json, _) = run(dir.path(), &["--format", "json"]);
    assert_eq!(code, 2);
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert!(
        v["not_readable"][0]
            .as_str()
            .is_some_and(|p| p.contains("5 of 9")),
        "{json}"
    );
    // 4 of 8 lines, half: the answer stands, "no incident", exit 0.
    std::fs::write(&file, log(4)).expect("write");
    let (code, text, err) = run(dir.path(), &["--format", "text"]);
    assert_eq!(code, 0, "{text}{err}");
    assert!(!text.contains("NOT READABLE"), "{text}");
    assert!(text.contains("0 incident(s)"), "{text}");
}
