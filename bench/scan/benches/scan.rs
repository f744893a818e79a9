//! Does a well-kept SIMD JSON crate pick the wanted fields out of a log line
//! faster than lockreplay's own scanner (`src/ingest/readers/fast.rs`)?
//!
//! Each contender reads every line of `SCAN_LINES` (a JSON Lines file; see
//! `run.sh`) and finds the values of the same wanted field names, borrowing
//! them where the crate allows, and counts them (so the work cannot be
//! optimised away, and the counts are compared before timing):
//! - `lockreplay`: `scan_line`, one pass with memchr for strings;
//! - `sonic_rs_object_iter`: sonic-rs's lazy `to_object_iter`, which skips
//!   unwanted values with its SIMD skipper;
//! - `sonic_rs_get_many`: sonic-rs's `get_many` with a pointer tree of the
//!   wanted names;
//! - `simd_json_tape`: simd-json's tape (a copy of the line first, as
//!   simd-json parses in place).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use lockreplay::ingest::scan_bench::scan_fields;
use simd_json::prelude::*;

/// The names the detection chooses on the simulator's and `gen_jsonl.py`'s
/// lines, plus those the stock and order roles look for.
const NAMES: [&str; 16] = [
    "ts",
    "event",
    "lock_key",
    "owner",
    "holder",
    "ttl_ms",
    "thread",
    "host",
    "instance",
    "pid",
    "stock",
    "stock_key",
    "quantity",
    "order_id",
    "request_id",
    "deleted",
];

fn lines() -> Vec<String> {
    let path = std::env::var("SCAN_LINES").expect("SCAN_LINES=path of a JSON Lines file");
    let text = std::fs::read_to_string(&path).expect("readable UTF-8 file");
    text.lines().map(str::to_owned).collect()
}

fn ours(lines: &[String]) -> usize {
    lines
        .iter()
        .map(|l| scan_fields(l, &NAMES).unwrap_or(0))
        .sum()
}

fn sonic_iter(lines: &[String]) -> usize {
    let mut n = 0;
    for l in lines {
        for item in sonic_rs::to_object_iter(l.as_str()) {
            let Ok((k, v)) = item else { break };
            if NAMES.contains(&&*k) && !v.as_raw_str().is_empty() && v.as_raw_str() != "null" {
                n += 1;
            }
        }
    }
    n
}

fn sonic_many(lines: &[String]) -> usize {
    let mut tree = sonic_rs::PointerTree::new();
    for name in NAMES {
        tree.add_path([name]);
    }
    let mut n = 0;
    for l in lines {
        if let Ok(values) = sonic_rs::get_many(l.as_str(), &tree) {
            n += values
                .iter()
                .filter(|v| v.as_ref().is_some_and(|v| v.as_raw_str() != "null"))
                .count();
        }
    }
    n
}

fn simd_tape(lines: &[String]) -> usize {
    let mut n = 0;
    let mut buf = Vec::new();
    for l in lines {
        buf.clear();
        buf.extend_from_slice(l.as_bytes());
        let Ok(tape) = simd_json::to_tape(&mut buf) else {
            continue;
        };
        if let Some(obj) = tape.as_value().as_object() {
            n += obj
                .iter()
                .filter(|(k, v)| NAMES.contains(k) && !v.is_null())
                .count();
        }
    }
    n
}

fn bench(c: &mut Criterion) {
    let lines = lines();
    let bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
    let expected = ours(&lines);
    for (name, got) in [
        ("sonic_rs_object_iter", sonic_iter(&lines)),
        ("sonic_rs_get_many", sonic_many(&lines)),
        ("simd_json_tape", simd_tape(&lines)),
    ] {
        // A contender that finds other values is not doing the same work.
        assert_eq!(got, expected, "{name} found a different number of values");
    }
    let mut g = c.benchmark_group("scan");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.sample_size(10);
    g.bench_function("lockreplay", |b| b.iter(|| ours(black_box(&lines))));
    g.bench_function("sonic_rs_object_iter", |b| {
        b.iter(|| sonic_iter(black_box(&lines)))
    });
    g.bench_function("sonic_rs_get_many", |b| {
        b.iter(|| sonic_many(black_box(&lines)))
    });
    g.bench_function("simd_json_tape", |b| {
        b.iter(|| simd_tape(black_box(&lines)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
