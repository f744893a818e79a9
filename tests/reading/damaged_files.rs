//! Damaged and odd files: our own corpus in `tests/fixtures/hostile/damaged/`
//! (small files; big ones are made here at run time). A damaged line costs
//! that line only, an encoding stays what it is, a gzip bomb and an
//! absurdly long name are bounded, records repeated across files are named,
//! and every warning names the line where it is in the file.

use lockreplay::model::Dialect;

use crate::support::{assert_error_saying, bin, damaged, load, sample, stderr};

/// (file, dialect, events, [read, loaded, skipped, warned], warned lines).
type Row = (&'static str, Dialect, usize, [u64; 4], &'static [u64]);

#[rustfmt::skip]
const CORPUS: &[Row] = &[
    // Lost lines: each damage costs its own line a warning, never the rest.
    ("first-line-comment.jsonl", Dialect::JsonLines, 4, [5, 4, 0, 1], &[1]),
    ("first-line-cut.jsonl", Dialect::JsonLines, 3, [4, 3, 0, 1], &[1]),
    ("logfmt-first-line-comment.logfmt", Dialect::Logfmt, 4, [5, 4, 0, 1], &[1]),
    ("monitor-password-warning.monitor", Dialect::RedisMonitor, 2, [6, 2, 3, 1], &[1]),
    ("json-arrays-joined.json", Dialect::JsonArray, 4, [4, 4, 0, 0], &[]),
    ("json-array-then-lines.json", Dialect::JsonArray, 4, [4, 4, 0, 0], &[]),
    ("csv-unbalanced-quote.csv", Dialect::Csv, 6, [7, 6, 0, 1], &[4]),
    // Its damaged line is the file's sixth (CRLF line ends; the csv
    // crate's own line number says 5).
    ("gb18030-one-bad-sequence.csv", Dialect::Csv, 4, [5, 4, 0, 1], &[6]),
    ("lone-cr-in-lf.jsonl", Dialect::JsonLines, 4, [4, 4, 0, 0], &[]),
    ("logfmt-unterminated-quote.logfmt", Dialect::Logfmt, 4, [4, 4, 0, 0], &[]),
];

#[test]
fn one_damaged_line_costs_that_line_only() {
    let mut failures = Vec::new();
    for &(file, dialect, events, counts, warned) in CORPUS {
        let log = load(&[damaged(file)]);
        let s = &log.sources[0];
        let got_counts = [
            s.lines_read,
            s.events_loaded,
            s.lines_skipped,
            s.lines_warned,
        ];
        let got_lines: Vec<u64> = log.warnings.kept().iter().map(|w| w.line).collect();
        assert_eq!(
            s.lines_read,
            s.events_loaded + s.lines_skipped + s.lines_warned,
            "{file}: accounting"
        );
        if (
            s.dialect,
            log.events.len(),
            got_counts,
            got_lines.as_slice(),
        ) != (dialect, events, counts, warned)
        {
            failures.push(format!(
                "{file}: got {:?} {} {got_counts:?} {got_lines:?}, want {dialect:?} {events} {counts:?} {warned:?}",
                s.dialect,
                log.events.len()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_unterminated_quote_keeps_the_event_of_its_line() {
    let log = load(&[damaged("logfmt-unterminated-quote.logfmt")]);
    let first = log
        .events
        .iter()
        .find(|e| e.source.line == 1)
        .expect("line 1 loads");
    assert!(first.kind.is_lock(), "{:?}", first.kind);
    assert_eq!(log.strings.get(first.holder.expect("holder")), "w1");
}

#[test]
fn a_gb18030_file_with_one_bad_sequence_stays_gb18030() {
    let log = load(&[damaged("gb18030-one-bad-sequence.csv")]);
    assert_eq!(log.sources[0].encoding, "GB18030");
    let holders: Vec<&str> = log
        .events
        .iter()
        .filter_map(|e| e.holder.map(|h| log.strings.get(h)))
        .collect();
    assert!(holders.contains(&"乙"), "{holders:?}");
}

#[test]
fn a_gzip_bomb_is_refused_with_its_numbers() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("bomb.jsonl.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&path).expect("create"),
        flate2::Compression::best(),
    );
    let zeros = vec![b' '; 1 << 20];
    for _ in 0..100 {
        enc.write_all(&zeros).expect("write");
    }
    enc.finish().expect("finish");
    let out = bin().args(["analyze"]).arg(&path).output().expect("runs");
    assert_error_saying(&out, "decompression bomb");
}

#[test]
fn a_huge_name_is_cut_with_a_warning_and_stays_distinct() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("long-holders.jsonl");
    let long = "x".repeat(100_000);
    let lines: Vec<String> = (0..3)
        .map(|i| {
            format!(
                "{{\"ts\":\"2024-01-01T00:00:0{i}Z\",\"event\":\"acquired\",\"key\":\"lock:a\",\"holder\":\"{long}{i}\",\"ttl_ms\":30000}}"
            )
        })
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    let log = load(&[path]);
    assert_eq!(log.events.len(), 3, "every line still loads");
    let holders: std::collections::BTreeSet<&str> = log
        .events
        .iter()
        .map(|e| log.strings.get(e.holder.expect("holder")))
        .collect();
    assert_eq!(
        holders.len(),
        3,
        "same start, different ends: still three holders"
    );
    assert!(holders.iter().all(|h| h.len() <= 1024), "cut to 1024 bytes");
    let warned: Vec<u64> = log
        .warnings
        .kept()
        .iter()
        .filter(|w| {
            w.reason
                .to_string()
                .contains("the holder field is 100001 bytes long")
        })
        .map(|w| w.line)
        .collect();
    assert_eq!(warned, [1, 2, 3]);
}

#[test]
fn records_repeated_across_files_are_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = damaged("lone-cr-in-lf.jsonl");
    let text = std::fs::read_to_string(damaged("first-line-comment.jsonl")).expect("read");
    // An overlapping export: the last 2 records of the first file, then
    // one of its own.
    let mut lines: Vec<&str> = text.lines().skip(3).collect();
    lines.push(r#"{"ts":"2024-01-01T00:00:09.000Z","event":"acquired","key":"lock:a","holder":"w9","ttl_ms":30000}"#);
    let b = dir.path().join("page-2.jsonl");
    std::fs::write(&b, lines.join("\n") + "\n").expect("write");
    let log = load(&[a.clone(), b.clone()]);
    assert_eq!(log.events.len(), 4 + 3, "both files are kept");
    let said: Vec<String> = log
        .warnings
        .kept()
        .iter()
        .filter(|w| w.line == 0 && w.file == b.display().to_string())
        .map(|w| w.reason.to_string())
        .collect();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].starts_with("2 record(s) repeat records of "),
        "{said:?}"
    );
    // Files that share no record say nothing.
    let log = load(&[a, damaged("injection.jsonl")]);
    assert!(
        !log.warnings
            .kept()
            .iter()
            .any(|w| w.reason.to_string().contains("repeat records")),
        "{:?}",
        log.warnings.kept()
    );
}

/// A file read as unknown counts its lines as every format does: blank
/// lines are not read lines (docs/ingest.md), never "skipped" as "not
/// lock or business events".
#[test]
fn blank_lines_of_an_unknown_file_are_not_counted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("unknown.log");
    std::fs::write(&path, "garbage one\n\n  \n\nmore garbage\n\n").expect("write");
    let log = load(&[path]);
    let s = &log.sources[0];
    assert_eq!(
        [
            s.lines_read,
            s.events_loaded,
            s.lines_skipped,
            s.lines_warned
        ],
        [2, 0, 0, 2]
    );
    let lines: Vec<u64> = log.warnings.kept().iter().map(|w| w.line).collect();
    assert_eq!(lines, [1, 5]);
}

/// A CSV's warnings name the line in the file after blank lines (line 8,
/// where the CSV reader counts 3) and in a file of lone `\r` line ends
/// (lines 3 and 4, where it counts 1).
#[test]
fn csv_warnings_name_the_line_in_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let head = "time,event,key,holder,ttl_ms\n2025-03-03T10:20:00Z,acquired,k1,a,1000\n";
    let cases = [
        (
            "blank.csv",
            format!("{head}\n\n\n\n\nBAD1,acquired,k1,c,1000\n"),
            vec![":8: "],
        ),
        (
            "cr.csv",
            format!("{head}BAD1,acquired,k1,c,1000\nBAD2,acquired,k1,c,1000\n").replace('\n', "\r"),
            vec![":3: ", ":4: "],
        ),
    ];
    for (name, text, want) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        let out = bin()
            .args(["analyze", "--no-cache"])
            .arg(&path)
            .output()
            .expect("runs");
        let all = String::from_utf8_lossy(&out.stdout).to_string() + &stderr(&out);
        let warned: Vec<&str> = all
            .lines()
            .filter(|l| l.contains("unreadable time"))
            .collect();
        assert_eq!(warned.len(), want.len(), "{all}");
        for (line, at) in warned.iter().zip(&want) {
            assert!(line.contains(&format!("{name}{at}")), "{name}: {line}");
        }
    }
}

/// `cat a.gz b.jsonl`: b's lines are not read, and the warning says so
/// with the bytes and lines not read, not only "invalid gzip header". A
/// file name with a line feed stays on its line, never a fake report line.
#[test]
fn plain_lines_after_gzip_are_counted_and_names_stay_on_their_line() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("tempdir");
    let text = std::fs::read_to_string(sample("seed-incident.jsonl")).expect("sample");
    let lines: Vec<&str> = text.lines().collect();
    let (a, b) = lines.split_at(lines.len() / 2);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all((a.join("\n") + "\n").as_bytes())
        .expect("gzip");
    let mut bytes = gz.finish().expect("gzip");
    bytes.extend_from_slice((b.join("\n") + "\n").as_bytes());
    let path = dir
        .path()
        .join("app.jsonl\nlockreplay: 0 incident(s) · all clear");
    std::fs::write(&path, bytes).expect("write");
    let out = bin()
        .args(["analyze", "--no-cache"])
        .arg(&path)
        .output()
        .expect("runs");
    let all = String::from_utf8_lossy(&out.stdout).to_string() + &stderr(&out);
    let said = "non-blank line(s), are not compressed data and were not read";
    assert!(all.contains(said), "{all}");
    assert!(
        all.contains(&format!(
            "{} non-blank line(s)",
            b.iter().filter(|l| !l.trim().is_empty()).count()
        )),
        "{all}"
    );
    assert!(
        !all.lines()
            .any(|l| l.starts_with("lockreplay: 0 incident(s) · all clear")),
        "{all}"
    );
}
