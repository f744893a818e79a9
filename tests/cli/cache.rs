//! The load cache and the result cache beside it through the built binary:
//! a second run prints the report kept by the first, byte-identical; a
//! changed setting recomputes the report from the load entry; a changed
//! input is never answered from a stale entry; a damaged entry or cache
//! directory is ignored with a note, never a panic, and the answer stays
//! right; the directory stays under its cap. `LOCKREPLAY_CACHE_DIR` points every run at
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

/// The load entry files in `cache`.
fn entries(cache: &Path) -> Vec<PathBuf> {
    files_ending(cache, "lrc")
}

/// The report entry files in `cache`.
fn results(cache: &Path) -> Vec<PathBuf> {
    files_ending(cache, "lrr")
}

/// The analysis entry files in `cache`.
fn analyses(cache: &Path) -> Vec<PathBuf> {
    files_ending(cache, "lra")
}

fn files_ending(cache: &Path, ext: &str) -> Vec<PathBuf> {
    let Ok(dir) = std::fs::read_dir(cache) else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
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
    assert!(results(&cache).is_empty(), "--no-cache kept a report");
    let first = analyze(&cache, &log, &[]);
    let err = support::stderr(&first);
    assert!(err.contains("lockreplay: saved to cache ("), "{err}");
    assert!(err.contains("lockreplay: report saved to cache ("), "{err}");
    assert!(
        err.contains("lockreplay: analysis saved to cache ("),
        "{err}"
    );
    assert_eq!(entries(&cache).len(), 1);
    assert_eq!(results(&cache).len(), 1);
    assert_eq!(analyses(&cache).len(), 1);
    let second = analyze(&cache, &log, &[]);
    let err = support::stderr(&second);
    assert!(err.contains("report from cache ("), "{err}");
    assert!(!err.contains("loaded from cache ("), "{err}");
    same_answer(&first, &fresh);
    same_answer(&second, &fresh);
    // Other formats read the same load entry and the same analysis.
    let text = support::bin()
        .env("LOCKREPLAY_CACHE_DIR", &cache)
        .env("LOCKREPLAY_CACHE_VERBOSE", "1")
        .args(["analyze", "--format", "text"])
        .arg(&log)
        .output()
        .expect("runs");
    let err = support::stderr(&text);
    assert!(err.contains("loaded from cache ("), "{err}");
    assert!(err.contains("analysis from cache ("), "{err}");
    assert!(err.contains("report saved to cache ("), "{err}");
}

#[test]
fn settings_that_change_the_report_recompute_it_from_the_load_entry() {
    let tmp = tempfile::tempdir().expect("tmp");
    let cache = tmp.path().join("cache");
    let log = big_log(tmp.path());
    analyze(&cache, &log, &[]);
    for flags in [
        &["--unit-loss", "250"][..],
        &["--currency", "USD", "--unit-loss", "3"],
        &["--near-miss-ratio", "0.5"],
        &["--log-lag-ms", "40"],
        &["--host-offset", "web-01=30"],
    ] {
        let out = analyze(&cache, &log, flags);
        let err = support::stderr(&out);
        assert!(err.contains("loaded from cache ("), "{flags:?}: {err}");
        assert!(!err.contains("report from cache"), "{flags:?}: {err}");
        assert!(
            err.contains("analysis saved to cache ("),
            "{flags:?}: {err}"
        );
        let fresh = analyze(&cache, &log, &[flags, &["--no-cache"]].concat());
        same_answer(&out, &fresh);
        // The same flags again: the report kept for them.
        let again = analyze(&cache, &log, flags);
        assert!(support::stderr(&again).contains("report from cache ("));
        same_answer(&again, &fresh);
    }
    // A TTL override changes the reading: a new load entry, a new report.
    let ttl = analyze(&cache, &log, &["--ttl-ms", "500"]);
    let err = support::stderr(&ttl);
    assert!(!err.contains("from cache ("), "{err}");
    same_answer(
        &ttl,
        &analyze(&cache, &log, &["--ttl-ms", "500", "--no-cache"]),
    );
    // The language and the format are in the key too.
    let text = |lang: &str| {
        support::bin()
            .env("LOCKREPLAY_CACHE_DIR", &cache)
            .env("LOCKREPLAY_CACHE_VERBOSE", "1")
            .args(["analyze", "--format", "text", "--lang", lang])
            .arg(&log)
            .output()
            .expect("runs")
    };
    let (en, zh) = (text("en"), text("zh"));
    assert!(support::stderr(&zh).contains("report saved to cache ("));
    assert_ne!(en.stdout, zh.stdout);
    let zh_again = text("zh");
    assert!(support::stderr(&zh_again).contains("report from cache ("));
    same_answer(&zh_again, &zh);
    // Settings of the analysis never make another load entry.
    assert_eq!(entries(&cache).len(), 2);
    assert_eq!(results(&cache).len(), 9);
    assert_eq!(analyses(&cache).len(), 7);
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

/// Stores a load entry, a report entry and an analysis entry, damages
/// each with `damage`, and checks that the next run ignores each with a
/// note on stderr (`reason` in it), does not panic and answers as a fresh
/// load does.
fn damaged_entry_is_ignored(damage: impl Fn(&Path), reason: &str) {
    let tmp = tempfile::tempdir().expect("tmp");
    let cache = tmp.path().join("cache");
    let log = big_log(tmp.path());
    analyze(&cache, &log, &[]);
    let entry = entries(&cache).pop().expect("an entry");
    let report = results(&cache).pop().expect("a report entry");
    let analysis = analyses(&cache).pop().expect("an analysis entry");
    for path in [&entry, &report, &analysis] {
        damage(path);
    }
    let out = analyze(&cache, &log, &[]);
    let err = support::stderr(&out);
    assert!(!err.contains("panicked"), "{err}");
    assert!(!err.contains("from cache ("), "{err}");
    for (what, path) in [
        ("lockreplay: cache entry", &entry),
        ("report cache entry", &report),
        ("analysis cache entry", &analysis),
    ] {
        let note = format!("{what} {} ignored: ", path.display());
        let line = err.lines().find(|l| l.contains(&note));
        assert!(
            line.is_some_and(|l| l.contains(reason)),
            "{note}{reason}: {err}"
        );
    }
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
        // The report kept beside it would answer first: gone, so that the
        // load entry is read.
        remove_results(&cache);
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
        !stderr(&out).contains("loaded from cache") && !stderr(&out).contains("report from cache"),
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

/// Removes the result entries (`*.lrr`) of `cache`.
fn remove_results(cache: &Path) {
    for e in std::fs::read_dir(cache).expect("cache made").flatten() {
        if e.path().extension().is_some_and(|x| x == "lrr") {
            std::fs::remove_file(e.path()).expect("remove");
        }
    }
}

/// The result cache under attack: entries forged with a sound header and
/// checksum over a report no printer writes (a terminal escape, bytes that
/// are not UTF-8), an exit code that disagrees with its problems, or bytes
/// that are no entry at all; a truncated and a corrupt one. Each is ignored
/// with a note, never printed, and the report is the fresh run's.
#[test]
fn result_entries_forged_truncated_or_corrupt_are_never_printed() {
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
        .find(|p| p.extension().is_some_and(|e| e == "lrr"))
        .expect("a result entry");
    let key = entry
        .file_stem()
        .and_then(|s| u128::from_str_radix(&s.to_string_lossy(), 16).ok())
        .expect("the entry is named by its key");
    let forge = |report: &[u8], exit_code: u8, problems: Vec<String>| {
        let mut payload = report.to_vec();
        payload.extend_from_slice(&bitcode::encode(
            &lockreplay::pipeline::results::StoredOutcome {
                exit_code,
                problems,
            },
        ));
        payload.extend_from_slice(&(report.len() as u64).to_le_bytes());
        let mut b = lockreplay::ingest::cache::header(key, &payload);
        b.extend_from_slice(&payload);
        b
    };
    let good = std::fs::read(&entry).expect("entry");
    let mut corrupt = good.clone();
    let at = corrupt.len() / 2;
    corrupt[at] ^= 0x10;
    let attacks: [(&str, Vec<u8>, &str); 6] = [
        (
            "escape",
            forge(b"{}\x1b]0;pwned\x07\n", 0, vec![]),
            "no printer writes",
        ),
        ("not utf-8", forge(b"{\xff}\n", 0, vec![]), "not UTF-8"),
        ("exit code", forge(b"{}\n", 2, vec![]), "disagrees"),
        (
            "no entry",
            forge(b"", 0, vec![])[..48].to_vec(),
            "truncated",
        ),
        ("truncated", good[..good.len() - 100].to_vec(), "truncated"),
        ("corrupt", corrupt, "bad checksum"),
    ];
    for (name, bytes, reason) in attacks {
        std::fs::write(&entry, bytes).expect("damage");
        let out = analyze(&cache, &log, &[]);
        let err = stderr(&out);
        assert!(
            !err.contains("panicked") && !err.contains("report from cache"),
            "{name}: {err}"
        );
        assert!(
            err.contains("report cache entry") && err.contains(reason),
            "{name}: {err}"
        );
        assert_eq!(out.stdout, fresh.stdout, "{name}");
        assert_eq!(out.status.code(), fresh.status.code(), "{name}");
    }
    // The analysis kept beside it, forged: a sound header over bytes that
    // are no analysis. Read once the report entry is gone; never used.
    let analysis = std::fs::read_dir(&cache)
        .expect("cache made")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "lra"))
        .expect("an analysis entry");
    let akey = analysis
        .file_stem()
        .and_then(|s| u128::from_str_radix(&s.to_string_lossy(), 16).ok())
        .expect("named by its key");
    let payload = vec![0xa5u8; 4096];
    let mut forged = lockreplay::ingest::cache::header(akey, &payload);
    forged.extend_from_slice(&payload);
    std::fs::write(&analysis, forged).expect("forge");
    remove_results(&cache);
    let out = analyze(&cache, &log, &[]);
    let err = stderr(&out);
    assert!(
        err.contains("analysis cache entry") && err.contains("does not decode"),
        "{err}"
    );
    assert!(!err.contains("analysis from cache"), "{err}");
    assert_eq!(out.stdout, fresh.stdout);
}
