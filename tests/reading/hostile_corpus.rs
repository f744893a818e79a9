//! The hostile corpus (`tests/fixtures/hostile/`, written by
//! `fuzz/make_hostile.py`): files people really get from their log service,
//! cut, mis-encoded or odd. For each file: the exact warnings (line and
//! reason), the events that still load, and the accounting identity
//! `lines_read = events_loaded + lines_skipped + lines_warned`.

use std::path::{Path, PathBuf};

use lockreplay::analysis::{Settings, analyze};
use lockreplay::ingest::{IngestOptions, Progress, load_paths};
use lockreplay::model::{Dialect, LoadedLog};

fn hostile(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hostile")
        .join(name)
}

fn load(name: &str) -> LoadedLog {
    load_paths(
        &[hostile(name)],
        &IngestOptions::default(),
        &Progress::default(),
    )
    .expect("loads")
}

/// (events, [(line, reason)], (read, loaded, skipped, warned)).
type Outcome = (usize, Vec<(u64, String)>, [u64; 4]);

fn outcome(log: &LoadedLog) -> Outcome {
    let s = &log.sources[0];
    let warnings = log
        .warnings
        .kept()
        .iter()
        .map(|w| (w.line, w.reason.to_string()))
        .collect();
    (
        log.events.len(),
        warnings,
        [
            s.lines_read,
            s.events_loaded,
            s.lines_skipped,
            s.lines_warned,
        ],
    )
}

/// The reason each line of a file of no known format gets.
const UNRECOGNISED: &str = "unrecognised format (not JSON, CSV, logfmt, text lines with timestamps or a redis-cli monitor capture)";

/// `binary.jsonl`: each of its 29 lines (as its bytes decode) is a warning.
const UNRECOGNISED_29: [(u64, &str); 29] = {
    let mut w = [(0, UNRECOGNISED); 29];
    let mut i = 0;
    while i < 29 {
        w[i].0 = i as u64 + 1;
        i += 1;
    }
    w
};

/// (file, dialect, events loaded, [lines read, loaded, skipped, warned],
/// exact warnings as (line, reason)). Line 0 is a whole-file warning.
type Row = (
    &'static str,
    Dialect,
    usize,
    [u64; 4],
    &'static [(u64, &'static str)],
);

#[rustfmt::skip]
const CORPUS: &[Row] = &[
    ("acquire-twice.jsonl", Dialect::JsonLines, 3, [3, 3, 0, 0], &[]),
    // Times before the epoch are out of range (two times 585 years apart
    // would overflow a difference): every line is warned.
    ("before-1970.jsonl", Dialect::JsonLines, 0, [4, 0, 0, 4], &[(1, "unreadable time \"1969-07-20T20:17:40Z\" in field ts (time out of range)"), (2, "unreadable time \"1969-07-20T20:17:41Z\" in field ts (time out of range)"), (3, "unreadable time \"1600-01-01T00:00:00Z\" in field ts (time out of range)"), (4, "unreadable time \"-5000\" in field ts (time out of range)")]),
    ("binary-after-good.jsonl", Dialect::JsonLines, 5, [14, 5, 0, 9], &[(5, "invalid JSON: expected value at column 1"), (6, "invalid JSON: expected value at column 1"), (7, "invalid JSON: expected value at column 1"), (8, "invalid JSON: expected value at column 1"), (9, "invalid JSON: expected value at column 1"), (10, "invalid JSON: expected value at column 1"), (11, "invalid JSON: expected value at column 1"), (12, "invalid JSON: trailing characters at column 2"), (13, "invalid JSON: expected value at column 1")]),
    ("binary.jsonl", Dialect::Unknown, 0, [29, 0, 0, 29], &UNRECOGNISED_29),
    ("bom-utf8.jsonl", Dialect::JsonLines, 4, [4, 4, 0, 0], &[]),
    ("crlf.jsonl", Dialect::JsonLines, 4, [4, 4, 0, 0], &[]),
    // Its columns are named by the first row; the time and verbs are read
    // by their values, no key or holder: still an error. Both verbs are
    // read, since a message's own words name its event (the phrase list
    // alone has only `released`).
    ("csv-no-header.csv", Dialect::Text, 0, [3, 0, 2, 1], &[(2, "no time field")]),
    ("csv-ragged.csv", Dialect::Csv, 2, [3, 2, 0, 1], &[(4, "unbalanced quote: a quoted cell does not close on its line; the row is skipped and the lines after it are read as rows")]),
    ("csv-repeated-header.csv", Dialect::Csv, 2, [3, 2, 0, 1], &[(3, "repeated header row (files joined together?)")]),
    ("duplicated-lines.jsonl", Dialect::JsonLines, 4, [4, 4, 0, 0], &[]),
    ("empty.jsonl", Dialect::Unknown, 0, [0, 0, 0, 0], &[(0, "the file has no records (empty or whitespace only)")]),
    ("es-missing-source.json", Dialect::Elasticsearch, 2, [4, 2, 0, 2], &[(2, "record without _source"), (3, "record without _source")]),
    ("gzip-cut.jsonl.gz", Dialect::JsonLines, 42, [43, 42, 0, 1], &[(0, "damaged gzip stream (incomplete deflate stream); reading what was recovered"), (43, "invalid JSON: EOF while parsing a string at column 64")]),
    ("gzip-garbage-after.jsonl.gz", Dialect::JsonLines, 4, [4, 4, 0, 0], &[(0, "damaged gzip stream (9 byte(s) after the last gzip member, 1 non-blank line(s), are not compressed data and were not read); reading what was recovered")]),
    ("invalid-utf8-mid-line.jsonl", Dialect::JsonLines, 3, [3, 3, 0, 0], &[]),
    ("json-not-object.jsonl", Dialect::JsonLines, 2, [6, 2, 0, 4], &[(2, "not a JSON object"), (3, "not a JSON object"), (4, "not a JSON object"), (5, "not a JSON object")]),
    ("logfmt-broken.logfmt", Dialect::Logfmt, 2, [3, 2, 0, 1], &[(2, "not a key=value line")]),
    ("loki-bad-values.json", Dialect::Loki, 2, [5, 2, 0, 3], &[(2, "unreadable time \"not-a-time\" in field timestamp (not a recognised time format)"), (3, "no time in field timestamp"), (4, "no time in field timestamp")]),
    ("lone-cr.jsonl", Dialect::JsonLines, 4, [4, 4, 0, 0], &[]),
    ("lone-cr.logfmt", Dialect::Logfmt, 2, [2, 2, 0, 0], &[]),
    ("many-unknown-fields.jsonl", Dialect::JsonLines, 2, [2, 2, 0, 0], &[]),
    ("mixed-zones.jsonl", Dialect::JsonLines, 4, [4, 4, 0, 0], &[]),
    ("monitor-cut.monitor", Dialect::RedisMonitor, 4, [6, 4, 1, 1], &[(6, "argument 2 is not closed: line truncated or bad quoting")]),
    ("monitor-garbage.monitor", Dialect::RedisMonitor, 4, [6, 4, 0, 2], &[(3, "bad timestamp \"not\" (expected <epoch seconds>.<microseconds>)"), (4, "bad \\x escape in argument 2")]),
    ("nan-inf-1e400.jsonl", Dialect::JsonLines, 4, [9, 4, 0, 5], &[(2, "invalid JSON: expected value at column 91"), (3, "invalid JSON: expected value at column 91"), (4, "invalid JSON: number out of range at column 95"), (7, "invalid JSON: number out of range at column 11"), (8, "unreadable time \"NaN\" in field ts (not a recognised time format)")]),
    ("nested-100k-array.json", Dialect::JsonArray, 2, [3, 2, 0, 1], &[(2, "invalid JSON: recursion limit exceeded at column 128")]),
    ("nested-100k.jsonl", Dialect::JsonLines, 2, [3, 2, 0, 1], &[(2, "invalid JSON: recursion limit exceeded at column 164")]),
    ("nul-bytes.jsonl", Dialect::JsonLines, 1, [3, 1, 0, 2], &[(2, "invalid JSON: expected value at column 1"), (3, "invalid JSON: control character (\\u0000-\\u001F) found while parsing a string at column 79")]),
    ("numbers-as-strings.jsonl", Dialect::JsonLines, 4, [4, 4, 0, 0], &[]),
    ("offset-25h.jsonl", Dialect::JsonLines, 2, [5, 2, 0, 3], &[(2, "unreadable time \"2024-01-01T00:00:00.500+25:00\" in field ts (not a recognised time format)"), (3, "unreadable time \"2024-01-01T00:00:00.600+24:00\" in field ts (not a recognised time format)"), (4, "unreadable time \"2024-01-01T00:00:00.700-99:99\" in field ts (not a recognised time format)")]),
    ("one-space.jsonl", Dialect::Unknown, 0, [0, 0, 0, 0], &[(0, "the file has no records (empty or whitespace only)")]),
    ("only-blank-lines.jsonl", Dialect::Unknown, 0, [0, 0, 0, 0], &[(0, "the file has no records (empty or whitespace only)")]),
    ("only-bom.jsonl", Dialect::Unknown, 0, [0, 0, 0, 0], &[(0, "the file has no records (empty or whitespace only)")]),
    ("out-of-order.jsonl", Dialect::JsonLines, 4, [4, 4, 0, 0], &[]),
    ("release-before-acquire.jsonl", Dialect::JsonLines, 3, [3, 3, 0, 0], &[]),
    ("truncated-array.json", Dialect::JsonArray, 3, [4, 3, 0, 1], &[(5, "truncated JSON: element starting at line 5 is incomplete")]),
    ("ttl-absurd.jsonl", Dialect::JsonLines, 5, [5, 5, 0, 0], &[]),
    ("unknown-event.jsonl", Dialect::JsonLines, 3, [4, 3, 1, 0], &[]),
    ("utf16be.csv", Dialect::Csv, 2, [2, 2, 0, 0], &[]),
    ("utf16le-no-bom.jsonl", Dialect::JsonLines, 0, [2, 0, 0, 2], &[(1, "invalid JSON: key must be a string at column 2"), (2, "invalid JSON: expected value at column 1")]),
    ("utf16le.jsonl", Dialect::JsonLines, 4, [4, 4, 0, 0], &[]),
    ("year-9999.jsonl", Dialect::JsonLines, 3, [4, 3, 0, 1], &[(2, "unreadable time \"9999-12-31T23:59:59.999Z\" in field ts (time out of range)")]),
];

#[test]
fn every_hostile_file_gives_exactly_its_warnings_and_keeps_its_good_lines() {
    let mut on_disk: Vec<String> = std::fs::read_dir(hostile(""))
        .expect("dir")
        .filter_map(Result::ok)
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = CORPUS.iter().map(|r| r.0.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed, "every hostile file has a row");
    assert!(CORPUS.len() >= 30);
    for &(name, dialect, events, acc, warnings) in CORPUS {
        let log = load(name);
        let (ev, got, got_acc) = outcome(&log);
        let want: Vec<(u64, String)> = warnings.iter().map(|(l, r)| (*l, r.to_string())).collect();
        assert_eq!(log.sources[0].dialect, dialect, "{name}: dialect");
        assert_eq!(got, want, "{name}: warnings");
        assert_eq!(ev, events, "{name}: events loaded");
        assert_eq!(got_acc, acc, "{name}: [read, loaded, skipped, warned]");
        assert_eq!(
            acc[0],
            acc[1] + acc[2] + acc[3],
            "{name}: accounting identity"
        );
        for w in log.warnings.kept() {
            assert!(w.file.ends_with(name), "{name}: warning names its file");
        }
        // Analysis and every printer survive it.
        let a = analyze(&log, &Settings::default());
        assert_eq!(a.summary.events, ev);
        assert_eq!(a.summary.warnings, log.warnings.total());
    }
}

#[test]
fn encodings_and_notes_are_reported() {
    let enc = |n: &str| load(n).sources[0].encoding.clone();
    assert_eq!(enc("utf16le.jsonl"), "UTF-16LE");
    assert_eq!(enc("utf16be.csv"), "UTF-16BE");
    assert_eq!(enc("bom-utf8.jsonl"), "UTF-8");
    let log = load("invalid-utf8-mid-line.jsonl");
    assert_eq!(
        log.sources[0]
            .notes
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        vec!["1 line(s) had bytes invalid in UTF-8"]
    );
    let log = load("mixed-zones.jsonl");
    assert!(
        log.sources[0].notes.iter().any(|n| n
            .to_string()
            .contains("times without an offset were read as UTC")),
        "{:?}",
        log.sources[0].notes
    );
    // The four zones name the same four seconds.
    let secs: Vec<i64> = log.events.iter().map(|e| e.at_ns / 1_000_000_000).collect();
    assert_eq!(
        secs,
        vec![1_704_067_200, 1_704_067_201, 1_704_067_202, 1_704_067_203]
    );
    assert_eq!(log.display_offset_s, 8 * 3600, "first explicit offset wins");
    assert!(load("gzip-cut.jsonl.gz").sources[0].gzip);
}

#[test]
fn order_and_duplicates_do_not_change_the_leases() {
    let leases = |n: &str| {
        let log = load(n);
        let a = analyze(&log, &Settings::default());
        a.leases
            .iter()
            .map(|l| (log.strings.get(l.holder).to_string(), l.acquired_ns))
            .collect::<Vec<_>>()
    };
    let ordered = leases("crlf.jsonl");
    assert_eq!(ordered.len(), 2);
    assert_eq!(leases("out-of-order.jsonl"), ordered);
    assert_eq!(leases("lone-cr.jsonl"), ordered);
    assert_eq!(leases("utf16le.jsonl"), ordered);
    // Absurd TTLs: 0, -1, 10^18 and 2^70 are "no TTL", 1000 ms stays.
    let log = load("ttl-absurd.jsonl");
    let ttls: Vec<Option<i64>> = log.events.iter().map(|e| e.ttl_ms()).collect();
    assert_eq!(ttls, vec![None, None, None, None, Some(1000)]);
}

/// Peak resident memory (VmHWM, bytes) of a child running the binary.
fn run_measuring_rss(args: &[&std::ffi::OsStr]) -> (std::process::ExitStatus, u64) {
    let mut child = crate::support::bin()
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    loop {
        if let Ok(s) = std::fs::read_to_string(&status_path)
            && let Some(kb) = s
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            peak = peak.max(kb * 1024);
        }
        if let Some(st) = child.try_wait().expect("wait") {
            return (st, peak);
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

#[test]
fn a_single_50_mb_line_is_one_warning_and_memory_stays_within_8x() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("huge-line.jsonl");
    let good = "{\"ts\":\"2024-01-01T00:00:00Z\",\"event\":\"acquired\",\"key\":\"lock:a\",\"holder\":\"w1\"}\n";
    let mut text = String::with_capacity(51 << 20);
    text.push_str(good);
    text.push_str("{\"ts\":\"2024-01-01T00:00:01Z\",\"event\":\"released\",\"blob\":\"");
    text.extend(std::iter::repeat_n('x', 50 << 20));
    text.push('\n'); // cut: the string never closes
    text.push_str(&good.replace("acquired", "renewed"));
    std::fs::write(&path, &text).expect("write");
    let size = text.len() as u64;
    drop(text);

    let log = load_paths(
        std::slice::from_ref(&path),
        &IngestOptions::default(),
        &Progress::default(),
    )
    .expect("loads");
    let (ev, w, acc) = outcome(&log);
    assert_eq!(ev, 2);
    assert_eq!(acc, [3, 2, 0, 1]);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].0, 2);
    assert!(
        w[0].1
            .starts_with("invalid JSON: EOF while parsing a string"),
        "{w:?}"
    );
    drop(log);

    let (st, peak) = run_measuring_rss(&[
        "analyze".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        path.as_os_str(),
    ]);
    assert!(st.code().is_some_and(|c| c == 0 || c == 1), "{st:?}");
    assert!(peak < 8 * size, "peak RSS {peak} B for a {size} B line");
    eprintln!(
        "50 MB line: peak RSS {} MB ({:.2}x the file)",
        peak >> 20,
        peak as f64 / size as f64
    );
}

#[test]
fn warnings_beyond_the_cap_are_counted_not_kept() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("bad.jsonl");
    let mut text = String::from(
        "{\"ts\":\"2024-01-01T00:00:00Z\",\"event\":\"acquired\",\"key\":\"lock:a\",\"holder\":\"w1\"}\n",
    );
    for _ in 0..5000 {
        text.push_str("{not json\n");
    }
    std::fs::write(&path, text).expect("write");
    let log = load_paths(&[path], &IngestOptions::default(), &Progress::default()).expect("loads");
    assert_eq!(log.warnings.total(), 5000);
    assert_eq!(
        log.warnings.kept().len() as u64,
        lockreplay::model::Warnings::KEEP_PER_KIND
    );
    assert_eq!(log.warnings.dropped(), 5000 - 1000);
    let s = &log.sources[0];
    assert_eq!(
        [
            s.lines_read,
            s.events_loaded,
            s.lines_skipped,
            s.lines_warned
        ],
        [5001, 1, 0, 5000]
    );
}

fn repeated_line_file(dir: &Path, bytes: u64) -> PathBuf {
    use std::io::Write;
    let path = dir.join("repeated.jsonl");
    let line = b"{\"ts\":\"2024-01-01T00:00:00Z\",\"event\":\"renewed\",\"key\":\"lock:a\",\"holder\":\"w1\",\"ttl_ms\":30000}\n";
    let mut block = Vec::with_capacity(1 << 20);
    while block.len() + line.len() <= 1 << 20 {
        block.extend_from_slice(line);
    }
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    let mut written = 0u64;
    while written < bytes {
        f.write_all(&block).expect("write");
        written += block.len() as u64;
    }
    f.flush().expect("flush");
    path
}

#[test]
fn a_big_load_shows_progress_and_can_be_cancelled() {
    use std::sync::Arc;
    use std::sync::atomic::Ordering;
    let dir = tempfile::tempdir().expect("tmp");
    let path = repeated_line_file(dir.path(), 24 << 20);
    let total = std::fs::metadata(&path).expect("meta").len();
    let progress = Arc::new(Progress::default());
    let watcher = {
        let progress = progress.clone();
        std::thread::spawn(move || {
            let mut seen = Vec::new();
            for _ in 0..200_000 {
                let read = progress.bytes_read.load(Ordering::Relaxed);
                if read > 0 && read < total {
                    seen.push(read);
                    progress.cancel.store(true, Ordering::Relaxed);
                    break;
                }
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
            seen
        })
    };
    let res = load_paths(&[path], &IngestOptions::default(), &progress);
    let seen = watcher.join().expect("watcher");
    assert_eq!(progress.bytes_total.load(Ordering::Relaxed), total);
    assert_eq!(seen.len(), 1, "progress was seen between 0 and the total");
    assert!(
        matches!(res, Err(lockreplay::ingest::IngestError::Cancelled)),
        "cancelled mid-load: {:?}",
        res.map(|l| l.events.len())
    );
}

#[test]
#[ignore = "writes and reads a 1 GB file (run with --ignored --release)"]
fn a_1_gb_file_of_one_repeated_line_loads_within_bounded_memory() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = repeated_line_file(dir.path(), 1 << 30);
    let size = std::fs::metadata(&path).expect("meta").len();
    let t = std::time::Instant::now();
    let (st, peak) = run_measuring_rss(&[
        "analyze".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        path.as_os_str(),
    ]);
    eprintln!(
        "1 GB repeated line: {:?}, peak RSS {} MB ({:.2}x the file), {:.1} s",
        st.code(),
        peak >> 20,
        peak as f64 / size as f64,
        t.elapsed().as_secs_f64()
    );
    assert!(st.code().is_some_and(|c| c == 0 || c == 1), "{st:?}");
    assert!(peak < 4 * size, "peak RSS {peak} B for {size} B");
}

#[test]
fn inputs_are_opened_read_only_and_left_untouched() {
    use std::hash::{DefaultHasher, Hash, Hasher};
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tmp");
    let mut inputs = Vec::new();
    for &(name, ..) in CORPUS {
        let to = dir.path().join(name);
        std::fs::copy(hostile(name), &to).expect("copy");
        std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o444)).expect("chmod");
        inputs.push(to);
    }
    let fingerprint = |p: &Path| {
        let bytes = std::fs::read(p).expect("read");
        let mut h = DefaultHasher::new();
        bytes.hash(&mut h);
        let meta = std::fs::metadata(p).expect("meta");
        (
            h.finish(),
            bytes.len(),
            meta.modified().ok(),
            meta.permissions().mode(),
        )
    };
    let before: Vec<_> = inputs.iter().map(|p| fingerprint(p)).collect();
    let out = dir.path().join("report");
    let run = |args: &[&std::ffi::OsStr]| {
        let st = crate::support::bin()
            .args(args)
            .args(&inputs)
            .output()
            .expect("run");
        // Exit 2 is expected too: some hostile files give no event at all,
        // and a file nothing was read from is an error, never an all-clear.
        assert!(
            st.status.code().is_some_and(|c| (0..=2).contains(&c)),
            "{}",
            String::from_utf8_lossy(&st.stderr)
        );
    };
    run(&["analyze".as_ref(), "--format".as_ref(), "json".as_ref()]);
    run(&["analyze".as_ref(), "--format".as_ref(), "md".as_ref()]);
    run(&[
        "report".as_ref(),
        "--no-images".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let after: Vec<_> = inputs.iter().map(|p| fingerprint(p)).collect();
    assert_eq!(before, after, "inputs unchanged (bytes, mtime, mode)");
    assert!(out.join("report.md").is_file());
}

#[test]
#[ignore = "prints what every hostile file gives, to write the table"]
fn dump() {
    let mut names: Vec<String> = std::fs::read_dir(hostile(""))
        .expect("dir")
        .filter_map(Result::ok)
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for n in names {
        let log = load(&n);
        let (ev, w, acc) = outcome(&log);
        let s = &log.sources[0];
        println!(
            "== {n}: {:?} {} events={ev} acc={acc:?} notes={:?}",
            s.dialect, s.encoding, s.notes
        );
        for (l, r) in w {
            println!("   {l}: {r}");
        }
        let a = analyze(&log, &Settings::default());
        println!(
            "   leases={} overlaps={} findings={:?}",
            a.leases.len(),
            a.overlaps.len(),
            a.findings
                .iter()
                .map(|f| f.kind.as_str())
                .collect::<Vec<_>>()
        );
    }
}
