//! The readers together: a text's container detected by the contest, then
//! walked record by record.

use std::ops::ControlFlow;

use super::container::Container;
use super::contest::{BidBook, bids_for, detect, detect_with};
use super::csv::{csv_with_header, headed_delim, walk_csv};
use super::walk::walk;
use crate::ingest::records::item::Item;
use crate::model::Dialect;

fn never(_: &str) -> bool {
    false
}

fn count(text: &str) -> (Dialect, usize, Vec<String>) {
    count_as(detect(text, never), text)
}

/// [`count`] with the container given, not detected.
fn count_as(c: Container, text: &str) -> (Dialect, usize, Vec<String>) {
    let mut n = 0;
    let mut bad = Vec::new();
    walk(&c, text, &mut |line, _, item| {
        match item {
            Item::Record(_) => n += 1,
            Item::Skip | Item::Warn(..) => {}
            Item::Bad(r) => bad.push(format!("{line}: {r}")),
        }
        ControlFlow::Continue(())
    });
    (c.dialect(), n, bad)
}

#[test]
fn detects_containers() {
    assert_eq!(count("{\"a\":1}\n\n{\"a\":2}\n").0, Dialect::JsonLines);
    assert_eq!(count("[{\"a\":1},\n{\"a\":2}]").1, 2);
    assert_eq!(count("time=1 level=INFO msg=\"x y\"\n").0, Dialect::Logfmt);
    assert_eq!(count("a,b\n1,2\n\n3,4\n"), (Dialect::Csv, 2, vec![]));
    assert_eq!(count("   \n").0, Dialect::Unknown);
    let es = r#"{"took":3,"hits":{"total":2,"hits":[{"_index":"x","_source":{"a":1}},{"_source":{"a":2}}]}}"#;
    assert_eq!(count(es), (Dialect::Elasticsearch, 2, vec![]));
    let es_pretty = "{\n \"hits\": {\"hits\": [\n {\"_source\": {\"a\": 1}}\n ]}\n}\n";
    assert_eq!(count(es_pretty), (Dialect::Elasticsearch, 1, vec![]));
    let loki = r#"{"status":"success","data":{"resultType":"streams","result":[{"stream":{"pod":"p1"},"values":[["1540289720000000000","{\"event\":\"acquired\"}"],["1540289721000000000","event=released k=v"]]}]}}"#;
    assert_eq!(count(loki), (Dialect::Loki, 2, vec![]));
    let logcli = r#"{"labels":{"pod":"p"},"line":"{\"a\":1}","timestamp":"2018-10-23T10:15:20Z"}"#;
    assert_eq!(count(logcli).0, Dialect::Loki);
}

#[test]
fn bids_kept_by_detection_are_the_bids_computed_afresh() {
    // A semicolon CSV with a header (the contest's CSV), text lines,
    // logfmt, and a comma file whose header test fails (any_delim's CSV):
    // the book detection fills gives describe_reading the same bids as
    // a fresh one, for the winner and for every other reader.
    let texts = [
        "time;event;lock_key;owner\n2026-12-01 07:00:00;acquired;k;a\n2026-12-01 07:00:01;released;k;a\n",
        "2026-12-01 07:00:00 INFO acquired lock k owner=a\n2026-12-01 07:00:01 INFO released lock k owner=a\n",
        "time=2026-12-01T07:00:00Z event=acquired key=k holder=a\n",
        "2026-12-01 07:00:00,acquired,k,a\nx,y\n",
    ];
    for text in texts {
        let mut book = BidBook::default();
        let winner = detect_with(text, never, &mut book);
        let others = [
            Container::Text { rules: None },
            Container::Logfmt,
            Container::Csv { delim: b',' },
            Container::Csv { delim: b';' },
        ];
        for c in std::iter::once(&winner).chain(&others) {
            assert_eq!(
                bids_for(c, text, &mut book),
                bids_for(c, text, &mut BidBook::default()),
                "{c:?} on {text:?}"
            );
        }
    }
}

#[test]
fn truncated_array_keeps_complete_elements() {
    let (_, n, bad) = count("[\n{\"a\":1},\n{\"a\":\"x]}\"},\n{\"a\":3,\"b\":\"cut");
    assert_eq!(n, 2);
    assert_eq!(
        bad,
        vec!["4: truncated JSON: element starting at line 4 is incomplete"]
    );
}

#[test]
fn a_stray_closing_brace_in_an_array_does_not_hang() {
    // A `}` at depth 0 is a bad element, not a place to loop on.
    let (d, n, bad) = count("[}]");
    assert_eq!((d, n), (Dialect::JsonArray, 0));
    assert_eq!(bad, vec!["1: invalid JSON: expected value at column 1"]);
    let (_, n, bad) = count("[{\"a\":1}},\n{\"a\":2}]");
    assert_eq!(n, 2);
    assert_eq!(bad, vec!["1: invalid JSON: expected value at column 1"]);
}

#[test]
fn bad_json_line_reason() {
    let (_, n, bad) = count("{\"a\":1}\n{\"a\":\"unterminated\n{\"a\":2}\n");
    assert_eq!(n, 2);
    assert_eq!(
        bad,
        vec!["2: invalid JSON: EOF while parsing a string at column 18"]
    );
}

#[test]
fn lone_carriage_returns_end_lines() {
    // A lone `\r` ends a line: otherwise such a file reads as one line,
    // and in logfmt the records after the first vanish without a warning.
    let (d, n, bad) = count("a=1 b=2\rc=3 d=4\r\re=5 f=6\r\n\ng=7 h=8");
    assert_eq!((d, n, bad), (Dialect::Logfmt, 4, vec![]));
    let (_, n, bad) = count("{\"a\":1}\r{\"a\":2}\r\n{\"a\":\r");
    assert_eq!(n, 2);
    assert_eq!(
        bad,
        vec!["3: invalid JSON: EOF while parsing a value at column 5"]
    );
}

#[test]
fn csv_missing_or_repeated_header_is_a_warning() {
    // The first data row is never silently taken for the header, and a
    // repeated header is never read as a bad time.
    let csv = || Container::Csv { delim: b',' };
    let (_, n, bad) = count_as(
        csv(),
        "2024-01-01T00:00:00Z,acquired\n2024-01-01T00:00:01Z,released\n",
    );
    assert_eq!(n, 1);
    assert_eq!(
        bad,
        vec![
            "1: the first row looks like data, not a header (\"2024-01-01T00:00:00Z\" is a time): \
             the CSV has no header row, so its columns are unknown"
        ]
    );
    let (_, n, bad) = count_as(csv(), "time,event\n1,a\ntime, event\n2,b\n");
    assert_eq!(n, 2);
    assert_eq!(bad, vec!["3: repeated header row (files joined together?)"]);
}

#[test]
fn csv_quotes_and_crlf() {
    let (d, n, bad) = count("时间,消息\r\n\"2023-01-01 00:00:00\",\"a, \"\"b\"\"\"\r\n");
    assert_eq!((d, n, bad), (Dialect::Csv, 1, vec![]));
}

#[test]
fn csv_warnings_name_the_line_after_blank_lines_and_lone_carriage_returns() {
    // The `csv` crate's own line number skips the blank lines and counts
    // no lone `\r`: by it `BAD1` on line 8 would be warned as line 3, and
    // both rows of a CR-only file as line 1.
    let lines_of = |text: &str| {
        let mut seen = Vec::new();
        walk_csv(text, b',', &mut |line, _, item| {
            if matches!(item, Item::Record(_)) {
                seen.push(line);
            }
            ControlFlow::Continue(())
        });
        seen
    };
    let blank = "time,event\n1,a\n\n\n\n\n\nBAD1,a\n";
    assert_eq!(lines_of(blank), vec![2, 8]);
    assert_eq!(lines_of("time,event\r1,a\rBAD1,a\rBAD2,a\r"), vec![2, 3, 4]);
    assert_eq!(
        lines_of("time,event\r\n1,a\r\n\r\n2,\"x\ny\"\r\n3,a\n"),
        vec![2, 4, 6]
    );
}

#[test]
fn csv_rows_after_several_unbalanced_quotes_keep_their_line_numbers() {
    let text = "time,event,key\n1,a,k\n\"2,b,k\n3,c,k\n\"4,d\n5,e,k\n6,\"f\n";
    let mut seen = Vec::new();
    walk_csv(text, b',', &mut |line, off, item| {
        let what = match item {
            Item::Record(_) => "row",
            Item::Skip => "skip",
            Item::Bad(..) => "bad",
            Item::Warn(..) => "warn",
        };
        seen.push((line, &text[off..off + 1], what));
        ControlFlow::Continue(())
    });
    assert_eq!(
        seen,
        vec![
            (2, "1", "row"),
            (3, "\"", "bad"),
            (4, "3", "row"),
            (5, "\"", "bad"),
            (6, "5", "row"),
            (7, "6", "bad"),
        ]
    );
}

#[test]
fn a_text_line_with_commas_whose_first_cell_starts_with_a_time_is_no_csv() {
    // logcat's `MM-dd HH:mm:ss.SSS pid tid L Tag: ...` with `k: v` pairs
    // after commas: the first row starts with a time, so it is no header
    // and the file is read as text records, never as a CSV whose header is
    // the first line.
    let text = "12-01 07:06:55.100  4242  4251 I LockService: got lock, cerrojo: lock:sku:1, titular: tok-X\n\
                12-01 07:06:55.200  4242  4251 I LockService: stock down, cerrojo: lock:sku:1, titular: tok-X, cantidad: 1\n\
                12-01 07:06:55.300  4242  4251 I LockService: gave lock back, cerrojo: lock:sku:1, titular: tok-X\n";
    assert_eq!(headed_delim(text), None);
    assert_eq!(csv_with_header(text), None);
    assert!(!matches!(detect(text, never), Container::Csv { .. }));
    // A header row keeps its CSV.
    let csv = "time,event,key\n2026-12-01T07:00:00Z,acquired,k\n";
    assert_eq!(headed_delim(csv), Some(b','));
}

#[test]
fn a_logfmt_message_naming_an_event_bids_as_the_same_line_read_as_text() {
    // logrus's text format: every line is logfmt, its event only in `msg`.
    // The logfmt reader, which keeps the pairs apart, must not be outbid
    // by the text reader reading the same words.
    let text = "time=\"2026-12-01T07:06:55.1+08:00\" level=info msg=\"抢到分布式锁\" zz=tok-33\n\
                time=\"2026-12-01T07:06:56.7+08:00\" level=info msg=\"归还锁\" zz=tok-33\n";
    assert!(matches!(detect(text, never), Container::Logfmt));
}
