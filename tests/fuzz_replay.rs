//! The fuzz smoke run inside `cargo test`: every seed in `fuzz/seeds/<target>/`
//! and every saved crash (`tests/fixtures/hostile/fuzz/<target>-*`) goes
//! through the same code the libFuzzer targets run (`fuzz/harness.rs`), and
//! every hostile file goes through the whole-path targets. No fuzzer is
//! needed, so CI stays short; `fuzz/run.sh` does the long runs.

use std::path::{Path, PathBuf};

#[path = "../fuzz/harness.rs"]
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
    for target in harness::TARGETS {
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
