//! The simulator knows what really happened; the analysis only reads the
//! log. For several seeds and every locking mode they must agree on oversold
//! units and on the set of overlap pairs. Also checks the committed samples
//! through the built binary.

use std::collections::BTreeSet;
use std::path::Path;

use lockreplay::analysis::{Analysis, Settings, analyze};
use lockreplay::ingest::{IngestOptions, Progress, read_source};
use lockreplay::model::{LoadedLog, LogBuilder};
use lockreplay::sim::{SimArgs, Truth, simulate};

use crate::support::sample;

type Pair = (String, String, String, String);

fn load(bytes: &[u8]) -> LoadedLog {
    let mut builder = LogBuilder::new();
    read_source(
        "sim.jsonl",
        bytes,
        &IngestOptions::default(),
        &mut builder,
        &Progress::default(),
    )
    .expect("reads");
    builder.finish()
}

fn run(args: &SimArgs) -> (Truth, LoadedLog, Analysis) {
    let mut buf = Vec::new();
    let truth = simulate(args, &mut buf).expect("simulates");
    let log = load(&buf);
    let settings = Settings {
        unit_loss: Some(200.0),
        ..Settings::default()
    };
    let analysis = analyze(&log, &settings);
    (truth, log, analysis)
}

fn truth_pairs(t: &Truth) -> BTreeSet<Pair> {
    t.overlaps
        .iter()
        .map(|o| {
            (
                o.key.clone(),
                o.earlier.clone(),
                o.later.clone(),
                o.cause.clone(),
            )
        })
        .collect()
}

fn analysis_pairs(log: &LoadedLog, a: &Analysis) -> BTreeSet<Pair> {
    a.overlaps
        .iter()
        .map(|o| {
            (
                log.strings.get(o.key).to_string(),
                log.strings.get(a.leases[o.earlier].holder).to_string(),
                log.strings.get(a.leases[o.later].holder).to_string(),
                o.cause.as_str().to_string(),
            )
        })
        .collect()
}

fn check(args: &SimArgs) -> Truth {
    let (truth, log, a) = run(args);
    let what = format!("seed {} mode {}", args.seed, truth.mode);
    assert_eq!(log.warnings.total(), 0, "{what}: {:?}", log.warnings.kept());
    assert_eq!(a.leases.len() as u64, truth.holds, "{what}: holds");
    assert_eq!(a.summary.oversold_units, truth.oversold_units, "{what}");
    for p in &truth.products {
        let found = a
            .products
            .iter()
            .find(|ap| ap.product.map(|s| log.strings.get(s)) == Some(p.lock_key.as_str()))
            .unwrap_or_else(|| panic!("{what}: product {} missing", p.lock_key));
        assert_eq!(found.initial_stock, Some(p.initial_stock), "{what}");
        assert_eq!(found.sold, p.sold, "{what}");
        assert_eq!(found.oversold, p.oversold_units, "{what}");
    }
    let expected = truth_pairs(&truth);
    let got = analysis_pairs(&log, &a);
    let missing: Vec<_> = expected.difference(&got).collect();
    let extra: Vec<_> = got.difference(&expected).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{what}: missing {missing:?} extra {extra:?}"
    );
    // Durations agree to the millisecond.
    for o in &a.overlaps {
        let earlier = log.strings.get(a.leases[o.earlier].holder);
        let later = log.strings.get(a.leases[o.later].holder);
        let t = truth
            .overlaps
            .iter()
            .find(|t| t.earlier == earlier && t.later == later)
            .expect("pair in truth");
        assert!(
            (o.duration_ms() - t.duration_ms as f64).abs() < 1e-6,
            "{what}: {earlier} -> {later}"
        );
    }
    truth
}

fn base(seed: u64) -> SimArgs {
    SimArgs {
        buyers: 250,
        products: 2,
        hosts: 3,
        slow_prob: 0.15,
        initial_stock: 20,
        seed,
        ..SimArgs::default()
    }
}

const SEEDS: [u64; 6] = [1, 2, 3, 7, 42, 2026];

#[test]
fn truth_matches_analysis_without_renewal() {
    let mut overlaps = 0;
    for seed in SEEDS {
        let t = check(&base(seed));
        overlaps += t.overlaps.len();
    }
    assert!(overlaps > 0, "the runs should contain incidents");
}

#[test]
fn truth_matches_analysis_with_watchdog() {
    for seed in SEEDS {
        let t = check(&SimArgs {
            watchdog: true,
            ..base(seed)
        });
        assert_eq!(t.oversold_units, 0);
        assert!(t.overlaps.is_empty());
    }
}

#[test]
fn truth_matches_analysis_with_a_slow_watchdog() {
    // A watchdog slower than the TTL loses leases: overlaps again.
    let mut overlaps = 0;
    for seed in SEEDS {
        let t = check(&SimArgs {
            watchdog: true,
            renew_every_ms: Some(2500),
            ..base(seed)
        });
        overlaps += t.overlaps.len();
    }
    assert!(overlaps > 0);
}

#[test]
fn truth_matches_analysis_naive() {
    let mut foreign = 0;
    for seed in SEEDS {
        let t = check(&SimArgs {
            naive: true,
            ..base(seed)
        });
        foreign += t
            .overlaps
            .iter()
            .filter(|o| o.cause == "foreign_release")
            .count();
    }
    assert!(foreign > 0, "naive runs should contain foreign releases");
}

#[test]
fn truth_matches_analysis_over_many_waves() {
    check(&SimArgs {
        buyers: 40,
        events: Some(3000),
        slow_prob: 0.3,
        initial_stock: 5,
        ..base(5)
    });
}

fn analyze_json(file: &Path) -> (i32, serde_json::Value) {
    let out = crate::support::bin()
        .args(["analyze", "--format", "json", "--unit-loss", "200"])
        .arg(file)
        .output()
        .expect("runs");
    let json = serde_json::from_slice(&out.stdout).expect("json on stdout");
    (out.status.code().unwrap_or(-1), json)
}

#[test]
fn seed_incident_sample_oversells_three_units() {
    let (code, json) = analyze_json(&sample("seed-incident.jsonl"));
    assert_eq!(code, 1);
    assert_eq!(json["summary"]["oversold_units"], 3);
    assert_eq!(json["summary"]["loss"]["amount"].as_f64(), Some(600.0));
    assert_eq!(json["summary"]["loss"]["currency"], "CNY");
}

#[test]
fn watchdog_sample_is_clean() {
    let (code, json) = analyze_json(&sample("seed-fixed-watchdog.jsonl"));
    assert_eq!(code, 0);
    assert_eq!(json["summary"]["incidents"], 0);
    assert_eq!(json["summary"]["oversold_units"], 0);
}

#[test]
fn naive_sample_has_foreign_releases() {
    let (code, json) = analyze_json(&sample("naive-setnx-expire-del.jsonl"));
    assert_eq!(code, 1);
    let causes: Vec<&str> = json["incidents"]
        .as_array()
        .expect("incidents")
        .iter()
        .flat_map(|i| i["overlaps"].as_array().into_iter().flatten())
        .filter_map(|o| o["cause"].as_str())
        .collect();
    assert!(causes.contains(&"foreign_release"), "{causes:?}");
}

/// The committed samples are exactly what the documented commands produce.
#[test]
fn samples_regenerate_byte_for_byte() {
    let common = SimArgs {
        products: 1,
        ttl_ms: 2000,
        slow_prob: 0.1,
        slow_ms: 3000,
        initial_stock: 12,
        unit_price: 299.0,
        ..SimArgs::default()
    };
    let cases = [
        (
            "seed-incident.jsonl",
            SimArgs {
                buyers: 500,
                seed: 4,
                ..common.clone()
            },
            3,
        ),
        (
            "seed-fixed-watchdog.jsonl",
            SimArgs {
                buyers: 1000,
                watchdog: true,
                renew_every_ms: Some(1000),
                seed: 4,
                ..common.clone()
            },
            0,
        ),
        (
            "naive-setnx-expire-del.jsonl",
            SimArgs {
                buyers: 300,
                naive: true,
                seed: 3,
                ..common.clone()
            },
            11,
        ),
    ];
    for (name, args, oversold) in cases {
        let mut buf = Vec::new();
        let truth = simulate(&args, &mut buf).expect("simulates");
        let committed = std::fs::read(sample(name)).expect("sample exists");
        assert!(buf == committed, "{name} differs from its README command");
        assert_eq!(truth.oversold_units, oversold, "{name}");
    }
}
