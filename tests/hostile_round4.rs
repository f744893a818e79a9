//! The fourth hostile round (issue #51): Parquet files written byte by
//! byte, forged cache entries, inputs that made a path quadratic, times and
//! durations past any plausible value, and outputs aimed at their inputs.
//! Each input is made here at run time; every test here failed before its
//! fix.

use std::path::{Path, PathBuf};

use lockreplay::model::Message;

mod support;
use support::{bin, load, stderr};

/// Parquet files written byte by byte: a Thrift compact protocol writer
/// and a one-column (BYTE_ARRAY `msg`) file around hand-made pages
/// (apache/parquet-format `parquet.thrift`).
mod pq {
    fn varint(out: &mut Vec<u8>, mut n: u64) {
        loop {
            let b = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                out.push(b);
                return;
            }
            out.push(b | 0x80);
        }
    }

    fn zigzag(out: &mut Vec<u8>, n: i64) {
        varint(out, ((n << 1) ^ (n >> 63)) as u64);
    }

    /// A compact protocol writer: fields, nested structs, lists.
    #[derive(Default)]
    pub struct Thrift {
        pub b: Vec<u8>,
        last: Vec<i16>,
    }

    impl Thrift {
        pub fn new() -> Thrift {
            Thrift {
                b: Vec::new(),
                last: vec![0],
            }
        }
        fn head(&mut self, id: i16, ty: u8) {
            let last = self.last.last_mut().expect("open struct");
            let d = id - *last;
            if (1..=15).contains(&d) {
                self.b.push(((d as u8) << 4) | ty);
            } else {
                self.b.push(ty);
                zigzag(&mut self.b, i64::from(id));
            }
            *last = id;
        }
        pub fn i32(&mut self, id: i16, v: i64) -> &mut Self {
            self.head(id, 5);
            zigzag(&mut self.b, v);
            self
        }
        pub fn i64(&mut self, id: i16, v: i64) -> &mut Self {
            self.head(id, 6);
            zigzag(&mut self.b, v);
            self
        }
        pub fn bin(&mut self, id: i16, v: &[u8]) -> &mut Self {
            self.head(id, 8);
            varint(&mut self.b, v.len() as u64);
            self.b.extend_from_slice(v);
            self
        }
        pub fn open(&mut self, id: i16) -> &mut Self {
            self.head(id, 12);
            self.last.push(0);
            self
        }
        /// Opens one struct element of a list.
        pub fn element(&mut self) -> &mut Self {
            self.last.push(0);
            self
        }
        pub fn close(&mut self) -> &mut Self {
            self.b.push(0);
            self.last.pop();
            self
        }
        pub fn list(&mut self, id: i16, elem: u8, n: u64) -> &mut Self {
            self.head(id, 9);
            if n < 15 {
                self.b.push(((n as u8) << 4) | elem);
            } else {
                self.b.push(0xf0 | elem);
                varint(&mut self.b, n);
            }
            self
        }
        pub fn raw_varint(&mut self, v: i64) -> &mut Self {
            zigzag(&mut self.b, v);
            self
        }
    }

    /// Page types and encodings.
    pub const DATA: i64 = 0;
    pub const DICT: i64 = 2;
    pub const PLAIN: i64 = 0;
    pub const RLE_DICT: i64 = 8;

    /// A page: header then body; `declared` is its uncompressed size.
    pub fn page(kind: i64, declared: i64, body: &[u8], values: i64, encoding: i64) -> Vec<u8> {
        let mut t = Thrift::new();
        t.i32(1, kind).i32(2, declared).i32(3, body.len() as i64);
        if kind == DATA {
            t.open(5)
                .i32(1, values)
                .i32(2, encoding)
                .i32(3, 3)
                .i32(4, 3)
                .close();
        } else {
            t.open(7).i32(1, values).i32(2, PLAIN).close();
        }
        t.b.push(0);
        t.b.extend_from_slice(body);
        t.b
    }

    /// PLAIN byte arrays.
    pub fn plain(values: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for v in values {
            out.extend_from_slice(&(v.len() as u32).to_le_bytes());
            out.extend_from_slice(v);
        }
        out
    }

    /// Dictionary indices: bit width 8, one RLE run of `count` times `index`.
    pub fn indices(count: u64, index: u8) -> Vec<u8> {
        let mut out = vec![8];
        varint(&mut out, count << 1);
        out.push(index);
        out
    }

    /// The usual schema: a root with one required UTF-8 BYTE_ARRAY `msg`.
    pub fn flat_schema(t: &mut Thrift) {
        t.list(2, 12, 2);
        t.element().bin(4, b"schema").i32(5, 1).close();
        t.element()
            .i32(1, 6)
            .i32(3, 0)
            .bin(4, b"msg")
            .i32(6, 0)
            .close();
    }

    /// A schema `depth` groups deep around one optional `msg`.
    pub fn deep_schema(depth: u64) -> impl Fn(&mut Thrift) {
        move |t| {
            t.list(2, 12, depth + 1);
            t.element().bin(4, b"schema").i32(5, 1).close();
            for _ in 1..depth {
                t.element().i32(3, 1).bin(4, b"g").i32(5, 1).close();
            }
            t.element().i32(1, 6).i32(3, 1).bin(4, b"msg").close();
        }
    }

    /// A file of one row group and one column chunk of `pages` (the first a
    /// dictionary page when `dict`), compressed with `codec`.
    pub fn file(
        pages: &[Vec<u8>],
        rows: i64,
        codec: i64,
        dict: bool,
        schema: &dyn Fn(&mut Thrift),
    ) -> Vec<u8> {
        let mut out = b"PAR1".to_vec();
        let start = out.len() as i64;
        let mut offsets = Vec::new();
        for p in pages {
            offsets.push(out.len() as i64);
            out.extend_from_slice(p);
        }
        let total = out.len() as i64 - start;
        let mut t = Thrift::new();
        t.i32(1, 1);
        schema(&mut t);
        t.i64(3, rows).list(4, 12, 1).element().list(1, 12, 1);
        t.element().i64(2, start).open(3);
        t.i32(1, 6).list(2, 5, 2).raw_varint(0).raw_varint(8);
        t.list(3, 8, 1);
        t.b.extend_from_slice(&[3, b'm', b's', b'g']);
        t.i32(4, codec).i64(5, rows).i64(6, total).i64(7, total);
        t.i64(9, offsets[usize::from(dict)]);
        if dict {
            t.i64(11, offsets[0]);
        }
        t.close().close();
        t.i64(2, total).i64(3, rows).close();
        t.b.push(0);
        out.extend_from_slice(&t.b);
        out.extend_from_slice(&(t.b.len() as u32).to_le_bytes());
        out.extend_from_slice(b"PAR1");
        out
    }
}

/// One lock event as the JSON text a Parquet `msg` column holds.
const LINE: &[u8] =
    br#"{"ts":"2024-01-01T00:00:00Z","event":"acquired","key":"lock:a","holder":"w1"}"#;

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write");
    path
}

/// The warnings `analyze` printed on `path`, asserting it ended as a run
/// (0, 1 or 2 with a reason), not a crash.
fn analyze_survives(path: &Path) -> String {
    let out = bin()
        .args(["analyze", "--no-cache"])
        .arg(path)
        .output()
        .expect("runs");
    let err = stderr(&out);
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &err;
    assert!(
        matches!(out.status.code(), Some(0..=2)),
        "{:?}: {text}",
        out.status
    );
    assert!(!err.contains("panicked"), "{text}");
    text
}

/// The hand-made files the crate handles: the control reads its two rows.
#[test]
fn parquet_written_by_hand_reads() {
    let dir = tempfile::tempdir().expect("tempdir");
    let body = pq::plain(&[LINE, LINE]);
    let page = pq::page(pq::DATA, body.len() as i64, &body, 2, pq::PLAIN);
    let f = pq::file(&[page], 2, 0, false, &pq::flat_schema);
    let log = load(&[write(dir.path(), "good.parquet", &f)]);
    assert_eq!(log.sources[0].lines_read, 2, "{:?}", log.warnings);
}

/// A dictionary page promising more values than it holds, and a
/// dictionary-coded page with no dictionary: an unreadable-file warning.
/// Before: panics inside the parquet crate, exit 101.
#[test]
fn parquet_malformed_dictionaries_are_warnings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dict = pq::plain(&[LINE, LINE]);
    let ix = pq::indices(3, 1);
    let over = pq::file(
        &[
            pq::page(pq::DICT, dict.len() as i64, &dict, 3, pq::PLAIN),
            pq::page(pq::DATA, ix.len() as i64, &ix, 3, pq::RLE_DICT),
        ],
        3,
        0,
        true,
        &pq::flat_schema,
    );
    let far = pq::file(
        &[
            pq::page(pq::DICT, dict.len() as i64, &dict, 1000, pq::PLAIN),
            pq::page(pq::DATA, ix.len() as i64, &ix, 3, pq::RLE_DICT),
        ],
        3,
        0,
        true,
        &pq::flat_schema,
    );
    let missing = pq::file(
        &[pq::page(pq::DATA, ix.len() as i64, &ix, 3, pq::RLE_DICT)],
        3,
        0,
        false,
        &pq::flat_schema,
    );
    for (name, bytes, says) in [
        ("over.parquet", over, "promises 3 values"),
        ("far.parquet", far, "promises 1000 values"),
        ("missing.parquet", missing, "without a dictionary"),
    ] {
        let text = analyze_survives(&write(dir.path(), name, &bytes));
        assert!(text.contains(says), "{name}: {text}");
    }
}

/// A schema nested 100 000 deep is refused before the crate recurses on
/// it. Before: stack overflow, abort.
#[test]
fn parquet_deep_schema_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let body = pq::plain(&[LINE]);
    let page = pq::page(pq::DATA, body.len() as i64, &body, 1, pq::PLAIN);
    let f = pq::file(&[page], 1, 0, false, &pq::deep_schema(100_000));
    let text = analyze_survives(&write(dir.path(), "deep.parquet", &f));
    assert!(text.contains("nests deeper than 64"), "{text}");
}

/// A footer the crate reads as naming a column chunk that this reader's
/// bounds did not walk (the fuzz input `parquet-page-header-skip-seconds`,
/// whose page header then nests maps the crate skipped past the end of
/// its stream for seconds) is refused before the crate reads a page.
#[test]
fn parquet_footer_read_two_ways_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bytes = std::fs::read(support::repo(
        "tests/fixtures/hostile/fuzz/parquet-page-header-skip-seconds",
    ))
    .expect("fuzz input");
    let text = analyze_survives(&write(dir.path(), "two-ways.parquet", &bytes));
    assert!(
        text.contains("read differently to the Parquet library"),
        "{text}"
    );
}

/// Pages expand within the file's budget: a page declaring 2 GiB, a gzip
/// page inflating past what it declares, a gzip page bomb (100 MiB from
/// about 100 KB) and one dictionary value repeated 5 M times are refused
/// with the bound they pass, before the memory is taken. Before: 2 GB
/// allocated per column, the whole bomb inflated, gigabytes of rows.
#[test]
fn parquet_expansion_is_bounded() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("tempdir");
    let gzip = |data: &[u8]| {
        let mut g = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        g.write_all(data).expect("gzip");
        g.finish().expect("gzip")
    };
    let body = pq::plain(&[LINE, LINE]);
    let gz = gzip(&body);
    let huge = pq::file(
        &[pq::page(pq::DATA, i64::from(i32::MAX), &gz, 2, pq::PLAIN)],
        2,
        2,
        false,
        &pq::flat_schema,
    );
    let big = vec![b'a'; 4 << 20];
    let liar = pq::file(
        &[pq::page(
            pq::DATA,
            100,
            &gzip(&pq::plain(&[&big])),
            1,
            pq::PLAIN,
        )],
        1,
        2,
        false,
        &pq::flat_schema,
    );
    let bomb_body = pq::plain(&[&vec![b'a'; 100 << 20]]);
    let bomb = pq::file(
        &[pq::page(
            pq::DATA,
            bomb_body.len() as i64,
            &gzip(&bomb_body),
            1,
            pq::PLAIN,
        )],
        1,
        2,
        false,
        &pq::flat_schema,
    );
    let value = [b"{\"msg\":\"".as_slice(), &[b'x'; 1500], b"\"}"].concat();
    let dict = pq::plain(&[&value]);
    let ix = pq::indices(5_000_000, 0);
    let repeated = pq::file(
        &[
            pq::page(pq::DICT, dict.len() as i64, &dict, 1, pq::PLAIN),
            pq::page(pq::DATA, ix.len() as i64, &ix, 5_000_000, pq::RLE_DICT),
        ],
        5_000_000,
        0,
        true,
        &pq::flat_schema,
    );
    for (name, bytes, says) in [
        ("huge.parquet", huge, "pages expand past 64 MiB"),
        ("liar.parquet", liar, "inflates past the 100 bytes"),
        ("bomb.parquet", bomb, "pages expand past 64 MiB"),
        ("repeated.parquet", repeated, "64 MiB limit"),
    ] {
        let path = write(dir.path(), name, &bytes);
        let log = load(std::slice::from_ref(&path));
        let said: Vec<String> = log.warnings.kept().iter().map(|w| w.reason.en()).collect();
        assert!(said.iter().any(|s| s.contains(says)), "{name}: {said:?}");
    }
}

/// docker json-file parts left open on 100 000 streams are joined per
/// stream in one pass. Before: a linear search of the open runs per line
/// and a rewrite of the text's tail per open run (quadratic: minutes).
#[test]
fn docker_parts_on_many_streams_stay_linear() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut text = String::new();
    text.push_str(
        "{\"log\":\"{\\\"ts\\\":\\\"2024-01-01T00:00:00Z\\\",\\\"event\\\":\\\"acquired\\\",\\\"key\\\":\\\"lock:a\\\",\\\"holder\\\":\\\"w1\\\"}\\n\",\"stream\":\"stdout\",\"time\":\"2024-01-01T00:00:00Z\"}\n",
    );
    for i in 0..100_000 {
        text.push_str(&format!(
            "{{\"log\":\"part\",\"stream\":\"s{i}\",\"time\":\"2024-01-01T00:00:01Z\"}}\n"
        ));
    }
    let path = write(dir.path(), "parts.log", text.as_bytes());
    let started = std::time::Instant::now();
    let log = load(&[path]);
    assert_eq!(log.sources[0].lines_read, 100_001);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
}

/// An input still growing while read is read up to its size at open.
/// Before: the reader chased the end, no answer.
#[test]
fn a_growing_input_is_read_up_to_its_size_at_open() {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("live.jsonl");
    let line = String::from_utf8_lossy(LINE).into_owned() + "\n";
    std::fs::write(&path, line.repeat(1000)).expect("write");
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let writer = {
        let (stop, path, line) = (stop.clone(), path.clone(), line.clone());
        std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .expect("open");
            let chunk = line.repeat(1000);
            let mut written = 0u64;
            // About 8 MB/s, at most 512 MiB: longer than the wait below.
            while !stop.load(Ordering::Relaxed) && written < 512 << 20 {
                f.write_all(chunk.as_bytes()).expect("append");
                written += chunk.len() as u64;
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        })
    };
    let mut child = bin()
        .args(["analyze", "--no-cache", "--format", "json"])
        .arg(&path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("runs");
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break Some(s);
        }
        if started.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    stop.store(true, Ordering::Relaxed);
    writer.join().expect("writer");
    assert!(status.is_some(), "no answer in 20 s on a growing input");
}

/// RFC 3164 lines across a new year, one of them a second late: the late
/// line keeps its own year and every later line stays in the new one.
/// Before: the late line moved the clock a year on, the next lines a year
/// later again.
#[test]
fn a_late_rfc3164_line_never_moves_the_year() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lines = [
        "<134>Dec 31 23:59:58 web-01 shop[1]: event=acquired key=lock:a holder=w1 ttl_ms=30000",
        "<134>Jan  1 00:00:01 web-01 shop[1]: event=released key=lock:a holder=w1",
        "<134>Dec 31 23:59:59 web-01 shop[1]: event=acquired key=lock:b holder=w2 ttl_ms=30000",
        "<134>Jan  1 00:00:03 web-01 shop[1]: event=acquired key=lock:a holder=w3 ttl_ms=30000",
        "<134>Jan  1 00:00:04 web-01 shop[1]: event=released key=lock:a holder=w3",
    ];
    let path = write(
        dir.path(),
        "syslog.log",
        (lines.join("\n") + "\n").as_bytes(),
    );
    let log = load(&[path]);
    assert_eq!(log.events.len(), 5, "{:?}", log.warnings.kept());
    let times: Vec<i64> = log.events.iter().map(|e| e.at_ns).collect();
    let spread = times.iter().max().expect("events") - times.iter().min().expect("events");
    assert!(spread < 10_000_000_000, "spread {spread} ns: {times:?}");
}

/// RFC 3164 lines (no year) among an application's dated lines in one
/// file take the dated lines' year, on the chunked path as on the whole-file
/// one. Before: read in the current year, the overlap with the dated
/// holder lost (0 incidents, exit 0).
#[test]
fn rfc3164_lines_among_dated_lines_take_their_year() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lines = [
        "2024-03-05 10:00:00.100  INFO 1234 --- [exec-1] c.e.Lock : acquired lock key=lock:a holder=w1 ttl_ms=2000",
        "Mar  5 10:00:00 web-01 app[77]: acquired lock key=lock:a holder=w2 ttl_ms=2000",
        "2024-03-05 10:00:01.500  INFO 1234 --- [exec-1] c.e.Lock : released lock key=lock:a holder=w1",
        "Mar  5 10:00:02 web-01 app[77]: released lock key=lock:a holder=w2",
    ];
    let path = write(
        dir.path(),
        "mixed.log",
        (lines.join("\n") + "\n").as_bytes(),
    );
    let log = load(&[path]);
    assert_eq!(log.events.len(), 4, "{:?}", log.warnings.kept());
    let first = log.events.iter().map(|e| e.at_ns).min().expect("events");
    let last = log.events.iter().map(|e| e.at_ns).max().expect("events");
    assert!(last - first < 3_000_000_000, "{first} .. {last}");
    let notes: Vec<String> = log.sources[0].notes.iter().map(|n| n.to_string()).collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("read in 2024, from the first line with a date")),
        "{notes:?}"
    );
}

/// A GC line claiming a pause of 10^23 ms is a warning, not evidence that
/// could become an incident's cause. Before: a pause starting in 1734.
#[test]
fn an_implausible_gc_pause_is_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = "[2026-12-03T16:47:44.836+0000][0.003s][info][gc] Using Serial\n\
        [2026-12-03T16:47:50.000+0000][5.100s][info][gc] GC(0) Pause Young (Allocation Failure) 10M->5M(20M) 3.456ms\n\
        [2026-12-03T16:47:51.000+0000][6.100s][info][gc] GC(1) Pause Full (Allocation Failure) 10M->5M(20M) 100000000000000000000000.000ms\n";
    let path = write(dir.path(), "gc.log", text.as_bytes());
    let log = load(&[path]);
    assert_eq!(log.evidence.len(), 1, "{:?}", log.evidence);
    let longest = log
        .evidence
        .iter()
        .filter_map(|e| Some(e.end_ns? - e.at_ns))
        .max()
        .unwrap_or(0);
    assert!(longest < 3_600_000_000_000, "{longest}");
    assert_eq!(log.warnings.total(), 1, "{:?}", log.warnings.kept());
}

/// SLS's `__time__` + `__time_ns_part__` keep their nanoseconds when the
/// application's record is in `content` (the envelope scan read `__time__`
/// raw) and in the CSV export. Before: whole seconds, 0 incidents.
#[test]
fn sls_ns_parts_are_read_in_every_shape() {
    let dir = tempfile::tempdir().expect("tempdir");
    let steps = [
        ("acquired", "w1", 100),
        ("acquired", "w2", 200),
        ("released", "w1", 300),
        ("released", "w2", 400),
    ];
    let mut jsonl = String::new();
    let mut csv = String::from("__time__,__time_ns_part__,__topic__,content\n");
    for (event, holder, ms) in steps {
        let content = format!(
            r#"{{"ts":"2024-01-01T00:00:00Z","event":"{event}","key":"lock:a","holder":"{holder}","ttl_ms":30000}}"#
        );
        let line = serde_json::json!({
            "__time__": "1704067200",
            "__time_ns_part__": (ms * 1_000_000).to_string(),
            "__topic__": "app",
            "content": content,
        });
        jsonl.push_str(&format!("{line}\n"));
        csv.push_str(&format!(
            "1704067200,{},app,2024-01-01 00:00:00 INFO event={event} key=lock:a holder={holder} ttl_ms=30000\n",
            ms * 1_000_000
        ));
    }
    // The API's answers: GetLogs (`meta` beside the records in `data`), a
    // LogGroup (`__topic__`, `__source__` and `__tag__` beside the records
    // in `logs`), and the records pretty-printed one after another (`jq`).
    let records: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    let get_logs =
        serde_json::json!({"meta": {"progress": "Complete", "count": 4}, "data": records});
    let log_group = serde_json::json!({
        "__topic__": "app",
        "__source__": "10.0.0.1",
        "__tag__": {"__hostname__": "web-01"},
        "logs": records,
    });
    // A LogGroup a line, as a consumer writes each pulled LogGroup out.
    let group_lines: String = records
        .chunks(2)
        .map(|r| {
            let g = serde_json::json!({"__topic__": "app", "__source__": "10.0.0.1",
                "__tag__": {"__hostname__": "web-01"}, "logs": r});
            format!("{g}\n")
        })
        .collect();
    let pretty: String = records
        .iter()
        .map(|r| serde_json::to_string_pretty(r).expect("json") + "\n")
        .collect();
    for (name, text) in [
        ("sls.jsonl", jsonl),
        ("sls.csv", csv),
        ("getlogs.json", get_logs.to_string()),
        ("loggroup.json", log_group.to_string()),
        ("loggroups.jsonl", group_lines),
        ("pretty.json", pretty),
    ] {
        let log = load(&[write(dir.path(), name, text.as_bytes())]);
        let ms: Vec<i64> = log
            .events
            .iter()
            .map(|e| (e.at_ns % 1_000_000_000) / 1_000_000)
            .collect();
        assert_eq!(ms, [100, 200, 300, 400], "{name}");
    }
}

/// JSON Lines of LogGroups as aliyun-log-python-sdk's
/// `PullLogResponse.get_loggroup_json_list()` gives them
/// (`aliyun/log/pulllog_response.py`, `_transfer_to_json`: `topic`,
/// `source` and `logs`, each log's `@lh_time` beside its contents), one
/// group a line: every log is a record. Before: the groups' own fields only,
/// "no time field", exit 2.
#[test]
fn sls_loggroups_one_a_line_are_read_record_by_record() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = |event: &str, holder: &str, ms: u32| {
        serde_json::json!({"@lh_time": 1_704_067_200, "time": format!("2024-01-01 00:00:00.{ms:03}"),
            "event": event, "lock_key": "lock:a", "owner": holder, "ttl_ms": "30000"})
    };
    let groups = [
        serde_json::json!({"topic": "app", "source": "10.0.0.1",
            "logs": [log("acquired", "w1", 100), log("acquired", "w2", 200)]}),
        serde_json::json!({"topic": "app", "source": "10.0.0.2",
            "logs": [log("released", "w1", 300), log("released", "w2", 400)]}),
    ];
    let text: String = groups.iter().map(|g| format!("{g}\n")).collect();
    let log = load(&[write(dir.path(), "pulled.jsonl", text.as_bytes())]);
    assert_eq!(log.events.len(), 4, "{:?}", log.warnings.kept());
    let out = bin()
        .args(["analyze", "--format", "json"])
        .arg(dir.path().join("pulled.jsonl"))
        .output()
        .expect("run");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json report");
    assert_eq!(
        report["incidents"].as_array().map(Vec::len),
        Some(1),
        "{report}"
    );
}

/// `inspect --write-mapping` on a log whose lock words and pairs are in
/// `msg` writes a mapping that reads the log back: no role named after a
/// pair inside the message (`event = "event"`, no such field). Before:
/// reading with it found no lock event, exit 2.
#[test]
fn a_mapping_written_from_message_pairs_reads_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lines = [
        r#"{"time":"2024-01-01T00:00:00.000Z","level":"INFO","msg":"acquired lock key=lock:a holder=w1 ttl_ms=30000"}"#,
        r#"{"time":"2024-01-01T00:00:00.500Z","level":"INFO","msg":"acquired lock key=lock:a holder=w2 ttl_ms=30000"}"#,
        r#"{"time":"2024-01-01T00:00:01.000Z","level":"INFO","msg":"released lock key=lock:a holder=w1"}"#,
        r#"{"time":"2024-01-01T00:00:02.000Z","level":"INFO","msg":"released lock key=lock:a holder=w2"}"#,
    ];
    let log = write(
        dir.path(),
        "msg.jsonl",
        (lines.join("\n") + "\n").as_bytes(),
    );
    let mapping = dir.path().join("m.toml");
    let out = bin()
        .arg("inspect")
        .arg(&log)
        .arg("--write-mapping")
        .arg(&mapping)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&mapping).expect("mapping");
    assert!(!text.contains("event = \"event\""), "{text}");
    let out = bin()
        .args(["analyze", "--no-cache", "--mapping"])
        .arg(&mapping)
        .arg(&log)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "{text}\n{}", stderr(&out));
}

/// A line regex on very long lines: each line may cost the regex's size
/// times its length, within a budget (at most 256 KiB of line); a longer
/// line is a warning with its reason. Before: no bound, seconds to minutes
/// per line with captures for a regex near the size limit.
#[test]
fn a_line_regex_on_long_lines_is_bounded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mapping = write(
        dir.path(),
        "m.toml",
        br#"line_regex = '^(?P<time>\S+) (?P<event>\w+) (?P<key>\S+) (?P<holder>\S+)(?P<message>.*)$'
"#,
    );
    let long = format!(
        "2024-01-01T00:00:00.500Z acquired lock:b w9 {}",
        "x ".repeat(150_000)
    );
    let text = [
        "2024-01-01T00:00:00.000Z acquired lock:a w1",
        &long,
        &long,
        "2024-01-01T00:00:01.000Z released lock:a w1",
    ]
    .join("\n");
    let log_path = write(dir.path(), "long.log", text.as_bytes());
    let started = std::time::Instant::now();
    let out = bin()
        .args(["analyze", "--no-cache", "--format", "json", "--mapping"])
        .arg(&mapping)
        .arg(&log_path)
        .output()
        .expect("runs");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    let json = String::from_utf8_lossy(&out.stdout);
    assert!(
        json.contains("the mapping's regexes take"),
        "{json}\n{}",
        stderr(&out)
    );
}

/// A docker json-file line around `payload` (the application's line).
fn docker(payload: &str) -> String {
    let line = serde_json::json!({
        "log": format!("{payload}\n"),
        "stream": "stdout",
        "time": "2024-01-01T00:00:00Z",
    });
    format!("{line}\n")
}

/// An application record at second `s` of 2024-01-01.
fn app(s: u32, event: &str, key: &str, holder: &str) -> String {
    serde_json::json!({
        "ts": format!("2024-01-01T00:{:02}:{:02}Z", s / 60 % 60, s % 60),
        "event": event,
        "key": key,
        "holder": holder,
        "ttl_ms": 30000,
    })
    .to_string()
}

/// 250 records of holds that never overlap (past the 200 records payload
/// detection reads), as docker json-file lines.
fn quiet_holds() -> String {
    (0..125)
        .flat_map(|i| {
            let (key, holder) = (format!("lock:k{i}"), format!("w{i}"));
            [
                docker(&app(2 * i, "acquired", &key, &holder)),
                docker(&app(2 * i + 1, "released", &key, &holder)),
            ]
        })
        .collect()
}

/// The four records of an overlap on `lock:hot` (x2 acquires while x1
/// holds), from second 300.
fn overlap_records() -> [String; 4] {
    [
        app(300, "acquired", "lock:hot", "x1"),
        app(301, "acquired", "lock:hot", "x2"),
        app(302, "released", "lock:hot", "x1"),
        app(303, "released", "lock:hot", "x2"),
    ]
}

/// The overlap pairs of `log` and its one source's counts
/// `[read, loaded, skipped, warned]`.
fn pairs_and_counts(log: &lockreplay::model::LoadedLog) -> (usize, [u64; 4]) {
    let a = lockreplay::analysis::analyze(log, &lockreplay::analysis::Settings::default());
    let s = &log.sources[0];
    let counts = [
        s.lines_read,
        s.events_loaded,
        s.lines_skipped,
        s.lines_warned,
    ];
    (a.summary.overlap_pairs as usize, counts)
}

/// Payloads that change after the records payload detection reads: JSON
/// once and then encoded twice, or moved to another field of the envelope
/// (`log` to `message`), are read as the application's records. Before:
/// the overlap's four lines skipped without a word, 0 incidents, exit 0.
#[test]
fn a_payload_that_changes_after_detection_is_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut twice = quiet_holds();
    let mut moved = quiet_holds();
    for r in overlap_records() {
        twice.push_str(&docker(&serde_json::Value::String(r.clone()).to_string()));
        let line =
            serde_json::json!({"message": r, "stream": "stdout", "time": "2024-01-01T00:00:00Z"});
        moved.push_str(&format!("{line}\n"));
    }
    for (name, text) in [("twice.log", twice), ("moved.log", moved)] {
        let log = load(&[write(dir.path(), name, text.as_bytes())]);
        let (pairs, counts) = pairs_and_counts(&log);
        assert_eq!(pairs, 1, "{name}: {:?}", log.warnings.kept());
        assert_eq!(counts, [254, 254, 0, 0], "{name}");
    }
}

/// Payloads that are JSON records no reader can take: cut after 199
/// records, or nested 10 000 deep, are warnings naming the field and the
/// reason, never skipped lines. Before: skipped without a word.
#[test]
fn an_unreadable_json_payload_is_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cut = String::new();
    for (i, r) in (0..199u32)
        .map(|i| app(i, "acquired", &format!("lock:k{i}"), "w"))
        .chain(overlap_records())
        .enumerate()
    {
        let r = if i >= 199 {
            r[..r.len() / 2].to_string()
        } else {
            r
        };
        cut.push_str(&docker(&r));
    }
    let mut deep = quiet_holds();
    let nested = "{\"a\":".repeat(10_000) + "1" + &"}".repeat(10_000);
    for r in overlap_records() {
        deep.push_str(&docker(&format!("{},\"x\":{nested}}}", &r[..r.len() - 1])));
    }
    for (name, text, counts, says) in [
        ("cut.log", cut, [203, 199, 0, 4], "EOF while parsing"),
        (
            "deep.log",
            deep,
            [254, 250, 0, 4],
            "recursion limit exceeded",
        ),
    ] {
        let log = load(&[write(dir.path(), name, text.as_bytes())]);
        assert_eq!(pairs_and_counts(&log).1, counts, "{name}");
        let said: Vec<String> = log.warnings.kept().iter().map(|w| w.reason.en()).collect();
        assert_eq!(said.len(), 4, "{name}: {said:?}");
        assert!(
            said.iter()
                .all(|s| s.contains("payload in field log") && s.contains(says)),
            "{name}: {said:?}"
        );
    }
}

/// A whole-second file whose incident turns on the order of one second's
/// lines (w2 acquires after w1's lease expired, and w1 works on in the same
/// second: an overlap), with five older lines of other keys appended
/// newest first: the file is read in its own order, decided on each key's
/// own lines, never the appended noise's. Before: the file was taken as
/// newest first, second 3's lines read backwards (a hand-off), 0
/// incidents, exit 0.
#[test]
fn older_lines_appended_newest_first_never_turn_an_instant_around() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = "time,event,key,holder,ttl_ms\n\
        2024-01-01 00:01:01,acquired,lock:a,w1,2000\n\
        2024-01-01 00:01:03,acquired,lock:a,w2,2000\n\
        2024-01-01 00:01:03,processing,lock:a,w1,\n\
        2024-01-01 00:00:50,acquired,lock:z,z5,30000\n\
        2024-01-01 00:00:40,acquired,lock:z,z4,30000\n\
        2024-01-01 00:00:30,released,lock:y,z3,\n\
        2024-01-01 00:00:20,released,lock:x,z2,\n\
        2024-01-01 00:00:10,acquired,lock:w,z1,30000\n";
    let log = load(&[write(dir.path(), "seconds.csv", text.as_bytes())]);
    assert_eq!(pairs_and_counts(&log), (1, [8, 8, 0, 0]));
}

/// `render` with an input named like its output's temporary files
/// (`.out.png.lockreplay-PID-...`, the PID of no process): refused before
/// anything is read or written, the input left as it was. Before: the
/// write's sweep of a killed run's temporaries deleted the input.
#[test]
fn render_never_removes_an_input_named_like_its_temporary() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = write(
        dir.path(),
        ".out.png.lockreplay-4000000-abc123",
        &(String::from_utf8_lossy(LINE).into_owned() + "\n").into_bytes(),
    );
    let out = bin()
        .arg("render")
        .arg(&input)
        .arg("--out")
        .arg(dir.path().join("out.png"))
        .output()
        .expect("runs");
    let err = stderr(&out);
    if err.contains("without the `gui` feature") {
        println!("skipped: {err}");
        return;
    }
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("named like its temporary"), "{err}");
    assert!(input.exists(), "the input is still there");
    assert!(!dir.path().join("out.png").exists());
}

/// Spring Boot lines and logfmt lines in one text file: a logfmt line's
/// lock key and holder, inside its quoted `msg`, are read as the logfmt
/// reader reads them, so the overlap between a logfmt holder and a Spring
/// Boot one stays. Before: the logfmt lines loaded as events without key
/// or holder (not lock events), 0 incidents, exit 0.
#[test]
fn a_logfmt_line_among_spring_boot_lines_keeps_its_pairs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let spring = |s: u32, m: &str| {
        format!("2024-01-01 00:00:{s:02}.000  INFO 1 --- [main] c.e.Lock : {m}\n")
    };
    let logfmt =
        |s: u32, m: &str| format!("time=2024-01-01T00:00:{s:02}.000Z level=info msg=\"{m}\"\n");
    let mut text = String::new();
    for i in 0..10 {
        text.push_str(&spring(
            2 * i,
            &format!("acquired lock key=lock:k{i} holder=w{i} ttl_ms=30000"),
        ));
        text.push_str(&spring(
            2 * i + 1,
            &format!("released lock key=lock:k{i} holder=w{i}"),
        ));
    }
    text.push_str(&logfmt(
        30,
        "acquired lock key=lock:hot holder=x1 ttl_ms=30000",
    ));
    text.push_str(&spring(
        31,
        "acquired lock key=lock:hot holder=x2 ttl_ms=30000",
    ));
    text.push_str(&logfmt(32, "released lock key=lock:hot holder=x1"));
    text.push_str(&spring(33, "released lock key=lock:hot holder=x2"));
    let log = load(&[write(dir.path(), "two-layouts.log", text.as_bytes())]);
    assert_eq!(pairs_and_counts(&log), (1, [24, 24, 0, 0]));
    assert!(
        log.events
            .iter()
            .all(|e| e.key.is_some() && e.holder.is_some())
    );
}

/// A docker json-file log whose payloads are a JSON logger's records
/// (`lock_key`, `owner`) through the 200 records detection reads, then
/// Spring Boot text lines (`key=`, `token=`): the text lines past the
/// window are read by the text reader with their pairs' canonical names,
/// so the overlap between a JSON holder and a text one stays (round three:
/// "JSON and text payloads in one file: the incident lost").
#[test]
fn text_payloads_after_json_ones_past_detection_keep_the_overlap() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = |s: u32, event: &str, key: &str, owner: &str| {
        serde_json::json!({
            "ts": format!("2024-01-01T00:{:02}:{:02}Z", s / 60 % 60, s % 60),
            "event": event,
            "lock_key": key,
            "owner": owner,
            "ttl_ms": 30000,
        })
        .to_string()
    };
    let spring = |s: u32, m: &str| {
        format!(
            "2024-01-01 00:{:02}:{:02}.000  INFO 1 --- [main] c.e.Lock : {m}",
            s / 60 % 60,
            s % 60
        )
    };
    let mut text = String::new();
    for i in 0..125 {
        let (key, owner) = (format!("lock:k{i}"), format!("w{i}"));
        text.push_str(&docker(&json(2 * i, "acquired", &key, &owner)));
        text.push_str(&docker(&json(2 * i + 1, "released", &key, &owner)));
    }
    text.push_str(&docker(&json(300, "acquired", "lock:hot", "x1")));
    text.push_str(&docker(&spring(
        301,
        "acquired lock key=lock:hot token=x2 ttl=30s",
    )));
    text.push_str(&docker(&json(302, "released", "lock:hot", "x1")));
    text.push_str(&docker(&spring(303, "released lock key=lock:hot token=x2")));
    let log = load(&[write(dir.path(), "late-text.log", text.as_bytes())]);
    assert_eq!(pairs_and_counts(&log), (1, [254, 254, 0, 0]));
}
