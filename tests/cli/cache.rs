//! The load cache through the built binary: a second
//! run reads the entry and prints byte-identical reports; a changed input
//! is never answered from a stale entry; a damaged entry or cache directory
//! is ignored with a note, never a panic, and the answer stays right; the
//! directory stays under its cap. `LOCKREPLAY_CACHE_DIR` points every run at
//! a temporary directory; `LOCKREPLAY_CACHE_VERBOSE` makes the binary say
//! on stderr when it read or wrote an entry.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, SystemTime};

use crate::support::{self, bin, sample, stderr};

/// The simulator's sample with the watchdog (1.9 MB, above the cache's
/// 1 MiB floor), copied into `dir` so that it can be changed.
fn big_log(dir: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs/seed-fixed-watchdog.jsonl");
    let path = dir.join("sale.jsonl");
    std::fs::copy(src, &path).expect("copy sample");
    path
}

/// `lockreplay analyze --format json FLAGS LOG` with the cache in `cache`.
fn analyze(cache: &Path, log: &Path, flags: &[&str]) -> Output {
    support::bin()
        .env("LOCKREPLAY_CACHE_DIR", cache)
        .env("LOCKREPLAY_CACHE_VERBOSE", "1")
        .args(["analyze", "--format", "json"])
        .args(flags)
        .arg(log)
        .output()
        .expect("lockreplay runs")
}

/// The entry files in `cache`.
fn entries(cache: &Path) -> Vec<PathBuf> {
    let Ok(dir) = std::fs::read_dir(cache) else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "lrc"))
        .collect()
}

/// Asserts that `out` printed the same report as `fresh` (a `--no-cache`
/// run) and exited alike.
fn same_answer(out: &Output, fresh: &Output) {
    assert_eq!(out.status.code(), fresh.status.code());
    assert!(!out.stdout.is_empty());
    assert!(
        out.stdout == fresh.stdout,
        "the report differs from a fresh load; stderr: {}",
        support::stderr(out)
    );
}

#[test]
fn second_run_reads_the_entry_and_prints_the_same_report() {
    let tmp = tempfile::tempdir().expect("tmp");
    let cache = tmp.path().join("cache");
    let log = big_log(tmp.path());
    let fresh = analyze(&cache, &log, &["--no-cache"]);
    assert!(entries(&cache).is_empty(), "--no-cache wrote an entry");
    let first = analyze(&cache, &log, &[]);
    assert!(support::stderr(&first).contains("saved to cache ("));
    assert_eq!(entries(&cache).len(), 1);
    let second = analyze(&cache, &log, &[]);
    let err = support::stderr(&second);
    assert!(err.contains("loaded from cache ("), "{err}");
    same_answer(&first, &fresh);
    same_answer(&second, &fresh);
    // Other commands read the same entry.
    let text = support::bin()
        .env("LOCKREPLAY_CACHE_DIR", &cache)
        .env("LOCKREPLAY_CACHE_VERBOSE", "1")
        .args(["analyze", "--format", "text"])
        .arg(&log)
        .output()
        .expect("runs");
    assert!(support::stderr(&text).contains("loaded from cache ("));
}

#[test]
fn options_that_change_the_reading_are_in_the_key() {
    let tmp = tempfile::tempdir().expect("tmp");
    let cache = tmp.path().join("cache");
    let log = big_log(tmp.path());
    analyze(&cache, &log, &[]);
    let other_tz = analyze(&cache, &log, &["--tz", "+03:00"]);
    assert!(!support::stderr(&other_tz).contains("loaded from cache"));
    assert_eq!(entries(&cache).len(), 2);
}

/// Runs once to store an entry, changes the log with `change`, and checks
/// that the next run does not read the old entry and answers as a fresh
/// load does.
fn changed_input_is_read_again(change: impl FnOnce(&Path)) {
    let tmp = tempfile::tempdir().expect("tmp");
    let cache = tmp.path().join("cache");
    let log = big_log(tmp.path());
    let before = analyze(&cache, &log, &[]);
    assert_eq!(entries(&cache).len(), 1);
    change(&log);
    let after = analyze(&cache, &log, &[]);
    let err = support::stderr(&after);
    assert!(!err.contains("loaded from cache"), "{err}");
    let fresh = analyze(&cache, &log, &["--no-cache"]);
    same_answer(&after, &fresh);
    let _ = before;
}

#[test]
fn an_appended_log_is_read_again() {
    changed_input_is_read_again(|log| {
        let text = std::fs::read_to_string(log).expect("read");
        let last = text.lines().last().expect("a line").replace("16:1", "16:5");
        let mut f = std::fs::File::options()
            .append(true)
            .open(log)
            .expect("open");
        std::io::Write::write_all(&mut f, format!("{last}\n").as_bytes()).expect("append");
    });
}

#[test]
fn a_truncated_log_is_read_again() {
    changed_input_is_read_again(|log| {
        let text = std::fs::read_to_string(log).expect("read");
        let half = text[..text.len() / 2].rfind('\n').expect("a line end") + 1;
        std::fs::write(log, &text[..half]).expect("truncate");
    });
}

#[test]
fn same_size_other_bytes_with_the_mtime_put_back_is_read_again() {
    changed_input_is_read_again(|log| {
        let mtime = std::fs::metadata(log)
            .and_then(|m| m.modified())
            .expect("mtime");
        let mut bytes = std::fs::read(log).expect("read");
        // In the middle: outside the 64 KiB hashed at each end.
        let mid = bytes.len() / 2;
        let pat = b"\"user_id\": \"u";
        let at = mid
            + pat.len()
            + bytes[mid..]
                .windows(pat.len())
                .position(|w| w == pat)
                .expect("a user id");
        bytes[at] = if bytes[at] == b'9' { b'8' } else { b'9' };
        std::fs::write(log, &bytes).expect("rewrite");
        let f = std::fs::File::options()
            .append(true)
            .open(log)
            .expect("open");
        f.set_modified(mtime).expect("mtime back");
        assert_eq!(
            std::fs::metadata(log).and_then(|m| m.modified()).ok(),
            Some(mtime)
        );
    });
}

/// Stores an entry, damages it with `damage`, and checks that the next run
/// ignores it with a note on stderr (`reason` in it), does not panic and
/// answers as a fresh load does.
fn damaged_entry_is_ignored(damage: impl FnOnce(&Path), reason: &str) {
    let tmp = tempfile::tempdir().expect("tmp");
    let cache = tmp.path().join("cache");
    let log = big_log(tmp.path());
    analyze(&cache, &log, &[]);
    let entry = entries(&cache).pop().expect("an entry");
    damage(&entry);
    let out = analyze(&cache, &log, &[]);
    let err = support::stderr(&out);
    assert!(!err.contains("panicked"), "{err}");
    assert!(!err.contains("loaded from cache"), "{err}");
    assert!(err.contains("ignored: ") && err.contains(reason), "{err}");
    same_answer(&out, &analyze(&cache, &log, &["--no-cache"]));
}

#[test]
fn a_corrupt_entry_is_ignored() {
    damaged_entry_is_ignored(
        |entry| {
            let mut b = std::fs::read(entry).expect("read");
            let n = b.len();
            for i in (100..n).step_by(997) {
                b[i] ^= 0xff;
            }
            std::fs::write(entry, b).expect("write");
        },
        "bad checksum",
    );
}

#[test]
fn a_truncated_entry_is_ignored() {
    damaged_entry_is_ignored(
        |entry| {
            let b = std::fs::read(entry).expect("read");
            std::fs::write(entry, &b[..b.len() / 3]).expect("write");
        },
        "truncated",
    );
}

#[test]
fn an_entry_of_another_format_version_is_ignored() {
    damaged_entry_is_ignored(
        |entry| {
            let mut b = std::fs::read(entry).expect("read");
            b[8..12].copy_from_slice(&999u32.to_le_bytes());
            std::fs::write(entry, b).expect("write");
        },
        "format version 999",
    );
}

#[test]
fn a_folder_in_place_of_the_entry_is_ignored() {
    damaged_entry_is_ignored(
        |entry| {
            std::fs::remove_file(entry).expect("remove");
            std::fs::create_dir(entry).expect("mkdir");
        },
        "not a regular file",
    );
}

#[cfg(unix)]
#[test]
fn an_unwritable_cache_folder_is_a_note_not_an_error() {
    let tmp = tempfile::tempdir().expect("tmp");
    // A file where the cache folder should be: it cannot be made.
    let cache = tmp.path().join("cache");
    std::fs::write(&cache, "not a folder").expect("write");
    let log = big_log(tmp.path());
    let out = analyze(&cache, &log, &[]);
    let err = support::stderr(&out);
    assert!(
        err.contains("load not cached: cannot make the cache directory"),
        "{err}"
    );
    same_answer(&out, &analyze(&cache, &log, &["--no-cache"]));
}

#[test]
fn eviction_keeps_the_folder_under_its_cap() {
    let tmp = tempfile::tempdir().expect("tmp");
    let cache = tmp.path().join("cache");
    std::fs::create_dir(&cache).expect("mkdir");
    // Old entries of 600 KiB each (the cache's magic first: eviction
    // removes only files the cache wrote); the cap is 1 MiB.
    let old = SystemTime::now() - Duration::from_secs(3600);
    for i in 0..4 {
        let p = cache.join(format!("{i:032x}.lrc"));
        let mut bytes = b"LRCACHE\0".to_vec();
        bytes.resize(600 << 10, 0);
        std::fs::write(&p, bytes).expect("write");
        let f = std::fs::File::options()
            .append(true)
            .open(&p)
            .expect("open");
        f.set_modified(old).expect("mtime");
    }
    let log = big_log(tmp.path());
    let out = support::bin()
        .env("LOCKREPLAY_CACHE_DIR", &cache)
        .env("LOCKREPLAY_CACHE_MAX_MB", "1")
        .env("LOCKREPLAY_CACHE_VERBOSE", "1")
        .args(["analyze", "--format", "json"])
        .arg(&log)
        .output()
        .expect("runs");
    let err = support::stderr(&out);
    assert!(err.contains("saved to cache"), "{err}");
    let total: u64 = entries(&cache)
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum();
    assert!(total <= 1 << 20, "{total} bytes left");
    let left = entries(&cache);
    assert!(
        left.len() <= 2,
        "at least three old entries removed: {left:?}"
    );
    assert!(
        left.iter()
            .any(|p| std::fs::metadata(p).is_ok_and(|m| m.len() != 600 << 10)),
        "the new entry is kept: {left:?}"
    );
}

/// The load cache under attack: a stale entry (the input
/// rewritten to the same size), a truncated one, a corrupt one, and one
/// forged with a sound header and checksum over bytes that are no log.
/// Each is ignored with a note, never trusted, never a panic, and the
/// report is the fresh load's. Standard input is never cached.
#[test]
fn cache_entries_stale_truncated_corrupt_or_forged_are_never_trusted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    let log = dir.path().join("sale.jsonl");
    std::fs::copy(sample("seed-fixed-watchdog.jsonl"), &log).expect("copy");
    let fresh = analyze(&cache, &log, &["--no-cache"]);
    let first = analyze(&cache, &log, &[]);
    assert_eq!(first.stdout, fresh.stdout);
    let entry = std::fs::read_dir(&cache)
        .expect("cache made")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "lrc"))
        .expect("an entry");
    let key = entry
        .file_stem()
        .and_then(|s| u128::from_str_radix(&s.to_string_lossy(), 16).ok())
        .expect("the entry is named by its key");
    let good = std::fs::read(&entry).expect("entry");
    let forged = {
        let payload = vec![0xa5u8; 4096];
        let mut b = lockreplay::ingest::cache::header(key, &payload);
        b.extend_from_slice(&payload);
        b
    };
    let mut corrupt = good.clone();
    let at = corrupt.len() / 2;
    corrupt[at] ^= 0x10;
    let attacks: [(&str, Vec<u8>, &str); 3] = [
        ("truncated", good[..good.len() - 100].to_vec(), "truncated"),
        ("corrupt", corrupt, "bad checksum"),
        ("forged", forged, "does not decode"),
    ];
    for (name, bytes, reason) in attacks {
        std::fs::write(&entry, bytes).expect("damage");
        let out = analyze(&cache, &log, &[]);
        let err = stderr(&out);
        assert!(
            !err.contains("panicked") && !err.contains("loaded from cache"),
            "{name}: {err}"
        );
        assert!(
            err.contains("ignored: ") && err.contains(reason),
            "{name}: {err}"
        );
        assert_eq!(out.stdout, fresh.stdout, "{name}");
    }
    // Stale: the same size, other bytes (its last line's time moved).
    let text = std::fs::read_to_string(&log).expect("log");
    let changed = text.replacen("16:10:4", "16:10:5", 1);
    assert_eq!(changed.len(), text.len());
    std::fs::write(&log, &changed).expect("rewrite");
    let out = analyze(&cache, &log, &[]);
    assert!(
        !stderr(&out).contains("loaded from cache"),
        "{}",
        stderr(&out)
    );
    assert_eq!(out.stdout, analyze(&cache, &log, &["--no-cache"]).stdout);
    // Standard input is read once and never cached.
    let piped = bin()
        .env("LOCKREPLAY_CACHE_DIR", &cache)
        .env("LOCKREPLAY_CACHE_VERBOSE", "1")
        .args(["analyze", "--format", "json", "/dev/stdin"])
        .stdin(std::process::Stdio::from(
            std::fs::File::open(&log).expect("open"),
        ))
        .output()
        .expect("runs");
    assert!(!stderr(&piped).contains("cache ("), "{}", stderr(&piped));
}

/// With a small cap, the cache's eviction never deletes a log named
/// `app.lrc` kept in the cache folder (it looks like the oldest entry).
#[test]
fn cache_eviction_never_deletes_an_input_in_the_cache_folder() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    std::fs::create_dir(&cache).expect("mkdir");
    let text = std::fs::read_to_string(sample("seed-incident.jsonl")).expect("sample");
    let input = cache.join("app.lrc");
    std::fs::write(&input, text.repeat(1 + (1 << 20) / text.len())).expect("write");
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(2 * 86_400);
    std::fs::File::options()
        .append(true)
        .open(&input)
        .and_then(|f| f.set_modified(old))
        .expect("mtime");
    let out = bin()
        .args(["analyze"])
        .arg(&input)
        .env("LOCKREPLAY_CACHE_DIR", &cache)
        .env("LOCKREPLAY_CACHE_MAX_MB", "1")
        .output()
        .expect("runs");
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    assert!(input.is_file(), "the input was deleted");
}
