//! Helpers shared by the integration tests that write MONITOR captures of
//! their own (`mixed_sources.rs`, `redlock.rs`): one capture line in
//! `redis-cli monitor`'s format, the compare-and-delete script lock
//! libraries release with, and writing a file of lines.

use std::path::{Path, PathBuf};

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
