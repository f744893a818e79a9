//! The load cache measured: the first open of a
//! simulated log (the files read) against the second (the cache entry
//! read), and two serialisation crates (bitcode, the one used, and
//! postcard) on the same stored columns, with and without zstd.
//!
//! A plain timing loop, not criterion: a first open of 1 M events takes a
//! second or more and criterion's ten samples per case would take minutes
//! on the shared two cores; the median of a few runs says enough.
//! `LOCKREPLAY_BENCH_EVENTS` sets the log's size (default 1 000 000).
//! Run: `cargo bench --bench load_cache`.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use lockreplay::ingest::{CacheConfig, IngestOptions, Progress, load_paths_cached};
use lockreplay::model::stored;

/// Median wall time of `runs` calls of `f`, ms.
fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn main() {
    let events: u64 = std::env::var("LOCKREPLAY_BENCH_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let tmp = tempfile::tempdir().expect("tmp");
    let log_path = tmp.path().join(format!("sim-{events}.jsonl"));
    let sim = lockreplay::sim::SimArgs {
        events: Some(events),
        ..lockreplay::sim::SimArgs::default()
    };
    let out = std::io::BufWriter::new(std::fs::File::create(&log_path).expect("create"));
    lockreplay::sim::simulate(&sim, out).expect("simulate");
    let bytes = std::fs::metadata(&log_path).expect("meta").len();
    let paths = vec![log_path.clone()];
    let opts = IngestOptions::default();
    let cache = CacheConfig {
        enabled: true,
        dir: Some(tmp.path().join("cache")),
        ..CacheConfig::from_env(true)
    };
    let load = |cfg: &CacheConfig| {
        load_paths_cached(&paths, &opts, &Progress::default(), cfg).expect("loads")
    };
    // Warm the page cache, then time.
    let (log, _) = load(&CacheConfig::off());
    let n = log.events.len();
    println!(
        "log: {n} events, {} MB, {} strings",
        bytes >> 20,
        log.strings.len()
    );
    // The logs are kept until the end, not freed inside the timing: the
    // commands never free theirs (`pipeline::print_report`).
    let mut kept = Vec::new();
    let first = median_ms(3, || {
        kept.push(black_box(load(&CacheConfig::off())));
    });
    let (_, stored_report) = load(&cache);
    let entry: PathBuf = stored_report.stored.expect("an entry written");
    let entry_bytes = std::fs::metadata(&entry).expect("entry").len();
    let second = median_ms(5, || {
        let (l, r) = load(&cache);
        assert!(r.used.is_some());
        kept.push(black_box((l, r)));
    });
    drop(kept);
    println!(
        "first open {first:.0} ms; second open {second:.1} ms; ratio {:.1}x; entry {entry_bytes} bytes ({:.1} bytes/event)",
        first / second,
        entry_bytes as f64 / n as f64
    );
    crates(&log, n);
}

/// bitcode against postcard on the stored columns, each also through zstd
/// level 1: write ms, read ms, bytes.
fn crates(log: &lockreplay::model::LoadedLog, n: usize) {
    let columns = stored::bench_columns(log);
    let write_full = median_ms(5, || {
        black_box(stored::encode(log));
    });
    let full = stored::encode(log);
    let read_full = median_ms(5, || {
        black_box(stored::decode(&full).expect("decodes"));
    });
    println!(
        "whole entry (bitcode, decoded and checked): write {write_full:.1} ms, read {read_full:.1} ms, {} bytes ({:.1}/event)",
        full.len(),
        full.len() as f64 / n as f64
    );
    type Columns = (Vec<stored::EventColumns>, Vec<u8>, String, Vec<u64>);
    let bitcode_w = median_ms(5, || {
        black_box(bitcode::encode(&columns));
    });
    let b = bitcode::encode(&columns);
    let bitcode_r = median_ms(5, || {
        black_box(bitcode::decode::<Columns>(&b).expect("decodes"));
    });
    let postcard_w = median_ms(5, || {
        black_box(postcard::to_allocvec(&columns).expect("encodes"));
    });
    let p = postcard::to_allocvec(&columns).expect("encodes");
    let postcard_r = median_ms(5, || {
        black_box(postcard::from_bytes::<Columns>(&p).expect("decodes"));
    });
    println!("columns only: crate | write ms | read ms | bytes");
    println!("bitcode | {bitcode_w:.1} | {bitcode_r:.1} | {}", b.len());
    println!("postcard | {postcard_w:.1} | {postcard_r:.1} | {}", p.len());
    for (name, raw) in [("bitcode", &b), ("postcard", &p)] {
        let z = zstd::bulk::compress(raw, 1).expect("zstd");
        let unz = median_ms(5, || {
            black_box(zstd::bulk::decompress(&z, raw.len()).expect("unzstd"));
        });
        println!(
            "{name} + zstd 1 | + decompress {unz:.1} ms | {} bytes",
            z.len()
        );
    }
}
