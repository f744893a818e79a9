//! A partial reading never answers with confidence: when overlaps are
//! found but the business steps are written in words no list has (lines
//! of no known kind carrying a quantity or an order id), the loss is
//! unknown, not ¥0: the run exits 2 saying so, in both languages; the
//! same log with those words mapped gives the oversold unit and exits 1.

use std::path::Path;

/// Two holders of `lock:sku:1` overlapping by 400 ms, each selling one
/// unit of a stock of one, the sales under event names no list has.
const LOG: &str = r#"{"ts":"2026-12-01T06:59:59.000Z","event":"stock_initialized","product":"sku-1","stock":1,"host":"web-01"}
{"ts":"2026-12-01T07:00:00.000Z","event":"acquired","lock_key":"lock:sku:1","owner":"a","ttl_ms":1000,"host":"web-01"}
{"ts":"2026-12-01T07:00:01.100Z","event":"acquired","lock_key":"lock:sku:1","owner":"b","ttl_ms":1000,"host":"web-02"}
{"ts":"2026-12-01T07:00:01.200Z","event":"units_on_hand_cut","lock_key":"lock:sku:1","owner":"b","product":"sku-1","quantity":1,"host":"web-02"}
{"ts":"2026-12-01T07:00:01.300Z","event":"units_on_hand_cut","lock_key":"lock:sku:1","owner":"a","product":"sku-1","quantity":1,"host":"web-01"}
{"ts":"2026-12-01T07:00:01.400Z","event":"released","lock_key":"lock:sku:1","owner":"a","host":"web-01"}
{"ts":"2026-12-01T07:00:01.500Z","event":"released","lock_key":"lock:sku:1","owner":"b","host":"web-02"}
"#;

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    crate::support::analyze(args, &[dir.join("app.jsonl")])
}

#[test]
fn unread_business_words_make_the_loss_unknown_not_zero() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::write(dir.path().join("app.jsonl"), LOG).expect("write");
    let (code, text, _) = run(dir.path(), &["--format", "text"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("LOSS UNKNOWN"), "{text}");
    assert!(text.contains("2 line(s) of no known kind"), "{text}");
    assert!(text.contains("app.jsonl:4"), "{text}");
    assert!(text.contains("lease_expired"), "the overlap stands: {text}");
    let (code, zh, _) = run(dir.path(), &["--format", "text", "--lang", "zh"]);
    assert_eq!(code, 2);
    assert!(zh.contains("损失未知"), "{zh}");
    // Named, the same sales are read: one unit oversold, exit 1.
    let mapping = dir.path().join("m.toml");
    std::fs::write(
        &mapping,
        "[events]\n\"units_on_hand_cut\" = \"stock_deducted\"\n",
    )
    .expect("write");
    let m = mapping.display().to_string();
    let (code, text, _) = run(dir.path(), &["--format", "json", "--mapping", &m]);
    assert_eq!(code, 1, "{text}");
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert!(
        v["not_readable"].as_array().is_none_or(Vec::is_empty),
        "{text}"
    );
    assert_eq!(v["summary"]["oversold_units"], 1, "{text}");
}

/// The same overlap with its sales read (`stock_deducted`) but no stock
/// level anywhere in the log: whether the two units went beyond the stock
/// is unknown, so the run says the loss is unknown for `sku-1` (exit 2,
/// both languages, the JSON summary's and the incident's loss `null` with
/// the reason) whatever the unit loss; with the stock level logged, one
/// unit oversold and exit 1.
#[test]
fn sales_in_a_log_without_any_stock_level_make_the_loss_unknown_not_zero() {
    let dir = tempfile::tempdir().expect("tmp");
    let sold = LOG.replace("units_on_hand_cut", "stock_deducted");
    let blind: String = sold
        .lines()
        .filter(|l| !l.contains("stock_initialized"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(dir.path().join("app.jsonl"), &blind).expect("write");
    let (code, text, err) = run(dir.path(), &["--format", "text", "--unit-loss", "100"]);
    assert_eq!(code, 2, "{text}{err}");
    assert!(text.starts_with("LOSS UNKNOWN: "), "{text}");
    assert!(
        text.contains("the incidents sold sku-1 with no stock level"),
        "{text}"
    );
    assert!(text.contains("¥? (no stock level) lost"), "{text}");
    assert!(!text.contains("¥0"), "{text}");
    assert!(text.contains("lease_expired"), "the overlap stands: {text}");
    let (code, zh, _) = run(dir.path(), &["--format", "text", "--lang", "zh"]);
    assert_eq!(code, 2);
    assert!(zh.starts_with("损失未知：事故中售出了 sku-1"), "{zh}");
    assert!(zh.contains("¥?（没有库存水平）"), "{zh}");
    let (code, md, _) = run(dir.path(), &["--format", "md"]);
    assert_eq!(code, 2);
    assert!(
        md.contains("LOSS UNKNOWN") && md.contains("¥? (no stock level)"),
        "{md}"
    );
    let (code, json, _) = run(dir.path(), &["--format", "json", "--unit-loss", "100"]);
    assert_eq!(code, 2);
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    for loss in [&v["summary"]["loss"], &v["incidents"][0]["loss"]] {
        assert!(loss["amount"].is_null(), "{json}");
        assert!(
            loss["unknown_reason"]
                .as_str()
                .is_some_and(|r| r.contains("no stock level")),
            "{json}"
        );
    }
    assert!(
        v["not_readable"][0]
            .as_str()
            .is_some_and(|p| p.contains("sku-1"))
    );
    // With the stock level: one unit beyond a stock of one, a known loss.
    std::fs::write(dir.path().join("app.jsonl"), &sold).expect("write");
    let (code, json, _) = run(dir.path(), &["--format", "json", "--unit-loss", "100"]);
    assert_eq!(code, 1, "{json}");
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert_eq!(v["summary"]["oversold_units"], 1, "{json}");
    assert_eq!(v["summary"]["loss"]["amount"], 100.0, "{json}");
}
