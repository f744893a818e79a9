//! A step's outcome field and sales keyed by their product, through the
//! built binary: a JSON log whose acquires say `"ok": false` when SET NX
//! lost, and whose sale lines name the product (`sku-42`) rather than the
//! lock key (`lk:sku-42`). Read with a mapping that names every field, and
//! with one that leaves the outcome to the protocol.

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::Value;
use support::{causes, finding_kinds};

/// A (worker-a) grabs with a 2 s lease, B fails twice while it is live and
/// grabs 500 ms after it expired; both sell the one unit while A still
/// works; A's late letgo deletes B's lock; A's last hold is clean.
const FLASH: &[&str] = &[
    r#"{"when":"2026-07-12T10:00:00.000+08:00","what":"boot","who":"worker-a","msg":"worker up"}"#,
    r#"{"when":"2026-07-12T10:00:00.050+08:00","what":"boot","who":"worker-b","msg":"worker up"}"#,
    r#"{"when":"2026-07-12T10:00:00.100+08:00","what":"grab","res":"lk:sku-42","who":"worker-a","lease":2000,"ok":true}"#,
    r#"{"when":"2026-07-12T10:00:00.300+08:00","what":"peek","res":"sku-42","who":"worker-a","left":1}"#,
    r#"{"when":"2026-07-12T10:00:01.000+08:00","what":"grab","res":"lk:sku-42","who":"worker-b","lease":2000,"ok":false}"#,
    r#"{"when":"2026-07-12T10:00:02.000+08:00","what":"grab","res":"lk:sku-42","who":"worker-b","lease":2000,"ok":false}"#,
    r#"{"when":"2026-07-12T10:00:02.600+08:00","what":"grab","res":"lk:sku-42","who":"worker-b","lease":2000,"ok":true}"#,
    r#"{"when":"2026-07-12T10:00:02.700+08:00","what":"peek","res":"sku-42","who":"worker-b","left":1}"#,
    r#"{"when":"2026-07-12T10:00:02.800+08:00","what":"sold","res":"sku-42","who":"worker-a","qty":1,"left":0,"order":"ord-1001"}"#,
    r#"{"when":"2026-07-12T10:00:02.900+08:00","what":"sold","res":"sku-42","who":"worker-b","qty":1,"left":-1,"order":"ord-1002"}"#,
    r#"{"when":"2026-07-12T10:00:03.100+08:00","what":"letgo","res":"lk:sku-42","who":"worker-a"}"#,
    r#"{"when":"2026-07-12T10:00:03.600+08:00","what":"letgo","res":"lk:sku-42","who":"worker-b"}"#,
    r#"{"when":"2026-07-12T10:00:04.000+08:00","what":"grab","res":"lk:sku-42","who":"worker-a","lease":2000,"ok":true}"#,
    r#"{"when":"2026-07-12T10:00:04.200+08:00","what":"letgo","res":"lk:sku-42","who":"worker-a"}"#,
];

/// Every field and event word of [`FLASH`], `outcome` included unless
/// `outcome` is false.
fn mapping(outcome: bool) -> String {
    format!(
        "[fields]\ntime = \"when\"\nevent = \"what\"\nkey = \"res\"\nholder = \"who\"\n\
         ttl_ms = \"lease\"\nstock_after = \"left\"\nquantity = \"qty\"\norder_id = \"order\"\n{}\n\
         [events]\ngrab = \"acquired\"\nletgo = \"released\"\nsold = \"stock_deducted\"\n\
         peek = \"stock_read\"\n",
        if outcome { "outcome = \"ok\"" } else { "" }
    )
}

fn files(dir: &Path, outcome: bool) -> (PathBuf, PathBuf) {
    let log = dir.join("flash.jsonl");
    std::fs::write(&log, FLASH.join("\n")).expect("write");
    let map = dir.join("flash.toml");
    std::fs::write(&map, mapping(outcome)).expect("write");
    (log, map)
}

fn analyze(log: &Path, map: &Path) -> (i32, Value) {
    let map = map.to_str().expect("utf8 path");
    let (code, stdout, stderr) = support::analyze(&["--format", "json", "--mapping", map], &[log]);
    let v = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}\nstderr: {stderr}"));
    (code, v)
}

/// The answer of the trial: one incident, lease expired, 500 ms, A and B,
/// one unit oversold and tied to it, A's letgo a foreign release.
fn assert_flash_answer(code: i32, v: &Value) {
    assert_eq!(code, 1, "{v}");
    let incidents = v["incidents"].as_array().expect("incidents");
    assert_eq!(incidents.len(), 1, "{v}");
    let inc = &incidents[0];
    assert_eq!(causes(v), vec!["lease_expired"]);
    assert_eq!(inc["overlaps"][0]["duration_ms"], 500.0, "{inc}");
    let mut holders: Vec<&str> = inc["holds"]
        .as_array()
        .expect("holds")
        .iter()
        .filter_map(|h| h["holder"].as_str())
        .collect();
    holders.sort_unstable();
    assert_eq!(holders, ["worker-a", "worker-b"], "{inc}");
    assert_eq!(inc["oversold_units"], 1, "{inc}");
    assert_eq!(v["summary"]["oversold_units"], 1, "{v}");
    assert!(
        finding_kinds(v).contains(&"foreign_release".to_string()),
        "{:?}",
        finding_kinds(v)
    );
}

#[test]
fn a_mapped_outcome_makes_failed_grabs_attempts_and_product_sales_tie_by_holder() {
    let dir = tempfile::tempdir().expect("tmp");
    let (log, map) = files(dir.path(), true);
    let (code, v) = analyze(&log, &map);
    assert_flash_answer(code, &v);
}

#[test]
fn an_unmapped_outcome_is_found_by_the_failed_grabs_on_a_live_lease() {
    let dir = tempfile::tempdir().expect("tmp");
    let (log, map) = files(dir.path(), false);
    let (code, v) = analyze(&log, &map);
    assert_flash_answer(code, &v);
    let notes = v["sources"][0]["notes"].to_string();
    assert!(notes.contains("outcome: `ok`"), "{notes}");
    assert!(notes.contains("a guess"), "{notes}");
}
