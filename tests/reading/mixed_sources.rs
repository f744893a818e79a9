//! One incident from several sources. The same flash sale
//! as an application log, as MONITOR captures (a lock node whose key carries
//! a library prefix, and a data node holding the stock and the orders), and
//! as both, gives one answer: each hold, overlap and sale counted once.

use crate::support;

use std::path::Path;

use serde_json::Value;
use support::{CAD, monitor_line, write_lines};

/// 2026-12-01T10:00:00+08:00 as epoch seconds.
const T0: i64 = 1_796_090_400;

fn analyze(files: &[&Path]) -> Value {
    let out = crate::support::bin()
        .args(["analyze", "--format", "json", "--unit-loss", "200"])
        .args(files)
        .output()
        .expect("run");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// App log: tok-A's work outlives its 2 s lease, tok-B acquires at 2.5 s and
/// sells the last unit, tok-A sells one more at 3.0 s: 1 oversold.
fn app_lines(key: &str) -> Vec<String> {
    let at = |ms: i64| format!("2026-12-01T10:00:{:02}.{:03}+08:00", ms / 1000, ms % 1000);
    vec![
        format!(
            r#"{{"ts":"{}","event":"stock_initialized","product":"sku-1001","stock":1}}"#,
            at(0)
        ),
        format!(
            r#"{{"ts":"{}","event":"acquired","key":"{key}","owner":"tok-A","ttl_ms":2000}}"#,
            at(10)
        ),
        format!(
            r#"{{"ts":"{}","event":"acquired","key":"{key}","owner":"tok-B","ttl_ms":2000}}"#,
            at(2500)
        ),
        format!(
            r#"{{"ts":"{}","event":"order_created","key":"{key}","owner":"tok-B","product":"sku-1001","order_id":"o-B","qty":1}}"#,
            at(2600)
        ),
        format!(
            r#"{{"ts":"{}","event":"released","key":"{key}","owner":"tok-B"}}"#,
            at(2700)
        ),
        format!(
            r#"{{"ts":"{}","event":"order_created","key":"{key}","owner":"tok-A","product":"sku-1001","order_id":"o-A","qty":1}}"#,
            at(3000)
        ),
        format!(
            r#"{{"ts":"{}","event":"release_failed","key":"{key}","owner":"tok-A"}}"#,
            at(3010)
        ),
    ]
}

/// One MONITOR line at `ms` after `T0`.
fn mon(ms: i64, client: &str, args: &[&str]) -> String {
    monitor_line(T0, ms, client, args)
}

/// The lock node: pottery-style `redlock:` prefix on the key.
fn lock_node(key: &str) -> Vec<String> {
    let a = "127.0.0.1:50001";
    let b = "127.0.0.1:50002";
    vec![
        mon(10, a, &["SET", key, "tok-A", "NX", "PX", "2000"]),
        mon(2500, b, &["SET", key, "tok-B", "NX", "PX", "2000"]),
        mon(2700, b, &["EVAL", CAD, "1", key, "tok-B"]),
        mon(2700, "lua", &["get", key]),
        mon(2700, "lua", &["del", key]),
        mon(3010, a, &["EVAL", CAD, "1", key, "tok-A"]),
        mon(3010, "lua", &["get", key]),
    ]
}

/// The data node: stock counter and order list, no lock key.
fn data_node() -> Vec<String> {
    let order = |id: &str, owner: &str| {
        format!(r#"{{"order_id":"{id}","qty":1,"unit_price":200,"lock_owner":"{owner}"}}"#)
    };
    vec![
        mon(0, "127.0.0.1:50010", &["SET", "product:1001:stock", "1"]),
        mon(
            2550,
            "127.0.0.1:50012",
            &["DECRBY", "product:1001:stock", "1"],
        ),
        mon(
            2600,
            "127.0.0.1:50012",
            &["RPUSH", "orders:product:1001", &order("o-B", "tok-B")],
        ),
        mon(
            2950,
            "127.0.0.1:50011",
            &["DECRBY", "product:1001:stock", "1"],
        ),
        mon(
            3000,
            "127.0.0.1:50011",
            &["RPUSH", "orders:product:1001", &order("o-A", "tok-A")],
        ),
    ]
}

/// (earlier, later, cause, duration_ms) of one overlap.
type Pair = (String, String, String, i64);

/// (pairs, oversold units, loss, every overlap).
fn answer(v: &Value) -> (i64, i64, f64, Vec<Pair>) {
    let overlaps = v["incidents"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|i| i["overlaps"].as_array().into_iter().flatten())
        .map(|o| {
            (
                o["earlier"].as_str().unwrap_or("").to_string(),
                o["later"].as_str().unwrap_or("").to_string(),
                o["cause"].as_str().unwrap_or("").to_string(),
                o["duration_ms"].as_f64().unwrap_or(-1.0).round() as i64,
            )
        })
        .collect();
    (
        v["summary"]["overlap_pairs"].as_i64().unwrap_or(-1),
        v["summary"]["oversold_units"].as_i64().unwrap_or(-1),
        v["summary"]["loss"]["amount"].as_f64().unwrap_or(-1.0),
        overlaps,
    )
}

#[test]
fn app_log_captures_and_both_give_one_answer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let app = write_lines(dir.path(), "shop.jsonl", &app_lines("product:1001:lock"));
    let lock = write_lines(
        dir.path(),
        "node-6391.monitor.log",
        &lock_node("redlock:product:1001:lock"),
    );
    let data = write_lines(dir.path(), "node-6394.monitor.log", &data_node());
    let expected = (
        1,
        1,
        200.0,
        vec![("tok-A".into(), "tok-B".into(), "lease_expired".into(), 200)],
    );
    assert_eq!(answer(&analyze(&[&app])), expected, "application log alone");
    assert_eq!(
        answer(&analyze(&[&lock, &data])),
        expected,
        "captures alone"
    );
    let both = analyze(&[&app, &lock, &data]);
    assert_eq!(answer(&both), expected, "application log and captures");
    assert_eq!(both["summary"]["holders"], 2, "{both:#}");
    assert_eq!(both["summary"]["keys"], 1, "{both:#}");
    // Each hold carries the server's view of it; each order the capture line
    // that pushed the same order id.
    let inc = &both["incidents"][0];
    let a = &inc["holds"][0];
    assert_eq!(a["holder"], "tok-A", "{inc:#}");
    assert_eq!(a["lock_end"], "expired", "{inc:#}");
    assert_eq!(a["server"]["lock_end"], "expired", "{inc:#}");
    assert!(
        a["server"]["source"]
            .as_str()
            .is_some_and(|s| s.ends_with("node-6391.monitor.log:1")),
        "{inc:#}"
    );
    let orders = inc["orders"].as_array().expect("orders");
    assert_eq!(orders.len(), 2, "{inc:#}");
    assert!(
        orders.iter().all(|o| o["inferred"] == false
            && o["server_source"]
                .as_str()
                .is_some_and(|s| s.contains("node-6394.monitor.log:"))),
        "{inc:#}"
    );
    // The application log alone has no server evidence.
    let alone = analyze(&[&app]);
    assert!(alone["incidents"][0]["holds"][0].get("server").is_none());
    // The capture says how it was linked.
    let notes = both["sources"][1]["notes"].to_string();
    assert!(
        notes.contains("`redlock:product:1001:lock` is the application's `product:1001:lock`"),
        "{notes}"
    );
}

#[test]
fn a_key_linked_by_spelling_alone_is_said_to_be_inferred() {
    // The application names no token (its holders are threads): the capture
    // key is linked by its prefix only.
    let dir = tempfile::tempdir().expect("tempdir");
    let app: Vec<String> = app_lines("product:1001:lock")
        .into_iter()
        .map(|l| l.replace("tok-", "thread-"))
        .collect();
    let app = write_lines(dir.path(), "shop.jsonl", &app);
    let lock = write_lines(
        dir.path(),
        "node.monitor.log",
        &lock_node("lock:product:1001:lock"),
    );
    let v = analyze(&[&app, &lock]);
    assert_eq!(v["summary"]["keys"], 1, "{v:#}");
    let notes = v["sources"][1]["notes"].to_string();
    assert!(notes.contains("by its spelling"), "{notes}");
}

#[test]
fn orders_on_a_data_node_are_not_counted_twice_beside_the_app_log() {
    // The lock node's key equals the app's; only the data node could double
    // the sales.
    let dir = tempfile::tempdir().expect("tempdir");
    let app = write_lines(dir.path(), "shop.jsonl", &app_lines("product:1001:lock"));
    let data = write_lines(dir.path(), "node-6394.monitor.log", &data_node());
    let v = analyze(&[&app, &data]);
    assert_eq!(v["summary"]["oversold_units"], 1, "{v:#}");
    let orders: usize = v["incidents"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| i["orders"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(orders, 2, "{v:#}");
}
