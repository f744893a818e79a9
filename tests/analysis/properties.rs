//! Properties of the analysis over simulated logs: the order of the input
//! lines and how they are split into files do not matter, and a healthy hold
//! adds no incident.

use std::collections::BTreeSet;

use proptest::prelude::*;

use lockreplay::analysis::{Analysis, Settings, analyze};
use lockreplay::ingest::{IngestOptions, Progress, read_source};
use lockreplay::model::{LoadedLog, LogBuilder};
use lockreplay::report::{ReportInput, to_json};
use lockreplay::sim::{SimArgs, simulate};

fn settings() -> Settings {
    Settings {
        unit_loss: Some(200.0),
        ..Settings::default()
    }
}

fn sim_lines(seed: u64, mode: u8) -> Vec<String> {
    let args = SimArgs {
        buyers: 60,
        products: 2,
        hosts: 3,
        slow_prob: 0.3,
        initial_stock: 6,
        watchdog: mode == 1,
        renew_every_ms: (mode == 1 && seed.is_multiple_of(2)).then_some(2500),
        naive: mode == 2,
        seed,
        ..SimArgs::default()
    };
    let mut buf = Vec::new();
    simulate(&args, &mut buf).expect("simulates");
    String::from_utf8(buf)
        .expect("utf8")
        .lines()
        .map(str::to_string)
        .collect()
}

/// Loads each `(name, lines)` as its own source.
fn load(files: &[(String, Vec<String>)]) -> LoadedLog {
    let mut builder = LogBuilder::new();
    for (name, lines) in files {
        let mut text = lines.join("\n");
        text.push('\n');
        read_source(
            name,
            text.as_bytes(),
            &IngestOptions::default(),
            &mut builder,
            &Progress::default(),
        )
        .expect("reads");
    }
    builder.finish()
}

/// The analysis JSON without what names input lines (`file:line` of
/// orders, per-file accounting): those follow the input layout by design.
fn json_without_lines(log: &LoadedLog, a: &Analysis) -> serde_json::Value {
    let s = settings();
    let json = to_json(&ReportInput {
        log,
        settings: &s,
        analysis: a,
    });
    let mut v: serde_json::Value = serde_json::from_str(&json).expect("json");
    if let Some(obj) = v.as_object_mut() {
        obj.remove("sources");
    }
    if let Some(incidents) = v["incidents"].as_array_mut() {
        for inc in incidents {
            if let Some(orders) = inc["orders"].as_array_mut() {
                for o in orders {
                    if let Some(o) = o.as_object_mut() {
                        o.remove("source");
                    }
                }
            }
        }
    }
    v
}

type Pair = (String, String, String, String, i64);

fn pairs(log: &LoadedLog, a: &Analysis) -> BTreeSet<Pair> {
    a.overlaps
        .iter()
        .map(|o| {
            (
                log.strings.get(o.key).to_string(),
                log.strings.get(a.leases[o.earlier].holder).to_string(),
                log.strings.get(a.leases[o.later].holder).to_string(),
                o.cause.as_str().to_string(),
                o.end_ns - o.start_ns,
            )
        })
        .collect()
}

/// A Fisher–Yates shuffle driven by a splitmix64 seed.
fn shuffle<T>(v: &mut [T], mut seed: u64) {
    let mut next = || {
        seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for i in (1..v.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
}

/// Shuffles `lines` but keeps lines with the same `ts` in their original
/// relative order: at millisecond resolution the log itself is the only
/// witness of which of two same-millisecond lines came first (two holders'
/// `stock_deducted` in one ms decide the final stock), so the analysis
/// rightly breaks such ties by line order.
fn shuffle_keeping_ties(lines: &[String], perm: u64) -> Vec<String> {
    let ts_of = |l: &String| -> String {
        serde_json::from_str::<serde_json::Value>(l)
            .ok()
            .and_then(|v| v["ts"].as_str().map(str::to_string))
            .unwrap_or_default()
    };
    let mut order: Vec<usize> = (0..lines.len()).collect();
    shuffle(&mut order, perm);
    // Slots each timestamp occupies after the shuffle, refilled in the
    // original order of that timestamp's lines.
    let mut by_ts: std::collections::HashMap<String, std::collections::VecDeque<usize>> =
        std::collections::HashMap::new();
    for (i, l) in lines.iter().enumerate() {
        by_ts.entry(ts_of(l)).or_default().push_back(i);
    }
    order
        .iter()
        .map(|&i| {
            let q = by_ts.get_mut(&ts_of(&lines[i])).expect("group");
            lines[q.pop_front().expect("slot")].clone()
        })
        .collect()
}

fn ts(ms: i64) -> String {
    let t = chrono::DateTime::from_timestamp_millis(ms + 8 * 3_600_000).expect("time");
    format!("{}+08:00", t.naive_utc().format("%Y-%m-%dT%H:%M:%S%.3f"))
}

fn healthy_hold(key: &str, token: &str, acquire_ms: i64, release_ms: i64) -> Vec<String> {
    let line = |ms: i64, event: &str| {
        format!(
            "{{\"ts\": \"{}\", \"level\": \"INFO\", \"event\": \"{event}\", \"host\": \"web-09\", \"instance\": \"daigou-order-api-9\", \"logger\": \"daigou.flashsale.OrderService\", \"pid\": 999, \"thread\": \"order-worker-99\", \"lock_key\": \"{key}\", \"owner\": \"{token}\", \"ttl_ms\": 2000, \"request_id\": \"9-000000000000\"}}",
            ts(ms)
        )
    };
    vec![line(acquire_ms, "acquired"), line(release_ms, "released")]
}

/// Per-product accounting with product names instead of symbols (the final
/// stock is left out: same-millisecond writes in different files may come
/// in either order).
fn products(log: &LoadedLog, a: &Analysis) -> Vec<String> {
    a.products
        .iter()
        .map(|p| {
            format!(
                "{} initial {:?} sold {} sales {} oversold {}",
                log.strings.get_or_empty(p.product),
                p.initial_stock,
                p.sold,
                p.sales,
                p.oversold
            )
        })
        .collect()
}

fn summary_of(log: &LoadedLog, a: &Analysis) -> (usize, i64, BTreeSet<Pair>) {
    (a.incidents.len(), a.summary.oversold_units, pairs(log, a))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn shuffling_lines_changes_nothing_but_tie_order(seed in 1u64..10_000, mode in 0u8..3, perm in any::<u64>()) {
        let lines = sim_lines(seed, mode);
        let log = load(&[("sim.jsonl".to_string(), lines.clone())]);
        let a = analyze(&log, &settings());
        let shuffled = shuffle_keeping_ties(&lines, perm);
        let log2 = load(&[("sim.jsonl".to_string(), shuffled)]);
        let a2 = analyze(&log2, &settings());
        prop_assert_eq!(json_without_lines(&log, &a), json_without_lines(&log2, &a2));
    }

    #[test]
    fn splitting_into_files_changes_nothing(
        seed in 1u64..10_000,
        mode in 0u8..3,
        parts in 2usize..5,
        assign in any::<u64>(),
    ) {
        let lines = sim_lines(seed, mode);
        let log = load(&[("sim.jsonl".to_string(), lines.clone())]);
        let a = analyze(&log, &settings());
        let mut files: Vec<(String, Vec<String>)> =
            (0..parts).map(|i| (format!("part-{i}.jsonl"), Vec::new())).collect();
        // Lines logged in the same millisecond stay in one file, in their
        // order: across files no tool can tell which of two same-millisecond
        // lines (say a DEL and the next SETNX) came first.
        let mut order: Vec<usize> = (0..lines.len()).collect();
        shuffle(&mut order, assign);
        let mut part_of_ts: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for (n, line) in lines.into_iter().enumerate() {
            let ts = serde_json::from_str::<serde_json::Value>(&line)
                .ok()
                .and_then(|v| v["ts"].as_str().map(str::to_string))
                .unwrap_or_default();
            let part = *part_of_ts.entry(ts).or_insert(order[n] % parts);
            files[part].1.push(line);
        }
        files.retain(|(_, l)| !l.is_empty());
        let log2 = load(&files);
        let a2 = analyze(&log2, &settings());
        prop_assert_eq!(summary_of(&log, &a), summary_of(&log2, &a2));
        prop_assert_eq!(products(&log, &a), products(&log2, &a2));
    }

    #[test]
    fn a_healthy_hold_on_a_fresh_key_adds_no_incident(
        seed in 1u64..10_000,
        mode in 0u8..3,
        at in 0usize..1000,
        hold_ms in 1i64..1500,
    ) {
        let lines = sim_lines(seed, mode);
        let log = load(&[("sim.jsonl".to_string(), lines.clone())]);
        let a = analyze(&log, &settings());
        let first = log.events.first().map_or(0, |e| e.at_ns / 1_000_000);
        let last = log.events.last().map_or(0, |e| e.at_ns / 1_000_000);
        let start = first + (last - first) * at as i64 / 1000;
        let mut more = lines;
        more.extend(healthy_hold("product:9999:lock", "healthy-token", start, start + hold_ms));
        let log2 = load(&[("sim.jsonl".to_string(), more)]);
        let a2 = analyze(&log2, &settings());
        prop_assert_eq!(summary_of(&log, &a), summary_of(&log2, &a2));
        prop_assert_eq!(a2.leases.len(), a.leases.len() + 1);
    }

    #[test]
    fn a_short_hold_in_a_quiet_gap_adds_no_incident(
        seed in 1u64..10_000,
        mode in 0u8..3,
        pick in any::<prop::sample::Index>(),
    ) {
        let lines = sim_lines(seed, mode);
        let log = load(&[("sim.jsonl".to_string(), lines.clone())]);
        let a = analyze(&log, &settings());
        // Quiet gaps: on one key, every earlier lock and window has ended
        // and the next acquire is at least 4 ms later.
        let mut gaps = Vec::new();
        let mut busy_until: Option<(lockreplay::model::Sym, i64)> = None;
        for l in &a.leases {
            if let Some((key, until)) = busy_until
                && key == l.key
                && l.acquired_ns - until >= 4_000_000
            {
                gaps.push((l.key, until, l.acquired_ns));
            }
            let end = l.window_end_ns.max(l.lock_end_ns);
            busy_until = match busy_until {
                Some((key, until)) if key == l.key => Some((key, until.max(end))),
                _ => Some((l.key, end)),
            };
        }
        prop_assume!(!gaps.is_empty());
        let (key, from, to) = gaps[pick.index(gaps.len())];
        let from_ms = from / 1_000_000 + 1;
        let to_ms = (to / 1_000_000 - 1).max(from_ms + 1);
        let mut more = lines;
        more.extend(healthy_hold(log.strings.get(key), "quiet-gap-token", from_ms, to_ms));
        let log2 = load(&[("sim.jsonl".to_string(), more)]);
        let a2 = analyze(&log2, &settings());
        prop_assert_eq!(summary_of(&log, &a), summary_of(&log2, &a2));
    }
}
