//! Helpers shared by the integration test binaries: the built binary with
//! its load cache in the target's temporary folder, a run's stderr, a
//! library load, the fixtures and samples by name, MONITOR capture lines
//! (and the compare-and-delete script lock libraries release with),
//! replaying one capture file, `report` without pictures, and the causes
//! and finding kinds of a JSON report.

#![allow(dead_code)] // each test crate uses a part of these helpers

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use lockreplay::ingest::monitor::{MonitorOptions, read_monitor};
use lockreplay::ingest::{IngestOptions, Progress, load_paths};
use lockreplay::model::{Dialect, LoadedLog, LogBuilder, SourceInfo};

/// The built `lockreplay` binary, ready for arguments; its load cache in
/// the target's temporary folder, never the user's.
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_lockreplay"));
    c.env(
        "LOCKREPLAY_CACHE_DIR",
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("lockreplay-cache"),
    );
    c
}

/// `rel` under the repository's root.
pub fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// A committed sample log (`sample-logs/NAME`).
pub fn sample(name: &str) -> PathBuf {
    repo("sample-logs").join(name)
}

/// A file of the damaged-files corpus (`tests/fixtures/hostile/damaged/`).
pub fn damaged(name: &str) -> PathBuf {
    repo("tests/fixtures/hostile/damaged").join(name)
}

/// A file of the export fixtures (`tests/fixtures/exports/`).
pub fn export(name: &str) -> PathBuf {
    repo("tests/fixtures/exports").join(name)
}

/// A handed case's file (`tests/fixtures/cases/CASE/FILE`).
pub fn case_file(case: &str, file: &str) -> PathBuf {
    repo("tests/fixtures/cases").join(case).join(file)
}

/// A small application log with one damaged first line, copied into `dir`
/// as `app.jsonl` (a test may write beside it).
pub fn app_log(dir: &Path) -> PathBuf {
    let path = dir.join("app.jsonl");
    std::fs::copy(damaged("first-line-comment.jsonl"), &path).expect("copy");
    path
}

/// `lockreplay analyze ARGS FILES`: its exit code (-1 when killed),
/// stdout and stderr.
pub fn analyze<P: AsRef<Path>>(args: &[&str], files: &[P]) -> (i32, String, String) {
    let out = bin()
        .arg("analyze")
        .args(args)
        .args(files.iter().map(AsRef::as_ref))
        .output()
        .expect("run lockreplay");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A run's standard error as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts that a run was an error (exit 2) whose stderr says `says`.
#[track_caller]
pub fn assert_error_saying(out: &Output, says: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(says), "{err}");
}

/// Loads `paths` with default options through the library, as the commands do.
pub fn load(paths: &[PathBuf]) -> LoadedLog {
    load_paths(paths, &IngestOptions::default(), &Progress::default()).expect("loads")
}

/// Runs `lockreplay report --no-images FLAGS --out OUT INPUT` and returns
/// what it did (exit code, stdout, stderr).
pub fn report_no_images(flags: &[&str], out: &Path, input: &Path) -> Output {
    bin()
        .args(["report", "--no-images"])
        .args(flags)
        .arg("--out")
        .arg(out)
        .arg(input)
        .output()
        .expect("lockreplay runs")
}

/// Replays the capture at `path` alone (default options), named `name` in
/// its source info: the log and what the replay noted about the file.
pub fn replay_capture(path: &Path, name: &str) -> (LoadedLog, SourceInfo) {
    let f = std::fs::File::open(path).expect("open capture");
    let mut b = LogBuilder::new();
    let mut i = SourceInfo::new(name, Dialect::RedisMonitor);
    let file = b.add_source(i.clone());
    read_monitor(
        BufReader::new(f),
        file,
        &MonitorOptions::default(),
        &mut b,
        &mut i,
    )
    .expect("replay");
    (b.finish(), i)
}

/// Compare-and-delete, as redis-py's `Lock` and Redlock clients (pottery,
/// redlock-py, node-redlock) release a lock.
pub const CAD: &str = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/// One MONITOR line at `ms` after `t0_s` (epoch seconds), sent by `client`
/// (`127.0.0.1:50001`, or `lua` for a script's command), its arguments
/// quoted and escaped as redis-cli prints them.
pub fn monitor_line(t0_s: i64, ms: i64, client: &str, args: &[&str]) -> String {
    let quoted: Vec<String> = args
        .iter()
        .map(|a| format!("\"{}\"", a.replace('\\', "\\\\").replace('"', "\\\"")))
        .collect();
    format!(
        "{}.{:06} [0 {client}] {}",
        t0_s + ms / 1000,
        (ms % 1000) * 1000,
        quoted.join(" ")
    )
}

/// Writes `lines` (each ended by a newline) to `dir/name`.
pub fn write_lines(dir: &Path, name: &str, lines: &[String]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    path
}

/// The `cause` of every overlap pair of a JSON report, in its order.
pub fn causes(v: &serde_json::Value) -> Vec<String> {
    v["incidents"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|i| i["overlaps"].as_array().into_iter().flatten())
        .map(|o| o["cause"].as_str().unwrap_or("").to_string())
        .collect()
}

/// The `kind` of every finding of a JSON report, in its order.
pub fn finding_kinds(v: &serde_json::Value) -> Vec<String> {
    v["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| f["kind"].as_str().unwrap_or("").to_string())
        .collect()
}
