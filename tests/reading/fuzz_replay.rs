//! The fuzz smoke run inside `cargo test`: every seed in `fuzz/seeds/<target>/`
//! and every saved crash (`tests/fixtures/hostile/fuzz/<target>-*`) goes
//! through the same code the libFuzzer targets run (`fuzz/harness.rs`), and
//! every hostile file goes through the whole-path targets. No fuzzer is
//! needed, so CI stays short; `fuzz/run.sh` does the long runs.

use std::path::{Path, PathBuf};

#[path = "../../fuzz/harness.rs"]
mod harness;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    v.retain(|p| p.is_file());
    v.sort();
    v
}

#[test]
fn every_seed_and_saved_crash_replays_cleanly() {
    let mut ran = 0;
    // `FUZZ_TARGET=detect` times one target only (for a profiler).
    let only = std::env::var("FUZZ_TARGET").ok();
    for target in harness::TARGETS {
        if only.as_deref().is_some_and(|t| t != target) {
            continue;
        }
        let seeds = files_in(&root().join("fuzz/seeds").join(target));
        assert!(!seeds.is_empty(), "target {target} has seeds");
        let crashes: Vec<PathBuf> = files_in(&root().join("tests/fixtures/hostile/fuzz"))
            .into_iter()
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(&format!("{target}-")))
            })
            .collect();
        for f in seeds.iter().chain(&crashes) {
            let data = std::fs::read(f).expect("read seed");
            harness::run(target, &data);
            ran += 1;
        }
    }
    assert!(ran >= 30, "{ran}");
}

#[test]
fn every_hostile_file_goes_through_the_whole_path() {
    let files = files_in(&root().join("tests/fixtures/hostile"));
    assert!(!files.is_empty());
    for f in files {
        let data = std::fs::read(&f).expect("read hostile file");
        for target in ["detect", "pipeline", "monitor_replay"] {
            harness::run(target, &data);
        }
    }
}

/// Per-call cost of each target on a small input (the fuzzers' exec/s is
/// about one over this, times the sanitizer's slowdown). Run with `cargo test
/// --release --no-default-features --test reading fuzz_replay -- --ignored
/// --nocapture`; `FUZZ_TARGET=csv` times one target, `FUZZ_INPUT=small` skips
/// the seeds. Prints the median and the fastest of 21 batches.
#[test]
#[ignore = "timing run; use --release"]
fn per_call_cost() {
    let small: &[u8] = b"{\"ts\":\"2024-01-01T00:00:01Z\",\"event\":\"acquired\",\"key\":\"lock:a\",\"holder\":\"t2\",\"ttl_ms\":1000}\n{\"ts\":\"2024-01-01T00:00:03Z\",\"event\":\"released\",\"key\":\"lock:a\",\"holder\":\"t2\"}\n";
    let only = std::env::var("FUZZ_TARGET").ok();
    let small_only = std::env::var("FUZZ_INPUT").is_ok_and(|v| v == "small");
    for target in harness::TARGETS {
        if only.as_deref().is_some_and(|t| t != target) {
            continue;
        }
        let seeds = files_in(&root().join("fuzz/seeds").join(target));
        let seed = std::fs::read(&seeds[0]).expect("read seed");
        for (what, data) in [("small", small), ("first seed", &seed[..])] {
            if small_only && what != "small" {
                continue;
            }
            harness::run(target, data);
            let mut batches: Vec<f64> = (0..21)
                .map(|_| {
                    let t = std::time::Instant::now();
                    for _ in 0..20 {
                        harness::run(target, data);
                    }
                    t.elapsed().as_secs_f64() * 1e6 / 20.0
                })
                .collect();
            batches.sort_by(f64::total_cmp);
            eprintln!(
                "{target:<15} {what:<10} ({:>5} B) median {:>8.1} us  fastest {:>8.1} us",
                data.len(),
                batches[10],
                batches[0]
            );
        }
    }
}
