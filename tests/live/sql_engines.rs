//! `lockreplay sql`'s query run in real engines (DuckDB and ClickHouse's
//! engine in process, chDB, both from PyPI, and a cluster of two Debian
//! `clickhouse-server` 18.16 processes, each shard over its own keys) on
//! the handed cases, on simulator logs (the 1 M-event one among them;
//! also in time slices with `--since`/`--until`/`--carry-ms`) and
//! on events at a lease's boundaries and ties within an instant, compared
//! with `lockreplay analyze` on the same files by `tests/sql/check_engines.py`
//! and `tests/sql/check_boundaries.py`: overlap pairs, causes, durations,
//! near-misses and near-miss streaks must be equal.

use std::path::Path;
use std::process::Command;

use crate::cluster;

fn python_has(modules: &[&str]) -> bool {
    let code = modules
        .iter()
        .map(|m| format!("import {m}"))
        .collect::<Vec<_>>()
        .join("; ");
    Command::new("python3")
        .args(["-c", &code])
        .status()
        .is_ok_and(|s| s.success())
}

/// Whether python3 has `modules`. Under CI their absence fails the test
/// (.ci/run installs them); elsewhere the test is skipped with a message.
fn engines_here(modules: &[&str]) -> bool {
    if python_has(modules) {
        return true;
    }
    let list = modules.join(" ");
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must install {list} (pip); .ci/run does"
    );
    eprintln!(
        "SKIPPED: python3 modules {list} are missing here (pip install {list}); CI runs this test"
    );
    false
}

#[test]
fn duckdb_and_clickhouse_agree_with_analyze_on_every_case_and_simulated_logs() {
    if !engines_here(&["duckdb", "chdb"]) {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cases: Vec<_> = std::fs::read_dir(root.join("tests/fixtures/cases"))
        .expect("ok")
        .map(|e| e.expect("ok").path())
        .filter(|p| p.join("case.json").exists())
        .collect();
    cases.sort();
    assert!(cases.len() >= 12, "the handed cases are missing");
    let cluster = cluster::cluster();
    let mut cmd = Command::new("python3");
    cmd.arg(root.join("tests/sql/check_engines.py"))
        .arg("--bin")
        .arg(env!("CARGO_BIN_EXE_lockreplay"));
    if let Some(c) = &cluster {
        cmd.arg("--cluster").arg(&c.file);
    }
    let out = cmd
        // Expired leases and overlaps; holds that use 85-95 % of the TTL
        // (near-misses and their streaks); a watchdog (renewals).
        .args(["--sim", "--buyers 300 --seed 4"])
        .args([
            "--sim",
            "--buyers 120 --seed 7 --ttl-ms 2000 --slow-prob 0.5 --slow-ms 1800",
        ])
        .args(["--sim", "--buyers 200 --seed 5 --watchdog --slow-prob 0.2"])
        // The simulator's 1 M-event log, the size the query must answer in
        // CI: 802 794 lock events, 12 627 overlap pairs.
        .args(["--sim", "--events 1000000 --seed 3"])
        // The simulator logs again, in three time slices (a month a day at
        // a time), in DuckDB and on the cluster.
        .args(["--slices", "3"])
        .args(&cases)
        .output()
        .expect("ok");
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "the engines disagree with analyze:\n{text}"
    );
    let oks = text.lines().filter(|l| l.starts_with("ok ")).count();
    let engines = if cluster.is_some() { 3 } else { 2 };
    let sliced = if cluster.is_some() { 2 } else { 1 };
    assert_eq!(
        oks,
        engines * (cases.len() + 4) + sliced * 4,
        "a comparison did not run:\n{text}"
    );
}

/// Acquires, renewals, deletes and releases exactly at a lease's expiry and
/// 1 ms either side, and hand-offs within one millisecond (with `seq`, and
/// without it in the documented order), in every engine.
#[test]
fn every_engine_is_exact_at_the_expiry_and_orders_ties_as_analyze() {
    if !engines_here(&["duckdb", "chdb"]) {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cluster = cluster::cluster();
    let mut cmd = Command::new("python3");
    cmd.arg(root.join("tests/sql/check_boundaries.py"))
        .arg("--bin")
        .arg(env!("CARGO_BIN_EXE_lockreplay"));
    if let Some(c) = &cluster {
        cmd.arg("--cluster").arg(&c.file);
    }
    let out = cmd.output().expect("ok");
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "a boundary or tie differs:\n{text}");
    let engines = if cluster.is_some() { 3 } else { 2 };
    assert_eq!(
        text.lines().filter(|l| l.starts_with("ok ")).count(),
        4 * engines,
        "{text}"
    );
}

#[test]
fn alert_rules_match_their_goldens_parse_and_fire_in_the_engines() {
    if !engines_here(&["duckdb", "chdb", "sqlglot"]) {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(root.join("tests/sql/check_alerts.py"))
        .arg("--bin")
        .arg(env!("CARGO_BIN_EXE_lockreplay"))
        .output()
        .expect("ok");
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "an alert rule failed its check:\n{text}"
    );
    // Five goldens, two SLS queries, two engines on two logs.
    assert!(
        text.lines().filter(|l| l.starts_with("ok ")).count() >= 11,
        "{text}"
    );
    if std::env::var_os("LOGQL_PARSER").is_some() {
        assert_eq!(text.matches("expr parses with").count(), 2, "{text}");
    } else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must set LOGQL_PARSER (.ci/run installs @grafana/lezer-logql)"
        );
    }
}

#[test]
fn hostile_names_keep_the_meaning_of_every_query_and_rule() {
    if !engines_here(&["duckdb", "chdb", "sqlglot", "yaml"]) {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(root.join("tests/sql/check_hostile_names.py"))
        .arg("--bin")
        .arg(env!("CARGO_BIN_EXE_lockreplay"))
        .output()
        .expect("ok");
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "a hostile name changed a query:\n{text}"
    );
    // DuckDB, ClickHouse, SLS (parse tree and refusal), Loki, ES|QL.
    assert!(
        text.lines().filter(|l| l.starts_with("ok ")).count() >= 6,
        "{text}"
    );
}

/// A table the query cannot carry is an error (exit 2, nothing printed),
/// never a rule of comments only.
#[test]
fn an_alert_for_a_table_that_is_not_one_expression_is_an_error() {
    for store in ["clickhouse", "duckdb"] {
        let out = crate::support::bin()
            .args(["sql", "--alert", store, "--table", "a;b"])
            .output()
            .expect("ok");
        assert_eq!(out.status.code(), Some(2), "{store}");
        assert!(out.stdout.is_empty(), "{store}: {:?}", out.stdout);
        assert!(String::from_utf8_lossy(&out.stderr).contains("a;b"));
    }
}

/// The Loki and Elasticsearch rules, evaluated as their stores evaluate
/// them (tests/sql/check_store_rules.py): the overlap rules fire on every
/// handed incident in every evaluation schedule and stay silent on every
/// case and built log without one; the near-miss rules work from the lock
/// lines alone.
#[test]
fn loki_and_elasticsearch_rules_fire_on_incidents_and_stay_silent_on_healthy_locks() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cases: Vec<_> = std::fs::read_dir(root.join("tests/fixtures/cases"))
        .expect("ok")
        .map(|e| e.expect("ok").path())
        .filter(|p| p.join("case.json").exists())
        .collect();
    cases.sort();
    let out = Command::new("python3")
        .arg(root.join("tests/sql/check_store_rules.py"))
        .arg("--bin")
        .arg(env!("CARGO_BIN_EXE_lockreplay"))
        .args(&cases)
        .output()
        .expect("ok");
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "a store's rule misfired:\n{text}");
    // Two overlap rules on every case and the five built logs; two near-miss
    // rules on the cases without incidents, the built logs and the simulator.
    let nc = text
        .lines()
        .filter(|l| l.starts_with("ok ") && l.contains("near-miss]"))
        .count();
    assert!(nc >= 2 * (3 + 5 + 1), "{text}");
    assert_eq!(
        text.lines()
            .filter(|l| l.starts_with("ok ") && l.contains("overlap]"))
            .count(),
        2 * (cases.len() + 5),
        "{text}"
    );
}
