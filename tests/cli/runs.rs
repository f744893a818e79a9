//! The built binary as a user runs it: exit codes, broken inputs (each gives
//! a warning with file and line and the good lines still load), the report
//! folder, the Chrome trace, and inputs that are never written.

use std::path::{Path, PathBuf};
use std::process::Output;

use lockreplay::report::Trace;

use serde_json::Value;

use crate::support::{self, bin, case_file};

fn br01() -> PathBuf {
    case_file("BR-01-redispy-shared-lock-overrun", "inventory-sync.jsonl")
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn analyze_json(files: &[&Path], extra: &[&str]) -> (Output, Value) {
    let out = bin()
        .args(["analyze", "--format", "json"])
        .args(extra)
        .args(files)
        .output()
        .expect("run");
    let v = json_of(&out);
    (out, v)
}

/// BR-01 with `edit` applied to its lines, written to a temp file.
fn broken_copy(dir: &Path, name: &str, edit: impl Fn(Vec<String>) -> Vec<String>) -> PathBuf {
    let text = std::fs::read_to_string(br01()).expect("read");
    let lines = edit(text.lines().map(str::to_string).collect());
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n")).expect("write");
    path
}

fn warnings(v: &Value) -> Vec<(String, u64, String)> {
    v["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|w| {
            (
                w["file"].as_str().unwrap_or("").to_string(),
                w["line"].as_u64().unwrap_or(0),
                w["reason"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn incidents_exit_1_clean_logs_exit_0_errors_exit_2() {
    let (out, v) = analyze_json(&[&br01()], &["--unit-loss", "650"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(v["summary"]["loss"]["amount"], 650.0);
    let nc = case_file("NC-02-log-lag-1ms-handoff", "daigou-node-svc.log");
    let (out, v) = analyze_json(&[&nc], &[]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(v["summary"]["incidents"], 0);
    let out = bin()
        .args(["analyze", "/no/such/file.jsonl"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("/no/such/file.jsonl"),
        "error names the file: {err}"
    );
    let out = bin()
        .args(["analyze", "--host-offset", "web1:40"])
        .arg(br01())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("HOST=MS"));
    let out = bin()
        .args(["analyze", "--unit-loss=-5"])
        .arg(br01())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--unit-loss must be zero or a positive")
    );
}

#[test]
fn a_truncated_last_line_is_a_warning_and_the_rest_loads() {
    let dir = tempfile::tempdir().expect("tmp");
    let f = broken_copy(dir.path(), "truncated.jsonl", |mut l| {
        let last = l.pop().expect("line");
        l.push(last[..last.len() / 2].to_string());
        l
    });
    let (out, v) = analyze_json(&[&f], &["--unit-loss", "650"]);
    assert_eq!(out.status.code(), Some(1), "the incident is still found");
    let w = warnings(&v);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].0.ends_with("truncated.jsonl"));
    assert_eq!(w[0].1, 11);
    assert!(w[0].2.contains("JSON"), "{}", w[0].2);
    assert_eq!(v["summary"]["oversold_units"], 1);
}

#[test]
fn binary_garbage_lines_are_warnings_with_line_numbers() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("garbage.jsonl");
    let text = std::fs::read(br01()).expect("read");
    let mut bytes = Vec::new();
    for (n, line) in text.split(|&b| b == b'\n').enumerate() {
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
        if n == 3 {
            bytes.extend_from_slice(&[0, 159, 146, 150, 255, 1, 2, 3, b'\n']);
        }
    }
    std::fs::write(&path, bytes).expect("write");
    let (out, v) = analyze_json(&[&path], &[]);
    assert_eq!(out.status.code(), Some(1));
    let w = warnings(&v);
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].1, 5);
    assert_eq!(v["summary"]["incidents"], 1);
}

#[test]
fn an_empty_file_says_so_and_is_no_all_clear() {
    // An empty file is no clean night: nothing was read, so exit 2 with the
    // reason on stderr (the JSON report is still printed).
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("empty.jsonl");
    std::fs::write(&path, "").expect("write");
    let (out, v) = analyze_json(&[&path], &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no lock event could be read"), "{err}");
    let w = warnings(&v);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].1, 0);
    assert_eq!(v["summary"]["events"], 0);
}

#[test]
fn a_wrong_time_format_is_a_warning_per_line() {
    let dir = tempfile::tempdir().expect("tmp");
    let f = broken_copy(dir.path(), "badtime.jsonl", |l| {
        l.into_iter()
            .enumerate()
            .map(|(n, s)| {
                if n == 2 {
                    s.replace("2025-03-03T10:20:01.000+08:00", "yesterday at noon")
                } else {
                    s
                }
            })
            .collect()
    });
    let (_, v) = analyze_json(&[&f], &[]);
    let w = warnings(&v);
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].1, 3);
    assert!(w[0].2.contains("yesterday"), "{}", w[0].2);
    let src = &v["sources"][0];
    assert_eq!(
        src["lines_read"].as_u64(),
        Some(
            src["events"].as_u64().unwrap_or(0)
                + src["skipped"].as_u64().unwrap_or(0)
                + src["warned"].as_u64().unwrap_or(0)
        )
    );
}

#[test]
fn report_folder_has_every_file_and_leaves_inputs_untouched() {
    let dir = tempfile::tempdir().expect("tmp");
    let input = dir.path().join("in.jsonl");
    std::fs::copy(br01(), &input).expect("copy");
    let before = (
        std::fs::read(&input).expect("read"),
        std::fs::metadata(&input).expect("meta").modified().ok(),
    );
    let out_dir = dir.path().join("report");
    let out = support::report_no_images(&["--unit-loss", "650"], &out_dir, &input);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for f in [
        "report.md",
        "incidents.json",
        "incidents.csv",
        "findings.csv",
        "trace.json",
    ] {
        assert!(out_dir.join(f).is_file(), "{f} written");
    }
    let md = std::fs::read_to_string(out_dir.join("report.md")).expect("md");
    assert!(md.contains("INC-1") && md.contains("¥650"), "{md}");
    let csv = std::fs::read_to_string(out_dir.join("incidents.csv")).expect("csv");
    assert_eq!(csv.lines().count(), 2);
    assert!(
        csv.lines()
            .nth(1)
            .is_some_and(|l| l.contains("lease_expired"))
    );
    let after = (
        std::fs::read(&input).expect("read"),
        std::fs::metadata(&input).expect("meta").modified().ok(),
    );
    assert_eq!(before, after, "input unchanged");
    let leftovers: Vec<_> = std::fs::read_dir(&out_dir)
        .expect("dir")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "no temporary files left");
}

#[test]
fn trace_json_is_well_formed_trace_events() {
    let dir = tempfile::tempdir().expect("tmp");
    let input = case_file("BR-02-aredis-asyncio-shared-token", "jobs-runner.json");
    let out = support::report_no_images(&[], dir.path(), &input);
    assert_eq!(out.status.code(), Some(1));
    let trace: Trace =
        serde_json::from_slice(&std::fs::read(dir.path().join("trace.json")).expect("trace"))
            .expect("typed trace");
    let leases: Vec<_> = trace
        .trace_events
        .iter()
        .filter(|e| e.ph == "X" && e.cat == "lease")
        .collect();
    assert_eq!(leases.len(), 3, "one complete event per hold");
    assert!(
        trace
            .trace_events
            .iter()
            .all(|e| matches!(e.ph.as_str(), "X" | "i" | "M"))
    );
    assert!(
        leases
            .iter()
            .all(|e| e.pid == 1 && e.tid >= 1 && e.dur.is_some_and(|d| d > 0.0) && e.ts >= 0.0)
    );
    let overlaps = trace
        .trace_events
        .iter()
        .filter(|e| e.cat == "overlap" && e.ph == "i")
        .count();
    assert_eq!(overlaps, 2);
    // ts is in µs: taskB acquires 3010.015 ms after taskA.
    let b = leases
        .iter()
        .find(|e| e.args["holder"] == "taskB")
        .expect("taskB");
    assert!((b.ts - 3_010_015.0).abs() < 1.0, "{}", b.ts);
}

#[test]
fn exports_never_overwrite_an_input() {
    let dir = tempfile::tempdir().expect("tmp");
    let input = dir.path().join("report.md");
    std::fs::copy(br01(), &input).expect("copy");
    let out = support::report_no_images(&[], dir.path(), &input);
    assert_eq!(out.status.code(), Some(2));
    // The report folder itself is refused when it holds an input, before
    // any file in it is written.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("refusing to write the report folder") && err.contains("holds the input"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&input).expect("read"),
        std::fs::read(br01()).expect("read")
    );
}

#[test]
fn atomic_write_failure_leaves_no_partial_file() {
    let dir = tempfile::tempdir().expect("tmp");
    let target = dir.path().join("missing-dir").join("out.json");
    let err = lockreplay::fsio::write_atomic(&target, b"{}", &[]);
    assert!(err.is_err());
    assert!(!target.exists());
    let ok = dir.path().join("out.json");
    lockreplay::fsio::write_atomic(&ok, b"{\"a\":1}", &[]).expect("write");
    assert_eq!(std::fs::read(&ok).expect("read"), b"{\"a\":1}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&ok).expect("meta").permissions().mode() & 0o777;
        assert_eq!(
            mode, 0o644,
            "an export is readable by others, like any file"
        );
    }
}

#[test]
fn markdown_report_of_the_seed_incident_says_3_oversold_and_600() {
    let dir = tempfile::tempdir().expect("tmp");
    let seed = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs/seed-incident.jsonl");
    let out = support::report_no_images(&["--unit-loss", "200"], dir.path(), &seed);
    assert_eq!(out.status.code(), Some(1));
    let md = std::fs::read_to_string(dir.path().join("report.md")).expect("md");
    assert!(md.contains("**3 units oversold, ¥600 lost**"), "{md}");
    assert!(
        md.contains("Oversold: **3 units** · loss: **¥600**"),
        "{md}"
    );
    // Each of the 11 overlap pairs is a row: both holders, when, how long.
    assert!(md.contains("| Earlier holder | Later holder | From | Both believed | Cause |"));
    let pair_rows = md
        .lines()
        .filter(|l| l.starts_with("| ") && l.ends_with(" ms | lease_expired |"))
        .count();
    assert_eq!(pair_rows, 11, "{md}");
}

/// REAL-A as the application logged it and as `redis-cli monitor` saw it.
#[test]
fn report_lang_zh_writes_a_chinese_report_md_and_the_same_data_files() {
    let seed = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs/seed-incident.jsonl");
    let run = |lang: &str| {
        let dir = tempfile::tempdir().expect("tmp");
        let out = support::report_no_images(
            &["--unit-loss", "200", "--lang", lang],
            &dir.path().join("r"),
            &seed,
        );
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let read = |f: &str| std::fs::read_to_string(dir.path().join("r").join(f)).expect(f);
        (read("report.md"), read("incidents.json"))
    };
    let (en_md, en_json) = run("en");
    let (zh_md, zh_json) = run("zh");
    assert!(en_md.contains("units oversold"), "{en_md}");
    // Chinese words where the English report has English ones; the data the
    // same (JSON keeps the report's snake_case names).
    assert!(
        zh_md.contains("超卖") && !zh_md.contains("units oversold"),
        "{zh_md}"
    );
    assert!(zh_md.contains("INC-1"), "{zh_md}");
    assert_eq!(zh_json, en_json);
}

#[test]
fn without_a_unit_loss_the_loss_is_unknown_not_zero() {
    let out = bin().args(["analyze"]).arg(br01()).output().expect("run");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("1 unit oversold · ¥? (no --unit-loss) lost"),
        "{text}"
    );
    assert!(!text.contains("¥0"), "{text}");
    // With one, the amount.
    let out = bin()
        .args(["analyze", "--unit-loss", "650"])
        .arg(br01())
        .output()
        .expect("run");
    assert!(String::from_utf8_lossy(&out.stdout).contains("¥650 lost"));
}

#[test]
fn a_log_without_lock_events_says_so_before_any_number() {
    let dir = tempfile::tempdir().expect("tmp");
    let input = dir.path().join("orders-only.jsonl");
    std::fs::write(
        &input,
        "{\"ts\":\"2026-11-29T16:00:00+08:00\",\"event\":\"order_created\",\"order_id\":\"1\"}\n",
    )
    .expect("write");
    let out = bin().arg("analyze").arg(&input).output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("NOT READABLE: no lock event"), "{text}");
    let folder = dir.path().join("report");
    let out = support::report_no_images(&[], &folder, &input);
    assert_eq!(out.status.code(), Some(2));
    let md = std::fs::read_to_string(folder.join("report.md")).expect("md");
    let first_para = md.lines().find(|l| !l.is_empty() && !l.starts_with('#'));
    assert!(
        first_para.is_some_and(|l| l.starts_with("> **NOT READABLE")),
        "{md}"
    );
}

#[test]
fn whatif_text_says_how_many_sales_a_policy_would_not_have_made() {
    let seed = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs/seed-incident.jsonl");
    let out = bin()
        .args(["whatif", "--unit-loss", "200", "--fencing"])
        .arg(&seed)
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Fenced writes  Sales not made"), "{text}");
    // Fencing rejects the 3 stale deductions: 3 sales not made, 0 oversold.
    let fencing = text
        .lines()
        .find(|l| l.starts_with("fencing"))
        .expect("the fencing row");
    let cols: Vec<&str> = fencing.split_whitespace().collect();
    assert_eq!(cols[cols.len() - 2..], ["3", "3"], "{fencing}");
}

fn real_a(file: &str) -> PathBuf {
    case_file("REAL-A-redispy-no-renewal", file)
}

#[test]
fn the_explanation_tells_sales_inside_the_window_from_later_ones_tied_to_it() {
    let out = bin()
        .args(["analyze", "--unit-loss", "200"])
        .arg(real_a("a_redispy_lock_no_renewal.app.jsonl"))
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    // INC-1 holds 10 sales: 7 between its first overlap start and last
    // overlap end, 3 just after it (two of them by holders outside the
    // incident: oversold units the overlap caused).
    assert!(
        text.contains("Inside the window they sold 7 units in 7 sales ("),
        "{text}"
    );
    assert!(
        text.contains("3 sales outside the window (3 units: DG12611291610520008 by "),
        "{text}"
    );
    assert!(
        text.contains("5 units went beyond the stock, costing ¥1000."),
        "{text}"
    );
}

/// Every `inferred` flag of a JSON report.
struct InferredFlags {
    incidents: Vec<bool>,
    holds: Vec<bool>,
    overlaps: Vec<bool>,
    orders: Vec<bool>,
    findings: Vec<bool>,
}

fn inferred_flags(v: &Value) -> InferredFlags {
    let flags = |items: &Value| -> Vec<bool> {
        items
            .as_array()
            .into_iter()
            .flatten()
            .map(|x| x["inferred"].as_bool().expect("an inferred flag"))
            .collect()
    };
    let incidents = v["incidents"].as_array().cloned().unwrap_or_default();
    let each =
        |field: &str| -> Vec<bool> { incidents.iter().flat_map(|i| flags(&i[field])).collect() };
    InferredFlags {
        incidents: flags(&v["incidents"]),
        holds: each("holds"),
        overlaps: each("overlaps"),
        orders: each("orders"),
        findings: flags(&v["findings"]),
    }
}

#[test]
fn the_capture_json_marks_its_outcomes_inferred_and_the_app_log_json_does_not() {
    let (_, cap) = analyze_json(&[&real_a("a_redispy_lock_no_renewal.monitor.log")], &[]);
    let (_, app) = analyze_json(&[&real_a("a_redispy_lock_no_renewal.app.jsonl")], &[]);
    for (v, want, name) in [(&cap, true, "capture"), (&app, false, "app log")] {
        let InferredFlags {
            incidents,
            holds,
            overlaps,
            orders,
            findings,
        } = inferred_flags(v);
        assert!(
            !incidents.is_empty() && !holds.is_empty(),
            "{name}: holds listed"
        );
        assert!(
            !overlaps.is_empty() && !orders.is_empty(),
            "{name}: overlaps and orders"
        );
        for (what, flags) in [
            ("incidents", &incidents),
            ("holds", &holds),
            ("overlaps", &overlaps),
            ("orders", &orders),
        ] {
            assert!(flags.iter().all(|&f| f == want), "{name}: {what} {flags:?}");
        }
        if !want {
            assert!(
                findings.iter().all(|&f| !f),
                "{name}: findings {findings:?}"
            );
        }
        // The holds are the incident's holders, in the same order.
        for inc in v["incidents"].as_array().into_iter().flatten() {
            let holders: Vec<&Value> = inc["holds"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|h| &h["holder"])
                .collect();
            let listed: Vec<&Value> = inc["holders"].as_array().into_iter().flatten().collect();
            assert_eq!(holders, listed, "{name}");
        }
    }
}

#[test]
fn markdown_and_text_mark_inferred_outcomes_of_a_capture_only() {
    for format in ["md", "text"] {
        let report = |file: &str| {
            let out = bin()
                .args(["analyze", "--format", format])
                .arg(real_a(file))
                .output()
                .expect("run");
            assert_eq!(out.status.code(), Some(1), "{format}: an incident");
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        let cap = report("a_redispy_lock_no_renewal.monitor.log");
        let app = report("a_redispy_lock_no_renewal.app.jsonl");
        assert!(
            cap.contains("inferred from MONITOR replay"),
            "{format} legend: {cap}"
        );
        assert!(cap.contains("lease_expired (inferred)"), "{format}: {cap}");
        assert!(!app.contains("inferred"), "{format}: {app}");
        if format == "md" {
            // Every hold and order row of the capture is marked.
            let rows = |prefix: &str, also: &str| {
                cap.lines()
                    .filter(|l| l.starts_with(prefix) && l.contains(also))
                    .map(|l| l.contains("(inferred)"))
                    .collect::<Vec<_>>()
            };
            // Hold rows name the holder (its id in code) and give the TTL in ms.
            let holds = rows("| ", " ms | ");
            let orders = rows("| DG", "");
            assert!(!holds.is_empty() && holds.iter().all(|&m| m), "{cap}");
            assert!(!orders.is_empty() && orders.iter().all(|&m| m), "{cap}");
        }
    }
}

/// Sales inside an overlap and no stock level anywhere: the oversold units
/// are unknown, printed `?` beside `¥?` in the text and Markdown reports,
/// never a bare 0 (docs/semantics.md §7).
#[test]
fn oversold_units_are_unknown_without_a_stock_level() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lines = [
        r#"{"ts":"2024-01-01T00:00:00.100Z","event":"acquired","key":"lock:a","holder":"w1","ttl_ms":1000}"#,
        r#"{"ts":"2024-01-01T00:00:01.200Z","event":"acquired","key":"lock:a","holder":"w2","ttl_ms":1000}"#,
        r#"{"ts":"2024-01-01T00:00:01.300Z","event":"order_created","key":"lock:a","holder":"w1","order_id":"o1","product":"sku-1","quantity":1}"#,
        r#"{"ts":"2024-01-01T00:00:01.400Z","event":"order_created","key":"lock:a","holder":"w2","order_id":"o2","product":"sku-1","quantity":1}"#,
        r#"{"ts":"2024-01-01T00:00:01.500Z","event":"released","key":"lock:a","holder":"w1"}"#,
        r#"{"ts":"2024-01-01T00:00:01.600Z","event":"released","key":"lock:a","holder":"w2"}"#,
    ];
    let log = dir.path().join("no-stock.jsonl");
    std::fs::write(&log, lines.join("\n") + "\n").expect("write");
    for (format, says) in [
        ("text", "· ? units oversold · ¥? (no stock level) lost ·"),
        ("md", "**? units oversold, ¥? (no stock level) lost**"),
    ] {
        let out = bin()
            .args(["analyze", "--format", format])
            .arg(&log)
            .output()
            .expect("run");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(says), "{format}: {text}");
        assert!(!text.contains("0 units oversold"), "{format}: {text}");
    }
}
